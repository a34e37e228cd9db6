// Round trip of the image and layout ops (resize, conv2d_transpose, depth/space,
// gather, max_pool2d_indices): custom form -> custom form, and the generic form spells
// every property out.
// RUN: accel-opt %s --split-input-file | accel-opt --split-input-file | filecheck %s
// RUN: accel-opt %s --split-input-file --print-op-generic | filecheck %s --check-prefix=GEN
// RUN: accel-opt %s --split-input-file --print-op-generic | accel-opt --split-input-file | filecheck %s

func.func @resize_nearest(%x: tensor<1x3x4x4xf32>) -> tensor<1x3x8x6xf32> {
  %y = relay.image.resize2d %x {size = [8, 6], coordinate_transformation_mode = "asymmetric", nearest_mode = "floor"} : (tensor<1x3x4x4xf32>) -> tensor<1x3x8x6xf32>
  func.return %y : tensor<1x3x8x6xf32>
}
// CHECK-LABEL: func.func @resize_nearest
// CHECK-NEXT:  %y = relay.image.resize2d %x {size = [8, 6], coordinate_transformation_mode = "asymmetric", nearest_mode = "floor"} : (tensor<1x3x4x4xf32>) -> tensor<1x3x8x6xf32>
// GEN:         "relay.image.resize2d"(%x) <{size = array<i64: 8, 6>, method = "nearest", coordinate_transformation_mode = "asymmetric", nearest_mode = "floor", cubic_coeff_a = -7.500000e-01 : f64, exclude_outside = false, antialias = false, extrapolation_value = 0.000000e+00 : f64}>

// -----

func.func @resize_linear_scales(%x: tensor<1x1x5x5xf32>) -> tensor<1x1x4x4xf32> {
  %y = relay.image.resize2d %x {size = [4, 4], scale_h = 0.8, scale_w = 0.8, method = "linear", coordinate_transformation_mode = "align_corners"} : (tensor<1x1x5x5xf32>) -> tensor<1x1x4x4xf32>
  func.return %y : tensor<1x1x4x4xf32>
}
// CHECK-LABEL: func.func @resize_linear_scales
// CHECK-NEXT:  %y = relay.image.resize2d %x {size = [4, 4], scale_h = 0.8, scale_w = 0.8, method = "linear", coordinate_transformation_mode = "align_corners"}
// GEN:         "relay.image.resize2d"(%x) <{size = array<i64: 4, 4>, scale_h = 8.000000e-01 : f64, scale_w = 8.000000e-01 : f64, method = "linear", coordinate_transformation_mode = "align_corners", nearest_mode = "round_prefer_floor", cubic_coeff_a = -7.500000e-01 : f64, exclude_outside = false, antialias = false, extrapolation_value = 0.000000e+00 : f64}>

// -----

// Cubic with tf_crop_and_resize: the roi and the extrapolation value.
func.func @resize_cubic_crop(%x: tensor<1x1x5x5xf32>) -> tensor<1x1x3x4xf32> {
  %y = relay.image.resize2d %x {size = [3, 4], method = "cubic", coordinate_transformation_mode = "tf_crop_and_resize", cubic_coeff_a = -0.5, exclude_outside = true, antialias = true, roi = [0.25, 0.0, 1.0, 1.5], extrapolation_value = 2.5} : (tensor<1x1x5x5xf32>) -> tensor<1x1x3x4xf32>
  func.return %y : tensor<1x1x3x4xf32>
}
// CHECK-LABEL: func.func @resize_cubic_crop
// CHECK-NEXT:  %y = relay.image.resize2d %x {size = [3, 4], method = "cubic", coordinate_transformation_mode = "tf_crop_and_resize", cubic_coeff_a = -0.5, exclude_outside = true, antialias = true, roi = [0.25, 0.0, 1.0, 1.5], extrapolation_value = 2.5} : (tensor<1x1x5x5xf32>) -> tensor<1x1x3x4xf32>
// GEN:         "relay.image.resize2d"(%x) <{size = array<i64: 3, 4>, method = "cubic", coordinate_transformation_mode = "tf_crop_and_resize", nearest_mode = "round_prefer_floor", cubic_coeff_a = -5.000000e-01 : f64, exclude_outside = true, antialias = true, roi = array<f64: 2.500000e-01, 0.000000e+00, 1.000000e+00, 1.500000e+00>, extrapolation_value = 2.500000e+00 : f64}>

// -----

// Nearest resize moves elements of any type.
func.func @resize_int(%x: tensor<1x2x2x2xi8>) -> tensor<1x2x4x4xi8> {
  %y = relay.image.resize2d %x {size = [4, 4]} : (tensor<1x2x2x2xi8>) -> tensor<1x2x4x4xi8>
  func.return %y : tensor<1x2x4x4xi8>
}
// CHECK-LABEL: func.func @resize_int
// CHECK-NEXT:  %y = relay.image.resize2d %x {size = [4, 4]} : (tensor<1x2x2x2xi8>) -> tensor<1x2x4x4xi8>

// -----

func.func @conv2d_transpose(%x: tensor<1x4x3x3xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x6x7x7xf32> {
  %y = relay.nn.conv2d_transpose %x, %w {strides = [2, 2], padding = [1, 1, 0, 0], groups = 2, output_padding = [1, 1]} : (tensor<1x4x3x3xf32>, tensor<4x3x3x3xf32>) -> tensor<1x6x7x7xf32>
  func.return %y : tensor<1x6x7x7xf32>
}
// CHECK-LABEL: func.func @conv2d_transpose
// CHECK-NEXT:  %y = relay.nn.conv2d_transpose %x, %w {strides = [2, 2], padding = [1, 1, 0, 0], groups = 2, output_padding = [1, 1]} : (tensor<1x4x3x3xf32>, tensor<4x3x3x3xf32>) -> tensor<1x6x7x7xf32>
// GEN:         "relay.nn.conv2d_transpose"(%x, %w) <{strides = array<i64: 2, 2>, padding = array<i64: 1, 1, 0, 0>, dilation = array<i64: 1, 1>, groups = 2 : i64, output_padding = array<i64: 1, 1>}>

// -----

func.func @conv2d_transpose_dilated(%x: tensor<1x1x3x3xf32>, %w: tensor<1x1x2x2xf32>) -> tensor<1x1x5x5xf32> {
  %y = relay.nn.conv2d_transpose %x, %w {dilation = [2, 2]} : (tensor<1x1x3x3xf32>, tensor<1x1x2x2xf32>) -> tensor<1x1x5x5xf32>
  func.return %y : tensor<1x1x5x5xf32>
}
// CHECK-LABEL: func.func @conv2d_transpose_dilated
// CHECK-NEXT:  relay.nn.conv2d_transpose %x, %w {dilation = [2, 2]} : (tensor<1x1x3x3xf32>, tensor<1x1x2x2xf32>) -> tensor<1x1x5x5xf32>

// -----

func.func @depth_space(%x: tensor<1x8x2x3xf32>) -> (tensor<1x2x4x6xf32>, tensor<1x8x2x3xf32>) {
  %d = relay.nn.depth_to_space %x {block_size = 2, mode = "CRD"} : (tensor<1x8x2x3xf32>) -> tensor<1x2x4x6xf32>
  %s = relay.nn.space_to_depth %d {block_size = 2, mode = "CRD"} : (tensor<1x2x4x6xf32>) -> tensor<1x8x2x3xf32>
  func.return %d, %s : tensor<1x2x4x6xf32>, tensor<1x8x2x3xf32>
}
// CHECK-LABEL: func.func @depth_space
// CHECK-NEXT:  %d = relay.nn.depth_to_space %x {block_size = 2, mode = "CRD"} : (tensor<1x8x2x3xf32>) -> tensor<1x2x4x6xf32>
// CHECK-NEXT:  %s = relay.nn.space_to_depth %d {block_size = 2, mode = "CRD"} : (tensor<1x2x4x6xf32>) -> tensor<1x8x2x3xf32>
// GEN:         "relay.nn.depth_to_space"(%x) <{block_size = 2 : i64, mode = "CRD"}>
// GEN:         "relay.nn.space_to_depth"(%d) <{block_size = 2 : i64, mode = "CRD"}>

// -----

func.func @gather(%x: tensor<3x4xf32>, %i: tensor<2x4xi64>) -> tensor<2x4xf32> {
  %y = relay.gather %x, %i {axis = 0} : (tensor<3x4xf32>, tensor<2x4xi64>) -> tensor<2x4xf32>
  func.return %y : tensor<2x4xf32>
}
// CHECK-LABEL: func.func @gather
// CHECK-NEXT:  %y = relay.gather %x, %i : (tensor<3x4xf32>, tensor<2x4xi64>) -> tensor<2x4xf32>
// GEN:         "relay.gather"(%x, %i) <{axis = 0 : i64}>

// -----

func.func @max_pool_indices(%x: tensor<1x2x5x5xf32>) -> tensor<1x2x2x2xi64> {
  %y = relay.nn.max_pool2d_indices %x {pool_size = [2, 2], strides = [2, 2], storage_order = 1} : (tensor<1x2x5x5xf32>) -> tensor<1x2x2x2xi64>
  func.return %y : tensor<1x2x2x2xi64>
}
// CHECK-LABEL: func.func @max_pool_indices
// CHECK-NEXT:  %y = relay.nn.max_pool2d_indices %x {pool_size = [2, 2], strides = [2, 2], storage_order = 1} : (tensor<1x2x5x5xf32>) -> tensor<1x2x2x2xi64>
// GEN:         "relay.nn.max_pool2d_indices"(%x) <{pool_size = array<i64: 2, 2>, strides = array<i64: 2, 2>, dilation = array<i64: 1, 1>, padding = array<i64: 0, 0, 0, 0>, ceil_mode = false, storage_order = 1 : i64}>

// -----

func.func @dyn_clip(%x: tensor<2x3xi8>, %lo: tensor<i8>, %hi: tensor<1xi8>) -> tensor<2x3xi8> {
  %y = relay.dyn.clip %x, %lo, %hi : (tensor<2x3xi8>, tensor<i8>, tensor<1xi8>) -> tensor<2x3xi8>
  func.return %y : tensor<2x3xi8>
}
// CHECK-LABEL: func.func @dyn_clip
// CHECK-NEXT:  %y = relay.dyn.clip %x, %lo, %hi : (tensor<2x3xi8>, tensor<i8>, tensor<1xi8>) -> tensor<2x3xi8>
// GEN:         "relay.dyn.clip"(%x, %lo, %hi) : (tensor<2x3xi8>, tensor<i8>, tensor<1xi8>) -> tensor<2x3xi8>
