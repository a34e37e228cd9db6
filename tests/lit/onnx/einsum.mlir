// ONNX Einsum (compiler/frontend/onnx/ops_einsum.py): attention scores are the batch_matmul
// MatMul imports QKᵀ as (transpose_b, no transpose of k); a linear layer on a constant
// [in, out] weight is MatMul's batch_matmul, which canonicalize makes a dense layer; a
// diagonal is a take of the flattened matrix; an outer product a broadcast multiply; a
// letter of no operand's partner and not in the output a sum.

// RUN: %python %S/Inputs/make_model.py einsum %t.onnx
// RUN: accel-opt %t.onnx | filecheck %s
// CHECK:        %scores = relay.nn.batch_matmul %q, %k : (tensor<1x2x3x4xf32>, tensor<1x2x5x4xf32>) -> tensor<1x2x3x5xf32>
// CHECK-NEXT:   %w = relay.constant external "w" : tensor<4x6xf32>
// CHECK-NEXT:   %lin = relay.nn.batch_matmul %x, %w {transpose_b = false} : (tensor<2x3x4xf32>, tensor<4x6xf32>) -> tensor<2x3x6xf32>
// CHECK-NEXT:   %0 = relay.reshape %m {newshape = [9]}
// CHECK-NEXT:   %1 = relay.constant dense<[0, 4, 8]> : tensor<3xi64>
// CHECK-NEXT:   %diag = relay.take %0, %1 : (tensor<9xf32>, tensor<3xi64>) -> tensor<3xf32>
// CHECK-NEXT:   %2 = relay.reshape %a {newshape = [2, 3, 1]}
// CHECK-NEXT:   %3 = relay.reshape %c {newshape = [2, 1, 4]}
// CHECK-NEXT:   %outer = relay.multiply %2, %3 : (tensor<2x3x1xf32>, tensor<2x1x4xf32>) -> tensor<2x3x4xf32>
// CHECK-NEXT:   %total = relay.sum %x {axis = [1, 2]} : (tensor<2x3x4xf32>) -> tensor<2xf32>

// RUN: accel-opt %t.onnx -p canonicalize | filecheck %s --check-prefix=CANON
// CANON:        %lin = relay.reshape %x {newshape = [6, 4]}
// CANON-NEXT:   %lin_1 = relay.nn.dense %lin, %{{.*}} : (tensor<6x4xf32>, tensor<6x4xf32>) -> tensor<6x6xf32>

// A letter whose sizes do not broadcast: one line naming the node.
// RUN: %python %S/Inputs/make_model.py einsum_bad_sizes %t.bad.onnx
// RUN: not accel-opt %t.bad.onnx 2>&1 | filecheck %s --check-prefix=BAD
// BAD: accel-opt: {{.*}}bad.onnx: error: node 'bad_einsum' (Einsum): equation 'ij,jk->ik': letter 'j' has sizes 4 and 5, which do not broadcast
// BAD-NOT: {{.}}
