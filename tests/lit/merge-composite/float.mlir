// RUN: accel-opt %s --split-input-file -p 'merge-composite{target=npu}' | filecheck %s
// RUN: accel-opt %s --split-input-file -p merge-composite --target npu | filecheck %s

// The longest pattern listed first wins: conv2d + bias_add + relu is one composite,
// weights stay operands, the composite takes the conv's location.
// CHECK-LABEL: func.func @conv_bias_relu
// CHECK-NEXT:    %w = relay.constant
// CHECK-NEXT:    %b = relay.constant
// CHECK-NEXT:    %{{.*}} = relay.composite "npu.conv2d_bias_relu" (%x, %w, %b) : (tensor<1x3x8x8xf32>, tensor<8x3x3x3xf32>, tensor<8xf32>) -> tensor<1x8x8x8xf32> {
// CHECK-NEXT:    ^bb0(%[[A:.*]]: tensor<1x3x8x8xf32>, %[[K:.*]]: tensor<8x3x3x3xf32>, %[[C:.*]]: tensor<8xf32>):
// CHECK-NEXT:      %[[V0:.*]] = relay.nn.conv2d %[[A]], %[[K]] {padding = [1, 1, 1, 1]}
// CHECK-NEXT:      %[[V1:.*]] = relay.nn.bias_add %[[V0]], %[[C]]
// CHECK-NEXT:      %[[V2:.*]] = relay.nn.relu %[[V1]]
// CHECK-NEXT:      relay.yield %[[V2]] : tensor<1x8x8x8xf32>
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return
func.func @conv_bias_relu(%x: tensor<1x3x8x8xf32>) -> tensor<1x8x8x8xf32> {
  %w = relay.constant dense<0.5> : tensor<8x3x3x3xf32>
  %b = relay.constant dense<0.1> : tensor<8xf32>
  %0 = relay.nn.conv2d %x, %w {padding = [1, 1, 1, 1]} : (tensor<1x3x8x8xf32>, tensor<8x3x3x3xf32>) -> tensor<1x8x8x8xf32>
  %1 = relay.nn.bias_add %0, %b : (tensor<1x8x8x8xf32>, tensor<8xf32>) -> tensor<1x8x8x8xf32>
  %2 = relay.nn.relu %1 : tensor<1x8x8x8xf32>
  func.return %2 : tensor<1x8x8x8xf32>
}

// -----

// A leaking intermediate: the bias_add result is also returned, so conv2d_bias_relu is
// not taken; conv2d_bias (next in priority) is, and the relu stays a single op.
// CHECK-LABEL: func.func @leak
// CHECK:         %[[CB:.*]] = relay.composite "npu.conv2d_bias" (%x, %w, %b)
// CHECK:         %[[R:.*]] = relay.nn.relu %[[CB]] : tensor<1x8x6x6xf32>
// CHECK-NEXT:    func.return %[[R]], %[[CB]]
func.func @leak(%x: tensor<1x3x8x8xf32>) -> (tensor<1x8x6x6xf32>, tensor<1x8x6x6xf32>) {
  %w = relay.constant dense<0.5> : tensor<8x3x3x3xf32>
  %b = relay.constant dense<0.1> : tensor<8xf32>
  %0 = relay.nn.conv2d %x, %w : (tensor<1x3x8x8xf32>, tensor<8x3x3x3xf32>) -> tensor<1x8x6x6xf32>
  %1 = relay.nn.bias_add %0, %b : (tensor<1x8x6x6xf32>, tensor<8xf32>) -> tensor<1x8x6x6xf32>
  %2 = relay.nn.relu %1 : tensor<1x8x6x6xf32>
  func.return %2, %1 : tensor<1x8x6x6xf32>, tensor<1x8x6x6xf32>
}

// -----

// Weights must be constants ({accel.constant} in the pattern): a weight passed as an
// argument matches no conv pattern.
// CHECK-LABEL: func.func @weight_not_constant
// CHECK-NOT:     relay.composite
// CHECK:         relay.nn.conv2d
func.func @weight_not_constant(%x: tensor<1x3x8x8xf32>, %w: tensor<8x3x3x3xf32>) -> tensor<1x8x6x6xf32> {
  %b = relay.constant dense<0.1> : tensor<8xf32>
  %0 = relay.nn.conv2d %x, %w : (tensor<1x3x8x8xf32>, tensor<8x3x3x3xf32>) -> tensor<1x8x6x6xf32>
  %1 = relay.nn.bias_add %0, %b : (tensor<1x8x6x6xf32>, tensor<8xf32>) -> tensor<1x8x6x6xf32>
  %2 = relay.nn.relu %1 : tensor<1x8x6x6xf32>
  func.return %2 : tensor<1x8x6x6xf32>
}

// -----

// The pattern's limits are checked on the match: a 9x9 kernel exceeds npu's 7x7, so
// no conv composite forms (annotate-target will say why the conv stays on the host).
// CHECK-LABEL: func.func @kernel_too_big
// CHECK-NOT:     relay.composite
func.func @kernel_too_big(%x: tensor<1x3x16x16xf32>) -> tensor<1x8x8x8xf32> {
  %w = relay.constant dense<0.5> : tensor<8x3x9x9xf32>
  %b = relay.constant dense<0.1> : tensor<8xf32>
  %0 = relay.nn.conv2d %x, %w : (tensor<1x3x16x16xf32>, tensor<8x3x9x9xf32>) -> tensor<1x8x8x8xf32>
  %1 = relay.nn.bias_add %0, %b : (tensor<1x8x8x8xf32>, tensor<8xf32>) -> tensor<1x8x8x8xf32>
  func.return %1 : tensor<1x8x8x8xf32>
}

// -----

// A user's accel.target on one op of a match: "host" keeps the op out of composites;
// the npu's own name lets the match happen and the composite keeps the override.
// CHECK-LABEL: func.func @manual
// CHECK:         relay.nn.conv2d %x, %w {accel.target = "host"}
// CHECK:         relay.composite "npu.add_relu" ({{.*}}) {accel.target = "npu"}
func.func @manual(%x: tensor<1x3x8x8xf32>, %y: tensor<1x8x6x6xf32>) -> tensor<1x8x6x6xf32> {
  %w = relay.constant dense<0.5> : tensor<8x3x3x3xf32>
  %b = relay.constant dense<0.1> : tensor<8xf32>
  %0 = relay.nn.conv2d %x, %w {accel.target = "host"} : (tensor<1x3x8x8xf32>, tensor<8x3x3x3xf32>) -> tensor<1x8x6x6xf32>
  %1 = relay.nn.bias_add %0, %b : (tensor<1x8x6x6xf32>, tensor<8xf32>) -> tensor<1x8x6x6xf32>
  %2 = relay.add %1, %y {accel.target = "npu"} : tensor<1x8x6x6xf32>
  %3 = relay.nn.relu %2 : tensor<1x8x6x6xf32>
  func.return %3 : tensor<1x8x6x6xf32>
}

// -----

// Two conv chains: each root is matched once, in program order.
// CHECK-LABEL: func.func @two_chains
// CHECK-COUNT-2: relay.composite "npu.dense_bias_relu"
func.func @two_chains(%x: tensor<4x16xf32>) -> tensor<4x16xf32> {
  %w = relay.constant dense<0.5> : tensor<16x16xf32>
  %b = relay.constant dense<0.1> : tensor<16xf32>
  %0 = relay.nn.dense %x, %w : (tensor<4x16xf32>, tensor<16x16xf32>) -> tensor<4x16xf32>
  %1 = relay.nn.bias_add %0, %b : (tensor<4x16xf32>, tensor<16xf32>) -> tensor<4x16xf32>
  %2 = relay.nn.relu %1 : tensor<4x16xf32>
  %3 = relay.nn.dense %2, %w : (tensor<4x16xf32>, tensor<16x16xf32>) -> tensor<4x16xf32>
  %4 = relay.nn.bias_add %3, %b : (tensor<4x16xf32>, tensor<16xf32>) -> tensor<4x16xf32>
  %5 = relay.nn.relu %4 : tensor<4x16xf32>
  func.return %5 : tensor<4x16xf32>
}
