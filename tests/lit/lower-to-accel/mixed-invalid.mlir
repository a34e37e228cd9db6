// RUN: not accel-opt %s -p bufferize,lower-to-accel 2>&1 | filecheck %s

// A form that dequantizes its input but keeps a float output is neither a float nor an
// int8 compute op.
// CHECK: mixed-invalid.mlir:[[# @LINE + 6]]:3: error: lower-to-accel: cannot run composite 'npu.half_quantized' on 'npu': an int8 form needs dequantized data and weight and a quantized output
// CHECK-NOT: Traceback
func.func @npu_0(%x: tensor<1x2x4x4xi8>) -> tensor<1x2x4x4xf32> attributes {accel.target = "npu"} {
  %s = relay.constant dense<0.1> : tensor<f32>
  %z = relay.constant dense<0> : tensor<i8>
  %w = relay.constant dense<0.5> : tensor<2x2x1x1xf32>
  %y = relay.composite "npu.half_quantized" (%x, %s, %z, %w) : (tensor<1x2x4x4xi8>, tensor<f32>, tensor<i8>, tensor<2x2x1x1xf32>) -> tensor<1x2x4x4xf32> {
  ^bb0(%a: tensor<1x2x4x4xi8>, %as: tensor<f32>, %az: tensor<i8>, %k: tensor<2x2x1x1xf32>):
    %f = relay.qnn.dequantize %a, %as, %az : (tensor<1x2x4x4xi8>, tensor<f32>, tensor<i8>) -> tensor<1x2x4x4xf32>
    %c = relay.nn.conv2d %f, %k : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x4x4xf32>
    %r = relay.nn.relu %c : tensor<1x2x4x4xf32>
    relay.yield %r : tensor<1x2x4x4xf32>
  }
  func.return %y : tensor<1x2x4x4xf32>
}
