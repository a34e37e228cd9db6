// RUN: rm -rf %t && accel-compile %s --target npu-cmd -o %t -q
// RUN: accel-disasm %t/npu_cmd_0.bin | filecheck %s
// RUN: accel-opt %s --target npu-cmd -p full -t commands | filecheck %s
// RUN: %python -c "import sys; d = open(sys.argv[1], 'rb').read(); open(sys.argv[2], 'wb').write(d[:100])" %t/npu_cmd_0.bin %t/truncated.bin
// RUN: not accel-disasm %t/truncated.bin 2>&1 | filecheck %s --check-prefix=TRUNC
// RUN: not accel-disasm %t/npu_cmd_0.bin --target npu 2>&1 | filecheck %s --check-prefix=NOISA
// RUN: not accel-disasm %t/missing.bin 2>&1 | filecheck %s --check-prefix=MISSING

// accel-disasm reads the binary stream accel-compile wrote back into the text of
// `accel-opt -t commands` (header, one command a line).
// CHECK:      header magic=0x31444d43 version=1 commands_bytes={{[0-9]+}}
// CHECK-NEXT:    0: dma_load elem_bytes=4 rank=2 spm=0 host=arg0+0 shape0=4 shape1=256
// CHECK-NEXT:    1: dma_load elem_bytes=4 rank=2 spm={{[0-9]+}} host=weights+0 shape0=64 shape1=256
// CHECK:         matmul x=0 weight={{[0-9]+}} bias={{[0-9]+}} y={{[0-9]+}} batch=1 m=4 k=256 n=64 transpose_a=0 transpose_b=1 accumulate=0 act=relu
// CHECK:         dma_store elem_bytes=4 rank=2 spm={{[0-9]+}} host=arg1+0 shape0=4 shape1=64
// CHECK-NEXT:    barrier
// CHECK-NEXT:    end

// TRUNC: accel-disasm: error: {{.*}}truncated.bin: truncated: the header announces {{[0-9]+}} bytes, the stream has 100 (at byte 100)
// NOISA: accel-disasm: error: target 'npu' has no instruction set ([isa] in {{.*}}npu.toml)
// MISSING: accel-disasm: error: cannot read '{{.*}}missing.bin': No such file or directory
func.func @main(%x: tensor<4x256xf32>) -> tensor<4x64xf32> {
  %w = relay.constant dense<0.5> : tensor<64x256xf32>
  %b = relay.constant dense<0.25> : tensor<64xf32>
  %d = relay.nn.dense %x, %w : (tensor<4x256xf32>, tensor<64x256xf32>) -> tensor<4x64xf32>
  %e = relay.nn.bias_add %d, %b : (tensor<4x64xf32>, tensor<64xf32>) -> tensor<4x64xf32>
  %r = relay.nn.relu %e : tensor<4x64xf32>
  func.return %r : tensor<4x64xf32>
}
