// fold-explicit-padding: a constant pad before a conv2d / avg_pool2d / max_pool2d becomes
// the op's padding (top, left, bottom, right); what cannot fold keeps its pad.
// RUN: accel-opt %s --split-input-file -p fold-explicit-padding | filecheck %s
// RUN: not accel-opt %s -p 'fold-explicit-padding{value=0}' 2>&1 | filecheck %s --check-prefix=OPTION

// OPTION: accel-opt: error: pass 'fold-explicit-padding' has no option 'value' (options: none)
// OPTION-NOT: Traceback

// Keras's ZeroPadding2D before a stride-2 convolution: the pads add to its own.
// CHECK-LABEL: func.func @conv
// CHECK-NEXT:    %[[W:.*]] = relay.constant
// CHECK-NEXT:    %[[Y:.*]] = relay.nn.conv2d %x, %[[W]] {strides = [2, 2], padding = [1, 0, 2, 1], groups = 2} : (tensor<1x2x8x8xf32>, tensor<2x1x3x3xf32>) -> tensor<1x2x5x4xf32>
// CHECK-NEXT:    func.return %[[Y]]
func.func @conv(%x: tensor<1x2x8x8xf32>) -> tensor<1x2x5x4xf32> {
  %w = relay.constant dense<1.0> : tensor<2x1x3x3xf32>
  %p = relay.nn.pad %x {pad_width = [0, 0, 0, 0, 0, 1, 0, 1]} : (tensor<1x2x8x8xf32>) -> tensor<1x2x9x9xf32>
  %y = relay.nn.conv2d %p, %w {strides = [2, 2], padding = [1, 0, 1, 0], groups = 2} : (tensor<1x2x9x9xf32>, tensor<2x1x3x3xf32>) -> tensor<1x2x5x4xf32>
  func.return %y : tensor<1x2x5x4xf32>
}

// -----

// torch's F.pad before a causal Conv1d: the [N, C, L] pad reaches the 2-D convolution
// through the reshape to the column [N, C, L, 1]; the reshape is rebuilt on the unpadded value.
// CHECK-LABEL: func.func @causal_conv1d
// CHECK-NEXT:    %[[W:.*]] = relay.constant
// CHECK-NEXT:    %[[R:.*]] = relay.reshape %a {newshape = [1, 4, 16, 1]} : (tensor<1x4x16xf32>) -> tensor<1x4x16x1xf32>
// CHECK-NEXT:    %[[Y:.*]] = relay.nn.conv2d %[[R]], %[[W]] {padding = [2, 0, 0, 0]} : (tensor<1x4x16x1xf32>, tensor<8x4x3x1xf32>) -> tensor<1x8x16x1xf32>
// CHECK-NEXT:    func.return %[[Y]]
func.func @causal_conv1d(%a: tensor<1x4x16xf32>) -> tensor<1x8x16x1xf32> {
  %w = relay.constant dense<1.0> : tensor<8x4x3x1xf32>
  %p = relay.nn.pad %a {pad_width = [0, 0, 0, 0, 2, 0]} : (tensor<1x4x16xf32>) -> tensor<1x4x18xf32>
  %r = relay.reshape %p {newshape = [1, 4, 18, 1]} : (tensor<1x4x18xf32>) -> tensor<1x4x18x1xf32>
  %y = relay.nn.conv2d %r, %w : (tensor<1x4x18x1xf32>, tensor<8x4x3x1xf32>) -> tensor<1x8x16x1xf32>
  func.return %y : tensor<1x8x16x1xf32>
}

// -----

// A QDQ model's pad (DQ -> pad -> Q -> DQ -> conv): the zero pad passes the quantize /
// dequantize pair, and the quantize of the first dequantize's own scale and zero point
// is dropped (Q(DQ(q)) = q).
// CHECK-LABEL: func.func @qdq
// CHECK:         %[[D:.*]] = relay.qnn.dequantize %q, %s, %z
// CHECK-NEXT:    %[[Y:.*]] = relay.nn.conv2d %[[D]], %w {strides = [2, 2], padding = [0, 0, 1, 1]} : (tensor<1x2x4x4xf32>, tensor<2x2x3x3xf32>) -> tensor<1x2x2x2xf32>
// CHECK-NEXT:    func.return %[[Y]]
// CHECK-NOT:     relay.nn.pad
func.func @qdq(%q: tensor<1x2x4x4xi8>, %w: tensor<2x2x3x3xf32>) -> tensor<1x2x2x2xf32> {
  %s = relay.constant dense<0.5> : tensor<f32>
  %z = relay.constant dense<3> : tensor<i8>
  %d = relay.qnn.dequantize %q, %s, %z : (tensor<1x2x4x4xi8>, tensor<f32>, tensor<i8>) -> tensor<1x2x4x4xf32>
  %p = relay.nn.pad %d {pad_width = [0, 0, 0, 0, 0, 1, 0, 1]} : (tensor<1x2x4x4xf32>) -> tensor<1x2x5x5xf32>
  %pq = relay.qnn.quantize %p, %s, %z : (tensor<1x2x5x5xf32>, tensor<f32>, tensor<i8>) -> tensor<1x2x5x5xi8>
  %pd = relay.qnn.dequantize %pq, %s, %z : (tensor<1x2x5x5xi8>, tensor<f32>, tensor<i8>) -> tensor<1x2x5x5xf32>
  %y = relay.nn.conv2d %pd, %w {strides = [2, 2]} : (tensor<1x2x5x5xf32>, tensor<2x2x3x3xf32>) -> tensor<1x2x2x2xf32>
  func.return %y : tensor<1x2x2x2xf32>
}

// -----

// One padded, quantized value read by two convolutions (WaveNet's filter and gate): each
// folds the pad on a dequantize of its own, and the chain goes when the last one has.
// CHECK-LABEL: func.func @qdq_shared_by_two_convs
// CHECK:         %[[D:.*]] = relay.qnn.dequantize %q, %s, %z
// CHECK-NEXT:    %[[A:.*]] = relay.nn.conv2d %[[D]], %w {padding = [1, 0, 0, 0]} : (tensor<1x2x4x1xf32>, tensor<2x2x2x1xf32>) -> tensor<1x2x4x1xf32>
// CHECK-NEXT:    %[[E:.*]] = relay.qnn.dequantize %q, %s, %z
// CHECK-NEXT:    %[[B:.*]] = relay.nn.conv2d %[[E]], %w {padding = [1, 0, 0, 0]} : (tensor<1x2x4x1xf32>, tensor<2x2x2x1xf32>) -> tensor<1x2x4x1xf32>
// CHECK-NEXT:    func.return %[[A]], %[[B]]
func.func @qdq_shared_by_two_convs(%q: tensor<1x2x4x1xi8>, %w: tensor<2x2x2x1xf32>) -> (tensor<1x2x4x1xf32>, tensor<1x2x4x1xf32>) {
  %s = relay.constant dense<0.5> : tensor<f32>
  %z = relay.constant dense<3> : tensor<i8>
  %d = relay.qnn.dequantize %q, %s, %z : (tensor<1x2x4x1xi8>, tensor<f32>, tensor<i8>) -> tensor<1x2x4x1xf32>
  %p = relay.nn.pad %d {pad_width = [0, 0, 0, 0, 1, 0, 0, 0]} : (tensor<1x2x4x1xf32>) -> tensor<1x2x5x1xf32>
  %pq = relay.qnn.quantize %p, %s, %z : (tensor<1x2x5x1xf32>, tensor<f32>, tensor<i8>) -> tensor<1x2x5x1xi8>
  %pd = relay.qnn.dequantize %pq, %s, %z : (tensor<1x2x5x1xi8>, tensor<f32>, tensor<i8>) -> tensor<1x2x5x1xf32>
  %a = relay.nn.conv2d %pd, %w : (tensor<1x2x5x1xf32>, tensor<2x2x2x1xf32>) -> tensor<1x2x4x1xf32>
  %b = relay.nn.conv2d %pd, %w : (tensor<1x2x5x1xf32>, tensor<2x2x2x1xf32>) -> tensor<1x2x4x1xf32>
  func.return %a, %b : tensor<1x2x4x1xf32>, tensor<1x2x4x1xf32>
}

// -----

// Keras's ResNet stem: ZeroPadding2D before a max pool of a ReLU's output (no value
// below the pad's 0, so the pool's own padding, which never wins the max, is the same).
// CHECK-LABEL: func.func @max_pool_after_relu
// CHECK-NEXT:    %[[R:.*]] = relay.nn.relu %x
// CHECK-NEXT:    %[[Y:.*]] = relay.nn.max_pool2d %[[R]] {pool_size = [3, 3], strides = [2, 2], padding = [1, 1, 1, 1]} : (tensor<1x2x8x8xf32>) -> tensor<1x2x4x4xf32>
// CHECK-NEXT:    func.return %[[Y]]
func.func @max_pool_after_relu(%x: tensor<1x2x8x8xf32>) -> tensor<1x2x4x4xf32> {
  %r = relay.nn.relu %x : tensor<1x2x8x8xf32>
  %p = relay.nn.pad %r {pad_width = [0, 0, 0, 0, 1, 1, 1, 1]} : (tensor<1x2x8x8xf32>) -> tensor<1x2x10x10xf32>
  %y = relay.nn.max_pool2d %p {pool_size = [3, 3], strides = [2, 2]} : (tensor<1x2x10x10xf32>) -> tensor<1x2x4x4xf32>
  func.return %y : tensor<1x2x4x4xf32>
}

// -----

// A zero pad before an average pool that does not count its own padding: the pad's
// cells are counted, so the pool counts its padding after the fold.
// CHECK-LABEL: func.func @avg_pool
// CHECK-NEXT:    %[[Y:.*]] = relay.nn.avg_pool2d %x {pool_size = [2, 2], strides = [2, 2], padding = [1, 1, 1, 1], count_include_pad = true} : (tensor<1x2x6x6xf32>) -> tensor<1x2x4x4xf32>
// CHECK-NEXT:    func.return %[[Y]]
func.func @avg_pool(%x: tensor<1x2x6x6xf32>) -> tensor<1x2x4x4xf32> {
  %p = relay.nn.pad %x {pad_width = [0, 0, 0, 0, 1, 1, 1, 1]} : (tensor<1x2x6x6xf32>) -> tensor<1x2x8x8xf32>
  %y = relay.nn.avg_pool2d %p {pool_size = [2, 2], strides = [2, 2]} : (tensor<1x2x8x8xf32>) -> tensor<1x2x4x4xf32>
  func.return %y : tensor<1x2x4x4xf32>
}

// -----

// A pad read by a conv and by something else stays for the other reader.
// CHECK-LABEL: func.func @shared_pad
// CHECK:         %[[P:.*]] = relay.nn.pad %x
// CHECK-NEXT:    %[[Y:.*]] = relay.nn.conv2d %x, %{{.*}} {padding = [1, 1, 1, 1]}
// CHECK-NEXT:    %[[S:.*]] = relay.nn.relu %[[P]]
func.func @shared_pad(%x: tensor<1x2x4x4xf32>) -> (tensor<1x2x4x4xf32>, tensor<1x2x6x6xf32>) {
  %w = relay.constant dense<1.0> : tensor<2x2x3x3xf32>
  %p = relay.nn.pad %x {pad_width = [0, 0, 0, 0, 1, 1, 1, 1]} : (tensor<1x2x4x4xf32>) -> tensor<1x2x6x6xf32>
  %y = relay.nn.conv2d %p, %w : (tensor<1x2x6x6xf32>, tensor<2x2x3x3xf32>) -> tensor<1x2x4x4xf32>
  %s = relay.nn.relu %p : tensor<1x2x6x6xf32>
  func.return %y, %s : tensor<1x2x4x4xf32>, tensor<1x2x6x6xf32>
}

// -----

// Not folded: a pad of another value, of -0.0, of the channels, or reflecting, before a
// convolution (the conv pads with +0.0).
// CHECK-LABEL: func.func @conv_kept
// CHECK-COUNT-4: relay.nn.pad
// CHECK-NOT:     padding =
func.func @conv_kept(%x: tensor<1x2x4x4xf32>) -> (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) {
  %w = relay.constant dense<1.0> : tensor<2x2x3x3xf32>
  %w4 = relay.constant dense<1.0> : tensor<2x4x3x3xf32>
  %p0 = relay.nn.pad %x {pad_width = [0, 0, 0, 0, 1, 1, 1, 1], pad_value = 1.0} : (tensor<1x2x4x4xf32>) -> tensor<1x2x6x6xf32>
  %y0 = relay.nn.conv2d %p0, %w : (tensor<1x2x6x6xf32>, tensor<2x2x3x3xf32>) -> tensor<1x2x4x4xf32>
  %p1 = relay.nn.pad %x {pad_width = [0, 0, 0, 0, 1, 1, 1, 1], pad_value = -0.0} : (tensor<1x2x4x4xf32>) -> tensor<1x2x6x6xf32>
  %y1 = relay.nn.conv2d %p1, %w : (tensor<1x2x6x6xf32>, tensor<2x2x3x3xf32>) -> tensor<1x2x4x4xf32>
  %p2 = relay.nn.pad %x {pad_width = [0, 0, 1, 1, 1, 1, 1, 1]} : (tensor<1x2x4x4xf32>) -> tensor<1x4x6x6xf32>
  %y2 = relay.nn.conv2d %p2, %w4 : (tensor<1x4x6x6xf32>, tensor<2x4x3x3xf32>) -> tensor<1x2x4x4xf32>
  %p3 = relay.nn.pad %x {pad_width = [0, 0, 0, 0, 1, 1, 1, 1], pad_mode = "reflect"} : (tensor<1x2x4x4xf32>) -> tensor<1x2x6x6xf32>
  %y3 = relay.nn.conv2d %p3, %w : (tensor<1x2x6x6xf32>, tensor<2x2x3x3xf32>) -> tensor<1x2x4x4xf32>
  func.return %y0, %y1, %y2, %y3 : tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>
}

// -----

// Not folded into max pools: a zero pad of values that may be negative, a window that
// could hold only padding (2 + 0 >= 2), a pool in ceil mode.
// CHECK-LABEL: func.func @max_pool_kept
// CHECK-COUNT-3: relay.nn.pad
func.func @max_pool_kept(%x: tensor<1x2x8x8xf32>) -> (tensor<1x2x5x5xf32>, tensor<1x2x6x6xf32>, tensor<1x2x5x5xf32>) {
  %p0 = relay.nn.pad %x {pad_width = [0, 0, 0, 0, 1, 1, 1, 1]} : (tensor<1x2x8x8xf32>) -> tensor<1x2x10x10xf32>
  %y0 = relay.nn.max_pool2d %p0 {pool_size = [2, 2], strides = [2, 2]} : (tensor<1x2x10x10xf32>) -> tensor<1x2x5x5xf32>
  %r = relay.nn.relu %x : tensor<1x2x8x8xf32>
  %p1 = relay.nn.pad %r {pad_width = [0, 0, 0, 0, 2, 2, 2, 2]} : (tensor<1x2x8x8xf32>) -> tensor<1x2x12x12xf32>
  %y1 = relay.nn.max_pool2d %p1 {pool_size = [2, 2], strides = [2, 2]} : (tensor<1x2x12x12xf32>) -> tensor<1x2x6x6xf32>
  %p2 = relay.nn.pad %r {pad_width = [0, 0, 0, 0, 0, 1, 0, 1]} : (tensor<1x2x8x8xf32>) -> tensor<1x2x9x9xf32>
  %y2 = relay.nn.max_pool2d %p2 {pool_size = [2, 2], strides = [2, 2], ceil_mode = true} : (tensor<1x2x9x9xf32>) -> tensor<1x2x5x5xf32>
  func.return %y0, %y1, %y2 : tensor<1x2x5x5xf32>, tensor<1x2x6x6xf32>, tensor<1x2x5x5xf32>
}

// -----

// Not folded into an average pool with padding it does not count.
// CHECK-LABEL: func.func @avg_pool_kept
// CHECK:         relay.nn.pad
func.func @avg_pool_kept(%x: tensor<1x2x6x6xf32>) -> tensor<1x2x5x5xf32> {
  %p = relay.nn.pad %x {pad_width = [0, 0, 0, 0, 1, 1, 1, 1]} : (tensor<1x2x6x6xf32>) -> tensor<1x2x8x8xf32>
  %y = relay.nn.avg_pool2d %p {pool_size = [2, 2], strides = [2, 2], padding = [1, 1, 1, 1]} : (tensor<1x2x8x8xf32>) -> tensor<1x2x5x5xf32>
  func.return %y : tensor<1x2x5x5xf32>
}
