// RUN: accel-opt %s --split-input-file --target npu -p full -t c | filecheck %s

// Float ops on f64 call the double instance of their float kernel (`_f64`, one source
// with `_f32`: host_kernels_real.inc) on double buffers.
// CHECK-LABEL: // ===== model.c =====
// CHECK:       acc_exp_f64(((double *)in0), ((double *)(model_arena + [[E:[0-9]+]])), 12)
// CHECK:       acc_softmax_f64(((double *)(model_arena + [[E]])), ((double *)(model_arena + [[S:[0-9]+]])), 2, shape{{[0-9]+}}, 1)
// CHECK:       acc_batch_matmul_f64(((double *)(model_arena + [[S]])), 2, shape{{[0-9]+}}, ((double *)in1), 2, shape{{[0-9]+}}, out0, 0, 0)
// CHECK-LABEL: // ===== model.h =====
// CHECK:       int model_run(const double *in0, const double *in1, double *out0);
func.func @main(%x: tensor<3x4xf64>, %w: tensor<4x2xf64>) -> tensor<3x2xf64> {
  %e = relay.exp %x : tensor<3x4xf64>
  %s = relay.nn.softmax %e {axis = 1} : tensor<3x4xf64>
  %y = relay.nn.batch_matmul %s, %w {transpose_b = false} : (tensor<3x4xf64>, tensor<4x2xf64>) -> tensor<3x2xf64>
  func.return %y : tensor<3x2xf64>
}

// -----

// Pad 'wrap' (ONNX, numpy): the tensor repeats periodically, pads may exceed its size.
// CHECK-LABEL: // ===== model.c =====
// CHECK-DAG:   static const int64_t [[PW:padw[0-9]+]][] = {0, 0, 4, 1};
// CHECK:       acc_pad(8, ((double *)in0), out0, 2, shape{{[0-9]+}}, [[PW]], ACC_PAD_WRAP, padv{{[0-9]+}})
func.func @main(%x: tensor<2x3xf64>) -> tensor<2x8xf64> {
  %y = relay.nn.pad %x {pad_width = [0, 0, 4, 1], pad_mode = "wrap"} : (tensor<2x3xf64>) -> tensor<2x8xf64>
  func.return %y : tensor<2x8xf64>
}
