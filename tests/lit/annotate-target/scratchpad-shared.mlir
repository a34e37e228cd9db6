// RUN: accel-opt %s --target %S/Inputs/npu-shared-64k.toml -p annotate-target | filecheck %s
// RUN: accel-opt %s --target %S/Inputs/npu-shared-64k.toml -p 'annotate-target{zero-copy=false}' | filecheck %s --check-prefix=STAGED

// A target sharing host memory computes in place, untiled (tile-for-scratchpad and
// insert-dma leave it alone): its scratchpad does not decide what it takes. This conv
// needs 92224 bytes of a 64 KiB scratchpad to be tiled (scratchpad.mlir); here it goes to
// the accelerator. With zero-copy=false (the `naive` pipeline stages such regions through
// the scratchpad) it stays on the host.
// CHECK-LABEL: func.func @conv_too_wide
// CHECK:         relay.nn.conv2d %x, %w {padding = [1, 1, 1, 1], accel.target = "npu-shared-64k"}
// STAGED:        relay.nn.conv2d %x, %w {padding = [1, 1, 1, 1], accel.target = "host", accel.reason = "npu-shared-64k: 'accel.conv2d' needs 92224 bytes of scratchpad even with one output row and one channel per tile; the scratchpad has 65536"}
func.func @conv_too_wide(%x: tensor<1x768x7x7xf32>) -> tensor<1x8x7x7xf32> {
  %w = relay.constant dense<0.5> : tensor<8x768x3x3xf32>
  %c = relay.nn.conv2d %x, %w {padding = [1, 1, 1, 1]} : (tensor<1x768x7x7xf32>, tensor<8x768x3x3xf32>) -> tensor<1x8x7x7xf32>
  func.return %c : tensor<1x8x7x7xf32>
}
