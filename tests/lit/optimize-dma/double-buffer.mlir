// RUN: accel-opt %s -p tile-for-scratchpad,insert-dma,optimize-dma | filecheck %s
// RUN: accel-opt %s -p 'tile-for-scratchpad,insert-dma,optimize-dma{double-buffer=false}' | filecheck %s --check-prefix=SINGLE
// RUN: accel-opt %s -p tile-for-scratchpad,insert-dma,optimize-dma | filecheck %s --check-prefix=CONST

// Row tiles of a large relu: the next tile's transfer is issued before the current
// tile's compute, into the other slot of a two-slot buffer; slot and pending token are
// loop-carried; the last iteration is peeled.
// CHECK:      %[[IN:.*]] = accel.alloc {offset = {{[0-9]+}}} : memref<2x1x{{[0-9]+}}x64x64xf32, #accel.mem<"spm">>
// CHECK:      %[[OUT:.*]] = accel.alloc {offset = {{[0-9]+}}} : memref<2x1x{{[0-9]+}}x64x64xf32, #accel.mem<"spm">>
// CHECK:      %[[T0:.*]] = accel.dma_start %{{.*}}, %{{.*}} : memref<1x{{[0-9]+}}x64x64xf32, strided<{{.*}}>>, memref<1x{{[0-9]+}}x64x64xf32, strided<{{.*}}>, #accel.mem<"spm">>
// CHECK:      %[[R:.*]], %[[RT:.*]] = scf.for %[[I:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[SLOT:.*]] = %{{.*}}, %[[TOK:.*]] = %[[T0]]) -> (index, !accel.token) {
// CHECK:        %[[NEXT:.*]] = accel.dma_start
// CHECK:        accel.dma_wait %[[TOK]]
// CHECK-NEXT:   accel.eltwise
// The write-back of the tile is not waited for in the loop (the other slot is free).
// CHECK-NEXT:   accel.dma_start %{{.*}}, %{{.*}} : memref<1x{{[0-9]+}}x64x64xf32, strided<{{.*}}>, #accel.mem<"spm">>, memref<1x{{[0-9]+}}x64x64xf32, strided<{{.*}}>>
// CHECK-NEXT:   scf.yield %{{.*}}, %[[NEXT]] : index, !accel.token
// CHECK:      }
// CHECK:      accel.dma_wait %[[RT]]
// CHECK:      accel.eltwise
// The prologue, the loop and the peeled iteration built their own index constants; equal
// ones of a block are one (the loop's lower bound, its first slot, the first tile's offset).
// CONST:      arith.constant 0 : index
// CONST-NOT:  arith.constant 0 : index
// SINGLE:     scf.for
// SINGLE-NOT: iter_args
// SINGLE:     accel.dma_wait
// SINGLE:     accel.eltwise
func.func @npu_0(%a: memref<1x64x64x64xf32>, %b: memref<1x64x64x64xf32> {accel.output}) attributes {accel.target = "npu"} {
  accel.eltwise ins(%a : memref<1x64x64x64xf32>) outs(%b : memref<1x64x64x64xf32>) {kind = "relu"}
  func.return
}
