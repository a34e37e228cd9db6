// canonicalize-conv-transpose: a transposed convolution becomes a conv2d over its stride
// phases, a pixel shuffle and a crop; a constant bias and activations move before the
// shuffle. What cannot be rewritten stays.
// RUN: accel-opt %s --split-input-file -p canonicalize-conv-transpose | filecheck %s

// DCGAN's k=4 s=2 p=1 with bias and relu: 4 phases of 2x2 taps, padding 1 before and
// 1 after (9 phase rows cover the 17 needed), crop 1 cell each side.
// CHECK-LABEL: func.func @dcgan
// CHECK-NEXT:    %0 = relay.constant dense<{{.*}}> : tensor<8x4x2x2xf32>
// CHECK-NEXT:    %1 = relay.nn.conv2d %x, %0 {padding = [1, 1, 1, 1]} : (tensor<1x4x8x8xf32>, tensor<8x4x2x2xf32>) -> tensor<1x8x9x9xf32>
// CHECK-NEXT:    %2 = relay.constant dense<[1.000000e-01, -2.000000e-01, 1.000000e-01, -2.000000e-01, 1.000000e-01, -2.000000e-01, 1.000000e-01, -2.000000e-01]> : tensor<8xf32>
// CHECK-NEXT:    %3 = relay.nn.bias_add %1, %2 : (tensor<1x8x9x9xf32>, tensor<8xf32>) -> tensor<1x8x9x9xf32>
// CHECK-NEXT:    %4 = relay.nn.relu %3 : tensor<1x8x9x9xf32>
// CHECK-NEXT:    %5 = relay.nn.depth_to_space %4 {block_size = 2} : (tensor<1x8x9x9xf32>) -> tensor<1x2x18x18xf32>
// CHECK-NEXT:    %y = relay.strided_slice %5 {begin = [1, 1], end = [17, 17], axes = [2, 3]} : (tensor<1x2x18x18xf32>) -> tensor<1x2x16x16xf32>
// CHECK-NEXT:    func.return %y
func.func @dcgan(%x: tensor<1x4x8x8xf32>) -> tensor<1x2x16x16xf32> {
  %w = relay.constant dense<0.5> : tensor<4x2x4x4xf32>
  %b = relay.constant dense<[0.1, -0.2]> : tensor<2xf32>
  %0 = relay.nn.conv2d_transpose %x, %w {strides = [2, 2], padding = [1, 1, 1, 1]} : (tensor<1x4x8x8xf32>, tensor<4x2x4x4xf32>) -> tensor<1x2x16x16xf32>
  %1 = relay.nn.bias_add %0, %b : (tensor<1x2x16x16xf32>, tensor<2xf32>) -> tensor<1x2x16x16xf32>
  %y = relay.nn.relu %1 : tensor<1x2x16x16xf32>
  func.return %y : tensor<1x2x16x16xf32>
}

// -----

// Stride 1 is a convolution with the kernel reversed and full padding: no shuffle, no crop.
// CHECK-LABEL: func.func @stride_one
// CHECK-NEXT:    %0 = relay.constant dense<[{{\[\[\[}}4.000000e+00, 3.000000e+00], [2.000000e+00, 1.000000e+00]]]]> : tensor<1x1x2x2xf32>
// CHECK-NEXT:    %y = relay.nn.conv2d %x, %0 {padding = [1, 1, 1, 1]} : (tensor<1x1x3x3xf32>, tensor<1x1x2x2xf32>) -> tensor<1x1x4x4xf32>
// CHECK-NEXT:    func.return %y
func.func @stride_one(%x: tensor<1x1x3x3xf32>) -> tensor<1x1x4x4xf32> {
  %w = relay.constant dense<[[[[1.0, 2.0], [3.0, 4.0]]]]> : tensor<1x1x2x2xf32>
  %y = relay.nn.conv2d_transpose %x, %w : (tensor<1x1x3x3xf32>, tensor<1x1x2x2xf32>) -> tensor<1x1x4x4xf32>
  func.return %y : tensor<1x1x4x4xf32>
}

// -----

// Kept: two groups, a dilated kernel, a run-time weight.
// CHECK-LABEL: func.func @kept
// CHECK-COUNT-3: relay.nn.conv2d_transpose
// CHECK-NOT:     relay.nn.conv2d {{.*}}
// CHECK-NOT:     relay.nn.depth_to_space
func.func @kept(%x: tensor<1x2x4x4xf32>, %wr: tensor<2x1x3x3xf32>) -> (tensor<1x2x9x9xf32>, tensor<1x1x11x11xf32>, tensor<1x1x9x9xf32>) {
  %w = relay.constant dense<0.5> : tensor<2x1x3x3xf32>
  %0 = relay.nn.conv2d_transpose %x, %w {strides = [2, 2], groups = 2} : (tensor<1x2x4x4xf32>, tensor<2x1x3x3xf32>) -> tensor<1x2x9x9xf32>
  %1 = relay.nn.conv2d_transpose %x, %w {strides = [2, 2], dilation = [2, 2]} : (tensor<1x2x4x4xf32>, tensor<2x1x3x3xf32>) -> tensor<1x1x11x11xf32>
  %2 = relay.nn.conv2d_transpose %x, %wr {strides = [2, 2]} : (tensor<1x2x4x4xf32>, tensor<2x1x3x3xf32>) -> tensor<1x1x9x9xf32>
  func.return %0, %1, %2 : tensor<1x2x9x9xf32>, tensor<1x1x11x11xf32>, tensor<1x1x9x9xf32>
}

// -----

// QDQ (the quantization tool's form): the int8 weight, dequantized along its output
// channels, is rearranged under its dequantize (scales and zero points repeated per
// phase, now along axis 0); the int32 bias likewise; the quantize moves before the
// shuffle, which then moves int8 data.
// CHECK-LABEL: func.func @qdq
// CHECK:         %[[W:.*]] = relay.qnn.dequantize %{{.*}}, %{{.*}}, %{{.*}} {axis = 0} : (tensor<8x4x1x1xi8>, tensor<8xf32>, tensor<8xi8>) -> tensor<8x4x1x1xf32>
// CHECK:         %[[C:.*]] = relay.nn.conv2d %d, %[[W]] : (tensor<1x4x3x3xf32>, tensor<8x4x1x1xf32>) -> tensor<1x8x3x3xf32>
// CHECK:         %[[B:.*]] = relay.qnn.dequantize %{{.*}}, %{{.*}}, %{{.*}} {axis = 0} : (tensor<8xi32>, tensor<8xf32>, tensor<8xi32>) -> tensor<8xf32>
// CHECK-NEXT:    %[[BA:.*]] = relay.nn.bias_add %[[C]], %[[B]]
// CHECK-NEXT:    %[[Q:.*]] = relay.qnn.quantize %[[BA]], %qs, %qz : (tensor<1x8x3x3xf32>, tensor<f32>, tensor<i8>) -> tensor<1x8x3x3xi8>
// CHECK-NEXT:    %y = relay.nn.depth_to_space %[[Q]] {block_size = 2} : (tensor<1x8x3x3xi8>) -> tensor<1x2x6x6xi8>
// CHECK-NOT:     relay.nn.conv2d_transpose
func.func @qdq(%x: tensor<1x4x3x3xi8>) -> tensor<1x2x6x6xi8> {
  %xs = relay.constant dense<0.05> : tensor<f32>
  %xz = relay.constant dense<-3> : tensor<i8>
  %d = relay.qnn.dequantize %x, %xs, %xz : (tensor<1x4x3x3xi8>, tensor<f32>, tensor<i8>) -> tensor<1x4x3x3xf32>
  %wq = relay.constant dense<7> : tensor<4x2x2x2xi8>
  %ws = relay.constant dense<[0.02, 0.03]> : tensor<2xf32>
  %wz = relay.constant dense<[0, 1]> : tensor<2xi8>
  %w = relay.qnn.dequantize %wq, %ws, %wz {axis = 1} : (tensor<4x2x2x2xi8>, tensor<2xf32>, tensor<2xi8>) -> tensor<4x2x2x2xf32>
  %c = relay.nn.conv2d_transpose %d, %w {strides = [2, 2]} : (tensor<1x4x3x3xf32>, tensor<4x2x2x2xf32>) -> tensor<1x2x6x6xf32>
  %bq = relay.constant dense<[100, -100]> : tensor<2xi32>
  %bs = relay.constant dense<[0.001, 0.0015]> : tensor<2xf32>
  %bz = relay.constant dense<0> : tensor<2xi32>
  %b = relay.qnn.dequantize %bq, %bs, %bz {axis = 0} : (tensor<2xi32>, tensor<2xf32>, tensor<2xi32>) -> tensor<2xf32>
  %ba = relay.nn.bias_add %c, %b : (tensor<1x2x6x6xf32>, tensor<2xf32>) -> tensor<1x2x6x6xf32>
  %qs = relay.constant dense<0.1> : tensor<f32>
  %qz = relay.constant dense<5> : tensor<i8>
  %y = relay.qnn.quantize %ba, %qs, %qz : (tensor<1x2x6x6xf32>, tensor<f32>, tensor<i8>) -> tensor<1x2x6x6xi8>
  func.return %y : tensor<1x2x6x6xi8>
}
