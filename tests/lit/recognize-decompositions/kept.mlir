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

// -----

// The variance over other axes than the mean, a mean of another tensor, a negative eps,
// sum * 1/n with the wrong n: no layer norm.
// CHECK-LABEL: func.func @not_layer_norms
// CHECK-NOT:     relay.nn.layer_norm
func.func @not_layer_norms(%x: tensor<3x4x8xf32>, %z: tensor<3x4x8xf32>) -> (tensor<3x4x8xf32>, tensor<3x4x8xf32>, tensor<3x4x8xf32>, tensor<3x4x8xf32>) {
  %neg = relay.constant dense<-1.0e-05> : tensor<f32>
  %inv = relay.constant dense<0.1> : tensor<f32>
  %m = relay.mean %x {axis = [2], keepdims = true} : (tensor<3x4x8xf32>) -> tensor<3x4x1xf32>
  %d = relay.subtract %x, %m : (tensor<3x4x8xf32>, tensor<3x4x1xf32>) -> tensor<3x4x8xf32>
  %p = relay.multiply %d, %d : tensor<3x4x8xf32>
  %v12 = relay.mean %p {axis = [1, 2], keepdims = true} : (tensor<3x4x8xf32>) -> tensor<3x1x1xf32>
  %s12 = relay.sqrt %v12 : tensor<3x1x1xf32>
  %a = relay.divide %d, %s12 : (tensor<3x4x8xf32>, tensor<3x1x1xf32>) -> tensor<3x4x8xf32>
  %mz = relay.mean %z {axis = [2], keepdims = true} : (tensor<3x4x8xf32>) -> tensor<3x4x1xf32>
  %dz = relay.subtract %x, %mz : (tensor<3x4x8xf32>, tensor<3x4x1xf32>) -> tensor<3x4x8xf32>
  %pz = relay.multiply %dz, %dz : tensor<3x4x8xf32>
  %vz = relay.mean %pz {axis = [2], keepdims = true} : (tensor<3x4x8xf32>) -> tensor<3x4x1xf32>
  %sz = relay.sqrt %vz : tensor<3x4x1xf32>
  %b = relay.divide %dz, %sz : (tensor<3x4x8xf32>, tensor<3x4x1xf32>) -> tensor<3x4x8xf32>
  %v = relay.mean %p {axis = [2], keepdims = true} : (tensor<3x4x8xf32>) -> tensor<3x4x1xf32>
  %ve = relay.add %v, %neg : (tensor<3x4x1xf32>, tensor<f32>) -> tensor<3x4x1xf32>
  %se = relay.sqrt %ve : tensor<3x4x1xf32>
  %c = relay.divide %d, %se : (tensor<3x4x8xf32>, tensor<3x4x1xf32>) -> tensor<3x4x8xf32>
  %sum = relay.sum %x {axis = [2], keepdims = true} : (tensor<3x4x8xf32>) -> tensor<3x4x1xf32>
  %mw = relay.multiply %sum, %inv : (tensor<3x4x1xf32>, tensor<f32>) -> tensor<3x4x1xf32>
  %dw = relay.subtract %x, %mw : (tensor<3x4x8xf32>, tensor<3x4x1xf32>) -> tensor<3x4x8xf32>
  %pw = relay.multiply %dw, %dw : tensor<3x4x8xf32>
  %vw = relay.mean %pw {axis = [2], keepdims = true} : (tensor<3x4x8xf32>) -> tensor<3x4x1xf32>
  %sw = relay.sqrt %vw : tensor<3x4x1xf32>
  %w = relay.divide %dw, %sw : (tensor<3x4x8xf32>, tensor<3x4x1xf32>) -> tensor<3x4x8xf32>
  func.return %a, %b, %c, %w : tensor<3x4x8xf32>, tensor<3x4x8xf32>, tensor<3x4x8xf32>, tensor<3x4x8xf32>
}

// -----

// A layer norm's scale that varies along a leading axis stays outside it; so does a
// shift after a scaled layer norm that is used twice (the scale goes in).
// CHECK-LABEL: func.func @affine_kept
// CHECK:         %n = relay.nn.layer_norm %x
// CHECK-NEXT:    %r = relay.multiply %n, %rows
// CHECK:         %g = relay.nn.layer_norm %x, %gamma, %{{.*}} {axis = 1, epsilon = 0.0}
// CHECK-NEXT:    %y = relay.add %g, %beta
// CHECK-NEXT:    func.return
func.func @affine_kept(%x: tensor<4x8xf32>, %beta: tensor<8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>) {
  %rows = relay.constant dense<[[1.0], [2.0], [3.0], [4.0]]> : tensor<4x1xf32>
  %gamma = relay.constant dense<3.0> : tensor<8xf32>
  %m = relay.mean %x {axis = [1], keepdims = true} : (tensor<4x8xf32>) -> tensor<4x1xf32>
  %d = relay.subtract %x, %m : (tensor<4x8xf32>, tensor<4x1xf32>) -> tensor<4x8xf32>
  %p = relay.multiply %d, %d : tensor<4x8xf32>
  %v = relay.mean %p {axis = [1], keepdims = true} : (tensor<4x8xf32>) -> tensor<4x1xf32>
  %s = relay.sqrt %v : tensor<4x1xf32>
  %n = relay.divide %d, %s : (tensor<4x8xf32>, tensor<4x1xf32>) -> tensor<4x8xf32>
  %r = relay.multiply %n, %rows : (tensor<4x8xf32>, tensor<4x1xf32>) -> tensor<4x8xf32>
  %n2 = relay.divide %d, %s : (tensor<4x8xf32>, tensor<4x1xf32>) -> tensor<4x8xf32>
  %g = relay.multiply %n2, %gamma : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  %y = relay.add %g, %beta : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  func.return %r, %g, %y : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>
}

// -----

// Softmax look-alikes: the max over another axis than the sum, exp(x) / sum without the
// max (it overflows where softmax does not), a max floored at a finite value.
// CHECK-LABEL: func.func @not_softmaxes
// CHECK-NOT:     relay.nn.softmax
func.func @not_softmaxes(%x: tensor<2x5xf32>) -> (tensor<2x5xf32>, tensor<2x5xf32>, tensor<2x5xf32>) {
  %m0 = relay.max %x {axis = [0], keepdims = true} : (tensor<2x5xf32>) -> tensor<1x5xf32>
  %t0 = relay.subtract %x, %m0 : (tensor<2x5xf32>, tensor<1x5xf32>) -> tensor<2x5xf32>
  %e0 = relay.exp %t0 : tensor<2x5xf32>
  %s0 = relay.sum %e0 {axis = [1], keepdims = true} : (tensor<2x5xf32>) -> tensor<2x1xf32>
  %a = relay.divide %e0, %s0 : (tensor<2x5xf32>, tensor<2x1xf32>) -> tensor<2x5xf32>
  %e1 = relay.exp %x : tensor<2x5xf32>
  %s1 = relay.sum %e1 {axis = [1], keepdims = true} : (tensor<2x5xf32>) -> tensor<2x1xf32>
  %b = relay.divide %e1, %s1 : (tensor<2x5xf32>, tensor<2x1xf32>) -> tensor<2x5xf32>
  %floor = relay.constant dense<-10.0> : tensor<f32>
  %m2 = relay.max %x {axis = [1]} : (tensor<2x5xf32>) -> tensor<2xf32>
  %g2 = relay.maximum %floor, %m2 : (tensor<f32>, tensor<2xf32>) -> tensor<2xf32>
  %m2k = relay.reshape %g2 {newshape = [2, 1]} : (tensor<2xf32>) -> tensor<2x1xf32>
  %t2 = relay.subtract %x, %m2k : (tensor<2x5xf32>, tensor<2x1xf32>) -> tensor<2x5xf32>
  %e2 = relay.exp %t2 : tensor<2x5xf32>
  %s2 = relay.sum %e2 {axis = [1], keepdims = true} : (tensor<2x5xf32>) -> tensor<2x1xf32>
  %c = relay.divide %e2, %s2 : (tensor<2x5xf32>, tensor<2x1xf32>) -> tensor<2x5xf32>
  func.return %a, %b, %c : tensor<2x5xf32>, tensor<2x5xf32>, tensor<2x5xf32>
}

// -----

// RMS look-alikes: the mean of another tensor's squares, a leading axis, a product with
// a scale that varies along a leading axis.
// CHECK-LABEL: func.func @not_rms_norms
// CHECK-NOT:     relay.nn.rms_norm
func.func @not_rms_norms(%x: tensor<4x8xf32>, %z: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>) {
  %one = relay.constant dense<1.0> : tensor<f32>
  %rows = relay.constant dense<[[1.0], [2.0], [3.0], [4.0]]> : tensor<4x1xf32>
  %pz = relay.multiply %z, %z : tensor<4x8xf32>
  %vz = relay.mean %pz {axis = [1], keepdims = true} : (tensor<4x8xf32>) -> tensor<4x1xf32>
  %sz = relay.sqrt %vz : tensor<4x1xf32>
  %a = relay.divide %x, %sz : (tensor<4x8xf32>, tensor<4x1xf32>) -> tensor<4x8xf32>
  %p = relay.multiply %x, %x : tensor<4x8xf32>
  %v0 = relay.mean %p {axis = [0], keepdims = true} : (tensor<4x8xf32>) -> tensor<1x8xf32>
  %s0 = relay.sqrt %v0 : tensor<1x8xf32>
  %b = relay.divide %x, %s0 : (tensor<4x8xf32>, tensor<1x8xf32>) -> tensor<4x8xf32>
  %v = relay.mean %p {axis = [1], keepdims = true} : (tensor<4x8xf32>) -> tensor<4x1xf32>
  %s = relay.sqrt %v : tensor<4x1xf32>
  %r = relay.divide %one, %s : (tensor<f32>, tensor<4x1xf32>) -> tensor<4x1xf32>
  %q = relay.multiply %r, %rows : tensor<4x1xf32>
  %c = relay.multiply %x, %q : (tensor<4x8xf32>, tensor<4x1xf32>) -> tensor<4x8xf32>
  func.return %a, %b, %c : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>
}

// -----

// A GELU-like chain whose cube is pow(x, 4.0): only the exponents 2 and 3 are products.
// CHECK-LABEL: func.func @gelu_tanh_pow_four
// CHECK-NOT:     relay.nn.gelu
// CHECK:         relay.power %x
func.func @gelu_tanh_pow_four(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %four = relay.constant dense<4.0> : tensor<f32>
  %c = relay.constant dense<0.044715> : tensor<f32>
  %k = relay.constant dense<0.7978846> : tensor<f32>
  %one = relay.constant dense<1.0> : tensor<f32>
  %half = relay.constant dense<0.5> : tensor<f32>
  %0 = relay.power %x, %four : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
  %1 = relay.multiply %c, %0 : (tensor<f32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %2 = relay.add %x, %1 : tensor<4x8xf32>
  %3 = relay.multiply %2, %k : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
  %4 = relay.tanh %3 : tensor<4x8xf32>
  %5 = relay.add %4, %one : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
  %6 = relay.multiply %x, %half : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
  %y = relay.multiply %6, %5 : tensor<4x8xf32>
  func.return %y : tensor<4x8xf32>
}

// -----

// The variance over another axis than the mean's (axis 2, the mean over axis 1): no norm.
// CHECK-LABEL: func.func @channels_first_other_variance_axis
// CHECK-NOT:     relay.nn.layer_norm
// CHECK-NOT:     relay.transpose
// CHECK:         relay.divide
func.func @channels_first_other_variance_axis(%x: tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32> {
  %eps = relay.constant dense<1.0e-06> : tensor<f32>
  %m = relay.mean %x {axis = [1], keepdims = true} : (tensor<1x4x4x4xf32>) -> tensor<1x1x4x4xf32>
  %d = relay.subtract %x, %m : (tensor<1x4x4x4xf32>, tensor<1x1x4x4xf32>) -> tensor<1x4x4x4xf32>
  %p = relay.multiply %d, %d : tensor<1x4x4x4xf32>
  %v = relay.mean %p {axis = [2], keepdims = true} : (tensor<1x4x4x4xf32>) -> tensor<1x4x1x4xf32>
  %e = relay.add %v, %eps : (tensor<1x4x1x4xf32>, tensor<f32>) -> tensor<1x4x1x4xf32>
  %s = relay.sqrt %e : tensor<1x4x1x4xf32>
  %y = relay.divide %d, %s : (tensor<1x4x4x4xf32>, tensor<1x4x1x4xf32>) -> tensor<1x4x4x4xf32>
  func.return %y : tensor<1x4x4x4xf32>
}
