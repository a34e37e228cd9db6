// RUN: accel-opt %s --split-input-file -p insert-dma,optimize-dma | filecheck %s
// RUN: accel-opt %s --split-input-file -p 'insert-dma,optimize-dma{prefetch-regions=false}' | filecheck %s --check-prefix=OFF

// Two regions with a host op between them. The second one's first op reads a weight and
// a model input (%y, ready before the first region runs): both loads are issued by the
// first region, before its last compute, into scratchpad buffers of @main's; the second
// region reads them in place. Its other input (%c, made by the host op in between) is
// still loaded by the second region itself.
// CHECK-LABEL: func.func @npu_0(
// CHECK-SAME:    %a: memref<64xf32>, %out0: memref<64xf32> {accel.output}, %[[Y:[0-9]+]]: memref<64xf32>, %[[DY:[0-9]+]]: memref<64xf32, #accel.mem<"spm">> {accel.resident}, %[[DW:[0-9]+]]: memref<64xf32, #accel.mem<"spm">> {accel.resident})
// CHECK:         %[[W:[a-z0-9]+]] = accel.weight dense<5.000000e-01>
// CHECK:         accel.dma_start %[[Y]], %[[DY]] : memref<64xf32>, memref<64xf32, #accel.mem<"spm">>
// CHECK-NEXT:    accel.dma_start %[[W]], %[[DW]] : memref<64xf32>, memref<64xf32, #accel.mem<"spm">>
// CHECK-NEXT:    accel.eltwise {{.*}} {kind = "relu"}
// CHECK-LABEL: func.func @npu_1(
// CHECK-SAME:    %c: memref<64xf32>, %out0: memref<64xf32> {accel.output}, %[[BY:[0-9]+]]: memref<64xf32, #accel.mem<"spm">> {accel.resident}, %[[BW:[0-9]+]]: memref<64xf32, #accel.mem<"spm">> {accel.resident})
// CHECK-NOT:     accel.weight
// CHECK-NOT:     accel.dma_start %b
// CHECK:         accel.dma_start %c,
// CHECK:         accel.eltwise ins(%[[BY]], %[[BW]] : {{.*}}) outs(
// CHECK-LABEL: func.func @main
// CHECK:         %[[D1:[0-9]+]] = accel.alloc {offset = {{[0-9]+}}, accel.target = "npu"} : memref<64xf32, #accel.mem<"spm">>
// CHECK-NEXT:    %[[D2:[0-9]+]] = accel.alloc {offset = {{[0-9]+}}, accel.target = "npu"} : memref<64xf32, #accel.mem<"spm">>
// CHECK-NEXT:    func.call @npu_0(%x, %{{.*}}, %y, %[[D1]], %[[D2]])
// CHECK:         func.call @npu_1(%{{.*}}, %out0, %[[D1]], %[[D2]])
// OFF-LABEL: func.func @npu_0(%a: memref<64xf32>, %out0: memref<64xf32> {accel.output}) attributes
// OFF-LABEL: func.func @npu_1(%b: memref<64xf32>, %c: memref<64xf32>, %out0: memref<64xf32> {accel.output}) attributes
// OFF:         accel.weight
// OFF:         accel.dma_start %b,
// OFF-LABEL: func.func @main
// OFF-NOT:     accel.target = "npu"} : memref
func.func @npu_0(%a: memref<64xf32>, %out0: memref<64xf32> {accel.output}) attributes {accel.target = "npu"} {
  accel.eltwise ins(%a : memref<64xf32>) outs(%out0 : memref<64xf32>) {kind = "relu"}
  func.return
}
func.func @npu_1(%b: memref<64xf32>, %c: memref<64xf32>, %out0: memref<64xf32> {accel.output}) attributes {accel.target = "npu"} {
  %w = accel.weight dense<0.5> : tensor<64xf32> : memref<64xf32>
  %t = memref.alloc() : memref<64xf32>
  accel.eltwise ins(%b, %w : memref<64xf32>, memref<64xf32>) outs(%t : memref<64xf32>) {kind = "add"}
  accel.eltwise ins(%t, %c : memref<64xf32>, memref<64xf32>) outs(%out0 : memref<64xf32>) {kind = "mul"}
  func.return
}
func.func @main(%x: memref<64xf32>, %y: memref<64xf32>, %out0: memref<64xf32> {accel.output}) {
  %0 = memref.alloc() : memref<64xf32>
  func.call @npu_0(%x, %0) : (memref<64xf32>, memref<64xf32>) -> ()
  %1 = memref.alloc() : memref<64xf32>
  accel.kernel ins(%0 : memref<64xf32>) outs(%1 : memref<64xf32>) {
  ^bb0(%v: tensor<64xf32>):
    %s = relay.sigmoid %v : tensor<64xf32>
    accel.yield %s : tensor<64xf32>
  }
  func.call @npu_1(%y, %1, %out0) : (memref<64xf32>, memref<64xf32>, memref<64xf32>) -> ()
  func.return
}

// -----

// The first region's last op fills the 256 KiB scratchpad (128 KiB in, 128 KiB out):
// there is no room for the next region's weight while it computes, so nothing moves.
// CHECK-LABEL: func.func @npu_0(%a: memref<32768xf32>, %out0: memref<32768xf32> {accel.output}) attributes
// CHECK-LABEL: func.func @npu_1(%b: memref<64xf32>, %out0: memref<64xf32> {accel.output}) attributes
// CHECK:         %[[W:[a-z0-9]+]] = accel.weight
// CHECK:         accel.dma_start %[[W]],
// CHECK-LABEL: func.func @main
// CHECK-NOT:     accel.target = "npu"} : memref
func.func @npu_0(%a: memref<32768xf32>, %out0: memref<32768xf32> {accel.output}) attributes {accel.target = "npu"} {
  accel.eltwise ins(%a : memref<32768xf32>) outs(%out0 : memref<32768xf32>) {kind = "relu"}
  func.return
}
func.func @npu_1(%b: memref<64xf32>, %out0: memref<64xf32> {accel.output}) attributes {accel.target = "npu"} {
  %w = accel.weight dense<0.5> : tensor<64xf32> : memref<64xf32>
  accel.eltwise ins(%b, %w : memref<64xf32>, memref<64xf32>) outs(%out0 : memref<64xf32>) {kind = "add"}
  func.return
}
func.func @main(%x: memref<32768xf32>, %out0: memref<64xf32> {accel.output}) {
  %0 = memref.alloc() : memref<32768xf32>
  func.call @npu_0(%x, %0) : (memref<32768xf32>, memref<32768xf32>) -> ()
  %1 = memref.alloc() : memref<64xf32>
  accel.kernel ins(%0 : memref<32768xf32>) outs(%1 : memref<64xf32>) {
  ^bb0(%v: tensor<32768xf32>):
    %s = relay.strided_slice %v {begin = [0], end = [64], strides = [1]} : (tensor<32768xf32>) -> tensor<64xf32>
    accel.yield %s : tensor<64xf32>
  }
  func.call @npu_1(%1, %out0) : (memref<64xf32>, memref<64xf32>) -> ()
  func.return
}

// -----

// A region input that the host rewrites between the two regions (%x, written by the
// kernel in between) is not loaded early: the earlier region would read the old value.
// CHECK-LABEL: func.func @npu_0(%a: memref<64xf32>, %out0: memref<64xf32> {accel.output}) attributes
// CHECK-LABEL: func.func @npu_1(%b: memref<64xf32>, %out0: memref<64xf32> {accel.output}) attributes
// CHECK:         accel.dma_start %b,
// CHECK-LABEL: func.func @main
// CHECK-NOT:     accel.target = "npu"} : memref
func.func @npu_0(%a: memref<64xf32>, %out0: memref<64xf32> {accel.output}) attributes {accel.target = "npu"} {
  accel.eltwise ins(%a : memref<64xf32>) outs(%out0 : memref<64xf32>) {kind = "relu"}
  func.return
}
func.func @npu_1(%b: memref<64xf32>, %out0: memref<64xf32> {accel.output}) attributes {accel.target = "npu"} {
  accel.eltwise ins(%b, %b : memref<64xf32>, memref<64xf32>) outs(%out0 : memref<64xf32>) {kind = "mul"}
  func.return
}
func.func @main(%x: memref<64xf32>, %y: memref<64xf32>, %out0: memref<64xf32> {accel.output}) {
  %0 = memref.alloc() : memref<64xf32>
  func.call @npu_0(%y, %0) : (memref<64xf32>, memref<64xf32>) -> ()
  accel.kernel ins(%0 : memref<64xf32>) outs(%x : memref<64xf32>) {
  ^bb0(%v: tensor<64xf32>):
    %s = relay.sigmoid %v : tensor<64xf32>
    accel.yield %s : tensor<64xf32>
  }
  func.call @npu_1(%x, %out0) : (memref<64xf32>, memref<64xf32>) -> ()
  func.return
}

// -----

// Three regions, a host op between each two. Together the prefetches do not fit, so only
// those whose earlier region has room for them while its last op computes are tried:
// @npu_0 issues @npu_1's 64 KiB weight, but @npu_1's own op (64 KiB in, 64 KiB weight,
// 64 KiB out) leaves no room for @npu_2's 80 KiB weight, which @npu_2 loads itself.
// CHECK-LABEL: func.func @npu_0(
// CHECK-SAME:    {accel.resident}) attributes
// CHECK:         accel.dma_start %{{.*}}, %{{.*}} : memref<16384xf32>, memref<16384xf32, #accel.mem<"spm">>
// CHECK-LABEL: func.func @npu_1(%b: memref<16384xf32>, %out0: memref<16384xf32> {accel.output}, %{{.*}}: memref<16384xf32, #accel.mem<"spm">> {accel.resident}) attributes
// CHECK-NOT:     memref<20480xf32, #accel.mem<"spm">>
// CHECK-LABEL: func.func @npu_2(%c: memref<20480xf32>, %out0: memref<20480xf32> {accel.output}) attributes
// CHECK:         %[[W:[a-z0-9]+]] = accel.weight
// CHECK:         accel.dma_start %[[W]],
// CHECK-LABEL: func.func @main
// CHECK-COUNT-1: accel.target = "npu"} : memref
// CHECK-NOT:     accel.target = "npu"} : memref
func.func @npu_0(%a: memref<64xf32>, %out0: memref<64xf32> {accel.output}) attributes {accel.target = "npu"} {
  accel.eltwise ins(%a : memref<64xf32>) outs(%out0 : memref<64xf32>) {kind = "relu"}
  func.return
}
func.func @npu_1(%b: memref<16384xf32>, %out0: memref<16384xf32> {accel.output}) attributes {accel.target = "npu"} {
  %w = accel.weight dense<0.5> : tensor<16384xf32> : memref<16384xf32>
  accel.eltwise ins(%b, %w : memref<16384xf32>, memref<16384xf32>) outs(%out0 : memref<16384xf32>) {kind = "add"}
  func.return
}
func.func @npu_2(%c: memref<20480xf32>, %out0: memref<20480xf32> {accel.output}) attributes {accel.target = "npu"} {
  %w = accel.weight dense<0.25> : tensor<20480xf32> : memref<20480xf32>
  accel.eltwise ins(%c, %w : memref<20480xf32>, memref<20480xf32>) outs(%out0 : memref<20480xf32>) {kind = "add"}
  func.return
}
func.func @main(%x: memref<64xf32>, %y: memref<16384xf32>, %z: memref<20480xf32>, %out0: memref<20480xf32> {accel.output}) {
  %0 = memref.alloc() : memref<64xf32>
  func.call @npu_0(%x, %0) : (memref<64xf32>, memref<64xf32>) -> ()
  %1 = memref.alloc() : memref<16384xf32>
  accel.kernel ins(%y : memref<16384xf32>) outs(%1 : memref<16384xf32>) {
  ^bb0(%v: tensor<16384xf32>):
    %s = relay.sigmoid %v : tensor<16384xf32>
    accel.yield %s : tensor<16384xf32>
  }
  %2 = memref.alloc() : memref<16384xf32>
  func.call @npu_1(%1, %2) : (memref<16384xf32>, memref<16384xf32>) -> ()
  %3 = memref.alloc() : memref<20480xf32>
  accel.kernel ins(%z : memref<20480xf32>) outs(%3 : memref<20480xf32>) {
  ^bb0(%v: tensor<20480xf32>):
    %s = relay.sigmoid %v : tensor<20480xf32>
    accel.yield %s : tensor<20480xf32>
  }
  func.call @npu_2(%3, %out0) : (memref<20480xf32>, memref<20480xf32>) -> ()
  func.return
}
