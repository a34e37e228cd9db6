// RUN: accel-opt %s --split-input-file -p tile-for-scratchpad | filecheck %s
// RUN: accel-opt %s --split-input-file -p tile-for-scratchpad,insert-dma | filecheck %s --check-prefix=DMA
// RUN: accel-opt %s --split-input-file -p tile-for-scratchpad,insert-dma,optimize-dma | filecheck %s --check-prefix=OPT

// A dense row of K = 32768 (one feature's weights alone take 128 KiB): no tile with
// whole K rows fits (streamed tiles twice) in the 256 KiB scratchpad, so K is split. The first K tile
// writes the output tile, the later ones accumulate into it; only the last adds the bias
// and applies the activation.
// CHECK-LABEL: func.func @npu_0
// CHECK:         %[[A0:.*]] = memref.subview %x[0, 0] [1, [[TK:[0-9]+]]]
// CHECK:         %[[W0:.*]] = memref.subview %w[0, 0] [{{[0-9]+}}, [[TK]]]
// CHECK-NEXT:    accel.matmul ins(%[[A0]], %[[W0]] : {{.*}}) outs(%y : memref<1x16xf32>){{$}}
// CHECK:         accel.matmul ins(%{{[0-9]+}}, %{{[0-9]+}} : {{.*}}) outs(%y : memref<1x16xf32>) {accumulate = true}{{$}}
// CHECK:         accel.matmul ins(%{{[0-9]+}}, %{{[0-9]+}}, %b : {{.*}}) outs(%y : memref<1x16xf32>) {accumulate = true, activation = "relu"}
// CHECK-NOT:     accel.matmul ins(%x
// An accumulating tile reads its output: insert-dma brings the partial sums in first.
// DMA:           accel.dma_start %y, %[[S:.*]] : memref<1x16xf32>, memref<1x16xf32, #accel.mem<"spm">>
// DMA-NEXT:      accel.dma_wait
// DMA-NEXT:      accel.matmul ins({{.*}}) outs(%[[S]] : {{.*}}) {accumulate = true}
// optimize-dma forwards the partial sums: the first K tile's output buffer is the one
// every later tile accumulates into, and nothing is loaded from %y.
// OPT:           %[[ACC:.*]] = accel.alloc {{.*}} : memref<1x16xf32, #accel.mem<"spm">>
// OPT-NOT:       accel.dma_start %y,
// OPT:           accel.matmul ins({{.*}}) outs(%[[ACC]] : {{.*}}){{$}}
// OPT-NOT:       accel.dma_start %y,
// OPT:           accel.matmul ins({{.*}}) outs(%[[ACC]] : {{.*}}) {accumulate = true}
// OPT-NOT:       accel.dma_start %y,
// OPT:           accel.matmul ins({{.*}}) outs(%[[ACC]] : {{.*}}) {accumulate = true, activation = "relu"}
// OPT-NOT:       accel.dma_start %y,
func.func @npu_0(%x: memref<1x32768xf32>, %y: memref<1x16xf32> {accel.output}) attributes {accel.target = "npu"} {
  %w = accel.weight dense<0.01> : tensor<16x32768xf32> : memref<16x32768xf32>
  %b = accel.weight dense<0.5> : tensor<16xf32> : memref<16xf32>
  accel.matmul ins(%x, %w, %b : memref<1x32768xf32>, memref<16x32768xf32>, memref<16xf32>) outs(%y : memref<1x16xf32>) {activation = "relu"}
  func.return
}

// -----

// The product's first dim as the data (transpose_a) and a [K, N] weight, no bias: every
// slice cuts K.
// CHECK-LABEL: func.func @npu_0
// CHECK:         memref.subview %a[0, 0] [{{[0-9]+}}, 2] [1, 1]
// CHECK:         memref.subview %w[0, 0] [{{[0-9]+}}, 16] [1, 1]
// CHECK:         accel.matmul {{.*}} {transpose_a = true, transpose_b = false}{{$}}
// CHECK:         accel.matmul {{.*}} {transpose_a = true, transpose_b = false, accumulate = true}{{$}}
func.func @npu_0(%a: memref<32768x2xf32>, %y: memref<2x16xf32> {accel.output}) attributes {accel.target = "npu"} {
  %w = accel.weight dense<0.01> : tensor<32768x16xf32> : memref<32768x16xf32>
  accel.matmul ins(%a, %w : memref<32768x2xf32>, memref<32768x16xf32>) outs(%y : memref<2x16xf32>) {transpose_a = true, transpose_b = false}
  func.return
}
