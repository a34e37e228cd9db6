// RUN: not accel-opt %s -p insert-dma 2>&1 | filecheck %s --check-prefix=SHARED

// A target computing in host memory (zero-copy) has no copy on the device for it.
// SHARED: copy-invalid.mlir:[[# @LINE + 3]]:3: error: insert-dma: 'npu-shared' shares host memory: its concatenations have no copy on the device to run on
func.func @npu_shared_0(%x: memref<1x4x2x2xf32>, %y: memref<1x8x2x2xf32> {accel.output}) attributes {accel.target = "npu-shared"} {
  %v = memref.subview %y[0, 0, 0, 0] [1, 4, 2, 2] [1, 1, 1, 1] : memref<1x8x2x2xf32> to memref<1x4x2x2xf32, strided<[32, 4, 2, 1]>>
  "memref.copy"(%x, %v) : (memref<1x4x2x2xf32>, memref<1x4x2x2xf32, strided<[32, 4, 2, 1]>>) -> ()
  func.return
}
