// RUN: accel-opt %s --split-input-file --target %S/../lower-to-accel/Inputs/cnn.toml -p merge-composite,annotate-target | filecheck %s

// Partitioning asks the lowering: an [[ops]] entry the lowering has no compute form
// for stays on the host with the lowering's reason.
// CHECK-LABEL: func.func @main
// CHECK:         relay.nn.leaky_relu %a {alpha = 0.1, accel.target = "host", accel.reason = "cnn: 'relay.nn.leaky_relu' has no accelerator form"}
// CHECK:         relay.erf %{{.*}} {accel.target = "host", accel.reason = "cnn: 'relay.erf' has no accelerator form"}
// CHECK:         relay.nn.relu %{{.*}} {accel.target = "cnn"}
func.func @main(%a: tensor<2x4x4xf32>) -> tensor<2x4x4xf32> {
  %0 = relay.nn.leaky_relu %a {alpha = 0.1} : tensor<2x4x4xf32>
  %1 = relay.erf %0 : tensor<2x4x4xf32>
  %2 = relay.nn.relu %1 : tensor<2x4x4xf32>
  func.return %2 : tensor<2x4x4xf32>
}

// -----

// merge-composite does not build a composite the lowering cannot run (conv2d_erf):
// its ops are annotated one by one.
// CHECK-LABEL: func.func @main
// CHECK-NOT:     relay.composite
// CHECK:         relay.nn.conv2d %x, %w {accel.target = "host", accel.reason = "cnn: op not supported"}
// CHECK:         relay.erf %{{.*}} {accel.target = "host", accel.reason = "cnn: 'relay.erf' has no accelerator form"}
func.func @main(%x: tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32> {
  %w = relay.constant dense<0.5> : tensor<2x2x1x1xf32>
  %c = relay.nn.conv2d %x, %w : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x4x4xf32>
  %s = relay.erf %c : tensor<1x2x4x4xf32>
  func.return %s : tensor<1x2x4x4xf32>
}

// -----

// A composite written in the input that the lowering cannot run stays on the host,
// saying why; one that it can run (several fused forms) goes to its target.
// CHECK-LABEL: func.func @main
// CHECK:         relay.composite "cnn.conv2d_sigmoid" (%x, %w) {accel.target = "host", accel.reason = "cnn: 'relay.erf' has no accelerator form"}
// CHECK:         relay.composite "cnn.conv2d_bias_relu_maxpool" (%y, %w, %b) {accel.target = "cnn"}
func.func @main(%x: tensor<1x2x4x4xf32>) -> tensor<1x2x2x2xf32> {
  %w = relay.constant dense<0.5> : tensor<2x2x1x1xf32>
  %b = relay.constant dense<0.5> : tensor<2xf32>
  %y = relay.composite "cnn.conv2d_sigmoid" (%x, %w) : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x4x4xf32> {
  ^bb0(%a: tensor<1x2x4x4xf32>, %k: tensor<2x2x1x1xf32>):
    %c = relay.nn.conv2d %a, %k : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x4x4xf32>
    %s = relay.erf %c : tensor<1x2x4x4xf32>
    relay.yield %s : tensor<1x2x4x4xf32>
  }
  %z = relay.composite "cnn.conv2d_bias_relu_maxpool" (%y, %w, %b) : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>, tensor<2xf32>) -> tensor<1x2x2x2xf32> {
  ^bb0(%a: tensor<1x2x4x4xf32>, %k: tensor<2x2x1x1xf32>, %kb: tensor<2xf32>):
    %c = relay.nn.conv2d %a, %k : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x4x4xf32>
    %d = relay.nn.bias_add %c, %kb : (tensor<1x2x4x4xf32>, tensor<2xf32>) -> tensor<1x2x4x4xf32>
    %r = relay.nn.relu %d : tensor<1x2x4x4xf32>
    %p = relay.nn.max_pool2d %r {pool_size = [2, 2], strides = [2, 2]} : (tensor<1x2x4x4xf32>) -> tensor<1x2x2x2xf32>
    relay.yield %p : tensor<1x2x2x2xf32>
  }
  func.return %z : tensor<1x2x2x2xf32>
}
