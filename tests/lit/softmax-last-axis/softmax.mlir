// softmax-last-axis: a softmax along another axis than the last (the npu runs it along the
// last) as the softmax along the last axis between two transposes.
// RUN: accel-opt %s --split-input-file --target npu -p softmax-last-axis | filecheck %s
// RUN: accel-opt %s --split-input-file --target npu -p 'byoc{cost-model=false}' | filecheck %s --check-prefix=BYOC
// RUN: accel-opt %s --split-input-file --target dsp -p softmax-last-axis | filecheck %s --check-prefix=DSP

// YOLOv8's distribution focal loss: a softmax over 16 bins along axis 1, then a 1x1 conv.
// CHECK-LABEL: func.func @dfl
// CHECK:         %[[T:.*]] = relay.transpose %x {axes = [0, 2, 3, 1]} : (tensor<1x16x4x8xf32>) -> tensor<1x4x8x16xf32>
// CHECK-NEXT:    %[[S:.*]] = relay.nn.softmax %[[T]] : tensor<1x4x8x16xf32>
// CHECK-NEXT:    %s = relay.transpose %[[S]] {axes = [0, 3, 1, 2]} : (tensor<1x4x8x16xf32>) -> tensor<1x16x4x8xf32>
// BYOC-LABEL: func.func @dfl
// BYOC-NEXT:    %y = func.call @npu_0(%x)
// BYOC-NEXT:    func.return
// DSP-LABEL: func.func @dfl
// DSP:         relay.nn.softmax %x {axis = 1}
func.func @dfl(%x: tensor<1x16x4x8xf32>) -> tensor<1x1x4x8xf32> {
  %s = relay.nn.softmax %x {axis = 1} : tensor<1x16x4x8xf32>
  %w = relay.constant dense<0.5> : tensor<1x16x1x1xf32>
  %y = relay.nn.conv2d %s, %w : (tensor<1x16x4x8xf32>, tensor<1x16x1x1xf32>) -> tensor<1x1x4x8xf32>
  func.return %y : tensor<1x1x4x8xf32>
}

// -----

// Left alone: a softmax along the last axis (the npu runs it), one the user put on the host.
// CHECK-LABEL: func.func @left_alone
// CHECK-NOT:     relay.transpose
// CHECK:         relay.nn.softmax %x : tensor<4x8xf32>
// CHECK:         relay.nn.softmax %x {axis = 0, accel.target = "host"}
func.func @left_alone(%x: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  %a = relay.nn.softmax %x : tensor<4x8xf32>
  %b = relay.nn.softmax %x {axis = 0, accel.target = "host"} : tensor<4x8xf32>
  func.return %a, %b : tensor<4x8xf32>, tensor<4x8xf32>
}
