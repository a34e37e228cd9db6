// Verifier errors of the scans, top k, integer bit ops and the determinant.
// Every chunk fails verification with one located line naming the offending operand or property.
// RUN: accel-opt %s --split-input-file --verify-diagnostics
// Without --verify-diagnostics every chunk's error is one line on stderr, and the exit code is 1.
// RUN: not accel-opt %s --split-input-file 2>&1 | filecheck %s
func.func @cumsum_0(%x: tensor<2x3xi1>) -> tensor<2x3xi1> {
  // CHECK: scan_bits-invalid.mlir:[[# @LINE + 1]]:3: error: 'relay.cumsum' op operand 'data' must have a float or integer element type, got tensor<2x3xi1>
  %y = relay.cumsum %x : tensor<2x3xi1> // expected-error {{'relay.cumsum' op operand 'data' must have a float or integer element type, got tensor<2x3xi1>}}
  func.return %y : tensor<2x3xi1>
}

// -----

func.func @cumsum_1(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // CHECK: scan_bits-invalid.mlir:[[# @LINE + 1]]:3: error: 'relay.cumsum' op property 'axis' 2 is out of range for rank 2
  %y = relay.cumsum %x {axis = 2} : tensor<2x3xf32> // expected-error {{'relay.cumsum' op property 'axis' 2 is out of range for rank 2}}
  func.return %y : tensor<2x3xf32>
}

// -----

func.func @cumprod_0(%x: tensor<f32>) -> tensor<f32> {
  // CHECK: scan_bits-invalid.mlir:[[# @LINE + 1]]:3: error: 'relay.cumprod' op operand 'data' must have rank >= 1
  %y = relay.cumprod %x : tensor<f32> // expected-error {{'relay.cumprod' op operand 'data' must have rank >= 1}}
  func.return %y : tensor<f32>
}

// -----

func.func @topk_0(%x: tensor<2x3xf32>) -> tensor<2x4xi64> {
  // CHECK: scan_bits-invalid.mlir:[[# @LINE + 1]]:3: error: 'relay.topk' op property 'k' must be in [0, 3] (the size of axis 1), got 4
  %y = relay.topk %x {k = 4} : (tensor<2x3xf32>) -> tensor<2x4xi64> // expected-error {{'relay.topk' op property 'k' must be in [0, 3] (the size of axis 1), got 4}}
  func.return %y : tensor<2x4xi64>
}

// -----

func.func @topk_1(%x: tensor<2x3xf32>) -> tensor<2x2xf32> {
  // CHECK: scan_bits-invalid.mlir:[[# @LINE + 1]]:3: error: 'relay.topk' op result type tensor<2x2xf32> does not match the inferred type tensor<2x2xi64>
  %y = relay.topk %x {k = 2} : (tensor<2x3xf32>) -> tensor<2x2xf32> // expected-error {{'relay.topk' op result type tensor<2x2xf32> does not match the inferred type tensor<2x2xi64>}}
  func.return %y : tensor<2x2xf32>
}

// -----

func.func @bitwise_and_0(%x: tensor<4xf32>) -> tensor<4xf32> {
  // CHECK: scan_bits-invalid.mlir:[[# @LINE + 1]]:3: error: 'relay.bitwise_and' op operand 'lhs' must have an integer element type, got tensor<4xf32>
  %y = relay.bitwise_and %x, %x : tensor<4xf32> // expected-error {{'relay.bitwise_and' op operand 'lhs' must have an integer element type, got tensor<4xf32>}}
  func.return %y : tensor<4xf32>
}

// -----

func.func @bitwise_or_0(%x: tensor<4xi32>, %z: tensor<4xi64>) -> tensor<4xi32> {
  // CHECK: scan_bits-invalid.mlir:[[# @LINE + 1]]:3: error: 'relay.bitwise_or' op operands 'lhs' and 'rhs' must have the same element type, got i32 and i64
  %y = relay.bitwise_or %x, %z : (tensor<4xi32>, tensor<4xi64>) -> tensor<4xi32> // expected-error {{'relay.bitwise_or' op operands 'lhs' and 'rhs' must have the same element type, got i32 and i64}}
  func.return %y : tensor<4xi32>
}

// -----

func.func @bitwise_xor_0(%x: tensor<4xi1>) -> tensor<4xi1> {
  // CHECK: scan_bits-invalid.mlir:[[# @LINE + 1]]:3: error: 'relay.bitwise_xor' op operand 'lhs' must have an integer element type, got tensor<4xi1>
  %y = relay.bitwise_xor %x, %x : tensor<4xi1> // expected-error {{'relay.bitwise_xor' op operand 'lhs' must have an integer element type, got tensor<4xi1>}}
  func.return %y : tensor<4xi1>
}

// -----

func.func @bitwise_not_0(%x: tensor<4xf32>) -> tensor<4xf32> {
  // CHECK: scan_bits-invalid.mlir:[[# @LINE + 1]]:3: error: 'relay.bitwise_not' op operand 'data' must have an integer element type, got tensor<4xf32>
  %y = relay.bitwise_not %x : tensor<4xf32> // expected-error {{'relay.bitwise_not' op operand 'data' must have an integer element type, got tensor<4xf32>}}
  func.return %y : tensor<4xf32>
}

// -----

func.func @left_shift_0(%x: tensor<4xf64>) -> tensor<4xf64> {
  // CHECK: scan_bits-invalid.mlir:[[# @LINE + 1]]:3: error: 'relay.left_shift' op operand 'lhs' must have an integer element type, got tensor<4xf64>
  %y = relay.left_shift %x, %x : tensor<4xf64> // expected-error {{'relay.left_shift' op operand 'lhs' must have an integer element type, got tensor<4xf64>}}
  func.return %y : tensor<4xf64>
}

// -----

func.func @right_shift_0(%x: tensor<4xui8>, %z: tensor<3xui8>) -> tensor<4xui8> {
  // CHECK: scan_bits-invalid.mlir:[[# @LINE + 1]]:3: error: 'relay.right_shift' op operands 'lhs' [4] and 'rhs' [3] are not broadcast-compatible (dimension 0: 4 vs 3)
  %y = relay.right_shift %x, %z : (tensor<4xui8>, tensor<3xui8>) -> tensor<4xui8> // expected-error {{'relay.right_shift' op operands 'lhs' [4] and 'rhs' [3] are not broadcast-compatible (dimension 0: 4 vs 3)}}
  func.return %y : tensor<4xui8>
}

// -----

func.func @reinterpret_0(%x: tensor<4xf32>) -> tensor<4xi16> {
  // CHECK: scan_bits-invalid.mlir:[[# @LINE + 1]]:3: error: 'relay.reinterpret' op element types f32 and i16 must be of one size of at least 8 bits
  %y = relay.reinterpret %x : tensor<4xf32> -> tensor<4xi16> // expected-error {{'relay.reinterpret' op element types f32 and i16 must be of one size of at least 8 bits}}
  func.return %y : tensor<4xi16>
}

// -----

func.func @reinterpret_1(%x: tensor<4xui8>) -> tensor<4xi1> {
  // CHECK: scan_bits-invalid.mlir:[[# @LINE + 1]]:3: error: 'relay.reinterpret' op the result must not be boolean (its bytes could be other than 0 and 1), got tensor<4xi1>
  %y = relay.reinterpret %x : tensor<4xui8> -> tensor<4xi1> // expected-error {{'relay.reinterpret' op the result must not be boolean (its bytes could be other than 0 and 1), got tensor<4xi1>}}
  func.return %y : tensor<4xi1>
}

// -----

func.func @reinterpret_2(%x: tensor<4xf32>) -> tensor<2xi32> {
  // CHECK: scan_bits-invalid.mlir:[[# @LINE + 1]]:3: error: 'relay.reinterpret' op result shape tensor<2xi32> must equal the operand shape tensor<4xf32>
  %y = relay.reinterpret %x : tensor<4xf32> -> tensor<2xi32> // expected-error {{'relay.reinterpret' op result shape tensor<2xi32> must equal the operand shape tensor<4xf32>}}
  func.return %y : tensor<2xi32>
}

// -----

func.func @det_0(%x: tensor<2x3xf32>) -> tensor<2xf32> {
  // CHECK: scan_bits-invalid.mlir:[[# @LINE + 1]]:3: error: 'relay.det' op operand 'data' must be square matrices [..., M, M], got tensor<2x3xf32>
  %y = relay.det %x : (tensor<2x3xf32>) -> tensor<2xf32> // expected-error {{'relay.det' op operand 'data' must be square matrices [..., M, M], got tensor<2x3xf32>}}
  func.return %y : tensor<2xf32>
}

// -----

func.func @det_1(%x: tensor<3x3xi32>) -> tensor<i32> {
  // CHECK: scan_bits-invalid.mlir:[[# @LINE + 1]]:3: error: 'relay.det' op operand 'data' must have a float element type, got tensor<3x3xi32>
  %y = relay.det %x : (tensor<3x3xi32>) -> tensor<i32> // expected-error {{'relay.det' op operand 'data' must have a float element type, got tensor<3x3xi32>}}
  func.return %y : tensor<i32>
}
