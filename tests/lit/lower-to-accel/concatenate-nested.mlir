// RUN: accel-opt %s --split-input-file --target npu -p 'byoc{cost-model=false},bufferize,plan-memory,lower-to-accel' | filecheck %s

// A concatenation inside a concatenation: the inner one's output becomes a slice of the
// outer one's (strides [16, 1]), and the inner slices inherit those strides (a view built
// for a dense 4x8 buffer would address rows 1.. of its slice wrongly; seed-7 fuzz case 7047).
// CHECK-LABEL: func.func private @npu_0
// CHECK:         %[[O:.*]] = memref.subview %out0[0, 0] [4, 8] [1, 1] : memref<4x16xf32> to memref<4x8xf32, strided<[16, 1]>>
// CHECK:         memref.subview %[[O]][0, 0] [2, 8] [1, 1] : memref<4x8xf32, strided<[16, 1]>> to memref<2x8xf32, strided<[16, 1]>>
// CHECK:         memref.subview %[[O]][2, 0] [2, 8] [1, 1] : memref<4x8xf32, strided<[16, 1]>> to memref<2x8xf32, strided<[16, 1], offset: 32>>
// CHECK-NOT:     strided<[8, 1]
func.func @main(%x: tensor<2x8xf32>) -> tensor<4x16xf32> {
  %r = relay.nn.relu %x : tensor<2x8xf32>
  %i = relay.concatenate %r, %r {axis = 0} : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<4x8xf32>
  %o = relay.concatenate %i, %i {axis = 1} : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x16xf32>
  func.return %o : tensor<4x16xf32>
}
