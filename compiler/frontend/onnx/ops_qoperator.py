"""Converters of the com.microsoft QOperator ops that onnxruntime's quantizer writes
(`quantize_static(..., quant_format=QuantFormat.QOperator)`): each becomes its
dequantize -> float op -> quantize expansion, the QDQ form, so a QOperator model
partitions and offloads exactly as the QDQ model does (the int8 patterns of the
targets match it; QLinearConv / QLinearMatMul of the default domain are in ops_quant).

    QLinearAdd(a, as, az, b, bs, bz, ys, yz)
        ->  %af = relay.qnn.dequantize %a, %as, %az
            %bf = relay.qnn.dequantize %b, %bs, %bz
            %0  = relay.add %af, %bf
            %y  = relay.qnn.quantize %0, %ys, %yz
    QGemm(a, as, az, w, ws, wz, c, ys, yz) transB=1
        ->  dequantize a, w; relay.nn.dense; c (int32) dequantized with as * ws;
            relay.nn.bias_add; quantize (no ys: the float result)

Per-channel weight scales (QGemm's B) keep their axis; activations are per tensor.
"""

from __future__ import annotations

import numpy as np
from xdsl.ir import SSAValue

from accel.compiler.frontend.onnx.context import MICROSOFT_DOMAIN, Const, Node, converter
from accel.compiler.frontend.onnx.ops_nn import add_bias, pool
from accel.compiler.frontend.onnx.ops_quant import product_scale
from accel.compiler.frontend.onnx.ops_tensor import norm_axis
from accel.dialects import relay


def _zero_point(n: Node, i: int, like: int) -> SSAValue:
    """Zero point input `i`, or 0 of the type of input `like` when it is missing."""
    if n.has(i):
        return n.input(i)
    return n.const_value(np.zeros((), dtype=n.dtype(like)))


def _per_axis(n: Node, scale: int, axis: int) -> int | None:
    dims = n.shape(scale)
    return None if len(dims) == 0 or dims == (1,) else axis


def dequantized(n: Node, x: int, scale: int, zero_point: int, axis: int = 1) -> SSAValue:
    return n.emit(relay.DequantizeOp(n.input(x), n.input(scale), _zero_point(n, zero_point, x),
                                     axis=_per_axis(n, scale, axis)))


def quantized(n: Node, y: SSAValue, scale: int, zero_point: int, like: int) -> SSAValue:
    """Quantize `y` with input `scale` and zero point `zero_point` (missing: 0 of input
    `like`'s type, the quantized input's)."""
    return n.emit(relay.QuantizeOp(y, n.input(scale), _zero_point(n, zero_point, like), axis=None))


def _check_layout(n: Node) -> None:
    if n.attr("channels_last", 0):
        raise n.error("channels_last = 1 is not supported (NCHW only)")


# --------------------------------------------------------------------------------------
# Elementwise and activations
# --------------------------------------------------------------------------------------

_BINARY = {"QLinearAdd": relay.AddOp, "QLinearMul": relay.MultiplyOp}


@converter(*_BINARY, domain=MICROSOFT_DOMAIN)
def qlinear_binary(n: Node):
    a, b = dequantized(n, 0, 1, 2), dequantized(n, 3, 4, 5)
    return quantized(n, n.emit(_BINARY[n.op_type](a, b)), 6, 7, 0)


@converter("QLinearSigmoid", domain=MICROSOFT_DOMAIN)
def qlinear_sigmoid(n: Node):
    return quantized(n, n.emit(relay.SigmoidOp(dequantized(n, 0, 1, 2))), 3, 4, 0)


@converter("QLinearLeakyRelu", attrs=("alpha",), domain=MICROSOFT_DOMAIN)
def qlinear_leaky_relu(n: Node):
    y = n.emit(relay.LeakyReluOp(dequantized(n, 0, 1, 2), alpha=float(n.attr("alpha", 0.01))))
    return quantized(n, y, 3, 4, 0)


@converter("QLinearConcat", attrs=("axis",), domain=MICROSOFT_DOMAIN)
def qlinear_concat(n: Node):
    """Inputs: Y_scale, Y_zero_point, then (X, X_scale, X_zero_point) per operand."""
    if (n.num_inputs - 2) % 3 or n.num_inputs < 5:
        raise n.error(f"expects Y_scale, Y_zero_point and (X, X_scale, X_zero_point) triples, got {n.num_inputs} "
                      "inputs")
    parts = [dequantized(n, i, i + 1, i + 2) for i in range(2, n.num_inputs, 3)]
    axis = norm_axis(n, n.attr("axis", 0), n.rank(2))
    return quantized(n, n.emit(relay.ConcatenateOp(*parts, axis=axis)), 0, 1, 2)


# --------------------------------------------------------------------------------------
# Pooling
# --------------------------------------------------------------------------------------


@converter("QLinearAveragePool", attrs=("auto_pad", "ceil_mode", "channels_last", "count_include_pad",
                                        "kernel_shape", "pads", "strides"), domain=MICROSOFT_DOMAIN)
def qlinear_avg_pool(n: Node):
    _check_layout(n)
    if n.attr("ceil_mode", 0):
        raise n.error("ceil_mode = 1 is not supported")
    y = pool(n, relay.AvgPool2DOp, dequantized(n, 0, 1, 2), count_include_pad=bool(n.attr("count_include_pad", 0)))
    return quantized(n, y, 3, 4, 0)


@converter("QLinearGlobalAveragePool", attrs=("channels_last",), domain=MICROSOFT_DOMAIN)
def qlinear_global_avg_pool(n: Node):
    _check_layout(n)
    if n.rank(0) != 4:
        raise n.error(f"only rank-4 (NCHW) input is supported, got rank {n.rank(0)}")
    return quantized(n, n.emit(relay.GlobalAvgPool2DOp(dequantized(n, 0, 1, 2))), 3, 4, 0)


@converter("QLinearSoftmax", attrs=("axis", "opset"), domain=MICROSOFT_DOMAIN)
def qlinear_softmax(n: Node):
    """Softmax of the dequantized input, quantized; `opset` is the float Softmax's (below 13
    it flattened the axes from `axis` on: the same op when `axis` is the last)."""
    rank = n.rank(0)
    axis = norm_axis(n, n.attr("axis", -1 if n.attr("opset", 13) >= 13 else 1), rank)
    if n.attr("opset", 13) < 13 and axis != rank - 1:
        raise n.error(f"a Softmax of opset {n.attr('opset')} over axes {axis}.. is not supported (only the last axis)")
    return quantized(n, n.emit(relay.SoftmaxOp(dequantized(n, 0, 1, 2), axis=axis)), 3, 4, 0)


# --------------------------------------------------------------------------------------
# QGemm
# --------------------------------------------------------------------------------------


@converter("QGemm", attrs=("alpha", "transA", "transB"), domain=MICROSOFT_DOMAIN)
def qgemm(n: Node):
    """A [M, K] x B ([N, K] with transB, else [K, N]) + C (int32, scale a_scale * b_scale);
    quantized with y_scale, or the float result when there is none."""
    if n.attr("transA", 0):
        raise n.error("transA = 1 is not supported")
    if n.rank(0) != 2 or n.rank(3) != 2:
        raise n.error(f"A {list(n.shape(0))} and B {list(n.shape(3))} must be 2-D")
    a = dequantized(n, 0, 1, 2)
    if n.attr("transB", 0):
        w = dequantized(n, 3, 4, 5, axis=0)
        y = n.emit(relay.DenseOp(a, w))
    elif n.is_const(3):
        # A constant [K, N] weight is stored transposed, so the dense form (and its
        # patterns) applies; a per-column scale becomes per-row.
        wt = Const(np.ascontiguousarray(n.const(3).T))
        w = n.emit(relay.DequantizeOp(n.importer.materialize(wt), n.input(4), _zero_point(n, 5, 3),
                                      axis=_per_axis(n, 4, 0)))
        y = n.emit(relay.DenseOp(a, w))
    else:
        y = n.emit(relay.MatmulOp(a, dequantized(n, 3, 4, 5)))
    alpha = float(n.attr("alpha", 1.0))
    if alpha != 1.0:
        y = n.emit(relay.MultiplyOp(y, n.const_value(np.array(alpha, dtype=np.float32))))
    if n.has(6):
        zero = n.const_value(np.zeros((), dtype=np.int32))
        scale = product_scale(n, 1, 4)
        axis = None if len(scale.type.get_shape()) == 0 or tuple(scale.type.get_shape()) == (1,) else n.rank(6) - 1
        bias = n.emit(relay.DequantizeOp(n.input(6), scale, zero, axis=axis))
        y = add_bias(n, y, bias)
    if not n.has(7):
        return y
    return quantized(n, y, 7, 8, 0)
