// Round trip of the relay quantized ops: custom form -> custom form, and generic form -> custom form.
// RUN: accel-opt %s --split-input-file | accel-opt --split-input-file | filecheck %s
// RUN: accel-opt %s --split-input-file --print-op-generic | filecheck %s --check-prefix=GEN
// RUN: accel-opt %s --split-input-file --print-op-generic | accel-opt --split-input-file | filecheck %s

func.func @quantize_dequantize(%x: tensor<1x8x4x4xf32>, %s: tensor<f32>, %z: tensor<i8>, %cs: tensor<8xf32>, %cz: tensor<8xui8>) -> (tensor<1x8x4x4xf32>, tensor<1x8x4x4xui8>) {
  %q = relay.qnn.quantize %x, %s, %z : (tensor<1x8x4x4xf32>, tensor<f32>, tensor<i8>) -> tensor<1x8x4x4xi8>
  %d = relay.qnn.dequantize %q, %s, %z : (tensor<1x8x4x4xi8>, tensor<f32>, tensor<i8>) -> tensor<1x8x4x4xf32>
  %p = relay.qnn.quantize %d, %cs, %cz {axis = 1} : (tensor<1x8x4x4xf32>, tensor<8xf32>, tensor<8xui8>) -> tensor<1x8x4x4xui8>
  func.return %d, %p : tensor<1x8x4x4xf32>, tensor<1x8x4x4xui8>
}
// CHECK-LABEL: func.func @quantize_dequantize
// CHECK-NEXT:  %q = relay.qnn.quantize %x, %s, %z : (tensor<1x8x4x4xf32>, tensor<f32>, tensor<i8>) -> tensor<1x8x4x4xi8>
// CHECK-NEXT:  %d = relay.qnn.dequantize %q, %s, %z : (tensor<1x8x4x4xi8>, tensor<f32>, tensor<i8>) -> tensor<1x8x4x4xf32>
// CHECK-NEXT:  %p = relay.qnn.quantize %d, %cs, %cz {axis = 1} : (tensor<1x8x4x4xf32>, tensor<8xf32>, tensor<8xui8>) -> tensor<1x8x4x4xui8>
// CHECK-NEXT:  func.return %d, %p : tensor<1x8x4x4xf32>, tensor<1x8x4x4xui8>
// GEN:         %q = "relay.qnn.quantize"(%x, %s, %z) <{axis = -1 : i64}> : (tensor<1x8x4x4xf32>, tensor<f32>, tensor<i8>) -> tensor<1x8x4x4xi8>
// GEN:         %d = "relay.qnn.dequantize"(%q, %s, %z) <{axis = -1 : i64}> : (tensor<1x8x4x4xi8>, tensor<f32>, tensor<i8>) -> tensor<1x8x4x4xf32>
// GEN:         %p = "relay.qnn.quantize"(%d, %cs, %cz) <{axis = 1 : i64}> : (tensor<1x8x4x4xf32>, tensor<8xf32>, tensor<8xui8>) -> tensor<1x8x4x4xui8>

// -----

func.func @requantize(%x: tensor<1x8xi32>, %s: tensor<f32>, %z: tensor<i32>, %os: tensor<8xf32>, %oz: tensor<i8>) -> tensor<1x8xi8> {
  %y = relay.qnn.requantize %x, %s, %z, %os, %oz {axis = 1} : (tensor<1x8xi32>, tensor<f32>, tensor<i32>, tensor<8xf32>, tensor<i8>) -> tensor<1x8xi8>
  func.return %y : tensor<1x8xi8>
}
// CHECK-LABEL: func.func @requantize
// CHECK-NEXT:  %y = relay.qnn.requantize %x, %s, %z, %os, %oz {axis = 1} : (tensor<1x8xi32>, tensor<f32>, tensor<i32>, tensor<8xf32>, tensor<i8>) -> tensor<1x8xi8>
// CHECK-NEXT:  func.return %y : tensor<1x8xi8>
// GEN:         %y = "relay.qnn.requantize"(%x, %s, %z, %os, %oz) <{axis = 1 : i64}> : (tensor<1x8xi32>, tensor<f32>, tensor<i32>, tensor<8xf32>, tensor<i8>) -> tensor<1x8xi8>

// -----

func.func @qnn_conv2d(%x: tensor<1x4x6x6xi8>, %w: tensor<8x4x3x3xi8>, %xz: tensor<i8>, %wz: tensor<8xi8>, %xs: tensor<f32>, %ws: tensor<8xf32>) -> tensor<1x8x3x3xi32> {
  %y = relay.qnn.conv2d %x, %w, %xz, %wz, %xs, %ws {strides = [2, 2], padding = [1, 1, 1, 1]} : (tensor<1x4x6x6xi8>, tensor<8x4x3x3xi8>, tensor<i8>, tensor<8xi8>, tensor<f32>, tensor<8xf32>) -> tensor<1x8x3x3xi32>
  func.return %y : tensor<1x8x3x3xi32>
}
// CHECK-LABEL: func.func @qnn_conv2d
// CHECK-NEXT:  %y = relay.qnn.conv2d %x, %w, %xz, %wz, %xs, %ws {strides = [2, 2], padding = [1, 1, 1, 1]} : (tensor<1x4x6x6xi8>, tensor<8x4x3x3xi8>, tensor<i8>, tensor<8xi8>, tensor<f32>, tensor<8xf32>) -> tensor<1x8x3x3xi32>
// CHECK-NEXT:  func.return %y : tensor<1x8x3x3xi32>
// GEN:         %y = "relay.qnn.conv2d"(%x, %w, %xz, %wz, %xs, %ws) <{strides = array<i64: 2, 2>, padding = array<i64: 1, 1, 1, 1>, dilation = array<i64: 1, 1>, groups = 1 : i64}> : (tensor<1x4x6x6xi8>, tensor<8x4x3x3xi8>, tensor<i8>, tensor<8xi8>, tensor<f32>, tensor<8xf32>) -> tensor<1x8x3x3xi32>

// -----

func.func @qnn_dense(%x: tensor<2x16xui8>, %w: tensor<10x16xi8>, %xz: tensor<ui8>, %wz: tensor<i8>, %xs: tensor<f32>, %ws: tensor<f32>) -> tensor<2x10xi32> {
  %y = relay.qnn.dense %x, %w, %xz, %wz, %xs, %ws : (tensor<2x16xui8>, tensor<10x16xi8>, tensor<ui8>, tensor<i8>, tensor<f32>, tensor<f32>) -> tensor<2x10xi32>
  func.return %y : tensor<2x10xi32>
}
// CHECK-LABEL: func.func @qnn_dense
// CHECK-NEXT:  %y = relay.qnn.dense %x, %w, %xz, %wz, %xs, %ws : (tensor<2x16xui8>, tensor<10x16xi8>, tensor<ui8>, tensor<i8>, tensor<f32>, tensor<f32>) -> tensor<2x10xi32>
// CHECK-NEXT:  func.return %y : tensor<2x10xi32>
// GEN:         %y = "relay.qnn.dense"(%x, %w, %xz, %wz, %xs, %ws) : (tensor<2x16xui8>, tensor<10x16xi8>, tensor<ui8>, tensor<i8>, tensor<f32>, tensor<f32>) -> tensor<2x10xi32>

// -----

func.func @qnn_add(%a: tensor<2x3xi8>, %b: tensor<3xi8>, %s: tensor<f32>, %z: tensor<i8>) -> tensor<2x3xi8> {
  %y = relay.qnn.add %a, %b, %s, %z, %s, %z, %s, %z : (tensor<2x3xi8>, tensor<3xi8>, tensor<f32>, tensor<i8>, tensor<f32>, tensor<i8>, tensor<f32>, tensor<i8>) -> tensor<2x3xi8>
  func.return %y : tensor<2x3xi8>
}
// CHECK-LABEL: func.func @qnn_add
// CHECK-NEXT:  %y = relay.qnn.add %a, %b, %s, %z, %s, %z, %s, %z : (tensor<2x3xi8>, tensor<3xi8>, tensor<f32>, tensor<i8>, tensor<f32>, tensor<i8>, tensor<f32>, tensor<i8>) -> tensor<2x3xi8>
// CHECK-NEXT:  func.return %y : tensor<2x3xi8>
// GEN:         %y = "relay.qnn.add"(%a, %b, %s, %z, %s, %z, %s, %z) : (tensor<2x3xi8>, tensor<3xi8>, tensor<f32>, tensor<i8>, tensor<f32>, tensor<i8>, tensor<f32>, tensor<i8>) -> tensor<2x3xi8>

// -----

// The parameters of dynamic quantization (ONNX DynamicQuantizeLinear), then a quantize
// with those run-time parameters.
func.func @dynamic_quantize(%x: tensor<2x8xf32>) -> tensor<2x8xui8> {
  %s = relay.qnn.dynamic_scale %x : (tensor<2x8xf32>) -> tensor<f32>
  %z = relay.qnn.dynamic_zero_point %x : (tensor<2x8xf32>) -> tensor<ui8>
  %y = relay.qnn.quantize %x, %s, %z : (tensor<2x8xf32>, tensor<f32>, tensor<ui8>) -> tensor<2x8xui8>
  func.return %y : tensor<2x8xui8>
}
// CHECK-LABEL: func.func @dynamic_quantize
// CHECK-NEXT:  %s = relay.qnn.dynamic_scale %x : (tensor<2x8xf32>) -> tensor<f32>
// CHECK-NEXT:  %z = relay.qnn.dynamic_zero_point %x : (tensor<2x8xf32>) -> tensor<ui8>
