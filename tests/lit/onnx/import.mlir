// ONNX models import into relay: graph inputs that are not initializers become @main's
// arguments, outputs its results (ONNX names in `accel.name`), each op is located at its
// node, large initializers stay external tensors of the model file.

// RUN: %python %S/Inputs/make_model.py conv_relu %t.conv.onnx
// RUN: accel-opt %t.conv.onnx | filecheck %s
// RUN: accel-opt -f onnx %t.conv.onnx | filecheck %s
// CHECK:      builtin.module attributes {relay.weights = "{{/.*}}conv.onnx"} {
// CHECK-NEXT:   func.func @main(%x: tensor<1x3x4x4xf32> {accel.name = "x"}) -> (tensor<1x10xf32> {accel.name = "y"}) {
// CHECK-NEXT:     %w = relay.constant external "w" : tensor<8x3x3x3xf32>
// CHECK-NEXT:     %0 = relay.nn.conv2d %x, %w {strides = [2, 2], padding = [1, 1, 1, 1]} : (tensor<1x3x4x4xf32>, tensor<8x3x3x3xf32>) -> tensor<1x8x2x2xf32>
// CHECK-NEXT:     %b = relay.constant dense<[{{.*}}]> : tensor<8xf32>
// CHECK-NEXT:     %c = relay.nn.bias_add %0, %b : (tensor<1x8x2x2xf32>, tensor<8xf32>) -> tensor<1x8x2x2xf32>
// CHECK-NEXT:     %r = relay.nn.relu %c : tensor<1x8x2x2xf32>
// CHECK-NEXT:     %f = relay.reshape %r {newshape = [1, 32]} : (tensor<1x8x2x2xf32>) -> tensor<1x32xf32>
// CHECK-NEXT:     %fw = relay.constant external "fw" : tensor<10x32xf32>
// CHECK-NEXT:     %1 = relay.nn.dense %f, %fw : (tensor<1x32xf32>, tensor<10x32xf32>) -> tensor<1x10xf32>
// CHECK-NEXT:     %fb = relay.constant dense<[{{.*}}]> : tensor<10xf32>
// CHECK-NEXT:     %y = relay.nn.bias_add %1, %fb : (tensor<1x10xf32>, tensor<10xf32>) -> tensor<1x10xf32>
// CHECK-NEXT:     func.return %y : tensor<1x10xf32>

// Locations name the node (or the tensor, for constants).
// RUN: accel-opt %t.conv.onnx --print-debuginfo | filecheck %s --check-prefix=LOC
// LOC: relay.constant external "w" : tensor<8x3x3x3xf32> loc("w")
// LOC: relay.nn.conv2d {{.*}} loc("conv_1")
// LOC: relay.nn.bias_add {{.*}} loc("conv_1")
// LOC: relay.nn.relu {{.*}} loc("relu_1")
// LOC: relay.nn.dense {{.*}} loc("fc")

// From standard input there is no file to refer to: every constant is inline.
// RUN: accel-opt -f onnx < %t.conv.onnx | filecheck %s --check-prefix=STDIN
// STDIN: builtin.module {
// STDIN: relay.constant dense<"0x{{[0-9A-F]+}}"> : tensor<8x3x3x3xf32>
// STDIN-NOT: external

// The printed IR reads its weights back from the model file.
// RUN: accel-opt %t.conv.onnx -o %t.conv.mlir
// RUN: %python -c "import numpy as np; np.savez('%t.in.npz', x=np.ones((1, 3, 4, 4), np.float32))"
// RUN: accel-run %t.conv.mlir --inputs %t.in.npz --outputs %t.ir.npz
// RUN: accel-run %t.conv.onnx --inputs %t.in.npz --outputs %t.onnx.npz
// RUN: %python -c "import numpy as np; a = np.load('%t.ir.npz')['y']; b = np.load('%t.onnx.npz')['y']; print(a.shape, np.array_equal(a, b))" | filecheck %s --check-prefix=SAME
// SAME: (1, 10) True

// Shape computations are evaluated at import time: only the reshape is left.
// RUN: %python %S/Inputs/make_model.py shape_chain %t.shape.onnx
// RUN: accel-opt %t.shape.onnx | filecheck %s --check-prefix=SHAPE
// SHAPE:      func.func @main(%x: tensor<2x3x4xf32> {accel.name = "x"}) -> (tensor<2x12xf32> {accel.name = "y"}) {
// SHAPE-NEXT:   %y = relay.reshape %x {newshape = [2, 12]} : (tensor<2x3x4xf32>) -> tensor<2x12xf32>
// SHAPE-NEXT:   func.return %y : tensor<2x12xf32>

// Blocked Q/DQ: the block scales and zero points repeat along the axis (the last block
// short: a slice), and the op runs per element on x flattened.
// RUN: %python %S/Inputs/make_model.py qdq_blocked %t.qb.onnx
// RUN: accel-opt %t.qb.onnx | filecheck %s --check-prefix=QB
// QB:      relay.broadcast_to %{{[0-9]+}} {shape = [2, 2, 2]} : (tensor<2x2x1xi8>) -> tensor<2x2x2xi8>
// QB:      relay.strided_slice %{{[0-9]+}} {begin = [0], end = [3], axes = [1]} : (tensor<2x4xi8>) -> tensor<2x3xi8>
// QB:      relay.qnn.quantize %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}} {axis = 0} : (tensor<6xf32>, tensor<6xf32>, tensor<6xi8>) -> tensor<6xi8>
// QB-NEXT: %q = relay.reshape %{{[0-9]+}} {newshape = [2, 3]} : (tensor<6xi8>) -> tensor<2x3xi8>
// QB:      relay.qnn.dequantize %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}} {axis = 0} : (tensor<6xi8>, tensor<6xf32>, tensor<6xi8>) -> tensor<6xf32>
// QB-NEXT: %y = relay.reshape %{{[0-9]+}} {newshape = [2, 3]} : (tensor<6xf32>) -> tensor<2x3xf32>
// RUN: %python %S/Inputs/make_model.py qdq_blocked_bad_scale %t.qbb.onnx
// RUN: not accel-opt %t.qbb.onnx 2>&1 | filecheck %s --check-prefix=QBB
// QBB: accel-opt: {{.*}}qbb.onnx: error: node 'dq_bad' (DequantizeLinear): input 1 [2, 3] must have the shape [2, 2] of blocks of 2 along axis 1
// QBB-NOT: {{.}}

// A result with a zero in its shape holds no data: an empty constant (0 bytes in C),
// whatever the inputs; a negative split size is still one line naming the node.
// RUN: %python %S/Inputs/make_model.py empty_results %t.empty.onnx
// RUN: accel-opt %t.empty.onnx | filecheck %s --check-prefix=EMPTY
// EMPTY:      func.func @main(%x: tensor<2x3xf32> {accel.name = "x"}, %e: tensor<0x4xf32> {accel.name = "e"})
// EMPTY:      %[[S:[0-9]+]] = relay.constant dense<> : tensor<2x0xf32>
// EMPTY-NEXT: %[[B:[0-9]+]] = relay.constant dense<> : tensor<2x0xf32>
// EMPTY-NEXT: %[[R:[0-9]+]] = relay.constant dense<> : tensor<4x0xf32>
// EMPTY-NEXT: func.return %[[S]], %a, %[[B]], %[[R]] : tensor<2x0xf32>, tensor<2x3xf32>, tensor<2x0xf32>, tensor<4x0xf32>
// RUN: %python %S/Inputs/make_model.py split_negative %t.splitneg.onnx
// RUN: not accel-opt %t.splitneg.onnx 2>&1 | filecheck %s --check-prefix=SPLITNEG
// SPLITNEG: accel-opt: {{.*}}splitneg.onnx: error: node 'split_neg' (Split): split sizes [4, -1] do not cover the dimension 3 with 2 outputs
// SPLITNEG-NOT: {{.}}

// QDQ stays Q/DQ around the float conv (fusing is the pattern matcher's job);
// per-channel weights keep their axis.
// RUN: %python %S/Inputs/make_model.py qdq %t.qdq.onnx
// RUN: accel-opt %t.qdq.onnx | filecheck %s --check-prefix=QDQ
// QDQ:      %xq = relay.qnn.quantize %x, %xs, %xz : (tensor<1x2x5x5xf32>, tensor<f32>, tensor<i8>) -> tensor<1x2x5x5xi8>
// QDQ-NEXT: %xd = relay.qnn.dequantize %xq, %xs, %xz : (tensor<1x2x5x5xi8>, tensor<f32>, tensor<i8>) -> tensor<1x2x5x5xf32>
// QDQ-NEXT: %w = relay.constant external "w" : tensor<4x2x3x3xi8>
// QDQ:      %wd = relay.qnn.dequantize %w, %ws, %wz {axis = 0} : (tensor<4x2x3x3xi8>, tensor<4xf32>, tensor<4xi8>) -> tensor<4x2x3x3xf32>
// QDQ-NEXT: %y = relay.nn.conv2d %xd, %wd : (tensor<1x2x5x5xf32>, tensor<4x2x3x3xf32>) -> tensor<1x4x3x3xf32>
