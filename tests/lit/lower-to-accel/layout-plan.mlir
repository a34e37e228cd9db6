// RUN: accel-opt %s --split-input-file --target npu -p 'byoc{cost-model=false},bufferize,plan-memory,lower-to-accel' | filecheck %s

// A stride (2, 1) conv of a batch of two (unstride-convs: rows padded to 6, split into
// two phases by a reshape and a transpose). The transpose's copy reads the padded rows
// through the reshape's view (the reshape's own copy goes): the padded buffer now lives
// until that copy, past where plan-memory saw its last reader, so its host offset, which
// the transpose's result shares, is dropped (the next plan-memory places it).
// CHECK-LABEL: func.func private @npu_0
// CHECK:         %[[P:.*]] = memref.alloc() : memref<2x2x6x6xf32>
// CHECK:         %[[T:.*]] = memref.alloc() {accel.offset = {{[0-9]+}} : i64} : memref<2x2x1x2x3x6xf32>
// CHECK:         %[[V:.*]] = memref.reinterpret_cast %[[P]] to offset: [0], sizes: [2, 2, 6, 6], strides: [72, 6, 12, 1]
// CHECK:         "memref.copy"(%[[V]], %{{.*}})
func.func @main(%x0: tensor<2x2x5x6xf32>) -> tensor<2x1x2x6xf32> {
  %0 = relay.constant dense<0.125> : tensor<1x2x3x1xf32>
  %1 = relay.nn.conv2d %x0, %0 {strides = [2, 1]} : (tensor<2x2x5x6xf32>, tensor<1x2x3x1xf32>) -> tensor<2x1x2x6xf32>
  func.return %1 : tensor<2x1x2x6xf32>
}

// -----

// Here the reshape's and the transpose's views compose to a copy of rank 5 (no two
// neighbouring dims contiguous on both sides): a transfer has rank 1 to 4, so the
// reshape's copy stays and the transpose copies from its result.
// CHECK-LABEL: func.func private @npu_0
// CHECK:         %[[R:.*]] = memref.alloc() {accel.offset = {{[0-9]+}} : i64} : memref<2x2x2x2x3x1xf32>
// CHECK:         "memref.copy"(%{{.*}}, %{{.*}}) : (memref<4x12xf32, strided<[15, 1]>>, memref<4x12xf32>) -> ()
// CHECK:         %[[V:.*]] = memref.reinterpret_cast %[[R]] to offset: [0], sizes: [2, 2, 4, 3], strides: [24, 3, 6, 1]
// CHECK:         "memref.copy"(%[[V]], %{{.*}})
// CHECK-NOT:     memref<2x2x2x2x3xf32
func.func @main(%x0: tensor<2x2x5x3xf32>) -> tensor<2x1x2x3xf32> {
  %0 = relay.constant dense<0.125> : tensor<1x2x2x1xf32>
  %1 = relay.nn.conv2d %x0, %0 {strides = [2, 1]} : (tensor<2x2x5x3xf32>, tensor<1x2x2x1xf32>) -> tensor<2x1x2x3xf32>
  func.return %1 : tensor<2x1x2x3xf32>
}
