// RUN: accel-opt %s --split-input-file --target npu -p 'byoc{cost-model=false},bufferize,lower-to-accel' | filecheck %s
// RUN: accel-opt %s --split-input-file --target npu -p 'byoc{cost-model=false},lower' -t c | filecheck %s --check-prefix=C
// RUN: accel-opt %s --split-input-file --target npu-cmd -p 'byoc{cost-model=false},lower' -t commands | filecheck %s --check-prefix=CMD
// RUN: accel-opt %s --split-input-file --target dsp -p 'byoc{cost-model=false}' | filecheck %s --check-prefix=DSP

// Silero VAD's STFT magnitude, a log-spectrum and an exponential: `accel.eltwise` kinds
// sqrt, log and exp (npu_eltwise_f32; the command-stream targets' eltwise command with
// their codes). The dsp runs none of them.
// CHECK-LABEL: func.func private @npu_0
// CHECK:         accel.eltwise ins(%x, %x : memref<4x16xf32>, memref<4x16xf32>) outs(%[[P:.*]] : memref<4x16xf32>) {kind = "mul"}
// CHECK:         accel.eltwise ins(%[[P]] : memref<4x16xf32>) outs(%[[S:.*]] : memref<4x16xf32>) {kind = "sqrt"}
// CHECK:         accel.eltwise ins(%[[S]] : memref<4x16xf32>) outs(%out0 : memref<4x16xf32>) {kind = "log"}
// CHECK-LABEL: func.func private @npu_1
// CHECK:         accel.eltwise ins(%x : memref<4x16xf32>) outs(%out0 : memref<4x16xf32>) {kind = "exp"}
// C-LABEL:       ===== npu_wrappers.c =====
// C-DAG:         {.kind = NPU_ELTWISE_SQRT, .count = 64
// C-DAG:         {.kind = NPU_ELTWISE_LOG, .count = 64
// C-DAG:         {.kind = NPU_ELTWISE_EXP, .count = 64
// CMD-DAG:       eltwise eltwise_kind=sqrt
// CMD-DAG:       eltwise eltwise_kind=log
// CMD-DAG:       eltwise eltwise_kind=exp
// DSP:           relay.sqrt {{.*}}accel.target = "host"
func.func @main(%x: tensor<4x16xf32>) -> (tensor<4x16xf32>, tensor<4x16xf32>) {
  %p = relay.multiply %x, %x : tensor<4x16xf32>
  %m = relay.sqrt %p : tensor<4x16xf32>
  %l = relay.log %m : tensor<4x16xf32>
  %e = relay.exp %x : tensor<4x16xf32>
  func.return %l, %e : tensor<4x16xf32>, tensor<4x16xf32>
}
