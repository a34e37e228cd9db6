// recognize-decompositions: a mean over H and W of an NCHW image (torch's dynamo export of
// adaptive_avg_pool2d(x, 1) and x.mean((2, 3))) becomes a global average pool.
// RUN: accel-opt %s --split-input-file -p recognize-decompositions | filecheck %s

// CHECK-LABEL: func.func @keepdims
// CHECK-NEXT:    %m = relay.nn.global_avg_pool2d %x : (tensor<2x8x5x7xf32>) -> tensor<2x8x1x1xf32>
// CHECK-NEXT:    func.return %m
func.func @keepdims(%x: tensor<2x8x5x7xf32>) -> tensor<2x8x1x1xf32> {
  %m = relay.mean %x {axis = [-1, 2], keepdims = true} : (tensor<2x8x5x7xf32>) -> tensor<2x8x1x1xf32>
  func.return %m : tensor<2x8x1x1xf32>
}

// -----

// Without keepdims (squeeze-excitation's flatten): the pool, then a reshape.
// CHECK-LABEL: func.func @dropped
// CHECK-NEXT:    %[[P:.*]] = relay.nn.global_avg_pool2d %x : (tensor<1x8x4x4xf32>) -> tensor<1x8x1x1xf32>
// CHECK-NEXT:    %[[M:.*]] = relay.reshape %[[P]] {newshape = [1, 8]} : (tensor<1x8x1x1xf32>) -> tensor<1x8xf32>
// CHECK-NEXT:    func.return %[[M]]
func.func @dropped(%x: tensor<1x8x4x4xf32>) -> tensor<1x8xf32> {
  %m = relay.mean %x {axis = [2, 3]} : (tensor<1x8x4x4xf32>) -> tensor<1x8xf32>
  func.return %m : tensor<1x8xf32>
}

// -----

// Kept: other axes, another rank, and a layer norm's means over the
// trailing H and W (an instance norm: the normalization is recognised instead).
// CHECK-LABEL: func.func @kept
// CHECK-COUNT-2: relay.mean
// CHECK-NOT:     relay.nn.global_avg_pool2d
// CHECK:         relay.nn.layer_norm
// CHECK-NOT:     relay.nn.global_avg_pool2d
func.func @kept(%x: tensor<1x8x4x4xf32>, %v: tensor<8x4x4xf32>) -> (tensor<1x1x4x4xf32>, tensor<8xf32>, tensor<1x8x4x4xf32>) {
  %a = relay.mean %x {axis = [1], keepdims = true} : (tensor<1x8x4x4xf32>) -> tensor<1x1x4x4xf32>
  %b = relay.mean %v {axis = [1, 2]} : (tensor<8x4x4xf32>) -> tensor<8xf32>
  %m = relay.mean %x {axis = [2, 3], keepdims = true} : (tensor<1x8x4x4xf32>) -> tensor<1x8x1x1xf32>
  %d = relay.subtract %x, %m : (tensor<1x8x4x4xf32>, tensor<1x8x1x1xf32>) -> tensor<1x8x4x4xf32>
  %q = relay.multiply %d, %d : tensor<1x8x4x4xf32>
  %s = relay.mean %q {axis = [2, 3], keepdims = true} : (tensor<1x8x4x4xf32>) -> tensor<1x8x1x1xf32>
  %eps = relay.constant dense<1.0e-05> : tensor<f32>
  %e = relay.add %s, %eps : (tensor<1x8x1x1xf32>, tensor<f32>) -> tensor<1x8x1x1xf32>
  %r = relay.sqrt %e : tensor<1x8x1x1xf32>
  %y = relay.divide %d, %r : (tensor<1x8x4x4xf32>, tensor<1x8x1x1xf32>) -> tensor<1x8x4x4xf32>
  func.return %a, %b, %y : tensor<1x1x4x4xf32>, tensor<8xf32>, tensor<1x8x4x4xf32>
}
