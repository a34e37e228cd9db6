// recognize-decompositions: layer norms and softmaxes spelt out by exporters.
// RUN: accel-opt %s --split-input-file -p recognize-decompositions | filecheck %s

// torch.onnx below opset 17: Pow, Div, then the affine Mul and Add; the initializers stay.
// CHECK-LABEL: func.func @torch_layer_norm
// CHECK-NEXT:    %y = relay.nn.layer_norm %x, %gamma, %beta {axis = 2, epsilon = 9.999999747378752e-06} : (tensor<2x8x32xf32>, tensor<32xf32>, tensor<32xf32>) -> tensor<2x8x32xf32>
// CHECK-NEXT:    func.return %y
func.func @torch_layer_norm(%x: tensor<2x8x32xf32>, %gamma: tensor<32xf32>, %beta: tensor<32xf32>) -> tensor<2x8x32xf32> {
  %two = relay.constant dense<2.0> : tensor<f32>
  %eps = relay.constant dense<1.0e-05> : tensor<f32>
  %m = relay.mean %x {axis = [-1], keepdims = true} : (tensor<2x8x32xf32>) -> tensor<2x8x1xf32>
  %d = relay.subtract %x, %m : (tensor<2x8x32xf32>, tensor<2x8x1xf32>) -> tensor<2x8x32xf32>
  %p = relay.power %d, %two : (tensor<2x8x32xf32>, tensor<f32>) -> tensor<2x8x32xf32>
  %v = relay.mean %p {axis = [-1], keepdims = true} : (tensor<2x8x32xf32>) -> tensor<2x8x1xf32>
  %e = relay.add %v, %eps : (tensor<2x8x1xf32>, tensor<f32>) -> tensor<2x8x1xf32>
  %s = relay.sqrt %e : tensor<2x8x1xf32>
  %n = relay.divide %d, %s : (tensor<2x8x32xf32>, tensor<2x8x1xf32>) -> tensor<2x8x32xf32>
  %g = relay.multiply %n, %gamma : (tensor<2x8x32xf32>, tensor<32xf32>) -> tensor<2x8x32xf32>
  %y = relay.add %g, %beta : (tensor<2x8x32xf32>, tensor<32xf32>) -> tensor<2x8x32xf32>
  func.return %y : tensor<2x8x32xf32>
}

// -----

// Over the last two axes, the mean as sum * 1/n, the square as a product, the division as
// a product with 1/sqrt, the affine constants broadcast (a bias_add along the last axis).
// CHECK-LABEL: func.func @two_axes_reciprocal
// CHECK-NEXT:    %0 = relay.constant dense<2.000000e+00> : tensor<4x8xf32>
// CHECK-NEXT:    %1 = relay.constant dense<{{\[}}[0.000000e+00, 1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00, 5.000000e+00, 6.000000e+00, 7.000000e+00], [0.000000e+00
// CHECK-NEXT:    %y = relay.nn.layer_norm %x, %0, %1 {axis = 1, epsilon = 0.0010000000474974513} : (tensor<3x4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<3x4x8xf32>
// CHECK-NEXT:    func.return %y
func.func @two_axes_reciprocal(%x: tensor<3x4x8xf32>) -> tensor<3x4x8xf32> {
  %inv_n = relay.constant dense<0.03125> : tensor<f32>
  %eps = relay.constant dense<0.001> : tensor<f32>
  %one = relay.constant dense<1.0> : tensor<f32>
  %two = relay.constant dense<2.0> : tensor<1x1x1xf32>
  %b = relay.constant dense<[0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0]> : tensor<8xf32>
  %s0 = relay.sum %x {axis = [1, 2], keepdims = true} : (tensor<3x4x8xf32>) -> tensor<3x1x1xf32>
  %m = relay.multiply %s0, %inv_n : (tensor<3x1x1xf32>, tensor<f32>) -> tensor<3x1x1xf32>
  %d = relay.subtract %x, %m : (tensor<3x4x8xf32>, tensor<3x1x1xf32>) -> tensor<3x4x8xf32>
  %p = relay.multiply %d, %d : tensor<3x4x8xf32>
  %v = relay.mean %p {axis = [2, 1], keepdims = true} : (tensor<3x4x8xf32>) -> tensor<3x1x1xf32>
  %e = relay.add %eps, %v : (tensor<f32>, tensor<3x1x1xf32>) -> tensor<3x1x1xf32>
  %s = relay.sqrt %e : tensor<3x1x1xf32>
  %r = relay.divide %one, %s : (tensor<f32>, tensor<3x1x1xf32>) -> tensor<3x1x1xf32>
  %n = relay.multiply %r, %d : (tensor<3x1x1xf32>, tensor<3x4x8xf32>) -> tensor<3x4x8xf32>
  %g = relay.multiply %two, %n : (tensor<1x1x1xf32>, tensor<3x4x8xf32>) -> tensor<3x4x8xf32>
  %y = relay.nn.bias_add %g, %b {axis = 2} : (tensor<3x4x8xf32>, tensor<8xf32>) -> tensor<3x4x8xf32>
  func.return %y : tensor<3x4x8xf32>
}

// -----

// jax2tf (Flax LayerNorm through tf2onnx): var = max(E[x*x] - E[x]^2, 0) on reductions
// that drop their axis, reshaped back; gamma multiplied into 1/sqrt(var + eps).
// CHECK-LABEL: func.func @jax_layer_norm
// CHECK-NEXT:    %gamma = relay.constant dense<1.500000e+00> : tensor<16xf32>
// CHECK-NEXT:    %0 = relay.constant dense<0.000000e+00> : tensor<16xf32>
// CHECK-NEXT:    %y = relay.nn.layer_norm %x, %gamma, %0 {axis = 1, epsilon = 9.999999974752427e-07} : (tensor<2x16xf32>, tensor<16xf32>, tensor<16xf32>) -> tensor<2x16xf32>
// CHECK-NEXT:    func.return %y
func.func @jax_layer_norm(%x: tensor<2x16xf32>) -> tensor<2x16xf32> {
  %inv_n = relay.constant dense<0.0625> : tensor<f32>
  %zero = relay.constant dense<0.0> : tensor<f32>
  %eps = relay.constant dense<1.0e-06> : tensor<f32>
  %one = relay.constant dense<1.0> : tensor<f32>
  %gamma = relay.constant dense<1.5> : tensor<16xf32>
  %sum = relay.sum %x {axis = [1]} : (tensor<2x16xf32>) -> tensor<2xf32>
  %mean = relay.multiply %sum, %inv_n : (tensor<2xf32>, tensor<f32>) -> tensor<2xf32>
  %xx = relay.multiply %x, %x : tensor<2x16xf32>
  %sum2 = relay.sum %xx {axis = [1]} : (tensor<2x16xf32>) -> tensor<2xf32>
  %msq = relay.multiply %sum2, %inv_n : (tensor<2xf32>, tensor<f32>) -> tensor<2xf32>
  %mm = relay.multiply %mean, %mean : tensor<2xf32>
  %diff = relay.subtract %msq, %mm : tensor<2xf32>
  %var = relay.maximum %zero, %diff : (tensor<f32>, tensor<2xf32>) -> tensor<2xf32>
  %var1 = relay.reshape %var {newshape = [2, 1]} : (tensor<2xf32>) -> tensor<2x1xf32>
  %ve = relay.add %var1, %eps : (tensor<2x1xf32>, tensor<f32>) -> tensor<2x1xf32>
  %s = relay.sqrt %ve : tensor<2x1xf32>
  %r = relay.divide %one, %s : (tensor<f32>, tensor<2x1xf32>) -> tensor<2x1xf32>
  %q = relay.multiply %r, %gamma : (tensor<2x1xf32>, tensor<16xf32>) -> tensor<2x16xf32>
  %mean1 = relay.reshape %mean {newshape = [2, 1]} : (tensor<2xf32>) -> tensor<2x1xf32>
  %d = relay.subtract %x, %mean1 : (tensor<2x16xf32>, tensor<2x1xf32>) -> tensor<2x16xf32>
  %y = relay.multiply %d, %q : tensor<2x16xf32>
  func.return %y : tensor<2x16xf32>
}

// -----

// The centered value has another use: it stays, the layer norm reads x.
// CHECK-LABEL: func.func @centered_used_twice
// CHECK:         %m = relay.mean %x
// CHECK-NEXT:    %d = relay.subtract %x, %m
// CHECK-NOT:     relay.sqrt
// CHECK:         %n = relay.nn.layer_norm %x, %{{.*}}, %{{.*}} {axis = 1, epsilon = 0.0}
// CHECK-NEXT:    func.return %n, %d
func.func @centered_used_twice(%x: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  %m = relay.mean %x {axis = [1], keepdims = true} : (tensor<4x8xf32>) -> tensor<4x1xf32>
  %d = relay.subtract %x, %m : (tensor<4x8xf32>, tensor<4x1xf32>) -> tensor<4x8xf32>
  %p = relay.multiply %d, %d : tensor<4x8xf32>
  %v = relay.mean %p {axis = [1], keepdims = true} : (tensor<4x8xf32>) -> tensor<4x1xf32>
  %s = relay.sqrt %v : tensor<4x1xf32>
  %n = relay.divide %d, %s : (tensor<4x8xf32>, tensor<4x1xf32>) -> tensor<4x8xf32>
  func.return %n, %d : tensor<4x8xf32>, tensor<4x8xf32>
}

// -----

// Softmax as exp(x - max(x)) / sum(exp(x - max(x))) over axis 1 of three.
// CHECK-LABEL: func.func @softmax_keepdims
// CHECK-NEXT:    %y = relay.nn.softmax %x {axis = 1} : tensor<2x5x3xf32>
// CHECK-NEXT:    func.return %y
func.func @softmax_keepdims(%x: tensor<2x5x3xf32>) -> tensor<2x5x3xf32> {
  %m = relay.max %x {axis = [1], keepdims = true} : (tensor<2x5x3xf32>) -> tensor<2x1x3xf32>
  %t = relay.subtract %x, %m : (tensor<2x5x3xf32>, tensor<2x1x3xf32>) -> tensor<2x5x3xf32>
  %e = relay.exp %t : tensor<2x5x3xf32>
  %s = relay.sum %e {axis = [-2], keepdims = true} : (tensor<2x5x3xf32>) -> tensor<2x1x3xf32>
  %y = relay.divide %e, %s : (tensor<2x5x3xf32>, tensor<2x1x3xf32>) -> tensor<2x5x3xf32>
  func.return %y : tensor<2x5x3xf32>
}

// -----

// jax.nn.softmax through jax2tf: the max floored at -inf, reductions reshaped back.
// CHECK-LABEL: func.func @jax_softmax
// CHECK-NEXT:    %y = relay.nn.softmax %x {axis = 1} : tensor<1x214xf32>
// CHECK-NEXT:    func.return %y
func.func @jax_softmax(%x: tensor<1x214xf32>) -> tensor<1x214xf32> {
  %ninf = relay.constant dense<0xFF800000> : tensor<f32>
  %m = relay.max %x {axis = [1]} : (tensor<1x214xf32>) -> tensor<1xf32>
  %g = relay.maximum %ninf, %m : (tensor<f32>, tensor<1xf32>) -> tensor<1xf32>
  %m1 = relay.reshape %g {newshape = [1, 1]} : (tensor<1xf32>) -> tensor<1x1xf32>
  %t = relay.subtract %x, %m1 : (tensor<1x214xf32>, tensor<1x1xf32>) -> tensor<1x214xf32>
  %e = relay.exp %t : tensor<1x214xf32>
  %s = relay.sum %e {axis = [1]} : (tensor<1x214xf32>) -> tensor<1xf32>
  %s1 = relay.reshape %s {newshape = [1, 1]} : (tensor<1xf32>) -> tensor<1x1xf32>
  %y = relay.divide %e, %s1 : (tensor<1x214xf32>, tensor<1x1xf32>) -> tensor<1x214xf32>
  func.return %y : tensor<1x214xf32>
}

// -----

// tf2onnx's Keras LayerNormalization (tf.nn.batch_normalization): x * s + (beta - mean * s)
// with s = gamma / sqrt(var + eps), the reciprocal as Reciprocal imports (1 / sqrt).
// CHECK-LABEL: func.func @keras_layer_norm
// CHECK-NEXT:    %gamma = relay.constant dense<2.000000e+00> : tensor<16xf32>
// CHECK-NEXT:    %beta = relay.constant dense<5.000000e-01> : tensor<16xf32>
// CHECK-NEXT:    %y = relay.nn.layer_norm %x, %gamma, %beta {axis = 2, epsilon = 0.0010000000474974513} : (tensor<1x4x16xf32>, tensor<16xf32>, tensor<16xf32>) -> tensor<1x4x16xf32>
// CHECK-NEXT:    func.return %y
func.func @keras_layer_norm(%x: tensor<1x4x16xf32>) -> tensor<1x4x16xf32> {
  %eps = relay.constant dense<0.001> : tensor<f32>
  %one = relay.constant dense<1.0> : tensor<f32>
  %gamma = relay.constant dense<2.0> : tensor<16xf32>
  %beta = relay.constant dense<0.5> : tensor<16xf32>
  %m = relay.mean %x {axis = [2], keepdims = true} : (tensor<1x4x16xf32>) -> tensor<1x4x1xf32>
  %d = relay.subtract %x, %m : (tensor<1x4x16xf32>, tensor<1x4x1xf32>) -> tensor<1x4x16xf32>
  %sq = relay.multiply %d, %d : tensor<1x4x16xf32>
  %v = relay.mean %sq {axis = [2], keepdims = true} : (tensor<1x4x16xf32>) -> tensor<1x4x1xf32>
  %ve = relay.add %v, %eps : (tensor<1x4x1xf32>, tensor<f32>) -> tensor<1x4x1xf32>
  %sd = relay.sqrt %ve : tensor<1x4x1xf32>
  %r = relay.divide %one, %sd : (tensor<f32>, tensor<1x4x1xf32>) -> tensor<1x4x1xf32>
  %s = relay.multiply %r, %gamma : (tensor<1x4x1xf32>, tensor<16xf32>) -> tensor<1x4x16xf32>
  %xs = relay.multiply %x, %s : tensor<1x4x16xf32>
  %ms = relay.multiply %m, %s : (tensor<1x4x1xf32>, tensor<1x4x16xf32>) -> tensor<1x4x16xf32>
  %c = relay.subtract %beta, %ms : (tensor<16xf32>, tensor<1x4x16xf32>) -> tensor<1x4x16xf32>
  %y = relay.add %xs, %c : tensor<1x4x16xf32>
  func.return %y : tensor<1x4x16xf32>
}

// -----

// LLaMA's RMSNorm as torch exports it: Pow, ReduceMean, Add, Sqrt, Reciprocal, Mul, then
// the weight's Mul; the weight stays.
// CHECK-LABEL: func.func @llama_rms_norm
// CHECK-NEXT:    %w = relay.constant dense<2.000000e+00> : tensor<16xf32>
// CHECK-NEXT:    %y = relay.nn.rms_norm %x, %w {axis = 2, epsilon = 9.999999974752427e-07} : (tensor<1x4x16xf32>, tensor<16xf32>) -> tensor<1x4x16xf32>
// CHECK-NEXT:    func.return %y
func.func @llama_rms_norm(%x: tensor<1x4x16xf32>) -> tensor<1x4x16xf32> {
  %two = relay.constant dense<2.0> : tensor<f32>
  %eps = relay.constant dense<1.0e-06> : tensor<f32>
  %one = relay.constant dense<1.0> : tensor<f32>
  %w = relay.constant dense<2.0> : tensor<16xf32>
  %p = relay.power %x, %two : (tensor<1x4x16xf32>, tensor<f32>) -> tensor<1x4x16xf32>
  %v = relay.mean %p {axis = [-1], keepdims = true} : (tensor<1x4x16xf32>) -> tensor<1x4x1xf32>
  %e = relay.add %v, %eps : (tensor<1x4x1xf32>, tensor<f32>) -> tensor<1x4x1xf32>
  %s = relay.sqrt %e : tensor<1x4x1xf32>
  %r = relay.divide %one, %s : (tensor<f32>, tensor<1x4x1xf32>) -> tensor<1x4x1xf32>
  %n = relay.multiply %x, %r : (tensor<1x4x16xf32>, tensor<1x4x1xf32>) -> tensor<1x4x16xf32>
  %y = relay.multiply %w, %n : (tensor<16xf32>, tensor<1x4x16xf32>) -> tensor<1x4x16xf32>
  func.return %y : tensor<1x4x16xf32>
}

// -----

// Over two axes, x * x, the division itself, no epsilon.
// CHECK-LABEL: func.func @rms_norm_div
// CHECK-NEXT:    %0 = relay.constant dense<1.000000e+00> : tensor<3x8xf32>
// CHECK-NEXT:    %y = relay.nn.rms_norm %x, %0 {axis = 1, epsilon = 0.0} : (tensor<2x3x8xf32>, tensor<3x8xf32>) -> tensor<2x3x8xf32>
// CHECK-NEXT:    func.return %y
func.func @rms_norm_div(%x: tensor<2x3x8xf32>) -> tensor<2x3x8xf32> {
  %p = relay.multiply %x, %x : tensor<2x3x8xf32>
  %v = relay.mean %p {axis = [1, 2], keepdims = true} : (tensor<2x3x8xf32>) -> tensor<2x1x1xf32>
  %s = relay.sqrt %v : tensor<2x1x1xf32>
  %y = relay.divide %x, %s : (tensor<2x3x8xf32>, tensor<2x1x1xf32>) -> tensor<2x3x8xf32>
  func.return %y : tensor<2x3x8xf32>
}

// -----

// ConvNeXt's channels-first LayerNorm: the moments over axis 1 of an NCHW image. The norm
// runs over rows: the image is transposed to put the channels last, and back.
// CHECK-LABEL: func.func @channels_first_layer_norm
// CHECK-NEXT:    %0 = relay.transpose %x {axes = [0, 2, 3, 1]} : (tensor<1x8x4x4xf32>) -> tensor<1x4x4x8xf32>
// CHECK-NEXT:    %1 = relay.constant dense<1.000000e+00> : tensor<8xf32>
// CHECK-NEXT:    %2 = relay.constant dense<0.000000e+00> : tensor<8xf32>
// CHECK-NEXT:    %3 = relay.nn.layer_norm %0, %1, %2 {axis = 3, epsilon = 9.999999974752427e-07} : (tensor<1x4x4x8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<1x4x4x8xf32>
// CHECK-NEXT:    %n = relay.transpose %3 {axes = [0, 3, 1, 2]} : (tensor<1x4x4x8xf32>) -> tensor<1x8x4x4xf32>
// CHECK-NEXT:    func.return %n
func.func @channels_first_layer_norm(%x: tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32> {
  %two = relay.constant dense<2.0> : tensor<f32>
  %eps = relay.constant dense<1.0e-06> : tensor<f32>
  %m = relay.mean %x {axis = [1], keepdims = true} : (tensor<1x8x4x4xf32>) -> tensor<1x1x4x4xf32>
  %d = relay.subtract %x, %m : (tensor<1x8x4x4xf32>, tensor<1x1x4x4xf32>) -> tensor<1x8x4x4xf32>
  %p = relay.power %d, %two : (tensor<1x8x4x4xf32>, tensor<f32>) -> tensor<1x8x4x4xf32>
  %v = relay.mean %p {axis = [1], keepdims = true} : (tensor<1x8x4x4xf32>) -> tensor<1x1x4x4xf32>
  %e = relay.add %v, %eps : (tensor<1x1x4x4xf32>, tensor<f32>) -> tensor<1x1x4x4xf32>
  %s = relay.sqrt %e : tensor<1x1x4x4xf32>
  %n = relay.divide %d, %s : (tensor<1x8x4x4xf32>, tensor<1x1x4x4xf32>) -> tensor<1x8x4x4xf32>
  func.return %n : tensor<1x8x4x4xf32>
}

// -----

// Over axes 0 and 2 of three, the division as a product with 1/sqrt: the kept axis goes
// first, the normalized ones after it in their order.
// CHECK-LABEL: func.func @middle_axis_kept
// CHECK-NEXT:    %0 = relay.transpose %x {axes = [1, 0, 2]} : (tensor<2x3x5xf32>) -> tensor<3x2x5xf32>
// CHECK:         relay.nn.layer_norm %0, %{{.*}}, %{{.*}} {axis = 1, epsilon = 0.0010000000474974513} : (tensor<3x2x5xf32>, tensor<2x5xf32>, tensor<2x5xf32>) -> tensor<3x2x5xf32>
// CHECK-NEXT:    %y = relay.transpose %{{.*}} {axes = [1, 0, 2]} : (tensor<3x2x5xf32>) -> tensor<2x3x5xf32>
// CHECK-NEXT:    func.return %y
func.func @middle_axis_kept(%x: tensor<2x3x5xf32>) -> tensor<2x3x5xf32> {
  %eps = relay.constant dense<0.001> : tensor<f32>
  %one = relay.constant dense<1.0> : tensor<f32>
  %m = relay.mean %x {axis = [0, 2], keepdims = true} : (tensor<2x3x5xf32>) -> tensor<1x3x1xf32>
  %d = relay.subtract %x, %m : (tensor<2x3x5xf32>, tensor<1x3x1xf32>) -> tensor<2x3x5xf32>
  %p = relay.multiply %d, %d : tensor<2x3x5xf32>
  %v = relay.mean %p {axis = [0, 2], keepdims = true} : (tensor<2x3x5xf32>) -> tensor<1x3x1xf32>
  %e = relay.add %v, %eps : (tensor<1x3x1xf32>, tensor<f32>) -> tensor<1x3x1xf32>
  %s = relay.sqrt %e : tensor<1x3x1xf32>
  %r = relay.divide %one, %s : (tensor<f32>, tensor<1x3x1xf32>) -> tensor<1x3x1xf32>
  %y = relay.multiply %d, %r : (tensor<2x3x5xf32>, tensor<1x3x1xf32>) -> tensor<2x3x5xf32>
  func.return %y : tensor<2x3x5xf32>
}

// -----

// Normalized over a middle axis without eps (Magika's first LayerNorm, axis 1 of 1x512x256).
// CHECK-LABEL: func.func @leading_axis_norm
// CHECK-NEXT:    %0 = relay.transpose %x {axes = [0, 2, 1]} : (tensor<2x8x4xf32>) -> tensor<2x4x8xf32>
// CHECK:         relay.nn.layer_norm %0, %{{.*}}, %{{.*}} {axis = 2, epsilon = 0.0}
// CHECK-NEXT:    %n = relay.transpose %{{.*}} {axes = [0, 2, 1]} : (tensor<2x4x8xf32>) -> tensor<2x8x4xf32>
func.func @leading_axis_norm(%x: tensor<2x8x4xf32>) -> tensor<2x8x4xf32> {
  %m = relay.mean %x {axis = [1], keepdims = true} : (tensor<2x8x4xf32>) -> tensor<2x1x4xf32>
  %d = relay.subtract %x, %m : (tensor<2x8x4xf32>, tensor<2x1x4xf32>) -> tensor<2x8x4xf32>
  %p = relay.multiply %d, %d : tensor<2x8x4xf32>
  %v = relay.mean %p {axis = [1], keepdims = true} : (tensor<2x8x4xf32>) -> tensor<2x1x4xf32>
  %s = relay.sqrt %v : tensor<2x1x4xf32>
  %n = relay.divide %d, %s : (tensor<2x8x4xf32>, tensor<2x1x4xf32>) -> tensor<2x8x4xf32>
  func.return %n : tensor<2x8x4xf32>
}

// -----

// Magika's first LayerNorm as jax2tf writes it: over axis 1 of 1x8x4, the moments as sums
// without the axis, var = max(E[x*x] - E[x]^2, 0), the gamma (1x8x1) inside the product
// with the inverse std, the beta a bias_add along axis 1. One norm over rows, between
// transposes, with both parameters.
// CHECK-LABEL: func.func @jax_channels_first_layer_norm
// CHECK-NEXT:    %0 = relay.transpose %x {axes = [0, 2, 1]} : (tensor<1x8x4xf32>) -> tensor<1x4x8xf32>
// CHECK-NEXT:    %1 = relay.constant dense<[1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00, 5.000000e+00, 6.000000e+00, 7.000000e+00, 8.000000e+00]> : tensor<8xf32>
// CHECK-NEXT:    %2 = relay.constant dense<[{{.*}}]> : tensor<8xf32>
// CHECK-NEXT:    %3 = relay.nn.layer_norm %0, %1, %2 {axis = 2, epsilon = 9.999999974752427e-07} : (tensor<1x4x8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<1x4x8xf32>
// CHECK-NEXT:    %y = relay.transpose %3 {axes = [0, 2, 1]} : (tensor<1x4x8xf32>) -> tensor<1x8x4xf32>
// CHECK-NEXT:    func.return %y
func.func @jax_channels_first_layer_norm(%x: tensor<1x8x4xf32>) -> tensor<1x8x4xf32> {
  %inv_n = relay.constant dense<0.125> : tensor<f32>
  %zero = relay.constant dense<0.0> : tensor<f32>
  %eps = relay.constant dense<1.0e-06> : tensor<f32>
  %one = relay.constant dense<1.0> : tensor<f32>
  %gamma = relay.constant dense<[[[1.0], [2.0], [3.0], [4.0], [5.0], [6.0], [7.0], [8.0]]]> : tensor<1x8x1xf32>
  %beta = relay.constant dense<[0.5, 1.5, 2.5, 3.5, 4.5, 5.5, 6.5, 7.5]> : tensor<8xf32>
  %s = relay.sum %x {axis = [1]} : (tensor<1x8x4xf32>) -> tensor<1x4xf32>
  %sq = relay.multiply %x, %x : tensor<1x8x4xf32>
  %s2 = relay.sum %sq {axis = [1]} : (tensor<1x8x4xf32>) -> tensor<1x4xf32>
  %m2 = relay.multiply %s2, %inv_n : (tensor<1x4xf32>, tensor<f32>) -> tensor<1x4xf32>
  %m = relay.multiply %s, %inv_n : (tensor<1x4xf32>, tensor<f32>) -> tensor<1x4xf32>
  %mm = relay.multiply %m, %m : tensor<1x4xf32>
  %v = relay.subtract %m2, %mm : tensor<1x4xf32>
  %vf = relay.maximum %zero, %v : (tensor<f32>, tensor<1x4xf32>) -> tensor<1x4xf32>
  %vr = relay.reshape %vf {newshape = [1, 1, 4]} : (tensor<1x4xf32>) -> tensor<1x1x4xf32>
  %e = relay.add %vr, %eps : (tensor<1x1x4xf32>, tensor<f32>) -> tensor<1x1x4xf32>
  %sd = relay.sqrt %e : tensor<1x1x4xf32>
  %r = relay.divide %one, %sd : (tensor<f32>, tensor<1x1x4xf32>) -> tensor<1x1x4xf32>
  %g = relay.multiply %r, %gamma : (tensor<1x1x4xf32>, tensor<1x8x1xf32>) -> tensor<1x8x4xf32>
  %mr = relay.reshape %m {newshape = [1, 1, 4]} : (tensor<1x4xf32>) -> tensor<1x1x4xf32>
  %d = relay.subtract %x, %mr : (tensor<1x8x4xf32>, tensor<1x1x4xf32>) -> tensor<1x8x4xf32>
  %n = relay.multiply %d, %g : tensor<1x8x4xf32>
  %y = relay.nn.bias_add %n, %beta {axis = 1} : (tensor<1x8x4xf32>, tensor<8xf32>) -> tensor<1x8x4xf32>
  func.return %y : tensor<1x8x4xf32>
}
