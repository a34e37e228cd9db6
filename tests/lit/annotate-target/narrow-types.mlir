// The narrow element types reach no accelerator that does not list them: the npu lists
// f32 and i8/ui8, so ops on bf16, f16 and float8 values stay on the host, with the reason.
// RUN: accel-opt %s -p annotate-target --target npu | filecheck %s

// CHECK: relay.nn.relu %x {accel.target = "host", accel.reason = "npu: element type bf16 not supported (supported: i8, ui8) | element type bf16 not supported (supported: f32)"} : tensor<1x8xbf16>
// CHECK: relay.nn.relu %y {accel.target = "host", accel.reason = "npu: element type f16 not supported (supported: i8, ui8) | element type f16 not supported (supported: f32)"} : tensor<1x8xf16>
// CHECK: relay.cast %q {accel.target = "host", accel.reason = "npu: op not supported"} : tensor<1x8xf8E4M3FN> -> tensor<1x8xf32>
// CHECK: relay.nn.relu %c {accel.target = "npu"} : tensor<1x8xf32>
func.func @main(%x: tensor<1x8xbf16>, %y: tensor<1x8xf16>, %q: tensor<1x8xf8E4M3FN>) -> (tensor<1x8xbf16>, tensor<1x8xf16>, tensor<1x8xf32>) {
  %a = relay.nn.relu %x : tensor<1x8xbf16>
  %b = relay.nn.relu %y : tensor<1x8xf16>
  %c = relay.cast %q : tensor<1x8xf8E4M3FN> -> tensor<1x8xf32>
  %d = relay.nn.relu %c : tensor<1x8xf32>
  func.return %a, %b, %d : tensor<1x8xbf16>, tensor<1x8xf16>, tensor<1x8xf32>
}
