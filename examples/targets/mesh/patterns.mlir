// Mesh NPU composites: relay IR patterns (accel's pattern language: see the compiler's docs/targets.md).

func.func @qconv2d_bias_relu(
    %x: tensor<*xi8>,
    %xs: tensor<*xf32> {accel.constant},
    %xz: tensor<*xi8> {accel.constant},
    %w: tensor<*xi8> {accel.constant},
    %ws: tensor<*xf32> {accel.constant},
    %wz: tensor<*xi8> {accel.constant},
    %b: tensor<*xi32> {accel.constant},
    %bs: tensor<*xf32> {accel.constant},
    %bz: tensor<*xi32> {accel.constant},
    %ys: tensor<*xf32> {accel.constant},
    %yz: tensor<*xi8> {accel.constant}) -> tensor<*xi8> {
  %xf = relay.qnn.dequantize %x, %xs, %xz {accel.duplicate} : (tensor<*xi8>, tensor<*xf32>, tensor<*xi8>) -> tensor<*xf32>
  %wf = relay.qnn.dequantize %w, %ws, %wz {accel.duplicate} : (tensor<*xi8>, tensor<*xf32>, tensor<*xi8>) -> tensor<*xf32>
  %bf = relay.qnn.dequantize %b, %bs, %bz {accel.duplicate} : (tensor<*xi32>, tensor<*xf32>, tensor<*xi32>) -> tensor<*xf32>
  %0 = relay.nn.conv2d %xf, %wf : (tensor<*xf32>, tensor<*xf32>) -> tensor<*xf32>
  %1 = relay.nn.bias_add %0, %bf : (tensor<*xf32>, tensor<*xf32>) -> tensor<*xf32>
  %2 = relay.nn.relu %1 : tensor<*xf32>
  %y = relay.qnn.quantize %2, %ys, %yz : (tensor<*xf32>, tensor<*xf32>, tensor<*xi8>) -> tensor<*xi8>
  func.return %y : tensor<*xi8>
}

func.func @qconv2d_bias(
    %x: tensor<*xi8>,
    %xs: tensor<*xf32> {accel.constant},
    %xz: tensor<*xi8> {accel.constant},
    %w: tensor<*xi8> {accel.constant},
    %ws: tensor<*xf32> {accel.constant},
    %wz: tensor<*xi8> {accel.constant},
    %b: tensor<*xi32> {accel.constant},
    %bs: tensor<*xf32> {accel.constant},
    %bz: tensor<*xi32> {accel.constant},
    %ys: tensor<*xf32> {accel.constant},
    %yz: tensor<*xi8> {accel.constant}) -> tensor<*xi8> {
  %xf = relay.qnn.dequantize %x, %xs, %xz {accel.duplicate} : (tensor<*xi8>, tensor<*xf32>, tensor<*xi8>) -> tensor<*xf32>
  %wf = relay.qnn.dequantize %w, %ws, %wz {accel.duplicate} : (tensor<*xi8>, tensor<*xf32>, tensor<*xi8>) -> tensor<*xf32>
  %bf = relay.qnn.dequantize %b, %bs, %bz {accel.duplicate} : (tensor<*xi32>, tensor<*xf32>, tensor<*xi32>) -> tensor<*xf32>
  %0 = relay.nn.conv2d %xf, %wf : (tensor<*xf32>, tensor<*xf32>) -> tensor<*xf32>
  %1 = relay.nn.bias_add %0, %bf : (tensor<*xf32>, tensor<*xf32>) -> tensor<*xf32>
  %y = relay.qnn.quantize %1, %ys, %yz : (tensor<*xf32>, tensor<*xf32>, tensor<*xi8>) -> tensor<*xi8>
  func.return %y : tensor<*xi8>
}

func.func @qdense_bias_relu(
    %x: tensor<*xi8>,
    %xs: tensor<*xf32> {accel.constant},
    %xz: tensor<*xi8> {accel.constant},
    %w: tensor<*xi8> {accel.constant},
    %ws: tensor<*xf32> {accel.constant},
    %wz: tensor<*xi8> {accel.constant},
    %b: tensor<*xi32> {accel.constant},
    %bs: tensor<*xf32> {accel.constant},
    %bz: tensor<*xi32> {accel.constant},
    %ys: tensor<*xf32> {accel.constant},
    %yz: tensor<*xi8> {accel.constant}) -> tensor<*xi8> {
  %xf = relay.qnn.dequantize %x, %xs, %xz {accel.duplicate} : (tensor<*xi8>, tensor<*xf32>, tensor<*xi8>) -> tensor<*xf32>
  %wf = relay.qnn.dequantize %w, %ws, %wz {accel.duplicate} : (tensor<*xi8>, tensor<*xf32>, tensor<*xi8>) -> tensor<*xf32>
  %bf = relay.qnn.dequantize %b, %bs, %bz {accel.duplicate} : (tensor<*xi32>, tensor<*xf32>, tensor<*xi32>) -> tensor<*xf32>
  %0 = relay.nn.dense %xf, %wf : (tensor<*xf32>, tensor<*xf32>) -> tensor<*xf32>
  %1 = relay.nn.bias_add %0, %bf : (tensor<*xf32>, tensor<*xf32>) -> tensor<*xf32>
  %2 = relay.nn.relu %1 : tensor<*xf32>
  %y = relay.qnn.quantize %2, %ys, %yz : (tensor<*xf32>, tensor<*xf32>, tensor<*xi8>) -> tensor<*xi8>
  func.return %y : tensor<*xi8>
}

func.func @qdense_bias(
    %x: tensor<*xi8>,
    %xs: tensor<*xf32> {accel.constant},
    %xz: tensor<*xi8> {accel.constant},
    %w: tensor<*xi8> {accel.constant},
    %ws: tensor<*xf32> {accel.constant},
    %wz: tensor<*xi8> {accel.constant},
    %b: tensor<*xi32> {accel.constant},
    %bs: tensor<*xf32> {accel.constant},
    %bz: tensor<*xi32> {accel.constant},
    %ys: tensor<*xf32> {accel.constant},
    %yz: tensor<*xi8> {accel.constant}) -> tensor<*xi8> {
  %xf = relay.qnn.dequantize %x, %xs, %xz {accel.duplicate} : (tensor<*xi8>, tensor<*xf32>, tensor<*xi8>) -> tensor<*xf32>
  %wf = relay.qnn.dequantize %w, %ws, %wz {accel.duplicate} : (tensor<*xi8>, tensor<*xf32>, tensor<*xi8>) -> tensor<*xf32>
  %bf = relay.qnn.dequantize %b, %bs, %bz {accel.duplicate} : (tensor<*xi32>, tensor<*xf32>, tensor<*xi32>) -> tensor<*xf32>
  %0 = relay.nn.dense %xf, %wf : (tensor<*xf32>, tensor<*xf32>) -> tensor<*xf32>
  %1 = relay.nn.bias_add %0, %bf : (tensor<*xf32>, tensor<*xf32>) -> tensor<*xf32>
  %y = relay.qnn.quantize %1, %ys, %yz : (tensor<*xf32>, tensor<*xf32>, tensor<*xi8>) -> tensor<*xi8>
  func.return %y : tensor<*xi8>
}

func.func @qadd_relu(
    %a: tensor<*xi8>,
    %as: tensor<*xf32> {accel.constant},
    %az: tensor<*xi8> {accel.constant},
    %b: tensor<*xi8>,
    %bs: tensor<*xf32> {accel.constant},
    %bz: tensor<*xi8> {accel.constant},
    %ys: tensor<*xf32> {accel.constant},
    %yz: tensor<*xi8> {accel.constant}) -> tensor<*xi8> {
  %af = relay.qnn.dequantize %a, %as, %az {accel.duplicate} : (tensor<*xi8>, tensor<*xf32>, tensor<*xi8>) -> tensor<*xf32>
  %bf = relay.qnn.dequantize %b, %bs, %bz {accel.duplicate} : (tensor<*xi8>, tensor<*xf32>, tensor<*xi8>) -> tensor<*xf32>
  %0 = relay.add %af, %bf : tensor<*xf32>
  %1 = relay.nn.relu %0 : tensor<*xf32>
  %y = relay.qnn.quantize %1, %ys, %yz : (tensor<*xf32>, tensor<*xf32>, tensor<*xi8>) -> tensor<*xi8>
  func.return %y : tensor<*xi8>
}

func.func @qadd(
    %a: tensor<*xi8>,
    %as: tensor<*xf32> {accel.constant},
    %az: tensor<*xi8> {accel.constant},
    %b: tensor<*xi8>,
    %bs: tensor<*xf32> {accel.constant},
    %bz: tensor<*xi8> {accel.constant},
    %ys: tensor<*xf32> {accel.constant},
    %yz: tensor<*xi8> {accel.constant}) -> tensor<*xi8> {
  %af = relay.qnn.dequantize %a, %as, %az {accel.duplicate} : (tensor<*xi8>, tensor<*xf32>, tensor<*xi8>) -> tensor<*xf32>
  %bf = relay.qnn.dequantize %b, %bs, %bz {accel.duplicate} : (tensor<*xi8>, tensor<*xf32>, tensor<*xi8>) -> tensor<*xf32>
  %0 = relay.add %af, %bf : tensor<*xf32>
  %y = relay.qnn.quantize %0, %ys, %yz : (tensor<*xf32>, tensor<*xf32>, tensor<*xi8>) -> tensor<*xi8>
  func.return %y : tensor<*xi8>
}

func.func @qmaxpool(
    %x: tensor<*xi8>,
    %xs: tensor<*xf32> {accel.constant},
    %xz: tensor<*xi8> {accel.constant},
    %ys: tensor<*xf32> {accel.constant},
    %yz: tensor<*xi8> {accel.constant}) -> tensor<*xi8> {
  %xf = relay.qnn.dequantize %x, %xs, %xz {accel.duplicate} : (tensor<*xi8>, tensor<*xf32>, tensor<*xi8>) -> tensor<*xf32>
  %0 = relay.nn.max_pool2d %xf : tensor<*xf32>
  %y = relay.qnn.quantize %0, %ys, %yz : (tensor<*xf32>, tensor<*xf32>, tensor<*xi8>) -> tensor<*xi8>
  func.return %y : tensor<*xi8>
}

func.func @conv2d_bias_relu(
    %x: tensor<*xf32>,
    %w: tensor<*xf32> {accel.constant},
    %b: tensor<*xf32> {accel.constant}) -> tensor<*xf32> {
  %0 = relay.nn.conv2d %x, %w : (tensor<*xf32>, tensor<*xf32>) -> tensor<*xf32>
  %1 = relay.nn.bias_add %0, %b : (tensor<*xf32>, tensor<*xf32>) -> tensor<*xf32>
  %2 = relay.nn.relu %1 : tensor<*xf32>
  func.return %2 : tensor<*xf32>
}

func.func @conv2d_bias(
    %x: tensor<*xf32>,
    %w: tensor<*xf32> {accel.constant},
    %b: tensor<*xf32> {accel.constant}) -> tensor<*xf32> {
  %0 = relay.nn.conv2d %x, %w : (tensor<*xf32>, tensor<*xf32>) -> tensor<*xf32>
  %1 = relay.nn.bias_add %0, %b : (tensor<*xf32>, tensor<*xf32>) -> tensor<*xf32>
  func.return %1 : tensor<*xf32>
}

func.func @dense_bias_relu(
    %x: tensor<*xf32>,
    %w: tensor<*xf32> {accel.constant},
    %b: tensor<*xf32> {accel.constant}) -> tensor<*xf32> {
  %0 = relay.nn.dense %x, %w : (tensor<*xf32>, tensor<*xf32>) -> tensor<*xf32>
  %1 = relay.nn.bias_add %0, %b : (tensor<*xf32>, tensor<*xf32>) -> tensor<*xf32>
  %2 = relay.nn.relu %1 : tensor<*xf32>
  func.return %2 : tensor<*xf32>
}

func.func @dense_bias(
    %x: tensor<*xf32>,
    %w: tensor<*xf32> {accel.constant},
    %b: tensor<*xf32> {accel.constant}) -> tensor<*xf32> {
  %0 = relay.nn.dense %x, %w : (tensor<*xf32>, tensor<*xf32>) -> tensor<*xf32>
  %1 = relay.nn.bias_add %0, %b : (tensor<*xf32>, tensor<*xf32>) -> tensor<*xf32>
  func.return %1 : tensor<*xf32>
}

func.func @add_relu(
    %a: tensor<*xf32>,
    %b: tensor<*xf32>) -> tensor<*xf32> {
  %0 = relay.add %a, %b : tensor<*xf32>
  %1 = relay.nn.relu %0 : tensor<*xf32>
  func.return %1 : tensor<*xf32>
}
