// --time-passes prints each pass's time in xDSL's words, on stderr (stdout stays IR).
// RUN: accel-opt %s --target npu -p byoc,bufferize --time-passes 2>&1 >/dev/null | filecheck %s
// RUN: accel-opt %s --target npu -p byoc --time-passes 2>/dev/null | filecheck %s --check-prefix=IR
// CHECK:      Pass byoc took {{[0-9.e-]+}} seconds
// CHECK-NEXT: Pass bufferize took {{[0-9.e-]+}} seconds
// CHECK-NOT: Pass
// IR-NOT: took
// IR: func.func @main
func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = relay.nn.relu %x : tensor<4xf32>
  func.return %0 : tensor<4xf32>
}
