// Round trip of the relay shape ops: custom form -> custom form, and generic form -> custom form.
// RUN: accel-opt %s --split-input-file | accel-opt --split-input-file | filecheck %s
// RUN: accel-opt %s --split-input-file --print-op-generic | filecheck %s --check-prefix=GEN
// RUN: accel-opt %s --split-input-file --print-op-generic | accel-opt --split-input-file | filecheck %s

func.func @reshape(%x: tensor<2x3x4xf32>) -> (tensor<6x4xf32>, tensor<2x12xf32>, tensor<24xf32>) {
  %a = relay.reshape %x {newshape = [6, 4]} : (tensor<2x3x4xf32>) -> tensor<6x4xf32>
  %b = relay.reshape %x {newshape = [0, -1]} : (tensor<2x3x4xf32>) -> tensor<2x12xf32>
  %c = relay.reshape %x {newshape = [-1]} : (tensor<2x3x4xf32>) -> tensor<24xf32>
  func.return %a, %b, %c : tensor<6x4xf32>, tensor<2x12xf32>, tensor<24xf32>
}
// CHECK-LABEL: func.func @reshape
// CHECK-NEXT:  %a = relay.reshape %x {newshape = [6, 4]} : (tensor<2x3x4xf32>) -> tensor<6x4xf32>
// CHECK-NEXT:  %b = relay.reshape %x {newshape = [0, -1]} : (tensor<2x3x4xf32>) -> tensor<2x12xf32>
// CHECK-NEXT:  %c = relay.reshape %x {newshape = [-1]} : (tensor<2x3x4xf32>) -> tensor<24xf32>
// CHECK-NEXT:  func.return %a, %b, %c : tensor<6x4xf32>, tensor<2x12xf32>, tensor<24xf32>
// GEN:         %a = "relay.reshape"(%x) <{newshape = array<i64: 6, 4>}> : (tensor<2x3x4xf32>) -> tensor<6x4xf32>
// GEN:         %b = "relay.reshape"(%x) <{newshape = array<i64: 0, -1>}> : (tensor<2x3x4xf32>) -> tensor<2x12xf32>
// GEN:         %c = "relay.reshape"(%x) <{newshape = array<i64: -1>}> : (tensor<2x3x4xf32>) -> tensor<24xf32>

// -----

func.func @transpose(%x: tensor<2x3x4xf32>) -> (tensor<4x3x2xf32>, tensor<2x4x3xf32>) {
  %r = relay.transpose %x : (tensor<2x3x4xf32>) -> tensor<4x3x2xf32>
  %p = relay.transpose %x {axes = [0, -1, 1]} : (tensor<2x3x4xf32>) -> tensor<2x4x3xf32>
  func.return %r, %p : tensor<4x3x2xf32>, tensor<2x4x3xf32>
}
// CHECK-LABEL: func.func @transpose
// CHECK-NEXT:  %r = relay.transpose %x : (tensor<2x3x4xf32>) -> tensor<4x3x2xf32>
// CHECK-NEXT:  %p = relay.transpose %x {axes = [0, -1, 1]} : (tensor<2x3x4xf32>) -> tensor<2x4x3xf32>
// CHECK-NEXT:  func.return %r, %p : tensor<4x3x2xf32>, tensor<2x4x3xf32>
// GEN:         %r = "relay.transpose"(%x) : (tensor<2x3x4xf32>) -> tensor<4x3x2xf32>
// GEN:         %p = "relay.transpose"(%x) <{axes = array<i64: 0, -1, 1>}> : (tensor<2x3x4xf32>) -> tensor<2x4x3xf32>

// -----

func.func @concatenate(%a: tensor<2x3xf32>, %b: tensor<2x5xf32>) -> (tensor<2x11xf32>, tensor<4x3xf32>, tensor<2x3xf32>) {
  %c = relay.concatenate %a, %b, %a {axis = -1} : (tensor<2x3xf32>, tensor<2x5xf32>, tensor<2x3xf32>) -> tensor<2x11xf32>
  %d = relay.concatenate %a, %a : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<4x3xf32>
  %e = relay.concatenate %a : (tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %c, %d, %e : tensor<2x11xf32>, tensor<4x3xf32>, tensor<2x3xf32>
}
// CHECK-LABEL: func.func @concatenate
// CHECK-NEXT:  %c = relay.concatenate %a, %b, %a {axis = -1} : (tensor<2x3xf32>, tensor<2x5xf32>, tensor<2x3xf32>) -> tensor<2x11xf32>
// CHECK-NEXT:  %d = relay.concatenate %a, %a : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<4x3xf32>
// CHECK-NEXT:  %e = relay.concatenate %a : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:  func.return %c, %d, %e : tensor<2x11xf32>, tensor<4x3xf32>, tensor<2x3xf32>
// GEN:         %c = "relay.concatenate"(%a, %b, %a) <{axis = -1 : i64}> : (tensor<2x3xf32>, tensor<2x5xf32>, tensor<2x3xf32>) -> tensor<2x11xf32>
// GEN:         %d = "relay.concatenate"(%a, %a) <{axis = 0 : i64}> : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<4x3xf32>
// GEN:         %e = "relay.concatenate"(%a) <{axis = 0 : i64}> : (tensor<2x3xf32>) -> tensor<2x3xf32>

// -----

func.func @take(%x: tensor<5x4xf32>, %i: tensor<2x3xi64>, %j: tensor<i32>) -> (tensor<2x3x4xf32>, tensor<5x2x3xf32>, tensor<4xf32>) {
  %a = relay.take %x, %i : (tensor<5x4xf32>, tensor<2x3xi64>) -> tensor<2x3x4xf32>
  %b = relay.take %x, %i {axis = 1} : (tensor<5x4xf32>, tensor<2x3xi64>) -> tensor<5x2x3xf32>
  %c = relay.take %x, %j : (tensor<5x4xf32>, tensor<i32>) -> tensor<4xf32>
  func.return %a, %b, %c : tensor<2x3x4xf32>, tensor<5x2x3xf32>, tensor<4xf32>
}
// CHECK-LABEL: func.func @take
// CHECK-NEXT:  %a = relay.take %x, %i : (tensor<5x4xf32>, tensor<2x3xi64>) -> tensor<2x3x4xf32>
// CHECK-NEXT:  %b = relay.take %x, %i {axis = 1} : (tensor<5x4xf32>, tensor<2x3xi64>) -> tensor<5x2x3xf32>
// CHECK-NEXT:  %c = relay.take %x, %j : (tensor<5x4xf32>, tensor<i32>) -> tensor<4xf32>
// CHECK-NEXT:  func.return %a, %b, %c : tensor<2x3x4xf32>, tensor<5x2x3xf32>, tensor<4xf32>
// GEN:         %a = "relay.take"(%x, %i) <{axis = 0 : i64}> : (tensor<5x4xf32>, tensor<2x3xi64>) -> tensor<2x3x4xf32>
// GEN:         %b = "relay.take"(%x, %i) <{axis = 1 : i64}> : (tensor<5x4xf32>, tensor<2x3xi64>) -> tensor<5x2x3xf32>
// GEN:         %c = "relay.take"(%x, %j) <{axis = 0 : i64}> : (tensor<5x4xf32>, tensor<i32>) -> tensor<4xf32>
