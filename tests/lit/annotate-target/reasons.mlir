// RUN: accel-opt %s -p 'annotate-target{targets=npu}' | filecheck %s
// RUN: accel-opt %s -p annotate-target --target npu | filecheck %s

// Every op gets accel.target; every rejection keeps its reason. Constants follow their
// users (host when the users disagree).
// CHECK-LABEL: func.func @limits
// CHECK:      %w3 = relay.constant {{.*}} {accel.target = "host"}
// CHECK:      %w9 = relay.constant {{.*}} {accel.target = "host"}
// CHECK:      %wg = relay.constant {{.*}} {accel.target = "host"}
// CHECK:      %wd = relay.constant {{.*}} {accel.target = "npu"}
// CHECK:      relay.nn.conv2d %x, %w3 {padding = [1, 1, 1, 1], accel.target = "npu"}
// CHECK:      relay.nn.conv2d %x, %w9 {padding = [4, 4, 4, 4], accel.target = "host", accel.reason = "npu: kernel 9x9 exceeds 7x7"}
// CHECK:      relay.nn.conv2d %x, %w3 {strides = [3, 3], padding = [1, 1, 1, 1], accel.target = "host", accel.reason = "npu: strides 3x3 not supported (supported: 1x1, 2x2)"}
// CHECK:      relay.nn.conv2d %x, %wg {padding = [1, 1, 1, 1], groups = 2, accel.target = "host", accel.reason = "npu: grouped convolution (groups=2) not supported (supported: one, depthwise)"}
// CHECK:      relay.nn.conv2d %x, %wd {padding = [1, 1, 1, 1], groups = 8, accel.target = "npu"}
// CHECK:      relay.erf %{{.*}} {accel.target = "host", accel.reason = "npu: op not supported"}
// CHECK:      relay.add %{{.*}}, %bias {accel.target = "host", accel.reason = "npu: the rhs of an elementwise op on the accelerator must have the result's shape, one element or its trailing dims"}
// CHECK:      relay.nn.relu %d {accel.target = "host", accel.reason = "npu: element type f64 not supported (supported: i8, ui8) | element type f64 not supported (supported: f32)"}
// CHECK:      func.return
func.func @limits(%x: tensor<1x8x8x8xf32>, %bias: tensor<8x1x1xf32>, %d: tensor<4xf64>) -> (tensor<1x8x8x8xf32>, tensor<4xf64>) {
  %w3 = relay.constant dense<0.5> : tensor<8x8x3x3xf32>
  %w9 = relay.constant dense<0.5> : tensor<8x8x9x9xf32>
  %wg = relay.constant dense<0.5> : tensor<8x4x3x3xf32>
  %wd = relay.constant dense<0.5> : tensor<8x1x3x3xf32>
  %0 = relay.nn.conv2d %x, %w3 {padding = [1, 1, 1, 1]} : (tensor<1x8x8x8xf32>, tensor<8x8x3x3xf32>) -> tensor<1x8x8x8xf32>
  %1 = relay.nn.conv2d %x, %w9 {padding = [4, 4, 4, 4]} : (tensor<1x8x8x8xf32>, tensor<8x8x9x9xf32>) -> tensor<1x8x8x8xf32>
  %2 = relay.nn.conv2d %x, %w3 {strides = [3, 3], padding = [1, 1, 1, 1]} : (tensor<1x8x8x8xf32>, tensor<8x8x3x3xf32>) -> tensor<1x8x3x3xf32>
  %3 = relay.nn.conv2d %x, %wg {padding = [1, 1, 1, 1], groups = 2} : (tensor<1x8x8x8xf32>, tensor<8x4x3x3xf32>) -> tensor<1x8x8x8xf32>
  %4 = relay.nn.conv2d %x, %wd {padding = [1, 1, 1, 1], groups = 8} : (tensor<1x8x8x8xf32>, tensor<8x1x3x3xf32>) -> tensor<1x8x8x8xf32>
  %5 = relay.erf %0 : tensor<1x8x8x8xf32>
  %6 = relay.add %5, %bias : (tensor<1x8x8x8xf32>, tensor<8x1x1xf32>) -> tensor<1x8x8x8xf32>
  %7 = relay.nn.relu %d : tensor<4xf64>
  func.return %6, %7 : tensor<1x8x8x8xf32>, tensor<4xf64>
}
