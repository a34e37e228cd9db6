// ONNX's signal ops (compiler/frontend/onnx/ops_signal.py): DFT and STFT are one dense with a
// constant cos/sin matrix (rows: interleaved re, im of each bin; columns: interleaved re, im
// of each sample); STFT's frames are a chunk reshape and strided slices (frame 8, step 6:
// gcd 2, 4 slices of stride 3); a constant window scales the matrix's columns; HannWindow and
// MelWeightMatrix fold to constants.

// RUN: %python %S/Inputs/make_model.py signal_ops %t.onnx
// RUN: accel-opt %t.onnx | filecheck %s
// CHECK:        %0 = relay.reshape %x {newshape = [4, 8]} : (tensor<1x4x8x1xf32>) -> tensor<4x8xf32>
// CHECK-NEXT:   %1 = relay.constant dense<{{\[\[}}1.000000e+00, 1.000000e+00, 1.000000e+00, 1.000000e+00, 1.000000e+00, 1.000000e+00, 1.000000e+00, 1.000000e+00], [0.000000e+00, 0.000000e+00, {{.*}}], [1.000000e+00, 0.707106769, 0.000000e+00, -0.707106769, -1.000000e+00, -0.707106769, 0.000000e+00, 0.707106769], [0.000000e+00, -0.707106769, -1.000000e+00, {{.*}}]> : tensor<10x8xf32>
// CHECK-NEXT:   %2 = relay.nn.dense %0, %1 : (tensor<4x8xf32>, tensor<10x8xf32>) -> tensor<4x10xf32>
// CHECK-NEXT:   %spec = relay.reshape %2 {newshape = [1, 4, 5, 2]} : (tensor<4x10xf32>) -> tensor<1x4x5x2xf32>
// CHECK-NEXT:   %3 = relay.reshape %s {newshape = [1, 16, 2]} : (tensor<1x32x1xf32>) -> tensor<1x16x2xf32>
// CHECK-NEXT:   %4 = relay.strided_slice %3 {begin = [0], end = [13], strides = [3], axes = [1]} : (tensor<1x16x2xf32>) -> tensor<1x5x2xf32>
// CHECK-NEXT:   %5 = relay.strided_slice %3 {begin = [1], end = [14], strides = [3], axes = [1]}
// CHECK-NEXT:   %6 = relay.strided_slice %3 {begin = [2], end = [15], strides = [3], axes = [1]}
// CHECK-NEXT:   %7 = relay.strided_slice %3 {begin = [3], end = [16], strides = [3], axes = [1]}
// CHECK-NEXT:   %8 = relay.concatenate %4, %5, %6, %7 {axis = 2} : {{.*}} -> tensor<1x5x8xf32>
// CHECK-NEXT:   %9 = relay.reshape %8 {newshape = [5, 8]} : (tensor<1x5x8xf32>) -> tensor<5x8xf32>
// The periodic Hann window [0, 0.146, 0.5, 0.854, 1, ...] is the first row (bin 0's real part).
// CHECK-NEXT:   %10 = relay.constant dense<{{\[\[}}0.000000e+00, 0.146446615, 5.000000e-01, 0.853553414, 1.000000e+00, 0.853553414, 5.000000e-01, 0.146446615], {{.*}}> : tensor<10x8xf32>
// CHECK-NEXT:   %11 = relay.nn.dense %9, %10 : (tensor<5x8xf32>, tensor<10x8xf32>) -> tensor<5x10xf32>
// CHECK-NEXT:   %frames = relay.reshape %11 {newshape = [1, 5, 5, 2]} : (tensor<5x10xf32>) -> tensor<1x5x5x2xf32>
// CHECK-NEXT:   %12 = relay.constant dense<{{\[\[}}1.000000e+00, 1.000000e+00, 0.000000e+00, 0.000000e+00], [0.000000e+00, 0.000000e+00, 1.000000e+00, 0.000000e+00], {{.*}}> : tensor<5x4xf32>
// CHECK-NEXT:   func.return %spec, %frames, %12 : tensor<1x4x5x2xf32>, tensor<1x5x5x2xf32>, tensor<5x4xf32>

// The npu accepts both products (dense layers with a constant weight; at these toy sizes
// merge-regions keeps them on the host as unprofitable).
// RUN: accel-opt %t.onnx -p 'canonicalize,merge-composite{target=npu},annotate-target{targets=npu}' | filecheck %s --check-prefix=NPU
// NPU: %2 = relay.nn.dense %0, %1 {accel.target = "npu"} : (tensor<4x8xf32>, tensor<10x8xf32>) -> tensor<4x10xf32>
// NPU: %11 = relay.nn.dense %9, %10 {accel.target = "npu"} : (tensor<5x8xf32>, tensor<10x8xf32>) -> tensor<5x10xf32>

// DFT-17 along axis 1 of a complex signal, inverse: transposed to the axis before the last
// and back; the [2·4, 2·4] matrix holds cos/n and sin/n (n = 4).
// RUN: %python %S/Inputs/make_model.py dft_complex_axis %t.c.onnx
// RUN: accel-opt %t.c.onnx | filecheck %s --check-prefix=CPLX
// CPLX:      %0 = relay.transpose %x {axes = [0, 2, 1, 3]} : (tensor<2x4x3x2xf32>) -> tensor<2x3x4x2xf32>
// CPLX-NEXT: %1 = relay.reshape %0 {newshape = [6, 8]} : (tensor<2x3x4x2xf32>) -> tensor<6x8xf32>
// CPLX-NEXT: %2 = relay.constant dense<{{\[\[}}2.500000e-01, 0.000000e+00, 2.500000e-01, 0.000000e+00, 2.500000e-01, 0.000000e+00, 2.500000e-01, 0.000000e+00], [0.000000e+00, 2.500000e-01, 0.000000e+00, 2.500000e-01, {{.*}}> : tensor<8x8xf32>
// CPLX-NEXT: %3 = relay.nn.dense %1, %2 : (tensor<6x8xf32>, tensor<8x8xf32>) -> tensor<6x8xf32>
// CPLX-NEXT: %4 = relay.reshape %3 {newshape = [2, 3, 4, 2]} : (tensor<6x8xf32>) -> tensor<2x3x4x2xf32>
// CPLX-NEXT: %y = relay.transpose %4 {axes = [0, 2, 1, 3]} : (tensor<2x3x4x2xf32>) -> tensor<2x4x3x2xf32>

// A window given at run time is a multiply of the frames ([B, frames, F, 1] by [F, 1]).
// RUN: %python %S/Inputs/make_model.py stft_runtime_window %t.w.onnx
// RUN: accel-opt %t.w.onnx | filecheck %s --check-prefix=WIN
// WIN:      %4 = relay.concatenate %0, %1, %2, %3 {axis = 2} : {{.*}} -> tensor<2x3x4xf32>
// WIN-NEXT: %5 = relay.reshape %4 {newshape = [2, 3, 4, 1]}
// WIN-NEXT: %6 = relay.reshape %w {newshape = [4, 1]} : (tensor<4xf32>) -> tensor<4x1xf32>
// WIN-NEXT: %7 = relay.multiply %5, %6 : (tensor<2x3x4x1xf32>, tensor<4x1xf32>) -> tensor<2x3x4x1xf32>
// WIN-NEXT: %8 = relay.reshape %7 {newshape = [6, 4]}
// WIN-NEXT: %9 = relay.constant {{.*}} : tensor<8x4xf32>
// WIN-NEXT: %10 = relay.nn.dense %8, %9 : (tensor<6x4xf32>, tensor<8x4xf32>) -> tensor<6x8xf32>
// WIN-NEXT: %y = relay.reshape %10 {newshape = [2, 3, 4, 2]}

// Refusals: one line naming the node.
// RUN: %python %S/Inputs/make_model.py dft_runtime_length %t.n.onnx
// RUN: not accel-opt %t.n.onnx 2>&1 | filecheck %s --check-prefix=LEN
// LEN: accel-opt: {{.*}}.n.onnx: error: node 'dft_n' (DFT): dft_length ('n') must be a constant; it is a graph input: bind it with --bind-inputs n=VALUE
// LEN-NOT: {{.}}
// RUN: %python %S/Inputs/make_model.py stft_bad_window %t.bw.onnx
// RUN: not accel-opt %t.bw.onnx 2>&1 | filecheck %s --check-prefix=BADWIN
// BADWIN: accel-opt: {{.*}}.bw.onnx: error: node 'stft_bad' (STFT): window of 4 samples does not match frame_length 6
// BADWIN-NOT: {{.}}
