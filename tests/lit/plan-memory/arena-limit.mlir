// RUN: not accel-opt %s -p bufferize,plan-memory 2>&1 | filecheck %s

// Two such intermediates live at once: each buffer is allowed, their arena (2 TiB) is not.
// CHECK: error: plan-memory: the host arena needs 2199023255552 bytes, more than the 1099511627776 bytes (1 TiB) it may have
// CHECK-NOT: Traceback
func.func @main(%x: tensor<262144x1048576xf32>) -> tensor<262144x1048576xf32> {
  %a = relay.nn.relu %x : tensor<262144x1048576xf32>
  %b = relay.nn.relu %a : tensor<262144x1048576xf32>
  %c = relay.add %a, %b : (tensor<262144x1048576xf32>, tensor<262144x1048576xf32>) -> tensor<262144x1048576xf32>
  func.return %c : tensor<262144x1048576xf32>
}
