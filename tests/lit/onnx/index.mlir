// ONNX ScatterND, ScatterElements, GatherND and the classification losses
// (compiler/frontend/onnx/ops_index.py): torch's `x[idx] = v` is one relay.scatter_nd,
// scatter_add_ a relay.scatter_elements with reduction "add", a batched GatherND one
// relay.gather_nd; NegativeLogLikelihoodLoss with a constant ignore_index masks its
// labels (where), picks along the classes (relay.gather), weighs them (relay.take) and
// divides by the kept weights; SoftmaxCrossEntropyLoss does the same on the composed
// log-softmax, its second output.

// RUN: %python %S/Inputs/make_model.py index_ops %t.onnx
// RUN: accel-opt %t.onnx | filecheck %s
// CHECK:        %put = relay.scatter_nd %x, %rows, %v : (tensor<3x4xf32>, tensor<2x1xi64>, tensor<2x4xf32>) -> tensor<3x4xf32>
// CHECK-NEXT:   %acc = relay.scatter_elements %x, %cols, %u {axis = 1, reduction = "add"} : (tensor<3x4xf32>, tensor<3x2xi64>, tensor<3x2xf32>) -> tensor<3x4xf32>
// CHECK-NEXT:   %picked = relay.gather_nd %x, %pick {batch_dims = 1} : (tensor<3x4xf32>, tensor<3x2x1xi64>) -> tensor<3x2xf32>
// CHECK-NEXT:   %[[II:.*]] = relay.constant dense<-1> : tensor<i64>
// CHECK-NEXT:   %[[KEEP:.*]] = relay.not_equal %t, %[[II]]
// CHECK-NEXT:   %[[ZERO:.*]] = relay.constant dense<0> : tensor<i64>
// CHECK-NEXT:   %[[SAFE:.*]] = relay.where %[[KEEP]], %t, %[[ZERO]] : (tensor<2xi1>, tensor<2xi64>, tensor<i64>) -> tensor<2xi64>
// CHECK-NEXT:   %[[COL:.*]] = relay.reshape %[[SAFE]] {newshape = [2, 1]}
// CHECK-NEXT:   %[[PICK:.*]] = relay.gather %logp, %[[COL]] {axis = 1} : (tensor<2x5xf32>, tensor<2x1xi64>) -> tensor<2x1xf32>
// CHECK:        %[[W:.*]] = relay.take %w, %[[SAFE]] : (tensor<5xf32>, tensor<2xi64>) -> tensor<2xf32>
// CHECK:        %[[KEPT_W:.*]] = relay.where %[[KEEP]], %[[W]], %{{.*}} : (tensor<2xi1>, tensor<2xf32>, tensor<f32>) -> tensor<2xf32>
// CHECK:        %[[DEN:.*]] = relay.sum %[[KEPT_W]] {axis = [0]} : (tensor<2xf32>) -> tensor<f32>
// CHECK-NEXT:   %nll = relay.divide %{{.*}}, %[[DEN]] : tensor<f32>
// CHECK:        %logprob = relay.subtract
// CHECK-NEXT:   %[[COL2:.*]] = relay.reshape %t {newshape = [2, 1]}
// CHECK-NEXT:   relay.gather %logprob, %[[COL2]] {axis = 1}
// CHECK:        %sce = relay.sum %{{.*}} {axis = [0]} : (tensor<2xf32>) -> tensor<f32>
// CHECK-NEXT:   func.return %put, %acc, %picked, %nll, %sce, %logprob

// A reduction ScatterND does not define: one line naming the node.
// RUN: %python %S/Inputs/make_model.py index_ops_bad_reduction %t.bad.onnx
// RUN: not accel-opt %t.bad.onnx 2>&1 | filecheck %s --check-prefix=BAD
// BAD: accel-opt: {{.*}}bad.onnx: error: node 'bad_scatter' (ScatterND): reduction 'avg' is not supported (none, add, mul, max, min are)
// BAD-NOT: {{.}}

// Labels that do not have the scores' shape without the class axis.
// RUN: %python %S/Inputs/make_model.py index_ops_bad_labels %t.labels.onnx
// RUN: not accel-opt %t.labels.onnx 2>&1 | filecheck %s --check-prefix=LABELS
// LABELS: accel-opt: {{.*}}labels.onnx: error: node 'bad_loss' (SoftmaxCrossEntropyLoss): the labels' shape [3, 4] must be the scores' [3, 4, 2] without axis 1
// LABELS-NOT: {{.}}
