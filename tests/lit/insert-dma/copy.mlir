// RUN: accel-opt %s -p insert-dma | filecheck %s

// A region input copied into its slice of a concatenation goes through the scratchpad.
// CHECK-LABEL: func.func @npu_0
// CHECK:         %[[T:.*]] = accel.alloc {offset = {{[0-9]+}}} : memref<1x4x2x2xf32, #accel.mem<"spm">>
// CHECK-NEXT:    %[[L:.*]] = accel.dma_start %x, %[[T]] : memref<1x4x2x2xf32>, memref<1x4x2x2xf32, #accel.mem<"spm">>
// CHECK-NEXT:    accel.dma_wait %[[L]]
// CHECK-NEXT:    %[[S:.*]] = accel.dma_start %[[T]], %[[V:.*]] : memref<1x4x2x2xf32, #accel.mem<"spm">>, memref<1x4x2x2xf32, strided<[32, 4, 2, 1]>>
// CHECK-NEXT:    accel.dma_wait %[[S]]
// CHECK-NOT:     memref.copy
func.func @npu_0(%x: memref<1x4x2x2xf32>, %y: memref<1x8x2x2xf32> {accel.output}) attributes {accel.target = "npu"} {
  %v = memref.subview %y[0, 0, 0, 0] [1, 4, 2, 2] [1, 1, 1, 1] : memref<1x8x2x2xf32> to memref<1x4x2x2xf32, strided<[32, 4, 2, 1]>>
  "memref.copy"(%x, %v) : (memref<1x4x2x2xf32>, memref<1x4x2x2xf32, strided<[32, 4, 2, 1]>>) -> ()
  func.return
}
