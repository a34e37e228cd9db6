// split-wide-layers: float convolutions and dense layers with more output (input) channels
// than the npu's entries take (1,024 for convolutions, 4,096 for dense) as layers over
// slices of their output channels, concatenated (input channels, summed).
// RUN: accel-opt %s --split-input-file --target npu -p split-wide-layers | filecheck %s
// RUN: accel-opt %s --split-input-file --target npu -p 'byoc{cost-model=false}' | filecheck %s --check-prefix=BYOC

// A classifier head's 512 -> 1280 1x1 convolution with its bias (RapidOCR's orientation
// model): two slices of 640 channels, each with its bias; partitioned (the cost rule off:
// alone, the weight-bound head is not worth a region), one npu region.
// CHECK-LABEL: func.func @head
// CHECK:         %[[W0:.*]] = relay.constant dense<5.000000e-01> : tensor<640x512x1x1xf32>
// CHECK-NEXT:    %[[C0:.*]] = relay.nn.conv2d %x, %[[W0]] : (tensor<1x512x1x1xf32>, tensor<640x512x1x1xf32>) -> tensor<1x640x1x1xf32>
// CHECK-NEXT:    %[[B0:.*]] = relay.constant dense<2.500000e-01> : tensor<640xf32>
// CHECK-NEXT:    %[[A0:.*]] = relay.nn.bias_add %[[C0]], %[[B0]]
// CHECK-NEXT:    %[[W1:.*]] = relay.constant dense<5.000000e-01> : tensor<640x512x1x1xf32>
// CHECK-NEXT:    %[[C1:.*]] = relay.nn.conv2d %x, %[[W1]]
// CHECK-NEXT:    %[[B1:.*]] = relay.constant dense<2.500000e-01> : tensor<640xf32>
// CHECK-NEXT:    %[[A1:.*]] = relay.nn.bias_add %[[C1]], %[[B1]]
// CHECK-NEXT:    %y = relay.concatenate %[[A0]], %[[A1]] {axis = 1} : (tensor<1x640x1x1xf32>, tensor<1x640x1x1xf32>) -> tensor<1x1280x1x1xf32>
// BYOC-LABEL: func.func @head
// BYOC-NEXT:    %y = func.call @npu_0(%x)
// BYOC-NEXT:    func.return
func.func @head(%x: tensor<1x512x1x1xf32>) -> tensor<1x1280x1x1xf32> {
  %w = relay.constant dense<0.5> : tensor<1280x512x1x1xf32>
  %b = relay.constant dense<0.25> : tensor<1280xf32>
  %c = relay.nn.conv2d %x, %w : (tensor<1x512x1x1xf32>, tensor<1280x512x1x1xf32>) -> tensor<1x1280x1x1xf32>
  %y = relay.nn.bias_add %c, %b : (tensor<1x1280x1x1xf32>, tensor<1280xf32>) -> tensor<1x1280x1x1xf32>
  func.return %y : tensor<1x1280x1x1xf32>
}

// -----

// A text recognizer's character classifier over 6,625 classes: two dense slices of 3,313
// and 3,312 along the last axis.
// CHECK-LABEL: func.func @classes
// CHECK:         relay.nn.dense %x, %{{.*}} : (tensor<40x8xf32>, tensor<3313x8xf32>) -> tensor<40x3313xf32>
// CHECK:         relay.nn.dense %x, %{{.*}} : (tensor<40x8xf32>, tensor<3312x8xf32>) -> tensor<40x3312xf32>
// CHECK:         %y = relay.concatenate %{{.*}}, %{{.*}} {axis = 1} : (tensor<40x3313xf32>, tensor<40x3312xf32>) -> tensor<40x6625xf32>
func.func @classes(%x: tensor<40x8xf32>) -> tensor<40x6625xf32> {
  %w = relay.constant dense<0.5> : tensor<6625x8xf32>
  %y = relay.nn.dense %x, %w : (tensor<40x8xf32>, tensor<6625x8xf32>) -> tensor<40x6625xf32>
  func.return %y : tensor<40x6625xf32>
}

// -----

// ResNet-50's last stage, 2048 -> 512: the sum of the convs over two slices of 1,024 input
// channels (each a channel slice of the data), the bias on the last.
// CHECK-LABEL: func.func @inputs
// CHECK:         %[[S0:.*]] = relay.strided_slice %x {begin = [0], end = [1024], axes = [1]} : (tensor<1x2048x7x7xf32>) -> tensor<1x1024x7x7xf32>
// CHECK-NEXT:    %[[W0:.*]] = relay.constant dense<5.000000e-01> : tensor<512x1024x1x1xf32>
// CHECK-NEXT:    %[[C0:.*]] = relay.nn.conv2d %[[S0]], %[[W0]]
// CHECK-NEXT:    %[[S1:.*]] = relay.strided_slice %x {begin = [1024], end = [2048], axes = [1]}
// CHECK-NEXT:    %[[W1:.*]] = relay.constant dense<5.000000e-01> : tensor<512x1024x1x1xf32>
// CHECK-NEXT:    %[[C1:.*]] = relay.nn.conv2d %[[S1]], %[[W1]]
// CHECK-NEXT:    %[[B:.*]] = relay.nn.bias_add %[[C1]], %b
// CHECK-NEXT:    %y = relay.add %[[B]], %[[C0]] : tensor<1x512x7x7xf32>
func.func @inputs(%x: tensor<1x2048x7x7xf32>) -> tensor<1x512x7x7xf32> {
  %w = relay.constant dense<0.5> : tensor<512x2048x1x1xf32>
  %b = relay.constant dense<0.25> : tensor<512xf32>
  %c = relay.nn.conv2d %x, %w : (tensor<1x2048x7x7xf32>, tensor<512x2048x1x1xf32>) -> tensor<1x512x7x7xf32>
  %y = relay.nn.bias_add %c, %b : (tensor<1x512x7x7xf32>, tensor<512xf32>) -> tensor<1x512x7x7xf32>
  func.return %y : tensor<1x512x7x7xf32>
}

// -----

// Left alone: over the limit in both (one split would leave the other over it), a grouped
// convolution, a weight computed at run time, and a layer the user put on the host.
// CHECK-LABEL: func.func @left_alone
// CHECK-NOT:     relay.concatenate
// CHECK:         relay.nn.dense %x, %k : (tensor<2x5000xf32>, tensor<5000x5000xf32>) -> tensor<2x5000xf32>
// CHECK:         relay.nn.conv2d %g, %gw {groups = 2}
// CHECK:         relay.nn.dense %z, %r : (tensor<2x4xf32>, tensor<5000x4xf32>) -> tensor<2x5000xf32>
// CHECK:         relay.nn.dense %z, %m {accel.target = "host"}
func.func @left_alone(%x: tensor<2x5000xf32>, %g: tensor<1x4x2x2xf32>, %z: tensor<2x4xf32>, %r: tensor<5000x4xf32>) -> (tensor<2x5000xf32>, tensor<1x1200x2x2xf32>, tensor<2x5000xf32>, tensor<2x5000xf32>) {
  %k = relay.constant dense<0.5> : tensor<5000x5000xf32>
  %a = relay.nn.dense %x, %k : (tensor<2x5000xf32>, tensor<5000x5000xf32>) -> tensor<2x5000xf32>
  %gw = relay.constant dense<0.5> : tensor<1200x2x1x1xf32>
  %b = relay.nn.conv2d %g, %gw {groups = 2} : (tensor<1x4x2x2xf32>, tensor<1200x2x1x1xf32>) -> tensor<1x1200x2x2xf32>
  %c = relay.nn.dense %z, %r : (tensor<2x4xf32>, tensor<5000x4xf32>) -> tensor<2x5000xf32>
  %m = relay.constant dense<0.5> : tensor<5000x4xf32>
  %d = relay.nn.dense %z, %m {accel.target = "host"} : (tensor<2x4xf32>, tensor<5000x4xf32>) -> tensor<2x5000xf32>
  func.return %a, %b, %c, %d : tensor<2x5000xf32>, tensor<1x1200x2x2xf32>, tensor<2x5000xf32>, tensor<2x5000xf32>
}

// -----

// An int8 head of a QDQ model (weights per output channel), 512 -> 1280 with its bias, a
// ReLU and the quantize: two slices of 640 channels, each the dequantize of its weight
// rows (and of their scales and zero points), its bias rows, the ReLU and the quantize;
// the int8 slices concatenated. Partitioned: one npu region (two qconv2d_bias_relu).
// CHECK-LABEL: func.func @int8_head
// CHECK:         %[[W0:.*]] = relay.constant dense<3> : tensor<640x512x1x1xi8>
// CHECK-NEXT:    %[[S0:.*]] = relay.constant dense<{{.*}}> : tensor<640xf32>
// CHECK-NEXT:    %[[Z0:.*]] = relay.constant dense<0> : tensor<640xi8>
// CHECK-NEXT:    %[[D0:.*]] = relay.qnn.dequantize %[[W0]], %[[S0]], %[[Z0]] {axis = 0}
// CHECK-NEXT:    %[[C0:.*]] = relay.nn.conv2d %xf, %[[D0]] : (tensor<1x512x1x1xf32>, tensor<640x512x1x1xf32>) -> tensor<1x640x1x1xf32>
// CHECK-NEXT:    %[[B0:.*]] = relay.constant dense<7> : tensor<640xi32>
// CHECK-NEXT:    %[[BS0:.*]] = relay.constant dense<{{.*}}> : tensor<640xf32>
// CHECK-NEXT:    %[[BZ0:.*]] = relay.constant dense<0> : tensor<640xi32>
// CHECK-NEXT:    %[[BD0:.*]] = relay.qnn.dequantize %[[B0]], %[[BS0]], %[[BZ0]] {axis = 0}
// CHECK-NEXT:    %[[A0:.*]] = relay.nn.bias_add %[[C0]], %[[BD0]]
// CHECK-NEXT:    %[[R0:.*]] = relay.nn.relu %[[A0]] : tensor<1x640x1x1xf32>
// CHECK-NEXT:    %[[Q0:.*]] = relay.qnn.quantize %[[R0]], %ys, %yz : (tensor<1x640x1x1xf32>, tensor<f32>, tensor<i8>) -> tensor<1x640x1x1xi8>
// CHECK:         %[[Q1:.*]] = relay.qnn.quantize %{{.*}}, %ys, %yz : (tensor<1x640x1x1xf32>, tensor<f32>, tensor<i8>) -> tensor<1x640x1x1xi8>
// CHECK-NEXT:    %y = relay.concatenate %[[Q0]], %[[Q1]] {axis = 1} : (tensor<1x640x1x1xi8>, tensor<1x640x1x1xi8>) -> tensor<1x1280x1x1xi8>
// CHECK-NOT:     relay.nn.conv2d
// BYOC-LABEL: func.func @int8_head
// BYOC-NEXT:    %y = func.call @npu_0(%x)
// BYOC-NEXT:    func.return
// BYOC:         relay.composite "npu.qconv2d_bias_relu"
// BYOC:         relay.composite "npu.qconv2d_bias_relu"
// BYOC:         relay.concatenate
func.func @int8_head(%x: tensor<1x512x1x1xi8>) -> tensor<1x1280x1x1xi8> {
  %xs = relay.constant dense<0.05> : tensor<f32>
  %xz = relay.constant dense<0> : tensor<i8>
  %xf = relay.qnn.dequantize %x, %xs, %xz : (tensor<1x512x1x1xi8>, tensor<f32>, tensor<i8>) -> tensor<1x512x1x1xf32>
  %wq = relay.constant dense<3> : tensor<1280x512x1x1xi8>
  %ws = relay.constant dense<0.01> : tensor<1280xf32>
  %wz = relay.constant dense<0> : tensor<1280xi8>
  %wf = relay.qnn.dequantize %wq, %ws, %wz {axis = 0} : (tensor<1280x512x1x1xi8>, tensor<1280xf32>, tensor<1280xi8>) -> tensor<1280x512x1x1xf32>
  %bq = relay.constant dense<7> : tensor<1280xi32>
  %bs = relay.constant dense<0.0005> : tensor<1280xf32>
  %bz = relay.constant dense<0> : tensor<1280xi32>
  %bf = relay.qnn.dequantize %bq, %bs, %bz {axis = 0} : (tensor<1280xi32>, tensor<1280xf32>, tensor<1280xi32>) -> tensor<1280xf32>
  %c = relay.nn.conv2d %xf, %wf : (tensor<1x512x1x1xf32>, tensor<1280x512x1x1xf32>) -> tensor<1x1280x1x1xf32>
  %a = relay.nn.bias_add %c, %bf : (tensor<1x1280x1x1xf32>, tensor<1280xf32>) -> tensor<1x1280x1x1xf32>
  %r = relay.nn.relu %a : tensor<1x1280x1x1xf32>
  %ys = relay.constant dense<0.1> : tensor<f32>
  %yz = relay.constant dense<-128> : tensor<i8>
  %y = relay.qnn.quantize %r, %ys, %yz : (tensor<1x1280x1x1xf32>, tensor<f32>, tensor<i8>) -> tensor<1x1280x1x1xi8>
  func.return %y : tensor<1x1280x1x1xi8>
}

// -----

// An int8 layer with too many input channels (ResNet-50's 2048 -> 512 in a QDQ model):
// int8 slices would round their partial sums, so the slices are float layers on the
// dequantized data's channel slices with the dequantized weight's columns (constants:
// 3 * 0.05), summed, the dequantized bias (7 * 0.0005) on the last, then the quantize;
// partitioned, one npu region (its dequantize and quantize on the device).
// CHECK-LABEL: func.func @int8_inputs
// CHECK:         %[[S0:.*]] = relay.strided_slice %xf {begin = [0], end = [1024], axes = [1]} : (tensor<1x2048x1x1xf32>) -> tensor<1x1024x1x1xf32>
// CHECK-NEXT:    %[[W0:.*]] = relay.constant dense<1.500000e-01> : tensor<16x1024x1x1xf32>
// CHECK-NEXT:    %[[C0:.*]] = relay.nn.conv2d %[[S0]], %[[W0]]
// CHECK-NEXT:    %[[S1:.*]] = relay.strided_slice %xf {begin = [1024], end = [2048], axes = [1]}
// CHECK-NEXT:    %[[W1:.*]] = relay.constant dense<1.500000e-01> : tensor<16x1024x1x1xf32>
// CHECK-NEXT:    %[[C1:.*]] = relay.nn.conv2d %[[S1]], %[[W1]]
// CHECK-NEXT:    %[[B:.*]] = relay.nn.bias_add %[[C1]], %[[BIAS:.*]] : (tensor<1x16x1x1xf32>, tensor<16xf32>)
// CHECK-NEXT:    %[[SUM:.*]] = relay.add %[[B]], %[[C0]] : tensor<1x16x1x1xf32>
// CHECK-NEXT:    %y = relay.qnn.quantize %[[SUM]], %s, %z
// CHECK-NOT:     relay.qnn.dequantize %wq
// BYOC-LABEL: func.func @int8_inputs
// BYOC-NEXT:    %y = func.call @npu_0(%x)
// BYOC-NEXT:    func.return
func.func @int8_inputs(%x: tensor<1x2048x1x1xi8>) -> tensor<1x16x1x1xi8> {
  %s = relay.constant dense<0.05> : tensor<f32>
  %z = relay.constant dense<0> : tensor<i8>
  %xf = relay.qnn.dequantize %x, %s, %z : (tensor<1x2048x1x1xi8>, tensor<f32>, tensor<i8>) -> tensor<1x2048x1x1xf32>
  %wq = relay.constant dense<3> : tensor<16x2048x1x1xi8>
  %wf = relay.qnn.dequantize %wq, %s, %z : (tensor<16x2048x1x1xi8>, tensor<f32>, tensor<i8>) -> tensor<16x2048x1x1xf32>
  %bq = relay.constant dense<7> : tensor<16xi32>
  %bs = relay.constant dense<0.0005> : tensor<16xf32>
  %bz = relay.constant dense<0> : tensor<16xi32>
  %bf = relay.qnn.dequantize %bq, %bs, %bz {axis = 0} : (tensor<16xi32>, tensor<16xf32>, tensor<16xi32>) -> tensor<16xf32>
  %c = relay.nn.conv2d %xf, %wf : (tensor<1x2048x1x1xf32>, tensor<16x2048x1x1xf32>) -> tensor<1x16x1x1xf32>
  %a = relay.nn.bias_add %c, %bf : (tensor<1x16x1x1xf32>, tensor<16xf32>) -> tensor<1x16x1x1xf32>
  %y = relay.qnn.quantize %a, %s, %z : (tensor<1x16x1x1xf32>, tensor<f32>, tensor<i8>) -> tensor<1x16x1x1xi8>
  func.return %y : tensor<1x16x1x1xi8>
}

// -----

// int8 layers left alone: no quantize after the layer (its float result is read), weights
// quantized along their input channels.
// CHECK-LABEL: func.func @int8_left_alone
// CHECK-NOT:     relay.concatenate
// CHECK:         relay.nn.conv2d %vf, %uf : (tensor<1x8x1x1xf32>, tensor<1280x8x1x1xf32>) -> tensor<1x1280x1x1xf32>
// CHECK:         relay.nn.conv2d %vf, %tf : (tensor<1x8x1x1xf32>, tensor<1280x8x1x1xf32>) -> tensor<1x1280x1x1xf32>
func.func @int8_left_alone(%v: tensor<1x8x1x1xi8>) -> (tensor<1x1280x1x1xf32>, tensor<1x1280x1x1xi8>) {
  %s = relay.constant dense<0.05> : tensor<f32>
  %z = relay.constant dense<0> : tensor<i8>
  %vf = relay.qnn.dequantize %v, %s, %z : (tensor<1x8x1x1xi8>, tensor<f32>, tensor<i8>) -> tensor<1x8x1x1xf32>
  %uq = relay.constant dense<3> : tensor<1280x8x1x1xi8>
  %uf = relay.qnn.dequantize %uq, %s, %z : (tensor<1280x8x1x1xi8>, tensor<f32>, tensor<i8>) -> tensor<1280x8x1x1xf32>
  %u = relay.nn.conv2d %vf, %uf : (tensor<1x8x1x1xf32>, tensor<1280x8x1x1xf32>) -> tensor<1x1280x1x1xf32>
  %tq = relay.constant dense<3> : tensor<1280x8x1x1xi8>
  %ts = relay.constant dense<0.01> : tensor<8xf32>
  %tz = relay.constant dense<0> : tensor<8xi8>
  %tf = relay.qnn.dequantize %tq, %ts, %tz {axis = 1} : (tensor<1280x8x1x1xi8>, tensor<8xf32>, tensor<8xi8>) -> tensor<1280x8x1x1xf32>
  %t = relay.nn.conv2d %vf, %tf : (tensor<1x8x1x1xf32>, tensor<1280x8x1x1xf32>) -> tensor<1x1280x1x1xf32>
  %q = relay.qnn.quantize %t, %s, %z : (tensor<1x1280x1x1xf32>, tensor<f32>, tensor<i8>) -> tensor<1x1280x1x1xi8>
  func.return %u, %q : tensor<1x1280x1x1xf32>, tensor<1x1280x1x1xi8>
}
