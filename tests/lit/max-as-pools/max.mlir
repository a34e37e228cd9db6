// max-as-pools: a max over trailing axes, which the npu does not run, as a cascade of
// strided max pools (its windows: at most 3 wide, stride 2) of the data viewed as
// [1, rows, 1, row length], between reshapes.
// RUN: accel-opt %s --split-input-file --target npu -p max-as-pools | filecheck %s
// RUN: accel-opt %s --split-input-file --target npu -p byoc | filecheck %s --check-prefix=BYOC
// RUN: accel-opt %s --split-input-file --target dsp -p max-as-pools | filecheck %s --check-prefix=DSP

// A 1-D CNN's global max pool (ONNX GlobalMaxPool on [N, C, L]): 9 -> 4 -> 2 -> 1 cells,
// each pool padded on the right to reach the row's end, the last window what is left.
// CHECK-LABEL: func.func @global_max
// CHECK-NEXT:    %[[V:.*]] = relay.reshape %c {newshape = [1, 4, 1, 9]} : (tensor<1x4x9xf32>) -> tensor<1x4x1x9xf32>
// CHECK-NEXT:    %[[P1:.*]] = relay.nn.max_pool2d %[[V]] {pool_size = [1, 3], strides = [2, 2]} : (tensor<1x4x1x9xf32>) -> tensor<1x4x1x4xf32>
// CHECK-NEXT:    %[[P2:.*]] = relay.nn.max_pool2d %[[P1]] {pool_size = [1, 3], strides = [2, 2], padding = [0, 0, 0, 1]} : (tensor<1x4x1x4xf32>) -> tensor<1x4x1x2xf32>
// CHECK-NEXT:    %[[P3:.*]] = relay.nn.max_pool2d %[[P2]] {pool_size = [1, 2], strides = [2, 2]} : (tensor<1x4x1x2xf32>) -> tensor<1x4x1x1xf32>
// CHECK-NEXT:    %m = relay.reshape %[[P3]] {newshape = [1, 4, 1]} : (tensor<1x4x1x1xf32>) -> tensor<1x4x1xf32>
// CHECK-NEXT:    func.return %m
// DSP-LABEL: func.func @global_max
// DSP:         relay.max
func.func @global_max(%c: tensor<1x4x9xf32>) -> tensor<1x4x1xf32> {
  %m = relay.max %c {axis = [2], keepdims = true} : (tensor<1x4x9xf32>) -> tensor<1x4x1xf32>
  func.return %m : tensor<1x4x1xf32>
}

// -----

// Partitioned with the 1-D convolution before it (as a 2-D one over a unit width): one
// npu region, the max no longer cutting the network.
// CHECK-LABEL: func.func @after_conv
// BYOC-LABEL: func.func @after_conv
// BYOC-NEXT:    %m = func.call @npu_0(%x)
// BYOC-NEXT:    func.return
func.func @after_conv(%x: tensor<1x32x64x1xf32>) -> tensor<1x64x1xf32> {
  %w = relay.constant dense<0.5> : tensor<64x32x3x1xf32>
  %y = relay.nn.conv2d %x, %w : (tensor<1x32x64x1xf32>, tensor<64x32x3x1xf32>) -> tensor<1x64x62x1xf32>
  %c = relay.reshape %y {newshape = [1, 64, 62]} : (tensor<1x64x62x1xf32>) -> tensor<1x64x62xf32>
  %m = relay.max %c {axis = [2], keepdims = true} : (tensor<1x64x62xf32>) -> tensor<1x64x1xf32>
  func.return %m : tensor<1x64x1xf32>
}

// -----

// Over the last two axes without keepdims (rows of 2 x 3 = 6 cells): 6 -> 3 -> 1.
// CHECK-LABEL: func.func @two_axes
// CHECK:         relay.reshape %x {newshape = [1, 5, 1, 6]}
// CHECK-NEXT:    relay.nn.max_pool2d %{{.*}} {pool_size = [1, 3], strides = [2, 2], padding = [0, 0, 0, 1]} : (tensor<1x5x1x6xf32>) -> tensor<1x5x1x3xf32>
// CHECK-NEXT:    relay.nn.max_pool2d %{{.*}} {pool_size = [1, 3], strides = [2, 2]} : (tensor<1x5x1x3xf32>) -> tensor<1x5x1x1xf32>
// CHECK-NEXT:    %m = relay.reshape %{{.*}} {newshape = [5]} : (tensor<1x5x1x1xf32>) -> tensor<5xf32>
func.func @two_axes(%x: tensor<5x2x3xf32>) -> tensor<5xf32> {
  %m = relay.max %x {axis = [1, 2]} : (tensor<5x2x3xf32>) -> tensor<5xf32>
  func.return %m : tensor<5xf32>
}

// -----

// Over a leading axis (it would need a transpose first), and to a scalar (no transfer has
// rank 0): both stay.
// CHECK-LABEL: func.func @kept
// CHECK:         relay.max %x {axis = [1], keepdims = true}
// CHECK:         relay.max %x {axis = [0, 1, 2]}
// CHECK-NOT:     relay.nn.max_pool2d
func.func @kept(%x: tensor<5x2x3xf32>) -> (tensor<5x1x3xf32>, tensor<f32>) {
  %a = relay.max %x {axis = [1], keepdims = true} : (tensor<5x2x3xf32>) -> tensor<5x1x3xf32>
  %b = relay.max %x {axis = [0, 1, 2]} : (tensor<5x2x3xf32>) -> tensor<f32>
  func.return %a, %b : tensor<5x1x3xf32>, tensor<f32>
}
