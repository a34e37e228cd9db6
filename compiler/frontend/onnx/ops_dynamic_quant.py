"""Converters of dynamically quantized models (onnxruntime's `quantize_dynamic`):
DynamicQuantizeLinear, ConvInteger, MatMulInteger.

    DynamicQuantizeLinear(x) -> (y, y_scale, y_zero_point)
        ->  %s = relay.qnn.dynamic_scale %x          (f32 scalar)
            %z = relay.qnn.dynamic_zero_point %x     (ui8 scalar)
            %y = relay.qnn.quantize %x, %s, %z       (run-time parameters)
    ConvInteger(x, w, xz, wz)    ->  relay.qnn.conv2d (i32; the scales are 1, unused)
    MatMulInteger(a, b, az, bz)  ->  relay.qnn.dense with a 2-D b transposed (i32), or
                                     the exact f64 product for a batched b
"""

from __future__ import annotations

import numpy as np
from xdsl.ir import SSAValue

from accel.compiler.frontend.onnx.context import Node, converter
from accel.compiler.frontend.onnx.ops_nn import CONV_ATTRS, check_kernel_shape, window_geometry
from accel.compiler.frontend.onnx.ops_quant import centered_f64, transposed
from accel.compiler.tensors import element_type
from accel.dialects import relay


@converter("DynamicQuantizeLinear")
def dynamic_quantize(n: Node):
    x = n.input(0)
    scale = n.emit(relay.DynamicScaleOp(x))
    zero_point = n.emit(relay.DynamicZeroPointOp(x))
    return [n.emit(relay.QuantizeOp(x, scale, zero_point, axis=None)), scale, zero_point]


def _zero_point(n: Node, i: int, like: int) -> SSAValue:
    """Zero point input `i` (a scalar or, for the weight, one per output channel), or 0
    of input `like`'s type."""
    if n.has(i):
        return n.input(i)
    return n.const_value(np.zeros((), dtype=n.dtype(like)))


def unit_scale(n: Node, channels: int | None = None) -> SSAValue:
    """The scale operands qnn ops carry for a following requantize; the integer result
    does not depend on them."""
    return n.const_value(np.ones(() if channels is None else (channels,), dtype=np.float32))


@converter("ConvInteger", attrs=CONV_ATTRS)
def conv_integer(n: Node):
    x_dims, w_dims = n.shape(0), n.shape(1)
    if len(x_dims) != 4 or len(w_dims) != 4:
        raise n.error(f"only 2-D convolution is supported (input {list(x_dims)}, weight {list(w_dims)})")
    check_kernel_shape(n, w_dims[2:])
    strides, dil, begin, end = window_geometry(n, x_dims[2:], w_dims[2:])
    wz = _zero_point(n, 3, 1)
    return n.emit(relay.QnnConv2DOp(n.input(0), n.input(1), _zero_point(n, 2, 0), wz, unit_scale(n),
                                    unit_scale(n), strides=strides, padding=(*begin, *end), dilation=dil,
                                    groups=n.attr("group", 1)))


@converter("MatMulInteger")
def matmul_integer(n: Node):
    a_dims, b_dims = n.shape(0), n.shape(1)
    if len(a_dims) < 2 or len(b_dims) < 2:
        raise n.error(f"1-D operands are not supported (A {list(a_dims)}, B {list(b_dims)})")
    bz_per_column = n.has(3) and n.shape(3) not in ((), (1,))
    if len(b_dims) == 2:
        weight = transposed(n, n.value(1))
        return n.emit(relay.QnnDenseOp(n.input(0), weight, _zero_point(n, 2, 0), _zero_point(n, 3, 1),
                                       unit_scale(n), unit_scale(n, b_dims[1] if bz_per_column else None)))
    lhs, rhs = centered_f64(n, 0, 2), centered_f64(n, 1, 3)
    return n.emit(relay.CastOp(n.emit(relay.BatchMatmulOp(lhs, rhs, transpose_b=False)), element_type(np.int32)))
