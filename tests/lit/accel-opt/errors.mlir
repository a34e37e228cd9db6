// Every user error is one located line on stderr and exit code 1.
// RUN: not accel-opt %s --split-input-file 2>&1 | filecheck %s
// RUN: not accel-opt %s -p 'no-such-pass' 2>&1 | filecheck %s --check-prefix=PASS
// RUN: not accel-opt %s -p 'canonicalize{a=1,b=2}' 2>&1 | filecheck %s --check-prefix=OPTS
// RUN: not accel-opt %s.missing 2>&1 | filecheck %s --check-prefix=MISSING
// RUN: not accel-opt --no-such-flag 2>&1 | filecheck %s --check-prefix=FLAG

// CHECK: errors.mlir:[[# @LINE + 2]]:3: error: 'relay.nn.conv2d' op operand 'weight' has 4 input channels per group, expected 3
func.func @main(%x: tensor<1x3x8x8xf32>, %w: tensor<8x4x3x3xf32>) -> tensor<1x8x6x6xf32> {
  %y = relay.nn.conv2d %x, %w : (tensor<1x3x8x8xf32>, tensor<8x4x3x3xf32>) -> tensor<1x8x6x6xf32>
  func.return %y : tensor<1x8x6x6xf32>
}
// CHECK-NOT: Traceback
// PASS: accel-opt: error: unknown pass 'no-such-pass' (accel-opt --list-passes lists them)
// PASS-NOT: Traceback
// OPTS: accel-opt: error: invalid pass pipeline:
// OPTS-NOT: Traceback
// MISSING: accel-opt: error: cannot access '{{.*}}errors.mlir.missing': No such file or directory
// FLAG: accel-opt: error: unrecognized arguments: --no-such-flag
