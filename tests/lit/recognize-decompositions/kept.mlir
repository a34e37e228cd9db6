// recognize-decompositions: chains that only look like an activation stay.
// RUN: accel-opt %s --split-input-file -p recognize-decompositions | filecheck %s

// 1/6 misspelt beyond the tolerance (0.17).
// CHECK-LABEL: func.func @wrong_constant
// CHECK-NOT:     relay.nn.hardswish
// CHECK:         relay.divide
func.func @wrong_constant(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %three = relay.constant dense<3.0> : tensor<f32>
  %six = relay.constant dense<5.88> : tensor<f32>
  %0 = relay.add %x, %three : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
  %1 = relay.clip %0 {a_min = 0.0, a_max = 6.0} : tensor<4x8xf32>
  %2 = relay.multiply %x, %1 : tensor<4x8xf32>
  %y = relay.divide %2, %six : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
  func.return %y : tensor<4x8xf32>
}

// -----

// The gate reads another value: x * sigmoid(z) is no SiLU.
// CHECK-LABEL: func.func @other_value
// CHECK:         relay.sigmoid %z
// CHECK-NEXT:    relay.multiply %x
func.func @other_value(%x: tensor<4x8xf32>, %z: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %s = relay.sigmoid %z : tensor<4x8xf32>
  %y = relay.multiply %x, %s : tensor<4x8xf32>
  func.return %y : tensor<4x8xf32>
}

// -----

// A constant that widens the result is not a scalar of the chain.
// CHECK-LABEL: func.func @widening
// CHECK-NOT:     relay.nn.hardsigmoid
// CHECK:         relay.clip
func.func @widening(%x: tensor<8xf32>) -> tensor<2x8xf32> {
  %a = relay.constant dense<0.2> : tensor<2x1xf32>
  %b = relay.constant dense<0.5> : tensor<f32>
  %0 = relay.multiply %x, %a : (tensor<8xf32>, tensor<2x1xf32>) -> tensor<2x8xf32>
  %1 = relay.add %0, %b : (tensor<2x8xf32>, tensor<f32>) -> tensor<2x8xf32>
  %y = relay.clip %1 {a_min = 0.0, a_max = 1.0} : tensor<2x8xf32>
  func.return %y : tensor<2x8xf32>
}

// -----

// An intermediate used elsewhere stays (only the root value is replaced).
// CHECK-LABEL: func.func @shared_gate
// CHECK-NEXT:    %s = relay.sigmoid %x
// CHECK-NEXT:    %y = relay.nn.silu %x
// CHECK-NEXT:    func.return %y, %s
func.func @shared_gate(%x: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  %s = relay.sigmoid %x : tensor<4x8xf32>
  %y = relay.multiply %x, %s : tensor<4x8xf32>
  func.return %y, %s : tensor<4x8xf32>, tensor<4x8xf32>
}

// -----

// clip(relu(x)) with a negative lower bound is not one clip; integer clips never become hardsigmoid.
// CHECK-LABEL: func.func @kept_clips
// CHECK:         relay.nn.relu %x
// CHECK-NEXT:    relay.clip %{{.*}} {a_min = -1.0, a_max = 6.0}
// CHECK:         relay.clip %{{.*}} {a_min = 0.0, a_max = 1.0} : tensor<4xi32>
func.func @kept_clips(%x: tensor<4x8xf32>, %i: tensor<4xi32>) -> (tensor<4x8xf32>, tensor<4xi32>) {
  %0 = relay.nn.relu %x : tensor<4x8xf32>
  %a = relay.clip %0 {a_min = -1.0, a_max = 6.0} : tensor<4x8xf32>
  %c = relay.constant dense<2> : tensor<i32>
  %1 = relay.multiply %i, %c : (tensor<4xi32>, tensor<i32>) -> tensor<4xi32>
  %2 = relay.add %1, %c : (tensor<4xi32>, tensor<i32>) -> tensor<4xi32>
  %b = relay.clip %2 {a_min = 0.0, a_max = 1.0} : tensor<4xi32>
  func.return %a, %b : tensor<4x8xf32>, tensor<4xi32>
}
