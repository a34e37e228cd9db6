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

// -----

// A tuned segment whose stripes do not fit the scratchpad is refused, not re-planned:
// one stripe of 32 rows is the whole 16 KiB output (and a fused segment needs two stripes).
// RUN: not accel-opt %s --split-input-file --target %S/Inputs/npu16k.toml -p fuse-layers 2>&1 | filecheck %s --check-prefix=TUNED
// TUNED: fuse-invalid.mlir:[[# @LINE + 6]]:3: error: fuse-layers: tuned segment of 2 ops (stripe_rows 32) does not fit the scratchpad (16384 bytes)
func.func @npu16k_0(%x: memref<1x4x32x32xf32>, %out0: memref<1x4x32x32xf32> {accel.output}) attributes {accel.target = "npu16k"} {
  %w0 = accel.weight dense<5.000000e-01> : tensor<4x4x3x3xf32> : memref<4x4x3x3xf32>
  %w1 = accel.weight dense<2.500000e-01> : tensor<4x4x1x1xf32> : memref<4x4x1x1xf32>
  %t = memref.alloc() : memref<1x4x32x32xf32>
  accel.conv2d ins(%x, %w0 : memref<1x4x32x32xf32>, memref<4x4x3x3xf32>) outs(%t : memref<1x4x32x32xf32>) {padding = [1, 1, 1, 1]}
  accel.conv2d ins(%t, %w1 : memref<1x4x32x32xf32>, memref<4x4x1x1xf32>) outs(%out0 : memref<1x4x32x32xf32>) attributes {accel.tuning = {fuse = true, stripe_rows = 32}}
  func.return
}
