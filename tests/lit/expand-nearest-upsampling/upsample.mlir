// expand-nearest-upsampling: nearest resizes by whole factors, which the npu does not run,
// as concatenations it copies on its device (each input written with strides).
// RUN: accel-opt %s --split-input-file --target npu -p expand-nearest-upsampling | filecheck %s
// RUN: accel-opt %s --split-input-file --target npu -p byoc | filecheck %s --check-prefix=BYOC

// A feature pyramid's 2x upsampling after a conv: columns, then rows; partitioned, one npu
// region.
// CHECK-LABEL: func.func @fpn
// CHECK:         %0 = relay.reshape %c {newshape = [32, 4, 1]} : (tensor<1x8x4x4xf32>) -> tensor<32x4x1xf32>
// CHECK-NEXT:    %1 = relay.concatenate %0, %0 {axis = 2} : (tensor<32x4x1xf32>, tensor<32x4x1xf32>) -> tensor<32x4x2xf32>
// CHECK-NEXT:    %2 = relay.reshape %1 {newshape = [32, 1, 8]} : (tensor<32x4x2xf32>) -> tensor<32x1x8xf32>
// CHECK-NEXT:    %3 = relay.concatenate %2, %2 {axis = 1} : (tensor<32x1x8xf32>, tensor<32x1x8xf32>) -> tensor<32x2x8xf32>
// CHECK-NEXT:    %y = relay.reshape %3 {newshape = [1, 8, 8, 8]} : (tensor<32x2x8xf32>) -> tensor<1x8x8x8xf32>
// BYOC-LABEL: func.func @fpn
// BYOC-NEXT:    %y = func.call @npu_0(%x)
// BYOC-NEXT:    func.return
func.func @fpn(%x: tensor<1x3x6x6xf32>) -> tensor<1x8x8x8xf32> {
  %w = relay.constant dense<0.5> : tensor<8x3x3x3xf32>
  %c = relay.nn.conv2d %x, %w : (tensor<1x3x6x6xf32>, tensor<8x3x3x3xf32>) -> tensor<1x8x4x4xf32>
  %y = relay.image.resize2d %c {size = [8, 8], scale_h = 2.0, scale_w = 2.0, coordinate_transformation_mode = "asymmetric", nearest_mode = "floor"} : (tensor<1x8x4x4xf32>) -> tensor<1x8x8x8xf32>
  func.return %y : tensor<1x8x8x8xf32>
}

// -----

// QDQ (int8 data dequantized, resized, quantized again with the same scale and zero point):
// the int8 data is repeated, the dequantize and quantize cancel. Rows only (3x, half-pixel).
// CHECK-LABEL: func.func @qdq_rows
// CHECK-NEXT:    %0 = relay.reshape %q {newshape = [8, 1, 5]} : (tensor<1x2x4x5xi8>) -> tensor<8x1x5xi8>
// CHECK-NEXT:    %1 = relay.concatenate %0, %0, %0 {axis = 1} : (tensor<8x1x5xi8>, tensor<8x1x5xi8>, tensor<8x1x5xi8>) -> tensor<8x3x5xi8>
// CHECK-NEXT:    %r = relay.reshape %1 {newshape = [1, 2, 12, 5]} : (tensor<8x3x5xi8>) -> tensor<1x2x12x5xi8>
// CHECK-NEXT:    func.return %r
func.func @qdq_rows(%q: tensor<1x2x4x5xi8>) -> tensor<1x2x12x5xi8> {
  %s = relay.constant dense<0.25> : tensor<f32>
  %z = relay.constant dense<-4> : tensor<i8>
  %d = relay.qnn.dequantize %q, %s, %z : (tensor<1x2x4x5xi8>, tensor<f32>, tensor<i8>) -> tensor<1x2x4x5xf32>
  %u = relay.image.resize2d %d {size = [12, 5]} : (tensor<1x2x4x5xf32>) -> tensor<1x2x12x5xf32>
  %r = relay.qnn.quantize %u, %s, %z : (tensor<1x2x12x5xf32>, tensor<f32>, tensor<i8>) -> tensor<1x2x12x5xi8>
  func.return %r : tensor<1x2x12x5xi8>
}

// -----

// Left alone: a bilinear resize, a nearest resize by 1.5 (not whole), and a nearest 2x
// whose sampling is not a repeat (tf_half_pixel_for_nn rounds output cell 1 to input 1).
// CHECK-LABEL: func.func @left_alone
// CHECK-NOT:     relay.concatenate
// CHECK:         relay.image.resize2d %x {size = [8, 8], method = "linear"}
// CHECK:         relay.image.resize2d %x {size = [6, 6]}
// CHECK:         relay.image.resize2d %x {size = [8, 8], coordinate_transformation_mode = "tf_half_pixel_for_nn"}
func.func @left_alone(%x: tensor<1x2x4x4xf32>) -> (tensor<1x2x8x8xf32>, tensor<1x2x6x6xf32>, tensor<1x2x8x8xf32>) {
  %a = relay.image.resize2d %x {size = [8, 8], method = "linear"} : (tensor<1x2x4x4xf32>) -> tensor<1x2x8x8xf32>
  %b = relay.image.resize2d %x {size = [6, 6]} : (tensor<1x2x4x4xf32>) -> tensor<1x2x6x6xf32>
  %c = relay.image.resize2d %x {size = [8, 8], coordinate_transformation_mode = "tf_half_pixel_for_nn"} : (tensor<1x2x4x4xf32>) -> tensor<1x2x8x8xf32>
  func.return %a, %b, %c : tensor<1x2x8x8xf32>, tensor<1x2x6x6xf32>, tensor<1x2x8x8xf32>
}
