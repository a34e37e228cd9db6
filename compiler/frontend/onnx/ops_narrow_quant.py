"""QuantizeLinear / DequantizeLinear with a float8 or float4 quantized type, as relay
float ops and casts (ONNX's reference, `onnx.reference.ops.op_quantize_linear`):

    QuantizeLinear(x, s[, zp])  to float8:  y = relay.cast{saturate}(x / s)
                                to float4:  y = relay.cast(x / s)          (float4 saturates)
    DequantizeLinear(q, s[, zp])            x = f32(q) * s, of the scale's type

The zero point of a float8 type must be zero (ONNX's rule): it gives the type and is
not read, as in ONNX's reference; float4's is added before the cast (QuantizeLinear) and
not read by DequantizeLinear, likewise. A per-axis scale is laid along `axis` by a reshape. The integer types (incl. int4
and int2) stay `relay.qnn.quantize` / `relay.qnn.dequantize` (ops_quant.py).
"""

from __future__ import annotations

import numpy as np
from xdsl.ir import SSAValue

from accel.compiler.frontend.onnx.context import Const, Node, Value
from accel.compiler.narrow_types import FLOAT4, FLOAT8
from accel.compiler.tensors import element_type
from accel.dialects import relay

FLOAT_QUANT_TYPES = (*FLOAT8, FLOAT4)


def _axis_shape(n: Node, dims: tuple[int, ...], data_shape: tuple[int, ...]) -> tuple[int, ...]:
    """The shape that lays a per-tensor or per-axis parameter of shape `dims` along the
    quantization axis of data of `data_shape` (broadcasting)."""
    rank = len(data_shape)
    if len(dims) == 0 or dims == (1,) or rank == 0:
        return ()
    axis = n.attr("axis", 1)
    axis = axis + rank if axis < 0 else axis
    if not 0 <= axis < rank or data_shape[axis] != dims[0]:
        raise n.error(f"parameter {list(dims)} does not lie along axis {n.attr('axis', 1)} of {list(data_shape)}")
    return tuple(dims[0] if i == axis else 1 for i in range(rank))


def _along(n: Node, value: np.ndarray, dims: tuple[int, ...], data_shape: tuple[int, ...]) -> SSAValue:
    return n.const_value(value.reshape(_axis_shape(n, dims, data_shape)))


def _reshaped_along(n: Node, v: SSAValue, dims: tuple[int, ...], data_shape: tuple[int, ...]) -> SSAValue:
    shape = _axis_shape(n, dims, data_shape)
    return n.emit(relay.ReshapeOp(v, newshape=shape)) if shape != dims else v


def _scale_along(n: Node, data_shape: tuple[int, ...], dtype: np.dtype) -> SSAValue:
    """The scale (input 1) in `dtype`, laid along the quantization axis."""
    s = n.value(1)
    if isinstance(s, Const):
        return _along(n, s.value.astype(dtype), n.shape(1), data_shape)
    v = n.input(1)
    if n.dtype(1) != dtype:
        v = n.emit(relay.CastOp(v, element_type(dtype)))
    return _reshaped_along(n, v, n.shape(1), data_shape)


def float_quantize(n: Node, out_dtype: np.dtype) -> Value:
    x_dtype = n.dtype(0)
    scaled = n.emit(relay.DivideOp(n.input(0), _scale_along(n, n.shape(0), x_dtype)))
    if out_dtype == FLOAT4 and n.has(2):
        zp = n.value(2)
        if isinstance(zp, Const):
            if np.any(zp.value.astype(np.float32) != 0):
                scaled = n.emit(relay.AddOp(scaled, _along(n, zp.value.astype(x_dtype), n.shape(2), n.shape(0))))
        else:
            zp_x = n.emit(relay.CastOp(n.input(2), element_type(x_dtype)))
            scaled = n.emit(relay.AddOp(scaled, _reshaped_along(n, zp_x, n.shape(2), n.shape(0))))
    opts = {"saturate": False} if out_dtype in FLOAT8 and not n.attr("saturate", 1) else {}
    return n.emit(relay.CastOp(scaled, element_type(out_dtype), **opts))


def float_dequantize(n: Node, out_dtype: np.dtype) -> Value:
    x = n.emit(relay.CastOp(n.input(0), element_type(np.dtype(np.float32))))
    y = n.emit(relay.MultiplyOp(x, _scale_along(n, n.shape(0), np.dtype(np.float32))))
    if out_dtype != np.float32:
        y = n.emit(relay.CastOp(y, element_type(out_dtype)))
    return y
