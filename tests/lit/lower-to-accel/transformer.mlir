// RUN: accel-opt %s --split-input-file --target npu -p 'byoc{cost-model=false},bufferize,lower-to-accel' | filecheck %s

// Attention with a mask is one composite of five commands: QK^T (batched, k read
// transposed), the scale (a one-element weight), the mask (broadcast over the heads),
// the softmax (a row op), PV.
// CHECK-LABEL: func.func private @npu_0
// CHECK:         %[[S:.*]] = accel.weight dense<2.500000e-01> : tensor<1xf32> : memref<1xf32>
// CHECK:         accel.matmul ins(%q, %k : memref<1x2x8x16xf32>, memref<1x2x8x16xf32>) outs(%[[QK:.*]] : memref<1x2x8x8xf32>) attributes {accel.entry = "patterns[{{[0-9]+}}]"}
// CHECK:         accel.eltwise ins(%[[QK]], %[[S]] : memref<1x2x8x8xf32>, memref<1xf32>) outs(%[[T:.*]] : memref<1x2x8x8xf32>) {kind = "mul"}
// CHECK:         accel.eltwise ins(%[[T]], %mask : memref<1x2x8x8xf32>, memref<8x8xf32>) outs(%[[M:.*]] : memref<1x2x8x8xf32>)
// CHECK:         accel.eltwise ins(%[[M]] : memref<1x2x8x8xf32>) outs(%[[P:.*]] : memref<1x2x8x8xf32>) {kind = "softmax"}
// CHECK:         accel.matmul ins(%[[P]], %v : memref<1x2x8x8xf32>, memref<1x2x8x16xf32>) outs(%{{.*}} : memref<1x2x8x16xf32>) {transpose_b = false}
func.func @main(%q: tensor<1x2x8x16xf32>, %k: tensor<1x2x8x16xf32>, %v: tensor<1x2x8x16xf32>, %mask: tensor<8x8xf32>) -> tensor<1x2x8x16xf32> {
  %c = relay.constant dense<0.25> : tensor<f32>
  %s = relay.nn.batch_matmul %q, %k : (tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>) -> tensor<1x2x8x8xf32>
  %t = relay.multiply %s, %c : (tensor<1x2x8x8xf32>, tensor<f32>) -> tensor<1x2x8x8xf32>
  %m = relay.add %t, %mask : (tensor<1x2x8x8xf32>, tensor<8x8xf32>) -> tensor<1x2x8x8xf32>
  %sm = relay.nn.softmax %m : tensor<1x2x8x8xf32>
  %p = relay.nn.batch_matmul %sm, %v {transpose_b = false} : (tensor<1x2x8x8xf32>, tensor<1x2x8x16xf32>) -> tensor<1x2x8x16xf32>
  func.return %p : tensor<1x2x8x16xf32>
}

// -----

// Dense + bias + GELU, then a layer norm (gamma and beta as weights) and a SiLU.
// CHECK-LABEL: func.func private @npu_0
// CHECK:         accel.matmul ins(%x, %{{.*}}, %{{.*}} : memref<4x8xf32>, memref<16x8xf32>, memref<16xf32>) outs(%[[D:.*]] : memref<4x16xf32>)
// CHECK:         accel.eltwise ins(%[[D]] : memref<4x16xf32>) outs(%[[G:.*]] : memref<4x16xf32>) {kind = "gelu"}
// CHECK:         accel.eltwise ins(%[[G]], %{{.*}}, %{{.*}} : memref<4x16xf32>, memref<16xf32>, memref<16xf32>) outs(%[[L:.*]] : memref<4x16xf32>) {kind = "layer_norm", epsilon = 0.001}
// CHECK:         accel.eltwise ins(%[[L]] : memref<4x16xf32>) outs(%{{.*}} : memref<4x16xf32>) {kind = "silu"}
func.func @main(%x: tensor<4x8xf32>) -> tensor<4x16xf32> {
  %w = relay.constant dense<0.1> : tensor<16x8xf32>
  %b = relay.constant dense<0.2> : tensor<16xf32>
  %g = relay.constant dense<1.5> : tensor<16xf32>
  %be = relay.constant dense<0.5> : tensor<16xf32>
  %0 = relay.nn.dense %x, %w : (tensor<4x8xf32>, tensor<16x8xf32>) -> tensor<4x16xf32>
  %1 = relay.nn.bias_add %0, %b : (tensor<4x16xf32>, tensor<16xf32>) -> tensor<4x16xf32>
  %2 = relay.nn.gelu %1 : tensor<4x16xf32>
  %3 = relay.nn.layer_norm %2, %g, %be {epsilon = 0.001} : (tensor<4x16xf32>, tensor<16xf32>, tensor<16xf32>) -> tensor<4x16xf32>
  %4 = relay.nn.silu %3 : tensor<4x16xf32>
  func.return %4 : tensor<4x16xf32>
}

// -----

// An RMS norm (gamma as a weight) is a row command.
// CHECK-LABEL: func.func private @npu_0
// CHECK:         %[[G:.*]] = accel.weight dense<1.500000e+00> : tensor<16xf32> : memref<16xf32>
// CHECK:         accel.eltwise ins(%x, %[[G]] : memref<4x16xf32>, memref<16xf32>) outs(%{{.*}} : memref<4x16xf32>) {kind = "rms_norm", epsilon = 1.0e-06}
func.func @main(%x: tensor<4x16xf32>) -> tensor<4x16xf32> {
  %g = relay.constant dense<1.5> : tensor<16xf32>
  %0 = relay.nn.rms_norm %x, %g {epsilon = 1.0e-06} : (tensor<4x16xf32>, tensor<16xf32>) -> tensor<4x16xf32>
  func.return %0 : tensor<4x16xf32>
}

// -----

// Both forms of GELU are elementwise commands: the tanh form is kind "gelu_tanh".
// CHECK-LABEL: func.func private @npu_0
// CHECK:         accel.eltwise ins(%x : memref<4x16xf32>) outs(%{{.*}} : memref<4x16xf32>) {kind = "gelu"}
// CHECK:         accel.eltwise ins(%{{.*}} : memref<4x16xf32>) outs(%{{.*}} : memref<4x16xf32>) {kind = "gelu_tanh"}
func.func @main(%x: tensor<4x16xf32>) -> tensor<4x16xf32> {
  %0 = relay.nn.gelu %x : tensor<4x16xf32>
  %1 = relay.nn.gelu %0 {approximate = "tanh"} : tensor<4x16xf32>
  func.return %1 : tensor<4x16xf32>
}
