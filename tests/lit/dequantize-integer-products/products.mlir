// dequantize-integer-products: quantize_dynamic's integer products (MatMulInteger or
// ConvInteger, Cast, Mul by the data's run-time scale times the weight's) as float dense
// layers and convolutions of the dequantized operands, which the npu runs, where they pay
// for their transfers against the integer product on the host.
// RUN: accel-opt %s --split-input-file --target npu -p dequantize-integer-products | filecheck %s

// Per tensor: the data dequantized with its run-time scale and zero point, the weight at
// compile time ((W - 1) * 0.5).
// CHECK-LABEL: func.func @per_tensor
// CHECK:         %q = relay.qnn.quantize %x, %s, %z
// CHECK-NEXT:    %[[D:.*]] = relay.qnn.dequantize %q, %s, %z : (tensor<256x512xui8>, tensor<f32>, tensor<ui8>) -> tensor<256x512xf32>
// CHECK-NEXT:    %[[W:.*]] = relay.constant dense<1.500000e+00> : tensor<512x512xf32>
// CHECK-NEXT:    %y = relay.nn.dense %[[D]], %[[W]] : (tensor<256x512xf32>, tensor<512x512xf32>) -> tensor<256x512xf32>
// CHECK-NEXT:    func.return %y
func.func @per_tensor(%x: tensor<256x512xf32>) -> tensor<256x512xf32> {
  %s = relay.qnn.dynamic_scale %x : (tensor<256x512xf32>) -> tensor<f32>
  %z = relay.qnn.dynamic_zero_point %x : (tensor<256x512xf32>) -> tensor<ui8>
  %q = relay.qnn.quantize %x, %s, %z : (tensor<256x512xf32>, tensor<f32>, tensor<ui8>) -> tensor<256x512xui8>
  %w = relay.constant dense<4> : tensor<512x512xi8>
  %zw = relay.constant dense<1> : tensor<i8>
  %one = relay.constant dense<1.0> : tensor<f32>
  %c = relay.constant dense<0.5> : tensor<f32>
  %sw = relay.multiply %s, %c : tensor<f32>
  %a = relay.qnn.dense %q, %w, %z, %zw, %one, %one : (tensor<256x512xui8>, tensor<512x512xi8>, tensor<ui8>, tensor<i8>, tensor<f32>, tensor<f32>) -> tensor<256x512xi32>
  %f = relay.cast %a : tensor<256x512xi32> -> tensor<256x512xf32>
  %y = relay.multiply %f, %sw : (tensor<256x512xf32>, tensor<f32>) -> tensor<256x512xf32>
  func.return %y : tensor<256x512xf32>
}

// -----

// A weight scale per output feature (on the left of the product), data of rank 3 (a
// transformer's tokens): the rows of the data between reshapes.
// CHECK-LABEL: func.func @per_feature
// CHECK:         %[[D:.*]] = relay.qnn.dequantize %q, %s, %z
// CHECK-NEXT:    %[[W:.*]] = relay.constant dense<2.000000e+00> : tensor<512x512xf32>
// CHECK-NEXT:    %[[R:.*]] = relay.reshape %[[D]] {newshape = [256, 512]} : (tensor<1x256x512xf32>) -> tensor<256x512xf32>
// CHECK-NEXT:    %[[P:.*]] = relay.nn.dense %[[R]], %[[W]] : (tensor<256x512xf32>, tensor<512x512xf32>) -> tensor<256x512xf32>
// CHECK-NEXT:    %y = relay.reshape %[[P]] {newshape = [1, 256, 512]} : (tensor<256x512xf32>) -> tensor<1x256x512xf32>
func.func @per_feature(%x: tensor<1x256x512xf32>) -> tensor<1x256x512xf32> {
  %s = relay.qnn.dynamic_scale %x : (tensor<1x256x512xf32>) -> tensor<f32>
  %z = relay.qnn.dynamic_zero_point %x : (tensor<1x256x512xf32>) -> tensor<ui8>
  %q = relay.qnn.quantize %x, %s, %z : (tensor<1x256x512xf32>, tensor<f32>, tensor<ui8>) -> tensor<1x256x512xui8>
  %w = relay.constant dense<4> : tensor<512x512xi8>
  %zw = relay.constant dense<0> : tensor<i8>
  %one = relay.constant dense<1.0> : tensor<f32>
  %c = relay.constant dense<0.5> : tensor<512xf32>
  %sw = relay.multiply %c, %s : (tensor<512xf32>, tensor<f32>) -> tensor<512xf32>
  %a = relay.qnn.dense %q, %w, %z, %zw, %one, %one : (tensor<1x256x512xui8>, tensor<512x512xi8>, tensor<ui8>, tensor<i8>, tensor<f32>, tensor<f32>) -> tensor<1x256x512xi32>
  %f = relay.cast %a : tensor<1x256x512xi32> -> tensor<1x256x512xf32>
  %y = relay.multiply %sw, %f : (tensor<512xf32>, tensor<1x256x512xf32>) -> tensor<1x256x512xf32>
  func.return %y : tensor<1x256x512xf32>
}

// -----

// ConvInteger: a float convolution with the integer one's properties, its weight scaled
// per output channel ([O, 1, 1], as the rescale broadcasts it): (10 - 6) * 0.5.
// CHECK-LABEL: func.func @conv
// CHECK:         %[[D:.*]] = relay.qnn.dequantize %q, %s, %z
// CHECK-NEXT:    %[[W:.*]] = relay.constant dense<2.000000e+00> : tensor<64x64x3x3xf32>
// CHECK-NEXT:    %y = relay.nn.conv2d %[[D]], %[[W]] {strides = [2, 2], padding = [1, 1, 1, 1]} : (tensor<1x64x32x32xf32>, tensor<64x64x3x3xf32>) -> tensor<1x64x16x16xf32>
func.func @conv(%x: tensor<1x64x32x32xf32>) -> tensor<1x64x16x16xf32> {
  %s = relay.qnn.dynamic_scale %x : (tensor<1x64x32x32xf32>) -> tensor<f32>
  %z = relay.qnn.dynamic_zero_point %x : (tensor<1x64x32x32xf32>) -> tensor<ui8>
  %q = relay.qnn.quantize %x, %s, %z : (tensor<1x64x32x32xf32>, tensor<f32>, tensor<ui8>) -> tensor<1x64x32x32xui8>
  %w = relay.constant dense<10> : tensor<64x64x3x3xui8>
  %zw = relay.constant dense<6> : tensor<ui8>
  %one = relay.constant dense<1.0> : tensor<f32>
  %c = relay.constant dense<0.5> : tensor<64x1x1xf32>
  %sw = relay.multiply %s, %c : (tensor<f32>, tensor<64x1x1xf32>) -> tensor<64x1x1xf32>
  %a = relay.qnn.conv2d %q, %w, %z, %zw, %one, %one {strides = [2, 2], padding = [1, 1, 1, 1]} : (tensor<1x64x32x32xui8>, tensor<64x64x3x3xui8>, tensor<ui8>, tensor<ui8>, tensor<f32>, tensor<f32>) -> tensor<1x64x16x16xi32>
  %f = relay.cast %a : tensor<1x64x16x16xi32> -> tensor<1x64x16x16xf32>
  %y = relay.multiply %f, %sw : (tensor<1x64x16x16xf32>, tensor<64x1x1xf32>) -> tensor<1x64x16x16xf32>
  func.return %y : tensor<1x64x16x16xf32>
}

// -----

// Not rescaled by the data's scale times a constant (a run-time value times a run-time
// value), the integer product read as such, and a product too small to pay for its
// transfers (one row of 8 through 4 features): all three stay integer.
// CHECK-LABEL: func.func @kept
// CHECK-COUNT-3: relay.qnn.dense
// CHECK-NOT:     relay.nn.dense
func.func @kept(%x: tensor<256x512xf32>, %t: tensor<f32>, %v: tensor<1x8xf32>) -> (tensor<256x512xf32>, tensor<256x512xi32>, tensor<1x4xf32>) {
  %s = relay.qnn.dynamic_scale %x : (tensor<256x512xf32>) -> tensor<f32>
  %z = relay.qnn.dynamic_zero_point %x : (tensor<256x512xf32>) -> tensor<ui8>
  %q = relay.qnn.quantize %x, %s, %z : (tensor<256x512xf32>, tensor<f32>, tensor<ui8>) -> tensor<256x512xui8>
  %w = relay.constant dense<4> : tensor<512x512xi8>
  %zw = relay.constant dense<0> : tensor<i8>
  %one = relay.constant dense<1.0> : tensor<f32>
  %st = relay.multiply %s, %t : tensor<f32>
  %a = relay.qnn.dense %q, %w, %z, %zw, %one, %one : (tensor<256x512xui8>, tensor<512x512xi8>, tensor<ui8>, tensor<i8>, tensor<f32>, tensor<f32>) -> tensor<256x512xi32>
  %f = relay.cast %a : tensor<256x512xi32> -> tensor<256x512xf32>
  %y = relay.multiply %f, %st : (tensor<256x512xf32>, tensor<f32>) -> tensor<256x512xf32>
  %b = relay.qnn.dense %q, %w, %z, %zw, %one, %one : (tensor<256x512xui8>, tensor<512x512xi8>, tensor<ui8>, tensor<i8>, tensor<f32>, tensor<f32>) -> tensor<256x512xi32>
  %i = relay.add %b, %b : tensor<256x512xi32>
  %sv = relay.qnn.dynamic_scale %v : (tensor<1x8xf32>) -> tensor<f32>
  %zv = relay.qnn.dynamic_zero_point %v : (tensor<1x8xf32>) -> tensor<ui8>
  %qv = relay.qnn.quantize %v, %sv, %zv : (tensor<1x8xf32>, tensor<f32>, tensor<ui8>) -> tensor<1x8xui8>
  %w4 = relay.constant dense<4> : tensor<4x8xi8>
  %c = relay.constant dense<0.5> : tensor<f32>
  %sc = relay.multiply %sv, %c : tensor<f32>
  %e = relay.qnn.dense %qv, %w4, %zv, %zw, %one, %one : (tensor<1x8xui8>, tensor<4x8xi8>, tensor<ui8>, tensor<i8>, tensor<f32>, tensor<f32>) -> tensor<1x4xi32>
  %ef = relay.cast %e : tensor<1x4xi32> -> tensor<1x4xf32>
  %u = relay.multiply %ef, %sc : (tensor<1x4xf32>, tensor<f32>) -> tensor<1x4xf32>
  func.return %y, %i, %u : tensor<256x512xf32>, tensor<256x512xi32>, tensor<1x4xf32>
}
