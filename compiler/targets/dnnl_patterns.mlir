// Composite patterns of the `dnnl` target only (docs/targets.md, "Patterns as IR"); it
// also uses the shared ones of patterns.mlir. Each composite becomes one oneDNN
// primitive whose epilogue is its bias and post-ops (compiler/backend/dnnl_codegen.py).

// ---- convolution + residual add (a binary post-op), ResNet's block end ----

func.func @conv2d_bias_add_relu(
    %x: tensor<*xf32>,
    %w: tensor<*xf32> {accel.constant},
    %b: tensor<*xf32> {accel.constant},
    %r: tensor<*xf32>) -> tensor<*xf32> {
  %0 = relay.nn.conv2d %x, %w : (tensor<*xf32>, tensor<*xf32>) -> tensor<*xf32>
  %1 = relay.nn.bias_add %0, %b : (tensor<*xf32>, tensor<*xf32>) -> tensor<*xf32>
  %2 = relay.add %1, %r : tensor<*xf32>
  %3 = relay.nn.relu %2 : tensor<*xf32>
  func.return %3 : tensor<*xf32>
}

// The same with the residual first (`x + f(x)`).
func.func @conv2d_bias_radd_relu(
    %x: tensor<*xf32>,
    %w: tensor<*xf32> {accel.constant},
    %b: tensor<*xf32> {accel.constant},
    %r: tensor<*xf32>) -> tensor<*xf32> {
  %0 = relay.nn.conv2d %x, %w : (tensor<*xf32>, tensor<*xf32>) -> tensor<*xf32>
  %1 = relay.nn.bias_add %0, %b : (tensor<*xf32>, tensor<*xf32>) -> tensor<*xf32>
  %2 = relay.add %r, %1 : tensor<*xf32>
  %3 = relay.nn.relu %2 : tensor<*xf32>
  func.return %3 : tensor<*xf32>
}

func.func @conv2d_bias_add(
    %x: tensor<*xf32>,
    %w: tensor<*xf32> {accel.constant},
    %b: tensor<*xf32> {accel.constant},
    %r: tensor<*xf32>) -> tensor<*xf32> {
  %0 = relay.nn.conv2d %x, %w : (tensor<*xf32>, tensor<*xf32>) -> tensor<*xf32>
  %1 = relay.nn.bias_add %0, %b : (tensor<*xf32>, tensor<*xf32>) -> tensor<*xf32>
  %2 = relay.add %1, %r : tensor<*xf32>
  func.return %2 : tensor<*xf32>
}

func.func @conv2d_bias_radd(
    %x: tensor<*xf32>,
    %w: tensor<*xf32> {accel.constant},
    %b: tensor<*xf32> {accel.constant},
    %r: tensor<*xf32>) -> tensor<*xf32> {
  %0 = relay.nn.conv2d %x, %w : (tensor<*xf32>, tensor<*xf32>) -> tensor<*xf32>
  %1 = relay.nn.bias_add %0, %b : (tensor<*xf32>, tensor<*xf32>) -> tensor<*xf32>
  %2 = relay.add %r, %1 : tensor<*xf32>
  func.return %2 : tensor<*xf32>
}

// ---- convolution + an activation post-op ----

func.func @conv2d_bias_gelu(
    %x: tensor<*xf32>,
    %w: tensor<*xf32> {accel.constant},
    %b: tensor<*xf32> {accel.constant}) -> tensor<*xf32> {
  %0 = relay.nn.conv2d %x, %w : (tensor<*xf32>, tensor<*xf32>) -> tensor<*xf32>
  %1 = relay.nn.bias_add %0, %b : (tensor<*xf32>, tensor<*xf32>) -> tensor<*xf32>
  %2 = relay.nn.gelu %1 : tensor<*xf32>
  func.return %2 : tensor<*xf32>
}

func.func @conv2d_bias_sigmoid(
    %x: tensor<*xf32>,
    %w: tensor<*xf32> {accel.constant},
    %b: tensor<*xf32> {accel.constant}) -> tensor<*xf32> {
  %0 = relay.nn.conv2d %x, %w : (tensor<*xf32>, tensor<*xf32>) -> tensor<*xf32>
  %1 = relay.nn.bias_add %0, %b : (tensor<*xf32>, tensor<*xf32>) -> tensor<*xf32>
  %2 = relay.sigmoid %1 : tensor<*xf32>
  func.return %2 : tensor<*xf32>
}

func.func @conv2d_bias_hardswish(
    %x: tensor<*xf32>,
    %w: tensor<*xf32> {accel.constant},
    %b: tensor<*xf32> {accel.constant}) -> tensor<*xf32> {
  %0 = relay.nn.conv2d %x, %w : (tensor<*xf32>, tensor<*xf32>) -> tensor<*xf32>
  %1 = relay.nn.bias_add %0, %b : (tensor<*xf32>, tensor<*xf32>) -> tensor<*xf32>
  %2 = relay.nn.hardswish %1 : tensor<*xf32>
  func.return %2 : tensor<*xf32>
}

// ---- transformers: a projection + the residual add; attention's scaled scores ----

func.func @dense_bias_radd(
    %x: tensor<*xf32>,
    %w: tensor<*xf32> {accel.constant},
    %b: tensor<*xf32> {accel.constant},
    %r: tensor<*xf32>) -> tensor<*xf32> {
  %0 = relay.nn.dense %x, %w : (tensor<*xf32>, tensor<*xf32>) -> tensor<*xf32>
  %1 = relay.nn.bias_add %0, %b : (tensor<*xf32>, tensor<*xf32>) -> tensor<*xf32>
  %2 = relay.add %r, %1 : tensor<*xf32>
  func.return %2 : tensor<*xf32>
}

func.func @dense_bias_add(
    %x: tensor<*xf32>,
    %w: tensor<*xf32> {accel.constant},
    %b: tensor<*xf32> {accel.constant},
    %r: tensor<*xf32>) -> tensor<*xf32> {
  %0 = relay.nn.dense %x, %w : (tensor<*xf32>, tensor<*xf32>) -> tensor<*xf32>
  %1 = relay.nn.bias_add %0, %b : (tensor<*xf32>, tensor<*xf32>) -> tensor<*xf32>
  %2 = relay.add %1, %r : tensor<*xf32>
  func.return %2 : tensor<*xf32>
}

func.func @batch_matmul_scale(
    %a: tensor<*xf32>,
    %b: tensor<*xf32>,
    %s: tensor<*xf32> {accel.constant}) -> tensor<*xf32> {
  %0 = relay.nn.batch_matmul %a, %b : (tensor<*xf32>, tensor<*xf32>) -> tensor<*xf32>
  %1 = relay.multiply %0, %s : (tensor<*xf32>, tensor<*xf32>) -> tensor<*xf32>
  func.return %1 : tensor<*xf32>
}

func.func @batch_matmul_divide(
    %a: tensor<*xf32>,
    %b: tensor<*xf32>,
    %s: tensor<*xf32> {accel.constant}) -> tensor<*xf32> {
  %0 = relay.nn.batch_matmul %a, %b : (tensor<*xf32>, tensor<*xf32>) -> tensor<*xf32>
  %1 = relay.divide %0, %s : (tensor<*xf32>, tensor<*xf32>) -> tensor<*xf32>
  func.return %1 : tensor<*xf32>
}
