// Shapes of accel's transformer commands: batched products, broadcast rhs, row ops.
// RUN: accel-opt %s | filecheck %s

// CHECK-LABEL: func.func @ok
// CHECK:         accel.matmul ins(%q, %k : memref<2x4x8xf32>, memref<2x4x8xf32>) outs(%s : memref<2x4x4xf32>)
// CHECK:         accel.eltwise ins(%s, %m : memref<2x4x4xf32>, memref<4x4xf32>) outs(%s : memref<2x4x4xf32>) {kind = "sub"}
// CHECK:         accel.eltwise ins(%s, %c : memref<2x4x4xf32>, memref<1xf32>) outs(%s : memref<2x4x4xf32>) {kind = "div"}
// CHECK:         accel.eltwise ins(%q, %g, %g : memref<2x4x8xf32>, memref<8xf32>, memref<8xf32>) outs(%q : memref<2x4x8xf32>) {kind = "layer_norm"}
// CHECK:         accel.eltwise ins(%q, %g : memref<2x4x8xf32>, memref<8xf32>) outs(%q : memref<2x4x8xf32>) {kind = "rms_norm", epsilon = 1.0e-06}
func.func @ok(%q: memref<2x4x8xf32>, %k: memref<2x4x8xf32>, %s: memref<2x4x4xf32>, %m: memref<4x4xf32>, %c: memref<1xf32>, %g: memref<8xf32>) {
  accel.matmul ins(%q, %k : memref<2x4x8xf32>, memref<2x4x8xf32>) outs(%s : memref<2x4x4xf32>)
  accel.eltwise ins(%s, %m : memref<2x4x4xf32>, memref<4x4xf32>) outs(%s : memref<2x4x4xf32>) {kind = "sub"}
  accel.eltwise ins(%s, %c : memref<2x4x4xf32>, memref<1xf32>) outs(%s : memref<2x4x4xf32>) {kind = "div"}
  accel.eltwise ins(%q, %g, %g : memref<2x4x8xf32>, memref<8xf32>, memref<8xf32>) outs(%q : memref<2x4x8xf32>) {kind = "layer_norm"}
  accel.eltwise ins(%q, %g : memref<2x4x8xf32>, memref<8xf32>) outs(%q : memref<2x4x8xf32>) {kind = "rms_norm", epsilon = 1.0e-06}
  func.return
}
