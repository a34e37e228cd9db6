// RUN: not accel-opt %s --target npu -p full -t commands 2>&1 | filecheck %s --check-prefix=NOISA
// RUN: not accel-opt %s --target %S/Inputs/narrow-isa.toml -p full -t commands 2>&1 | filecheck %s --check-prefix=NARROW
// RUN: not accel-opt %s --target %S/Inputs/overlapping-isa.toml -p byoc 2>&1 | filecheck %s --check-prefix=OVERLAP

// A target without an instruction set has no streams to print.
// NOISA: accel-opt: error: -t commands: no region runs on a command-stream target (a target with [isa])

// 16 output channels do not fit a 4-bit field: one line at the conv, naming the key.
// NARROW: accel-opt: {{.*}}commands-invalid.mlir:19:3: error: target 'narrow': key 'isa.commands.conv.fields.oc': 16 does not fit 4 bits
// NARROW-NOT: Traceback

// A malformed instruction set fails at load, with the file and the key.
// OVERLAP: accel-opt: {{.*}}overlapping-isa.toml: error: key 'isa.commands.conv.fields.groups': overlaps 'x' (word 1, bits 0..31)
// OVERLAP-NOT: Traceback
func.func @main(%x: tensor<1x4x16x16xf32>) -> tensor<1x16x16x16xf32> {
  %s = relay.erf %x : tensor<1x4x16x16xf32>
  %w = relay.constant dense<0.5> : tensor<16x4x3x3xf32>
  %b = relay.constant dense<0.25> : tensor<16xf32>
  %c = relay.nn.conv2d %s, %w {padding = [1, 1, 1, 1]} : (tensor<1x4x16x16xf32>, tensor<16x4x3x3xf32>) -> tensor<1x16x16x16xf32>
  %d = relay.nn.bias_add %c, %b : (tensor<1x16x16x16xf32>, tensor<16xf32>) -> tensor<1x16x16x16xf32>
  %r = relay.nn.relu %d : tensor<1x16x16x16xf32>
  %t = relay.erf %r : tensor<1x16x16x16xf32>
  func.return %t : tensor<1x16x16x16xf32>
}
