// RUN: accel-opt %s --split-input-file -p insert-dma | filecheck %s
// RUN: accel-opt %s --split-input-file -p insert-dma --print-op-generic | accel-opt --split-input-file | filecheck %s

// Every operand is staged through the scratchpad: inputs copied in (one wait for all),
// the result copied out; scratchpad buffers get offsets by liveness.
// CHECK-LABEL: func.func @npu_0(%a: memref<64xf32>, %b: memref<64xf32>, %out0: memref<64xf32> {accel.output}) attributes {accel.target = "npu", accel.placement = "dma"}
// CHECK-NEXT:    %0 = accel.alloc {offset = 0} : memref<64xf32, #accel.mem<"spm">>
// CHECK-NEXT:    %1 = accel.dma_start %a, %0 : memref<64xf32>, memref<64xf32, #accel.mem<"spm">>
// CHECK-NEXT:    %2 = accel.alloc {offset = 256} : memref<64xf32, #accel.mem<"spm">>
// CHECK-NEXT:    %3 = accel.dma_start %b, %2 : memref<64xf32>, memref<64xf32, #accel.mem<"spm">>
// CHECK-NEXT:    accel.dma_wait %1, %3
// CHECK-NEXT:    %4 = accel.alloc {offset = 512} : memref<64xf32, #accel.mem<"spm">>
// CHECK-NEXT:    accel.eltwise ins(%0, %2 : memref<64xf32, #accel.mem<"spm">>, memref<64xf32, #accel.mem<"spm">>) outs(%4 : memref<64xf32, #accel.mem<"spm">>){{$}}
// CHECK-NEXT:    %5 = accel.dma_start %4, %out0 : memref<64xf32, #accel.mem<"spm">>, memref<64xf32>
// CHECK-NEXT:    accel.dma_wait %5
// CHECK-NEXT:    func.return
func.func @npu_0(%a: memref<64xf32>, %b: memref<64xf32>, %out0: memref<64xf32> {accel.output}) attributes {accel.target = "npu"} {
  accel.eltwise ins(%a, %b : memref<64xf32>, memref<64xf32>) outs(%out0 : memref<64xf32>) {kind = "add"}
  func.return
}

// -----

// A value read twice by one op is copied in once.
// CHECK-LABEL: func.func @npu_0
// CHECK:         %1 = accel.dma_start %a, %0
// CHECK-NEXT:    accel.dma_wait %1
// CHECK:         accel.eltwise ins(%0, %0 : {{.*}}) outs(%{{.*}} : {{.*}}) {kind = "mul"}
func.func @npu_0(%a: memref<64xf32>, %out0: memref<64xf32> {accel.output}) attributes {accel.target = "npu"} {
  accel.eltwise ins(%a, %a : memref<64xf32>, memref<64xf32>) outs(%out0 : memref<64xf32>) {kind = "mul"}
  func.return
}

// -----

// Shared host memory: no copies at all.
// CHECK-LABEL: func.func @npu_shared_0(%a: memref<64xf32>, %out0: memref<64xf32> {accel.output}) attributes {accel.target = "npu-shared", accel.placement = "zero-copy"}
// CHECK-NEXT:    accel.eltwise ins(%a : memref<64xf32>) outs(%out0 : memref<64xf32>) {kind = "relu"}
// CHECK-NEXT:    func.return
func.func @npu_shared_0(%a: memref<64xf32>, %out0: memref<64xf32> {accel.output}) attributes {accel.target = "npu-shared"} {
  accel.eltwise ins(%a : memref<64xf32>) outs(%out0 : memref<64xf32>) {kind = "relu"}
  func.return
}
