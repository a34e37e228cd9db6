// External weights: `relay.weights` is resolved against the IR file's directory, not
// the working directory. The IR and its weights are copied into a scratch directory.
// RUN: %python -c "import numpy as np, os, shutil; os.makedirs('%t', exist_ok=True); shutil.copy('%s', '%t/model.mlir'); np.savez('%t/w.npz', k=np.array([[1, 2], [3, 4], [5, 6]], np.float32)); np.savez('%t.in.npz', x=np.array([[1, 1], [0, -1]], np.float32))"
// RUN: accel-run %t/model.mlir --inputs %t.in.npz | filecheck %s
// CHECK: y = {{\[}}[3.0, 7.0, 11.0], [-2.0, -4.0, -6.0]] : tensor<2x3xf32>

// A missing weights file is one located line.
// RUN: %python -c "import os; os.remove('%t/w.npz')"
// RUN: not accel-run %t/model.mlir --inputs %t.in.npz 2>&1 | filecheck %s --check-prefix=MISSING
// MISSING: accel-run: {{.*}}model.mlir:[[# @LINE + 5]]:5: error: 'relay.constant' op {{.*}}w.npz: weights file not found
// MISSING-NOT: Traceback

builtin.module attributes {relay.weights = "w.npz"} {
  func.func @main(%x: tensor<2x2xf32>) -> (tensor<2x3xf32> {accel.name = "y"}) {
    %k = relay.constant external "k" : tensor<3x2xf32>
    %y = relay.nn.dense %x, %k : (tensor<2x2xf32>, tensor<3x2xf32>) -> tensor<2x3xf32>
    func.return %y : tensor<2x3xf32>
  }
}
