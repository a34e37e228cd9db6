// Verifier errors of relay.cast's narrow-type properties: one located line each.
// RUN: not accel-opt %s --split-input-file 2>&1 | filecheck %s

func.func @saturate_not_float8(%x: tensor<4xf32>) -> tensor<4xf16> {
  // CHECK: narrow-types-invalid.mlir:[[# @LINE + 1]]:3: error: 'relay.cast' op property 'saturate' = false applies to float8 results only, not f16
  %y = relay.cast %x {saturate = false} : tensor<4xf32> -> tensor<4xf16>
  func.return %y : tensor<4xf16>
}

// -----

func.func @round_mode_not_e8m0(%x: tensor<4xf32>) -> tensor<4xf8E4M3FN> {
  // CHECK: narrow-types-invalid.mlir:[[# @LINE + 1]]:3: error: 'relay.cast' op property 'round_mode' applies to f8E8M0FNU results only, not f8E4M3FN
  %y = relay.cast %x {round_mode = "down"} : tensor<4xf32> -> tensor<4xf8E4M3FN>
  func.return %y : tensor<4xf8E4M3FN>
}

// -----

func.func @round_mode_unknown(%x: tensor<4xf32>) -> tensor<4xf8E8M0FNU> {
  // CHECK: narrow-types-invalid.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: {{.*}}round_mode{{.*}}
  %y = relay.cast %x {round_mode = "sideways"} : tensor<4xf32> -> tensor<4xf8E8M0FNU>
  func.return %y : tensor<4xf8E8M0FNU>
}
