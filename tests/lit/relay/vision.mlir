// Round trip of the vision ops that sample data at places data gives (grid_sample,
// roi_align, roi_pool, max_unpool): custom form -> custom form, and the generic form spells
// every property out.
// RUN: accel-opt %s --split-input-file | accel-opt --split-input-file | filecheck %s
// RUN: accel-opt %s --split-input-file --print-op-generic | filecheck %s --check-prefix=GEN
// RUN: accel-opt %s --split-input-file --print-op-generic | accel-opt --split-input-file | filecheck %s

func.func @grid_sample(%x: tensor<2x3x5x6xf32>, %g: tensor<2x4x7x2xf32>) -> tensor<2x3x4x7xf32> {
  %y = relay.image.grid_sample %x, %g : (tensor<2x3x5x6xf32>, tensor<2x4x7x2xf32>) -> tensor<2x3x4x7xf32>
  func.return %y : tensor<2x3x4x7xf32>
}
// CHECK-LABEL: func.func @grid_sample
// CHECK-NEXT:  %y = relay.image.grid_sample %x, %g : (tensor<2x3x5x6xf32>, tensor<2x4x7x2xf32>) -> tensor<2x3x4x7xf32>
// GEN:         "relay.image.grid_sample"(%x, %g) <{method = "linear", padding_mode = "zeros", align_corners = false}>

// -----

func.func @grid_sample_volume(%x: tensor<1x2x3x4x5xf64>, %g: tensor<1x6x2x2x3xf64>) -> tensor<1x2x6x2x2xf64> {
  %y = relay.image.grid_sample %x, %g {method = "nearest", padding_mode = "reflection", align_corners = true} : (tensor<1x2x3x4x5xf64>, tensor<1x6x2x2x3xf64>) -> tensor<1x2x6x2x2xf64>
  func.return %y : tensor<1x2x6x2x2xf64>
}
// CHECK-LABEL: func.func @grid_sample_volume
// CHECK-NEXT:  %y = relay.image.grid_sample %x, %g {method = "nearest", padding_mode = "reflection", align_corners = true} : (tensor<1x2x3x4x5xf64>, tensor<1x6x2x2x3xf64>) -> tensor<1x2x6x2x2xf64>
// GEN:         "relay.image.grid_sample"(%x, %g) <{method = "nearest", padding_mode = "reflection", align_corners = true}>

// -----

func.func @roi_align(%x: tensor<1x3x10x10xf32>, %r: tensor<4x4xf32>, %b: tensor<4xi64>) -> tensor<4x3x2x5xf32> {
  %y = relay.vision.roi_align %x, %r, %b {output_height = 2, output_width = 5, sampling_ratio = 2, spatial_scale = 0.5, mode = "max", coordinate_transformation_mode = "output_half_pixel"} : (tensor<1x3x10x10xf32>, tensor<4x4xf32>, tensor<4xi64>) -> tensor<4x3x2x5xf32>
  func.return %y : tensor<4x3x2x5xf32>
}
// CHECK-LABEL: func.func @roi_align
// CHECK-NEXT:  %y = relay.vision.roi_align %x, %r, %b {output_height = 2, output_width = 5, sampling_ratio = 2, spatial_scale = 0.5, mode = "max", coordinate_transformation_mode = "output_half_pixel"} : (tensor<1x3x10x10xf32>, tensor<4x4xf32>, tensor<4xi64>) -> tensor<4x3x2x5xf32>
// GEN:         "relay.vision.roi_align"(%x, %r, %b) <{output_height = 2 : i64, output_width = 5 : i64, sampling_ratio = 2 : i64, spatial_scale = 5.000000e-01 : f64, mode = "max", coordinate_transformation_mode = "output_half_pixel"}>

// -----

func.func @max_unpool(%x: tensor<1x2x2x2xf32>, %i: tensor<1x2x2x2xi64>) -> tensor<1x2x4x4xf32> {
  %y = relay.nn.max_unpool %x, %i {shape = [1, 2, 4, 4]} : (tensor<1x2x2x2xf32>, tensor<1x2x2x2xi64>) -> tensor<1x2x4x4xf32>
  func.return %y : tensor<1x2x4x4xf32>
}
// CHECK-LABEL: func.func @max_unpool
// CHECK-NEXT:  %y = relay.nn.max_unpool %x, %i {shape = [1, 2, 4, 4]} : (tensor<1x2x2x2xf32>, tensor<1x2x2x2xi64>) -> tensor<1x2x4x4xf32>
// GEN:         "relay.nn.max_unpool"(%x, %i) <{shape = array<i64: 1, 2, 4, 4>}>

// -----

func.func @roi_pool(%x: tensor<2x3x10x10xf32>, %r: tensor<4x5xf32>) -> tensor<4x3x2x5xf32> {
  %y = relay.vision.roi_pool %x, %r {pooled_shape = [2, 5], spatial_scale = 0.0625} : (tensor<2x3x10x10xf32>, tensor<4x5xf32>) -> tensor<4x3x2x5xf32>
  func.return %y : tensor<4x3x2x5xf32>
}
// CHECK-LABEL: func.func @roi_pool
// CHECK-NEXT:  %y = relay.vision.roi_pool %x, %r {pooled_shape = [2, 5], spatial_scale = 0.0625} : (tensor<2x3x10x10xf32>, tensor<4x5xf32>) -> tensor<4x3x2x5xf32>
// GEN:         "relay.vision.roi_pool"(%x, %r) <{pooled_shape = array<i64: 2, 5>, spatial_scale = 6.250000e-02 : f64}>

// -----

func.func @roi_pool_f64(%x: tensor<1x1x4x4xf64>, %r: tensor<1x5xf64>) -> tensor<1x1x1x1xf64> {
  %y = relay.vision.roi_pool %x, %r {pooled_shape = [1, 1]} : (tensor<1x1x4x4xf64>, tensor<1x5xf64>) -> tensor<1x1x1x1xf64>
  func.return %y : tensor<1x1x1x1xf64>
}
// CHECK-LABEL: func.func @roi_pool_f64
// CHECK-NEXT:  %y = relay.vision.roi_pool %x, %r {pooled_shape = [1, 1]} : (tensor<1x1x4x4xf64>, tensor<1x5xf64>) -> tensor<1x1x1x1xf64>
// GEN:         "relay.vision.roi_pool"(%x, %r) <{pooled_shape = array<i64: 1, 1>, spatial_scale = 1.000000e+00 : f64}>
