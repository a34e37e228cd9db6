// RUN: accel-opt %s --split-input-file -p tile-for-scratchpad | filecheck %s
// RUN: accel-opt %s --split-input-file -p tile-for-scratchpad,insert-dma | filecheck %s --check-prefix=DMA

// An input of a concatenation is copied into its slice of the output through one
// scratchpad buffer (insert-dma): a 1 MiB input does not fit the 256 KiB scratchpad, so
// the copy is split like an element-wise op, 7 channels per copy (two 112 KiB buffers
// fit), the last copy of the one channel left peeled (a copy of 7 shifted inwards would
// copy 6 channels again: more than 1/64 of them).
// CHECK-LABEL: func.func @npu_0
// CHECK:         %[[S:.*]] = memref.subview %y[0, 0, 0, 0] [1, 64, 64, 64] [1, 1, 1, 1]
// CHECK:         scf.for %[[C:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK:           %[[A:.*]] = memref.subview %a[0, %[[C]], 0, 0] [1, 7, 64, 64] [1, 1, 1, 1]
// CHECK:           %[[B:.*]] = memref.subview %[[S]][0, %[[C]], 0, 0] [1, 7, 64, 64] [1, 1, 1, 1]
// CHECK:           "memref.copy"(%[[A]], %[[B]])
// CHECK:         }
// CHECK:         memref.subview %a[0, 63, 0, 0] [1, 1, 64, 64] [1, 1, 1, 1]
// CHECK:         "memref.copy"
// The small input is copied whole.
// CHECK:         %[[T:.*]] = memref.subview %y[0, 64, 0, 0] [1, 1, 64, 64] [1, 1, 1, 1]
// CHECK-NEXT:    "memref.copy"(%b, %[[T]])
// DMA-LABEL: func.func @npu_0
// DMA:         accel.alloc {offset = 0} : memref<1x7x64x64xf32, #accel.mem<"spm">>
// DMA-NOT:     memref<1x64x64x64xf32, #accel.mem<"spm">>
func.func @npu_0(%a: memref<1x64x64x64xf32>, %b: memref<1x1x64x64xf32>, %y: memref<1x65x64x64xf32> {accel.output}) attributes {accel.target = "npu"} {
  %s = memref.subview %y[0, 0, 0, 0] [1, 64, 64, 64] [1, 1, 1, 1] : memref<1x65x64x64xf32> to memref<1x64x64x64xf32, strided<[266240, 4096, 64, 1]>>
  "memref.copy"(%a, %s) : (memref<1x64x64x64xf32>, memref<1x64x64x64xf32, strided<[266240, 4096, 64, 1]>>) -> ()
  %t = memref.subview %y[0, 64, 0, 0] [1, 1, 64, 64] [1, 1, 1, 1] : memref<1x65x64x64xf32> to memref<1x1x64x64xf32, strided<[266240, 4096, 64, 1], offset: 262144>>
  "memref.copy"(%b, %t) : (memref<1x1x64x64xf32>, memref<1x1x64x64xf32, strided<[266240, 4096, 64, 1], offset: 262144>>) -> ()
  func.return
}
