// report.json's macs and --explain's share: a 3x3 conv on the npu (1*8*8*8 * 8*3*3 = 36864
// MACs), a 9x9 conv the npu does not take (1*8*8*8 * 8*9*9 = 331776: its weight is no
// constant, so split-tall-kernels cannot cut it into kernel tiles) and a relu (no MACs).
// RUN: accel-opt %s -p byoc --target npu --explain --report %t.json 2>&1 >/dev/null | filecheck %s --check-prefix=EXPLAIN
// RUN: filecheck %s --check-prefix=REPORT < %t.json

// EXPLAIN:      1 of 3 ops offloaded, 2 on the host
// EXPLAIN-NEXT: 36864 of 368640 MACs offloaded (10.0 %)
// REPORT:      "macs": {
// REPORT-NEXT:   "total": 368640,
// REPORT-NEXT:   "offloaded": 36864
func.func @main(%x: tensor<1x8x8x8xf32>, %w9: tensor<8x8x9x9xf32>) -> tensor<1x8x8x8xf32> {
  %w = relay.constant dense<0.01> : tensor<8x8x3x3xf32>
  %0 = relay.nn.conv2d %x, %w {padding = [1, 1, 1, 1]} : (tensor<1x8x8x8xf32>, tensor<8x8x3x3xf32>) -> tensor<1x8x8x8xf32>
  %1 = relay.nn.conv2d %0, %w9 {padding = [4, 4, 4, 4]} : (tensor<1x8x8x8xf32>, tensor<8x8x9x9xf32>) -> tensor<1x8x8x8xf32>
  %2 = relay.nn.relu %1 : tensor<1x8x8x8xf32>
  func.return %2 : tensor<1x8x8x8xf32>
}
