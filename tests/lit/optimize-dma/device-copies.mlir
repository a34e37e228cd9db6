// RUN: accel-opt %s --split-input-file --target npu -p "byoc{cost-model=false},bufferize,plan-memory,lower-to-accel,tile-for-scratchpad,insert-dma,assemble-on-device,optimize-dma" | filecheck %s
// RUN: accel-opt %s --split-input-file --target npu -p "byoc{cost-model=false},bufferize,plan-memory,lower-to-accel,tile-for-scratchpad,insert-dma,assemble-on-device,optimize-dma{forward=false}" | filecheck %s --check-prefix=NOFWD

// A reflection pad between two convs (expand-pads: two row slices and the conv's result,
// concatenated). Each border row is one copy on the device, from the row of the first
// conv's buffer into its place in the concatenation (not into a buffer of its own and
// copied again), and the conv's result is copied from its scratchpad buffer into the
// middle (not written back to host memory and loaded again).
// CHECK-LABEL: func.func private @npu_0
// CHECK:         accel.conv2d ins({{.*}}) outs(%[[C:.*]] : memref<1x2x4x4xf32, #accel.mem<"spm">>) {padding = [1, 0, 1, 0]}
// CHECK-NOT:     accel.dma_start %[[C]], %{{.*}} : memref<1x2x4x4xf32, #accel.mem<"spm">>, memref<1x2x4x4xf32>
// CHECK:         %[[TOP:.*]] = memref.reinterpret_cast %[[C]] to offset: [4]
// CHECK:         accel.dma_start %[[TOP]], %{{.*}} : memref<1x2x1x4xf32, strided<[32, 16, 4, 1], offset: 4>, #accel.mem<"spm">>, memref<1x2x1x4xf32, strided<[48, 24, 4, 1]>, #accel.mem<"spm">>
// CHECK:         %[[BOTTOM:.*]] = memref.reinterpret_cast %[[C]] to offset: [8]
// CHECK:         accel.dma_start %[[BOTTOM]], %{{.*}} : memref<1x2x1x4xf32, strided<[32, 16, 4, 1], offset: 8>, #accel.mem<"spm">>, memref<1x2x1x4xf32, strided<[48, 24, 4, 1], offset: 20>, #accel.mem<"spm">>
// CHECK:         accel.dma_start %[[C]], %{{.*}} : memref<1x2x4x4xf32, #accel.mem<"spm">>, memref<1x2x4x4xf32, strided<[48, 24, 4, 1], offset: 4>, #accel.mem<"spm">>
// CHECK:         accel.conv2d
// Without forwarding, the result goes out, and each row comes back from host memory into
// a buffer of its own.
// NOFWD-LABEL: func.func private @npu_0
// NOFWD:         accel.dma_start %{{.*}}, %{{.*}} : memref<1x2x4x4xf32, #accel.mem<"spm">>, memref<1x2x4x4xf32>
// NOFWD:         accel.dma_start %{{.*}}, %{{.*}} : memref<1x2x1x4xf32, strided<[32, 16, 4, 1], offset: 4>>, memref<1x2x1x4xf32, #accel.mem<"spm">>
func.func @main(%x: tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32> {
  %w = relay.constant dense<0.5> : tensor<2x2x3x1xf32>
  %c = relay.nn.conv2d %x, %w {padding = [1, 0, 1, 0]} : (tensor<1x2x4x4xf32>, tensor<2x2x3x1xf32>) -> tensor<1x2x4x4xf32>
  %p = relay.nn.pad %c {pad_width = [0, 0, 0, 0, 1, 1, 0, 0], pad_mode = "reflect"} : (tensor<1x2x4x4xf32>) -> tensor<1x2x6x4xf32>
  %w2 = relay.constant dense<0.25> : tensor<2x2x3x1xf32>
  %y = relay.nn.conv2d %p, %w2 : (tensor<1x2x6x4xf32>, tensor<2x2x3x1xf32>) -> tensor<1x2x4x4xf32>
  func.return %y : tensor<1x2x4x4xf32>
}
