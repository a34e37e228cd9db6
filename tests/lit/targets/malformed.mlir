// A malformed description fails with one line: the file, the key, what was expected.
// RUN: not accel-opt %s -p annotate-target --target %S/Inputs/wrong_type.toml 2>&1 | filecheck %s --check-prefix=TYPE
// RUN: not accel-opt %s -p annotate-target --target %S/Inputs/unknown_key.toml 2>&1 | filecheck %s --check-prefix=UNKNOWN
// RUN: not accel-opt %s -p annotate-target --target %S/Inputs/missing_table.toml 2>&1 | filecheck %s --check-prefix=TABLE
// RUN: not accel-opt %s -p annotate-target --target %S/Inputs/missing_key.toml 2>&1 | filecheck %s --check-prefix=KEY
// RUN: not accel-opt %s -p annotate-target --target %S/Inputs/bad_op.toml 2>&1 | filecheck %s --check-prefix=OP
// RUN: not accel-opt %s -p annotate-target --target %S/Inputs/syntax.toml 2>&1 | filecheck %s --check-prefix=SYNTAX
// RUN: not accel-opt %s -p annotate-target --target %S/Inputs/prefix.toml 2>&1 | filecheck %s --check-prefix=PREFIX
// RUN: not accel-opt %s -p annotate-target --target %S/Inputs/not_applicable.toml 2>&1 | filecheck %s --check-prefix=APPLY
// RUN: not accel-opt %s -p annotate-target --target %S/Inputs/bad_predicate.toml 2>&1 | filecheck %s --check-prefix=PRED
// RUN: not accel-opt %s -p annotate-target --target %S/Inputs/no_such_file.toml 2>&1 | filecheck %s --check-prefix=NOFILE

// TYPE:     accel-opt: {{.*}}wrong_type.toml: error: key 'ops[2].max_kernel': expected a list of 2 positive integers, got "7"
// TYPE-NOT: Traceback
// UNKNOWN:  accel-opt: {{.*}}unknown_key.toml: error: key 'memory.scratchpad': unknown key (expected one of: scratchpad_bytes, alignment, shared_with_host)
// TABLE:    accel-opt: {{.*}}missing_table.toml: error: key 'dma': missing (expected a table)
// KEY:      accel-opt: {{.*}}missing_key.toml: error: key 'api.header': missing (expected a header file name like "npu.h")
// OP:       accel-opt: {{.*}}bad_op.toml: error: key 'ops[0].op': 'nn.conv2d' is not a relay graph op (did you mean 'relay.nn.conv2d'?)
// SYNTAX:   accel-opt: {{.*}}syntax.toml: error: invalid TOML: Invalid value (at line 16, column 16)
// PREFIX:   accel-opt: {{.*}}prefix.toml: error: key 'ops[0].c_function': 'relu' must start with the API prefix 'acc_'
// APPLY:    accel-opt: {{.*}}not_applicable.toml: error: key 'ops[0].max_kernel': does not apply to relay.add (it applies to {{.*}}relay.nn.conv2d{{.*}})
// PRED:     accel-opt: {{.*}}bad_predicate.toml: error: key 'ops[0].predicate': cannot import 'no_such_module_xyz': No module named 'no_such_module_xyz'
// NOFILE:   accel-opt: error: cannot read target description '{{.*}}no_such_file.toml': No such file or directory

func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = relay.nn.relu %x : tensor<4xf32>
  func.return %0 : tensor<4xf32>
}
