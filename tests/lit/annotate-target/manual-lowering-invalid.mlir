// RUN: not accel-opt %s --target %S/../lower-to-accel/Inputs/cnn.toml -p annotate-target 2>&1 | filecheck %s

// The description lists relay.nn.leaky_relu, but the lowering has no compute form for
// it: a manual mark is one error with the lowering's reason.
// CHECK: manual-lowering-invalid.mlir:[[# @LINE + 3]]:3: error: 'relay.nn.leaky_relu' op has accel.target = "cnn", but cnn cannot run it: 'relay.nn.leaky_relu' has no accelerator form
// CHECK-NOT: Traceback
func.func @main(%a: tensor<2x4x4xf32>) -> tensor<2x4x4xf32> {
  %0 = relay.nn.leaky_relu %a {alpha = 0.1, accel.target = "cnn"} : tensor<2x4x4xf32>
  func.return %0 : tensor<2x4x4xf32>
}
