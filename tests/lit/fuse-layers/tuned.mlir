// RUN: accel-opt %s --split-input-file --target %S/Inputs/npu16k.toml -p fuse-layers | filecheck %s

// A tuned chain (apply-tuning puts `fuse` on every op after the first, `stripe_rows` on
// a fused segment's last op) is fused as configured, even where nothing spills (the cost
// model would leave these 1x4x8x32 ops alone): stripes of 4 rows, two of them (the
// first and the last are peeled: their padding differs).
// CHECK-LABEL: func.func @npu16k_0
// CHECK:         accel.alloc : memref<1x4x4x32xf32, #accel.mem<"spm">>
// CHECK:         accel.conv2d ins(%{{.*}}, %w0 : {{.*}}) outs(%{{.*}} : memref<1x4x4x32xf32, #accel.mem<"spm">>) {padding = [1, 1, 0, 1]}
// CHECK-NOT:     accel.tuning
// CHECK:         accel.conv2d ins(%{{.*}}, %w1 : {{.*}}) outs(%{{.*}} : memref<1x4x4x32xf32, strided
// CHECK:         accel.conv2d {{.*}} {padding = [0, 1, 1, 1]}
// CHECK:         accel.conv2d
// CHECK-NEXT:    func.return
func.func @npu16k_0(%x: memref<1x4x8x32xf32>, %out0: memref<1x4x8x32xf32> {accel.output}) attributes {accel.target = "npu16k"} {
  %w0 = accel.weight dense<5.000000e-01> : tensor<4x4x3x3xf32> : memref<4x4x3x3xf32>
  %w1 = accel.weight dense<2.500000e-01> : tensor<4x4x1x1xf32> : memref<4x4x1x1xf32>
  %t = memref.alloc() : memref<1x4x8x32xf32>
  accel.conv2d ins(%x, %w0 : memref<1x4x8x32xf32>, memref<4x4x3x3xf32>) outs(%t : memref<1x4x8x32xf32>) {padding = [1, 1, 1, 1]} attributes {accel.tuning = {row_tile = 2}}
  accel.conv2d ins(%t, %w1 : memref<1x4x8x32xf32>, memref<4x4x1x1xf32>) outs(%out0 : memref<1x4x8x32xf32>) attributes {accel.tuning = {fuse = true, stripe_rows = 4}}
  func.return
}

// -----

// `fuse = false` cuts the chain where the cost model would fuse it (the 16 KiB
// intermediate spills): both convs stay whole, for tile-for-scratchpad.
// CHECK-LABEL: func.func @npu16k_0
// CHECK-NOT:     scf.for
// CHECK:         %[[T:.*]] = memref.alloc() : memref<1x4x32x32xf32>
// CHECK:         accel.conv2d ins(%x, %w0 : {{.*}}) outs(%[[T]] : memref<1x4x32x32xf32>)
// CHECK:         accel.conv2d ins(%[[T]], %w1 : {{.*}}) outs(%out0 : memref<1x4x32x32xf32>)
func.func @npu16k_0(%x: memref<1x4x32x32xf32>, %out0: memref<1x4x32x32xf32> {accel.output}) attributes {accel.target = "npu16k"} {
  %w0 = accel.weight dense<5.000000e-01> : tensor<4x4x3x3xf32> : memref<4x4x3x3xf32>
  %w1 = accel.weight dense<2.500000e-01> : tensor<4x4x1x1xf32> : memref<4x4x1x1xf32>
  %t = memref.alloc() : memref<1x4x32x32xf32>
  accel.conv2d ins(%x, %w0 : memref<1x4x32x32xf32>, memref<4x4x3x3xf32>) outs(%t : memref<1x4x32x32xf32>) {padding = [1, 1, 1, 1], activation = "relu"}
  accel.conv2d ins(%t, %w1 : memref<1x4x32x32xf32>, memref<4x4x1x1xf32>) outs(%out0 : memref<1x4x32x32xf32>) attributes {accel.tuning = {fuse = false}}
  func.return
}
