// cascade-max-pools: stride-1 max pools larger than the npu's 3x3 windows as cascades of
// 3x3 (or smaller) stride-1 pools, the padding spread over them.
// RUN: accel-opt %s --split-input-file --target npu -p cascade-max-pools | filecheck %s
// RUN: accel-opt %s --split-input-file --target npu -p byoc | filecheck %s --check-prefix=BYOC

// YOLO's SPPF window (5x5, padding 2): two 3x3 pools, padding 1 each. Partitioned, the
// cascade is one npu region.
// CHECK-LABEL: func.func @sppf
// CHECK-NEXT:    %0 = relay.nn.max_pool2d %x {pool_size = [3, 3], padding = [1, 1, 1, 1]} : (tensor<1x8x16x16xf32>) -> tensor<1x8x16x16xf32>
// CHECK-NEXT:    %y = relay.nn.max_pool2d %0 {pool_size = [3, 3], padding = [1, 1, 1, 1]} : (tensor<1x8x16x16xf32>) -> tensor<1x8x16x16xf32>
// CHECK-NEXT:    func.return %y
// BYOC-LABEL: func.func @sppf
// BYOC-NEXT:    %y = func.call @npu_0(%x)
func.func @sppf(%x: tensor<1x8x16x16xf32>) -> tensor<1x8x16x16xf32> {
  %y = relay.nn.max_pool2d %x {pool_size = [5, 5], padding = [2, 2, 2, 2]} : (tensor<1x8x16x16xf32>) -> tensor<1x8x16x16xf32>
  func.return %y : tensor<1x8x16x16xf32>
}

// -----

// 8x4 (int8), padding 3 on top and none below, 1 and 2 on the sides: four pools (7 rows
// of growth in steps of 2, 2, 2, 1), the columns' growth of 3 in the first three; the
// padding spread as evenly as the windows allow.
// CHECK-LABEL: func.func @uneven
// CHECK-NEXT:    %0 = relay.nn.max_pool2d %x {pool_size = [3, 2], padding = [1, 1, 0, 1]} : (tensor<1x4x9x9xi8>) -> tensor<1x4x8x10xi8>
// CHECK-NEXT:    %1 = relay.nn.max_pool2d %0 {pool_size = [3, 2], padding = [1, 0, 0, 1]} : (tensor<1x4x8x10xi8>) -> tensor<1x4x7x10xi8>
// CHECK-NEXT:    %2 = relay.nn.max_pool2d %1 {pool_size = [3, 2], padding = [1, 0, 0, 0]} : (tensor<1x4x7x10xi8>) -> tensor<1x4x6x9xi8>
// CHECK-NEXT:    %y = relay.nn.max_pool2d %2 {pool_size = [2, 1]} : (tensor<1x4x6x9xi8>) -> tensor<1x4x5x9xi8>
func.func @uneven(%x: tensor<1x4x9x9xi8>) -> tensor<1x4x5x9xi8> {
  %y = relay.nn.max_pool2d %x {pool_size = [8, 4], padding = [3, 1, 0, 2]} : (tensor<1x4x9x9xi8>) -> tensor<1x4x5x9xi8>
  func.return %y : tensor<1x4x5x9xi8>
}

// -----

// Left alone: a 3x3 pool (the npu takes it), a 5x5 pool with stride 2 (a cascade of
// stride-1 pools is not strided), an average pool, and a pool the user put on the host.
// CHECK-LABEL: func.func @left_alone
// CHECK-NEXT:    relay.nn.max_pool2d %x {pool_size = [3, 3]}
// CHECK-NEXT:    relay.nn.max_pool2d %x {pool_size = [5, 5], strides = [2, 2]}
// CHECK-NEXT:    relay.nn.avg_pool2d %x {pool_size = [5, 5]}
// CHECK-NEXT:    relay.nn.max_pool2d %x {pool_size = [5, 5], accel.target = "host"}
func.func @left_alone(%x: tensor<1x4x9x9xf32>) -> (tensor<1x4x7x7xf32>, tensor<1x4x3x3xf32>, tensor<1x4x5x5xf32>, tensor<1x4x5x5xf32>) {
  %a = relay.nn.max_pool2d %x {pool_size = [3, 3]} : (tensor<1x4x9x9xf32>) -> tensor<1x4x7x7xf32>
  %b = relay.nn.max_pool2d %x {pool_size = [5, 5], strides = [2, 2]} : (tensor<1x4x9x9xf32>) -> tensor<1x4x3x3xf32>
  %c = relay.nn.avg_pool2d %x {pool_size = [5, 5]} : (tensor<1x4x9x9xf32>) -> tensor<1x4x5x5xf32>
  %d = relay.nn.max_pool2d %x {pool_size = [5, 5], accel.target = "host"} : (tensor<1x4x9x9xf32>) -> tensor<1x4x5x5xf32>
  func.return %a, %b, %c, %d : tensor<1x4x7x7xf32>, tensor<1x4x3x3xf32>, tensor<1x4x5x5xf32>, tensor<1x4x5x5xf32>
}
