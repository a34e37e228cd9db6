// propagate-qdq: dequantizes move below the reshapes after them, quantizes above the
// reshapes before them, so that a QDQ Conv1d (run as the 2-D conv of a [N, C, L, 1] view)
// is dequantize -> conv2d -> bias_add -> quantize, the form of the int8 patterns.
// RUN: accel-opt %s --split-input-file -p propagate-qdq | filecheck %s
// RUN: not accel-opt %s -p 'propagate-qdq{axis=1}' 2>&1 | filecheck %s --check-prefix=OPTION

// OPTION: accel-opt: error: pass 'propagate-qdq' has no option 'axis' (options: none)
// OPTION-NOT: Traceback

// CHECK-LABEL: func.func @conv1d
// CHECK:         %[[R:.*]] = relay.reshape %q {newshape = [1, 4, 16, 1]} : (tensor<1x4x16xi8>) -> tensor<1x4x16x1xi8>
// CHECK-NEXT:    %[[D:.*]] = relay.qnn.dequantize %[[R]], %s, %z : (tensor<1x4x16x1xi8>, tensor<f32>, tensor<i8>) -> tensor<1x4x16x1xf32>
// The weights' reshape folds (per channel: axis 0 stays 0).
// CHECK:         %[[WD:.*]] = relay.qnn.dequantize %{{.*}}, %ws, %wz {axis = 0} : (tensor<8x4x1x1xi8>, tensor<8xf32>, tensor<8xi8>) -> tensor<8x4x1x1xf32>
// CHECK-NEXT:    %[[C:.*]] = relay.nn.conv2d %[[D]], %[[WD]]
// CHECK-NEXT:    %[[Q:.*]] = relay.qnn.quantize %[[C]], %s, %z : (tensor<1x8x16x1xf32>, tensor<f32>, tensor<i8>) -> tensor<1x8x16x1xi8>
// CHECK-NEXT:    %[[Y:.*]] = relay.reshape %[[Q]] {newshape = [1, 8, 16]} : (tensor<1x8x16x1xi8>) -> tensor<1x8x16xi8>
// CHECK-NEXT:    func.return %[[Y]]
func.func @conv1d(%q: tensor<1x4x16xi8>) -> tensor<1x8x16xi8> {
  %s = relay.constant dense<0.5> : tensor<f32>
  %z = relay.constant dense<1> : tensor<i8>
  %wq = relay.constant dense<3> : tensor<8x4x1xi8>
  %ws = relay.constant dense<0.25> : tensor<8xf32>
  %wz = relay.constant dense<0> : tensor<8xi8>
  %d = relay.qnn.dequantize %q, %s, %z : (tensor<1x4x16xi8>, tensor<f32>, tensor<i8>) -> tensor<1x4x16xf32>
  %r = relay.reshape %d {newshape = [1, 4, 16, 1]} : (tensor<1x4x16xf32>) -> tensor<1x4x16x1xf32>
  %wd = relay.qnn.dequantize %wq, %ws, %wz {axis = 0} : (tensor<8x4x1xi8>, tensor<8xf32>, tensor<8xi8>) -> tensor<8x4x1xf32>
  %w = relay.reshape %wd {newshape = [8, 4, 1, 1]} : (tensor<8x4x1xf32>) -> tensor<8x4x1x1xf32>
  %c = relay.nn.conv2d %r, %w : (tensor<1x4x16x1xf32>, tensor<8x4x1x1xf32>) -> tensor<1x8x16x1xf32>
  %y = relay.reshape %c {newshape = [1, 8, 16]} : (tensor<1x8x16x1xf32>) -> tensor<1x8x16xf32>
  %yq = relay.qnn.quantize %y, %s, %z : (tensor<1x8x16xf32>, tensor<f32>, tensor<i8>) -> tensor<1x8x16xi8>
  func.return %yq : tensor<1x8x16xi8>
}

// -----

// A per-channel scale moves across a reshape that keeps its axis (here axis 2 becomes 3).
// CHECK-LABEL: func.func @per_axis
// CHECK-NEXT:    %[[R:.*]] = relay.reshape %q {newshape = [2, 1, 3, 4]}
// CHECK-NEXT:    %{{.*}} = relay.qnn.dequantize %[[R]], %s, %z {axis = 3}
func.func @per_axis(%q: tensor<2x3x4xi8>, %s: tensor<4xf32>, %z: tensor<4xi8>) -> tensor<2x1x3x4xf32> {
  %d = relay.qnn.dequantize %q, %s, %z {axis = 2} : (tensor<2x3x4xi8>, tensor<4xf32>, tensor<4xi8>) -> tensor<2x3x4xf32>
  %r = relay.reshape %d {newshape = [2, 1, 3, 4]} : (tensor<2x3x4xf32>) -> tensor<2x1x3x4xf32>
  func.return %r : tensor<2x1x3x4xf32>
}

// -----

// A dequantize that something else reads too stays for it; the reshape gets its own
// (as onnxruntime gives each consumer its own DQ).
// CHECK-LABEL: func.func @shared_dequantize
// CHECK-NEXT:    %d2 = relay.qnn.dequantize %q2, %t, %u
// CHECK-NEXT:    %[[R:.*]] = relay.reshape %q2 {newshape = [2, 3]} : (tensor<6xi8>) -> tensor<2x3xi8>
// CHECK-NEXT:    %r2 = relay.qnn.dequantize %[[R]], %t, %u : (tensor<2x3xi8>, tensor<f32>, tensor<i8>) -> tensor<2x3xf32>
// CHECK-NEXT:    func.return %r2, %d2
func.func @shared_dequantize(%q2: tensor<6xi8>, %t: tensor<f32>, %u: tensor<i8>) -> (tensor<2x3xf32>, tensor<6xf32>) {
  %d2 = relay.qnn.dequantize %q2, %t, %u : (tensor<6xi8>, tensor<f32>, tensor<i8>) -> tensor<6xf32>
  %r2 = relay.reshape %d2 {newshape = [2, 3]} : (tensor<6xf32>) -> tensor<2x3xf32>
  func.return %r2, %d2 : tensor<2x3xf32>, tensor<6xf32>
}

// -----

// Kept: a per-channel scale across a reshape that merges its axis; a quantize of a
// reshape that something else reads too.
// CHECK-LABEL: func.func @kept
// CHECK-NEXT:    %d = relay.qnn.dequantize %q
// CHECK-NEXT:    %r = relay.reshape %d
// CHECK-NEXT:    %x2 = relay.reshape %x
// CHECK-NEXT:    %y = relay.qnn.quantize %x2
func.func @kept(%q: tensor<2x3x4xi8>, %s: tensor<4xf32>, %z: tensor<4xi8>, %t: tensor<f32>, %u: tensor<i8>, %x: tensor<6xf32>) -> (tensor<2x12xf32>, tensor<2x3xi8>, tensor<2x3xf32>) {
  %d = relay.qnn.dequantize %q, %s, %z {axis = 2} : (tensor<2x3x4xi8>, tensor<4xf32>, tensor<4xi8>) -> tensor<2x3x4xf32>
  %r = relay.reshape %d {newshape = [2, 12]} : (tensor<2x3x4xf32>) -> tensor<2x12xf32>
  %x2 = relay.reshape %x {newshape = [2, 3]} : (tensor<6xf32>) -> tensor<2x3xf32>
  %y = relay.qnn.quantize %x2, %t, %u : (tensor<2x3xf32>, tensor<f32>, tensor<i8>) -> tensor<2x3xi8>
  func.return %r, %y, %x2 : tensor<2x12xf32>, tensor<2x3xi8>, tensor<2x3xf32>
}
