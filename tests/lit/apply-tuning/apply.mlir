// RUN: accel-opt %s --split-input-file -p 'apply-tuning{log="%S/Inputs/log.json"}' --target npu | filecheck %s
// RUN: accel-opt %s --split-input-file --target npu -p lower-to-accel --tuning-log %S/Inputs/log.json | filecheck %s --check-prefix=TILED

// The log's best configuration of this conv's task (row_tile 4, better than the
// default's cycles) goes on the op; the module records what was applied.
// CHECK:       builtin.module attributes {accel.tuned = [{task = "[[KEY:[0-9a-f]+]]", op = "conv2d (1x16x16x16xf32, 16x16x3x3xf32) -> 1x16x16x16xf32", target = "npu", instances = 1 : i64, config = "{\22row_tile\22: 4}", tuned_cycles = 900 : i64, default_cycles = 1000 : i64}]}
// CHECK:         accel.conv2d {{.*}} attributes {{.}}accel.tuning = {{.}}row_tile = 4 : i64
// With the rest of the pipeline (accel-opt --tuning-log appends `lower` after apply-tuning),
// the conv is cut into row tiles of 4 although it fits whole: the first (its top padding),
// a loop over the middle ones, the last (its bottom padding).
// TILED-COUNT-3: accel.conv2d {{.*}}outs({{.*}} : memref<1x16x4x16xf32, {{.*}}#accel.mem<"spm">>)
// TILED-NOT:     accel.conv2d {{.*}}outs({{.*}} : memref<1x16x4x16xf32, {{.*}}#accel.mem<"spm">>)
func.func @main(%x: memref<1x16x16x16xf32> {accel.name = "x"}, %y: memref<1x16x16x16xf32> {accel.name = "y", accel.output}) {
  func.call @npu_0(%x, %y) : (memref<1x16x16x16xf32>, memref<1x16x16x16xf32>) -> ()
  func.return
}
func.func private @npu_0(%x: memref<1x16x16x16xf32>, %y: memref<1x16x16x16xf32> {accel.output}) attributes {accel.target = "npu"} {
  %w = accel.weight dense<0.01> : tensor<16x16x3x3xf32> : memref<16x16x3x3xf32>
  accel.conv2d ins(%x, %w : memref<1x16x16x16xf32>, memref<16x16x3x3xf32>) outs(%y : memref<1x16x16x16xf32>) {padding = [1, 1, 1, 1]}
  func.return
}

// -----

// An op whose task the log does not hold keeps the heuristics (no accel.tuning), and
// nothing is recorded.
// CHECK-NOT:   accel.tuned
// CHECK-LABEL: func.func private @npu_7
// CHECK:         accel.conv2d
// CHECK-NOT:     accel.tuning
func.func @main(%x: memref<1x8x16x16xf32> {accel.name = "x"}, %y: memref<1x8x16x16xf32> {accel.name = "y", accel.output}) {
  func.call @npu_7(%x, %y) : (memref<1x8x16x16xf32>, memref<1x8x16x16xf32>) -> ()
  func.return
}
func.func private @npu_7(%x: memref<1x8x16x16xf32>, %y: memref<1x8x16x16xf32> {accel.output}) attributes {accel.target = "npu"} {
  %w = accel.weight dense<0.01> : tensor<8x8x3x3xf32> : memref<8x8x3x3xf32>
  accel.conv2d ins(%x, %w : memref<1x8x16x16xf32>, memref<8x8x3x3xf32>) outs(%y : memref<1x8x16x16xf32>) {padding = [1, 1, 1, 1]}
  func.return
}

// -----

// A chain of fuse-layers (its fusion task: the log's best is "2x4", both convs in stripes
// of 4 rows) gets `fuse` on its second op and `stripe_rows` on its last; fuse-layers
// then fuses the chain as configured, although nothing spills.
// CHECK:       builtin.module attributes {accel.tuned = [{task = "85efd3991e3d7fcf", op = "fusion of 2: conv2d > conv2d (1x8x16x16xf32 -> 1x8x16x16xf32)", target = "npu", instances = 1 : i64, config = "{\22segments\22: \222x4\22}", tuned_cycles = 800 : i64, default_cycles = 1000 : i64}]}
// CHECK:         accel.conv2d ins(%x, %w0 {{.*}} {padding = [1, 1, 1, 1]}{{$}}
// CHECK:         accel.conv2d ins(%t, %w1 {{.*}} attributes {{.}}accel.tuning = {{.}}fuse = true, stripe_rows = 4 : i64
// TILED-LABEL: func.func private @npu_3
// TILED:         scf.for
// TILED:           accel.conv2d {{.*}}outs({{.*}} : memref<1x8x4x16xf32, #accel.mem<"spm">>)
func.func @main(%x: memref<1x8x16x16xf32> {accel.name = "x"}, %y: memref<1x8x16x16xf32> {accel.name = "y", accel.output}) {
  func.call @npu_3(%x, %y) : (memref<1x8x16x16xf32>, memref<1x8x16x16xf32>) -> ()
  func.return
}
func.func private @npu_3(%x: memref<1x8x16x16xf32>, %y: memref<1x8x16x16xf32> {accel.output}) attributes {accel.target = "npu"} {
  %w0 = accel.weight dense<0.01> : tensor<8x8x3x3xf32> : memref<8x8x3x3xf32>
  %w1 = accel.weight dense<0.02> : tensor<8x8x1x1xf32> : memref<8x8x1x1xf32>
  %t = memref.alloc() : memref<1x8x16x16xf32>
  accel.conv2d ins(%x, %w0 : memref<1x8x16x16xf32>, memref<8x8x3x3xf32>) outs(%t : memref<1x8x16x16xf32>) {padding = [1, 1, 1, 1]}
  accel.conv2d ins(%t, %w1 : memref<1x8x16x16xf32>, memref<8x8x1x1xf32>) outs(%y : memref<1x8x16x16xf32>)
  func.return
}
