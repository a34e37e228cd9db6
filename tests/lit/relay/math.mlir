// Round trip of the run-time math ops (sqrt, exp, log, floor, ceil, round, sin ... atanh, negative, abs, power, maximum, minimum, comparisons, logical_not, where, reductions): custom form -> custom form, and generic form -> custom form.
// RUN: accel-opt %s --split-input-file | accel-opt --split-input-file | filecheck %s
// RUN: accel-opt %s --split-input-file --print-op-generic | filecheck %s --check-prefix=GEN
// RUN: accel-opt %s --split-input-file --print-op-generic | accel-opt --split-input-file | filecheck %s

func.func @unary(%x: tensor<2x3xf32>, %i: tensor<4xi8>) -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<4xi8>, tensor<4xi8>) {
  %s = relay.sqrt %x : tensor<2x3xf32>
  %e = relay.exp %s : tensor<2x3xf32>
  %l = relay.log %e : tensor<2x3xf32>
  %n = relay.negative %l : tensor<2x3xf32>
  %ni = relay.negative %i : tensor<4xi8>
  %a = relay.abs %ni : tensor<4xi8>
  func.return %s, %e, %l, %n, %ni, %a : tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<4xi8>, tensor<4xi8>
}
// CHECK-LABEL: func.func @unary
// CHECK-NEXT:  %s = relay.sqrt %x : tensor<2x3xf32>
// CHECK-NEXT:  %e = relay.exp %s : tensor<2x3xf32>
// CHECK-NEXT:  %l = relay.log %e : tensor<2x3xf32>
// CHECK-NEXT:  %n = relay.negative %l : tensor<2x3xf32>
// CHECK-NEXT:  %ni = relay.negative %i : tensor<4xi8>
// CHECK-NEXT:  %a = relay.abs %ni : tensor<4xi8>
// CHECK-NEXT:  func.return %s, %e, %l, %n, %ni, %a : tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<4xi8>, tensor<4xi8>
// GEN:         %s = "relay.sqrt"(%x) : (tensor<2x3xf32>) -> tensor<2x3xf32>
// GEN:         %e = "relay.exp"(%s) : (tensor<2x3xf32>) -> tensor<2x3xf32>
// GEN:         %l = "relay.log"(%e) : (tensor<2x3xf32>) -> tensor<2x3xf32>
// GEN:         %n = "relay.negative"(%l) : (tensor<2x3xf32>) -> tensor<2x3xf32>
// GEN:         %ni = "relay.negative"(%i) : (tensor<4xi8>) -> tensor<4xi8>
// GEN:         %a = "relay.abs"(%ni) : (tensor<4xi8>) -> tensor<4xi8>

// -----

func.func @rounding(%x: tensor<2x3xf32>, %h: tensor<5xf16>) -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<5xf16>) {
  %f = relay.floor %x : tensor<2x3xf32>
  %c = relay.ceil %f : tensor<2x3xf32>
  %r = relay.round %h : tensor<5xf16>
  func.return %f, %c, %r : tensor<2x3xf32>, tensor<2x3xf32>, tensor<5xf16>
}
// CHECK-LABEL: func.func @rounding
// CHECK-NEXT:  %f = relay.floor %x : tensor<2x3xf32>
// CHECK-NEXT:  %c = relay.ceil %f : tensor<2x3xf32>
// CHECK-NEXT:  %r = relay.round %h : tensor<5xf16>
// CHECK-NEXT:  func.return %f, %c, %r : tensor<2x3xf32>, tensor<2x3xf32>, tensor<5xf16>
// GEN:         %f = "relay.floor"(%x) : (tensor<2x3xf32>) -> tensor<2x3xf32>
// GEN:         %c = "relay.ceil"(%f) : (tensor<2x3xf32>) -> tensor<2x3xf32>
// GEN:         %r = "relay.round"(%h) : (tensor<5xf16>) -> tensor<5xf16>

// -----

func.func @binary(%a: tensor<2x3xf32>, %b: tensor<3xf32>, %i: tensor<4x1xi32>, %j: tensor<5xi32>) -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<4x5xi32>) {
  %p = relay.power %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %mx = relay.maximum %b, %p : (tensor<3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %mn = relay.minimum %i, %j : (tensor<4x1xi32>, tensor<5xi32>) -> tensor<4x5xi32>
  func.return %p, %mx, %mn : tensor<2x3xf32>, tensor<2x3xf32>, tensor<4x5xi32>
}
// CHECK-LABEL: func.func @binary
// CHECK-NEXT:  %p = relay.power %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:  %mx = relay.maximum %b, %p : (tensor<3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:  %mn = relay.minimum %i, %j : (tensor<4x1xi32>, tensor<5xi32>) -> tensor<4x5xi32>
// CHECK-NEXT:  func.return %p, %mx, %mn : tensor<2x3xf32>, tensor<2x3xf32>, tensor<4x5xi32>
// GEN:         %p = "relay.power"(%a, %b) : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
// GEN:         %mx = "relay.maximum"(%b, %p) : (tensor<3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
// GEN:         %mn = "relay.minimum"(%i, %j) : (tensor<4x1xi32>, tensor<5xi32>) -> tensor<4x5xi32>

// -----

func.func @compare(%a: tensor<2x3xf32>, %b: tensor<3xf32>, %i: tensor<4xi64>, %c: tensor<4xi1>) -> (tensor<2x3xi1>, tensor<2x3xi1>, tensor<2x3xi1>, tensor<2x3xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>) {
  %eq = relay.equal %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
  %ne = relay.not_equal %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
  %lt = relay.less %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
  %le = relay.less_equal %b, %a : (tensor<3xf32>, tensor<2x3xf32>) -> tensor<2x3xi1>
  %gt = relay.greater %i, %i : (tensor<4xi64>, tensor<4xi64>) -> tensor<4xi1>
  %ge = relay.greater_equal %i, %i : (tensor<4xi64>, tensor<4xi64>) -> tensor<4xi1>
  %beq = relay.equal %c, %gt : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
  %not = relay.logical_not %beq : tensor<4xi1>
  func.return %eq, %ne, %lt, %le, %gt, %ge, %beq, %not : tensor<2x3xi1>, tensor<2x3xi1>, tensor<2x3xi1>, tensor<2x3xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>
}
// CHECK-LABEL: func.func @compare
// CHECK-NEXT:  %eq = relay.equal %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
// CHECK-NEXT:  %ne = relay.not_equal %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
// CHECK-NEXT:  %lt = relay.less %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
// CHECK-NEXT:  %le = relay.less_equal %b, %a : (tensor<3xf32>, tensor<2x3xf32>) -> tensor<2x3xi1>
// CHECK-NEXT:  %gt = relay.greater %i, %i : (tensor<4xi64>, tensor<4xi64>) -> tensor<4xi1>
// CHECK-NEXT:  %ge = relay.greater_equal %i, %i : (tensor<4xi64>, tensor<4xi64>) -> tensor<4xi1>
// CHECK-NEXT:  %beq = relay.equal %c, %gt : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
// CHECK-NEXT:  %not = relay.logical_not %beq : tensor<4xi1>
// CHECK-NEXT:  func.return %eq, %ne, %lt, %le, %gt, %ge, %beq, %not : tensor<2x3xi1>, tensor<2x3xi1>, tensor<2x3xi1>, tensor<2x3xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>
// GEN:         %eq = "relay.equal"(%a, %b) : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
// GEN:         %ne = "relay.not_equal"(%a, %b) : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
// GEN:         %lt = "relay.less"(%a, %b) : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
// GEN:         %le = "relay.less_equal"(%b, %a) : (tensor<3xf32>, tensor<2x3xf32>) -> tensor<2x3xi1>
// GEN:         %gt = "relay.greater"(%i, %i) : (tensor<4xi64>, tensor<4xi64>) -> tensor<4xi1>
// GEN:         %ge = "relay.greater_equal"(%i, %i) : (tensor<4xi64>, tensor<4xi64>) -> tensor<4xi1>
// GEN:         %beq = "relay.equal"(%c, %gt) : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
// GEN:         %not = "relay.logical_not"(%beq) : (tensor<4xi1>) -> tensor<4xi1>

// -----

func.func @where(%c: tensor<1x1x4x4xi1>, %x: tensor<2x3x4x4xf32>, %y: tensor<f32>) -> tensor<2x3x4x4xf32> {
  %w = relay.where %c, %x, %y : (tensor<1x1x4x4xi1>, tensor<2x3x4x4xf32>, tensor<f32>) -> tensor<2x3x4x4xf32>
  func.return %w : tensor<2x3x4x4xf32>
}
// CHECK-LABEL: func.func @where
// CHECK-NEXT:  %w = relay.where %c, %x, %y : (tensor<1x1x4x4xi1>, tensor<2x3x4x4xf32>, tensor<f32>) -> tensor<2x3x4x4xf32>
// CHECK-NEXT:  func.return %w : tensor<2x3x4x4xf32>
// GEN:         %w = "relay.where"(%c, %x, %y) : (tensor<1x1x4x4xi1>, tensor<2x3x4x4xf32>, tensor<f32>) -> tensor<2x3x4x4xf32>

// -----

func.func @reduce(%x: tensor<2x3x4xf32>, %i: tensor<2x3x4xi32>) -> (tensor<2x3x1xf32>, tensor<f32>, tensor<3xi32>, tensor<2x1x4xi32>) {
  %s = relay.sum %x {axis = [-1], keepdims = true} : (tensor<2x3x4xf32>) -> tensor<2x3x1xf32>
  %p = relay.prod %x : (tensor<2x3x4xf32>) -> tensor<f32>
  %mx = relay.max %i {axis = [1], exclude = true} : (tensor<2x3x4xi32>) -> tensor<3xi32>
  %mn = relay.min %i {axis = [1], keepdims = true} : (tensor<2x3x4xi32>) -> tensor<2x1x4xi32>
  func.return %s, %p, %mx, %mn : tensor<2x3x1xf32>, tensor<f32>, tensor<3xi32>, tensor<2x1x4xi32>
}
// CHECK-LABEL: func.func @reduce
// CHECK-NEXT:  %s = relay.sum %x {axis = [-1], keepdims = true} : (tensor<2x3x4xf32>) -> tensor<2x3x1xf32>
// CHECK-NEXT:  %p = relay.prod %x : (tensor<2x3x4xf32>) -> tensor<f32>
// CHECK-NEXT:  %mx = relay.max %i {axis = [1], exclude = true} : (tensor<2x3x4xi32>) -> tensor<3xi32>
// CHECK-NEXT:  %mn = relay.min %i {axis = [1], keepdims = true} : (tensor<2x3x4xi32>) -> tensor<2x1x4xi32>
// CHECK-NEXT:  func.return %s, %p, %mx, %mn : tensor<2x3x1xf32>, tensor<f32>, tensor<3xi32>, tensor<2x1x4xi32>
// GEN:         %s = "relay.sum"(%x) <{axis = array<i64: -1>, keepdims = true, exclude = false}> : (tensor<2x3x4xf32>) -> tensor<2x3x1xf32>
// GEN:         %p = "relay.prod"(%x) <{keepdims = false, exclude = false}> : (tensor<2x3x4xf32>) -> tensor<f32>
// GEN:         %mx = "relay.max"(%i) <{axis = array<i64: 1>, keepdims = false, exclude = true}> : (tensor<2x3x4xi32>) -> tensor<3xi32>
// GEN:         %mn = "relay.min"(%i) <{axis = array<i64: 1>, keepdims = true, exclude = false}> : (tensor<2x3x4xi32>) -> tensor<2x1x4xi32>

// -----

func.func @slice(%x: tensor<2x9x4xf32>, %b: tensor<3x1xi1>) -> (tensor<2x4x2xf32>, tensor<1x9x4xf32>, tensor<2x3x4xi1>) {
  %s = relay.strided_slice %x {begin = [7, -1], end = [0, -100], strides = [-2, -2], axes = [1, 2]} : (tensor<2x9x4xf32>) -> tensor<2x4x2xf32>
  %f = relay.strided_slice %x {begin = [1], end = [100]} : (tensor<2x9x4xf32>) -> tensor<1x9x4xf32>
  %e = relay.broadcast_to %b {shape = [2, 1, 4]} : (tensor<3x1xi1>) -> tensor<2x3x4xi1>
  func.return %s, %f, %e : tensor<2x4x2xf32>, tensor<1x9x4xf32>, tensor<2x3x4xi1>
}
// CHECK-LABEL: func.func @slice
// CHECK-NEXT:  %s = relay.strided_slice %x {begin = [7, -1], end = [0, -100], strides = [-2, -2], axes = [1, 2]} : (tensor<2x9x4xf32>) -> tensor<2x4x2xf32>
// CHECK-NEXT:  %f = relay.strided_slice %x {begin = [1], end = [100]} : (tensor<2x9x4xf32>) -> tensor<1x9x4xf32>
// CHECK-NEXT:  %e = relay.broadcast_to %b {shape = [2, 1, 4]} : (tensor<3x1xi1>) -> tensor<2x3x4xi1>
// CHECK-NEXT:  func.return %s, %f, %e : tensor<2x4x2xf32>, tensor<1x9x4xf32>, tensor<2x3x4xi1>
// GEN:         %s = "relay.strided_slice"(%x) <{begin = array<i64: 7, -1>, end = array<i64: 0, -100>, strides = array<i64: -2, -2>, axes = array<i64: 1, 2>}> : (tensor<2x9x4xf32>) -> tensor<2x4x2xf32>
// GEN:         %f = "relay.strided_slice"(%x) <{begin = array<i64: 1>, end = array<i64: 100>}> : (tensor<2x9x4xf32>) -> tensor<1x9x4xf32>
// GEN:         %e = "relay.broadcast_to"(%b) <{shape = array<i64: 2, 1, 4>}> : (tensor<3x1xi1>) -> tensor<2x3x4xi1>

// -----

func.func @logical(%a: tensor<2x4xi1>, %b: tensor<4xi1>) -> (tensor<2x4xi1>, tensor<2x4xi1>, tensor<2x4xi1>) {
  %and = relay.logical_and %a, %b : (tensor<2x4xi1>, tensor<4xi1>) -> tensor<2x4xi1>
  %or = relay.logical_or %and, %a : tensor<2x4xi1>
  %xor = relay.logical_xor %b, %or : (tensor<4xi1>, tensor<2x4xi1>) -> tensor<2x4xi1>
  func.return %and, %or, %xor : tensor<2x4xi1>, tensor<2x4xi1>, tensor<2x4xi1>
}
// CHECK-LABEL: func.func @logical
// CHECK-NEXT:  %and = relay.logical_and %a, %b : (tensor<2x4xi1>, tensor<4xi1>) -> tensor<2x4xi1>
// CHECK-NEXT:  %or = relay.logical_or %and, %a : tensor<2x4xi1>
// CHECK-NEXT:  %xor = relay.logical_xor %b, %or : (tensor<4xi1>, tensor<2x4xi1>) -> tensor<2x4xi1>
// CHECK-NEXT:  func.return %and, %or, %xor : tensor<2x4xi1>, tensor<2x4xi1>, tensor<2x4xi1>
// GEN:         %and = "relay.logical_and"(%a, %b) : (tensor<2x4xi1>, tensor<4xi1>) -> tensor<2x4xi1>
// GEN:         %or = "relay.logical_or"(%and, %a) : (tensor<2x4xi1>, tensor<2x4xi1>) -> tensor<2x4xi1>
// GEN:         %xor = "relay.logical_xor"(%b, %or) : (tensor<4xi1>, tensor<2x4xi1>) -> tensor<2x4xi1>

// -----

func.func @trigonometric(%x: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>) {
  %sin = relay.sin %x : tensor<2x3xf32>
  %cos = relay.cos %sin : tensor<2x3xf32>
  %tan = relay.tan %cos : tensor<2x3xf32>
  %asin = relay.asin %tan : tensor<2x3xf32>
  %acos = relay.acos %asin : tensor<2x3xf32>
  %atan = relay.atan %acos : tensor<2x3xf32>
  %sinh = relay.sinh %atan : tensor<2x3xf32>
  %cosh = relay.cosh %sinh : tensor<2x3xf32>
  %asinh = relay.asinh %cosh : tensor<2x3xf32>
  %acosh = relay.acosh %asinh : tensor<2x3xf32>
  %atanh = relay.atanh %acosh : tensor<2x3xf32>
  func.return %sin, %cos, %tan, %asin, %acos, %atan, %sinh, %cosh, %asinh, %acosh, %atanh : tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>
}
// CHECK-LABEL: func.func @trigonometric
// CHECK-NEXT:  %sin = relay.sin %x : tensor<2x3xf32>
// CHECK-NEXT:  %cos = relay.cos %sin : tensor<2x3xf32>
// CHECK-NEXT:  %tan = relay.tan %cos : tensor<2x3xf32>
// CHECK-NEXT:  %asin = relay.asin %tan : tensor<2x3xf32>
// CHECK-NEXT:  %acos = relay.acos %asin : tensor<2x3xf32>
// CHECK-NEXT:  %atan = relay.atan %acos : tensor<2x3xf32>
// CHECK-NEXT:  %sinh = relay.sinh %atan : tensor<2x3xf32>
// CHECK-NEXT:  %cosh = relay.cosh %sinh : tensor<2x3xf32>
// CHECK-NEXT:  %asinh = relay.asinh %cosh : tensor<2x3xf32>
// CHECK-NEXT:  %acosh = relay.acosh %asinh : tensor<2x3xf32>
// CHECK-NEXT:  %atanh = relay.atanh %acosh : tensor<2x3xf32>
// GEN:         %sin = "relay.sin"(%x) : (tensor<2x3xf32>) -> tensor<2x3xf32>
// GEN:         %cos = "relay.cos"(%sin) : (tensor<2x3xf32>) -> tensor<2x3xf32>
// GEN:         %tan = "relay.tan"(%cos) : (tensor<2x3xf32>) -> tensor<2x3xf32>
// GEN:         %asin = "relay.asin"(%tan) : (tensor<2x3xf32>) -> tensor<2x3xf32>
// GEN:         %acos = "relay.acos"(%asin) : (tensor<2x3xf32>) -> tensor<2x3xf32>
// GEN:         %atan = "relay.atan"(%acos) : (tensor<2x3xf32>) -> tensor<2x3xf32>
// GEN:         %sinh = "relay.sinh"(%atan) : (tensor<2x3xf32>) -> tensor<2x3xf32>
// GEN:         %cosh = "relay.cosh"(%sinh) : (tensor<2x3xf32>) -> tensor<2x3xf32>
// GEN:         %asinh = "relay.asinh"(%cosh) : (tensor<2x3xf32>) -> tensor<2x3xf32>
// GEN:         %acosh = "relay.acosh"(%asinh) : (tensor<2x3xf32>) -> tensor<2x3xf32>
// GEN:         %atanh = "relay.atanh"(%acosh) : (tensor<2x3xf32>) -> tensor<2x3xf32>
