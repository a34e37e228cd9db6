// Round trip of the relay.constant: inline splat / non-splat / bool / int / f16 / empty values, external weights, discardable attributes: custom form -> custom form, and generic form -> custom form.
// RUN: accel-opt %s --split-input-file | accel-opt --split-input-file | filecheck %s
// RUN: accel-opt %s --split-input-file --print-op-generic | filecheck %s --check-prefix=GEN
// RUN: accel-opt %s --split-input-file --print-op-generic | accel-opt --split-input-file | filecheck %s

func.func @inline() -> (tensor<2x3xf32>, tensor<4xf32>, tensor<3xi1>, tensor<2xi1>, tensor<3xi8>, tensor<2xui8>, tensor<i64>, tensor<2xf16>, tensor<0xf32>) {
  %splat = relay.constant dense<1.5> : tensor<2x3xf32>
  %vals = relay.constant dense<[1.0, -2.5, 0.0, 3.25]> : tensor<4xf32>
  %bools = relay.constant dense<[true, false, true]> : tensor<3xi1>
  %bsplat = relay.constant dense<false> : tensor<2xi1>
  %ints = relay.constant dense<[-128, 0, 127]> : tensor<3xi8>
  %uints = relay.constant dense<[0, 255]> : tensor<2xui8>
  %scalar = relay.constant dense<-7> : tensor<i64>
  %half = relay.constant dense<[1.0, 0.5]> : tensor<2xf16>
  %empty = relay.constant dense<> : tensor<0xf32>
  func.return %splat, %vals, %bools, %bsplat, %ints, %uints, %scalar, %half, %empty : tensor<2x3xf32>, tensor<4xf32>, tensor<3xi1>, tensor<2xi1>, tensor<3xi8>, tensor<2xui8>, tensor<i64>, tensor<2xf16>, tensor<0xf32>
}
// CHECK-LABEL: func.func @inline
// CHECK-NEXT:  %splat = relay.constant dense<1.500000e+00> : tensor<2x3xf32>
// CHECK-NEXT:  %vals = relay.constant dense<[1.000000e+00, -2.500000e+00, 0.000000e+00, 3.250000e+00]> : tensor<4xf32>
// CHECK-NEXT:  %bools = relay.constant dense<[true, false, true]> : tensor<3xi1>
// CHECK-NEXT:  %bsplat = relay.constant dense<false> : tensor<2xi1>
// CHECK-NEXT:  %ints = relay.constant dense<[-128, 0, 127]> : tensor<3xi8>
// CHECK-NEXT:  %uints = relay.constant dense<[0, 255]> : tensor<2xui8>
// CHECK-NEXT:  %scalar = relay.constant dense<-7> : tensor<i64>
// CHECK-NEXT:  %half = relay.constant dense<[1.000000e+00, 5.000000e-01]> : tensor<2xf16>
// CHECK-NEXT:  %empty = relay.constant dense<> : tensor<0xf32>
// CHECK-NEXT:  func.return %splat, %vals, %bools, %bsplat, %ints, %uints, %scalar, %half, %empty : tensor<2x3xf32>, tensor<4xf32>, tensor<3xi1>, tensor<2xi1>, tensor<3xi8>, tensor<2xui8>, tensor<i64>, tensor<2xf16>, tensor<0xf32>
// GEN:         %splat = "relay.constant"() <{value = dense<1.500000e+00> : tensor<2x3xf32>}> : () -> tensor<2x3xf32>
// GEN:         %vals = "relay.constant"() <{value = dense<[1.000000e+00, -2.500000e+00, 0.000000e+00, 3.250000e+00]> : tensor<4xf32>}> : () -> tensor<4xf32>
// GEN:         %bools = "relay.constant"() <{value = dense<[true, false, true]> : tensor<3xi1>}> : () -> tensor<3xi1>
// GEN:         %bsplat = "relay.constant"() <{value = dense<false> : tensor<2xi1>}> : () -> tensor<2xi1>
// GEN:         %ints = "relay.constant"() <{value = dense<[-128, 0, 127]> : tensor<3xi8>}> : () -> tensor<3xi8>
// GEN:         %uints = "relay.constant"() <{value = dense<[0, 255]> : tensor<2xui8>}> : () -> tensor<2xui8>
// GEN:         %scalar = "relay.constant"() <{value = dense<-7> : tensor<i64>}> : () -> tensor<i64>
// GEN:         %half = "relay.constant"() <{value = dense<[1.000000e+00, 5.000000e-01]> : tensor<2xf16>}> : () -> tensor<2xf16>
// GEN:         %empty = "relay.constant"() <{value = dense<> : tensor<0xf32>}> : () -> tensor<0xf32>

// -----

module attributes {relay.weights = "weights.npz"} {
  func.func @external() -> tensor<8x3x3x3xf32> {
    %w = relay.constant external "conv1.weight" : tensor<8x3x3x3xf32>
    %k = relay.constant external "layer \"2\"/w" : tensor<8x3x3x3xf32> {accel.target = "npu"}
    %y = relay.add %w, %k : tensor<8x3x3x3xf32>
    func.return %y : tensor<8x3x3x3xf32>
  }
}
// CHECK: builtin.module attributes {relay.weights = "weights.npz"} {
// CHECK-LABEL: func.func @external
// CHECK-NEXT:  %w = relay.constant external "conv1.weight" : tensor<8x3x3x3xf32>
// CHECK-NEXT:  %k = relay.constant external "layer \222\22/w" : tensor<8x3x3x3xf32> {accel.target = "npu"}
// CHECK-NEXT:  %y = relay.add %w, %k : tensor<8x3x3x3xf32>
// CHECK-NEXT:  func.return %y : tensor<8x3x3x3xf32>
// GEN:         %w = "relay.constant"() <{external = "conv1.weight"}> : () -> tensor<8x3x3x3xf32>
// GEN:         %k = "relay.constant"() <{external = "layer \222\22/w"}> {accel.target = "npu"} : () -> tensor<8x3x3x3xf32>
// GEN:         %y = "relay.add"(%w, %k) : (tensor<8x3x3x3xf32>, tensor<8x3x3x3xf32>) -> tensor<8x3x3x3xf32>
// GEN:         }) {relay.weights = "weights.npz"} : () -> ()

// -----

func.func @with_attribute() -> tensor<2xf32> {
  %c = relay.constant dense<[1.0, 2.0]> : tensor<2xf32> {accel.target = "host"}
  func.return %c : tensor<2xf32>
}
// CHECK-LABEL: func.func @with_attribute
// CHECK-NEXT:  %c = relay.constant dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32> {accel.target = "host"}
// CHECK-NEXT:  func.return %c : tensor<2xf32>
// GEN:         %c = "relay.constant"() <{value = dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>}> {accel.target = "host"} : () -> tensor<2xf32>
