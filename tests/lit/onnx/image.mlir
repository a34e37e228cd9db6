// The image and layout ops import into their relay ops: Resize with constant scales or
// sizes (Upsample-9 as Resize), ConvTranspose with groups/strides/pads/output_padding
// (+ bias_add), DepthToSpace/SpaceToDepth, GatherElements, and MaxPool's Indices output.

// RUN: %python %S/Inputs/make_model.py image_ops %t.img.onnx
// RUN: accel-opt %t.img.onnx | filecheck %s
// CHECK:      func.func @main(%x: tensor<1x2x3x3xf32> {accel.name = "x"}) -> (tensor<1x2x6x6xf32> {accel.name = "y"}, tensor<1x8x6x6xi64> {accel.name = "idx"}) {
// CHECK-NEXT:   %up = relay.image.resize2d %x {size = [6, 6], scale_h = 2.0, scale_w = 2.0, coordinate_transformation_mode = "asymmetric", nearest_mode = "floor"} : (tensor<1x2x3x3xf32>) -> tensor<1x2x6x6xf32>
// CHECK-NEXT:   %lin = relay.image.resize2d %up {size = [6, 6], method = "linear", coordinate_transformation_mode = "pytorch_half_pixel"} : (tensor<1x2x6x6xf32>) -> tensor<1x2x6x6xf32>
// CHECK:        %0 = relay.nn.conv2d_transpose %lin, %w {strides = [2, 2], padding = [1, 1, 1, 1], groups = 2, output_padding = [1, 1]} : (tensor<1x2x6x6xf32>, tensor<2x4x3x3xf32>) -> tensor<1x8x12x12xf32>
// CHECK:        %ct = relay.nn.bias_add %0, %b : (tensor<1x8x12x12xf32>, tensor<8xf32>) -> tensor<1x8x12x12xf32>
// CHECK-NEXT:   %d2s = relay.nn.depth_to_space %ct {block_size = 2, mode = "CRD"} : (tensor<1x8x12x12xf32>) -> tensor<1x2x24x24xf32>
// CHECK-NEXT:   %s2d = relay.nn.space_to_depth %d2s {block_size = 2} : (tensor<1x2x24x24xf32>) -> tensor<1x8x12x12xf32>
// CHECK-NEXT:   %mp = relay.nn.max_pool2d %s2d {pool_size = [2, 2], strides = [2, 2]} : (tensor<1x8x12x12xf32>) -> tensor<1x8x6x6xf32>
// CHECK-NEXT:   %idx = relay.nn.max_pool2d_indices %s2d {pool_size = [2, 2], strides = [2, 2]} : (tensor<1x8x12x12xf32>) -> tensor<1x8x6x6xi64>
// CHECK:        %y = relay.gather %mp, %gi {axis = 1} : (tensor<1x8x6x6xf32>, tensor<1x2x6x6xi64>) -> tensor<1x2x6x6xf32>
// CHECK-NEXT:   func.return %y, %idx : tensor<1x2x6x6xf32>, tensor<1x8x6x6xi64>

// RUN: %python %S/Inputs/make_model.py upsample9 %t.up.onnx
// RUN: accel-opt %t.up.onnx | filecheck %s --check-prefix=UP
// UP: %y = relay.image.resize2d %x {size = [4, 6], scale_h = 2.0, scale_w = 3.0, coordinate_transformation_mode = "asymmetric", nearest_mode = "floor"} : (tensor<1x1x2x2xf32>) -> tensor<1x1x4x6xf32>

// Cubic with its coefficient and exclude_outside, tf_crop_and_resize with the roi of the
// spatial axes and the extrapolation value, antialias: properties of resize2d.
// RUN: %python %S/Inputs/make_model.py resize_cubic %t.cubic.onnx
// RUN: accel-opt %t.cubic.onnx | filecheck %s --check-prefix=CUBIC
// CUBIC:      %y = relay.image.resize2d %x {size = [4, 4], scale_h = 2.0, scale_w = 2.0, method = "cubic", cubic_coeff_a = -0.5, exclude_outside = true} : (tensor<1x1x2x2xf32>) -> tensor<1x1x4x4xf32>
// CUBIC-NEXT: %z = relay.image.resize2d %y {size = [3, 5], method = "linear", coordinate_transformation_mode = "tf_crop_and_resize", roi = [0.4000000059604645, 0.6000000238418579, 1.2000000476837158, 1.7000000476837158], extrapolation_value = 10.0} : (tensor<1x1x4x4xf32>) -> tensor<1x1x3x5xf32>
// CUBIC-NEXT: %a = relay.image.resize2d %z {size = [2, 3], scale_h = 0.800000011920929, scale_w = 0.6000000238418579, method = "cubic", antialias = true} : (tensor<1x1x3x5xf32>) -> tensor<1x1x2x3xf32>

// What does not import is one line naming the node.
// RUN: %python %S/Inputs/make_model.py resize_crop_nearest %t.cropnn.onnx
// RUN: not accel-opt %t.cropnn.onnx 2>&1 | filecheck %s --check-prefix=CROPNN
// CROPNN: accel-opt: {{.*}}cropnn.onnx: error: node 'crop_nn' (Resize): tf_crop_and_resize with mode 'nearest' is not supported (linear and cubic are)
// CROPNN-NOT: {{.}}
// RUN: %python %S/Inputs/make_model.py resize_channels %t.chan.onnx
// RUN: not accel-opt %t.chan.onnx 2>&1 | filecheck %s --check-prefix=CHAN
// CHAN: accel-opt: {{.*}}chan.onnx: error: node 'resize_4' (Resize): scales [1.0, 2.0, 2.0, 2.0] may only scale the two spatial axes
// CHAN-NOT: {{.}}
// RUN: %python %S/Inputs/make_model.py conv_rank6 %t.c6.onnx
// RUN: not accel-opt %t.c6.onnx 2>&1 | filecheck %s --check-prefix=C6
// C6: accel-opt: {{.*}}c6.onnx: error: node 'conv4d' (Conv): convolution on rank-6 input is not supported (1-D, 2-D and 3-D: rank 3, 4 or 5)
// C6-NOT: {{.}}
// RUN: %python %S/Inputs/make_model.py maxpool3d_indices %t.mpi.onnx
// RUN: not accel-opt %t.mpi.onnx 2>&1 | filecheck %s --check-prefix=MPI
// MPI: accel-opt: {{.*}}mpi.onnx: error: node 'max3d_idx' (MaxPool): MaxPool's Indices output on rank-5 input is not supported (only 1-D and 2-D: rank 3 or 4)
// MPI-NOT: {{.}}

// 3-D (NCDHW) ops as 2-D relay ops (ops_volume.py). ConvTranspose: the input depths that
// reach each output depth gathered as channels (the zero slice at index D where none
// does), one conv2d_transpose, the depth moved back.
// RUN: %python %S/Inputs/make_model.py conv_transpose_3d %t.ct3.onnx
// RUN: accel-opt %t.ct3.onnx | filecheck %s --check-prefix=CT3
// CT3:      relay.transpose %w {axes = [0, 2, 1, 3, 4]} : (tensor<1x1x2x2x2xf32>) -> tensor<1x2x1x2x2xf32>
// CT3:      relay.nn.pad %x {pad_width = [0, 0, 0, 0, 0, 1, 0, 0, 0, 0]} : (tensor<1x1x2x2x2xf32>) -> tensor<1x1x3x2x2xf32>
// CT3-NEXT: relay.constant dense<{{\[\[}}0, 2], [1, 0], [2, 1]]> : tensor<3x2xi64>
// CT3-NEXT: relay.take %{{[0-9]+}}, %{{[0-9]+}} {axis = 2} : (tensor<1x1x3x2x2xf32>, tensor<3x2xi64>) -> tensor<1x1x3x2x2x2xf32>
// CT3-NEXT: relay.transpose %{{[0-9]+}} {axes = [0, 2, 1, 3, 4, 5]} : (tensor<1x1x3x2x2x2xf32>) -> tensor<1x3x1x2x2x2xf32>
// CT3-NEXT: relay.reshape %{{[0-9]+}} {newshape = [3, 2, 2, 2]} : (tensor<1x3x1x2x2x2xf32>) -> tensor<3x2x2x2xf32>
// CT3-NEXT: relay.nn.conv2d_transpose %{{[0-9]+}}, %{{[0-9]+}} : (tensor<3x2x2x2xf32>, tensor<2x1x2x2xf32>) -> tensor<3x1x3x3xf32>
// CT3-NEXT: relay.reshape %{{[0-9]+}} {newshape = [1, 3, 1, 3, 3]} : (tensor<3x1x3x3xf32>) -> tensor<1x3x1x3x3xf32>
// CT3-NEXT: %y = relay.transpose %{{[0-9]+}} {axes = [0, 2, 1, 3, 4]} : (tensor<1x3x1x3x3xf32>) -> tensor<1x1x3x3x3xf32>

// Conv: the depth taps of each output depth (stride 2, one padded slice each side: index
// 4 is the zero slice); pools: the (H, W) window, then the depth window (skipped when 1).
// RUN: %python %S/Inputs/make_model.py volume_ops %t.vol.onnx
// RUN: accel-opt %t.vol.onnx | filecheck %s --check-prefix=VOL
// VOL:      relay.constant dense<{{\[\[}}4, 0], [1, 2], [3, 4]]> : tensor<3x2xi64>
// VOL:      relay.nn.conv2d %{{[0-9]+}}, %w : (tensor<3x4x3x3xf32>, tensor<3x4x1x1xf32>) -> tensor<3x3x3x3xf32>
// VOL:      %c = relay.nn.bias_add %{{[0-9]+}}, %b : (tensor<1x3x3x3x3xf32>, tensor<3xf32>) -> tensor<1x3x3x3x3xf32>
// VOL:      relay.nn.max_pool2d %{{[0-9]+}} {pool_size = [2, 2]} : (tensor<1x9x3x3xf32>) -> tensor<1x9x2x2xf32>
// VOL:      relay.nn.max_pool2d %{{[0-9]+}} {pool_size = [2, 1]} : (tensor<3x1x3x4xf32>) -> tensor<3x1x2x4xf32>
// VOL:      relay.nn.avg_pool2d %{{[0-9]+}} {pool_size = [2, 1], padding = [1, 0, 0, 0], count_include_pad = true} : (tensor<1x6x2x2xf32>) -> tensor<1x6x2x2xf32>
// VOL-NEXT: %y = relay.reshape %{{[0-9]+}} {newshape = [1, 3, 2, 2, 2]} : (tensor<1x6x2x2xf32>) -> tensor<1x3x2x2x2xf32>

// Clip with a run-time bound is relay.dyn.clip (the missing max: +inf); bound, a clip.
// RUN: %python %S/Inputs/make_model.py runtime_clip %t.clip.onnx
// RUN: accel-opt %t.clip.onnx | filecheck %s --check-prefix=CLIP
// CLIP:      %0 = relay.constant dense<"0x0000807F"> : tensor<f32>
// CLIP-NEXT: %y = relay.dyn.clip %x, %lo, %0 : (tensor<2x3xf32>, tensor<f32>, tensor<f32>) -> tensor<2x3xf32>
// RUN: accel-opt %t.clip.onnx --bind-inputs lo=0.5 | filecheck %s --check-prefix=BOUND
// BOUND: %y = relay.clip %x {a_min = 0.5, a_max = inf} : tensor<2x3xf32>

// Resize's scales as a graph input: bound, it imports; unbound, the error says how.
// RUN: %python %S/Inputs/make_model.py resize_runtime_scales %t.rs.onnx
// RUN: not accel-opt %t.rs.onnx 2>&1 | filecheck %s --check-prefix=RUNTIME
// RUNTIME: accel-opt: {{.*}}rs.onnx: error: node 'resize_5' (Resize): the scales input ('s') must be a constant; it is a graph input: bind it with --bind-inputs s=VALUE
// RUN: accel-opt %t.rs.onnx --bind-inputs 's=[1,1,2,2]' | filecheck %s --check-prefix=RSBOUND
// RSBOUND: func.func @main(%x: tensor<1x1x2x2xf32> {accel.name = "x"}) -> (tensor<1x1x4x4xf32> {accel.name = "y"})
// RSBOUND: relay.image.resize2d %x {size = [4, 4], scale_h = 2.0, scale_w = 2.0} : (tensor<1x1x2x2xf32>) -> tensor<1x1x4x4xf32>
