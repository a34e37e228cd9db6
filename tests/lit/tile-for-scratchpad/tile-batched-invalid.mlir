// RUN: not accel-opt %s -p tile-for-scratchpad 2>&1 | filecheck %s

// One [512, 512] matrix of a batch exceeds the scratchpad: batched products are not
// tiled within a matrix.
// CHECK: tile-batched-invalid.mlir:[[# @LINE + 3]]:3: error: 'accel.matmul' needs 3145728 bytes of scratchpad even one matrix of the batch at a time (batched products are not tiled within a matrix); the scratchpad has 262144
// CHECK-NOT: Traceback
func.func @npu_0(%a: memref<2x512x512xf32>, %b: memref<2x512x512xf32>, %y: memref<2x512x512xf32> {accel.output}) attributes {accel.target = "npu"} {
  accel.matmul ins(%a, %b : memref<2x512x512xf32>, memref<2x512x512xf32>) outs(%y : memref<2x512x512xf32>)
  func.return
}
