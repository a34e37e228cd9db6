// RUN: not accel-opt %s --split-input-file -p insert-dma 2>&1 | filecheck %s
// RUN: not accel-opt %s --split-input-file 2>&1 | filecheck %s --check-prefix=VERIFY

// An op whose operands do not fit the 256 KiB scratchpad (without tiling) is refused.
// CHECK: insert-dma-invalid.mlir:[[# @LINE + 2]]:1: error: @npu_0 needs 320000 bytes of scratchpad at its peak, the target has 262144
// CHECK-NOT: Traceback
func.func @npu_0(%a: memref<40000xf32>, %out0: memref<40000xf32> {accel.output}) attributes {accel.target = "npu"} {
  accel.eltwise ins(%a, %a : memref<40000xf32>, memref<40000xf32>) outs(%out0 : memref<40000xf32>) {kind = "add"}
  func.return
}

// -----

// After placement, a compute op on host memory (a forgotten transfer) does not verify.
// VERIFY: insert-dma-invalid.mlir:[[# @LINE + 2]]:3: error: 'accel.eltwise' op input #0 is in host memory; after insert-dma accelerator ops only use the scratchpad
func.func @npu_0(%a: memref<64xf32>, %s: memref<64xf32, #accel.mem<"spm">>) attributes {accel.target = "npu", accel.placement = "dma"} {
  accel.eltwise ins(%a : memref<64xf32>) outs(%s : memref<64xf32, #accel.mem<"spm">>) {kind = "relu"}
  func.return
}
