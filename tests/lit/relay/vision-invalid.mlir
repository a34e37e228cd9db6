// Verifier errors of the vision ops (grid_sample, roi_align, roi_pool, max_unpool): one located
// line naming the operand or property.
// RUN: accel-opt %s --split-input-file --verify-diagnostics
// RUN: not accel-opt %s --split-input-file 2>&1 | filecheck %s

func.func @grid_sample_grid(%x: tensor<1x1x4x4xf32>, %g: tensor<1x2x2x3xf32>) -> tensor<1x1x2x2xf32> {
  // CHECK: vision-invalid.mlir:[[# @LINE + 1]]:3: error: 'relay.image.grid_sample' op operand 'grid' must be [1, ?, ?, 2] for data tensor<1x1x4x4xf32>, got tensor<1x2x2x3xf32>
  %y = relay.image.grid_sample %x, %g : (tensor<1x1x4x4xf32>, tensor<1x2x2x3xf32>) -> tensor<1x1x2x2xf32> // expected-error {{'relay.image.grid_sample' op operand 'grid' must be [1, ?, ?, 2] for data tensor<1x1x4x4xf32>, got tensor<1x2x2x3xf32>}}
  func.return %y : tensor<1x1x2x2xf32>
}

// -----

func.func @grid_sample_cubic_volume(%x: tensor<1x1x2x4x4xf32>, %g: tensor<1x1x2x2x3xf32>) -> tensor<1x1x1x2x2xf32> {
  // CHECK: vision-invalid.mlir:[[# @LINE + 1]]:3: error: 'relay.image.grid_sample' op method 'cubic' needs 2-D (rank-4) data
  %y = relay.image.grid_sample %x, %g {method = "cubic"} : (tensor<1x1x2x4x4xf32>, tensor<1x1x2x2x3xf32>) -> tensor<1x1x1x2x2xf32> // expected-error {{'relay.image.grid_sample' op method 'cubic' needs 2-D (rank-4) data}}
  func.return %y : tensor<1x1x1x2x2xf32>
}

// -----

func.func @grid_sample_mode(%x: tensor<1x1x4x4xf32>, %g: tensor<1x2x2x2xf32>) -> tensor<1x1x2x2xf32> {
  // CHECK: vision-invalid.mlir:[[# @LINE + 1]]:49: error: property 'method' of 'relay.image.grid_sample' must be one of "linear", "nearest", "cubic", got "bilinear"
  %y = relay.image.grid_sample %x, %g {method = "bilinear"} : (tensor<1x1x4x4xf32>, tensor<1x2x2x2xf32>) -> tensor<1x1x2x2xf32> // expected-error {{property 'method' of 'relay.image.grid_sample' must be one of "linear", "nearest", "cubic", got "bilinear"}}
  func.return %y : tensor<1x1x2x2xf32>
}

// -----

func.func @roi_align_indices(%x: tensor<1x3x10x10xf32>, %r: tensor<4x4xf32>, %b: tensor<3xi64>) -> tensor<4x3x1x1xf32> {
  // CHECK: vision-invalid.mlir:[[# @LINE + 1]]:3: error: 'relay.vision.roi_align' op operand 'batch_indices' must be an integer tensor of 4 elements, got tensor<3xi64>
  %y = relay.vision.roi_align %x, %r, %b : (tensor<1x3x10x10xf32>, tensor<4x4xf32>, tensor<3xi64>) -> tensor<4x3x1x1xf32> // expected-error {{'relay.vision.roi_align' op operand 'batch_indices' must be an integer tensor of 4 elements, got tensor<3xi64>}}
  func.return %y : tensor<4x3x1x1xf32>
}

// -----

func.func @roi_align_result(%x: tensor<1x3x10x10xf32>, %r: tensor<4x4xf32>, %b: tensor<4xi64>) -> tensor<4x3x2x2xf32> {
  // CHECK: vision-invalid.mlir:[[# @LINE + 1]]:3: error: 'relay.vision.roi_align' op result type tensor<4x3x2x2xf32> does not match the inferred type tensor<4x3x1x1xf32>
  %y = relay.vision.roi_align %x, %r, %b : (tensor<1x3x10x10xf32>, tensor<4x4xf32>, tensor<4xi64>) -> tensor<4x3x2x2xf32> // expected-error {{'relay.vision.roi_align' op result type tensor<4x3x2x2xf32> does not match the inferred type tensor<4x3x1x1xf32>}}
  func.return %y : tensor<4x3x2x2xf32>
}

// -----

func.func @max_unpool_indices(%x: tensor<1x2x2x2xf32>, %i: tensor<1x2x2x2xf32>) -> tensor<1x2x4x4xf32> {
  // CHECK: vision-invalid.mlir:[[# @LINE + 1]]:3: error: 'relay.nn.max_unpool' op operand 'indices' must be an integer tensor, got tensor<1x2x2x2xf32>
  %y = relay.nn.max_unpool %x, %i {shape = [1, 2, 4, 4]} : (tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>) -> tensor<1x2x4x4xf32> // expected-error {{'relay.nn.max_unpool' op operand 'indices' must be an integer tensor, got tensor<1x2x2x2xf32>}}
  func.return %y : tensor<1x2x4x4xf32>
}

// -----

func.func @max_unpool_shape(%x: tensor<1x2x2x2xf32>, %i: tensor<1x2x2x2xi64>) -> tensor<1x2x4xf32> {
  // CHECK: vision-invalid.mlir:[[# @LINE + 1]]:3: error: 'relay.nn.max_unpool' op missing property 'shape'
  %y = relay.nn.max_unpool %x, %i : (tensor<1x2x2x2xf32>, tensor<1x2x2x2xi64>) -> tensor<1x2x4xf32> // expected-error {{'relay.nn.max_unpool' op missing property 'shape'}}
  func.return %y : tensor<1x2x4xf32>
}

// -----

func.func @roi_pool_rois(%x: tensor<1x3x10x10xf32>, %r: tensor<4x4xf32>) -> tensor<4x3x1x1xf32> {
  // CHECK: vision-invalid.mlir:[[# @LINE + 1]]:3: error: 'relay.vision.roi_pool' op operand 'rois' must be [R, 5], got tensor<4x4xf32>
  %y = relay.vision.roi_pool %x, %r {pooled_shape = [1, 1]} : (tensor<1x3x10x10xf32>, tensor<4x4xf32>) -> tensor<4x3x1x1xf32> // expected-error {{'relay.vision.roi_pool' op operand 'rois' must be [R, 5], got tensor<4x4xf32>}}
  func.return %y : tensor<4x3x1x1xf32>
}

// -----

func.func @roi_pool_shape(%x: tensor<1x3x10x10xf32>, %r: tensor<4x5xf32>) -> tensor<4x3x1x1xf32> {
  // CHECK: vision-invalid.mlir:[[# @LINE + 1]]:3: error: 'relay.vision.roi_pool' op property 'pooled_shape' must be two positive extents, got [0, 1]
  %y = relay.vision.roi_pool %x, %r {pooled_shape = [0, 1]} : (tensor<1x3x10x10xf32>, tensor<4x5xf32>) -> tensor<4x3x1x1xf32> // expected-error {{'relay.vision.roi_pool' op property 'pooled_shape' must be two positive extents, got [0, 1]}}
  func.return %y : tensor<4x3x1x1xf32>
}

// -----

func.func @roi_pool_missing_shape(%x: tensor<1x3x10x10xf32>, %r: tensor<4x5xf32>) -> tensor<4x3x1x1xf32> {
  // CHECK: vision-invalid.mlir:[[# @LINE + 1]]:3: error: 'relay.vision.roi_pool' op missing property 'pooled_shape' (a list of integers like [1, 1])
  %y = relay.vision.roi_pool %x, %r : (tensor<1x3x10x10xf32>, tensor<4x5xf32>) -> tensor<4x3x1x1xf32> // expected-error {{'relay.vision.roi_pool' op missing property 'pooled_shape' (a list of integers like [1, 1])}}
  func.return %y : tensor<4x3x1x1xf32>
}

// -----

func.func @roi_pool_types(%x: tensor<1x3x10x10xf32>, %r: tensor<4x5xf64>) -> tensor<4x3x1x1xf32> {
  // CHECK: vision-invalid.mlir:[[# @LINE + 1]]:3: error: 'relay.vision.roi_pool' op operands 'data' and 'rois' must have the same element type, got f32 and f64
  %y = relay.vision.roi_pool %x, %r {pooled_shape = [1, 1]} : (tensor<1x3x10x10xf32>, tensor<4x5xf64>) -> tensor<4x3x1x1xf32> // expected-error {{'relay.vision.roi_pool' op operands 'data' and 'rois' must have the same element type, got f32 and f64}}
  func.return %y : tensor<4x3x1x1xf32>
}

// -----

func.func @roi_pool_result(%x: tensor<1x3x10x10xf32>, %r: tensor<4x5xf32>) -> tensor<4x3x2x2xf32> {
  // CHECK: vision-invalid.mlir:[[# @LINE + 1]]:3: error: 'relay.vision.roi_pool' op result type tensor<4x3x2x2xf32> does not match the inferred type tensor<4x3x1x2xf32>
  %y = relay.vision.roi_pool %x, %r {pooled_shape = [1, 2]} : (tensor<1x3x10x10xf32>, tensor<4x5xf32>) -> tensor<4x3x2x2xf32> // expected-error {{'relay.vision.roi_pool' op result type tensor<4x3x2x2xf32> does not match the inferred type tensor<4x3x1x2xf32>}}
  func.return %y : tensor<4x3x2x2xf32>
}
