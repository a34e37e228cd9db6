// RUN: accel-opt %s --split-input-file --target %S/Inputs/npu16k.toml -p fuse-layers | filecheck %s

// A residual block: %t (3x3 conv) is read by the next 3x3 conv and by the add after it.
// The segment computes each stripe of %t once, into a 5-row stripe buffer (the second
// conv's halo); the add reads its 3 rows of it from row 1 on, one command per channel (a
// channel's row range of a stripe buffer is dense, a row range of all channels is not).
// Neither %t nor %u is left in host memory.
// CHECK-LABEL: func.func @npu16k_0
// CHECK-SAME:    accel.fused_spill_floor = 0 : i64
// CHECK-NOT:     memref.alloc()
// CHECK:         %[[T:.*]] = accel.alloc : memref<1x4x5x32xf32, #accel.mem<"spm">>
// CHECK:         %[[U:.*]] = accel.alloc : memref<1x4x3x32xf32, #accel.mem<"spm">>
// CHECK:         scf.for %[[I:.*]] = {{.*}} {
// CHECK:           accel.conv2d ins(%{{.*}}, %w0 : {{.*}}) outs(%[[T]] : {{.*}}) {padding = [0, 1, 0, 1], activation = "relu"}
// CHECK:           accel.conv2d ins(%[[T]], %w1 : {{.*}}) outs(%[[U]] : {{.*}}) {padding = [0, 1, 0, 1]}
// CHECK:           %[[ROW:.*]] = arith.addi
// CHECK:           scf.for %[[C:.*]] = {{.*}} {
// CHECK-NEXT:        %[[UC:.*]] = memref.subview %[[U]][0, %[[C]], 0, 0] [1, 1, 3, 32]
// CHECK-NEXT:        %[[TC:.*]] = memref.subview %[[T]][0, %[[C]], 1, 0] [1, 1, 3, 32]
// CHECK-NEXT:        %[[YC:.*]] = memref.subview %out0[0, %[[C]], %[[ROW]], 0] [1, 1, 3, 32]
// CHECK-NEXT:        accel.eltwise ins(%[[TC]], %[[UC]] : {{.*}}) outs(%[[YC]] : {{.*}}) {activation = "relu"}
// CHECK-NEXT:      }
// CHECK:         }
// CHECK-NOT:     memref.alloc()
func.func @npu16k_0(%x: memref<1x4x32x32xf32>, %out0: memref<1x4x32x32xf32> {accel.output}) attributes {accel.target = "npu16k"} {
  %w0 = accel.weight dense<5.000000e-01> : tensor<4x4x3x3xf32> : memref<4x4x3x3xf32>
  %w1 = accel.weight dense<2.500000e-01> : tensor<4x4x3x3xf32> : memref<4x4x3x3xf32>
  %t = memref.alloc() : memref<1x4x32x32xf32>
  accel.conv2d ins(%x, %w0 : memref<1x4x32x32xf32>, memref<4x4x3x3xf32>) outs(%t : memref<1x4x32x32xf32>) {padding = [1, 1, 1, 1], activation = "relu"}
  %u = memref.alloc() : memref<1x4x32x32xf32>
  accel.conv2d ins(%t, %w1 : memref<1x4x32x32xf32>, memref<4x4x3x3xf32>) outs(%u : memref<1x4x32x32xf32>) {padding = [1, 1, 1, 1]}
  accel.eltwise ins(%t, %u : memref<1x4x32x32xf32>, memref<1x4x32x32xf32>) outs(%out0 : memref<1x4x32x32xf32>) {kind = "add", activation = "relu"}
  func.return
}

// -----

// The add is not the segment's last op: it writes the stripe buffer the pool reads, one
// channel at a time.
// CHECK-LABEL: func.func @npu16k_0
// CHECK:         %[[T:.*]] = accel.alloc : memref<1x4x[[R:[0-9]+]]x32xf32, #accel.mem<"spm">>
// CHECK-NEXT:    %[[U:.*]] = accel.alloc : memref<1x4x[[R]]x32xf32, #accel.mem<"spm">>
// CHECK-NEXT:    %[[A:.*]] = accel.alloc : memref<1x4x[[R]]x32xf32, #accel.mem<"spm">>
// CHECK:         scf.for
// CHECK:           scf.for %[[C:.*]] = {{.*}} {
// CHECK-NEXT:        %[[UC:.*]] = memref.subview %[[U]][0, %[[C]], 0, 0] [1, 1, [[R]], 32]
// CHECK-NEXT:        %[[TC:.*]] = memref.subview %[[T]][0, %[[C]], 0, 0] [1, 1, [[R]], 32]
// CHECK-NEXT:        %[[AC:.*]] = memref.subview %[[A]][0, %[[C]], 0, 0] [1, 1, [[R]], 32]
// CHECK-NEXT:        accel.eltwise ins(%[[UC]], %[[TC]] : {{.*}}) outs(%[[AC]] : {{.*}})
// CHECK:           }
// CHECK:           %[[P:.*]] = memref.subview %out0
// CHECK-NEXT:      accel.pool ins(%[[A]] : {{.*}}) outs(%[[P]] : {{.*}})
func.func @npu16k_0(%x: memref<1x4x32x32xf32>, %out0: memref<1x4x16x16xf32> {accel.output}) attributes {accel.target = "npu16k"} {
  %w0 = accel.weight dense<5.000000e-01> : tensor<4x4x1x1xf32> : memref<4x4x1x1xf32>
  %w1 = accel.weight dense<2.500000e-01> : tensor<4x4x1x1xf32> : memref<4x4x1x1xf32>
  %t = memref.alloc() : memref<1x4x32x32xf32>
  accel.conv2d ins(%x, %w0 : memref<1x4x32x32xf32>, memref<4x4x1x1xf32>) outs(%t : memref<1x4x32x32xf32>)
  %u = memref.alloc() : memref<1x4x32x32xf32>
  accel.conv2d ins(%t, %w1 : memref<1x4x32x32xf32>, memref<4x4x1x1xf32>) outs(%u : memref<1x4x32x32xf32>)
  %a = memref.alloc() : memref<1x4x32x32xf32>
  accel.eltwise ins(%u, %t : memref<1x4x32x32xf32>, memref<1x4x32x32xf32>) outs(%a : memref<1x4x32x32xf32>) {kind = "add"}
  accel.pool ins(%a : memref<1x4x32x32xf32>) outs(%out0 : memref<1x4x16x16xf32>) {pool_size = [2, 2], strides = [2, 2]}
  func.return
}

// -----

// Not shared: the second reader of %t is a conv (it sums over all channels; only an
// elementwise op can read a stripe buffer channel by channel). %t stays in host memory,
// written once whole; the chain of the other reader starts after it.
// CHECK-LABEL: func.func @npu16k_0
// CHECK:         accel.conv2d ins(%x, %w0 : memref<1x4x32x32xf32>, {{.*}}) outs(%t : memref<1x4x32x32xf32>)
// CHECK-NOT:     memref.subview %{{[0-9]+}}[0, %
// CHECK:         func.return
func.func @npu16k_0(%x: memref<1x4x32x32xf32>, %out0: memref<1x4x32x32xf32> {accel.output}, %out1: memref<1x4x32x32xf32> {accel.output}) attributes {accel.target = "npu16k"} {
  %w0 = accel.weight dense<5.000000e-01> : tensor<4x4x3x3xf32> : memref<4x4x3x3xf32>
  %w1 = accel.weight dense<2.500000e-01> : tensor<4x4x3x3xf32> : memref<4x4x3x3xf32>
  %t = memref.alloc() : memref<1x4x32x32xf32>
  accel.conv2d ins(%x, %w0 : memref<1x4x32x32xf32>, memref<4x4x3x3xf32>) outs(%t : memref<1x4x32x32xf32>) {padding = [1, 1, 1, 1]}
  accel.conv2d ins(%t, %w1 : memref<1x4x32x32xf32>, memref<4x4x3x3xf32>) outs(%out0 : memref<1x4x32x32xf32>) {padding = [1, 1, 1, 1]}
  accel.conv2d ins(%t, %w1 : memref<1x4x32x32xf32>, memref<4x4x3x3xf32>) outs(%out1 : memref<1x4x32x32xf32>) {padding = [1, 1, 1, 1]}
  func.return
}

// -----

// Not shared: the add that reads %t is not downstream of the conv (its other operand is
// a region input), so it is no op of the conv's chain: %t leaves the chain whole.
// CHECK-LABEL: func.func @npu16k_0
// CHECK:         accel.conv2d ins(%x, %w0 : memref<1x4x32x32xf32>, {{.*}}) outs(%t : memref<1x4x32x32xf32>)
// CHECK-NOT:     memref.subview %{{[0-9]+}}[0, %
// CHECK:         func.return
func.func @npu16k_0(%x: memref<1x4x32x32xf32>, %s: memref<1x4x32x32xf32>, %out0: memref<1x4x32x32xf32> {accel.output}, %out1: memref<1x4x32x32xf32> {accel.output}) attributes {accel.target = "npu16k"} {
  %w0 = accel.weight dense<5.000000e-01> : tensor<4x4x3x3xf32> : memref<4x4x3x3xf32>
  %w1 = accel.weight dense<2.500000e-01> : tensor<4x4x3x3xf32> : memref<4x4x3x3xf32>
  %t = memref.alloc() : memref<1x4x32x32xf32>
  accel.conv2d ins(%x, %w0 : memref<1x4x32x32xf32>, memref<4x4x3x3xf32>) outs(%t : memref<1x4x32x32xf32>) {padding = [1, 1, 1, 1]}
  accel.conv2d ins(%t, %w1 : memref<1x4x32x32xf32>, memref<4x4x3x3xf32>) outs(%out0 : memref<1x4x32x32xf32>) {padding = [1, 1, 1, 1]}
  accel.eltwise ins(%t, %s : memref<1x4x32x32xf32>, memref<1x4x32x32xf32>) outs(%out1 : memref<1x4x32x32xf32>) {kind = "add"}
  func.return
}

// -----

// Not shared at batch 2: a channel's rows of a [2, C, R, W] stripe buffer are not dense.
// CHECK-LABEL: func.func @npu16k_0
// CHECK:         accel.conv2d ins(%x, %w0 : memref<2x2x32x32xf32>, {{.*}}) outs(%t : memref<2x2x32x32xf32>)
// CHECK-NOT:     memref.subview %{{[0-9]+}}[0, %
// CHECK:         func.return
func.func @npu16k_0(%x: memref<2x2x32x32xf32>, %out0: memref<2x2x32x32xf32> {accel.output}) attributes {accel.target = "npu16k"} {
  %w0 = accel.weight dense<5.000000e-01> : tensor<2x2x3x3xf32> : memref<2x2x3x3xf32>
  %w1 = accel.weight dense<2.500000e-01> : tensor<2x2x3x3xf32> : memref<2x2x3x3xf32>
  %t = memref.alloc() : memref<2x2x32x32xf32>
  accel.conv2d ins(%x, %w0 : memref<2x2x32x32xf32>, memref<2x2x3x3xf32>) outs(%t : memref<2x2x32x32xf32>) {padding = [1, 1, 1, 1]}
  %u = memref.alloc() : memref<2x2x32x32xf32>
  accel.conv2d ins(%t, %w1 : memref<2x2x32x32xf32>, memref<2x2x3x3xf32>) outs(%u : memref<2x2x32x32xf32>) {padding = [1, 1, 1, 1]}
  accel.eltwise ins(%t, %u : memref<2x2x32x32xf32>, memref<2x2x32x32xf32>) outs(%out0 : memref<2x2x32x32xf32>) {kind = "add"}
  func.return
}
