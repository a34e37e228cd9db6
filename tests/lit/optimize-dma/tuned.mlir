// RUN: accel-opt %s --split-input-file -p tile-for-scratchpad,insert-dma,optimize-dma | filecheck %s

// A conv tuned to row tiles of 4: its row loop is double-buffered (slot and token
// loop-carried) ...
// CHECK-LABEL: func.func @npu_0
// CHECK:         scf.for {{.*}} iter_args({{.*}}) -> (index, !accel.token) {
// CHECK:           accel.conv2d
func.func @npu_0(%x: memref<1x16x16x16xf32>, %y: memref<1x16x16x16xf32> {accel.output}) attributes {accel.target = "npu"} {
  %w = accel.weight dense<0.01> : tensor<16x16x3x3xf32> : memref<16x16x3x3xf32>
  accel.conv2d ins(%x, %w : memref<1x16x16x16xf32>, memref<16x16x3x3xf32>) outs(%y : memref<1x16x16x16xf32>) {padding = [1, 1, 1, 1]} attributes {accel.tuning = {row_tile = 4}}
  func.return
}

// -----

// ... unless tuned to single buffering: the same loop, not double-buffered.
// CHECK-LABEL: func.func @npu_1
// CHECK:         scf.for
// CHECK-NOT:     iter_args
// CHECK:         accel.conv2d
func.func @npu_1(%x: memref<1x16x16x16xf32>, %y: memref<1x16x16x16xf32> {accel.output}) attributes {accel.target = "npu"} {
  %w = accel.weight dense<0.01> : tensor<16x16x3x3xf32> : memref<16x16x3x3xf32>
  accel.conv2d ins(%x, %w : memref<1x16x16x16xf32>, memref<16x16x3x3xf32>) outs(%y : memref<1x16x16x16xf32>) {padding = [1, 1, 1, 1]} attributes {accel.tuning = {row_tile = 4, double_buffer = false}}
  func.return
}

// -----

// Two ops: by default the second one's weights are loaded before the first computes
// (prefetch) ...
// CHECK-LABEL: func.func @npu_2
// CHECK:         accel.dma_start %w2
// CHECK:         accel.conv2d
// CHECK:         accel.conv2d
func.func @npu_2(%x: memref<1x8x8x8xf32>, %y: memref<1x8x8x8xf32> {accel.output}) attributes {accel.target = "npu"} {
  %w1 = accel.weight dense<0.01> : tensor<8x8x3x3xf32> : memref<8x8x3x3xf32>
  %w2 = accel.weight dense<0.02> : tensor<8x8x3x3xf32> : memref<8x8x3x3xf32>
  %t = memref.alloc() : memref<1x8x8x8xf32>
  accel.conv2d ins(%x, %w1 : memref<1x8x8x8xf32>, memref<8x8x3x3xf32>) outs(%t : memref<1x8x8x8xf32>) {padding = [1, 1, 1, 1]}
  accel.conv2d ins(%t, %w2 : memref<1x8x8x8xf32>, memref<8x8x3x3xf32>) outs(%y : memref<1x8x8x8xf32>) {padding = [1, 1, 1, 1]}
  func.return
}

// -----

// ... but with `prefetch = 0` on the second they stay after the first op's compute.
// CHECK-LABEL: func.func @npu_3
// CHECK:         accel.conv2d
// CHECK:         accel.dma_start %w2
// CHECK:         accel.conv2d
func.func @npu_3(%x: memref<1x8x8x8xf32>, %y: memref<1x8x8x8xf32> {accel.output}) attributes {accel.target = "npu"} {
  %w1 = accel.weight dense<0.01> : tensor<8x8x3x3xf32> : memref<8x8x3x3xf32>
  %w2 = accel.weight dense<0.02> : tensor<8x8x3x3xf32> : memref<8x8x3x3xf32>
  %t = memref.alloc() : memref<1x8x8x8xf32>
  accel.conv2d ins(%x, %w1 : memref<1x8x8x8xf32>, memref<8x8x3x3xf32>) outs(%t : memref<1x8x8x8xf32>) {padding = [1, 1, 1, 1]}
  accel.conv2d ins(%t, %w2 : memref<1x8x8x8xf32>, memref<8x8x3x3xf32>) outs(%y : memref<1x8x8x8xf32>) {padding = [1, 1, 1, 1]} attributes {accel.tuning = {prefetch = 0}}
  func.return
}
