// RUN: accel-opt %s --split-input-file -p tile-for-scratchpad | filecheck %s
// RUN: accel-opt %s --split-input-file -p tile-for-scratchpad,insert-dma | filecheck %s --check-prefix=DMA

// A 3x3 conv whose input and output (2 x 512 KiB) exceed the 256 KiB scratchpad: the
// channel tiles are unrolled (static slices of weights and bias), the row tiles run in
// loops, with the first and the last peeled because their padding differs; each tile
// reads the rows its windows need.
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
