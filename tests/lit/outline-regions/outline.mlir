// RUN: accel-opt %s --split-input-file -p outline-regions | filecheck %s

// Each region becomes a private @<target>_<n> with accel.target; constants are bound
// inside (cloned; the host copy goes when nothing else uses it); inputs are the
// non-constant values flowing in; a region may return several values.
// CHECK-LABEL: func.func @main(%x: tensor<4x4xf32>, %y: tensor<4x4xf32>) -> (tensor<4x4xf32>, tensor<4x4xf32>) {
// CHECK-NEXT:    %w = relay.constant dense<5.000000e-01> : tensor<4x4xf32> {accel.target = "host"}
// CHECK-NEXT:    %r, %c = func.call @npu_0(%x, %y) : (tensor<4x4xf32>, tensor<4x4xf32>) -> (tensor<4x4xf32>, tensor<4x4xf32>)
// CHECK-NEXT:    %s = relay.sigmoid %r {accel.target = "host"}
// CHECK-NEXT:    %m = relay.multiply %s, %w {accel.target = "host"}
// CHECK-NEXT:    %d = func.call @dsp_0(%m) : (tensor<4x4xf32>) -> tensor<4x4xf32>
// CHECK-NEXT:    func.return %d, %c
// CHECK-NEXT:  }
// CHECK-NEXT:  func.func private @npu_0(%x: tensor<4x4xf32>, %y: tensor<4x4xf32>) -> (tensor<4x4xf32>, tensor<4x4xf32>) attributes {accel.target = "npu"} {
// CHECK-NEXT:    %b = relay.constant dense<1.000000e-01> : tensor<4x4xf32>
// CHECK-NEXT:    %a = relay.add %x, %b : tensor<4x4xf32>
// CHECK-NEXT:    %r = relay.nn.relu %a : tensor<4x4xf32>
// CHECK-NEXT:    %c = relay.add %r, %y : tensor<4x4xf32>
// CHECK-NEXT:    func.return %r, %c : tensor<4x4xf32>, tensor<4x4xf32>
// CHECK-NEXT:  }
// CHECK-NEXT:  func.func private @dsp_0(%m: tensor<4x4xf32>) -> tensor<4x4xf32> attributes {accel.target = "dsp"} {
// CHECK-NEXT:    %w = relay.constant dense<5.000000e-01> : tensor<4x4xf32>
// CHECK-NEXT:    %d = relay.nn.dense %m, %w : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
// CHECK-NEXT:    func.return %d : tensor<4x4xf32>
// CHECK-NEXT:  }
func.func @main(%x: tensor<4x4xf32>, %y: tensor<4x4xf32>) -> (tensor<4x4xf32>, tensor<4x4xf32>) {
  %b = relay.constant dense<0.1> : tensor<4x4xf32> {accel.target = "npu"}
  %w = relay.constant dense<0.5> : tensor<4x4xf32> {accel.target = "host"}
  %a = relay.add %x, %b {accel.target = "npu", accel.region = 0 : i64} : tensor<4x4xf32>
  %r = relay.nn.relu %a {accel.target = "npu", accel.region = 0 : i64} : tensor<4x4xf32>
  %c = relay.add %r, %y {accel.target = "npu", accel.region = 0 : i64} : tensor<4x4xf32>
  %s = relay.sigmoid %r {accel.target = "host"} : tensor<4x4xf32>
  %m = relay.multiply %s, %w {accel.target = "host"} : tensor<4x4xf32>
  %d = relay.nn.dense %m, %w {accel.target = "dsp", accel.region = 1 : i64} : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  func.return %d, %c : tensor<4x4xf32>, tensor<4x4xf32>
}

// -----

// Names are deterministic: per target, in program order, skipping names already taken;
// a target name that is not an identifier is made one (npu-shared -> npu_shared).
// CHECK-LABEL: func.func @main(
// CHECK:         func.call @npu_1(
// CHECK:         func.call @npu_shared_0(
// CHECK:         func.call @npu_2(
// CHECK:       func.func @npu_0(
// CHECK:       func.func private @npu_1({{.*}} attributes {accel.target = "npu"}
// CHECK:       func.func private @npu_shared_0({{.*}} attributes {accel.target = "npu-shared"}
// CHECK:       func.func private @npu_2({{.*}} attributes {accel.target = "npu"}
func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = relay.nn.relu %x {accel.target = "npu", accel.region = 0 : i64} : tensor<4xf32>
  %1 = relay.sigmoid %0 {accel.target = "host"} : tensor<4xf32>
  %2 = relay.nn.relu %1 {accel.target = "npu-shared", accel.region = 1 : i64} : tensor<4xf32>
  %3 = relay.sigmoid %2 {accel.target = "host"} : tensor<4xf32>
  %4 = relay.nn.relu %3 {accel.target = "npu", accel.region = 2 : i64} : tensor<4xf32>
  func.return %4 : tensor<4xf32>
}
func.func @npu_0(%x: tensor<4xf32>) -> tensor<4xf32> {
  func.return %x : tensor<4xf32>
}

// -----

// A host op placed between a region's ops that uses one of its results moves after
// the call; everything else keeps its order.
// CHECK-LABEL: func.func @reorder
// CHECK-NEXT:    %a, %b = func.call @npu_0(%x, %y)
// CHECK-NEXT:    %h = relay.sigmoid %a {accel.target = "host"}
// CHECK-NEXT:    %k = relay.add %h, %b {accel.target = "host"}
func.func @reorder(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
  %a = relay.nn.relu %x {accel.target = "npu", accel.region = 0 : i64} : tensor<4xf32>
  %h = relay.sigmoid %a {accel.target = "host"} : tensor<4xf32>
  %b = relay.nn.relu %y {accel.target = "npu", accel.region = 0 : i64} : tensor<4xf32>
  %k = relay.add %h, %b {accel.target = "host"} : tensor<4xf32>
  func.return %k : tensor<4xf32>
}

// -----

// No regions: nothing changes.
// CHECK-LABEL: func.func @none
// CHECK-NEXT:    relay.nn.relu %x {accel.target = "host"}
// CHECK-NEXT:    func.return
// CHECK-NEXT:  }
// CHECK-NEXT: }
func.func @none(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = relay.nn.relu %x {accel.target = "host"} : tensor<4xf32>
  func.return %0 : tensor<4xf32>
}
