// RUN: accel-opt %s --split-input-file -p tile-for-scratchpad | filecheck %s

// A tuning configuration (accel.tuning) fixes the tiles it names, even of an op that
// fits whole: 16 output channels x 4 rows; `resident = "weights"` keeps each weight tile
// while the row tiles stream (rows inside channels: two unrolled channel tiles, each
// with its row loop).
// CHECK-LABEL: func.func @npu_0
// CHECK:         memref.subview %y[0, 0, 0, 0] [1, 16, 4, 16]
// CHECK:         accel.conv2d {{.*}}outs({{.*}}memref<1x16x4x16xf32{{.*}}accel.tuning = {{.}}channel_tile = 16 : i64, row_tile = 4 : i64, resident = "weights"
// CHECK:         scf.for
// CHECK:         memref.subview %y[0, 16, 0, 0] [1, 16, 4, 16]
// CHECK:         scf.for
// CHECK-NOT:     accel.conv2d ins(%x
func.func @npu_0(%x: memref<1x32x16x16xf32>, %y: memref<1x32x16x16xf32> {accel.output}) attributes {accel.target = "npu"} {
  %w = accel.weight dense<0.01> : tensor<32x32x3x3xf32> : memref<32x32x3x3xf32>
  accel.conv2d ins(%x, %w : memref<1x32x16x16xf32>, memref<32x32x3x3xf32>) outs(%y : memref<1x32x16x16xf32>) {padding = [1, 1, 1, 1]} attributes {accel.tuning = {channel_tile = 16, row_tile = 4, resident = "weights"}}
  func.return
}

// -----

// `resident = "input"`: channels inside rows (the row loop outside, both channel tiles
// in its body).
// CHECK-LABEL: func.func @npu_0
// CHECK:         scf.for
// CHECK:           memref.subview %y[0, 0, %{{.*}}, 0] [1, 16, 4, 16]
// CHECK:           memref.subview %y[0, 16, %{{.*}}, 0] [1, 16, 4, 16]
func.func @npu_0(%x: memref<1x32x16x16xf32>, %y: memref<1x32x16x16xf32> {accel.output}) attributes {accel.target = "npu"} {
  %w = accel.weight dense<0.01> : tensor<32x32x3x3xf32> : memref<32x32x3x3xf32>
  accel.conv2d ins(%x, %w : memref<1x32x16x16xf32>, memref<32x32x3x3xf32>) outs(%y : memref<1x32x16x16xf32>) {padding = [1, 1, 1, 1]} attributes {accel.tuning = {channel_tile = 16, row_tile = 4, resident = "input"}}
  func.return
}

// -----

// A dense: row and feature tiles, and a K tile below K splits K (later tiles accumulate).
// CHECK-LABEL: func.func @npu_0
// CHECK:         accel.matmul ins({{.*}} : memref<8x32xf32{{.*}}>, memref<16x32xf32{{.*}}>) outs({{.*}} : memref<8x16xf32{{.*}}>) {{.*}}accel.tuning
// CHECK:         accel.matmul ins({{.*}}) outs({{.*}}) {accumulate{{.*}}accel.tuning
func.func @npu_0(%x: memref<16x64xf32>, %y: memref<16x32xf32> {accel.output}) attributes {accel.target = "npu"} {
  %w = accel.weight dense<0.5> : tensor<32x64xf32> : memref<32x64xf32>
  accel.matmul ins(%x, %w : memref<16x64xf32>, memref<32x64xf32>) outs(%y : memref<16x32xf32>) {transpose_b = true} attributes {accel.tuning = {row_tile = 8, feature_tile = 16, k_tile = 32}}
  func.return
}

// -----

// A product's `resident = "input"`: row tiles outside feature tiles (the row loop
// outside, both feature tiles of the weights in its body, each reading the same row
// tile of %x, which optimize-dma keeps on the device).
// CHECK-LABEL: func.func @npu_0
// CHECK:         scf.for %[[R:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK:           memref.subview %y[%[[R]], 0] [8, 16]
// CHECK:           memref.subview %x[%[[R]], 0] [8, 64]
// CHECK:           memref.subview %w[0, 0] [16, 64]
// CHECK:           accel.matmul
// CHECK:           memref.subview %y[%[[R]], 16] [8, 16]
// CHECK:           memref.subview %x[%[[R]], 0] [8, 64]
// CHECK:           memref.subview %w[16, 0] [16, 64]
// CHECK:           accel.matmul
// CHECK-NEXT:    }
func.func @npu_0(%x: memref<16x64xf32>, %y: memref<16x32xf32> {accel.output}) attributes {accel.target = "npu"} {
  %w = accel.weight dense<0.5> : tensor<32x64xf32> : memref<32x64xf32>
  accel.matmul ins(%x, %w : memref<16x64xf32>, memref<32x64xf32>) outs(%y : memref<16x32xf32>) {transpose_b = true} attributes {accel.tuning = {row_tile = 8, feature_tile = 16, resident = "input"}}
  func.return
}

// -----

// Knobs that are not tiles alone leave an op that fits untiled.
// CHECK-LABEL: func.func @npu_0
// CHECK-NEXT:    accel.weight
// CHECK-NEXT:    accel.matmul ins(%x, %{{.*}} : memref<16x64xf32>, memref<32x64xf32>)
func.func @npu_0(%x: memref<16x64xf32>, %y: memref<16x32xf32> {accel.output}) attributes {accel.target = "npu"} {
  %w = accel.weight dense<0.5> : tensor<32x64xf32> : memref<32x64xf32>
  accel.matmul ins(%x, %w : memref<16x64xf32>, memref<32x64xf32>) outs(%y : memref<16x32xf32>) {transpose_b = true} attributes {accel.tuning = {double_buffer = false, prefetch = 0}}
  func.return
}

// -----

// An element-wise op tuned with `outer_tile`: slices of its outermost axis longer than 1
// (the 12 channels) per tile, 4 here: three tiles of 1x4x17x17, even though it fits whole.
// CHECK-LABEL: func.func @npu_0
// CHECK:         scf.for
// CHECK:           memref.subview %x[0, %{{.*}}, 0, 0] [1, 4, 17, 17]
// CHECK:           accel.eltwise ins(%{{.*}} : memref<1x4x17x17xf32{{.*}}>) outs(%{{.*}} : memref<1x4x17x17xf32{{.*}}>) {kind = "sigmoid"}
// CHECK-NOT:     accel.eltwise ins(%x
func.func @npu_0(%x: memref<1x12x17x17xf32>, %y: memref<1x12x17x17xf32> {accel.output}) attributes {accel.target = "npu"} {
  accel.eltwise ins(%x : memref<1x12x17x17xf32>) outs(%y : memref<1x12x17x17xf32>) {kind = "sigmoid"} attributes {accel.tuning = {outer_tile = 4}}
  func.return
}

// -----

// A softmax keeps its rows whole: `outer_tile` counts rows (the axis before the last).
// CHECK-LABEL: func.func @npu_0
// CHECK:         scf.for
// CHECK:           accel.eltwise ins(%{{.*}} : memref<3x64xf32{{.*}}>) outs(%{{.*}} : memref<3x64xf32{{.*}}>) {kind = "softmax"}
func.func @npu_0(%x: memref<12x64xf32>, %y: memref<12x64xf32> {accel.output}) attributes {accel.target = "npu"} {
  accel.eltwise ins(%x : memref<12x64xf32>) outs(%y : memref<12x64xf32>) {kind = "softmax"} attributes {accel.tuning = {outer_tile = 3}}
  func.return
}

// -----

// A chain's fusion knobs (`fuse`, `stripe_rows`: fuse-layers') are not tiles: an op
// that fits stays whole.
// CHECK-LABEL: func.func @npu_0
// CHECK-NEXT:    accel.eltwise ins(%x : memref<1x12x17x17xf32>)
func.func @npu_0(%x: memref<1x12x17x17xf32>, %y: memref<1x12x17x17xf32> {accel.output}) attributes {accel.target = "npu"} {
  accel.eltwise ins(%x : memref<1x12x17x17xf32>) outs(%y : memref<1x12x17x17xf32>) {kind = "sigmoid"} attributes {accel.tuning = {fuse = false, stripe_rows = 4}}
  func.return
}
