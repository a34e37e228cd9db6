// fold-batch-norm: a product of NCHW data with a per-channel constant (GroupNorm's affine
// as torch exports it) is a depthwise 1x1 conv2d, which the npu runs; other products stay.
// RUN: accel-opt %s --split-input-file -p fold-batch-norm | filecheck %s

// CHECK-LABEL: func.func @group_norm_affine
// CHECK-NEXT:    %[[S:.*]] = relay.constant dense<{{\[\[\[\[}}5.000000e-01]]], {{\[\[\[}}2.000000e+00]]]]> : tensor<2x1x1x1xf32>
// CHECK-NEXT:    %[[C:.*]] = relay.nn.conv2d %x, %[[S]] {groups = 2} : (tensor<1x2x4x4xf32>, tensor<2x1x1x1xf32>) -> tensor<1x2x4x4xf32>
// CHECK-NEXT:    %[[Y:.*]] = relay.nn.bias_add %[[C]], %b
// CHECK-NEXT:    func.return %[[Y]]
func.func @group_norm_affine(%x: tensor<1x2x4x4xf32>, %b: tensor<2xf32>) -> tensor<1x2x4x4xf32> {
  %g = relay.constant dense<[[[0.5]], [[2.0]]]> : tensor<2x1x1xf32>
  %m = relay.multiply %g, %x : (tensor<2x1x1xf32>, tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %y = relay.nn.bias_add %m, %b : (tensor<1x2x4x4xf32>, tensor<2xf32>) -> tensor<1x2x4x4xf32>
  func.return %y : tensor<1x2x4x4xf32>
}

// -----

// Kept: one value (an elementwise product the npu takes), a constant varying along the
// width, a product that broadcasts the data, and a product of two run-time values.
// CHECK-LABEL: func.func @kept
// CHECK-COUNT-4: relay.multiply
// CHECK-NOT:     relay.nn.conv2d
func.func @kept(%x: tensor<1x2x4x4xf32>, %v: tensor<1x2x1x1xf32>, %x1: tensor<1x1x4x4xf32>) -> (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) {
  %one = relay.constant dense<3.0> : tensor<f32>
  %w = relay.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  %c = relay.constant dense<[[[[1.0]], [[2.0]]]]> : tensor<1x2x1x1xf32>
  %a = relay.multiply %x, %one : (tensor<1x2x4x4xf32>, tensor<f32>) -> tensor<1x2x4x4xf32>
  %b = relay.multiply %x, %w : (tensor<1x2x4x4xf32>, tensor<4xf32>) -> tensor<1x2x4x4xf32>
  %d = relay.multiply %c, %x1 : (tensor<1x2x1x1xf32>, tensor<1x1x4x4xf32>) -> tensor<1x2x4x4xf32>
  %e = relay.multiply %x, %v : (tensor<1x2x4x4xf32>, tensor<1x2x1x1xf32>) -> tensor<1x2x4x4xf32>
  func.return %a, %b, %d, %e : tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>
}
