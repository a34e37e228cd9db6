// RUN: not accel-opt %s --split-input-file -p tile-for-scratchpad 2>&1 | filecheck %s

// Tiling runs on the logical form, before transfers are placed.
// CHECK: tile-invalid.mlir:[[# @LINE + 2]]:1: error: tile-for-scratchpad: @npu_0 is already placed (run it before insert-dma)
// CHECK-NOT: Traceback
func.func @npu_0(%a: memref<64xf32>, %b: memref<64xf32> {accel.output}) attributes {accel.target = "npu", accel.placement = "dma"} {
  func.return
}

// -----

// An int8 product is not split along K (its requantization needs the whole sum): one
// data row and one weight row of 128 KiB each, and the output tile, even single-buffered.
// CHECK: tile-invalid.mlir:[[# @LINE + 3]]:3: error: 'accel.matmul' needs 262208 bytes of scratchpad even with one row and one output feature per tile (int8 products are not split along K); the scratchpad has 262144
func.func @npu_0(%x: memref<1x131072xi8>, %y: memref<1x16xi8> {accel.output}) attributes {accel.target = "npu"} {
  %w = accel.weight dense<1> : tensor<16x131072xi8> : memref<16x131072xi8>
  accel.matmul ins(%x, %w : memref<1x131072xi8>, memref<16x131072xi8>) outs(%y : memref<1x16xi8>) {in_scale = [0.5]}
  func.return
}
