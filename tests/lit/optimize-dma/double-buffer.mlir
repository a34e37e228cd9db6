// RUN: accel-opt %s -p tile-for-scratchpad,insert-dma,optimize-dma | filecheck %s
// RUN: accel-opt %s -p 'tile-for-scratchpad,insert-dma,optimize-dma{double-buffer=false}' | filecheck %s --check-prefix=SINGLE
// RUN: accel-opt %s -p tile-for-scratchpad,insert-dma,optimize-dma | filecheck %s --check-prefix=CONST

// Row tiles of a large relu: the next tile's transfer is issued before the current
// tile's compute, into the other slot of a two-slot buffer; slot and pending token are
// loop-carried. The loop keeps all its iterations: the prefetch is guarded (the last
// iteration has no next tile) and reads the next tile's view clamped to the last one.
// The last, shorter tile (one channel) is loaded before the loop (a load moves one
// compute op earlier, a loop counting as one), and computed after it.
// CHECK:      %[[IN:.*]] = accel.alloc {offset = {{[0-9]+}}} : memref<2x1x{{[0-9]+}}x64x64xf32, #accel.mem<"spm">>
// CHECK:      %[[OUT:.*]] = accel.alloc {offset = {{[0-9]+}}} : memref<2x1x{{[0-9]+}}x64x64xf32, #accel.mem<"spm">>
// CHECK:      %[[T0:.*]] = accel.dma_start %{{.*}}, %{{.*}} : memref<1x{{[0-9]+}}x64x64xf32, strided<{{.*}}>>, memref<1x{{[0-9]+}}x64x64xf32, strided<{{.*}}>, #accel.mem<"spm">>
// CHECK:      %[[REST:.*]] = accel.dma_start %{{.*}}, %{{.*}} : memref<1x1x64x64xf32, strided<{{.*}}>>, memref<1x1x64x64xf32, #accel.mem<"spm">>
// CHECK:      %[[R:.*]], %[[RT:.*]] = scf.for %[[I:.*]] = %{{.*}} to %[[UB:.*]] step %[[STEP:.*]] iter_args(%[[SLOT:.*]] = %{{.*}}, %[[TOK:.*]] = %[[T0]]) -> (index, !accel.token) {
// CHECK:        %[[NX:.*]] = arith.addi %[[I]], %[[STEP]] : index
// CHECK-NEXT:   %[[AT:.*]] = arith.minsi %[[NX]], %{{.*}} : index
// CHECK-NEXT:   memref.subview %{{.*}}[0, %[[AT]], 0, 0]
// CHECK:        %[[NEXT:.*]] = accel.dma_start %{{.*}}, %{{.*}} if %[[NX]] < %[[UB]] :
// CHECK:        accel.dma_wait %[[TOK]]
// CHECK-NEXT:   accel.eltwise
// The write-back of the tile is not waited for in the loop (the other slot is free).
// CHECK-NEXT:   accel.dma_start %{{.*}}, %{{.*}} : memref<1x{{[0-9]+}}x64x64xf32, strided<{{.*}}>, #accel.mem<"spm">>, memref<1x{{[0-9]+}}x64x64xf32, strided<{{.*}}>>
// CHECK-NEXT:   scf.yield %{{.*}}, %[[NEXT]] : index, !accel.token
// CHECK:      }
// CHECK-NOT:  %[[RT]]
// CHECK:      accel.dma_wait %[[REST]]
// CHECK:      accel.eltwise ins(%{{.*}} : memref<1x1x64x64xf32
// The prologue and the loop built their own index constants; equal ones of a block are
// one (the loop's lower bound, its first slot, the first tile's offset).
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
