// RUN: accel-opt %s --split-input-file --target npu -p "byoc{cost-model=false},bufferize,plan-memory,lower-to-accel,tile-for-scratchpad,insert-dma,optimize-dma" | filecheck %s
// RUN: accel-opt %s --split-input-file --target npu -p "byoc{cost-model=false},bufferize,plan-memory,lower-to-accel,tile-for-scratchpad,insert-dma,optimize-dma{forward=false}" | filecheck %s --check-prefix=NOFWD
// RUN: accel-opt %s --split-input-file --target npu -p "byoc{cost-model=false},bufferize,plan-memory,lower-to-accel,tile-for-scratchpad,insert-dma,optimize-dma{double-buffer=false}" | filecheck %s --check-prefix=SERIAL

// A layout op's copy of a value the region computed stays on the device: the load of the
// head-split view of the product's host buffer becomes a copy on the device out of the
// same view of the product's scratchpad buffer; the product's result never goes out.
// Without forwarding it goes out and the view is read back from host memory.
// CHECK-LABEL: func.func private @npu_0
// CHECK:         accel.matmul ins({{.*}}) outs(%[[QKV:.*]] : memref<16x96xf32, #accel.mem<"spm">>)
// CHECK-NEXT:    %[[HEADS:.*]] = accel.alloc {{.*}} : memref<4x16x8xf32, #accel.mem<"spm">>
// CHECK-NEXT:    %[[V:.*]] = memref.reinterpret_cast %[[QKV]] to offset: [64], sizes: [4, 16, 8], strides: [8, 96, 1] : memref<16x96xf32, #accel.mem<"spm">> to memref<4x16x8xf32, strided<[8, 96, 1], offset: 64>, #accel.mem<"spm">>
// CHECK-NEXT:    %[[T:.*]] = accel.dma_start %[[V]], %[[HEADS]]
// CHECK-NEXT:    accel.alloc
// CHECK-NEXT:    accel.dma_wait %[[T]]
// CHECK-NEXT:    accel.matmul ins(%[[HEADS]], %[[HEADS]] : {{.*}})
// CHECK-NOT:     memref<16x96xf32>)
// NOFWD-LABEL: func.func private @npu_0
// NOFWD:         accel.dma_start %{{.*}}, %[[QKV:.*]] : memref<16x96xf32, #accel.mem<"spm">>, memref<16x96xf32>
// NOFWD:         memref.reinterpret_cast %[[QKV]] to offset: [64], sizes: [4, 16, 8], strides: [8, 96, 1] : memref<16x96xf32> to memref<4x16x8xf32, strided<[8, 96, 1], offset: 64>>
func.func @main(%x: tensor<16x32xf32>) -> tensor<4x16x16xf32> {
  %w = relay.constant dense<5.000000e-01> : tensor<96x32xf32>
  %qkv = relay.nn.dense %x, %w : (tensor<16x32xf32>, tensor<96x32xf32>) -> tensor<16x96xf32>
  %v = relay.strided_slice %qkv {begin = [64], end = [96], axes = [1]} : (tensor<16x96xf32>) -> tensor<16x32xf32>
  %h = relay.reshape %v {newshape = [16, 4, 8]} : (tensor<16x32xf32>) -> tensor<16x4x8xf32>
  %t = relay.transpose %h {axes = [1, 0, 2]} : (tensor<16x4x8xf32>) -> tensor<4x16x8xf32>
  %s = relay.nn.batch_matmul %t, %t : (tensor<4x16x8xf32>, tensor<4x16x8xf32>) -> tensor<4x16x16xf32>
  func.return %s : tensor<4x16x16xf32>
}


// -----

// A copy on the device is waited for just before the first op that reads its destination:
// the value heads' copy runs on the DMA engine while the relu of the query heads computes.
// Without double-buffer (the overlapping steps) each copy is waited for at once.
// CHECK-LABEL: func.func private @npu_0
// CHECK:         %[[Q:.*]] = accel.dma_start %{{.*}}, %[[QH:.*]] : memref<4x16x8xf32, strided<[8, 96, 1]>
// CHECK:         %[[V:.*]] = accel.dma_start %{{.*}}, %[[VH:.*]] : memref<4x16x8xf32, strided<[8, 96, 1], offset: 64>
// CHECK-NEXT:    accel.alloc
// CHECK-NEXT:    accel.dma_wait %[[Q]]
// CHECK-NEXT:    accel.eltwise ins(%[[QH]] : {{.*}}) outs(%[[R:.*]] : {{.*}}) {kind = "relu"}
// CHECK-NEXT:    accel.alloc
// CHECK-NEXT:    accel.dma_wait %[[V]]
// CHECK-NEXT:    accel.eltwise ins(%[[R]], %[[VH]] : {{.*}}) outs(
// NOFWD-LABEL: func.func private @npu_0
// SERIAL-LABEL: func.func private @npu_0
// SERIAL:         %[[V:.*]] = accel.dma_start %{{.*}}, %{{.*}} : memref<4x16x8xf32, strided<[8, 96, 1], offset: 64>
// SERIAL-NEXT:    accel.dma_wait %[[V]]
func.func @main(%x: tensor<16x32xf32>) -> tensor<4x16x8xf32> {
  %w = relay.constant dense<5.000000e-01> : tensor<96x32xf32>
  %qkv = relay.nn.dense %x, %w : (tensor<16x32xf32>, tensor<96x32xf32>) -> tensor<16x96xf32>
  %q = relay.strided_slice %qkv {begin = [0], end = [32], axes = [1]} : (tensor<16x96xf32>) -> tensor<16x32xf32>
  %qh = relay.reshape %q {newshape = [16, 4, 8]} : (tensor<16x32xf32>) -> tensor<16x4x8xf32>
  %qt = relay.transpose %qh {axes = [1, 0, 2]} : (tensor<16x4x8xf32>) -> tensor<4x16x8xf32>
  %v = relay.strided_slice %qkv {begin = [64], end = [96], axes = [1]} : (tensor<16x96xf32>) -> tensor<16x32xf32>
  %vh = relay.reshape %v {newshape = [16, 4, 8]} : (tensor<16x32xf32>) -> tensor<16x4x8xf32>
  %vt = relay.transpose %vh {axes = [1, 0, 2]} : (tensor<16x4x8xf32>) -> tensor<4x16x8xf32>
  %r = relay.nn.relu %qt : tensor<4x16x8xf32>
  %y = relay.add %r, %vt : (tensor<4x16x8xf32>, tensor<4x16x8xf32>) -> tensor<4x16x8xf32>
  func.return %y : tensor<4x16x8xf32>
}

// -----

// Copies issued one after another go in the order they are needed: the exporter's order
// is queries, values, keys; the product needs the queries and keys first, so the values'
// copy is issued last (the DMA engine runs copies in order).
// CHECK-LABEL: func.func private @npu_0
// CHECK:         %[[Q:.*]] = accel.dma_start %{{.*}}, %[[QH:.*]] : memref<4x16x8xf32, strided<[8, 96, 1]>
// CHECK-NEXT:    %[[K:.*]] = accel.dma_start %{{.*}}, %[[KH:.*]] : memref<4x16x8xf32, strided<[8, 96, 1], offset: 32>
// CHECK-NEXT:    %[[V:.*]] = accel.dma_start %{{.*}}, %[[VH:.*]] : memref<4x16x8xf32, strided<[8, 96, 1], offset: 64>
// CHECK:         accel.dma_wait %[[Q]], %[[K]]
// CHECK-NEXT:    accel.matmul ins(%[[QH]], %[[KH]] : {{.*}})
// CHECK:         accel.dma_wait %[[V]]
// SERIAL-LABEL: func.func private @npu_0
// SERIAL:         accel.dma_start %{{.*}}, %{{.*}} : memref<4x16x8xf32, strided<[8, 96, 1]>
// SERIAL-NEXT:    accel.dma_wait
// SERIAL:         accel.dma_start %{{.*}}, %{{.*}} : memref<4x16x8xf32, strided<[8, 96, 1], offset: 64>
// SERIAL-NEXT:    accel.dma_wait
func.func @main(%x: tensor<16x32xf32>) -> tensor<4x16x8xf32> {
  %w = relay.constant dense<5.000000e-01> : tensor<96x32xf32>
  %qkv = relay.nn.dense %x, %w : (tensor<16x32xf32>, tensor<96x32xf32>) -> tensor<16x96xf32>
  %q = relay.strided_slice %qkv {begin = [0], end = [32], axes = [1]} : (tensor<16x96xf32>) -> tensor<16x32xf32>
  %qh = relay.reshape %q {newshape = [16, 4, 8]} : (tensor<16x32xf32>) -> tensor<16x4x8xf32>
  %qt = relay.transpose %qh {axes = [1, 0, 2]} : (tensor<16x4x8xf32>) -> tensor<4x16x8xf32>
  %v = relay.strided_slice %qkv {begin = [64], end = [96], axes = [1]} : (tensor<16x96xf32>) -> tensor<16x32xf32>
  %vh = relay.reshape %v {newshape = [16, 4, 8]} : (tensor<16x32xf32>) -> tensor<16x4x8xf32>
  %vt = relay.transpose %vh {axes = [1, 0, 2]} : (tensor<16x4x8xf32>) -> tensor<4x16x8xf32>
  %k = relay.strided_slice %qkv {begin = [32], end = [64], axes = [1]} : (tensor<16x96xf32>) -> tensor<16x32xf32>
  %kh = relay.reshape %k {newshape = [16, 4, 8]} : (tensor<16x32xf32>) -> tensor<16x4x8xf32>
  %kt = relay.transpose %kh {axes = [1, 0, 2]} : (tensor<16x4x8xf32>) -> tensor<4x16x8xf32>
  %s = relay.nn.batch_matmul %qt, %kt : (tensor<4x16x8xf32>, tensor<4x16x8xf32>) -> tensor<4x16x16xf32>
  %p = relay.nn.softmax %s : tensor<4x16x16xf32>
  %y = relay.nn.batch_matmul %p, %vt {transpose_b = false} : (tensor<4x16x16xf32>, tensor<4x16x8xf32>) -> tensor<4x16x8xf32>
  func.return %y : tensor<4x16x8xf32>
}

// -----

// A reshape of a value on the device is a dense view of its buffer: the next op reads
// that view, nothing is copied.
// CHECK-LABEL: func.func private @npu_0
// CHECK:         accel.eltwise ins(%{{.*}}) outs(%[[R:.*]] : memref<1x8x4x4xf32, #accel.mem<"spm">>) {kind = "relu"}
// CHECK-NEXT:    %[[V:.*]] = memref.reinterpret_cast %[[R]] to offset: [0], sizes: [8, 16], strides: [16, 1] : memref<1x8x4x4xf32, #accel.mem<"spm">> to memref<8x16xf32, #accel.mem<"spm">>
// CHECK-NEXT:    %[[Y:.*]] = accel.alloc
// CHECK-NEXT:    accel.eltwise ins(%[[V]] : memref<8x16xf32, #accel.mem<"spm">>) outs(%[[Y]] : {{.*}}) {kind = "relu"}
// CHECK-NEXT:    accel.dma_start %[[Y]], %out0
func.func @main(%x: tensor<1x8x4x4xf32>) -> tensor<8x16xf32> {
  %r = relay.nn.relu %x : tensor<1x8x4x4xf32>
  %f = relay.reshape %r {newshape = [8, 16]} : (tensor<1x8x4x4xf32>) -> tensor<8x16xf32>
  %y = relay.nn.relu %f : tensor<8x16xf32>
  func.return %y : tensor<8x16xf32>
}
