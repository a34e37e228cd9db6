// LSTM unrolls at import over its static sequence length: one dense of every step's input
// (W kept as the model file's tensor, Wb + Rb folded into one bias_add), then per step a
// dense of the state with the constant R, the gate slices (i, f, c, then o) through sigmoid /
// tanh, and the cell update; a missing initial_c is zero, so the first step has no f * c.

// RUN: %python %S/Inputs/make_model.py lstm %t.lstm.onnx
// RUN: accel-opt %t.lstm.onnx | filecheck %s
// CHECK:      func.func @main(%x: tensor<2x1x3xf32> {accel.name = "x"}, %h0: tensor<1x1x2xf32> {accel.name = "h0"}) -> (tensor<2x1x1x2xf32> {accel.name = "y"}, tensor<1x1x2xf32> {accel.name = "y_h"}) {
// CHECK-NEXT:   %0 = relay.reshape %x {newshape = [2, 3]} : (tensor<2x1x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:   %w = relay.constant external "w" : tensor<8x3xf32>
// CHECK-NEXT:   %1 = relay.nn.dense %0, %w : (tensor<2x3xf32>, tensor<8x3xf32>) -> tensor<2x8xf32>
// CHECK-NEXT:   %2 = relay.constant dense<{{.*}}> : tensor<8xf32>
// CHECK-NEXT:   %3 = relay.nn.bias_add %1, %2 : (tensor<2x8xf32>, tensor<8xf32>) -> tensor<2x8xf32>
// CHECK-NEXT:   %4 = relay.strided_slice %3 {begin = [0], end = [1], axes = [0]} : (tensor<2x8xf32>) -> tensor<1x8xf32>
// CHECK-NEXT:   %5 = relay.strided_slice %3 {begin = [1], end = [2], axes = [0]} : (tensor<2x8xf32>) -> tensor<1x8xf32>
// CHECK-NEXT:   %r = relay.constant dense<{{.*}}> : tensor<8x2xf32>
// CHECK-NEXT:   %6 = relay.reshape %h0 {newshape = [1, 2]} : (tensor<1x1x2xf32>) -> tensor<1x2xf32>
// CHECK-NEXT:   %7 = relay.nn.dense %6, %r : (tensor<1x2xf32>, tensor<8x2xf32>) -> tensor<1x8xf32>
// CHECK-NEXT:   %8 = relay.add %4, %7 : tensor<1x8xf32>
// CHECK-NEXT:   %9 = relay.strided_slice %8 {begin = [0], end = [2], axes = [1]} : (tensor<1x8xf32>) -> tensor<1x2xf32>
// CHECK-NEXT:   %10 = relay.sigmoid %9 : tensor<1x2xf32>
// CHECK-NEXT:   %11 = relay.strided_slice %8 {begin = [4], end = [6], axes = [1]} : (tensor<1x8xf32>) -> tensor<1x2xf32>
// CHECK-NEXT:   %12 = relay.sigmoid %11 : tensor<1x2xf32>
// CHECK-NEXT:   %13 = relay.strided_slice %8 {begin = [6], end = [8], axes = [1]} : (tensor<1x8xf32>) -> tensor<1x2xf32>
// CHECK-NEXT:   %14 = relay.tanh %13 : tensor<1x2xf32>
// CHECK-NEXT:   %15 = relay.multiply %10, %14 : tensor<1x2xf32>
// CHECK-NEXT:   %16 = relay.strided_slice %8 {begin = [2], end = [4], axes = [1]} : (tensor<1x8xf32>) -> tensor<1x2xf32>
// CHECK-NEXT:   %17 = relay.sigmoid %16 : tensor<1x2xf32>
// CHECK-NEXT:   %18 = relay.tanh %15 : tensor<1x2xf32>
// CHECK-NEXT:   %19 = relay.multiply %17, %18 : tensor<1x2xf32>
// CHECK-NEXT:   %20 = relay.nn.dense %19, %r : (tensor<1x2xf32>, tensor<8x2xf32>) -> tensor<1x8xf32>
// CHECK-NEXT:   %21 = relay.add %5, %20 : tensor<1x8xf32>
// CHECK:        %28 = relay.multiply %25, %15 : tensor<1x2xf32>
// CHECK-NEXT:   %29 = relay.multiply %23, %27 : tensor<1x2xf32>
// CHECK-NEXT:   %30 = relay.add %28, %29 : tensor<1x2xf32>
// CHECK:        %33 = relay.tanh %30 : tensor<1x2xf32>
// CHECK-NEXT:   %34 = relay.multiply %32, %33 : tensor<1x2xf32>
// CHECK-NEXT:   %35 = relay.reshape %19 {newshape = [1, 1, 1, 2]} : (tensor<1x2xf32>) -> tensor<1x1x1x2xf32>
// CHECK-NEXT:   %36 = relay.reshape %34 {newshape = [1, 1, 1, 2]} : (tensor<1x2xf32>) -> tensor<1x1x1x2xf32>
// CHECK-NEXT:   %y = relay.concatenate %35, %36 : (tensor<1x1x1x2xf32>, tensor<1x1x1x2xf32>) -> tensor<2x1x1x2xf32>
// CHECK-NEXT:   %y_h = relay.reshape %34 {newshape = [1, 1, 2]} : (tensor<1x2xf32>) -> tensor<1x1x2xf32>
// CHECK-NEXT:   func.return %y, %y_h : tensor<2x1x1x2xf32>, tensor<1x1x2xf32>

// Bidirectional: the reverse direction shares X's reshape, starts from the last step with
// its own initial state, and the directions concatenate on axis 1 (Y) and 0 (Y_h).
// RUN: %python %S/Inputs/make_model.py lstm_bidirectional %t.bi.onnx
// RUN: accel-opt %t.bi.onnx | filecheck %s --check-prefix=BI
// BI:      %0 = relay.reshape %x {newshape = [2, 3]} : (tensor<2x1x3xf32>) -> tensor<2x3xf32>
// BI-NOT:  relay.reshape %x
// BI:      relay.nn.dense %0,
// BI-NOT:  relay.reshape %x
// BI:      %[[REV:[0-9]+]] = relay.nn.dense %0, %{{[0-9]+}} : (tensor<2x3xf32>, tensor<8x3xf32>) -> tensor<2x8xf32>
// BI:      %[[BIAS:[0-9]+]] = relay.nn.bias_add %[[REV]],
// BI-NEXT: relay.strided_slice %[[BIAS]] {begin = [0], end = [1], axes = [0]}
// BI-NEXT: %[[LAST:[0-9]+]] = relay.strided_slice %[[BIAS]] {begin = [1], end = [2], axes = [0]}
// BI-NEXT: %[[R:[0-9]+]] = relay.constant
// BI-NEXT: %[[H:[0-9]+]] = relay.strided_slice %h0 {begin = [1], end = [2], axes = [0]} : (tensor<2x1x2xf32>) -> tensor<1x1x2xf32>
// BI-NEXT: %[[H2:[0-9]+]] = relay.reshape %[[H]] {newshape = [1, 2]}
// BI-NEXT: %[[HR:[0-9]+]] = relay.nn.dense %[[H2]], %[[R]]
// BI-NEXT: relay.add %[[LAST]], %[[HR]] : tensor<1x8xf32>
// BI:      %y = relay.concatenate %{{[0-9]+}}, %{{[0-9]+}} {axis = 1} : (tensor<2x1x1x2xf32>, tensor<2x1x1x2xf32>) -> tensor<2x2x1x2xf32>
// BI:      %y_h = relay.concatenate %{{[0-9]+}}, %{{[0-9]+}} : (tensor<1x1x2xf32>, tensor<1x1x2xf32>) -> tensor<2x1x2xf32>

// What does not unroll is one line naming the node.
// RUN: %python %S/Inputs/make_model.py lstm_relu %t.relu.onnx
// RUN: not accel-opt %t.relu.onnx 2>&1 | filecheck %s --check-prefix=ACT
// ACT: accel-opt: {{.*}}relu.onnx: error: node 'lstm_1' (LSTM): activations ['Relu', 'Tanh', 'Tanh'] are not supported (only the default ['Sigmoid', 'Tanh', 'Tanh'])
// ACT-NOT: {{.}}
// RUN: %python %S/Inputs/make_model.py lstm_sequence_lens %t.lens.onnx
// RUN: not accel-opt %t.lens.onnx 2>&1 | filecheck %s --check-prefix=LENS
// LENS: accel-opt: {{.*}}lens.onnx: error: node 'lstm_1' (LSTM): sequence_lens [1] is not supported (only every batch entry at the full length 2)
// LENS-NOT: {{.}}

// If whose condition folds at import (a shape test) is the taken branch, inlined: its
// nodes see the outer x and its own initializer; the other branch (an unsupported Det) is
// never imported.
// RUN: %python %S/Inputs/make_model.py if_const %t.if.onnx
// RUN: accel-opt %t.if.onnx | filecheck %s --check-prefix=IF
// IF:      func.func @main(%x: tensor<2x3xf32> {accel.name = "x"}) -> (tensor<2x3xf32> {accel.name = "y"}) {
// IF-NEXT:   %0 = relay.constant dense<1.000000e+00> : tensor<2x3xf32>
// IF-NEXT:   %t = relay.add %x, %0 : tensor<2x3xf32>
// IF-NEXT:   func.return %t : tensor<2x3xf32>

// A condition that is a graph input: bound, the branch it picks is imported; unbound, the
// error says how to bind it. A condition computed at run time is one line.
// RUN: %python %S/Inputs/make_model.py if_runtime %t.ifr.onnx
// RUN: accel-opt %t.ifr.onnx --bind-inputs c_in=1 | filecheck %s --check-prefix=IF
// RUN: not accel-opt %t.ifr.onnx --bind-inputs c_in=0 2>&1 | filecheck %s --check-prefix=ELSE
// ELSE: accel-opt: {{.*}}ifr.onnx: error: node 'else_norm' (StringNormalizer): op StringNormalizer (opset 17) is not supported
// ELSE-NOT: {{.}}
// RUN: not accel-opt %t.ifr.onnx 2>&1 | filecheck %s --check-prefix=UNBOUND
// UNBOUND: accel-opt: {{.*}}ifr.onnx: error: node 'if_1' (If): the condition ('c_in') must be a constant; it is a graph input: bind it with --bind-inputs c_in=VALUE
// UNBOUND-NOT: {{.}}
// RUN: %python %S/Inputs/make_model.py if_computed %t.ifc.onnx
// RUN: not accel-opt %t.ifc.onnx 2>&1 | filecheck %s --check-prefix=RUNTIME
// RUNTIME: accel-opt: {{.*}}ifc.onnx: error: node 'if_1' (If): the condition ('positive') is computed at run time; only an If whose condition is known at import time is supported
// RUNTIME-NOT: {{.}}

// GRU, linear_before_reset = 1: Rb_h stays with the recurrent dense (a bias_add of
// [0, 0, Rb_h]), r scales that product, and h' = h~ + z (h - h~). Y is not asked for, so
// no concatenate is built.
// RUN: %python %S/Inputs/make_model.py gru %t.gru.onnx
// RUN: accel-opt %t.gru.onnx | filecheck %s --check-prefix=GRU
// GRU:      %w = relay.constant external "w" : tensor<6x3xf32>
// GRU-NEXT: %1 = relay.nn.dense %0, %w : (tensor<2x3xf32>, tensor<6x3xf32>) -> tensor<2x6xf32>
// GRU:      %6 = relay.constant dense<[0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, {{.*}}]> : tensor<6xf32>
// GRU-NEXT: %7 = relay.reshape %h0 {newshape = [1, 2]} : (tensor<1x1x2xf32>) -> tensor<1x2xf32>
// GRU-NEXT: %8 = relay.strided_slice %4 {begin = [4], end = [6], axes = [1]} : (tensor<1x6xf32>) -> tensor<1x2xf32>
// GRU-NEXT: %9 = relay.nn.dense %7, %r : (tensor<1x2xf32>, tensor<6x2xf32>) -> tensor<1x6xf32>
// GRU-NEXT: %10 = relay.nn.bias_add %9, %6 : (tensor<1x6xf32>, tensor<6xf32>) -> tensor<1x6xf32>
// GRU-NEXT: %11 = relay.add %4, %10 : tensor<1x6xf32>
// GRU-NEXT: %12 = relay.strided_slice %11 {begin = [0], end = [2], axes = [1]} : (tensor<1x6xf32>) -> tensor<1x2xf32>
// GRU-NEXT: %13 = relay.sigmoid %12 : tensor<1x2xf32>
// GRU-NEXT: %14 = relay.strided_slice %11 {begin = [2], end = [4], axes = [1]} : (tensor<1x6xf32>) -> tensor<1x2xf32>
// GRU-NEXT: %15 = relay.sigmoid %14 : tensor<1x2xf32>
// GRU-NEXT: %16 = relay.strided_slice %10 {begin = [4], end = [6], axes = [1]} : (tensor<1x6xf32>) -> tensor<1x2xf32>
// GRU-NEXT: %17 = relay.multiply %15, %16 : tensor<1x2xf32>
// GRU-NEXT: %18 = relay.add %8, %17 : tensor<1x2xf32>
// GRU-NEXT: %19 = relay.tanh %18 : tensor<1x2xf32>
// GRU-NEXT: %20 = relay.subtract %7, %19 : tensor<1x2xf32>
// GRU-NEXT: %21 = relay.multiply %13, %20 : tensor<1x2xf32>
// GRU-NEXT: %22 = relay.add %19, %21 : tensor<1x2xf32>
// GRU-NOT:  relay.concatenate
// GRU:      func.return %y_h : tensor<1x1x2xf32>
// RUN: %python %S/Inputs/make_model.py gru_activations %t.gruact.onnx
// RUN: not accel-opt %t.gruact.onnx 2>&1 | filecheck %s --check-prefix=GRUACT
// GRUACT: accel-opt: {{.*}}gruact.onnx: error: node 'gru_1' (GRU): activations ['Sigmoid', 'Relu'] are not supported (only the default ['Sigmoid', 'Tanh'])
// GRUACT-NOT: {{.}}

// RNN (the Elman RNN): LSTM's unrolling with one gate, h' = f(x Wᵀ + h Rᵀ + Wb + Rb), f as
// `activations` names it (LeakyRelu, its alpha from activation_alpha); initial_h is the
// first step's state; Y concatenates the steps.
// RUN: %python %S/Inputs/make_model.py rnn %t.rnn.onnx
// RUN: accel-opt %t.rnn.onnx | filecheck %s --check-prefix=RNN
// RNN:      %0 = relay.reshape %x {newshape = [2, 3]} : (tensor<2x1x3xf32>) -> tensor<2x3xf32>
// RNN:      %1 = relay.nn.dense %0, %w : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x2xf32>
// RNN:      %3 = relay.nn.bias_add %1, %2 : (tensor<2x2xf32>, tensor<2xf32>) -> tensor<2x2xf32>
// RNN-NEXT: %4 = relay.strided_slice %3 {begin = [0], end = [1], axes = [0]} : (tensor<2x2xf32>) -> tensor<1x2xf32>
// RNN-NEXT: %5 = relay.strided_slice %3 {begin = [1], end = [2], axes = [0]} : (tensor<2x2xf32>) -> tensor<1x2xf32>
// RNN:      %6 = relay.reshape %h0 {newshape = [1, 2]} : (tensor<1x1x2xf32>) -> tensor<1x2xf32>
// RNN-NEXT: %7 = relay.nn.dense %6, %r : (tensor<1x2xf32>, tensor<2x2xf32>) -> tensor<1x2xf32>
// RNN-NEXT: %8 = relay.add %4, %7 : tensor<1x2xf32>
// RNN-NEXT: %9 = relay.nn.leaky_relu %8 {alpha = 0.10000000149011612} : tensor<1x2xf32>
// RNN-NEXT: %10 = relay.nn.dense %9, %r : (tensor<1x2xf32>, tensor<2x2xf32>) -> tensor<1x2xf32>
// RNN-NEXT: %11 = relay.add %5, %10 : tensor<1x2xf32>
// RNN-NEXT: %12 = relay.nn.leaky_relu %11 {alpha = 0.10000000149011612} : tensor<1x2xf32>
// RNN:      %y = relay.concatenate %13, %14 : (tensor<1x1x1x2xf32>, tensor<1x1x1x2xf32>) -> tensor<2x1x1x2xf32>
// RNN-NEXT: %y_h = relay.reshape %12 {newshape = [1, 1, 2]} : (tensor<1x2xf32>) -> tensor<1x1x2xf32>
// RUN: %python %S/Inputs/make_model.py rnn_bad_activation %t.rnnbad.onnx
// RUN: not accel-opt %t.rnnbad.onnx 2>&1 | filecheck %s --check-prefix=RNNBAD
// RNNBAD: accel-opt: {{.*}}rnnbad.onnx: error: node 'rnn_1' (RNN): activation 'Gelu' is not one of Relu, Tanh, Sigmoid, Affine, LeakyRelu, ThresholdedRelu, ScaledTanh, HardSigmoid, Elu, Softsign, Softplus
// RNNBAD-NOT: {{.}}
