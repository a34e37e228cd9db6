// RUN: accel-opt %s --split-input-file --target npu -p "byoc{cost-model=false},bufferize,plan-memory,lower-to-accel" | filecheck %s

// A transformer's head split on the npu: the qkv product's columns sliced, reshaped into
// heads and transposed heads first. The three layout ops compose into one strided view
// of the product's buffer (offset 64: the third slice) and one copy; the buffers between
// them are gone. The batched product reads the copy: one region.
// CHECK-LABEL: func.func private @npu_0
// CHECK:         accel.matmul ins(%x, {{.*}}) outs(%[[QKV:.*]] : memref<16x96xf32>)
// CHECK-NOT:     memref.alloc() : memref<16x32xf32>
// CHECK:         %[[V:.*]] = memref.reinterpret_cast %[[QKV]] to offset: [64], sizes: [4, 16, 8], strides: [8, 96, 1] : memref<16x96xf32> to memref<4x16x8xf32, strided<[8, 96, 1], offset: 64>>
// CHECK-NEXT:    "memref.copy"(%[[V]], %[[HEADS:.*]]) : (memref<4x16x8xf32, strided<[8, 96, 1], offset: 64>>, memref<4x16x8xf32>) -> ()
// CHECK:         accel.matmul ins(%[[HEADS]], %[[HEADS]] : {{.*}})
// CHECK-NOT:     func.func private @npu_1
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

// A reshape is a dense view: its type is a plain buffer of the new shape. A slice with a
// step is a strided view (every second column from the second); of the reshape's result
// it is a view of the reshape's source (the reshape's copy stays: the relu reads it).
// CHECK-LABEL: func.func private @npu_0
// CHECK:         memref.reinterpret_cast %[[R:.*]] to offset: [0], sizes: [2, 64], strides: [64, 1] : memref<1x8x4x4xf32> to memref<2x64xf32>
// CHECK:         memref.reinterpret_cast %[[R]] to offset: [1], sizes: [2, 32], strides: [64, 2] : memref<1x8x4x4xf32> to memref<2x32xf32, strided<[64, 2], offset: 1>>
func.func @main(%x: tensor<1x8x4x4xf32>) -> (tensor<2x64xf32>, tensor<2x32xf32>) {
  %r = relay.nn.relu %x : tensor<1x8x4x4xf32>
  %f = relay.reshape %r {newshape = [2, 64]} : (tensor<1x8x4x4xf32>) -> tensor<2x64xf32>
  %a = relay.nn.relu %f : tensor<2x64xf32>
  %s = relay.strided_slice %f {begin = [1], end = [64], strides = [2], axes = [1]} : (tensor<2x64xf32>) -> tensor<2x32xf32>
  %b = relay.nn.relu %s : tensor<2x32xf32>
  func.return %a, %b : tensor<2x64xf32>, tensor<2x32xf32>
}

// -----

// A layout op's result of rank 5: the copy merges the dimensions contiguous on both
// sides (a transfer has rank 1 to 4), a view of the result too.
// CHECK-LABEL: func.func private @npu_0
// CHECK:         %[[SRC:.*]] = memref.reinterpret_cast %{{.*}} to offset: [0], sizes: [2, 3, 16], strides: [16, 32, 1] : memref<3x2x16xf32> to memref<2x3x16xf32, strided<[16, 32, 1]>>
// CHECK-NEXT:    %[[DST:.*]] = memref.reinterpret_cast %{{.*}} to offset: [0], sizes: [2, 3, 16], strides: [48, 16, 1] : memref<2x1x3x4x4xf32> to memref<2x3x16xf32>
// CHECK-NEXT:    "memref.copy"(%[[SRC]], %[[DST]])
func.func @main(%x: tensor<3x2x16xf32>) -> tensor<2x1x3x4x4xf32> {
  %r = relay.nn.relu %x : tensor<3x2x16xf32>
  %t = relay.transpose %r {axes = [1, 0, 2]} : (tensor<3x2x16xf32>) -> tensor<2x3x16xf32>
  %h = relay.reshape %t {newshape = [2, 1, 3, 4, 4]} : (tensor<2x3x16xf32>) -> tensor<2x1x3x4x4xf32>
  %y = relay.nn.relu %h : tensor<2x1x3x4x4xf32>
  func.return %y : tensor<2x1x3x4x4xf32>
}
