// canonicalize = fold-constants, fold-batch-norm, recognize-decompositions (accel's, not
// xDSL's pass of that name); the named pipelines start with it.
// RUN: accel-opt %s --split-input-file -p canonicalize | filecheck %s
// RUN: accel-opt %s --split-input-file -p byoc --target npu | filecheck %s --check-prefix=BYOC
// RUN: not accel-opt %s -p 'canonicalize{max-iterate=2}' 2>&1 | filecheck %s --check-prefix=OPTION

// OPTION: accel-opt: error: pass 'canonicalize' has no option 'max-iterate' (options: none)
// OPTION-NOT: Traceback

// The statistics are computed from constants (folded first), the batch norm folds into
// the conv, the HardSwish chain becomes one op.
// CHECK-LABEL: func.func @main
// CHECK-NEXT:    %[[W:.*]] = relay.constant dense<{{.*}}> : tensor<2x2x1x1xf32>
// CHECK-NEXT:    %[[T:.*]] = relay.constant dense<{{.*}}> : tensor<2xf32>
// CHECK-NEXT:    %[[C:.*]] = relay.nn.conv2d %x, %[[W]]
// CHECK-NEXT:    %[[B:.*]] = relay.nn.bias_add %[[C]], %[[T]]
// CHECK-NEXT:    %[[Y:.*]] = relay.nn.hardswish %[[B]]
// CHECK-NEXT:    func.return %[[Y]]
// (too small to be worth offloading, but matched as conv2d_bias: the pipeline canonicalized;
// the npu has no hard-swish: expand-activations wrote it as the ops the npu runs, which
// stay on the host with the conv)
// BYOC-LABEL: func.func @main
// BYOC-NOT:     relay.nn.batch_norm
// BYOC:         relay.composite "npu.conv2d_bias"
// BYOC:         relay.clip
func.func @main(%x: tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32> {
  %w = relay.constant dense<[[[[1.0]], [[2.0]]], [[[3.0]], [[4.0]]]]> : tensor<2x2x1x1xf32>
  %g = relay.constant dense<[2.0, 4.0]> : tensor<2xf32>
  %b = relay.constant dense<[1.0, -1.0]> : tensor<2xf32>
  %m = relay.constant dense<[0.5, 0.25]> : tensor<2xf32>
  %v0 = relay.constant dense<[1.5, 1.5]> : tensor<2xf32>
  %two = relay.constant dense<2.0> : tensor<f32>
  %v = relay.multiply %v0, %two : (tensor<2xf32>, tensor<f32>) -> tensor<2xf32>
  %0 = relay.nn.conv2d %x, %w : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x4x4xf32>
  %1 = relay.nn.batch_norm %0, %g, %b, %m, %v {epsilon = 1.0} : (tensor<1x2x4x4xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x4x4xf32>
  %sixth = relay.constant dense<0.1666667> : tensor<f32>
  %half = relay.constant dense<0.5> : tensor<f32>
  %2 = relay.multiply %1, %sixth : (tensor<1x2x4x4xf32>, tensor<f32>) -> tensor<1x2x4x4xf32>
  %3 = relay.add %2, %half : (tensor<1x2x4x4xf32>, tensor<f32>) -> tensor<1x2x4x4xf32>
  %4 = relay.clip %3 {a_min = 0.0, a_max = 1.0} : tensor<1x2x4x4xf32>
  %5 = relay.multiply %1, %4 : tensor<1x2x4x4xf32>
  func.return %5 : tensor<1x2x4x4xf32>
}
