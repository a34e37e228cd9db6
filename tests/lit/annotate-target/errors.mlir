// RUN: not accel-opt %s --split-input-file -p annotate-target 2>&1 | filecheck %s --check-prefix=NOTARGET
// RUN: not accel-opt %s -p 'annotate-target{targets=nope}' 2>&1 | filecheck %s --check-prefix=UNKNOWN
// RUN: not accel-opt %s -p 'annotate-target{targets=npu,npu}' 2>&1 | filecheck %s --check-prefix=TWICE
// RUN: not accel-opt %s -p 'annotate-target{targets=npu}' 2>&1 | filecheck %s --check-prefix=MANUAL

// NOTARGET: accel-opt: error: annotate-target needs a target (e.g. annotate-target{targets=npu} or --target npu)
// UNKNOWN: accel-opt: error: unknown target 'nope' (built-in targets: {{.*}}dsp, npu, npu-64k, npu-cmd, npu-shared{{.*}}; or give the path of a .toml description)
// TWICE: accel-opt: error: target 'npu' is listed twice
// MANUAL: errors.mlir:[[# @LINE + 2]]:3: error: 'relay.nn.relu' op has accel.target = "tpu": unknown target 'tpu'
func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = relay.nn.relu %x {accel.target = "tpu"} : tensor<4xf32>
  func.return %0 : tensor<4xf32>
}
// NOTARGET-NOT: Traceback
