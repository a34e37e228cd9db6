// fold-constants: what is not folded.
// RUN: accel-opt %s --split-input-file -p fold-constants | filecheck %s

// A run-time operand.
// CHECK-LABEL: func.func @runtime
// CHECK:         relay.multiply %x, %a
func.func @runtime(%x: tensor<2xf32>) -> tensor<2xf32> {
  %a = relay.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %0 = relay.multiply %x, %a : tensor<2xf32>
  func.return %0 : tensor<2xf32>
}

// -----

// Dequantize marks quantized weights for the int8 patterns.
// CHECK-LABEL: func.func @dequantize
// CHECK:         relay.qnn.dequantize %q, %s, %z
func.func @dequantize() -> tensor<2xf32> {
  %q = relay.constant dense<[1, 2]> : tensor<2xi8>
  %s = relay.constant dense<0.5> : tensor<f32>
  %z = relay.constant dense<0> : tensor<i8>
  %d = relay.qnn.dequantize %q, %s, %z : (tensor<2xi8>, tensor<f32>, tensor<i8>) -> tensor<2xf32>
  func.return %d : tensor<2xf32>
}

// -----

// Integer division by zero fails where the graph runs, not at compile time.
// CHECK-LABEL: func.func @div_by_zero
// CHECK:         relay.divide %a, %b
func.func @div_by_zero() -> tensor<2xi32> {
  %a = relay.constant dense<[1, 2]> : tensor<2xi32>
  %b = relay.constant dense<[1, 0]> : tensor<2xi32>
  %0 = relay.divide %a, %b : tensor<2xi32>
  func.return %0 : tensor<2xi32>
}

// -----

// A dequantized layer norm scale (quantize_static's) folds: only norms read it, in float.
// A dequantize that a product reads too stays.
// CHECK-LABEL: func.func @norm_parameter
// CHECK:         %g = relay.constant dense<[1.000000e+00, 1.500000e+00, 2.000000e+00, 2.500000e+00]> : tensor<4xf32>
// CHECK-NEXT:    %b = relay.constant
// CHECK-NEXT:    %y = relay.nn.layer_norm %x, %g, %b
// CHECK:         %d2 = relay.qnn.dequantize
// CHECK-NEXT:    %n = relay.nn.layer_norm %x, %d2, %b
// CHECK-NEXT:    %m = relay.multiply %x, %d2
func.func @norm_parameter(%x: tensor<2x4xf32>) -> (tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>) {
  %q = relay.constant dense<[2, 3, 4, 5]> : tensor<4xi8>
  %s = relay.constant dense<0.5> : tensor<f32>
  %z = relay.constant dense<0> : tensor<i8>
  %g = relay.qnn.dequantize %q, %s, %z : (tensor<4xi8>, tensor<f32>, tensor<i8>) -> tensor<4xf32>
  %b = relay.constant dense<0.25> : tensor<4xf32>
  %y = relay.nn.layer_norm %x, %g, %b {axis = 1} : (tensor<2x4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  %q2 = relay.constant dense<[1, 1, 1, 1]> : tensor<4xi8>
  %d2 = relay.qnn.dequantize %q2, %s, %z : (tensor<4xi8>, tensor<f32>, tensor<i8>) -> tensor<4xf32>
  %n = relay.nn.layer_norm %x, %d2, %b {axis = 1} : (tensor<2x4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  %m = relay.multiply %x, %d2 : (tensor<2x4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  func.return %y, %n, %m : tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>
}

// -----

// A dequantize of a constant that an op with a run-time operand reads stays (the int8
// form of the patterns), though another reader of it folds.
// CHECK-LABEL: func.func @dequantize_read_at_run_time
// CHECK:         %[[D:.*]] = relay.qnn.dequantize %q, %s, %z
// CHECK:         relay.add %x, %[[D]]
func.func @dequantize_read_at_run_time(%x: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>) {
  %q = relay.constant dense<[1, 2]> : tensor<2xi8>
  %s = relay.constant dense<0.5> : tensor<f32>
  %z = relay.constant dense<0> : tensor<i8>
  %d = relay.qnn.dequantize %q, %s, %z : (tensor<2xi8>, tensor<f32>, tensor<i8>) -> tensor<2xf32>
  %twice = relay.add %d, %d : tensor<2xf32>
  %y = relay.add %x, %d : tensor<2xf32>
  func.return %y, %twice : tensor<2xf32>, tensor<2xf32>
}

// -----

// A QDQ Conv1d's weight: its dequantize of constants reaches the conv's weight through a
// reshape (to the 2-D kernel); it stays, for the int8 patterns (propagate-qdq moves it
// below the reshape).
// CHECK-LABEL: func.func @dequantized_weight_reshaped
// CHECK:         relay.qnn.dequantize %wq, %ws, %wz
// CHECK-NEXT:    relay.reshape
// CHECK-NEXT:    relay.nn.conv2d
func.func @dequantized_weight_reshaped(%x: tensor<1x4x16x1xf32>) -> tensor<1x8x16x1xf32> {
  %wq = relay.constant dense<3> : tensor<8x4x1xi8>
  %ws = relay.constant dense<0.25> : tensor<f32>
  %wz = relay.constant dense<0> : tensor<i8>
  %wd = relay.qnn.dequantize %wq, %ws, %wz : (tensor<8x4x1xi8>, tensor<f32>, tensor<i8>) -> tensor<8x4x1xf32>
  %w = relay.reshape %wd {newshape = [8, 4, 1, 1]} : (tensor<8x4x1xf32>) -> tensor<8x4x1x1xf32>
  %c = relay.nn.conv2d %x, %w : (tensor<1x4x16x1xf32>, tensor<8x4x1x1xf32>) -> tensor<1x8x16x1xf32>
  func.return %c : tensor<1x8x16x1xf32>
}
