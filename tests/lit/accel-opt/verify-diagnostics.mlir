// --verify-diagnostics has MLIR's semantics: every `expected-error` must be produced
// at its line with its text, every error must be expected, and every chunk runs.
// RUN: accel-opt %s --split-input-file --verify-diagnostics | filecheck %s --check-prefix=OUT
// RUN: sed 's/{{input channels per group}}/{{no such text}}/' %s > %t.text.mlir
// RUN: not accel-opt %t.text.mlir --split-input-file --verify-diagnostics 2>&1 | filecheck %s --check-prefix=TEXT
// RUN: sed 's/expected-error {{not broadcast-compatible}}/expected-error @-1 {{not broadcast-compatible}}/' %s > %t.line.mlir
// RUN: not accel-opt %t.line.mlir --split-input-file --verify-diagnostics 2>&1 | filecheck %s --check-prefix=LINE
// RUN: sed 's/expected-error.*$//' %s > %t.none.mlir
// RUN: not accel-opt %t.none.mlir --split-input-file --verify-diagnostics 2>&1 | filecheck %s --check-prefix=NONE

// TEXT: accel-opt: {{.*}}text.mlir:[[# @LINE + 4]]:3: error: 'relay.nn.conv2d' op operand 'weight' {{.*}} (unexpected error: no expected-error annotation matches it)
// TEXT: accel-opt: {{.*}}text.mlir:[[# @LINE + 3]]: error: expected error at line [[# @LINE + 3]] containing 'no such text' was not produced
// NONE: accel-opt: {{.*}}none.mlir:[[# @LINE + 2]]:3: error: 'relay.nn.conv2d' op operand 'weight' {{.*}} (unexpected error: no expected-error annotation matches it)
func.func @wrong(%x: tensor<1x3x8x8xf32>, %w: tensor<8x4x3x3xf32>) -> tensor<1x8x6x6xf32> {
  %y = relay.nn.conv2d %x, %w : (tensor<1x3x8x8xf32>, tensor<8x4x3x3xf32>) -> tensor<1x8x6x6xf32> // expected-error {{input channels per group}}
  func.return %y : tensor<1x8x6x6xf32>
}

// -----

// A chunk without errors prints its output.
// OUT: func.func @fine
func.func @fine(%x: tensor<2xf32>) -> tensor<2xf32> {
  func.return %x : tensor<2xf32>
}

// -----

// LINE: accel-opt: {{.*}}line.mlir:[[# @LINE + 4]]:3: error: 'relay.add' op {{.*}} (unexpected error: no expected-error annotation matches it)
// LINE: accel-opt: {{.*}}line.mlir:[[# @LINE + 3]]: error: expected error at line [[# @LINE + 2]] containing 'not broadcast-compatible' was not produced
// NONE: accel-opt: {{.*}}none.mlir:[[# @LINE + 2]]:3: error: 'relay.add' op {{.*}} (unexpected error: no expected-error annotation matches it)
func.func @second(%a: tensor<2x3xf32>, %b: tensor<2xf32>) -> tensor<2x3xf32> {
  %y = relay.add %a, %b : (tensor<2x3xf32>, tensor<2xf32>) -> tensor<2x3xf32> // expected-error {{not broadcast-compatible}}
  func.return %y : tensor<2x3xf32>
}
