// ONNX scans, selection and integer bit ops (compiler/frontend/onnx/ops_scan_bits.py):
// CumSum (GPT-2's position ids from the attention mask) a relay.cumsum; TopK's indices a
// relay.topk and its values a gather at them; ReverseSequence with run-time lengths a
// gather at where(t < len, len - 1 - t, t); Compress of a constant condition a take of
// the kept indices; the bit ops their relay ops; BitCast a relay.reinterpret; Det a relay.det.

// RUN: %python %S/Inputs/make_model.py scan_bits %t.onnx
// RUN: accel-opt %t.onnx | filecheck %s
// CHECK:        %pos = relay.cumsum %mask {axis = 1, exclusive = true} : tensor<2x5xi64>
// CHECK-NEXT:   %top_i = relay.topk %logits {k = 2, axis = 1} : (tensor<2x6xf32>) -> tensor<2x2xi64>
// CHECK-NEXT:   %top = relay.gather %logits, %top_i {axis = 1} : (tensor<2x6xf32>, tensor<2x2xi64>) -> tensor<2x2xf32>
// CHECK-NEXT:   %0 = relay.reshape %lens {newshape = [1, 2]} : (tensor<2xi64>) -> tensor<1x2xi64>
// CHECK-NEXT:   %1 = relay.constant dense<{{\[}}[0], [1], [2], [3]]> : tensor<4x1xi64>
// CHECK-NEXT:   %2 = relay.constant dense<1> : tensor<1x2xi64>
// CHECK-NEXT:   %3 = relay.subtract %0, %2 : tensor<1x2xi64>
// CHECK-NEXT:   %4 = relay.subtract %3, %1 : (tensor<1x2xi64>, tensor<4x1xi64>) -> tensor<4x2xi64>
// CHECK-NEXT:   %5 = relay.less %1, %0 : (tensor<4x1xi64>, tensor<1x2xi64>) -> tensor<4x2xi1>
// CHECK-NEXT:   %6 = relay.where %5, %4, %1 : (tensor<4x2xi1>, tensor<4x2xi64>, tensor<4x1xi64>) -> tensor<4x2xi64>
// CHECK-NEXT:   %rev = relay.gather %seq, %6 : (tensor<4x2xf32>, tensor<4x2xi64>) -> tensor<4x2xf32>
// CHECK-NEXT:   %7 = relay.constant dense<[0, 2, 3]> : tensor<3xi64>
// CHECK-NEXT:   %kept = relay.take %logits, %7 {axis = 1} : (tensor<2x6xf32>, tensor<3xi64>) -> tensor<2x3xf32>
// CHECK-NEXT:   %and = relay.bitwise_and %a, %b : (tensor<2x3xi32>, tensor<3xi32>) -> tensor<2x3xi32>
// CHECK-NEXT:   %shr = relay.right_shift %ua, %ub : tensor<3xui8>
// CHECK-NEXT:   %not = relay.bitwise_not %a : tensor<2x3xi32>
// CHECK-NEXT:   %bits = relay.reinterpret %logits : tensor<2x6xf32> -> tensor<2x6xi32>
// CHECK-NEXT:   %det = relay.det %mats : (tensor<2x3x3xf32>) -> tensor<2xf32>

// The host C code calls the kernels of host_kernels_scan_bits.inc.
// RUN: accel-opt %t.onnx -p canonicalize,bufferize,plan-memory -t c | filecheck %s --check-prefix=C
// C-DAG:  acc_cumulative(ACC_CUMSUM, ACC_I64, {{.*}}, 2, {{.*}}, 1, 1, 0)
// C-DAG:  acc_topk(ACC_F32, {{.*}}, 2, {{.*}}, 1, 2, 0, 1, {{.*}})
// C-DAG:  acc_bitwise(ACC_BIT_AND, ACC_I32,
// C-DAG:  acc_bitwise(ACC_BIT_SHR, ACC_U8,
// C-DAG:  acc_bitwise_not(ACC_I32, {{.*}}, 6)
// C-DAG:  acc_copy({{.*}}, 48)
// C-DAG:  acc_det(ACC_F32, {{.*}}, 2, 3)

// An axis given at run time, and NonZero of a run-time value: one line naming the node.
// RUN: %python %S/Inputs/make_model.py scan_runtime_axis %t.axis.onnx
// RUN: not accel-opt %t.axis.onnx 2>&1 | filecheck %s --check-prefix=AXIS
// AXIS: accel-opt: {{.*}}axis.onnx: error: node 'cumsum' (CumSum): the axis input ('axis') must be a constant; it is a graph input: bind it with --bind-inputs axis=VALUE
// AXIS-NOT: {{.}}
// RUN: %python %S/Inputs/make_model.py nonzero_runtime %t.nz.onnx
// RUN: not accel-opt %t.nz.onnx 2>&1 | filecheck %s --check-prefix=NZ
// NZ: accel-opt: {{.*}}nz.onnx: error: node 'nz' (NonZero): the output shape depends on the input's values: NonZero is supported only on a constant input (folded at import)
// NZ-NOT: {{.}}
