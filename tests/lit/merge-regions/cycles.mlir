// RUN: accel-opt %s --split-input-file -p 'merge-regions{cost-model=false}' | filecheck %s

// The diamond that must not merge: %a and %d are npu ops, but %d also depends on %a
// through the host op %h. One region {%a, %d} would send %a out to the host and take
// %h back in: a cycle. %d starts a region of its own.
// CHECK-LABEL: func.func @diamond
// CHECK:       %a = relay.nn.relu %x {accel.target = "npu", accel.region = 0 : i64}
// CHECK-NEXT:  %h = relay.sigmoid %a {accel.target = "host"}
// CHECK-NEXT:  %d = relay.add %a, %h {accel.target = "npu", accel.region = 1 : i64}
func.func @diamond(%x: tensor<4xf32>) -> tensor<4xf32> {
  %a = relay.nn.relu %x {accel.target = "npu"} : tensor<4xf32>
  %h = relay.sigmoid %a {accel.target = "host"} : tensor<4xf32>
  %d = relay.add %a, %h {accel.target = "npu"} : tensor<4xf32>
  func.return %d : tensor<4xf32>
}

// -----

// Without the host op in between the same shape merges into one region.
// CHECK-LABEL: func.func @diamond_all_npu
// CHECK-COUNT-4: accel.region = 0 : i64
// CHECK-NOT:     accel.region
func.func @diamond_all_npu(%x: tensor<4xf32>) -> tensor<4xf32> {
  %a = relay.nn.relu %x {accel.target = "npu"} : tensor<4xf32>
  %b = relay.nn.relu %a {accel.target = "npu"} : tensor<4xf32>
  %c = relay.clip %a {a_min = 0.0, a_max = 6.0, accel.target = "npu"} : tensor<4xf32>
  %d = relay.add %b, %c {accel.target = "npu"} : tensor<4xf32>
  func.return %d : tensor<4xf32>
}

// -----

// Two independent npu branches joined by an npu op become one region; a host op that
// only consumes a result does not split it.
// CHECK-LABEL: func.func @branches
// CHECK:       %a = relay.nn.relu %x {accel.target = "npu", accel.region = 0 : i64}
// CHECK-NEXT:  %b = relay.nn.relu %y {accel.target = "npu", accel.region = 0 : i64}
// CHECK-NEXT:  %c = relay.add %a, %b {accel.target = "npu", accel.region = 0 : i64}
// CHECK-NEXT:  %s = relay.sigmoid %a {accel.target = "host"}
func.func @branches(%x: tensor<4xf32>, %y: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %a = relay.nn.relu %x {accel.target = "npu"} : tensor<4xf32>
  %b = relay.nn.relu %y {accel.target = "npu"} : tensor<4xf32>
  %c = relay.add %a, %b {accel.target = "npu"} : tensor<4xf32>
  %s = relay.sigmoid %a {accel.target = "host"} : tensor<4xf32>
  func.return %c, %s : tensor<4xf32>, tensor<4xf32>
}

// -----

// The same graph visited in another order: when %c comes, %a's region already feeds the
// host op %s, and joining it would give that region a new dependency (%b's region), so
// %c joins %b only. This is the one conservative rule of the single pass (it keeps the
// dependency sets of ops visited earlier exact); the partition stays valid.
// CHECK-LABEL: func.func @branches_exposed
// CHECK:       %a = relay.nn.relu %x {accel.target = "npu", accel.region = 0 : i64}
// CHECK-NEXT:  %b = relay.nn.relu %y {accel.target = "npu", accel.region = 1 : i64}
// CHECK-NEXT:  %s = relay.sigmoid %a {accel.target = "host"}
// CHECK-NEXT:  %c = relay.add %a, %b {accel.target = "npu", accel.region = 1 : i64}
func.func @branches_exposed(%x: tensor<4xf32>, %y: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %a = relay.nn.relu %x {accel.target = "npu"} : tensor<4xf32>
  %b = relay.nn.relu %y {accel.target = "npu"} : tensor<4xf32>
  %s = relay.sigmoid %a {accel.target = "host"} : tensor<4xf32>
  %c = relay.add %a, %b {accel.target = "npu"} : tensor<4xf32>
  func.return %c, %s : tensor<4xf32>, tensor<4xf32>
}

// -----

// %j uses %r1 directly and through host %h and %r2. {r1, j} would leave through %h and
// come back through %r2, and {r1, r2, j} would contain the host op: %j can only join %r2.
// CHECK-LABEL: func.func @two_regions
// CHECK:       %r1 = relay.nn.relu %x {accel.target = "npu", accel.region = 0 : i64}
// CHECK-NEXT:  %h = relay.sigmoid %r1 {accel.target = "host"}
// CHECK-NEXT:  %r2 = relay.nn.relu %h {accel.target = "npu", accel.region = 1 : i64}
// CHECK-NEXT:  %j = relay.add %r1, %r2 {accel.target = "npu", accel.region = 1 : i64}
func.func @two_regions(%x: tensor<4xf32>) -> tensor<4xf32> {
  %r1 = relay.nn.relu %x {accel.target = "npu"} : tensor<4xf32>
  %h = relay.sigmoid %r1 {accel.target = "host"} : tensor<4xf32>
  %r2 = relay.nn.relu %h {accel.target = "npu"} : tensor<4xf32>
  %j = relay.add %r1, %r2 {accel.target = "npu"} : tensor<4xf32>
  func.return %j : tensor<4xf32>
}

// -----

// Different targets never share a region; regions are numbered in program order.
// CHECK-LABEL: func.func @targets
// CHECK:       %a = relay.nn.relu %x {accel.target = "npu", accel.region = 0 : i64}
// CHECK-NEXT:  %b = relay.nn.dense %a, %w {accel.target = "dsp", accel.region = 1 : i64}
// CHECK-NEXT:  %c = relay.nn.relu %b {accel.target = "npu", accel.region = 2 : i64}
func.func @targets(%x: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %w = relay.constant dense<0.5> : tensor<4x4xf32>
  %a = relay.nn.relu %x {accel.target = "npu"} : tensor<4x4xf32>
  %b = relay.nn.dense %a, %w {accel.target = "dsp"} : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  %c = relay.nn.relu %b {accel.target = "npu"} : tensor<4x4xf32>
  func.return %c : tensor<4x4xf32>
}

// -----

// Regions that are each convex can still need each other: with {%a, %d} one region,
// {%b, %c, %e} would feed it (%c -> %d) and be fed by it (%a -> %b), and the two calls
// would wait for each other. %e joins %b's region only.
// CHECK-LABEL: func.func @region_cycle
// CHECK:       %a = relay.nn.relu %x {accel.target = "npu", accel.region = 0 : i64}
// CHECK-NEXT:  %c = relay.nn.dense %y, %w {accel.target = "dsp", accel.region = 1 : i64}
// CHECK-NEXT:  %d = relay.add %a, %c {accel.target = "npu", accel.region = 0 : i64}
// CHECK-NEXT:  %b = relay.nn.dense %a, %w {accel.target = "dsp", accel.region = 2 : i64}
// CHECK-NEXT:  %e = relay.add %b, %c {accel.target = "dsp", accel.region = 2 : i64}
func.func @region_cycle(%x: tensor<4x4xf32>, %y: tensor<4x4xf32>) -> (tensor<4x4xf32>, tensor<4x4xf32>) {
  %w = relay.constant dense<0.5> : tensor<4x4xf32>
  %a = relay.nn.relu %x {accel.target = "npu"} : tensor<4x4xf32>
  %c = relay.nn.dense %y, %w {accel.target = "dsp"} : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  %d = relay.add %a, %c {accel.target = "npu"} : tensor<4x4xf32>
  %b = relay.nn.dense %a, %w {accel.target = "dsp"} : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  %e = relay.add %b, %c {accel.target = "dsp"} : tensor<4x4xf32>
  func.return %d, %e : tensor<4x4xf32>, tensor<4x4xf32>
}
