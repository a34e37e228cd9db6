// Verifier errors of the run-time math ops.
// Every chunk fails verification with one located line naming the offending operand or property.
// RUN: accel-opt %s --split-input-file --verify-diagnostics
// Without --verify-diagnostics every chunk's error is one line on stderr, and the exit code is 1.
// RUN: not accel-opt %s --split-input-file 2>&1 | filecheck %s
func.func @sqrt_0(%x: tensor<4xi32>) -> tensor<4xi32> {
  // CHECK: math-invalid.mlir:[[# @LINE + 1]]:3: error: 'relay.sqrt' op operand 'data' must have a float element type, got tensor<4xi32>
  %y = relay.sqrt %x : tensor<4xi32> // expected-error {{'relay.sqrt' op operand 'data' must have a float element type, got tensor<4xi32>}}
  func.return %y : tensor<4xi32>
}

// -----

func.func @floor_0(%x: tensor<4xi32>) -> tensor<4xi32> {
  // CHECK: math-invalid.mlir:[[# @LINE + 1]]:3: error: 'relay.floor' op operand 'data' must have a float element type, got tensor<4xi32>
  %y = relay.floor %x : tensor<4xi32> // expected-error {{'relay.floor' op operand 'data' must have a float element type, got tensor<4xi32>}}
  func.return %y : tensor<4xi32>
}

// -----

func.func @ceil_0(%x: tensor<4xi1>) -> tensor<4xi1> {
  // CHECK: math-invalid.mlir:[[# @LINE + 1]]:3: error: 'relay.ceil' op operand 'data' must have a float element type, got tensor<4xi1>
  %y = relay.ceil %x : tensor<4xi1> // expected-error {{'relay.ceil' op operand 'data' must have a float element type, got tensor<4xi1>}}
  func.return %y : tensor<4xi1>
}

// -----

func.func @round_0(%x: tensor<4xi8>) -> tensor<4xi8> {
  // CHECK: math-invalid.mlir:[[# @LINE + 1]]:3: error: 'relay.round' op operand 'data' must have a float element type, got tensor<4xi8>
  %y = relay.round %x : tensor<4xi8> // expected-error {{'relay.round' op operand 'data' must have a float element type, got tensor<4xi8>}}
  func.return %y : tensor<4xi8>
}

// -----

func.func @exp_1(%x: tensor<4xi8>) -> tensor<4xi8> {
  // CHECK: math-invalid.mlir:[[# @LINE + 1]]:3: error: 'relay.exp' op operand 'data' must have a float element type, got tensor<4xi8>
  %y = relay.exp %x : tensor<4xi8> // expected-error {{'relay.exp' op operand 'data' must have a float element type, got tensor<4xi8>}}
  func.return %y : tensor<4xi8>
}

// -----

func.func @log_2(%x: tensor<4xf32>) -> tensor<2xf32> {
  // CHECK: math-invalid.mlir:[[# @LINE + 1]]:3: error: 'relay.log' op result type tensor<2xf32> does not match the inferred type tensor<4xf32>
  %y = relay.log %x : (tensor<4xf32>) -> tensor<2xf32> // expected-error {{'relay.log' op result type tensor<2xf32> does not match the inferred type tensor<4xf32>}}
  func.return %y : tensor<2xf32>
}

// -----

func.func @negative_3(%x: tensor<4xi1>) -> tensor<4xi1> {
  // CHECK: math-invalid.mlir:[[# @LINE + 1]]:3: error: 'relay.negative' op operand 'data' must have a float or integer element type, got tensor<4xi1>
  %y = relay.negative %x : tensor<4xi1> // expected-error {{'relay.negative' op operand 'data' must have a float or integer element type, got tensor<4xi1>}}
  func.return %y : tensor<4xi1>
}

// -----

func.func @abs_4(%x: tensor<4xi1>) -> tensor<4xi1> {
  // CHECK: math-invalid.mlir:[[# @LINE + 1]]:3: error: 'relay.abs' op operand 'data' must have a float or integer element type, got tensor<4xi1>
  %y = relay.abs %x : tensor<4xi1> // expected-error {{'relay.abs' op operand 'data' must have a float or integer element type, got tensor<4xi1>}}
  func.return %y : tensor<4xi1>
}

// -----

func.func @power_5(%a: tensor<4xi32>, %b: tensor<4xi32>) -> tensor<4xi32> {
  // CHECK: math-invalid.mlir:[[# @LINE + 1]]:3: error: 'relay.power' op operand 'lhs' must have a float element type, got tensor<4xi32>
  %y = relay.power %a, %b : tensor<4xi32> // expected-error {{'relay.power' op operand 'lhs' must have a float element type, got tensor<4xi32>}}
  func.return %y : tensor<4xi32>
}

// -----

func.func @maximum_6(%a: tensor<2x3xf32>, %b: tensor<2xf32>) -> tensor<2x3xf32> {
  // CHECK: math-invalid.mlir:[[# @LINE + 1]]:3: error: 'relay.maximum' op operands 'lhs' [2, 3] and 'rhs' [2] are not broadcast-compatible (dimension 1: 3 vs 2)
  %y = relay.maximum %a, %b : (tensor<2x3xf32>, tensor<2xf32>) -> tensor<2x3xf32> // expected-error {{'relay.maximum' op operands 'lhs' [2, 3] and 'rhs' [2] are not broadcast-compatible (dimension 1: 3 vs 2)}}
  func.return %y : tensor<2x3xf32>
}

// -----

func.func @minimum_7(%a: tensor<4xi1>, %b: tensor<4xi1>) -> tensor<4xi1> {
  // CHECK: math-invalid.mlir:[[# @LINE + 1]]:3: error: 'relay.minimum' op operand 'lhs' must have a float or integer element type, got tensor<4xi1>
  %y = relay.minimum %a, %b : tensor<4xi1> // expected-error {{'relay.minimum' op operand 'lhs' must have a float or integer element type, got tensor<4xi1>}}
  func.return %y : tensor<4xi1>
}

// -----

func.func @equal_8(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  // CHECK: math-invalid.mlir:[[# @LINE + 1]]:3: error: 'relay.equal' op result type tensor<4xf32> does not match the inferred type tensor<4xi1>
  %y = relay.equal %a, %b : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32> // expected-error {{'relay.equal' op result type tensor<4xf32> does not match the inferred type tensor<4xi1>}}
  func.return %y : tensor<4xf32>
}

// -----

func.func @not_equal_9(%a: tensor<4xf32>, %b: tensor<4xi32>) -> tensor<4xi1> {
  // CHECK: math-invalid.mlir:[[# @LINE + 1]]:3: error: 'relay.not_equal' op operands 'lhs' and 'rhs' must have the same element type, got f32 and i32
  %y = relay.not_equal %a, %b : (tensor<4xf32>, tensor<4xi32>) -> tensor<4xi1> // expected-error {{'relay.not_equal' op operands 'lhs' and 'rhs' must have the same element type, got f32 and i32}}
  func.return %y : tensor<4xi1>
}

// -----

func.func @less_10(%a: tensor<3xf32>, %b: tensor<4xf32>) -> tensor<4xi1> {
  // CHECK: math-invalid.mlir:[[# @LINE + 1]]:3: error: 'relay.less' op operands 'lhs' [3] and 'rhs' [4] are not broadcast-compatible (dimension 0: 3 vs 4)
  %y = relay.less %a, %b : (tensor<3xf32>, tensor<4xf32>) -> tensor<4xi1> // expected-error {{'relay.less' op operands 'lhs' [3] and 'rhs' [4] are not broadcast-compatible (dimension 0: 3 vs 4)}}
  func.return %y : tensor<4xi1>
}

// -----

func.func @less_equal_11(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<2x4xi1> {
  // CHECK: math-invalid.mlir:[[# @LINE + 1]]:3: error: 'relay.less_equal' op result type tensor<2x4xi1> does not match the inferred type tensor<4xi1>
  %y = relay.less_equal %a, %b : (tensor<4xf32>, tensor<4xf32>) -> tensor<2x4xi1> // expected-error {{'relay.less_equal' op result type tensor<2x4xi1> does not match the inferred type tensor<4xi1>}}
  func.return %y : tensor<2x4xi1>
}

// -----

func.func @greater_12(%a: tensor<4xi8>, %b: tensor<4xi8>) -> tensor<4xi8> {
  // CHECK: math-invalid.mlir:[[# @LINE + 1]]:3: error: 'relay.greater' op result type tensor<4xi8> does not match the inferred type tensor<4xi1>
  %y = relay.greater %a, %b : (tensor<4xi8>, tensor<4xi8>) -> tensor<4xi8> // expected-error {{'relay.greater' op result type tensor<4xi8> does not match the inferred type tensor<4xi1>}}
  func.return %y : tensor<4xi8>
}

// -----

func.func @greater_equal_13(%a: tensor<4xf16>, %b: tensor<4xf32>) -> tensor<4xi1> {
  // CHECK: math-invalid.mlir:[[# @LINE + 1]]:3: error: 'relay.greater_equal' op operands 'lhs' and 'rhs' must have the same element type, got f16 and f32
  %y = relay.greater_equal %a, %b : (tensor<4xf16>, tensor<4xf32>) -> tensor<4xi1> // expected-error {{'relay.greater_equal' op operands 'lhs' and 'rhs' must have the same element type, got f16 and f32}}
  func.return %y : tensor<4xi1>
}

// -----

func.func @logical_not_14(%x: tensor<4xi8>) -> tensor<4xi8> {
  // CHECK: math-invalid.mlir:[[# @LINE + 1]]:3: error: 'relay.logical_not' op operand 'data' must be a boolean (i1) tensor, got tensor<4xi8>
  %y = relay.logical_not %x : tensor<4xi8> // expected-error {{'relay.logical_not' op operand 'data' must be a boolean (i1) tensor, got tensor<4xi8>}}
  func.return %y : tensor<4xi8>
}

// -----

func.func @logical_and_15(%a: tensor<4xi8>, %b: tensor<4xi1>) -> tensor<4xi1> {
  // CHECK: math-invalid.mlir:[[# @LINE + 1]]:3: error: 'relay.logical_and' op operand 'lhs' must be a boolean (i1) tensor, got tensor<4xi8>
  %y = relay.logical_and %a, %b : (tensor<4xi8>, tensor<4xi1>) -> tensor<4xi1> // expected-error {{'relay.logical_and' op operand 'lhs' must be a boolean (i1) tensor, got tensor<4xi8>}}
  func.return %y : tensor<4xi1>
}

// -----

func.func @logical_or_16(%a: tensor<4xi1>, %b: tensor<3xi1>) -> tensor<4xi1> {
  // CHECK: math-invalid.mlir:[[# @LINE + 1]]:3: error: 'relay.logical_or' op operands 'lhs' [4] and 'rhs' [3] are not broadcast-compatible (dimension 0: 4 vs 3)
  %y = relay.logical_or %a, %b : (tensor<4xi1>, tensor<3xi1>) -> tensor<4xi1> // expected-error {{'relay.logical_or' op operands 'lhs' [4] and 'rhs' [3] are not broadcast-compatible (dimension 0: 4 vs 3)}}
  func.return %y : tensor<4xi1>
}

// -----

func.func @logical_xor_17(%a: tensor<4xi1>, %b: tensor<4xf32>) -> tensor<4xi1> {
  // CHECK: math-invalid.mlir:[[# @LINE + 1]]:3: error: 'relay.logical_xor' op operand 'rhs' must be a boolean (i1) tensor, got tensor<4xf32>
  %y = relay.logical_xor %a, %b : (tensor<4xi1>, tensor<4xf32>) -> tensor<4xi1> // expected-error {{'relay.logical_xor' op operand 'rhs' must be a boolean (i1) tensor, got tensor<4xf32>}}
  func.return %y : tensor<4xi1>
}

// -----

func.func @where_18(%c: tensor<4xf32>, %x: tensor<4xf32>, %z: tensor<4xf32>) -> tensor<4xf32> {
  // CHECK: math-invalid.mlir:[[# @LINE + 1]]:3: error: 'relay.where' op operand 'condition' must be a boolean (i1) tensor, got tensor<4xf32>
  %y = relay.where %c, %x, %z : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32> // expected-error {{'relay.where' op operand 'condition' must be a boolean (i1) tensor, got tensor<4xf32>}}
  func.return %y : tensor<4xf32>
}

// -----

func.func @where_19(%c: tensor<3xi1>, %x: tensor<2x4xf32>, %z: tensor<f32>) -> tensor<2x4xf32> {
  // CHECK: math-invalid.mlir:[[# @LINE + 1]]:3: error: 'relay.where' op operands 'condition' [3] and 'x and y' [2, 4] are not broadcast-compatible (dimension 1: 3 vs 4)
  %y = relay.where %c, %x, %z : (tensor<3xi1>, tensor<2x4xf32>, tensor<f32>) -> tensor<2x4xf32> // expected-error {{'relay.where' op operands 'condition' [3] and 'x and y' [2, 4] are not broadcast-compatible (dimension 1: 3 vs 4)}}
  func.return %y : tensor<2x4xf32>
}

// -----

func.func @where_20(%c: tensor<4xi1>, %x: tensor<4xf32>, %z: tensor<4xi32>) -> tensor<4xf32> {
  // CHECK: math-invalid.mlir:[[# @LINE + 1]]:3: error: 'relay.where' op operands 'x' and 'y' must have the same element type, got f32 and i32
  %y = relay.where %c, %x, %z : (tensor<4xi1>, tensor<4xf32>, tensor<4xi32>) -> tensor<4xf32> // expected-error {{'relay.where' op operands 'x' and 'y' must have the same element type, got f32 and i32}}
  func.return %y : tensor<4xf32>
}

// -----

func.func @sum_21(%x: tensor<2x3xf32>) -> tensor<2xf32> {
  // CHECK: math-invalid.mlir:[[# @LINE + 1]]:3: error: 'relay.sum' op property 'axis' entry 2 is out of range for rank 2
  %y = relay.sum %x {axis = [2]} : (tensor<2x3xf32>) -> tensor<2xf32> // expected-error {{'relay.sum' op property 'axis' entry 2 is out of range for rank 2}}
  func.return %y : tensor<2xf32>
}

// -----

func.func @prod_22(%x: tensor<2x3xi1>) -> tensor<i1> {
  // CHECK: math-invalid.mlir:[[# @LINE + 1]]:3: error: 'relay.prod' op operand 'data' must have a float or integer element type, got tensor<2x3xi1>
  %y = relay.prod %x : (tensor<2x3xi1>) -> tensor<i1> // expected-error {{'relay.prod' op operand 'data' must have a float or integer element type, got tensor<2x3xi1>}}
  func.return %y : tensor<i1>
}

// -----

func.func @max_23(%x: tensor<2x3xf32>) -> tensor<2xf32> {
  // CHECK: math-invalid.mlir:[[# @LINE + 1]]:3: error: 'relay.max' op property 'axis' repeats axis -1
  %y = relay.max %x {axis = [1, -1]} : (tensor<2x3xf32>) -> tensor<2xf32> // expected-error {{'relay.max' op property 'axis' repeats axis -1}}
  func.return %y : tensor<2xf32>
}

// -----

func.func @strided_slice_24(%x: tensor<2x9xf32>) -> tensor<2x1xf32> {
  // CHECK: math-invalid.mlir:[[# @LINE + 1]]:3: error: 'relay.strided_slice' op the slice 3:3:1 of axis 1 (size 9) is empty
  %y = relay.strided_slice %x {begin = [3], end = [3], axes = [1]} : (tensor<2x9xf32>) -> tensor<2x1xf32> // expected-error {{'relay.strided_slice' op the slice 3:3:1 of axis 1 (size 9) is empty}}
  func.return %y : tensor<2x1xf32>
}

// -----

func.func @strided_slice_25(%x: tensor<2x9xf32>) -> tensor<1x9xf32> {
  // CHECK: math-invalid.mlir:[[# @LINE + 1]]:3: error: 'relay.strided_slice' op property 'end' [1] must have as many entries as 'begin' [0, 1]
  %y = relay.strided_slice %x {begin = [0, 1], end = [1]} : (tensor<2x9xf32>) -> tensor<1x9xf32> // expected-error {{'relay.strided_slice' op property 'end' [1] must have as many entries as 'begin' [0, 1]}}
  func.return %y : tensor<1x9xf32>
}

// -----

func.func @strided_slice_26(%x: tensor<2x9xf32>) -> tensor<1x9xf32> {
  // CHECK: math-invalid.mlir:[[# @LINE + 1]]:3: error: 'relay.strided_slice' op property 'strides' must not contain 0
  %y = relay.strided_slice %x {begin = [0], end = [1], strides = [0]} : (tensor<2x9xf32>) -> tensor<1x9xf32> // expected-error {{'relay.strided_slice' op property 'strides' must not contain 0}}
  func.return %y : tensor<1x9xf32>
}

// -----

func.func @broadcast_to_27(%x: tensor<3x1xf32>) -> tensor<3x2xf32> {
  // CHECK: math-invalid.mlir:[[# @LINE + 1]]:3: error: 'relay.broadcast_to' op operands 'data' [3, 1] and 'shape' [2, 2] are not broadcast-compatible (dimension 0: 3 vs 2)
  %y = relay.broadcast_to %x {shape = [2, 2]} : (tensor<3x1xf32>) -> tensor<3x2xf32> // expected-error {{'relay.broadcast_to' op operands 'data' [3, 1] and 'shape' [2, 2] are not broadcast-compatible (dimension 0: 3 vs 2)}}
  func.return %y : tensor<3x2xf32>
}

// -----

func.func @broadcast_to_28(%x: tensor<3x1xf32>) -> tensor<2x3x1xf32> {
  // CHECK: math-invalid.mlir:[[# @LINE + 1]]:3: error: 'relay.broadcast_to' op result type tensor<2x3x1xf32> does not match the inferred type tensor<2x3x4xf32>
  %y = relay.broadcast_to %x {shape = [2, 1, 4]} : (tensor<3x1xf32>) -> tensor<2x3x1xf32> // expected-error {{'relay.broadcast_to' op result type tensor<2x3x1xf32> does not match the inferred type tensor<2x3x4xf32>}}
  func.return %y : tensor<2x3x1xf32>
}

// -----

func.func @min_29(%x: tensor<2x3xi32>) -> tensor<3xi32> {
  // CHECK: math-invalid.mlir:[[# @LINE + 1]]:3: error: 'relay.min' op result type tensor<3xi32> does not match the inferred type tensor<1x3xi32>
  %y = relay.min %x {axis = [0], keepdims = true} : (tensor<2x3xi32>) -> tensor<3xi32> // expected-error {{'relay.min' op result type tensor<3xi32> does not match the inferred type tensor<1x3xi32>}}
  func.return %y : tensor<3xi32>
}

// -----

func.func @sin_0(%x: tensor<4xi32>) -> tensor<4xi32> {
  // CHECK: math-invalid.mlir:[[# @LINE + 1]]:3: error: 'relay.sin' op operand 'data' must have a float element type, got tensor<4xi32>
  %y = relay.sin %x : tensor<4xi32> // expected-error {{'relay.sin' op operand 'data' must have a float element type, got tensor<4xi32>}}
  func.return %y : tensor<4xi32>
}

// -----

func.func @cos_0(%x: tensor<4xi32>) -> tensor<4xi32> {
  // CHECK: math-invalid.mlir:[[# @LINE + 1]]:3: error: 'relay.cos' op operand 'data' must have a float element type, got tensor<4xi32>
  %y = relay.cos %x : tensor<4xi32> // expected-error {{'relay.cos' op operand 'data' must have a float element type, got tensor<4xi32>}}
  func.return %y : tensor<4xi32>
}

// -----

func.func @tan_0(%x: tensor<4xi32>) -> tensor<4xi32> {
  // CHECK: math-invalid.mlir:[[# @LINE + 1]]:3: error: 'relay.tan' op operand 'data' must have a float element type, got tensor<4xi32>
  %y = relay.tan %x : tensor<4xi32> // expected-error {{'relay.tan' op operand 'data' must have a float element type, got tensor<4xi32>}}
  func.return %y : tensor<4xi32>
}

// -----

func.func @asin_0(%x: tensor<4xi32>) -> tensor<4xi32> {
  // CHECK: math-invalid.mlir:[[# @LINE + 1]]:3: error: 'relay.asin' op operand 'data' must have a float element type, got tensor<4xi32>
  %y = relay.asin %x : tensor<4xi32> // expected-error {{'relay.asin' op operand 'data' must have a float element type, got tensor<4xi32>}}
  func.return %y : tensor<4xi32>
}

// -----

func.func @acos_0(%x: tensor<4xi32>) -> tensor<4xi32> {
  // CHECK: math-invalid.mlir:[[# @LINE + 1]]:3: error: 'relay.acos' op operand 'data' must have a float element type, got tensor<4xi32>
  %y = relay.acos %x : tensor<4xi32> // expected-error {{'relay.acos' op operand 'data' must have a float element type, got tensor<4xi32>}}
  func.return %y : tensor<4xi32>
}

// -----

func.func @atan_0(%x: tensor<4xi32>) -> tensor<4xi32> {
  // CHECK: math-invalid.mlir:[[# @LINE + 1]]:3: error: 'relay.atan' op operand 'data' must have a float element type, got tensor<4xi32>
  %y = relay.atan %x : tensor<4xi32> // expected-error {{'relay.atan' op operand 'data' must have a float element type, got tensor<4xi32>}}
  func.return %y : tensor<4xi32>
}

// -----

func.func @sinh_0(%x: tensor<4xi32>) -> tensor<4xi32> {
  // CHECK: math-invalid.mlir:[[# @LINE + 1]]:3: error: 'relay.sinh' op operand 'data' must have a float element type, got tensor<4xi32>
  %y = relay.sinh %x : tensor<4xi32> // expected-error {{'relay.sinh' op operand 'data' must have a float element type, got tensor<4xi32>}}
  func.return %y : tensor<4xi32>
}

// -----

func.func @cosh_0(%x: tensor<4xi32>) -> tensor<4xi32> {
  // CHECK: math-invalid.mlir:[[# @LINE + 1]]:3: error: 'relay.cosh' op operand 'data' must have a float element type, got tensor<4xi32>
  %y = relay.cosh %x : tensor<4xi32> // expected-error {{'relay.cosh' op operand 'data' must have a float element type, got tensor<4xi32>}}
  func.return %y : tensor<4xi32>
}

// -----

func.func @asinh_0(%x: tensor<4xi32>) -> tensor<4xi32> {
  // CHECK: math-invalid.mlir:[[# @LINE + 1]]:3: error: 'relay.asinh' op operand 'data' must have a float element type, got tensor<4xi32>
  %y = relay.asinh %x : tensor<4xi32> // expected-error {{'relay.asinh' op operand 'data' must have a float element type, got tensor<4xi32>}}
  func.return %y : tensor<4xi32>
}

// -----

func.func @acosh_0(%x: tensor<4xi32>) -> tensor<4xi32> {
  // CHECK: math-invalid.mlir:[[# @LINE + 1]]:3: error: 'relay.acosh' op operand 'data' must have a float element type, got tensor<4xi32>
  %y = relay.acosh %x : tensor<4xi32> // expected-error {{'relay.acosh' op operand 'data' must have a float element type, got tensor<4xi32>}}
  func.return %y : tensor<4xi32>
}

// -----

func.func @atanh_0(%x: tensor<4xi32>) -> tensor<4xi32> {
  // CHECK: math-invalid.mlir:[[# @LINE + 1]]:3: error: 'relay.atanh' op operand 'data' must have a float element type, got tensor<4xi32>
  %y = relay.atanh %x : tensor<4xi32> // expected-error {{'relay.atanh' op operand 'data' must have a float element type, got tensor<4xi32>}}
  func.return %y : tensor<4xi32>
}
