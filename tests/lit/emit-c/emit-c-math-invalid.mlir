// RUN: not accel-opt %s --split-input-file --target npu -p full -t c 2>&1 | filecheck %s

// The float host kernels of sqrt/exp/log are float32 only: f64 is one located error.
// CHECK: emit-c-math-invalid.mlir:[[# @LINE + 3]]:3: error: the host kernel of 'relay.sqrt' is float32 only, got tensor<4xf64>
// CHECK-NOT: Traceback
func.func @main(%x: tensor<4xf64>) -> tensor<4xf64> {
  %s = relay.sqrt %x : tensor<4xf64>
  func.return %s : tensor<4xf64>
}
