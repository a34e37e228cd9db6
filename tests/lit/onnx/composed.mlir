// ONNX ops relay composes from its own ops (compiler/frontend/onnx/ops_composed.py):
// LogSoftmax shifted by the max, ArgMax as the first position equal to the max, ReduceL2,
// Tile as reshape + broadcast_to (only repeated axes get a new axis; the others merge), InstanceNormalization
// per channel, LRN's window sum as a 1x1 convolution with a banded 0/1 weight.

// RUN: %python %S/Inputs/make_model.py composed %t.onnx
// RUN: accel-opt %t.onnx | filecheck %s
// CHECK:        %0 = relay.max %x {axis = [3], keepdims = true}
// CHECK-NEXT:   %1 = relay.subtract %x, %0
// CHECK-NEXT:   %2 = relay.exp %1
// CHECK-NEXT:   %3 = relay.sum %2 {axis = [3], keepdims = true}
// CHECK-NEXT:   %4 = relay.log %3
// CHECK-NEXT:   %ls = relay.subtract %1, %4
// CHECK-NEXT:   %5 = relay.max %x {axis = [1], keepdims = true}
// CHECK-NEXT:   %6 = relay.equal %x, %5 : (tensor<1x3x2x2xf32>, tensor<1x1x2x2xf32>) -> tensor<1x3x2x2xi1>
// CHECK-NEXT:   %7 = relay.constant dense<{{\[\[\[\[}}0]], {{\[\[}}1]], {{\[\[}}2]]]]> : tensor<1x3x1x1xi64>
// CHECK-NEXT:   %8 = relay.constant dense<3> : tensor<i64>
// CHECK-NEXT:   %9 = relay.where %6, %7, %8
// CHECK-NEXT:   %am = relay.min %9 {axis = [1]} : (tensor<1x3x2x2xi64>) -> tensor<1x2x2xi64>
// CHECK:        %l2 = relay.sqrt
// CHECK-NEXT:   %12 = relay.reshape %l2 {newshape = [3, 1, 1, 1, 1]}
// CHECK-NEXT:   %13 = relay.broadcast_to %12 {shape = [3, 2, 1, 4, 1]}
// CHECK-NEXT:   %t = relay.reshape %13 {newshape = [1, 3, 2, 4]}
// CHECK:        relay.mean %x {axis = [2, 3], keepdims = true}
// CHECK:        %inorm = relay.add
// CHECK:        relay.nn.conv2d {{.*}} : (tensor<1x3x2x2xf32>, tensor<3x3x1x1xf32>) -> tensor<1x3x2x2xf32>
// CHECK:        relay.power
// CHECK-NEXT:   %y = relay.divide %inorm

// A repeat count computed at run time, an unsupported norm order: one line naming the node.
// RUN: %python %S/Inputs/make_model.py tile_runtime_repeats %t.tile.onnx
// RUN: not accel-opt %t.tile.onnx 2>&1 | filecheck %s --check-prefix=TILE
// TILE: accel-opt: {{.*}}tile.onnx: error: node 'tile_rt' (Tile): repeats ('r') must be a constant; it is a graph input: bind it with --bind-inputs r=VALUE
// TILE-NOT: {{.}}
// RUN: %python %S/Inputs/make_model.py lp_norm_p3 %t.lp.onnx
// RUN: not accel-opt %t.lp.onnx 2>&1 | filecheck %s --check-prefix=LP
// LP: accel-opt: {{.*}}lp.onnx: error: node 'lp3' (LpNormalization): p = 3 is not supported (1 or 2)
// LP-NOT: {{.}}
