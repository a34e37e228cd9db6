// --split-input-file runs every chunk: outputs on stdout joined by `// -----`, each
// failing chunk's error on stderr, exit code 1 if any chunk failed.
// RUN: not accel-opt %s --split-input-file > %t.out 2> %t.err
// RUN: filecheck %s --check-prefix=OUT < %t.out
// RUN: filecheck %s --check-prefix=ERR < %t.err
// RUN: not accel-opt %s --split-input-file -o %t.never 2>/dev/null
// RUN: not ls %t.never

// OUT:      func.func @first
// OUT-NEXT: func.return
// OUT:      // -----
// OUT:      func.func @third
// OUT-NOT:  @second
// ERR:      accel-opt: {{.*}}split-input-file.mlir:[[# @LINE + 10]]:3: error: 'relay.add' op
// ERR-NEXT: accel-opt: {{.*}}split-input-file.mlir:[[# @LINE + 22]]:21: error: Operation relay.nn.rel is not registered (did you mean 'relay.nn.relu'?)
// ERR-NOT:  error
func.func @first(%x: tensor<2xf32>) -> tensor<2xf32> {
  func.return %x : tensor<2xf32>
}

// -----

func.func @second(%a: tensor<2x3xf32>, %b: tensor<2xf32>) -> tensor<2x3xf32> {
  %y = relay.add %a, %b : (tensor<2x3xf32>, tensor<2xf32>) -> tensor<2x3xf32>
  func.return %y : tensor<2x3xf32>
}

// -----

func.func @third(%x: tensor<2xf32>) -> tensor<2xf32> {
  func.return %x : tensor<2xf32>
}

// -----

func.func @fourth(%x: tensor<2xf32>) -> tensor<2xf32> {
  %y = relay.nn.rel %x : tensor<2xf32>
  func.return %y : tensor<2xf32>
}
