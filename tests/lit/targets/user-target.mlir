// A user's description by path, with a predicate module next to it (user_checks.py):
// the predicate's reason is kept like any other, and it also guards the pattern.
// RUN: accel-opt %s -p 'merge-composite,annotate-target,merge-regions{cost-model=false},outline-regions' --target %S/Inputs/user.toml | filecheck %s

// CHECK-LABEL: func.func @main
// CHECK:         %[[S:.*]] = func.call @acc_0(%x, %y)
// CHECK:         relay.nn.relu %big {accel.target = "host", accel.reason = "acc: 100 elements exceed 64"}
// CHECK:       func.func private @acc_0({{.*}} attributes {accel.target = "acc"}
// CHECK-NEXT:    relay.composite "acc.add_relu"
func.func @main(%x: tensor<8xf32>, %y: tensor<8xf32>, %big: tensor<100xf32>) -> (tensor<8xf32>, tensor<100xf32>) {
  %0 = relay.add %x, %y : tensor<8xf32>
  %1 = relay.nn.relu %0 : tensor<8xf32>
  %2 = relay.nn.relu %big : tensor<100xf32>
  func.return %1, %2 : tensor<8xf32>, tensor<100xf32>
}
