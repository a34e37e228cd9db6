// RUN: accel-opt %s -p byoc --target npu | filecheck %s
// RUN: accel-opt %s -p 'byoc{target=npu}' --explain 2>&1 >/dev/null | filecheck %s --check-prefix=EXPLAIN
// RUN: accel-opt %s -p byoc --target npu --report %t.json --dot %t.dot >/dev/null
// RUN: cat %t.json | filecheck %s --check-prefix=REPORT
// RUN: cat %t.dot | filecheck %s --check-prefix=DOT
// RUN: accel-opt %s -p 'byoc{target=npu min-ops=7}' | filecheck %s --check-prefix=MIN
// RUN: not accel-opt %s -p byoc 2>&1 | filecheck %s --check-prefix=NOTARGET
// RUN: not accel-opt %s -p relay-nothing --explain 2>&1 | filecheck %s --check-prefix=NOPASS
// RUN: not accel-opt %s --explain 2>&1 | filecheck %s --check-prefix=NOPART

// A small CNN: conv+bias+relu and a second conv+bias are npu composites in one region
// with the residual add; the sigmoid stays on the host, and so does the lone relu after
// it (not worth a round trip).
// CHECK-LABEL: func.func @main(%x: tensor<1x16x32x32xf32>) -> tensor<1x16x32x32xf32> {
// CHECK-NEXT:    %[[R:.*]] = func.call @npu_0(%x) : (tensor<1x16x32x32xf32>) -> tensor<1x16x32x32xf32>
// CHECK-NEXT:    %s = relay.erf %[[R]] {accel.target = "host", accel.reason = "npu: op not supported"}
// CHECK-NEXT:    %t = relay.nn.relu %s {accel.target = "host", accel.reason = "npu: not profitable: {{.*}}"}
// CHECK-NEXT:    func.return %t
// CHECK:       func.func private @npu_0(%x: tensor<1x16x32x32xf32>) -> tensor<1x16x32x32xf32> attributes {accel.target = "npu"} {
// CHECK-NEXT:    %w1 = relay.constant
// CHECK-NEXT:    %b1 = relay.constant
// CHECK-NEXT:    %w2 = relay.constant
// CHECK-NEXT:    %b2 = relay.constant
// CHECK-NEXT:    %{{.*}} = relay.composite "npu.conv2d_bias_relu" (%x, %w1, %b1)
// CHECK:         %{{.*}} = relay.composite "npu.conv2d_bias" (%{{.*}}, %w2, %b2)
// CHECK:         %[[S:.*]] = relay.add %{{.*}}, %x : tensor<1x16x32x32xf32>
// CHECK-NEXT:    func.return %[[S]]
// CHECK-NOT:   func.func

// EXPLAIN:      op location target reason
// EXPLAIN-NEXT: ---
// EXPLAIN-NEXT: npu.conv2d_bias_relu   {{.*}}pipeline.mlir:[[# @LINE + 38]]:3  npu (npu_0)
// EXPLAIN-NEXT: npu.conv2d_bias        {{.*}}pipeline.mlir:[[# @LINE + 40]]:3  npu (npu_0)
// EXPLAIN-NEXT: relay.add              {{.*}}pipeline.mlir:[[# @LINE + 41]]:3  npu (npu_0)
// EXPLAIN-NEXT: relay.erf          {{.*}}pipeline.mlir:[[# @LINE + 41]]:3  host         npu: op not supported
// EXPLAIN-NEXT: relay.nn.relu          {{.*}}pipeline.mlir:[[# @LINE + 41]]:3  host         npu: not profitable: {{.*}}
// EXPLAIN-NEXT: 6 of 8 ops offloaded, 2 on the host

// REPORT:      "ops": {
// REPORT-NEXT:   "total": 8,
// REPORT-NEXT:   "offloaded": 6,
// REPORT-NEXT:   "host": 2
// REPORT:      "name": "npu_0",
// REPORT-NEXT: "target": "npu",
// REPORT-NEXT: "ops": 6,
// REPORT:      "rejected": [
// REPORT-NEXT:   {
// REPORT-NEXT:     "op": "relay.erf",
// REPORT-NEXT:     "location": "{{.*}}pipeline.mlir:[[# @LINE + 27]]:3",
// REPORT-NEXT:     "reason": "npu: op not supported"

// DOT:     digraph partition {
// DOT-DAG: op3 [label="erf\n{{.*}}\nnpu: op not supported"];
// DOT-DAG: subgraph cluster_npu_0 {
// DOT-DAG: label="npu_0 (npu)"
// DOT-DAG: op0 [label="npu.conv2d_bias_relu\n{{.*}}"
// DOT-DAG: in_main_0 -> op0;
// DOT-DAG: op2 -> op3;
// DOT-DAG: op4 -> out_main_0;

// MIN: relay.composite "npu.conv2d_bias_relu" {{.*}} {accel.target = "host", accel.reason = "npu: region of 6 ops is below min-ops=7"}
// NOTARGET: accel-opt: error: byoc needs a target (e.g. byoc{target=npu} or --target npu)
// NOPASS: accel-opt: error: unknown pass
// NOPART: accel-opt: error: --report, --explain and --dot need a partitioning pipeline (e.g. -p byoc)
func.func @main(%x: tensor<1x16x32x32xf32>) -> tensor<1x16x32x32xf32> {
  %w1 = relay.constant dense<0.05> : tensor<16x16x3x3xf32>
  %b1 = relay.constant dense<0.1> : tensor<16xf32>
  %w2 = relay.constant dense<0.02> : tensor<16x16x3x3xf32>
  %b2 = relay.constant dense<0.1> : tensor<16xf32>
  %0 = relay.nn.conv2d %x, %w1 {padding = [1, 1, 1, 1]} : (tensor<1x16x32x32xf32>, tensor<16x16x3x3xf32>) -> tensor<1x16x32x32xf32>
  %1 = relay.nn.bias_add %0, %b1 : (tensor<1x16x32x32xf32>, tensor<16xf32>) -> tensor<1x16x32x32xf32>
  %2 = relay.nn.relu %1 : tensor<1x16x32x32xf32>
  %3 = relay.nn.conv2d %2, %w2 {padding = [1, 1, 1, 1]} : (tensor<1x16x32x32xf32>, tensor<16x16x3x3xf32>) -> tensor<1x16x32x32xf32>
  %4 = relay.nn.bias_add %3, %b2 : (tensor<1x16x32x32xf32>, tensor<16xf32>) -> tensor<1x16x32x32xf32>
  %5 = relay.add %4, %x : tensor<1x16x32x32xf32>
  %s = relay.erf %5 : tensor<1x16x32x32xf32>
  %t = relay.nn.relu %s : tensor<1x16x32x32xf32>
  func.return %t : tensor<1x16x32x32xf32>
}
