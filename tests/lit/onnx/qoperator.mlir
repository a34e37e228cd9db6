// com.microsoft QOperator ops import as their QDQ expansion (dequantize -> float op ->
// quantize), the form the targets' int8 patterns match. A constant [K, N] QGemm weight
// is stored transposed for relay.nn.dense (its per-column scale becomes axis 0), the
// int32 bias dequantizes with a_scale * b_scale; no y_scale: a float result.

// RUN: %python %S/Inputs/make_model.py qoperator %t.onnx
// RUN: accel-opt %t.onnx | filecheck %s
// CHECK:      %0 = relay.qnn.dequantize %a, %as, %az : (tensor<2x4xi8>, tensor<f32>, tensor<i8>) -> tensor<2x4xf32>
// CHECK:      %1 = relay.qnn.dequantize %b, %bs, %bz : (tensor<2x4xi8>, tensor<f32>, tensor<i8>) -> tensor<2x4xf32>
// CHECK-NEXT: %2 = relay.add %0, %1 : tensor<2x4xf32>
// CHECK:      %s = relay.qnn.quantize %2, %ys, %yz : (tensor<2x4xf32>, tensor<f32>, tensor<i8>) -> tensor<2x4xi8>
// CHECK-NEXT: %3 = relay.qnn.dequantize %s, %ys, %yz : (tensor<2x4xi8>, tensor<f32>, tensor<i8>) -> tensor<2x4xf32>
// CHECK-NEXT: %4 = relay.constant dense<[[70, -47, -85, 62], [27, -39, -97, 29], [2, -92, -65, 82]]> : tensor<3x4xi8>
// CHECK:      %5 = relay.qnn.dequantize %4, %ws, %wz {axis = 0} : (tensor<3x4xi8>, tensor<3xf32>, tensor<3xi8>) -> tensor<3x4xf32>
// CHECK-NEXT: %6 = relay.nn.dense %3, %5 : (tensor<2x4xf32>, tensor<3x4xf32>) -> tensor<2x3xf32>
// CHECK:      %8 = relay.constant dense<[3.000000e-03, 6.000000e-03, 0.00900000054]> : tensor<3xf32>
// CHECK:      %9 = relay.qnn.dequantize %c, %8, %7 {axis = 0} : (tensor<3xi32>, tensor<3xf32>, tensor<i32>) -> tensor<3xf32>
// CHECK-NEXT: %y = relay.nn.bias_add %6, %9 : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT: func.return %y : tensor<2x3xf32>

// After partitioning for the npu the QLinearAdd is the QDQ model's int8 add composite.
// RUN: accel-opt %t.onnx -p canonicalize,byoc --target npu | filecheck %s --check-prefix=NPU
// NPU: relay.composite "npu.qadd"

// A com.microsoft op the importer does not know stays one line.
// RUN: %python %S/Inputs/make_model.py foreign_domain %t.fused.onnx
// RUN: not accel-opt %t.fused.onnx 2>&1 | filecheck %s --check-prefix=UNKNOWN
// UNKNOWN: accel-opt: {{.*}}fused.onnx: error: node 'fused_2' (GroupNorm): ops of domain 'com.microsoft' are not supported
