// The narrow element types in relay: f16, bf16, the float8 family, float4, i4/ui4, i2/ui2;
// relay.cast between any two, with ONNX Cast's saturate (float8) and round_mode (f8E8M0FNU).
// RUN: accel-opt %s --split-input-file | filecheck %s

// CHECK-LABEL: func.func @casts
// CHECK-NEXT:    %a = relay.cast %x : tensor<4xf32> -> tensor<4xbf16>
// CHECK-NEXT:    %b = relay.cast %a : tensor<4xbf16> -> tensor<4xf8E4M3FN>
// CHECK-NEXT:    %c = relay.cast %b {saturate = false} : tensor<4xf8E4M3FN> -> tensor<4xf8E5M2FNUZ>
// CHECK-NEXT:    %d = relay.cast %c {round_mode = "nearest"} : tensor<4xf8E5M2FNUZ> -> tensor<4xf8E8M0FNU>
// CHECK-NEXT:    %e = relay.cast %d : tensor<4xf8E8M0FNU> -> tensor<4xf4E2M1FN>
// CHECK-NEXT:    %f = relay.cast %e : tensor<4xf4E2M1FN> -> tensor<4xi4>
// CHECK-NEXT:    %g = relay.cast %f : tensor<4xi4> -> tensor<4xui2>
// CHECK-NEXT:    %h = relay.cast %g : tensor<4xui2> -> tensor<4xf16>
func.func @casts(%x: tensor<4xf32>) -> tensor<4xf16> {
  %a = relay.cast %x : tensor<4xf32> -> tensor<4xbf16>
  %b = relay.cast %a {saturate = true} : tensor<4xbf16> -> tensor<4xf8E4M3FN>
  %c = relay.cast %b {saturate = false} : tensor<4xf8E4M3FN> -> tensor<4xf8E5M2FNUZ>
  %d = relay.cast %c {round_mode = "nearest"} : tensor<4xf8E5M2FNUZ> -> tensor<4xf8E8M0FNU>
  %e = relay.cast %d : tensor<4xf8E8M0FNU> -> tensor<4xf4E2M1FN>
  %f = relay.cast %e : tensor<4xf4E2M1FN> -> tensor<4xi4>
  %g = relay.cast %f : tensor<4xi4> -> tensor<4xui2>
  %h = relay.cast %g : tensor<4xui2> -> tensor<4xf16>
  func.return %h : tensor<4xf16>
}

// -----

// bf16 is a float type of relay's float ops (the host computes it in f32).
// CHECK-LABEL: func.func @bf16_math
// CHECK-NEXT:    %y = relay.sigmoid %x : tensor<2x3xbf16>
// CHECK-NEXT:    %z = relay.add %y, %x : tensor<2x3xbf16>
func.func @bf16_math(%x: tensor<2x3xbf16>) -> tensor<2x3xbf16> {
  %y = relay.sigmoid %x : tensor<2x3xbf16>
  %z = relay.add %y, %x : tensor<2x3xbf16>
  func.return %z : tensor<2x3xbf16>
}
