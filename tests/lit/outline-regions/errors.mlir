// RUN: not accel-opt %s -p outline-regions 2>&1 | filecheck %s

// CHECK: errors.mlir:[[# @LINE + 3]]:3: error: an op with accel.region has no accelerator accel.target
// CHECK-NOT: Traceback
func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = relay.nn.relu %x {accel.target = "host", accel.region = 0 : i64} : tensor<4xf32>
  func.return %0 : tensor<4xf32>
}
