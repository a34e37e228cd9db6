// Attention-23 imports as relay's own ops (compiler/frontend/onnx/ops_attention.py): 3-D
// inputs split into heads, the shared key/value head repeated for both query heads
// (grouped-query attention), sqrt(scale) applied to Q and K, the causal mask an additive
// constant, softmax, the product with V and the heads merged back.

// RUN: %python %S/Inputs/make_model.py attention_gqa %t.onnx
// RUN: accel-opt %t.onnx | filecheck %s
// CHECK:        %1 = relay.transpose %0 {axes = [0, 2, 1, 3]} : (tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
// CHECK:        %5 = relay.transpose %4 {axes = [0, 2, 1, 3]} : (tensor<1x2x1x2xf32>) -> tensor<1x1x2x2xf32>
// CHECK-NEXT:   %6 = relay.constant dense<"0x00000000000080FF0000000000000000"> : tensor<2x2xf32>
// CHECK-NEXT:   %7 = relay.reshape %3 {newshape = [1, 1, 1, 2, 2]}
// CHECK-NEXT:   %8 = relay.broadcast_to %7 {shape = [1, 1, 2, 2, 2]}
// CHECK-NEXT:   %9 = relay.reshape %8 {newshape = [1, 2, 2, 2]}
// CHECK:        %13 = relay.constant dense<0.840896428> : tensor<f32>
// CHECK-NEXT:   %14 = relay.multiply %1, %13
// CHECK-NEXT:   %15 = relay.multiply %9, %13
// CHECK-NEXT:   %16 = relay.nn.batch_matmul %14, %15 : (tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
// CHECK-NEXT:   %17 = relay.add %16, %6
// CHECK-NEXT:   %18 = relay.nn.softmax %17
// CHECK-NEXT:   %19 = relay.nn.batch_matmul %18, %12 {transpose_b = false}
// CHECK-NEXT:   %20 = relay.transpose %19 {axes = [0, 2, 1, 3]}
// CHECK-NEXT:   %y = relay.reshape %20 {newshape = [1, 2, 4]} : (tensor<1x2x2x2xf32>) -> tensor<1x2x4xf32>
// CHECK-NOT:    relay.where

// RUN: %python %S/Inputs/make_model.py attention_3d_no_heads %t.noheads.onnx
// RUN: not accel-opt %t.noheads.onnx 2>&1 | filecheck %s --check-prefix=HEADS
// HEADS: accel-opt: {{.*}}noheads.onnx: error: node 'attn' (Attention): 3-D inputs need the q_num_heads and kv_num_heads attributes
// HEADS-NOT: {{.}}
