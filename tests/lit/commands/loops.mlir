// RUN: accel-opt %s -p tile-for-scratchpad,insert-dma,optimize-dma -t commands | filecheck %s

// A relu too large for the scratchpad: tile-for-scratchpad and optimize-dma make a loop
// over row tiles, double-buffered (slot and pending token loop-carried). The stream is
// that loop unrolled: the next tile's load is issued before the current tile's compute,
// which waits for its own token only; the slots alternate. The last, shorter tile (one
// channel) is loaded before the loop (one op earlier: the loop counts as one), and the
// loop's last iteration prefetches nothing (a guarded transfer, not issued).
// CHECK:      header
// CHECK-NEXT:    0: dma_load elem_bytes=4 rank=4 spm=[[S0:[0-9]+]] host=arg0+0 shape0=1 shape1=3 shape2=64 shape3=64
// CHECK-NEXT:    1: dma_load elem_bytes=4 rank=4 spm=[[R:[0-9]+]] host=arg0+1032192 shape0=1 shape1=1 shape2=64 shape3=64
// CHECK-NEXT:    2: dma_load elem_bytes=4 rank=4 spm=[[S1:[0-9]+]] host=arg0+49152 shape0=1 shape1=3
// CHECK-NEXT:    3: wait token=1
// CHECK-NEXT:    4: eltwise eltwise_kind=relu x=[[S0]] rhs=none y=[[Y0:[0-9]+]] count=12288 act=none
// CHECK-NEXT:    5: dma_store elem_bytes=4 rank=4 spm=[[Y0]] host=arg1+0
// CHECK-NEXT:    6: dma_load elem_bytes=4 rank=4 spm=[[S0]] host=arg0+98304
// CHECK-NEXT:    7: wait token=3
// CHECK-NEXT:    8: eltwise eltwise_kind=relu x=[[S1]] rhs=none y=[[Y1:[0-9]+]] count=12288
// CHECK-NEXT:    9: dma_store elem_bytes=4 rank=4 spm=[[Y1]] host=arg1+49152
// CHECK-NEXT:   10: dma_load elem_bytes=4 rank=4 spm=[[S1]] host=arg0+147456
// CHECK-NEXT:   11: wait token=5
// CHECK-NEXT:   12: eltwise eltwise_kind=relu x=[[S0]] rhs=none y=[[Y0]]
// The loop's last tile: no load before it; then the shorter tile and the end.
// CHECK:        dma_store elem_bytes=4 rank=4 spm={{[0-9]+}} host=arg1+933888
// CHECK-NEXT:   wait token=
// CHECK-NEXT:   eltwise eltwise_kind=relu x={{[0-9]+}} rhs=none y={{[0-9]+}} count=12288
// CHECK-NEXT:   dma_store elem_bytes=4 rank=4 spm={{[0-9]+}} host=arg1+983040
// CHECK-NEXT:   wait token=2
// CHECK-NEXT:   eltwise eltwise_kind=relu x=[[R]] rhs=none y={{[0-9]+}} count=4096
// CHECK-NEXT:   dma_store elem_bytes=4 rank=4 spm={{[0-9]+}} host=arg1+1032192 shape0=1 shape1=1 shape2=64 shape3=64
// CHECK-NEXT:   barrier
// CHECK-NEXT:   end
func.func @main(%a: memref<1x64x64x64xf32> {accel.name = "x"}, %b: memref<1x64x64x64xf32> {accel.name = "y", accel.output}) {
  func.call @npu_cmd_0(%a, %b) : (memref<1x64x64x64xf32>, memref<1x64x64x64xf32>) -> ()
  func.return
}
func.func private @npu_cmd_0(%a: memref<1x64x64x64xf32>, %b: memref<1x64x64x64xf32> {accel.output}) attributes {accel.target = "npu-cmd"} {
  accel.eltwise ins(%a : memref<1x64x64x64xf32>) outs(%b : memref<1x64x64x64xf32>) {kind = "relu"}
  func.return
}
