// ONNX's narrow element types import: bf16 inputs, Cast to float8 with saturate = 0 and to
// f8E8M0 with a round_mode, an int4 initializer (packed two to a byte in the TensorProto,
// unpacked; printed as values) dequantized.

// RUN: %python %S/Inputs/make_narrow_model.py casts %t.casts.onnx
// RUN: accel-opt %t.casts.onnx | filecheck %s
// CHECK:      func.func @main(%x: tensor<5xbf16> {accel.name = "x"}) -> (tensor<5xf32> {accel.name = "y"}, tensor<5xf8E4M3FN> {accel.name = "q"}, tensor<5xf8E8M0FNU> {accel.name = "e"}) {
// CHECK-NEXT:   %f = relay.cast %x : tensor<5xbf16> -> tensor<5xf32>
// CHECK-NEXT:   %q = relay.cast %f {saturate = false} : tensor<5xf32> -> tensor<5xf8E4M3FN>
// CHECK-NEXT:   %e = relay.cast %f {round_mode = "nearest"} : tensor<5xf32> -> tensor<5xf8E8M0FNU>
// CHECK-NEXT:   %w = relay.constant dense<[-8, -1, 0, 7, 3]> : tensor<5xi4>
// CHECK:        %dw = relay.qnn.dequantize %w, %s, %0 : (tensor<5xi4>, tensor<f32>, tensor<i4>) -> tensor<5xf32>

// The printed IR reads back the same (narrow constants round-trip).
// RUN: accel-opt %t.casts.onnx | accel-opt | filecheck %s

// Compiled for the npu, the casts stay on the host and call the narrow conversions.
// RUN: accel-opt %t.casts.onnx --target npu -p full -t c | filecheck %s --check-prefix=C
// C-DAG: acc_cast_narrow(ACC_BF16, {{.*}}, ACC_F32, {{.*}}, 5, 1, ACC_ROUND_UP)
// C-DAG: acc_cast_narrow(ACC_F32, {{.*}}, ACC_F8E4M3FN, {{.*}}, 5, 0, ACC_ROUND_UP)
// C-DAG: acc_cast_narrow(ACC_F32, {{.*}}, ACC_F8E8M0, {{.*}}, 5, 1, ACC_ROUND_NEAREST)

// RUN: %python %S/Inputs/make_narrow_model.py bad_round_mode %t.bad.onnx
// RUN: not accel-opt %t.bad.onnx 2>&1 | filecheck %s --check-prefix=BAD
// BAD: accel-opt: {{.*}}bad.onnx: error: node 'cast_bad' (Cast): round_mode 'sideways' is not one of up, down, nearest
// BAD-NOT: {{.}}

// RUN: %python %S/Inputs/make_narrow_model.py f8_relu %t.relu.onnx
// RUN: not accel-opt %t.relu.onnx --target npu -p full -t c 2>&1 | filecheck %s --check-prefix=RELU
// RELU: accel-opt: relu_f8: error: 'relay.nn.relu' on f8E4M3FN values is not supported: that type is storage only (cast it to a float type first)
// RELU-NOT: {{.}}
