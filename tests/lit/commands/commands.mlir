// RUN: accel-opt %s --split-input-file --target npu-cmd -p full -t commands | filecheck %s

// A conv+bias+relu region between two host ops: one stream, the input and weights
// moved in (host addresses relative to the region's argument and to the weights), the
// waits of the accel dialect's tokens, the conv with its geometry, the result moved
// out, then barrier and end.
// CHECK-LABEL: // ===== npu_cmd_0.bin (npu-cmd) =====
// CHECK-NEXT:  header magic=0x31444d43 version=1 commands_bytes=388 data_bytes=0 relocs=4 bases=4 config.memory.scratchpad_bytes=262144 config.compute.macs_per_cycle_f32=64 config.compute.macs_per_cycle_int8=256 config.compute.elementwise_per_cycle=32 config.dma.bytes_per_cycle=16
// CHECK-NEXT:     0: dma_load elem_bytes=4 rank=4 spm=0 host=arg0+0 shape0=1 shape1=4 shape2=16 shape3=16 spm_stride0=1024 spm_stride1=256 spm_stride2=16 spm_stride3=1 host_stride0=1024 host_stride1=256 host_stride2=16 host_stride3=1
// CHECK-NEXT:     1: dma_load elem_bytes=4 rank=4 spm=[[W:[0-9]+]] host=weights+0 shape0=8 shape1=4 shape2=3 shape3=3
// CHECK-NEXT:     2: dma_load elem_bytes=4 rank=1 spm=[[B:[0-9]+]] host=weights+1152 shape0=8 shape1=0 shape2=0 shape3=0
// CHECK-NEXT:     3: wait token=1
// CHECK-NEXT:     4: wait token=2
// CHECK-NEXT:     5: wait token=3
// CHECK-NEXT:     6: conv x=0 weight=[[W]] bias=[[B]] y=[[Y:[0-9]+]] n=1 c=4 h=16 w=16 oc=8 kh=3 kw=3 oh=16 ow=16 stride_h=1 stride_w=1 pad_top=1 pad_left=1 pad_bottom=1 pad_right=1 dil_h=1 dil_w=1 groups=1 act=relu act_min=-inf act_max=inf
// CHECK-NEXT:     7: dma_store elem_bytes=4 rank=4 spm=[[Y]] host=arg1+0 shape0=1 shape1=8 shape2=16 shape3=16
// CHECK-NEXT:     8: barrier
// CHECK-NEXT:     9: end
// CHECK-NOT:   data
func.func @main(%x: tensor<1x4x16x16xf32>) -> tensor<1x8x16x16xf32> {
  %s = relay.erf %x : tensor<1x4x16x16xf32>
  %w = relay.constant dense<0.5> : tensor<8x4x3x3xf32>
  %b = relay.constant dense<0.25> : tensor<8xf32>
  %c = relay.nn.conv2d %s, %w {padding = [1, 1, 1, 1]} : (tensor<1x4x16x16xf32>, tensor<8x4x3x3xf32>) -> tensor<1x8x16x16xf32>
  %d = relay.nn.bias_add %c, %b : (tensor<1x8x16x16xf32>, tensor<8xf32>) -> tensor<1x8x16x16xf32>
  %r = relay.nn.relu %d : tensor<1x8x16x16xf32>
  %t = relay.erf %r : tensor<1x8x16x16xf32>
  func.return %t : tensor<1x8x16x16xf32>
}

// -----

// An int8 QDQ conv: the quantized command, its per-channel arrays in the data section
// (one weight zero point, all zero; in_scale = s_x * s_w[c] = 0.125, 0.0625).
// CHECK-LABEL: // ===== npu_cmd_0.bin (npu-cmd) =====
// CHECK:       qconv x={{[0-9]+}} weight={{[0-9]+}} bias=none y={{[0-9]+}} n=1 c=16 h=32 w=32 oc=2 kh=3 kw=3 oh=32 ow=32 {{.*}} act=none {{.*}} x_dtype=i8 w_dtype=i8 y_dtype=i8 input_zero_point=0 weight_zero_point=data+0 weight_zero_point_len=1 in_scale=data+4 in_scale_len=2 out_scale=0.5 out_zero_point=0
// CHECK:       end
// CHECK-NEXT:  data 12 bytes: 0x00000000 0x3e000000 0x3d800000
func.func @main(%x: tensor<1x16x32x32xf32>) -> tensor<1x2x32x32xf32> {
  %s = relay.constant dense<0.25> : tensor<f32>
  %zp = relay.constant dense<0> : tensor<i8>
  %q = relay.qnn.quantize %x, %s, %zp : (tensor<1x16x32x32xf32>, tensor<f32>, tensor<i8>) -> tensor<1x16x32x32xi8>
  %dq = relay.qnn.dequantize %q, %s, %zp : (tensor<1x16x32x32xi8>, tensor<f32>, tensor<i8>) -> tensor<1x16x32x32xf32>
  %wq = relay.constant dense<3> : tensor<2x16x3x3xi8>
  %ws = relay.constant dense<[0.5, 0.25]> : tensor<2xf32>
  %wzp = relay.constant dense<0> : tensor<2xi8>
  %w = relay.qnn.dequantize %wq, %ws, %wzp {axis = 0} : (tensor<2x16x3x3xi8>, tensor<2xf32>, tensor<2xi8>) -> tensor<2x16x3x3xf32>
  %c = relay.nn.conv2d %dq, %w {padding = [1, 1, 1, 1]} : (tensor<1x16x32x32xf32>, tensor<2x16x3x3xf32>) -> tensor<1x2x32x32xf32>
  %os = relay.constant dense<0.5> : tensor<f32>
  %oq = relay.qnn.quantize %c, %os, %zp : (tensor<1x2x32x32xf32>, tensor<f32>, tensor<i8>) -> tensor<1x2x32x32xi8>
  %o = relay.qnn.dequantize %oq, %os, %zp : (tensor<1x2x32x32xi8>, tensor<f32>, tensor<i8>) -> tensor<1x2x32x32xf32>
  %e = relay.erf %o : tensor<1x2x32x32xf32>
  func.return %e : tensor<1x2x32x32xf32>
}
