// A storage-only narrow type (float8, float4, f8E8M0FNU, i4, i2) reaching an op that
// computes is one located line.
// RUN: not accel-opt %s --split-input-file -p widen-host-floats 2>&1 | filecheck %s

func.func @main(%x: tensor<4xf8E5M2>) -> tensor<4xf8E5M2> {
  // CHECK: widen-invalid.mlir:[[# @LINE + 1]]:3: error: 'relay.nn.relu' on f8E5M2 values is not supported: that type is storage only (cast it to a float type first)
  %y = relay.nn.relu %x : tensor<4xf8E5M2>
  func.return %y : tensor<4xf8E5M2>
}

// -----

func.func @main(%x: tensor<4xi4>, %y: tensor<4xi4>) -> tensor<4xi4> {
  // CHECK: widen-invalid.mlir:[[# @LINE + 1]]:3: error: 'relay.add' on i4 values is not supported: that type is storage only (cast it to a float type first)
  %z = relay.add %x, %y : tensor<4xi4>
  func.return %z : tensor<4xi4>
}
