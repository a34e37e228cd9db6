func.func @add_relu(%a: tensor<*xf32>, %b: tensor<*xf32>) -> tensor<*xf32> {
  %0 = relay.add %a, %b : tensor<*xf32>
  %1 = relay.nn.relu %0 : tensor<*xf32>
  func.return %1 : tensor<*xf32>
}

func.func @relu_relu(%a: tensor<*xf32>) -> tensor<*xf32> {
  %0 = relay.nn.relu %a : tensor<*xf32>
  %1 = relay.nn.relu %0 : tensor<*xf32>
  func.return %1 : tensor<*xf32>
}

func.func @add_relu_relu(%a: tensor<*xf32>, %b: tensor<*xf32>) -> tensor<*xf32> {
  %0 = relay.add %a, %b : tensor<*xf32>
  %1 = relay.nn.relu %0 : tensor<*xf32>
  %2 = relay.nn.relu %1 : tensor<*xf32>
  func.return %2 : tensor<*xf32>
}
