// expand-pads: pads that the npu does not run (none folds into a conv here) as slices of
// their input and constant blocks, concatenated: copies on its device.
// RUN: accel-opt %s --split-input-file --target npu -p expand-pads | filecheck %s
// RUN: accel-opt %s --split-input-file --target npu -p byoc | filecheck %s --check-prefix=BYOC

// A reflection pad of rows (1, 1) and columns (2, 2): rows first, then the columns of
// the padded rows (the corners as numpy's); a slice used on both sides is made once.
// CHECK-LABEL: func.func @reflect
// CHECK-NEXT:    %0 = relay.strided_slice %x {begin = [1], end = [2], axes = [2]} : (tensor<1x2x4x4xf32>) -> tensor<1x2x1x4xf32>
// CHECK-NEXT:    %1 = relay.strided_slice %x {begin = [2], end = [3], axes = [2]} : (tensor<1x2x4x4xf32>) -> tensor<1x2x1x4xf32>
// CHECK-NEXT:    %2 = relay.concatenate %0, %x, %1 {axis = 2} : (tensor<1x2x1x4xf32>, tensor<1x2x4x4xf32>, tensor<1x2x1x4xf32>) -> tensor<1x2x6x4xf32>
// CHECK-NEXT:    %3 = relay.strided_slice %2 {begin = [2], end = [3], axes = [3]} : (tensor<1x2x6x4xf32>) -> tensor<1x2x6x1xf32>
// CHECK-NEXT:    %4 = relay.strided_slice %2 {begin = [1], end = [2], axes = [3]} : (tensor<1x2x6x4xf32>) -> tensor<1x2x6x1xf32>
// CHECK-NEXT:    %y = relay.concatenate %3, %4, %2, %3, %4 {axis = 3} : (tensor<1x2x6x1xf32>, tensor<1x2x6x1xf32>, tensor<1x2x6x4xf32>, tensor<1x2x6x1xf32>, tensor<1x2x6x1xf32>) -> tensor<1x2x6x8xf32>
// CHECK-NEXT:    func.return %y
func.func @reflect(%x: tensor<1x2x4x4xf32>) -> tensor<1x2x6x8xf32> {
  %y = relay.nn.pad %x {pad_width = [0, 0, 0, 0, 1, 1, 2, 2], pad_mode = "reflect"} : (tensor<1x2x4x4xf32>) -> tensor<1x2x6x8xf32>
  func.return %y : tensor<1x2x6x8xf32>
}

// -----

// A generator's reflection pad, conv and relu: one npu region.
// CHECK-LABEL: func.func @generator
// CHECK-NOT:     relay.nn.pad
// BYOC-LABEL: func.func @generator
// BYOC-NEXT:    %r = func.call @npu_0(%x)
// BYOC-NEXT:    func.return
func.func @generator(%x: tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32> {
  %p = relay.nn.pad %x {pad_width = [0, 0, 0, 0, 1, 1, 1, 1], pad_mode = "reflect"} : (tensor<1x4x8x8xf32>) -> tensor<1x4x10x10xf32>
  %w = relay.constant dense<0.5> : tensor<4x4x3x3xf32>
  %c = relay.nn.conv2d %p, %w : (tensor<1x4x10x10xf32>, tensor<4x4x3x3xf32>) -> tensor<1x4x8x8xf32>
  %r = relay.nn.relu %c : tensor<1x4x8x8xf32>
  func.return %r : tensor<1x4x8x8xf32>
}

// -----

// Edge: the edge column repeated (one slice, twice); wrap: the last three columns before,
// the first after (consecutive rows are one slice); constant: one block of the pad value.
// CHECK-LABEL: func.func @edge_wrap_constant
// CHECK-NEXT:    %0 = relay.strided_slice %x {begin = [0], end = [1], axes = [1]} : (tensor<2x5xf32>) -> tensor<2x1xf32>
// CHECK-NEXT:    %1 = relay.strided_slice %x {begin = [4], end = [5], axes = [1]} : (tensor<2x5xf32>) -> tensor<2x1xf32>
// CHECK-NEXT:    %a = relay.concatenate %0, %0, %x, %1 {axis = 1} : (tensor<2x1xf32>, tensor<2x1xf32>, tensor<2x5xf32>, tensor<2x1xf32>) -> tensor<2x8xf32>
// CHECK-NEXT:    %2 = relay.strided_slice %x {begin = [2], end = [5], axes = [1]} : (tensor<2x5xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:    %3 = relay.strided_slice %x {begin = [0], end = [1], axes = [1]} : (tensor<2x5xf32>) -> tensor<2x1xf32>
// CHECK-NEXT:    %b = relay.concatenate %2, %x, %3 {axis = 1} : (tensor<2x3xf32>, tensor<2x5xf32>, tensor<2x1xf32>) -> tensor<2x9xf32>
// CHECK-NEXT:    %4 = relay.constant dense<-1.500000e+00> : tensor<1x5xf32>
// CHECK-NEXT:    %c = relay.concatenate %4, %x, %4 : (tensor<1x5xf32>, tensor<2x5xf32>, tensor<1x5xf32>) -> tensor<4x5xf32>
// CHECK-NEXT:    func.return %a, %b, %c
func.func @edge_wrap_constant(%x: tensor<2x5xf32>) -> (tensor<2x8xf32>, tensor<2x9xf32>, tensor<4x5xf32>) {
  %a = relay.nn.pad %x {pad_width = [0, 0, 2, 1], pad_mode = "edge"} : (tensor<2x5xf32>) -> tensor<2x8xf32>
  %b = relay.nn.pad %x {pad_width = [0, 0, 3, 1], pad_mode = "wrap"} : (tensor<2x5xf32>) -> tensor<2x9xf32>
  %c = relay.nn.pad %x {pad_width = [1, 1, 0, 0], pad_value = -1.5 : f64} : (tensor<2x5xf32>) -> tensor<4x5xf32>
  func.return %a, %b, %c : tensor<2x8xf32>, tensor<2x9xf32>, tensor<4x5xf32>
}

// -----

// QDQ (dequantize, pad, quantize of the same scale): the int8 data is padded, the
// dequantize and quantize cancel; the dequantize stays for its other reader.
// CHECK-LABEL: func.func @qdq
// CHECK:         %d = relay.qnn.dequantize %q, %s, %z
// CHECK-NEXT:    %0 = relay.strided_slice %q {begin = [1], end = [2], axes = [2]} : (tensor<1x2x3x3xi8>) -> tensor<1x2x1x3xi8>
// CHECK-NEXT:    %r = relay.concatenate %0, %q, %0 {axis = 2} : (tensor<1x2x1x3xi8>, tensor<1x2x3x3xi8>, tensor<1x2x1x3xi8>) -> tensor<1x2x5x3xi8>
// CHECK-NEXT:    %e = relay.exp %d
func.func @qdq(%q: tensor<1x2x3x3xi8>) -> (tensor<1x2x5x3xi8>, tensor<1x2x3x3xf32>) {
  %s = relay.constant dense<0.25> : tensor<f32>
  %z = relay.constant dense<-4> : tensor<i8>
  %d = relay.qnn.dequantize %q, %s, %z : (tensor<1x2x3x3xi8>, tensor<f32>, tensor<i8>) -> tensor<1x2x3x3xf32>
  %p = relay.nn.pad %d {pad_width = [0, 0, 0, 0, 1, 1, 0, 0], pad_mode = "reflect"} : (tensor<1x2x3x3xf32>) -> tensor<1x2x5x3xf32>
  %r = relay.qnn.quantize %p, %s, %z : (tensor<1x2x5x3xf32>, tensor<f32>, tensor<i8>) -> tensor<1x2x5x3xi8>
  %e = relay.exp %d : tensor<1x2x3x3xf32>
  func.return %r, %e : tensor<1x2x5x3xi8>, tensor<1x2x3x3xf32>
}

// -----

// Left alone: a rank-5 pad (the npu's concatenation stops at rank 4) and a pad of nothing.
// CHECK-LABEL: func.func @left_alone
// CHECK-NOT:     relay.concatenate
// CHECK:         relay.nn.pad %x {pad_width = [0, 0, 0, 0, 0, 0, 1, 1, 1, 1], pad_mode = "edge"}
// CHECK-NEXT:    relay.nn.pad %y {pad_width = [0, 0, 0, 0], pad_mode = "reflect"}
// BYOC-LABEL: func.func @left_alone
// BYOC:         relay.nn.pad %x {{.*}} accel.reason = "npu: op not supported"
func.func @left_alone(%x: tensor<1x1x1x2x2xf32>, %y: tensor<2x2xf32>) -> (tensor<1x1x1x4x4xf32>, tensor<2x2xf32>) {
  %a = relay.nn.pad %x {pad_width = [0, 0, 0, 0, 0, 0, 1, 1, 1, 1], pad_mode = "edge"} : (tensor<1x1x1x2x2xf32>) -> tensor<1x1x1x4x4xf32>
  %b = relay.nn.pad %y {pad_width = [0, 0, 0, 0], pad_mode = "reflect"} : (tensor<2x2xf32>) -> tensor<2x2xf32>
  func.return %a, %b : tensor<1x1x1x4x4xf32>, tensor<2x2xf32>
}
