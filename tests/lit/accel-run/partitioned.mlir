// The interpreter runs IR after partitioning: func.call into outlined functions,
// relay.composite bodies, and ops carrying accel.target attributes.
// RUN: %python -c "import numpy as np; np.savez('%t.npz', x=(np.arange(16, dtype=np.float32) - 8).reshape(1, 1, 4, 4))"
// RUN: accel-run %s --inputs %t.npz | filecheck %s

// conv(x, ones 3x3) = [[-27, -18], [9, 18]]; relu in the composite; minus 1 on the host; relu.
// CHECK: y = {{\[}}[{{\[}}[0.0, 0.0], [8.0, 17.0]]]] : tensor<1x1x2x2xf32>

builtin.module {
  func.func @main(%x: tensor<1x1x4x4xf32>) -> (tensor<1x1x2x2xf32> {accel.name = "y"}) {
    %w = relay.constant dense<1.0> : tensor<1x1x3x3xf32>
    %y = func.call @npu_0(%x, %w) {accel.target = "npu"} : (tensor<1x1x4x4xf32>, tensor<1x1x3x3xf32>) -> tensor<1x1x2x2xf32>
    %one = relay.constant dense<1.0> : tensor<f32>
    %d = relay.subtract %y, %one {accel.target = "host"} : (tensor<1x1x2x2xf32>, tensor<f32>) -> tensor<1x1x2x2xf32>
    %z = relay.nn.relu %d {accel.target = "host"} : tensor<1x1x2x2xf32>
    func.return %z : tensor<1x1x2x2xf32>
  }
  func.func @npu_0(%a: tensor<1x1x4x4xf32>, %k: tensor<1x1x3x3xf32>) -> tensor<1x1x2x2xf32> attributes {accel.target = "npu"} {
    %c = relay.composite "npu.conv2d_relu" (%a, %k) {accel.target = "npu"} : (tensor<1x1x4x4xf32>, tensor<1x1x3x3xf32>) -> tensor<1x1x2x2xf32> {
    ^bb0(%i: tensor<1x1x4x4xf32>, %j: tensor<1x1x3x3xf32>):
      %0 = relay.nn.conv2d %i, %j : (tensor<1x1x4x4xf32>, tensor<1x1x3x3xf32>) -> tensor<1x1x2x2xf32>
      %1 = relay.nn.relu %0 : tensor<1x1x2x2xf32>
      relay.yield %1 : tensor<1x1x2x2xf32>
    }
    func.return %c : tensor<1x1x2x2xf32>
  }
}
