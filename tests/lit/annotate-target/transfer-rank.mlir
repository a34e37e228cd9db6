// RUN: accel-opt %s -p 'byoc{cost-model=false}' --target npu | filecheck %s
// RUN: accel-opt %s -p 'byoc{cost-model=false},lower' --target npu | filecheck %s --check-prefix=LOWERED

// A DMA transfer has at most 4 dimensions (accel.MAX_TRANSFER_RANK): an op on a rank-5
// tensor stays on the host with that reason. The differential fuzzer found this relu sent
// to the npu and the lowered IR then refused by the verifier ("'accel.dma_start' op
// transfers have rank 1 to 4, got memref<1x1x1x3x3xf32>"); rank 4 is still offloaded.
// CHECK-LABEL: func.func @main
// CHECK:       relay.nn.relu %x {accel.target = "host", accel.reason = "npu: rank 5 exceeds the 4 dimensions of a DMA transfer"}
// CHECK:       func.call @npu_0(%y)
// CHECK:       func.func private @npu_0
// CHECK-NEXT:  relay.nn.relu %y
// LOWERED:     accel.dma_start %y, {{.*}} : memref<1x3x3x3xf32>
// LOWERED-NOT: accel.dma_start {{.*}} memref<1x1x1x3x3xf32
func.func @main(%x: tensor<1x1x1x3x3xf32>, %y: tensor<1x3x3x3xf32>) -> (tensor<1x1x1x3x3xf32>, tensor<1x3x3x3xf32>) {
  %r = relay.nn.relu %x : tensor<1x1x1x3x3xf32>
  %s = relay.nn.relu %y : tensor<1x3x3x3xf32>
  func.return %r, %s : tensor<1x1x1x3x3xf32>, tensor<1x3x3x3xf32>
}
