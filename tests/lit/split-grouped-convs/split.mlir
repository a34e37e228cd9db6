// split-grouped-convs: grouped convolutions the npu does not take, as one convolution per
// group on its channel slice, concatenated; left alone where a target takes the grouping
// (dnnl) or where one group would not be taken either.
// RUN: accel-opt %s --split-input-file --target npu -p split-grouped-convs | filecheck %s
// RUN: accel-opt %s --split-input-file --target npu -p byoc | filecheck %s --check-prefix=BYOC
// RUN: accel-opt %s --split-input-file --target dnnl -p split-grouped-convs | filecheck %s --check-prefix=DNNL

// Two groups with a bias and a relu: each group's conv gets its rows of the weight and
// bias and its own relu; the concatenation joins them. Partitioned, all of it is one npu
// region of two conv+bias+relu composites.
// CHECK-LABEL: func.func @two_groups
// CHECK-NEXT:    %0 = relay.strided_slice %x {begin = [0], end = [4], axes = [1]} : (tensor<1x8x8x8xf32>) -> tensor<1x4x8x8xf32>
// CHECK-NEXT:    %1 = relay.constant dense<5.000000e-01> : tensor<4x4x3x3xf32>
// CHECK-NEXT:    %2 = relay.nn.conv2d %0, %1 {padding = [1, 1, 1, 1]} : (tensor<1x4x8x8xf32>, tensor<4x4x3x3xf32>) -> tensor<1x4x8x8xf32>
// CHECK-NEXT:    %3 = relay.constant dense<[1.000000e-01, 2.000000e-01, 3.000000e-01, 4.000000e-01]> : tensor<4xf32>
// CHECK-NEXT:    %4 = relay.nn.bias_add %2, %3
// CHECK-NEXT:    %5 = relay.nn.relu %4 : tensor<1x4x8x8xf32>
// CHECK-NEXT:    %6 = relay.strided_slice %x {begin = [4], end = [8], axes = [1]} : (tensor<1x8x8x8xf32>) -> tensor<1x4x8x8xf32>
// CHECK-NEXT:    %7 = relay.constant dense<5.000000e-01> : tensor<4x4x3x3xf32>
// CHECK-NEXT:    %8 = relay.nn.conv2d %6, %7 {padding = [1, 1, 1, 1]} : (tensor<1x4x8x8xf32>, tensor<4x4x3x3xf32>) -> tensor<1x4x8x8xf32>
// CHECK-NEXT:    %9 = relay.constant dense<[5.000000e-01, 6.000000e-01, 7.000000e-01, 8.000000e-01]> : tensor<4xf32>
// CHECK-NEXT:    %10 = relay.nn.bias_add %8, %9
// CHECK-NEXT:    %11 = relay.nn.relu %10 : tensor<1x4x8x8xf32>
// CHECK-NEXT:    %r = relay.concatenate %5, %11 {axis = 1} : (tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>) -> tensor<1x8x8x8xf32>
// CHECK-NEXT:    func.return %r
// BYOC-LABEL: func.func @two_groups
// BYOC-NEXT:    %{{.*}} = func.call @npu_0(%x)
// BYOC-NEXT:    func.return
// BYOC-COUNT-2: relay.composite "npu.conv2d_bias_relu"
// DNNL-LABEL: func.func @two_groups
// DNNL-NEXT:    %w = relay.constant
// DNNL-NEXT:    %b = relay.constant
// DNNL-NEXT:    relay.nn.conv2d %x, %w {padding = [1, 1, 1, 1], groups = 2}
func.func @two_groups(%x: tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32> {
  %w = relay.constant dense<0.5> : tensor<8x4x3x3xf32>
  %b = relay.constant dense<[0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8]> : tensor<8xf32>
  %y = relay.nn.conv2d %x, %w {padding = [1, 1, 1, 1], groups = 2} : (tensor<1x8x8x8xf32>, tensor<8x4x3x3xf32>) -> tensor<1x8x8x8xf32>
  %z = relay.nn.bias_add %y, %b : (tensor<1x8x8x8xf32>, tensor<8xf32>) -> tensor<1x8x8x8xf32>
  %r = relay.nn.relu %z : tensor<1x8x8x8xf32>
  func.return %r : tensor<1x8x8x8xf32>
}

// -----

// QDQ (onnxruntime's quantize_static): the slices are of the int8 data, each group's
// conv reads a dequantize of its slice, its rows of the per-channel weight and bias
// dequantizes, and ends in its own quantize: four npu int8 conv composites, the int8
// results concatenated on the npu.
// CHECK-LABEL: func.func @qdq_four_groups
// CHECK:         %[[S0:.*]] = relay.strided_slice %q {begin = [0], end = [2], axes = [1]} : (tensor<1x8x32x32xi8>) -> tensor<1x2x32x32xi8>
// CHECK-NEXT:    %[[D0:.*]] = relay.qnn.dequantize %[[S0]], %s, %z
// CHECK-NEXT:    %[[W0:.*]] = relay.constant dense<7> : tensor<4x2x3x3xi8>
// CHECK-NEXT:    %[[WS0:.*]] = relay.constant dense<[1.000000e-02, 2.000000e-02, 3.000000e-02, 4.000000e-02]> : tensor<4xf32>
// CHECK-NEXT:    %[[WZ0:.*]] = relay.constant dense<0> : tensor<4xi8>
// CHECK-NEXT:    %[[WD0:.*]] = relay.qnn.dequantize %[[W0]], %[[WS0]], %[[WZ0]] {axis = 0}
// CHECK-NEXT:    %[[C0:.*]] = relay.nn.conv2d %[[D0]], %[[WD0]] {padding = [1, 1, 1, 1]} : (tensor<1x2x32x32xf32>, tensor<4x2x3x3xf32>) -> tensor<1x4x32x32xf32>
// CHECK:         relay.nn.bias_add %[[C0]]
// CHECK-NEXT:    %[[Q0:.*]] = relay.qnn.quantize {{.*}} -> tensor<1x4x32x32xi8>
// CHECK-COUNT-3: relay.qnn.quantize
// CHECK:         %r = relay.concatenate %[[Q0]], {{.*}} {axis = 1} : (tensor<1x4x32x32xi8>, tensor<1x4x32x32xi8>, tensor<1x4x32x32xi8>, tensor<1x4x32x32xi8>) -> tensor<1x16x32x32xi8>
// BYOC-LABEL: func.func @qdq_four_groups
// BYOC-NEXT:    %{{.*}} = func.call @npu_0(%q)
// BYOC-NEXT:    func.return
// BYOC-COUNT-4: relay.composite "npu.qconv2d_bias"
func.func @qdq_four_groups(%q: tensor<1x8x32x32xi8>) -> tensor<1x16x32x32xi8> {
  %s = relay.constant dense<0.05> : tensor<f32>
  %z = relay.constant dense<-3> : tensor<i8>
  %wq = relay.constant dense<7> : tensor<16x2x3x3xi8>
  %ws = relay.constant dense<[0.01, 0.02, 0.03, 0.04, 0.01, 0.02, 0.03, 0.04, 0.01, 0.02, 0.03, 0.04, 0.01, 0.02, 0.03, 0.04]> : tensor<16xf32>
  %wz = relay.constant dense<0> : tensor<16xi8>
  %bq = relay.constant dense<30> : tensor<16xi32>
  %bs = relay.constant dense<0.0005> : tensor<16xf32>
  %bz = relay.constant dense<0> : tensor<16xi32>
  %s2 = relay.constant dense<0.1> : tensor<f32>
  %z2 = relay.constant dense<2> : tensor<i8>
  %x = relay.qnn.dequantize %q, %s, %z : (tensor<1x8x32x32xi8>, tensor<f32>, tensor<i8>) -> tensor<1x8x32x32xf32>
  %w = relay.qnn.dequantize %wq, %ws, %wz {axis = 0} : (tensor<16x2x3x3xi8>, tensor<16xf32>, tensor<16xi8>) -> tensor<16x2x3x3xf32>
  %b = relay.qnn.dequantize %bq, %bs, %bz {axis = 0} : (tensor<16xi32>, tensor<16xf32>, tensor<16xi32>) -> tensor<16xf32>
  %y = relay.nn.conv2d %x, %w {padding = [1, 1, 1, 1], groups = 4} : (tensor<1x8x32x32xf32>, tensor<16x2x3x3xf32>) -> tensor<1x16x32x32xf32>
  %yb = relay.nn.bias_add %y, %b : (tensor<1x16x32x32xf32>, tensor<16xf32>) -> tensor<1x16x32x32xf32>
  %r = relay.qnn.quantize %yb, %s2, %z2 : (tensor<1x16x32x32xf32>, tensor<f32>, tensor<i8>) -> tensor<1x16x32x32xi8>
  func.return %r : tensor<1x16x32x32xi8>
}

// -----

// Left alone: depthwise (the npu takes it), a 9x9 kernel (no group would fit the npu's
// 7x7) and a weight computed at run time (no rows to slice).
// CHECK-LABEL: func.func @left_alone
// CHECK-NOT:     relay.strided_slice
// CHECK-NOT:     relay.concatenate
func.func @left_alone(%x: tensor<1x8x12x12xf32>, %wd: tensor<8x4x3x3xf32>) -> (tensor<1x8x10x10xf32>, tensor<1x8x4x4xf32>, tensor<1x8x10x10xf32>) {
  %w1 = relay.constant dense<0.5> : tensor<8x1x3x3xf32>
  %a = relay.nn.conv2d %x, %w1 {groups = 8} : (tensor<1x8x12x12xf32>, tensor<8x1x3x3xf32>) -> tensor<1x8x10x10xf32>
  %w2 = relay.constant dense<0.5> : tensor<8x4x9x9xf32>
  %b = relay.nn.conv2d %x, %w2 {groups = 2} : (tensor<1x8x12x12xf32>, tensor<8x4x9x9xf32>) -> tensor<1x8x4x4xf32>
  %c = relay.nn.conv2d %x, %wd {groups = 2} : (tensor<1x8x12x12xf32>, tensor<8x4x3x3xf32>) -> tensor<1x8x10x10xf32>
  func.return %a, %b, %c : tensor<1x8x10x10xf32>, tensor<1x8x4x4xf32>, tensor<1x8x10x10xf32>
}
