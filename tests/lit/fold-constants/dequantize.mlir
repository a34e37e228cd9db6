// fold-constants{dequantize=true}: the dequantize of constant weights folds too (a module
// that runs on the host); without the option it stays, and a run-time operand is never folded.
// RUN: accel-opt %s --split-input-file -p 'fold-constants{dequantize=true}' | filecheck %s
// RUN: accel-opt %s --split-input-file -p fold-constants | filecheck %s --check-prefix=KEPT
// RUN: not accel-opt %s -p 'fold-constants{dequantize=maybe}' 2>&1 | filecheck %s --check-prefix=BAD

// BAD: error:{{.*}}dequantize

// Per-tensor weights: quantize then dequantize of a constant both fold.
// CHECK-LABEL: func.func @weights
// CHECK-NEXT:    %[[D:.*]] = relay.constant dense<[1.000000e+00, -1.000000e+00, 6.300000e+01, -6.450000e+01]> : tensor<4xf32>
// CHECK-NEXT:    relay.multiply %x, %[[D]]
// KEPT-LABEL: func.func @weights
// KEPT:         relay.qnn.dequantize
func.func @weights(%x: tensor<4xf32>) -> tensor<4xf32> {
  %w = relay.constant dense<[1.0, -1.0, 100.0, -100.0]> : tensor<4xf32>
  %s = relay.constant dense<0.5> : tensor<f32>
  %z = relay.constant dense<1> : tensor<i8>
  %q = relay.qnn.quantize %w, %s, %z : (tensor<4xf32>, tensor<f32>, tensor<i8>) -> tensor<4xi8>
  %d = relay.qnn.dequantize %q, %s, %z : (tensor<4xi8>, tensor<f32>, tensor<i8>) -> tensor<4xf32>
  %y = relay.multiply %x, %d : tensor<4xf32>
  func.return %y : tensor<4xf32>
}

// -----

// Per-channel (axis 0) int8 weights.
// CHECK-LABEL: func.func @per_channel
// CHECK-NEXT:    relay.constant dense<{{\[\[}}1.000000e+00, 2.000000e+00], [-9.000000e+00, 0.000000e+00]]> : tensor<2x2xf32>
// CHECK-NOT:     relay.qnn.dequantize
// KEPT-LABEL: func.func @per_channel
// KEPT:         relay.qnn.dequantize
func.func @per_channel() -> tensor<2x2xf32> {
  %q = relay.constant dense<[[2, 4], [-2, 1]]> : tensor<2x2xi8>
  %s = relay.constant dense<[0.5, 3.0]> : tensor<2xf32>
  %z = relay.constant dense<[0, 1]> : tensor<2xi8>
  %d = relay.qnn.dequantize %q, %s, %z {axis = 0 : i64} : (tensor<2x2xi8>, tensor<2xf32>, tensor<2xi8>) -> tensor<2x2xf32>
  func.return %d : tensor<2x2xf32>
}

// -----

// An activation (a run-time operand) keeps its dequantize.
// CHECK-LABEL: func.func @activation
// CHECK:         relay.qnn.dequantize %q
func.func @activation(%q: tensor<4xi8>) -> tensor<4xf32> {
  %s = relay.constant dense<0.5> : tensor<f32>
  %z = relay.constant dense<1> : tensor<i8>
  %d = relay.qnn.dequantize %q, %s, %z : (tensor<4xi8>, tensor<f32>, tensor<i8>) -> tensor<4xf32>
  func.return %d : tensor<4xf32>
}
