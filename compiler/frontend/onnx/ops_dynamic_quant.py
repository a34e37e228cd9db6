"""Converters of dynamically quantized models (onnxruntime's `quantize_dynamic`):
DynamicQuantizeLinear, ConvInteger, MatMulInteger, and the com.microsoft ops onnxruntime's
graph optimizer fuses them into (DynamicQuantizeMatMul, MatMulIntegerToFloat).

    DynamicQuantizeLinear(x) -> (y, y_scale, y_zero_point)
        ->  %s = relay.qnn.dynamic_scale %x          (f32 scalar)
            %z = relay.qnn.dynamic_zero_point %x     (ui8 scalar)
            %y = relay.qnn.quantize %x, %s, %z       (run-time parameters)
    ConvInteger(x, w, xz, wz)    ->  relay.qnn.conv2d (i32; the scales are 1, unused)
    MatMulInteger(a, b, az, bz)  ->  relay.qnn.dense with a 2-D b transposed (i32), or
                                     the exact f64 product for a batched b
    MatMulIntegerToFloat(a, b, as, bs, az?, bz?, bias?)
                                 ->  f32(relay.qnn.dense (a, bᵀ)) * (as * bs) + bias
    DynamicQuantizeMatMul(a, b, bs, bz?, bias?)
                                 ->  a quantized as DynamicQuantizeLinear does, then the above

The float steps are onnxruntime's: the scale of the int32 sums is the product of the two
scales (per column when b's is), multiplied in f32 before it scales the sums.
"""

from __future__ import annotations

import numpy as np
from xdsl.ir import SSAValue

from accel.compiler.frontend.onnx.context import MICROSOFT_DOMAIN, Node, converter
from accel.compiler.frontend.onnx.ops_nn import CONV_ATTRS, check_kernel_shape, window_geometry
from accel.compiler.frontend.onnx.ops_quant import centered_f64, transposed
from accel.compiler.frontend.onnx.ops_tensor import reshaped
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


# --------------------------------------------------------------------------------------
# Integer products scaled to float (onnxruntime's fused forms)
# --------------------------------------------------------------------------------------


def scaled_product(n: Node, q: SSAValue, q_zero: SSAValue, q_scale: SSAValue, weight: SSAValue, w_zero: SSAValue,
                   w_scale: SSAValue) -> SSAValue:
    """f32(sum((q - q_zero) (weight - w_zero))) * (q_scale * w_scale): `weight` [N, K]
    (relay.qnn.dense's), `w_scale` one value or one per N."""
    sums = n.emit(relay.QnnDenseOp(q, weight, q_zero, w_zero, unit_scale(n), unit_scale(n)))
    step = n.emit(relay.MultiplyOp(q_scale, w_scale))
    return n.emit(relay.MultiplyOp(n.emit(relay.CastOp(sums, element_type(np.float32))), step))


def dynamic_product(n: Node, x: SSAValue, weight: SSAValue, w_zero: SSAValue, w_scale: SSAValue) -> SSAValue:
    """`scaled_product` of `x` quantized as it runs (DynamicQuantizeLinear: uint8 from its
    range), as onnxruntime's quantized GEMMs do."""
    x_scale = n.emit(relay.DynamicScaleOp(x))
    x_zero = n.emit(relay.DynamicZeroPointOp(x))
    q = n.emit(relay.QuantizeOp(x, x_scale, x_zero, axis=None))
    return scaled_product(n, q, x_zero, x_scale, weight, w_zero, w_scale)


def _one_value(n: Node, i: int, what: str, like: int | None = None) -> SSAValue:
    """Input `i`, one value (shape [] or [1]) as a scalar; missing: 0 of input `like`'s type."""
    if not n.has(i) and like is not None:
        return n.const_value(np.zeros((), dtype=n.dtype(like)))
    if n.shape(i) not in ((), (1,)):
        raise n.error(f"{what} {list(n.shape(i))} must be one value")
    return n.importer.materialize(reshaped(n, n.value(i), ()))


def _weight_of(n: Node, b: int, scale: int, zero_point: int) -> tuple[SSAValue, SSAValue, SSAValue]:
    """Input `b` [K, N] as relay.qnn.dense's weight [N, K], its scale and zero point (one
    value or one per N; a missing zero point is 0)."""
    if n.rank(b) != 2:
        raise n.error(f"B {list(n.shape(b))} must be 2-D (a batched B is not supported)")
    columns = n.shape(b)[1]

    def per_column(i: int, what: str, like: int | None) -> SSAValue:
        if (not n.has(i) and like is not None) or n.shape(i) in ((), (1,)):
            return _one_value(n, i, what, like)
        if n.shape(i) != (columns,):
            raise n.error(f"{what} {list(n.shape(i))} must be one value or one per column ({columns})")
        return n.input(i)

    # The scale is required (a missing one says so); a missing zero point is 0.
    return (transposed(n, n.value(b)), per_column(scale, "b_scale", None),
            per_column(zero_point, "b_zero_point", b))


@converter("MatMulIntegerToFloat", domain=MICROSOFT_DOMAIN)
def matmul_integer_to_float(n: Node):
    weight, w_scale, w_zero = _weight_of(n, 1, 3, 5)
    a_scale, a_zero = _one_value(n, 2, "a_scale"), _one_value(n, 4, "a_zero_point", like=0)
    y = scaled_product(n, n.input(0), a_zero, a_scale, weight, w_zero, w_scale)
    return n.emit(relay.AddOp(y, n.input(6))) if n.has(6) else y


@converter("DynamicQuantizeMatMul", domain=MICROSOFT_DOMAIN)
def dynamic_quantize_matmul(n: Node):
    weight, w_scale, w_zero = _weight_of(n, 1, 2, 3)
    y = dynamic_product(n, n.input(0), weight, w_zero, w_scale)
    return n.emit(relay.AddOp(y, n.input(4))) if n.has(4) else y
