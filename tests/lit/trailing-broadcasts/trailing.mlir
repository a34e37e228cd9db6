// trailing-broadcasts: binary elementwise ops whose operand broadcasts along leading axes
// (which the npu's entries do not take) run on a transposed layout in which it is trailing.
// RUN: accel-opt %s --split-input-file --target npu -p trailing-broadcasts | filecheck %s
// RUN: accel-opt %s --split-input-file --target npu -p byoc | filecheck %s --check-prefix=BYOC

// A squeeze-and-excitation gate: channels last, the gate reshaped to [C], channels back.
// Partitioned with the conv and the gate's sigmoid, one npu region.
// CHECK-LABEL: func.func @se
// CHECK:         %[[T:.*]] = relay.transpose %c {axes = [0, 2, 3, 1]} : (tensor<1x8x4x4xf32>) -> tensor<1x4x4x8xf32>
// CHECK-NEXT:    %[[G:.*]] = relay.reshape %g {newshape = [8]} : (tensor<1x8x1x1xf32>) -> tensor<8xf32>
// CHECK-NEXT:    %[[M:.*]] = relay.multiply %[[T]], %[[G]] : (tensor<1x4x4x8xf32>, tensor<8xf32>) -> tensor<1x4x4x8xf32>
// CHECK-NEXT:    %y = relay.transpose %[[M]] {axes = [0, 3, 1, 2]} : (tensor<1x4x4x8xf32>) -> tensor<1x8x4x4xf32>
// BYOC-LABEL: func.func @se
// BYOC-NEXT:    %y = func.call @npu_0(%x, %s)
// BYOC-NEXT:    func.return
func.func @se(%x: tensor<1x3x6x6xf32>, %s: tensor<1x8x1x1xf32>) -> tensor<1x8x4x4xf32> {
  %w = relay.constant dense<0.5> : tensor<8x3x3x3xf32>
  %c = relay.nn.conv2d %x, %w : (tensor<1x3x6x6xf32>, tensor<8x3x3x3xf32>) -> tensor<1x8x4x4xf32>
  %g = relay.sigmoid %s : tensor<1x8x1x1xf32>
  %y = relay.multiply %c, %g : (tensor<1x8x4x4xf32>, tensor<1x8x1x1xf32>) -> tensor<1x8x4x4xf32>
  func.return %y : tensor<1x8x4x4xf32>
}

// -----

// The gate on the left of a multiply (commutative: it goes right); a constant per-row
// offset subtracted from a [2, 3, 5] tensor (the full operand stays on the left; the
// constant is reshaped at compile time).
// CHECK-LABEL: func.func @left_and_constant
// CHECK:         %[[T:.*]] = relay.transpose %x {axes = [0, 2, 1]} : (tensor<2x3x5xf32>) -> tensor<2x5x3xf32>
// CHECK-NEXT:    %[[G:.*]] = relay.reshape %g {newshape = [3]}
// CHECK-NEXT:    %[[M:.*]] = relay.multiply %[[G]], %[[T]] : (tensor<3xf32>, tensor<2x5x3xf32>) -> tensor<2x5x3xf32>
// CHECK-NEXT:    %m = relay.transpose %[[M]] {axes = [0, 2, 1]}
// CHECK:         %[[C:.*]] = relay.constant dense<[1.000000e+00, 2.000000e+00, 3.000000e+00]> : tensor<3xf32>
// CHECK:         relay.subtract %{{.*}}, %[[C]] : (tensor<2x5x3xf32>, tensor<3xf32>) -> tensor<2x5x3xf32>
func.func @left_and_constant(%x: tensor<2x3x5xf32>, %g: tensor<3x1xf32>) -> (tensor<2x3x5xf32>, tensor<2x3x5xf32>) {
  %m = relay.multiply %g, %x : (tensor<3x1xf32>, tensor<2x3x5xf32>) -> tensor<2x3x5xf32>
  %o = relay.constant dense<[[1.0], [2.0], [3.0]]> : tensor<3x1xf32>
  %d = relay.subtract %x, %o : (tensor<2x3x5xf32>, tensor<3x1xf32>) -> tensor<2x3x5xf32>
  func.return %m, %d : tensor<2x3x5xf32>, tensor<2x3x5xf32>
}

// -----

// Left alone: a trailing broadcast (the npu takes it), a divide whose broadcast operand is
// on the left (the targets broadcast their right operand), and a two-sided broadcast.
// CHECK-LABEL: func.func @left_alone
// CHECK-NOT:     relay.transpose
// CHECK:         relay.add %x, %row
// CHECK:         relay.divide %g, %x
// CHECK:         relay.add %a, %b
func.func @left_alone(%x: tensor<2x3x5xf32>, %row: tensor<5xf32>, %g: tensor<3x1xf32>, %a: tensor<3x1xf32>, %b: tensor<1x5xf32>) -> (tensor<2x3x5xf32>, tensor<2x3x5xf32>, tensor<3x5xf32>) {
  %0 = relay.add %x, %row : (tensor<2x3x5xf32>, tensor<5xf32>) -> tensor<2x3x5xf32>
  %1 = relay.divide %g, %x : (tensor<3x1xf32>, tensor<2x3x5xf32>) -> tensor<2x3x5xf32>
  %2 = relay.add %a, %b : (tensor<3x1xf32>, tensor<1x5xf32>) -> tensor<3x5xf32>
  func.return %0, %1, %2 : tensor<2x3x5xf32>, tensor<2x3x5xf32>, tensor<3x5xf32>
}

// -----

// QDQ (onnxruntime's int8 gate product): the int8 data is transposed and reshaped, the
// dequantizes and the quantize stay by the multiply, which the npu's qmultiply takes
// (an int8 product whose rhs broadcasts along the trailing dims).
// CHECK-LABEL: func.func @qdq_gate
// CHECK:         %[[T:.*]] = relay.transpose %q {axes = [0, 2, 3, 1]} : (tensor<1x8x4x4xi8>) -> tensor<1x4x4x8xi8>
// CHECK-NEXT:    %[[G:.*]] = relay.reshape %gq {newshape = [8]} : (tensor<1x8x1x1xi8>) -> tensor<8xi8>
// CHECK-NEXT:    %[[A:.*]] = relay.qnn.dequantize %[[T]], %xs, %xz : (tensor<1x4x4x8xi8>, tensor<f32>, tensor<i8>) -> tensor<1x4x4x8xf32>
// CHECK-NEXT:    %[[B:.*]] = relay.qnn.dequantize %[[G]], %gs, %gz : (tensor<8xi8>, tensor<f32>, tensor<i8>) -> tensor<8xf32>
// CHECK-NEXT:    %[[M:.*]] = relay.multiply %[[A]], %[[B]] : (tensor<1x4x4x8xf32>, tensor<8xf32>) -> tensor<1x4x4x8xf32>
// CHECK-NEXT:    %[[Q:.*]] = relay.qnn.quantize %[[M]], %ys, %yz : (tensor<1x4x4x8xf32>, tensor<f32>, tensor<i8>) -> tensor<1x4x4x8xi8>
// CHECK-NEXT:    %y = relay.transpose %[[Q]] {axes = [0, 3, 1, 2]} : (tensor<1x4x4x8xi8>) -> tensor<1x8x4x4xi8>
// CHECK-NEXT:    func.return %y
// BYOC-LABEL: func.func @qdq_gate
// BYOC:         relay.composite "npu.qmultiply" (%{{.*}}, %xs, %xz, %{{.*}}, %gs, %gz, %ys, %yz)
func.func @qdq_gate(%q: tensor<1x8x4x4xi8>, %gq: tensor<1x8x1x1xi8>) -> tensor<1x8x4x4xi8> {
  %xs = relay.constant dense<0.05> : tensor<f32>
  %xz = relay.constant dense<3> : tensor<i8>
  %gs = relay.constant dense<0.0078125> : tensor<f32>
  %gz = relay.constant dense<-128> : tensor<i8>
  %ys = relay.constant dense<0.04> : tensor<f32>
  %yz = relay.constant dense<0> : tensor<i8>
  %x = relay.qnn.dequantize %q, %xs, %xz : (tensor<1x8x4x4xi8>, tensor<f32>, tensor<i8>) -> tensor<1x8x4x4xf32>
  %g = relay.qnn.dequantize %gq, %gs, %gz : (tensor<1x8x1x1xi8>, tensor<f32>, tensor<i8>) -> tensor<1x8x1x1xf32>
  %m = relay.multiply %x, %g : (tensor<1x8x4x4xf32>, tensor<1x8x1x1xf32>) -> tensor<1x8x4x4xf32>
  %y = relay.qnn.quantize %m, %ys, %yz : (tensor<1x8x4x4xf32>, tensor<f32>, tensor<i8>) -> tensor<1x8x4x4xi8>
  func.return %y : tensor<1x8x4x4xi8>
}
