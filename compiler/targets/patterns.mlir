// Composite patterns of the built-in targets (see docs/targets.md, "Patterns as IR").
//
// Each function is one pattern: its arguments are wildcards ({accel.constant}: must be a
// relay.constant), its body is the DAG to match, the returned value is the root. Types
// are placeholders and do not take part in matching. {accel.duplicate} on a dequantize
// lets a QDQ model's shared dequantize feed several composites (each gets a copy).

// ---- int8 conv2d: QDQ form of onnxruntime's quantize_static ----

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

func.func @qconv2d_relu(
    %x: tensor<*xi8>,
    %xs: tensor<*xf32> {accel.constant},
    %xz: tensor<*xi8> {accel.constant},
    %w: tensor<*xi8> {accel.constant},
    %ws: tensor<*xf32> {accel.constant},
    %wz: tensor<*xi8> {accel.constant},
    %ys: tensor<*xf32> {accel.constant},
    %yz: tensor<*xi8> {accel.constant}) -> tensor<*xi8> {
  %xf = relay.qnn.dequantize %x, %xs, %xz {accel.duplicate} : (tensor<*xi8>, tensor<*xf32>, tensor<*xi8>) -> tensor<*xf32>
  %wf = relay.qnn.dequantize %w, %ws, %wz {accel.duplicate} : (tensor<*xi8>, tensor<*xf32>, tensor<*xi8>) -> tensor<*xf32>
  %0 = relay.nn.conv2d %xf, %wf : (tensor<*xf32>, tensor<*xf32>) -> tensor<*xf32>
  %2 = relay.nn.relu %0 : tensor<*xf32>
  %y = relay.qnn.quantize %2, %ys, %yz : (tensor<*xf32>, tensor<*xf32>, tensor<*xi8>) -> tensor<*xi8>
  func.return %y : tensor<*xi8>
}

func.func @qconv2d(
    %x: tensor<*xi8>,
    %xs: tensor<*xf32> {accel.constant},
    %xz: tensor<*xi8> {accel.constant},
    %w: tensor<*xi8> {accel.constant},
    %ws: tensor<*xf32> {accel.constant},
    %wz: tensor<*xi8> {accel.constant},
    %ys: tensor<*xf32> {accel.constant},
    %yz: tensor<*xi8> {accel.constant}) -> tensor<*xi8> {
  %xf = relay.qnn.dequantize %x, %xs, %xz {accel.duplicate} : (tensor<*xi8>, tensor<*xf32>, tensor<*xi8>) -> tensor<*xf32>
  %wf = relay.qnn.dequantize %w, %ws, %wz {accel.duplicate} : (tensor<*xi8>, tensor<*xf32>, tensor<*xi8>) -> tensor<*xf32>
  %0 = relay.nn.conv2d %xf, %wf : (tensor<*xf32>, tensor<*xf32>) -> tensor<*xf32>
  %y = relay.qnn.quantize %0, %ys, %yz : (tensor<*xf32>, tensor<*xf32>, tensor<*xi8>) -> tensor<*xi8>
  func.return %y : tensor<*xi8>
}

// ---- int8 dense: QDQ form of onnxruntime's quantize_static ----

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

func.func @qdense_relu(
    %x: tensor<*xi8>,
    %xs: tensor<*xf32> {accel.constant},
    %xz: tensor<*xi8> {accel.constant},
    %w: tensor<*xi8> {accel.constant},
    %ws: tensor<*xf32> {accel.constant},
    %wz: tensor<*xi8> {accel.constant},
    %ys: tensor<*xf32> {accel.constant},
    %yz: tensor<*xi8> {accel.constant}) -> tensor<*xi8> {
  %xf = relay.qnn.dequantize %x, %xs, %xz {accel.duplicate} : (tensor<*xi8>, tensor<*xf32>, tensor<*xi8>) -> tensor<*xf32>
  %wf = relay.qnn.dequantize %w, %ws, %wz {accel.duplicate} : (tensor<*xi8>, tensor<*xf32>, tensor<*xi8>) -> tensor<*xf32>
  %0 = relay.nn.dense %xf, %wf : (tensor<*xf32>, tensor<*xf32>) -> tensor<*xf32>
  %2 = relay.nn.relu %0 : tensor<*xf32>
  %y = relay.qnn.quantize %2, %ys, %yz : (tensor<*xf32>, tensor<*xf32>, tensor<*xi8>) -> tensor<*xi8>
  func.return %y : tensor<*xi8>
}

func.func @qdense(
    %x: tensor<*xi8>,
    %xs: tensor<*xf32> {accel.constant},
    %xz: tensor<*xi8> {accel.constant},
    %w: tensor<*xi8> {accel.constant},
    %ws: tensor<*xf32> {accel.constant},
    %wz: tensor<*xi8> {accel.constant},
    %ys: tensor<*xf32> {accel.constant},
    %yz: tensor<*xi8> {accel.constant}) -> tensor<*xi8> {
  %xf = relay.qnn.dequantize %x, %xs, %xz {accel.duplicate} : (tensor<*xi8>, tensor<*xf32>, tensor<*xi8>) -> tensor<*xf32>
  %wf = relay.qnn.dequantize %w, %ws, %wz {accel.duplicate} : (tensor<*xi8>, tensor<*xf32>, tensor<*xi8>) -> tensor<*xf32>
  %0 = relay.nn.dense %xf, %wf : (tensor<*xf32>, tensor<*xf32>) -> tensor<*xf32>
  %y = relay.qnn.quantize %0, %ys, %yz : (tensor<*xf32>, tensor<*xf32>, tensor<*xi8>) -> tensor<*xi8>
  func.return %y : tensor<*xi8>
}

// ---- int8 products of two activations (attention's QK^T and PV): QDQ on both inputs ----

func.func @qbatch_matmul(
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
  %0 = relay.nn.batch_matmul %af, %bf : (tensor<*xf32>, tensor<*xf32>) -> tensor<*xf32>
  %y = relay.qnn.quantize %0, %ys, %yz : (tensor<*xf32>, tensor<*xf32>, tensor<*xi8>) -> tensor<*xi8>
  func.return %y : tensor<*xi8>
}

// ---- int8 elementwise and pooling ----

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

func.func @qmultiply(
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
  %0 = relay.multiply %af, %bf : tensor<*xf32>
  %y = relay.qnn.quantize %0, %ys, %yz : (tensor<*xf32>, tensor<*xf32>, tensor<*xi8>) -> tensor<*xi8>
  func.return %y : tensor<*xi8>
}

func.func @qglobal_avgpool(
    %x: tensor<*xi8>,
    %xs: tensor<*xf32> {accel.constant},
    %xz: tensor<*xi8> {accel.constant},
    %ys: tensor<*xf32> {accel.constant},
    %yz: tensor<*xi8> {accel.constant}) -> tensor<*xi8> {
  %xf = relay.qnn.dequantize %x, %xs, %xz {accel.duplicate} : (tensor<*xi8>, tensor<*xf32>, tensor<*xi8>) -> tensor<*xf32>
  %0 = relay.nn.global_avg_pool2d %xf : tensor<*xf32>
  %y = relay.qnn.quantize %0, %ys, %yz : (tensor<*xf32>, tensor<*xf32>, tensor<*xi8>) -> tensor<*xi8>
  func.return %y : tensor<*xi8>
}

// int8 row ops (a QDQ transformer's softmax and norms between a dequantize and a
// quantize): each row dequantized, computed in float, quantized; gamma and beta float.
func.func @qsoftmax(
    %x: tensor<*xi8>,
    %xs: tensor<*xf32> {accel.constant},
    %xz: tensor<*xi8> {accel.constant},
    %ys: tensor<*xf32> {accel.constant},
    %yz: tensor<*xi8> {accel.constant}) -> tensor<*xi8> {
  %xf = relay.qnn.dequantize %x, %xs, %xz {accel.duplicate} : (tensor<*xi8>, tensor<*xf32>, tensor<*xi8>) -> tensor<*xf32>
  %0 = relay.nn.softmax %xf : tensor<*xf32>
  %y = relay.qnn.quantize %0, %ys, %yz : (tensor<*xf32>, tensor<*xf32>, tensor<*xi8>) -> tensor<*xi8>
  func.return %y : tensor<*xi8>
}

func.func @qlayer_norm(
    %x: tensor<*xi8>,
    %xs: tensor<*xf32> {accel.constant},
    %xz: tensor<*xi8> {accel.constant},
    %g: tensor<*xf32> {accel.constant},
    %b: tensor<*xf32> {accel.constant},
    %ys: tensor<*xf32> {accel.constant},
    %yz: tensor<*xi8> {accel.constant}) -> tensor<*xi8> {
  %xf = relay.qnn.dequantize %x, %xs, %xz {accel.duplicate} : (tensor<*xi8>, tensor<*xf32>, tensor<*xi8>) -> tensor<*xf32>
  %0 = relay.nn.layer_norm %xf, %g, %b : (tensor<*xf32>, tensor<*xf32>, tensor<*xf32>) -> tensor<*xf32>
  %y = relay.qnn.quantize %0, %ys, %yz : (tensor<*xf32>, tensor<*xf32>, tensor<*xi8>) -> tensor<*xi8>
  func.return %y : tensor<*xi8>
}

func.func @qrms_norm(
    %x: tensor<*xi8>,
    %xs: tensor<*xf32> {accel.constant},
    %xz: tensor<*xi8> {accel.constant},
    %g: tensor<*xf32> {accel.constant},
    %ys: tensor<*xf32> {accel.constant},
    %yz: tensor<*xi8> {accel.constant}) -> tensor<*xi8> {
  %xf = relay.qnn.dequantize %x, %xs, %xz {accel.duplicate} : (tensor<*xi8>, tensor<*xf32>, tensor<*xi8>) -> tensor<*xf32>
  %0 = relay.nn.rms_norm %xf, %g : (tensor<*xf32>, tensor<*xf32>) -> tensor<*xf32>
  %y = relay.qnn.quantize %0, %ys, %yz : (tensor<*xf32>, tensor<*xf32>, tensor<*xi8>) -> tensor<*xi8>
  func.return %y : tensor<*xi8>
}

// int8 activations: what a table of 256 entries computes (an int8 input has 256 values).
func.func @qsigmoid(
    %x: tensor<*xi8>,
    %xs: tensor<*xf32> {accel.constant},
    %xz: tensor<*xi8> {accel.constant},
    %ys: tensor<*xf32> {accel.constant},
    %yz: tensor<*xi8> {accel.constant}) -> tensor<*xi8> {
  %xf = relay.qnn.dequantize %x, %xs, %xz {accel.duplicate} : (tensor<*xi8>, tensor<*xf32>, tensor<*xi8>) -> tensor<*xf32>
  %0 = relay.sigmoid %xf : tensor<*xf32>
  %y = relay.qnn.quantize %0, %ys, %yz : (tensor<*xf32>, tensor<*xf32>, tensor<*xi8>) -> tensor<*xi8>
  func.return %y : tensor<*xi8>
}

func.func @qtanh(
    %x: tensor<*xi8>,
    %xs: tensor<*xf32> {accel.constant},
    %xz: tensor<*xi8> {accel.constant},
    %ys: tensor<*xf32> {accel.constant},
    %yz: tensor<*xi8> {accel.constant}) -> tensor<*xi8> {
  %xf = relay.qnn.dequantize %x, %xs, %xz {accel.duplicate} : (tensor<*xi8>, tensor<*xf32>, tensor<*xi8>) -> tensor<*xf32>
  %0 = relay.tanh %xf : tensor<*xf32>
  %y = relay.qnn.quantize %0, %ys, %yz : (tensor<*xf32>, tensor<*xf32>, tensor<*xi8>) -> tensor<*xi8>
  func.return %y : tensor<*xi8>
}

func.func @qsilu(
    %x: tensor<*xi8>,
    %xs: tensor<*xf32> {accel.constant},
    %xz: tensor<*xi8> {accel.constant},
    %ys: tensor<*xf32> {accel.constant},
    %yz: tensor<*xi8> {accel.constant}) -> tensor<*xi8> {
  %xf = relay.qnn.dequantize %x, %xs, %xz {accel.duplicate} : (tensor<*xi8>, tensor<*xf32>, tensor<*xi8>) -> tensor<*xf32>
  %0 = relay.nn.silu %xf : tensor<*xf32>
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

func.func @qavgpool(
    %x: tensor<*xi8>,
    %xs: tensor<*xf32> {accel.constant},
    %xz: tensor<*xi8> {accel.constant},
    %ys: tensor<*xf32> {accel.constant},
    %yz: tensor<*xi8> {accel.constant}) -> tensor<*xi8> {
  %xf = relay.qnn.dequantize %x, %xs, %xz {accel.duplicate} : (tensor<*xi8>, tensor<*xf32>, tensor<*xi8>) -> tensor<*xf32>
  %0 = relay.nn.avg_pool2d %xf : tensor<*xf32>
  %y = relay.qnn.quantize %0, %ys, %yz : (tensor<*xf32>, tensor<*xf32>, tensor<*xi8>) -> tensor<*xi8>
  func.return %y : tensor<*xi8>
}

// ---- int8 QOperator form (QLinearConv / QLinearMatMul): integer op, bias, requantize ----

func.func @qlinear_conv2d_bias(
    %x: tensor<*xi8>,
    %w: tensor<*xi8> {accel.constant},
    %xz: tensor<*xi8> {accel.constant},
    %wz: tensor<*xi8> {accel.constant},
    %xs: tensor<*xf32> {accel.constant},
    %ws: tensor<*xf32> {accel.constant},
    %b: tensor<*xi32> {accel.constant},
    %s: tensor<*xf32> {accel.constant},
    %z: tensor<*xi32> {accel.constant},
    %ys: tensor<*xf32> {accel.constant},
    %yz: tensor<*xi8> {accel.constant}) -> tensor<*xi8> {
  %0 = relay.qnn.conv2d %x, %w, %xz, %wz, %xs, %ws : (tensor<*xi8>, tensor<*xi8>, tensor<*xi8>, tensor<*xi8>, tensor<*xf32>, tensor<*xf32>) -> tensor<*xi32>
  %1 = relay.nn.bias_add %0, %b : (tensor<*xi32>, tensor<*xi32>) -> tensor<*xi32>
  %y = relay.qnn.requantize %1, %s, %z, %ys, %yz : (tensor<*xi32>, tensor<*xf32>, tensor<*xi32>, tensor<*xf32>, tensor<*xi8>) -> tensor<*xi8>
  func.return %y : tensor<*xi8>
}

func.func @qlinear_conv2d(
    %x: tensor<*xi8>,
    %w: tensor<*xi8> {accel.constant},
    %xz: tensor<*xi8> {accel.constant},
    %wz: tensor<*xi8> {accel.constant},
    %xs: tensor<*xf32> {accel.constant},
    %ws: tensor<*xf32> {accel.constant},
    %s: tensor<*xf32> {accel.constant},
    %z: tensor<*xi32> {accel.constant},
    %ys: tensor<*xf32> {accel.constant},
    %yz: tensor<*xi8> {accel.constant}) -> tensor<*xi8> {
  %0 = relay.qnn.conv2d %x, %w, %xz, %wz, %xs, %ws : (tensor<*xi8>, tensor<*xi8>, tensor<*xi8>, tensor<*xi8>, tensor<*xf32>, tensor<*xf32>) -> tensor<*xi32>
  %y = relay.qnn.requantize %0, %s, %z, %ys, %yz : (tensor<*xi32>, tensor<*xf32>, tensor<*xi32>, tensor<*xf32>, tensor<*xi8>) -> tensor<*xi8>
  func.return %y : tensor<*xi8>
}

func.func @qlinear_dense_bias(
    %x: tensor<*xi8>,
    %w: tensor<*xi8> {accel.constant},
    %xz: tensor<*xi8> {accel.constant},
    %wz: tensor<*xi8> {accel.constant},
    %xs: tensor<*xf32> {accel.constant},
    %ws: tensor<*xf32> {accel.constant},
    %b: tensor<*xi32> {accel.constant},
    %s: tensor<*xf32> {accel.constant},
    %z: tensor<*xi32> {accel.constant},
    %ys: tensor<*xf32> {accel.constant},
    %yz: tensor<*xi8> {accel.constant}) -> tensor<*xi8> {
  %0 = relay.qnn.dense %x, %w, %xz, %wz, %xs, %ws : (tensor<*xi8>, tensor<*xi8>, tensor<*xi8>, tensor<*xi8>, tensor<*xf32>, tensor<*xf32>) -> tensor<*xi32>
  %1 = relay.nn.bias_add %0, %b : (tensor<*xi32>, tensor<*xi32>) -> tensor<*xi32>
  %y = relay.qnn.requantize %1, %s, %z, %ys, %yz : (tensor<*xi32>, tensor<*xf32>, tensor<*xi32>, tensor<*xf32>, tensor<*xi8>) -> tensor<*xi8>
  func.return %y : tensor<*xi8>
}

func.func @qlinear_dense(
    %x: tensor<*xi8>,
    %w: tensor<*xi8> {accel.constant},
    %xz: tensor<*xi8> {accel.constant},
    %wz: tensor<*xi8> {accel.constant},
    %xs: tensor<*xf32> {accel.constant},
    %ws: tensor<*xf32> {accel.constant},
    %s: tensor<*xf32> {accel.constant},
    %z: tensor<*xi32> {accel.constant},
    %ys: tensor<*xf32> {accel.constant},
    %yz: tensor<*xi8> {accel.constant}) -> tensor<*xi8> {
  %0 = relay.qnn.dense %x, %w, %xz, %wz, %xs, %ws : (tensor<*xi8>, tensor<*xi8>, tensor<*xi8>, tensor<*xi8>, tensor<*xf32>, tensor<*xf32>) -> tensor<*xi32>
  %y = relay.qnn.requantize %0, %s, %z, %ys, %yz : (tensor<*xi32>, tensor<*xf32>, tensor<*xi32>, tensor<*xf32>, tensor<*xi8>) -> tensor<*xi8>
  func.return %y : tensor<*xi8>
}

// ---- float ----

func.func @conv2d_bias_relu(
    %x: tensor<*xf32>,
    %w: tensor<*xf32> {accel.constant},
    %b: tensor<*xf32> {accel.constant}) -> tensor<*xf32> {
  %0 = relay.nn.conv2d %x, %w : (tensor<*xf32>, tensor<*xf32>) -> tensor<*xf32>
  %1 = relay.nn.bias_add %0, %b : (tensor<*xf32>, tensor<*xf32>) -> tensor<*xf32>
  %2 = relay.nn.relu %1 : tensor<*xf32>
  func.return %2 : tensor<*xf32>
}

func.func @conv2d_bias_clip(
    %x: tensor<*xf32>,
    %w: tensor<*xf32> {accel.constant},
    %b: tensor<*xf32> {accel.constant}) -> tensor<*xf32> {
  %0 = relay.nn.conv2d %x, %w : (tensor<*xf32>, tensor<*xf32>) -> tensor<*xf32>
  %1 = relay.nn.bias_add %0, %b : (tensor<*xf32>, tensor<*xf32>) -> tensor<*xf32>
  %2 = relay.clip %1 : tensor<*xf32>
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

func.func @conv2d_relu(
    %x: tensor<*xf32>,
    %w: tensor<*xf32> {accel.constant}) -> tensor<*xf32> {
  %0 = relay.nn.conv2d %x, %w : (tensor<*xf32>, tensor<*xf32>) -> tensor<*xf32>
  %1 = relay.nn.relu %0 : tensor<*xf32>
  func.return %1 : tensor<*xf32>
}

// ---- float transformer blocks: several commands per composite, intermediates on the device ----

// Scaled dot-product attention per head: softmax(q kᵀ * scale + mask) v.
func.func @attention_mask(%q: tensor<*xf32>, %k: tensor<*xf32>, %scale: tensor<*xf32> {accel.constant},
                          %mask: tensor<*xf32>, %v: tensor<*xf32>) -> tensor<*xf32> {
  %0 = relay.nn.batch_matmul %q, %k {transpose_b = true} : (tensor<*xf32>, tensor<*xf32>) -> tensor<*xf32>
  %1 = relay.multiply %0, %scale : (tensor<*xf32>, tensor<*xf32>) -> tensor<*xf32>
  %2 = relay.add %1, %mask : (tensor<*xf32>, tensor<*xf32>) -> tensor<*xf32>
  %3 = relay.nn.softmax %2 : tensor<*xf32>
  %4 = relay.nn.batch_matmul %3, %v {transpose_b = false} : (tensor<*xf32>, tensor<*xf32>) -> tensor<*xf32>
  func.return %4 : tensor<*xf32>
}

func.func @attention(%q: tensor<*xf32>, %k: tensor<*xf32>, %scale: tensor<*xf32> {accel.constant},
                     %v: tensor<*xf32>) -> tensor<*xf32> {
  %0 = relay.nn.batch_matmul %q, %k {transpose_b = true} : (tensor<*xf32>, tensor<*xf32>) -> tensor<*xf32>
  %1 = relay.multiply %0, %scale : (tensor<*xf32>, tensor<*xf32>) -> tensor<*xf32>
  %3 = relay.nn.softmax %1 : tensor<*xf32>
  %4 = relay.nn.batch_matmul %3, %v {transpose_b = false} : (tensor<*xf32>, tensor<*xf32>) -> tensor<*xf32>
  func.return %4 : tensor<*xf32>
}

// A transformer's FFN up-projection: dense, bias, GELU (the GELU a second command).
func.func @dense_bias_gelu(%x: tensor<*xf32>, %w: tensor<*xf32> {accel.constant},
                           %b: tensor<*xf32> {accel.constant}) -> tensor<*xf32> {
  %0 = relay.nn.dense %x, %w : (tensor<*xf32>, tensor<*xf32>) -> tensor<*xf32>
  %1 = relay.nn.bias_add %0, %b : (tensor<*xf32>, tensor<*xf32>) -> tensor<*xf32>
  %2 = relay.nn.gelu %1 : tensor<*xf32>
  func.return %2 : tensor<*xf32>
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

func.func @dense_relu(
    %x: tensor<*xf32>,
    %w: tensor<*xf32> {accel.constant}) -> tensor<*xf32> {
  %0 = relay.nn.dense %x, %w : (tensor<*xf32>, tensor<*xf32>) -> tensor<*xf32>
  %1 = relay.nn.relu %0 : tensor<*xf32>
  func.return %1 : tensor<*xf32>
}

func.func @add_relu(
    %a: tensor<*xf32>,
    %b: tensor<*xf32>) -> tensor<*xf32> {
  %0 = relay.add %a, %b : tensor<*xf32>
  %1 = relay.nn.relu %0 : tensor<*xf32>
  func.return %1 : tensor<*xf32>
}
