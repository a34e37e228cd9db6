// RUN: accel-opt %s --split-input-file --target npu -p full -t c | filecheck %s

// A conv+bias+relu region on the NPU between two host ops: the host schedule calls the
// host kernels and the region wrapper on the planned arena; the wrapper moves the
// data with strided DMA and calls the vendor API.
// CHECK-LABEL: // ===== model.c =====
// CHECK:       #include "host_kernels.h"
// CHECK:       #include "npu.h"
// CHECK:       const char *const model_input_names[] = {"x", 0};
// CHECK:       int model_run(const float *in0, float *out0) {
// CHECK:         npu_register_host(in0, 4096);
// CHECK:         if ((status = acc_erf_f32(((float *)in0), ((float *)(model_arena + [[A:[0-9]+]])), 1024)) != 0) return fail(status, {{[0-9]+}});
// CHECK:         if ((status = npu_0(((float *)(model_arena + [[A]])), ((float *)(model_arena + [[B:[0-9]+]])))) != 0) return fail(status, {{[0-9]+}});
// CHECK:         acc_erf_f32(((float *)(model_arena + [[B]])), out0, 2048)
// CHECK-LABEL: // ===== model.h =====
// CHECK:       #define MODEL_INPUT0_BYTES 4096
// CHECK:       int model_run(const float *in0, float *out0);
// CHECK-LABEL: // ===== npu_wrappers.c =====
// CHECK:       static const npu_conv2d_params [[P:p[0-9]+]] = {.n = 1, .c = 4, .h = 16, .w = 16, .oc = 8, .kh = 3, .kw = 3, .oh = 16, .ow = 16, .stride_h = 1, .stride_w = 1, .pad_top = 1, .pad_left = 1, .pad_bottom = 1, .pad_right = 1, .dil_h = 1, .dil_w = 1, .groups = 1, .act = NPU_ACT_RELU
// CHECK:       int npu_0(float *a0, float *a1) {
// CHECK:         npu_token [[T:t[0-9]+]] = npu_dma_to_device(((float *)(spm + 0)), a0, 4, 4, shape{{[0-9]+}}, strides{{[0-9]+}}, strides{{[0-9]+}});
// CHECK:         npu_dma_wait([[T]]);
// CHECK:         if (npu_conv2d_f32(((float *)(spm + 0)), ((float *)(spm + {{[0-9]+}})), ((float *)(spm + {{[0-9]+}})), ((float *)(spm + {{[0-9]+}})), &[[P]]) != 0) return 1;
// CHECK:         npu_dma_to_host(a1,
// CHECK:         npu_sync();
// CHECK-NEXT:    return 0;
func.func @main(%x: tensor<1x4x16x16xf32>) -> tensor<1x8x16x16xf32> {
  %s = relay.erf %x : tensor<1x4x16x16xf32>
  %w = relay.constant dense<0.5> : tensor<8x4x3x3xf32>
  %b = relay.constant dense<0.25> : tensor<8xf32>
  %c = relay.nn.conv2d %s, %w {padding = [1, 1, 1, 1]} : (tensor<1x4x16x16xf32>, tensor<8x4x3x3xf32>) -> tensor<1x8x16x16xf32>
  %d = relay.nn.bias_add %c, %b : (tensor<1x8x16x16xf32>, tensor<8xf32>) -> tensor<1x8x16x16xf32>
  %r = relay.nn.relu %d : tensor<1x8x16x16xf32>
  %t = relay.erf %r : tensor<1x8x16x16xf32>
  func.return %t : tensor<1x8x16x16xf32>
}

// -----

// Names from the model reach C only as escaped string literals and comment text.
// CHECK-LABEL: // ===== model.c =====
// CHECK:       const char *const model_input_names[] = {"in\042put\012*/ x", 0};
// CHECK:       const char *const model_output_names[] = {"\303\251\077\077=", 0};
// CHECK-LABEL: // ===== model.h =====
// CHECK:       /* input 0: in"put\x0a* / x, float[4] */
func.func @main(%x: tensor<4xf32> {accel.name = "in\"put\n*/ x"}) -> (tensor<4xf32> {accel.name = "é??="}) {
  %t = relay.tanh %x : tensor<4xf32>
  func.return %t : tensor<4xf32>
}

// -----

// The activations recognize-decompositions makes run on the host (placed there: the npu
// would run hard-swish and hard-sigmoid as the elementwise ops they are made of).
// CHECK-LABEL: // ===== model.c =====
// CHECK:         acc_hardswish_f32(((float *)in0), {{.*}}, 64)
// CHECK:         acc_hardsigmoid_f32({{.*}}, 64, 0.2{{0*}}, 0.5{{0*}})
// CHECK:         acc_silu_f32({{.*}}, 64)
func.func @main(%x: tensor<4x16xf32>) -> tensor<4x16xf32> {
  %0 = relay.nn.hardswish %x {accel.target = "host"} : tensor<4x16xf32>
  %1 = relay.nn.hardsigmoid %0 {accel.target = "host"} : tensor<4x16xf32>
  %2 = relay.nn.silu %1 {accel.target = "host"} : tensor<4x16xf32>
  func.return %2 : tensor<4x16xf32>
}
