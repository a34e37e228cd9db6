// Typos get the closest known name; the output option is -t/--emit in every message.
// RUN: not accel-opt %s -p byc 2>&1 | filecheck %s --check-prefix=PASS
// RUN: not accel-opt %s -t mlri 2>&1 | filecheck %s --check-prefix=EMIT
// RUN: not accel-opt %s -t 'c{nope=1}' 2>&1 | filecheck %s --check-prefix=EMITOPT
// RUN: accel-opt -h | filecheck %s --check-prefix=HELP
// RUN: sed 's/relay.nn.relu/relay.nn.reluu/' %s > %t.mlir
// RUN: not accel-opt %t.mlir 2>&1 | filecheck %s --check-prefix=OP
// PASS: accel-opt: error: unknown pass 'byc' (did you mean 'byoc'?)
// EMIT: accel-opt: error: argument -t/--emit: invalid choice: 'mlri'
// EMIT-NOT: --target
// EMITOPT: accel-opt: error: -t/--emit 'c{nope=1}': Provided arguments ["nope"] not found
// HELP: -t FORMAT, --emit FORMAT
// HELP-NOT: -t/--target
// OP: accel-opt: {{.*}}.mlir:[[# @LINE + 2]]:{{[0-9]+}}: error: Operation relay.nn.reluu is not registered (did you mean 'relay.nn.relu'?)
func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = relay.nn.relu %x : tensor<4xf32>
  func.return %0 : tensor<4xf32>
}
