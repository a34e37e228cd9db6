// RUN: not accel-opt %s -p bufferize,lower-to-accel 2>&1 | filecheck %s

// A kernel with no accelerator operation in an accelerator function (IR written past
// annotate-target, which would have refused it) is one located error.
// CHECK: lower-to-accel-invalid.mlir:[[# @LINE + 3]]:3: error: lower-to-accel: cannot run 'relay.erf' on 'npu': 'relay.erf' has no accelerator form
// CHECK-NOT: Traceback
func.func @npu_0(%a: tensor<4xf32>) -> tensor<4xf32> attributes {accel.target = "npu"} {
  %s = relay.erf %a : tensor<4xf32>
  func.return %s : tensor<4xf32>
}
