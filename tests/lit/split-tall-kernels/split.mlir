// RUN: accel-opt %s --split-input-file --target npu -p split-tall-kernels | filecheck %s
// RUN: accel-opt %s --split-input-file --target npu -p byoc | filecheck %s --check-prefix=BYOC
// RUN: accel-opt %s --split-input-file --target npu-shared -p split-tall-kernels | filecheck %s --check-prefix=SHARED

// npu-shared copies no slices: a split whose tiles would read a slice of the input is
// not made for it (the split needing none is: DS-CNN's, first below).
// SHARED-NOT: relay.strided_slice
// SHARED:     tensor<4x1x5x4xf32>
// SHARED-NOT: relay.strided_slice
// SHARED:     tensor<2x1x15x3xf32>
// SHARED-NOT: relay.strided_slice
// SHARED:     tensor<1x1x9x9xf32>
// SHARED-NOT: relay.strided_slice

// DS-CNN's first layer: a 10x4 kernel, taller than the npu's max_kernel [7, 7]. Two
// slices of 5 kernel rows: the first keeps the top padding and needs no bottom row past
// the input, the second starts at input row 0 and pads 4 rows below; the bias moves to
// the last slice, the sum replaces the bias_add. Partitioned, all of it is on the npu:
// the last slice with its bias as npu.conv2d_bias, the sum and the relu as npu.add_relu.
// CHECK-LABEL: func.func @main
// CHECK:         %[[W0:.*]] = relay.constant {{.*}} : tensor<4x1x5x4xf32>
// CHECK-NEXT:    %[[C0:.*]] = relay.nn.conv2d %x, %[[W0]] {strides = [2, 2], padding = [5, 1, 0, 1]} : {{.*}} -> tensor<1x4x25x5xf32>
// CHECK-NEXT:    %[[W1:.*]] = relay.constant {{.*}} : tensor<4x1x5x4xf32>
// CHECK-NEXT:    %[[C1:.*]] = relay.nn.conv2d %x, %[[W1]] {strides = [2, 2], padding = [0, 1, 4, 1]} : {{.*}} -> tensor<1x4x25x5xf32>
// CHECK-NEXT:    %[[B:.*]] = relay.nn.bias_add %[[C1]], %b
// CHECK-NEXT:    %[[S:.*]] = relay.add %[[B]], %[[C0]]
// CHECK-NEXT:    relay.nn.relu %[[S]]
// CHECK-NOT:     tensor<4x1x10x4xf32>
// BYOC-LABEL: func.func @main
// BYOC-NEXT:    func.call @npu_0(%x)
// BYOC-NEXT:    func.return
// BYOC:         relay.composite "npu.conv2d_bias"
// BYOC:         relay.composite "npu.add_relu"
func.func @main(%x: tensor<1x1x49x10xf32>) -> tensor<1x4x25x5xf32> {
  %w = relay.constant dense<0.5> : tensor<4x1x10x4xf32>
  %b = relay.constant dense<[0.1, 0.2, 0.3, 0.4]> : tensor<4xf32>
  %0 = relay.nn.conv2d %x, %w {strides = [2, 2], padding = [5, 1, 5, 1]} : (tensor<1x1x49x10xf32>, tensor<4x1x10x4xf32>) -> tensor<1x4x25x5xf32>
  %1 = relay.nn.bias_add %0, %b : (tensor<1x4x25x5xf32>, tensor<4xf32>) -> tensor<1x4x25x5xf32>
  %2 = relay.nn.relu %1 : (tensor<1x4x25x5xf32>) -> tensor<1x4x25x5xf32>
  func.return %2 : tensor<1x4x25x5xf32>
}

// -----

// A 14-row depthwise kernel without bias, stride 2: two slices of 7 rows (the npu's
// limit), summed; the output keeps its 25 rows.
// CHECK-LABEL: func.func @main
// CHECK:         %[[C0:.*]] = relay.nn.conv2d %x, %{{.*}} {strides = [2, 2], padding = [7, 0, 0, 0], groups = 2} : (tensor<1x2x49x8xf32>, tensor<2x1x7x3xf32>) -> tensor<1x2x25x3xf32>
// CHECK:         %[[C1:.*]] = relay.nn.conv2d %x, %{{.*}} {strides = [2, 2], padding = [0, 0, 6, 0], groups = 2} : (tensor<1x2x49x8xf32>, tensor<2x1x7x3xf32>) -> tensor<1x2x25x3xf32>
// CHECK-NEXT:    %[[S:.*]] = relay.add %[[C1]], %[[C0]]
// CHECK-NEXT:    func.return %[[S]]
func.func @main(%x: tensor<1x2x49x8xf32>) -> tensor<1x2x25x3xf32> {
  %w = relay.constant dense<0.25> : tensor<2x1x14x3xf32>
  %0 = relay.nn.conv2d %x, %w {strides = [2, 2], padding = [7, 0, 6, 0], groups = 2} : (tensor<1x2x49x8xf32>, tensor<2x1x14x3xf32>) -> tensor<1x2x25x3xf32>
  func.return %0 : tensor<1x2x25x3xf32>
}

// -----

// A "same" stride-1 conv whose outer slices would need a crop (the third slice's first
// row lies below the input's first row; the first slice's last window leaves input rows
// that would add an output row): those read a slice of the input rows instead
// (`relay.strided_slice`, which the npu copies), the middle one the input itself.
// CHECK-LABEL: func.func @main
// CHECK:         %[[T:.*]] = relay.strided_slice %x {begin = [0], end = [13], axes = [2]} : (tensor<1x2x16x8xf32>) -> tensor<1x2x13x8xf32>
// CHECK:         relay.nn.conv2d %[[T]], %{{.*}} {padding = [7, 0, 0, 0], groups = 2} : (tensor<1x2x13x8xf32>, tensor<2x1x5x3xf32>) -> tensor<1x2x16x6xf32>
// CHECK:         relay.nn.conv2d %x, %{{.*}} {padding = [2, 0, 2, 0], groups = 2} : (tensor<1x2x16x8xf32>, tensor<2x1x5x3xf32>) -> tensor<1x2x16x6xf32>
// CHECK:         %[[B:.*]] = relay.strided_slice %x {begin = [3], end = [16], axes = [2]} : (tensor<1x2x16x8xf32>) -> tensor<1x2x13x8xf32>
// CHECK:         relay.nn.conv2d %[[B]], %{{.*}} {padding = [0, 0, 7, 0], groups = 2} : (tensor<1x2x13x8xf32>, tensor<2x1x5x3xf32>) -> tensor<1x2x16x6xf32>
// CHECK-NOT:     tensor<2x1x15x3xf32>
func.func @main(%x: tensor<1x2x16x8xf32>) -> tensor<1x2x16x6xf32> {
  %w = relay.constant dense<0.25> : tensor<2x1x15x3xf32>
  %0 = relay.nn.conv2d %x, %w {padding = [7, 0, 7, 0], groups = 2} : (tensor<1x2x16x8xf32>, tensor<2x1x15x3xf32>) -> tensor<1x2x16x6xf32>
  func.return %0 : tensor<1x2x16x6xf32>
}

// -----

// A 9x9 kernel (fast style transfer's first and last layers) is split into 2 x 2 kernel
// tiles (5 and 4 rows, 5 and 4 columns), the ones starting past the padding reading a
// slice of the input; a 10x4 kernel without top padding: its second slice reads input
// rows 5..15. Left alone: a 7x7 kernel (it fits) and a weight that is no constant.
// CHECK-LABEL: func.func @main
// CHECK:         relay.nn.conv2d %x, %w7 {{.*}} -> tensor<1x1x16x16xf32>
// CHECK:         relay.nn.conv2d %x, %{{.*}} {padding = [4, 4, 0, 0]} : (tensor<1x1x16x16xf32>, tensor<1x1x5x5xf32>) -> tensor<1x1x16x16xf32>
// CHECK:         relay.strided_slice %x {begin = [1], end = [16], axes = [3]}
// CHECK:         relay.nn.conv2d %{{.*}}, %{{.*}} {padding = [4, 0, 0, 4]} : (tensor<1x1x16x15xf32>, tensor<1x1x5x4xf32>) -> tensor<1x1x16x16xf32>
// CHECK:         %[[R:.*]] = relay.strided_slice %x {begin = [1], end = [16], axes = [2]}
// CHECK:         relay.nn.conv2d %[[R]], %{{.*}} {padding = [0, 4, 4, 0]} : (tensor<1x1x15x16xf32>, tensor<1x1x4x5xf32>) -> tensor<1x1x16x16xf32>
// CHECK:         relay.strided_slice %[[R]] {begin = [1], end = [16], axes = [3]}
// CHECK:         relay.nn.conv2d %{{.*}}, %{{.*}} {padding = [0, 0, 4, 4]} : (tensor<1x1x15x15xf32>, tensor<1x1x4x4xf32>) -> tensor<1x1x16x16xf32>
// CHECK:         relay.strided_slice %x {begin = [5], end = [16], axes = [2]}
// CHECK:         relay.nn.conv2d %x, %v {{.*}} -> tensor<1x1x7x13xf32>
// CHECK-NOT:     tensor<1x1x9x9xf32>
func.func @main(%x: tensor<1x1x16x16xf32>, %v: tensor<1x1x10x4xf32>) -> (tensor<1x1x16x16xf32>, tensor<1x1x16x16xf32>, tensor<1x1x7x13xf32>, tensor<1x1x7x13xf32>) {
  %w7 = relay.constant dense<0.5> : tensor<1x1x7x7xf32>
  %w9 = relay.constant dense<0.5> : tensor<1x1x9x9xf32>
  %w10 = relay.constant dense<0.5> : tensor<1x1x10x4xf32>
  %0 = relay.nn.conv2d %x, %w7 {padding = [3, 3, 3, 3]} : (tensor<1x1x16x16xf32>, tensor<1x1x7x7xf32>) -> tensor<1x1x16x16xf32>
  %1 = relay.nn.conv2d %x, %w9 {padding = [4, 4, 4, 4]} : (tensor<1x1x16x16xf32>, tensor<1x1x9x9xf32>) -> tensor<1x1x16x16xf32>
  %2 = relay.nn.conv2d %x, %w10 : (tensor<1x1x16x16xf32>, tensor<1x1x10x4xf32>) -> tensor<1x1x7x13xf32>
  %3 = relay.nn.conv2d %x, %v : (tensor<1x1x16x16xf32>, tensor<1x1x10x4xf32>) -> tensor<1x1x7x13xf32>
  func.return %0, %1, %2, %3 : tensor<1x1x16x16xf32>, tensor<1x1x16x16xf32>, tensor<1x1x7x13xf32>, tensor<1x1x7x13xf32>
}

// -----

// Left alone: a tall kernel at a stride no conv entry takes (Silero VAD's STFT, hop 128):
// its slices would keep the stride; unstride-convs makes it one 2-tap conv instead.
// CHECK-LABEL: func.func @stft
// CHECK:         relay.nn.conv2d %x, %w {strides = [128, 128]}
// CHECK-NOT:     relay.add
func.func @stft(%x: tensor<1x1x832x1xf32>) -> tensor<1x4x5x1xf32> {
  %w = relay.constant dense<0.5> : tensor<4x1x256x1xf32>
  %y = relay.nn.conv2d %x, %w {strides = [128, 128]} : (tensor<1x1x832x1xf32>, tensor<4x1x256x1xf32>) -> tensor<1x4x5x1xf32>
  func.return %y : tensor<1x4x5x1xf32>
}
