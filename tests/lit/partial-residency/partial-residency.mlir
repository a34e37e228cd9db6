// RUN: accel-opt %s --split-input-file -p 'partial-residency' | filecheck %s

// %h (64 KiB) is written in row tiles of 16 rows (the first before a loop over the rest)
// and read back from row 0. Half the scratchpad is 32 rows: rows 0..31 get a resident
// buffer; the first write-back becomes a copy on the device, the loop's write-back is
// split by guards (its first iteration, rows 16..31, copies to the resident part at the
// same offsets, the others go to host memory as before: no iteration is peeled; the
// resident view is clamped to the part's last tile, where no copy is issued), both
// waited for, and the read of rows 0..19 is a copy on the device.
// CHECK-LABEL: func.func @npu_64k_0
// CHECK:         %[[H:.*]] = memref.alloc()
// CHECK-NEXT:    %[[T:.*]] = accel.alloc {{.*}} : memref<1x2x16x128xf32, #accel.mem<"spm">>
// CHECK-NEXT:    %[[P:.*]] = accel.alloc {{.*}} : memref<1x2x32x128xf32, #accel.mem<"spm">>
// CHECK-NEXT:    %[[P0:.*]] = memref.subview %[[P]][0, 0, 0, 0] [1, 2, 16, 128] [1, 1, 1, 1]
// CHECK-NEXT:    %[[W0:.*]] = accel.dma_start %[[T]], %[[P0]] : memref<1x2x16x128xf32, #accel.mem<"spm">>, memref<1x2x16x128xf32, strided<[8192, 4096, 128, 1]>, #accel.mem<"spm">>
// CHECK-NEXT:    accel.dma_wait %[[W0]]
// CHECK:         %[[C32:.*]] = arith.constant 32 : index
// CHECK-NEXT:    %[[C31:.*]] = arith.constant 31 : index
// CHECK-NEXT:    %[[C16:.*]] = arith.constant 16 : index
// CHECK-NEXT:    scf.for %[[I:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK-NEXT:      %[[HI:.*]] = memref.subview %[[H]][0, 0, %[[I]], 0] [1, 2, 16, 128] [1, 1, 1, 1]
// CHECK-NEXT:      %[[AT:.*]] = arith.minsi %[[I]], %[[C16]] : index
// CHECK-NEXT:      %[[PI:.*]] = memref.subview %[[P]][0, 0, %[[AT]], 0] [1, 2, 16, 128] [1, 1, 1, 1]
// CHECK-NEXT:      %[[W1:.*]] = accel.dma_start %[[T]], %[[PI]] if %[[I]] < %[[C32]] : memref<1x2x16x128xf32, #accel.mem<"spm">>, memref<1x2x16x128xf32, strided<[8192, 4096, 128, 1], offset: ?>, #accel.mem<"spm">>
// CHECK-NEXT:      %[[W2:.*]] = accel.dma_start %[[T]], %[[HI]] if %[[C31]] < %[[I]] : memref<1x2x16x128xf32, #accel.mem<"spm">>, memref<1x2x16x128xf32, strided<[16384, 8192, 128, 1], offset: ?>>
// CHECK-NEXT:      accel.dma_wait %[[W1]], %[[W2]]
// CHECK:         %[[D:.*]] = accel.alloc {{.*}} : memref<1x2x20x128xf32, #accel.mem<"spm">>
// CHECK-NEXT:    %[[P2:.*]] = memref.subview %[[P]][0, 0, 0, 0] [1, 2, 20, 128] [1, 1, 1, 1]
// CHECK-NEXT:    %[[L:.*]] = accel.dma_start %[[P2]], %[[D]] : memref<1x2x20x128xf32, strided<[8192, 4096, 128, 1]>, #accel.mem<"spm">>, memref<1x2x20x128xf32, #accel.mem<"spm">>
// CHECK-NEXT:    accel.dma_wait %[[L]]
func.func @npu_64k_0(%y: memref<1x2x64x128xf32> {accel.output}) attributes {accel.target = "npu-64k", accel.placement = "dma"} {
  %h = memref.alloc() {accel.offset = 0 : i64} : memref<1x2x64x128xf32>
  %t = accel.alloc : memref<1x2x16x128xf32, #accel.mem<"spm">>
  %h0 = memref.subview %h[0, 0, 0, 0] [1, 2, 16, 128] [1, 1, 1, 1] : memref<1x2x64x128xf32> to memref<1x2x16x128xf32, strided<[16384, 8192, 128, 1]>>
  %w0 = accel.dma_start %t, %h0 : memref<1x2x16x128xf32, #accel.mem<"spm">>, memref<1x2x16x128xf32, strided<[16384, 8192, 128, 1]>>
  accel.dma_wait %w0
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  scf.for %i = %c16 to %c64 step %c16 {
    %hi = memref.subview %h[0, 0, %i, 0] [1, 2, 16, 128] [1, 1, 1, 1] : memref<1x2x64x128xf32> to memref<1x2x16x128xf32, strided<[16384, 8192, 128, 1], offset: ?>>
    %wi = accel.dma_start %t, %hi : memref<1x2x16x128xf32, #accel.mem<"spm">>, memref<1x2x16x128xf32, strided<[16384, 8192, 128, 1], offset: ?>>
    accel.dma_wait %wi
  }
  %d = accel.alloc : memref<1x2x20x128xf32, #accel.mem<"spm">>
  %r0 = memref.subview %h[0, 0, 0, 0] [1, 2, 20, 128] [1, 1, 1, 1] : memref<1x2x64x128xf32> to memref<1x2x20x128xf32, strided<[16384, 8192, 128, 1]>>
  %l0 = accel.dma_start %r0, %d : memref<1x2x20x128xf32, strided<[16384, 8192, 128, 1]>>, memref<1x2x20x128xf32, #accel.mem<"spm">>
  accel.dma_wait %l0
  %y0 = memref.subview %y[0, 0, 0, 0] [1, 2, 20, 128] [1, 1, 1, 1] : memref<1x2x64x128xf32> to memref<1x2x20x128xf32, strided<[16384, 8192, 128, 1]>>
  %s0 = accel.dma_start %d, %y0 : memref<1x2x20x128xf32, #accel.mem<"spm">>, memref<1x2x20x128xf32, strided<[16384, 8192, 128, 1]>>
  accel.dma_wait %s0
  func.return
}

// -----

// A write-back straddling the resident part: the first tile is rows 0..39 (40 KiB),
// beside which only 16 resident rows fit (32 would not: k halved); the reader's loop is
// peeled up to row 32 (half the scratchpad), so rows 0..15 are clear of it. The tile is
// split: rows 0..15 copied on the device, rows 16..39 written back, both waited for. The
// read of rows 0..15 is a copy on the device only.
// CHECK-LABEL: func.func @npu_64k_0
// CHECK:         %[[H:.*]] = memref.alloc()
// CHECK-NEXT:    %[[T:.*]] = accel.alloc {{.*}} : memref<1x2x40x128xf32, #accel.mem<"spm">>
// CHECK-NEXT:    %[[P:.*]] = accel.alloc {{.*}} : memref<1x2x16x128xf32, #accel.mem<"spm">>
// CHECK-NEXT:    %[[T0:.*]] = memref.subview %[[T]][0, 0, 0, 0] [1, 2, 16, 128] [1, 1, 1, 1]
// CHECK-NEXT:    %[[T1:.*]] = memref.subview %[[T]][0, 0, 16, 0] [1, 2, 24, 128] [1, 1, 1, 1]
// CHECK-NEXT:    %[[H1:.*]] = memref.subview %[[H]][0, 0, 16, 0] [1, 2, 24, 128] [1, 1, 1, 1]
// CHECK-NEXT:    %[[W0:.*]] = accel.dma_start %[[T0]], %[[P]]
// CHECK-NEXT:    %[[W1:.*]] = accel.dma_start %[[T1]], %[[H1]]
// CHECK-NEXT:    accel.dma_wait %[[W0]], %[[W1]]
// CHECK:         %[[D:.*]] = accel.alloc {{.*}} : memref<1x2x16x128xf32, #accel.mem<"spm">>
// CHECK-NEXT:    %[[L:.*]] = accel.dma_start %[[P]], %[[D]] : memref<1x2x16x128xf32, #accel.mem<"spm">>, memref<1x2x16x128xf32, #accel.mem<"spm">>
// CHECK-NEXT:    accel.dma_wait %[[L]]
// CHECK-NOT:     memref.subview %[[H]][0, 0, 0, 0]
func.func @npu_64k_0(%y: memref<1x2x64x128xf32> {accel.output}) attributes {accel.target = "npu-64k", accel.placement = "dma"} {
  %h = memref.alloc() {accel.offset = 0 : i64} : memref<1x2x64x128xf32>
  %t = accel.alloc : memref<1x2x40x128xf32, #accel.mem<"spm">>
  %h0 = memref.subview %h[0, 0, 0, 0] [1, 2, 40, 128] [1, 1, 1, 1] : memref<1x2x64x128xf32> to memref<1x2x40x128xf32, strided<[16384, 8192, 128, 1]>>
  %w0 = accel.dma_start %t, %h0 : memref<1x2x40x128xf32, #accel.mem<"spm">>, memref<1x2x40x128xf32, strided<[16384, 8192, 128, 1]>>
  accel.dma_wait %w0
  %t1 = accel.alloc : memref<1x2x24x128xf32, #accel.mem<"spm">>
  %h1 = memref.subview %h[0, 0, 40, 0] [1, 2, 24, 128] [1, 1, 1, 1] : memref<1x2x64x128xf32> to memref<1x2x24x128xf32, strided<[16384, 8192, 128, 1], offset: 5120>>
  %w1 = accel.dma_start %t1, %h1 : memref<1x2x24x128xf32, #accel.mem<"spm">>, memref<1x2x24x128xf32, strided<[16384, 8192, 128, 1], offset: 5120>>
  accel.dma_wait %w1
  %d = accel.alloc : memref<1x2x16x128xf32, #accel.mem<"spm">>
  %r0 = memref.subview %h[0, 0, 0, 0] [1, 2, 16, 128] [1, 1, 1, 1] : memref<1x2x64x128xf32> to memref<1x2x16x128xf32, strided<[16384, 8192, 128, 1]>>
  %l0 = accel.dma_start %r0, %d : memref<1x2x16x128xf32, strided<[16384, 8192, 128, 1]>>, memref<1x2x16x128xf32, #accel.mem<"spm">>
  accel.dma_wait %l0
  %y0 = memref.subview %y[0, 0, 0, 0] [1, 2, 16, 128] [1, 1, 1, 1] : memref<1x2x64x128xf32> to memref<1x2x16x128xf32, strided<[16384, 8192, 128, 1]>>
  %s0 = accel.dma_start %d, %y0 : memref<1x2x16x128xf32, #accel.mem<"spm">>, memref<1x2x16x128xf32, strided<[16384, 8192, 128, 1]>>
  accel.dma_wait %s0
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  scf.for %i = %c16 to %c64 step %c16 {
    %ri = memref.subview %h[0, 0, %i, 0] [1, 2, 16, 128] [1, 1, 1, 1] : memref<1x2x64x128xf32> to memref<1x2x16x128xf32, strided<[16384, 8192, 128, 1], offset: ?>>
    %li = accel.dma_start %ri, %d : memref<1x2x16x128xf32, strided<[16384, 8192, 128, 1], offset: ?>>, memref<1x2x16x128xf32, #accel.mem<"spm">>
    accel.dma_wait %li
    %yi = memref.subview %y[0, 0, %i, 0] [1, 2, 16, 128] [1, 1, 1, 1] : memref<1x2x64x128xf32> to memref<1x2x16x128xf32, strided<[16384, 8192, 128, 1], offset: ?>>
    %si = accel.dma_start %d, %yi : memref<1x2x16x128xf32, #accel.mem<"spm">>, memref<1x2x16x128xf32, strided<[16384, 8192, 128, 1], offset: ?>>
    accel.dma_wait %si
  }
  func.return
}

// -----

// The same with a read of rows 0..39 (40 KiB): 32 resident rows do not fit beside it,
// 16 do (k halved). The first write-back is a copy on the device; the read takes rows
// 0..15 from the resident part and rows 16..39 from host memory, and waits for both.
// CHECK-LABEL: func.func @npu_64k_0
// CHECK:         %[[H:.*]] = memref.alloc()
// CHECK-NEXT:    %[[T:.*]] = accel.alloc {{.*}} : memref<1x2x16x128xf32, #accel.mem<"spm">>
// CHECK-NEXT:    %[[P:.*]] = accel.alloc {{.*}} : memref<1x2x16x128xf32, #accel.mem<"spm">>
// CHECK-NEXT:    %[[W:.*]] = accel.dma_start %[[T]], %[[P]] : memref<1x2x16x128xf32, #accel.mem<"spm">>, memref<1x2x16x128xf32, #accel.mem<"spm">>
// CHECK-NEXT:    accel.dma_wait %[[W]]
// CHECK:         scf.for
// CHECK:           accel.dma_start %[[T]], %{{.*}} : memref<1x2x16x128xf32, #accel.mem<"spm">>, memref<1x2x16x128xf32, strided<[16384, 8192, 128, 1], offset: ?>>
// CHECK:         %[[D:.*]] = accel.alloc {{.*}} : memref<1x2x40x128xf32, #accel.mem<"spm">>
// CHECK-NEXT:    %[[D0:.*]] = memref.subview %[[D]][0, 0, 0, 0] [1, 2, 16, 128] [1, 1, 1, 1]
// CHECK-NEXT:    %[[D1:.*]] = memref.subview %[[D]][0, 0, 16, 0] [1, 2, 24, 128] [1, 1, 1, 1]
// CHECK-NEXT:    %[[H1:.*]] = memref.subview %[[H]][0, 0, 16, 0] [1, 2, 24, 128] [1, 1, 1, 1]
// CHECK-NEXT:    %[[L0:.*]] = accel.dma_start %[[P]], %[[D0]] : memref<1x2x16x128xf32, #accel.mem<"spm">>, memref<1x2x16x128xf32, strided<[10240, 5120, 128, 1]>, #accel.mem<"spm">>
// CHECK-NEXT:    %[[L1:.*]] = accel.dma_start %[[H1]], %[[D1]] : memref<1x2x24x128xf32, strided<[16384, 8192, 128, 1], offset: 2048>>, memref<1x2x24x128xf32, strided<[10240, 5120, 128, 1], offset: 2048>, #accel.mem<"spm">>
// CHECK-NEXT:    accel.dma_wait %[[L0]], %[[L1]]
func.func @npu_64k_0(%y: memref<1x2x64x128xf32> {accel.output}) attributes {accel.target = "npu-64k", accel.placement = "dma"} {
  %h = memref.alloc() {accel.offset = 0 : i64} : memref<1x2x64x128xf32>
  %t = accel.alloc : memref<1x2x16x128xf32, #accel.mem<"spm">>
  %h0 = memref.subview %h[0, 0, 0, 0] [1, 2, 16, 128] [1, 1, 1, 1] : memref<1x2x64x128xf32> to memref<1x2x16x128xf32, strided<[16384, 8192, 128, 1]>>
  %w0 = accel.dma_start %t, %h0 : memref<1x2x16x128xf32, #accel.mem<"spm">>, memref<1x2x16x128xf32, strided<[16384, 8192, 128, 1]>>
  accel.dma_wait %w0
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  scf.for %i = %c16 to %c64 step %c16 {
    %hi = memref.subview %h[0, 0, %i, 0] [1, 2, 16, 128] [1, 1, 1, 1] : memref<1x2x64x128xf32> to memref<1x2x16x128xf32, strided<[16384, 8192, 128, 1], offset: ?>>
    %wi = accel.dma_start %t, %hi : memref<1x2x16x128xf32, #accel.mem<"spm">>, memref<1x2x16x128xf32, strided<[16384, 8192, 128, 1], offset: ?>>
    accel.dma_wait %wi
  }
  %d = accel.alloc : memref<1x2x40x128xf32, #accel.mem<"spm">>
  %r0 = memref.subview %h[0, 0, 0, 0] [1, 2, 40, 128] [1, 1, 1, 1] : memref<1x2x64x128xf32> to memref<1x2x40x128xf32, strided<[16384, 8192, 128, 1]>>
  %l0 = accel.dma_start %r0, %d : memref<1x2x40x128xf32, strided<[16384, 8192, 128, 1]>>, memref<1x2x40x128xf32, #accel.mem<"spm">>
  accel.dma_wait %l0
  %y0 = memref.subview %y[0, 0, 0, 0] [1, 2, 40, 128] [1, 1, 1, 1] : memref<1x2x64x128xf32> to memref<1x2x40x128xf32, strided<[16384, 8192, 128, 1]>>
  %s0 = accel.dma_start %d, %y0 : memref<1x2x40x128xf32, #accel.mem<"spm">>, memref<1x2x40x128xf32, strided<[16384, 8192, 128, 1]>>
  accel.dma_wait %s0
  func.return
}

