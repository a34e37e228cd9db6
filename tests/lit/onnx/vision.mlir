// The vision ops (compiler/frontend/onnx/ops_vision.py): LpPool is the kernel area times
// an average pool of |x|^p with the padding counted (x * x and sqrt for p = 2, power
// otherwise), CenterCropPad a strided slice and a zero pad, AffineGrid one batch_matmul
// of the constant base grid by theta, Col2Im a grouped conv2d_transpose by a one-hot
// weight; GridSample, RoiAlign and MaxUnpool are relay ops of their own.

// RUN: %python %S/Inputs/make_model.py vision %t.onnx
// RUN: accel-opt %t.onnx | filecheck %s
// CHECK:        %0 = relay.multiply %x, %x : tensor<1x2x6x6xf32>
// CHECK-NEXT:   %1 = relay.nn.avg_pool2d %0 {pool_size = [3, 3], padding = [1, 1, 1, 1], count_include_pad = true} : (tensor<1x2x6x6xf32>) -> tensor<1x2x6x6xf32>
// CHECK-NEXT:   %2 = relay.constant dense<9.000000e+00> : tensor<f32>
// CHECK-NEXT:   %3 = relay.multiply %1, %2
// CHECK-NEXT:   %lp = relay.sqrt %3 : tensor<1x2x6x6xf32>
// CHECK-NEXT:   %4 = relay.abs %x
// CHECK-NEXT:   %5 = relay.constant dense<3.000000e+00> : tensor<f32>
// CHECK-NEXT:   %6 = relay.power %4, %5
// CHECK-NEXT:   %7 = relay.nn.avg_pool2d %6 {pool_size = [2, 2], strides = [2, 2], count_include_pad = true} : (tensor<1x2x6x6xf32>) -> tensor<1x2x3x3xf32>
// CHECK-NEXT:   %8 = relay.constant dense<4.000000e+00> : tensor<f32>
// CHECK-NEXT:   %9 = relay.multiply %7, %8
// CHECK-NEXT:   %10 = relay.constant dense<0.333333343> : tensor<f32>
// CHECK-NEXT:   %lp3 = relay.power %9, %10 : (tensor<1x2x3x3xf32>, tensor<f32>) -> tensor<1x2x3x3xf32>
// CHECK-NEXT:   %11 = relay.strided_slice %x {begin = [1], end = [5], axes = [2]} : (tensor<1x2x6x6xf32>) -> tensor<1x2x4x6xf32>
// CHECK-NEXT:   %cc = relay.nn.pad %11 {pad_width = [0, 0, 0, 0, 0, 0, 1, 1]} : (tensor<1x2x4x6xf32>) -> tensor<1x2x4x8xf32>
// CHECK-NEXT:   %12 = relay.constant dense<{{\[\[\[}}-8.000000e-01, -0.666666687, 1.000000e+00], [-4.000000e-01, -0.666666687, 1.000000e+00],
// CHECK-SAME:   : tensor<1x15x3xf32>
// CHECK-NEXT:   %13 = relay.nn.batch_matmul %12, %theta : (tensor<1x15x3xf32>, tensor<1x2x3xf32>) -> tensor<1x15x2xf32>
// CHECK-NEXT:   %grid = relay.reshape %13 {newshape = [1, 3, 5, 2]} : (tensor<1x15x2xf32>) -> tensor<1x3x5x2xf32>
// CHECK-NEXT:   %gs = relay.image.grid_sample %x, %grid {method = "cubic", padding_mode = "reflection"} : (tensor<1x2x6x6xf32>, tensor<1x3x5x2xf32>) -> tensor<1x2x3x5xf32>
// CHECK-NEXT:   %ra = relay.vision.roi_align %x, %rois, %b {output_height = 2, output_width = 2, spatial_scale = 0.5, mode = "max"} : (tensor<1x2x6x6xf32>, tensor<3x4xf32>, tensor<3xi64>) -> tensor<3x2x2x2xf32>
// CHECK-NEXT:   %14 = relay.reshape %cols {newshape = [1, 8, 2, 2]} : (tensor<1x8x4xf32>) -> tensor<1x8x2x2xf32>
// CHECK-NEXT:   %15 = relay.constant dense<{{\[\[\[\[}}1.000000e+00, 0.000000e+00], [0.000000e+00, 0.000000e+00]]], {{\[\[\[}}0.000000e+00, 1.000000e+00],
// CHECK-SAME:   : tensor<8x1x2x2xf32>
// CHECK-NEXT:   %im = relay.nn.conv2d_transpose %14, %15 {strides = [2, 2], groups = 2} : (tensor<1x8x2x2xf32>, tensor<8x1x2x2xf32>) -> tensor<1x2x4x4xf32>
// CHECK-NEXT:   %mp = relay.nn.max_pool2d %x
// CHECK-NEXT:   %mi = relay.nn.max_pool2d_indices %x
// CHECK-NEXT:   %mu = relay.nn.max_unpool %mp, %mi {shape = [1, 2, 6, 6]} : (tensor<1x2x3x3xf32>, tensor<1x2x3x3xi64>) -> tensor<1x2x6x6xf32>

// The C of the npu target: the three relay ops are host kernel calls.
// RUN: accel-opt %t.onnx -p full --target npu -t c | filecheck %s --check-prefix=C
// C-DAG: acc_grid_sample_f32(
// C-DAG: acc_roi_align_f32(
// C-DAG: acc_max_unpool(

// Refusals: one line naming the node.
// RUN: %python %S/Inputs/make_model.py vision_grid_mode %t.mode.onnx
// RUN: not accel-opt %t.mode.onnx 2>&1 | filecheck %s --check-prefix=MODE
// MODE: accel-opt: {{.*}}mode.onnx: error: node 'bad_grid' (GridSample): mode 'area' is not supported (linear, nearest, cubic)
// MODE-NOT: {{.}}
// RUN: %python %S/Inputs/make_model.py vision_runtime_crop %t.crop.onnx
// RUN: not accel-opt %t.crop.onnx 2>&1 | filecheck %s --check-prefix=CROP
// CROP: accel-opt: {{.*}}crop.onnx: error: node 'crop' (CenterCropPad): the shape input ('s') must be a constant; it is a graph input: bind it with --bind-inputs s=VALUE
// CROP-NOT: {{.}}
// RUN: %python %S/Inputs/make_model.py vision_unpool_shape %t.unpool.onnx
// RUN: not accel-opt %t.unpool.onnx 2>&1 | filecheck %s --check-prefix=UNPOOL
// UNPOOL: accel-opt: {{.*}}unpool.onnx: error: node 'unpool' (MaxUnpool): output_shape [1, 1, 3, 3] must be at least the unpooled shape [1, 1, 4, 4]
// UNPOOL-NOT: {{.}}

// DeformConv: the offsets (x then y) become normalized grid coordinates, one grid_sample
// per offset group reads every kernel tap, the mask multiplies, and a batch_matmul of
// the weight [group, OC/group, IC/group*K] is the grouped convolution.
// RUN: %python %S/Inputs/make_model.py vision_deform %t.deform.onnx
// RUN: accel-opt %t.deform.onnx | filecheck %s --check-prefix=DEFORM
// DEFORM:      %0 = relay.reshape %off {newshape = [2, 4, 2, 4, 4]} : (tensor<1x16x4x4xf32>) -> tensor<2x4x2x4x4xf32>
// DEFORM-NEXT: %1 = relay.strided_slice %0 {begin = [1], end = [2], axes = [2]}
// DEFORM:      %6 = relay.strided_slice %0 {begin = [0], end = [1], axes = [2]}
// DEFORM:      %11 = relay.concatenate %5, %10 {axis = 2} : (tensor<2x4x1x4x4xf32>, tensor<2x4x1x4x4xf32>) -> tensor<2x4x2x4x4xf32>
// DEFORM-NEXT: %12 = relay.transpose %11 {axes = [0, 1, 3, 4, 2]}
// DEFORM-NEXT: %13 = relay.reshape %12 {newshape = [2, 16, 4, 2]}
// DEFORM-NEXT: %14 = relay.reshape %x {newshape = [2, 2, 5, 5]}
// DEFORM-NEXT: %15 = relay.image.grid_sample %14, %13 : (tensor<2x2x5x5xf32>, tensor<2x16x4x2xf32>) -> tensor<2x2x16x4xf32>
// DEFORM:      %18 = relay.multiply %16, %17 : (tensor<1x2x2x4x4x4xf32>, tensor<1x2x1x4x4x4xf32>) -> tensor<1x2x2x4x4x4xf32>
// DEFORM-NEXT: %19 = relay.reshape %18 {newshape = [1, 2, 8, 16]}
// DEFORM-NEXT: %w = relay.constant external "w" : tensor<2x3x8xf32>
// DEFORM-NEXT: %20 = relay.nn.batch_matmul %w, %19 {transpose_b = false} : (tensor<2x3x8xf32>, tensor<1x2x8x16xf32>) -> tensor<1x2x3x16xf32>
// DEFORM-NEXT: %21 = relay.reshape %20 {newshape = [1, 6, 4, 4]}
// DEFORM:      %y = relay.nn.bias_add %21, %b : (tensor<1x6x4x4xf32>, tensor<6xf32>) -> tensor<1x6x4x4xf32>
