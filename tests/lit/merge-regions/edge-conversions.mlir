// RUN: accel-opt %s --split-input-file --target npu -p 'merge-regions{cost-model=false}' | filecheck %s
// RUN: sed 's/accel.target = "npu"/accel.target = "npu-shared"/' %s > %t.mlir
// RUN: accel-opt %t.mlir --split-input-file --target npu-shared -p 'merge-regions{cost-model=false}' | filecheck %s --check-prefix=SHARED

// A quantized model's float island (a batch norm after a quantized product) runs on the
// npu between a dequantize and a quantize alone; the quantize of the model's input and the
// dequantize of its output, at the region's edges, go back to the host, where the data
// crosses in 8 bits. The regions are formed again without them.
// CHECK-LABEL: func.func @island
// CHECK:       %q = relay.qnn.quantize %x, %s, %z {accel.target = "host", accel.reason = "npu: a conversion at the edge of its region (on the host the data crosses in 8 bits)"}
// CHECK-NEXT:  %d = relay.qnn.dequantize %q, %s, %z {accel.target = "npu", accel.region = 0 : i64}
// CHECK-NEXT:  %m = relay.multiply %d, %g {accel.target = "npu", accel.region = 0 : i64}
// CHECK-NEXT:  %a = relay.add %m, %b {accel.target = "npu", accel.region = 0 : i64}
// CHECK-NEXT:  %q2 = relay.qnn.quantize %a, %s, %z {accel.target = "npu", accel.region = 0 : i64}
// CHECK-NEXT:  %y = relay.qnn.dequantize %q2, %s, %z {accel.target = "host", accel.reason = "npu: a conversion at the edge of its region (on the host the data crosses in 8 bits)"}
// A target computing in host memory moves no data: its conversions stay.
// SHARED-LABEL: func.func @island
// SHARED:       %q = relay.qnn.quantize %x, %s, %z {accel.target = "npu-shared", accel.region = 0 : i64}
// SHARED:       %y = relay.qnn.dequantize %q2, %s, %z {accel.target = "npu-shared", accel.region = 0 : i64}
func.func @island(%x: tensor<1x8xf32>) -> tensor<1x8xf32> {
  %s = relay.constant dense<0.05> : tensor<f32>
  %z = relay.constant dense<0> : tensor<i8>
  %g = relay.constant dense<1.5> : tensor<8xf32>
  %b = relay.constant dense<0.25> : tensor<8xf32>
  %q = relay.qnn.quantize %x, %s, %z {accel.target = "npu"} : (tensor<1x8xf32>, tensor<f32>, tensor<i8>) -> tensor<1x8xi8>
  %d = relay.qnn.dequantize %q, %s, %z {accel.target = "npu"} : (tensor<1x8xi8>, tensor<f32>, tensor<i8>) -> tensor<1x8xf32>
  %m = relay.multiply %d, %g {accel.target = "npu"} : (tensor<1x8xf32>, tensor<8xf32>) -> tensor<1x8xf32>
  %a = relay.add %m, %b {accel.target = "npu"} : (tensor<1x8xf32>, tensor<8xf32>) -> tensor<1x8xf32>
  %q2 = relay.qnn.quantize %a, %s, %z {accel.target = "npu"} : (tensor<1x8xf32>, tensor<f32>, tensor<i8>) -> tensor<1x8xi8>
  %y = relay.qnn.dequantize %q2, %s, %z {accel.target = "npu"} : (tensor<1x8xi8>, tensor<f32>, tensor<i8>) -> tensor<1x8xf32>
  func.return %y : tensor<1x8xf32>
}

// -----

// Kept: a dequantize read inside the region too (also by the host), a quantize of data
// the region computes. A region made only of conversions is no region.
// CHECK-LABEL: func.func @kept
// CHECK:       %d = relay.qnn.dequantize %q, %s, %z {accel.target = "npu", accel.region = 0 : i64}
// CHECK-NEXT:  %r = relay.nn.relu %d {accel.target = "npu", accel.region = 0 : i64}
// CHECK-NEXT:  %q2 = relay.qnn.quantize %r, %s, %z {accel.target = "npu", accel.region = 0 : i64}
// CHECK-NEXT:  %h = relay.sigmoid %d {accel.target = "host"}
// CHECK-NEXT:  %lone = relay.qnn.quantize %h, %s, %z {accel.target = "host", accel.reason = "npu: a conversion at the edge of its region
func.func @kept(%q: tensor<4xi8>) -> (tensor<4xi8>, tensor<4xi8>) {
  %s = relay.constant dense<0.05> : tensor<f32>
  %z = relay.constant dense<0> : tensor<i8>
  %d = relay.qnn.dequantize %q, %s, %z {accel.target = "npu"} : (tensor<4xi8>, tensor<f32>, tensor<i8>) -> tensor<4xf32>
  %r = relay.nn.relu %d {accel.target = "npu"} : tensor<4xf32>
  %q2 = relay.qnn.quantize %r, %s, %z {accel.target = "npu"} : (tensor<4xf32>, tensor<f32>, tensor<i8>) -> tensor<4xi8>
  %h = relay.sigmoid %d {accel.target = "host"} : tensor<4xf32>
  %lone = relay.qnn.quantize %h, %s, %z {accel.target = "npu"} : (tensor<4xf32>, tensor<f32>, tensor<i8>) -> tensor<4xi8>
  func.return %q2, %lone : tensor<4xi8>, tensor<4xi8>
}

// -----

// A conversion the user placed (accel.manual) stays where it is.
// CHECK-LABEL: func.func @manual
// CHECK:       %q = relay.qnn.quantize %x, %s, %z {accel.target = "npu", accel.manual, accel.region = 0 : i64}
func.func @manual(%x: tensor<4xf32>) -> tensor<4xi8> {
  %s = relay.constant dense<0.05> : tensor<f32>
  %z = relay.constant dense<0> : tensor<i8>
  %q = relay.qnn.quantize %x, %s, %z {accel.target = "npu", accel.manual} : (tensor<4xf32>, tensor<f32>, tensor<i8>) -> tensor<4xi8>
  func.return %q : tensor<4xi8>
}
