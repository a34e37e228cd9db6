// Round trip of the scans, top k, integer bit ops and the determinant (cumsum, cumprod, topk, bitwise_and/or/xor/not, left_shift, right_shift, reinterpret, det): custom form -> custom form, and generic form -> custom form.
// RUN: accel-opt %s --split-input-file | accel-opt --split-input-file | filecheck %s
// RUN: accel-opt %s --split-input-file --print-op-generic | filecheck %s --check-prefix=GEN
// RUN: accel-opt %s --split-input-file --print-op-generic | accel-opt --split-input-file | filecheck %s

func.func @scans(%x: tensor<2x5xf32>, %m: tensor<2x5xi64>) -> (tensor<2x5xi64>, tensor<2x5xf32>, tensor<2x3xi64>, tensor<1x5xf32>) {
  %pos = relay.cumsum %m {axis = 1, exclusive = true} : tensor<2x5xi64>
  %p = relay.cumprod %x {axis = -1, reverse = true} : tensor<2x5xf32>
  %i = relay.topk %x {k = 3} : (tensor<2x5xf32>) -> tensor<2x3xi64>
  %v = relay.topk %x {k = 1, axis = 0, is_ascend = true, ret_type = "values"} : (tensor<2x5xf32>) -> tensor<1x5xf32>
  func.return %pos, %p, %i, %v : tensor<2x5xi64>, tensor<2x5xf32>, tensor<2x3xi64>, tensor<1x5xf32>
}
// CHECK-LABEL: func.func @scans
// CHECK-NEXT:  %pos = relay.cumsum %m {axis = 1, exclusive = true} : tensor<2x5xi64>
// CHECK-NEXT:  %p = relay.cumprod %x {axis = -1, reverse = true} : tensor<2x5xf32>
// CHECK-NEXT:  %i = relay.topk %x {k = 3} : (tensor<2x5xf32>) -> tensor<2x3xi64>
// CHECK-NEXT:  %v = relay.topk %x {k = 1, axis = 0, is_ascend = true, ret_type = "values"} : (tensor<2x5xf32>) -> tensor<1x5xf32>
// GEN:         %pos = "relay.cumsum"(%m) <{axis = 1 : i64, exclusive = true, reverse = false}> : (tensor<2x5xi64>) -> tensor<2x5xi64>
// GEN:         %p = "relay.cumprod"(%x) <{axis = -1 : i64, exclusive = false, reverse = true}> : (tensor<2x5xf32>) -> tensor<2x5xf32>
// GEN:         %i = "relay.topk"(%x) <{k = 3 : i64, axis = -1 : i64, is_ascend = false, ret_type = "indices"}> : (tensor<2x5xf32>) -> tensor<2x3xi64>
// GEN:         %v = "relay.topk"(%x) <{k = 1 : i64, axis = 0 : i64, is_ascend = true, ret_type = "values"}> : (tensor<2x5xf32>) -> tensor<1x5xf32>

// -----

func.func @bits(%a: tensor<2x4xi32>, %b: tensor<4xi32>, %u: tensor<3xui8>, %f: tensor<2x4xf32>, %q: tensor<4xi1>) -> (tensor<2x4xi32>, tensor<2x4xi32>, tensor<2x4xi32>, tensor<2x4xi32>, tensor<3xui8>, tensor<3xui8>, tensor<2x4xi32>, tensor<4xui8>) {
  %and = relay.bitwise_and %a, %b : (tensor<2x4xi32>, tensor<4xi32>) -> tensor<2x4xi32>
  %or = relay.bitwise_or %and, %a : tensor<2x4xi32>
  %xor = relay.bitwise_xor %b, %or : (tensor<4xi32>, tensor<2x4xi32>) -> tensor<2x4xi32>
  %not = relay.bitwise_not %xor : tensor<2x4xi32>
  %shl = relay.left_shift %u, %u : tensor<3xui8>
  %shr = relay.right_shift %shl, %u : tensor<3xui8>
  %bits = relay.reinterpret %f : tensor<2x4xf32> -> tensor<2x4xi32>
  %bytes = relay.reinterpret %q : tensor<4xi1> -> tensor<4xui8>
  func.return %and, %or, %xor, %not, %shl, %shr, %bits, %bytes : tensor<2x4xi32>, tensor<2x4xi32>, tensor<2x4xi32>, tensor<2x4xi32>, tensor<3xui8>, tensor<3xui8>, tensor<2x4xi32>, tensor<4xui8>
}
// CHECK-LABEL: func.func @bits
// CHECK-NEXT:  %and = relay.bitwise_and %a, %b : (tensor<2x4xi32>, tensor<4xi32>) -> tensor<2x4xi32>
// CHECK-NEXT:  %or = relay.bitwise_or %and, %a : tensor<2x4xi32>
// CHECK-NEXT:  %xor = relay.bitwise_xor %b, %or : (tensor<4xi32>, tensor<2x4xi32>) -> tensor<2x4xi32>
// CHECK-NEXT:  %not = relay.bitwise_not %xor : tensor<2x4xi32>
// CHECK-NEXT:  %shl = relay.left_shift %u, %u : tensor<3xui8>
// CHECK-NEXT:  %shr = relay.right_shift %shl, %u : tensor<3xui8>
// CHECK-NEXT:  %bits = relay.reinterpret %f : tensor<2x4xf32> -> tensor<2x4xi32>
// CHECK-NEXT:  %bytes = relay.reinterpret %q : tensor<4xi1> -> tensor<4xui8>
// GEN:         %and = "relay.bitwise_and"(%a, %b) : (tensor<2x4xi32>, tensor<4xi32>) -> tensor<2x4xi32>
// GEN:         %or = "relay.bitwise_or"(%and, %a) : (tensor<2x4xi32>, tensor<2x4xi32>) -> tensor<2x4xi32>
// GEN:         %xor = "relay.bitwise_xor"(%b, %or) : (tensor<4xi32>, tensor<2x4xi32>) -> tensor<2x4xi32>
// GEN:         %not = "relay.bitwise_not"(%xor) : (tensor<2x4xi32>) -> tensor<2x4xi32>
// GEN:         %shl = "relay.left_shift"(%u, %u) : (tensor<3xui8>, tensor<3xui8>) -> tensor<3xui8>
// GEN:         %shr = "relay.right_shift"(%shl, %u) : (tensor<3xui8>, tensor<3xui8>) -> tensor<3xui8>
// GEN:         %bits = "relay.reinterpret"(%f) : (tensor<2x4xf32>) -> tensor<2x4xi32>
// GEN:         %bytes = "relay.reinterpret"(%q) : (tensor<4xi1>) -> tensor<4xui8>

// -----

func.func @det(%x: tensor<2x3x3xf32>, %m: tensor<4x4xf64>) -> (tensor<2xf32>, tensor<f64>) {
  %d = relay.det %x : (tensor<2x3x3xf32>) -> tensor<2xf32>
  %e = relay.det %m : (tensor<4x4xf64>) -> tensor<f64>
  func.return %d, %e : tensor<2xf32>, tensor<f64>
}
// CHECK-LABEL: func.func @det
// CHECK-NEXT:  %d = relay.det %x : (tensor<2x3x3xf32>) -> tensor<2xf32>
// CHECK-NEXT:  %e = relay.det %m : (tensor<4x4xf64>) -> tensor<f64>
// GEN:         %d = "relay.det"(%x) : (tensor<2x3x3xf32>) -> tensor<2xf32>
// GEN:         %e = "relay.det"(%m) : (tensor<4x4xf64>) -> tensor<f64>
