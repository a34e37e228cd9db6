// RUN: not accel-opt %s --target %S/../lower-to-accel/Inputs/cnn.toml -p annotate-target 2>&1 | filecheck %s

// A manually marked composite whose body the lowering cannot run: one error.
// CHECK: manual-composite-invalid.mlir:[[# @LINE + 4]]:3: error: composite 'cnn.conv2d_erf' has accel.target = "cnn", but cnn cannot run it: 'relay.erf' has no accelerator form
// CHECK-NOT: Traceback
func.func @main(%x: tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32> {
  %w = relay.constant dense<0.5> : tensor<2x2x1x1xf32>
  %y = relay.composite "cnn.conv2d_erf" (%x, %w) {accel.target = "cnn"} : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x4x4xf32> {
  ^bb0(%a: tensor<1x2x4x4xf32>, %k: tensor<2x2x1x1xf32>):
    %c = relay.nn.conv2d %a, %k : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x4x4xf32>
    %s = relay.erf %c : tensor<1x2x4x4xf32>
    relay.yield %s : tensor<1x2x4x4xf32>
  }
  func.return %y : tensor<1x2x4x4xf32>
}
