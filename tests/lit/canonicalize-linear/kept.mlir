// canonicalize-linear: products that are no dense layer stay.
// RUN: accel-opt %s --split-input-file -p canonicalize-linear | filecheck %s

// Attention's QK^T: both operands are activations.
// CHECK-LABEL: func.func @activations
// CHECK:         relay.nn.batch_matmul %q, %k
// CHECK-NOT:     relay.nn.dense
func.func @activations(%q: tensor<2x4x8xf32>, %k: tensor<2x4x8xf32>) -> tensor<2x4x4xf32> {
  %0 = relay.nn.batch_matmul %q, %k : (tensor<2x4x8xf32>, tensor<2x4x8xf32>) -> tensor<2x4x4xf32>
  func.return %0 : tensor<2x4x4xf32>
}

// -----

// A constant with a real batch dim is one weight per batch: no dense.
// CHECK-LABEL: func.func @batched_weight
// CHECK:         relay.nn.batch_matmul
// CHECK-NOT:     relay.nn.dense
func.func @batched_weight(%x: tensor<2x4x3xf32>) -> tensor<2x4x5xf32> {
  %w = relay.constant dense<1.0> : tensor<2x3x5xf32>
  %0 = relay.nn.batch_matmul %x, %w {transpose_b = false} : (tensor<2x4x3xf32>, tensor<2x3x5xf32>) -> tensor<2x4x5xf32>
  func.return %0 : tensor<2x4x5xf32>
}

// -----

// A transposed left operand.
// CHECK-LABEL: func.func @trans_a
// CHECK:         relay.nn.matmul
// CHECK-NOT:     relay.nn.dense
func.func @trans_a(%x: tensor<2x3xf32>) -> tensor<3x4xf32> {
  %w = relay.constant dense<1.0> : tensor<2x4xf32>
  %0 = relay.nn.matmul %x, %w {transpose_a = true} : (tensor<2x3xf32>, tensor<2x4xf32>) -> tensor<3x4xf32>
  func.return %0 : tensor<3x4xf32>
}

// -----

// A reshape after a dense that changes the last axis: the bias cannot move before it.
// CHECK-LABEL: func.func @mixed_reshape
// CHECK:         relay.nn.dense
// CHECK-NEXT:    relay.reshape
// CHECK-NEXT:    relay.nn.bias_add
func.func @mixed_reshape(%x: tensor<2x4xf32>) -> tensor<4x2xf32> {
  %w = relay.constant dense<1.0> : tensor<4x4xf32>
  %b = relay.constant dense<1.0> : tensor<2xf32>
  %0 = relay.nn.dense %x, %w : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
  %1 = relay.reshape %0 {newshape = [4, 2]} : (tensor<2x4xf32>) -> tensor<4x2xf32>
  %2 = relay.nn.bias_add %1, %b {axis = 1} : (tensor<4x2xf32>, tensor<2xf32>) -> tensor<4x2xf32>
  func.return %2 : tensor<4x2xf32>
}

// -----

// A weight quantized along K cannot be a per-channel dense weight.
// CHECK-LABEL: func.func @k_axis_quant
// CHECK:         relay.nn.matmul
func.func @k_axis_quant(%x: tensor<2x3xf32>) -> tensor<2x2xf32> {
  %w = relay.constant dense<1> : tensor<3x2xi8>
  %s = relay.constant dense<[0.5, 0.25, 0.125]> : tensor<3xf32>
  %z = relay.constant dense<0> : tensor<3xi8>
  %wf = relay.qnn.dequantize %w, %s, %z {axis = 0} : (tensor<3x2xi8>, tensor<3xf32>, tensor<3xi8>) -> tensor<3x2xf32>
  %0 = relay.nn.matmul %x, %wf : (tensor<2x3xf32>, tensor<3x2xf32>) -> tensor<2x2xf32>
  func.return %0 : tensor<2x2xf32>
}

// -----

// A transpose that moves a batch axis is no matrix transpose.
// CHECK-LABEL: func.func @other_transpose
// CHECK:         relay.transpose
// CHECK-NEXT:    relay.nn.batch_matmul %q, %{{.*}} {transpose_b = false}
func.func @other_transpose(%q: tensor<2x2x4x4xf32>, %k: tensor<2x2x4x4xf32>) -> tensor<2x2x4x4xf32> {
  %kt = relay.transpose %k {axes = [1, 0, 3, 2]} : (tensor<2x2x4x4xf32>) -> tensor<2x2x4x4xf32>
  %0 = relay.nn.batch_matmul %q, %kt {transpose_b = false} : (tensor<2x2x4x4xf32>, tensor<2x2x4x4xf32>) -> tensor<2x2x4x4xf32>
  func.return %0 : tensor<2x2x4x4xf32>
}

// -----

// A bias after a reshape of a convolution's result along an axis that is not where the
// reshape keeps the channels (the rows of 1x4x6x1 viewed as 1x24): it stays after it.
// CHECK-LABEL: func.func @conv_bias_elsewhere
// CHECK:         relay.nn.conv2d
// CHECK-NEXT:    relay.reshape
// CHECK-NEXT:    relay.nn.bias_add %s, %b : (tensor<1x24xf32>, tensor<24xf32>)
func.func @conv_bias_elsewhere(%x: tensor<1x3x8x1xf32>) -> tensor<1x24xf32> {
  %w = relay.constant dense<0.5> : tensor<4x3x3x1xf32>
  %b = relay.constant dense<1.0> : tensor<24xf32>
  %c = relay.nn.conv2d %x, %w : (tensor<1x3x8x1xf32>, tensor<4x3x3x1xf32>) -> tensor<1x4x6x1xf32>
  %s = relay.reshape %c {newshape = [1, 24]} : (tensor<1x4x6x1xf32>) -> tensor<1x24xf32>
  %a = relay.nn.bias_add %s, %b {axis = 1} : (tensor<1x24xf32>, tensor<24xf32>) -> tensor<1x24xf32>
  func.return %a : tensor<1x24xf32>
}
