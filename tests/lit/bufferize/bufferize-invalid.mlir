// RUN: not accel-opt %s -p bufferize 2>&1 | filecheck %s

// Only tensor functions are bufferized; an op outside relay/func is an error.
// CHECK: bufferize-invalid.mlir:[[# @LINE + 3]]:{{[0-9]+}}: error: bufferize: cannot bufferize 'test.op'
// CHECK-NOT: Traceback
func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = "test.op"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  func.return %y : tensor<4xf32>
}
