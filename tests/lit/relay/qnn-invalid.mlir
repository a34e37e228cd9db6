// Verifier errors of the relay quantized ops.
// Every chunk fails verification with one located line naming the offending operand or property.
// RUN: accel-opt %s --split-input-file --verify-diagnostics
// Without --verify-diagnostics every chunk's error is one line on stderr, and the exit code is 1.
// RUN: not accel-opt %s --split-input-file 2>&1 | filecheck %s

func.func @quantize_data(%x: tensor<4xi32>, %s: tensor<f32>, %z: tensor<i8>) -> tensor<4xi8> {
  // CHECK: qnn-invalid.mlir:[[# @LINE + 1]]:3: error: 'relay.qnn.quantize' op operand 'data' must have a float element type, got tensor<4xi32>
  %q = relay.qnn.quantize %x, %s, %z : (tensor<4xi32>, tensor<f32>, tensor<i8>) -> tensor<4xi8> // expected-error {{'relay.qnn.quantize' op operand 'data' must have a float element type, got tensor<4xi32>}}
  func.return %q : tensor<4xi8>
}

// -----

func.func @quantize_zero_point(%x: tensor<4xf32>, %s: tensor<f32>, %z: tensor<ui8>) -> tensor<4xi8> {
  // CHECK: qnn-invalid.mlir:[[# @LINE + 1]]:3: error: 'relay.qnn.quantize' op operand 'zero_point' has element type ui8, expected the result's i8
  %q = relay.qnn.quantize %x, %s, %z : (tensor<4xf32>, tensor<f32>, tensor<ui8>) -> tensor<4xi8> // expected-error {{'relay.qnn.quantize' op operand 'zero_point' has element type ui8, expected the result's i8}}
  func.return %q : tensor<4xi8>
}

// -----

func.func @quantize_axis(%x: tensor<2x4xf32>, %s: tensor<2xf32>, %z: tensor<i8>) -> tensor<2x4xi8> {
  // CHECK: qnn-invalid.mlir:[[# @LINE + 1]]:3: error: 'relay.qnn.quantize' op operand 'scale' has 2 elements but 'data' has 4 along axis -1
  %q = relay.qnn.quantize %x, %s, %z : (tensor<2x4xf32>, tensor<2xf32>, tensor<i8>) -> tensor<2x4xi8> // expected-error {{'relay.qnn.quantize' op operand 'scale' has 2 elements but 'data' has 4 along axis -1}}
  func.return %q : tensor<2x4xi8>
}

// -----

func.func @dequantize(%q: tensor<4xi8>, %s: tensor<i32>, %z: tensor<i8>) -> tensor<4xf32> {
  // CHECK: qnn-invalid.mlir:[[# @LINE + 1]]:3: error: 'relay.qnn.dequantize' op operand 'scale' must be a float tensor, got tensor<i32>
  %x = relay.qnn.dequantize %q, %s, %z : (tensor<4xi8>, tensor<i32>, tensor<i8>) -> tensor<4xf32> // expected-error {{'relay.qnn.dequantize' op operand 'scale' must be a float tensor, got tensor<i32>}}
  func.return %x : tensor<4xf32>
}

// -----

func.func @requantize(%q: tensor<4xi32>, %s: tensor<f32>, %z: tensor<i32>, %oz: tensor<2x2xi8>) -> tensor<4xi8> {
  // CHECK: qnn-invalid.mlir:[[# @LINE + 1]]:3: error: 'relay.qnn.requantize' op operand 'output_zero_point' must be a scalar or 1-D, got tensor<2x2xi8>
  %y = relay.qnn.requantize %q, %s, %z, %s, %oz : (tensor<4xi32>, tensor<f32>, tensor<i32>, tensor<f32>, tensor<2x2xi8>) -> tensor<4xi8> // expected-error {{'relay.qnn.requantize' op operand 'output_zero_point' must be a scalar or 1-D, got tensor<2x2xi8>}}
  func.return %y : tensor<4xi8>
}

// -----

func.func @qnn_conv2d(%x: tensor<1x4x6x6xf32>, %w: tensor<8x4x3x3xi8>, %xz: tensor<i8>, %wz: tensor<i8>, %xs: tensor<f32>, %ws: tensor<f32>) -> tensor<1x8x4x4xi32> {
  // CHECK: qnn-invalid.mlir:[[# @LINE + 1]]:3: error: 'relay.qnn.conv2d' op operand 'data' must have an 8-bit integer element type, got tensor<1x4x6x6xf32>
  %y = relay.qnn.conv2d %x, %w, %xz, %wz, %xs, %ws : (tensor<1x4x6x6xf32>, tensor<8x4x3x3xi8>, tensor<i8>, tensor<i8>, tensor<f32>, tensor<f32>) -> tensor<1x8x4x4xi32> // expected-error {{'relay.qnn.conv2d' op operand 'data' must have an 8-bit integer element type, got tensor<1x4x6x6xf32>}}
  func.return %y : tensor<1x8x4x4xi32>
}

// -----

func.func @qnn_conv2d_kernel_scale(%x: tensor<1x4x6x6xi8>, %w: tensor<8x4x3x3xi8>, %xz: tensor<i8>, %wz: tensor<i8>, %xs: tensor<f32>, %ws: tensor<4xf32>) -> tensor<1x8x4x4xi32> {
  // CHECK: qnn-invalid.mlir:[[# @LINE + 1]]:3: error: 'relay.qnn.conv2d' op operand 'kernel_scale' has 4 elements but 'weight' has 8 along axis 0
  %y = relay.qnn.conv2d %x, %w, %xz, %wz, %xs, %ws : (tensor<1x4x6x6xi8>, tensor<8x4x3x3xi8>, tensor<i8>, tensor<i8>, tensor<f32>, tensor<4xf32>) -> tensor<1x8x4x4xi32> // expected-error {{'relay.qnn.conv2d' op operand 'kernel_scale' has 4 elements but 'weight' has 8 along axis 0}}
  func.return %y : tensor<1x8x4x4xi32>
}

// -----

func.func @qnn_dense(%x: tensor<2x16xi8>, %w: tensor<10x16xi8>, %xz: tensor<2xi8>, %wz: tensor<i8>, %xs: tensor<f32>, %ws: tensor<f32>) -> tensor<2x10xi32> {
  // CHECK: qnn-invalid.mlir:[[# @LINE + 1]]:3: error: 'relay.qnn.dense' op operand 'input_zero_point' must be a scalar, got tensor<2xi8>
  %y = relay.qnn.dense %x, %w, %xz, %wz, %xs, %ws : (tensor<2x16xi8>, tensor<10x16xi8>, tensor<2xi8>, tensor<i8>, tensor<f32>, tensor<f32>) -> tensor<2x10xi32> // expected-error {{'relay.qnn.dense' op operand 'input_zero_point' must be a scalar, got tensor<2xi8>}}
  func.return %y : tensor<2x10xi32>
}

// -----

func.func @qnn_add(%a: tensor<2x3xi8>, %b: tensor<3xi8>, %s: tensor<f32>, %z: tensor<i8>, %uz: tensor<ui8>) -> tensor<2x3xi8> {
  // CHECK: qnn-invalid.mlir:[[# @LINE + 1]]:3: error: 'relay.qnn.add' op operand 'rhs_zero_point' has element type ui8, expected i8
  %y = relay.qnn.add %a, %b, %s, %z, %s, %uz, %s, %z : (tensor<2x3xi8>, tensor<3xi8>, tensor<f32>, tensor<i8>, tensor<f32>, tensor<ui8>, tensor<f32>, tensor<i8>) -> tensor<2x3xi8> // expected-error {{'relay.qnn.add' op operand 'rhs_zero_point' has element type ui8, expected i8}}
  func.return %y : tensor<2x3xi8>
}
