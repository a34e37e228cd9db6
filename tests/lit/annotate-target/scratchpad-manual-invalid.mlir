// RUN: not accel-opt %s --target npu-64k -p annotate-target 2>&1 | filecheck %s

// A manual mark on an op whose smallest tiles do not fit the target's scratchpad is one
// error here, not a failure in tile-for-scratchpad.
// CHECK: scratchpad-manual-invalid.mlir:[[# @LINE + 4]]:3: error: 'relay.nn.conv2d' op has accel.target = "npu-64k", but npu-64k cannot run it: 'accel.conv2d' needs 92224 bytes of scratchpad even with one output row and one channel per tile; the scratchpad has 65536
// CHECK-NOT: Traceback
func.func @main(%x: tensor<1x768x7x7xf32>) -> tensor<1x8x7x7xf32> {
  %w = relay.constant dense<0.5> : tensor<8x768x3x3xf32>
  %c = relay.nn.conv2d %x, %w {padding = [1, 1, 1, 1], accel.target = "npu-64k"} : (tensor<1x768x7x7xf32>, tensor<8x768x3x3xf32>) -> tensor<1x8x7x7xf32>
  func.return %c : tensor<1x8x7x7xf32>
}
