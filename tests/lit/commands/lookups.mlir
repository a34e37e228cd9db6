// RUN: accel-opt %s --target npu-cmd -p "byoc{cost-model=false},lower" -t commands | filecheck %s
// RUN: accel-opt %s --target %S/../../../examples/targets/stripe/stripe.toml -p "byoc{cost-model=false}" | filecheck %s --check-prefix=STRIPE

// An int8 hard-swish between a dequantize and a quantize (tabulate-activations: a lookup
// in a table of its 256 values) is one `qeltwise` command of kind lut on npu-cmd, its
// table a 256-word array of the stream's data section (as per-channel scales are).
// CHECK-LABEL: // ===== npu_cmd_0.bin (npu-cmd) =====
// CHECK-NEXT:  header {{.*}} data_bytes=1024
// CHECK:          2: qeltwise eltwise_kind=lut x=0 rhs=none y=256 count=256 {{.*}} table=data+0 table_len=256
// CHECK:       data 1024 bytes: 0x00000000 0x00000001 0x00000001 0x00000002
// stripe's `eltwise_q8` command has no table: no lookup is made for it; the activation
// (expanded: multiply, add, clip, multiply) runs in float on stripe between its
// conversion commands.
// STRIPE-NOT:  relay.take
// STRIPE:      func.func private @stripe_0
// STRIPE:        relay.qnn.dequantize %q, %s, %z
// STRIPE:        relay.clip
// STRIPE:        relay.qnn.quantize
// STRIPE-NOT:  relay.take
func.func @main(%q: tensor<1x4x8x8xi8>) -> tensor<1x4x8x8xi8> {
  %s = relay.constant dense<0.05> : tensor<f32>
  %z = relay.constant dense<0> : tensor<i8>
  %d = relay.qnn.dequantize %q, %s, %z : (tensor<1x4x8x8xi8>, tensor<f32>, tensor<i8>) -> tensor<1x4x8x8xf32>
  %h = relay.nn.hardswish %d : tensor<1x4x8x8xf32>
  %y = relay.qnn.quantize %h, %s, %z : (tensor<1x4x8x8xf32>, tensor<f32>, tensor<i8>) -> tensor<1x4x8x8xi8>
  func.return %y : tensor<1x4x8x8xi8>
}
