// Dynamically quantized models: DynamicQuantizeLinear is its two run-time parameters and
// a quantize with them; MatMulInteger a relay.qnn.dense (the 2-D weight transposed),
// ConvInteger a relay.qnn.conv2d; both integer results (their scales are 1, unused).

// RUN: %python %S/Inputs/make_model.py dynamic_quant %t.onnx
// RUN: accel-opt %t.onnx | filecheck %s
// CHECK:      %xs = relay.qnn.dynamic_scale %x : (tensor<2x4xf32>) -> tensor<f32>
// CHECK-NEXT: %xz = relay.qnn.dynamic_zero_point %x : (tensor<2x4xf32>) -> tensor<ui8>
// CHECK-NEXT: %xq = relay.qnn.quantize %x, %xs, %xz : (tensor<2x4xf32>, tensor<f32>, tensor<ui8>) -> tensor<2x4xui8>
// CHECK-NEXT: %0 = relay.constant dense<[[70, -47, -85, 62], [27, -39, -97, 29], [2, -92, -65, 82]]> : tensor<3x4xi8>
// CHECK:      %acc = relay.qnn.dense %xq, %0, %xz, %wz, %1, %2 : (tensor<2x4xui8>, tensor<3x4xi8>, tensor<ui8>, tensor<i8>, tensor<f32>, tensor<f32>) -> tensor<2x3xi32>
// CHECK:      %c = relay.qnn.conv2d %img, %k, %iz, %3, %4, %5 {padding = [1, 1, 1, 1]} : (tensor<1x2x3x3xui8>, tensor<2x2x3x3xui8>, tensor<ui8>, tensor<ui8>, tensor<f32>, tensor<f32>) -> tensor<1x2x3x3xi32>

// The run-time scale and zero point reach C as a compound-literal acc_qparams.
// RUN: accel-opt %t.onnx -p full --target npu -t c | filecheck %s --check-prefix=C
// C: acc_dynamic_scale_f32(
// C: acc_dynamic_zero_point_f32(
// C: acc_quantize({{.*}}&(acc_qparams){(const float *){{.*}}, 1, (const int32_t[]){(int32_t){{.*}}[0]}, 1})
