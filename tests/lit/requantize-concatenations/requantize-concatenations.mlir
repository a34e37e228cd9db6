// requantize-concatenations: a QDQ concatenation of int8 tensors of their own scales
// concatenates int8 data, each input requantized to the output's quantization first.
// RUN: accel-opt %s --split-input-file --target npu -p requantize-concatenations | filecheck %s
// RUN: accel-opt %s --split-input-file --target npu -p 'byoc{cost-model=false}' | filecheck %s --check-prefix=BYOC
// RUN: accel-opt %s --split-input-file --target npu -p 'byoc{cost-model=false},lower' -t c | filecheck %s --check-prefix=C

// A YOLO neck's concat: %a has a scale of its own (requantized), %b the output's (taken as
// it is); the float concatenation, its quantize and the dequantizes are gone.
// CHECK-LABEL: func.func @main(%a: tensor<1x4x8x8xi8>, %b: tensor<1x2x8x8xi8>)
// CHECK-NEXT:    %sa = relay.constant
// CHECK-NEXT:    %za = relay.constant
// CHECK-NEXT:    %s = relay.constant
// CHECK-NEXT:    %z = relay.constant
// CHECK-NEXT:    %0 = relay.qnn.requantize %a, %sa, %za, %s, %z : (tensor<1x4x8x8xi8>, tensor<f32>, tensor<i8>, tensor<f32>, tensor<i8>) -> tensor<1x4x8x8xi8>
// CHECK-NEXT:    %y = relay.concatenate %0, %b {axis = 1} : (tensor<1x4x8x8xi8>, tensor<1x2x8x8xi8>) -> tensor<1x6x8x8xi8>
// CHECK-NEXT:    func.return %y
// Partitioned: one npu region of the int8 elementwise command and the device copies.
// BYOC-LABEL: func.func @main(%a: tensor<1x4x8x8xi8>, %b: tensor<1x2x8x8xi8>)
// BYOC-NEXT:    %y = func.call @npu_0(%a, %b)
// BYOC-NEXT:    func.return %y
// C-LABEL:    ===== npu_wrappers.c =====
// C:          static const npu_eltwise_params [[R:p[0-9]+]] = {.kind = NPU_ELTWISE_CLIP, {{.*}}.act_min = (-INFINITY), .act_max = INFINITY, .lhs_scale = 0.0500000007f, .lhs_zero_point = 3, {{.*}}.out_scale = 0.0199999996f, .out_zero_point = -7
// C:          npu_eltwise_s8({{.*}}, NULL, {{.*}}, &[[R]])
// Each part is written back into its slice of the int8 output.
// C:          npu_dma_to_host(a2,
// C:          npu_dma_to_host(((int8_t *)a2 + 256),
func.func @main(%a: tensor<1x4x8x8xi8>, %b: tensor<1x2x8x8xi8>) -> tensor<1x6x8x8xi8> {
  %sa = relay.constant dense<0.05> : tensor<f32>
  %za = relay.constant dense<3> : tensor<i8>
  %s = relay.constant dense<0.02> : tensor<f32>
  %z = relay.constant dense<-7> : tensor<i8>
  %da = relay.qnn.dequantize %a, %sa, %za : (tensor<1x4x8x8xi8>, tensor<f32>, tensor<i8>) -> tensor<1x4x8x8xf32>
  %db = relay.qnn.dequantize %b, %s, %z : (tensor<1x2x8x8xi8>, tensor<f32>, tensor<i8>) -> tensor<1x2x8x8xf32>
  %c = relay.concatenate %da, %db {axis = 1} : (tensor<1x4x8x8xf32>, tensor<1x2x8x8xf32>) -> tensor<1x6x8x8xf32>
  %y = relay.qnn.quantize %c, %s, %z : (tensor<1x6x8x8xf32>, tensor<f32>, tensor<i8>) -> tensor<1x6x8x8xi8>
  func.return %y : tensor<1x6x8x8xi8>
}

// -----

// uint8 inputs into an int8 output (the zero points differ in type: both requantized);
// a dequantize read by another op too stays for it.
// CHECK-LABEL: func.func @main(%a: tensor<2x3xui8>, %b: tensor<2x5xui8>)
// CHECK:         %0 = relay.qnn.requantize %a, %s, %zu, %s, %z : (tensor<2x3xui8>, tensor<f32>, tensor<ui8>, tensor<f32>, tensor<i8>) -> tensor<2x3xi8>
// CHECK-NEXT:    %1 = relay.qnn.requantize %b, %s, %zu, %s, %z : (tensor<2x5xui8>, tensor<f32>, tensor<ui8>, tensor<f32>, tensor<i8>) -> tensor<2x5xi8>
// CHECK-NEXT:    %y = relay.concatenate %0, %1 {axis = 1} : (tensor<2x3xi8>, tensor<2x5xi8>) -> tensor<2x8xi8>
// CHECK-NEXT:    func.return %y, %db
func.func @main(%a: tensor<2x3xui8>, %b: tensor<2x5xui8>) -> (tensor<2x8xi8>, tensor<2x5xf32>) {
  %s = relay.constant dense<0.02> : tensor<f32>
  %zu = relay.constant dense<128> : tensor<ui8>
  %z = relay.constant dense<0> : tensor<i8>
  %da = relay.qnn.dequantize %a, %s, %zu : (tensor<2x3xui8>, tensor<f32>, tensor<ui8>) -> tensor<2x3xf32>
  %db = relay.qnn.dequantize %b, %s, %zu : (tensor<2x5xui8>, tensor<f32>, tensor<ui8>) -> tensor<2x5xf32>
  %c = relay.concatenate %da, %db {axis = 1} : (tensor<2x3xf32>, tensor<2x5xf32>) -> tensor<2x8xf32>
  %y = relay.qnn.quantize %c, %s, %z : (tensor<2x8xf32>, tensor<f32>, tensor<i8>) -> tensor<2x8xi8>
  func.return %y, %db : tensor<2x8xi8>, tensor<2x5xf32>
}

// -----

// Not rewritten: a float input (no dequantize), a per-channel dequantize, a concatenation
// read by more than its quantize, one the user placed on the host.
// CHECK-LABEL: func.func @main(%a: tensor<1x4x2x2xi8>, %f: tensor<1x4x2x2xf32>)
// CHECK-NOT:     relay.qnn.requantize
// CHECK-COUNT-4: relay.concatenate {{.*}}xf32>
// CHECK-NOT:     relay.qnn.requantize
func.func @main(%a: tensor<1x4x2x2xi8>, %f: tensor<1x4x2x2xf32>) -> (tensor<1x8x2x2xi8>, tensor<1x8x2x2xi8>, tensor<1x8x2x2xi8>, tensor<1x8x2x2xf32>, tensor<1x8x2x2xi8>) {
  %s = relay.constant dense<0.02> : tensor<f32>
  %z = relay.constant dense<0> : tensor<i8>
  %cs = relay.constant dense<0.05> : tensor<4xf32>
  %cz = relay.constant dense<0> : tensor<4xi8>
  %da = relay.qnn.dequantize %a, %s, %z : (tensor<1x4x2x2xi8>, tensor<f32>, tensor<i8>) -> tensor<1x4x2x2xf32>
  %c0 = relay.concatenate %da, %f {axis = 1} : (tensor<1x4x2x2xf32>, tensor<1x4x2x2xf32>) -> tensor<1x8x2x2xf32>
  %y0 = relay.qnn.quantize %c0, %s, %z : (tensor<1x8x2x2xf32>, tensor<f32>, tensor<i8>) -> tensor<1x8x2x2xi8>
  %pc = relay.qnn.dequantize %a, %cs, %cz {axis = 1} : (tensor<1x4x2x2xi8>, tensor<4xf32>, tensor<4xi8>) -> tensor<1x4x2x2xf32>
  %c1 = relay.concatenate %da, %pc {axis = 1} : (tensor<1x4x2x2xf32>, tensor<1x4x2x2xf32>) -> tensor<1x8x2x2xf32>
  %y1 = relay.qnn.quantize %c1, %s, %z : (tensor<1x8x2x2xf32>, tensor<f32>, tensor<i8>) -> tensor<1x8x2x2xi8>
  %c2 = relay.concatenate %da, %da {axis = 1} : (tensor<1x4x2x2xf32>, tensor<1x4x2x2xf32>) -> tensor<1x8x2x2xf32>
  %y2 = relay.qnn.quantize %c2, %s, %z : (tensor<1x8x2x2xf32>, tensor<f32>, tensor<i8>) -> tensor<1x8x2x2xi8>
  %c3 = relay.concatenate %da, %da {axis = 1, accel.target = "host"} : (tensor<1x4x2x2xf32>, tensor<1x4x2x2xf32>) -> tensor<1x8x2x2xf32>
  %y3 = relay.qnn.quantize %c3, %s, %z : (tensor<1x8x2x2xf32>, tensor<f32>, tensor<i8>) -> tensor<1x8x2x2xi8>
  func.return %y0, %y1, %y2, %c2, %y3 : tensor<1x8x2x2xi8>, tensor<1x8x2x2xi8>, tensor<1x8x2x2xi8>, tensor<1x8x2x2xf32>, tensor<1x8x2x2xi8>
}
