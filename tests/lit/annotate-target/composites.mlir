// RUN: accel-opt %s -p 'merge-composite{target=npu},annotate-target{targets=npu,dsp}' | filecheck %s --check-prefix=KEEP
// RUN: accel-opt %s -p 'merge-composite{target=npu},annotate-target{targets=dsp}' | filecheck %s --check-prefix=DISSOLVE

// A composite runs on its own target. When that target is not among the targets, the
// composite is dissolved into its ops, which are annotated one by one.
// KEEP:          relay.composite "npu.dense_bias_relu" (%x, %w, %b) {accel.target = "npu"}
// DISSOLVE-NOT:  relay.composite
// DISSOLVE:      relay.nn.dense %x, %w {accel.target = "dsp"}
// DISSOLVE-NEXT: relay.nn.bias_add %{{.*}}, %b {accel.target = "host", accel.reason = "dsp: op not supported"}
// DISSOLVE-NEXT: relay.nn.relu %{{.*}} {accel.target = "host", accel.reason = "dsp: op not supported"}
func.func @main(%x: tensor<64x256xf32>) -> tensor<64x256xf32> {
  %w = relay.constant dense<0.5> : tensor<256x256xf32>
  %b = relay.constant dense<0.5> : tensor<256xf32>
  %0 = relay.nn.dense %x, %w : (tensor<64x256xf32>, tensor<256x256xf32>) -> tensor<64x256xf32>
  %1 = relay.nn.bias_add %0, %b : (tensor<64x256xf32>, tensor<256xf32>) -> tensor<64x256xf32>
  %2 = relay.nn.relu %1 : tensor<64x256xf32>
  func.return %2 : tensor<64x256xf32>
}
