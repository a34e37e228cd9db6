// RUN: accel-opt %s --split-input-file -p bufferize | filecheck %s
// RUN: accel-opt %s --split-input-file -p bufferize | accel-opt --split-input-file | filecheck %s

// Relay ops become kernels in destination-passing style; constants move into their
// kernel; a returned value is written straight into its output argument.
// CHECK-LABEL: func.func @main(%x: memref<4xf32>, %out0: memref<4xf32> {accel.name = "y", accel.output}) {
// CHECK-NEXT:    %0 = memref.alloc() : memref<4xf32>
// CHECK-NEXT:    accel.kernel ins(%x : memref<4xf32>) outs(%0 : memref<4xf32>) {
// CHECK-NEXT:    ^bb0(%{{.*}}: tensor<4xf32>):
// CHECK-NEXT:      %c = relay.constant dense<1.000000e+00> : tensor<4xf32>
// CHECK-NEXT:      %y = relay.add %{{.*}}, %c : tensor<4xf32>
// CHECK-NEXT:      accel.yield %y : tensor<4xf32>
// CHECK-NEXT:    }
// CHECK-NEXT:    accel.kernel ins(%0 : memref<4xf32>) outs(%out0 : memref<4xf32>) {
// CHECK:           relay.nn.relu
// CHECK:         func.return
func.func @main(%x: tensor<4xf32>) -> (tensor<4xf32> {accel.name = "y"}) {
  %c = relay.constant dense<1.0> : tensor<4xf32>
  %y = relay.add %x, %c : tensor<4xf32>
  %z = relay.nn.relu %y : tensor<4xf32>
  func.return %z : tensor<4xf32>
}

// -----

// An argument returned as is, a value returned twice and a constant returned: copies.
// CHECK-LABEL: func.func @main(%x: memref<2xf32>, %out0: memref<2xf32> {accel.output}, %out1: memref<2xf32> {accel.output}, %out2: memref<2xf32> {accel.output}, %out3: memref<2xf32> {accel.output})
// CHECK:         accel.kernel ins(%x : memref<2xf32>) outs(%out1 : memref<2xf32>)
// CHECK:         "memref.copy"(%x, %out0)
// CHECK-NEXT:    "memref.copy"(%out1, %out2)
// CHECK-NEXT:    %[[W:.*]] = accel.weight dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32> : memref<2xf32>
// CHECK-NEXT:    "memref.copy"(%[[W]], %out3)
func.func @main(%x: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) {
  %t = relay.tanh %x : tensor<2xf32>
  %c = relay.constant dense<[1.0, 2.0]> : tensor<2xf32>
  func.return %x, %t, %t, %c : tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>
}

// -----

// Calls of outlined regions pass buffers for the results; composites stay whole in
// accelerator functions and are inlined on the host.
// CHECK-LABEL: func.func @npu_0(%a: memref<4xf32>, %out0: memref<4xf32> {accel.output}) attributes {accel.target = "npu"}
// CHECK:         accel.kernel ins(%a : memref<4xf32>) outs(%out0 : memref<4xf32>)
// CHECK:           relay.composite "npu.relu"
// CHECK-LABEL: func.func @main
// CHECK:         %[[B:.*]] = memref.alloc() : memref<4xf32>
// CHECK-NEXT:    func.call @npu_0(%x, %[[B]]) : (memref<4xf32>, memref<4xf32>) -> ()
// CHECK-NOT:     relay.composite
// CHECK:         relay.sigmoid
func.func @npu_0(%a: tensor<4xf32>) -> tensor<4xf32> attributes {accel.target = "npu"} {
  %r = relay.composite "npu.relu" (%a) : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%b: tensor<4xf32>):
    %q = relay.nn.relu %b : tensor<4xf32>
    relay.yield %q : tensor<4xf32>
  }
  func.return %r : tensor<4xf32>
}
func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = func.call @npu_0(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %h = relay.composite "npu.relu" (%y) : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%b: tensor<4xf32>):
    %q = relay.sigmoid %b : tensor<4xf32>
    relay.yield %q : tensor<4xf32>
  }
  func.return %h : tensor<4xf32>
}
