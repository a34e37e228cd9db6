// RUN: accel-opt %s --split-input-file -p 'merge-composite{target=npu}' | filecheck %s

// The QDQ form of onnxruntime's quantize_static: the dequantize of the activation %q
// is shared by the conv and the residual add; each composite gets its own copy
// ({accel.duplicate} in the pattern) and the original, left without users, is erased.
// CHECK-LABEL: func.func @qdq_block
// CHECK:         %q = relay.qnn.quantize %x, %xs, %xz
// CHECK:         %[[C:.*]] = relay.composite "npu.qconv2d_bias" (%q, %xs, %xz, %w, %ws, %wz, %b, %bs, %bz, %ys, %yz)
// CHECK:           relay.qnn.dequantize
// CHECK-NEXT:      relay.qnn.dequantize
// CHECK-NEXT:      relay.qnn.dequantize
// CHECK-NEXT:      relay.nn.conv2d
// CHECK-NEXT:      relay.nn.bias_add
// CHECK-NEXT:      relay.qnn.quantize
// CHECK-NEXT:      relay.yield
// CHECK:         %[[A:.*]] = relay.composite "npu.qadd" (%[[C]], %ys, %yz, %q, %xs, %xz, %zs, %zz)
// CHECK:         %{{.*}} = relay.qnn.dequantize %[[A]], %zs, %zz
// CHECK-NOT:     relay.qnn.dequantize %q
func.func @qdq_block(%x: tensor<1x8x16x16xf32>) -> tensor<1x8x16x16xf32> {
  %xs = relay.constant dense<0.05> : tensor<f32>
  %xz = relay.constant dense<0> : tensor<i8>
  %q = relay.qnn.quantize %x, %xs, %xz : (tensor<1x8x16x16xf32>, tensor<f32>, tensor<i8>) -> tensor<1x8x16x16xi8>
  %dq = relay.qnn.dequantize %q, %xs, %xz : (tensor<1x8x16x16xi8>, tensor<f32>, tensor<i8>) -> tensor<1x8x16x16xf32>
  %w = relay.constant dense<3> : tensor<8x8x3x3xi8>
  %ws = relay.constant dense<0.01> : tensor<8xf32>
  %wz = relay.constant dense<0> : tensor<8xi8>
  %dw = relay.qnn.dequantize %w, %ws, %wz {axis = 0} : (tensor<8x8x3x3xi8>, tensor<8xf32>, tensor<8xi8>) -> tensor<8x8x3x3xf32>
  %b = relay.constant dense<100> : tensor<8xi32>
  %bs = relay.constant dense<0.0005> : tensor<8xf32>
  %bz = relay.constant dense<0> : tensor<8xi32>
  %db = relay.qnn.dequantize %b, %bs, %bz {axis = 0} : (tensor<8xi32>, tensor<8xf32>, tensor<8xi32>) -> tensor<8xf32>
  %c = relay.nn.conv2d %dq, %dw {padding = [1, 1, 1, 1]} : (tensor<1x8x16x16xf32>, tensor<8x8x3x3xf32>) -> tensor<1x8x16x16xf32>
  %a = relay.nn.bias_add %c, %db : (tensor<1x8x16x16xf32>, tensor<8xf32>) -> tensor<1x8x16x16xf32>
  %ys = relay.constant dense<0.1> : tensor<f32>
  %yz = relay.constant dense<0> : tensor<i8>
  %y = relay.qnn.quantize %a, %ys, %yz : (tensor<1x8x16x16xf32>, tensor<f32>, tensor<i8>) -> tensor<1x8x16x16xi8>
  %dy = relay.qnn.dequantize %y, %ys, %yz : (tensor<1x8x16x16xi8>, tensor<f32>, tensor<i8>) -> tensor<1x8x16x16xf32>
  %s = relay.add %dy, %dq : tensor<1x8x16x16xf32>
  %zs = relay.constant dense<0.2> : tensor<f32>
  %zz = relay.constant dense<0> : tensor<i8>
  %z = relay.qnn.quantize %s, %zs, %zz : (tensor<1x8x16x16xf32>, tensor<f32>, tensor<i8>) -> tensor<1x8x16x16xi8>
  %out = relay.qnn.dequantize %z, %zs, %zz : (tensor<1x8x16x16xi8>, tensor<f32>, tensor<i8>) -> tensor<1x8x16x16xf32>
  func.return %out : tensor<1x8x16x16xf32>
}

// -----

// Per-channel activation quantization is rejected by the patterns' predicate
// (compiler.targets.predicates:per_tensor_activations); no int8 composite forms.
// CHECK-LABEL: func.func @per_channel_activation
// CHECK-NOT:     relay.composite
func.func @per_channel_activation(%q: tensor<1x8x16x16xi8>) -> tensor<1x8x16x16xi8> {
  %xs = relay.constant dense<0.05> : tensor<8xf32>
  %xz = relay.constant dense<0> : tensor<8xi8>
  %dq = relay.qnn.dequantize %q, %xs, %xz {axis = 1} : (tensor<1x8x16x16xi8>, tensor<8xf32>, tensor<8xi8>) -> tensor<1x8x16x16xf32>
  %w = relay.constant dense<3> : tensor<8x8x1x1xi8>
  %ws = relay.constant dense<0.01> : tensor<f32>
  %wz = relay.constant dense<0> : tensor<i8>
  %dw = relay.qnn.dequantize %w, %ws, %wz : (tensor<8x8x1x1xi8>, tensor<f32>, tensor<i8>) -> tensor<8x8x1x1xf32>
  %c = relay.nn.conv2d %dq, %dw : (tensor<1x8x16x16xf32>, tensor<8x8x1x1xf32>) -> tensor<1x8x16x16xf32>
  %ys = relay.constant dense<0.1> : tensor<f32>
  %yz = relay.constant dense<0> : tensor<i8>
  %y = relay.qnn.quantize %c, %ys, %yz : (tensor<1x8x16x16xf32>, tensor<f32>, tensor<i8>) -> tensor<1x8x16x16xi8>
  func.return %y : tensor<1x8x16x16xi8>
}

// -----

// The QOperator form (QLinearConv imported as qnn.conv2d, bias_add, requantize).
// CHECK-LABEL: func.func @qlinear
// CHECK:         relay.composite "npu.qlinear_conv2d_bias" (%x, %w, %xz, %wz, %xs, %ws, %b, %s, %z, %ys, %yz)
func.func @qlinear(%x: tensor<1x8x16x16xi8>) -> tensor<1x8x16x16xi8> {
  %w = relay.constant dense<3> : tensor<8x8x1x1xi8>
  %xz = relay.constant dense<0> : tensor<i8>
  %wz = relay.constant dense<0> : tensor<8xi8>
  %xs = relay.constant dense<0.05> : tensor<f32>
  %ws = relay.constant dense<0.01> : tensor<8xf32>
  %acc = relay.qnn.conv2d %x, %w, %xz, %wz, %xs, %ws : (tensor<1x8x16x16xi8>, tensor<8x8x1x1xi8>, tensor<i8>, tensor<8xi8>, tensor<f32>, tensor<8xf32>) -> tensor<1x8x16x16xi32>
  %b = relay.constant dense<100> : tensor<8xi32>
  %ab = relay.nn.bias_add %acc, %b : (tensor<1x8x16x16xi32>, tensor<8xi32>) -> tensor<1x8x16x16xi32>
  %s = relay.constant dense<0.0005> : tensor<8xf32>
  %z = relay.constant dense<0> : tensor<i32>
  %ys = relay.constant dense<0.1> : tensor<f32>
  %yz = relay.constant dense<0> : tensor<i8>
  %y = relay.qnn.requantize %ab, %s, %z, %ys, %yz {axis = 1} : (tensor<1x8x16x16xi32>, tensor<8xf32>, tensor<i32>, tensor<f32>, tensor<i8>) -> tensor<1x8x16x16xi8>
  func.return %y : tensor<1x8x16x16xi8>
}
