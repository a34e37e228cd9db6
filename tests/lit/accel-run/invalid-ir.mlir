// Parse and verifier errors are located, as in accel-opt.
// RUN: not accel-run %s --split 2>&1 | filecheck %s --check-prefix=FLAG
// FLAG: accel-run: error: unrecognized arguments: --split
// RUN: %python -c "open('%t.bad.mlir', 'w').write('func.func @main() {\n  %%0 = relay.nn.relu : tensor<2xf32>\n}\n')"
// RUN: not accel-run %t.bad.mlir 2>&1 | filecheck %s --check-prefix=PARSE
// PARSE: accel-run: {{.*}}bad.mlir:2:{{[0-9]+}}: error: {{.+}}
// PARSE-NOT: Traceback
// RUN: not accel-run %s 2>&1 | filecheck %s
// CHECK: accel-run: {{.*}}invalid-ir.mlir:[[# @LINE + 3]]:3: error: 'relay.nn.conv2d' op operand 'weight' has 4 input channels per group, expected 3
// CHECK-NOT: Traceback
func.func @main(%x: tensor<1x3x8x8xf32>, %w: tensor<8x4x3x3xf32>) -> tensor<1x8x6x6xf32> {
  %y = relay.nn.conv2d %x, %w : (tensor<1x3x8x8xf32>, tensor<8x4x3x3xf32>) -> tensor<1x8x6x6xf32>
  func.return %y : tensor<1x8x6x6xf32>
}
