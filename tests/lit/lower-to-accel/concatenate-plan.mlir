// RUN: accel-opt %s --target npu -p 'byoc{cost-model=false},bufferize,plan-memory,lower-to-accel' | filecheck %s
// RUN: not accel-opt %s --target npu -p 'byoc{cost-model=false},bufferize,plan-memory,lower-to-accel' -t c 2>&1 | filecheck %s --check-prefix=UNPLANNED
// RUN: accel-opt %s --target npu -p 'byoc{cost-model=false},bufferize,plan-memory,lower-to-accel,plan-memory' | filecheck %s --check-prefix=PLANNED

// The concatenation's buffer now lives from its first producer on, no longer from where
// plan-memory saw it allocated: its host offset (shared with the second relu's, whose
// life ended before the old allocation) would overlap that relu's buffer, which is live
// in between. It loses the offset (the next plan-memory places it, as the buffers
// lowering adds); buffers whose lives did not change keep theirs.
// CHECK-LABEL: func.func private @npu_0
// CHECK:         %[[C:.*]] = memref.alloc() : memref<2x1x3x3xf32>
// CHECK:         %[[V0:.*]] = memref.subview %[[C]][0, 0, 0, 0] [1, 1, 3, 3]
// CHECK:         accel.conv2d ins({{.*}}) outs(%[[V0]] : {{.*}})
// CHECK:         %[[R:.*]] = memref.alloc() {accel.offset = {{[0-9]+}} : i64} : memref<1x1x3x3xf32>
// CHECK:         accel.eltwise ins(%[[V0]] : {{.*}}) outs(%[[R]] : {{.*}}) {kind = "relu"}
func.func @main(%x: tensor<1x1x3x3xf32>) -> tensor<2x1x3x3xf32> {
  %p = relay.nn.max_pool2d %x {pool_size = [1, 1]} : (tensor<1x1x3x3xf32>) -> tensor<1x1x3x3xf32>
  %w1 = relay.constant dense<0.5> : tensor<1x1x1x1xf32>
  %a = relay.nn.conv2d %p, %w1 : (tensor<1x1x3x3xf32>, tensor<1x1x1x1xf32>) -> tensor<1x1x3x3xf32>
  %r1 = relay.nn.relu %a : tensor<1x1x3x3xf32>
  %r2 = relay.nn.relu %r1 : tensor<1x1x3x3xf32>
  %w2 = relay.constant dense<-0.25> : tensor<1x1x1x1xf32>
  %b = relay.nn.conv2d %r2, %w2 : (tensor<1x1x3x3xf32>, tensor<1x1x1x1xf32>) -> tensor<1x1x3x3xf32>
  %c = relay.concatenate %a, %b : (tensor<1x1x3x3xf32>, tensor<1x1x3x3xf32>) -> tensor<2x1x3x3xf32>
  %w3 = relay.constant dense<-0.75> : tensor<1x1x1x1xf32>
  %y = relay.nn.conv2d %c, %w3 : (tensor<2x1x3x3xf32>, tensor<1x1x1x1xf32>) -> tensor<2x1x3x3xf32>
  func.return %y : tensor<2x1x3x3xf32>
}
// Emitting C needs every host buffer planned: one line says which pass to run.
// UNPLANNED: error: a host buffer has no planned offset (run plan-memory)
// After plan-memory again, the buffer has an offset of its own.
// PLANNED-LABEL: func.func private @npu_0
// PLANNED:       memref.alloc() {accel.offset = {{[0-9]+}} : i64} : memref<2x1x3x3xf32>
