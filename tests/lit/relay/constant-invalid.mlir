// Verifier errors of relay.constant.
// Every chunk fails verification with one located line naming the offending operand or property.
// RUN: accel-opt %s --split-input-file --verify-diagnostics
// Without --verify-diagnostics every chunk's error is one line on stderr, and the exit code is 1.
// RUN: not accel-opt %s --split-input-file 2>&1 | filecheck %s

func.func @value_type() -> tensor<3xf32> {
  // CHECK: constant-invalid.mlir:[[# @LINE + 1]]:3: error: 'relay.constant' op value type tensor<2xf32> does not match the result type tensor<3xf32>
  %c = "relay.constant"() <{value = dense<1.0> : tensor<2xf32>}> : () -> tensor<3xf32> // expected-error {{'relay.constant' op value type tensor<2xf32> does not match the result type tensor<3xf32>}}
  func.return %c : tensor<3xf32>
}

// -----

func.func @both() -> tensor<2xf32> {
  // CHECK: constant-invalid.mlir:[[# @LINE + 1]]:3: error: 'relay.constant' op needs exactly one of an inline value and an external name
  %c = "relay.constant"() <{value = dense<1.0> : tensor<2xf32>, external = "w"}> : () -> tensor<2xf32> // expected-error {{'relay.constant' op needs exactly one of an inline value and an external name}}
  func.return %c : tensor<2xf32>
}

// -----

func.func @neither() -> tensor<2xf32> {
  // CHECK: constant-invalid.mlir:[[# @LINE + 1]]:3: error: 'relay.constant' op needs exactly one of an inline value and an external name
  %c = "relay.constant"() : () -> tensor<2xf32> // expected-error {{'relay.constant' op needs exactly one of an inline value and an external name}}
  func.return %c : tensor<2xf32>
}

// -----

func.func @external_without_weights() -> tensor<2xf32> {
  // CHECK: constant-invalid.mlir:[[# @LINE + 1]]:3: error: 'relay.constant' op external constant 'w' needs a 'relay.weights' attribute on the module
  %c = relay.constant external "w" : tensor<2xf32> // expected-error {{'relay.constant' op external constant 'w' needs a 'relay.weights' attribute on the module}}
  func.return %c : tensor<2xf32>
}
