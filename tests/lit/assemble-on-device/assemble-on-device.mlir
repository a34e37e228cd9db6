// RUN: accel-opt %s --split-input-file -p 'assemble-on-device{target=npu}' | filecheck %s
// RUN: accel-opt %s --split-input-file -p 'assemble-on-device{target=npu in-place=false}' | filecheck %s --check-prefix=COPY

// Two column tiles of %h (not contiguous in it) go through host memory and %h is then
// read whole: %h becomes a scratchpad buffer, each write-back a copy on the device
// (not waited for), and the load disappears: the relu reads the assembled buffer after
// waiting for the last copy.
// CHECK-LABEL: func.func @npu_0
// CHECK-NOT:     memref.alloc()
// CHECK:         %[[A:.*]] = accel.alloc {offset = {{[0-9]+}}} : memref<4x8xf32, #accel.mem<"spm">>
// CHECK:         %[[V0:.*]] = memref.subview %[[A]][0, 0] [4, 4] [1, 1] : memref<4x8xf32, #accel.mem<"spm">> to memref<4x4xf32, strided<[8, 1]>, #accel.mem<"spm">>
// CHECK-NEXT:    %[[W0:.*]] = accel.dma_start %{{.*}}, %[[V0]] : memref<4x4xf32, #accel.mem<"spm">>, memref<4x4xf32, strided<[8, 1]>, #accel.mem<"spm">>
// CHECK-NOT:     accel.dma_wait %[[W0]]
// CHECK:         %[[V1:.*]] = memref.subview %[[A]][0, 4] [4, 4] [1, 1] : memref<4x8xf32, #accel.mem<"spm">> to memref<4x4xf32, strided<[8, 1], offset: 4>, #accel.mem<"spm">>
// CHECK-NEXT:    %[[W1:.*]] = accel.dma_start %{{.*}}, %[[V1]]
// CHECK-NEXT:    accel.dma_wait %[[W1]]
// CHECK-NEXT:    %[[E:.*]] = accel.alloc
// CHECK-NEXT:    accel.eltwise ins(%[[A]] : memref<4x8xf32, #accel.mem<"spm">>) outs(%[[E]] : {{.*}}) {kind = "relu"}
// CHECK-NEXT:    accel.dma_start %[[E]], %y
func.func @npu_0(%x: memref<4x8xf32>, %y: memref<4x8xf32> {accel.output}) attributes {accel.target = "npu", accel.placement = "dma"} {
  %h = memref.alloc() {accel.offset = 0 : i64} : memref<4x8xf32>
  %xv0 = memref.subview %x[0, 0] [4, 4] [1, 1] : memref<4x8xf32> to memref<4x4xf32, strided<[8, 1]>>
  %x0 = accel.alloc : memref<4x4xf32, #accel.mem<"spm">>
  %l0 = accel.dma_start %xv0, %x0 : memref<4x4xf32, strided<[8, 1]>>, memref<4x4xf32, #accel.mem<"spm">>
  accel.dma_wait %l0
  %t0 = accel.alloc : memref<4x4xf32, #accel.mem<"spm">>
  accel.eltwise ins(%x0 : memref<4x4xf32, #accel.mem<"spm">>) outs(%t0 : memref<4x4xf32, #accel.mem<"spm">>) {kind = "relu"}
  %h0 = memref.subview %h[0, 0] [4, 4] [1, 1] : memref<4x8xf32> to memref<4x4xf32, strided<[8, 1]>>
  %w0 = accel.dma_start %t0, %h0 : memref<4x4xf32, #accel.mem<"spm">>, memref<4x4xf32, strided<[8, 1]>>
  accel.dma_wait %w0
  %xv1 = memref.subview %x[0, 4] [4, 4] [1, 1] : memref<4x8xf32> to memref<4x4xf32, strided<[8, 1], offset: 4>>
  %x1 = accel.alloc : memref<4x4xf32, #accel.mem<"spm">>
  %l1 = accel.dma_start %xv1, %x1 : memref<4x4xf32, strided<[8, 1], offset: 4>>, memref<4x4xf32, #accel.mem<"spm">>
  accel.dma_wait %l1
  %t1 = accel.alloc : memref<4x4xf32, #accel.mem<"spm">>
  accel.eltwise ins(%x1 : memref<4x4xf32, #accel.mem<"spm">>) outs(%t1 : memref<4x4xf32, #accel.mem<"spm">>) {kind = "relu"}
  %h1 = memref.subview %h[0, 4] [4, 4] [1, 1] : memref<4x8xf32> to memref<4x4xf32, strided<[8, 1], offset: 4>>
  %w1 = accel.dma_start %t1, %h1 : memref<4x4xf32, #accel.mem<"spm">>, memref<4x4xf32, strided<[8, 1], offset: 4>>
  accel.dma_wait %w1
  %d = accel.alloc : memref<4x8xf32, #accel.mem<"spm">>
  %l = accel.dma_start %h, %d : memref<4x8xf32>, memref<4x8xf32, #accel.mem<"spm">>
  accel.dma_wait %l
  %e = accel.alloc : memref<4x8xf32, #accel.mem<"spm">>
  accel.eltwise ins(%d : memref<4x8xf32, #accel.mem<"spm">>) outs(%e : memref<4x8xf32, #accel.mem<"spm">>) {kind = "relu"}
  %s = accel.dma_start %e, %y : memref<4x8xf32, #accel.mem<"spm">>, memref<4x8xf32>
  accel.dma_wait %s
  func.return
}

// -----

// Row tiles are contiguous in %h: with in-place they are computed straight into their
// views of the assembled buffer (no tile buffer, no copy, nothing to wait for); without,
// they are copied (the last copy waited for before the reader).
// CHECK-LABEL: func.func @npu_0
// CHECK-NOT:     memref.alloc()
// CHECK:         %[[A:.*]] = accel.alloc {offset = {{[0-9]+}}} : memref<4x8xf32, #accel.mem<"spm">>
// CHECK:         %[[V0:.*]] = memref.subview %[[A]][0, 0] [2, 8] [1, 1]
// CHECK-NEXT:    accel.eltwise ins(%{{.*}} : memref<2x8xf32, #accel.mem<"spm">>) outs(%[[V0]] : memref<2x8xf32, strided<[8, 1]>, #accel.mem<"spm">>) {kind = "relu"}
// CHECK:         %[[V1:.*]] = memref.subview %[[A]][2, 0] [2, 8] [1, 1]
// CHECK-NEXT:    accel.eltwise ins(%{{.*}} : memref<2x8xf32, #accel.mem<"spm">>) outs(%[[V1]] : memref<2x8xf32, strided<[8, 1], offset: 16>, #accel.mem<"spm">>) {kind = "relu"}
// CHECK-NOT:     accel.dma_start %{{.*}}, %[[V1]]
// CHECK:         accel.eltwise ins(%[[A]] : memref<4x8xf32, #accel.mem<"spm">>)
// COPY-LABEL:  func.func @npu_0
// COPY:          %[[A:.*]] = accel.alloc {offset = {{[0-9]+}}} : memref<4x8xf32, #accel.mem<"spm">>
// COPY:          accel.eltwise ins(%{{.*}} : memref<2x8xf32, #accel.mem<"spm">>) outs(%[[T0:.*]] : memref<2x8xf32, #accel.mem<"spm">>)
// COPY:          %[[V0:.*]] = memref.subview %[[A]][0, 0] [2, 8] [1, 1]
// COPY-NEXT:     accel.dma_start %[[T0]], %[[V0]]
// COPY:          %[[W1:.*]] = accel.dma_start %{{.*}}, %{{.*}} : memref<2x8xf32, #accel.mem<"spm">>, memref<2x8xf32, strided<[8, 1], offset: 16>, #accel.mem<"spm">>
// COPY-NEXT:     accel.dma_wait %[[W1]]
// COPY:          accel.eltwise ins(%[[A]] : memref<4x8xf32, #accel.mem<"spm">>)
func.func @npu_0(%x: memref<4x8xf32>, %y: memref<4x8xf32> {accel.output}) attributes {accel.target = "npu", accel.placement = "dma"} {
  %h = memref.alloc() {accel.offset = 0 : i64} : memref<4x8xf32>
  %xv0 = memref.subview %x[0, 0] [2, 8] [1, 1] : memref<4x8xf32> to memref<2x8xf32, strided<[8, 1]>>
  %x0 = accel.alloc : memref<2x8xf32, #accel.mem<"spm">>
  %l0 = accel.dma_start %xv0, %x0 : memref<2x8xf32, strided<[8, 1]>>, memref<2x8xf32, #accel.mem<"spm">>
  accel.dma_wait %l0
  %t0 = accel.alloc : memref<2x8xf32, #accel.mem<"spm">>
  accel.eltwise ins(%x0 : memref<2x8xf32, #accel.mem<"spm">>) outs(%t0 : memref<2x8xf32, #accel.mem<"spm">>) {kind = "relu"}
  %h0 = memref.subview %h[0, 0] [2, 8] [1, 1] : memref<4x8xf32> to memref<2x8xf32, strided<[8, 1]>>
  %w0 = accel.dma_start %t0, %h0 : memref<2x8xf32, #accel.mem<"spm">>, memref<2x8xf32, strided<[8, 1]>>
  accel.dma_wait %w0
  %xv1 = memref.subview %x[2, 0] [2, 8] [1, 1] : memref<4x8xf32> to memref<2x8xf32, strided<[8, 1], offset: 16>>
  %x1 = accel.alloc : memref<2x8xf32, #accel.mem<"spm">>
  %l1 = accel.dma_start %xv1, %x1 : memref<2x8xf32, strided<[8, 1], offset: 16>>, memref<2x8xf32, #accel.mem<"spm">>
  accel.dma_wait %l1
  %t1 = accel.alloc : memref<2x8xf32, #accel.mem<"spm">>
  accel.eltwise ins(%x1 : memref<2x8xf32, #accel.mem<"spm">>) outs(%t1 : memref<2x8xf32, #accel.mem<"spm">>) {kind = "relu"}
  %h1 = memref.subview %h[2, 0] [2, 8] [1, 1] : memref<4x8xf32> to memref<2x8xf32, strided<[8, 1], offset: 16>>
  %w1 = accel.dma_start %t1, %h1 : memref<2x8xf32, #accel.mem<"spm">>, memref<2x8xf32, strided<[8, 1], offset: 16>>
  accel.dma_wait %w1
  %d = accel.alloc : memref<4x8xf32, #accel.mem<"spm">>
  %l = accel.dma_start %h, %d : memref<4x8xf32>, memref<4x8xf32, #accel.mem<"spm">>
  accel.dma_wait %l
  %e = accel.alloc : memref<4x8xf32, #accel.mem<"spm">>
  accel.eltwise ins(%d : memref<4x8xf32, #accel.mem<"spm">>) outs(%e : memref<4x8xf32, #accel.mem<"spm">>) {kind = "relu"}
  %s = accel.dma_start %e, %y : memref<4x8xf32, #accel.mem<"spm">>, memref<4x8xf32>
  accel.dma_wait %s
  func.return
}
