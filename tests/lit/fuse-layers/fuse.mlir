// RUN: accel-opt %s --split-input-file --target %S/Inputs/npu16k.toml -p fuse-layers | filecheck %s

// A 3x3 conv feeding a 1x1 conv, both 1x4x32x32 f32 (16 KiB, the whole scratchpad): the
// chain runs in stripes of 5 output rows. The first conv writes each stripe into a 5-row
// scratchpad buffer (its input stripe has the halo: 7 rows, fewer at the borders, where
// the padding is kept); the second reads that buffer. The 16 KiB intermediate is gone.
// CHECK-LABEL: func.func @npu16k_0
// CHECK-SAME:    accel.fused_spill_floor = 0 : i64
// CHECK-NOT:     memref<1x4x32x32xf32> = memref.alloc
// CHECK:         %[[S0:.*]] = accel.alloc : memref<1x4x5x32xf32, #accel.mem<"spm">>
// CHECK:         %[[X0:.*]] = memref.subview %x[0, 0, 0, 0] [1, 4, 6, 32]
// CHECK:         accel.conv2d ins(%[[X0]], %w0 : {{.*}}) outs(%[[S0]] : {{.*}}) {padding = [1, 1, 0, 1], activation = "relu"}
// CHECK:         %[[Y0:.*]] = memref.subview %out0[0, 0, 0, 0] [1, 4, 5, 32]
// CHECK:         accel.conv2d ins(%[[S0]], %w1 : {{.*}}) outs(%[[Y0]] : {{.*}})
// CHECK:         %[[S:.*]] = accel.alloc : memref<1x4x5x32xf32, #accel.mem<"spm">>
// CHECK:         scf.for
// CHECK:           %[[X:.*]] = memref.subview %x[0, 0, %{{.*}}, 0] [1, 4, 7, 32]
// CHECK:           accel.conv2d ins(%[[X]], %w0 : {{.*}}) outs(%[[S]] : {{.*}}) {padding = [0, 1, 0, 1], activation = "relu"}
// CHECK:           accel.conv2d ins(%[[S]], %w1 : {{.*}})
// CHECK:         }
// CHECK:         memref.subview %x[0, 0, 29, 0] [1, 4, 3, 32]
// CHECK:         accel.conv2d {{.*}} {padding = [0, 1, 1, 1], activation = "relu"}
// CHECK:         memref.subview %out0[0, 0, 30, 0] [1, 4, 2, 32]
// CHECK:         accel.conv2d
// CHECK-NEXT:    func.return
func.func @npu16k_0(%x: memref<1x4x32x32xf32>, %out0: memref<1x4x32x32xf32> {accel.output}) attributes {accel.target = "npu16k"} {
  %w0 = accel.weight dense<5.000000e-01> : tensor<4x4x3x3xf32> : memref<4x4x3x3xf32>
  %w1 = accel.weight dense<2.500000e-01> : tensor<4x4x1x1xf32> : memref<4x4x1x1xf32>
  %t = memref.alloc() : memref<1x4x32x32xf32>
  accel.conv2d ins(%x, %w0 : memref<1x4x32x32xf32>, memref<4x4x3x3xf32>) outs(%t : memref<1x4x32x32xf32>) {padding = [1, 1, 1, 1], activation = "relu"}
  accel.conv2d ins(%t, %w1 : memref<1x4x32x32xf32>, memref<4x4x1x1xf32>) outs(%out0 : memref<1x4x32x32xf32>)
  func.return
}

// -----

// A conv, then a residual add of a region input and a 3x3/2 max pool: the add reads its
// other operand (%s) by the rows of its own stripe, the pool the add's stripe buffer
// (with the pool's halo, hence the add computes 2T + 1 rows for T pooled rows). The
// region input %s is read twice beyond its size: no spill floor (it is a region input).
// CHECK-LABEL: func.func @npu16k_0
// CHECK:         scf.for
// CHECK:           accel.conv2d ins(%{{.*}}, %w0 : {{.*}}) outs(%[[C:.*]] : memref<1x4x[[R:[0-9]+]]x32xf32, #accel.mem<"spm">>)
// CHECK:           %[[SS:.*]] = memref.subview %s[0, 0, %{{.*}}, 0] [1, 4, [[R]], 32]
// CHECK:           accel.eltwise ins(%[[C]], %[[SS]] : {{.*}}) outs(%[[A:.*]] : memref<1x4x[[R]]x32xf32, #accel.mem<"spm">>)
// CHECK:           accel.pool ins(%[[A]] : {{.*}}) outs(%{{.*}} : memref<1x4x{{[0-9]+}}x16xf32, {{.*}}) {pool_size = [3, 3], strides = [2, 2], padding = [0, 1, 0, 1]}
// CHECK:         }
// CHECK-NOT:     memref<1x4x32x32xf32> = memref.alloc
func.func @npu16k_0(%x: memref<1x4x32x32xf32>, %s: memref<1x4x32x32xf32>, %out0: memref<1x4x16x16xf32> {accel.output}) attributes {accel.target = "npu16k"} {
  %w0 = accel.weight dense<5.000000e-01> : tensor<4x4x1x1xf32> : memref<4x4x1x1xf32>
  %t = memref.alloc() : memref<1x4x32x32xf32>
  accel.conv2d ins(%x, %w0 : memref<1x4x32x32xf32>, memref<4x4x1x1xf32>) outs(%t : memref<1x4x32x32xf32>)
  %a = memref.alloc() : memref<1x4x32x32xf32>
  accel.eltwise ins(%t, %s : memref<1x4x32x32xf32>, memref<1x4x32x32xf32>) outs(%a : memref<1x4x32x32xf32>) {kind = "add", activation = "relu"}
  accel.pool ins(%a : memref<1x4x32x32xf32>) outs(%out0 : memref<1x4x16x16xf32>) {pool_size = [3, 3], strides = [2, 2], padding = [1, 1, 1, 1]}
  func.return
}

// -----

// Not fused: every op fits the scratchpad (4 KiB activations), so the intermediate stays
// on the device anyway (optimize-dma) and stripes would only add transfers.
// CHECK-LABEL: func.func @npu16k_0
// CHECK-NOT:     scf.for
// CHECK:         accel.conv2d ins(%x, %w0 : memref<1x4x16x16xf32>, {{.*}}) outs(%t : memref<1x4x16x16xf32>)
// CHECK:         accel.conv2d ins(%t, %w1 : memref<1x4x16x16xf32>, {{.*}}) outs(%out0 : memref<1x4x16x16xf32>)
func.func @npu16k_0(%x: memref<1x4x16x16xf32>, %out0: memref<1x4x16x16xf32> {accel.output}) attributes {accel.target = "npu16k"} {
  %w0 = accel.weight dense<5.000000e-01> : tensor<4x4x3x3xf32> : memref<4x4x3x3xf32>
  %w1 = accel.weight dense<2.500000e-01> : tensor<4x4x1x1xf32> : memref<4x4x1x1xf32>
  %t = memref.alloc() : memref<1x4x16x16xf32>
  accel.conv2d ins(%x, %w0 : memref<1x4x16x16xf32>, memref<4x4x3x3xf32>) outs(%t : memref<1x4x16x16xf32>) {padding = [1, 1, 1, 1]}
  accel.conv2d ins(%t, %w1 : memref<1x4x16x16xf32>, memref<4x4x1x1xf32>) outs(%out0 : memref<1x4x16x16xf32>)
  func.return
}

// -----

// Not fused: a global pool's one output row reads every input row (a stripe would be the
// whole intermediate).
// CHECK-LABEL: func.func @npu16k_0
// CHECK-NOT:     scf.for
// CHECK:         accel.pool ins(%t : memref<1x4x32x32xf32>) outs(%out0 : memref<1x4x1x1xf32>)
func.func @npu16k_0(%x: memref<1x4x32x32xf32>, %out0: memref<1x4x1x1xf32> {accel.output}) attributes {accel.target = "npu16k"} {
  %w0 = accel.weight dense<5.000000e-01> : tensor<4x4x1x1xf32> : memref<4x4x1x1xf32>
  %t = memref.alloc() : memref<1x4x32x32xf32>
  accel.conv2d ins(%x, %w0 : memref<1x4x32x32xf32>, memref<4x4x1x1xf32>) outs(%t : memref<1x4x32x32xf32>)
  accel.pool ins(%t : memref<1x4x32x32xf32>) outs(%out0 : memref<1x4x1x1xf32>) {kind = "avg", pool_size = [32, 32]}
  func.return
}
