// Verifier errors of the image and layout ops: one located line naming the operand or
// property.
// RUN: accel-opt %s --split-input-file --verify-diagnostics
// RUN: not accel-opt %s --split-input-file 2>&1 | filecheck %s

func.func @resize_rank(%x: tensor<3x4x4xf32>) -> tensor<3x8x8xf32> {
  // CHECK: image-invalid.mlir:[[# @LINE + 1]]:3: error: 'relay.image.resize2d' op operand 'data' must have rank 4, got tensor<3x4x4xf32>
  %y = relay.image.resize2d %x {size = [8, 8]} : (tensor<3x4x4xf32>) -> tensor<3x8x8xf32> // expected-error {{'relay.image.resize2d' op operand 'data' must have rank 4, got tensor<3x4x4xf32>}}
  func.return %y : tensor<3x8x8xf32>
}

// -----

func.func @resize_linear_int(%x: tensor<1x1x2x2xi8>) -> tensor<1x1x4x4xi8> {
  // CHECK: image-invalid.mlir:[[# @LINE + 1]]:3: error: 'relay.image.resize2d' op operand 'data' must have a float element type, got tensor<1x1x2x2xi8>
  %y = relay.image.resize2d %x {size = [4, 4], method = "linear"} : (tensor<1x1x2x2xi8>) -> tensor<1x1x4x4xi8> // expected-error {{'relay.image.resize2d' op operand 'data' must have a float element type, got tensor<1x1x2x2xi8>}}
  func.return %y : tensor<1x1x4x4xi8>
}

// -----

func.func @resize_scale(%x: tensor<1x1x2x2xf32>) -> tensor<1x1x4x4xf32> {
  // CHECK: image-invalid.mlir:[[# @LINE + 1]]:3: error: 'relay.image.resize2d' op property 'scale_h' must be a positive finite number, got -2.0
  %y = relay.image.resize2d %x {size = [4, 4], scale_h = -2.0} : (tensor<1x1x2x2xf32>) -> tensor<1x1x4x4xf32> // expected-error {{'relay.image.resize2d' op property 'scale_h' must be a positive finite number, got -2.0}}
  func.return %y : tensor<1x1x4x4xf32>
}

// -----

func.func @resize_size(%x: tensor<1x1x2x2xf32>) -> tensor<1x1x4x4xf32> {
  // CHECK: image-invalid.mlir:[[# @LINE + 1]]:3: error: 'relay.image.resize2d' op result type tensor<1x1x4x4xf32> does not match the inferred type tensor<1x1x4x5xf32>
  %y = relay.image.resize2d %x {size = [4, 5]} : (tensor<1x1x2x2xf32>) -> tensor<1x1x4x4xf32> // expected-error {{'relay.image.resize2d' op result type tensor<1x1x4x4xf32> does not match the inferred type tensor<1x1x4x5xf32>}}
  func.return %y : tensor<1x1x4x4xf32>
}

// -----

func.func @resize_mode(%x: tensor<1x1x2x2xf32>) -> tensor<1x1x4x4xf32> {
  // CHECK: image-invalid.mlir:[[# @LINE + 2]]:57: error: property 'method' of 'relay.image.resize2d' must be one of "nearest", "linear", "cubic", got "area"
  // expected-error @+1 {{property 'method' of 'relay.image.resize2d' must be one of "nearest", "linear", "cubic", got "area"}}
  %y = relay.image.resize2d %x {size = [4, 4], method = "area"} : (tensor<1x1x2x2xf32>) -> tensor<1x1x4x4xf32>
  func.return %y : tensor<1x1x4x4xf32>
}

// -----

func.func @resize_crop_without_roi(%x: tensor<1x1x2x2xf32>) -> tensor<1x1x4x4xf32> {
  // CHECK: image-invalid.mlir:[[# @LINE + 1]]:3: error: 'relay.image.resize2d' op property 'roi' is given exactly with 'tf_crop_and_resize'
  %y = relay.image.resize2d %x {size = [4, 4], method = "linear", coordinate_transformation_mode = "tf_crop_and_resize"} : (tensor<1x1x2x2xf32>) -> tensor<1x1x4x4xf32> // expected-error {{'relay.image.resize2d' op property 'roi' is given exactly with 'tf_crop_and_resize'}}
  func.return %y : tensor<1x1x4x4xf32>
}

// -----

func.func @resize_roi_without_crop(%x: tensor<1x1x2x2xf32>) -> tensor<1x1x4x4xf32> {
  // CHECK: image-invalid.mlir:[[# @LINE + 1]]:3: error: 'relay.image.resize2d' op property 'roi' is given exactly with 'tf_crop_and_resize'
  %y = relay.image.resize2d %x {size = [4, 4], method = "linear", roi = [0.0, 0.0, 1.0, 1.0]} : (tensor<1x1x2x2xf32>) -> tensor<1x1x4x4xf32> // expected-error {{'relay.image.resize2d' op property 'roi' is given exactly with 'tf_crop_and_resize'}}
  func.return %y : tensor<1x1x4x4xf32>
}

// -----

func.func @resize_roi_length(%x: tensor<1x1x2x2xf32>) -> tensor<1x1x4x4xf32> {
  // CHECK: image-invalid.mlir:[[# @LINE + 1]]:3: error: 'relay.image.resize2d' op property 'roi' must be 4 finite numbers [start_h, start_w, end_h, end_w], got [0.0, 1.0]
  %y = relay.image.resize2d %x {size = [4, 4], method = "cubic", coordinate_transformation_mode = "tf_crop_and_resize", roi = [0.0, 1.0]} : (tensor<1x1x2x2xf32>) -> tensor<1x1x4x4xf32> // expected-error {{'relay.image.resize2d' op property 'roi' must be 4 finite numbers [start_h, start_w, end_h, end_w], got [0.0, 1.0]}}
  func.return %y : tensor<1x1x4x4xf32>
}

// -----

func.func @resize_nearest_antialias(%x: tensor<1x1x4x4xf32>) -> tensor<1x1x2x2xf32> {
  // CHECK: image-invalid.mlir:[[# @LINE + 1]]:3: error: 'relay.image.resize2d' op 'antialias' and 'tf_crop_and_resize' need method 'linear' or 'cubic'
  %y = relay.image.resize2d %x {size = [2, 2], antialias = true} : (tensor<1x1x4x4xf32>) -> tensor<1x1x2x2xf32> // expected-error {{'relay.image.resize2d' op 'antialias' and 'tf_crop_and_resize' need method 'linear' or 'cubic'}}
  func.return %y : tensor<1x1x2x2xf32>
}

// -----

func.func @conv2d_transpose_channels(%x: tensor<1x4x3x3xf32>, %w: tensor<3x2x3x3xf32>) -> tensor<1x2x5x5xf32> {
  // CHECK: image-invalid.mlir:[[# @LINE + 1]]:3: error: 'relay.nn.conv2d_transpose' op operand 'weight' has 3 input channels, 'data' has 4
  %y = relay.nn.conv2d_transpose %x, %w : (tensor<1x4x3x3xf32>, tensor<3x2x3x3xf32>) -> tensor<1x2x5x5xf32> // expected-error {{'relay.nn.conv2d_transpose' op operand 'weight' has 3 input channels, 'data' has 4}}
  func.return %y : tensor<1x2x5x5xf32>
}

// -----

func.func @conv2d_transpose_groups(%x: tensor<1x4x3x3xf32>, %w: tensor<4x2x3x3xf32>) -> tensor<1x6x5x5xf32> {
  // CHECK: image-invalid.mlir:[[# @LINE + 1]]:3: error: 'relay.nn.conv2d_transpose' op property 'groups' (3) must be positive and divide the input channels (4)
  %y = relay.nn.conv2d_transpose %x, %w {groups = 3} : (tensor<1x4x3x3xf32>, tensor<4x2x3x3xf32>) -> tensor<1x6x5x5xf32> // expected-error {{'relay.nn.conv2d_transpose' op property 'groups' (3) must be positive and divide the input channels (4)}}
  func.return %y : tensor<1x6x5x5xf32>
}

// -----

func.func @conv2d_transpose_padding(%x: tensor<1x1x1x1xf32>, %w: tensor<1x1x1x1xf32>) -> tensor<1x1x1x1xf32> {
  // CHECK: image-invalid.mlir:[[# @LINE + 1]]:3: error: 'relay.nn.conv2d_transpose' op the padding [1, 0, 0, 0] removes the whole output (0x1)
  %y = relay.nn.conv2d_transpose %x, %w {padding = [1, 0, 0, 0]} : (tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>) -> tensor<1x1x1x1xf32> // expected-error {{'relay.nn.conv2d_transpose' op the padding [1, 0, 0, 0] removes the whole output (0x1)}}
  func.return %y : tensor<1x1x1x1xf32>
}

// -----

func.func @depth_to_space_channels(%x: tensor<1x6x2x2xf32>) -> tensor<1x1x4x4xf32> {
  // CHECK: image-invalid.mlir:[[# @LINE + 1]]:3: error: 'relay.nn.depth_to_space' op the channels (6) must be a multiple of block_size² (4)
  %y = relay.nn.depth_to_space %x {block_size = 2} : (tensor<1x6x2x2xf32>) -> tensor<1x1x4x4xf32> // expected-error {{'relay.nn.depth_to_space' op the channels (6) must be a multiple of block_size² (4)}}
  func.return %y : tensor<1x1x4x4xf32>
}

// -----

func.func @space_to_depth_size(%x: tensor<1x1x3x4xf32>) -> tensor<1x4x1x2xf32> {
  // CHECK: image-invalid.mlir:[[# @LINE + 1]]:3: error: 'relay.nn.space_to_depth' op the spatial size 3x4 must be a multiple of block_size (2)
  %y = relay.nn.space_to_depth %x {block_size = 2} : (tensor<1x1x3x4xf32>) -> tensor<1x4x1x2xf32> // expected-error {{'relay.nn.space_to_depth' op the spatial size 3x4 must be a multiple of block_size (2)}}
  func.return %y : tensor<1x4x1x2xf32>
}

// -----

func.func @gather_rank(%x: tensor<3x4xf32>, %i: tensor<4xi64>) -> tensor<4xf32> {
  // CHECK: image-invalid.mlir:[[# @LINE + 1]]:3: error: 'relay.gather' op operand 'indices' must have the rank of 'data' (2), got tensor<4xi64>
  %y = relay.gather %x, %i : (tensor<3x4xf32>, tensor<4xi64>) -> tensor<4xf32> // expected-error {{'relay.gather' op operand 'indices' must have the rank of 'data' (2), got tensor<4xi64>}}
  func.return %y : tensor<4xf32>
}

// -----

func.func @gather_extent(%x: tensor<3x4xf32>, %i: tensor<2x5xi64>) -> tensor<2x5xf32> {
  // CHECK: image-invalid.mlir:[[# @LINE + 1]]:3: error: 'relay.gather' op operand 'indices' has 5 elements along axis 1, 'data' only 4
  %y = relay.gather %x, %i : (tensor<3x4xf32>, tensor<2x5xi64>) -> tensor<2x5xf32> // expected-error {{'relay.gather' op operand 'indices' has 5 elements along axis 1, 'data' only 4}}
  func.return %y : tensor<2x5xf32>
}

// -----

func.func @gather_float_indices(%x: tensor<3x4xf32>, %i: tensor<3x4xf32>) -> tensor<3x4xf32> {
  // CHECK: image-invalid.mlir:[[# @LINE + 1]]:3: error: 'relay.gather' op operand 'indices' must be an integer tensor, got tensor<3x4xf32>
  %y = relay.gather %x, %i : (tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<3x4xf32> // expected-error {{'relay.gather' op operand 'indices' must be an integer tensor, got tensor<3x4xf32>}}
  func.return %y : tensor<3x4xf32>
}

// -----

func.func @max_pool_indices_type(%x: tensor<1x1x4x4xf32>) -> tensor<1x1x2x2xi32> {
  // CHECK: image-invalid.mlir:[[# @LINE + 1]]:3: error: 'relay.nn.max_pool2d_indices' op result type tensor<1x1x2x2xi32> does not match the inferred type tensor<1x1x2x2xi64>
  %y = relay.nn.max_pool2d_indices %x {pool_size = [2, 2], strides = [2, 2]} : (tensor<1x1x4x4xf32>) -> tensor<1x1x2x2xi32> // expected-error {{'relay.nn.max_pool2d_indices' op result type tensor<1x1x2x2xi32> does not match the inferred type tensor<1x1x2x2xi64>}}
  func.return %y : tensor<1x1x2x2xi32>
}

// -----

func.func @max_pool_indices_order(%x: tensor<1x1x4x4xf32>) -> tensor<1x1x2x2xi64> {
  // CHECK: image-invalid.mlir:[[# @LINE + 1]]:3: error: 'relay.nn.max_pool2d_indices' op property 'storage_order' must be 0 or 1, got 2
  %y = relay.nn.max_pool2d_indices %x {pool_size = [2, 2], strides = [2, 2], storage_order = 2} : (tensor<1x1x4x4xf32>) -> tensor<1x1x2x2xi64> // expected-error {{'relay.nn.max_pool2d_indices' op property 'storage_order' must be 0 or 1, got 2}}
  func.return %y : tensor<1x1x2x2xi64>
}

// -----

func.func @dyn_clip_type(%x: tensor<4xf32>, %lo: tensor<f64>, %hi: tensor<f32>) -> tensor<4xf32> {
  // CHECK: image-invalid.mlir:[[# @LINE + 1]]:3: error: 'relay.dyn.clip' op operands 'data' and 'a_min' must have the same element type, got f32 and f64
  %y = relay.dyn.clip %x, %lo, %hi : (tensor<4xf32>, tensor<f64>, tensor<f32>) -> tensor<4xf32> // expected-error {{'relay.dyn.clip' op operands 'data' and 'a_min' must have the same element type, got f32 and f64}}
  func.return %y : tensor<4xf32>
}

// -----

func.func @dyn_clip_scalar(%x: tensor<4xf32>, %lo: tensor<f32>, %hi: tensor<2xf32>) -> tensor<4xf32> {
  // CHECK: image-invalid.mlir:[[# @LINE + 1]]:3: error: 'relay.dyn.clip' op operand 'a_max' must be a scalar (rank 0 or [1]), got tensor<2xf32>
  %y = relay.dyn.clip %x, %lo, %hi : (tensor<4xf32>, tensor<f32>, tensor<2xf32>) -> tensor<4xf32> // expected-error {{'relay.dyn.clip' op operand 'a_max' must be a scalar (rank 0 or [1]), got tensor<2xf32>}}
  func.return %y : tensor<4xf32>
}

// -----

func.func @dynamic_scale_type(%x: tensor<4xf64>) -> tensor<f32> {
  // CHECK: image-invalid.mlir:[[# @LINE + 1]]:3: error: 'relay.qnn.dynamic_scale' op operand 'data' must be a float32 tensor, got tensor<4xf64>
  %y = relay.qnn.dynamic_scale %x : (tensor<4xf64>) -> tensor<f32> // expected-error {{'relay.qnn.dynamic_scale' op operand 'data' must be a float32 tensor, got tensor<4xf64>}}
  func.return %y : tensor<f32>
}

// -----

func.func @dynamic_zero_point_result(%x: tensor<4xf32>) -> tensor<i8> {
  // CHECK: image-invalid.mlir:[[# @LINE + 1]]:3: error: 'relay.qnn.dynamic_zero_point' op result type tensor<i8> does not match the inferred type tensor<ui8>
  %y = relay.qnn.dynamic_zero_point %x : (tensor<4xf32>) -> tensor<i8> // expected-error {{'relay.qnn.dynamic_zero_point' op result type tensor<i8> does not match the inferred type tensor<ui8>}}
  func.return %y : tensor<i8>
}
