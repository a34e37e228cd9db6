// The last vision pools (compiler/frontend/onnx/ops_vision.py): GlobalLpPool is |x|^p
// summed over the spatial axes (kept as axes of one), to the 1/p (x * x and sqrt for
// p = 2, abs alone for p = 1, power otherwise; any rank >= 3); MaxRoiPool is
// relay.vision.roi_pool, a host C kernel on the npu target.

// RUN: %python %S/Inputs/make_model.py pools %t.onnx
// RUN: accel-opt %t.onnx | filecheck %s
// CHECK:        %0 = relay.multiply %x, %x : tensor<1x2x6x6xf32>
// CHECK-NEXT:   %1 = relay.sum %0 {axis = [2, 3], keepdims = true} : (tensor<1x2x6x6xf32>) -> tensor<1x2x1x1xf32>
// CHECK-NEXT:   %g2 = relay.sqrt %1 : tensor<1x2x1x1xf32>
// CHECK-NEXT:   %2 = relay.abs %v : tensor<1x2x3x4x5xf32>
// CHECK-NEXT:   %3 = relay.constant dense<3.000000e+00> : tensor<f32>
// CHECK-NEXT:   %4 = relay.power %2, %3 : (tensor<1x2x3x4x5xf32>, tensor<f32>) -> tensor<1x2x3x4x5xf32>
// CHECK-NEXT:   %5 = relay.sum %4 {axis = [2, 3, 4], keepdims = true} : (tensor<1x2x3x4x5xf32>) -> tensor<1x2x1x1x1xf32>
// CHECK-NEXT:   %6 = relay.constant dense<0.333333343> : tensor<f32>
// CHECK-NEXT:   %g3 = relay.power %5, %6 : (tensor<1x2x1x1x1xf32>, tensor<f32>) -> tensor<1x2x1x1x1xf32>
// CHECK-NEXT:   %7 = relay.abs %s : tensor<2x3x7xf32>
// CHECK-NEXT:   %g1 = relay.sum %7 {axis = [2], keepdims = true} : (tensor<2x3x7xf32>) -> tensor<2x3x1xf32>
// CHECK-NEXT:   %rp = relay.vision.roi_pool %x, %rois {pooled_shape = [2, 3], spatial_scale = 0.5} : (tensor<1x2x6x6xf32>, tensor<4x5xf32>) -> tensor<4x2x2x3xf32>
// CHECK-NEXT:   func.return %g2, %g3, %g1, %rp

// The C of the npu target: roi_pool is a host kernel call (the rois range-checked there).
// RUN: accel-opt %t.onnx -p full --target npu -t c | filecheck %s --check-prefix=C
// C: acc_roi_pool_f32({{.*}}, 1, 2, 6, 6, 4, 2, 3, 0.5)

// Refusals: one line naming the node.
// RUN: %python %S/Inputs/make_model.py pools_bad_rois %t.rois.onnx
// RUN: not accel-opt %t.rois.onnx 2>&1 | filecheck %s --check-prefix=ROIS
// ROIS: accel-opt: {{.*}}rois.onnx: error: node 'bad_rois' (MaxRoiPool): rois [3, 4] must be [R, 5]
// ROIS-NOT: {{.}}
// RUN: %python %S/Inputs/make_model.py pools_bad_p %t.p.onnx
// RUN: not accel-opt %t.p.onnx 2>&1 | filecheck %s --check-prefix=P
// P: accel-opt: {{.*}}p.onnx: error: node 'bad_p' (GlobalLpPool): p = 0 is not supported (a positive integer)
// P-NOT: {{.}}
