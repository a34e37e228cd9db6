// collapse-norm-axes: layer and RMS norms over several trailing axes (an instance norm
// over the spatial axes, a LayerNorm of normalized_shape [T, D]), which the npu runs only
// along the last axis, as that norm over the merged axes between two reshapes.
// RUN: accel-opt %s --split-input-file --target npu -p collapse-norm-axes | filecheck %s
// RUN: accel-opt %s --split-input-file --target npu -p byoc | filecheck %s --check-prefix=BYOC

// An instance norm (as canonicalize recognises it: a layer norm over H and W, gamma of
// ones and beta of zeros; its per-channel scale and bias follow as a depthwise conv and
// an add): gamma and beta are reshaped at compile time.
// CHECK-LABEL: func.func @instance_norm
// CHECK-NEXT:    %0 = relay.reshape %x {newshape = [1, 8, 16]} : (tensor<1x8x4x4xf32>) -> tensor<1x8x16xf32>
// CHECK-NEXT:    %1 = relay.constant dense<1.000000e+00> : tensor<16xf32>
// CHECK-NEXT:    %2 = relay.constant dense<0.000000e+00> : tensor<16xf32>
// CHECK-NEXT:    %3 = relay.nn.layer_norm %0, %1, %2 {axis = 2} : (tensor<1x8x16xf32>, tensor<16xf32>, tensor<16xf32>) -> tensor<1x8x16xf32>
// CHECK-NEXT:    %y = relay.reshape %3 {newshape = [1, 8, 4, 4]} : (tensor<1x8x16xf32>) -> tensor<1x8x4x4xf32>
// CHECK-NEXT:    func.return %y
func.func @instance_norm(%x: tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32> {
  %g = relay.constant dense<1.0> : tensor<4x4xf32>
  %b = relay.constant dense<0.0> : tensor<4x4xf32>
  %y = relay.nn.layer_norm %x, %g, %b {axis = 2, epsilon = 1.0e-05 : f64} : (tensor<1x8x4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<1x8x4x4xf32>
  func.return %y : tensor<1x8x4x4xf32>
}

// -----

// An RMS norm over [3, 4] of [2, 3, 4]: gamma in row-major order.
// CHECK-LABEL: func.func @rms
// CHECK-NEXT:    %0 = relay.reshape %x {newshape = [2, 12]} : (tensor<2x3x4xf32>) -> tensor<2x12xf32>
// CHECK-NEXT:    %1 = relay.constant dense<[1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00, 5.000000e+00, 6.000000e+00, 7.000000e+00, 8.000000e+00, 9.000000e+00, 1.000000e+01, 1.100000e+01, 1.200000e+01]> : tensor<12xf32>
// CHECK-NEXT:    %2 = relay.nn.rms_norm %0, %1 {axis = 1} : (tensor<2x12xf32>, tensor<12xf32>) -> tensor<2x12xf32>
// CHECK-NEXT:    %y = relay.reshape %2 {newshape = [2, 3, 4]} : (tensor<2x12xf32>) -> tensor<2x3x4xf32>
func.func @rms(%x: tensor<2x3x4xf32>) -> tensor<2x3x4xf32> {
  %g = relay.constant dense<[[1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0], [9.0, 10.0, 11.0, 12.0]]> : tensor<3x4xf32>
  %y = relay.nn.rms_norm %x, %g {axis = 1} : (tensor<2x3x4xf32>, tensor<3x4xf32>) -> tensor<2x3x4xf32>
  func.return %y : tensor<2x3x4xf32>
}

// -----

// Left alone: a norm along the last axis (the npu runs it), and one whose gamma is not a
// constant (the npu's norm needs constants: the collapsed norm would not run either).
// CHECK-LABEL: func.func @left_alone
// CHECK-NOT:     relay.reshape
// CHECK:         %a = relay.nn.layer_norm %x, %g1, %b1 : (tensor<2x8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<2x8xf32>
// CHECK-NEXT:    %b = relay.nn.rms_norm %z, %g {axis = 2} : (tensor<1x8x4x4xf32>, tensor<4x4xf32>) -> tensor<1x8x4x4xf32>
func.func @left_alone(%x: tensor<2x8xf32>, %z: tensor<1x8x4x4xf32>, %g: tensor<4x4xf32>) -> (tensor<2x8xf32>, tensor<1x8x4x4xf32>) {
  %g1 = relay.constant dense<1.0> : tensor<8xf32>
  %b1 = relay.constant dense<0.0> : tensor<8xf32>
  %a = relay.nn.layer_norm %x, %g1, %b1 : (tensor<2x8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<2x8xf32>
  %b = relay.nn.rms_norm %z, %g {axis = 2} : (tensor<1x8x4x4xf32>, tensor<4x4xf32>) -> tensor<1x8x4x4xf32>
  func.return %a, %b : tensor<2x8xf32>, tensor<1x8x4x4xf32>
}

// -----

// A conv, an instance norm and a relu: one npu region.
// BYOC-LABEL: func.func @instance_block
// BYOC-NEXT:    %r = func.call @npu_0(%x)
// BYOC-NEXT:    func.return
func.func @instance_block(%x: tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32> {
  %w = relay.constant dense<0.5> : tensor<4x4x3x3xf32>
  %c = relay.nn.conv2d %x, %w {padding = [1, 1, 1, 1]} : (tensor<1x4x8x8xf32>, tensor<4x4x3x3xf32>) -> tensor<1x4x8x8xf32>
  %g = relay.constant dense<1.0> : tensor<8x8xf32>
  %b = relay.constant dense<0.0> : tensor<8x8xf32>
  %n = relay.nn.layer_norm %c, %g, %b {axis = 2} : (tensor<1x4x8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>) -> tensor<1x4x8x8xf32>
  %r = relay.nn.relu %n : tensor<1x4x8x8xf32>
  func.return %r : tensor<1x4x8x8xf32>
}
