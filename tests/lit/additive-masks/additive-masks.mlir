// additive-masks: a select of -inf by a constant mask becomes an added constant.
// RUN: accel-opt %s --split-input-file -p additive-masks | filecheck %s
// RUN: accel-opt %s --split-input-file -p 'canonicalize,byoc{cost-model=false}' --target npu | filecheck %s --check-prefix=NPU

// torch's masked_fill(mask, -inf) of causal attention scores: the mask (its leading
// dims of size 1 dropped: 0, -inf / 0, 0 as raw f32 bits) is added; the select and its
// constants are gone. On the npu
// the add joins the attention region.
// CHECK-LABEL: func.func @causal
// CHECK-NEXT:    %[[A:.*]] = relay.constant dense<"0x00000000000080FF0000000000000000"> : tensor<2x2xf32>
// CHECK-NEXT:    %y = relay.add %s, %[[A]] : (tensor<1x4x2x2xf32>, tensor<2x2xf32>) -> tensor<1x4x2x2xf32>
// CHECK-NEXT:    relay.nn.softmax %y
// NPU-LABEL: func.func private @npu_0
// NPU:         relay.add
// NPU:         relay.nn.softmax
func.func @causal(%s: tensor<1x4x2x2xf32>) -> tensor<1x4x2x2xf32> {
  %m = relay.constant dense<[[[[false, true], [false, false]]]]> : tensor<1x1x2x2xi1>
  %n = relay.constant dense<0xFF800000> : tensor<f32>
  %y = relay.where %m, %n, %s : (tensor<1x1x2x2xi1>, tensor<f32>, tensor<1x4x2x2xf32>) -> tensor<1x4x2x2xf32>
  %p = relay.nn.softmax %y : tensor<1x4x2x2xf32>
  func.return %p : tensor<1x4x2x2xf32>
}

// -----

// where(keep, x, -inf): -inf where the mask is false.
// CHECK-LABEL: func.func @keep
// CHECK-NEXT:    %[[A:.*]] = relay.constant dense<"0x000080FF0000000000000000"> : tensor<3xf32>
// CHECK-NEXT:    %y = relay.add %s, %[[A]]
func.func @keep(%s: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %m = relay.constant dense<[false, true, true]> : tensor<3xi1>
  %n = relay.constant dense<0xFF800000> : tensor<f32>
  %y = relay.where %m, %s, %n : (tensor<3xi1>, tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
  func.return %y : tensor<2x3xf32>
}

// -----

// Hugging Face's eager attention: where(causal, x, finfo.min). x + finfo.min rounds to
// finfo.min for every |x| below 2^103, so the lowest float is added where the mask is
// false.
// CHECK-LABEL: func.func @lowest
// CHECK-NEXT:    %[[A:.*]] = relay.constant dense<[-3.40282347e+38, 0.000000e+00, 0.000000e+00]> : tensor<3xf32>
// CHECK-NEXT:    %y = relay.add %s, %[[A]]
func.func @lowest(%s: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %m = relay.constant dense<[false, true, true]> : tensor<3xi1>
  %low = relay.constant dense<-3.40282347e+38> : tensor<f32>
  %y = relay.where %m, %s, %low : (tensor<3xi1>, tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
  func.return %y : tensor<2x3xf32>
}

// -----

// Left alone: finite fill values that scores change (x + -1e9 is not -1e9 for |x| >= 32;
// 2^87 absorbs only |x| < 2^63; float16's lowest value only |x| < 16), a mask known only
// at run time, and an x that the select broadcasts (the add would not).
// CHECK-LABEL: func.func @kept
// CHECK-COUNT-5: relay.where
func.func @kept(%s: tensor<2x3xf32>, %c: tensor<3xi1>, %r: tensor<3xf32>, %h: tensor<2x3xf16>) -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf16>) {
  %m = relay.constant dense<[false, true, true]> : tensor<3xi1>
  %big = relay.constant dense<-1.0e+09> : tensor<f32>
  %n = relay.constant dense<0xFF800000> : tensor<2x3xf32>
  %e87 = relay.constant dense<-1.54742505e+26> : tensor<f32>
  %low16 = relay.constant dense<-6.550400e+04> : tensor<f16>
  %0 = relay.where %m, %s, %big : (tensor<3xi1>, tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
  %1 = relay.where %c, %s, %n : (tensor<3xi1>, tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %2 = relay.where %m, %r, %n : (tensor<3xi1>, tensor<3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %3 = relay.where %m, %s, %e87 : (tensor<3xi1>, tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
  %4 = relay.where %m, %h, %low16 : (tensor<3xi1>, tensor<2x3xf16>, tensor<f16>) -> tensor<2x3xf16>
  func.return %0, %1, %2, %3, %4 : tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf16>
}

// -----

// torch's scaled_dot_product_attention with a boolean mask (TorchScript export): the
// softmax guarded against rows the run-time mask hides whole. The mask's -inf becomes
// the lowest float, and the guard a product with the rows that keep a key (0 or 1,
// broadcast to the mask's shape); on the npu the add, softmax and product are a region,
// the small masks the host's.
// CHECK-LABEL: func.func @guarded
// CHECK:         %[[LOW:.*]] = relay.constant dense<-3.40282347e+38> : tensor<1xf32>
// CHECK-NEXT:    %[[A:.*]] = relay.where %m, %{{.*}}, %[[LOW]]
// CHECK-NEXT:    %[[T:.*]] = relay.add %s, %[[A]]
// CHECK-NEXT:    %[[P:.*]] = relay.nn.softmax %[[T]] :
// CHECK-NEXT:    %[[F:.*]] = relay.cast %m : tensor<1x1x2x3xi1> -> tensor<1x1x2x3xf32>
// CHECK-NEXT:    %[[R:.*]] = relay.max %[[F]] {axis = [-1], keepdims = true}
// CHECK-NEXT:    %[[B:.*]] = relay.broadcast_to %[[R]] {shape = [1, 1, 2, 3]}
// CHECK-NEXT:    %y = relay.multiply %[[P]], %[[B]]
// CHECK-NOT:     relay.not_equal
// NPU-LABEL: func.func @guarded
// NPU:         func.call @npu_0
// NPU:       func.func private @npu_0
// NPU:         relay.add
// NPU-NEXT:    relay.nn.softmax
// NPU-NEXT:    relay.multiply
func.func @guarded(%s: tensor<1x2x2x3xf32>, %m: tensor<1x1x2x3xi1>) -> tensor<1x2x2x3xf32> {
  %zero = relay.constant dense<0.0> : tensor<1xf32>
  %inf = relay.constant dense<0xFF800000> : tensor<1xf32>
  %a = relay.where %m, %zero, %inf : (tensor<1x1x2x3xi1>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x1x2x3xf32>
  %t = relay.add %s, %a : (tensor<1x2x2x3xf32>, tensor<1x1x2x3xf32>) -> tensor<1x2x2x3xf32>
  %p = relay.nn.softmax %t {axis = 3} : tensor<1x2x2x3xf32>
  %nan = relay.not_equal %p, %p : (tensor<1x2x2x3xf32>, tensor<1x2x2x3xf32>) -> tensor<1x2x2x3xi1>
  %y = relay.where %nan, %zero, %p : (tensor<1x2x2x3xi1>, tensor<1xf32>, tensor<1x2x2x3xf32>) -> tensor<1x2x2x3xf32>
  func.return %y : tensor<1x2x2x3xf32>
}

// -----

// The dynamo export fills the mask with finfo.min: the softmax of finite scores has no
// NaN, and the guard is dropped.
// CHECK-LABEL: func.func @finite_fill
// CHECK:         %[[P:.*]] = relay.nn.softmax
// CHECK-NEXT:    func.return %[[P]]
func.func @finite_fill(%s: tensor<1x2x2x3xf32>, %m: tensor<1x1x2x3xi1>) -> tensor<1x2x2x3xf32> {
  %zero = relay.constant dense<0.0> : tensor<f32>
  %low = relay.constant dense<-3.40282347e+38> : tensor<f32>
  %a = relay.where %m, %zero, %low : (tensor<1x1x2x3xi1>, tensor<f32>, tensor<f32>) -> tensor<1x1x2x3xf32>
  %t = relay.add %s, %a : (tensor<1x2x2x3xf32>, tensor<1x1x2x3xf32>) -> tensor<1x2x2x3xf32>
  %p = relay.nn.softmax %t {axis = 3} : tensor<1x2x2x3xf32>
  %nan = relay.not_equal %p, %p : (tensor<1x2x2x3xf32>, tensor<1x2x2x3xf32>) -> tensor<1x2x2x3xi1>
  %y = relay.where %nan, %zero, %p : (tensor<1x2x2x3xi1>, tensor<f32>, tensor<1x2x2x3xf32>) -> tensor<1x2x2x3xf32>
  func.return %y : tensor<1x2x2x3xf32>
}

// -----

// Left alone: a softmax along another axis than the keys', a guarded softmax read by
// another op too, and a guard that is not a NaN test of the softmax.
// CHECK-LABEL: func.func @guards_kept
// CHECK-COUNT-3: relay.not_equal
func.func @guards_kept(%s: tensor<1x2x3x3xf32>, %m: tensor<1x1x3x3xi1>) -> (tensor<1x2x3x3xf32>, tensor<1x2x3x3xf32>, tensor<1x2x3x3xf32>, tensor<1x2x3x3xf32>) {
  %zero = relay.constant dense<0.0> : tensor<f32>
  %inf = relay.constant dense<0xFF800000> : tensor<f32>
  %a = relay.where %m, %zero, %inf : (tensor<1x1x3x3xi1>, tensor<f32>, tensor<f32>) -> tensor<1x1x3x3xf32>
  %t0 = relay.add %s, %a : (tensor<1x2x3x3xf32>, tensor<1x1x3x3xf32>) -> tensor<1x2x3x3xf32>
  %p0 = relay.nn.softmax %t0 {axis = 2} : tensor<1x2x3x3xf32>
  %n0 = relay.not_equal %p0, %p0 : (tensor<1x2x3x3xf32>, tensor<1x2x3x3xf32>) -> tensor<1x2x3x3xi1>
  %y0 = relay.where %n0, %zero, %p0 : (tensor<1x2x3x3xi1>, tensor<f32>, tensor<1x2x3x3xf32>) -> tensor<1x2x3x3xf32>
  %t1 = relay.add %s, %a : (tensor<1x2x3x3xf32>, tensor<1x1x3x3xf32>) -> tensor<1x2x3x3xf32>
  %p1 = relay.nn.softmax %t1 {axis = 3} : tensor<1x2x3x3xf32>
  %n1 = relay.not_equal %p1, %p1 : (tensor<1x2x3x3xf32>, tensor<1x2x3x3xf32>) -> tensor<1x2x3x3xi1>
  %y1 = relay.where %n1, %zero, %p1 : (tensor<1x2x3x3xi1>, tensor<f32>, tensor<1x2x3x3xf32>) -> tensor<1x2x3x3xf32>
  %t2 = relay.add %s, %a : (tensor<1x2x3x3xf32>, tensor<1x1x3x3xf32>) -> tensor<1x2x3x3xf32>
  %p2 = relay.nn.softmax %t2 {axis = 3} : tensor<1x2x3x3xf32>
  %n2 = relay.not_equal %p2, %s : (tensor<1x2x3x3xf32>, tensor<1x2x3x3xf32>) -> tensor<1x2x3x3xi1>
  %y2 = relay.where %n2, %zero, %p2 : (tensor<1x2x3x3xi1>, tensor<f32>, tensor<1x2x3x3xf32>) -> tensor<1x2x3x3xf32>
  func.return %y0, %y1, %p1, %y2 : tensor<1x2x3x3xf32>, tensor<1x2x3x3xf32>, tensor<1x2x3x3xf32>, tensor<1x2x3x3xf32>
}
