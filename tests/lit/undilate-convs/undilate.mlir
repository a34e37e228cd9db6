// undilate-convs: dilated convolutions the npu does not take, as undilated ones on the
// phase image (space-to-batch); left alone where a target takes the dilation (dnnl).
// RUN: accel-opt %s --split-input-file --target npu -p undilate-convs | filecheck %s
// RUN: accel-opt %s --split-input-file --target npu -p byoc | filecheck %s --check-prefix=BYOC
// RUN: accel-opt %s --split-input-file --target dnnl -p undilate-convs | filecheck %s --check-prefix=DNNL

// "Same" padding, whole phases: no explicit padding, no crop; the bias and the relu move
// into the phase form. Partitioned, the layout copies and the conv are on the npu.
// CHECK-LABEL: func.func @same_padding
// CHECK:         %0 = relay.reshape %x {newshape = [1, 8, 8, 2, 8, 2]} : (tensor<1x8x16x16xf32>) -> tensor<1x8x8x2x8x2xf32>
// CHECK-NEXT:    %1 = relay.transpose %0 {axes = [0, 3, 5, 1, 2, 4]} : (tensor<1x8x8x2x8x2xf32>) -> tensor<1x2x2x8x8x8xf32>
// CHECK-NEXT:    %2 = relay.reshape %1 {newshape = [4, 8, 8, 8]} : (tensor<1x2x2x8x8x8xf32>) -> tensor<4x8x8x8xf32>
// CHECK-NEXT:    %3 = relay.nn.conv2d %2, %w {padding = [1, 1, 1, 1]} : (tensor<4x8x8x8xf32>, tensor<8x8x3x3xf32>) -> tensor<4x8x8x8xf32>
// CHECK-NEXT:    %4 = relay.nn.bias_add %3, %b : (tensor<4x8x8x8xf32>, tensor<8xf32>) -> tensor<4x8x8x8xf32>
// CHECK-NEXT:    %5 = relay.nn.relu %4 : tensor<4x8x8x8xf32>
// CHECK-NEXT:    %6 = relay.reshape %5 {newshape = [1, 2, 2, 8, 8, 8]} : (tensor<4x8x8x8xf32>) -> tensor<1x2x2x8x8x8xf32>
// CHECK-NEXT:    %7 = relay.transpose %6 {axes = [0, 3, 4, 1, 5, 2]} : (tensor<1x2x2x8x8x8xf32>) -> tensor<1x8x8x2x8x2xf32>
// CHECK-NEXT:    %r = relay.reshape %7 {newshape = [1, 8, 16, 16]} : (tensor<1x8x8x2x8x2xf32>) -> tensor<1x8x16x16xf32>
// CHECK-NEXT:    func.return %r
// BYOC-LABEL: func.func @same_padding
// BYOC-NEXT:    %{{.*}} = func.call @npu_0(%x)
// BYOC-NEXT:    func.return
// BYOC:         relay.composite "npu.conv2d_bias_relu"
// DNNL-LABEL: func.func @same_padding
// DNNL:         relay.nn.conv2d %x, %w {padding = [2, 2, 2, 2], dilation = [2, 2]}
// DNNL-NOT:     relay.transpose
func.func @same_padding(%x: tensor<1x8x16x16xf32>) -> tensor<1x8x16x16xf32> {
  %w = relay.constant dense<0.5> : tensor<8x8x3x3xf32>
  %b = relay.constant dense<0.25> : tensor<8xf32>
  %y = relay.nn.conv2d %x, %w {padding = [2, 2, 2, 2], dilation = [2, 2]} : (tensor<1x8x16x16xf32>, tensor<8x8x3x3xf32>) -> tensor<1x8x16x16xf32>
  %z = relay.nn.bias_add %y, %b : (tensor<1x8x16x16xf32>, tensor<8xf32>) -> tensor<1x8x16x16xf32>
  %r = relay.nn.relu %z : tensor<1x8x16x16xf32>
  func.return %r : tensor<1x8x16x16xf32>
}

// -----

// 7 rows are not whole phases of 3: two zero rows and columns concatenated below and right
// (constant blocks: a pad the npu does not take), the padding of 3 is one phase row of the
// undilated (depthwise) conv, and the two extra output rows and columns are cropped.
// Partitioned, all of it is one npu region (the constant blocks are weights copied in).
// CHECK-LABEL: func.func @partial_phases
// CHECK:         %0 = relay.constant dense<0.000000e+00> : tensor<1x4x2x7xf32>
// CHECK-NEXT:    %1 = relay.concatenate %x, %0 {axis = 2} : (tensor<1x4x7x7xf32>, tensor<1x4x2x7xf32>) -> tensor<1x4x9x7xf32>
// CHECK-NEXT:    %2 = relay.constant dense<0.000000e+00> : tensor<1x4x9x2xf32>
// CHECK-NEXT:    %3 = relay.concatenate %1, %2 {axis = 3} : (tensor<1x4x9x7xf32>, tensor<1x4x9x2xf32>) -> tensor<1x4x9x9xf32>
// CHECK-NEXT:    %4 = relay.reshape %3 {newshape = [1, 4, 3, 3, 3, 3]}
// CHECK-NEXT:    %5 = relay.transpose %4 {axes = [0, 3, 5, 1, 2, 4]}
// CHECK-NEXT:    %6 = relay.reshape %5 {newshape = [9, 4, 3, 3]}
// CHECK-NEXT:    %7 = relay.nn.conv2d %6, %w {padding = [1, 1, 1, 1], groups = 4} : (tensor<9x4x3x3xf32>, tensor<4x1x3x3xf32>) -> tensor<9x4x3x3xf32>
// CHECK-NEXT:    %8 = relay.reshape %7 {newshape = [1, 3, 3, 4, 3, 3]}
// CHECK-NEXT:    %9 = relay.transpose %8 {axes = [0, 3, 4, 1, 5, 2]}
// CHECK-NEXT:    %10 = relay.reshape %9 {newshape = [1, 4, 9, 9]}
// CHECK-NEXT:    %y = relay.strided_slice %10 {begin = [0, 0], end = [7, 7], axes = [2, 3]} : (tensor<1x4x9x9xf32>) -> tensor<1x4x7x7xf32>
// CHECK-NEXT:    func.return %y
// BYOC-LABEL: func.func @partial_phases
// BYOC-NEXT:    %{{.*}} = func.call @npu_0(%x)
// BYOC-NEXT:    func.return
func.func @partial_phases(%x: tensor<1x4x7x7xf32>) -> tensor<1x4x7x7xf32> {
  %w = relay.constant dense<0.5> : tensor<4x1x3x3xf32>
  %y = relay.nn.conv2d %x, %w {padding = [3, 3, 3, 3], dilation = [3, 3], groups = 4} : (tensor<1x4x7x7xf32>, tensor<4x1x3x3xf32>) -> tensor<1x4x7x7xf32>
  func.return %y : tensor<1x4x7x7xf32>
}

// -----

// QDQ: the layout changes run on the int8 data (its zero point, -3, concatenated above,
// below, left and right for the padding of 1 that is not a whole phase), the dequantize
// after them and the quantize before the layout back, so that the conv, its bias and the
// quantize are still the npu's int8 conv pattern.
// CHECK-LABEL: func.func @qdq
// CHECK:         %0 = relay.constant dense<-3> : tensor<1x4x1x8xi8>
// CHECK-NEXT:    %1 = relay.constant dense<-3> : tensor<1x4x1x8xi8>
// CHECK-NEXT:    %2 = relay.concatenate %0, %q, %1 {axis = 2} : (tensor<1x4x1x8xi8>, tensor<1x4x8x8xi8>, tensor<1x4x1x8xi8>) -> tensor<1x4x10x8xi8>
// CHECK:         %5 = relay.concatenate %3, %2, %4 {axis = 3} : (tensor<1x4x10x1xi8>, tensor<1x4x10x8xi8>, tensor<1x4x10x1xi8>) -> tensor<1x4x10x10xi8>
// CHECK-NEXT:    %6 = relay.reshape %5 {newshape = [1, 4, 5, 2, 5, 2]}
// CHECK-NEXT:    %7 = relay.transpose %6 {axes = [0, 3, 5, 1, 2, 4]} : (tensor<1x4x5x2x5x2xi8>) -> tensor<1x2x2x4x5x5xi8>
// CHECK-NEXT:    %8 = relay.reshape %7 {newshape = [4, 4, 5, 5]}
// CHECK-NEXT:    %9 = relay.qnn.dequantize %8, %s, %z : (tensor<4x4x5x5xi8>, tensor<f32>, tensor<i8>) -> tensor<4x4x5x5xf32>
// CHECK-NEXT:    %10 = relay.nn.conv2d %9, %w {padding = [0, 0, 1, 1]} : (tensor<4x4x5x5xf32>, tensor<4x4x3x3xf32>) -> tensor<4x4x4x4xf32>
// CHECK-NEXT:    %11 = relay.nn.bias_add %10, %b
// CHECK-NEXT:    %12 = relay.qnn.quantize %11, %s2, %z2 : (tensor<4x4x4x4xf32>, tensor<f32>, tensor<i8>) -> tensor<4x4x4x4xi8>
// CHECK-NEXT:    %13 = relay.reshape %12 {newshape = [1, 2, 2, 4, 4, 4]}
// CHECK-NEXT:    %14 = relay.transpose %13 {axes = [0, 3, 4, 1, 5, 2]} : (tensor<1x2x2x4x4x4xi8>) -> tensor<1x4x4x2x4x2xi8>
// CHECK-NEXT:    %r = relay.reshape %14 {newshape = [1, 4, 8, 8]} : (tensor<1x4x4x2x4x2xi8>) -> tensor<1x4x8x8xi8>
// CHECK-NEXT:    func.return %r
// BYOC-LABEL: func.func @qdq
// BYOC-NEXT:    %{{.*}} = func.call @npu_0(%q)
// BYOC-NEXT:    func.return
// BYOC:         relay.composite "npu.qconv2d_bias"
func.func @qdq(%q: tensor<1x4x8x8xi8>) -> tensor<1x4x8x8xi8> {
  %s = relay.constant dense<0.05> : tensor<f32>
  %z = relay.constant dense<-3> : tensor<i8>
  %wq = relay.constant dense<7> : tensor<4x4x3x3xi8>
  %ws = relay.constant dense<0.01> : tensor<4xf32>
  %wz = relay.constant dense<0> : tensor<4xi8>
  %w = relay.qnn.dequantize %wq, %ws, %wz {axis = 0} : (tensor<4x4x3x3xi8>, tensor<4xf32>, tensor<4xi8>) -> tensor<4x4x3x3xf32>
  %bq = relay.constant dense<30> : tensor<4xi32>
  %bs = relay.constant dense<0.0005> : tensor<4xf32>
  %bz = relay.constant dense<0> : tensor<4xi32>
  %b = relay.qnn.dequantize %bq, %bs, %bz {axis = 0} : (tensor<4xi32>, tensor<4xf32>, tensor<4xi32>) -> tensor<4xf32>
  %s2 = relay.constant dense<0.1> : tensor<f32>
  %z2 = relay.constant dense<2> : tensor<i8>
  %x = relay.qnn.dequantize %q, %s, %z : (tensor<1x4x8x8xi8>, tensor<f32>, tensor<i8>) -> tensor<1x4x8x8xf32>
  %y = relay.nn.conv2d %x, %w {padding = [1, 1, 3, 3], dilation = [2, 2]} : (tensor<1x4x8x8xf32>, tensor<4x4x3x3xf32>) -> tensor<1x4x8x8xf32>
  %yb = relay.nn.bias_add %y, %b : (tensor<1x4x8x8xf32>, tensor<4xf32>) -> tensor<1x4x8x8xf32>
  %r = relay.qnn.quantize %yb, %s2, %z2 : (tensor<1x4x8x8xf32>, tensor<f32>, tensor<i8>) -> tensor<1x4x8x8xi8>
  func.return %r : tensor<1x4x8x8xi8>
}

// -----

// Left alone: a strided dilated conv, unequal dilations, and a conv whose channels the npu
// would not take undilated either (1030 > 1024: the host runs it dilated).
// CHECK-LABEL: func.func @left_alone
// CHECK-NOT:     relay.transpose
// CHECK:         %s = relay.nn.conv2d %x, %w {strides = [2, 2], padding = [2, 2, 2, 2], dilation = [2, 2]}
// CHECK-NEXT:    %u = relay.nn.conv2d %x, %w {padding = [2, 1, 2, 1], dilation = [2, 1]}
// CHECK:         %c = relay.nn.conv2d %big, %wb {padding = [2, 2, 2, 2], dilation = [2, 2]}
// CHECK-NOT:     relay.transpose
func.func @left_alone(%x: tensor<1x8x16x16xf32>, %big: tensor<1x1030x6x6xf32>) -> (tensor<1x8x8x8xf32>, tensor<1x8x16x16xf32>, tensor<1x2x6x6xf32>) {
  %w = relay.constant dense<0.5> : tensor<8x8x3x3xf32>
  %s = relay.nn.conv2d %x, %w {strides = [2, 2], padding = [2, 2, 2, 2], dilation = [2, 2]} : (tensor<1x8x16x16xf32>, tensor<8x8x3x3xf32>) -> tensor<1x8x8x8xf32>
  %u = relay.nn.conv2d %x, %w {padding = [2, 1, 2, 1], dilation = [2, 1]} : (tensor<1x8x16x16xf32>, tensor<8x8x3x3xf32>) -> tensor<1x8x16x16xf32>
  %wb = relay.constant dense<0.5> : tensor<2x1030x3x3xf32>
  %c = relay.nn.conv2d %big, %wb {padding = [2, 2, 2, 2], dilation = [2, 2]} : (tensor<1x1030x6x6xf32>, tensor<2x1030x3x3xf32>) -> tensor<1x2x6x6xf32>
  func.return %s, %u, %c : tensor<1x8x8x8xf32>, tensor<1x8x16x16xf32>, tensor<1x2x6x6xf32>
}

// -----

// A dilated conv of 2 groups (a ResNeXt backbone's later stages): the npu takes neither,
// but would take each group undilated: undilated here (still grouped), then split group
// by group by split-grouped-convs, the next step of byoc: one npu region, two convs.
// CHECK-LABEL: func.func @grouped
// CHECK:         relay.transpose
// CHECK:         relay.nn.conv2d %{{.*}}, %w {padding = [1, 1, 1, 1], groups = 2} : (tensor<4x8x6x6xf32>, tensor<8x4x3x3xf32>) -> tensor<4x8x6x6xf32>
// BYOC-LABEL: func.func @grouped
// BYOC-NEXT:    %r = func.call @npu_0(%x)
// BYOC:       func.func private @npu_0
// BYOC-COUNT-2: relay.nn.conv2d {{.*}} : (tensor<4x4x6x6xf32>, tensor<4x4x3x3xf32>) -> tensor<4x4x6x6xf32>
// BYOC-NOT:     groups
// DNNL-LABEL: func.func @grouped
// DNNL-NEXT:    %w = relay.constant
// DNNL-NEXT:    %r = relay.nn.conv2d %x, %w {padding = [2, 2, 2, 2], dilation = [2, 2], groups = 2}
func.func @grouped(%x: tensor<1x8x12x12xf32>) -> tensor<1x8x12x12xf32> {
  %w = relay.constant dense<0.1> : tensor<8x4x3x3xf32>
  %r = relay.nn.conv2d %x, %w {padding = [2, 2, 2, 2], dilation = [2, 2], groups = 2} : (tensor<1x8x12x12xf32>, tensor<8x4x3x3xf32>) -> tensor<1x8x12x12xf32>
  func.return %r : tensor<1x8x12x12xf32>
}
