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
