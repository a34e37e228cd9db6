// RUN: not accel-opt %s --split-input-file -p 'optimize-dma{hoist=maybe}' 2>&1 | filecheck %s --check-prefix=OPTION
// RUN: not accel-opt %s --split-input-file -p optimize-dma 2>&1 | filecheck %s

// A malformed option is one line.
// OPTION: accel-opt: error: pass 'optimize-dma': option 'hoist' expects bool, got 'maybe'
// OPTION-NOT: Traceback

// A region for a target nobody describes: the optimizer needs the scratchpad size.
// CHECK: optimize-dma-invalid.mlir:11:1: error: accel.target "nosuchnpu": unknown target 'nosuchnpu'
// CHECK-NOT: Traceback
func.func @nosuchnpu_0(%a: memref<64xf32>, %out0: memref<64xf32> {accel.output}) attributes {accel.target = "nosuchnpu", accel.placement = "dma"} {
  func.return
}
