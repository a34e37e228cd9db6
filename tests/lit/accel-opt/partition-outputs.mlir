// --report/--explain/--dot describe the partition, taken right after partitioning,
// also when the pipeline goes on to lower it (-p full).
// RUN: accel-opt %s --target npu -p full --explain --report %t.json --dot %t.dot > /dev/null 2> %t.explain
// RUN: filecheck %s --check-prefix=EXPLAIN < %t.explain
// RUN: filecheck %s --check-prefix=REPORT < %t.json
// RUN: filecheck %s --check-prefix=DOT < %t.dot
// RUN: not accel-opt %s -p lower --report %t.none.json 2>&1 | filecheck %s --check-prefix=NONE

// EXPLAIN:      relay.nn.conv2d {{ +}}{{.*}}partition-outputs.mlir:[[# @LINE + 15]]:3 {{ +}}npu (npu_0)
// EXPLAIN-NEXT: relay.erf {{ +}}{{.*}}partition-outputs.mlir:[[# @LINE + 15]]:3 {{ +}}host {{ +}}npu: op not supported
// EXPLAIN-NEXT: 1 of 2 ops offloaded, 1 on the host
// EXPLAIN-NEXT: 147456 of 147456 MACs offloaded (100.0 %)
// EXPLAIN-NOT: memref
// REPORT: "total": 2,
// REPORT-NEXT: "offloaded": 1,
// REPORT-NEXT: "host": 1
// REPORT:      "macs": {
// REPORT-NEXT:   "total": 147456,
// REPORT-NEXT:   "offloaded": 147456
// REPORT: "reason": "npu: op not supported"
// DOT: subgraph cluster_npu_0
// NONE: accel-opt: error: --report, --explain and --dot need a partitioning pipeline (e.g. -p byoc)
func.func @main(%x: tensor<1x16x8x8xf32>, %w: tensor<16x16x3x3xf32>) -> tensor<1x16x8x8xf32> {
  %0 = relay.nn.conv2d %x, %w {padding = [1, 1, 1, 1]} : (tensor<1x16x8x8xf32>, tensor<16x16x3x3xf32>) -> tensor<1x16x8x8xf32>
  %1 = relay.erf %0 : (tensor<1x16x8x8xf32>) -> tensor<1x16x8x8xf32>
  func.return %1 : tensor<1x16x8x8xf32>
}
