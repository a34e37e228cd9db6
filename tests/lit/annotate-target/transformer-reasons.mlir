// RUN: accel-opt %s -p 'annotate-target{targets=npu}' | filecheck %s

// What the npu's transformer commands do not take stays on the host with the lowering's
// reason: broadcast batch dims, a softmax not along the last axis, a column broadcast, a
// layer norm whose gamma is computed. Both forms of GELU run on it (NPU_ELTWISE_GELU,
// NPU_ELTWISE_GELU_TANH).
// CHECK: relay.nn.batch_matmul %a, %b {accel.target = "host", accel.reason = "npu: batched products on the accelerator need equal batch dims, got [2, 4, 8] x [1, 4, 8]"}
// CHECK: relay.nn.softmax %x {axis = 0, accel.target = "host", accel.reason = "npu: softmax on the accelerator runs along the last axis, not axis 0"}
// CHECK: relay.nn.gelu %x {approximate = "tanh", accel.target = "npu"}
// CHECK: relay.add %x, %col {accel.target = "host", accel.reason = "npu: the rhs of an elementwise op on the accelerator must have the result's shape, one element or its trailing dims"}
// CHECK: relay.nn.layer_norm %x, %g, %be {accel.target = "host", accel.reason = "npu: layer norm's gamma and beta must be constants"}
// CHECK: relay.add %x, %row {accel.target = "npu"}
func.func @main(%a: tensor<2x4x8xf32>, %b: tensor<1x4x8xf32>, %x: tensor<4x8xf32>, %col: tensor<4x1xf32>,
                %row: tensor<1x8xf32>, %g: tensor<8xf32>) -> (tensor<2x4x4xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>) {
  %be = relay.constant dense<0.5> : tensor<8xf32>
  %0 = relay.nn.batch_matmul %a, %b : (tensor<2x4x8xf32>, tensor<1x4x8xf32>) -> tensor<2x4x4xf32>
  %1 = relay.nn.softmax %x {axis = 0} : tensor<4x8xf32>
  %2 = relay.nn.gelu %x {approximate = "tanh"} : tensor<4x8xf32>
  %3 = relay.add %x, %col : (tensor<4x8xf32>, tensor<4x1xf32>) -> tensor<4x8xf32>
  %4 = relay.nn.layer_norm %x, %g, %be : (tensor<4x8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  %5 = relay.add %x, %row : (tensor<4x8xf32>, tensor<1x8xf32>) -> tensor<4x8xf32>
  func.return %0, %1, %2, %3, %4, %5 : tensor<2x4x4xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>
}

// RMS norms: the accelerator's runs along the last axis, with a constant gamma.
// CHECK-LABEL: func.func @rms_norms
// CHECK: relay.nn.rms_norm %y, %g2 {axis = 1, accel.target = "host", accel.reason = "npu: rms_norm on the accelerator runs along the last axis, not axis 1"}
// CHECK: relay.nn.rms_norm %x, %g {accel.target = "host", accel.reason = "npu: RMS norm's gamma must be a constant"}
// CHECK: relay.nn.rms_norm %x, %c {accel.target = "npu"}
func.func @rms_norms(%x: tensor<4x8xf32>, %y: tensor<2x4x8xf32>, %g: tensor<8xf32>, %g2: tensor<4x8xf32>) -> (tensor<2x4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>) {
  %c = relay.constant dense<0.5> : tensor<8xf32>
  %0 = relay.nn.rms_norm %y, %g2 {axis = 1} : (tensor<2x4x8xf32>, tensor<4x8xf32>) -> tensor<2x4x8xf32>
  %1 = relay.nn.rms_norm %x, %g : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  %2 = relay.nn.rms_norm %x, %c : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  func.return %0, %1, %2 : tensor<2x4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>
}
