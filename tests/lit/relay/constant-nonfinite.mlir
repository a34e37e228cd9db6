// relay.constant with nan / inf elements prints the hex form of its buffer, which parses
// back bit-exactly. The generic form round-trips too: xDSL 0.74 prints such elements as
// hex bit patterns (`dense<0xFF800000>`), which its own attribute parser read back as
// integers; accel reads them as MLIR does (dialects/xdsl_fixes.py).
// RUN: accel-opt %s | accel-opt | filecheck %s
// RUN: accel-opt %s --print-op-generic | accel-opt | filecheck %s

func.func @non_finite() -> (tensor<4xf32>, tensor<2xf16>, tensor<3xf32>, tensor<2xf32>) {
  // nan, inf, -inf, 1.5
  %a = relay.constant dense<"0x0000C07F0000807F000080FF0000C03F"> : tensor<4xf32>
  // -inf, 0.5
  %b = relay.constant dense<"0x00FC0038"> : tensor<2xf16>
  // A splat given in hex is expanded to every element.
  %c = relay.constant dense<"0x0000807F"> : tensor<3xf32>
  // Hex elements of a list are bit patterns, as in MLIR: nan, 1.5
  %d = relay.constant dense<[0x7FC00000, 1.5]> : tensor<2xf32>
  func.return %a, %b, %c, %d : tensor<4xf32>, tensor<2xf16>, tensor<3xf32>, tensor<2xf32>
}
// CHECK-LABEL: func.func @non_finite
// CHECK-NEXT:  %a = relay.constant dense<"0x0000C07F0000807F000080FF0000C03F"> : tensor<4xf32>
// CHECK-NEXT:  %b = relay.constant dense<"0x00FC0038"> : tensor<2xf16>
// CHECK-NEXT:  %c = relay.constant dense<"0x0000807F0000807F0000807F"> : tensor<3xf32>
// CHECK-NEXT:  %d = relay.constant dense<"0x0000C07F0000C03F"> : tensor<2xf32>
