// RUN: not accel-opt %s -p 'apply-tuning{log="%S/Inputs/stale.json"}' --target npu 2>&1 | filecheck %s --check-prefix=STALE
// RUN: not accel-opt %s -p 'apply-tuning{log="%S/Inputs/invalid.json"}' --target npu 2>&1 | filecheck %s --check-prefix=INVALID
// RUN: not accel-opt %s -p 'apply-tuning{log="%S/Inputs/missing.json"}' --target npu 2>&1 | filecheck %s --check-prefix=MISSING

// A log tuned for another version of the description is refused as a whole.
// STALE: error: {{.*}}stale.json: stale tuning log: tuned for target 'npu' with description fingerprint 0123456789abcdef (tuning version 1), the description is now {{[0-9a-f]+}} (tuning version 1); rerun accel-tune
// A best configuration the space no longer admits is refused, naming the task and the op.
// INVALID: apply-invalid.mlir:[[# @LINE + 11]]:3: error: {{.*}}invalid.json: task d641bb039cf79db3 (conv2d (1x16x16x16xf32, 16x16x3x3xf32) -> 1x16x16x16xf32): configuration {"channel_tile": 4} rejected: channel_tile = 4 is not an admitted value; rerun accel-tune
// MISSING: error: cannot read tuning log '{{.*}}missing.json': No such file or directory
// STALE-NOT: Traceback
// INVALID-NOT: Traceback
// MISSING-NOT: Traceback
func.func @main(%x: memref<1x16x16x16xf32> {accel.name = "x"}, %y: memref<1x16x16x16xf32> {accel.name = "y", accel.output}) {
  func.call @npu_0(%x, %y) : (memref<1x16x16x16xf32>, memref<1x16x16x16xf32>) -> ()
  func.return
}
func.func private @npu_0(%x: memref<1x16x16x16xf32>, %y: memref<1x16x16x16xf32> {accel.output}) attributes {accel.target = "npu"} {
  %w = accel.weight dense<0.01> : tensor<16x16x3x3xf32> : memref<16x16x3x3xf32>
  accel.conv2d ins(%x, %w : memref<1x16x16x16xf32>, memref<16x16x3x3xf32>) outs(%y : memref<1x16x16x16xf32>) {padding = [1, 1, 1, 1]}
  func.return
}
