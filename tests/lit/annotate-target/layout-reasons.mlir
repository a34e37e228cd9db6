// RUN: accel-opt %s --split-input-file -p 'annotate-target{targets=npu}' | filecheck %s
// RUN: accel-opt %s --split-input-file -p 'annotate-target{targets=npu-shared}' | filecheck %s --check-prefix=SHARED
// RUN: not accel-opt %s --split-input-file -p 'annotate-target{targets=acc}' --target %S/Inputs/transpose_no_copy.toml 2>&1 | filecheck %s --check-prefix=DESC

// Transposes, reshapes and slices run on the npu as copies on the device; what such a copy
// cannot be stays on the host with the reason: a slice with negative steps, a copy that
// keeps more than 4 dimensions after merging the contiguous ones, a constant input (it is
// folded). npu-shared (host memory, no copy on the device) declares none of them.
// CHECK: relay.transpose %x {axes = [1, 0, 2], accel.target = "npu"}
// CHECK: relay.reshape %x {newshape = [4, 16], accel.target = "npu"}
// CHECK: relay.strided_slice %x {begin = [1], end = [8], strides = [2], axes = [2], accel.target = "npu"}
// CHECK: relay.strided_slice %x {begin = [7], end = [0], strides = [-1], axes = [2], accel.target = "host", accel.reason = "npu: a slice with negative steps is not copied on the device"}
// CHECK: relay.transpose %y {axes = [4, 3, 2, 1, 0], accel.target = "host", accel.reason = "npu: 'relay.transpose' is a copy of rank 5 (copies on the device have rank 1 to 4, after merging contiguous dimensions)"}
// CHECK: relay.transpose %y {axes = [0, 1, 2, 4, 3], accel.target = "npu"}
// SHARED: relay.transpose %x {axes = [1, 0, 2], accel.target = "host", accel.reason = "npu-shared: op not supported"}
// SHARED: relay.reshape %x {newshape = [4, 16], accel.target = "host", accel.reason = "npu-shared: op not supported"}
// DESC: transpose_no_copy.toml: error: key 'ops[0].c_function': a transpose runs as copies on the device: expected the function of api.runtime.dma_on_device, with dma.device_bytes_per_cycle
func.func @main(%x: tensor<2x4x8xf32>, %y: tensor<2x3x2x3x2xf32>) -> (tensor<4x2x8xf32>, tensor<4x16xf32>, tensor<2x4x4xf32>, tensor<2x4x7xf32>, tensor<2x3x2x3x2xf32>, tensor<2x3x2x2x3xf32>) {
  %0 = relay.transpose %x {axes = [1, 0, 2]} : (tensor<2x4x8xf32>) -> tensor<4x2x8xf32>
  %1 = relay.reshape %x {newshape = [4, 16]} : (tensor<2x4x8xf32>) -> tensor<4x16xf32>
  %2 = relay.strided_slice %x {begin = [1], end = [8], strides = [2], axes = [2]} : (tensor<2x4x8xf32>) -> tensor<2x4x4xf32>
  %3 = relay.strided_slice %x {begin = [7], end = [0], strides = [-1], axes = [2]} : (tensor<2x4x8xf32>) -> tensor<2x4x7xf32>
  %4 = relay.transpose %y {axes = [4, 3, 2, 1, 0]} : (tensor<2x3x2x3x2xf32>) -> tensor<2x3x2x3x2xf32>
  %5 = relay.transpose %y {axes = [0, 1, 2, 4, 3]} : (tensor<2x3x2x3x2xf32>) -> tensor<2x3x2x2x3xf32>
  func.return %0, %1, %2, %3, %4, %5 : tensor<4x2x8xf32>, tensor<4x16xf32>, tensor<2x4x4xf32>, tensor<2x4x7xf32>, tensor<2x3x2x3x2xf32>, tensor<2x3x2x2x3xf32>
}
