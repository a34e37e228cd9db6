// RUN: accel-opt %s --target %S/Inputs/npu16k.toml -p fuse-layers | filecheck %s --check-prefix=TIME
// RUN: accel-opt %s --target %S/Inputs/npu16k.toml -p 'fuse-layers{recompute-weight=0.0}' | filecheck %s --check-prefix=BYTES

// Two 3x3 convs through a 32 KiB intermediate (8 channels, 4 in and out): a stripe of T
// rows of the second needs T + 2 rows of the first, and the stripes that fit (T = 2 on
// 16 KiB) compute each row of the first twice. Costing a recomputed cycle like a DMA
// cycle (the default, the time objective), spilling the intermediate is cheaper; costing
// it nothing (the bytes objective), fusing is.
// TIME-LABEL: func.func @npu16k_0
// TIME-NOT:     scf.for
// TIME:         accel.conv2d ins(%x, %w0 : {{.*}}) outs(%t : memref<1x8x32x32xf32>)
// BYTES-LABEL: func.func @npu16k_0
// BYTES-NOT:     outs(%t
// BYTES:         scf.for
// BYTES:           accel.conv2d ins(%{{.*}}, %w0 : {{.*}}) outs(%[[S:.*]] : memref<1x8x{{[0-9]+}}x32xf32, #accel.mem<"spm">>)
// BYTES:           accel.conv2d ins(%[[S]], %w1 : {{.*}})
func.func @npu16k_0(%x: memref<1x4x32x32xf32>, %out0: memref<1x4x32x32xf32> {accel.output}) attributes {accel.target = "npu16k"} {
  %w0 = accel.weight dense<5.000000e-01> : tensor<8x4x3x3xf32> : memref<8x4x3x3xf32>
  %w1 = accel.weight dense<2.500000e-01> : tensor<4x8x3x3xf32> : memref<4x8x3x3xf32>
  %t = memref.alloc() : memref<1x8x32x32xf32>
  accel.conv2d ins(%x, %w0 : memref<1x4x32x32xf32>, memref<8x4x3x3xf32>) outs(%t : memref<1x8x32x32xf32>) {padding = [1, 1, 1, 1]}
  accel.conv2d ins(%t, %w1 : memref<1x8x32x32xf32>, memref<4x8x3x3xf32>) outs(%out0 : memref<1x4x32x32xf32>) {padding = [1, 1, 1, 1]}
  func.return
}
