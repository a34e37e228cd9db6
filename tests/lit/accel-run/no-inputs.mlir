// A function without arguments needs no --inputs.
// RUN: accel-run %s | filecheck %s
// CHECK: out0 = {{\[}}1, -3] : tensor<2xi32>
// CHECK-NEXT: out1 = {{\[}}-128, 127] : tensor<2xi8>
func.func @main() -> (tensor<2xi32>, tensor<2xi8>) {
  %a = relay.constant dense<[7, -7]> : tensor<2xi32>
  %b = relay.constant dense<[4, 2]> : tensor<2xi32>
  // integer division truncates toward zero
  %q = relay.divide %a, %b : tensor<2xi32>
  %f = relay.constant dense<[-300.5, 1.0e10]> : tensor<2xf32>
  // float -> int casts saturate
  %c = relay.cast %f : tensor<2xf32> -> tensor<2xi8>
  func.return %q, %c : tensor<2xi32>, tensor<2xi8>
}
