// Shape errors of accel's transformer commands: one line each, file:line:col.
// RUN: not accel-opt %s --split-input-file 2>&1 | filecheck %s

// CHECK: compute-shapes-invalid.mlir:[[# @LINE + 2]]:3: error: 'accel.matmul' op batch dims of [2, 4, 8] x [1, 4, 8] -> [2, 4, 4] differ
func.func @batch(%q: memref<2x4x8xf32>, %k: memref<1x4x8xf32>, %s: memref<2x4x4xf32>) {
  accel.matmul ins(%q, %k : memref<2x4x8xf32>, memref<1x4x8xf32>) outs(%s : memref<2x4x4xf32>)
  func.return
}

// -----

// CHECK: compute-shapes-invalid.mlir:[[# @LINE + 2]]:3: error: 'accel.eltwise' op input #1 memref<4x1xf32> must have the output's shape [4, 4], one element or its trailing dims
func.func @column(%s: memref<4x4xf32>, %m: memref<4x1xf32>) {
  accel.eltwise ins(%s, %m : memref<4x4xf32>, memref<4x1xf32>) outs(%s : memref<4x4xf32>) {kind = "mul"}
  func.return
}

// -----

// CHECK: compute-shapes-invalid.mlir:[[# @LINE + 2]]:3: error: 'accel.eltwise' op 'softmax' takes 1 inputs
func.func @softmax(%s: memref<4x4xf32>) {
  accel.eltwise ins(%s, %s : memref<4x4xf32>, memref<4x4xf32>) outs(%s : memref<4x4xf32>) {kind = "softmax"}
  func.return
}

// -----

// CHECK: compute-shapes-invalid.mlir:[[# @LINE + 2]]:3: error: 'accel.eltwise' op input #1 memref<4xf32> must be [8]
func.func @gamma(%x: memref<2x8xf32>, %g: memref<4xf32>) {
  accel.eltwise ins(%x, %g, %g : memref<2x8xf32>, memref<4xf32>, memref<4xf32>) outs(%x : memref<2x8xf32>) {kind = "layer_norm"}
  func.return
}

// -----

// CHECK: compute-shapes-invalid.mlir:[[# @LINE + 2]]:3: error: 'accel.eltwise' op 'rms_norm' takes 1 or 2 inputs
func.func @rms_beta(%x: memref<2x8xf32>, %g: memref<8xf32>) {
  accel.eltwise ins(%x, %g, %g : memref<2x8xf32>, memref<8xf32>, memref<8xf32>) outs(%x : memref<2x8xf32>) {kind = "rms_norm"}
  func.return
}

// -----

// CHECK: compute-shapes-invalid.mlir:[[# @LINE + 2]]:3: error: 'accel.eltwise' op input #1 memref<4xf32> must be [8]
func.func @rms_gamma(%x: memref<2x8xf32>, %g: memref<4xf32>) {
  accel.eltwise ins(%x, %g : memref<2x8xf32>, memref<4xf32>) outs(%x : memref<2x8xf32>) {kind = "rms_norm"}
  func.return
}

// -----

// CHECK: compute-shapes-invalid.mlir:[[# @LINE + 2]]:3: error: 'accel.eltwise' op 'quantize' converts f32 to 8-bit data, got i8 to i8
func.func @quantize_int(%x: memref<4xi8>, %y: memref<4xi8>) {
  accel.eltwise ins(%x : memref<4xi8>) outs(%y : memref<4xi8>) {kind = "quantize"}
  func.return
}

// -----

// CHECK: compute-shapes-invalid.mlir:[[# @LINE + 2]]:3: error: 'accel.eltwise' op 'dequantize' converts 8-bit to f32 data, got i32 to f32
func.func @dequantize_wide(%x: memref<4xi32>, %y: memref<4xf32>) {
  accel.eltwise ins(%x : memref<4xi32>) outs(%y : memref<4xf32>) {kind = "dequantize"}
  func.return
}
