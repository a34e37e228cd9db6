// unstride-convs: convolutions the npu does not take (strided beyond its strides 1 and 2,
// or a kernel beyond 7x7) as stride-1 convolutions on the space-to-depth image (by the
// stride of each axis; a kernel not a multiple of it extended by zero taps), grouped ones
// as stride-1 convolutions subsampled by a strided slice.
// RUN: accel-opt %s --split-input-file --target npu -p unstride-convs | filecheck %s
// RUN: accel-opt %s --split-input-file --target npu -p byoc | filecheck %s --check-prefix=BYOC
// RUN: accel-opt %s --split-input-file --target dnnl -p unstride-convs | filecheck %s --check-prefix=DNNL

// A ConvNeXt-style stem (4x4, stride 4): a 1x1 conv over the 48 channels of the 4x4
// patches (pixel-major), its weight rearranged; nothing to put back. Partitioned, all of
// it is one npu region (for one image the transpose is a copy of rank 4 on the device).
// CHECK-LABEL: func.func @stem
// CHECK:         %0 = relay.constant dense<5.000000e-01> : tensor<16x48x1x1xf32>
// CHECK-NEXT:    %1 = relay.reshape %x {newshape = [1, 3, 8, 4, 8, 4]} : (tensor<1x3x32x32xf32>) -> tensor<1x3x8x4x8x4xf32>
// CHECK-NEXT:    %2 = relay.transpose %1 {axes = [0, 3, 5, 1, 2, 4]} : (tensor<1x3x8x4x8x4xf32>) -> tensor<1x4x4x3x8x8xf32>
// CHECK-NEXT:    %3 = relay.reshape %2 {newshape = [1, 48, 8, 8]} : (tensor<1x4x4x3x8x8xf32>) -> tensor<1x48x8x8xf32>
// CHECK-NEXT:    %y = relay.nn.conv2d %3, %0 : (tensor<1x48x8x8xf32>, tensor<16x48x1x1xf32>) -> tensor<1x16x8x8xf32>
// CHECK-NEXT:    %z = relay.nn.bias_add %y, %b
// BYOC-LABEL: func.func @stem
// BYOC-NEXT:    %z = func.call @npu_0(%x)
// BYOC-NEXT:    func.return
// BYOC:         relay.transpose
// BYOC:         relay.composite "npu.conv2d_bias"
// DNNL-LABEL: func.func @stem
// DNNL:         relay.nn.conv2d %x, %w {strides = [4, 4]}
func.func @stem(%x: tensor<1x3x32x32xf32>) -> tensor<1x16x8x8xf32> {
  %w = relay.constant dense<0.5> : tensor<16x3x4x4xf32>
  %b = relay.constant dense<0.25> : tensor<16xf32>
  %y = relay.nn.conv2d %x, %w {strides = [4, 4]} : (tensor<1x3x32x32xf32>, tensor<16x3x4x4xf32>) -> tensor<1x16x8x8xf32>
  %z = relay.nn.bias_add %y, %b : (tensor<1x16x8x8xf32>, tensor<16xf32>) -> tensor<1x16x8x8xf32>
  func.return %z : tensor<1x16x8x8xf32>
}

// -----

// A 6x6 kernel with stride 3 (a 2x2 kernel on the patches): the bottom padding of 2 rows
// is a constant block that makes the 10 rows whole phases (12); the 9 columns are, and
// the left padding of 3 is one phase column of the new conv's.
// CHECK-LABEL: func.func @ragged
// CHECK:         %0 = relay.constant dense<5.000000e-01> : tensor<4x18x2x2xf32>
// CHECK-NEXT:    %1 = relay.constant dense<0.000000e+00> : tensor<1x2x2x9xf32>
// CHECK-NEXT:    %2 = relay.concatenate %x, %1 {axis = 2} : (tensor<1x2x10x9xf32>, tensor<1x2x2x9xf32>) -> tensor<1x2x12x9xf32>
// CHECK-NEXT:    %3 = relay.reshape %2 {newshape = [1, 2, 4, 3, 3, 3]}
// CHECK-NEXT:    %4 = relay.transpose %3 {axes = [0, 3, 5, 1, 2, 4]}
// CHECK-NEXT:    %5 = relay.reshape %4 {newshape = [1, 18, 4, 3]}
// CHECK-NEXT:    %y = relay.nn.conv2d %5, %0 {padding = [0, 1, 0, 0]} : (tensor<1x18x4x3xf32>, tensor<4x18x2x2xf32>) -> tensor<1x4x3x3xf32>
// BYOC-LABEL: func.func @ragged
func.func @ragged(%x: tensor<1x2x10x9xf32>) -> tensor<1x4x3x3xf32> {
  %w = relay.constant dense<0.5> : tensor<4x2x6x6xf32>
  %y = relay.nn.conv2d %x, %w {strides = [3, 3], padding = [0, 3, 2, 0]} : (tensor<1x2x10x9xf32>, tensor<4x2x6x6xf32>) -> tensor<1x4x3x3xf32>
  func.return %y : tensor<1x4x3x3xf32>
}

// -----

// Left alone: stride 2 with a 3x3 kernel (the npu takes it), a 5x5 kernel with stride 4
// (extended to a multiple, 8x8, it would have more than twice its taps).
// CHECK-LABEL: func.func @left_alone
// CHECK-NOT:     relay.transpose
// CHECK:         relay.nn.conv2d %x, %w2 {strides = [2, 2], padding = [1, 1, 1, 1]}
// CHECK:         relay.nn.conv2d %x, %w5 {strides = [4, 4]}
// CHECK-NOT:     relay.transpose
func.func @left_alone(%x: tensor<1x3x32x32xf32>) -> (tensor<1x8x16x16xf32>, tensor<1x8x7x7xf32>) {
  %w2 = relay.constant dense<0.5> : tensor<8x3x3x3xf32>
  %a = relay.nn.conv2d %x, %w2 {strides = [2, 2], padding = [1, 1, 1, 1]} : (tensor<1x3x32x32xf32>, tensor<8x3x3x3xf32>) -> tensor<1x8x16x16xf32>
  %w5 = relay.constant dense<0.5> : tensor<8x3x5x5xf32>
  %b = relay.nn.conv2d %x, %w5 {strides = [4, 4]} : (tensor<1x3x32x32xf32>, tensor<8x3x5x5xf32>) -> tensor<1x8x7x7xf32>
  func.return %a, %b : tensor<1x8x16x16xf32>, tensor<1x8x7x7xf32>
}

// -----

// A top and left padding of 1 with stride 4 (not a whole phase): one constant row and
// column before the image, the rest of the padding after it (36 = 1 + 32 + 3).
// CHECK-LABEL: func.func @lead_padding
// CHECK:         %[[R:.*]] = relay.concatenate %{{.*}}, %x, %{{.*}} {axis = 2} : (tensor<1x3x1x32xf32>, tensor<1x3x32x32xf32>, tensor<1x3x3x32xf32>) -> tensor<1x3x36x32xf32>
// CHECK:         relay.concatenate %{{.*}}, %[[R]], %{{.*}} {axis = 3} : (tensor<1x3x36x1xf32>, tensor<1x3x36x32xf32>, tensor<1x3x36x3xf32>) -> tensor<1x3x36x36xf32>
// CHECK:         %c = relay.nn.conv2d %{{.*}}, %{{.*}} : (tensor<1x48x9x9xf32>, tensor<8x48x1x1xf32>) -> tensor<1x8x9x9xf32>
func.func @lead_padding(%x: tensor<1x3x32x32xf32>) -> tensor<1x8x9x9xf32> {
  %w4 = relay.constant dense<0.5> : tensor<8x3x4x4xf32>
  %c = relay.nn.conv2d %x, %w4 {strides = [4, 4], padding = [1, 1, 3, 3]} : (tensor<1x3x32x32xf32>, tensor<8x3x4x4xf32>) -> tensor<1x8x9x9xf32>
  func.return %c : tensor<1x8x9x9xf32>
}

// -----

// DS-CNN's first layer, int8 (QDQ): a 10x4 kernel at stride 2, which the npu takes, but
// not the kernel (7x7 at most). A 5x2 kernel on the 4 channels of the space-to-depth of
// the int8 image, padded by the zero point (one row and column before it, whole phases
// as the conv's padding); the npu's qconv2d pattern takes it: one region.
// CHECK-LABEL: func.func @kws
// CHECK:         relay.concatenate %{{.*}}, %q {axis = 2} : (tensor<1x1x1x10xi8>, tensor<1x1x49x10xi8>) -> tensor<1x1x50x10xi8>
// CHECK:         relay.transpose %{{.*}} {axes = [0, 3, 5, 1, 2, 4]} : (tensor<1x1x25x2x6x2xi8>) -> tensor<1x2x2x1x25x6xi8>
// CHECK:         %[[D:.*]] = relay.qnn.dequantize %{{.*}}, %s, %z : (tensor<1x4x25x6xi8>, tensor<f32>, tensor<i8>) -> tensor<1x4x25x6xf32>
// CHECK:         %c = relay.nn.conv2d %[[D]], %{{.*}} {padding = [2, 0, 2, 0]} : (tensor<1x4x25x6xf32>, tensor<8x4x5x2xf32>) -> tensor<1x8x25x5xf32>
// BYOC-LABEL: func.func @kws
// BYOC-NEXT:    %y = func.call @npu_0(%q)
// BYOC:         relay.composite "npu.qconv2d"
func.func @kws(%q: tensor<1x1x49x10xi8>) -> tensor<1x8x25x5xi8> {
  %s = relay.constant dense<0.05> : tensor<f32>
  %z = relay.constant dense<-3> : tensor<i8>
  %wq = relay.constant dense<2> : tensor<8x1x10x4xi8>
  %ws = relay.constant dense<0.01> : tensor<8xf32>
  %wz = relay.constant dense<0> : tensor<8xi8>
  %ys = relay.constant dense<0.1> : tensor<f32>
  %x = relay.qnn.dequantize %q, %s, %z : (tensor<1x1x49x10xi8>, tensor<f32>, tensor<i8>) -> tensor<1x1x49x10xf32>
  %w = relay.qnn.dequantize %wq, %ws, %wz {axis = 0} : (tensor<8x1x10x4xi8>, tensor<8xf32>, tensor<8xi8>) -> tensor<8x1x10x4xf32>
  %c = relay.nn.conv2d %x, %w {strides = [2, 2], padding = [5, 1, 5, 1]} : (tensor<1x1x49x10xf32>, tensor<8x1x10x4xf32>) -> tensor<1x8x25x5xf32>
  %y = relay.qnn.quantize %c, %ys, %z : (tensor<1x8x25x5xf32>, tensor<f32>, tensor<i8>) -> tensor<1x8x25x5xi8>
  func.return %y : tensor<1x8x25x5xi8>
}

// -----

// PP-OCR's depthwise convolutions at stride (2, 1), which the npu does not take: the
// stride-1 conv with its bias, then every other row (a strided slice, a copy on the
// device); twice the products of a depthwise conv. Partitioned: all on the npu.
// CHECK-LABEL: func.func @ocr_depthwise
// CHECK:         %[[C:.*]] = relay.nn.conv2d %x, %w {padding = [1, 1, 1, 1], groups = 8} : (tensor<1x8x24x96xf32>, tensor<8x1x3x3xf32>) -> tensor<1x8x24x96xf32>
// CHECK-NEXT:    %[[B:.*]] = relay.nn.bias_add %[[C]], %b
// CHECK-NEXT:    %y = relay.strided_slice %[[B]] {begin = [0, 0], end = [23, 96], strides = [2, 1], axes = [2, 3]} : (tensor<1x8x24x96xf32>) -> tensor<1x8x12x96xf32>
// BYOC-LABEL: func.func @ocr_depthwise
// BYOC-NEXT:    %y = func.call @npu_0(%x)
// BYOC-NEXT:    func.return
func.func @ocr_depthwise(%x: tensor<1x8x24x96xf32>) -> tensor<1x8x12x96xf32> {
  %w = relay.constant dense<0.5> : tensor<8x1x3x3xf32>
  %b = relay.constant dense<0.25> : tensor<8xf32>
  %c = relay.nn.conv2d %x, %w {strides = [2, 1], padding = [1, 1, 1, 1], groups = 8} : (tensor<1x8x24x96xf32>, tensor<8x1x3x3xf32>) -> tensor<1x8x12x96xf32>
  %y = relay.nn.bias_add %c, %b : (tensor<1x8x12x96xf32>, tensor<8xf32>) -> tensor<1x8x12x96xf32>
  func.return %y : tensor<1x8x12x96xf32>
}

// -----

// One group at stride (2, 1): the 3x3 kernel extended by a row of zero taps to 4x3, the
// space-to-depth along the rows only (2 x 4 channels), a 2x3 conv at stride 1; the top
// padding of 1 (not a whole phase) a constant row before the image, one after it for the
// extended kernel's last tap.
// CHECK-LABEL: func.func @rows_by_two
// CHECK:         %[[R:.*]] = relay.concatenate %{{.*}}, %x, %{{.*}} {axis = 2} : (tensor<1x4x1x10xf32>, tensor<1x4x12x10xf32>, tensor<1x4x1x10xf32>) -> tensor<1x4x14x10xf32>
// CHECK-NEXT:    %[[S:.*]] = relay.reshape %[[R]] {newshape = [1, 4, 7, 2, 10, 1]}
// CHECK-NEXT:    %[[T:.*]] = relay.transpose %[[S]] {axes = [0, 3, 5, 1, 2, 4]}
// CHECK-NEXT:    %[[D:.*]] = relay.reshape %[[T]] {newshape = [1, 8, 7, 10]}
// CHECK-NEXT:    %y = relay.nn.conv2d %[[D]], %{{.*}} {padding = [0, 1, 0, 1]} : (tensor<1x8x7x10xf32>, tensor<8x8x2x3xf32>) -> tensor<1x8x6x10xf32>
func.func @rows_by_two(%x: tensor<1x4x12x10xf32>) -> tensor<1x8x6x10xf32> {
  %w = relay.constant dense<0.5> : tensor<8x4x3x3xf32>
  %y = relay.nn.conv2d %x, %w {strides = [2, 1], padding = [1, 1, 1, 1]} : (tensor<1x4x12x10xf32>, tensor<8x4x3x3xf32>) -> tensor<1x8x6x10xf32>
  func.return %y : tensor<1x8x6x10xf32>
}

// -----

// Silero VAD's STFT: a 256-tap kernel at hop 128 over one column (an output of one
// column: its stride there is never applied). The space-to-depth along the rows makes it
// a 2x1 conv on 128 channels (split-tall-kernels leaves it alone: its slices would keep
// the stride no entry takes). The rows past the last window (768..831) are cropped.
// CHECK-LABEL: func.func @stft
// CHECK:         %[[W:.*]] = relay.constant dense<5.000000e-01> : tensor<258x128x2x1xf32>
// CHECK-NEXT:    %[[C:.*]] = relay.strided_slice %x {begin = [0, 0], end = [768, 1], axes = [2, 3]}
// CHECK-NEXT:    %[[S:.*]] = relay.reshape %[[C]] {newshape = [3, 1, 6, 128, 1, 1]}
// CHECK-NEXT:    %[[T:.*]] = relay.transpose %[[S]]
// CHECK-NEXT:    %[[D:.*]] = relay.reshape %[[T]] {newshape = [3, 128, 6, 1]}
// CHECK-NEXT:    %y = relay.nn.conv2d %[[D]], %[[W]] : (tensor<3x128x6x1xf32>, tensor<258x128x2x1xf32>) -> tensor<3x258x5x1xf32>
// BYOC-LABEL: func.func @stft
// BYOC-NEXT:    %y = func.call @npu_0(%x)
func.func @stft(%x: tensor<3x1x832x1xf32>) -> tensor<3x258x5x1xf32> {
  %w = relay.constant dense<0.5> : tensor<258x1x256x1xf32>
  %y = relay.nn.conv2d %x, %w {strides = [128, 128]} : (tensor<3x1x832x1xf32>, tensor<258x1x256x1xf32>) -> tensor<3x258x5x1xf32>
  func.return %y : tensor<3x258x5x1xf32>
}
