// A view the emitter cannot address: a reinterpret_cast of a strided view (the layout
// ops' views are of dense buffers) is one located error, no traceback.
// RUN: not accel-opt %s --target npu -t c 2>&1 | filecheck %s
// CHECK: strided-view-invalid.mlir:[[# @LINE + 8]]:3: error: memref.reinterpret_cast: the emitter takes static views of a dense buffer only
// CHECK-NOT: Traceback
func.func @main(%x: memref<4x8xf32>, %y: memref<2x4xf32> {accel.output}) {
  func.call @npu_0(%x, %y) : (memref<4x8xf32>, memref<2x4xf32>) -> ()
  func.return
}
func.func private @npu_0(%x: memref<4x8xf32>, %y: memref<2x4xf32> {accel.output}) attributes {accel.target = "npu", accel.placement = "dma"} {
  %v = memref.subview %x[0, 1] [4, 4] [1, 1] : memref<4x8xf32> to memref<4x4xf32, strided<[8, 1], offset: 1>>
  %c = memref.reinterpret_cast %v to offset: [0], sizes: [2, 4], strides: [8, 1] : memref<4x4xf32, strided<[8, 1], offset: 1>> to memref<2x4xf32, strided<[8, 1]>>
  %s = accel.alloc {offset = 0} : memref<2x4xf32, #accel.mem<"spm">>
  %t = accel.dma_start %c, %s : memref<2x4xf32, strided<[8, 1]>>, memref<2x4xf32, #accel.mem<"spm">>
  accel.dma_wait %t
  %u = accel.dma_start %s, %y : memref<2x4xf32, #accel.mem<"spm">>, memref<2x4xf32>
  accel.dma_wait %u
  func.return
}
