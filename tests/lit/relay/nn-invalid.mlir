// Verifier errors of the relay nn ops.
// Every chunk fails verification with one located line naming the offending operand or property.
// RUN: accel-opt %s --split-input-file --verify-diagnostics
// Without --verify-diagnostics every chunk's error is one line on stderr, and the exit code is 1.
// RUN: not accel-opt %s --split-input-file 2>&1 | filecheck %s

func.func @conv2d_channels(%x: tensor<1x3x8x8xf32>, %w: tensor<8x4x3x3xf32>) -> tensor<1x8x6x6xf32> {
  // CHECK: nn-invalid.mlir:[[# @LINE + 1]]:3: error: 'relay.nn.conv2d' op operand 'weight' has 4 input channels per group, expected 3 ('data' has 3 channels, groups = 1)
  %y = relay.nn.conv2d %x, %w : (tensor<1x3x8x8xf32>, tensor<8x4x3x3xf32>) -> tensor<1x8x6x6xf32> // expected-error {{'relay.nn.conv2d' op operand 'weight' has 4 input channels per group, expected 3 ('data' has 3 channels, groups = 1)}}
  func.return %y : tensor<1x8x6x6xf32>
}

// -----

func.func @conv2d_result(%x: tensor<1x3x8x8xf32>, %w: tensor<8x3x3x3xf32>) -> tensor<1x8x8x8xf32> {
  // CHECK: nn-invalid.mlir:[[# @LINE + 1]]:3: error: 'relay.nn.conv2d' op result type tensor<1x8x8x8xf32> does not match the inferred type tensor<1x8x3x3xf32>
  %y = relay.nn.conv2d %x, %w {strides = [2, 2]} : (tensor<1x3x8x8xf32>, tensor<8x3x3x3xf32>) -> tensor<1x8x8x8xf32> // expected-error {{'relay.nn.conv2d' op result type tensor<1x8x8x8xf32> does not match the inferred type tensor<1x8x3x3xf32>}}
  func.return %y : tensor<1x8x8x8xf32>
}

// -----

func.func @conv2d_strides(%x: tensor<1x3x8x8xf32>, %w: tensor<8x3x3x3xf32>) -> tensor<1x8x6x6xf32> {
  // CHECK: nn-invalid.mlir:[[# @LINE + 1]]:3: error: 'relay.nn.conv2d' op property 'strides' must have 2 elements, got [1, 1, 1]
  %y = relay.nn.conv2d %x, %w {strides = [1, 1, 1]} : (tensor<1x3x8x8xf32>, tensor<8x3x3x3xf32>) -> tensor<1x8x6x6xf32> // expected-error {{'relay.nn.conv2d' op property 'strides' must have 2 elements, got [1, 1, 1]}}
  func.return %y : tensor<1x8x6x6xf32>
}

// -----

func.func @conv2d_groups(%x: tensor<1x6x8x8xf32>, %w: tensor<8x2x3x3xf32>) -> tensor<1x8x6x6xf32> {
  // CHECK: nn-invalid.mlir:[[# @LINE + 1]]:3: error: 'relay.nn.conv2d' op property 'groups' (3) must divide the input channels (6) and the output channels (8)
  %y = relay.nn.conv2d %x, %w {groups = 3} : (tensor<1x6x8x8xf32>, tensor<8x2x3x3xf32>) -> tensor<1x8x6x6xf32> // expected-error {{'relay.nn.conv2d' op property 'groups' (3) must divide the input channels (6) and the output channels (8)}}
  func.return %y : tensor<1x8x6x6xf32>
}

// -----

func.func @dense(%x: tensor<4x16xf32>, %w: tensor<10x15xf32>) -> tensor<4x10xf32> {
  // CHECK: nn-invalid.mlir:[[# @LINE + 1]]:3: error: 'relay.nn.dense' op operand 'weight' has K = 15 but 'data' has K = 16
  %y = relay.nn.dense %x, %w : (tensor<4x16xf32>, tensor<10x15xf32>) -> tensor<4x10xf32> // expected-error {{'relay.nn.dense' op operand 'weight' has K = 15 but 'data' has K = 16}}
  func.return %y : tensor<4x10xf32>
}

// -----

func.func @matmul(%a: tensor<5x3xf32>, %b: tensor<4x5xf32>) -> tensor<5x4xf32> {
  // CHECK: nn-invalid.mlir:[[# @LINE + 1]]:3: error: 'relay.nn.matmul' op contraction sizes differ: 'lhs' has 3, 'rhs' has 4
  %y = relay.nn.matmul %a, %b : (tensor<5x3xf32>, tensor<4x5xf32>) -> tensor<5x4xf32> // expected-error {{'relay.nn.matmul' op contraction sizes differ: 'lhs' has 3, 'rhs' has 4}}
  func.return %y : tensor<5x4xf32>
}

// -----

func.func @batch_matmul(%a: tensor<2x3x5xf32>, %b: tensor<3x4x5xf32>) -> tensor<2x3x4xf32> {
  // CHECK: nn-invalid.mlir:[[# @LINE + 1]]:3: error: 'relay.nn.batch_matmul' op operands 'lhs' [2] and 'rhs' [3] are not broadcast-compatible (dimension 0: 2 vs 3)
  %y = relay.nn.batch_matmul %a, %b : (tensor<2x3x5xf32>, tensor<3x4x5xf32>) -> tensor<2x3x4xf32> // expected-error {{'relay.nn.batch_matmul' op operands 'lhs' [2] and 'rhs' [3] are not broadcast-compatible (dimension 0: 2 vs 3)}}
  func.return %y : tensor<2x3x4xf32>
}

// -----

func.func @bias_add(%x: tensor<1x8x4x4xf32>, %b: tensor<4xf32>) -> tensor<1x8x4x4xf32> {
  // CHECK: nn-invalid.mlir:[[# @LINE + 1]]:3: error: 'relay.nn.bias_add' op operand 'bias' has 4 elements but 'data' has 8 along axis 1
  %y = relay.nn.bias_add %x, %b : (tensor<1x8x4x4xf32>, tensor<4xf32>) -> tensor<1x8x4x4xf32> // expected-error {{'relay.nn.bias_add' op operand 'bias' has 4 elements but 'data' has 8 along axis 1}}
  func.return %y : tensor<1x8x4x4xf32>
}

// -----

func.func @relu(%x: tensor<2x10xf32>) -> tensor<2x10xf16> {
  // CHECK: nn-invalid.mlir:[[# @LINE + 1]]:3: error: 'relay.nn.relu' op result type tensor<2x10xf16> does not match the inferred type tensor<2x10xf32>
  %y = relay.nn.relu %x : (tensor<2x10xf32>) -> tensor<2x10xf16> // expected-error {{'relay.nn.relu' op result type tensor<2x10xf16> does not match the inferred type tensor<2x10xf32>}}
  func.return %y : tensor<2x10xf16>
}

// -----

func.func @leaky_relu(%x: tensor<2x10xi32>) -> tensor<2x10xi32> {
  // CHECK: nn-invalid.mlir:[[# @LINE + 1]]:3: error: 'relay.nn.leaky_relu' op operand 'data' must have a float element type, got tensor<2x10xi32>
  %y = relay.nn.leaky_relu %x : tensor<2x10xi32> // expected-error {{'relay.nn.leaky_relu' op operand 'data' must have a float element type, got tensor<2x10xi32>}}
  func.return %y : tensor<2x10xi32>
}

// -----

func.func @hardswish(%x: tensor<2x10xi8>) -> tensor<2x10xi8> {
  // CHECK: nn-invalid.mlir:[[# @LINE + 1]]:3: error: 'relay.nn.hardswish' op operand 'data' must have a float element type, got tensor<2x10xi8>
  %y = relay.nn.hardswish %x : tensor<2x10xi8> // expected-error {{'relay.nn.hardswish' op operand 'data' must have a float element type, got tensor<2x10xi8>}}
  func.return %y : tensor<2x10xi8>
}

// -----

func.func @silu(%x: tensor<2x10xf32>) -> tensor<2x5xf32> {
  // CHECK: nn-invalid.mlir:[[# @LINE + 1]]:3: error: 'relay.nn.silu' op result type tensor<2x5xf32> does not match the inferred type tensor<2x10xf32>
  %y = "relay.nn.silu"(%x) : (tensor<2x10xf32>) -> tensor<2x5xf32> // expected-error {{'relay.nn.silu' op result type tensor<2x5xf32> does not match the inferred type tensor<2x10xf32>}}
  func.return %y : tensor<2x5xf32>
}

// -----

func.func @hardsigmoid(%x: tensor<2x10xf32>) -> tensor<2x10xf32> {
  // CHECK: nn-invalid.mlir:[[# @LINE + 1]]:3: error: 'relay.nn.hardsigmoid' op property 'alpha' must be a float, got "x"
  %y = "relay.nn.hardsigmoid"(%x) <{alpha = "x"}> : (tensor<2x10xf32>) -> tensor<2x10xf32> // expected-error {{'relay.nn.hardsigmoid' op property 'alpha' must be a float, got "x"}}
  func.return %y : tensor<2x10xf32>
}

// -----

func.func @gelu(%x: tensor<2x10xf32>) -> tensor<2x10xf32> {
  // CHECK: nn-invalid.mlir:[[# @LINE + 1]]:3: error: 'relay.nn.gelu' op property 'approximate' must be one of "none", "tanh", got "erf"
  %y = "relay.nn.gelu"(%x) <{approximate = "erf"}> : (tensor<2x10xf32>) -> tensor<2x10xf32> // expected-error {{'relay.nn.gelu' op property 'approximate' must be one of "none", "tanh", got "erf"}}
  func.return %y : tensor<2x10xf32>
}

// -----

func.func @softmax(%x: tensor<2x10xf32>) -> tensor<2x10xf32> {
  // CHECK: nn-invalid.mlir:[[# @LINE + 1]]:3: error: 'relay.nn.softmax' op property 'axis' 2 is out of range for rank 2
  %y = relay.nn.softmax %x {axis = 2} : tensor<2x10xf32> // expected-error {{'relay.nn.softmax' op property 'axis' 2 is out of range for rank 2}}
  func.return %y : tensor<2x10xf32>
}

// -----

func.func @max_pool2d(%x: tensor<1x4x7x7xf32>) -> tensor<1x4x3x3xf32> {
  // CHECK: nn-invalid.mlir:[[# @LINE + 1]]:3: error: 'relay.nn.max_pool2d' op property 'padding' [2, 2, 2, 2] must be smaller than the window [2, 2]
  %y = relay.nn.max_pool2d %x {pool_size = [2, 2], padding = [2, 2, 2, 2]} : (tensor<1x4x7x7xf32>) -> tensor<1x4x3x3xf32> // expected-error {{'relay.nn.max_pool2d' op property 'padding' [2, 2, 2, 2] must be smaller than the window [2, 2]}}
  func.return %y : tensor<1x4x3x3xf32>
}

// -----

func.func @max_pool2d_no_size(%x: tensor<1x4x7x7xf32>) -> tensor<1x4x7x7xf32> {
  // CHECK: nn-invalid.mlir:[[# @LINE + 1]]:3: error: 'relay.nn.max_pool2d' op missing property 'pool_size' (a list of integers like [1, 1])
  %y = "relay.nn.max_pool2d"(%x) : (tensor<1x4x7x7xf32>) -> tensor<1x4x7x7xf32> // expected-error {{'relay.nn.max_pool2d' op missing property 'pool_size' (a list of integers like [1, 1])}}
  func.return %y : tensor<1x4x7x7xf32>
}

// -----

func.func @avg_pool2d(%x: tensor<1x4x7xf32>) -> tensor<1x4x3xf32> {
  // CHECK: nn-invalid.mlir:[[# @LINE + 1]]:3: error: 'relay.nn.avg_pool2d' op operand 'data' must have rank 4, got tensor<1x4x7xf32>
  %y = relay.nn.avg_pool2d %x {pool_size = [2, 2]} : (tensor<1x4x7xf32>) -> tensor<1x4x3xf32> // expected-error {{'relay.nn.avg_pool2d' op operand 'data' must have rank 4, got tensor<1x4x7xf32>}}
  func.return %y : tensor<1x4x3xf32>
}

// -----

func.func @global_avg_pool2d(%x: tensor<1x4x7x7xi8>) -> tensor<1x4x1x1xi8> {
  // CHECK: nn-invalid.mlir:[[# @LINE + 1]]:3: error: 'relay.nn.global_avg_pool2d' op operand 'data' must have a float element type, got tensor<1x4x7x7xi8>
  %y = relay.nn.global_avg_pool2d %x : (tensor<1x4x7x7xi8>) -> tensor<1x4x1x1xi8> // expected-error {{'relay.nn.global_avg_pool2d' op operand 'data' must have a float element type, got tensor<1x4x7x7xi8>}}
  func.return %y : tensor<1x4x1x1xi8>
}

// -----

func.func @batch_norm(%x: tensor<2x3x4xf32>, %c: tensor<3xf32>, %v: tensor<4xf32>) -> tensor<2x3x4xf32> {
  // CHECK: nn-invalid.mlir:[[# @LINE + 1]]:3: error: 'relay.nn.batch_norm' op operand 'moving_var' has 4 elements but 'data' has 3 along axis 1
  %y = relay.nn.batch_norm %x, %c, %c, %c, %v : (tensor<2x3x4xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<4xf32>) -> tensor<2x3x4xf32> // expected-error {{'relay.nn.batch_norm' op operand 'moving_var' has 4 elements but 'data' has 3 along axis 1}}
  func.return %y : tensor<2x3x4xf32>
}

// -----

func.func @layer_norm(%x: tensor<2x3x4xf32>, %g: tensor<3x4xf32>, %n: tensor<4xf32>) -> tensor<2x3x4xf32> {
  // CHECK: nn-invalid.mlir:[[# @LINE + 1]]:3: error: 'relay.nn.layer_norm' op operand 'gamma' must have the normalized shape [4], got tensor<3x4xf32>
  %y = relay.nn.layer_norm %x, %g, %n : (tensor<2x3x4xf32>, tensor<3x4xf32>, tensor<4xf32>) -> tensor<2x3x4xf32> // expected-error {{'relay.nn.layer_norm' op operand 'gamma' must have the normalized shape [4], got tensor<3x4xf32>}}
  func.return %y : tensor<2x3x4xf32>
}

// -----

func.func @rms_norm(%x: tensor<2x3x4xf32>, %g: tensor<3x4xf32>) -> tensor<2x3x4xf32> {
  // CHECK: nn-invalid.mlir:[[# @LINE + 1]]:3: error: 'relay.nn.rms_norm' op operand 'gamma' must have the normalized shape [4], got tensor<3x4xf32>
  %y = relay.nn.rms_norm %x, %g : (tensor<2x3x4xf32>, tensor<3x4xf32>) -> tensor<2x3x4xf32> // expected-error {{'relay.nn.rms_norm' op operand 'gamma' must have the normalized shape [4], got tensor<3x4xf32>}}
  func.return %y : tensor<2x3x4xf32>
}

// -----

func.func @pad(%x: tensor<1x2x3x3xf32>) -> tensor<1x2x5x5xf32> {
  // CHECK: nn-invalid.mlir:[[# @LINE + 1]]:3: error: 'relay.nn.pad' op property 'pad_width' must have 8 elements, got [1, 1, 1, 1]
  %y = relay.nn.pad %x {pad_width = [1, 1, 1, 1]} : (tensor<1x2x3x3xf32>) -> tensor<1x2x5x5xf32> // expected-error {{'relay.nn.pad' op property 'pad_width' must have 8 elements, got [1, 1, 1, 1]}}
  func.return %y : tensor<1x2x5x5xf32>
}

// -----

func.func @pad_wrap_empty(%x: tensor<1x0x3xf32>) -> tensor<1x2x3xf32> {
  // CHECK: nn-invalid.mlir:[[# @LINE + 1]]:3: error: 'relay.nn.pad' op property 'pad_mode': wrap padding needs non-empty dimensions
  %y = relay.nn.pad %x {pad_width = [0, 0, 1, 1, 0, 0], pad_mode = "wrap"} : (tensor<1x0x3xf32>) -> tensor<1x2x3xf32> // expected-error {{'relay.nn.pad' op property 'pad_mode': wrap padding needs non-empty dimensions}}
  func.return %y : tensor<1x2x3xf32>
}

// -----

func.func @pad_reflect(%x: tensor<1x2x3x3xf32>) -> tensor<1x2x9x3xf32> {
  // CHECK: nn-invalid.mlir:[[# @LINE + 1]]:3: error: 'relay.nn.pad' op property 'pad_width': reflect padding of dimension 2 (3, 3) must be smaller than its size 3
  %y = relay.nn.pad %x {pad_width = [0, 0, 0, 0, 3, 3, 0, 0], pad_mode = "reflect"} : (tensor<1x2x3x3xf32>) -> tensor<1x2x9x3xf32> // expected-error {{'relay.nn.pad' op property 'pad_width': reflect padding of dimension 2 (3, 3) must be smaller than its size 3}}
  func.return %y : tensor<1x2x9x3xf32>
}

// -----

func.func @batch_flatten(%x: tensor<1x2x3x3xf32>) -> tensor<1x9xf32> {
  // CHECK: nn-invalid.mlir:[[# @LINE + 1]]:3: error: 'relay.nn.batch_flatten' op result type tensor<1x9xf32> does not match the inferred type tensor<1x18xf32>
  %y = relay.nn.batch_flatten %x : (tensor<1x2x3x3xf32>) -> tensor<1x9xf32> // expected-error {{'relay.nn.batch_flatten' op result type tensor<1x9xf32> does not match the inferred type tensor<1x18xf32>}}
  func.return %y : tensor<1x9xf32>
}
