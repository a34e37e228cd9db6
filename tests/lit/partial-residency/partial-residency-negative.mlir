// RUN: accel-opt %s --split-input-file -p 'partial-residency' | filecheck %s

// A target without a copy on the device (the dsp declares no dma_on_device): the
// spilled value's transfers stay as they are.
// CHECK-LABEL: func.func @dsp_0
// CHECK-NOT:     #accel.mem<"spm">>, memref<1x2x16x128xf32, #accel.mem<"spm">>
// CHECK:         func.return
func.func @dsp_0(%y: memref<1x2x64x128xf32> {accel.output}) attributes {accel.target = "dsp", accel.placement = "dma"} {
  %h = memref.alloc() {accel.offset = 0 : i64} : memref<1x2x64x128xf32>
  %t = accel.alloc : memref<1x2x16x128xf32, #accel.mem<"spm">>
  %h0 = memref.subview %h[0, 0, 0, 0] [1, 2, 16, 128] [1, 1, 1, 1] : memref<1x2x64x128xf32> to memref<1x2x16x128xf32, strided<[16384, 8192, 128, 1]>>
  %w0 = accel.dma_start %t, %h0 : memref<1x2x16x128xf32, #accel.mem<"spm">>, memref<1x2x16x128xf32, strided<[16384, 8192, 128, 1]>>
  accel.dma_wait %w0
  %d = accel.alloc : memref<1x2x16x128xf32, #accel.mem<"spm">>
  %r0 = memref.subview %h[0, 0, 0, 0] [1, 2, 16, 128] [1, 1, 1, 1] : memref<1x2x64x128xf32> to memref<1x2x16x128xf32, strided<[16384, 8192, 128, 1]>>
  %l0 = accel.dma_start %r0, %d : memref<1x2x16x128xf32, strided<[16384, 8192, 128, 1]>>, memref<1x2x16x128xf32, #accel.mem<"spm">>
  accel.dma_wait %l0
  %y0 = memref.subview %y[0, 0, 0, 0] [1, 2, 16, 128] [1, 1, 1, 1] : memref<1x2x64x128xf32> to memref<1x2x16x128xf32, strided<[16384, 8192, 128, 1]>>
  %s0 = accel.dma_start %d, %y0 : memref<1x2x16x128xf32, #accel.mem<"spm">>, memref<1x2x16x128xf32, strided<[16384, 8192, 128, 1]>>
  accel.dma_wait %s0
  func.return
}

// -----

// Every tile is written and read in loops nested in a loop over the channels, from row
// 0: no slab is clear of them, and only loops of the function's block are peeled (their
// transfers would still move with the outer loop). Nothing changes.
// CHECK-LABEL: func.func @npu_64k_0
// CHECK-NOT:     accel.dma_start {{.*}} : memref<1x1x16x128xf32, #accel.mem<"spm">>, memref<{{.*}}#accel.mem<"spm">>
// CHECK-NOT:     accel.dma_start {{.*}} : memref<1x1x16x128xf32, {{.*}}#accel.mem<"spm">>, memref<1x1x16x128xf32, #accel.mem<"spm">>
// CHECK:         func.return
func.func @npu_64k_0(%y: memref<1x2x64x128xf32> {accel.output}) attributes {accel.target = "npu-64k", accel.placement = "dma"} {
  %h = memref.alloc() {accel.offset = 0 : i64} : memref<1x2x64x128xf32>
  %t = accel.alloc : memref<1x1x16x128xf32, #accel.mem<"spm">>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  scf.for %c = %c0 to %c2 step %c1 {
    scf.for %i = %c0 to %c64 step %c16 {
      %hi = memref.subview %h[0, %c, %i, 0] [1, 1, 16, 128] [1, 1, 1, 1] : memref<1x2x64x128xf32> to memref<1x1x16x128xf32, strided<[16384, 8192, 128, 1], offset: ?>>
      %wi = accel.dma_start %t, %hi : memref<1x1x16x128xf32, #accel.mem<"spm">>, memref<1x1x16x128xf32, strided<[16384, 8192, 128, 1], offset: ?>>
      accel.dma_wait %wi
    }
  }
  %d = accel.alloc : memref<1x1x16x128xf32, #accel.mem<"spm">>
  scf.for %c = %c0 to %c2 step %c1 {
    scf.for %j = %c0 to %c64 step %c16 {
      %rj = memref.subview %h[0, %c, %j, 0] [1, 1, 16, 128] [1, 1, 1, 1] : memref<1x2x64x128xf32> to memref<1x1x16x128xf32, strided<[16384, 8192, 128, 1], offset: ?>>
      %lj = accel.dma_start %rj, %d : memref<1x1x16x128xf32, strided<[16384, 8192, 128, 1], offset: ?>>, memref<1x1x16x128xf32, #accel.mem<"spm">>
      accel.dma_wait %lj
      %yj = memref.subview %y[0, %c, %j, 0] [1, 1, 16, 128] [1, 1, 1, 1] : memref<1x2x64x128xf32> to memref<1x1x16x128xf32, strided<[16384, 8192, 128, 1], offset: ?>>
      %sj = accel.dma_start %d, %yj : memref<1x1x16x128xf32, #accel.mem<"spm">>, memref<1x1x16x128xf32, strided<[16384, 8192, 128, 1], offset: ?>>
      accel.dma_wait %sj
    }
  }
  func.return
}

// -----

// The resident part would not fit: the reader's buffer takes the whole 64 KiB
// scratchpad while it is live, so the write-back and the load stay.
// CHECK-LABEL: func.func @npu_64k_0
// CHECK:         %[[H:.*]] = memref.alloc()
// CHECK-NOT:     accel.alloc {{.*}} : memref<1x2x8x128xf32, #accel.mem<"spm">>
// CHECK:         accel.dma_start %{{.*}}, %{{.*}} : memref<1x2x8x128xf32, #accel.mem<"spm">>, memref<1x2x8x128xf32, strided<[16384, 8192, 128, 1]>>
// CHECK:         accel.dma_start %{{.*}}, %{{.*}} : memref<1x2x64x128xf32>, memref<1x2x64x128xf32, #accel.mem<"spm">>
func.func @npu_64k_0(%y: memref<1x2x64x128xf32> {accel.output}) attributes {accel.target = "npu-64k", accel.placement = "dma"} {
  %h = memref.alloc() {accel.offset = 0 : i64} : memref<1x2x64x128xf32>
  %t = accel.alloc : memref<1x2x8x128xf32, #accel.mem<"spm">>
  %h0 = memref.subview %h[0, 0, 0, 0] [1, 2, 8, 128] [1, 1, 1, 1] : memref<1x2x64x128xf32> to memref<1x2x8x128xf32, strided<[16384, 8192, 128, 1]>>
  %w0 = accel.dma_start %t, %h0 : memref<1x2x8x128xf32, #accel.mem<"spm">>, memref<1x2x8x128xf32, strided<[16384, 8192, 128, 1]>>
  accel.dma_wait %w0
  %c8 = arith.constant 8 : index
  %c64 = arith.constant 64 : index
  scf.for %i = %c8 to %c64 step %c8 {
    %hi = memref.subview %h[0, 0, %i, 0] [1, 2, 8, 128] [1, 1, 1, 1] : memref<1x2x64x128xf32> to memref<1x2x8x128xf32, strided<[16384, 8192, 128, 1], offset: ?>>
    %wi = accel.dma_start %t, %hi : memref<1x2x8x128xf32, #accel.mem<"spm">>, memref<1x2x8x128xf32, strided<[16384, 8192, 128, 1], offset: ?>>
    accel.dma_wait %wi
  }
  %d = accel.alloc : memref<1x2x64x128xf32, #accel.mem<"spm">>
  %l = accel.dma_start %h, %d : memref<1x2x64x128xf32>, memref<1x2x64x128xf32, #accel.mem<"spm">>
  accel.dma_wait %l
  %s = accel.dma_start %d, %y : memref<1x2x64x128xf32, #accel.mem<"spm">>, memref<1x2x64x128xf32>
  accel.dma_wait %s
  func.return
}

// -----

// The host buffer is used by something other than views and transfers (a host kernel
// reads it): it is left alone.
// CHECK-LABEL: func.func @npu_64k_0
// CHECK-NOT:     accel.alloc {{.*}} : memref<1x2x16x128xf32, #accel.mem<"spm">>
// CHECK:         "memref.copy"
func.func @npu_64k_0(%y: memref<1x2x64x128xf32> {accel.output}) attributes {accel.target = "npu-64k", accel.placement = "dma"} {
  %h = memref.alloc() {accel.offset = 0 : i64} : memref<1x2x64x128xf32>
  %t = accel.alloc : memref<1x2x16x128xf32, #accel.mem<"spm">>
  %h0 = memref.subview %h[0, 0, 0, 0] [1, 2, 16, 128] [1, 1, 1, 1] : memref<1x2x64x128xf32> to memref<1x2x16x128xf32, strided<[16384, 8192, 128, 1]>>
  %w0 = accel.dma_start %t, %h0 : memref<1x2x16x128xf32, #accel.mem<"spm">>, memref<1x2x16x128xf32, strided<[16384, 8192, 128, 1]>>
  accel.dma_wait %w0
  %d = accel.alloc : memref<1x2x16x128xf32, #accel.mem<"spm">>
  %r0 = memref.subview %h[0, 0, 0, 0] [1, 2, 16, 128] [1, 1, 1, 1] : memref<1x2x64x128xf32> to memref<1x2x16x128xf32, strided<[16384, 8192, 128, 1]>>
  %l0 = accel.dma_start %r0, %d : memref<1x2x16x128xf32, strided<[16384, 8192, 128, 1]>>, memref<1x2x16x128xf32, #accel.mem<"spm">>
  accel.dma_wait %l0
  "memref.copy"(%h, %y) : (memref<1x2x64x128xf32>, memref<1x2x64x128xf32>) -> ()
  func.return
}

// -----

// The loop writes %h from row 0: its leading iterations are peeled so that their
// transfers could be split, but the resident part does not fit (the reader's buffer
// takes the whole 64 KiB scratchpad): the peeled iterations go back into the loop,
// which is as it was.
// CHECK-LABEL: func.func @npu_64k_0
// CHECK:         %[[C0:.*]] = arith.constant 0 : index
// CHECK-NOT:     accel.dma_start
// CHECK:         scf.for %{{.*}} = %[[C0]] to %{{.*}} step %{{.*}} {
// CHECK-NEXT:      memref.subview %h[0, 0, %{{.*}}, 0] [1, 2, 8, 128] [1, 1, 1, 1]
// CHECK-NEXT:      accel.dma_start
// CHECK-NEXT:      accel.dma_wait
// CHECK-NEXT:    }
// CHECK-NEXT:    %{{.*}} = accel.alloc : memref<1x2x64x128xf32, #accel.mem<"spm">>
func.func @npu_64k_0(%y: memref<1x2x64x128xf32> {accel.output}) attributes {accel.target = "npu-64k", accel.placement = "dma"} {
  %h = memref.alloc() {accel.offset = 0 : i64} : memref<1x2x64x128xf32>
  %t = accel.alloc : memref<1x2x8x128xf32, #accel.mem<"spm">>
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %c64 = arith.constant 64 : index
  scf.for %i = %c0 to %c64 step %c8 {
    %hi = memref.subview %h[0, 0, %i, 0] [1, 2, 8, 128] [1, 1, 1, 1] : memref<1x2x64x128xf32> to memref<1x2x8x128xf32, strided<[16384, 8192, 128, 1], offset: ?>>
    %wi = accel.dma_start %t, %hi : memref<1x2x8x128xf32, #accel.mem<"spm">>, memref<1x2x8x128xf32, strided<[16384, 8192, 128, 1], offset: ?>>
    accel.dma_wait %wi
  }
  %d = accel.alloc : memref<1x2x64x128xf32, #accel.mem<"spm">>
  %l = accel.dma_start %h, %d : memref<1x2x64x128xf32>, memref<1x2x64x128xf32, #accel.mem<"spm">>
  accel.dma_wait %l
  %s = accel.dma_start %d, %y : memref<1x2x64x128xf32, #accel.mem<"spm">>, memref<1x2x64x128xf32>
  accel.dma_wait %s
  func.return
}
