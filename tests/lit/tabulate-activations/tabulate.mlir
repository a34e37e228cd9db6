// tabulate-activations: an int8 activation between a dequantize and a quantize becomes a
// lookup in a table of its 256 values (entry b: the value whose byte is b).
// RUN: accel-opt %s --split-input-file --target npu -p tabulate-activations | filecheck %s
// RUN: accel-opt %s --split-input-file --target npu -p 'byoc{cost-model=false},bufferize,lower-to-accel' | filecheck %s --check-prefix=LOWER
// RUN: accel-opt %s --split-input-file --target npu -p 'byoc{cost-model=false},lower' -t c | filecheck %s --check-prefix=C

// A hard-swish of int8 data: x * relu6(x + 3) / 6 on the 256 values; zero point 0 and
// scale 1/16: byte 0 is 0, byte 16 (x = 1) is 1 * 4 / 6 = 0.667, quantized by 1/32: 21
// (0x15); byte 255 (x = -1/16) is -0.0306 -> -1 (0xFF).
// CHECK-LABEL: func.func @main(%q: tensor<1x8x4x4xi8>)
// CHECK-NEXT:    %0 = relay.constant dense<"0x0001020304060708090B0C0E0F11121415{{[0-9A-F]+}}FF"> : tensor<256xi8>
// CHECK-NEXT:    %y = relay.take %0, %q : (tensor<256xi8>, tensor<1x8x4x4xi8>) -> tensor<1x8x4x4xi8>
// CHECK-NEXT:    func.return %y
// LOWER-LABEL: func.func private @npu_0
// LOWER:         accel.eltwise ins(%q : memref<1x8x4x4xi8>) outs(%out0 : memref<1x8x4x4xi8>) {kind = "lut", table = [0, 1, 2, 3, 4, 6,
// C-LABEL:     ===== npu_wrappers.c =====
// C:           static const int32_t [[T:k[0-9]+]][] = {0, 1, 2, 3, 4, 6, 7, 8, 9, 11, 12, 14, 15, 17, 18, 20, 21,
// C-SAME:        -1};
// C:           {.kind = NPU_ELTWISE_LUT, {{.*}}, .table = [[T]],
// C:           npu_eltwise_s8({{.*}}, NULL, {{.*}}
func.func @main(%q: tensor<1x8x4x4xi8>) -> tensor<1x8x4x4xi8> {
  %s = relay.constant dense<0.0625> : tensor<f32>
  %z = relay.constant dense<0> : tensor<i8>
  %ys = relay.constant dense<0.03125> : tensor<f32>
  %x = relay.qnn.dequantize %q, %s, %z : (tensor<1x8x4x4xi8>, tensor<f32>, tensor<i8>) -> tensor<1x8x4x4xf32>
  %h = relay.nn.hardswish %x : tensor<1x8x4x4xf32>
  %y = relay.qnn.quantize %h, %ys, %z : (tensor<1x8x4x4xf32>, tensor<f32>, tensor<i8>) -> tensor<1x8x4x4xi8>
  func.return %y : tensor<1x8x4x4xi8>
}

// -----

// A DAG (x * hardsigmoid(x), as expand-activations would write it, with scalar
// constants), uint8 in and out: one table.
// CHECK-LABEL: func.func @main(%q: tensor<2x16xui8>)
// CHECK-NEXT:    %0 = relay.constant dense<"0x{{[0-9A-F]+}}"> : tensor<256xui8>
// CHECK-NEXT:    %y = relay.take %0, %q : (tensor<256xui8>, tensor<2x16xui8>) -> tensor<2x16xui8>
// CHECK-NEXT:    func.return %y
// LOWER-LABEL: func.func private @npu_0
// LOWER:         accel.eltwise ins(%q : memref<2x16xui8>) outs(%out0 : memref<2x16xui8>) {kind = "lut", table = [
func.func @main(%q: tensor<2x16xui8>) -> tensor<2x16xui8> {
  %s = relay.constant dense<0.05> : tensor<f32>
  %z = relay.constant dense<128> : tensor<ui8>
  %three = relay.constant dense<3.0> : tensor<f32>
  %sixth = relay.constant dense<0.16666667> : tensor<f32>
  %ys = relay.constant dense<0.04> : tensor<f32>
  %yz = relay.constant dense<20> : tensor<ui8>
  %x = relay.qnn.dequantize %q, %s, %z : (tensor<2x16xui8>, tensor<f32>, tensor<ui8>) -> tensor<2x16xf32>
  %a = relay.add %x, %three : (tensor<2x16xf32>, tensor<f32>) -> tensor<2x16xf32>
  %c = relay.clip %a {a_min = 0.0, a_max = 6.0} : tensor<2x16xf32>
  %d = relay.multiply %c, %sixth : (tensor<2x16xf32>, tensor<f32>) -> tensor<2x16xf32>
  %m = relay.multiply %x, %d : tensor<2x16xf32>
  %y = relay.qnn.quantize %m, %ys, %yz : (tensor<2x16xf32>, tensor<f32>, tensor<ui8>) -> tensor<2x16xui8>
  func.return %y : tensor<2x16xui8>
}

// -----

// Not tabulated: a value of the activation read outside it (%h), a per-channel
// dequantize, a constant that is not a scalar (a per-channel offset), a sigmoid (the
// npu's qsigmoid pattern takes it), an op the user placed on the host.
// CHECK-LABEL: func.func @main(%q: tensor<1x4x2x2xi8>)
// CHECK-NOT:     relay.take
func.func @main(%q: tensor<1x4x2x2xi8>) -> (tensor<1x4x2x2xi8>, tensor<1x4x2x2xf32>, tensor<1x4x2x2xi8>, tensor<1x4x2x2xi8>, tensor<1x4x2x2xi8>, tensor<1x4x2x2xi8>) {
  %s = relay.constant dense<0.05> : tensor<f32>
  %z = relay.constant dense<0> : tensor<i8>
  %cs = relay.constant dense<0.05> : tensor<4xf32>
  %cz = relay.constant dense<0> : tensor<4xi8>
  %off = relay.constant dense<[[[[1.0]], [[2.0]], [[3.0]], [[4.0]]]]> : tensor<1x4x1x1xf32>
  %x = relay.qnn.dequantize %q, %s, %z : (tensor<1x4x2x2xi8>, tensor<f32>, tensor<i8>) -> tensor<1x4x2x2xf32>
  %h = relay.nn.hardswish %x : tensor<1x4x2x2xf32>
  %y0 = relay.qnn.quantize %h, %s, %z : (tensor<1x4x2x2xf32>, tensor<f32>, tensor<i8>) -> tensor<1x4x2x2xi8>
  %pc = relay.qnn.dequantize %q, %cs, %cz {axis = 1} : (tensor<1x4x2x2xi8>, tensor<4xf32>, tensor<4xi8>) -> tensor<1x4x2x2xf32>
  %h1 = relay.nn.hardswish %pc : tensor<1x4x2x2xf32>
  %y1 = relay.qnn.quantize %h1, %s, %z : (tensor<1x4x2x2xf32>, tensor<f32>, tensor<i8>) -> tensor<1x4x2x2xi8>
  %a = relay.add %x, %off : (tensor<1x4x2x2xf32>, tensor<1x4x1x1xf32>) -> tensor<1x4x2x2xf32>
  %y2 = relay.qnn.quantize %a, %s, %z : (tensor<1x4x2x2xf32>, tensor<f32>, tensor<i8>) -> tensor<1x4x2x2xi8>
  %g = relay.sigmoid %x : tensor<1x4x2x2xf32>
  %y3 = relay.qnn.quantize %g, %s, %z : (tensor<1x4x2x2xf32>, tensor<f32>, tensor<i8>) -> tensor<1x4x2x2xi8>
  %e = relay.nn.leaky_relu %x {alpha = 0.1, accel.target = "host"} : tensor<1x4x2x2xf32>
  %y4 = relay.qnn.quantize %e, %s, %z : (tensor<1x4x2x2xf32>, tensor<f32>, tensor<i8>) -> tensor<1x4x2x2xi8>
  func.return %y0, %h, %y1, %y2, %y3, %y4 : tensor<1x4x2x2xi8>, tensor<1x4x2x2xf32>, tensor<1x4x2x2xi8>, tensor<1x4x2x2xi8>, tensor<1x4x2x2xi8>, tensor<1x4x2x2xi8>
}
