// resize-as-matmuls: a resize no target runs as products with its interpolation matrices
// (dense layers with constant weights, transposes and reshapes), which the npu runs, where
// that pays: between ops the npu runs, or cheaper there than on the host.
// RUN: accel-opt %s --split-input-file --target npu -p resize-as-matmuls | filecheck %s
// RUN: accel-opt %s --split-input-file --target npu -p byoc | filecheck %s --check-prefix=BYOC
// RUN: accel-opt %s --split-input-file --target dsp -p resize-as-matmuls | filecheck %s --check-prefix=DSP

// A bilinear resize between two convolutions: the W axis (3 -> 6) is a dense layer on
// [N*C*H, W], the H axis (4 -> 8) one on the transposed [N*C*OW, H]; the matrices hold
// ONNX's half-pixel taps (edges repeat).
// CHECK-LABEL: func.func @between
// CHECK:         %c = relay.nn.conv2d
// CHECK-NEXT:    %[[X:.*]] = relay.reshape %c {newshape = [8, 3]} : (tensor<1x2x4x3xf32>) -> tensor<8x3xf32>
// CHECK-NEXT:    %[[RW:.*]] = relay.constant dense<{{\[}}[1.000000e+00, 0.000000e+00, 0.000000e+00], [7.500000e-01, 2.500000e-01, 0.000000e+00], [2.500000e-01, 7.500000e-01, 0.000000e+00], [0.000000e+00, 7.500000e-01, 2.500000e-01], [0.000000e+00, 2.500000e-01, 7.500000e-01], [0.000000e+00, 0.000000e+00, 1.000000e+00]]> : tensor<6x3xf32>
// CHECK-NEXT:    %[[W:.*]] = relay.nn.dense %[[X]], %[[RW]] : (tensor<8x3xf32>, tensor<6x3xf32>) -> tensor<8x6xf32>
// CHECK-NEXT:    %[[A:.*]] = relay.reshape %[[W]] {newshape = [2, 4, 6]}
// CHECK-NEXT:    %[[T:.*]] = relay.transpose %[[A]] {axes = [0, 2, 1]} : (tensor<2x4x6xf32>) -> tensor<2x6x4xf32>
// CHECK-NEXT:    %[[B:.*]] = relay.reshape %[[T]] {newshape = [12, 4]}
// CHECK-NEXT:    %[[RH:.*]] = relay.constant dense<{{.*}}> : tensor<8x4xf32>
// CHECK-NEXT:    %[[H:.*]] = relay.nn.dense %[[B]], %[[RH]] : (tensor<12x4xf32>, tensor<8x4xf32>) -> tensor<12x8xf32>
// CHECK-NEXT:    %[[C:.*]] = relay.reshape %[[H]] {newshape = [2, 6, 8]}
// CHECK-NEXT:    %[[U:.*]] = relay.transpose %[[C]] {axes = [0, 2, 1]} : (tensor<2x6x8xf32>) -> tensor<2x8x6xf32>
// CHECK-NEXT:    %r = relay.reshape %[[U]] {newshape = [1, 2, 8, 6]} : (tensor<2x8x6xf32>) -> tensor<1x2x8x6xf32>
// CHECK-NEXT:    %v = relay.constant
// CHECK-NOT:     relay.image.resize2d
// DSP-LABEL: func.func @between
// DSP:         relay.image.resize2d
func.func @between(%x: tensor<1x3x4x3xf32>) -> tensor<1x4x8x6xf32> {
  %w = relay.constant dense<0.5> : tensor<2x3x1x1xf32>
  %c = relay.nn.conv2d %x, %w : (tensor<1x3x4x3xf32>, tensor<2x3x1x1xf32>) -> tensor<1x2x4x3xf32>
  %r = relay.image.resize2d %c {size = [8, 6], method = "linear"} : (tensor<1x2x4x3xf32>) -> tensor<1x2x8x6xf32>
  %v = relay.constant dense<0.25> : tensor<4x2x1x1xf32>
  %y = relay.nn.conv2d %r, %v : (tensor<1x2x8x6xf32>, tensor<4x2x1x1xf32>) -> tensor<1x4x8x6xf32>
  func.return %y : tensor<1x4x8x6xf32>
}

// -----

// DeepLab's pooling branch: a nearest resize by 23/15 (not a whole factor: no copies)
// between a ReLU and a concatenation; only H changes here, so one product (one-hot rows,
// exact). Partitioned, the whole graph is one npu region.
// CHECK-LABEL: func.func @nearest_one_axis
// CHECK:         %[[A:.*]] = relay.reshape %p {newshape = [16, 15, 8]}
// CHECK-NEXT:    %[[T:.*]] = relay.transpose %[[A]] {axes = [0, 2, 1]}
// CHECK-NEXT:    %[[B:.*]] = relay.reshape %[[T]] {newshape = [128, 15]}
// CHECK-NEXT:    %[[R:.*]] = relay.constant dense<{{.*}}> : tensor<23x15xf32>
// CHECK-NEXT:    relay.nn.dense %[[B]], %[[R]] : (tensor<128x15xf32>, tensor<23x15xf32>) -> tensor<128x23xf32>
// CHECK-NOT:     relay.nn.dense
// CHECK:         relay.concatenate
// BYOC-LABEL: func.func @nearest_one_axis
// BYOC-NEXT:    %y = func.call @npu_0(%x)
// BYOC-NEXT:    func.return
func.func @nearest_one_axis(%x: tensor<1x16x23x8xf32>) -> tensor<1x32x23x8xf32> {
  %w = relay.constant dense<0.5> : tensor<16x16x3x3xf32>
  %c = relay.nn.conv2d %x, %w {padding = [1, 1, 1, 1]} : (tensor<1x16x23x8xf32>, tensor<16x16x3x3xf32>) -> tensor<1x16x23x8xf32>
  %s = relay.strided_slice %c {begin = [0], end = [15], axes = [2]} : (tensor<1x16x23x8xf32>) -> tensor<1x16x15x8xf32>
  %p = relay.nn.relu %s : tensor<1x16x15x8xf32>
  %r = relay.image.resize2d %p {size = [23, 8], coordinate_transformation_mode = "asymmetric", nearest_mode = "floor"} : (tensor<1x16x15x8xf32>) -> tensor<1x16x23x8xf32>
  %y = relay.concatenate %c, %r {axis = 1} : (tensor<1x16x23x8xf32>, tensor<1x16x23x8xf32>) -> tensor<1x32x23x8xf32>
  func.return %y : tensor<1x32x23x8xf32>
}

// -----

// Left alone: the upsampling of a network's output (after the last op the npu runs it
// costs the host less than the products and the larger result leaving the device), and
// between ops the npu runs: a crop-and-resize extrapolating 1.0 (not linear in the data),
// integer data, and a resize the user put on the host.
// CHECK-LABEL: func.func @left_alone
// CHECK-NOT:     relay.nn.dense
// CHECK:         relay.image.resize2d %p {size = [32, 32], method = "linear"}
// CHECK:         relay.image.resize2d %p {size = [4, 4], method = "linear", coordinate_transformation_mode = "tf_crop_and_resize", roi = [0.0, 0.0, 1.5, 1.5], extrapolation_value = 1.0}
// CHECK:         relay.image.resize2d %q {size = [8, 8]}
// CHECK:         relay.image.resize2d %p {size = [8, 8], method = "linear", accel.target = "host"}
// BYOC-LABEL: func.func @left_alone
// BYOC:         relay.image.resize2d {{.*}} {size = [32, 32], method = "linear", accel.target = "host", accel.reason = "npu: op not supported"}
func.func @left_alone(%x: tensor<1x8x4x4xf32>, %i: tensor<1x2x4x4xi8>) -> (tensor<1x8x32x32xf32>, tensor<1x8x4x4xf32>, tensor<1x2x8x8xi8>, tensor<1x8x8x8xf32>) {
  %w = relay.constant dense<0.5> : tensor<8x8x3x3xf32>
  %c = relay.nn.conv2d %x, %w {padding = [1, 1, 1, 1]} : (tensor<1x8x4x4xf32>, tensor<8x8x3x3xf32>) -> tensor<1x8x4x4xf32>
  %p = relay.nn.relu %c : tensor<1x8x4x4xf32>
  %a = relay.image.resize2d %p {size = [32, 32], method = "linear"} : (tensor<1x8x4x4xf32>) -> tensor<1x8x32x32xf32>
  %b = relay.image.resize2d %p {size = [4, 4], method = "linear", coordinate_transformation_mode = "tf_crop_and_resize", roi = [0.0, 0.0, 1.5, 1.5], extrapolation_value = 1.0} : (tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32>
  %br = relay.nn.relu %b : tensor<1x8x4x4xf32>
  %q = relay.nn.relu %i : tensor<1x2x4x4xi8>
  %n = relay.image.resize2d %q {size = [8, 8]} : (tensor<1x2x4x4xi8>) -> tensor<1x2x8x8xi8>
  %nr = relay.nn.relu %n : tensor<1x2x8x8xi8>
  %h = relay.image.resize2d %p {size = [8, 8], method = "linear", accel.target = "host"} : (tensor<1x8x4x4xf32>) -> tensor<1x8x8x8xf32>
  %hr = relay.nn.relu %h : tensor<1x8x8x8xf32>
  func.return %a, %br, %nr, %hr : tensor<1x8x32x32xf32>, tensor<1x8x4x4xf32>, tensor<1x2x8x8xi8>, tensor<1x8x8x8xf32>
}
