// RUN: accel-opt %s --split-input-file -p 'merge-regions' | filecheck %s
// RUN: accel-opt %s --split-input-file -p 'merge-regions{min-ops=3 cost-model=false}' | filecheck %s --check-prefix=MIN

// A lone relu between host ops stays on the host: copying 64 KiB in and out costs more
// than the host's own relu. The conv region next to it pays off and stays.
// CHECK-LABEL: func.func @lone_relu
// CHECK:       %c = relay.nn.conv2d %x, %w {padding = [1, 1, 1, 1], accel.target = "npu", accel.region = 0 : i64}
// CHECK-NEXT:  %s = relay.sigmoid %c {accel.target = "host"}
// CHECK-NEXT:  %r = relay.nn.relu %s {accel.target = "host", accel.reason = "npu: not profitable: {{[0-9]+}} cycles on npu (DMA {{[0-9]+}}) vs {{[0-9]+}} on the host"}
// CHECK-NEXT:  %t = relay.sigmoid %r {accel.target = "host"}
// MIN-LABEL: func.func @lone_relu
// MIN:       relay.nn.conv2d {{.*}} {padding = [1, 1, 1, 1], accel.target = "host", accel.reason = "npu: region of 1 op is below min-ops=3"}
// MIN:       relay.nn.relu {{.*}} {accel.target = "host", accel.reason = "npu: region of 1 op is below min-ops=3"}
func.func @lone_relu(%x: tensor<1x16x32x32xf32>) -> tensor<1x16x32x32xf32> {
  %w = relay.constant dense<0.5> : tensor<16x16x3x3xf32>
  %c = relay.nn.conv2d %x, %w {padding = [1, 1, 1, 1], accel.target = "npu"} : (tensor<1x16x32x32xf32>, tensor<16x16x3x3xf32>) -> tensor<1x16x32x32xf32>
  %s = relay.sigmoid %c {accel.target = "host"} : tensor<1x16x32x32xf32>
  %r = relay.nn.relu %s {accel.target = "npu"} : tensor<1x16x32x32xf32>
  %t = relay.sigmoid %r {accel.target = "host"} : tensor<1x16x32x32xf32>
  func.return %t : tensor<1x16x32x32xf32>
}

// -----

// A user's accel.manual region is never dropped, however small or unprofitable.
// CHECK-LABEL: func.func @manual
// CHECK:       relay.nn.relu %s {accel.target = "npu", accel.manual, accel.region = 0 : i64}
// MIN-LABEL: func.func @manual
// MIN:       relay.nn.relu %s {accel.target = "npu", accel.manual, accel.region = 0 : i64}
func.func @manual(%x: tensor<1x16x32x32xf32>) -> tensor<1x16x32x32xf32> {
  %s = relay.sigmoid %x {accel.target = "host"} : tensor<1x16x32x32xf32>
  %r = relay.nn.relu %s {accel.target = "npu", accel.manual} : tensor<1x16x32x32xf32>
  %t = relay.sigmoid %r {accel.target = "host"} : tensor<1x16x32x32xf32>
  func.return %t : tensor<1x16x32x32xf32>
}

// -----

// A composite counts the ops of its body for min-ops (conv2d + bias_add + relu = 3).
// MIN-LABEL: func.func @composite_counts
// MIN:       relay.composite "npu.conv2d_bias_relu" (%x, %w, %b) {accel.target = "npu", accel.region = 0 : i64}
func.func @composite_counts(%x: tensor<1x16x32x32xf32>) -> tensor<1x16x32x32xf32> {
  %w = relay.constant dense<0.5> : tensor<16x16x3x3xf32>
  %b = relay.constant dense<0.5> : tensor<16xf32>
  %0 = relay.composite "npu.conv2d_bias_relu" (%x, %w, %b) {accel.target = "npu"} : (tensor<1x16x32x32xf32>, tensor<16x16x3x3xf32>, tensor<16xf32>) -> tensor<1x16x32x32xf32> {
  ^bb0(%a: tensor<1x16x32x32xf32>, %k: tensor<16x16x3x3xf32>, %c: tensor<16xf32>):
    %1 = relay.nn.conv2d %a, %k {padding = [1, 1, 1, 1]} : (tensor<1x16x32x32xf32>, tensor<16x16x3x3xf32>) -> tensor<1x16x32x32xf32>
    %2 = relay.nn.bias_add %1, %c : (tensor<1x16x32x32xf32>, tensor<16xf32>) -> tensor<1x16x32x32xf32>
    %3 = relay.nn.relu %2 : tensor<1x16x32x32xf32>
    relay.yield %3 : tensor<1x16x32x32xf32>
  }
  func.return %0 : tensor<1x16x32x32xf32>
}
