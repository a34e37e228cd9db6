// RUN: accel-opt %s --split-input-file --target npu -p byoc,bufferize,lower-to-accel | filecheck %s

// conv2d + bias + relu: one accel.conv2d with its bias and fused activation; the
// weights become accel.weight buffers at the top of the region.
// CHECK-LABEL: func.func private @npu_0
// CHECK-NEXT:    %[[W:.*]] = accel.weight dense<{{.*}}> : tensor<4x2x3x3xf32> : memref<4x2x3x3xf32>
// CHECK-NEXT:    %[[B:.*]] = accel.weight dense<{{.*}}> : tensor<4xf32> : memref<4xf32>
// CHECK-NEXT:    memref.alloc() : memref<1x4x6x6xf32>
// CHECK-NEXT:    accel.conv2d ins(%{{.*}}, %[[W]], %[[B]] : memref<1x2x6x6xf32>, memref<4x2x3x3xf32>, memref<4xf32>) outs(%{{.*}} : memref<1x4x6x6xf32>) {padding = [1, 1, 1, 1], activation = "relu"}
// CHECK-NEXT:    accel.pool ins({{.*}}) outs({{.*}}) {pool_size = [2, 2], strides = [2, 2]}
// CHECK-NEXT:    func.return
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

// The int8 QDQ form becomes an integer conv: int32 bias, per-channel in_scale =
// f32(s_x * s_w[c]), output scale and zero point.
// CHECK-LABEL: func.func private @npu_0
// CHECK:         accel.conv2d ins(%{{.*}}, %{{.*}}, %{{.*}} : memref<1x8x16x16xi8>, memref<8x8x3x3xi8>, memref<8xi32>) outs(%{{.*}} : memref<1x8x16x16xi8>)
// CHECK-SAME:    padding = [1, 1, 1, 1], input_zero_point = 3, in_scale = [0.010000000707805157, 0.020000001415610313, 0.010000000707805157, 0.020000001415610313, 0.010000000707805157, 0.020000001415610313, 0.010000000707805157, 0.020000001415610313], out_scale = 0.25, output_zero_point = -5
func.func @main(%x: tensor<1x8x16x16xi8>) -> tensor<1x8x16x16xi8> {
  %xs = relay.constant dense<0.1> : tensor<f32>
  %xz = relay.constant dense<3> : tensor<i8>
  %w = relay.constant dense<2> : tensor<8x8x3x3xi8>
  %ws = relay.constant dense<[0.1, 0.2, 0.1, 0.2, 0.1, 0.2, 0.1, 0.2]> : tensor<8xf32>
  %wz = relay.constant dense<0> : tensor<8xi8>
  %b = relay.constant dense<[10, -20, 10, -20, 10, -20, 10, -20]> : tensor<8xi32>
  %bs = relay.constant dense<[0.01, 0.02, 0.01, 0.02, 0.01, 0.02, 0.01, 0.02]> : tensor<8xf32>
  %bz = relay.constant dense<0> : tensor<8xi32>
  %ys = relay.constant dense<0.25> : tensor<f32>
  %yz = relay.constant dense<-5> : tensor<i8>
  %xf = relay.qnn.dequantize %x, %xs, %xz : (tensor<1x8x16x16xi8>, tensor<f32>, tensor<i8>) -> tensor<1x8x16x16xf32>
  %wf = relay.qnn.dequantize %w, %ws, %wz {axis = 0} : (tensor<8x8x3x3xi8>, tensor<8xf32>, tensor<8xi8>) -> tensor<8x8x3x3xf32>
  %bf = relay.qnn.dequantize %b, %bs, %bz {axis = 0} : (tensor<8xi32>, tensor<8xf32>, tensor<8xi32>) -> tensor<8xf32>
  %c = relay.nn.conv2d %xf, %wf {padding = [1, 1, 1, 1]} : (tensor<1x8x16x16xf32>, tensor<8x8x3x3xf32>) -> tensor<1x8x16x16xf32>
  %d = relay.nn.bias_add %c, %bf : (tensor<1x8x16x16xf32>, tensor<8xf32>) -> tensor<1x8x16x16xf32>
  %y = relay.qnn.quantize %d, %ys, %yz : (tensor<1x8x16x16xf32>, tensor<f32>, tensor<i8>) -> tensor<1x8x16x16xi8>
  func.return %y : tensor<1x8x16x16xi8>
}
