// Malformed guards of accel.dma_start: one line each, file:line:col.
// RUN: not accel-opt %s --split-input-file 2>&1 | filecheck %s

// A guard is two index operands: the generic form with one is refused by the verifier.
// CHECK: dma-guard-invalid.mlir:[[# @LINE + 3]]:3: error: 'accel.dma_start' op a guard is two index operands (issued when the first is less than the second), got 1
func.func @one(%h: memref<2x16xf32>, %s: memref<2x16xf32, #accel.mem<"spm">>) {
  %c0 = arith.constant 0 : index
  %t = "accel.dma_start"(%h, %s, %c0) : (memref<2x16xf32>, memref<2x16xf32, #accel.mem<"spm">>, index) -> !accel.token
  func.return
}

// -----

// The operands of a guard are indices.
// CHECK: dma-guard-invalid.mlir:[[# @LINE + 3]]:39: error: operand is used with type index, but has been previously used or defined with type i32
func.func @typed(%h: memref<2x16xf32>, %s: memref<2x16xf32, #accel.mem<"spm">>, %n: index) {
  %c0 = arith.constant 0 : i32
  %t = accel.dma_start %h, %s if %n < %c0 : memref<2x16xf32>, memref<2x16xf32, #accel.mem<"spm">>
  func.return
}

// -----

// Only `<` compares.
// CHECK: dma-guard-invalid.mlir:[[# @LINE + 3]]:40: error: a guard compares with '<' only: `if %a < %b` (issued while a < b)
func.func @compare(%h: memref<2x16xf32>, %s: memref<2x16xf32, #accel.mem<"spm">>, %n: index) {
  %c4 = arith.constant 4 : index
  %t = accel.dma_start %h, %s if %n <= %c4 : memref<2x16xf32>, memref<2x16xf32, #accel.mem<"spm">>
  func.return
}

// -----

// CHECK: dma-guard-invalid.mlir:[[# @LINE + 2]]:37: error: Expected '<' in a guard: `if %a < %b` (issued while a < b)
func.func @greater(%h: memref<2x16xf32>, %s: memref<2x16xf32, #accel.mem<"spm">>, %n: index) {
  %t = accel.dma_start %h, %s if %n > %n : memref<2x16xf32>, memref<2x16xf32, #accel.mem<"spm">>
  func.return
}
