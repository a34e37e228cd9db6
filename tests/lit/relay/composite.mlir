// Round trip of the relay.composite regions and relay.yield: custom form -> custom form, and generic form -> custom form.
// RUN: accel-opt %s --split-input-file | accel-opt --split-input-file | filecheck %s
// RUN: accel-opt %s --split-input-file --print-op-generic | filecheck %s --check-prefix=GEN
// RUN: accel-opt %s --split-input-file --print-op-generic | accel-opt --split-input-file | filecheck %s

func.func @composite(%x: tensor<1x3x8x8xf32>, %w: tensor<8x3x3x3xf32>, %b: tensor<8xf32>) -> tensor<1x8x6x6xf32> {
  %y = relay.composite "npu.conv2d_bias_relu" (%x, %w, %b) {accel.target = "npu"} : (tensor<1x3x8x8xf32>, tensor<8x3x3x3xf32>, tensor<8xf32>) -> tensor<1x8x6x6xf32> {
  ^bb0(%a: tensor<1x3x8x8xf32>, %k: tensor<8x3x3x3xf32>, %c: tensor<8xf32>):
    %0 = relay.nn.conv2d %a, %k : (tensor<1x3x8x8xf32>, tensor<8x3x3x3xf32>) -> tensor<1x8x6x6xf32>
    %1 = relay.nn.bias_add %0, %c : (tensor<1x8x6x6xf32>, tensor<8xf32>) -> tensor<1x8x6x6xf32>
    %2 = relay.nn.relu %1 : tensor<1x8x6x6xf32>
    relay.yield %2 : tensor<1x8x6x6xf32>
  }
  func.return %y : tensor<1x8x6x6xf32>
}
// CHECK-LABEL: func.func @composite
// CHECK-NEXT:  %y = relay.composite "npu.conv2d_bias_relu" (%x, %w, %b) {accel.target = "npu"} : (tensor<1x3x8x8xf32>, tensor<8x3x3x3xf32>, tensor<8xf32>) -> tensor<1x8x6x6xf32> {
// CHECK-NEXT:  ^bb0(%a: tensor<1x3x8x8xf32>, %k: tensor<8x3x3x3xf32>, %c: tensor<8xf32>):
// CHECK-NEXT:  %0 = relay.nn.conv2d %a, %k : (tensor<1x3x8x8xf32>, tensor<8x3x3x3xf32>) -> tensor<1x8x6x6xf32>
// CHECK-NEXT:  %1 = relay.nn.bias_add %0, %c : (tensor<1x8x6x6xf32>, tensor<8xf32>) -> tensor<1x8x6x6xf32>
// CHECK-NEXT:  %2 = relay.nn.relu %1 : tensor<1x8x6x6xf32>
// CHECK-NEXT:  relay.yield %2 : tensor<1x8x6x6xf32>
// CHECK-NEXT:  }
// CHECK-NEXT:  func.return %y : tensor<1x8x6x6xf32>
// GEN:         %y = "relay.composite"(%x, %w, %b) <{pattern = "npu.conv2d_bias_relu"}> ({
// GEN:         %0 = "relay.nn.conv2d"(%a, %k) <{strides = array<i64: 1, 1>, padding = array<i64: 0, 0, 0, 0>, dilation = array<i64: 1, 1>, groups = 1 : i64}> : (tensor<1x3x8x8xf32>, tensor<8x3x3x3xf32>) -> tensor<1x8x6x6xf32>
// GEN:         %1 = "relay.nn.bias_add"(%0, %c) <{axis = 1 : i64}> : (tensor<1x8x6x6xf32>, tensor<8xf32>) -> tensor<1x8x6x6xf32>
// GEN:         %2 = "relay.nn.relu"(%1) : (tensor<1x8x6x6xf32>) -> tensor<1x8x6x6xf32>
// GEN:         "relay.yield"(%2) : (tensor<1x8x6x6xf32>) -> ()

// -----

func.func @two_results(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %r:2 = relay.composite "dsp.split_act" (%x) : (tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  ^bb0(%a: tensor<4xf32>):
    %s = relay.sigmoid %a : tensor<4xf32>
    %t = relay.tanh %a : tensor<4xf32>
    relay.yield %s, %t : tensor<4xf32>, tensor<4xf32>
  }
  func.return %r#0, %r#1 : tensor<4xf32>, tensor<4xf32>
}
// CHECK-LABEL: func.func @two_results
// CHECK-NEXT:  %r, %r_1 = relay.composite "dsp.split_act" (%x) : (tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
// CHECK-NEXT:  ^bb0(%a: tensor<4xf32>):
// CHECK-NEXT:  %s = relay.sigmoid %a : tensor<4xf32>
// CHECK-NEXT:  %t = relay.tanh %a : tensor<4xf32>
// CHECK-NEXT:  relay.yield %s, %t : tensor<4xf32>, tensor<4xf32>
// CHECK-NEXT:  }
// CHECK-NEXT:  func.return %r, %r_1 : tensor<4xf32>, tensor<4xf32>
// GEN:         %r, %r_1 = "relay.composite"(%x) <{pattern = "dsp.split_act"}> ({
// GEN:         %s = "relay.sigmoid"(%a) : (tensor<4xf32>) -> tensor<4xf32>
// GEN:         %t = "relay.tanh"(%a) : (tensor<4xf32>) -> tensor<4xf32>
// GEN:         "relay.yield"(%s, %t) : (tensor<4xf32>, tensor<4xf32>) -> ()

// -----

func.func @no_inputs() -> tensor<2xf32> {
  %y = relay.composite "npu.const" () : () -> tensor<2xf32> {
    %c = relay.constant dense<[1.0, 2.0]> : tensor<2xf32>
    relay.yield %c : tensor<2xf32>
  }
  func.return %y : tensor<2xf32>
}
// CHECK-LABEL: func.func @no_inputs
// CHECK-NEXT:  %y = relay.composite "npu.const" () : () -> tensor<2xf32> {
// CHECK-NEXT:  %c = relay.constant dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>
// CHECK-NEXT:  relay.yield %c : tensor<2xf32>
// CHECK-NEXT:  }
// CHECK-NEXT:  func.return %y : tensor<2xf32>
// GEN:         %y = "relay.composite"() <{pattern = "npu.const"}> ({
// GEN:         %c = "relay.constant"() <{value = dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>}> : () -> tensor<2xf32>
// GEN:         "relay.yield"(%c) : (tensor<2xf32>) -> ()
