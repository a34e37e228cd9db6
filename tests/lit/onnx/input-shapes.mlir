// --input-shapes NAME=D0xD1x...,... sizes the dynamic dimensions of graph inputs at import
// (TVM's shape dict, onnxruntime's free dimension overrides): a model exported with
// dynamic axes compiles as it is. Its shape computations then fold (the Reshape's target
// below), a -1 size (paddle2onnx) is dynamic too, an input without a shape takes the
// given one, and a declared output [batch, -1] is checked against what is computed.

// RUN: %python %S/Inputs/make_model.py dynamic_shapes %t.onnx
// RUN: accel-opt %t.onnx --input-shapes x=2x3x8x6,m=2x4,scale=1 | filecheck %s
// CHECK:      func.func @main(%x: tensor<2x3x8x6xf32> {accel.name = "x"}, %m: tensor<2x4xf32> {accel.name = "m"}, %scale: tensor<1xf32> {accel.name = "scale"}) -> (tensor<2x4xf32> {accel.name = "y"}) {
// CHECK:        relay.nn.conv2d %x, %w {padding = [1, 1, 1, 1]} : (tensor<2x3x8x6xf32>, tensor<4x3x3x3xf32>) -> tensor<2x4x8x6xf32>
// CHECK:        %f = relay.reshape %g {newshape = [2, 4]} : (tensor<2x4x1x1xf32>) -> tensor<2x4xf32>

// Another size is another model; accel-compile and accel-run take the option too, and the
// compiled directory computes what the reference interpreter does.
// RUN: accel-opt %t.onnx --input-shapes 'x=1x3x5x7, m=1x4, scale=4' | filecheck %s --check-prefix=ONE
// ONE: func.func @main(%x: tensor<1x3x5x7xf32> {accel.name = "x"}, %m: tensor<1x4xf32> {accel.name = "m"}, %scale: tensor<4xf32> {accel.name = "scale"}) -> (tensor<1x4xf32> {accel.name = "y"}) {
// RUN: %python -c "import numpy as np; r = np.random.default_rng(0); np.savez('%t.in.npz', x=r.standard_normal((2, 3, 8, 6)).astype(np.float32), m=r.standard_normal((2, 4)).astype(np.float32), scale=np.array([0.5], np.float32))"
// RUN: rm -rf %t.dir && accel-compile %t.onnx --target npu -o %t.dir -q --input-shapes x=2x3x8x6,m=2x4,scale=1
// RUN: accel-run %t.dir --inputs %t.in.npz --outputs %t.c.npz
// RUN: accel-run %t.onnx --input-shapes x=2x3x8x6,m=2x4,scale=1 --inputs %t.in.npz --outputs %t.ref.npz
// RUN: %python -c "import numpy as np; c, r = np.load('%t.c.npz')['y'], np.load('%t.ref.npz')['y']; assert c.shape == (2, 4) and np.abs(c - r).max() <= 1e-5 * np.abs(r).max(), (c, r)"

// Without the option, the first dynamic input says how to give its shape.
// RUN: not accel-opt %t.onnx 2>&1 | filecheck %s --check-prefix=DYN
// DYN: accel-opt: {{.*}}.onnx: error: graph input 'x' has a dynamic dimension 0 ('batch'); give its size with --input-shapes x=?x3x?x? (each ? a size)
// DYN-NOT: {{.}}
// RUN: not accel-opt %t.onnx --input-shapes x=2x3x8x6 2>&1 | filecheck %s --check-prefix=UNKNOWN
// UNKNOWN: accel-opt: {{.*}}.onnx: error: graph input 'm' has a dynamic dimension 0 (unknown); give its size with --input-shapes m=?x4 (each ? a size)
// RUN: not accel-opt %t.onnx --input-shapes x=2x3x8x6,m=2x4 2>&1 | filecheck %s --check-prefix=NOSHAPE
// NOSHAPE: accel-opt: {{.*}}.onnx: error: graph input 'scale' has no shape; give it with --input-shapes scale=D0xD1x...

// A given shape keeps the declared sizes and rank; names are graph inputs; the text is
// NAME=D0xD1x... entries. Each mistake is one line.
// RUN: not accel-opt %t.onnx --input-shapes x=2x4x8x6,m=2x4,scale=1 2>&1 | filecheck %s --check-prefix=STATIC
// STATIC: accel-opt: {{.*}}.onnx: error: --input-shapes: input 'x' has size 3 in dimension 1 (?x3x?x?), the given shape 2x4x8x6 says 4
// STATIC-NOT: {{.}}
// RUN: not accel-opt %t.onnx --input-shapes x=2x3x8,m=2x4,scale=1 2>&1 | filecheck %s --check-prefix=RANK
// RANK: accel-opt: {{.*}}.onnx: error: --input-shapes: input 'x' has rank 4 (?x3x?x?), the given shape 2x3x8 rank 3
// RUN: not accel-opt %t.onnx --input-shapes x=2x3x8x6,n=2x4 2>&1 | filecheck %s --check-prefix=NAME
// NAME: accel-opt: {{.*}}.onnx: error: --input-shapes: the model has no graph input 'n' (its inputs: x, m, scale)
// RUN: not accel-opt %t.onnx --input-shapes x=2x3x8xW 2>&1 | filecheck %s --check-prefix=SYNTAX
// SYNTAX: accel-opt: error: --input-shapes: the shape of 'x' ('2x3x8xW') must be sizes joined by 'x', e.g. 1x3x224x224
// RUN: not accel-opt %t.onnx --input-shapes x=0x3x8x6 2>&1 | filecheck %s --check-prefix=ZERO
// ZERO: accel-opt: error: --input-shapes: the shape of 'x' (0x3x8x6) must be positive sizes
// RUN: not accel-opt %t.onnx --input-shapes 2x3x8x6 2>&1 | filecheck %s --check-prefix=ENTRY
// ENTRY: accel-opt: error: --input-shapes: '2x3x8x6' is not NAME=D0xD1x... (e.g. x=1x3x224x224)
// RUN: not accel-opt %t.onnx --input-shapes x=2x3x8x6,x=1x3x8x6 2>&1 | filecheck %s --check-prefix=TWICE
// TWICE: accel-opt: error: --input-shapes: input 'x' is given twice
// RUN: not accel-run %t.dir --input-shapes x=2x3x8x6 --inputs %t.in.npz 2>&1 | filecheck %s --check-prefix=DIR
// DIR: accel-run: error: {{.*}}.dir: --bind-inputs and --input-shapes apply to a model file; a compiled directory took them when it was compiled
// RUN: accel-opt %t.onnx --input-shapes x=2x3x8x6,m=2x4,scale=1 -o %t.mlir
// RUN: not accel-compile %t.mlir --target npu -o %t.ir.dir --input-shapes x=2x3x8x6 2>&1 | filecheck %s --check-prefix=IR
// IR: accel-compile: {{.*}}.mlir: error: --bind-inputs and --input-shapes apply to ONNX models only
