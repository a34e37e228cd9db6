// RUN: accel-opt %s --split-input-file -p tile-for-scratchpad,insert-dma,optimize-dma | filecheck %s
// RUN: accel-opt %s --split-input-file -p 'tile-for-scratchpad,insert-dma,optimize-dma{double-buffer=false}' | filecheck %s --check-prefix=SINGLE

// A loop over channel tiles (3 output channels each) is double-buffered like a row loop:
// two slots of weights and of bias, the next tile's loaded before the current one's
// compute. A bias slot (3 floats, 12 bytes) is padded to 64 bytes: in one 64-byte block
// the slot being loaded would wait for the compute reading the other (the simulator
// tracks readiness by blocks of min(alignment, 64) bytes). The last tile is shifted
// inwards (channels 509..511): the next tile's channel, the next index clamped to the
// loop's last, is clamped as the current one's; the prefetch is guarded (the loop keeps
// its last iteration, which prefetches nothing).
// CHECK-LABEL: func.func @npu_0
// CHECK:         %[[UB:.*]] = arith.constant 513 : index
// CHECK:         %[[LAST:.*]] = arith.constant 509 : index
// CHECK:         accel.dma_start %x
// CHECK:         accel.alloc {offset = {{[0-9]+}}} : memref<2x3x512x3x3xf32, #accel.mem<"spm">>
// CHECK:         accel.alloc {offset = {{[0-9]+}}} : memref<2x16xf32, #accel.mem<"spm">>
// CHECK:         scf.for %[[I:[0-9a-z_]+]] = %{{.*}} to %[[UB]] step %{{.*}} iter_args(%[[SLOT:.*]] = %{{.*}}, %[[TW:.*]] = %{{.*}}, %[[TB:.*]] = %{{.*}}) -> (index, !accel.token, !accel.token) {
// CHECK:           %[[NEXT:.*]] = arith.addi %[[I]], %{{.*}} : index
// CHECK-NEXT:      %[[AT:.*]] = arith.minsi %[[NEXT]], %{{.*}} : index
// CHECK-NEXT:      %[[NC:.*]] = arith.minsi %[[AT]], %[[LAST]] : index
// CHECK-NEXT:      memref.subview %w[%[[NC]], 0, 0, 0] [3, 512, 3, 3]
// CHECK:           %[[NW:.*]] = accel.dma_start %{{.*}}, %{{.*}} if %[[NEXT]] < %[[UB]] : memref<3x512x3x3xf32, strided<[4608, 9, 3, 1], offset: ?>>, memref<3x512x3x3xf32, strided<[4608, 9, 3, 1], offset: ?>, #accel.mem<"spm">>
// CHECK:           %[[NB:.*]] = accel.dma_start %{{.*}}, %{{.*}} if %[[NEXT]] < %[[UB]] : memref<3xf32, strided<[1], offset: ?>>, memref<3xf32, strided<[1], offset: ?>, #accel.mem<"spm">>
// CHECK:           accel.dma_wait %[[TW]], %[[TB]]
// CHECK-NEXT:      accel.conv2d ins(%{{.*}}, %{{.*}}, %{{.*}} : memref<1x512x7x7xf32, #accel.mem<"spm">>
// CHECK:           scf.yield %{{.*}}, %[[NW]], %[[NB]]
// CHECK:         }
// CHECK-NOT:     accel.conv2d
// SINGLE-LABEL: func.func @npu_0
// SINGLE:         scf.for
// SINGLE-NOT:     iter_args
// SINGLE:           accel.dma_wait
// SINGLE:           accel.conv2d
func.func @npu_0(%x: memref<1x512x7x7xf32>, %y: memref<1x512x7x7xf32> {accel.output}) attributes {accel.target = "npu"} {
  %w = accel.weight dense<0.01> : tensor<512x512x3x3xf32> : memref<512x512x3x3xf32>
  %b = accel.weight dense<0.5> : tensor<512xf32> : memref<512xf32>
  accel.conv2d ins(%x, %w, %b : memref<1x512x7x7xf32>, memref<512x512x3x3xf32>, memref<512xf32>) outs(%y : memref<1x512x7x7xf32>) {padding = [1, 1, 1, 1]}
  func.return
}

// -----

// Rows outside channels (the 64 KiB npu: one output channel and row per tile). Each row
// tile's input is loaded once, hoisted out of its channel loop; the weights stream.
// CHECK-LABEL: func.func @npu_64k_0
// CHECK:         scf.for %{{.*}} = {{.*}} {
// CHECK:           %[[X:.*]] = accel.alloc {{.*}} : memref<1x512x3x7xf32, #accel.mem<"spm">>
// CHECK-NEXT:      accel.dma_start %{{.*}}, %[[X]]
// CHECK:           scf.for %{{.*}} = {{.*}} {
// CHECK-NOT:         accel.dma_start %{{.*}}, %{{.*}} : memref<1x512x3x7xf32
// CHECK:             accel.dma_start %{{.*}}, %{{.*}} : memref<1x512x3x3xf32, strided<[4608, 9, 3, 1], offset: ?>>
// CHECK:             accel.conv2d ins(%[[X]],
// CHECK:           }
// CHECK:         }
func.func @npu_64k_0(%x: memref<1x512x7x7xf32>, %y: memref<1x512x7x7xf32> {accel.output}) attributes {accel.target = "npu-64k"} {
  %w = accel.weight dense<0.01> : tensor<512x512x3x3xf32> : memref<512x512x3x3xf32>
  %b = accel.weight dense<0.5> : tensor<512xf32> : memref<512xf32>
  accel.conv2d ins(%x, %w, %b : memref<1x512x7x7xf32>, memref<512x512x3x3xf32>, memref<512xf32>) outs(%y : memref<1x512x7x7xf32>) {padding = [1, 1, 1, 1]}
  func.return
}

// -----

// A loop over channel tiles around their row loops (channels outside rows): each channel
// tile's weights and bias are loaded in it, before its row loop, which is double-buffered
// inside it (a prologue, then the pipelined loop with all its rows).
// CHECK-LABEL: func.func @npu_0
// CHECK:         scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK:           accel.dma_start %{{.*}}, %{{.*}} : memref<103x256x1x1xf32, strided<[256, 1, 1, 1], offset: ?>>, memref<103x256x1x1xf32, #accel.mem<"spm">>
// CHECK:           accel.alloc {offset = {{[0-9]+}}} : memref<2x1x256x1x56xf32, #accel.mem<"spm">>
// CHECK:           %[[T0:.*]] = accel.dma_start
// CHECK:           scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%{{.*}} = %{{.*}}, %{{.*}} = %[[T0]]) -> (index, !accel.token) {
// CHECK:             accel.dma_start {{.*}} if
// CHECK:             accel.conv2d
// CHECK:           }
// CHECK-NOT:       accel.conv2d
// CHECK:         }
// SINGLE-LABEL: func.func @npu_0
// SINGLE:         scf.for
// SINGLE:           scf.for
// SINGLE-NOT:       iter_args
func.func @npu_0(%x: memref<1x256x56x56xf32>, %y: memref<1x512x28x28xf32> {accel.output}) attributes {accel.target = "npu"} {
  %w = accel.weight dense<0.01> : tensor<512x256x1x1xf32> : memref<512x256x1x1xf32>
  %b = accel.weight dense<0.5> : tensor<512xf32> : memref<512xf32>
  accel.conv2d ins(%x, %w, %b : memref<1x256x56x56xf32>, memref<512x256x1x1xf32>, memref<512xf32>) outs(%y : memref<1x512x28x28xf32>) {strides = [2, 2]}
  func.return
}
