// Malformed patterns fail with one located line (pattern file, or the TOML key of
// inline IR, plus line:column).
// RUN: not accel-opt %s -p annotate-target --target %S/Inputs/pattern_parse.toml 2>&1 | filecheck %s --check-prefix=PARSE
// RUN: not accel-opt %s -p annotate-target --target %S/Inputs/pattern_missing_fn.toml 2>&1 | filecheck %s --check-prefix=MISSING
// RUN: not accel-opt %s -p annotate-target --target %S/Inputs/pattern_unused_arg.toml 2>&1 | filecheck %s --check-prefix=UNUSED
// RUN: not accel-opt %s -p annotate-target --target %S/Inputs/pattern_dead_op.toml 2>&1 | filecheck %s --check-prefix=DEAD
// RUN: not accel-opt %s -p annotate-target --target %S/Inputs/pattern_bad_attr.toml 2>&1 | filecheck %s --check-prefix=ATTR
// RUN: not accel-opt %s -p annotate-target --target %S/Inputs/pattern_two_sources.toml 2>&1 | filecheck %s --check-prefix=TWO
// RUN: not accel-opt %s -p annotate-target --target %S/Inputs/shadowed.toml 2>&1 | filecheck %s --check-prefix=SHADOW

// PARSE:   accel-opt: {{.*}}Inputs/bad_patterns.mlir:4:26: error: operand expected
// PARSE-NOT: Traceback
// MISSING: accel-opt: {{.*}}pattern_missing_fn.toml: error: key 'patterns[0].name': no func.func @nothing_here in patterns_ok.mlir
// UNUSED:  accel-opt: {{.*}}pattern_unused_arg.toml: key 'patterns[0].ir':1:1: error: pattern @relu2: argument %b is unused
// DEAD:    accel-opt: {{.*}}pattern_dead_op.toml: key 'patterns[0].ir':3:3: error: pattern op 'relay.sigmoid' does not feed the returned value
// ATTR:    accel-opt: {{.*}}pattern_bad_attr.toml: key 'patterns[0].ir':1:1: error: pattern @relu_c: unknown argument attribute 'accel.const' on argument #0 (allowed: accel.constant)
// TWO:     accel-opt: {{.*}}pattern_two_sources.toml: error: key 'patterns[0]': needs exactly one of 'ir' (inline IR) and 'file' (a .mlir file next to the description)
// SHADOW:  accel-opt: {{.*}}shadowed.toml: error: key 'patterns[1]': pattern 'add_relu_relu' can never match: 'relu_relu' (patterns[0]) is tried first and matches part of it; list longer patterns first

func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = relay.nn.relu %x : tensor<4xf32>
  func.return %0 : tensor<4xf32>
}
