// recognize-decompositions: exporter chains back into single ops.
// RUN: accel-opt %s --split-input-file -p recognize-decompositions | filecheck %s
// RUN: not accel-opt %s -p 'recognize-decompositions{tolerance=0.1}' 2>&1 | filecheck %s --check-prefix=OPTION

// OPTION: accel-opt: error: pass 'recognize-decompositions' has no option 'tolerance' (options: none)
// OPTION-NOT: Traceback

// The ONNX importer's HardSwish: x * clip(x * 0.1666667 + 0.5, 0, 1); the dead chain goes.
// CHECK-LABEL: func.func @hardswish_onnx
// CHECK-NEXT:    %y = relay.nn.hardswish %x : tensor<1x2x2x2xf32>
// CHECK-NEXT:    func.return %y
func.func @hardswish_onnx(%x: tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32> {
  %a = relay.constant dense<0.1666667> : tensor<f32>
  %b = relay.constant dense<0.5> : tensor<f32>
  %0 = relay.multiply %x, %a : (tensor<1x2x2x2xf32>, tensor<f32>) -> tensor<1x2x2x2xf32>
  %1 = relay.add %0, %b : (tensor<1x2x2x2xf32>, tensor<f32>) -> tensor<1x2x2x2xf32>
  %2 = relay.clip %1 {a_min = 0.0, a_max = 1.0} : tensor<1x2x2x2xf32>
  %y = relay.multiply %x, %2 : tensor<1x2x2x2xf32>
  func.return %y : tensor<1x2x2x2xf32>
}

// -----

// PyTorch's decomposition: x * clip(x + 3, 0, 6) / 6.
// CHECK-LABEL: func.func @hardswish_div
// CHECK-NEXT:    %y = relay.nn.hardswish %x : tensor<4x8xf32>
// CHECK-NEXT:    func.return %y
func.func @hardswish_div(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %three = relay.constant dense<3.0> : tensor<1xf32>
  %six = relay.constant dense<6.0> : tensor<f32>
  %0 = relay.add %x, %three : (tensor<4x8xf32>, tensor<1xf32>) -> tensor<4x8xf32>
  %1 = relay.clip %0 {a_min = 0.0, a_max = 6.0} : tensor<4x8xf32>
  %2 = relay.multiply %x, %1 : tensor<4x8xf32>
  %y = relay.divide %2, %six : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
  func.return %y : tensor<4x8xf32>
}

// -----

// The `* (1/6)` form, the product associated the other way.
// CHECK-LABEL: func.func @hardswish_mul
// CHECK-NEXT:    %y = relay.nn.hardswish %x : tensor<4x8xf32>
func.func @hardswish_mul(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %three = relay.constant dense<3.0> : tensor<f32>
  %sixth = relay.constant dense<0.16666667> : tensor<f32>
  %0 = relay.add %three, %x : (tensor<f32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %1 = relay.clip %0 {a_min = 0.0, a_max = 6.0} : tensor<4x8xf32>
  %2 = relay.multiply %1, %sixth : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
  %y = relay.multiply %x, %2 : tensor<4x8xf32>
  func.return %y : tensor<4x8xf32>
}

// -----

// HardSigmoid: the importer's form (any alpha, beta) and clip(x + 3, 0, 6) / 6.
// CHECK-LABEL: func.func @hardsigmoid
// CHECK-NEXT:    %h = relay.nn.hardsigmoid %x {alpha = 0.2{{0*}}{{[0-9]*}}, beta = 0.6{{0*}}{{[0-9]*}}} : tensor<4x8xf32>
// CHECK-NEXT:    %g = relay.nn.hardsigmoid %x {alpha = 0.1666666{{[0-9]*}}} : tensor<4x8xf32>
// CHECK-NEXT:    func.return %h, %g
func.func @hardsigmoid(%x: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  %a = relay.constant dense<0.2> : tensor<f32>
  %b = relay.constant dense<0.6> : tensor<f32>
  %0 = relay.multiply %a, %x : (tensor<f32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %1 = relay.add %0, %b : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
  %h = relay.clip %1 {a_min = 0.0, a_max = 1.0} : tensor<4x8xf32>
  %three = relay.constant dense<3.0> : tensor<f32>
  %six = relay.constant dense<6.0> : tensor<f32>
  %2 = relay.add %x, %three : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
  %3 = relay.clip %2 {a_min = 0.0, a_max = 6.0} : tensor<4x8xf32>
  %g = relay.divide %3, %six : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
  func.return %h, %g : tensor<4x8xf32>, tensor<4x8xf32>
}

// -----

// SiLU, both operand orders.
// CHECK-LABEL: func.func @silu
// CHECK-NEXT:    %a = relay.nn.silu %x : tensor<4x8xf32>
// CHECK-NEXT:    %b = relay.nn.silu %x : tensor<4x8xf32>
func.func @silu(%x: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  %s = relay.sigmoid %x : tensor<4x8xf32>
  %a = relay.multiply %x, %s : tensor<4x8xf32>
  %b = relay.multiply %s, %x : tensor<4x8xf32>
  func.return %a, %b : tensor<4x8xf32>, tensor<4x8xf32>
}

// -----

// GELU, erf form as PyTorch exports it: ((erf(x / 1.4142135) + 1) * x) * 0.5.
// CHECK-LABEL: func.func @gelu_erf
// CHECK-NEXT:    %y = relay.nn.gelu %x : tensor<4x8xf32>
// CHECK-NEXT:    func.return %y
func.func @gelu_erf(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %r2 = relay.constant dense<1.4142135> : tensor<f32>
  %one = relay.constant dense<1.0> : tensor<f32>
  %half = relay.constant dense<0.5> : tensor<f32>
  %0 = relay.divide %x, %r2 : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
  %1 = relay.erf %0 : tensor<4x8xf32>
  %2 = relay.add %1, %one : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
  %3 = relay.multiply %2, %x : tensor<4x8xf32>
  %y = relay.multiply %3, %half : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
  func.return %y : tensor<4x8xf32>
}

// -----

// GELU, tanh form: 0.5 * x * (1 + tanh(0.7978846 * (x + 0.044715 * x * x * x))).
// CHECK-LABEL: func.func @gelu_tanh
// CHECK-NEXT:    %y = relay.nn.gelu %x {approximate = "tanh"} : tensor<4x8xf32>
// CHECK-NEXT:    func.return %y
func.func @gelu_tanh(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %c = relay.constant dense<0.044715> : tensor<f32>
  %k = relay.constant dense<0.7978846> : tensor<f32>
  %one = relay.constant dense<1.0> : tensor<f32>
  %half = relay.constant dense<0.5> : tensor<f32>
  %0 = relay.multiply %x, %x : tensor<4x8xf32>
  %1 = relay.multiply %0, %x : tensor<4x8xf32>
  %2 = relay.multiply %1, %c : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
  %3 = relay.add %x, %2 : tensor<4x8xf32>
  %4 = relay.multiply %k, %3 : (tensor<f32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %5 = relay.tanh %4 : tensor<4x8xf32>
  %6 = relay.add %one, %5 : (tensor<f32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %7 = relay.multiply %half, %x : (tensor<f32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %y = relay.multiply %7, %6 : tensor<4x8xf32>
  func.return %y : tensor<4x8xf32>
}

// -----

// GELU, tanh form as GPT-2 writes it (NewGELUActivation): the cube as pow(x, 3.0).
// CHECK-LABEL: func.func @gelu_tanh_pow
// CHECK-NEXT:    %y = relay.nn.gelu %x {approximate = "tanh"} : tensor<4x8xf32>
// CHECK-NEXT:    func.return %y
func.func @gelu_tanh_pow(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %three = relay.constant dense<3.0> : tensor<f32>
  %c = relay.constant dense<0.044715> : tensor<f32>
  %k = relay.constant dense<0.7978846> : tensor<f32>
  %one = relay.constant dense<1.0> : tensor<f32>
  %half = relay.constant dense<0.5> : tensor<f32>
  %0 = relay.power %x, %three : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
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

// ReLU6 spelled with a relu: one clip.
// CHECK-LABEL: func.func @relu6
// CHECK-NEXT:    %a = relay.clip %x {a_min = 0.0, a_max = 6.0} : tensor<4x8xf32>
// CHECK-NEXT:    %b = relay.clip %x {a_min = 0.0, a_max = 6.0} : tensor<4x8xf32>
func.func @relu6(%x: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  %0 = relay.nn.relu %x : tensor<4x8xf32>
  %a = relay.clip %0 {a_min = 0.0, a_max = 6.0} : tensor<4x8xf32>
  %1 = relay.clip %x {a_min = -1.0, a_max = 6.0} : tensor<4x8xf32>
  %b = relay.nn.relu %1 : tensor<4x8xf32>
  func.return %a, %b : tensor<4x8xf32>, tensor<4x8xf32>
}

// -----

// A relu6 after a relu6, and two clips whose ranges overlap: one clip each; ranges that
// do not overlap stay two clips.
// CHECK-LABEL: func.func @clip_clip
// CHECK-NEXT:    %a = relay.clip %x {a_min = 0.0, a_max = 6.0} : tensor<4x8xf32>
// CHECK-NEXT:    %b = relay.clip %x {a_min = 0.0, a_max = 6.0} : tensor<4x8xf32>
// CHECK-NEXT:    %c = relay.clip %x {a_min = 1.0, a_max = 3.0} : tensor<4x8xf32>
// CHECK-NEXT:    %[[KEPT:.*]] = relay.clip %x {a_min = 0.0, a_max = 1.0} : tensor<4x8xf32>
// CHECK-NEXT:    %d = relay.clip %[[KEPT]] {a_min = 2.0, a_max = 3.0} : tensor<4x8xf32>
func.func @clip_clip(%x: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>) {
  %0 = relay.nn.relu %x : tensor<4x8xf32>
  %a = relay.clip %0 {a_min = 0.0, a_max = 6.0} : tensor<4x8xf32>
  %1 = relay.nn.relu %a : tensor<4x8xf32>
  %b = relay.clip %1 {a_min = 0.0, a_max = 6.0} : tensor<4x8xf32>
  %3 = relay.clip %x {a_min = -1.0, a_max = 3.0} : tensor<4x8xf32>
  %c = relay.clip %3 {a_min = 1.0, a_max = 6.0} : tensor<4x8xf32>
  %2 = relay.clip %x {a_min = 0.0, a_max = 1.0} : tensor<4x8xf32>
  %d = relay.clip %2 {a_min = 2.0, a_max = 3.0} : tensor<4x8xf32>
  func.return %a, %b, %c, %d : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>
}
