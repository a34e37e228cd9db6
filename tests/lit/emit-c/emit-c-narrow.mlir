// RUN: accel-opt %s --target npu -p full -t c | filecheck %s
// RUN: accel-opt %s --target npu -p full | filecheck %s --check-prefix=LOWERED

// f16 (and the other narrow types) are storage in C: uint16_t / uint8_t buffers that the
// host converts with acc_cast_narrow (host_narrow.h); f16 math runs in f32 between casts.
// (The differential fuzzer once found a KeyError traceback here, when C had no f16.)
// CHECK: #include "host_narrow.h"
// CHECK: acc_cast_narrow(ACC_F32, {{.*}}, ACC_F16, {{.*}}, 6, 1, ACC_ROUND_UP)
// CHECK: acc_cast_narrow(ACC_F16, {{.*}}, ACC_F32, {{.*}}, 6, 1, ACC_ROUND_UP)
// CHECK: acc_sigmoid_f32(
// CHECK: acc_cast_narrow(ACC_F32, {{.*}}, ACC_F16, {{.*}}, 6, 1, ACC_ROUND_UP)
// CHECK: acc_cast_narrow(ACC_F16, {{.*}}, ACC_F32, {{.*}}, 6, 1, ACC_ROUND_UP)
// CHECK-NOT: Traceback
// LOWERED: memref<2x3xf16>
func.func @main(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %r = relay.nn.relu %x : tensor<2x3xf32>
  %h = relay.cast %r : tensor<2x3xf32> -> tensor<2x3xf16>
  %s = relay.sigmoid %h : tensor<2x3xf16>
  %f = relay.cast %s : tensor<2x3xf16> -> tensor<2x3xf32>
  func.return %f : tensor<2x3xf32>
}
