// undilate-column-convs: one-column convolutions dilated along rows, on their row phases.
// RUN: accel-opt %s --split-input-file -p undilate-column-convs | filecheck %s

// A causal Conv1d with dilation 4 (the 1-D lift's square dilation), its bias and
// activation: they move before the reshape back.
// CHECK-LABEL: func.func @causal_dilated
// CHECK-NEXT:    %w = relay.constant
// CHECK-NEXT:    %b = relay.constant
// CHECK-NEXT:    %0 = relay.reshape %x {newshape = [1, 16, 16, 4]} : (tensor<1x16x64x1xf32>) -> tensor<1x16x16x4xf32>
// CHECK-NEXT:    %1 = relay.nn.conv2d %0, %w {padding = [1, 0, 0, 0]} : (tensor<1x16x16x4xf32>, tensor<8x16x2x1xf32>) -> tensor<1x8x16x4xf32>
// CHECK-NEXT:    %2 = relay.nn.bias_add %1, %b : (tensor<1x8x16x4xf32>, tensor<8xf32>) -> tensor<1x8x16x4xf32>
// CHECK-NEXT:    %3 = relay.tanh %2 : tensor<1x8x16x4xf32>
// CHECK-NEXT:    %r = relay.reshape %3 {newshape = [1, 8, 64, 1]} : (tensor<1x8x16x4xf32>) -> tensor<1x8x64x1xf32>
// CHECK-NEXT:    func.return %r
func.func @causal_dilated(%x: tensor<1x16x64x1xf32>) -> tensor<1x8x64x1xf32> {
  %w = relay.constant dense<0.5> : tensor<8x16x2x1xf32>
  %b = relay.constant dense<0.25> : tensor<8xf32>
  %y = relay.nn.conv2d %x, %w {padding = [4, 0, 0, 0], dilation = [4, 4]} : (tensor<1x16x64x1xf32>, tensor<8x16x2x1xf32>) -> tensor<1x8x64x1xf32>
  %z = relay.nn.bias_add %y, %b : (tensor<1x8x64x1xf32>, tensor<8xf32>) -> tensor<1x8x64x1xf32>
  %r = relay.tanh %z : tensor<1x8x64x1xf32>
  func.return %r : tensor<1x8x64x1xf32>
}

// -----

// Several columns, "same" padding, depthwise; the result read twice: the activations stay
// after the reshape back.
// CHECK-LABEL: func.func @columns_same_padding
// CHECK-NEXT:    %w = relay.constant
// CHECK-NEXT:    %0 = relay.reshape %x {newshape = [2, 4, 6, 6]} : (tensor<2x4x12x3xf32>) -> tensor<2x4x6x6xf32>
// CHECK-NEXT:    %1 = relay.nn.conv2d %0, %w {padding = [1, 0, 1, 0], groups = 4} : (tensor<2x4x6x6xf32>, tensor<4x1x3x1xf32>) -> tensor<2x4x6x6xf32>
// CHECK-NEXT:    %y = relay.reshape %1 {newshape = [2, 4, 12, 3]} : (tensor<2x4x6x6xf32>) -> tensor<2x4x12x3xf32>
// CHECK-NEXT:    %r = relay.nn.relu %y
// CHECK-NEXT:    %s = relay.sigmoid %y
func.func @columns_same_padding(%x: tensor<2x4x12x3xf32>) -> (tensor<2x4x12x3xf32>, tensor<2x4x12x3xf32>) {
  %w = relay.constant dense<0.5> : tensor<4x1x3x1xf32>
  %y = relay.nn.conv2d %x, %w {padding = [2, 0, 2, 0], dilation = [2, 1], groups = 4} : (tensor<2x4x12x3xf32>, tensor<4x1x3x1xf32>) -> tensor<2x4x12x3xf32>
  %r = relay.nn.relu %y : tensor<2x4x12x3xf32>
  %s = relay.sigmoid %y : tensor<2x4x12x3xf32>
  func.return %r, %s : tensor<2x4x12x3xf32>, tensor<2x4x12x3xf32>
}

// -----

// An integer convolution the same way.
// CHECK-LABEL: func.func @int8_dilated
// CHECK:         relay.reshape %x {newshape = [1, 4, 4, 2]} : (tensor<1x4x8x1xi8>) -> tensor<1x4x4x2xi8>
// CHECK-NEXT:    relay.qnn.conv2d %{{.*}} {padding = [1, 0, 0, 0]} : {{.*}} -> tensor<1x4x4x2xi32>
// CHECK-NEXT:    relay.reshape %{{.*}} {newshape = [1, 4, 8, 1]} : (tensor<1x4x4x2xi32>) -> tensor<1x4x8x1xi32>
func.func @int8_dilated(%x: tensor<1x4x8x1xi8>) -> tensor<1x4x8x1xi32> {
  %w = relay.constant dense<3> : tensor<4x4x2x1xi8>
  %zp = relay.constant dense<0> : tensor<i8>
  %kzp = relay.constant dense<0> : tensor<i8>
  %s = relay.constant dense<0.5> : tensor<f32>
  %ks = relay.constant dense<0.25> : tensor<f32>
  %y = relay.qnn.conv2d %x, %w, %zp, %kzp, %s, %ks {padding = [2, 0, 0, 0], dilation = [2, 2]} : (tensor<1x4x8x1xi8>, tensor<4x4x2x1xi8>, tensor<i8>, tensor<i8>, tensor<f32>, tensor<f32>) -> tensor<1x4x8x1xi32>
  func.return %y : tensor<1x4x8x1xi32>
}

// -----

// Left alone: a kernel two columns wide, rows not a multiple of the dilation, a padding
// that is not, a stride along the rows, padding along the columns, no dilation.
// CHECK-LABEL: func.func @kept
// CHECK-NOT:     relay.reshape
func.func @kept(%x: tensor<1x2x12x2xf32>, %x13: tensor<1x2x13x1xf32>) -> (tensor<1x2x8x1xf32>, tensor<1x2x9x1xf32>, tensor<1x2x10x2xf32>, tensor<1x2x4x1xf32>, tensor<1x2x12x4xf32>, tensor<1x2x10x2xf32>) {
  %w2 = relay.constant dense<0.5> : tensor<2x2x3x2xf32>
  %w1 = relay.constant dense<0.5> : tensor<2x2x3x1xf32>
  %a = relay.nn.conv2d %x, %w2 {dilation = [2, 1]} : (tensor<1x2x12x2xf32>, tensor<2x2x3x2xf32>) -> tensor<1x2x8x1xf32>
  %b = relay.nn.conv2d %x13, %w1 {dilation = [2, 2]} : (tensor<1x2x13x1xf32>, tensor<2x2x3x1xf32>) -> tensor<1x2x9x1xf32>
  %c = relay.nn.conv2d %x, %w1 {padding = [1, 0, 1, 0], dilation = [2, 1]} : (tensor<1x2x12x2xf32>, tensor<2x2x3x1xf32>) -> tensor<1x2x10x2xf32>
  %d = relay.nn.conv2d %x, %w1 {strides = [2, 2], dilation = [2, 2]} : (tensor<1x2x12x2xf32>, tensor<2x2x3x1xf32>) -> tensor<1x2x4x1xf32>
  %e = relay.nn.conv2d %x, %w1 {padding = [2, 1, 2, 1], dilation = [2, 1]} : (tensor<1x2x12x2xf32>, tensor<2x2x3x1xf32>) -> tensor<1x2x12x4xf32>
  %f = relay.nn.conv2d %x, %w1 : (tensor<1x2x12x2xf32>, tensor<2x2x3x1xf32>) -> tensor<1x2x10x2xf32>
  func.return %a, %b, %c, %d, %e, %f : tensor<1x2x8x1xf32>, tensor<1x2x9x1xf32>, tensor<1x2x10x2xf32>, tensor<1x2x4x1xf32>, tensor<1x2x12x4xf32>, tensor<1x2x10x2xf32>
}
