// RUN: accel-opt %s --split-input-file --target npu-64k -p merge-composite,annotate-target | filecheck %s

// An op whose smallest tiles do not fit the target's scratchpad stays on the host, with
// the bytes they need (tile_plan.needs_tiles: what tile-for-scratchpad would plan).
// A 3x3 conv with groups = 1 reads every input channel in each tile: one output row of
// one channel needs 3 input rows of 768 channels (64512 bytes), its output row (28,
// aligned to 64) and one channel's weights (27648): 92224 bytes > 64 KiB.
// CHECK-LABEL: func.func @conv_too_wide
// CHECK:         relay.nn.conv2d %x, %w {padding = [1, 1, 1, 1], accel.target = "host", accel.reason = "npu-64k: 'accel.conv2d' needs 92224 bytes of scratchpad even with one output row and one channel per tile; the scratchpad has 65536"}
// CHECK:         relay.nn.relu %{{.*}} {accel.target = "npu-64k"}
func.func @conv_too_wide(%x: tensor<1x768x7x7xf32>) -> tensor<1x8x7x7xf32> {
  %w = relay.constant dense<0.5> : tensor<8x768x3x3xf32>
  %c = relay.nn.conv2d %x, %w {padding = [1, 1, 1, 1]} : (tensor<1x768x7x7xf32>, tensor<8x768x3x3xf32>) -> tensor<1x8x7x7xf32>
  %s = relay.sigmoid %c : tensor<1x8x7x7xf32>
  %r = relay.nn.relu %s : tensor<1x8x7x7xf32>
  func.return %r : tensor<1x8x7x7xf32>
}

// -----

// With 512 input channels one tile needs 43008 + 64 + 18496 (weights and bias of one
// channel) = 61568 bytes: it fits once, not twice (double-buffered), and tile-for-scratchpad
// tiles it single-buffered, so the composite goes to the npu.
// CHECK-LABEL: func.func @conv_fits_once
// CHECK:         relay.composite "npu-64k.conv2d_bias_relu" (%x, %w, %b) {accel.target = "npu-64k"}
func.func @conv_fits_once(%x: tensor<1x512x7x7xf32>) -> tensor<1x8x7x7xf32> {
  %w = relay.constant dense<0.5> : tensor<8x512x3x3xf32>
  %b = relay.constant dense<0.5> : tensor<8xf32>
  %c = relay.nn.conv2d %x, %w {padding = [1, 1, 1, 1]} : (tensor<1x512x7x7xf32>, tensor<8x512x3x3xf32>) -> tensor<1x8x7x7xf32>
  %d = relay.nn.bias_add %c, %b : (tensor<1x8x7x7xf32>, tensor<8xf32>) -> tensor<1x8x7x7xf32>
  %r = relay.nn.relu %d : tensor<1x8x7x7xf32>
  func.return %r : tensor<1x8x7x7xf32>
}

// -----

// A composite whose conv does not fit stays on the host whole (its bias and relu with
// it), with the fused form's need (one channel's weights and bias: 27652 -> 27712 bytes).
// CHECK-LABEL: func.func @composite_too_wide
// CHECK:         relay.composite "npu-64k.conv2d_bias_relu" (%x, %w, %b) {accel.target = "host", accel.reason = "npu-64k: 'accel.conv2d' needs 92288 bytes of scratchpad even with one output row and one channel per tile; the scratchpad has 65536"}
func.func @composite_too_wide(%x: tensor<1x768x7x7xf32>) -> tensor<1x8x7x7xf32> {
  %w = relay.constant dense<0.5> : tensor<8x768x3x3xf32>
  %b = relay.constant dense<0.5> : tensor<8xf32>
  %c = relay.nn.conv2d %x, %w {padding = [1, 1, 1, 1]} : (tensor<1x768x7x7xf32>, tensor<8x768x3x3xf32>) -> tensor<1x8x7x7xf32>
  %d = relay.nn.bias_add %c, %b : (tensor<1x8x7x7xf32>, tensor<8xf32>) -> tensor<1x8x7x7xf32>
  %r = relay.nn.relu %d : tensor<1x8x7x7xf32>
  func.return %r : tensor<1x8x7x7xf32>
}

// -----

// A depthwise conv is tiled by groups: one channel of a 1024x1024 map needs 3 input rows
// and one output row (4096 bytes each) and 36 bytes of weights: it fits. A max pool's
// tile is one channel too.
// CHECK-LABEL: func.func @depthwise_and_pool
// CHECK:         relay.nn.conv2d %x, %w {padding = [1, 1, 1, 1], groups = 4, accel.target = "npu-64k"}
// CHECK:         relay.nn.max_pool2d %{{.*}} {pool_size = [3, 3], strides = [2, 2], accel.target = "npu-64k"}
func.func @depthwise_and_pool(%x: tensor<1x4x1024x1024xf32>) -> tensor<1x4x511x511xf32> {
  %w = relay.constant dense<0.5> : tensor<4x1x3x3xf32>
  %c = relay.nn.conv2d %x, %w {padding = [1, 1, 1, 1], groups = 4} : (tensor<1x4x1024x1024xf32>, tensor<4x1x3x3xf32>) -> tensor<1x4x1024x1024xf32>
  %p = relay.nn.max_pool2d %c {pool_size = [3, 3], strides = [2, 2]} : (tensor<1x4x1024x1024xf32>) -> tensor<1x4x511x511xf32>
  func.return %p : tensor<1x4x511x511xf32>
}

// -----

// A softmax keeps its rows whole: a row of 10000 floats in and out needs 80000 bytes; rows
// of 4096 floats fit (32768 bytes).
// CHECK-LABEL: func.func @softmax_rows
// CHECK:         relay.nn.softmax %a {accel.target = "host", accel.reason = "npu-64k: 'accel.eltwise' needs 80000 bytes of scratchpad even row by row; the scratchpad has 65536"}
// CHECK:         relay.nn.softmax %b {accel.target = "npu-64k"}
func.func @softmax_rows(%a: tensor<2x10000xf32>, %b: tensor<64x4096xf32>) -> (tensor<2x10000xf32>, tensor<64x4096xf32>) {
  %0 = relay.nn.softmax %a : tensor<2x10000xf32>
  %1 = relay.nn.softmax %b : tensor<64x4096xf32>
  func.return %0, %1 : tensor<2x10000xf32>, tensor<64x4096xf32>
}
