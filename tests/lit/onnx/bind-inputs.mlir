// --bind-inputs NAME=VALUE,... (or an .npz) turns graph inputs into constants at import:
// shape, axes and pads inputs then import, and the bound inputs leave @main's signature.

// RUN: %python %S/Inputs/make_model.py shape_inputs %t.onnx
// RUN: accel-opt %t.onnx --bind-inputs 'shape=[3,4],uaxes=[0],pads=[0,1,0,0,1,2],raxes=[0],saxes=[0]' | filecheck %s
// CHECK:      func.func @main(%x: tensor<2x6xf32> {accel.name = "x"}) -> (tensor<5x6xf32> {accel.name = "y"}) {
// CHECK-NEXT:   %r = relay.reshape %x {newshape = [3, 4]} : (tensor<2x6xf32>) -> tensor<3x4xf32>
// CHECK-NEXT:   %u = relay.reshape %r {newshape = [1, 3, 4]} : (tensor<3x4xf32>) -> tensor<1x3x4xf32>
// CHECK-NEXT:   %p = relay.nn.pad %u {pad_width = [0, 0, 1, 1, 0, 2]} : (tensor<1x3x4xf32>) -> tensor<1x5x6xf32>
// CHECK-NEXT:   %m = relay.mean %p {axis = [0], keepdims = true} : (tensor<1x5x6xf32>) -> tensor<1x5x6xf32>
// CHECK-NEXT:   %y = relay.reshape %m {newshape = [5, 6]} : (tensor<1x5x6xf32>) -> tensor<5x6xf32>

// The same from an .npz archive, and through accel-compile and accel-run (model file and
// compiled directory give the same numbers).
// RUN: %python -c "import numpy as np; np.savez('%t.bind.npz', shape=np.array([3, 4]), uaxes=np.array([0]), pads=np.array([0, 1, 0, 0, 1, 2]), raxes=np.array([0]), saxes=np.array([0])); np.savez('%t.in.npz', x=np.arange(12, dtype=np.float32).reshape(2, 6))"
// RUN: accel-opt %t.onnx --bind-inputs %t.bind.npz | filecheck %s
// RUN: rm -rf %t.dir && accel-compile %t.onnx --target npu -o %t.dir -q --bind-inputs %t.bind.npz
// RUN: filecheck %s --check-prefix=IO < %t.dir/io.json
// IO:     "inputs": [
// IO-NEXT:  {
// IO-NEXT:   "name": "x",
// IO:     "outputs": [
// RUN: accel-run %t.dir --inputs %t.in.npz | filecheck %s --check-prefix=OUT
// RUN: accel-run %t.onnx --bind-inputs 'shape=[3,4],uaxes=[0],pads=[0,1,0,0,1,2],raxes=[0],saxes=[0]' --inputs %t.in.npz | filecheck %s --check-prefix=OUT
// OUT: y = [[0.0, 0.0, 0.0, 0.0, 0.0, 0.0], [0.0, 1.0, 2.0, 3.0, 0.0, 0.0], {{.*}}] : {{float32 \[5, 6\]|tensor<5x6xf32>}}

// An input that must be constant and is not bound says how to bind it; bad bindings are
// one line each.
// RUN: not accel-opt %t.onnx --bind-inputs 'shape=[3,4]' 2>&1 | filecheck %s --check-prefix=UNBOUND
// UNBOUND: accel-opt: {{.*}}.onnx: error: node 'unsqueeze' (Unsqueeze): the axes input ('uaxes') must be a constant; it is a graph input: bind it with --bind-inputs uaxes=VALUE
// UNBOUND-NOT: {{.}}
// RUN: not accel-opt %t.onnx --bind-inputs 'shapes=[3,4]' 2>&1 | filecheck %s --check-prefix=NAME
// NAME: accel-opt: {{.*}}.onnx: error: --bind-inputs: the model has no graph input 'shapes' (its inputs: x, shape, uaxes, pads, raxes, saxes)
// NAME-NOT: {{.}}
// RUN: not accel-opt %t.onnx --bind-inputs 'shape=[3,4,1]' 2>&1 | filecheck %s --check-prefix=SIZE
// SIZE: accel-opt: {{.*}}.onnx: error: --bind-inputs: input 'shape' has shape [2] (2 elements), the value [3] has 3
// SIZE-NOT: {{.}}
// RUN: not accel-opt %t.onnx --bind-inputs 'shape=[3.5,4]' 2>&1 | filecheck %s --check-prefix=INTEGRAL
// INTEGRAL: accel-opt: {{.*}}.onnx: error: --bind-inputs: input 'shape' is int64, but its value [3.5, 4.0] is not integral
// INTEGRAL-NOT: {{.}}
// RUN: not accel-opt %t.onnx --bind-inputs 'shape=[3,four]' 2>&1 | filecheck %s --check-prefix=VALUE
// VALUE: accel-opt: error: --bind-inputs: the value of 'shape' ('[3,four]') must be a number or a [list] of numbers
// VALUE-NOT: {{.}}
// RUN: not accel-opt %t.onnx --bind-inputs 'shape=[3,4' 2>&1 | filecheck %s --check-prefix=BRACKET
// BRACKET: accel-opt: error: --bind-inputs: unbalanced '[' in 'shape=[3,4'
// RUN: not accel-opt %t.onnx --bind-inputs 'shape=[3,4],shape=[4,3]' 2>&1 | filecheck %s --check-prefix=TWICE
// TWICE: accel-opt: error: --bind-inputs: input 'shape' is bound twice
// RUN: not accel-compile %t.onnx --target npu -o %t.bad --bind-inputs missing.npz 2>&1 | filecheck %s --check-prefix=NPZ
// NPZ: accel-compile: error: --bind-inputs: 'missing.npz' is neither NAME=VALUE entries nor an existing .npz file
// NPZ-NOT: {{.}}
// RUN: not accel-run %t.dir --bind-inputs 'shape=[3,4]' --inputs %t.in.npz 2>&1 | filecheck %s --check-prefix=DIR
// DIR: accel-run: error: {{.*}}.dir: --bind-inputs and --input-shapes apply to a model file; a compiled directory took them when it was compiled
