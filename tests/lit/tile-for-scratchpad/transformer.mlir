// RUN: accel-opt %s --split-input-file -p tile-for-scratchpad | filecheck %s

// A batched product of 8 heads x [64, 64] (3 x 128 KiB) is split along the heads,
// whole matrices per tile, in a loop.
// CHECK-LABEL: func.func @npu_0
// CHECK:         scf.for %[[H:.*]] = {{.*}} {
// CHECK:           %[[A:.*]] = memref.subview %a[0, %[[H]], 0, 0] [1, {{[0-9]}}, 64, 64] [1, 1, 1, 1]
// CHECK:           %[[B:.*]] = memref.subview %b[0, %[[H]], 0, 0] [1, {{[0-9]}}, 64, 64] [1, 1, 1, 1]
// CHECK:           %[[Y:.*]] = memref.subview %y[0, %[[H]], 0, 0] [1, {{[0-9]}}, 64, 64] [1, 1, 1, 1]
// CHECK:           accel.matmul ins(%[[A]], %[[B]] : {{.*}}) outs(%[[Y]] : {{.*}}) {transpose_b = false}
func.func @npu_0(%a: memref<1x8x64x64xf32>, %b: memref<1x8x64x64xf32>, %y: memref<1x8x64x64xf32> {accel.output}) attributes {accel.target = "npu"} {
  accel.matmul ins(%a, %b : memref<1x8x64x64xf32>, memref<1x8x64x64xf32>) outs(%y : memref<1x8x64x64xf32>) {transpose_b = false}
  func.return
}

// -----

// A softmax over 256 rows of 512 (2 x 512 KiB) keeps its rows whole; the row of biases
// added first ([1, 512], broadcast) is read whole by every tile. 256 rows are not a
// whole number of tiles: the add's last tile of 20 rows is shifted inwards
// (`arith.minsi`: 4 rows computed again); the softmax's last tile of 30 rows would
// compute 14 again (more than 1/64 of the rows): it is peeled.
// CHECK-LABEL: func.func @npu_0
// CHECK:         scf.for %[[I:.*]] = {{.*}} {
// CHECK-NEXT:      %[[R:.*]] = arith.minsi %[[I]], %{{.*}} : index
// CHECK:           %[[X:.*]] = memref.subview %x[%[[R]], 0] [{{[0-9]+}}, 512] [1, 1]
// CHECK-NOT:       memref.subview %row
// CHECK:           accel.eltwise ins(%[[X]], %row : {{.*}}, memref<1x512xf32>) outs(%{{.*}} : {{.*}})
// CHECK:         scf.for %[[R2:.*]] = {{.*}} {
// CHECK:           memref.subview %t[%[[R2]], 0] [{{[0-9]+}}, 512] [1, 1]
// CHECK:           accel.eltwise ins(%{{.*}} : {{.*}}) outs(%{{.*}} : {{.*}}) {kind = "softmax"}
// CHECK:         }
// CHECK:         memref.subview %t[240, 0] [16, 512] [1, 1]
// CHECK:         accel.eltwise ins(%{{.*}} : {{.*}}) outs(%{{.*}} : {{.*}}) {kind = "softmax"}
func.func @npu_0(%x: memref<256x512xf32>, %row: memref<1x512xf32>, %t: memref<256x512xf32>, %y: memref<256x512xf32> {accel.output}) attributes {accel.target = "npu"} {
  accel.eltwise ins(%x, %row : memref<256x512xf32>, memref<1x512xf32>) outs(%t : memref<256x512xf32>)
  accel.eltwise ins(%t : memref<256x512xf32>) outs(%y : memref<256x512xf32>) {kind = "softmax"}
  func.return
}
