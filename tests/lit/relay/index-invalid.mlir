// Verifier errors of the index ops (gather_nd, scatter_elements, scatter_nd): one
// located line naming the operand or property.
// RUN: accel-opt %s --split-input-file --verify-diagnostics
// RUN: not accel-opt %s --split-input-file 2>&1 | filecheck %s

func.func @gather_nd_float_indices(%x: tensor<3x4xf32>, %i: tensor<2x2xf32>) -> tensor<2xf32> {
  // CHECK: index-invalid.mlir:[[# @LINE + 1]]:3: error: 'relay.gather_nd' op operand 'indices' must be an integer tensor, got tensor<2x2xf32>
  %y = relay.gather_nd %x, %i : (tensor<3x4xf32>, tensor<2x2xf32>) -> tensor<2xf32> // expected-error {{'relay.gather_nd' op operand 'indices' must be an integer tensor, got tensor<2x2xf32>}}
  func.return %y : tensor<2xf32>
}

// -----

func.func @gather_nd_depth(%x: tensor<3x4xf32>, %i: tensor<2x3xi64>) -> tensor<2xf32> {
  // CHECK: index-invalid.mlir:[[# @LINE + 1]]:3: error: 'relay.gather_nd' op the last dimension of 'indices' (3) must be in [1, 2]
  %y = relay.gather_nd %x, %i : (tensor<3x4xf32>, tensor<2x3xi64>) -> tensor<2xf32> // expected-error {{'relay.gather_nd' op the last dimension of 'indices' (3) must be in [1, 2]}}
  func.return %y : tensor<2xf32>
}

// -----

func.func @gather_nd_batch_dims(%x: tensor<3x4xf32>, %i: tensor<3x1xi64>) -> tensor<3xf32> {
  // CHECK: index-invalid.mlir:[[# @LINE + 1]]:3: error: 'relay.gather_nd' op property 'batch_dims' (2) must be in [0, 2)
  %y = relay.gather_nd %x, %i {batch_dims = 2} : (tensor<3x4xf32>, tensor<3x1xi64>) -> tensor<3xf32> // expected-error {{'relay.gather_nd' op property 'batch_dims' (2) must be in [0, 2)}}
  func.return %y : tensor<3xf32>
}

// -----

func.func @gather_nd_batch_shape(%x: tensor<3x4xf32>, %i: tensor<2x1xi64>) -> tensor<2xf32> {
  // CHECK: index-invalid.mlir:[[# @LINE + 1]]:3: error: 'relay.gather_nd' op the batch dimensions of 'indices' [2] and 'data' [3] differ
  %y = relay.gather_nd %x, %i {batch_dims = 1} : (tensor<3x4xf32>, tensor<2x1xi64>) -> tensor<2xf32> // expected-error {{'relay.gather_nd' op the batch dimensions of 'indices' [2] and 'data' [3] differ}}
  func.return %y : tensor<2xf32>
}

// -----

func.func @gather_nd_result(%x: tensor<3x4xf32>, %i: tensor<2x1xi64>) -> tensor<2xf32> {
  // CHECK: index-invalid.mlir:[[# @LINE + 1]]:3: error: 'relay.gather_nd' op result type tensor<2xf32> does not match the inferred type tensor<2x4xf32>
  %y = relay.gather_nd %x, %i : (tensor<3x4xf32>, tensor<2x1xi64>) -> tensor<2xf32> // expected-error {{'relay.gather_nd' op result type tensor<2xf32> does not match the inferred type tensor<2x4xf32>}}
  func.return %y : tensor<2xf32>
}

// -----

func.func @scatter_elements_updates_type(%x: tensor<3x4xf32>, %i: tensor<2x4xi64>, %u: tensor<2x4xf64>) -> tensor<3x4xf32> {
  // CHECK: index-invalid.mlir:[[# @LINE + 1]]:3: error: 'relay.scatter_elements' op operands 'data' and 'updates' must have the same element type, got f32 and f64
  %y = relay.scatter_elements %x, %i, %u : (tensor<3x4xf32>, tensor<2x4xi64>, tensor<2x4xf64>) -> tensor<3x4xf32> // expected-error {{'relay.scatter_elements' op operands 'data' and 'updates' must have the same element type, got f32 and f64}}
  func.return %y : tensor<3x4xf32>
}

// -----

func.func @scatter_elements_updates_shape(%x: tensor<3x4xf32>, %i: tensor<2x4xi64>, %u: tensor<2x3xf32>) -> tensor<3x4xf32> {
  // CHECK: index-invalid.mlir:[[# @LINE + 1]]:3: error: 'relay.scatter_elements' op operand 'updates' must have the shape of 'indices' [2, 4], got tensor<2x3xf32>
  %y = relay.scatter_elements %x, %i, %u : (tensor<3x4xf32>, tensor<2x4xi64>, tensor<2x3xf32>) -> tensor<3x4xf32> // expected-error {{'relay.scatter_elements' op operand 'updates' must have the shape of 'indices' [2, 4], got tensor<2x3xf32>}}
  func.return %y : tensor<3x4xf32>
}

// -----

func.func @scatter_elements_extent(%x: tensor<3x4xf32>, %i: tensor<2x5xi64>, %u: tensor<2x5xf32>) -> tensor<3x4xf32> {
  // CHECK: index-invalid.mlir:[[# @LINE + 1]]:3: error: 'relay.scatter_elements' op operand 'indices' has 5 elements along axis 1, 'data' only 4
  %y = relay.scatter_elements %x, %i, %u : (tensor<3x4xf32>, tensor<2x5xi64>, tensor<2x5xf32>) -> tensor<3x4xf32> // expected-error {{'relay.scatter_elements' op operand 'indices' has 5 elements along axis 1, 'data' only 4}}
  func.return %y : tensor<3x4xf32>
}

// -----

func.func @scatter_elements_axis(%x: tensor<3x4xf32>, %i: tensor<2x4xi64>, %u: tensor<2x4xf32>) -> tensor<3x4xf32> {
  // CHECK: index-invalid.mlir:[[# @LINE + 1]]:3: error: 'relay.scatter_elements' op property 'axis' 2 is out of range for rank 2
  %y = relay.scatter_elements %x, %i, %u {axis = 2} : (tensor<3x4xf32>, tensor<2x4xi64>, tensor<2x4xf32>) -> tensor<3x4xf32> // expected-error {{'relay.scatter_elements' op property 'axis' 2 is out of range for rank 2}}
  func.return %y : tensor<3x4xf32>
}

// -----

func.func @scatter_elements_reduction(%x: tensor<3x4xf32>, %i: tensor<2x4xi64>, %u: tensor<2x4xf32>) -> tensor<3x4xf32> {
  // CHECK: index-invalid.mlir:[[# @LINE + 2]]:55: error: property 'reduction' of 'relay.scatter_elements' must be one of "none", "add", "mul", "max", "min", got "mean"
  // expected-error @+1 {{property 'reduction' of 'relay.scatter_elements' must be one of "none", "add", "mul", "max", "min", got "mean"}}
  %y = relay.scatter_elements %x, %i, %u {reduction = "mean"} : (tensor<3x4xf32>, tensor<2x4xi64>, tensor<2x4xf32>) -> tensor<3x4xf32>
  func.return %y : tensor<3x4xf32>
}

// -----

func.func @scatter_elements_bool_add(%x: tensor<5xi1>, %i: tensor<2xi64>, %u: tensor<2xi1>) -> tensor<5xi1> {
  // CHECK: index-invalid.mlir:[[# @LINE + 1]]:3: error: 'relay.scatter_elements' op reduction 'add' needs a numeric 'data', got tensor<5xi1>
  %y = relay.scatter_elements %x, %i, %u {reduction = "add"} : (tensor<5xi1>, tensor<2xi64>, tensor<2xi1>) -> tensor<5xi1> // expected-error {{'relay.scatter_elements' op reduction 'add' needs a numeric 'data', got tensor<5xi1>}}
  func.return %y : tensor<5xi1>
}

// -----

func.func @scatter_nd_float_indices(%x: tensor<3x4xf32>, %i: tensor<2x1xf32>, %u: tensor<2x4xf32>) -> tensor<3x4xf32> {
  // CHECK: index-invalid.mlir:[[# @LINE + 1]]:3: error: 'relay.scatter_nd' op operand 'indices' must be an integer tensor, got tensor<2x1xf32>
  %y = relay.scatter_nd %x, %i, %u : (tensor<3x4xf32>, tensor<2x1xf32>, tensor<2x4xf32>) -> tensor<3x4xf32> // expected-error {{'relay.scatter_nd' op operand 'indices' must be an integer tensor, got tensor<2x1xf32>}}
  func.return %y : tensor<3x4xf32>
}

// -----

func.func @scatter_nd_depth(%x: tensor<3x4xf32>, %i: tensor<2x3xi64>, %u: tensor<2xf32>) -> tensor<3x4xf32> {
  // CHECK: index-invalid.mlir:[[# @LINE + 1]]:3: error: 'relay.scatter_nd' op the last dimension of 'indices' (3) must be in [1, 2]
  %y = relay.scatter_nd %x, %i, %u : (tensor<3x4xf32>, tensor<2x3xi64>, tensor<2xf32>) -> tensor<3x4xf32> // expected-error {{'relay.scatter_nd' op the last dimension of 'indices' (3) must be in [1, 2]}}
  func.return %y : tensor<3x4xf32>
}

// -----

func.func @scatter_nd_updates_shape(%x: tensor<3x4xf32>, %i: tensor<2x1xi64>, %u: tensor<2x3xf32>) -> tensor<3x4xf32> {
  // CHECK: index-invalid.mlir:[[# @LINE + 1]]:3: error: 'relay.scatter_nd' op operand 'updates' must have shape [2, 4], got tensor<2x3xf32>
  %y = relay.scatter_nd %x, %i, %u : (tensor<3x4xf32>, tensor<2x1xi64>, tensor<2x3xf32>) -> tensor<3x4xf32> // expected-error {{'relay.scatter_nd' op operand 'updates' must have shape [2, 4], got tensor<2x3xf32>}}
  func.return %y : tensor<3x4xf32>
}

// -----

func.func @scatter_nd_result(%x: tensor<3x4xf32>, %i: tensor<2x1xi64>, %u: tensor<2x4xf32>) -> tensor<4x4xf32> {
  // CHECK: index-invalid.mlir:[[# @LINE + 1]]:3: error: 'relay.scatter_nd' op result type tensor<4x4xf32> does not match the inferred type tensor<3x4xf32>
  %y = relay.scatter_nd %x, %i, %u : (tensor<3x4xf32>, tensor<2x1xi64>, tensor<2x4xf32>) -> tensor<4x4xf32> // expected-error {{'relay.scatter_nd' op result type tensor<4x4xf32> does not match the inferred type tensor<3x4xf32>}}
  func.return %y : tensor<4x4xf32>
}
