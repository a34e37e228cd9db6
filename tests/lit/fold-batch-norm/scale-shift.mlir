// fold-batch-norm: batch norms that cannot fold become a scale-shift (NCHW: depthwise
// 1x1 conv2d + bias_add, which the npu runs; other layouts: multiply + add); batch
// norms with run-time statistics stay.
// RUN: accel-opt %s --split-input-file -p fold-batch-norm | filecheck %s
// RUN: not accel-opt %s -p 'fold-batch-norm{axis=1}' 2>&1 | filecheck %s --check-prefix=OPTION

// OPTION: accel-opt: error: pass 'fold-batch-norm' has no option 'axis' (options: none)
// OPTION-NOT: Traceback

// The input of the graph: nothing to fold into.
// CHECK-LABEL: func.func @input
// CHECK-NEXT:    %[[S:.*]] = relay.constant dense<{{\[\[\[\[}}1.000000e+00]]], {{\[\[\[}}2.000000e+00]]]]> : tensor<2x1x1x1xf32>
// CHECK-NEXT:    %[[T:.*]] = relay.constant dense<[5.000000e-01, -1.500000e+00]> : tensor<2xf32>
// CHECK-NEXT:    %[[C:.*]] = relay.nn.conv2d %x, %[[S]] {groups = 2} : (tensor<1x2x4x4xf32>, tensor<2x1x1x1xf32>) -> tensor<1x2x4x4xf32>
// CHECK-NEXT:    %[[Y:.*]] = relay.nn.bias_add %[[C]], %[[T]]
// CHECK-NEXT:    func.return %[[Y]]
func.func @input(%x: tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32> {
  %g = relay.constant dense<[2.0, 4.0]> : tensor<2xf32>
  %b = relay.constant dense<[1.0, -1.0]> : tensor<2xf32>
  %m = relay.constant dense<[0.5, 0.25]> : tensor<2xf32>
  %v = relay.constant dense<[3.0, 3.0]> : tensor<2xf32>
  %0 = relay.nn.batch_norm %x, %g, %b, %m, %v {epsilon = 1.0} : (tensor<1x2x4x4xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x4x4xf32>
  func.return %0 : tensor<1x2x4x4xf32>
}

// -----

// The conv's result has another user: folding would change it.
// CHECK-LABEL: func.func @shared
// CHECK:         %[[C:.*]] = relay.nn.conv2d %x, %w :
// CHECK:         relay.nn.conv2d %[[C]], %{{.*}} {groups = 2}
// CHECK:         relay.nn.bias_add
// CHECK:         relay.nn.relu %[[C]]
// CHECK-NOT:     relay.nn.batch_norm
func.func @shared(%x: tensor<1x2x4x4xf32>) -> (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) {
  %w = relay.constant dense<1.0> : tensor<2x2x1x1xf32>
  %g = relay.constant dense<[2.0, 4.0]> : tensor<2xf32>
  %b = relay.constant dense<[1.0, -1.0]> : tensor<2xf32>
  %m = relay.constant dense<[0.5, 0.25]> : tensor<2xf32>
  %v = relay.constant dense<[3.0, 3.0]> : tensor<2xf32>
  %0 = relay.nn.conv2d %x, %w : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x4x4xf32>
  %1 = relay.nn.batch_norm %0, %g, %b, %m, %v {epsilon = 1.0} : (tensor<1x2x4x4xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x4x4xf32>
  %2 = relay.nn.relu %0 : tensor<1x2x4x4xf32>
  func.return %1, %2 : tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>
}

// -----

// Run-time weights: the conv cannot absorb the scale.
// CHECK-LABEL: func.func @runtime_weight
// CHECK:         %[[C:.*]] = relay.nn.conv2d %x, %w :
// CHECK:         relay.nn.conv2d %[[C]], %{{.*}} {groups = 2}
func.func @runtime_weight(%x: tensor<1x2x4x4xf32>, %w: tensor<2x2x1x1xf32>) -> tensor<1x2x4x4xf32> {
  %g = relay.constant dense<[2.0, 4.0]> : tensor<2xf32>
  %b = relay.constant dense<[1.0, -1.0]> : tensor<2xf32>
  %m = relay.constant dense<[0.5, 0.25]> : tensor<2xf32>
  %v = relay.constant dense<[3.0, 3.0]> : tensor<2xf32>
  %0 = relay.nn.conv2d %x, %w : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x4x4xf32>
  %1 = relay.nn.batch_norm %0, %g, %b, %m, %v {epsilon = 1.0} : (tensor<1x2x4x4xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x4x4xf32>
  func.return %1 : tensor<1x2x4x4xf32>
}

// -----

// Rank 3, axis 1: multiply and add of [C, 1] constants.
// CHECK-LABEL: func.func @rank3
// CHECK-NEXT:    %[[S:.*]] = relay.constant dense<{{\[\[}}1.000000e+00], [2.000000e+00]]> : tensor<2x1xf32>
// CHECK-NEXT:    %[[T:.*]] = relay.constant dense<{{\[\[}}5.000000e-01], [-1.500000e+00]]> : tensor<2x1xf32>
// CHECK-NEXT:    %[[M:.*]] = relay.multiply %x, %[[S]] : (tensor<3x2x5xf32>, tensor<2x1xf32>) -> tensor<3x2x5xf32>
// CHECK-NEXT:    %[[A:.*]] = relay.add %[[M]], %[[T]] : (tensor<3x2x5xf32>, tensor<2x1xf32>) -> tensor<3x2x5xf32>
// CHECK-NEXT:    func.return %[[A]]
func.func @rank3(%x: tensor<3x2x5xf32>) -> tensor<3x2x5xf32> {
  %g = relay.constant dense<[2.0, 4.0]> : tensor<2xf32>
  %b = relay.constant dense<[1.0, -1.0]> : tensor<2xf32>
  %m = relay.constant dense<[0.5, 0.25]> : tensor<2xf32>
  %v = relay.constant dense<[3.0, 3.0]> : tensor<2xf32>
  %0 = relay.nn.batch_norm %x, %g, %b, %m, %v {epsilon = 1.0} : (tensor<3x2x5xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<3x2x5xf32>
  func.return %0 : tensor<3x2x5xf32>
}

// -----

// Run-time statistics: left alone.
// CHECK-LABEL: func.func @runtime_stats
// CHECK:         relay.nn.batch_norm %x, %g, %g, %g, %g
func.func @runtime_stats(%x: tensor<1x2x4x4xf32>, %g: tensor<2xf32>) -> tensor<1x2x4x4xf32> {
  %0 = relay.nn.batch_norm %x, %g, %g, %g, %g : (tensor<1x2x4x4xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x4x4xf32>
  func.return %0 : tensor<1x2x4x4xf32>
}
