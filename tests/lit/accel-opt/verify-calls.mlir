// Calls are verified against one symbol table (linear; not xDSL's per-call module scan),
// with xDSL's messages.
// RUN: not accel-opt %s --split-input-file 2>&1 | filecheck %s
// CHECK: accel-opt: {{.*}}verify-calls.mlir:[[# @LINE + 2]]:3: error: 'func.call' op '@nowhere' could not be found in symbol table
func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = func.call @nowhere(%x) : (tensor<4xf32>) -> tensor<4xf32>
  func.return %0 : tensor<4xf32>
}

// -----

// CHECK: accel-opt: {{.*}}verify-calls.mlir:[[# @LINE + 2]]:3: error: 'func.call' op operand type mismatch: expected operand type tensor<2xf32>, but provided tensor<4xf32> for operand number 0
func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = func.call @f(%x) : (tensor<4xf32>) -> tensor<4xf32>
  func.return %0 : tensor<4xf32>
}
func.func private @f(%x: tensor<2xf32>) -> tensor<4xf32>

// -----

// CHECK: accel-opt: {{.*}}verify-calls.mlir:[[# @LINE + 2]]:3: error: 'func.call' op incorrect number of results for callee
func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0:2 = func.call @g(%x) : (tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>)
  func.return %0#0 : tensor<4xf32>
}
func.func private @g(%x: tensor<4xf32>) -> tensor<4xf32>
