// Round trip of the relay nn ops: custom form -> custom form, and generic form (every
// property spelled out, defaults included) -> custom form. Defaults are not printed.
// RUN: accel-opt %s --split-input-file | accel-opt --split-input-file | filecheck %s
// RUN: accel-opt %s --split-input-file --print-op-generic | filecheck %s --check-prefix=GEN
// RUN: accel-opt %s --split-input-file --print-op-generic | accel-opt --split-input-file | filecheck %s

func.func @conv2d(%x: tensor<1x3x8x8xf32>, %w: tensor<8x3x3x3xf32>) -> tensor<1x8x4x4xf32> {
  %y = relay.nn.conv2d %x, %w {strides = [2, 2], padding = [1, 1, 1, 1]} : (tensor<1x3x8x8xf32>, tensor<8x3x3x3xf32>) -> tensor<1x8x4x4xf32>
  func.return %y : tensor<1x8x4x4xf32>
}
// CHECK-LABEL: func.func @conv2d
// CHECK-NEXT:  %y = relay.nn.conv2d %x, %w {strides = [2, 2], padding = [1, 1, 1, 1]} : (tensor<1x3x8x8xf32>, tensor<8x3x3x3xf32>) -> tensor<1x8x4x4xf32>
// CHECK-NEXT:  func.return %y : tensor<1x8x4x4xf32>
// GEN:         %y = "relay.nn.conv2d"(%x, %w) <{strides = array<i64: 2, 2>, padding = array<i64: 1, 1, 1, 1>, dilation = array<i64: 1, 1>, groups = 1 : i64}> : (tensor<1x3x8x8xf32>, tensor<8x3x3x3xf32>) -> tensor<1x8x4x4xf32>

// -----

func.func @conv2d_defaults(%x: tensor<1x3x8x8xf32>, %w: tensor<8x3x3x3xf32>) -> tensor<1x8x6x6xf32> {
  %y = relay.nn.conv2d %x, %w {strides = [1, 1], padding = [0, 0, 0, 0], dilation = [1, 1], groups = 1} : (tensor<1x3x8x8xf32>, tensor<8x3x3x3xf32>) -> tensor<1x8x6x6xf32>
  func.return %y : tensor<1x8x6x6xf32>
}
// CHECK-LABEL: func.func @conv2d_defaults
// CHECK-NEXT:  %y = relay.nn.conv2d %x, %w : (tensor<1x3x8x8xf32>, tensor<8x3x3x3xf32>) -> tensor<1x8x6x6xf32>
// CHECK-NEXT:  func.return %y : tensor<1x8x6x6xf32>
// GEN:         %y = "relay.nn.conv2d"(%x, %w) <{strides = array<i64: 1, 1>, padding = array<i64: 0, 0, 0, 0>, dilation = array<i64: 1, 1>, groups = 1 : i64}> : (tensor<1x3x8x8xf32>, tensor<8x3x3x3xf32>) -> tensor<1x8x6x6xf32>

// -----

func.func @conv2d_grouped_dilated(%x: tensor<2x8x9x9xf32>, %w: tensor<16x2x3x3xf32>) -> tensor<2x16x5x5xf32> {
  %y = relay.nn.conv2d %x, %w {padding = [0, 0, 0, 0], dilation = [2, 2], groups = 4} : (tensor<2x8x9x9xf32>, tensor<16x2x3x3xf32>) -> tensor<2x16x5x5xf32>
  func.return %y : tensor<2x16x5x5xf32>
}
// CHECK-LABEL: func.func @conv2d_grouped_dilated
// CHECK-NEXT:  %y = relay.nn.conv2d %x, %w {dilation = [2, 2], groups = 4} : (tensor<2x8x9x9xf32>, tensor<16x2x3x3xf32>) -> tensor<2x16x5x5xf32>
// CHECK-NEXT:  func.return %y : tensor<2x16x5x5xf32>
// GEN:         %y = "relay.nn.conv2d"(%x, %w) <{strides = array<i64: 1, 1>, padding = array<i64: 0, 0, 0, 0>, dilation = array<i64: 2, 2>, groups = 4 : i64}> : (tensor<2x8x9x9xf32>, tensor<16x2x3x3xf32>) -> tensor<2x16x5x5xf32>

// -----

func.func @dense(%x: tensor<4x16xf32>, %w: tensor<10x16xf32>) -> tensor<4x10xf32> {
  %y = relay.nn.dense %x, %w : (tensor<4x16xf32>, tensor<10x16xf32>) -> tensor<4x10xf32>
  func.return %y : tensor<4x10xf32>
}
// CHECK-LABEL: func.func @dense
// CHECK-NEXT:  %y = relay.nn.dense %x, %w : (tensor<4x16xf32>, tensor<10x16xf32>) -> tensor<4x10xf32>
// CHECK-NEXT:  func.return %y : tensor<4x10xf32>
// GEN:         %y = "relay.nn.dense"(%x, %w) : (tensor<4x16xf32>, tensor<10x16xf32>) -> tensor<4x10xf32>

// -----

func.func @matmul(%a: tensor<5x3xf32>, %b: tensor<4x5xf32>) -> tensor<3x4xf32> {
  %y = relay.nn.matmul %a, %b {transpose_a = true, transpose_b = true} : (tensor<5x3xf32>, tensor<4x5xf32>) -> tensor<3x4xf32>
  func.return %y : tensor<3x4xf32>
}
// CHECK-LABEL: func.func @matmul
// CHECK-NEXT:  %y = relay.nn.matmul %a, %b {transpose_a = true, transpose_b = true} : (tensor<5x3xf32>, tensor<4x5xf32>) -> tensor<3x4xf32>
// CHECK-NEXT:  func.return %y : tensor<3x4xf32>
// GEN:         %y = "relay.nn.matmul"(%a, %b) <{transpose_a = true, transpose_b = true}> : (tensor<5x3xf32>, tensor<4x5xf32>) -> tensor<3x4xf32>

// -----

func.func @batch_matmul(%a: tensor<2x3x5xf32>, %b: tensor<2x4x5xf32>, %c: tensor<1x5x4xf32>) -> (tensor<2x3x4xf32>, tensor<2x3x4xf32>) {
  %y = relay.nn.batch_matmul %a, %b : (tensor<2x3x5xf32>, tensor<2x4x5xf32>) -> tensor<2x3x4xf32>
  %z = relay.nn.batch_matmul %a, %c {transpose_b = false} : (tensor<2x3x5xf32>, tensor<1x5x4xf32>) -> tensor<2x3x4xf32>
  func.return %y, %z : tensor<2x3x4xf32>, tensor<2x3x4xf32>
}
// CHECK-LABEL: func.func @batch_matmul
// CHECK-NEXT:  %y = relay.nn.batch_matmul %a, %b : (tensor<2x3x5xf32>, tensor<2x4x5xf32>) -> tensor<2x3x4xf32>
// CHECK-NEXT:  %z = relay.nn.batch_matmul %a, %c {transpose_b = false} : (tensor<2x3x5xf32>, tensor<1x5x4xf32>) -> tensor<2x3x4xf32>
// CHECK-NEXT:  func.return %y, %z : tensor<2x3x4xf32>, tensor<2x3x4xf32>
// GEN:         %y = "relay.nn.batch_matmul"(%a, %b) <{transpose_a = false, transpose_b = true}> : (tensor<2x3x5xf32>, tensor<2x4x5xf32>) -> tensor<2x3x4xf32>
// GEN:         %z = "relay.nn.batch_matmul"(%a, %c) <{transpose_a = false, transpose_b = false}> : (tensor<2x3x5xf32>, tensor<1x5x4xf32>) -> tensor<2x3x4xf32>

// -----

func.func @bias_add(%x: tensor<1x8x4x4xf32>, %b: tensor<8xf32>, %c: tensor<4xf32>) -> (tensor<1x8x4x4xf32>, tensor<1x8x4x4xf32>) {
  %y = relay.nn.bias_add %x, %b : (tensor<1x8x4x4xf32>, tensor<8xf32>) -> tensor<1x8x4x4xf32>
  %z = relay.nn.bias_add %x, %c {axis = -1} : (tensor<1x8x4x4xf32>, tensor<4xf32>) -> tensor<1x8x4x4xf32>
  func.return %y, %z : tensor<1x8x4x4xf32>, tensor<1x8x4x4xf32>
}
// CHECK-LABEL: func.func @bias_add
// CHECK-NEXT:  %y = relay.nn.bias_add %x, %b : (tensor<1x8x4x4xf32>, tensor<8xf32>) -> tensor<1x8x4x4xf32>
// CHECK-NEXT:  %z = relay.nn.bias_add %x, %c {axis = -1} : (tensor<1x8x4x4xf32>, tensor<4xf32>) -> tensor<1x8x4x4xf32>
// CHECK-NEXT:  func.return %y, %z : tensor<1x8x4x4xf32>, tensor<1x8x4x4xf32>
// GEN:         %y = "relay.nn.bias_add"(%x, %b) <{axis = 1 : i64}> : (tensor<1x8x4x4xf32>, tensor<8xf32>) -> tensor<1x8x4x4xf32>
// GEN:         %z = "relay.nn.bias_add"(%x, %c) <{axis = -1 : i64}> : (tensor<1x8x4x4xf32>, tensor<4xf32>) -> tensor<1x8x4x4xf32>

// -----

func.func @activations(%x: tensor<2x10xf32>) -> (tensor<2x10xf32>, tensor<2x10xf32>, tensor<2x10xf32>, tensor<2x10xf32>, tensor<2x10xf32>) {
  %r = relay.nn.relu %x : tensor<2x10xf32>
  %l = relay.nn.leaky_relu %x {alpha = 0.2} : tensor<2x10xf32>
  %g = relay.nn.gelu %x : tensor<2x10xf32>
  %t = relay.nn.gelu %x {approximate = "tanh"} : tensor<2x10xf32>
  %s = relay.nn.softmax %x {axis = 0} : tensor<2x10xf32>
  func.return %r, %l, %g, %t, %s : tensor<2x10xf32>, tensor<2x10xf32>, tensor<2x10xf32>, tensor<2x10xf32>, tensor<2x10xf32>
}
// CHECK-LABEL: func.func @activations
// CHECK-NEXT:  %r = relay.nn.relu %x : tensor<2x10xf32>
// CHECK-NEXT:  %l = relay.nn.leaky_relu %x {alpha = 0.2} : tensor<2x10xf32>
// CHECK-NEXT:  %g = relay.nn.gelu %x : tensor<2x10xf32>
// CHECK-NEXT:  %t = relay.nn.gelu %x {approximate = "tanh"} : tensor<2x10xf32>
// CHECK-NEXT:  %s = relay.nn.softmax %x {axis = 0} : tensor<2x10xf32>
// CHECK-NEXT:  func.return %r, %l, %g, %t, %s : tensor<2x10xf32>, tensor<2x10xf32>, tensor<2x10xf32>, tensor<2x10xf32>, tensor<2x10xf32>
// GEN:         %r = "relay.nn.relu"(%x) : (tensor<2x10xf32>) -> tensor<2x10xf32>
// GEN:         %l = "relay.nn.leaky_relu"(%x) <{alpha = 2.000000e-01 : f64}> : (tensor<2x10xf32>) -> tensor<2x10xf32>
// GEN:         %g = "relay.nn.gelu"(%x) <{approximate = "none"}> : (tensor<2x10xf32>) -> tensor<2x10xf32>
// GEN:         %t = "relay.nn.gelu"(%x) <{approximate = "tanh"}> : (tensor<2x10xf32>) -> tensor<2x10xf32>
// GEN:         %s = "relay.nn.softmax"(%x) <{axis = 0 : i64}> : (tensor<2x10xf32>) -> tensor<2x10xf32>

// -----

func.func @hard_activations(%x: tensor<2x10xf32>) -> (tensor<2x10xf32>, tensor<2x10xf32>, tensor<2x10xf32>, tensor<2x10xf32>) {
  %a = relay.nn.hardsigmoid %x : tensor<2x10xf32>
  %b = relay.nn.hardsigmoid %x {alpha = 0.1666667, beta = 0.25} : tensor<2x10xf32>
  %c = relay.nn.hardswish %x : tensor<2x10xf32>
  %d = relay.nn.silu %x : tensor<2x10xf32>
  func.return %a, %b, %c, %d : tensor<2x10xf32>, tensor<2x10xf32>, tensor<2x10xf32>, tensor<2x10xf32>
}
// CHECK-LABEL: func.func @hard_activations
// CHECK-NEXT:  %a = relay.nn.hardsigmoid %x : tensor<2x10xf32>
// CHECK-NEXT:  %b = relay.nn.hardsigmoid %x {alpha = 0.1666667, beta = 0.25} : tensor<2x10xf32>
// CHECK-NEXT:  %c = relay.nn.hardswish %x : tensor<2x10xf32>
// CHECK-NEXT:  %d = relay.nn.silu %x : tensor<2x10xf32>
// GEN:         %a = "relay.nn.hardsigmoid"(%x) <{alpha = 2.000000e-01 : f64, beta = 5.000000e-01 : f64}> : (tensor<2x10xf32>) -> tensor<2x10xf32>
// GEN:         %b = "relay.nn.hardsigmoid"(%x) <{alpha = 0.1666667 : f64, beta = 2.500000e-01 : f64}> : (tensor<2x10xf32>) -> tensor<2x10xf32>
// GEN:         %c = "relay.nn.hardswish"(%x) : (tensor<2x10xf32>) -> tensor<2x10xf32>
// GEN:         %d = "relay.nn.silu"(%x) : (tensor<2x10xf32>) -> tensor<2x10xf32>

// -----

func.func @pools(%x: tensor<1x4x7x7xf32>) -> (tensor<1x4x4x4xf32>, tensor<1x4x3x3xf32>, tensor<1x4x1x1xf32>) {
  %m = relay.nn.max_pool2d %x {pool_size = [3, 3], strides = [2, 2], padding = [1, 1, 1, 1], ceil_mode = true} : (tensor<1x4x7x7xf32>) -> tensor<1x4x4x4xf32>
  %a = relay.nn.avg_pool2d %x {pool_size = [2, 2], strides = [2, 2], count_include_pad = true} : (tensor<1x4x7x7xf32>) -> tensor<1x4x3x3xf32>
  %g = relay.nn.global_avg_pool2d %x : (tensor<1x4x7x7xf32>) -> tensor<1x4x1x1xf32>
  func.return %m, %a, %g : tensor<1x4x4x4xf32>, tensor<1x4x3x3xf32>, tensor<1x4x1x1xf32>
}
// CHECK-LABEL: func.func @pools
// CHECK-NEXT:  %m = relay.nn.max_pool2d %x {pool_size = [3, 3], strides = [2, 2], padding = [1, 1, 1, 1], ceil_mode = true} : (tensor<1x4x7x7xf32>) -> tensor<1x4x4x4xf32>
// CHECK-NEXT:  %a = relay.nn.avg_pool2d %x {pool_size = [2, 2], strides = [2, 2], count_include_pad = true} : (tensor<1x4x7x7xf32>) -> tensor<1x4x3x3xf32>
// CHECK-NEXT:  %g = relay.nn.global_avg_pool2d %x : (tensor<1x4x7x7xf32>) -> tensor<1x4x1x1xf32>
// CHECK-NEXT:  func.return %m, %a, %g : tensor<1x4x4x4xf32>, tensor<1x4x3x3xf32>, tensor<1x4x1x1xf32>
// GEN:         %m = "relay.nn.max_pool2d"(%x) <{pool_size = array<i64: 3, 3>, strides = array<i64: 2, 2>, dilation = array<i64: 1, 1>, padding = array<i64: 1, 1, 1, 1>, ceil_mode = true}> : (tensor<1x4x7x7xf32>) -> tensor<1x4x4x4xf32>
// GEN:         %a = "relay.nn.avg_pool2d"(%x) <{pool_size = array<i64: 2, 2>, strides = array<i64: 2, 2>, dilation = array<i64: 1, 1>, padding = array<i64: 0, 0, 0, 0>, ceil_mode = false, count_include_pad = true}> : (tensor<1x4x7x7xf32>) -> tensor<1x4x3x3xf32>
// GEN:         %g = "relay.nn.global_avg_pool2d"(%x) : (tensor<1x4x7x7xf32>) -> tensor<1x4x1x1xf32>

// -----

func.func @norms(%x: tensor<2x3x4xf32>, %c: tensor<3xf32>, %n: tensor<4xf32>, %g: tensor<3x4xf32>) -> (tensor<2x3x4xf32>, tensor<2x3x4xf32>, tensor<2x3x4xf32>) {
  %b = relay.nn.batch_norm %x, %c, %c, %c, %c {epsilon = 0.001} : (tensor<2x3x4xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<2x3x4xf32>
  %l = relay.nn.layer_norm %x, %n, %n {epsilon = 1.0e-12} : (tensor<2x3x4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<2x3x4xf32>
  %r = relay.nn.rms_norm %x, %g {axis = 1, epsilon = 1.0e-06} : (tensor<2x3x4xf32>, tensor<3x4xf32>) -> tensor<2x3x4xf32>
  func.return %b, %l, %r : tensor<2x3x4xf32>, tensor<2x3x4xf32>, tensor<2x3x4xf32>
}
// CHECK-LABEL: func.func @norms
// CHECK-NEXT:  %b = relay.nn.batch_norm %x, %c, %c, %c, %c {epsilon = 0.001} : (tensor<2x3x4xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<2x3x4xf32>
// CHECK-NEXT:  %l = relay.nn.layer_norm %x, %n, %n {epsilon = 1.0e-12} : (tensor<2x3x4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<2x3x4xf32>
// CHECK-NEXT:  %r = relay.nn.rms_norm %x, %g {axis = 1, epsilon = 1.0e-06} : (tensor<2x3x4xf32>, tensor<3x4xf32>) -> tensor<2x3x4xf32>
// CHECK-NEXT:  func.return %b, %l, %r : tensor<2x3x4xf32>, tensor<2x3x4xf32>, tensor<2x3x4xf32>
// GEN:         %b = "relay.nn.batch_norm"(%x, %c, %c, %c, %c) <{axis = 1 : i64, epsilon = 1.000000e-03 : f64}> : (tensor<2x3x4xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<2x3x4xf32>
// GEN:         %l = "relay.nn.layer_norm"(%x, %n, %n) <{axis = -1 : i64, epsilon = 1.000000e-12 : f64}> : (tensor<2x3x4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<2x3x4xf32>
// GEN:         %r = "relay.nn.rms_norm"(%x, %g) <{axis = 1 : i64, epsilon = 1.000000e-06 : f64}> : (tensor<2x3x4xf32>, tensor<3x4xf32>) -> tensor<2x3x4xf32>

// -----

func.func @pad_flatten(%x: tensor<1x2x3x3xf32>) -> (tensor<1x2x5x6xf32>, tensor<1x2x5x5xf32>, tensor<1x18xf32>) {
  %p = relay.nn.pad %x {pad_width = [0, 0, 0, 0, 1, 1, 1, 2], pad_value = -1.5} : (tensor<1x2x3x3xf32>) -> tensor<1x2x5x6xf32>
  %r = relay.nn.pad %x {pad_width = [0, 0, 0, 0, 1, 1, 1, 1], pad_mode = "reflect"} : (tensor<1x2x3x3xf32>) -> tensor<1x2x5x5xf32>
  %f = relay.nn.batch_flatten %x : (tensor<1x2x3x3xf32>) -> tensor<1x18xf32>
  func.return %p, %r, %f : tensor<1x2x5x6xf32>, tensor<1x2x5x5xf32>, tensor<1x18xf32>
}
// CHECK-LABEL: func.func @pad_flatten
// CHECK-NEXT:  %p = relay.nn.pad %x {pad_width = [0, 0, 0, 0, 1, 1, 1, 2], pad_value = -1.5} : (tensor<1x2x3x3xf32>) -> tensor<1x2x5x6xf32>
// CHECK-NEXT:  %r = relay.nn.pad %x {pad_width = [0, 0, 0, 0, 1, 1, 1, 1], pad_mode = "reflect"} : (tensor<1x2x3x3xf32>) -> tensor<1x2x5x5xf32>
// CHECK-NEXT:  %f = relay.nn.batch_flatten %x : (tensor<1x2x3x3xf32>) -> tensor<1x18xf32>
// CHECK-NEXT:  func.return %p, %r, %f : tensor<1x2x5x6xf32>, tensor<1x2x5x5xf32>, tensor<1x18xf32>
// GEN:         %p = "relay.nn.pad"(%x) <{pad_width = array<i64: 0, 0, 0, 0, 1, 1, 1, 2>, pad_value = -1.500000e+00 : f64, pad_mode = "constant"}> : (tensor<1x2x3x3xf32>) -> tensor<1x2x5x6xf32>
// GEN:         %r = "relay.nn.pad"(%x) <{pad_width = array<i64: 0, 0, 0, 0, 1, 1, 1, 1>, pad_value = 0.000000e+00 : f64, pad_mode = "reflect"}> : (tensor<1x2x3x3xf32>) -> tensor<1x2x5x5xf32>
// GEN:         %f = "relay.nn.batch_flatten"(%x) : (tensor<1x2x3x3xf32>) -> tensor<1x18xf32>
