// canonicalize-linear: products with a constant right operand become 2-D dense layers.
// RUN: accel-opt %s --split-input-file -p canonicalize-linear | filecheck %s

// A [1,4,3] x [3,5] MatMul (batch_matmul on import) is a 4-row dense; its bias and
// activation move before the trailing reshape.
// CHECK-LABEL: func.func @rows
// CHECK:         %[[W:.*]] = relay.constant dense<{{.*}}> : tensor<5x3xf32>
// CHECK:         %[[R:.*]] = relay.reshape %x {newshape = [4, 3]} : (tensor<1x4x3xf32>) -> tensor<4x3xf32>
// CHECK-NEXT:    %[[D:.*]] = relay.nn.dense %[[R]], %[[W]] : (tensor<4x3xf32>, tensor<5x3xf32>) -> tensor<4x5xf32>
// CHECK-NEXT:    %[[B:.*]] = relay.nn.bias_add %[[D]], %b : (tensor<4x5xf32>, tensor<5xf32>) -> tensor<4x5xf32>
// CHECK-NEXT:    %[[G:.*]] = relay.nn.gelu %[[B]] : tensor<4x5xf32>
// CHECK-NEXT:    %[[Y:.*]] = relay.reshape %[[G]] {newshape = [1, 4, 5]} : (tensor<4x5xf32>) -> tensor<1x4x5xf32>
// CHECK-NEXT:    func.return %[[Y]]
func.func @rows(%x: tensor<1x4x3xf32>) -> tensor<1x4x5xf32> {
  %w = relay.constant dense<[[1.0, 2.0, 3.0, 4.0, 5.0], [6.0, 7.0, 8.0, 9.0, 10.0], [11.0, 12.0, 13.0, 14.0, 15.0]]> : tensor<3x5xf32>
  %b = relay.constant dense<[1.0, 2.0, 3.0, 4.0, 5.0]> : tensor<5xf32>
  %0 = relay.nn.batch_matmul %x, %w {transpose_b = false} : (tensor<1x4x3xf32>, tensor<3x5xf32>) -> tensor<1x4x5xf32>
  %1 = relay.nn.bias_add %0, %b {axis = 2} : (tensor<1x4x5xf32>, tensor<5xf32>) -> tensor<1x4x5xf32>
  %2 = relay.nn.gelu %1 : tensor<1x4x5xf32>
  func.return %2 : tensor<1x4x5xf32>
}

// -----

// Keras: MatMul [in, out] + Add of an [out] constant; the weight is transposed.
// CHECK-LABEL: func.func @keras
// CHECK:         %[[W:.*]] = relay.constant dense<{{\[\[}}1.000000e+00, 3.000000e+00], [2.000000e+00, 4.000000e+00]]> : tensor<2x2xf32>
// CHECK:         %[[D:.*]] = relay.nn.dense %x, %[[W]]
// CHECK-NEXT:    relay.add %[[D]], %b
// CHECK-NOT:     relay.nn.matmul
func.func @keras(%x: tensor<3x2xf32>) -> tensor<3x2xf32> {
  %w = relay.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
  %b = relay.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %0 = relay.nn.matmul %x, %w : (tensor<3x2xf32>, tensor<2x2xf32>) -> tensor<3x2xf32>
  %1 = relay.add %0, %b : (tensor<3x2xf32>, tensor<2xf32>) -> tensor<3x2xf32>
  func.return %1 : tensor<3x2xf32>
}

// -----

// Gemm transB = 1 as a matmul: the weight is already [N, K].
// CHECK-LABEL: func.func @trans_b
// CHECK:         relay.nn.dense %x, %{{.*}} : (tensor<3x2xf32>, tensor<4x2xf32>) -> tensor<3x4xf32>
func.func @trans_b(%x: tensor<3x2xf32>) -> tensor<3x4xf32> {
  %w = relay.constant dense<1.0> : tensor<4x2xf32>
  %0 = relay.nn.matmul %x, %w {transpose_b = true} : (tensor<3x2xf32>, tensor<4x2xf32>) -> tensor<3x4xf32>
  func.return %0 : tensor<3x4xf32>
}

// -----

// An add after the trailing reshape of a constant along the last axis becomes the bias.
// CHECK-LABEL: func.func @add_bias
// CHECK:         relay.nn.dense
// CHECK-NOT:     tensor<1x1x4xf32>
// CHECK:         relay.nn.bias_add %{{.*}}, %{{.*}} : (tensor<6x4xf32>, tensor<4xf32>) -> tensor<6x4xf32>
// CHECK-NEXT:    relay.reshape %{{.*}} {newshape = [2, 3, 4]}
func.func @add_bias(%x: tensor<2x3x2xf32>) -> tensor<2x3x4xf32> {
  %w = relay.constant dense<1.0> : tensor<2x4xf32>
  %b = relay.constant dense<[[[1.0, 2.0, 3.0, 4.0]]]> : tensor<1x1x4xf32>
  %0 = relay.nn.batch_matmul %x, %w {transpose_b = false} : (tensor<2x3x2xf32>, tensor<2x4xf32>) -> tensor<2x3x4xf32>
  %1 = relay.add %0, %b : (tensor<2x3x4xf32>, tensor<1x1x4xf32>) -> tensor<2x3x4xf32>
  func.return %1 : tensor<2x3x4xf32>
}

// -----

// Two linear layers in a row: the reshapes between them cancel.
// CHECK-LABEL: func.func @two_layers
// CHECK:         relay.reshape %x
// CHECK-NEXT:    relay.nn.dense
// CHECK-NEXT:    relay.nn.relu %{{.*}} : tensor<8x4xf32>
// CHECK-NEXT:    relay.constant
// CHECK-NEXT:    relay.nn.dense
// CHECK-NEXT:    relay.reshape
// CHECK-NEXT:    func.return
func.func @two_layers(%x: tensor<2x4x3xf32>) -> tensor<2x4x2xf32> {
  %w1 = relay.constant dense<0.5> : tensor<3x4xf32>
  %w2 = relay.constant dense<0.25> : tensor<4x2xf32>
  %0 = relay.nn.batch_matmul %x, %w1 {transpose_b = false} : (tensor<2x4x3xf32>, tensor<3x4xf32>) -> tensor<2x4x4xf32>
  %1 = relay.nn.relu %0 : tensor<2x4x4xf32>
  %2 = relay.nn.batch_matmul %1, %w2 {transpose_b = false} : (tensor<2x4x4xf32>, tensor<4x2xf32>) -> tensor<2x4x2xf32>
  func.return %2 : tensor<2x4x2xf32>
}

// -----

// QDQ: the int8 value is reshaped before its dequantize; the weight's dequantize follows the transpose.
// CHECK-LABEL: func.func @qdq
// CHECK:         %[[W:.*]] = relay.constant dense<{{.*}}> : tensor<2x3xi8>
// CHECK:         %[[WF:.*]] = relay.qnn.dequantize %[[W]], %s, %z
// CHECK:         %[[R:.*]] = relay.reshape %q {newshape = [4, 3]} : (tensor<1x4x3xi8>) -> tensor<4x3xi8>
// CHECK-NEXT:    %[[XF:.*]] = relay.qnn.dequantize %[[R]], %s, %z
// CHECK-NEXT:    relay.nn.dense %[[XF]], %[[WF]] : (tensor<4x3xf32>, tensor<2x3xf32>) -> tensor<4x2xf32>
// CHECK-NEXT:    relay.qnn.quantize
// CHECK-NEXT:    relay.reshape %{{.*}} {newshape = [1, 4, 2]} : (tensor<4x2xi8>) -> tensor<1x4x2xi8>
func.func @qdq(%q: tensor<1x4x3xi8>) -> tensor<1x4x2xi8> {
  %s = relay.constant dense<0.5> : tensor<f32>
  %z = relay.constant dense<0> : tensor<i8>
  %w = relay.constant dense<[[1, 2], [3, 4], [5, 6]]> : tensor<3x2xi8>
  %xf = relay.qnn.dequantize %q, %s, %z : (tensor<1x4x3xi8>, tensor<f32>, tensor<i8>) -> tensor<1x4x3xf32>
  %wf = relay.qnn.dequantize %w, %s, %z : (tensor<3x2xi8>, tensor<f32>, tensor<i8>) -> tensor<3x2xf32>
  %0 = relay.nn.batch_matmul %xf, %wf {transpose_b = false} : (tensor<1x4x3xf32>, tensor<3x2xf32>) -> tensor<1x4x2xf32>
  %y = relay.qnn.quantize %0, %s, %z : (tensor<1x4x2xf32>, tensor<f32>, tensor<i8>) -> tensor<1x4x2xi8>
  func.return %y : tensor<1x4x2xi8>
}

// -----

// QK^T as torch exports it: the transpose of the last two axes becomes transpose_b.
// CHECK-LABEL: func.func @qk_transposed
// CHECK-NEXT:    %[[S:.*]] = relay.nn.batch_matmul %q, %k : (tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>) -> tensor<1x2x4x4xf32>
// CHECK-NEXT:    func.return %[[S]]
func.func @qk_transposed(%q: tensor<1x2x4x8xf32>, %k: tensor<1x2x4x8xf32>) -> tensor<1x2x4x4xf32> {
  %kt = relay.transpose %k {axes = [0, 1, 3, 2]} : (tensor<1x2x4x8xf32>) -> tensor<1x2x8x4xf32>
  %0 = relay.nn.batch_matmul %q, %kt {transpose_b = false} : (tensor<1x2x4x8xf32>, tensor<1x2x8x4xf32>) -> tensor<1x2x4x4xf32>
  func.return %0 : tensor<1x2x4x4xf32>
}

// -----

// MLP-Mixer's token mixing, x^T W with a constant W: the transpose stays an op of its
// own (targets run it) and the product becomes a dense on rows (a transpose_a flag would
// leave a batched product with a transposed operand, which no dense takes).
// CHECK-LABEL: func.func @transposed_data
// CHECK-NEXT:    %[[T:.*]] = relay.transpose %x {axes = [0, 2, 1]} : (tensor<2x4x3xf32>) -> tensor<2x3x4xf32>
// CHECK-NEXT:    %[[W:.*]] = relay.constant
// CHECK-NEXT:    %[[R:.*]] = relay.reshape %[[T]] {newshape = [6, 4]}
// CHECK-NEXT:    relay.nn.dense %[[R]], %[[W]] : (tensor<6x4xf32>, tensor<5x4xf32>) -> tensor<6x5xf32>
func.func @transposed_data(%x: tensor<2x4x3xf32>) -> tensor<2x3x5xf32> {
  %w = relay.constant dense<0.5> : tensor<4x5xf32>
  %xt = relay.transpose %x {axes = [0, 2, 1]} : (tensor<2x4x3xf32>) -> tensor<2x3x4xf32>
  %0 = relay.nn.batch_matmul %xt, %w {transpose_b = false} : (tensor<2x3x4xf32>, tensor<4x5xf32>) -> tensor<2x3x5xf32>
  func.return %0 : tensor<2x3x5xf32>
}

// -----

// jax2tf's 1-D convolution: NCHW over a unit width, squeezed before its bias and
// activation. The bias (along the channels the reshape keeps) and the activation move
// before the squeeze, next to the convolution.
// CHECK-LABEL: func.func @squeezed_conv
// CHECK-NEXT:    %w = relay.constant
// CHECK-NEXT:    %b = relay.constant
// CHECK-NEXT:    %c = relay.nn.conv2d %x, %w
// CHECK-NEXT:    %a = relay.nn.bias_add %c, %b : (tensor<1x4x6x1xf32>, tensor<4xf32>) -> tensor<1x4x6x1xf32>
// CHECK-NEXT:    %y = relay.nn.relu %a : tensor<1x4x6x1xf32>
// CHECK-NEXT:    %y_1 = relay.reshape %y {newshape = [1, 4, 6]} : (tensor<1x4x6x1xf32>) -> tensor<1x4x6xf32>
// CHECK-NEXT:    func.return %y_1
func.func @squeezed_conv(%x: tensor<1x3x8x1xf32>) -> tensor<1x4x6xf32> {
  %w = relay.constant dense<0.5> : tensor<4x3x3x1xf32>
  %b = relay.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  %c = relay.nn.conv2d %x, %w : (tensor<1x3x8x1xf32>, tensor<4x3x3x1xf32>) -> tensor<1x4x6x1xf32>
  %s = relay.reshape %c {newshape = [1, 4, 6]} : (tensor<1x4x6x1xf32>) -> tensor<1x4x6xf32>
  %a = relay.nn.bias_add %s, %b {axis = 1} : (tensor<1x4x6xf32>, tensor<4xf32>) -> tensor<1x4x6xf32>
  %y = relay.nn.relu %a : tensor<1x4x6xf32>
  func.return %y : tensor<1x4x6xf32>
}
