// accel-run runs @main in the reference interpreter; npz keys are the input/output names
// (accel.name, else the SSA name, else arg<i>/out<i>).
// RUN: %python -c "import numpy as np; np.savez('%t.in.npz', x=np.array([[1, -2], [3.25, -4]], np.float32), bias=np.array([0.5, 1], np.float32))"

// Without --outputs the results are printed, one line each.
// RUN: accel-run %s --inputs %t.in.npz | filecheck %s
// CHECK:      y = {{\[}}[1.5, 1.0], [3.75, 1.0]] : tensor<2x2xf32>
// CHECK-NEXT: out1 = {{\[}}[3, 2], [8, 2]] : tensor<2x2xi8>
// CHECK-NEXT: mean = 1.8125 : tensor<f32>
// CHECK-NOT: {{.}}

// With --outputs the results are written to the npz archive under their names.
// RUN: accel-run %s --inputs %t.in.npz --outputs %t.out.npz
// RUN: %python -c "import numpy as np; z = np.load('%t.out.npz'); print(z.files); print(z['y'].dtype, z['y'].tolist()); print(z['out1'].dtype, z['out1'].tolist()); print(z['mean'].shape)" | filecheck %s --check-prefix=NPZ
// NPZ:      ['y', 'out1', 'mean']
// NPZ-NEXT: float32 {{\[}}[1.5, 1.0], [3.75, 1.0]]
// NPZ-NEXT: int8 {{\[}}[3, 2], [8, 2]]
// NPZ-NEXT: ()

// Positional archives are accepted too: keys arg0.. or np.savez's arr_0..
// RUN: %python -c "import numpy as np; np.savez('%t.pos.npz', np.array([[1, -2], [3.25, -4]], np.float32), np.array([0.5, 1], np.float32))"
// RUN: accel-run %s --inputs %t.pos.npz | filecheck %s
// RUN: %python -c "import numpy as np; np.savez('%t.arg.npz', arg1=np.array([0.5, 1], np.float32), arg0=np.array([[1, -2], [3.25, -4]], np.float32))"
// RUN: accel-run %s --inputs %t.arg.npz | filecheck %s

func.func @main(%x: tensor<2x2xf32>, %w: tensor<2xf32> {accel.name = "bias"})
    -> (tensor<2x2xf32> {accel.name = "y"}, tensor<2x2xi8>, tensor<f32> {accel.name = "mean"}) {
  %r = relay.nn.relu %x : tensor<2x2xf32>
  %b = relay.nn.bias_add %r, %w : (tensor<2x2xf32>, tensor<2xf32>) -> tensor<2x2xf32>
  %s = relay.constant dense<0.5> : tensor<f32>
  %z = relay.constant dense<0> : tensor<i8>
  // 3.75 / 0.5 = 7.5 rounds half to even: 8
  %q = relay.qnn.quantize %b, %s, %z : (tensor<2x2xf32>, tensor<f32>, tensor<i8>) -> tensor<2x2xi8>
  %m = relay.mean %b : (tensor<2x2xf32>) -> tensor<f32>
  func.return %b, %q, %m : tensor<2x2xf32>, tensor<2x2xi8>, tensor<f32>
}
