// Round trip of the relay elementwise ops (numpy broadcasting), clip, cast and mean: custom form -> custom form, and generic form -> custom form.
// RUN: accel-opt %s --split-input-file | accel-opt --split-input-file | filecheck %s
// RUN: accel-opt %s --split-input-file --print-op-generic | filecheck %s --check-prefix=GEN
// RUN: accel-opt %s --split-input-file --print-op-generic | accel-opt --split-input-file | filecheck %s

func.func @binary(%a: tensor<2x3xf32>, %b: tensor<3xf32>, %c: tensor<4x1x1xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<4x2x3xf32>) {
  %add = relay.add %a, %a : tensor<2x3xf32>
  %sub = relay.subtract %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %mul = relay.multiply %b, %a : (tensor<3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %div = relay.divide %c, %a : (tensor<4x1x1xf32>, tensor<2x3xf32>) -> tensor<4x2x3xf32>
  func.return %add, %sub, %mul, %div : tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<4x2x3xf32>
}
// CHECK-LABEL: func.func @binary
// CHECK-NEXT:  %add = relay.add %a, %a : tensor<2x3xf32>
// CHECK-NEXT:  %sub = relay.subtract %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:  %mul = relay.multiply %b, %a : (tensor<3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:  %div = relay.divide %c, %a : (tensor<4x1x1xf32>, tensor<2x3xf32>) -> tensor<4x2x3xf32>
// CHECK-NEXT:  func.return %add, %sub, %mul, %div : tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<4x2x3xf32>
// GEN:         %add = "relay.add"(%a, %a) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
// GEN:         %sub = "relay.subtract"(%a, %b) : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
// GEN:         %mul = "relay.multiply"(%b, %a) : (tensor<3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
// GEN:         %div = "relay.divide"(%c, %a) : (tensor<4x1x1xf32>, tensor<2x3xf32>) -> tensor<4x2x3xf32>

// -----

func.func @integer_binary(%a: tensor<4xi32>, %b: tensor<i32>) -> tensor<4xi32> {
  %y = relay.divide %a, %b : (tensor<4xi32>, tensor<i32>) -> tensor<4xi32>
  func.return %y : tensor<4xi32>
}
// CHECK-LABEL: func.func @integer_binary
// CHECK-NEXT:  %y = relay.divide %a, %b : (tensor<4xi32>, tensor<i32>) -> tensor<4xi32>
// CHECK-NEXT:  func.return %y : tensor<4xi32>
// GEN:         %y = "relay.divide"(%a, %b) : (tensor<4xi32>, tensor<i32>) -> tensor<4xi32>

// -----

func.func @unary(%x: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>) {
  %s = relay.sigmoid %x : tensor<2x3xf32>
  %t = relay.tanh %s : tensor<2x3xf32>
  %e = relay.erf %t : tensor<2x3xf32>
  func.return %s, %t, %e : tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>
}
// CHECK-LABEL: func.func @unary
// CHECK-NEXT:  %s = relay.sigmoid %x : tensor<2x3xf32>
// CHECK-NEXT:  %t = relay.tanh %s : tensor<2x3xf32>
// CHECK-NEXT:  %e = relay.erf %t : tensor<2x3xf32>
// CHECK-NEXT:  func.return %s, %t, %e : tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>
// GEN:         %s = "relay.sigmoid"(%x) : (tensor<2x3xf32>) -> tensor<2x3xf32>
// GEN:         %t = "relay.tanh"(%s) : (tensor<2x3xf32>) -> tensor<2x3xf32>
// GEN:         %e = "relay.erf"(%t) : (tensor<2x3xf32>) -> tensor<2x3xf32>

// -----

func.func @clip(%x: tensor<2x3xf32>, %q: tensor<4xi8>) -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<4xi8>) {
  %relu6 = relay.clip %x {a_min = 0.0, a_max = 6.0} : tensor<2x3xf32>
  %open = relay.clip %x {a_min = -inf, a_max = 0.5} : tensor<2x3xf32>
  %int = relay.clip %q {a_min = -128.0, a_max = inf} : tensor<4xi8>
  func.return %relu6, %open, %int : tensor<2x3xf32>, tensor<2x3xf32>, tensor<4xi8>
}
// CHECK-LABEL: func.func @clip
// CHECK-NEXT:  %relu6 = relay.clip %x {a_min = 0.0, a_max = 6.0} : tensor<2x3xf32>
// CHECK-NEXT:  %open = relay.clip %x {a_min = -inf, a_max = 0.5} : tensor<2x3xf32>
// CHECK-NEXT:  %int = relay.clip %q {a_min = -128.0, a_max = inf} : tensor<4xi8>
// CHECK-NEXT:  func.return %relu6, %open, %int : tensor<2x3xf32>, tensor<2x3xf32>, tensor<4xi8>
// GEN:         %relu6 = "relay.clip"(%x) <{a_min = 0.000000e+00 : f64, a_max = 6.000000e+00 : f64}> : (tensor<2x3xf32>) -> tensor<2x3xf32>
// GEN:         %open = "relay.clip"(%x) <{a_min = 0xfff0000000000000 : f64, a_max = 5.000000e-01 : f64}> : (tensor<2x3xf32>) -> tensor<2x3xf32>
// GEN:         %int = "relay.clip"(%q) <{a_min = -1.280000e+02 : f64, a_max = 0x7ff0000000000000 : f64}> : (tensor<4xi8>) -> tensor<4xi8>

// -----

func.func @clip_typed_and_hex(%x: tensor<2xf32>) -> tensor<2xf32> {
  %y = relay.clip %x {a_min = -1.0e-05 : f64, a_max = 0x7FF0000000000000} : tensor<2xf32>
  func.return %y : tensor<2xf32>
}
// CHECK-LABEL: func.func @clip_typed_and_hex
// CHECK-NEXT:  %y = relay.clip %x {a_min = -1.0e-05, a_max = inf} : tensor<2xf32>
// CHECK-NEXT:  func.return %y : tensor<2xf32>
// GEN:         %y = "relay.clip"(%x) <{a_min = -1.000000e-05 : f64, a_max = 0x7ff0000000000000 : f64}> : (tensor<2xf32>) -> tensor<2xf32>

// -----

func.func @cast(%x: tensor<2x3xf32>) -> (tensor<2x3xi8>, tensor<2x3xf16>) {
  %i = relay.cast %x : tensor<2x3xf32> -> tensor<2x3xi8>
  %h = relay.cast %i : tensor<2x3xi8> -> tensor<2x3xf16>
  func.return %i, %h : tensor<2x3xi8>, tensor<2x3xf16>
}
// CHECK-LABEL: func.func @cast
// CHECK-NEXT:  %i = relay.cast %x : tensor<2x3xf32> -> tensor<2x3xi8>
// CHECK-NEXT:  %h = relay.cast %i : tensor<2x3xi8> -> tensor<2x3xf16>
// CHECK-NEXT:  func.return %i, %h : tensor<2x3xi8>, tensor<2x3xf16>
// GEN:         %i = "relay.cast"(%x) <{saturate = true, round_mode = "up"}> : (tensor<2x3xf32>) -> tensor<2x3xi8>
// GEN:         %h = "relay.cast"(%i) <{saturate = true, round_mode = "up"}> : (tensor<2x3xi8>) -> tensor<2x3xf16>

// -----

func.func @mean(%x: tensor<2x3x4x5xf32>) -> (tensor<f32>, tensor<2x3xf32>, tensor<2x3x1x1xf32>, tensor<1x1x4x5xf32>) {
  %all = relay.mean %x : (tensor<2x3x4x5xf32>) -> tensor<f32>
  %hw = relay.mean %x {axis = [2, -1]} : (tensor<2x3x4x5xf32>) -> tensor<2x3xf32>
  %keep = relay.mean %x {axis = [2, 3], keepdims = true} : (tensor<2x3x4x5xf32>) -> tensor<2x3x1x1xf32>
  %excl = relay.mean %x {axis = [2, 3], keepdims = true, exclude = true} : (tensor<2x3x4x5xf32>) -> tensor<1x1x4x5xf32>
  func.return %all, %hw, %keep, %excl : tensor<f32>, tensor<2x3xf32>, tensor<2x3x1x1xf32>, tensor<1x1x4x5xf32>
}
// CHECK-LABEL: func.func @mean
// CHECK-NEXT:  %all = relay.mean %x : (tensor<2x3x4x5xf32>) -> tensor<f32>
// CHECK-NEXT:  %hw = relay.mean %x {axis = [2, -1]} : (tensor<2x3x4x5xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:  %keep = relay.mean %x {axis = [2, 3], keepdims = true} : (tensor<2x3x4x5xf32>) -> tensor<2x3x1x1xf32>
// CHECK-NEXT:  %excl = relay.mean %x {axis = [2, 3], keepdims = true, exclude = true} : (tensor<2x3x4x5xf32>) -> tensor<1x1x4x5xf32>
// CHECK-NEXT:  func.return %all, %hw, %keep, %excl : tensor<f32>, tensor<2x3xf32>, tensor<2x3x1x1xf32>, tensor<1x1x4x5xf32>
// GEN:         %all = "relay.mean"(%x) <{keepdims = false, exclude = false}> : (tensor<2x3x4x5xf32>) -> tensor<f32>
// GEN:         %hw = "relay.mean"(%x) <{axis = array<i64: 2, -1>, keepdims = false, exclude = false}> : (tensor<2x3x4x5xf32>) -> tensor<2x3xf32>
// GEN:         %keep = "relay.mean"(%x) <{axis = array<i64: 2, 3>, keepdims = true, exclude = false}> : (tensor<2x3x4x5xf32>) -> tensor<2x3x1x1xf32>
// GEN:         %excl = "relay.mean"(%x) <{axis = array<i64: 2, 3>, keepdims = true, exclude = true}> : (tensor<2x3x4x5xf32>) -> tensor<1x1x4x5xf32>

// -----

func.func @discardable_attributes(%x: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>) {
  %r = relay.nn.relu %x {accel.target = "npu"} : tensor<2x3xf32>
  %s = relay.nn.softmax %r {axis = 0, accel.target = "host", "note" = 3 : i32, accel.fused} : tensor<2x3xf32>
  func.return %r, %s : tensor<2x3xf32>, tensor<2x3xf32>
}
// CHECK-LABEL: func.func @discardable_attributes
// CHECK-NEXT:  %r = relay.nn.relu %x {accel.target = "npu"} : tensor<2x3xf32>
// CHECK-NEXT:  %s = relay.nn.softmax %r {axis = 0, accel.target = "host", "note" = 3 : i32, accel.fused} : tensor<2x3xf32>
// CHECK-NEXT:  func.return %r, %s : tensor<2x3xf32>, tensor<2x3xf32>
// GEN:         %r = "relay.nn.relu"(%x) {accel.target = "npu"} : (tensor<2x3xf32>) -> tensor<2x3xf32>
// GEN:         %s = "relay.nn.softmax"(%r) <{axis = 0 : i64}> {accel.target = "host", note = 3 : i32, accel.fused} : (tensor<2x3xf32>) -> tensor<2x3xf32>
