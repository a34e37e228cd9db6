// RUN: not accel-opt %s --split-input-file --target npu -p full -t c 2>&1 | filecheck %s

// The float host kernels have float32 and float64 instances (host_kernels_real.inc);
// an f16 operand of one is one located error, not a call of a kernel that does not exist.
// CHECK: emit-c-math-invalid.mlir:[[# @LINE + 4]]:3: error: the C backend has no type for f16 values (keep the model in f32 or integer types)
// CHECK-NOT: Traceback
func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %e = relay.exp %x : tensor<4xf32>
  %h = relay.cast %e : tensor<4xf32> -> tensor<4xf16>
  %s = relay.sqrt %h : tensor<4xf16>
  %f = relay.cast %s : tensor<4xf16> -> tensor<4xf32>
  func.return %f : tensor<4xf32>
}
