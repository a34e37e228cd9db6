// relay.constant with nan / inf elements prints the hex form of its buffer, which parses
// back bit-exactly (xDSL 0.74 prints such elements of a dense<[...]> list as hex integers,
// which its parser then reads as numbers; so only the custom form is round-tripped here).
// RUN: accel-opt %s | accel-opt | filecheck %s

func.func @non_finite() -> (tensor<4xf32>, tensor<2xf16>, tensor<3xf32>) {
  // nan, inf, -inf, 1.5
  %a = relay.constant dense<"0x0000C07F0000807F000080FF0000C03F"> : tensor<4xf32>
  // -inf, 0.5
  %b = relay.constant dense<"0x00FC0038"> : tensor<2xf16>
  // A splat given in hex is expanded to every element.
  %c = relay.constant dense<"0x0000807F"> : tensor<3xf32>
  func.return %a, %b, %c : tensor<4xf32>, tensor<2xf16>, tensor<3xf32>
}
// CHECK-LABEL: func.func @non_finite
// CHECK-NEXT:  %a = relay.constant dense<"0x0000C07F0000807F000080FF0000C03F"> : tensor<4xf32>
// CHECK-NEXT:  %b = relay.constant dense<"0x00FC0038"> : tensor<2xf16>
// CHECK-NEXT:  %c = relay.constant dense<"0x0000807F0000807F0000807F"> : tensor<3xf32>
