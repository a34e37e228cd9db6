"""Converters of the int8 ops: QuantizeLinear / DequantizeLinear (kept as they are, around
float ops: fusing Q/DQ into integer kernels is the pattern matcher's job), QLinearConv and
QLinearMatMul (integer kernels with an i32 accumulator, then a requantize).

    QLinearConv(x, xs, xz, w, ws, wz, ys, yz, b)
        ->  %acc = relay.qnn.conv2d %x, %w, %xz, %wz, %xs, %ws {...}      (i32)
            %b1  = relay.nn.bias_add %acc, %b {axis = 1}                   (i32)
            %y   = relay.qnn.requantize %b1, %s, %zero, %ys, %yz {axis = 1}
                   (%s = xs * ws per output channel, %zero = 0 : i32)
"""

from __future__ import annotations

import math

import numpy as np
from xdsl.ir import SSAValue

from accel.compiler.frontend.onnx.context import Const, Node, Value, np_dtype_of, onnx_dtype_name, converter
from accel.compiler.frontend.onnx.ops_narrow_quant import FLOAT_QUANT_TYPES, float_dequantize, float_quantize
from accel.compiler.frontend.onnx.ops_nn import CONV_ATTRS, check_kernel_shape, window_geometry
from accel.compiler.frontend.onnx.ops_tensor import norm_axis, reshaped
from accel.compiler.tensors import element_type
from accel.dialects import relay


def _zero_point(n: Node, i: int, dtype: np.dtype) -> SSAValue:
    if n.has(i):
        return n.input(i)
    return n.const_value(np.zeros((), dtype=dtype))


def _axis(n: Node) -> int | None:
    """The quantization axis when the scale is per-axis (None for per-tensor)."""
    dims = n.shape(1)
    if len(dims) == 0 or dims == (1,):
        return None
    return n.attr("axis", 1) if n.version >= 13 else 1


def _blocked_param(n: Node, i: int, block: int) -> SSAValue:
    """Input `i` of a blocked Q/DQ (scale or zero point: x's shape with ceil(C / block)
    along the axis) repeated `block` times along the axis and flattened: one value per
    element of x, so that the op is per-axis on x flattened to 1-D."""
    x_dims, dims = list(n.shape(0)), list(n.shape(i))
    axis = norm_axis(n, n.attr("axis", 1), len(x_dims))
    blocks = -(-x_dims[axis] // block)
    if dims != x_dims[:axis] + [blocks] + x_dims[axis + 1:]:
        raise n.error(f"input {i} {dims} must have the shape {x_dims[:axis] + [blocks] + x_dims[axis + 1:]} "
                      f"of blocks of {block} along axis {axis}")
    v = reshaped(n, n.input(i), dims[:axis + 1] + [1] + dims[axis + 1:])
    v = n.emit(relay.BroadcastToOp(v, shape=dims[:axis + 1] + [block] + dims[axis + 1:]))
    v = reshaped(n, v, dims[:axis] + [blocks * block] + dims[axis + 1:])
    if blocks * block != x_dims[axis]:
        v = n.emit(relay.StridedSliceOp(v, begin=[0], end=[x_dims[axis]], axes=[axis]))
    return reshaped(n, v, [math.prod(x_dims)])


def _quantize_op(n: Node, op_type: type, zero_point_dtype: np.dtype) -> SSAValue:
    """relay.qnn.quantize / dequantize of the node; a blocked one (block_size > 0) runs
    per element on x flattened (`_blocked_param`) and takes x's shape back."""
    block = n.attr("block_size", 0)
    if not block:
        return n.emit(op_type(n.input(0), n.input(1), _zero_point(n, 2, zero_point_dtype), axis=_axis(n)))
    if block < 0:
        raise n.error(f"block_size {block} must not be negative")
    x_dims = list(n.shape(0))
    zero_point = _blocked_param(n, 2, block) if n.has(2) else _zero_point(n, 2, zero_point_dtype)
    flat = op_type(reshaped(n, n.input(0), [math.prod(x_dims)]), _blocked_param(n, 1, block), zero_point, axis=0)
    return reshaped(n, n.emit(flat), x_dims)


@converter("QuantizeLinear", attrs=("axis", "saturate", "block_size", "output_dtype", "precision"))
def quantize(n: Node):
    precision = n.attr("precision", 0)
    if precision and np_dtype_of(precision) != n.dtype(1):
        raise n.error(f"precision {onnx_dtype_name(precision)} other than the scale's type is not supported")
    out_dtype = n.attr("output_dtype", 0)
    if n.has(2):
        zp_dtype = n.dtype(2)
        if out_dtype and np_dtype_of(out_dtype) != zp_dtype:
            raise n.error(f"output_dtype {onnx_dtype_name(out_dtype)} differs from the zero point's type")
    else:
        zp_dtype = np_dtype_of(out_dtype) if out_dtype else np.dtype(np.uint8)
    if zp_dtype in FLOAT_QUANT_TYPES:
        return float_quantize(n, zp_dtype)
    return _quantize_op(n, relay.QuantizeOp, zp_dtype)


@converter("DequantizeLinear", attrs=("axis", "block_size", "output_dtype"))
def dequantize(n: Node):
    out_dtype = n.attr("output_dtype", 0)
    if out_dtype and np_dtype_of(out_dtype) != n.dtype(1):
        raise n.error(f"output_dtype {onnx_dtype_name(out_dtype)} other than the scale's type is not supported")
    if n.dtype(0) in FLOAT_QUANT_TYPES:
        return float_dequantize(n, n.dtype(1))
    return _quantize_op(n, relay.DequantizeOp, n.dtype(0))


def product_scale(n: Node, i: int, j: int) -> SSAValue:
    """The accumulator's scale, input scale * weight scale (per channel when the weight's is)."""
    a, b = n.value(i), n.value(j)
    if isinstance(a, Const) and isinstance(b, Const):
        prod = (a.value.astype(np.float32).reshape(-1) * b.value.astype(np.float32).reshape(-1))
        return n.const_value(prod.astype(a.value.dtype).reshape(() if prod.size == 1 else (prod.size,)))
    return n.emit(relay.MultiplyOp(n.input(i), n.input(j)))


def _requantize(n: Node, acc: SSAValue, scale_a: int, scale_b: int, axis: int) -> SSAValue:
    y_scale = n.input(6)
    y_zp = _zero_point(n, 7, n.dtype(0))
    zero = n.const_value(np.zeros((), dtype=np.int32))
    return n.emit(relay.RequantizeOp(acc, product_scale(n, scale_a, scale_b), zero, y_scale, y_zp, axis=axis))


@converter("QLinearConv", attrs=CONV_ATTRS)
def qlinear_conv(n: Node):
    x_dims, w_dims = n.shape(0), n.shape(3)
    if len(x_dims) != 4 or len(w_dims) != 4:
        raise n.error(f"only 2-D convolution is supported (input {list(x_dims)}, weight {list(w_dims)})")
    check_kernel_shape(n, w_dims[2:])
    strides, dil, begin, end = window_geometry(n, x_dims[2:], w_dims[2:])
    acc = n.emit(relay.QnnConv2DOp(
        n.input(0), n.input(3), _zero_point(n, 2, n.dtype(0)), _zero_point(n, 5, n.dtype(3)), n.input(1),
        n.input(4), strides=strides, padding=(*begin, *end), dilation=dil, groups=n.attr("group", 1)))
    if n.has(8):
        acc = n.emit(relay.BiasAddOp(acc, n.input(8), axis=1))
    return _requantize(n, acc, 1, 4, axis=1)


def transposed(n: Node, v: Value) -> SSAValue:
    if isinstance(v, Const) and v.value.size <= 16:
        return n.importer.materialize(Const(np.ascontiguousarray(v.value.T)))
    return n.emit(relay.TransposeOp(n.importer.materialize(v), axes=(1, 0)))


@converter("QLinearMatMul")
def qlinear_matmul(n: Node):
    """A 2-D B (a weight) is a relay.qnn.dense; a batched B (e.g. attention scores) is an
    exact integer product computed in f64, cast to the i32 accumulator."""
    a_dims, b_dims = n.shape(0), n.shape(3)
    if len(b_dims) < 2 or len(a_dims) < 2:
        raise n.error(f"1-D operands are not supported (A {list(a_dims)}, B {list(b_dims)})")
    if len(b_dims) == 2:
        weight = transposed(n, n.value(3))
        acc = n.emit(relay.QnnDenseOp(n.input(0), weight, _zero_point(n, 2, n.dtype(0)),
                                      _zero_point(n, 5, n.dtype(3)), n.input(1), n.input(4)))
    else:
        lhs, rhs = centered_f64(n, 0, 2), centered_f64(n, 3, 5)
        prod = n.emit(relay.BatchMatmulOp(lhs, rhs, transpose_b=False))
        acc = n.emit(relay.CastOp(prod, element_type(np.int32)))
    return _requantize(n, acc, 1, 4, axis=-1)


def centered_f64(n: Node, data: int, zero_point: int) -> SSAValue:
    """(q - zero_point) as f64: exact for 8-bit data, and so are the products and sums."""
    x = n.emit(relay.CastOp(n.input(data), element_type(np.float64)))
    if not n.has(zero_point):
        return x
    zp = n.value(zero_point)
    if isinstance(zp, Const):
        zp_f64 = n.importer.materialize(Const(zp.value.astype(np.float64)))
    else:
        zp_f64 = n.emit(relay.CastOp(n.input(zero_point), element_type(np.float64)))
    return n.emit(relay.SubtractOp(x, zp_f64))
