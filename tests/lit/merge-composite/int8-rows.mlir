// RUN: accel-opt %s --split-input-file -p 'merge-composite{target=npu}' | filecheck %s
// RUN: accel-opt %s --split-input-file --target npu -p 'byoc{cost-model=false},bufferize,lower-to-accel' | filecheck %s --check-prefix=LOWER
// RUN: accel-opt %s --split-input-file --target npu -p 'byoc{cost-model=false},lower' -t c | filecheck %s --check-prefix=C

// onnxruntime's QDQ layer norm and softmax (a transformer's float islands): each an int8
// row command, the data dequantized per row, gamma and beta float.
// CHECK-LABEL: func.func @main(%q: tensor<4x16xi8>) ->
// CHECK:         %[[L:.*]] = relay.composite "npu.qlayer_norm" (%q, %xs, %xz, %g, %b, %ls, %lz)
// CHECK:         relay.composite "npu.qsoftmax" (%[[L]], %ls, %lz, %ys, %yz)
// LOWER-LABEL:  func.func private @npu_0
// LOWER:          accel.eltwise ins(%{{.*}}, %{{.*}}, %{{.*}} : memref<4x16xi8>, memref<16xf32>, memref<16xf32>) outs(%[[T:.*]] : memref<4x16xi8>)
// LOWER-SAME:       kind = "layer_norm", lhs_scale = 0.05000000074505806, lhs_zero_point = 3, out_scale = 0.03125, output_zero_point = -2}
// LOWER:          accel.eltwise ins(%[[T]] : memref<4x16xi8>) outs(%{{.*}} : memref<4x16xi8>)
// LOWER-SAME:       kind = "softmax", lhs_scale = 0.03125, lhs_zero_point = -2, out_scale = 0.00390625, output_zero_point = -128
// C-LABEL:        ===== npu_wrappers.c =====
// C:              static const npu_rows_params [[L:p[0-9]+]] = {.kind = NPU_ROW_LAYER_NORM, .count = 64, .row_length = 16, {{.*}}.x_dtype = NPU_I8, .y_dtype = NPU_I8, .x_scale = 0.0500000007f, .x_zero_point = 3, .out_scale = 0.03125f, .out_zero_point = -2}
// C:              static const npu_rows_params [[S:p[0-9]+]] = {.kind = NPU_ROW_SOFTMAX,
// C:              npu_rows_s8({{.*}}, &[[L]])
// C:              npu_rows_s8({{.*}}, NULL, NULL, {{.*}}, &[[S]])
func.func @main(%q: tensor<4x16xi8>) -> tensor<4x16xi8> {
  %xs = relay.constant dense<0.05> : tensor<f32>
  %xz = relay.constant dense<3> : tensor<i8>
  %g = relay.constant dense<1.5> : tensor<16xf32>
  %b = relay.constant dense<0.25> : tensor<16xf32>
  %ls = relay.constant dense<0.03125> : tensor<f32>
  %lz = relay.constant dense<-2> : tensor<i8>
  %ys = relay.constant dense<0.00390625> : tensor<f32>
  %yz = relay.constant dense<-128> : tensor<i8>
  %x = relay.qnn.dequantize %q, %xs, %xz : (tensor<4x16xi8>, tensor<f32>, tensor<i8>) -> tensor<4x16xf32>
  %l = relay.nn.layer_norm %x, %g, %b {axis = -1, epsilon = 1.0e-05} : (tensor<4x16xf32>, tensor<16xf32>, tensor<16xf32>) -> tensor<4x16xf32>
  %lq = relay.qnn.quantize %l, %ls, %lz : (tensor<4x16xf32>, tensor<f32>, tensor<i8>) -> tensor<4x16xi8>
  %ld = relay.qnn.dequantize %lq, %ls, %lz : (tensor<4x16xi8>, tensor<f32>, tensor<i8>) -> tensor<4x16xf32>
  %s = relay.nn.softmax %ld : tensor<4x16xf32>
  %y = relay.qnn.quantize %s, %ys, %yz : (tensor<4x16xf32>, tensor<f32>, tensor<i8>) -> tensor<4x16xi8>
  func.return %y : tensor<4x16xi8>
}

// -----

// An RMS norm of uint8 data (gamma only).
// CHECK-LABEL: func.func @main(%q: tensor<2x8xui8>) ->
// CHECK:         relay.composite "npu.qrms_norm" (%q, %xs, %xz, %g, %ys, %yz)
// LOWER-LABEL:  func.func private @npu_0
// LOWER:          accel.eltwise ins(%{{.*}}, %{{.*}} : memref<2x8xui8>, memref<8xf32>) outs(%{{.*}} : memref<2x8xui8>)
// LOWER-SAME:       kind = "rms_norm"
// C:              .kind = NPU_ROW_RMS_NORM, {{.*}}.x_dtype = NPU_U8, .y_dtype = NPU_U8
func.func @main(%q: tensor<2x8xui8>) -> tensor<2x8xui8> {
  %xs = relay.constant dense<0.05> : tensor<f32>
  %xz = relay.constant dense<128> : tensor<ui8>
  %g = relay.constant dense<0.5> : tensor<8xf32>
  %ys = relay.constant dense<0.02> : tensor<f32>
  %yz = relay.constant dense<120> : tensor<ui8>
  %x = relay.qnn.dequantize %q, %xs, %xz : (tensor<2x8xui8>, tensor<f32>, tensor<ui8>) -> tensor<2x8xf32>
  %r = relay.nn.rms_norm %x, %g {axis = -1, epsilon = 1.0e-05} : (tensor<2x8xf32>, tensor<8xf32>) -> tensor<2x8xf32>
  %y = relay.qnn.quantize %r, %ys, %yz : (tensor<2x8xf32>, tensor<f32>, tensor<ui8>) -> tensor<2x8xui8>
  func.return %y : tensor<2x8xui8>
}

// -----

// No int8 row command: a softmax along another axis than the last (the row command runs
// along the last; softmax-last-axis moves it last between two transposes, a float softmax
// between a dequantize and a quantize on the npu), and a layer norm whose gamma is no
// constant (left on the host).
// CHECK-LABEL: func.func @main(%q: tensor<4x16xi8>, %g: tensor<16xf32>) ->
// CHECK-NOT:     relay.composite
// LOWER-LABEL:  func.func @main
// LOWER:          relay.nn.layer_norm {{.*}}accel.target = "host"
// LOWER-LABEL:  func.func private @npu_0
// LOWER:          {kind = "dequantize"
// LOWER:          accel.eltwise ins(%{{.*}} : memref<16x4xf32>) outs(%{{.*}} : memref<16x4xf32>) {kind = "softmax"}
// LOWER:          {kind = "quantize"
func.func @main(%q: tensor<4x16xi8>, %g: tensor<16xf32>) -> (tensor<4x16xi8>, tensor<4x16xi8>) {
  %xs = relay.constant dense<0.05> : tensor<f32>
  %xz = relay.constant dense<3> : tensor<i8>
  %b = relay.constant dense<0.25> : tensor<16xf32>
  %x = relay.qnn.dequantize %q, %xs, %xz : (tensor<4x16xi8>, tensor<f32>, tensor<i8>) -> tensor<4x16xf32>
  %s = relay.nn.softmax %x {axis = 0} : tensor<4x16xf32>
  %sq = relay.qnn.quantize %s, %xs, %xz : (tensor<4x16xf32>, tensor<f32>, tensor<i8>) -> tensor<4x16xi8>
  %l = relay.nn.layer_norm %x, %g, %b {axis = -1, epsilon = 1.0e-05} : (tensor<4x16xf32>, tensor<16xf32>, tensor<16xf32>) -> tensor<4x16xf32>
  %lq = relay.qnn.quantize %l, %xs, %xz : (tensor<4x16xf32>, tensor<f32>, tensor<i8>) -> tensor<4x16xi8>
  func.return %sq, %lq : tensor<4x16xi8>, tensor<4x16xi8>
}
