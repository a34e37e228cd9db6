// quantize-layer-biases: the float bias of an int8 layer (a bias_add of a constant between
// a QDQ conv or dense and its quantize) becomes the dequantize of int32 values on the
// layer's accumulator grid, round(b / (x_scale * w_scale)), as onnxruntime's quantizer
// writes a Conv's bias, where a target has an int8 pattern of that layer with a bias (the
// npu); then the pattern takes the layer with it. The dsp has such a pattern of dense
// layers, none of convolutions: a conv's bias stays float there.
// RUN: accel-opt %s --split-input-file --target npu -p quantize-layer-biases | filecheck %s
// RUN: accel-opt %s --split-input-file --target npu -p 'byoc{cost-model=false}' | filecheck %s --check-prefix=BYOC
// RUN: accel-opt %s --split-input-file --target dsp -p quantize-layer-biases | filecheck %s --check-prefix=DSP

// A conv with weights per output channel (scales 0.5 and 0.25, data 0.02): accumulator
// steps 0.01 and 0.005; the bias [0.034, -0.0126] is [3, -3] of them (0.034 / 0.01 = 3.4
// rounds to 3; -0.0126 / 0.005 = -2.52 rounds to -3).
// CHECK-LABEL: func.func @conv
// CHECK:         %[[Q:.*]] = relay.constant dense<[3, -3]> : tensor<2xi32>
// CHECK-NEXT:    %[[S:.*]] = relay.constant dense<[{{0.00999999977|1.000000e-02}}, {{0.00499999989|5.000000e-03}}]> : tensor<2xf32>
// CHECK-NEXT:    %[[Z:.*]] = relay.constant dense<0> : tensor<2xi32>
// CHECK-NEXT:    %[[B:.*]] = relay.qnn.dequantize %[[Q]], %[[S]], %[[Z]] {axis = 0} : (tensor<2xi32>, tensor<2xf32>, tensor<2xi32>) -> tensor<2xf32>
// CHECK-NEXT:    %a = relay.nn.bias_add %c, %[[B]]
// CHECK-NOT:     dense<[3.400000e-02
// DSP-LABEL: func.func @conv
// DSP-NOT:     relay.qnn.dequantize {{.*}}xi32>
// DSP:         %a = relay.nn.bias_add %c, %b :
// BYOC-LABEL: func.func @conv
// BYOC-NEXT:    %y = func.call @npu_0(%x)
// BYOC:         relay.composite "npu.qconv2d_bias_relu"
func.func @conv(%x: tensor<1x3x4x4xi8>) -> tensor<1x2x2x2xi8> {
  %sx = relay.constant dense<0.02> : tensor<f32>
  %zx = relay.constant dense<0> : tensor<i8>
  %xf = relay.qnn.dequantize %x, %sx, %zx : (tensor<1x3x4x4xi8>, tensor<f32>, tensor<i8>) -> tensor<1x3x4x4xf32>
  %wq = relay.constant dense<1> : tensor<2x3x3x3xi8>
  %sw = relay.constant dense<[0.5, 0.25]> : tensor<2xf32>
  %zw = relay.constant dense<0> : tensor<2xi8>
  %wf = relay.qnn.dequantize %wq, %sw, %zw {axis = 0} : (tensor<2x3x3x3xi8>, tensor<2xf32>, tensor<2xi8>) -> tensor<2x3x3x3xf32>
  %c = relay.nn.conv2d %xf, %wf : (tensor<1x3x4x4xf32>, tensor<2x3x3x3xf32>) -> tensor<1x2x2x2xf32>
  %b = relay.constant dense<[0.034, -0.0126]> : tensor<2xf32>
  %a = relay.nn.bias_add %c, %b : (tensor<1x2x2x2xf32>, tensor<2xf32>) -> tensor<1x2x2x2xf32>
  %r = relay.nn.relu %a : tensor<1x2x2x2xf32>
  %sy = relay.constant dense<0.1> : tensor<f32>
  %zy = relay.constant dense<-128> : tensor<i8>
  %y = relay.qnn.quantize %r, %sy, %zy : (tensor<1x2x2x2xf32>, tensor<f32>, tensor<i8>) -> tensor<1x2x2x2xi8>
  func.return %y : tensor<1x2x2x2xi8>
}

// -----

// A dense layer with weights per tensor (0.5, data 0.02: one accumulator step of 0.01):
// one scale for all channels.
// CHECK-LABEL: func.func @dense
// CHECK:         %[[Q:.*]] = relay.constant dense<[2, -1, 0]> : tensor<3xi32>
// CHECK-NEXT:    %[[S:.*]] = relay.constant dense<{{0.00999999977|1.000000e-02}}> : tensor<f32>
// CHECK-NEXT:    %[[Z:.*]] = relay.constant dense<0> : tensor<i32>
// CHECK-NEXT:    %[[B:.*]] = relay.qnn.dequantize %[[Q]], %[[S]], %[[Z]] : (tensor<3xi32>, tensor<f32>, tensor<i32>) -> tensor<3xf32>
// CHECK-NEXT:    %a = relay.nn.bias_add %d, %[[B]] :
// DSP-LABEL: func.func @dense
// DSP:         relay.qnn.dequantize {{.*}} : (tensor<3xi32>, tensor<f32>, tensor<i32>) -> tensor<3xf32>
// DSP-NEXT:    %a = relay.nn.bias_add %d, %{{[0-9]+}} :
func.func @dense(%x: tensor<2x4xi8>) -> tensor<2x3xi8> {
  %sx = relay.constant dense<0.02> : tensor<f32>
  %zx = relay.constant dense<0> : tensor<i8>
  %xf = relay.qnn.dequantize %x, %sx, %zx : (tensor<2x4xi8>, tensor<f32>, tensor<i8>) -> tensor<2x4xf32>
  %wq = relay.constant dense<1> : tensor<3x4xi8>
  %sw = relay.constant dense<0.5> : tensor<f32>
  %zw = relay.constant dense<0> : tensor<i8>
  %wf = relay.qnn.dequantize %wq, %sw, %zw : (tensor<3x4xi8>, tensor<f32>, tensor<i8>) -> tensor<3x4xf32>
  %d = relay.nn.dense %xf, %wf : (tensor<2x4xf32>, tensor<3x4xf32>) -> tensor<2x3xf32>
  %b = relay.constant dense<[0.02, -0.011, 0.004]> : tensor<3xf32>
  %a = relay.nn.bias_add %d, %b {axis = 1} : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %sy = relay.constant dense<0.1> : tensor<f32>
  %zy = relay.constant dense<0> : tensor<i8>
  %y = relay.qnn.quantize %a, %sy, %zy : (tensor<2x3xf32>, tensor<f32>, tensor<i8>) -> tensor<2x3xi8>
  func.return %y : tensor<2x3xi8>
}

// -----

// Left alone: no quantize after the bias (a float result), a float layer (its weight is
// no dequantize), a bias that is already int32 on the grid, and a layer whose result has
// a second reader.
// CHECK-LABEL: func.func @left_alone
// CHECK-NOT:     tensor<2xi32>
// CHECK:         %a = relay.nn.bias_add %c, %b
// CHECK:         %fa = relay.nn.bias_add %f, %b
// CHECK:         %ga = relay.nn.bias_add %g, %bf
// CHECK:         %ha = relay.nn.bias_add %h, %b
func.func @left_alone(%x: tensor<1x3x4x4xi8>, %v: tensor<1x3x4x4xf32>) -> (tensor<1x2x2x2xf32>, tensor<1x2x2x2xi8>, tensor<1x2x2x2xi8>, tensor<1x2x2x2xi8>, tensor<1x2x2x2xf32>) {
  %sx = relay.constant dense<0.02> : tensor<f32>
  %zx = relay.constant dense<0> : tensor<i8>
  %xf = relay.qnn.dequantize %x, %sx, %zx : (tensor<1x3x4x4xi8>, tensor<f32>, tensor<i8>) -> tensor<1x3x4x4xf32>
  %wq = relay.constant dense<1> : tensor<2x3x3x3xi8>
  %sw = relay.constant dense<0.5> : tensor<f32>
  %zw = relay.constant dense<0> : tensor<i8>
  %wf = relay.qnn.dequantize %wq, %sw, %zw : (tensor<2x3x3x3xi8>, tensor<f32>, tensor<i8>) -> tensor<2x3x3x3xf32>
  %b = relay.constant dense<[0.034, -0.0126]> : tensor<2xf32>
  %c = relay.nn.conv2d %xf, %wf : (tensor<1x3x4x4xf32>, tensor<2x3x3x3xf32>) -> tensor<1x2x2x2xf32>
  %a = relay.nn.bias_add %c, %b : (tensor<1x2x2x2xf32>, tensor<2xf32>) -> tensor<1x2x2x2xf32>
  %wfloat = relay.constant dense<0.5> : tensor<2x3x3x3xf32>
  %f = relay.nn.conv2d %v, %wfloat : (tensor<1x3x4x4xf32>, tensor<2x3x3x3xf32>) -> tensor<1x2x2x2xf32>
  %fa = relay.nn.bias_add %f, %b : (tensor<1x2x2x2xf32>, tensor<2xf32>) -> tensor<1x2x2x2xf32>
  %sy = relay.constant dense<0.1> : tensor<f32>
  %zy = relay.constant dense<0> : tensor<i8>
  %fy = relay.qnn.quantize %fa, %sy, %zy : (tensor<1x2x2x2xf32>, tensor<f32>, tensor<i8>) -> tensor<1x2x2x2xi8>
  %bq = relay.constant dense<[3, -3]> : tensor<2xi32>
  %bs = relay.constant dense<0.01> : tensor<f32>
  %bz = relay.constant dense<0> : tensor<i32>
  %bf = relay.qnn.dequantize %bq, %bs, %bz : (tensor<2xi32>, tensor<f32>, tensor<i32>) -> tensor<2xf32>
  %g = relay.nn.conv2d %xf, %wf : (tensor<1x3x4x4xf32>, tensor<2x3x3x3xf32>) -> tensor<1x2x2x2xf32>
  %ga = relay.nn.bias_add %g, %bf : (tensor<1x2x2x2xf32>, tensor<2xf32>) -> tensor<1x2x2x2xf32>
  %gy = relay.qnn.quantize %ga, %sy, %zy : (tensor<1x2x2x2xf32>, tensor<f32>, tensor<i8>) -> tensor<1x2x2x2xi8>
  %h = relay.nn.conv2d %xf, %wf : (tensor<1x3x4x4xf32>, tensor<2x3x3x3xf32>) -> tensor<1x2x2x2xf32>
  %ha = relay.nn.bias_add %h, %b : (tensor<1x2x2x2xf32>, tensor<2xf32>) -> tensor<1x2x2x2xf32>
  %hy = relay.qnn.quantize %ha, %sy, %zy : (tensor<1x2x2x2xf32>, tensor<f32>, tensor<i8>) -> tensor<1x2x2x2xi8>
  %h2 = relay.nn.relu %h : tensor<1x2x2x2xf32>
  func.return %a, %fy, %gy, %hy, %h2 : tensor<1x2x2x2xf32>, tensor<1x2x2x2xi8>, tensor<1x2x2x2xi8>, tensor<1x2x2x2xi8>, tensor<1x2x2x2xf32>
}
