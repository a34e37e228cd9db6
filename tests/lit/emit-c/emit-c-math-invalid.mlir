// RUN: not accel-opt %s --split-input-file --target npu -p full -t c 2>&1 | filecheck %s

// The float host kernels have float32 and float64 instances (host_kernels_real.inc), and
// f16/bf16 operands are widened to f32 (widen-host-floats); a float8 value meets only
// casts, Q/DQ and data movement: math on it is one located error, never a kernel call.
// CHECK: emit-c-math-invalid.mlir:[[# @LINE + 5]]:3: error: 'relay.sqrt' op operand 'data' must have a float element type, got tensor<4xf8E4M3FN>
// CHECK-NOT: Traceback
func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %e = relay.exp %x : tensor<4xf32>
  %h = relay.cast %e : tensor<4xf32> -> tensor<4xf8E4M3FN>
  %s = relay.sqrt %h : tensor<4xf8E4M3FN>
  %f = relay.cast %s : tensor<4xf8E4M3FN> -> tensor<4xf32>
  func.return %f : tensor<4xf32>
}
