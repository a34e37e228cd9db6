// expand-activations: hard-swish, hard-sigmoid and leaky ReLU, which the npu does not run,
// as the elementwise ops they are made of (which it runs, with scalar constants).
// RUN: accel-opt %s --split-input-file --target npu -p expand-activations | filecheck %s
// RUN: accel-opt %s --split-input-file --target npu -p byoc | filecheck %s --check-prefix=BYOC
// RUN: accel-opt %s --split-input-file --target dsp -p expand-activations | filecheck %s --check-prefix=DSP

// MobileNetV3's hard-swish after a conv: x * clip(x / 6 + 1/2, 0, 1); partitioned, one
// npu region.
// CHECK-LABEL: func.func @hardswish
// CHECK:         %[[S:.*]] = relay.constant dense<0.166666672> : tensor<f32>
// CHECK-NEXT:    %[[M:.*]] = relay.multiply %c, %[[S]] : (tensor<1x8x6x6xf32>, tensor<f32>) -> tensor<1x8x6x6xf32>
// CHECK-NEXT:    %[[H:.*]] = relay.constant dense<5.000000e-01> : tensor<f32>
// CHECK-NEXT:    %[[A:.*]] = relay.add %[[M]], %[[H]]
// CHECK-NEXT:    %[[C:.*]] = relay.clip %[[A]] {a_min = 0.0, a_max = 1.0}
// CHECK-NEXT:    %y = relay.multiply %c, %[[C]] : tensor<1x8x6x6xf32>
// CHECK-NOT:     relay.nn.hardswish
// BYOC-LABEL: func.func @hardswish
// BYOC-NEXT:    %y = func.call @npu_0(%x)
// BYOC-NEXT:    func.return
// DSP-LABEL: func.func @hardswish
// DSP:         relay.nn.hardswish
func.func @hardswish(%x: tensor<1x3x8x8xf32>) -> tensor<1x8x6x6xf32> {
  %w = relay.constant dense<0.5> : tensor<8x3x3x3xf32>
  %c = relay.nn.conv2d %x, %w : (tensor<1x3x8x8xf32>, tensor<8x3x3x3xf32>) -> tensor<1x8x6x6xf32>
  %y = relay.nn.hardswish %c : tensor<1x8x6x6xf32>
  func.return %y : tensor<1x8x6x6xf32>
}

// -----

// Hard-sigmoid with its own slope and offset; leaky ReLU as relu(x) - relu(-x) * alpha.
// CHECK-LABEL: func.func @sigmoid_and_leaky
// CHECK:         %[[A:.*]] = relay.constant dense<2.000000e-01> : tensor<f32>
// CHECK-NEXT:    %[[M:.*]] = relay.multiply %x, %[[A]]
// CHECK-NEXT:    %[[B:.*]] = relay.constant dense<5.000000e-01> : tensor<f32>
// CHECK-NEXT:    %[[S:.*]] = relay.add %[[M]], %[[B]]
// CHECK-NEXT:    %h = relay.clip %[[S]] {a_min = 0.0, a_max = 1.0}
// CHECK-NEXT:    %[[P:.*]] = relay.nn.relu %x
// CHECK-NEXT:    %[[N1:.*]] = relay.constant dense<-1.000000e+00> : tensor<f32>
// CHECK-NEXT:    %[[NX:.*]] = relay.multiply %x, %[[N1]]
// CHECK-NEXT:    %[[R:.*]] = relay.nn.relu %[[NX]]
// CHECK-NEXT:    %[[AL:.*]] = relay.constant dense<1.000000e-01> : tensor<f32>
// CHECK-NEXT:    %[[NEG:.*]] = relay.multiply %[[R]], %[[AL]]
// CHECK-NEXT:    %l = relay.subtract %[[P]], %[[NEG]]
func.func @sigmoid_and_leaky(%x: tensor<2x16xf32>) -> (tensor<2x16xf32>, tensor<2x16xf32>) {
  %h = relay.nn.hardsigmoid %x {alpha = 0.2, beta = 0.5} : tensor<2x16xf32>
  %l = relay.nn.leaky_relu %x {alpha = 0.1} : tensor<2x16xf32>
  func.return %h, %l : tensor<2x16xf32>, tensor<2x16xf32>
}

// -----

// Left alone: f16 data (the npu's elementwise ops take f32), and an activation the user
// put on the host.
// CHECK-LABEL: func.func @left_alone
// CHECK-NOT:     relay.multiply
// CHECK:         relay.nn.leaky_relu %h
// CHECK:         relay.nn.hardswish %x {accel.target = "host"}
func.func @left_alone(%h: tensor<4x4xf16>, %x: tensor<4x4xf32>) -> (tensor<4x4xf16>, tensor<4x4xf32>) {
  %a = relay.nn.leaky_relu %h {alpha = 0.1} : tensor<4x4xf16>
  %b = relay.nn.hardswish %x {accel.target = "host"} : tensor<4x4xf32>
  func.return %a, %b : tensor<4x4xf16>, tensor<4x4xf32>
}

// -----

// A negation (LLaMA's rotary embedding, `rotate_half`, of a query projection) as x * -1;
// partitioned with the projection, the slices and the concatenation around it, one npu
// region. An integer negation wraps (there is no exact `x * -1` of unsigned data): left
// alone.
// CHECK-LABEL: func.func @rotate_half
// CHECK:         %[[N1:.*]] = relay.constant dense<-1.000000e+00> : tensor<f32>
// CHECK-NEXT:    %n = relay.multiply %b, %[[N1]] : (tensor<32x32xf32>, tensor<f32>) -> tensor<32x32xf32>
// CHECK-NOT:     relay.negative
// BYOC-LABEL: func.func @rotate_half
// BYOC-NEXT:    %y = func.call @npu_0(%x)
// BYOC-NEXT:    func.return
// DSP-LABEL: func.func @rotate_half
// DSP:         relay.negative
func.func @rotate_half(%x: tensor<32x64xf32>) -> tensor<32x64xf32> {
  %w = relay.constant dense<0.5> : tensor<64x64xf32>
  %q = relay.nn.dense %x, %w : (tensor<32x64xf32>, tensor<64x64xf32>) -> tensor<32x64xf32>
  %a = relay.strided_slice %q {begin = [0], end = [32], axes = [1]} : (tensor<32x64xf32>) -> tensor<32x32xf32>
  %b = relay.strided_slice %q {begin = [32], end = [64], axes = [1]} : (tensor<32x64xf32>) -> tensor<32x32xf32>
  %n = relay.negative %b : tensor<32x32xf32>
  %y = relay.concatenate %n, %a {axis = 1} : (tensor<32x32xf32>, tensor<32x32xf32>) -> tensor<32x64xf32>
  func.return %y : tensor<32x64xf32>
}

// -----

// CHECK-LABEL: func.func @integer_negation
// CHECK:         relay.negative %x : tensor<8xui8>
// CHECK-NOT:     relay.multiply
func.func @integer_negation(%x: tensor<8xui8>) -> tensor<8xui8> {
  %y = relay.negative %x : tensor<8xui8>
  func.return %y : tensor<8xui8>
}

// -----

// A square (the RMS norm of a QDQ model, split by the quantizer) as x * x; left alone: a
// power by 3, and a power whose exponent broadcasts the base to a larger shape.
// CHECK-LABEL: func.func @squares
// CHECK:         %s = relay.multiply %x, %x : tensor<4x8xf32>
// CHECK:         relay.power %x, %three
// CHECK:         relay.power %x, %rows
func.func @squares(%x: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>, tensor<2x4x8xf32>) {
  %two = relay.constant dense<2.0> : tensor<f32>
  %s = relay.power %x, %two : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
  %three = relay.constant dense<3.0> : tensor<f32>
  %c = relay.power %x, %three : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
  %rows = relay.constant dense<2.0> : tensor<2x1x1xf32>
  %b = relay.power %x, %rows : (tensor<4x8xf32>, tensor<2x1x1xf32>) -> tensor<2x4x8xf32>
  func.return %s, %c, %b : tensor<4x8xf32>, tensor<4x8xf32>, tensor<2x4x8xf32>
}
