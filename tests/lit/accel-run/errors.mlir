// Every accel-run failure is one line on stderr and exit code 1, never a traceback.
// RUN: %python -c "import numpy as np; np.savez('%t.ok.npz', x=np.zeros((2, 3), np.float32), idx=np.array([0, 2], np.int64)); np.savez('%t.missing.npz', x=np.zeros((2, 3), np.float32)); np.savez('%t.extra.npz', x=np.zeros((2, 3), np.float32), idx=np.array([0, 2], np.int64), z=np.zeros(1)); np.savez('%t.shape.npz', x=np.zeros((3, 2), np.float32), idx=np.array([0, 2], np.int64)); np.savez('%t.dtype.npz', x=np.zeros((2, 3)), idx=np.array([0, 2], np.int64)); np.savez('%t.range.npz', x=np.zeros((2, 3), np.float32), idx=np.array([0, 3], np.int64))"

// RUN: accel-run %s --inputs %t.ok.npz | filecheck %s --check-prefix=OK
// OK: y = {{\[}}[0.0, 0.0], [0.0, 0.0]] : tensor<2x2xf32>

// RUN: not accel-run %s --inputs %t.missing.npz 2>&1 | filecheck %s --check-prefix=MISSING
// MISSING: accel-run: {{.*}}missing.npz: error: no array named 'idx' (the inputs are: x, idx)
// MISSING-NOT: {{.}}

// RUN: not accel-run %s --inputs %t.extra.npz 2>&1 | filecheck %s --check-prefix=EXTRA
// EXTRA: accel-run: {{.*}}extra.npz: error: unexpected array 'z' (the inputs are: x, idx)

// RUN: not accel-run %s --inputs %t.shape.npz 2>&1 | filecheck %s --check-prefix=SHAPE
// SHAPE: accel-run: error: input 'x': expected shape [2, 3] and dtype float32, got shape [3, 2] and dtype float32
// SHAPE-NOT: {{.}}

// RUN: not accel-run %s --inputs %t.dtype.npz 2>&1 | filecheck %s --check-prefix=DTYPE
// DTYPE: accel-run: error: input 'x': expected shape [2, 3] and dtype float32, got shape [2, 3] and dtype float64

// A data-dependent failure points at the op.
// RUN: not accel-run %s --inputs %t.range.npz 2>&1 | filecheck %s --check-prefix=RANGE
// RANGE: accel-run: {{.*}}errors.mlir:[[# @LINE + 27]]:3: error: 'relay.take' op index 3 is out of range for axis 1 of size 3
// RANGE-NOT: {{.}}

// RUN: not accel-run %s 2>&1 | filecheck %s --check-prefix=NOINPUTS
// NOINPUTS: accel-run: error: the model takes inputs (x, idx): pass them with --inputs IN.npz

// RUN: not accel-run %s --inputs %t.nonexistent.npz 2>&1 | filecheck %s --check-prefix=NOFILE
// NOFILE: accel-run: {{.*}}nonexistent.npz: error: cannot read the inputs: no such file

// RUN: not accel-run %s --inputs %s 2>&1 | filecheck %s --check-prefix=NOTNPZ
// NOTNPZ: accel-run: {{.*}}errors.mlir: error: not an .npz archive of arrays

// RUN: not accel-run %s.nonexistent 2>&1 | filecheck %s --check-prefix=NOMODEL
// NOMODEL: accel-run: error: cannot access '{{.*}}errors.mlir.nonexistent': No such file or directory

// RUN: not accel-run %S 2>&1 | filecheck %s --check-prefix=DIR
// DIR: accel-run: error: {{.*}}accel-run: not a directory written by accel-compile (no readable io.json)

// RUN: not accel-run %s --inputs %t.ok.npz --function nope 2>&1 | filecheck %s --check-prefix=FUNC
// FUNC: accel-run: error: the module has no function @nope

// RUN: not accel-run 2>&1 | filecheck %s --check-prefix=USAGE
// USAGE: accel-run: error: the following arguments are required: model
// USAGE-NOT: {{.}}

func.func @main(%x: tensor<2x3xf32>, %idx: tensor<2xi64>) -> (tensor<2x2xf32> {accel.name = "y"}) {
  %r = relay.nn.relu %x : tensor<2x3xf32>
  %y = relay.take %r, %idx {axis = 1} : (tensor<2x3xf32>, tensor<2xi64>) -> tensor<2x2xf32>
  func.return %y : tensor<2x2xf32>
}
