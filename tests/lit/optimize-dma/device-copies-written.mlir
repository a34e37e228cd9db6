// RUN: accel-opt %s --target npu -p optimize-dma | filecheck %s

// Left as two copies: the buffer a row is copied out of is written between the two copies
// (the relu computes in place over the slice's source), so the second copy could not
// read it there.
// CHECK-LABEL: func.func private @npu_0
// CHECK:         %[[T:.*]] = accel.dma_start %{{.*}}, %[[ROW:.*]] : memref<1x8xf32, strided<[8, 1], offset: 8>, #accel.mem<"spm">>, memref<1x8xf32, #accel.mem<"spm">>
// CHECK:         accel.eltwise ins(%[[A:.*]] : memref<2x8xf32, #accel.mem<"spm">>) outs(%[[A]] : memref<2x8xf32, #accel.mem<"spm">>)
// CHECK:         accel.dma_start %[[ROW]], %{{.*}} : memref<1x8xf32, #accel.mem<"spm">>, memref<1x8xf32, strided<[8, 1]>, #accel.mem<"spm">>
func.func private @npu_0(%out0: memref<2x8xf32> {accel.output}) attributes {accel.target = "npu", accel.placement = "dma"} {
  %a = accel.alloc : memref<2x8xf32, #accel.mem<"spm">>
  %b = accel.alloc : memref<2x8xf32, #accel.mem<"spm">>
  %row = accel.alloc : memref<1x8xf32, #accel.mem<"spm">>
  %v = memref.reinterpret_cast %a to offset: [8], sizes: [1, 8], strides: [8, 1] : memref<2x8xf32, #accel.mem<"spm">> to memref<1x8xf32, strided<[8, 1], offset: 8>, #accel.mem<"spm">>
  %t = accel.dma_start %v, %row : memref<1x8xf32, strided<[8, 1], offset: 8>, #accel.mem<"spm">>, memref<1x8xf32, #accel.mem<"spm">>
  accel.dma_wait %t
  accel.eltwise ins(%a : memref<2x8xf32, #accel.mem<"spm">>) outs(%a : memref<2x8xf32, #accel.mem<"spm">>) {kind = "relu"}
  %d = memref.subview %b[0, 0] [1, 8] [1, 1] : memref<2x8xf32, #accel.mem<"spm">> to memref<1x8xf32, strided<[8, 1]>, #accel.mem<"spm">>
  %u = accel.dma_start %row, %d : memref<1x8xf32, #accel.mem<"spm">>, memref<1x8xf32, strided<[8, 1]>, #accel.mem<"spm">>
  accel.dma_wait %u
  %h = accel.dma_start %b, %out0 : memref<2x8xf32, #accel.mem<"spm">>, memref<2x8xf32>
  accel.dma_wait %h
  func.return
}
