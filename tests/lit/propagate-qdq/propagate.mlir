// propagate-qdq: dequantizes move below the reshapes, transposes and slices after them,
// quantizes above the reshapes and transposes before them, so that a QDQ Conv1d (run as
// the 2-D conv of a [N, C, L, 1] view) is dequantize -> conv2d -> bias_add -> quantize,
// the form of the int8 patterns, and a quantized head split is int8 layout ops.
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

// -----

// A transformer's head split as onnxruntime's quantizer leaves it: a QDQ pair around the
// reshape and another around the transpose, one scale throughout. Both layout ops run on
// the int8 data; the quantizes of dequantizes with the same parameters are gone.
// CHECK-LABEL: func.func @head_split
// CHECK-NEXT:    %[[R:.*]] = relay.reshape %q {newshape = [1, 8, 4, 8]} : (tensor<1x8x32xi8>) -> tensor<1x8x4x8xi8>
// CHECK-NEXT:    %[[T:.*]] = relay.transpose %[[R]] {axes = [0, 2, 1, 3]} : (tensor<1x8x4x8xi8>) -> tensor<1x4x8x8xi8>
// CHECK-NEXT:    func.return %[[T]]
func.func @head_split(%q: tensor<1x8x32xi8>) -> tensor<1x4x8x8xi8> {
  %s = relay.constant dense<0.125> : tensor<f32>
  %z = relay.constant dense<3> : tensor<i8>
  %d = relay.qnn.dequantize %q, %s, %z : (tensor<1x8x32xi8>, tensor<f32>, tensor<i8>) -> tensor<1x8x32xf32>
  %r = relay.reshape %d {newshape = [1, 8, 4, 8]} : (tensor<1x8x32xf32>) -> tensor<1x8x4x8xf32>
  %rq = relay.qnn.quantize %r, %s, %z : (tensor<1x8x4x8xf32>, tensor<f32>, tensor<i8>) -> tensor<1x8x4x8xi8>
  %rd = relay.qnn.dequantize %rq, %s, %z : (tensor<1x8x4x8xi8>, tensor<f32>, tensor<i8>) -> tensor<1x8x4x8xf32>
  %t = relay.transpose %rd {axes = [0, 2, 1, 3]} : (tensor<1x8x4x8xf32>) -> tensor<1x4x8x8xf32>
  %tq = relay.qnn.quantize %t, %s, %z : (tensor<1x4x8x8xf32>, tensor<f32>, tensor<i8>) -> tensor<1x4x8x8xi8>
  func.return %tq : tensor<1x4x8x8xi8>
}

// -----

// A per-axis scale follows its axis through a transpose (axis 2 is dimension 0 after it);
// a quantize after a transpose moves above it.
// CHECK-LABEL: func.func @transposes
// CHECK-NEXT:    %[[T:.*]] = relay.transpose %q {axes = [2, 0, 1]} : (tensor<2x3x4xi8>) -> tensor<4x2x3xi8>
// CHECK-NEXT:    %t = relay.qnn.dequantize %[[T]], %s, %z {axis = 0} : (tensor<4x2x3xi8>, tensor<4xf32>, tensor<4xi8>) -> tensor<4x2x3xf32>
// CHECK-NEXT:    %[[Q:.*]] = relay.qnn.quantize %x, %s, %z {axis = 1} : (tensor<3x4xf32>, tensor<4xf32>, tensor<4xi8>) -> tensor<3x4xi8>
// CHECK-NEXT:    %{{.*}} = relay.transpose %[[Q]] {axes = [1, 0]} : (tensor<3x4xi8>) -> tensor<4x3xi8>
func.func @transposes(%q: tensor<2x3x4xi8>, %s: tensor<4xf32>, %z: tensor<4xi8>, %x: tensor<3x4xf32>) -> (tensor<4x2x3xf32>, tensor<4x3xi8>) {
  %d = relay.qnn.dequantize %q, %s, %z {axis = 2} : (tensor<2x3x4xi8>, tensor<4xf32>, tensor<4xi8>) -> tensor<2x3x4xf32>
  %t = relay.transpose %d {axes = [2, 0, 1]} : (tensor<2x3x4xf32>) -> tensor<4x2x3xf32>
  %xt = relay.transpose %x {axes = [1, 0]} : (tensor<3x4xf32>) -> tensor<4x3xf32>
  %y = relay.qnn.quantize %xt, %s, %z {axis = 0} : (tensor<4x3xf32>, tensor<4xf32>, tensor<4xi8>) -> tensor<4x3xi8>
  func.return %t, %y : tensor<4x2x3xf32>, tensor<4x3xi8>
}

// -----

// A dequantize of one scale moves below the slices of its result (each gets its own);
// a quantize stays below its slice (above it, it would convert all of the input once
// per slice).
// CHECK-LABEL: func.func @slices
// CHECK-NEXT:    %[[A:.*]] = relay.strided_slice %q {begin = [0], end = [2], axes = [1]} : (tensor<8x6xi8>) -> tensor<8x2xi8>
// CHECK-NEXT:    %{{.*}} = relay.qnn.dequantize %[[A]], %s, %z
// CHECK-NEXT:    %[[B:.*]] = relay.strided_slice %q {begin = [2], end = [4], axes = [1]} : (tensor<8x6xi8>) -> tensor<8x2xi8>
// CHECK-NEXT:    %{{.*}} = relay.qnn.dequantize %[[B]], %s, %z
// CHECK-NEXT:    %c = relay.strided_slice %x {begin = [1], end = [3]} : (tensor<4x4xf32>) -> tensor<2x4xf32>
// CHECK-NEXT:    %cq = relay.qnn.quantize %c, %s, %z
func.func @slices(%q: tensor<8x6xi8>, %s: tensor<f32>, %z: tensor<i8>, %x: tensor<4x4xf32>) -> (tensor<8x2xf32>, tensor<8x2xf32>, tensor<2x4xi8>) {
  %d = relay.qnn.dequantize %q, %s, %z : (tensor<8x6xi8>, tensor<f32>, tensor<i8>) -> tensor<8x6xf32>
  %a = relay.strided_slice %d {begin = [0], end = [2], axes = [1]} : (tensor<8x6xf32>) -> tensor<8x2xf32>
  %b = relay.strided_slice %d {begin = [2], end = [4], axes = [1]} : (tensor<8x6xf32>) -> tensor<8x2xf32>
  %c = relay.strided_slice %x {begin = [1], end = [3]} : (tensor<4x4xf32>) -> tensor<2x4xf32>
  %cq = relay.qnn.quantize %c, %s, %z : (tensor<2x4xf32>, tensor<f32>, tensor<i8>) -> tensor<2x4xi8>
  func.return %a, %b, %cq : tensor<8x2xf32>, tensor<8x2xf32>, tensor<2x4xi8>
}

// -----

// Kept: a quantize of a dequantize with another scale (a requantize), or another type;
// a per-axis dequantize before a slice along any axis.
// CHECK-LABEL: func.func @kept_pairs
// CHECK-NEXT:    %s = relay.constant
// CHECK-NEXT:    %s2 = relay.constant
// CHECK-NEXT:    %z = relay.constant
// CHECK-NEXT:    %u = relay.constant
// CHECK-NEXT:    %d = relay.qnn.dequantize %q, %s, %z
// CHECK-NEXT:    %r = relay.qnn.quantize %d, %s2, %z
// CHECK-NEXT:    %w = relay.qnn.quantize %d, %s, %u
// CHECK-NEXT:    %pd = relay.qnn.dequantize %p, %c, %e {axis = 1}
// CHECK-NEXT:    %ps = relay.strided_slice %pd
func.func @kept_pairs(%q: tensor<4xi8>, %p: tensor<2x4xi8>, %c: tensor<4xf32>, %e: tensor<4xi8>) -> (tensor<4xi8>, tensor<4xui8>, tensor<2x2xf32>) {
  %s = relay.constant dense<0.5> : tensor<f32>
  %s2 = relay.constant dense<0.25> : tensor<f32>
  %z = relay.constant dense<0> : tensor<i8>
  %u = relay.constant dense<128> : tensor<ui8>
  %d = relay.qnn.dequantize %q, %s, %z : (tensor<4xi8>, tensor<f32>, tensor<i8>) -> tensor<4xf32>
  %r = relay.qnn.quantize %d, %s2, %z : (tensor<4xf32>, tensor<f32>, tensor<i8>) -> tensor<4xi8>
  %w = relay.qnn.quantize %d, %s, %u : (tensor<4xf32>, tensor<f32>, tensor<ui8>) -> tensor<4xui8>
  %pd = relay.qnn.dequantize %p, %c, %e {axis = 1} : (tensor<2x4xi8>, tensor<4xf32>, tensor<4xi8>) -> tensor<2x4xf32>
  %ps = relay.strided_slice %pd {begin = [0], end = [2], axes = [1]} : (tensor<2x4xf32>) -> tensor<2x2xf32>
  func.return %r, %w, %ps : tensor<4xi8>, tensor<4xui8>, tensor<2x2xf32>
}

// -----

// A quantized embedding: the gather reads the int8 table and only the rows it picks are
// dequantized (a per-axis scale along another axis moves along; along the gathered axis it
// stays, as each gathered row has its own).
// CHECK-LABEL: func.func @embedding
// CHECK:         %[[T:.*]] = relay.take %t, %ids : (tensor<16x8xi8>, tensor<1x5xi64>) -> tensor<1x5x8xi8>
// CHECK-NEXT:    %e = relay.qnn.dequantize %[[T]], %s, %z : (tensor<1x5x8xi8>, tensor<f32>, tensor<i8>) -> tensor<1x5x8xf32>
// CHECK-NEXT:    %[[C:.*]] = relay.take %p, %ids {axis = 1} : (tensor<4x6xi8>, tensor<1x5xi64>) -> tensor<4x1x5xi8>
// CHECK-NEXT:    %c = relay.qnn.dequantize %[[C]], %cs, %cz {axis = 0} : (tensor<4x1x5xi8>, tensor<4xf32>, tensor<4xi8>) -> tensor<4x1x5xf32>
// CHECK-NEXT:    %pd = relay.qnn.dequantize %p, %ps, %pz {axis = 1}
// CHECK-NEXT:    %pt = relay.take %pd, %ids {axis = 1}
func.func @embedding(%ids: tensor<1x5xi64>, %p: tensor<4x6xi8>, %cs: tensor<4xf32>, %cz: tensor<4xi8>, %ps: tensor<6xf32>, %pz: tensor<6xi8>) -> (tensor<1x5x8xf32>, tensor<4x1x5xf32>, tensor<4x1x5xf32>) {
  %t = relay.constant dense<3> : tensor<16x8xi8>
  %s = relay.constant dense<0.125> : tensor<f32>
  %z = relay.constant dense<-1> : tensor<i8>
  %d = relay.qnn.dequantize %t, %s, %z : (tensor<16x8xi8>, tensor<f32>, tensor<i8>) -> tensor<16x8xf32>
  %e = relay.take %d, %ids : (tensor<16x8xf32>, tensor<1x5xi64>) -> tensor<1x5x8xf32>
  %cd = relay.qnn.dequantize %p, %cs, %cz {axis = 0} : (tensor<4x6xi8>, tensor<4xf32>, tensor<4xi8>) -> tensor<4x6xf32>
  %c = relay.take %cd, %ids {axis = 1} : (tensor<4x6xf32>, tensor<1x5xi64>) -> tensor<4x1x5xf32>
  %pd = relay.qnn.dequantize %p, %ps, %pz {axis = 1} : (tensor<4x6xi8>, tensor<6xf32>, tensor<6xi8>) -> tensor<4x6xf32>
  %pt = relay.take %pd, %ids {axis = 1} : (tensor<4x6xf32>, tensor<1x5xi64>) -> tensor<4x1x5xf32>
  func.return %e, %c, %pt : tensor<1x5x8xf32>, tensor<4x1x5xf32>, tensor<4x1x5xf32>
}
