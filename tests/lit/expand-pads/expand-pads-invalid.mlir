// RUN: not accel-opt %s --split-input-file --target npu -p expand-pads 2>&1 | filecheck %s

// A reflection wider than its dimension is refused by the verifier, before the pass: one
// line, at the op.
// CHECK: expand-pads-invalid.mlir:8:3: error: 'relay.nn.pad' op property 'pad_width': reflect padding of dimension 1 (4, 0) must be smaller than its size 4
// CHECK-NOT: Traceback
func.func @invalid(%x: tensor<1x4xf32>) -> tensor<1x8xf32> {
  %y = relay.nn.pad %x {pad_width = [0, 0, 4, 0], pad_mode = "reflect"} : (tensor<1x4xf32>) -> tensor<1x8xf32>
  func.return %y : tensor<1x8xf32>
}
