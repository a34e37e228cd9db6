// Every bad model is one line on stderr naming what is wrong, and exit code 1.

// RUN: %python %S/Inputs/make_model.py unsupported_op %t.op.onnx
// RUN: not accel-opt %t.op.onnx 2>&1 | filecheck %s --check-prefix=OP
// OP: accel-opt: {{.*}}op.onnx: error: node 'norm_3' (StringNormalizer): op StringNormalizer (opset 17) is not supported
// OP-NOT: {{.}}

// RUN: %python %S/Inputs/make_model.py bad_attribute %t.attr.onnx
// RUN: not accel-opt %t.attr.onnx 2>&1 | filecheck %s --check-prefix=ATTR
// ATTR: accel-opt: {{.*}}attr.onnx: error: node 'conv_7' (Conv): auto_pad 'SAME_MIDDLE' is not supported
// ATTR-NOT: {{.}}

// RUN: %python %S/Inputs/make_model.py unknown_attribute %t.unknown.onnx
// RUN: not accel-opt %t.unknown.onnx 2>&1 | filecheck %s --check-prefix=UNKNOWN
// UNKNOWN: accel-opt: {{.*}}unknown.onnx: error: node 'relu_9' (Relu): attribute 'slope' is not supported
// UNKNOWN-NOT: {{.}}

// RUN: %python %S/Inputs/make_model.py dynamic_dim %t.dyn.onnx
// RUN: not accel-opt %t.dyn.onnx 2>&1 | filecheck %s --check-prefix=DYN
// DYN: accel-opt: {{.*}}dyn.onnx: error: graph input 'x' has a dynamic dimension 0 ('batch'); give its size with --input-shapes x=?x3 (each ? a size)
// DYN-NOT: {{.}}

// A declared output shape that the graph does not compute is one warning line (and an
// entry of report.json's `warnings`); the computed shape is used (as onnxruntime does)
// and the tools go on.
// RUN: %python %S/Inputs/make_model.py stale_output_shape %t.stale.onnx
// RUN: accel-opt %t.stale.onnx 2>&1 >/dev/null | filecheck %s --check-prefix=STALE
// RUN: accel-opt %t.stale.onnx 2>/dev/null | filecheck %s --check-prefix=STALE-IR
// RUN: rm -rf %t.stale.dir && accel-compile %t.stale.onnx --target npu -o %t.stale.dir -q 2>&1 | filecheck %s --check-prefix=STALE
// STALE: {{accel-opt|accel-compile}}: {{.*}}stale.onnx: warning: graph output 'y' is declared with shape [1, 'seqlen'] but computes [2, 3]; the computed shape is used
// STALE-NOT: {{.}}
// STALE-IR: func.func @main(%x: tensor<2x3xf32> {accel.name = "x"}) -> (tensor<2x3xf32> {accel.name = "y"})
// RUN: filecheck %s --check-prefix=STALE-REPORT < %t.stale.dir/report.json
// STALE-REPORT:      "warnings": [
// STALE-REPORT-NEXT:   "graph output 'y' is declared with shape [1, 'seqlen'] but computes [2, 3]; the computed shape is used"
// STALE-REPORT-NEXT: ]

// RUN: %python %S/Inputs/make_model.py foreign_domain %t.domain.onnx
// RUN: not accel-opt %t.domain.onnx 2>&1 | filecheck %s --check-prefix=DOMAIN
// DOMAIN: accel-opt: {{.*}}domain.onnx: error: node 'fused_2' (GroupNorm): ops of domain 'com.microsoft' are not supported
// DOMAIN-NOT: {{.}}

// RUN: %python %S/Inputs/make_model.py runtime_shape %t.shape.onnx
// RUN: not accel-opt %t.shape.onnx 2>&1 | filecheck %s --check-prefix=SHAPE
// SHAPE: accel-opt: {{.*}}shape.onnx: error: node 'reshape_4' (Reshape): the shape input ('s') must be a constant; it is a graph input: bind it with --bind-inputs s=VALUE
// SHAPE-NOT: {{.}}

// RUN: %python %S/Inputs/make_model.py future_opset %t.opset.onnx
// RUN: not accel-opt %t.opset.onnx 2>&1 | filecheck %s --check-prefix=OPSET
// OPSET: accel-opt: {{.*}}opset.onnx: error: opset 99 of the default domain is newer than the importer supports (9 to 28)
// OPSET-NOT: {{.}}

// A truncated file and a file that is not a model at all.
// RUN: %python -c "data = open('%t.op.onnx', 'rb').read(); open('%t.trunc.onnx', 'wb').write(data[:len(data) // 2])"
// RUN: not accel-opt %t.trunc.onnx 2>&1 | filecheck %s --check-prefix=TRUNC
// TRUNC: accel-opt: {{.*}}trunc.onnx: error: not a valid ONNX model ({{.*}})
// TRUNC-NOT: {{.}}
// RUN: %python -c "open('%t.garbage.onnx', 'w').write('func.func @main() { }')"
// RUN: not accel-opt %t.garbage.onnx 2>&1 | filecheck %s --check-prefix=GARBAGE
// GARBAGE: accel-opt: {{.*}}garbage.onnx: error: not a valid ONNX model ({{.*}})
// GARBAGE-NOT: {{.}}
// RUN: not accel-opt -f onnx < %t.garbage.onnx 2>&1 | filecheck %s --check-prefix=STDIN
// STDIN: accel-opt: <stdin>: error: not a valid ONNX model ({{.*}})

// accel-run reports the same lines.
// RUN: not accel-run %t.op.onnx 2>&1 | filecheck %s --check-prefix=RUNNER
// RUNNER: accel-run: {{.*}}op.onnx: error: node 'norm_3' (StringNormalizer): op StringNormalizer (opset 17) is not supported
// RUNNER-NOT: {{.}}
