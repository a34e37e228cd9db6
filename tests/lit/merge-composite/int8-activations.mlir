// RUN: accel-opt %s --split-input-file -p 'merge-composite{target=npu}' | filecheck %s
// RUN: accel-opt %s --split-input-file --target npu -p 'byoc{cost-model=false},bufferize,lower-to-accel' | filecheck %s --check-prefix=LOWER
// RUN: accel-opt %s --split-input-file --target npu -p 'byoc{cost-model=false},lower' -t c | filecheck %s --check-prefix=C

// onnxruntime's QDQ SiLU: a quantized sigmoid of the activation, then a quantized product
// of the activation and the sigmoid. The shared dequantize of %q is duplicated into both.
// CHECK-LABEL: func.func @main(%q: tensor<1x8x4x4xi8>) ->
// CHECK:         %[[S:.*]] = relay.composite "npu.qsigmoid" (%q, %xs, %xz, %ss, %sz)
// CHECK-NEXT:    ^{{.*}}
// CHECK-NEXT:      relay.qnn.dequantize
// CHECK-NEXT:      relay.sigmoid
// CHECK-NEXT:      relay.qnn.quantize
// CHECK:         relay.composite "npu.qmultiply" (%q, %xs, %xz, %[[S]], %ss, %sz, %ys, %yz)
// LOWER-LABEL:  func.func private @npu_0
// LOWER:          accel.eltwise ins(%{{.*}} : memref<1x8x4x4xi8>) outs(%{{.*}} : memref<1x8x4x4xi8>)
// LOWER-SAME:       kind = "sigmoid", lhs_scale = 0.05000000074505806, lhs_zero_point = 3, out_scale = 0.00390625, output_zero_point = -128
// LOWER:          accel.eltwise ins(%{{.*}}, %{{.*}} : memref<1x8x4x4xi8>, memref<1x8x4x4xi8>) outs(%out0 : memref<1x8x4x4xi8>)
// LOWER-SAME:       kind = "mul", lhs_scale = 0.05000000074505806, lhs_zero_point = 3, rhs_scale = 0.00390625, rhs_zero_point = -128
// The int8 commands of the simulator, with the quantization of each side.
// C-LABEL:        ===== npu_wrappers.c =====
// C:              static const npu_eltwise_params [[S:p[0-9]+]] = {.kind = NPU_ELTWISE_SIGMOID, {{.*}}, .lhs_scale = 0.0500000007f, .lhs_zero_point = 3,
// C:              static const npu_eltwise_params [[M:p[0-9]+]] = {.kind = NPU_ELTWISE_MUL,
// C:              npu_eltwise_s8({{.*}}, NULL, {{.*}}, &[[S]])
// C-NEXT:         npu_eltwise_s8({{.*}}, &[[M]])
func.func @main(%q: tensor<1x8x4x4xi8>) -> tensor<1x8x4x4xi8> {
  %xs = relay.constant dense<0.05> : tensor<f32>
  %xz = relay.constant dense<3> : tensor<i8>
  %ss = relay.constant dense<0.00390625> : tensor<f32>
  %sz = relay.constant dense<-128> : tensor<i8>
  %ys = relay.constant dense<0.04> : tensor<f32>
  %yz = relay.constant dense<-10> : tensor<i8>
  %x = relay.qnn.dequantize %q, %xs, %xz : (tensor<1x8x4x4xi8>, tensor<f32>, tensor<i8>) -> tensor<1x8x4x4xf32>
  %s = relay.sigmoid %x : tensor<1x8x4x4xf32>
  %sq = relay.qnn.quantize %s, %ss, %sz : (tensor<1x8x4x4xf32>, tensor<f32>, tensor<i8>) -> tensor<1x8x4x4xi8>
  %sd = relay.qnn.dequantize %sq, %ss, %sz : (tensor<1x8x4x4xi8>, tensor<f32>, tensor<i8>) -> tensor<1x8x4x4xf32>
  %m = relay.multiply %x, %sd : tensor<1x8x4x4xf32>
  %y = relay.qnn.quantize %m, %ys, %yz : (tensor<1x8x4x4xf32>, tensor<f32>, tensor<i8>) -> tensor<1x8x4x4xi8>
  func.return %y : tensor<1x8x4x4xi8>
}

// -----

// A tanh and a SiLU (as canonicalize recognises x * sigmoid(x)) between a dequantize
// and a quantize, uint8: one command each.
// CHECK-LABEL: func.func @main(%q: tensor<2x16xui8>)
// CHECK:         %[[T:.*]] = relay.composite "npu.qtanh" (%q, %xs, %xz, %ts, %tz)
// CHECK:         relay.composite "npu.qsilu" (%[[T]], %ts, %tz, %ys, %yz)
// LOWER-LABEL:  func.func private @npu_0
// LOWER:          accel.eltwise {{.*}} {kind = "tanh"
// LOWER:          accel.eltwise {{.*}} {kind = "silu"
// C-LABEL:        ===== npu_wrappers.c =====
// C:              static const npu_eltwise_params [[T:p[0-9]+]] = {.kind = NPU_ELTWISE_TANH,
// C:              static const npu_eltwise_params [[U:p[0-9]+]] = {.kind = NPU_ELTWISE_SILU,
// C:              npu_eltwise_s8(((uint8_t *){{.*}}, NULL, {{.*}}, &[[T]])
// C-NEXT:         npu_eltwise_s8(((uint8_t *){{.*}}, NULL, {{.*}}, &[[U]])
func.func @main(%q: tensor<2x16xui8>) -> tensor<2x16xui8> {
  %xs = relay.constant dense<0.1> : tensor<f32>
  %xz = relay.constant dense<128> : tensor<ui8>
  %ts = relay.constant dense<0.0078125> : tensor<f32>
  %tz = relay.constant dense<128> : tensor<ui8>
  %ys = relay.constant dense<0.01> : tensor<f32>
  %yz = relay.constant dense<30> : tensor<ui8>
  %x = relay.qnn.dequantize %q, %xs, %xz : (tensor<2x16xui8>, tensor<f32>, tensor<ui8>) -> tensor<2x16xf32>
  %t = relay.tanh %x : tensor<2x16xf32>
  %tq = relay.qnn.quantize %t, %ts, %tz : (tensor<2x16xf32>, tensor<f32>, tensor<ui8>) -> tensor<2x16xui8>
  %td = relay.qnn.dequantize %tq, %ts, %tz : (tensor<2x16xui8>, tensor<f32>, tensor<ui8>) -> tensor<2x16xf32>
  %u = relay.nn.silu %td : tensor<2x16xf32>
  %y = relay.qnn.quantize %u, %ys, %yz : (tensor<2x16xf32>, tensor<f32>, tensor<ui8>) -> tensor<2x16xui8>
  func.return %y : tensor<2x16xui8>
}

// -----

// Not taken: a per-channel dequantize (the patterns' predicate asks for per-tensor
// activations), a subtraction of two int8 values (no int8 form), and, by merge-composite alone, a product
// broadcasting a [1, 8, 1, 1] gate (the npu broadcasts trailing dims only): no composite,
// the float ops stay single. The sigmoid and the subtraction run in float on the npu
// between conversions alone (the per-channel dequantize stays on the host: a conversion
// alone has one scale); byoc's trailing-broadcasts moves the gate product to the
// channels-last layout, where it is the one int8 command (qmultiply).
// CHECK-LABEL: func.func @main(%q: tensor<1x8x4x4xi8>, %g
// CHECK-NOT:     relay.composite
// LOWER-LABEL: func.func @main(%q: memref<1x8x4x4xi8>, %g
// LOWER:         relay.qnn.dequantize %{{.*}}, %cs, %cz {axis = 1, accel.target = "host", accel.reason = "npu: a dequantize alone on the accelerator has one scale and zero point"}
// LOWER:         accel.eltwise ins(%{{.*}} : memref<1x8x4x4xf32>) outs(%[[S:.*]] : memref<1x8x4x4xf32>) {kind = "sigmoid"}
// LOWER-NEXT:    accel.eltwise ins(%[[S]] : memref<1x8x4x4xf32>) outs(%{{.*}} : memref<1x8x4x4xi8>) {kind = "quantize", out_scale = 0.10000000149011612}
// LOWER:         accel.eltwise ins(%q : memref<1x8x4x4xi8>) outs(%[[A:.*]] : memref<1x8x4x4xf32>) {kind = "dequantize", lhs_scale = 0.05000000074505806}
// LOWER:         accel.eltwise ins(%r : memref<1x8x4x4xi8>) outs(%[[B:.*]] : memref<1x8x4x4xf32>) {kind = "dequantize", lhs_scale = 0.05000000074505806}
// LOWER:         accel.eltwise ins(%[[A]], %[[B]] : memref<1x8x4x4xf32>, memref<1x8x4x4xf32>) outs(%{{.*}} : memref<1x8x4x4xf32>) {kind = "sub"}
// LOWER:         accel.eltwise ins(%{{.*}}, %{{.*}} : memref<1x4x4x8xi8>, memref<8xi8>) outs(%{{.*}} : memref<1x4x4x8xi8>) {kind = "mul"
// C-LABEL:       ===== npu_wrappers.c =====
// C:             .kind = NPU_ELTWISE_MUL, .count = 128, .rhs_count = 8,
// C:             ===== weights.bin
func.func @main(%q: tensor<1x8x4x4xi8>, %g: tensor<1x8x1x1xi8>, %r: tensor<1x8x4x4xi8>) -> (tensor<1x8x4x4xi8>, tensor<1x8x4x4xi8>, tensor<1x8x4x4xi8>) {
  %cs = relay.constant dense<0.05> : tensor<8xf32>
  %cz = relay.constant dense<0> : tensor<8xi8>
  %xs = relay.constant dense<0.05> : tensor<f32>
  %xz = relay.constant dense<0> : tensor<i8>
  %ys = relay.constant dense<0.1> : tensor<f32>
  %yz = relay.constant dense<0> : tensor<i8>
  %pc = relay.qnn.dequantize %q, %cs, %cz {axis = 1} : (tensor<1x8x4x4xi8>, tensor<8xf32>, tensor<8xi8>) -> tensor<1x8x4x4xf32>
  %s = relay.sigmoid %pc : tensor<1x8x4x4xf32>
  %y0 = relay.qnn.quantize %s, %ys, %yz : (tensor<1x8x4x4xf32>, tensor<f32>, tensor<i8>) -> tensor<1x8x4x4xi8>
  %x = relay.qnn.dequantize %q, %xs, %xz : (tensor<1x8x4x4xi8>, tensor<f32>, tensor<i8>) -> tensor<1x8x4x4xf32>
  %gd = relay.qnn.dequantize %g, %xs, %xz : (tensor<1x8x1x1xi8>, tensor<f32>, tensor<i8>) -> tensor<1x8x1x1xf32>
  %m = relay.multiply %x, %gd : (tensor<1x8x4x4xf32>, tensor<1x8x1x1xf32>) -> tensor<1x8x4x4xf32>
  %y1 = relay.qnn.quantize %m, %ys, %yz : (tensor<1x8x4x4xf32>, tensor<f32>, tensor<i8>) -> tensor<1x8x4x4xi8>
  %rd = relay.qnn.dequantize %r, %xs, %xz : (tensor<1x8x4x4xi8>, tensor<f32>, tensor<i8>) -> tensor<1x8x4x4xf32>
  %d = relay.subtract %x, %rd : tensor<1x8x4x4xf32>
  %y2 = relay.qnn.quantize %d, %ys, %yz : (tensor<1x8x4x4xf32>, tensor<f32>, tensor<i8>) -> tensor<1x8x4x4xi8>
  func.return %y0, %y1, %y2 : tensor<1x8x4x4xi8>, tensor<1x8x4x4xi8>, tensor<1x8x4x4xi8>
}
