// An ONNX model is imported, then run; npz keys are the model's input/output names.
// RUN: %python -c "import numpy as np, onnx; from onnx import helper, TensorProto as T; g = helper.make_graph([helper.make_node('Relu', ['in.x'], ['r']), helper.make_node('Mul', ['r', 'two'], ['out:y'])], 'g', [helper.make_tensor_value_info('in.x', T.FLOAT, [2, 2])], [helper.make_tensor_value_info('out:y', T.FLOAT, [2, 2])], [helper.make_tensor('two', T.FLOAT, [], [2.0])]); onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid('', 17)]), '%t.onnx'); np.savez('%t.npz', **{'in.x': np.array([[1, -2], [3, -4]], np.float32)})"
// RUN: accel-run %t.onnx --inputs %t.npz | filecheck %s
// CHECK: out:y = {{\[}}[2.0, 0.0], [6.0, 0.0]] : tensor<2x2xf32>
// RUN: accel-run %t.onnx --inputs %t.npz --outputs %t.out.npz
// RUN: %python -c "import numpy as np; print(np.load('%t.out.npz')['out:y'].tolist())" | filecheck %s --check-prefix=NPZ
// NPZ: {{\[}}[2.0, 0.0], [6.0, 0.0]]

// A broken model is one line.
// RUN: %python -c "open('%t.bad.onnx', 'wb').write(b'not a model')"
// RUN: not accel-run %t.bad.onnx 2>&1 | filecheck %s --check-prefix=BAD
// BAD: accel-run: {{.*}}bad.onnx{{.*}}error: {{.+}}
// BAD-NOT: Traceback
