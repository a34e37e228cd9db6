// fold-batch-norm: batch norm folded into the conv2d / dense before it (s = gamma /
// sqrt(var + eps) = [1, 2], t = beta - mean * s = [0.5, -1.5] below).
// RUN: accel-opt %s --split-input-file -p fold-batch-norm | filecheck %s

// CHECK-LABEL: func.func @conv
// CHECK-NEXT:    %[[W:.*]] = relay.constant dense<{{\[\[\[\[}}1.000000e+00]], {{\[\[}}2.000000e+00]]], {{\[\[\[}}6.000000e+00]], {{\[\[}}8.000000e+00]]]]> : tensor<2x2x1x1xf32>
// CHECK-NEXT:    %[[T:.*]] = relay.constant dense<[5.000000e-01, -1.500000e+00]> : tensor<2xf32>
// CHECK-NEXT:    %[[C:.*]] = relay.nn.conv2d %x, %[[W]] {strides = [2, 2]} : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x2x2xf32>
// CHECK-NEXT:    %[[Y:.*]] = relay.nn.bias_add %[[C]], %[[T]] : (tensor<1x2x2x2xf32>, tensor<2xf32>) -> tensor<1x2x2x2xf32>
// CHECK-NEXT:    func.return %[[Y]]
func.func @conv(%x: tensor<1x2x4x4xf32>) -> tensor<1x2x2x2xf32> {
  %w = relay.constant dense<[[[[1.0]], [[2.0]]], [[[3.0]], [[4.0]]]]> : tensor<2x2x1x1xf32>
  %g = relay.constant dense<[2.0, 4.0]> : tensor<2xf32>
  %b = relay.constant dense<[1.0, -1.0]> : tensor<2xf32>
  %m = relay.constant dense<[0.5, 0.25]> : tensor<2xf32>
  %v = relay.constant dense<[3.0, 3.0]> : tensor<2xf32>
  %0 = relay.nn.conv2d %x, %w {strides = [2, 2]} : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x2x2xf32>
  %1 = relay.nn.batch_norm %0, %g, %b, %m, %v {epsilon = 1.0} : (tensor<1x2x2x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x2x2xf32>
  func.return %1 : tensor<1x2x2x2xf32>
}

// -----

// A bias between: b * s + t = [1 * 1 + 0.5, 1 * 2 - 1.5].
// CHECK-LABEL: func.func @conv_bias
// CHECK:         %[[T:.*]] = relay.constant dense<[1.500000e+00, 5.000000e-01]> : tensor<2xf32>
// CHECK-NEXT:    %[[C:.*]] = relay.nn.conv2d %x, %{{.*}} : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x4x4xf32>
// CHECK-NEXT:    %[[Y:.*]] = relay.nn.bias_add %[[C]], %[[T]]
// CHECK-NEXT:    func.return %[[Y]]
func.func @conv_bias(%x: tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32> {
  %w = relay.constant dense<1.0> : tensor<2x2x1x1xf32>
  %c = relay.constant dense<1.0> : tensor<2xf32>
  %g = relay.constant dense<[2.0, 4.0]> : tensor<2xf32>
  %b = relay.constant dense<[1.0, -1.0]> : tensor<2xf32>
  %m = relay.constant dense<[0.5, 0.25]> : tensor<2xf32>
  %v = relay.constant dense<[3.0, 3.0]> : tensor<2xf32>
  %0 = relay.nn.conv2d %x, %w : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x4x4xf32>
  %1 = relay.nn.bias_add %0, %c : (tensor<1x2x4x4xf32>, tensor<2xf32>) -> tensor<1x2x4x4xf32>
  %2 = relay.nn.batch_norm %1, %g, %b, %m, %v {epsilon = 1.0} : (tensor<1x2x4x4xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x4x4xf32>
  func.return %2 : tensor<1x2x4x4xf32>
}

// -----

// An add of a per-channel constant [C, 1, 1] is a bias too.
// CHECK-LABEL: func.func @conv_add
// CHECK:         %[[T:.*]] = relay.constant dense<[1.500000e+00, 5.000000e-01]> : tensor<2xf32>
// CHECK-NEXT:    %[[C:.*]] = relay.nn.conv2d
// CHECK-NEXT:    relay.nn.bias_add %[[C]], %[[T]]
// CHECK-NOT:     relay.add
func.func @conv_add(%x: tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32> {
  %w = relay.constant dense<1.0> : tensor<2x2x1x1xf32>
  %c = relay.constant dense<[[[1.0]], [[1.0]]]> : tensor<2x1x1xf32>
  %g = relay.constant dense<[2.0, 4.0]> : tensor<2xf32>
  %b = relay.constant dense<[1.0, -1.0]> : tensor<2xf32>
  %m = relay.constant dense<[0.5, 0.25]> : tensor<2xf32>
  %v = relay.constant dense<[3.0, 3.0]> : tensor<2xf32>
  %0 = relay.nn.conv2d %x, %w : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x4x4xf32>
  %1 = relay.add %c, %0 : (tensor<2x1x1xf32>, tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %2 = relay.nn.batch_norm %1, %g, %b, %m, %v {epsilon = 1.0} : (tensor<1x2x4x4xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x4x4xf32>
  func.return %2 : tensor<1x2x4x4xf32>
}

// -----

// dense: the rows of W (output features) are scaled.
// CHECK-LABEL: func.func @dense
// CHECK-NEXT:    %[[W:.*]] = relay.constant dense<{{\[\[}}1.000000e+00, 1.000000e+00, 1.000000e+00], [2.000000e+00, 2.000000e+00, 2.000000e+00]]> : tensor<2x3xf32>
// CHECK-NEXT:    %[[T:.*]] = relay.constant dense<[5.000000e-01, -1.500000e+00]> : tensor<2xf32>
// CHECK-NEXT:    %[[D:.*]] = relay.nn.dense %x, %[[W]]
// CHECK-NEXT:    relay.nn.bias_add %[[D]], %[[T]] : (tensor<4x2xf32>, tensor<2xf32>) -> tensor<4x2xf32>
func.func @dense(%x: tensor<4x3xf32>) -> tensor<4x2xf32> {
  %w = relay.constant dense<1.0> : tensor<2x3xf32>
  %g = relay.constant dense<[2.0, 4.0]> : tensor<2xf32>
  %b = relay.constant dense<[1.0, -1.0]> : tensor<2xf32>
  %m = relay.constant dense<[0.5, 0.25]> : tensor<2xf32>
  %v = relay.constant dense<[3.0, 3.0]> : tensor<2xf32>
  %0 = relay.nn.dense %x, %w : (tensor<4x3xf32>, tensor<2x3xf32>) -> tensor<4x2xf32>
  %1 = relay.nn.batch_norm %0, %g, %b, %m, %v {epsilon = 1.0} : (tensor<4x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<4x2xf32>
  func.return %1 : tensor<4x2xf32>
}

// -----

// A QDQ model quantizes the statistics too: dequantized constants count as constants.
// CHECK-LABEL: func.func @dequantized_stats
// CHECK-NOT:     relay.qnn.dequantize
// CHECK-NOT:     relay.nn.batch_norm
// CHECK:         %[[T:.*]] = relay.constant dense<[5.000000e-01, -1.500000e+00]> : tensor<2xf32>
// CHECK:         relay.nn.bias_add %{{.*}}, %[[T]]
func.func @dequantized_stats(%x: tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32> {
  %w = relay.constant dense<1.0> : tensor<2x2x1x1xf32>
  %qg = relay.constant dense<[4, 8]> : tensor<2xi8>
  %s = relay.constant dense<0.5> : tensor<f32>
  %z = relay.constant dense<0> : tensor<i8>
  %g = relay.qnn.dequantize %qg, %s, %z : (tensor<2xi8>, tensor<f32>, tensor<i8>) -> tensor<2xf32>
  %b = relay.constant dense<[1.0, -1.0]> : tensor<2xf32>
  %m = relay.constant dense<[0.5, 0.25]> : tensor<2xf32>
  %v = relay.constant dense<[3.0, 3.0]> : tensor<2xf32>
  %0 = relay.nn.conv2d %x, %w : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x4x4xf32>
  %1 = relay.nn.batch_norm %0, %g, %b, %m, %v {epsilon = 1.0} : (tensor<1x2x4x4xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x4x4xf32>
  func.return %1 : tensor<1x2x4x4xf32>
}
