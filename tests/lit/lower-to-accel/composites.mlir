// RUN: accel-opt %s --split-input-file --target %S/Inputs/cnn.toml -p merge-composite,annotate-target | filecheck %s --check-prefix=BYOC
// RUN: accel-opt %s --split-input-file --target %S/Inputs/cnn.toml -p 'byoc{cost-model=false},bufferize,lower-to-accel' | filecheck %s
// RUN: accel-opt %s --split-input-file --target %S/Inputs/cnn.toml -p 'byoc{cost-model=false},lower' | filecheck %s --check-prefix=DMA
// RUN: accel-opt %s --split-input-file --target %S/Inputs/cnn.toml -p full -t c | filecheck %s --check-prefix=C

// A composite whose body is several fused forms (the user pattern conv2d -> bias ->
// relu -> max_pool2d) lowers to consecutive compute ops; the value between them is a
// fresh buffer.
// BYOC:           relay.composite "cnn.conv2d_bias_relu_maxpool" (%x, %w, %b) {accel.target = "cnn"}
// CHECK-LABEL:  func.func private @cnn_0
// CHECK:          %[[T:.*]] = memref.alloc() : memref<1x4x6x6xf32>
// CHECK-NEXT:     accel.conv2d ins(%x, %{{.*}}, %{{.*}} : memref<1x2x6x6xf32>, memref<4x2x3x3xf32>, memref<4xf32>) outs(%[[T]] : memref<1x4x6x6xf32>) {padding = [1, 1, 1, 1], activation = "relu"}
// CHECK-NEXT:     accel.pool ins(%[[T]] : memref<1x4x6x6xf32>) outs(%out0 : memref<1x4x3x3xf32>) {pool_size = [2, 2], strides = [2, 2]}
// CHECK-NEXT:     func.return
// The intermediate stays in the scratchpad: three transfers in (data, weights, bias),
// one out, none between the two compute ops.
// DMA-LABEL:    func.func private @cnn_0
// DMA-COUNT-3:    accel.dma_start %{{.*}} : memref<{{[0-9x]+}}xf32>, memref<{{[0-9x]+}}xf32, #accel.mem<"spm">>
// DMA:            accel.conv2d
// DMA-NOT:        accel.dma_start
// DMA:            accel.pool
// DMA-NEXT:       accel.dma_start %{{.*}}, %out0 : memref<1x4x3x3xf32, #accel.mem<"spm">>, memref<1x4x3x3xf32>
// DMA-NOT:        accel.dma_start
// DMA:            func.return
// `-p full -t c`: one wrapper calls both kernels of the simulator, spm to spm.
// C-LABEL:        ===== cnn_wrappers.c =====
// C:              npu_conv2d_f32({{.*}}, ((float *)(spm + [[T:[0-9]+]])), &p{{[0-9]+}}) != 0) return 1;
// C-NEXT:         npu_pool2d_f32(((float *)(spm + [[T]])), {{.*}}) != 0) return 1;
// C-NEXT:         npu_dma_to_host(
func.func @main(%x: tensor<1x2x6x6xf32>) -> tensor<1x4x3x3xf32> {
  %w = relay.constant dense<0.5> : tensor<4x2x3x3xf32>
  %b = relay.constant dense<[1.0, -1.0, 2.0, -2.0]> : tensor<4xf32>
  %c = relay.nn.conv2d %x, %w {padding = [1, 1, 1, 1]} : (tensor<1x2x6x6xf32>, tensor<4x2x3x3xf32>) -> tensor<1x4x6x6xf32>
  %d = relay.nn.bias_add %c, %b : (tensor<1x4x6x6xf32>, tensor<4xf32>) -> tensor<1x4x6x6xf32>
  %r = relay.nn.relu %d : tensor<1x4x6x6xf32>
  %p = relay.nn.max_pool2d %r {pool_size = [2, 2], strides = [2, 2]} : (tensor<1x4x6x6xf32>) -> tensor<1x4x3x3xf32>
  func.return %p : tensor<1x4x3x3xf32>
}

// -----

// An int8 body splits where a fused form ends, at the quantize -> dequantize boundary:
// an int8 conv (bias, relu, output quantization) then an int8 pool that reads its int8
// result with the same quantization.
// BYOC:           relay.composite "cnn.qconv2d_bias_relu_maxpool"
// CHECK-LABEL:  func.func private @cnn_0
// CHECK:          %[[T:.*]] = memref.alloc() : memref<1x4x8x8xi8>
// CHECK-NEXT:     accel.conv2d ins(%x, %{{.*}}, %{{.*}} : memref<1x4x8x8xi8>, memref<4x4x3x3xi8>, memref<4xi32>) outs(%[[T]] : memref<1x4x8x8xi8>)
// CHECK-SAME:       padding = [1, 1, 1, 1], activation = "relu", input_zero_point = 3, in_scale = [0.0010000000474974513], out_scale = 0.25, output_zero_point = -5
// CHECK-NEXT:     accel.pool ins(%[[T]] : memref<1x4x8x8xi8>) outs(%out0 : memref<1x4x4x4xi8>)
// CHECK-SAME:       pool_size = [2, 2], strides = [2, 2], input_zero_point = -5, in_scale = [0.25], out_scale = 0.5, output_zero_point = 1
// CHECK-NEXT:     func.return
// DMA-LABEL:    func.func private @cnn_0
// DMA:            accel.conv2d
// DMA-NOT:        accel.dma_start
// DMA:            accel.pool
// DMA-NEXT:       accel.dma_start
// DMA-NOT:        accel.dma_start
// DMA:            func.return
// C-LABEL:        ===== cnn_wrappers.c =====
// C:              npu_conv2d_s8({{.*}}, ((int8_t *)(spm + [[T:[0-9]+]])), &p{{[0-9]+}}) != 0) return 1;
// C-NEXT:         npu_pool2d_s8(((int8_t *)(spm + [[T]])), {{.*}}) != 0) return 1;
func.func @main(%x: tensor<1x4x8x8xi8>) -> tensor<1x4x4x4xi8> {
  %xs = relay.constant dense<0.1> : tensor<f32>
  %xz = relay.constant dense<3> : tensor<i8>
  %w = relay.constant dense<2> : tensor<4x4x3x3xi8>
  %ws = relay.constant dense<0.01> : tensor<f32>
  %wz = relay.constant dense<0> : tensor<i8>
  %b = relay.constant dense<[10, -20, 10, -20]> : tensor<4xi32>
  %bs = relay.constant dense<0.001> : tensor<f32>
  %bz = relay.constant dense<0> : tensor<i32>
  %ys = relay.constant dense<0.25> : tensor<f32>
  %yz = relay.constant dense<-5> : tensor<i8>
  %ps = relay.constant dense<0.5> : tensor<f32>
  %pz = relay.constant dense<1> : tensor<i8>
  %xf = relay.qnn.dequantize %x, %xs, %xz : (tensor<1x4x8x8xi8>, tensor<f32>, tensor<i8>) -> tensor<1x4x8x8xf32>
  %wf = relay.qnn.dequantize %w, %ws, %wz : (tensor<4x4x3x3xi8>, tensor<f32>, tensor<i8>) -> tensor<4x4x3x3xf32>
  %bf = relay.qnn.dequantize %b, %bs, %bz : (tensor<4xi32>, tensor<f32>, tensor<i32>) -> tensor<4xf32>
  %c = relay.nn.conv2d %xf, %wf {padding = [1, 1, 1, 1]} : (tensor<1x4x8x8xf32>, tensor<4x4x3x3xf32>) -> tensor<1x4x8x8xf32>
  %d = relay.nn.bias_add %c, %bf : (tensor<1x4x8x8xf32>, tensor<4xf32>) -> tensor<1x4x8x8xf32>
  %r = relay.nn.relu %d : tensor<1x4x8x8xf32>
  %q = relay.qnn.quantize %r, %ys, %yz : (tensor<1x4x8x8xf32>, tensor<f32>, tensor<i8>) -> tensor<1x4x8x8xi8>
  %qf = relay.qnn.dequantize %q, %ys, %yz : (tensor<1x4x8x8xi8>, tensor<f32>, tensor<i8>) -> tensor<1x4x8x8xf32>
  %p = relay.nn.max_pool2d %qf {pool_size = [2, 2], strides = [2, 2]} : (tensor<1x4x8x8xf32>) -> tensor<1x4x4x4xf32>
  %y = relay.qnn.quantize %p, %ps, %pz : (tensor<1x4x4x4xf32>, tensor<f32>, tensor<i8>) -> tensor<1x4x4x4xi8>
  func.return %y : tensor<1x4x4x4xi8>
}

// -----

// A DAG body: the relu result has two users, so its form ends there and both the pool
// and the add read its buffer; three compute ops, all on the scratchpad.
// BYOC:           relay.composite "cnn.conv2d_relu_pool_add" (%x, %w) {accel.target = "cnn"}
// CHECK-LABEL:  func.func private @cnn_0
// CHECK:          %[[R:.*]] = memref.alloc() : memref<1x8x16x16xf32>
// CHECK-NEXT:     accel.conv2d ins(%x, %{{.*}} : memref<1x8x16x16xf32>, memref<8x8x1x1xf32>) outs(%[[R]] : memref<1x8x16x16xf32>) {activation = "relu"}
// CHECK-NEXT:     %[[P:.*]] = memref.alloc() : memref<1x8x16x16xf32>
// CHECK-NEXT:     accel.pool ins(%[[R]] : memref<1x8x16x16xf32>) outs(%[[P]] : memref<1x8x16x16xf32>) {pool_size = [3, 3], padding = [1, 1, 1, 1]}
// CHECK-NEXT:     accel.eltwise ins(%[[R]], %[[P]] : memref<1x8x16x16xf32>, memref<1x8x16x16xf32>) outs(%out0 : memref<1x8x16x16xf32>)
// CHECK-NEXT:     func.return
// DMA-LABEL:    func.func private @cnn_0
// DMA:            accel.conv2d
// DMA-NOT:        accel.dma_start
// DMA:            accel.eltwise
// DMA-NEXT:       accel.dma_start
// DMA-NOT:        accel.dma_start
// DMA:            func.return
// C-LABEL:        ===== cnn_wrappers.c =====
// C:              npu_conv2d_f32(
// C-NEXT:         npu_pool2d_f32(
// C-NEXT:         npu_eltwise_f32(
func.func @main(%x: tensor<1x8x16x16xf32>) -> tensor<1x8x16x16xf32> {
  %w = relay.constant dense<0.125> : tensor<8x8x1x1xf32>
  %c = relay.nn.conv2d %x, %w : (tensor<1x8x16x16xf32>, tensor<8x8x1x1xf32>) -> tensor<1x8x16x16xf32>
  %r = relay.nn.relu %c : tensor<1x8x16x16xf32>
  %p = relay.nn.max_pool2d %r {pool_size = [3, 3], padding = [1, 1, 1, 1]} : (tensor<1x8x16x16xf32>) -> tensor<1x8x16x16xf32>
  %y = relay.add %r, %p : tensor<1x8x16x16xf32>
  func.return %y : tensor<1x8x16x16xf32>
}
