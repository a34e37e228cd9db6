// mean-as-pool: a mean over trailing axes, which the npu does not run, as a global average
// pool of the data viewed as [1, rows, 1, row length] (which it runs), between reshapes.
// RUN: accel-opt %s --split-input-file --target npu -p mean-as-pool | filecheck %s
// RUN: accel-opt %s --split-input-file --target npu -p byoc | filecheck %s --check-prefix=BYOC
// RUN: accel-opt %s --split-input-file --target dsp -p mean-as-pool | filecheck %s --check-prefix=DSP

// The RMS norm a QDQ quantizer splits (LLaMA): x * x (expand-activations, from pow(x, 2)),
// its mean along the last axis, a step of the norm; partitioned, one npu region.
// CHECK-LABEL: func.func @row_mean
// CHECK:         %[[V:.*]] = relay.reshape %s {newshape = [1, 64, 1, 64]} : (tensor<64x64xf32>) -> tensor<1x64x1x64xf32>
// CHECK-NEXT:    %[[P:.*]] = relay.nn.global_avg_pool2d %[[V]] : (tensor<1x64x1x64xf32>) -> tensor<1x64x1x1xf32>
// CHECK-NEXT:    %m = relay.reshape %[[P]] {newshape = [64, 1]} : (tensor<1x64x1x1xf32>) -> tensor<64x1xf32>
// CHECK-NOT:     relay.mean
// BYOC-LABEL: func.func @row_mean
// BYOC-NEXT:    %y = func.call @npu_0(%x)
// BYOC-NEXT:    func.return
// DSP-LABEL: func.func @row_mean
// DSP:         relay.mean
func.func @row_mean(%x: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %w = relay.constant dense<0.5> : tensor<64x64xf32>
  %q = relay.nn.dense %x, %w : (tensor<64x64xf32>, tensor<64x64xf32>) -> tensor<64x64xf32>
  %two = relay.constant dense<2.0> : tensor<f32>
  %s = relay.power %q, %two : (tensor<64x64xf32>, tensor<f32>) -> tensor<64x64xf32>
  %m = relay.mean %s {axis = [-1], keepdims = true} : (tensor<64x64xf32>) -> tensor<64x1xf32>
  %y = relay.multiply %q, %m : (tensor<64x64xf32>, tensor<64x1xf32>) -> tensor<64x64xf32>
  func.return %y : tensor<64x64xf32>
}

// -----

// Two trailing axes without keepdims (a spatial mean, as exporters write a global
// average pool), and the same axes named by `exclude`.
// CHECK-LABEL: func.func @trailing_axes
// CHECK:         %[[V:.*]] = relay.reshape %x {newshape = [1, 6, 1, 20]} : (tensor<2x3x4x5xf32>) -> tensor<1x6x1x20xf32>
// CHECK-NEXT:    %[[P:.*]] = relay.nn.global_avg_pool2d %[[V]]
// CHECK-NEXT:    %a = relay.reshape %[[P]] {newshape = [2, 3]} : (tensor<1x6x1x1xf32>) -> tensor<2x3xf32>
// CHECK:         %[[W:.*]] = relay.reshape %x {newshape = [1, 2, 1, 60]} : (tensor<2x3x4x5xf32>) -> tensor<1x2x1x60xf32>
// CHECK-NEXT:    %[[Q:.*]] = relay.nn.global_avg_pool2d %[[W]]
// CHECK-NEXT:    %b = relay.reshape %[[Q]] {newshape = [2, 1, 1, 1]} : (tensor<1x2x1x1xf32>) -> tensor<2x1x1x1xf32>
func.func @trailing_axes(%x: tensor<2x3x4x5xf32>) -> (tensor<2x3xf32>, tensor<2x1x1x1xf32>) {
  %a = relay.mean %x {axis = [2, 3]} : (tensor<2x3x4x5xf32>) -> tensor<2x3xf32>
  %b = relay.mean %x {axis = [0], keepdims = true, exclude = true} : (tensor<2x3x4x5xf32>) -> tensor<2x1x1x1xf32>
  func.return %a, %b : tensor<2x3xf32>, tensor<2x1x1x1xf32>
}

// -----

// Left alone: a mean over a leading axis (a transpose first would be needed), over the
// middle one, and one the user put on the host.
// CHECK-LABEL: func.func @left_alone
// CHECK-NOT:     relay.nn.global_avg_pool2d
// CHECK:         relay.mean %x {axis = [0]}
// CHECK:         relay.mean %x {axis = [1], keepdims = true}
// CHECK:         relay.mean %x {axis = [-1], accel.target = "host"}
func.func @left_alone(%x: tensor<4x8x16xf32>) -> (tensor<8x16xf32>, tensor<4x1x16xf32>, tensor<4x8xf32>) {
  %a = relay.mean %x {axis = [0]} : (tensor<4x8x16xf32>) -> tensor<8x16xf32>
  %b = relay.mean %x {axis = [1], keepdims = true} : (tensor<4x8x16xf32>) -> tensor<4x1x16xf32>
  %c = relay.mean %x {axis = [-1], accel.target = "host"} : (tensor<4x8x16xf32>) -> tensor<4x8xf32>
  func.return %a, %b, %c : tensor<8x16xf32>, tensor<4x1x16xf32>, tensor<4x8xf32>
}

// -----

// Left alone: the mean of everything, a scalar (no transfer has rank 0).
// CHECK-LABEL: func.func @to_a_scalar
// CHECK:         relay.mean %x : (tensor<2x3xf32>) -> tensor<f32>
func.func @to_a_scalar(%x: tensor<2x3xf32>) -> tensor<f32> {
  %m = relay.mean %x : (tensor<2x3xf32>) -> tensor<f32>
  func.return %m : tensor<f32>
}
