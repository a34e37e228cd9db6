// RUN: accel-opt %s --split-input-file -p plan-memory | filecheck %s
// RUN: not accel-opt %s --split-input-file -p 'plan-memory{alignment=0}' 2>&1 | filecheck %s --check-prefix=BAD

// A chain: the first buffer is dead once the third is written, so they share offset 0;
// offsets are aligned to 64 bytes (16 floats = 64 bytes each here).
// CHECK: builtin.module attributes {accel.arena_bytes = 128 : i64}
// CHECK: %0 = memref.alloc() {accel.offset = 0 : i64} : memref<16xf32>
// CHECK: %1 = memref.alloc() {accel.offset = 64 : i64} : memref<16xf32>
// CHECK: %2 = memref.alloc() {accel.offset = 0 : i64} : memref<16xf32>
// BAD: error: plan-memory: alignment must be positive, got 0
func.func @main(%x: memref<16xf32>, %out0: memref<16xf32> {accel.output}) {
  %0 = memref.alloc() : memref<16xf32>
  accel.kernel ins(%x : memref<16xf32>) outs(%0 : memref<16xf32>) {
  ^bb0(%a: tensor<16xf32>):
    %r = relay.nn.relu %a : tensor<16xf32>
    accel.yield %r : tensor<16xf32>
  }
  %1 = memref.alloc() : memref<16xf32>
  accel.kernel ins(%0 : memref<16xf32>) outs(%1 : memref<16xf32>) {
  ^bb0(%a: tensor<16xf32>):
    %r = relay.tanh %a : tensor<16xf32>
    accel.yield %r : tensor<16xf32>
  }
  %2 = memref.alloc() : memref<16xf32>
  accel.kernel ins(%1 : memref<16xf32>) outs(%2 : memref<16xf32>) {
  ^bb0(%a: tensor<16xf32>):
    %r = relay.sigmoid %a : tensor<16xf32>
    accel.yield %r : tensor<16xf32>
  }
  accel.kernel ins(%2, %1 : memref<16xf32>, memref<16xf32>) outs(%out0 : memref<16xf32>) {
  ^bb0(%a: tensor<16xf32>, %b: tensor<16xf32>):
    %r = relay.add %a, %b : tensor<16xf32>
    accel.yield %r : tensor<16xf32>
  }
  func.return
}

// -----

// A buffer passed to a region stays live for the whole call: the callee's own
// intermediate cannot share its bytes.
// CHECK: builtin.module attributes {accel.arena_bytes = 128 : i64}
// CHECK-LABEL: func.func @npu_0
// CHECK: memref.alloc() {accel.offset = 64 : i64} : memref<16xf32>
// CHECK-LABEL: func.func @main
// CHECK: memref.alloc() {accel.offset = 0 : i64} : memref<16xf32>
func.func @npu_0(%a: memref<16xf32>, %out0: memref<16xf32> {accel.output}) attributes {accel.target = "npu"} {
  %t = memref.alloc() : memref<16xf32>
  accel.eltwise ins(%a : memref<16xf32>) outs(%t : memref<16xf32>) {kind = "relu"}
  accel.eltwise ins(%t, %a : memref<16xf32>, memref<16xf32>) outs(%out0 : memref<16xf32>) {kind = "add"}
  func.return
}
func.func @main(%x: memref<16xf32>, %out0: memref<16xf32> {accel.output}) {
  %0 = memref.alloc() : memref<16xf32>
  accel.kernel ins(%x : memref<16xf32>) outs(%0 : memref<16xf32>) {
  ^bb0(%a: tensor<16xf32>):
    %r = relay.tanh %a : tensor<16xf32>
    accel.yield %r : tensor<16xf32>
  }
  func.call @npu_0(%0, %out0) : (memref<16xf32>, memref<16xf32>) -> ()
  func.return
}

// -----

// Exactly 2^40 bytes per buffer is allowed (the limit, see too-large.mlir), the arena too.
// CHECK: builtin.module attributes {accel.arena_bytes = 1099511627776 : i64}
// CHECK: memref.alloc() {accel.offset = 0 : i64} : memref<262144x1048576xf32>
func.func @main(%x: memref<262144x1048576xf32>, %out0: memref<262144x1048576xf32> {accel.output}) {
  %0 = memref.alloc() : memref<262144x1048576xf32>
  accel.kernel ins(%x : memref<262144x1048576xf32>) outs(%0 : memref<262144x1048576xf32>) {
  ^bb0(%a: tensor<262144x1048576xf32>):
    %r = relay.nn.relu %a : tensor<262144x1048576xf32>
    accel.yield %r : tensor<262144x1048576xf32>
  }
  accel.kernel ins(%0 : memref<262144x1048576xf32>) outs(%out0 : memref<262144x1048576xf32>) {
  ^bb0(%a: tensor<262144x1048576xf32>):
    %r = relay.nn.relu %a : tensor<262144x1048576xf32>
    accel.yield %r : tensor<262144x1048576xf32>
  }
  func.return
}
