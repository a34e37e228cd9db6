// RUN: accel-opt %s --split-input-file --target %S/Inputs/npu-8k.toml -p merge-composite,annotate-target | filecheck %s

// An int8 product is not split along K (its requantization needs the whole sum): with
// K = 4096, one data row and one weight row (4096 bytes each) and the output tile (64,
// aligned) need 8256 bytes, more than the 8 KiB scratchpad, so the QDQ dense stays on
// the host.
// CHECK-LABEL: func.func @int8_dense
// CHECK:         relay.composite "npu-8k.qdense" ({{.*}}) {accel.target = "host", accel.reason = "npu-8k: 'accel.matmul' needs 8256 bytes of scratchpad even with one row and one output feature per tile (int8 products are not split along K); the scratchpad has 8192"}
func.func @int8_dense(%x: tensor<1x4096xf32>) -> tensor<1x16xf32> {
  %xs = relay.constant dense<0.05> : tensor<f32>
  %xz = relay.constant dense<0> : tensor<i8>
  %q = relay.qnn.quantize %x, %xs, %xz : (tensor<1x4096xf32>, tensor<f32>, tensor<i8>) -> tensor<1x4096xi8>
  %dq = relay.qnn.dequantize %q, %xs, %xz : (tensor<1x4096xi8>, tensor<f32>, tensor<i8>) -> tensor<1x4096xf32>
  %w = relay.constant dense<3> : tensor<16x4096xi8>
  %ws = relay.constant dense<0.01> : tensor<16xf32>
  %wz = relay.constant dense<0> : tensor<16xi8>
  %dw = relay.qnn.dequantize %w, %ws, %wz {axis = 0} : (tensor<16x4096xi8>, tensor<16xf32>, tensor<16xi8>) -> tensor<16x4096xf32>
  %d = relay.nn.dense %dq, %dw : (tensor<1x4096xf32>, tensor<16x4096xf32>) -> tensor<1x16xf32>
  %ys = relay.constant dense<0.1> : tensor<f32>
  %yz = relay.constant dense<0> : tensor<i8>
  %y = relay.qnn.quantize %d, %ys, %yz : (tensor<1x16xf32>, tensor<f32>, tensor<i8>) -> tensor<1x16xi8>
  %out = relay.qnn.dequantize %y, %ys, %yz : (tensor<1x16xi8>, tensor<f32>, tensor<i8>) -> tensor<1x16xf32>
  func.return %out : tensor<1x16xf32>
}

// -----

// The same product in float is split along K (the npu accumulates): it goes to the npu.
// CHECK-LABEL: func.func @float_dense
// CHECK:         relay.composite "npu-8k.dense_bias" (%x, %w, %b) {accel.target = "npu-8k"}
func.func @float_dense(%x: tensor<1x4096xf32>) -> tensor<1x16xf32> {
  %w = relay.constant dense<0.5> : tensor<16x4096xf32>
  %b = relay.constant dense<0.5> : tensor<16xf32>
  %d = relay.nn.dense %x, %w : (tensor<1x4096xf32>, tensor<16x4096xf32>) -> tensor<1x16xf32>
  %y = relay.nn.bias_add %d, %b : (tensor<1x16xf32>, tensor<16xf32>) -> tensor<1x16xf32>
  func.return %y : tensor<1x16xf32>
}
