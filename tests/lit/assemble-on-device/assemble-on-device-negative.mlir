// RUN: accel-opt %s --split-input-file -p 'assemble-on-device' | filecheck %s

// A target without a copy on the device (npu-shared declares no dma_on_device): the
// write-backs stay.
// CHECK-LABEL: func.func @npu_shared_0
// CHECK:         memref.alloc()
// CHECK-NOT:     #accel.mem<"spm">> to memref<2x8xf32, strided<[8, 1]>, #accel.mem<"spm">>
func.func @npu_shared_0(%x: memref<4x8xf32>, %y: memref<4x8xf32> {accel.output}) attributes {accel.target = "npu-shared", accel.placement = "dma"} {
  %h = memref.alloc() {accel.offset = 0 : i64} : memref<4x8xf32>
  %x0 = accel.alloc : memref<2x8xf32, #accel.mem<"spm">>
  %h0 = memref.subview %h[0, 0] [2, 8] [1, 1] : memref<4x8xf32> to memref<2x8xf32, strided<[8, 1]>>
  %w0 = accel.dma_start %x0, %h0 : memref<2x8xf32, #accel.mem<"spm">>, memref<2x8xf32, strided<[8, 1]>>
  accel.dma_wait %w0
  %d = accel.alloc : memref<4x8xf32, #accel.mem<"spm">>
  %l = accel.dma_start %h, %d : memref<4x8xf32>, memref<4x8xf32, #accel.mem<"spm">>
  accel.dma_wait %l
  %s = accel.dma_start %d, %y : memref<4x8xf32, #accel.mem<"spm">>, memref<4x8xf32>
  accel.dma_wait %s
  func.return
}

// -----

// Written whole, not in tiles: left to optimize-dma's forwarding (which reuses the
// result buffer itself, no copy).
// CHECK-LABEL: func.func @npu_0
// CHECK:         memref.alloc()
// CHECK:         accel.dma_start %{{.*}}, %h : memref<4x8xf32, #accel.mem<"spm">>, memref<4x8xf32>
func.func @npu_0(%x: memref<4x8xf32>, %y: memref<4x8xf32> {accel.output}) attributes {accel.target = "npu", accel.placement = "dma"} {
  %h = memref.alloc() {accel.offset = 0 : i64} : memref<4x8xf32>
  %t = accel.alloc : memref<4x8xf32, #accel.mem<"spm">>
  %w = accel.dma_start %t, %h : memref<4x8xf32, #accel.mem<"spm">>, memref<4x8xf32>
  accel.dma_wait %w
  %d = accel.alloc : memref<4x8xf32, #accel.mem<"spm">>
  %l = accel.dma_start %h, %d : memref<4x8xf32>, memref<4x8xf32, #accel.mem<"spm">>
  accel.dma_wait %l
  %s = accel.dma_start %d, %y : memref<4x8xf32, #accel.mem<"spm">>, memref<4x8xf32>
  accel.dma_wait %s
  func.return
}

// -----

// The assembled buffer would not fit beside the tile and the load on the 64 KiB npu:
// nothing changes.
// CHECK-LABEL: func.func @npu_64k_0
// CHECK:         memref.alloc()
// CHECK-NOT:     memref<128x128xf32, #accel.mem<"spm">> to
func.func @npu_64k_0(%y: memref<128x128xf32> {accel.output}) attributes {accel.target = "npu-64k", accel.placement = "dma"} {
  %h = memref.alloc() {accel.offset = 0 : i64} : memref<128x128xf32>
  %t = accel.alloc : memref<64x128xf32, #accel.mem<"spm">>
  %h0 = memref.subview %h[0, 0] [64, 128] [1, 1] : memref<128x128xf32> to memref<64x128xf32, strided<[128, 1]>>
  %w0 = accel.dma_start %t, %h0 : memref<64x128xf32, #accel.mem<"spm">>, memref<64x128xf32, strided<[128, 1]>>
  accel.dma_wait %w0
  %h1 = memref.subview %h[64, 0] [64, 128] [1, 1] : memref<128x128xf32> to memref<64x128xf32, strided<[128, 1], offset: 8192>>
  %w1 = accel.dma_start %t, %h1 : memref<64x128xf32, #accel.mem<"spm">>, memref<64x128xf32, strided<[128, 1], offset: 8192>>
  accel.dma_wait %w1
  %d = accel.alloc : memref<64x128xf32, #accel.mem<"spm">>
  %v = memref.subview %h[32, 0] [64, 128] [1, 1] : memref<128x128xf32> to memref<64x128xf32, strided<[128, 1], offset: 4096>>
  %l = accel.dma_start %v, %d : memref<64x128xf32, strided<[128, 1], offset: 4096>>, memref<64x128xf32, #accel.mem<"spm">>
  accel.dma_wait %l
  %y0 = memref.subview %y[0, 0] [64, 128] [1, 1] : memref<128x128xf32> to memref<64x128xf32, strided<[128, 1]>>
  %s = accel.dma_start %d, %y0 : memref<64x128xf32, #accel.mem<"spm">>, memref<64x128xf32, strided<[128, 1]>>
  accel.dma_wait %s
  func.return
}

// -----

// The loaded buffer is written in place by its reader: the load stays, as a copy on the
// device out of the assembled buffer (the engine runs it after the tiles' copies).
// CHECK-LABEL: func.func @npu_0
// CHECK-NOT:     memref.alloc()
// CHECK:         %[[A:.*]] = accel.alloc {{.*}} : memref<4x8xf32, #accel.mem<"spm">>
// CHECK:         %[[D:.*]] = accel.alloc {{.*}} : memref<4x8xf32, #accel.mem<"spm">>
// CHECK-NEXT:    %[[L:.*]] = accel.dma_start %[[A]], %[[D]] : memref<4x8xf32, #accel.mem<"spm">>, memref<4x8xf32, #accel.mem<"spm">>
// CHECK-NEXT:    accel.dma_wait %[[L]]
// CHECK-NEXT:    accel.eltwise ins(%[[D]] : {{.*}}) outs(%[[D]] : {{.*}})
func.func @npu_0(%y: memref<4x8xf32> {accel.output}) attributes {accel.target = "npu", accel.placement = "dma"} {
  %h = memref.alloc() {accel.offset = 0 : i64} : memref<4x8xf32>
  %t = accel.alloc : memref<4x4xf32, #accel.mem<"spm">>
  %h0 = memref.subview %h[0, 0] [4, 4] [1, 1] : memref<4x8xf32> to memref<4x4xf32, strided<[8, 1]>>
  %w0 = accel.dma_start %t, %h0 : memref<4x4xf32, #accel.mem<"spm">>, memref<4x4xf32, strided<[8, 1]>>
  accel.dma_wait %w0
  %h1 = memref.subview %h[0, 4] [4, 4] [1, 1] : memref<4x8xf32> to memref<4x4xf32, strided<[8, 1], offset: 4>>
  %w1 = accel.dma_start %t, %h1 : memref<4x4xf32, #accel.mem<"spm">>, memref<4x4xf32, strided<[8, 1], offset: 4>>
  accel.dma_wait %w1
  %d = accel.alloc : memref<4x8xf32, #accel.mem<"spm">>
  %l = accel.dma_start %h, %d : memref<4x8xf32>, memref<4x8xf32, #accel.mem<"spm">>
  accel.dma_wait %l
  accel.eltwise ins(%d : memref<4x8xf32, #accel.mem<"spm">>) outs(%d : memref<4x8xf32, #accel.mem<"spm">>) {kind = "relu"}
  %s = accel.dma_start %d, %y : memref<4x8xf32, #accel.mem<"spm">>, memref<4x8xf32>
  accel.dma_wait %s
  func.return
}
