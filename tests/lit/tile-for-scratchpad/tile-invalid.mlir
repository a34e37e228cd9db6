// RUN: not accel-opt %s --split-input-file -p tile-for-scratchpad 2>&1 | filecheck %s

// Tiling runs on the logical form, before transfers are placed.
// CHECK: tile-invalid.mlir:[[# @LINE + 2]]:1: error: tile-for-scratchpad: @npu_0 is already placed (run it before insert-dma)
// CHECK-NOT: Traceback
func.func @npu_0(%a: memref<64xf32>, %b: memref<64xf32> {accel.output}) attributes {accel.target = "npu", accel.placement = "dma"} {
  func.return
}
