// onnxruntime's saved fusions (com.microsoft) import as the relay ops they fused: a
// FusedConv is conv, bias and its activation; a FusedMatMul with transB a transposed weight
// and a scaled product; SkipLayerNormalization the sum (an output too) and its layer norm;
// Attention three products (its packed weights split, with their biases), heads first,
// scaled scores, softmax, heads merged.
// RUN: %python %S/Inputs/make_model.py ort_fused %t.onnx
// RUN: accel-opt %t.onnx | filecheck %s
// CHECK:      relay.nn.conv2d %x, %w {padding = [1, 1, 1, 1]}
// CHECK-NEXT: relay.constant
// CHECK-NEXT: relay.nn.bias_add
// CHECK-NEXT: %c = relay.nn.relu
// CHECK:      relay.transpose %m {axes = [1, 0]}
// CHECK-NEXT: relay.nn.batch_matmul %r
// CHECK-NEXT: relay.constant dense<5.000000e-01>
// CHECK-NEXT: %t = relay.multiply
// CHECK-NEXT: %sum = relay.add %t, %r
// CHECK:      %n = relay.nn.layer_norm %sum
// CHECK-COUNT-3: relay.nn.batch_matmul %n, %{{.*}} : (tensor<1x2x4xf32>, tensor<4x4xf32>) -> tensor<1x2x4xf32>
// CHECK:      relay.transpose %{{.*}} {axes = [0, 2, 1, 3]}
// CHECK:      relay.constant dense<0.707106769>
// CHECK:      relay.nn.softmax
// CHECK:      func.return %y, %sum

// What no converter takes is one line.
// RUN: %python %S/Inputs/make_model.py foreign_domain %t.foreign.onnx
// RUN: not accel-opt %t.foreign.onnx 2>&1 | filecheck %s --check-prefix=UNKNOWN
// UNKNOWN: accel-opt: {{.*}}foreign.onnx: error: node 'fused_2' (GroupNorm): ops of domain 'com.microsoft' are not supported
