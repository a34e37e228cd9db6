// RUN: not accel-opt %s --target npu -p full -t c 2>&1 | filecheck %s
// RUN: accel-opt %s --target npu -p full | filecheck %s --check-prefix=LOWERED

// C99 has no f16: the emitter refuses the first f16 value with its location, instead of
// failing deep inside (the differential fuzzer found a KeyError traceback here).
// CHECK: emit-c-f16.mlir:[[# @LINE + 5]]:3: error: the C backend has no type for f16 values (keep the model in f32 or integer types)
// CHECK-NOT: Traceback
// LOWERED: memref<2x3xf16>
func.func @main(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %r = relay.nn.relu %x : tensor<2x3xf32>
  %h = relay.cast %r : tensor<2x3xf32> -> tensor<2x3xf16>
  %f = relay.cast %h : tensor<2x3xf16> -> tensor<2x3xf32>
  func.return %f : tensor<2x3xf32>
}
