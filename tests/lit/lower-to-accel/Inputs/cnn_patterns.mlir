// Patterns of cnn.toml: bodies of several fused forms.

func.func @qconv2d_bias_relu_maxpool(
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
    %yz: tensor<*xi8> {accel.constant},
    %ps: tensor<*xf32> {accel.constant},
    %pz: tensor<*xi8> {accel.constant}) -> tensor<*xi8> {
  %xf = relay.qnn.dequantize %x, %xs, %xz {accel.duplicate} : (tensor<*xi8>, tensor<*xf32>, tensor<*xi8>) -> tensor<*xf32>
  %wf = relay.qnn.dequantize %w, %ws, %wz {accel.duplicate} : (tensor<*xi8>, tensor<*xf32>, tensor<*xi8>) -> tensor<*xf32>
  %bf = relay.qnn.dequantize %b, %bs, %bz {accel.duplicate} : (tensor<*xi32>, tensor<*xf32>, tensor<*xi32>) -> tensor<*xf32>
  %0 = relay.nn.conv2d %xf, %wf : (tensor<*xf32>, tensor<*xf32>) -> tensor<*xf32>
  %1 = relay.nn.bias_add %0, %bf : (tensor<*xf32>, tensor<*xf32>) -> tensor<*xf32>
  %2 = relay.nn.relu %1 : tensor<*xf32>
  %3 = relay.qnn.quantize %2, %ys, %yz : (tensor<*xf32>, tensor<*xf32>, tensor<*xi8>) -> tensor<*xi8>
  %4 = relay.qnn.dequantize %3, %ys, %yz : (tensor<*xi8>, tensor<*xf32>, tensor<*xi8>) -> tensor<*xf32>
  %5 = relay.nn.max_pool2d %4 : tensor<*xf32>
  %y = relay.qnn.quantize %5, %ps, %pz : (tensor<*xf32>, tensor<*xf32>, tensor<*xi8>) -> tensor<*xi8>
  func.return %y : tensor<*xi8>
}

func.func @conv2d_bias_relu_maxpool(
    %x: tensor<*xf32>,
    %w: tensor<*xf32> {accel.constant},
    %b: tensor<*xf32> {accel.constant}) -> tensor<*xf32> {
  %0 = relay.nn.conv2d %x, %w : (tensor<*xf32>, tensor<*xf32>) -> tensor<*xf32>
  %1 = relay.nn.bias_add %0, %b : (tensor<*xf32>, tensor<*xf32>) -> tensor<*xf32>
  %2 = relay.nn.relu %1 : tensor<*xf32>
  %3 = relay.nn.max_pool2d %2 : tensor<*xf32>
  func.return %3 : tensor<*xf32>
}

func.func @conv2d_erf(
    %x: tensor<*xf32>,
    %w: tensor<*xf32> {accel.constant}) -> tensor<*xf32> {
  %0 = relay.nn.conv2d %x, %w : (tensor<*xf32>, tensor<*xf32>) -> tensor<*xf32>
  %1 = relay.erf %0 : tensor<*xf32>
  func.return %1 : tensor<*xf32>
}

func.func @conv2d_bias(
    %x: tensor<*xf32>,
    %w: tensor<*xf32> {accel.constant},
    %b: tensor<*xf32> {accel.constant}) -> tensor<*xf32> {
  %0 = relay.nn.conv2d %x, %w : (tensor<*xf32>, tensor<*xf32>) -> tensor<*xf32>
  %1 = relay.nn.bias_add %0, %b : (tensor<*xf32>, tensor<*xf32>) -> tensor<*xf32>
  func.return %1 : tensor<*xf32>
}

func.func @conv2d_relu_pool_add(
    %x: tensor<*xf32>,
    %w: tensor<*xf32> {accel.constant}) -> tensor<*xf32> {
  %0 = relay.nn.conv2d %x, %w : (tensor<*xf32>, tensor<*xf32>) -> tensor<*xf32>
  %1 = relay.nn.relu %0 : tensor<*xf32>
  %2 = relay.nn.max_pool2d %1 : tensor<*xf32>
  %3 = relay.add %1, %2 : tensor<*xf32>
  func.return %3 : tensor<*xf32>
}
