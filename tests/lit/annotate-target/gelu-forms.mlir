// RUN: accel-opt %s --target %S/Inputs/erf-npu.toml -p annotate-target | filecheck %s
// RUN: accel-opt %s -p 'annotate-target{targets=npu}' | filecheck %s --check-prefix=NPU

// A kind an op's properties choose (the tanh form of GELU, `gelu_tanh`) runs only where
// the entry's C API has a code for it: erf-npu's eltwise enum maps `gelu` alone.
// CHECK: relay.nn.gelu %x {accel.target = "erf-npu"}
// CHECK: relay.nn.gelu %x {approximate = "tanh", accel.target = "host", accel.reason = "erf-npu: the 'gelu_tanh' kind has no code in ops[0]'s API"}
// NPU: relay.nn.gelu %x {accel.target = "npu"}
// NPU: relay.nn.gelu %x {approximate = "tanh", accel.target = "npu"}
func.func @main(%x: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  %0 = relay.nn.gelu %x : tensor<4x8xf32>
  %1 = relay.nn.gelu %x {approximate = "tanh"} : tensor<4x8xf32>
  func.return %0, %1 : tensor<4x8xf32>, tensor<4x8xf32>
}
