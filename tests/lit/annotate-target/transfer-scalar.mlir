// RUN: accel-opt %s -p 'byoc{cost-model=false},lower' --target npu | filecheck %s

// A scalar computed at run time cannot be a DMA transfer (rank 1 to 4): the multiply of a
// vector by the mean of everything stays on the host. The differential fuzzer found it
// offloaded and the lowered IR refused ("'accel.dma_start' op transfers have rank 1 to 4,
// got memref<f32>"). A constant scalar is an attribute of the npu's eltwise: offloaded.
// CHECK-LABEL: func.func @main
// CHECK:       relay.mean
// CHECK:       relay.multiply {{.*}} {accel.target = "host", accel.reason = "npu: a scalar computed at run time cannot be transferred (DMA has rank 1 to 4)"}
// CHECK:       func.call @npu_0(%x, %out1)
// CHECK-NOT:   memref<f32>, memref
func.func @main(%x: tensor<8xf32>, %v: tensor<2x3xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
  %m = relay.mean %v : (tensor<2x3xf32>) -> tensor<f32>
  %a = relay.multiply %x, %m : (tensor<8xf32>, tensor<f32>) -> tensor<8xf32>
  %c = relay.constant dense<0.5> : tensor<f32>
  %b = relay.multiply %x, %c : (tensor<8xf32>, tensor<f32>) -> tensor<8xf32>
  func.return %a, %b : tensor<8xf32>, tensor<8xf32>
}
