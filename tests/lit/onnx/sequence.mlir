// ONNX sequences, optionals, Loop and Scan (compiler/frontend/onnx/ops_sequence.py): a
// sequence is an import-time list of relay values, so only tensors reach relay. x [2, 6]
// splits into two [2, 3] halves (strided slices), y goes in front, the last half is
// erased: SequenceAt 1 is the first half, SequenceLength a constant 2, ConcatFromSequence
// one concatenate (new_axis: reshapes to [1, 2, 3] first); the sequence as a graph output
// is one output per element, parts[0] and parts[1]; Optional(y) has an element, y.

// RUN: %python %S/Inputs/make_model.py sequences %t.seq.onnx
// RUN: accel-opt %t.seq.onnx | filecheck %s
// CHECK:      func.func @main(%x: tensor<2x6xf32> {accel.name = "x"}, %y: tensor<2x3xf32> {accel.name = "y"}) -> (tensor<2x3xf32> {accel.name = "second"}, tensor<i64> {accel.name = "count"}, tensor<2x6xf32> {accel.name = "joined"}, tensor<2x2x3xf32> {accel.name = "stacked"}, tensor<2x3xf32> {accel.name = "parts[0]"}, tensor<2x3xf32> {accel.name = "parts[1]"}, tensor<i1> {accel.name = "has_y"}, tensor<2x3xf32> {accel.name = "got_y"}) {
// CHECK-NEXT:   %second = relay.strided_slice %x {begin = [0], end = [3], axes = [1]} : (tensor<2x6xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:   %0 = relay.strided_slice %x {begin = [3], end = [6], axes = [1]} : (tensor<2x6xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:   %joined = relay.concatenate %y, %second {axis = 1} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x6xf32>
// CHECK-NEXT:   %1 = relay.reshape %y {newshape = [1, 2, 3]} : (tensor<2x3xf32>) -> tensor<1x2x3xf32>
// CHECK-NEXT:   %2 = relay.reshape %second {newshape = [1, 2, 3]} : (tensor<2x3xf32>) -> tensor<1x2x3xf32>
// CHECK-NEXT:   %stacked = relay.concatenate %1, %2 : (tensor<1x2x3xf32>, tensor<1x2x3xf32>) -> tensor<2x2x3xf32>
// CHECK-NEXT:   %3 = relay.constant dense<2> : tensor<i64>
// CHECK-NEXT:   %4 = relay.constant dense<true> : tensor<i1>
// CHECK-NEXT:   func.return %second, %3, %joined, %stacked, %y, %second, %4, %y

// A Loop of M = 3 (condition true) unrolls: iteration i adds i to the carried value (the
// body's Cast of the iteration number folds), inserts acc * 2 into a carried sequence and
// emits it as a scan output (stacked); the body's initializer two_f is one constant (%1)
// for every iteration; the sequence concatenates after the loop.
// RUN: %python %S/Inputs/make_model.py loop_unrolled %t.loop.onnx
// RUN: accel-opt %t.loop.onnx | filecheck %s --check-prefix=LOOP
// LOOP:      func.func @main(%x: tensor<2xf32> {accel.name = "x"}) -> (tensor<2xf32> {accel.name = "acc"}, tensor<6xf32> {accel.name = "joined"}, tensor<3x2xf32> {accel.name = "scan"}) {
// LOOP-NEXT:   %0 = relay.constant dense<0.000000e+00> : tensor<f32>
// LOOP-NEXT:   %acc_next = relay.add %x, %0
// LOOP-NEXT:   %1 = relay.constant dense<2.000000e+00> : tensor<f32>
// LOOP-NEXT:   %doubled = relay.multiply %x, %1
// LOOP-NEXT:   %2 = relay.constant dense<1.000000e+00> : tensor<f32>
// LOOP-NEXT:   %acc_next_1 = relay.add %acc_next, %2
// LOOP-NEXT:   %doubled_1 = relay.multiply %acc_next, %1
// LOOP-NEXT:   %3 = relay.constant dense<2.000000e+00> : tensor<f32>
// LOOP-NEXT:   %acc_next_2 = relay.add %acc_next_1, %3
// LOOP-NEXT:   %doubled_2 = relay.multiply %acc_next_1, %1
// LOOP-NEXT:   %4 = relay.reshape %doubled {newshape = [1, 2]}
// LOOP-NEXT:   %5 = relay.reshape %doubled_1 {newshape = [1, 2]}
// LOOP-NEXT:   %6 = relay.reshape %doubled_2 {newshape = [1, 2]}
// LOOP-NEXT:   %scan = relay.concatenate %4, %5, %6 : (tensor<1x2xf32>, tensor<1x2xf32>, tensor<1x2xf32>) -> tensor<3x2xf32>
// LOOP-NEXT:   %joined = relay.concatenate %doubled, %doubled_1, %doubled_2 : (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<6xf32>
// LOOP-NEXT:   func.return %acc_next_2, %joined, %scan

// Scan over x's axis 1 backwards (scan_input_directions = 1): x[:, 2] first; the partial
// sums stack along axis 1 in iteration order.
// RUN: %python %S/Inputs/make_model.py scan_unrolled %t.scan.onnx
// RUN: accel-opt %t.scan.onnx | filecheck %s --check-prefix=SCAN
// SCAN:      %0 = relay.strided_slice %x {begin = [2], end = [3], axes = [1]} : (tensor<2x3xf32>) -> tensor<2x1xf32>
// SCAN-NEXT: %1 = relay.reshape %0 {newshape = [2]}
// SCAN-NEXT: %s_next = relay.add %s0, %1
// SCAN-NEXT: %2 = relay.strided_slice %x {begin = [1], end = [2], axes = [1]}
// SCAN:      %4 = relay.strided_slice %x {begin = [0], end = [1], axes = [1]}
// SCAN:      %s_next_2 = relay.add %s_next_1, %5
// SCAN:      %partials = relay.concatenate %6, %7, %8 {axis = 1} : (tensor<2x1xf32>, tensor<2x1xf32>, tensor<2x1xf32>) -> tensor<2x3xf32>
// SCAN-NEXT: func.return %s_next_2, %partials

// Refusals, one line each: a position given at run time, a position out of range, a
// sequence graph input, a sequence where a tensor goes, a trip count beyond the unrolling
// limit, a condition computed at run time (the Loop's, the body's).
// RUN: %python %S/Inputs/make_model.py sequence_runtime_position %t.e1.onnx
// RUN: not accel-opt %t.e1.onnx 2>&1 | filecheck %s --check-prefix=E1
// E1: error: node 'at' (SequenceAt): the position input ('pos') must be a constant; it is a graph input: bind it with --bind-inputs pos=VALUE
// E1-NOT: {{.}}
// RUN: %python %S/Inputs/make_model.py sequence_bad_position %t.e2.onnx
// RUN: not accel-opt %t.e2.onnx 2>&1 | filecheck %s --check-prefix=E2
// E2: error: node 'at' (SequenceAt): position 3 is out of range [-2, 1] for a sequence of 2 tensors
// E2-NOT: {{.}}
// RUN: %python %S/Inputs/make_model.py sequence_input %t.e3.onnx
// RUN: not accel-opt %t.e3.onnx 2>&1 | filecheck %s --check-prefix=E3
// E3: error: graph input 's' is a sequence: it must be known at import time (bind it to a list of arrays or None: import_onnx_model(..., bind_inputs=...)); run-time sequences and optionals are not supported
// E3-NOT: {{.}}
// RUN: %python %S/Inputs/make_model.py sequence_to_add %t.e4.onnx
// RUN: not accel-opt %t.e4.onnx 2>&1 | filecheck %s --check-prefix=E4
// E4: error: node 'add' (Add): input 's' is a sequence; Add takes tensors
// E4-NOT: {{.}}
// RUN: %python %S/Inputs/make_model.py loop_too_long %t.e5.onnx
// RUN: not accel-opt %t.e5.onnx 2>&1 | filecheck %s --check-prefix=E5
// E5: error: node 'loop' (Loop): 5000 iterations: more than the 4096 unrolled at import (a static compiler unrolls Loop and Scan)
// E5-NOT: {{.}}
// RUN: %python %S/Inputs/make_model.py loop_runtime_cond %t.e6.onnx
// RUN: not accel-opt %t.e6.onnx 2>&1 | filecheck %s --check-prefix=E6
// E6: error: node 'loop' (Loop): the condition is computed at run time; only a Loop whose condition is known at import time (a constant, or computed from constants and the iteration number) is supported
// E6-NOT: {{.}}
// RUN: %python %S/Inputs/make_model.py loop_body_cond %t.e7.onnx
// RUN: not accel-opt %t.e7.onnx 2>&1 | filecheck %s --check-prefix=E7
// E7: error: node 'loop' (Loop): the body's condition ('cond_out') in iteration 0 is computed at run time; only a Loop whose condition is known at import time (a constant, or computed from constants and the iteration number) is supported
// E7-NOT: {{.}}
