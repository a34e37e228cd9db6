// global-pools: an average pool whose one window is the whole unpadded image (beyond the
// npu's 3x3 windows) as a global average pool, which the npu runs.
// RUN: accel-opt %s --split-input-file --target npu -p global-pools | filecheck %s
// RUN: accel-opt %s --split-input-file --target npu -p 'byoc{cost-model=false}' | filecheck %s --check-prefix=BYOC

// ResNet-50's final pooling: a 7x7 average pool over the 7x7 map.
// CHECK-LABEL: func.func @final
// CHECK:         %y = relay.nn.global_avg_pool2d %x : (tensor<1x8x7x7xf32>) -> tensor<1x8x1x1xf32>
// CHECK-NOT:     relay.nn.avg_pool2d
// BYOC-LABEL: func.func @final
// BYOC-NEXT:    %y = func.call @npu_0(%x)
func.func @final(%x: tensor<1x8x7x7xf32>) -> tensor<1x8x1x1xf32> {
  %y = relay.nn.avg_pool2d %x {pool_size = [7, 7]} : (tensor<1x8x7x7xf32>) -> tensor<1x8x1x1xf32>
  func.return %y : tensor<1x8x1x1xf32>
}

// -----

// Left alone: a padded window, a window smaller than the image, a 3x3 pool over a 3x3
// image (the npu runs it as it is), and a pool the user put on the host.
// CHECK-LABEL: func.func @left_alone
// CHECK-NOT:     relay.nn.global_avg_pool2d
// CHECK:         relay.nn.avg_pool2d %x {pool_size = [7, 7], padding = [1, 1, 1, 1]}
// CHECK:         relay.nn.avg_pool2d %x {pool_size = [5, 5]}
// CHECK:         relay.nn.avg_pool2d %s {pool_size = [3, 3]}
// CHECK:         relay.nn.avg_pool2d %x {pool_size = [7, 7], accel.target = "host"}
func.func @left_alone(%x: tensor<1x8x7x7xf32>, %s: tensor<1x8x3x3xf32>) -> (tensor<1x8x3x3xf32>, tensor<1x8x3x3xf32>, tensor<1x8x1x1xf32>, tensor<1x8x1x1xf32>) {
  %a = relay.nn.avg_pool2d %x {pool_size = [7, 7], padding = [1, 1, 1, 1]} : (tensor<1x8x7x7xf32>) -> tensor<1x8x3x3xf32>
  %b = relay.nn.avg_pool2d %x {pool_size = [5, 5]} : (tensor<1x8x7x7xf32>) -> tensor<1x8x3x3xf32>
  %c = relay.nn.avg_pool2d %s {pool_size = [3, 3]} : (tensor<1x8x3x3xf32>) -> tensor<1x8x1x1xf32>
  %d = relay.nn.avg_pool2d %x {pool_size = [7, 7], accel.target = "host"} : (tensor<1x8x7x7xf32>) -> tensor<1x8x1x1xf32>
  func.return %a, %b, %c, %d : tensor<1x8x3x3xf32>, tensor<1x8x3x3xf32>, tensor<1x8x1x1xf32>, tensor<1x8x1x1xf32>
}
