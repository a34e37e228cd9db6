// RUN: not accel-opt %s -p bufferize,lower-to-accel 2>&1 | filecheck %s

// A composite whose body has an op no fused form covers (conv2d then erf) names the
// composite and the op.
// CHECK: composite-invalid.mlir:[[# @LINE + 4]]:3: error: lower-to-accel: cannot run composite 'npu.conv2d_erf' on 'npu': 'relay.erf' has no accelerator form
// CHECK-NOT: Traceback
func.func @npu_0(%x: tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32> attributes {accel.target = "npu"} {
  %w = relay.constant dense<0.5> : tensor<2x2x1x1xf32>
  %y = relay.composite "npu.conv2d_erf" (%x, %w) : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x4x4xf32> {
  ^bb0(%a: tensor<1x2x4x4xf32>, %k: tensor<2x2x1x1xf32>):
    %c = relay.nn.conv2d %a, %k : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x4x4xf32>
    %s = relay.erf %c : tensor<1x2x4x4xf32>
    relay.yield %s : tensor<1x2x4x4xf32>
  }
  func.return %y : tensor<1x2x4x4xf32>
}
