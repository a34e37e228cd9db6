// Malformed custom syntax of relay ops: each chunk gives one located parse error.
// RUN: accel-opt %s --split-input-file --parsing-diagnostics | filecheck %s
// Without --parsing-diagnostics every chunk's error is one line on stderr, and the exit code is 1.
// RUN: not accel-opt %s --split-input-file 2>&1 | filecheck %s

func.func @unknown_property(%x: tensor<2xf32>) -> tensor<2xf32> {
  // CHECK: syntax-invalid.mlir:[[# @LINE + 1]]:32: error: 'relay.nn.leaky_relu' has no property 'slope' (properties: alpha)
  %y = relay.nn.leaky_relu %x {slope = 0.1} : tensor<2xf32>
  func.return %y : tensor<2xf32>
}

// -----

func.func @no_properties(%x: tensor<2xf32>) -> tensor<2xf32> {
  // CHECK: syntax-invalid.mlir:[[# @LINE + 1]]:26: error: 'relay.nn.relu' has no property 'alpha'
  %y = relay.nn.relu %x {alpha = 0.1} : tensor<2xf32>
  func.return %y : tensor<2xf32>
}

// -----

func.func @ints_kind(%x: tensor<1x3x8x8xf32>, %w: tensor<8x3x3x3xf32>) -> tensor<1x8x6x6xf32> {
  // CHECK: syntax-invalid.mlir:[[# @LINE + 1]]:42: error: property 'strides' of 'relay.nn.conv2d' must be a list of integers like [1, 1], got 2 : i64
  %y = relay.nn.conv2d %x, %w {strides = 2} : (tensor<1x3x8x8xf32>, tensor<8x3x3x3xf32>) -> tensor<1x8x6x6xf32>
  func.return %y : tensor<1x8x6x6xf32>
}

// -----

func.func @ints_elements(%x: tensor<1x3x8x8xf32>, %w: tensor<8x3x3x3xf32>) -> tensor<1x8x6x6xf32> {
  // CHECK: syntax-invalid.mlir:[[# @LINE + 1]]:42: error: property 'padding' of 'relay.nn.conv2d' must be a list of integers like [1, 1], got [0 : i64, 5.000000e-01 : f64, 0 : i64, 0 : i64]
  %y = relay.nn.conv2d %x, %w {padding = [0, 0.5, 0, 0]} : (tensor<1x3x8x8xf32>, tensor<8x3x3x3xf32>) -> tensor<1x8x6x6xf32>
  func.return %y : tensor<1x8x6x6xf32>
}

// -----

func.func @int_kind(%x: tensor<1x3x8x8xf32>, %w: tensor<8x3x3x3xf32>) -> tensor<1x8x6x6xf32> {
  // CHECK: syntax-invalid.mlir:[[# @LINE + 1]]:41: error: property 'groups' of 'relay.nn.conv2d' must be an integer, got 1.000000e+00 : f64
  %y = relay.nn.conv2d %x, %w {groups = 1.0} : (tensor<1x3x8x8xf32>, tensor<8x3x3x3xf32>) -> tensor<1x8x6x6xf32>
  func.return %y : tensor<1x8x6x6xf32>
}

// -----

func.func @bool_kind(%x: tensor<1x4x8x8xf32>) -> tensor<1x4x4x4xf32> {
  // CHECK: syntax-invalid.mlir:[[# @LINE + 1]]:82: error: property 'ceil_mode' of 'relay.nn.max_pool2d' must be true or false, got 1 : i64
  %y = relay.nn.max_pool2d %x {pool_size = [2, 2], strides = [2, 2], ceil_mode = 1} : (tensor<1x4x8x8xf32>) -> tensor<1x4x4x4xf32>
  func.return %y : tensor<1x4x4x4xf32>
}

// -----

func.func @float_kind(%x: tensor<2xf32>) -> tensor<2xf32> {
  // CHECK: syntax-invalid.mlir:[[# @LINE + 1]]:40: error: property 'alpha' of 'relay.nn.leaky_relu' must be a float, got "0.1"
  %y = relay.nn.leaky_relu %x {alpha = "0.1"} : tensor<2xf32>
  func.return %y : tensor<2xf32>
}

// -----

func.func @string_choice(%x: tensor<2xf32>) -> tensor<2xf32> {
  // CHECK: syntax-invalid.mlir:[[# @LINE + 1]]:40: error: property 'approximate' of 'relay.nn.gelu' must be one of "none", "tanh", got "erf"
  %y = relay.nn.gelu %x {approximate = "erf"} : tensor<2xf32>
  func.return %y : tensor<2xf32>
}

// -----

func.func @float_exponent(%x: tensor<2xf32>) -> tensor<2xf32> {
  // CHECK: syntax-invalid.mlir:[[# @LINE + 1]]:41: error: a float needs a '.' before its exponent (write 1.0e-3, not 1e-3)
  %y = relay.nn.leaky_relu %x {alpha = 1e-3} : tensor<2xf32>
  func.return %y : tensor<2xf32>
}

// -----

func.func @float_type(%x: tensor<2xf32>) -> tensor<2xf32> {
  // CHECK: syntax-invalid.mlir:[[# @LINE + 1]]:46: error: expected a float type
  %y = relay.nn.leaky_relu %x {alpha = 0.5 : i32} : tensor<2xf32>
  func.return %y : tensor<2xf32>
}

// -----

func.func @duplicate(%x: tensor<2xf32>) -> tensor<2xf32> {
  // CHECK: syntax-invalid.mlir:[[# @LINE + 1]]:49: error: 'a_min' is given twice
  %y = relay.clip %x {a_min = 0.0, a_max = 1.0, a_min = -1.0} : tensor<2xf32>
  func.return %y : tensor<2xf32>
}

// -----

func.func @missing_equals(%x: tensor<2xf32>) -> tensor<2xf32> {
  // CHECK: syntax-invalid.mlir:[[# @LINE + 1]]:34: error: Expected '=' after property 'axis'
  %y = relay.nn.softmax %x {axis 0} : tensor<2xf32>
  func.return %y : tensor<2xf32>
}

// -----

func.func @unclosed(%x: tensor<2xf32>) -> tensor<2xf32> {
  // CHECK: syntax-invalid.mlir:[[# @LINE + 1]]:40: error: expected an integer type
  %y = relay.nn.softmax %x {axis = 0 : tensor<2xf32>
  func.return %y : tensor<2xf32>
}

// -----

func.func @operand_count(%x: tensor<2xf32>) -> tensor<2xf32> {
  // CHECK: syntax-invalid.mlir:[[# @LINE + 1]]:22: error: 'relay.nn.relu' takes 1 operand, got 2
  %y = relay.nn.relu %x, %x : tensor<2xf32>
  func.return %y : tensor<2xf32>
}

// -----

func.func @operand_count_binary(%x: tensor<2xf32>) -> tensor<2xf32> {
  // CHECK: syntax-invalid.mlir:[[# @LINE + 1]]:18: error: 'relay.add' takes 2 operands, got 1
  %y = relay.add %x : tensor<2xf32>
  func.return %y : tensor<2xf32>
}

// -----

func.func @operand_types(%x: tensor<2xf32>) -> tensor<2xf32> {
  // CHECK: syntax-invalid.mlir:[[# @LINE + 1]]:25: error: 'relay.add' has 2 operands but 1 operand types
  %y = relay.add %x, %x : (tensor<2xf32>) -> tensor<2xf32>
  func.return %y : tensor<2xf32>
}

// -----

func.func @result_count(%x: tensor<2xf32>) -> tensor<2xf32> {
  // CHECK: syntax-invalid.mlir:[[# @LINE + 1]]:25: error: 'relay.sigmoid' has 1 result, got 2
  %y = relay.sigmoid %x : (tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>)
  func.return %y : tensor<2xf32>
}

// -----

func.func @operand_type_mismatch(%x: tensor<2xf32>) -> tensor<2xf32> {
  // CHECK: syntax-invalid.mlir:[[# @LINE + 1]]:22: error: operand is used with type tensor<3xf32>, but has been previously used or defined with type tensor<2xf32>
  %y = relay.sigmoid %x : tensor<3xf32>
  func.return %y : tensor<3xf32>
}

// -----

func.func @unknown_op(%x: tensor<2xf32>) -> tensor<2xf32> {
  // CHECK: syntax-invalid.mlir:[[# @LINE + 1]]:23: error: Operation relay.nn.swish is not registered
  %y = relay.nn.swish %x : tensor<2xf32>
  func.return %y : tensor<2xf32>
}

// -----

func.func @constant_value() -> tensor<f32> {
  // CHECK: syntax-invalid.mlir:[[# @LINE + 1]]:23: error: relay.constant expects dense<...> : tensor<...> or external "name"
  %c = relay.constant 1.0 : f32
  func.return %c : tensor<f32>
}

// -----

func.func @constant_external_type() -> tensor<2xf32> {
  // CHECK: syntax-invalid.mlir:[[# @LINE + 1]]:38: error: relay.constant needs a tensor type, got memref<2xf32>
  %c = relay.constant external "w" : memref<2xf32>
  func.return %c : tensor<2xf32>
}

// -----

func.func @composite_types(%x: tensor<4xf32>) -> tensor<4xf32> {
  // CHECK: syntax-invalid.mlir:[[# @LINE + 1]]:46: error: relay.composite has 2 inputs but 1 input types
  %y = relay.composite "npu.relu" (%x, %x) : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>):
    relay.yield %a : tensor<4xf32>
  }
  func.return %y : tensor<4xf32>
}

// -----

func.func @dense_shape() -> tensor<3xf32> {
  // CHECK: syntax-invalid.mlir:[[# @LINE + 1]]:28: error: the dense literal has shape [2] but the type is tensor<3xf32>
  %c = relay.constant dense<[1.0, 2.0]> : tensor<3xf32>
  func.return %c : tensor<3xf32>
}

// -----

func.func @dense_ragged() -> tensor<2x2xf32> {
  // CHECK: syntax-invalid.mlir:[[# @LINE + 1]]:42: error: the dense literal is not rectangular: shape [1] after [2]
  %c = relay.constant dense<[[1.0, 2.0], [3.0]]> : tensor<2x2xf32>
  func.return %c : tensor<2x2xf32>
}

// -----

func.func @dense_range() -> tensor<2xi8> {
  // CHECK: syntax-invalid.mlir:[[# @LINE + 1]]:33: error: Integer value 300 is out of range for type i8 which supports values in the range [-128, 256)
  %c = relay.constant dense<[1, 300]> : tensor<2xi8>
  func.return %c : tensor<2xi8>
}

// -----

func.func @dense_int_element() -> tensor<2xi32> {
  // CHECK: syntax-invalid.mlir:[[# @LINE + 1]]:33: error: expected an integer element for i32, got 2.5
  %c = relay.constant dense<[1, 2.5]> : tensor<2xi32>
  func.return %c : tensor<2xi32>
}

// -----

func.func @dense_hex_string() -> tensor<2xf32> {
  // CHECK: syntax-invalid.mlir:[[# @LINE + 1]]:28: error: the hex string has 4 bytes, tensor<3xf16> needs 6
  %c = relay.constant dense<"0x0000803F"> : tensor<3xf16>
  func.return %c : tensor<2xf32>
}

// -----

// A float beyond its type's finite range (found by accel-fuzz --parsers: was an internal
// error from struct's packing); the error points at the element.
func.func @dense_float_out_of_range() -> tensor<2xf32> {
  // CHECK: syntax-invalid.mlir:[[# @LINE + 1]]:35: error: -3.5e+38 is out of the range of f32 (an infinity is written as its bits in hex, as MLIR prints it)
  %c = relay.constant dense<[1.0, -3.5e+38]> : tensor<2xf32>
  func.return %c : tensor<2xf32>
}

// -----

func.func @dense_half_out_of_range() -> tensor<f16> {
  // CHECK: syntax-invalid.mlir:[[# @LINE + 1]]:29: error: 70000.0 is out of the range of f16
  %c = relay.constant dense<70000.0> : tensor<f16>
  func.return %c : tensor<f16>
}

// -----

// The largest finite values parse, and an infinity in hex.
// CHECK-LABEL: func.func @dense_float_extremes
// CHECK: relay.constant dense<"0xFFFF7F7FFFFF7FFF000080FF"> : tensor<3xf32>
func.func @dense_float_extremes() -> tensor<3xf32> {
  %c = relay.constant dense<[3.4028234e+38, -3.4028234e+38, 0xFF800000]> : tensor<3xf32>
  func.return %c : tensor<3xf32>
}

// -----

func.func @dense_type() -> tensor<2xf32> {
  // CHECK: syntax-invalid.mlir:[[# @LINE + 1]]:36: error: a dense literal needs an integer or float tensor type, got vector<2xf32>
  %c = relay.constant dense<1.0> : vector<2xf32>
  func.return %c : tensor<2xf32>
}

// -----

func.func @dense_wide_integers() -> tensor<2xi999999999999> {
  // CHECK: syntax-invalid.mlir:[[# @LINE + 1]]:34: error: a dense literal of tensor<2xi999999999999>: integers wider than 64 bits are not supported
  %c = relay.constant dense<1> : tensor<2xi999999999999>
  func.return %c : tensor<2xi999999999999>
}

// -----

func.func @dense_too_large() -> tensor<999999999999xf32> {
  // CHECK: syntax-invalid.mlir:[[# @LINE + 1]]:36: error: a dense literal of tensor<999999999999xf32> takes 3999999999996 bytes, more than the 2147483648 a literal may have (larger constants stay in the model's file: relay.constant external)
  %c = relay.constant dense<0.5> : tensor<999999999999xf32>
  func.return %c : tensor<999999999999xf32>
}

// -----

func.func @dense_count_past_index() -> tensor<9223372036854775808xi64> {
  // CHECK: syntax-invalid.mlir:[[# @LINE + 1]]:35: error: a dense literal of tensor<9223372036854775808xi64> takes 73786976294838206464 bytes
  %c = relay.constant dense<-4> : tensor<9223372036854775808xi64>
  func.return %c : tensor<9223372036854775808xi64>
}

// -----

func.func @dense_empty() -> tensor<2xf32> {
  // CHECK: syntax-invalid.mlir:[[# @LINE + 1]]:28: error: the dense literal is empty but tensor<2xf32> has 2 elements
  %c = relay.constant dense<> : tensor<2xf32>
  func.return %c : tensor<2xf32>
}

// -----

// A hex element of a float dense attribute is its bit pattern (as in MLIR): one wider
// than the float is an error.
func.func @hex_wider_than_float() -> tensor<f32> {
  // CHECK: syntax-invalid.mlir:[[# @LINE + 1]]:43: error: hex literal 0x1FF800000 is wider than f32 (32 bits)
  %c = "relay.constant"() <{value = dense<0x1FF800000> : tensor<f32>}> : () -> tensor<f32>
  func.return %c : tensor<f32>
}
