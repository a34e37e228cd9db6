// Every operand is defined before its use (xDSL's parser takes forward references and its
// verifier does not check dominance): one line at the user, as MLIR says it.
// RUN: not accel-opt %s --split-input-file 2>&1 | filecheck %s
// CHECK: accel-opt: {{.*}}verify-dominance.mlir:[[# @LINE + 2]]:3: error: 'relay.nn.relu' op operand #0 does not dominate this use
func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = relay.nn.relu %1 : (tensor<4xf32>) -> tensor<4xf32>
  %1 = relay.nn.relu %x : (tensor<4xf32>) -> tensor<4xf32>
  func.return %0 : tensor<4xf32>
}

// -----

// A loop body's use of a value its enclosing block defines after the loop.
// CHECK: accel-opt: {{.*}}verify-dominance.mlir:[[# @LINE + 6]]:5: error: 'arith.addi' op operand #1 does not dominate this use
func.func @main(%x: memref<4xf32>) -> index {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %r = scf.for %i = %c0 to %c4 step %c1 iter_args(%a = %c0) -> (index) {
    %j = arith.addi %i, %late : index
    scf.yield %j : index
  }
  %late = arith.constant 2 : index
  func.return %r : index
}

// -----

// Values defined before a loop are visible in its body; a well-formed function passes.
// CHECK-NOT: error
// CHECK: func.func @ok
func.func @ok(%x: memref<4xf32>) -> index {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %r = scf.for %i = %c0 to %c4 step %c1 iter_args(%a = %c0) -> (index) {
    %j = arith.addi %i, %a : index
    scf.yield %j : index
  }
  func.return %r : index
}
