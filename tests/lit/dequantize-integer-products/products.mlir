// dequantize-integer-products: quantize_dynamic's integer products (MatMulInteger, Cast,
// Mul by the data's run-time scale times the weight's) as float dense layers of the
// dequantized operands, which the npu runs.
// RUN: accel-opt %s --split-input-file --target npu -p dequantize-integer-products | filecheck %s

// Per tensor: the data dequantized with its run-time scale and zero point, the weight at
// compile time ((W - 1) * 0.5).
// CHECK-LABEL: func.func @per_tensor
// CHECK:         %q = relay.qnn.quantize %x, %s, %z
// CHECK-NEXT:    %[[D:.*]] = relay.qnn.dequantize %q, %s, %z : (tensor<16x64xui8>, tensor<f32>, tensor<ui8>) -> tensor<16x64xf32>
// CHECK-NEXT:    %[[W:.*]] = relay.constant dense<1.500000e+00> : tensor<8x64xf32>
// CHECK-NEXT:    %y = relay.nn.dense %[[D]], %[[W]] : (tensor<16x64xf32>, tensor<8x64xf32>) -> tensor<16x8xf32>
// CHECK-NEXT:    func.return %y
func.func @per_tensor(%x: tensor<16x64xf32>) -> tensor<16x8xf32> {
  %s = relay.qnn.dynamic_scale %x : (tensor<16x64xf32>) -> tensor<f32>
  %z = relay.qnn.dynamic_zero_point %x : (tensor<16x64xf32>) -> tensor<ui8>
  %q = relay.qnn.quantize %x, %s, %z : (tensor<16x64xf32>, tensor<f32>, tensor<ui8>) -> tensor<16x64xui8>
  %w = relay.constant dense<4> : tensor<8x64xi8>
  %zw = relay.constant dense<1> : tensor<i8>
  %one = relay.constant dense<1.0> : tensor<f32>
  %c = relay.constant dense<0.5> : tensor<f32>
  %sw = relay.multiply %s, %c : tensor<f32>
  %a = relay.qnn.dense %q, %w, %z, %zw, %one, %one : (tensor<16x64xui8>, tensor<8x64xi8>, tensor<ui8>, tensor<i8>, tensor<f32>, tensor<f32>) -> tensor<16x8xi32>
  %f = relay.cast %a : tensor<16x8xi32> -> tensor<16x8xf32>
  %y = relay.multiply %f, %sw : (tensor<16x8xf32>, tensor<f32>) -> tensor<16x8xf32>
  func.return %y : tensor<16x8xf32>
}

// -----

// A weight scale per output feature, data of rank 3 (a transformer's tokens): the rows
// of the data between reshapes, the weight's rows scaled each by its own.
// CHECK-LABEL: func.func @per_feature
// CHECK:         %[[D:.*]] = relay.qnn.dequantize %q, %s, %z
// CHECK-NEXT:    %[[W:.*]] = relay.constant dense<{{\[\[}}4.000000e+00, 4.000000e+00], [8.000000e+00, 8.000000e+00]]> : tensor<2x2xf32>
// CHECK-NEXT:    %[[R:.*]] = relay.reshape %[[D]] {newshape = [3, 2]} : (tensor<1x3x2xf32>) -> tensor<3x2xf32>
// CHECK-NEXT:    %[[P:.*]] = relay.nn.dense %[[R]], %[[W]] : (tensor<3x2xf32>, tensor<2x2xf32>) -> tensor<3x2xf32>
// CHECK-NEXT:    %y = relay.reshape %[[P]] {newshape = [1, 3, 2]} : (tensor<3x2xf32>) -> tensor<1x3x2xf32>
func.func @per_feature(%x: tensor<1x3x2xf32>) -> tensor<1x3x2xf32> {
  %s = relay.qnn.dynamic_scale %x : (tensor<1x3x2xf32>) -> tensor<f32>
  %z = relay.qnn.dynamic_zero_point %x : (tensor<1x3x2xf32>) -> tensor<ui8>
  %q = relay.qnn.quantize %x, %s, %z : (tensor<1x3x2xf32>, tensor<f32>, tensor<ui8>) -> tensor<1x3x2xui8>
  %w = relay.constant dense<4> : tensor<2x2xi8>
  %zw = relay.constant dense<0> : tensor<i8>
  %one = relay.constant dense<1.0> : tensor<f32>
  %c = relay.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %sw = relay.multiply %c, %s : (tensor<2xf32>, tensor<f32>) -> tensor<2xf32>
  %a = relay.qnn.dense %q, %w, %z, %zw, %one, %one : (tensor<1x3x2xui8>, tensor<2x2xi8>, tensor<ui8>, tensor<i8>, tensor<f32>, tensor<f32>) -> tensor<1x3x2xi32>
  %f = relay.cast %a : tensor<1x3x2xi32> -> tensor<1x3x2xf32>
  %y = relay.multiply %sw, %f : (tensor<2xf32>, tensor<1x3x2xf32>) -> tensor<1x3x2xf32>
  func.return %y : tensor<1x3x2xf32>
}

// -----

// Not rescaled by a scale of the data times a constant (a run-time value times a run-time
// value), or the integer product read as such: both stay integer.
// CHECK-LABEL: func.func @kept
// CHECK-COUNT-2: relay.qnn.dense
// CHECK-NOT:     relay.nn.dense
func.func @kept(%x: tensor<4x8xf32>, %t: tensor<f32>) -> (tensor<4x2xf32>, tensor<4x2xi32>) {
  %s = relay.qnn.dynamic_scale %x : (tensor<4x8xf32>) -> tensor<f32>
  %z = relay.qnn.dynamic_zero_point %x : (tensor<4x8xf32>) -> tensor<ui8>
  %q = relay.qnn.quantize %x, %s, %z : (tensor<4x8xf32>, tensor<f32>, tensor<ui8>) -> tensor<4x8xui8>
  %w = relay.constant dense<4> : tensor<2x8xi8>
  %zw = relay.constant dense<0> : tensor<i8>
  %one = relay.constant dense<1.0> : tensor<f32>
  %st = relay.multiply %s, %t : tensor<f32>
  %a = relay.qnn.dense %q, %w, %z, %zw, %one, %one : (tensor<4x8xui8>, tensor<2x8xi8>, tensor<ui8>, tensor<i8>, tensor<f32>, tensor<f32>) -> tensor<4x2xi32>
  %f = relay.cast %a : tensor<4x2xi32> -> tensor<4x2xf32>
  %y = relay.multiply %f, %st : (tensor<4x2xf32>, tensor<f32>) -> tensor<4x2xf32>
  %b = relay.qnn.dense %q, %w, %z, %zw, %one, %one : (tensor<4x8xui8>, tensor<2x8xi8>, tensor<ui8>, tensor<i8>, tensor<f32>, tensor<f32>) -> tensor<4x2xi32>
  %i = relay.add %b, %b : tensor<4x2xi32>
  func.return %y, %i : tensor<4x2xf32>, tensor<4x2xi32>
}

// -----

// ConvInteger: a float convolution with the integer one's properties, its weight scaled
// per output channel ([O, 1, 1], as the rescale broadcasts it).
// CHECK-LABEL: func.func @conv
// CHECK:         %[[D:.*]] = relay.qnn.dequantize %q, %s, %z
// CHECK-NEXT:    %[[W:.*]] = relay.constant dense<{{\[\[\[\[}}2.000000e+00]]], {{\[\[\[}}4.000000e+00]]]]> : tensor<2x1x1x1xf32>
// CHECK-NEXT:    %y = relay.nn.conv2d %[[D]], %[[W]] {strides = [2, 2]} : (tensor<1x1x4x4xf32>, tensor<2x1x1x1xf32>) -> tensor<1x2x2x2xf32>
func.func @conv(%x: tensor<1x1x4x4xf32>) -> tensor<1x2x2x2xf32> {
  %s = relay.qnn.dynamic_scale %x : (tensor<1x1x4x4xf32>) -> tensor<f32>
  %z = relay.qnn.dynamic_zero_point %x : (tensor<1x1x4x4xf32>) -> tensor<ui8>
  %q = relay.qnn.quantize %x, %s, %z : (tensor<1x1x4x4xf32>, tensor<f32>, tensor<ui8>) -> tensor<1x1x4x4xui8>
  %w = relay.constant dense<10> : tensor<2x1x1x1xui8>
  %zw = relay.constant dense<6> : tensor<ui8>
  %one = relay.constant dense<1.0> : tensor<f32>
  %c = relay.constant dense<[[[0.5]], [[1.0]]]> : tensor<2x1x1xf32>
  %sw = relay.multiply %s, %c : (tensor<f32>, tensor<2x1x1xf32>) -> tensor<2x1x1xf32>
  %a = relay.qnn.conv2d %q, %w, %z, %zw, %one, %one {strides = [2, 2]} : (tensor<1x1x4x4xui8>, tensor<2x1x1x1xui8>, tensor<ui8>, tensor<ui8>, tensor<f32>, tensor<f32>) -> tensor<1x2x2x2xi32>
  %f = relay.cast %a : tensor<1x2x2x2xi32> -> tensor<1x2x2x2xf32>
  %y = relay.multiply %f, %sw : (tensor<1x2x2x2xf32>, tensor<2x1x1xf32>) -> tensor<1x2x2x2xf32>
  func.return %y : tensor<1x2x2x2xf32>
}
