// RUN: not accel-opt %s -t c 2>&1 | filecheck %s

// C is emitted from the final IR only: relay on tensors has not been bufferized.
// CHECK: emit-c-invalid.mlir:[[# @LINE + 3]]:3: error: C is emitted from lowered IR, but 'relay.tanh' still works on tensors (run the 'full' pipeline first)
// CHECK-NOT: Traceback
func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %t = relay.tanh %x : tensor<4xf32>
  func.return %t : tensor<4xf32>
}
