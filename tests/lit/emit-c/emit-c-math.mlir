// RUN: accel-opt %s --split-input-file --target npu -p full -t c | filecheck %s

// Run-time math on the host: each op is one call of its host kernel, with the shapes of
// its (broadcast) operands, bool results as uint8_t buffers, reductions with their axes,
// slices with begin/step resolved for every axis.
// CHECK-LABEL: // ===== model.c =====
// CHECK-DAG:   static const int64_t [[X:shape[0-9]+]][] = {2, 3, 4};
// CHECK-DAG:   static const int64_t [[Z:shape[0-9]+]][] = {4};
// CHECK-DAG:   static const int [[AX:axes[0-9]+]][] = {2};
// CHECK-DAG:   static const int64_t [[I:shape[0-9]+]][] = {3, 4};
// CHECK-DAG:   static const int64_t [[BEGIN:begin[0-9]+]][] = {0, 2, 0};
// CHECK-DAG:   static const int64_t [[STEP:step[0-9]+]][] = {1, -2, 2};
// CHECK-DAG:   static const int64_t [[SL:shape[0-9]+]][] = {2, 2, 2};
// CHECK-DAG:   static const int64_t [[B:shape[0-9]+]][] = {2, 4, 1};
// CHECK-DAG:   static const int64_t [[BB:shape[0-9]+]][] = {2, 4, 2};
// CHECK-DAG:   static const int [[AX0:axes[0-9]+]][] = {0};
// CHECK:       acc_sqrt_f32(((float *)in0), ((float *)(model_arena + [[S:[0-9]+]])), 24)
// CHECK:       acc_compare(ACC_CMP_LT, ACC_F32, ((float *)in0), 3, [[X]], ((float *)(model_weights + {{[0-9]+}})), 1, [[Z]], ((uint8_t *)(model_arena + [[LT:[0-9]+]])))
// CHECK:       acc_where(4, ((uint8_t *)(model_arena + [[LT]])), 3, [[X]], ((float *)(model_weights + {{[0-9]+}})), 1, [[Z]], ((float *)(model_arena + [[S]])), 3, [[X]], ((float *)(model_arena + [[W:[0-9]+]])), 3, [[X]])
// CHECK:       acc_power(ACC_F32, ((float *)(model_arena + [[W]])), 3, [[X]], ((float *)in0), 3, [[X]], ((float *)(model_arena + [[P:[0-9]+]])))
// CHECK:       acc_reduce(ACC_REDUCE_SUM, ACC_F32, ((float *)(model_arena + [[P]])), out0, 3, [[X]], [[AX]], 1)
// CHECK:       acc_negative(ACC_I32, ((int32_t *)in1), ((int32_t *)(model_arena + [[N:[0-9]+]])), 12)
// CHECK:       acc_compare(ACC_CMP_GE, ACC_I32, ((int32_t *)(model_arena + [[N]])), 2, [[I]], ((int32_t *)in1), 2, [[I]], out1)
// CHECK:       acc_strided_slice(4, ((float *)in0), 3, [[X]], [[BEGIN]], [[STEP]], ((float *)(model_arena + {{[0-9]+}})), [[SL]])
// CHECK:       acc_broadcast_to(4, ((float *)(model_arena + {{[0-9]+}})), 3, [[B]], out2, 3, [[BB]])
// CHECK:       acc_reduce(ACC_REDUCE_MAX, ACC_I32, ((int32_t *)(model_arena + [[N]])), ((int32_t *)(model_arena + [[M:[0-9]+]])), 2, [[I]], [[AX0]], 1)
// CHECK:       acc_maximum(ACC_I32, ((int32_t *)(model_arena + [[M]])), 1, [[Z]], ((int32_t *)in1), 2, [[I]], ((int32_t *)(model_arena + [[MX:[0-9]+]])))
// CHECK:       acc_broadcast_to(4, ((int32_t *)(model_arena + [[MX]])), 2, [[I]], out3, 3, [[X]])
// CHECK-LABEL: // ===== model.h =====
// CHECK:       int model_run(const float *in0, const int32_t *in1, float *out0, uint8_t *out1, float *out2, int32_t *out3);
func.func @main(%x: tensor<2x3x4xf32>, %i: tensor<3x4xi32>) -> (tensor<2x3x1xf32>, tensor<3x4xi1>, tensor<2x4x2xf32>, tensor<2x3x4xi32>) {
  %s = relay.sqrt %x : tensor<2x3x4xf32>
  %z = relay.constant dense<0.0> : tensor<4xf32>
  %lt = relay.less %x, %z : (tensor<2x3x4xf32>, tensor<4xf32>) -> tensor<2x3x4xi1>
  %w = relay.where %lt, %z, %s : (tensor<2x3x4xi1>, tensor<4xf32>, tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  %p = relay.power %w, %x : tensor<2x3x4xf32>
  %r = relay.sum %p {axis = [-1], keepdims = true} : (tensor<2x3x4xf32>) -> tensor<2x3x1xf32>
  %n = relay.negative %i : tensor<3x4xi32>
  %c = relay.greater_equal %n, %i : (tensor<3x4xi32>, tensor<3x4xi32>) -> tensor<3x4xi1>
  %sl = relay.strided_slice %x {begin = [-1, 0], end = [-100, 4], strides = [-2, 2], axes = [1, 2]} : (tensor<2x3x4xf32>) -> tensor<2x2x2xf32>
  %t = relay.transpose %sl {axes = [0, 2, 1]} : (tensor<2x2x2xf32>) -> tensor<2x2x2xf32>
  %b = relay.reshape %t {newshape = [2, 4, 1]} : (tensor<2x2x2xf32>) -> tensor<2x4x1xf32>
  %bb = relay.broadcast_to %b {shape = [2, 4, 2]} : (tensor<2x4x1xf32>) -> tensor<2x4x2xf32>
  %m = relay.max %n {axis = [0]} : (tensor<3x4xi32>) -> tensor<4xi32>
  %mx = relay.maximum %m, %i : (tensor<4xi32>, tensor<3x4xi32>) -> tensor<3x4xi32>
  %e = relay.broadcast_to %mx {shape = [2, 3, 4]} : (tensor<3x4xi32>) -> tensor<2x3x4xi32>
  func.return %r, %c, %bb, %e : tensor<2x3x1xf32>, tensor<3x4xi1>, tensor<2x4x2xf32>, tensor<2x3x4xi32>
}

// -----

// The other elementwise ops and reductions; logical_not on bool bytes.
// CHECK-LABEL: // ===== model.c =====
// CHECK:       acc_exp_f32(((float *)in0), {{.*}}, 8)
// CHECK:       acc_log_f32({{.*}}, 8)
// CHECK:       acc_abs(ACC_F32, {{.*}}, 8)
// CHECK:       acc_minimum(ACC_F32, {{.*}})
// CHECK:       acc_compare(ACC_CMP_EQ, ACC_F32, {{.*}})
// CHECK:       acc_compare(ACC_CMP_NE, ACC_F32, {{.*}})
// CHECK:       acc_compare(ACC_CMP_LE, ACC_F32, {{.*}})
// CHECK:       acc_compare(ACC_CMP_GT, ACC_F32, {{.*}})
// CHECK:       acc_logical_not({{.*}}, 8)
// CHECK:       acc_logical(ACC_LOGICAL_AND, {{.*}})
// CHECK:       acc_logical(ACC_LOGICAL_OR, {{.*}})
// CHECK:       acc_logical(ACC_LOGICAL_XOR, {{.*}})
// CHECK:       acc_reduce(ACC_REDUCE_PROD, ACC_F32, {{.*}}, 2, {{shape[0-9]+}}, {{axes[0-9]+}}, 2)
// CHECK:       acc_reduce(ACC_REDUCE_MIN, ACC_F32, {{.*}}, 2, {{shape[0-9]+}}, {{axes[0-9]+}}, 1)
func.func @main(%x: tensor<2x4xf32>) -> (tensor<2x4xi1>, tensor<2x4xi1>, tensor<2x4xi1>, tensor<2x4xi1>, tensor<f32>, tensor<4xf32>) {
  %e = relay.exp %x : tensor<2x4xf32>
  %l = relay.log %e : tensor<2x4xf32>
  %a = relay.abs %l : tensor<2x4xf32>
  %m = relay.minimum %a, %x : tensor<2x4xf32>
  %eq = relay.equal %m, %x : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xi1>
  %ne = relay.not_equal %m, %x : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xi1>
  %le = relay.less_equal %m, %x : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xi1>
  %gt = relay.greater %m, %x : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xi1>
  %n0 = relay.logical_not %gt : tensor<2x4xi1>
  %na = relay.logical_and %n0, %eq : tensor<2x4xi1>
  %no = relay.logical_or %na, %ne : tensor<2x4xi1>
  %n = relay.logical_xor %no, %le : tensor<2x4xi1>
  %p = relay.prod %m : (tensor<2x4xf32>) -> tensor<f32>
  %mn = relay.min %x {axis = [0]} : (tensor<2x4xf32>) -> tensor<4xf32>
  func.return %eq, %ne, %le, %n, %p, %mn : tensor<2x4xi1>, tensor<2x4xi1>, tensor<2x4xi1>, tensor<2x4xi1>, tensor<f32>, tensor<4xf32>
}
