// Verifier errors of relay.composite and relay.yield.
// Every chunk fails verification with one located line naming the offending operand or property.
// RUN: accel-opt %s --split-input-file --verify-diagnostics
// Without --verify-diagnostics every chunk's error is one line on stderr, and the exit code is 1.
// RUN: not accel-opt %s --split-input-file 2>&1 | filecheck %s

func.func @pattern_name(%x: tensor<4xf32>) -> tensor<4xf32> {
  // CHECK: composite-invalid.mlir:[[# @LINE + 1]]:3: error: 'relay.composite' op pattern name 'relu' must be '<target>.<pattern>'
  %y = relay.composite "relu" (%x) : (tensor<4xf32>) -> tensor<4xf32> { // expected-error {{'relay.composite' op pattern name 'relu' must be '<target>.<pattern>'}}
  ^bb0(%a: tensor<4xf32>):
    %r = relay.nn.relu %a : tensor<4xf32>
    relay.yield %r : tensor<4xf32>
  }
  func.return %y : tensor<4xf32>
}

// -----

func.func @arguments(%x: tensor<4xf32>) -> tensor<4xf32> {
  // CHECK: composite-invalid.mlir:[[# @LINE + 1]]:3: error: 'relay.composite' op body has 2 arguments for 1 input
  %y = relay.composite "npu.relu" (%x) : (tensor<4xf32>) -> tensor<4xf32> { // expected-error {{'relay.composite' op body has 2 arguments for 1 input}}
  ^bb0(%a: tensor<4xf32>, %b: tensor<4xf32>):
    %r = relay.nn.relu %a : tensor<4xf32>
    relay.yield %r : tensor<4xf32>
  }
  func.return %y : tensor<4xf32>
}

// -----

func.func @argument_type(%x: tensor<4xf32>) -> tensor<4xf32> {
  // CHECK: composite-invalid.mlir:[[# @LINE + 1]]:3: error: 'relay.composite' op body argument #0 has type tensor<5xf32>, input has tensor<4xf32>
  %y = relay.composite "npu.relu" (%x) : (tensor<4xf32>) -> tensor<4xf32> { // expected-error {{'relay.composite' op body argument #0 has type tensor<5xf32>, input has tensor<4xf32>}}
  ^bb0(%a: tensor<5xf32>):
    %r = relay.nn.relu %a : tensor<5xf32>
    relay.yield %r : tensor<5xf32>
  }
  func.return %y : tensor<4xf32>
}

// -----

func.func @yield_types(%x: tensor<4xf32>) -> tensor<4xf32> {
  // CHECK: composite-invalid.mlir:[[# @LINE + 1]]:3: error: 'relay.composite' op relay.yield types (tensor<4xf32>, tensor<4xf32>) do not match the results (tensor<4xf32>)
  %y = relay.composite "npu.relu" (%x) : (tensor<4xf32>) -> tensor<4xf32> { // expected-error {{'relay.composite' op relay.yield types (tensor<4xf32>, tensor<4xf32>) do not match the results (tensor<4xf32>)}}
  ^bb0(%a: tensor<4xf32>):
    %r = relay.nn.relu %a : tensor<4xf32>
    relay.yield %r, %r : tensor<4xf32>, tensor<4xf32>
  }
  func.return %y : tensor<4xf32>
}

// -----

func.func @no_terminator(%x: tensor<4xf32>) -> tensor<4xf32> {
  // CHECK: composite-invalid.mlir:[[# @LINE + 1]]:3: error: 'relay.composite' op body must end with relay.yield
  %y = relay.composite "npu.relu" (%x) : (tensor<4xf32>) -> tensor<4xf32> { // expected-error {{'relay.composite' op body must end with relay.yield}}
  ^bb0(%a: tensor<4xf32>):
    %r = relay.nn.relu %a : tensor<4xf32>
  }
  func.return %y : tensor<4xf32>
}

// -----

func.func @isolated(%x: tensor<4xf32>) -> tensor<4xf32> {
  // CHECK: composite-invalid.mlir:[[# @LINE + 1]]:3: error: 'relay.composite' op Operation using value defined out of its IsolatedFromAbove parent: ReluOp(%r = relay.nn.relu %x : tensor<4xf32>)
  %y = relay.composite "npu.relu" () : () -> tensor<4xf32> { // expected-error {{'relay.composite' op Operation using value defined out of its IsolatedFromAbove parent: ReluOp(%r = relay.nn.relu %x : tensor<4xf32>)}}
    %r = relay.nn.relu %x : tensor<4xf32>
    relay.yield %r : tensor<4xf32>
  }
  func.return %y : tensor<4xf32>
}

// -----

func.func @yield_outside(%x: tensor<4xf32>) {
  // CHECK: composite-invalid.mlir:[[# @LINE + 1]]:3: error: 'relay.yield' op 'relay.yield' expects parent op 'relay.composite'
  relay.yield %x : tensor<4xf32> // expected-error {{'relay.yield' op 'relay.yield' expects parent op 'relay.composite'}}
}
