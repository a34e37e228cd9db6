// widen-host-floats: host ops on f16/bf16 compute in f32, one cast per narrow value,
// each result stored back rounded; casts, and the storage-only types' data movement, stay.
// RUN: accel-opt %s --split-input-file -p widen-host-floats | filecheck %s

// CHECK-LABEL: func.func @main
// CHECK-NEXT:    %0 = relay.cast %x : tensor<4xf16> -> tensor<4xf32>
// CHECK-NEXT:    %1 = relay.sigmoid %0 : tensor<4xf32>
// CHECK-NEXT:    %y = relay.cast %1 : tensor<4xf32> -> tensor<4xf16>
// CHECK-NEXT:    %2 = relay.cast %y : tensor<4xf16> -> tensor<4xf32>
// CHECK-NEXT:    %3 = relay.add %2, %0 : tensor<4xf32>
// CHECK-NEXT:    %z = relay.cast %3 : tensor<4xf32> -> tensor<4xf16>
// CHECK-NEXT:    %b = relay.cast %z : tensor<4xf16> -> tensor<4xbf16>
// CHECK-NEXT:    %4 = relay.cast %b : tensor<4xbf16> -> tensor<4xf32>
// CHECK-NEXT:    %c = relay.less %4, %4 : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
// CHECK-NEXT:    %w = relay.cast %x : tensor<4xf16> -> tensor<4xf8E4M3FN>
// CHECK-NEXT:    %t = relay.reshape %w {newshape = [2, 2]} : (tensor<4xf8E4M3FN>) -> tensor<2x2xf8E4M3FN>
// CHECK-NEXT:    func.return %b, %c, %t
func.func @main(%x: tensor<4xf16>) -> (tensor<4xbf16>, tensor<4xi1>, tensor<2x2xf8E4M3FN>) {
  %y = relay.sigmoid %x : tensor<4xf16>
  %z = relay.add %y, %x : tensor<4xf16>
  %b = relay.cast %z : tensor<4xf16> -> tensor<4xbf16>
  %c = relay.less %b, %b : (tensor<4xbf16>, tensor<4xbf16>) -> tensor<4xi1>
  %w = relay.cast %x : tensor<4xf16> -> tensor<4xf8E4M3FN>
  %t = relay.reshape %w {newshape = [2, 2]} : (tensor<4xf8E4M3FN>) -> tensor<2x2xf8E4M3FN>
  func.return %b, %c, %t : tensor<4xbf16>, tensor<4xi1>, tensor<2x2xf8E4M3FN>
}

// -----

// An accelerator region is not the host's: left alone.
// CHECK-LABEL: func.func @npu_0
// CHECK-NEXT:    %y = relay.nn.relu %x : tensor<4xf16>
func.func @npu_0(%x: tensor<4xf16>) -> tensor<4xf16> attributes {accel.target = "npu"} {
  %y = relay.nn.relu %x : tensor<4xf16>
  func.return %y : tensor<4xf16>
}
