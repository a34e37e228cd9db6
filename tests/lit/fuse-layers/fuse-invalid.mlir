// RUN: not accel-opt %s --split-input-file -p fuse-layers 2>&1 | filecheck %s

// Fusion runs on the logical form, before transfers are placed.
// CHECK: fuse-invalid.mlir:[[# @LINE + 2]]:1: error: fuse-layers: @npu_0 is already placed (run it before insert-dma)
// CHECK-NOT: Traceback
func.func @npu_0(%a: memref<64xf32>, %b: memref<64xf32> {accel.output}) attributes {accel.target = "npu", accel.placement = "dma"} {
  func.return
}

// -----

// An unknown option is one line naming the pass and its options.
// RUN: not accel-opt %s -p 'fuse-layers{depth=3}' 2>&1 | filecheck %s --check-prefix=OPTION
// OPTION: error: pass 'fuse-layers' has no option 'depth' (options: target, double-buffer, max-depth, recompute-weight, zero-copy)
// OPTION-NOT: Traceback
