// RUN: accel-opt %s --split-input-file --target %S/Inputs/npu2k.toml -p tile-for-scratchpad | filecheck %s

// A 1x1 conv with padding 1 on a 2 KiB scratchpad: with two output rows per tile, the
// last tile (output row 8) would read only padding (no input row); it is merged into the
// tile before it, which then writes rows 6..8 from input rows 5..6.
// CHECK-LABEL: func.func @npu2k_0
// CHECK:         memref.subview %x[0, 0, 0, 0] [2, 4, 1, 7]
// CHECK:         accel.conv2d ins({{.*}}) outs({{.*}}) {padding = [1, 1, 0, 1]}
// CHECK:         scf.for
// CHECK:           accel.conv2d ins({{.*}}) outs({{.*}}) {padding = [0, 1, 0, 1]}
// CHECK:         }
// CHECK:         %[[X:.*]] = memref.subview %x[0, 0, 5, 0] [2, 4, 2, 7]
// CHECK:         %[[Y:.*]] = memref.subview %out0[0, 0, 6, 0] [2, 2, 3, 9]
// CHECK:         accel.conv2d ins(%[[X]], {{.*}}) outs(%[[Y]] : {{.*}}) {padding = [0, 1, 1, 1]}
// CHECK-NOT:     [2, 4, 0, 7]
func.func @npu2k_0(%x: memref<2x4x7x7xf32>, %out0: memref<2x2x9x9xf32> {accel.output}) attributes {accel.target = "npu2k"} {
  %w = accel.weight dense<5.000000e-01> : tensor<2x4x1x1xf32> : memref<2x4x1x1xf32>
  accel.conv2d ins(%x, %w : memref<2x4x7x7xf32>, memref<2x4x1x1xf32>) outs(%out0 : memref<2x2x9x9xf32>) {padding = [1, 1, 1, 1]}
  func.return
}

// -----

// Stride 2, padding 3, a 1x1 kernel, one output row per tile: output rows 0 and 1 (input
// rows -3 and -1) read only padding: the first tile grows until it reads input rows 0..1
// (output rows 0..2); the last (input row 9, padding) is merged into the one before it.
// CHECK-LABEL: func.func @npu2k_0
// CHECK-NOT:     x0x
// CHECK:         memref.subview %x[0, 0, 0, 0] [1, 8, 2, 8]
// CHECK:         accel.conv2d ins({{.*}}) outs({{.*}} : memref<1x{{[0-9]+}}x3x7xf32, {{.*}}) {strides = [2, 2], padding = [3, 3, 0, 3]}
// CHECK:         scf.for
// CHECK:           accel.conv2d ins({{.*}}) outs({{.*}} : memref<1x{{[0-9]+}}x1x7xf32, {{.*}}) {strides = [2, 2], padding = [0, 3, 0, 3]}
// CHECK:         }
// CHECK:         memref.subview %x[0, 0, 7, 0] [1, 8, 1, 8]
// CHECK:         accel.conv2d ins({{.*}}) outs({{.*}} : memref<1x{{[0-9]+}}x2x7xf32, {{.*}}) {strides = [2, 2], padding = [0, 3, 2, 3]}
// CHECK-NOT:     x0x
func.func @npu2k_0(%x: memref<1x8x8x8xf32>, %out0: memref<1x8x7x7xf32> {accel.output}) attributes {accel.target = "npu2k"} {
  %w = accel.weight dense<5.000000e-01> : tensor<8x8x1x1xf32> : memref<8x8x1x1xf32>
  accel.conv2d ins(%x, %w : memref<1x8x8x8xf32>, memref<8x8x1x1xf32>) outs(%out0 : memref<1x8x7x7xf32>) {padding = [3, 3, 3, 3], strides = [2, 2]}
  func.return
}
