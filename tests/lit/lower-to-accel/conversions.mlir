// RUN: accel-opt %s --split-input-file --target npu -p 'byoc{cost-model=false},bufferize,lower-to-accel' | filecheck %s
// RUN: accel-opt %s --split-input-file --target npu -p 'byoc{cost-model=false},lower' -t c | filecheck %s --check-prefix=C

// A float island of a quantized model (the batch norm of an autoencoder's quantized
// dense, which no int8 form takes): the npu runs it in float between conversions alone,
// `accel.eltwise` of kinds dequantize and quantize (npu_convert); the model's first
// quantize and last dequantize stay on the host (merge-regions).
// CHECK-LABEL: func.func @main
// CHECK:         relay.qnn.quantize {{.*}} {accel.target = "host", accel.reason = "npu: a conversion at the edge of its region
// CHECK:         relay.qnn.dequantize {{.*}} {accel.target = "host", accel.reason = "npu: a conversion at the edge of its region
// CHECK-LABEL: func.func private @npu_0
// CHECK:         accel.matmul
// CHECK:         accel.eltwise ins(%{{.*}} : memref<1x8xi8>) outs(%[[D:.*]] : memref<1x8xf32>) {kind = "dequantize", lhs_scale = 0.25, lhs_zero_point = 3}
// CHECK:         accel.eltwise ins(%[[D]], %{{.*}} : memref<1x8xf32>, memref<8xf32>) outs(%[[M:.*]] : memref<1x8xf32>) {kind = "mul"}
// CHECK:         accel.eltwise ins(%[[M]], %{{.*}} : memref<1x8xf32>, memref<8xf32>) outs(%[[A:[0-9a-z_]+]] : memref<1x8xf32>) attributes
// CHECK:         accel.eltwise ins(%[[A]] : memref<1x8xf32>) outs(%{{.*}} : memref<1x8xi8>) {kind = "quantize", out_scale = 0.125, output_zero_point = -2}
// C-LABEL:       ===== npu_wrappers.c =====
// C:             static const npu_convert_params [[D:p[0-9]+]] = {.kind = NPU_DEQUANTIZE, .count = 8, .dtype = NPU_I8, .scale = 0.25f, .zero_point = 3};
// C:             static const npu_convert_params [[Q:p[0-9]+]] = {.kind = NPU_QUANTIZE, .count = 8, .dtype = NPU_I8, .scale = 0.125f, .zero_point = -2};
// C:             npu_convert({{.*}}, &[[D]])
// C:             npu_convert({{.*}}, &[[Q]])
func.func @main(%x: tensor<1x16xf32>) -> tensor<1x8xf32> {
  %s = relay.constant dense<0.5> : tensor<f32>
  %z = relay.constant dense<0> : tensor<i8>
  %wq = relay.constant dense<1> : tensor<8x16xi8>
  %ws = relay.constant dense<0.01> : tensor<8xf32>
  %wz = relay.constant dense<0> : tensor<8xi8>
  %ds = relay.constant dense<0.25> : tensor<f32>
  %dz = relay.constant dense<3> : tensor<i8>
  %g = relay.constant dense<1.5> : tensor<8xf32>
  %b = relay.constant dense<0.5> : tensor<8xf32>
  %ys = relay.constant dense<0.125> : tensor<f32>
  %yz = relay.constant dense<-2> : tensor<i8>
  %q = relay.qnn.quantize %x, %s, %z : (tensor<1x16xf32>, tensor<f32>, tensor<i8>) -> tensor<1x16xi8>
  %xd = relay.qnn.dequantize %q, %s, %z : (tensor<1x16xi8>, tensor<f32>, tensor<i8>) -> tensor<1x16xf32>
  %w = relay.qnn.dequantize %wq, %ws, %wz {axis = 0} : (tensor<8x16xi8>, tensor<8xf32>, tensor<8xi8>) -> tensor<8x16xf32>
  %h = relay.nn.dense %xd, %w : (tensor<1x16xf32>, tensor<8x16xf32>) -> tensor<1x8xf32>
  %hq = relay.qnn.quantize %h, %ds, %dz : (tensor<1x8xf32>, tensor<f32>, tensor<i8>) -> tensor<1x8xi8>
  %hd = relay.qnn.dequantize %hq, %ds, %dz : (tensor<1x8xi8>, tensor<f32>, tensor<i8>) -> tensor<1x8xf32>
  %m = relay.multiply %hd, %g : (tensor<1x8xf32>, tensor<8xf32>) -> tensor<1x8xf32>
  %a = relay.add %m, %b : (tensor<1x8xf32>, tensor<8xf32>) -> tensor<1x8xf32>
  %aq = relay.qnn.quantize %a, %ys, %yz : (tensor<1x8xf32>, tensor<f32>, tensor<i8>) -> tensor<1x8xi8>
  %y = relay.qnn.dequantize %aq, %ys, %yz : (tensor<1x8xi8>, tensor<f32>, tensor<i8>) -> tensor<1x8xf32>
  func.return %y : tensor<1x8xf32>
}

// -----

// A per-channel dequantize alone stays on the host (a conversion command has one scale).
// CHECK-LABEL: func.func @main
// CHECK:         relay.qnn.dequantize {{.*}} {axis = 1, accel.target = "host", accel.reason = "npu: a dequantize alone on the accelerator has one scale and zero point"}
func.func @main(%q: tensor<2x4xi8>) -> tensor<2x4xf32> {
  %s = relay.constant dense<[0.5, 0.25, 0.125, 1.0]> : tensor<4xf32>
  %z = relay.constant dense<0> : tensor<4xi8>
  %d = relay.qnn.dequantize %q, %s, %z {axis = 1} : (tensor<2x4xi8>, tensor<4xf32>, tensor<4xi8>) -> tensor<2x4xf32>
  %r = relay.sigmoid %d : tensor<2x4xf32>
  func.return %r : tensor<2x4xf32>
}
