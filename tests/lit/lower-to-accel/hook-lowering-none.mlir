// A target with `api.lowering = "none"` (its codegen hook takes the bufferized region):
// lower-to-accel, tile-for-scratchpad, insert-dma and optimize-dma leave its regions as
// bufferize made them, even with zero-copy off; the same region on npu-shared is lowered.
// RUN: accel-opt %s --target %S/../../../examples/targets/cblas/cblas.toml -p 'lower-to-accel,tile-for-scratchpad{zero-copy=false},insert-dma{zero-copy=false},optimize-dma' | filecheck %s
// RUN: sed -e 's/"cblas"/"npu-shared"/' -e 's/"cblas.dense_bias"/"npu-shared.dense_bias"/' %s | accel-opt --target npu-shared -p 'lower-to-accel,insert-dma{zero-copy=false}' | filecheck %s --check-prefix=LOWERED

// CHECK-LABEL: func.func private @cblas_0
// CHECK-SAME:    attributes {accel.target = "cblas"}
// CHECK-NOT:     accel.placement
// CHECK-NEXT:    accel.kernel ins(%x : memref<2x4xf32>) outs(%out0 : memref<2x3xf32>)
// CHECK:         relay.composite "cblas.dense_bias"
// CHECK-NOT:     accel.dma_start
// CHECK-NOT:     accel.matmul
// CHECK:         func.return

// LOWERED-LABEL: func.func private @cblas_0
// LOWERED:       accel.dma_start
// LOWERED:       accel.matmul

builtin.module {
  func.func @main(%x: memref<2x4xf32>, %out0: memref<2x3xf32> {accel.output}) {
    func.call @cblas_0(%x, %out0) : (memref<2x4xf32>, memref<2x3xf32>) -> ()
    func.return
  }
  func.func private @cblas_0(%x: memref<2x4xf32>, %out0: memref<2x3xf32> {accel.output}) attributes {accel.target = "cblas"} {
    accel.kernel ins(%x : memref<2x4xf32>) outs(%out0 : memref<2x3xf32>) {
    ^bb0(%0: tensor<2x4xf32>):
      %w = relay.constant dense<5.000000e-01> : tensor<3x4xf32>
      %b = relay.constant dense<2.500000e-01> : tensor<3xf32>
      %1 = relay.composite "cblas.dense_bias" (%0, %w, %b) : (tensor<2x4xf32>, tensor<3x4xf32>, tensor<3xf32>) -> tensor<2x3xf32> {
      ^bb0(%2: tensor<2x4xf32>, %3: tensor<3x4xf32>, %4: tensor<3xf32>):
        %5 = relay.nn.dense %2, %3 : (tensor<2x4xf32>, tensor<3x4xf32>) -> tensor<2x3xf32>
        %6 = relay.nn.bias_add %5, %4 : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
        relay.yield %6 : tensor<2x3xf32>
      }
      accel.yield %1 : tensor<2x3xf32>
    }
    func.return
  }
}
