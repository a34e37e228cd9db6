// The ops of exported language models import as relay ops: MatMulNBits' 4-bit weight is
// dequantized at import into the product's constant; RotaryEmbedding takes each token's
// angles from the caches and rotates the two halves of each head; GroupQueryAttention
// places the new keys after each sequence's past (computed from seqlens_k at run time, by
// a one-hot product), repeats the one kv head for both query heads and masks the keys
// past each query's position.
// RUN: %python %S/Inputs/make_model.py llm_ops %t.onnx
// RUN: accel-opt %t.onnx | filecheck %s
// CHECK:      %[[W:.*]] = relay.constant dense<"0x{{[0-9A-F]+}}"> : tensor<16x16xf32>
// CHECK-NEXT: %q = relay.nn.batch_matmul %x, %[[W]]
// CHECK:      relay.take %cos, %pos : (tensor<8x4xf32>, tensor<1x3xi64>) -> tensor<1x3x4xf32>
// CHECK:      relay.strided_slice %{{.*}} {begin = [0], end = [4], axes = [3]}
// CHECK-NEXT: relay.strided_slice %{{.*}} {begin = [4], end = [8], axes = [3]}
// CHECK:      %[[REAL:.*]] = relay.subtract
// CHECK:      relay.concatenate %[[REAL]], %{{.*}} {axis = 3}
// CHECK:      %[[LEN:.*]] = relay.cast %seqlens_k : tensor<1xi32> -> tensor<1xf32>
// CHECK:      relay.equal {{.*}} -> tensor<1x5x3xi1>
// CHECK:      relay.nn.batch_matmul {{.*}} : (tensor<1x1x5x3xf32>, tensor<1x1x3x8xf32>) -> tensor<1x1x5x8xf32>
// CHECK:      relay.concatenate %pk, %{{.*}} {axis = 2}
// CHECK:      %k2 = relay.add
// CHECK:      relay.broadcast_to %{{.*}} {shape = [1, 1, 2, 5, 8]}
// CHECK:      relay.less_equal {{.*}} -> tensor<1x3x5xi1>
// CHECK:      relay.nn.softmax
// CHECK:      func.return %y, %k2, %v2

// The present length is a shape: total_sequence_length must be known when compiling.
// RUN: %python %S/Inputs/make_model.py llm_runtime_total %t.total.onnx
// RUN: not accel-opt %t.total.onnx 2>&1 | filecheck %s --check-prefix=TOTAL
// TOTAL: accel-opt: {{.*}}total.onnx: error: node 'gqa' (GroupQueryAttention): total_sequence_length ('total') must be a constant; it is a graph input: bind it with --bind-inputs total=VALUE
// TOTAL-NOT: Traceback
