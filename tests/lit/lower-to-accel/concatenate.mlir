// RUN: accel-opt %s --split-input-file --target npu -p byoc,bufferize,plan-memory,lower-to-accel | filecheck %s

// Two convolutions concatenated along channels, then read: both write straight into
// their channel slices of the concatenation's buffer (no copy, no buffer of their own),
// and the concatenation runs on the npu with them (one region).
// CHECK-LABEL: func.func private @npu_0
// CHECK-NOT:     memref.copy
// CHECK:         %[[C:.*]] = memref.alloc() : memref<1x8x8x8xf32>
// CHECK:         %[[V0:.*]] = memref.subview %[[C]][0, 0, 0, 0] [1, 4, 8, 8] [1, 1, 1, 1] : memref<1x8x8x8xf32> to memref<1x4x8x8xf32, strided<[512, 64, 8, 1]>>
// CHECK:         accel.conv2d ins(%x, %{{.*}} : {{.*}}) outs(%[[V0]] : memref<1x4x8x8xf32, strided<[512, 64, 8, 1]>>)
// CHECK:         %[[V1:.*]] = memref.subview %[[C]][0, 4, 0, 0] [1, 4, 8, 8] [1, 1, 1, 1] : memref<1x8x8x8xf32> to memref<1x4x8x8xf32, strided<[512, 64, 8, 1], offset: 256>>
// CHECK:         accel.conv2d ins(%x, %{{.*}} : {{.*}}) outs(%[[V1]] : memref<1x4x8x8xf32, strided<[512, 64, 8, 1], offset: 256>>)
// CHECK:         accel.conv2d ins(%[[C]], %{{.*}} : memref<1x8x8x8xf32>, {{.*}})
// CHECK-NOT:     func.func private @npu_1
func.func @main(%x: tensor<1x4x8x8xf32>) -> tensor<1x8x8x8xf32> {
  %w1 = relay.constant dense<5.000000e-01> : tensor<4x4x1x1xf32>
  %w2 = relay.constant dense<2.500000e-01> : tensor<4x4x1x1xf32>
  %a = relay.nn.conv2d %x, %w1 : (tensor<1x4x8x8xf32>, tensor<4x4x1x1xf32>) -> tensor<1x4x8x8xf32>
  %b = relay.nn.conv2d %x, %w2 : (tensor<1x4x8x8xf32>, tensor<4x4x1x1xf32>) -> tensor<1x4x8x8xf32>
  %c = relay.concatenate %a, %b {axis = 1} : (tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>) -> tensor<1x8x8x8xf32>
  %w3 = relay.constant dense<1.250000e-01> : tensor<8x8x1x1xf32>
  %y = relay.nn.conv2d %c, %w3 : (tensor<1x8x8x8xf32>, tensor<8x8x1x1xf32>) -> tensor<1x8x8x8xf32>
  func.return %y : tensor<1x8x8x8xf32>
}

// -----

// An input of the region (nothing of the region writes it) is copied into its slice;
// insert-dma stages that copy through the scratchpad.
// CHECK-LABEL: func.func private @npu_0
// CHECK:         %[[C:.*]] = memref.alloc()
// CHECK:         %[[V1:.*]] = memref.subview %[[C]][0, 4, 0, 0] [1, 4, 8, 8] [1, 1, 1, 1]
// CHECK:         accel.conv2d ins(%x, %{{.*}} : {{.*}}) outs(%[[V1]] : {{.*}})
// CHECK:         %[[V0:.*]] = memref.subview %[[C]][0, 0, 0, 0] [1, 4, 8, 8] [1, 1, 1, 1]
// CHECK:         "memref.copy"(%x, %[[V0]]) : (memref<1x4x8x8xf32>, memref<1x4x8x8xf32, strided<[512, 64, 8, 1]>>) -> ()
// CHECK:         accel.conv2d ins(%[[C]], %{{.*}} : memref<1x8x8x8xf32>, {{.*}})
func.func @main(%x: tensor<1x4x8x8xf32>) -> tensor<1x8x8x8xf32> {
  %w2 = relay.constant dense<2.500000e-01> : tensor<4x4x1x1xf32>
  %b = relay.nn.conv2d %x, %w2 : (tensor<1x4x8x8xf32>, tensor<4x4x1x1xf32>) -> tensor<1x4x8x8xf32>
  %c = relay.concatenate %x, %b {axis = 1} : (tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>) -> tensor<1x8x8x8xf32>
  %w3 = relay.constant dense<1.250000e-01> : tensor<8x8x1x1xf32>
  %y = relay.nn.conv2d %c, %w3 : (tensor<1x8x8x8xf32>, tensor<8x8x1x1xf32>) -> tensor<1x8x8x8xf32>
  func.return %y : tensor<1x8x8x8xf32>
}


// -----

// A constant input (the padding blocks undilate-convs concatenates) is a weight copied
// into its slice: the whole concatenation is on the npu.
// CHECK-LABEL: func.func private @npu_0
// CHECK:         %[[Z:.*]] = accel.weight dense<0.000000e+00> : tensor<1x4x2x8xf32> : memref<1x4x2x8xf32>
// CHECK:         %[[C:.*]] = memref.alloc() : memref<1x4x10x8xf32>
// CHECK:         %[[V1:.*]] = memref.subview %[[C]][0, 0, 8, 0] [1, 4, 2, 8] [1, 1, 1, 1]
// CHECK:         "memref.copy"(%[[Z]], %[[V1]]) : (memref<1x4x2x8xf32>, memref<1x4x2x8xf32, strided<[320, 80, 8, 1], offset: 64>>) -> ()
// CHECK:         accel.conv2d ins(%[[C]], %{{.*}} : memref<1x4x10x8xf32>, {{.*}})
// CHECK-NOT:     func.func private @npu_1
func.func @main(%x: tensor<1x4x8x8xf32>) -> tensor<1x4x10x8xf32> {
  %w = relay.constant dense<2.500000e-01> : tensor<4x4x1x1xf32>
  %a = relay.nn.conv2d %x, %w : (tensor<1x4x8x8xf32>, tensor<4x4x1x1xf32>) -> tensor<1x4x8x8xf32>
  %z = relay.constant dense<0.000000e+00> : tensor<1x4x2x8xf32>
  %c = relay.concatenate %a, %z {axis = 2} : (tensor<1x4x8x8xf32>, tensor<1x4x2x8xf32>) -> tensor<1x4x10x8xf32>
  %y = relay.nn.conv2d %c, %w : (tensor<1x4x10x8xf32>, tensor<4x4x1x1xf32>) -> tensor<1x4x10x8xf32>
  func.return %y : tensor<1x4x10x8xf32>
}
