// RUN: not accel-opt %s -p 'annotate-target{targets=npu}' 2>&1 | filecheck %s

// A manual mark on an op the target's description does not accept is one error at
// annotate-target, naming the op, its location and why, never a failure in a later pass.
// CHECK: manual-invalid.mlir:[[# @LINE + 4]]:3: error: 'relay.erf' op has accel.target = "npu", but npu cannot run it: op not supported
// CHECK-NOT: Traceback
func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = relay.nn.relu %x {accel.target = "npu"} : tensor<4xf32>
  %1 = relay.erf %0 {accel.target = "npu"} : tensor<4xf32>
  func.return %1 : tensor<4xf32>
}
