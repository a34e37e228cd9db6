// RUN: not accel-opt %s -p merge-composite 2>&1 | filecheck %s --check-prefix=NOTARGET
// RUN: not accel-opt %s -p 'merge-composite{target=tpu}' 2>&1 | filecheck %s --check-prefix=UNKNOWN

// NOTARGET: accel-opt: error: merge-composite needs a target (e.g. merge-composite{target=npu} or --target npu)
// NOTARGET-NOT: Traceback
// UNKNOWN: accel-opt: error: unknown target 'tpu' (built-in targets: {{.*}}npu{{.*}}; or give the path of a .toml description)
func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = relay.nn.relu %x : tensor<4xf32>
  func.return %0 : tensor<4xf32>
}
