// RUN: not accel-opt %s --split-input-file --target npu -p full -t c 2>&1 | filecheck %s

// The float host kernels are float32 or float64 (host_kernels_real.inc); bilinear
// resize is float32 only: an f64 one is one located error.
// CHECK: emit-c-math-invalid.mlir:[[# @LINE + 3]]:3: error: the host kernel of 'relay.image.resize2d' is float32 only, got tensor<1x1x4x4xf64>
// CHECK-NOT: Traceback
func.func @main(%x: tensor<1x1x2x2xf64>) -> tensor<1x1x4x4xf64> {
  %s = relay.image.resize2d %x {size = [4, 4], method = "linear"} : (tensor<1x1x2x2xf64>) -> tensor<1x1x4x4xf64>
  func.return %s : tensor<1x1x4x4xf64>
}
