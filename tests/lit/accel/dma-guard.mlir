// Guarded transfers: issued only while the first index is less than the second. The
// custom syntax round-trips; the generic form holds the guard as two more operands.
// RUN: accel-opt %s | filecheck %s
// RUN: accel-opt %s | accel-opt | filecheck %s
// RUN: accel-opt %s --print-op-generic | filecheck %s --check-prefix=GENERIC

// CHECK-LABEL: func.func @prefetch
// CHECK:         %t = accel.dma_start %h, %s if %n < %c4 {note = "next"} : memref<2x16xf32>, memref<2x16xf32, #accel.mem<"spm">>
// CHECK-NEXT:    %u = accel.dma_start %s, %h : memref<2x16xf32, #accel.mem<"spm">>, memref<2x16xf32>
// CHECK-NEXT:    accel.dma_wait %t, %u
// GENERIC:       "accel.dma_start"(%h, %s, %n, %c4) {note = "next"} : (memref<2x16xf32>, memref<2x16xf32, #accel.mem<"spm">>, index, index) -> !accel.token
// GENERIC:       "accel.dma_start"(%s, %h) : (memref<2x16xf32, #accel.mem<"spm">>, memref<2x16xf32>) -> !accel.token
func.func @prefetch(%h: memref<2x16xf32>, %s: memref<2x16xf32, #accel.mem<"spm">>, %n: index) {
  %c4 = arith.constant 4 : index
  %t = accel.dma_start %h, %s if %n < %c4 {note = "next"} : memref<2x16xf32>, memref<2x16xf32, #accel.mem<"spm">>
  %u = accel.dma_start %s, %h : memref<2x16xf32, #accel.mem<"spm">>, memref<2x16xf32>
  accel.dma_wait %t, %u
  func.return
}
