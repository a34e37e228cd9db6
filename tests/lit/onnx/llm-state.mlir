// The opset 24-28 ops of language models that carry state (compiler/frontend/onnx/ops_llm_state.py),
// composed from relay's own ops: SwiGLU a silu (alpha 1) or sigmoid product; TensorScatter without
// write indices slices and concatenation, with run-time ones (circular) a gather of the update at
// (s - w) mod M and a where; CausalConvWithState the past state concatenated before the grouped
// conv2d of the column, its new state a slice; LinearAttention unrolled over its two tokens (the
// first token without a past state has no decay product and no read of the state).

// RUN: %python %S/Inputs/make_model.py llm_state %t.onnx
// RUN: accel-opt %t.onnx | filecheck %s
// CHECK:        %0 = relay.nn.silu %a : tensor<2x4xf32>
// CHECK-NEXT:   %glu = relay.multiply %0, %b : tensor<2x4xf32>
// CHECK-NEXT:   %1 = relay.constant dense<5.000000e-01> : tensor<f32>
// CHECK-NEXT:   %2 = relay.multiply %a, %1
// CHECK-NEXT:   %3 = relay.sigmoid %2
// CHECK-NEXT:   %4 = relay.multiply %a, %3
// CHECK-NEXT:   %glu_half = relay.multiply %4, %b
// CHECK-NEXT:   %5 = relay.strided_slice %cache {begin = [2], end = [6], axes = [1]} : (tensor<2x6x3xf32>) -> tensor<2x4x3xf32>
// CHECK-NEXT:   %prefill = relay.concatenate %upd, %5 {axis = 1} : (tensor<2x2x3xf32>, tensor<2x4x3xf32>) -> tensor<2x6x3xf32>
// CHECK-NEXT:   %6 = relay.constant dense<{{\[\[\[}}0], [1], [2], [3], [4], [5]]]> : tensor<1x6x1xi64>
// CHECK-NEXT:   %7 = relay.reshape %pos {newshape = [2, 1, 1]}
// CHECK-NEXT:   %8 = relay.subtract %6, %7 : (tensor<1x6x1xi64>, tensor<2x1x1xi64>) -> tensor<2x6x1xi64>
// CHECK:        %11 = relay.divide %8, %10
// CHECK:        %16 = relay.where %14, %15, %13
// CHECK:        %18 = relay.less %16, %17
// CHECK-NEXT:   %19 = relay.where %18, %16, %9
// CHECK-NEXT:   %20 = relay.broadcast_to %19 {shape = [2, 6, 3]} : (tensor<2x6x1xi64>) -> tensor<2x6x3xi64>
// CHECK-NEXT:   %21 = relay.gather %upd, %20 {axis = 1} : (tensor<2x2x3xf32>, tensor<2x6x3xi64>) -> tensor<2x6x3xf32>
// CHECK-NEXT:   %decode = relay.where %18, %21, %cache
// CHECK-NEXT:   %22 = relay.concatenate %past, %x {axis = 2} : (tensor<1x3x2xf32>, tensor<1x3x5xf32>) -> tensor<1x3x7xf32>
// CHECK-NEXT:   %23 = relay.reshape %22 {newshape = [1, 3, 7, 1]}
// CHECK-NEXT:   %cw = relay.constant dense<{{.*}}> : tensor<3x1x3x1xf32>
// CHECK-NEXT:   %24 = relay.nn.conv2d %23, %cw {groups = 3} : (tensor<1x3x7x1xf32>, tensor<3x1x3x1xf32>) -> tensor<1x3x5x1xf32>
// CHECK-NEXT:   %cb = relay.constant
// CHECK-NEXT:   %25 = relay.nn.bias_add %24, %cb
// CHECK-NEXT:   %26 = relay.reshape %25 {newshape = [1, 3, 5]}
// CHECK-NEXT:   %conv = relay.nn.silu %26 : tensor<1x3x5xf32>
// CHECK-NEXT:   %state = relay.strided_slice %22 {begin = [5], end = [7], axes = [2]} : (tensor<1x3x7xf32>) -> tensor<1x3x2xf32>
// CHECK-NEXT:   %27 = relay.reshape %q {newshape = [1, 2, 1, 2, 4]}
// CHECK-NEXT:   %28 = relay.constant dense<5.000000e-01> : tensor<f32>
// CHECK-NEXT:   %29 = relay.multiply %27, %28
// CHECK:        %33 = relay.exp %32 : tensor<1x2x1x1x1xf32>
// CHECK-COUNT-2: relay.nn.batch_matmul
// CHECK:        %s = relay.add %55, %65 : tensor<1x1x4x4xf32>
// CHECK:        %68 = relay.nn.batch_matmul %67, %s {transpose_b = false} : (tensor<1x1x2x4xf32>, tensor<1x1x4x4xf32>) -> tensor<1x1x2x4xf32>
// CHECK-NEXT:   %69 = relay.reshape %68 {newshape = [1, 1, 8]}
// CHECK-NEXT:   %att = relay.concatenate %48, %69 {axis = 1} : (tensor<1x1x8xf32>, tensor<1x1x8xf32>) -> tensor<1x2x8xf32>
// CHECK-NEXT:   func.return %glu, %glu_half, %prefill, %decode, %conv, %state, %att, %s

// What cannot be imported: one line naming the node.
// RUN: %python %S/Inputs/make_model.py llm_state_bad_scatter_mode %t.b1.onnx
// RUN: not accel-opt %t.b1.onnx 2>&1 | filecheck %s --check-prefix=MODE
// MODE: accel-opt: {{.*}}b1.onnx: error: node 'bad_scatter' (TensorScatter): mode 'ring' is not one of linear, circular
// MODE-NOT: {{.}}
// RUN: %python %S/Inputs/make_model.py llm_state_bad_scatter_long %t.b2.onnx
// RUN: not accel-opt %t.b2.onnx 2>&1 | filecheck %s --check-prefix=LONG
// LONG: error: node 'bad_scatter' (TensorScatter): update [2, 7, 3] must have past_cache's shape [2, 6, 3] except along axis 1, where it may be shorter
// LONG-NOT: {{.}}
// RUN: %python %S/Inputs/make_model.py llm_state_bad_conv_activation %t.b3.onnx
// RUN: not accel-opt %t.b3.onnx 2>&1 | filecheck %s --check-prefix=ACT
// ACT: error: node 'bad_conv' (CausalConvWithState): activation 'gelu' is not one of none, silu, swish
// ACT-NOT: {{.}}
// RUN: %python %S/Inputs/make_model.py llm_state_bad_conv_weight %t.b4.onnx
// RUN: not accel-opt %t.b4.onnx 2>&1 | filecheck %s --check-prefix=WEIGHT
// WEIGHT: error: node 'bad_conv' (CausalConvWithState): weight [3, 2, 3] must be [3, 1, k] (depthwise)
// WEIGHT-NOT: {{.}}
// RUN: %python %S/Inputs/make_model.py llm_state_bad_attention_beta %t.b5.onnx
// RUN: not accel-opt %t.b5.onnx 2>&1 | filecheck %s --check-prefix=BETA
// BETA: error: node 'bad_att' (LinearAttention): update_rule 'delta' needs the beta input
// BETA-NOT: {{.}}
// RUN: %python %S/Inputs/make_model.py llm_state_bad_attention_heads %t.b6.onnx
// RUN: not accel-opt %t.b6.onnx 2>&1 | filecheck %s --check-prefix=HEADS
// HEADS: error: node 'bad_att' (LinearAttention): q_num_heads 3 must be a positive multiple of kv_num_heads 2
// HEADS-NOT: {{.}}
