// RUN: not accel-opt %s -p bufferize,plan-memory 2>&1 | filecheck %s

// A declared 2^20 x 2^20 float input (4 TiB) cannot be allocated: refused, naming it.
// CHECK: too-large.mlir:[[# @LINE + 2]]:1: error: plan-memory: tensor 'x' of @main (memref<1048576x1048576xf32>) needs 4398046511104 bytes, more than the 1099511627776 bytes (1 TiB) a buffer may have
// CHECK-NOT: Traceback
func.func @main(%x: tensor<1048576x1048576xf32>) -> tensor<1048576x1048576xf32> {
  %y = relay.nn.relu %x : tensor<1048576x1048576xf32>
  func.return %y : tensor<1048576x1048576xf32>
}
