// ai.onnx.preview's FlexAttention (compiler/frontend/onnx/ops_llm_state.py): the scores of the
// grouped heads as one batch_matmul ([B, Hkv, group, L, E] against [B, Hkv, 1, S, E]), the
// score_mod graph attribute imported in place on them (a soft cap: divide, tanh, multiply by the
// subgraph's own initializer), softmax, the product with V.

// RUN: %python %S/Inputs/make_model.py flex_attention %t.onnx
// RUN: accel-opt %t.onnx | filecheck %s
// CHECK:        %0 = relay.constant dense<0.594603539> : tensor<f32>
// CHECK-NEXT:   %1 = relay.multiply %q, %0
// CHECK-NEXT:   %2 = relay.reshape %1 {newshape = [1, 2, 2, 3, 8]}
// CHECK-NEXT:   %3 = relay.multiply %k, %0
// CHECK-NEXT:   %4 = relay.reshape %3 {newshape = [1, 2, 1, 5, 8]}
// CHECK-NEXT:   %5 = relay.nn.batch_matmul %2, %4 : (tensor<1x2x2x3x8xf32>, tensor<1x2x1x5x8xf32>) -> tensor<1x2x2x3x5xf32>
// CHECK-NEXT:   %scores = relay.reshape %5 {newshape = [1, 4, 3, 5]}
// CHECK-NEXT:   %6 = relay.constant dense<3.000000e+01> : tensor<f32>
// CHECK-NEXT:   %d = relay.divide %scores, %6
// CHECK-NEXT:   %t = relay.tanh %d
// CHECK-NEXT:   %capped = relay.multiply %t, %6
// CHECK-NEXT:   %7 = relay.nn.softmax %capped : tensor<1x4x3x5xf32>
// CHECK-NEXT:   %8 = relay.reshape %v {newshape = [1, 2, 1, 5, 6]}
// CHECK-NEXT:   %9 = relay.reshape %7 {newshape = [1, 2, 2, 3, 5]}
// CHECK-NEXT:   %10 = relay.nn.batch_matmul %9, %8 {transpose_b = false} : (tensor<1x2x2x3x5xf32>, tensor<1x2x1x5x6xf32>) -> tensor<1x2x2x3x6xf32>
// CHECK-NEXT:   %y = relay.reshape %10 {newshape = [1, 4, 3, 6]}
// CHECK-NEXT:   func.return %y

// A score_mod that does not keep the scores' shape: one line naming the node.
// RUN: %python %S/Inputs/make_model.py flex_attention_bad %t.bad.onnx
// RUN: not accel-opt %t.bad.onnx 2>&1 | filecheck %s --check-prefix=BAD
// BAD: accel-opt: {{.*}}bad.onnx: error: node 'flex' (FlexAttention): score_mod returns tensor<1x1x1x1xf32>, not its input's type tensor<1x4x3x5xf32>
// BAD-NOT: {{.}}
