// RUN: accel-opt %s --split-input-file -p 'merge-composite{target=dnnl},annotate-target{targets=dnnl}' | filecheck %s
// RUN: accel-opt %s --split-input-file --target dnnl -p full -t c | filecheck %s --check-prefix=C

// The built-in dnnl target (a description + the codegen hook of
// accel.compiler.backend.dnnl_codegen, api.lowering = "none"). A convolution with its
// bias, the residual add and the relu is one composite: one oneDNN primitive, the add a
// binary post-op, the relu an eltwise post-op. Each kernel's primitive is built by a
// function of its own, which the region's init calls in order.
// CHECK-LABEL: func.func @main
// CHECK:       relay.composite "dnnl.conv2d_bias_add_relu" (%x, %w, %b, %x) {accel.target = "dnnl"}
// C-LABEL:     ===== dnnl_0.c =====
// C:           /* dnnl.conv2d_bias_add_relu ({{.*}}) */
// C-NEXT:      static int dnnl_0_op0(accel_dnnl_region_t *r) {
// C:           dnnl_memory_desc_init_by_tag({{.*}}, 4, (dnnl_dims_t){1, 8, 8, 8}, dnnl_f32, dnnl_format_tag_any)
// C:           dnnl_dilated_convolution_forward_desc_init(
// C:           dnnl_post_ops_append_binary({{.*}}, dnnl_binary_add,
// C:           dnnl_post_ops_append_eltwise({{.*}}, dnnl_eltwise_relu,
// C:           accel_dnnl_weights(r, {{.*}}, accel_dnnl_md({{.*}}, dnnl_query_weights_md, 0)
// C:           return 0;
// C:           int dnnl_0_init(void) {
// C:           ACCEL_DNNL_TRY(dnnl_0_op0(r)); /* dnnl.conv2d_bias_add_relu ({{.*}}) */
// C:           int dnnl_0(float *a0, float *a1) {
// C-NEXT:          ACCEL_DNNL_TRY(accel_dnnl_bind(&R, V[0], a0));
// C-NEXT:          ACCEL_DNNL_TRY(accel_dnnl_bind(&R, V[1], a1));
// C-NEXT:          return accel_dnnl_run(&R);
func.func @main(%x: tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32> {
  %w = relay.constant dense<0.5> : tensor<8x8x3x3xf32>
  %b = relay.constant dense<0.25> : tensor<8xf32>
  %0 = relay.nn.conv2d %x, %w {padding = [1, 1, 1, 1]} : (tensor<1x8x8x8xf32>, tensor<8x8x3x3xf32>) -> tensor<1x8x8x8xf32>
  %1 = relay.nn.bias_add %0, %b : (tensor<1x8x8x8xf32>, tensor<8xf32>) -> tensor<1x8x8x8xf32>
  %2 = relay.add %1, %x : tensor<1x8x8x8xf32>
  %3 = relay.nn.relu %2 : tensor<1x8x8x8xf32>
  func.return %3 : tensor<1x8x8x8xf32>
}

// -----

// Not lowered to accel ops: a rank-4 batched product (attention's scores over heads) and
// the transpose and reshape around it run on oneDNN (a matmul on strided views; a reorder;
// a view, copied only because the result is the region's output), where a lowering target would need them in fused forms.
// CHECK-LABEL: func.func @main
// CHECK:       relay.transpose {{.*}}accel.target = "dnnl"
// CHECK:       relay.composite "dnnl.batch_matmul_scale" {{.*}}accel.target = "dnnl"
// CHECK:       relay.reshape {{.*}}accel.target = "dnnl"
// C-LABEL:     ===== dnnl_0.c =====
// C:           /* relay.transpose ({{.*}}) */
// C:           dnnl_memory_desc_init_by_strides({{.*}}, 4, (dnnl_dims_t){1, 2, 4, 8}, dnnl_f32, (dnnl_dims_t){64, 8, 16, 1})
// C:           accel_dnnl_copy(
// C:           /* dnnl.batch_matmul_scale ({{.*}}) */
// C:           dnnl_matmul_desc_init(
// C:           dnnl_post_ops_append_eltwise({{.*}}, dnnl_eltwise_linear, 0.353553385f, 0.0f)
// C:           /* relay.reshape ({{.*}}) */
// C:           if (!V[1]) V[1] = view{{[0-9]+}};
// C-NEXT:      else ACCEL_DNNL_TRY(accel_dnnl_copy(r, view{{[0-9]+}}, V[1]));
func.func @main(%q: tensor<1x4x2x8xf32>) -> tensor<1x2x16xf32> {
  %s = relay.constant dense<0.353553385> : tensor<f32>
  %t = relay.transpose %q {axes = [0, 2, 1, 3]} : (tensor<1x4x2x8xf32>) -> tensor<1x2x4x8xf32>
  %0 = relay.nn.batch_matmul %t, %t : (tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>) -> tensor<1x2x4x4xf32>
  %1 = relay.multiply %0, %s : (tensor<1x2x4x4xf32>, tensor<f32>) -> tensor<1x2x4x4xf32>
  %2 = relay.reshape %1 {newshape = [1, 2, 16]} : (tensor<1x2x4x4xf32>) -> tensor<1x2x16xf32>
  func.return %2 : tensor<1x2x16xf32>
}

// -----

// What oneDNN 2.6 cannot run stays on the host with the reason: an average pooling that
// counts padding in ceil mode (oneDNN also counts the cells ceil mode adds), and a
// per-channel quantized activation.
// CHECK-LABEL: func.func @main
// CHECK:       relay.nn.avg_pool2d {{.*}}accel.target = "host", accel.reason = "dnnl: average pooling counting padding in ceil mode: oneDNN also counts the cells ceil mode adds"
// CHECK:       relay.qnn.quantize {{.*}}accel.target = "host", accel.reason = "dnnl: per-channel quantization of an activation"
func.func @main(%x: tensor<1x2x8x8xf32>) -> tensor<1x2x5x5xi8> {
  %s = relay.constant dense<[0.5, 0.25]> : tensor<2xf32>
  %z = relay.constant dense<0> : tensor<2xi8>
  %0 = relay.nn.avg_pool2d %x {pool_size = [3, 3], strides = [2, 2], padding = [1, 1, 1, 1], ceil_mode = true, count_include_pad = true} : (tensor<1x2x8x8xf32>) -> tensor<1x2x5x5xf32>
  %1 = relay.qnn.quantize %0, %s, %z {axis = 1} : (tensor<1x2x5x5xf32>, tensor<2xf32>, tensor<2xi8>) -> tensor<1x2x5x5xi8>
  func.return %1 : tensor<1x2x5x5xi8>
}

// -----

// A concatenation of two convolutions' results: the runtime may make them views into
// the concatenation's result (accel_dnnl_concat_in_place; it decides by the layouts
// oneDNN chose). A max pooling is created through accel_dnnl_pooling_desc (its kernel
// choice per CPU).
// C-LABEL:     ===== dnnl_0.c =====
// C:           /* relay.nn.max_pool2d ({{.*}}) */
// C:           accel_dnnl_pooling_desc(r,
// C:           /* relay.concatenate ({{.*}}) */
// C:           dnnl_concat_primitive_desc_create(
// C:           accel_dnnl_concat_in_place(r, y{{[0-9]+}}, 1, 2, (const dnnl_memory_t[]){V[{{[0-9]+}}], V[{{[0-9]+}}]}, &in_place{{[0-9]+}})
// C-NEXT:      if (!in_place{{[0-9]+}}) {
func.func @main(%x: tensor<1x8x8x8xf32>) -> tensor<1x16x4x4xf32> {
  %w = relay.constant dense<0.5> : tensor<8x8x1x1xf32>
  %p = relay.nn.max_pool2d %x {pool_size = [2, 2], strides = [2, 2]} : (tensor<1x8x8x8xf32>) -> tensor<1x8x4x4xf32>
  %0 = relay.nn.conv2d %p, %w : (tensor<1x8x4x4xf32>, tensor<8x8x1x1xf32>) -> tensor<1x8x4x4xf32>
  %1 = relay.nn.conv2d %p, %w : (tensor<1x8x4x4xf32>, tensor<8x8x1x1xf32>) -> tensor<1x8x4x4xf32>
  %2 = relay.concatenate %0, %1 {axis = 1} : (tensor<1x8x4x4xf32>, tensor<1x8x4x4xf32>) -> tensor<1x16x4x4xf32>
  func.return %2 : tensor<1x16x4x4xf32>
}

// -----

// A concatenation reading a region input (bound to the caller's buffer at every call)
// copies: no in-place attempt.
// C-LABEL:     ===== dnnl_0.c =====
// C:           /* relay.concatenate ({{.*}}) */
// C-NOT:       accel_dnnl_concat_in_place(
// C:           if (!in_place{{[0-9]+}}) {
// C:           int dnnl_0(
func.func @main(%x: tensor<1x8x4x4xf32>) -> tensor<1x16x4x4xf32> {
  %w = relay.constant dense<0.5> : tensor<8x8x1x1xf32>
  %0 = relay.nn.conv2d %x, %w : (tensor<1x8x4x4xf32>, tensor<8x8x1x1xf32>) -> tensor<1x8x4x4xf32>
  %2 = relay.concatenate %x, %0 {axis = 1} : (tensor<1x8x4x4xf32>, tensor<1x8x4x4xf32>) -> tensor<1x16x4x4xf32>
  func.return %2 : tensor<1x16x4x4xf32>
}
