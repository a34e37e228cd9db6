// RUN: not accel-opt %s --split-input-file -p tile-for-scratchpad 2>&1 | filecheck %s

// A configuration whose tiles do not fit the scratchpad is refused, not shrunk.
// CHECK: tuned-invalid.mlir:[[# @LINE + 3]]:3: error: 'accel.conv2d': tuning configuration {'row_tile': 64} does not fit the scratchpad (262144 bytes)
func.func @npu_0(%x: memref<1x32x64x64xf32>, %y: memref<1x32x64x64xf32> {accel.output}) attributes {accel.target = "npu"} {
  %w = accel.weight dense<0.01> : tensor<32x32x3x3xf32> : memref<32x32x3x3xf32>
  accel.conv2d ins(%x, %w : memref<1x32x64x64xf32>, memref<32x32x3x3xf32>) outs(%y : memref<1x32x64x64xf32>) {padding = [1, 1, 1, 1]} attributes {accel.tuning = {row_tile = 64}}
  func.return
}

// -----

// An int8 product cannot be split along K.
// CHECK: tuned-invalid.mlir:[[# @LINE + 3]]:3: error: 'accel.matmul': tuning configuration {'k_tile': 16} does not fit the scratchpad (262144 bytes) or splits K, which this product cannot
func.func @npu_0(%x: memref<1x64xi8>, %y: memref<1x16xi8> {accel.output}) attributes {accel.target = "npu"} {
  %w = accel.weight dense<1> : tensor<16x64xi8> : memref<16x64xi8>
  accel.matmul ins(%x, %w : memref<1x64xi8>, memref<16x64xi8>) outs(%y : memref<1x16xi8>) {in_scale = [0.5], transpose_b = true} attributes {accel.tuning = {k_tile = 16}}
  func.return
}

// -----

// A product's rows-outside-features order keeps whole K rows: it is not split along K.
// CHECK: tuned-invalid.mlir:[[# @LINE + 3]]:3: error: 'accel.matmul': tuning configuration {'k_tile': 32, 'resident': 'input'} does not fit the scratchpad (262144 bytes) or splits K, which this product cannot with resident = input (whole K rows)
func.func @npu_0(%x: memref<16x64xf32>, %y: memref<16x32xf32> {accel.output}) attributes {accel.target = "npu"} {
  %w = accel.weight dense<0.5> : tensor<32x64xf32> : memref<32x64xf32>
  accel.matmul ins(%x, %w : memref<16x64xf32>, memref<32x64xf32>) outs(%y : memref<16x32xf32>) {transpose_b = true} attributes {accel.tuning = {k_tile = 32, resident = "input"}}
  func.return
}

// -----

// An element-wise tile that does not fit (two slots of 8 x 64x64 floats in and out).
// CHECK: tuned-invalid.mlir:[[# @LINE + 2]]:3: error: 'accel.eltwise': tuning configuration {'outer_tile': 8} does not fit the scratchpad (262144 bytes)
func.func @npu_0(%x: memref<16x64x64xf32>, %y: memref<16x64x64xf32> {accel.output}) attributes {accel.target = "npu"} {
  accel.eltwise ins(%x : memref<16x64x64xf32>) outs(%y : memref<16x64x64xf32>) {kind = "relu"} attributes {accel.tuning = {outer_tile = 8}}
  func.return
}
