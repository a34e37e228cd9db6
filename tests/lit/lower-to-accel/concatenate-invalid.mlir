// RUN: not accel-opt %s -p bufferize,lower-to-accel 2>&1 | filecheck %s
// RUN: not accel-opt %s -p annotate-target --target %S/Inputs/concat_no_copy.toml 2>&1 | filecheck %s --check-prefix=DESC

// A concatenation marked for a target that has no entry for it (npu-shared computes in
// host memory and declares no copy on the device) is one located error.
// CHECK: concatenate-invalid.mlir:[[# @LINE + 4]]:3: error: lower-to-accel: 'npu-shared' has no entry for 'relay.concatenate': {{.*}}
// CHECK-NOT: Traceback
// DESC: concat_no_copy.toml: error: key 'ops[0].c_function': a concatenation runs as copies on the device: expected the function of api.runtime.dma_on_device, with dma.device_bytes_per_cycle
func.func @npu_shared_0(%a: tensor<1x4x2x2xf32>, %b: tensor<1x4x2x2xf32>) -> tensor<1x8x2x2xf32> attributes {accel.target = "npu-shared"} {
  %c = relay.concatenate %a, %b {axis = 1} : (tensor<1x4x2x2xf32>, tensor<1x4x2x2xf32>) -> tensor<1x8x2x2xf32>
  func.return %c : tensor<1x8x2x2xf32>
}
