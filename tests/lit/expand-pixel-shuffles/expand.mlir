// expand-pixel-shuffles: depth_to_space / space_to_depth, which the npu does not run, as
// reshapes and transposes it copies on its device (rank 4 at most after merging).
// RUN: accel-opt %s --split-input-file --target npu -p expand-pixel-shuffles | filecheck %s
// RUN: accel-opt %s --split-input-file --target npu -p byoc | filecheck %s --check-prefix=BYOC
// RUN: accel-opt %s --split-input-file --target dsp -p expand-pixel-shuffles | filecheck %s --check-prefix=DSP

// A transposed convolution's pixel shuffle (DCR, one image): its definition, one
// transpose of rank 4 once the channels and rows merge. Partitioned, the conv and the
// shuffle are one npu region.
// CHECK-LABEL: func.func @dcr
// CHECK:         %0 = relay.reshape %d {newshape = [1, 2, 2, 8, 8, 8]} : (tensor<1x32x8x8xf32>) -> tensor<1x2x2x8x8x8xf32>
// CHECK-NEXT:    %1 = relay.transpose %0 {axes = [0, 3, 4, 1, 5, 2]} : (tensor<1x2x2x8x8x8xf32>) -> tensor<1x8x8x2x8x2xf32>
// CHECK-NEXT:    %y = relay.reshape %1 {newshape = [1, 8, 16, 16]} : (tensor<1x8x8x2x8x2xf32>) -> tensor<1x8x16x16xf32>
// CHECK-NEXT:    func.return %y
// BYOC-LABEL: func.func @dcr
// BYOC-NEXT:    %y = func.call @npu_0(%x)
// BYOC-NEXT:    func.return
// BYOC:         relay.composite "npu.conv2d_bias"
// BYOC:         relay.transpose
// DSP-LABEL: func.func @dcr
// DSP:         relay.nn.depth_to_space
func.func @dcr(%x: tensor<1x32x8x8xf32>) -> tensor<1x8x16x16xf32> {
  %w = relay.constant dense<0.5> : tensor<32x32x1x1xf32>
  %b = relay.constant dense<0.25> : tensor<32xf32>
  %c = relay.nn.conv2d %x, %w : (tensor<1x32x8x8xf32>, tensor<32x32x1x1xf32>) -> tensor<1x32x8x8xf32>
  %d = relay.nn.bias_add %c, %b : (tensor<1x32x8x8xf32>, tensor<32xf32>) -> tensor<1x32x8x8xf32>
  %y = relay.nn.depth_to_space %d {block_size = 2} : (tensor<1x32x8x8xf32>) -> tensor<1x8x16x16xf32>
  func.return %y : tensor<1x8x16x16xf32>
}

// -----

// PyTorch's PixelShuffle (CRD): its definition is a copy of rank 5, so two transposes,
// the block columns moved to the end, then the block rows after the image rows.
// CHECK-LABEL: func.func @crd
// CHECK-NEXT:    %0 = relay.reshape %x {newshape = [12, 3, 4, 4]} : (tensor<1x36x4x4xf32>) -> tensor<12x3x4x4xf32>
// CHECK-NEXT:    %1 = relay.transpose %0 {axes = [0, 2, 3, 1]} : (tensor<12x3x4x4xf32>) -> tensor<12x4x4x3xf32>
// CHECK-NEXT:    %2 = relay.reshape %1 {newshape = [4, 3, 4, 12]} : (tensor<12x4x4x3xf32>) -> tensor<4x3x4x12xf32>
// CHECK-NEXT:    %3 = relay.transpose %2 {axes = [0, 2, 1, 3]} : (tensor<4x3x4x12xf32>) -> tensor<4x4x3x12xf32>
// CHECK-NEXT:    %y = relay.reshape %3 {newshape = [1, 4, 12, 12]} : (tensor<4x4x3x12xf32>) -> tensor<1x4x12x12xf32>
func.func @crd(%x: tensor<1x36x4x4xf32>) -> tensor<1x4x12x12xf32> {
  %y = relay.nn.depth_to_space %x {block_size = 3, mode = "CRD"} : (tensor<1x36x4x4xf32>) -> tensor<1x4x12x12xf32>
  func.return %y : tensor<1x4x12x12xf32>
}

// -----

// space_to_depth of two images (int8): the definition's transpose is of rank 5, so the
// inverse steps.
// CHECK-LABEL: func.func @s2d_batch
// CHECK-NEXT:    %0 = relay.reshape %x {newshape = [2, 12, 2, 8]} : (tensor<2x3x8x8xi8>) -> tensor<2x12x2x8xi8>
// CHECK-NEXT:    %1 = relay.transpose %0 {axes = [0, 2, 1, 3]} : (tensor<2x12x2x8xi8>) -> tensor<2x2x12x8xi8>
// CHECK-NEXT:    %2 = relay.reshape %1 {newshape = [4, 12, 4, 2]} : (tensor<2x2x12x8xi8>) -> tensor<4x12x4x2xi8>
// CHECK-NEXT:    %3 = relay.transpose %2 {axes = [0, 3, 1, 2]} : (tensor<4x12x4x2xi8>) -> tensor<4x2x12x4xi8>
// CHECK-NEXT:    %y = relay.reshape %3 {newshape = [2, 12, 4, 4]} : (tensor<4x2x12x4xi8>) -> tensor<2x12x4x4xi8>
func.func @s2d_batch(%x: tensor<2x3x8x8xi8>) -> tensor<2x12x4x4xi8> {
  %y = relay.nn.space_to_depth %x {block_size = 2} : (tensor<2x3x8x8xi8>) -> tensor<2x12x4x4xi8>
  func.return %y : tensor<2x12x4x4xi8>
}

// -----

// Left alone: a shuffle the user put on the host, and one of an f16 tensor (the npu copies
// f32, i8 and ui8 only).
// CHECK-LABEL: func.func @left_alone
// CHECK-NOT:     relay.transpose
// CHECK:         relay.nn.depth_to_space %x {block_size = 2, accel.target = "host"}
// CHECK:         relay.nn.space_to_depth %h {block_size = 2}
func.func @left_alone(%x: tensor<1x8x4x4xf32>, %h: tensor<1x2x4x4xf16>) -> (tensor<1x2x8x8xf32>, tensor<1x8x2x2xf16>) {
  %y = relay.nn.depth_to_space %x {block_size = 2, accel.target = "host"} : (tensor<1x8x4x4xf32>) -> tensor<1x2x8x8xf32>
  %z = relay.nn.space_to_depth %h {block_size = 2} : (tensor<1x2x4x4xf16>) -> tensor<1x8x2x2xf16>
  func.return %y, %z : tensor<1x2x8x8xf32>, tensor<1x8x2x2xf16>
}

// -----

// A shuffle of dequantized int8 data (the quantization tool leaves shuffles in float):
// the copies move the int8 data, the dequantize comes after them.
// CHECK-LABEL: func.func @dequantized
// CHECK:         %0 = relay.reshape %q {newshape = [1, 2, 2, 2, 4, 4]} : (tensor<1x8x4x4xi8>) -> tensor<1x2x2x2x4x4xi8>
// CHECK-NEXT:    %1 = relay.transpose %0 {axes = [0, 3, 4, 1, 5, 2]}
// CHECK-NEXT:    %2 = relay.reshape %1 {newshape = [1, 2, 8, 8]} : (tensor<1x2x4x2x4x2xi8>) -> tensor<1x2x8x8xi8>
// CHECK-NEXT:    %y = relay.qnn.dequantize %2, %s, %z : (tensor<1x2x8x8xi8>, tensor<f32>, tensor<i8>) -> tensor<1x2x8x8xf32>
// CHECK-NEXT:    func.return %y
func.func @dequantized(%q: tensor<1x8x4x4xi8>) -> tensor<1x2x8x8xf32> {
  %s = relay.constant dense<0.5> : tensor<f32>
  %z = relay.constant dense<3> : tensor<i8>
  %d = relay.qnn.dequantize %q, %s, %z : (tensor<1x8x4x4xi8>, tensor<f32>, tensor<i8>) -> tensor<1x8x4x4xf32>
  %y = relay.nn.depth_to_space %d {block_size = 2} : (tensor<1x8x4x4xf32>) -> tensor<1x2x8x8xf32>
  func.return %y : tensor<1x2x8x8xf32>
}
