// Verifier errors of the relay shape ops.
// Every chunk fails verification with one located line naming the offending operand or property.
// RUN: accel-opt %s --split-input-file --verify-diagnostics
// Without --verify-diagnostics every chunk's error is one line on stderr, and the exit code is 1.
// RUN: not accel-opt %s --split-input-file 2>&1 | filecheck %s

func.func @reshape(%x: tensor<2x3x4xf32>) -> tensor<5x5xf32> {
  // CHECK: shape-invalid.mlir:[[# @LINE + 1]]:3: error: 'relay.reshape' op property 'newshape' [5, 5] gives [5, 5] (25 elements) for operand 'data' [2, 3, 4] (24 elements)
  %y = relay.reshape %x {newshape = [5, 5]} : (tensor<2x3x4xf32>) -> tensor<5x5xf32> // expected-error {{'relay.reshape' op property 'newshape' [5, 5] gives [5, 5] (25 elements) for operand 'data' [2, 3, 4] (24 elements)}}
  func.return %y : tensor<5x5xf32>
}

// -----

func.func @reshape_two_inferred(%x: tensor<2x3x4xf32>) -> tensor<6x4xf32> {
  // CHECK: shape-invalid.mlir:[[# @LINE + 1]]:3: error: 'relay.reshape' op property 'newshape' has more than one -1
  %y = relay.reshape %x {newshape = [-1, -1]} : (tensor<2x3x4xf32>) -> tensor<6x4xf32> // expected-error {{'relay.reshape' op property 'newshape' has more than one -1}}
  func.return %y : tensor<6x4xf32>
}

// -----

func.func @transpose(%x: tensor<2x3x4xf32>) -> tensor<2x3x4xf32> {
  // CHECK: shape-invalid.mlir:[[# @LINE + 1]]:3: error: 'relay.transpose' op property 'axes' [0, 1, 1] is not a permutation
  %y = relay.transpose %x {axes = [0, 1, 1]} : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32> // expected-error {{'relay.transpose' op property 'axes' [0, 1, 1] is not a permutation}}
  func.return %y : tensor<2x3x4xf32>
}

// -----

func.func @transpose_rank(%x: tensor<2x3x4xf32>) -> tensor<3x2x4xf32> {
  // CHECK: shape-invalid.mlir:[[# @LINE + 1]]:3: error: 'relay.transpose' op property 'axes' must have 3 entries, got [1, 0]
  %y = relay.transpose %x {axes = [1, 0]} : (tensor<2x3x4xf32>) -> tensor<3x2x4xf32> // expected-error {{'relay.transpose' op property 'axes' must have 3 entries, got [1, 0]}}
  func.return %y : tensor<3x2x4xf32>
}

// -----

func.func @concatenate(%a: tensor<2x3xf32>, %b: tensor<3x5xf32>) -> tensor<2x8xf32> {
  // CHECK: shape-invalid.mlir:[[# @LINE + 1]]:3: error: 'relay.concatenate' op operand 'inputs[1]' tensor<3x5xf32> does not match tensor<2x3xf32> outside axis 1
  %y = relay.concatenate %a, %b {axis = 1} : (tensor<2x3xf32>, tensor<3x5xf32>) -> tensor<2x8xf32> // expected-error {{'relay.concatenate' op operand 'inputs[1]' tensor<3x5xf32> does not match tensor<2x3xf32> outside axis 1}}
  func.return %y : tensor<2x8xf32>
}

// -----

func.func @concatenate_none() -> tensor<2x8xf32> {
  // CHECK: shape-invalid.mlir:[[# @LINE + 1]]:3: error: 'relay.concatenate' op needs at least one operand
  %y = relay.concatenate : () -> tensor<2x8xf32> // expected-error {{'relay.concatenate' op needs at least one operand}}
  func.return %y : tensor<2x8xf32>
}

// -----

func.func @take(%x: tensor<5x4xf32>, %i: tensor<3xf32>) -> tensor<3x4xf32> {
  // CHECK: shape-invalid.mlir:[[# @LINE + 1]]:3: error: 'relay.take' op operand 'indices' must be an integer tensor, got tensor<3xf32>
  %y = relay.take %x, %i : (tensor<5x4xf32>, tensor<3xf32>) -> tensor<3x4xf32> // expected-error {{'relay.take' op operand 'indices' must be an integer tensor, got tensor<3xf32>}}
  func.return %y : tensor<3x4xf32>
}

// -----

func.func @take_axis(%x: tensor<5x4xf32>, %i: tensor<3xi32>) -> tensor<3x4xf32> {
  // CHECK: shape-invalid.mlir:[[# @LINE + 1]]:3: error: 'relay.take' op property 'axis' -3 is out of range for rank 2
  %y = relay.take %x, %i {axis = -3} : (tensor<5x4xf32>, tensor<3xi32>) -> tensor<3x4xf32> // expected-error {{'relay.take' op property 'axis' -3 is out of range for rank 2}}
  func.return %y : tensor<3x4xf32>
}
