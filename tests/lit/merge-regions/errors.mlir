// The cost model needs the description of every annotated target: an unknown one is a
// located error (a user's file is found by name once loaded, or given as targets=path).
// RUN: not accel-opt %s -p merge-regions 2>&1 | filecheck %s
// RUN: accel-opt %s -p 'merge-regions{cost-model=false}' | filecheck %s --check-prefix=NOCOST

// CHECK: errors.mlir:[[# @LINE + 4]]:3: error: accel.target "tpu": unknown target 'tpu'
// CHECK-NOT: Traceback
// NOCOST: relay.nn.relu %x {accel.target = "tpu", accel.region = 0 : i64}
func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = relay.nn.relu %x {accel.target = "tpu"} : tensor<4xf32>
  func.return %0 : tensor<4xf32>
}
