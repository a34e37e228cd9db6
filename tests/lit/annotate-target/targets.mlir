// RUN: accel-opt %s --split-input-file -p 'annotate-target{targets=npu,dsp}' | filecheck %s --check-prefix=ND
// RUN: accel-opt %s --split-input-file -p 'annotate-target{targets=dsp,npu}' | filecheck %s --check-prefix=DN
// RUN: accel-opt %s --split-input-file -p annotate-target --target dsp,npu | filecheck %s --check-prefix=DN

// Two targets compete: the FIRST listed target that accepts an op wins; a rejection
// lists every target's reason, in order.
// ND-LABEL: func.func @compete
// ND:       relay.nn.dense %x, %w {accel.target = "npu"}
// ND:       relay.nn.matmul %x, %m {accel.target = "dsp", accel.reason = "npu: 4100 channels exceed 4096"}
// ND:       relay.nn.relu %{{.*}} {accel.target = "npu"}
// ND:       relay.erf %{{.*}} {accel.target = "host", accel.reason = "npu: op not supported; dsp: op not supported"}
// DN-LABEL: func.func @compete
// DN:       relay.nn.dense %x, %w {accel.target = "dsp"}
// DN:       relay.nn.matmul %x, %m {accel.target = "dsp"}
// DN:       relay.nn.relu %{{.*}} {accel.target = "npu", accel.reason = "dsp: op not supported"}
// DN:       relay.erf %{{.*}} {accel.target = "host", accel.reason = "dsp: op not supported; npu: op not supported"}
func.func @compete(%x: tensor<64x256xf32>) -> (tensor<64x256xf32>, tensor<64x4100xf32>) {
  %w = relay.constant dense<0.5> : tensor<256x256xf32>
  %m = relay.constant dense<0.5> : tensor<256x4100xf32>
  %0 = relay.nn.dense %x, %w : (tensor<64x256xf32>, tensor<256x256xf32>) -> tensor<64x256xf32>
  %1 = relay.nn.matmul %x, %m : (tensor<64x256xf32>, tensor<256x4100xf32>) -> tensor<64x4100xf32>
  %2 = relay.nn.relu %0 : tensor<64x256xf32>
  %3 = relay.erf %1 : tensor<64x4100xf32>
  func.return %2, %3 : tensor<64x256xf32>, tensor<64x4100xf32>
}

// -----

// A user's accel.target is kept (TVM's compiler_begin/compiler_end) and marked
// accel.manual; "host" forces the host.
// ND-LABEL: func.func @manual
// ND:       relay.nn.dense %x, %w {accel.target = "dsp", accel.manual}
// ND:       relay.nn.relu %{{.*}} {accel.target = "host", accel.manual}
// DN-LABEL: func.func @manual
// DN:       relay.nn.dense %x, %w {accel.target = "dsp", accel.manual}
func.func @manual(%x: tensor<64x256xf32>) -> tensor<64x256xf32> {
  %w = relay.constant dense<0.5> : tensor<256x256xf32>
  %0 = relay.nn.dense %x, %w {accel.target = "dsp"} : (tensor<64x256xf32>, tensor<256x256xf32>) -> tensor<64x256xf32>
  %1 = relay.nn.relu %0 {accel.target = "host"} : tensor<64x256xf32>
  func.return %1 : tensor<64x256xf32>
}
