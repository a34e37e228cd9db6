// RUN: accel-opt %s --split-input-file -p tile-for-scratchpad | filecheck %s
// RUN: accel-opt %s --split-input-file -p tile-for-scratchpad,insert-dma | filecheck %s --check-prefix=DMA

// A 3x3 conv whose input and output (2 x 512 KiB) exceed the 256 KiB scratchpad: the
// row tiles run in loops, with the first and the last peeled because their padding
// differs; each tile reads the rows its windows need. The channel tiles inside a row
// tile are unrolled (static slices of weights and bias): all the weights (36 KiB) stay
// on the device across row tiles, each tile's hoisted out of the row loop.
// CHECK-LABEL: func.func @npu_0
// CHECK:         %[[X0:.*]] = memref.subview %x[0, 0, 0, 0] [1, 32, {{[0-9]+}}, 64] [1, 1, 1, 1]
// CHECK:         accel.conv2d ins(%[[X0]], {{.*}}) outs({{.*}}) {padding = [1, 1, 0, 1]}
// CHECK:         scf.for %[[R:.*]] = {{.*}} {
// CHECK:           memref.subview %x[0, 0, %{{.*}}, 0]
// CHECK:           accel.conv2d ins({{.*}}) outs({{.*}}) {padding = [0, 1, 0, 1]}
// CHECK:         }
// CHECK:         accel.conv2d ins({{.*}}) outs({{.*}}) {padding = [0, 1, 1, 1]}
// CHECK-NOT:     accel.conv2d ins(%x
// After placement every tile fits: no scratchpad offset reaches 256 KiB.
// DMA-NOT:       {offset = {{2[6-9][0-9][0-9][0-9][0-9]|[3-9][0-9][0-9][0-9][0-9][0-9]}}}
// DMA:           accel.dma_start
func.func @npu_0(%x: memref<1x32x64x64xf32>, %y: memref<1x32x64x64xf32> {accel.output}) attributes {accel.target = "npu"} {
  %w = accel.weight dense<0.01> : tensor<32x32x3x3xf32> : memref<32x32x3x3xf32>
  accel.conv2d ins(%x, %w : memref<1x32x64x64xf32>, memref<32x32x3x3xf32>) outs(%y : memref<1x32x64x64xf32>) {padding = [1, 1, 1, 1]}
  func.return
}

// -----

// Small ops are left alone.
// CHECK-LABEL: func.func @npu_0
// CHECK-NEXT:    accel.eltwise ins(%a : memref<64xf32>) outs(%b : memref<64xf32>) {kind = "relu"}
func.func @npu_0(%a: memref<64xf32>, %b: memref<64xf32> {accel.output}) attributes {accel.target = "npu"} {
  accel.eltwise ins(%a : memref<64xf32>) outs(%b : memref<64xf32>) {kind = "relu"}
  func.return
}

// -----

// Shared-memory targets compute in place, untiled (a compile for npu-shared: it shares
// the npu's C prefix, so the two never meet in one module).
// CHECK-LABEL: func.func @npu_shared_0
// CHECK-NEXT:    accel.eltwise ins(%a : memref<1x64x64x64xf32>) outs(%b : memref<1x64x64x64xf32>) {kind = "relu"}
func.func @npu_shared_0(%a: memref<1x64x64x64xf32>, %b: memref<1x64x64x64xf32> {accel.output}) attributes {accel.target = "npu-shared"} {
  accel.eltwise ins(%a : memref<1x64x64x64xf32>) outs(%b : memref<1x64x64x64xf32>) {kind = "relu"}
  func.return
}

// -----

// A large elementwise op is split along its leading dimensions; a large dense along its
// output features (weight rows).
// CHECK-LABEL: func.func @npu_0
// CHECK:         scf.for
// CHECK:           accel.eltwise ins({{.*}} : memref<1x{{[0-9]+}}x64x64xf32, strided<[262144, 4096, 64, 1], offset: ?>>, {{.*}}) outs
// CHECK:         accel.matmul ins(%{{.*}}, %{{.*}} : memref<1x4096xf32>, memref<{{[0-9]+}}x4096xf32{{.*}}>) outs
func.func @npu_0(%a: memref<1x64x64x64xf32>, %b: memref<1x64x64x64xf32> {accel.output}, %v: memref<1x4096xf32>, %o: memref<1x64xf32> {accel.output}) attributes {accel.target = "npu"} {
  accel.eltwise ins(%a, %a : memref<1x64x64x64xf32>, memref<1x64x64x64xf32>) outs(%b : memref<1x64x64x64xf32>) {kind = "mul"}
  %w = accel.weight dense<0.5> : tensor<64x4096xf32> : memref<64x4096xf32>
  accel.matmul ins(%v, %w : memref<1x4096xf32>, memref<64x4096xf32>) outs(%o : memref<1x64xf32>)
  func.return
}

// -----

// Channel tiles in a loop: one row tile (7 rows) and 3 output channels per tile (their
// weights, 55 KiB, twice over beside the whole input); weights, bias and output are
// sliced at the loop's channel. 512 is not a multiple of 3: the last of the 171 tiles
// is shifted inwards to end at channel 512 (channels 509..511; it computes channel 509
// again), so every tile runs in the loop.
// CHECK-LABEL: func.func @npu_0
// CHECK-DAG:     %[[LAST:.*]] = arith.constant 509 : index
// CHECK-DAG:     %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG:     %[[END:.*]] = arith.constant 513 : index
// CHECK-DAG:     %[[C3:.*]] = arith.constant 3 : index
// CHECK:         scf.for %[[I:.*]] = %[[C0]] to %[[END]] step %[[C3]] {
// CHECK-NEXT:      %[[C:.*]] = arith.minsi %[[I]], %[[LAST]] : index
// CHECK-NEXT:      %[[Y:.*]] = memref.subview %y[0, %[[C]], 0, 0] [1, 3, 7, 7] [1, 1, 1, 1]
// CHECK-NEXT:      %[[W:.*]] = memref.subview %w[%[[C]], 0, 0, 0] [3, 512, 3, 3] [1, 1, 1, 1]
// CHECK-NEXT:      %[[B:.*]] = memref.subview %b[%[[C]]] [3] [1]
// CHECK-NEXT:      accel.conv2d ins(%x, %[[W]], %[[B]] : {{.*}}) outs(%[[Y]] : {{.*}}) {padding = [1, 1, 1, 1]}
// CHECK-NEXT:    }
// CHECK-NOT:     accel.conv2d
func.func @npu_0(%x: memref<1x512x7x7xf32>, %y: memref<1x512x7x7xf32> {accel.output}) attributes {accel.target = "npu"} {
  %w = accel.weight dense<0.01> : tensor<512x512x3x3xf32> : memref<512x512x3x3xf32>
  %b = accel.weight dense<0.5> : tensor<512xf32> : memref<512xf32>
  accel.conv2d ins(%x, %w, %b : memref<1x512x7x7xf32>, memref<512x512x3x3xf32>, memref<512xf32>) outs(%y : memref<1x512x7x7xf32>) {padding = [1, 1, 1, 1]}
  func.return
}

// -----

// Channels outside rows (a strided 1x1 conv: 103 output channels per tile, one output
// row each): a loop over the channel tiles holds their row loop; the last of the 5
// tiles is shifted inwards (channels 409..511).
// CHECK-LABEL: func.func @npu_0
// CHECK:         %[[LAST:.*]] = arith.constant 409 : index
// CHECK:         scf.for %[[I:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK-NEXT:      %[[C:.*]] = arith.minsi %[[I]], %[[LAST]] : index
// CHECK:           scf.for %[[R:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK:             memref.subview %y[0, %[[C]], %[[R]], 0] [1, 103, 1, 28] [1, 1, 1, 1]
// CHECK:             memref.subview %w[%[[C]], 0, 0, 0] [103, 256, 1, 1] [1, 1, 1, 1]
// CHECK:             accel.conv2d
// CHECK-NEXT:      }
// CHECK-NEXT:    }
// CHECK-NOT:     accel.conv2d
func.func @npu_0(%x: memref<1x256x56x56xf32>, %y: memref<1x512x28x28xf32> {accel.output}) attributes {accel.target = "npu"} {
  %w = accel.weight dense<0.01> : tensor<512x256x1x1xf32> : memref<512x256x1x1xf32>
  %b = accel.weight dense<0.5> : tensor<512xf32> : memref<512xf32>
  accel.conv2d ins(%x, %w, %b : memref<1x256x56x56xf32>, memref<512x256x1x1xf32>, memref<512xf32>) outs(%y : memref<1x512x28x28xf32>) {strides = [2, 2]}
  func.return
}

// -----

// Features outside rows (a dense layer of 2048 features, 61 per tile): a loop over the
// feature tiles holds their row loop, as a conv's channel tiles do; the last of the 34
// tiles is shifted inwards (features 1987..2047).
// CHECK-LABEL: func.func @npu_0
// CHECK:         %[[LAST:.*]] = arith.constant 1987 : index
// CHECK:         scf.for %[[I:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK-NEXT:      %[[N:.*]] = arith.minsi %[[I]], %[[LAST]] : index
// CHECK:           scf.for %[[M:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK:             memref.subview %y[%[[M]], %[[N]]] [1, 61] [1, 1]
// CHECK:             memref.subview %w[%[[N]], 0] [61, 1024] [1, 1]
// CHECK:             memref.subview %b[%[[N]]] [61] [1]
// CHECK:             accel.matmul
// CHECK-NEXT:      }
// CHECK-NEXT:    }
// CHECK-NOT:     accel.matmul
func.func @npu_0(%x: memref<64x1024xf32>, %y: memref<64x2048xf32> {accel.output}) attributes {accel.target = "npu"} {
  %w = accel.weight dense<0.01> : tensor<2048x1024xf32> : memref<2048x1024xf32>
  %b = accel.weight dense<0.5> : tensor<2048xf32> : memref<2048xf32>
  accel.matmul ins(%x, %w, %b : memref<64x1024xf32>, memref<2048x1024xf32>, memref<2048xf32>) outs(%y : memref<64x2048xf32>) {activation = "relu"}
  func.return
}

// -----

// Rows outside channels: each row tile's input is sliced once, before its channel loop
// (invariant in it: optimize-dma loads it once per row tile).
// CHECK-LABEL: func.func @npu_0
// CHECK:         %[[X0:.*]] = memref.subview %x[0, 0, 0, 0] [1, 256, 6, 14] [1, 1, 1, 1]
// CHECK:         scf.for %[[C:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK:           accel.conv2d ins(%[[X0]], {{.*}} : {{.*}}, memref<6x256x3x3xf32, {{.*}}>, {{.*}}) outs({{.*}}) {padding = [1, 1, 0, 1]}
// CHECK:         }
// CHECK-NOT:     accel.conv2d ins(%[[X0]]
// CHECK:         %[[X1:.*]] = memref.subview %x[0, 0, 4, 0] [1, 256, 7, 14] [1, 1, 1, 1]
// CHECK:         scf.for
// CHECK:           accel.conv2d ins(%[[X1]], {{.*}}) outs({{.*}}) {padding = [0, 1, 0, 1]}
func.func @npu_0(%x: memref<1x256x14x14xf32>, %y: memref<1x256x14x14xf32> {accel.output}) attributes {accel.target = "npu"} {
  %w = accel.weight dense<0.01> : tensor<256x256x3x3xf32> : memref<256x256x3x3xf32>
  %b = accel.weight dense<0.5> : tensor<256xf32> : memref<256xf32>
  accel.conv2d ins(%x, %w, %b : memref<1x256x14x14xf32>, memref<256x256x3x3xf32>, memref<256xf32>) outs(%y : memref<1x256x14x14xf32>) {padding = [1, 1, 1, 1]}
  func.return
}

// -----

// Per-channel quantization scales are static slices: the channel tiles are unrolled.
// CHECK-LABEL: func.func @npu_0
// CHECK-NOT:     scf.for
// CHECK:         accel.conv2d {{.*}} {padding = [1, 1, 1, 1], in_scale = [0.5]}
// CHECK:         accel.conv2d {{.*}} {padding = [1, 1, 1, 1], in_scale = [0.25]}
// CHECK:         accel.conv2d {{.*}} {padding = [1, 1, 1, 1], in_scale = [0.5]}
// CHECK:         accel.conv2d {{.*}} {padding = [1, 1, 1, 1], in_scale = [0.25]}
func.func @npu_0(%x: memref<1x8192x3x3xi8>, %y: memref<1x4x3x3xi8> {accel.output}) attributes {accel.target = "npu"} {
  %w = accel.weight dense<1> : tensor<4x8192x3x3xi8> : memref<4x8192x3x3xi8>
  accel.conv2d ins(%x, %w : memref<1x8192x3x3xi8>, memref<4x8192x3x3xi8>) outs(%y : memref<1x4x3x3xi8>) {padding = [1, 1, 1, 1], in_scale = [0.5, 0.25, 0.5, 0.25], out_scale = 1.0}
  func.return
}

// -----

// One scale for all channels: a loop.
// CHECK-LABEL: func.func @npu_0
// CHECK:         scf.for %[[C:.*]] = {{.*}} {
// CHECK:           memref.subview %w[%[[C]], 0, 0, 0] [1, 8192, 3, 3] [1, 1, 1, 1]
// CHECK:           accel.conv2d {{.*}} {padding = [1, 1, 1, 1], in_scale = [0.5]}
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return
func.func @npu_0(%x: memref<1x8192x3x3xi8>, %y: memref<1x4x3x3xi8> {accel.output}) attributes {accel.target = "npu"} {
  %w = accel.weight dense<1> : tensor<4x8192x3x3xi8> : memref<4x8192x3x3xi8>
  accel.conv2d ins(%x, %w : memref<1x8192x3x3xi8>, memref<4x8192x3x3xi8>) outs(%y : memref<1x4x3x3xi8>) {padding = [1, 1, 1, 1], in_scale = [0.5], out_scale = 1.0}
  func.return
}

// -----

// A pool's and a depthwise conv's channel tiles slice the input at the loop's channel
// (a depthwise tile of 64 channels is 64 groups); the pool's last tile of 6 channels is
// shifted inwards (channels 250..255).
// CHECK-LABEL: func.func @npu_0
// CHECK:         %[[LAST:.*]] = arith.constant 250 : index
// CHECK:         scf.for %[[I:.*]] = {{.*}} {
// CHECK-NEXT:      %[[C:.*]] = arith.minsi %[[I]], %[[LAST]] : index
// CHECK-NEXT:      %[[X:.*]] = memref.subview %x[0, %[[C]], 0, 0] [1, 6, 64, 64] [1, 1, 1, 1]
// CHECK-NEXT:      %[[Y:.*]] = memref.subview %y[0, %[[C]], 0, 0] [1, 6, 32, 32] [1, 1, 1, 1]
// CHECK-NEXT:      accel.pool ins(%[[X]] : {{.*}}) outs(%[[Y]] : {{.*}})
// CHECK-NEXT:    }
// CHECK-NOT:     accel.pool
// CHECK:         scf.for %[[D:.*]] = {{.*}} {
// CHECK-NEXT:      memref.subview %a[0, %[[D]], 0, 0] [1, 64, 14, 14] [1, 1, 1, 1]
// CHECK:           accel.conv2d {{.*}} {padding = [1, 1, 1, 1], groups = 64}
func.func @npu_0(%x: memref<1x256x64x64xf32>, %y: memref<1x256x32x32xf32> {accel.output}, %a: memref<1x256x14x14xf32>, %z: memref<1x256x14x14xf32> {accel.output}) attributes {accel.target = "npu"} {
  accel.pool ins(%x : memref<1x256x64x64xf32>) outs(%y : memref<1x256x32x32xf32>) {pool_size = [2, 2], strides = [2, 2]}
  %w = accel.weight dense<0.01> : tensor<256x1x3x3xf32> : memref<256x1x3x3xf32>
  accel.conv2d ins(%a, %w : memref<1x256x14x14xf32>, memref<256x1x3x3xf32>) outs(%z : memref<1x256x14x14xf32>) {padding = [1, 1, 1, 1], groups = 256}
  func.return
}
