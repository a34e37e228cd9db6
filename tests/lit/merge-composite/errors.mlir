// RUN: not accel-opt %s -p merge-composite 2>&1 | filecheck %s --check-prefix=NOTARGET
// RUN: not accel-opt %s -p 'merge-composite{target=tpu}' 2>&1 | filecheck %s --check-prefix=UNKNOWN

// NOTARGET: accel-opt: error: no target given (use --target NAME or a pass option like target=npu)
// NOTARGET-NOT: Traceback
// UNKNOWN: accel-opt: error: unknown target 'tpu' (built-in targets: {{.*}}npu{{.*}}; or give the path of a .toml description)
func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = relay.nn.relu %x : tensor<4xf32>
  func.return %0 : tensor<4xf32>
}
