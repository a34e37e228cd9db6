// fold-constants: run-time math ops on constants fold like any other op (a mask built
// from constants becomes one constant); on run-time values they stay.
// RUN: accel-opt %s --split-input-file -p fold-constants | filecheck %s

// CHECK-LABEL: func.func @constant_mask
// CHECK-NEXT:    %w = relay.constant dense<[1.000000e+00, 2.000000e+00, 2.000000e+00]> : tensor<3xf32>
// CHECK-NEXT:    %y = relay.add %x, %w : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:    func.return %y : tensor<2x3xf32>
func.func @constant_mask(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %c = relay.constant dense<[1.0, 4.0, 9.0]> : tensor<3xf32>
  %s = relay.sqrt %c : tensor<3xf32>
  %z = relay.constant dense<2.0> : tensor<3xf32>
  %l = relay.less %s, %z : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xi1>
  %w = relay.where %l, %s, %z : (tensor<3xi1>, tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %y = relay.add %x, %w : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  func.return %y : tensor<2x3xf32>
}

// -----

// CHECK-LABEL: func.func @integer_reductions
// CHECK-NEXT:    %m = relay.constant dense<[0, -6]> : tensor<2xi8>
// CHECK-NEXT:    %r = relay.sum %x {axis = [1]} : (tensor<2x4xi8>) -> tensor<2xi8>
// CHECK-NEXT:    %y = relay.maximum %r, %m : tensor<2xi8>
func.func @integer_reductions(%x: tensor<2x4xi8>) -> tensor<2xi8> {
  %c = relay.constant dense<[[1, 3, -2, 0], [-5, -6, -7, -8]]> : tensor<2x4xi8>
  %n = relay.negative %c : tensor<2x4xi8>
  %a = relay.abs %n : tensor<2x4xi8>
  %p = relay.min %a {axis = [1]} : (tensor<2x4xi8>) -> tensor<2xi8>
  %q = relay.negative %p : tensor<2xi8>
  %s = relay.strided_slice %c {begin = [1], end = [2], axes = [1]} : (tensor<2x4xi8>) -> tensor<2x1xi8>
  %t = relay.reshape %s {newshape = [2]} : (tensor<2x1xi8>) -> tensor<2xi8>
  %m = relay.minimum %q, %t : tensor<2xi8>
  %r = relay.sum %x {axis = [1]} : (tensor<2x4xi8>) -> tensor<2xi8>
  %y = relay.maximum %r, %m : tensor<2xi8>
  func.return %y : tensor<2xi8>
}
