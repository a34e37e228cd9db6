// Round trip of the index ops (gather_nd, scatter_elements, scatter_nd): custom form ->
// custom form, and the generic form spells every property out.
// RUN: accel-opt %s --split-input-file | accel-opt --split-input-file | filecheck %s
// RUN: accel-opt %s --split-input-file --print-op-generic | filecheck %s --check-prefix=GEN
// RUN: accel-opt %s --split-input-file --print-op-generic | accel-opt --split-input-file | filecheck %s

func.func @gather_nd(%x: tensor<2x3x4xf32>, %i: tensor<2x5x1xi64>) -> tensor<2x5x4xf32> {
  %y = relay.gather_nd %x, %i {batch_dims = 1} : (tensor<2x3x4xf32>, tensor<2x5x1xi64>) -> tensor<2x5x4xf32>
  func.return %y : tensor<2x5x4xf32>
}
// CHECK-LABEL: func.func @gather_nd
// CHECK-NEXT:  %y = relay.gather_nd %x, %i {batch_dims = 1} : (tensor<2x3x4xf32>, tensor<2x5x1xi64>) -> tensor<2x5x4xf32>
// GEN:         "relay.gather_nd"(%x, %i) <{batch_dims = 1 : i64}>

// -----

func.func @gather_nd_scalars(%x: tensor<3x4xi32>, %i: tensor<2x2xi32>) -> tensor<2xi32> {
  %y = relay.gather_nd %x, %i : (tensor<3x4xi32>, tensor<2x2xi32>) -> tensor<2xi32>
  func.return %y : tensor<2xi32>
}
// CHECK-LABEL: func.func @gather_nd_scalars
// CHECK-NEXT:  %y = relay.gather_nd %x, %i : (tensor<3x4xi32>, tensor<2x2xi32>) -> tensor<2xi32>
// GEN:         "relay.gather_nd"(%x, %i) <{batch_dims = 0 : i64}>

// -----

func.func @scatter_elements(%x: tensor<3x4xf32>, %i: tensor<2x4xi64>, %u: tensor<2x4xf32>) -> tensor<3x4xf32> {
  %y = relay.scatter_elements %x, %i, %u {axis = 1, reduction = "add"} : (tensor<3x4xf32>, tensor<2x4xi64>, tensor<2x4xf32>) -> tensor<3x4xf32>
  func.return %y : tensor<3x4xf32>
}
// CHECK-LABEL: func.func @scatter_elements
// CHECK-NEXT:  %y = relay.scatter_elements %x, %i, %u {axis = 1, reduction = "add"} : (tensor<3x4xf32>, tensor<2x4xi64>, tensor<2x4xf32>) -> tensor<3x4xf32>
// GEN:         "relay.scatter_elements"(%x, %i, %u) <{axis = 1 : i64, reduction = "add"}>

// -----

func.func @scatter_elements_bool(%x: tensor<5xi1>, %i: tensor<2xi32>, %u: tensor<2xi1>) -> tensor<5xi1> {
  %y = relay.scatter_elements %x, %i, %u : (tensor<5xi1>, tensor<2xi32>, tensor<2xi1>) -> tensor<5xi1>
  func.return %y : tensor<5xi1>
}
// CHECK-LABEL: func.func @scatter_elements_bool
// CHECK-NEXT:  %y = relay.scatter_elements %x, %i, %u : (tensor<5xi1>, tensor<2xi32>, tensor<2xi1>) -> tensor<5xi1>
// GEN:         "relay.scatter_elements"(%x, %i, %u) <{axis = 0 : i64, reduction = "none"}>

// -----

func.func @scatter_nd(%x: tensor<4x4x4xf32>, %i: tensor<2x1xi64>, %u: tensor<2x4x4xf32>) -> tensor<4x4x4xf32> {
  %y = relay.scatter_nd %x, %i, %u {reduction = "max"} : (tensor<4x4x4xf32>, tensor<2x1xi64>, tensor<2x4x4xf32>) -> tensor<4x4x4xf32>
  func.return %y : tensor<4x4x4xf32>
}
// CHECK-LABEL: func.func @scatter_nd
// CHECK-NEXT:  %y = relay.scatter_nd %x, %i, %u {reduction = "max"} : (tensor<4x4x4xf32>, tensor<2x1xi64>, tensor<2x4x4xf32>) -> tensor<4x4x4xf32>
// GEN:         "relay.scatter_nd"(%x, %i, %u) <{reduction = "max"}>
