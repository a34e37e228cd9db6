// RUN: not accel-opt %s -p 'annotate-target{targets=dnnl}' 2>&1 | filecheck %s

// A manual mark dnnl cannot honour is an error naming the op and the hook's reason.
// CHECK: error: 'relay.nn.avg_pool2d' op has accel.target = "dnnl", but dnnl cannot run it: average pooling counting padding in ceil mode: oneDNN also counts the cells ceil mode adds
func.func @main(%x: tensor<1x2x8x8xf32>) -> tensor<1x2x5x5xf32> {
  %0 = relay.nn.avg_pool2d %x {pool_size = [3, 3], strides = [2, 2], padding = [1, 1, 1, 1], ceil_mode = true, count_include_pad = true, accel.target = "dnnl"} : (tensor<1x2x8x8xf32>) -> tensor<1x2x5x5xf32>
  func.return %0 : tensor<1x2x5x5xf32>
}
