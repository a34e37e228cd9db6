// fold-constants: ops on constants are evaluated with the interpreter's semantics.
// RUN: accel-opt %s --split-input-file -p fold-constants | filecheck %s
// RUN: not accel-opt %s -p 'fold-constants{limit=4}' 2>&1 | filecheck %s --check-prefix=OPTION

// OPTION: accel-opt: error: pass 'fold-constants' has no option 'limit' (options: dequantize)
// OPTION-NOT: Traceback

// A chain folds in one sweep; the dead constants go.
// CHECK-LABEL: func.func @chain
// CHECK-NEXT:    %[[C:.*]] = relay.constant dense<[2.000000e+00, 6.000000e+00]> : tensor<2xf32>
// CHECK-NEXT:    %[[Y:.*]] = relay.add %x, %[[C]] : tensor<2xf32>
// CHECK-NEXT:    func.return %[[Y]]
func.func @chain(%x: tensor<2xf32>) -> tensor<2xf32> {
  %a = relay.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %b = relay.constant dense<[2.0, 3.0]> : tensor<2xf32>
  %0 = relay.multiply %a, %b : tensor<2xf32>
  %1 = relay.nn.relu %0 : tensor<2xf32>
  %2 = relay.subtract %1, %a : tensor<2xf32>
  %3 = relay.add %2, %a : tensor<2xf32>
  %4 = relay.add %x, %3 : tensor<2xf32>
  func.return %4 : tensor<2xf32>
}

// -----

// Quantize of constant weights: an int8 constant, the dequantize stays.
// CHECK-LABEL: func.func @quantize_weights
// CHECK-NEXT:    %[[S:.*]] = relay.constant dense<5.000000e-01> : tensor<f32>
// CHECK-NEXT:    %[[Z:.*]] = relay.constant dense<1> : tensor<i8>
// CHECK-NEXT:    %[[Q:.*]] = relay.constant dense<[3, -1, 127, -128]> : tensor<4xi8>
// CHECK-NEXT:    %[[D:.*]] = relay.qnn.dequantize %[[Q]], %[[S]], %[[Z]]
// CHECK-NEXT:    relay.multiply %x, %[[D]]
func.func @quantize_weights(%x: tensor<4xf32>) -> tensor<4xf32> {
  %w = relay.constant dense<[1.0, -1.0, 100.0, -100.0]> : tensor<4xf32>
  %s = relay.constant dense<0.5> : tensor<f32>
  %z = relay.constant dense<1> : tensor<i8>
  %q = relay.qnn.quantize %w, %s, %z : (tensor<4xf32>, tensor<f32>, tensor<i8>) -> tensor<4xi8>
  %d = relay.qnn.dequantize %q, %s, %z : (tensor<4xi8>, tensor<f32>, tensor<i8>) -> tensor<4xf32>
  %y = relay.multiply %x, %d : tensor<4xf32>
  func.return %y : tensor<4xf32>
}

// -----

// Shape ops fold too; a constant still used elsewhere stays.
// CHECK-LABEL: func.func @shape
// CHECK-NEXT:    %[[A:.*]] = relay.constant dense<{{\[\[}}1.000000e+00, 2.000000e+00], [3.000000e+00, 4.000000e+00]]> : tensor<2x2xf32>
// CHECK-NEXT:    %[[T:.*]] = relay.constant dense<{{\[\[}}1.000000e+00, 3.000000e+00], [2.000000e+00, 4.000000e+00]]> : tensor<2x2xf32>
// CHECK-NEXT:    relay.add %x, %[[T]]
// CHECK-NEXT:    relay.add %x, %[[A]]
func.func @shape(%x: tensor<2x2xf32>) -> (tensor<2x2xf32>, tensor<2x2xf32>) {
  %a = relay.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
  %t = relay.transpose %a : tensor<2x2xf32>
  %0 = relay.add %x, %t : tensor<2x2xf32>
  %1 = relay.add %x, %a : tensor<2x2xf32>
  func.return %0, %1 : tensor<2x2xf32>, tensor<2x2xf32>
}

// -----

// YOLOv8's anchor grid after quantize_static: a range of constants plus 0.5, each step
// between a quantize and a dequantize, then expanded. Every reader of each dequantize
// folds with it: the whole computation becomes one constant.
// CHECK-LABEL: func.func @constant_grid
// CHECK-NEXT:    %[[G:.*]] = relay.constant dense<{{\[\[}}5.000000e-01, 5.000000e-01], [1.500000e+00, 1.500000e+00]]> : tensor<2x2xf32>
// CHECK-NEXT:    %y = relay.add %x, %[[G]]
// CHECK-NEXT:    func.return %y
func.func @constant_grid(%x: tensor<2x2xf32>) -> tensor<2x2xf32> {
  %r = relay.constant dense<[0, 2]> : tensor<2xi8>
  %s = relay.constant dense<0.5> : tensor<f32>
  %z = relay.constant dense<0> : tensor<i8>
  %half = relay.constant dense<1> : tensor<i8>
  %rd = relay.qnn.dequantize %r, %s, %z : (tensor<2xi8>, tensor<f32>, tensor<i8>) -> tensor<2xf32>
  %hd = relay.qnn.dequantize %half, %s, %z : (tensor<i8>, tensor<f32>, tensor<i8>) -> tensor<f32>
  %a = relay.add %rd, %hd : (tensor<2xf32>, tensor<f32>) -> tensor<2xf32>
  %q = relay.qnn.quantize %a, %s, %z : (tensor<2xf32>, tensor<f32>, tensor<i8>) -> tensor<2xi8>
  %c = relay.reshape %q {newshape = [2, 1]} : (tensor<2xi8>) -> tensor<2x1xi8>
  %d = relay.qnn.dequantize %c, %s, %z : (tensor<2x1xi8>, tensor<f32>, tensor<i8>) -> tensor<2x1xf32>
  %g = relay.broadcast_to %d {shape = [2, 2]} : (tensor<2x1xf32>) -> tensor<2x2xf32>
  %y = relay.add %x, %g : tensor<2x2xf32>
  func.return %y : tensor<2x2xf32>
}
