// RUN: not accel-opt %s -t c 2>&1 | filecheck %s

// A region's C function takes pointers: an index argument (here, the bound of a guarded
// transfer) is refused with one line, not an internal error.
// CHECK: region-arguments-invalid.mlir:[[# @LINE + 7]]:1: error: argument #2 of region @npu_0 has type index: a region's arguments are buffers (the C of a region takes pointers only)
// CHECK-NOT: Traceback
func.func @main(%x: memref<2x16xf32> {accel.name = "x"}, %y: memref<2x16xf32> {accel.name = "y", accel.output}) {
  %n = arith.constant 1 : index
  func.call @npu_0(%x, %y, %n) : (memref<2x16xf32>, memref<2x16xf32>, index) -> ()
  func.return
}
func.func private @npu_0(%x: memref<2x16xf32>, %y: memref<2x16xf32> {accel.output}, %n: index) attributes {accel.target = "npu", accel.placement = "dma"} {
  %c0 = arith.constant 0 : index
  %s = accel.alloc {offset = 0} : memref<2x16xf32, #accel.mem<"spm">>
  %t = accel.dma_start %x, %s if %c0 < %n : memref<2x16xf32>, memref<2x16xf32, #accel.mem<"spm">>
  accel.dma_wait %t
  %u = accel.dma_start %s, %y : memref<2x16xf32, #accel.mem<"spm">>, memref<2x16xf32>
  accel.dma_wait %u
  func.return
}
