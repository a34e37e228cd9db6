// unstride-pools: pools at strides the npu does not take (it takes 1 and 2 on both axes)
// as the pool at stride 1, subsampled by a strided slice (a copy on the device).
// RUN: accel-opt %s --split-input-file --target npu -p unstride-pools | filecheck %s
// RUN: accel-opt %s --split-input-file --target npu -p byoc | filecheck %s --check-prefix=BYOC

// A CRNN's max pool at stride (2, 1) between two convolutions: the same windows, every
// other row of them; partitioned, one npu region (it cut the network in two).
// CHECK-LABEL: func.func @crnn
// CHECK:         %[[P:.*]] = relay.nn.max_pool2d %c {pool_size = [2, 2], padding = [0, 1, 0, 1]} : (tensor<1x16x8x32xf32>) -> tensor<1x16x7x33xf32>
// CHECK-NEXT:    %p = relay.strided_slice %[[P]] {begin = [0, 0], end = [7, 33], strides = [2, 1], axes = [2, 3]} : (tensor<1x16x7x33xf32>) -> tensor<1x16x4x33xf32>
// BYOC-LABEL: func.func @crnn
// BYOC-NEXT:    %y = func.call @npu_0(%x)
// BYOC-NEXT:    func.return
func.func @crnn(%x: tensor<1x16x8x32xf32>) -> tensor<1x16x4x33xf32> {
  %w = relay.constant dense<0.5> : tensor<16x16x3x3xf32>
  %c = relay.nn.conv2d %x, %w {padding = [1, 1, 1, 1]} : (tensor<1x16x8x32xf32>, tensor<16x16x3x3xf32>) -> tensor<1x16x8x32xf32>
  %p = relay.nn.max_pool2d %c {pool_size = [2, 2], strides = [2, 1], padding = [0, 1, 0, 1]} : (tensor<1x16x8x32xf32>) -> tensor<1x16x4x33xf32>
  %v = relay.constant dense<0.25> : tensor<16x16x3x3xf32>
  %y = relay.nn.conv2d %p, %v {padding = [1, 1, 1, 1]} : (tensor<1x16x4x33xf32>, tensor<16x16x3x3xf32>) -> tensor<1x16x4x33xf32>
  func.return %y : tensor<1x16x4x33xf32>
}

// -----

// An average pool at stride (1, 3) (a product of 3: within four times the work).
// CHECK-LABEL: func.func @avg
// CHECK:         %[[P:.*]] = relay.nn.avg_pool2d %x {pool_size = [3, 3], padding = [1, 1, 1, 1]} : (tensor<1x4x6x9xf32>) -> tensor<1x4x6x9xf32>
// CHECK-NEXT:    %y = relay.strided_slice %[[P]] {begin = [0, 0], end = [6, 7], strides = [1, 3], axes = [2, 3]} : (tensor<1x4x6x9xf32>) -> tensor<1x4x6x3xf32>
func.func @avg(%x: tensor<1x4x6x9xf32>) -> tensor<1x4x6x3xf32> {
  %y = relay.nn.avg_pool2d %x {pool_size = [3, 3], strides = [1, 3], padding = [1, 1, 1, 1]} : (tensor<1x4x6x9xf32>) -> tensor<1x4x6x3xf32>
  func.return %y : tensor<1x4x6x3xf32>
}

// -----

// Left alone: stride 2 (the npu takes it), stride 3 x 3 (nine times the work: the host
// pools), a ceil_mode pool whose last window starts past the stride-1 pool's outputs,
// and a pool the user put on the host.
// CHECK-LABEL: func.func @left_alone
// CHECK-NOT:     relay.strided_slice
// CHECK:         relay.nn.max_pool2d %x {pool_size = [2, 2], strides = [2, 2]}
// CHECK:         relay.nn.max_pool2d %x {pool_size = [3, 3], strides = [3, 3]}
// CHECK:         relay.nn.max_pool2d %z {pool_size = [2, 2], strides = [3, 1], ceil_mode = true}
// CHECK:         relay.nn.max_pool2d %x {pool_size = [2, 2], strides = [2, 1], accel.target = "host"}
func.func @left_alone(%x: tensor<1x4x9x9xf32>, %z: tensor<1x4x10x9xf32>) -> (tensor<1x4x4x4xf32>, tensor<1x4x3x3xf32>, tensor<1x4x4x8xf32>, tensor<1x4x4x8xf32>) {
  %a = relay.nn.max_pool2d %x {pool_size = [2, 2], strides = [2, 2]} : (tensor<1x4x9x9xf32>) -> tensor<1x4x4x4xf32>
  %b = relay.nn.max_pool2d %x {pool_size = [3, 3], strides = [3, 3]} : (tensor<1x4x9x9xf32>) -> tensor<1x4x3x3xf32>
  %c = relay.nn.max_pool2d %z {pool_size = [2, 2], strides = [3, 1], ceil_mode = true} : (tensor<1x4x10x9xf32>) -> tensor<1x4x4x8xf32>
  %d = relay.nn.max_pool2d %x {pool_size = [2, 2], strides = [2, 1], accel.target = "host"} : (tensor<1x4x9x9xf32>) -> tensor<1x4x4x8xf32>
  func.return %a, %b, %c, %d : tensor<1x4x4x4xf32>, tensor<1x4x3x3xf32>, tensor<1x4x4x8xf32>, tensor<1x4x4x8xf32>
}
