// RUN: not accel-opt %s -p bufferize,plan-memory 2>&1 | filecheck %s

// An intermediate of 4 TiB (a broadcast of two small inputs): refused at the op computing it.
// CHECK: too-large-intermediate.mlir:[[# @LINE + 3]]:3: error: plan-memory: an intermediate tensor (memref<1048576x1048576xf32>) needs 4398046511104 bytes, more than the 1099511627776 bytes (1 TiB) a buffer may have
// CHECK-NOT: Traceback
func.func @main(%x: tensor<1048576x1xf32>, %z: tensor<1x1048576xf32>) -> tensor<f32> {
  %y = relay.add %x, %z : (tensor<1048576x1xf32>, tensor<1x1048576xf32>) -> tensor<1048576x1048576xf32>
  %s = relay.mean %y : (tensor<1048576x1048576xf32>) -> tensor<f32>
  func.return %s : tensor<f32>
}
