// RUN: accel-opt %s --split-input-file -p insert-dma,optimize-dma | filecheck %s
// RUN: accel-opt %s --split-input-file -p 'insert-dma,optimize-dma{forward=false cross-region=false}' | filecheck %s --check-prefix=OFF

// A chain in one region: the intermediate stays in the scratchpad (no write-back of the
// region-local %t, no reload), and %a, read by both ops, is copied in once.
// CHECK-LABEL: func.func @npu_0
// CHECK-COUNT-1: accel.dma_start %a,
// CHECK-NOT:     accel.dma_start %a,
// CHECK-NOT:     %t
// CHECK:         accel.eltwise ins(%[[A:[0-9]+]] : {{.*}}) outs(%[[T:[0-9]+]] : {{.*}}) {kind = "relu"}
// CHECK-NEXT:    %{{.*}} = accel.alloc
// CHECK-NEXT:    accel.eltwise ins(%[[T]], %[[A]] : {{.*}}) outs(%{{.*}} : {{.*}})
// The write-back is not waited for (transfers run in order; the region ends with a sync).
// CHECK-NEXT:    accel.dma_start %{{.*}}, %out0
// CHECK-NEXT:    func.return
// OFF-LABEL: func.func @npu_0
// OFF:         accel.dma_start %a,
// OFF:         accel.dma_start %a,
// OFF:         accel.dma_start %{{.*}}, %t
// OFF:         accel.dma_start %t,
func.func @npu_0(%a: memref<64xf32>, %out0: memref<64xf32> {accel.output}) attributes {accel.target = "npu"} {
  %t = memref.alloc() : memref<64xf32>
  accel.eltwise ins(%a : memref<64xf32>) outs(%t : memref<64xf32>) {kind = "relu"}
  accel.eltwise ins(%t, %a : memref<64xf32>, memref<64xf32>) outs(%out0 : memref<64xf32>) {kind = "add"}
  func.return
}

// -----

// Two regions in a row: the value passed between them gets a scratchpad buffer of its
// own, allocated in @main, and never goes back to the host.
// CHECK-LABEL: func.func @npu_0(%a: memref<64xf32>, %out0: memref<64xf32, #accel.mem<"spm">> {accel.output, accel.resident})
// CHECK-NOT:     accel.dma_start %{{.*}}, %out0
// CHECK:         accel.eltwise ins(%{{.*}} : memref<64xf32, #accel.mem<"spm">>) outs(%out0 : memref<64xf32, #accel.mem<"spm">>) {kind = "relu"}
// CHECK-LABEL: func.func @npu_1(%b: memref<64xf32, #accel.mem<"spm">> {accel.resident}, %out0: memref<64xf32> {accel.output})
// CHECK-NOT:     accel.dma_start %b
// CHECK:         accel.eltwise ins(%b, %b : {{.*}})
// CHECK-LABEL: func.func @main
// CHECK:         %[[D:.*]] = accel.alloc {offset = {{[0-9]+}}, accel.target = "npu"} : memref<64xf32, #accel.mem<"spm">>
// CHECK-NEXT:    func.call @npu_0(%x, %[[D]])
// CHECK:         func.call @npu_1(%[[D]], %out0)
// OFF-LABEL: func.func @npu_0(%a: memref<64xf32>, %out0: memref<64xf32> {accel.output})
func.func @npu_0(%a: memref<64xf32>, %out0: memref<64xf32> {accel.output}) attributes {accel.target = "npu"} {
  accel.eltwise ins(%a : memref<64xf32>) outs(%out0 : memref<64xf32>) {kind = "relu"}
  func.return
}
func.func @npu_1(%b: memref<64xf32>, %out0: memref<64xf32> {accel.output}) attributes {accel.target = "npu"} {
  accel.eltwise ins(%b, %b : memref<64xf32>, memref<64xf32>) outs(%out0 : memref<64xf32>) {kind = "mul"}
  func.return
}
func.func @main(%x: memref<64xf32>, %out0: memref<64xf32> {accel.output}) {
  %0 = memref.alloc() : memref<64xf32>
  func.call @npu_0(%x, %0) : (memref<64xf32>, memref<64xf32>) -> ()
  %1 = memref.alloc() : memref<64xf32>
  accel.kernel ins(%x : memref<64xf32>) outs(%1 : memref<64xf32>) {
  ^bb0(%v: tensor<64xf32>):
    %s = relay.sigmoid %v : tensor<64xf32>
    accel.yield %s : tensor<64xf32>
  }
  func.call @npu_1(%0, %out0) : (memref<64xf32>, memref<64xf32>) -> ()
  func.return
}

// -----

// A model input read by two regions of one target (a host op between them): the first
// region loads it into a scratchpad buffer of @main's, the second reads it there.
// CHECK-LABEL: func.func @npu_0(%a: memref<64xf32>, %out0: memref<64xf32> {accel.output}, %{{.*}}: memref<64xf32, #accel.mem<"spm">> {accel.resident})
// CHECK:         accel.dma_start %a, %{{.*}} : memref<64xf32>, memref<64xf32, #accel.mem<"spm">>
// CHECK-LABEL: func.func @npu_1(%b: memref<64xf32, #accel.mem<"spm">> {accel.resident}, %c: memref<64xf32>, %out0: memref<64xf32> {accel.output})
// CHECK-NOT:     accel.dma_start %b
// CHECK-LABEL: func.func @main
// CHECK:         %[[D:.*]] = accel.alloc {offset = {{[0-9]+}}, accel.target = "npu"}
// CHECK:         func.call @npu_0(%x, %{{.*}}, %[[D]])
// CHECK:         func.call @npu_1(%[[D]], %{{.*}}, %out0)
func.func @npu_0(%a: memref<64xf32>, %out0: memref<64xf32> {accel.output}) attributes {accel.target = "npu"} {
  accel.eltwise ins(%a : memref<64xf32>) outs(%out0 : memref<64xf32>) {kind = "relu"}
  func.return
}
func.func @npu_1(%b: memref<64xf32>, %c: memref<64xf32>, %out0: memref<64xf32> {accel.output}) attributes {accel.target = "npu"} {
  accel.eltwise ins(%b, %c : memref<64xf32>, memref<64xf32>) outs(%out0 : memref<64xf32>) {kind = "add"}
  func.return
}
func.func @main(%x: memref<64xf32>, %out0: memref<64xf32> {accel.output}) {
  %0 = memref.alloc() : memref<64xf32>
  func.call @npu_0(%x, %0) : (memref<64xf32>, memref<64xf32>) -> ()
  %1 = memref.alloc() : memref<64xf32>
  accel.kernel ins(%0 : memref<64xf32>) outs(%1 : memref<64xf32>) {
  ^bb0(%v: tensor<64xf32>):
    %s = relay.sigmoid %v : tensor<64xf32>
    accel.yield %s : tensor<64xf32>
  }
  func.call @npu_1(%x, %1, %out0) : (memref<64xf32>, memref<64xf32>, memref<64xf32>) -> ()
  func.return
}
