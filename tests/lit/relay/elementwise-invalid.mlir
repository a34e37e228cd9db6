// Verifier errors of the relay elementwise ops, cast and mean.
// Every chunk fails verification with one located line naming the offending operand or property.
// RUN: accel-opt %s --split-input-file --verify-diagnostics
// Without --verify-diagnostics every chunk's error is one line on stderr, and the exit code is 1.
// RUN: not accel-opt %s --split-input-file 2>&1 | filecheck %s

func.func @add(%a: tensor<2x3xf32>, %b: tensor<2xf32>) -> tensor<2x3xf32> {
  // CHECK: elementwise-invalid.mlir:[[# @LINE + 1]]:3: error: 'relay.add' op operands 'lhs' [2, 3] and 'rhs' [2] are not broadcast-compatible (dimension 1: 3 vs 2)
  %y = relay.add %a, %b : (tensor<2x3xf32>, tensor<2xf32>) -> tensor<2x3xf32> // expected-error {{'relay.add' op operands 'lhs' [2, 3] and 'rhs' [2] are not broadcast-compatible (dimension 1: 3 vs 2)}}
  func.return %y : tensor<2x3xf32>
}

// -----

func.func @subtract(%a: tensor<2x3xf32>, %b: tensor<2x3xf16>) -> tensor<2x3xf32> {
  // CHECK: elementwise-invalid.mlir:[[# @LINE + 1]]:3: error: 'relay.subtract' op operands 'lhs' and 'rhs' must have the same element type, got f32 and f16
  %y = relay.subtract %a, %b : (tensor<2x3xf32>, tensor<2x3xf16>) -> tensor<2x3xf32> // expected-error {{'relay.subtract' op operands 'lhs' and 'rhs' must have the same element type, got f32 and f16}}
  func.return %y : tensor<2x3xf32>
}

// -----

func.func @multiply(%a: tensor<2x3xf32>, %b: tensor<3xf32>) -> tensor<3xf32> {
  // CHECK: elementwise-invalid.mlir:[[# @LINE + 1]]:3: error: 'relay.multiply' op result type tensor<3xf32> does not match the inferred type tensor<2x3xf32>
  %y = relay.multiply %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<3xf32> // expected-error {{'relay.multiply' op result type tensor<3xf32> does not match the inferred type tensor<2x3xf32>}}
  func.return %y : tensor<3xf32>
}

// -----

func.func @divide(%a: tensor<4x1xf32>, %b: tensor<3x5xf32>) -> tensor<4x5xf32> {
  // CHECK: elementwise-invalid.mlir:[[# @LINE + 1]]:3: error: 'relay.divide' op operands 'lhs' [4, 1] and 'rhs' [3, 5] are not broadcast-compatible (dimension 0: 4 vs 3)
  %y = relay.divide %a, %b : (tensor<4x1xf32>, tensor<3x5xf32>) -> tensor<4x5xf32> // expected-error {{'relay.divide' op operands 'lhs' [4, 1] and 'rhs' [3, 5] are not broadcast-compatible (dimension 0: 4 vs 3)}}
  func.return %y : tensor<4x5xf32>
}

// -----

func.func @sigmoid(%x: tensor<4xi8>) -> tensor<4xi8> {
  // CHECK: elementwise-invalid.mlir:[[# @LINE + 1]]:3: error: 'relay.sigmoid' op operand 'data' must have a float element type, got tensor<4xi8>
  %y = relay.sigmoid %x : tensor<4xi8> // expected-error {{'relay.sigmoid' op operand 'data' must have a float element type, got tensor<4xi8>}}
  func.return %y : tensor<4xi8>
}

// -----

func.func @tanh(%x: tensor<4xi32>) -> tensor<4xi32> {
  // CHECK: elementwise-invalid.mlir:[[# @LINE + 1]]:3: error: 'relay.tanh' op operand 'data' must have a float element type, got tensor<4xi32>
  %y = relay.tanh %x : tensor<4xi32> // expected-error {{'relay.tanh' op operand 'data' must have a float element type, got tensor<4xi32>}}
  func.return %y : tensor<4xi32>
}

// -----

func.func @erf(%x: tensor<4xf32>) -> tensor<5xf32> {
  // CHECK: elementwise-invalid.mlir:[[# @LINE + 1]]:3: error: 'relay.erf' op result type tensor<5xf32> does not match the inferred type tensor<4xf32>
  %y = relay.erf %x : (tensor<4xf32>) -> tensor<5xf32> // expected-error {{'relay.erf' op result type tensor<5xf32> does not match the inferred type tensor<4xf32>}}
  func.return %y : tensor<5xf32>
}

// -----

func.func @clip_bounds(%x: tensor<4xf32>) -> tensor<4xf32> {
  // CHECK: elementwise-invalid.mlir:[[# @LINE + 1]]:3: error: 'relay.clip' op property 'a_min' (6.0) is greater than 'a_max' (0.0)
  %y = relay.clip %x {a_min = 6.0, a_max = 0.0} : tensor<4xf32> // expected-error {{'relay.clip' op property 'a_min' (6.0) is greater than 'a_max' (0.0)}}
  func.return %y : tensor<4xf32>
}

// -----

func.func @clip_missing(%x: tensor<4xf32>) -> tensor<4xf32> {
  // CHECK: elementwise-invalid.mlir:[[# @LINE + 1]]:3: error: 'relay.clip' op missing property 'a_max' (a float)
  %y = "relay.clip"(%x) <{a_min = 0.0 : f64}> : (tensor<4xf32>) -> tensor<4xf32> // expected-error {{'relay.clip' op missing property 'a_max' (a float)}}
  func.return %y : tensor<4xf32>
}

// -----

func.func @cast(%x: tensor<2x3xf32>) -> tensor<3x2xi8> {
  // CHECK: elementwise-invalid.mlir:[[# @LINE + 1]]:3: error: 'relay.cast' op result shape tensor<3x2xi8> must equal the operand shape tensor<2x3xf32>
  %y = relay.cast %x : tensor<2x3xf32> -> tensor<3x2xi8> // expected-error {{'relay.cast' op result shape tensor<3x2xi8> must equal the operand shape tensor<2x3xf32>}}
  func.return %y : tensor<3x2xi8>
}

// -----

func.func @mean_axis(%x: tensor<2x3xf32>) -> tensor<2xf32> {
  // CHECK: elementwise-invalid.mlir:[[# @LINE + 1]]:3: error: 'relay.mean' op property 'axis' repeats axis -1
  %y = relay.mean %x {axis = [1, -1]} : (tensor<2x3xf32>) -> tensor<2xf32> // expected-error {{'relay.mean' op property 'axis' repeats axis -1}}
  func.return %y : tensor<2xf32>
}

// -----

func.func @mean_range(%x: tensor<2x3xf32>) -> tensor<2xf32> {
  // CHECK: elementwise-invalid.mlir:[[# @LINE + 1]]:3: error: 'relay.mean' op property 'axis' entry 2 is out of range for rank 2
  %y = relay.mean %x {axis = [2]} : (tensor<2x3xf32>) -> tensor<2xf32> // expected-error {{'relay.mean' op property 'axis' entry 2 is out of range for rank 2}}
  func.return %y : tensor<2xf32>
}

// -----

func.func @mean_keepdims(%x: tensor<2x3xf32>) -> tensor<2xf32> {
  // CHECK: elementwise-invalid.mlir:[[# @LINE + 1]]:3: error: 'relay.mean' op result type tensor<2xf32> does not match the inferred type tensor<2x1xf32>
  %y = relay.mean %x {axis = [1], keepdims = true} : (tensor<2x3xf32>) -> tensor<2xf32> // expected-error {{'relay.mean' op result type tensor<2xf32> does not match the inferred type tensor<2x1xf32>}}
  func.return %y : tensor<2xf32>
}
