// A host op's reason names every target that declined it: the matmul (4100 output
// features) is rejected by npu, accepted by dsp, and its dsp region is then dropped as
// not profitable (its weight is a run-time input, copied in).
// RUN: accel-opt %s -p byoc --target npu,dsp | filecheck %s
// RUN: accel-opt %s -p byoc --target dsp | filecheck %s --check-prefix=ONE
// CHECK: relay.nn.matmul {{.*}}accel.target = "host", accel.reason = "npu: 4100 channels exceed 4096; dsp: not profitable: {{.*}}"
// CHECK: relay.erf {{.*}}accel.reason = "npu: op not supported; dsp: op not supported"
// ONE: relay.nn.matmul {{.*}}accel.target = "host", accel.reason = "dsp: not profitable: {{.*}}"
func.func @main(%x: tensor<1x4xf32>, %w: tensor<4x4100xf32>) -> tensor<1x4100xf32> {
  %0 = relay.nn.matmul %x, %w : (tensor<1x4xf32>, tensor<4x4100xf32>) -> tensor<1x4100xf32>
  %1 = relay.erf %0 : (tensor<1x4100xf32>) -> tensor<1x4100xf32>
  func.return %1 : tensor<1x4100xf32>
}
