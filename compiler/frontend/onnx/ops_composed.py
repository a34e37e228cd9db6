"""Converters of ONNX ops that relay expresses as compositions of its own ops: the ONNX
function bodies (or their numerically stable forms), so every part can partition,
offload and run with the kernels that exist.

    ReduceLogSumExp(x, axes)    ->  m = max(x, axes, keepdims); log(sum(exp(x - m))) + m
    LogSoftmax(x, axis)         ->  x - m - log(sum(exp(x - m), axis, keepdims))
    Elu(x, alpha)               ->  where(x < 0, alpha * (exp(x) - 1), x)
    Softplus(x)                 ->  max(x, 0) + log(1 + exp(-|x|))
    ArgMax(x, axis)             ->  min(where(x == max(x, axis), iota, n), axis)   (first index)
    InstanceNormalization(x)    ->  (x - mean) / sqrt(var + eps) * scale + bias  (per channel)
    Tile(x, repeats)            ->  reshape [1, d0, 1, d1] -> broadcast_to [r0, d0, r1, d1] -> reshape
    LRN(x)                      ->  x / (bias + alpha / size * window_sum(x^2))^beta, the window
                                    sum a 1x1 convolution with a banded 0/1 weight

Each converter works on run-time values; a node whose inputs are all known (a causal mask
built from shapes, say) is evaluated at import time by ONNX's reference implementation of
the op, as any other foldable node.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
from xdsl.ir import SSAValue

from accel.compiler.frontend.onnx.context import Const, Node, converter, folder, np_dtype_of
from accel.compiler.frontend.onnx.ops_tensor import axes_operand, norm_axis, reshaped
from accel.compiler.tensors import element_type
from accel.compiler.narrow_types import is_compute_float
from accel.dialects import relay

# --------------------------------------------------------------------------------------
# Helpers
# --------------------------------------------------------------------------------------


def _scalar(n: Node, value: float, dtype: np.dtype) -> SSAValue:
    return n.const_value(np.array(value, dtype=dtype))


def _float_input(n: Node, i: int = 0) -> np.dtype:
    dt = n.dtype(i)
    if not is_compute_float(dt):
        raise n.error(f"input {i} must be a float tensor, got {dt}")
    return dt


def _mul(n: Node, a: SSAValue, b: SSAValue) -> SSAValue:
    return n.emit(relay.MultiplyOp(a, b))


def _add(n: Node, a: SSAValue, b: SSAValue) -> SSAValue:
    return n.emit(relay.AddOp(a, b))


def _sub(n: Node, a: SSAValue, b: SSAValue) -> SSAValue:
    return n.emit(relay.SubtractOp(a, b))


def _div(n: Node, a: SSAValue, b: SSAValue) -> SSAValue:
    return n.emit(relay.DivideOp(a, b))


def softplus_of(n: Node, x: SSAValue, dt: np.dtype) -> SSAValue:
    """log(1 + exp(x)) without overflow: max(x, 0) + log(1 + exp(-|x|))."""
    zero, one = _scalar(n, 0, dt), _scalar(n, 1, dt)
    tail = n.emit(relay.LogOp(_add(n, one, n.emit(relay.ExpOp(n.emit(relay.NegativeOp(n.emit(relay.AbsOp(x)))))))))
    return _add(n, n.emit(relay.MaximumOp(x, zero)), tail)


def _reduced_shape(dims: Sequence[int], axes: Sequence[int], keepdims: bool) -> tuple[int, ...]:
    if keepdims:
        return tuple(1 if i in axes else d for i, d in enumerate(dims))
    return tuple(d for i, d in enumerate(dims) if i not in axes)


def _iota(n: Node, dims: Sequence[int], axis: int) -> SSAValue:
    """int64 positions along `axis`, shaped to broadcast against `dims`."""
    shape = [1] * len(dims)
    shape[axis] = dims[axis]
    return n.const_value(np.arange(dims[axis], dtype=np.int64).reshape(shape))


def _softmax_operand(n: Node) -> tuple[SSAValue, tuple[int, ...], int]:
    """The input of a softmax-like op as it normalizes: from opset 13 along `axis`
    (default -1); before, coerced to 2-D at `axis` (default 1) and along axis 1, as
    Softmax-1/11. Returns the value, its shape and the axis."""
    dims = n.shape(0)
    if n.version >= 13:
        return n.input(0), dims, norm_axis(n, n.attr("axis", -1), len(dims))
    a = norm_axis(n, n.attr("axis", 1), len(dims))
    work = (math.prod(dims[:a]), math.prod(dims[a:]))
    return n.importer.materialize(reshaped(n, n.value(0), work)), work, 1


# --------------------------------------------------------------------------------------
# Reductions
# --------------------------------------------------------------------------------------

_REDUCE_COMPOSED = ("ReduceL1", "ReduceL2", "ReduceSumSquare", "ReduceLogSum", "ReduceLogSumExp")


@converter(*_REDUCE_COMPOSED, attrs=("axes", "keepdims", "noop_with_empty_axes"))
def reduce_composed(n: Node):
    """ONNX's definitions: L1 = sum|x|, L2 = sqrt(sum x^2), SumSquare = sum x^2,
    LogSum = log(sum x), LogSumExp = log(sum exp x) (shifted by the max). With no axes and
    noop_with_empty_axes only the elementwise part applies, as in ONNX's reference."""
    dims = n.shape(0)
    dt = n.dtype(0)
    axes = axes_operand(n, 18)
    keep = bool(n.attr("keepdims", 1))
    noop = not axes and n.version >= 18 and bool(n.attr("noop_with_empty_axes", 0))
    if not axes:
        axes = list(range(len(dims)))
    red = sorted({norm_axis(n, a, len(dims), "axes entry") for a in axes})
    x = n.input(0)
    op = n.op_type
    if op in ("ReduceL2", "ReduceLogSum", "ReduceLogSumExp"):
        _float_input(n)

    def total(v: SSAValue, keepdims: bool = keep) -> SSAValue:
        return v if noop else n.emit(relay.SumOp(v, axis=red, keepdims=keepdims))

    if op == "ReduceL1":
        return total(n.emit(relay.AbsOp(x)) if dt.kind != "u" else x)
    if op == "ReduceSumSquare":
        return total(_mul(n, x, x))
    if op == "ReduceL2":
        return n.emit(relay.SqrtOp(total(_mul(n, x, x))))
    if op == "ReduceLogSum":
        return n.emit(relay.LogOp(total(x)))
    if noop:
        return n.emit(relay.LogOp(n.emit(relay.ExpOp(x))))
    m = n.emit(relay.MaxOp(x, axis=red, keepdims=True))
    s = n.emit(relay.SumOp(n.emit(relay.ExpOp(_sub(n, x, m))), axis=red, keepdims=True))
    y = _add(n, n.emit(relay.LogOp(s)), m)
    return n.importer.materialize(reshaped(n, y, _reduced_shape(dims, red, keep)))


@converter("ArgMax", "ArgMin", attrs=("axis", "keepdims", "select_last_index"))
def arg_extremum(n: Node):
    """The index of the first (or, with select_last_index, the last) extremum along
    `axis`, as int64: positions where x equals its extremum, the smallest (largest) kept."""
    dims = n.shape(0)
    axis = norm_axis(n, n.attr("axis", 0), len(dims))
    keep = bool(n.attr("keepdims", 1))
    last = bool(n.attr("select_last_index", 0))
    x = n.input(0)
    extremum = relay.MaxOp if n.op_type == "ArgMax" else relay.MinOp
    best = n.emit(extremum(x, axis=[axis], keepdims=True))
    hit = n.emit(relay.EqualOp(x, best))
    iota = _iota(n, dims, axis)
    miss = n.const_value(np.array(-1 if last else dims[axis], dtype=np.int64))
    positions = n.emit(relay.WhereOp(hit, iota, miss))
    pick = relay.MaxOp if last else relay.MinOp
    return n.emit(pick(positions, axis=[axis], keepdims=keep))


@converter("Hardmax", attrs=("axis",))
def hardmax(n: Node):
    """1 at the first maximum along `axis`, 0 elsewhere (before opset 13 the input is
    coerced to 2-D at `axis`, as Softmax)."""
    dims = n.shape(0)
    dt = n.dtype(0)
    x, work, axis = _softmax_operand(n)
    best = n.emit(relay.MaxOp(x, axis=[axis], keepdims=True))
    iota = _iota(n, work, axis)
    first = n.emit(relay.MinOp(n.emit(relay.WhereOp(n.emit(relay.EqualOp(x, best)), iota,
                                                    n.const_value(np.array(work[axis], np.int64)))),
                               axis=[axis], keepdims=True))
    y = n.emit(relay.CastOp(n.emit(relay.EqualOp(iota, first)), element_type(dt)))
    return n.importer.materialize(reshaped(n, y, dims))


@converter("Mean")
def mean_(n: Node):
    """Elementwise mean of the inputs (broadcasting): their sum divided by their count."""
    values = [n.input(i) for i in range(n.num_inputs) if n.has(i)]
    if not values:
        raise n.error("needs at least one input")
    dt = _float_input(n)
    y = values[0]
    for v in values[1:]:
        y = _add(n, y, v)
    return y if len(values) == 1 else _div(n, y, _scalar(n, len(values), dt))


# --------------------------------------------------------------------------------------
# Activations
# --------------------------------------------------------------------------------------


@converter("LogSoftmax", attrs=("axis",))
def log_softmax(n: Node):
    dims = n.shape(0)
    _float_input(n)
    x, work, axis = _softmax_operand(n)
    shifted = _sub(n, x, n.emit(relay.MaxOp(x, axis=[axis], keepdims=True)))
    lse = n.emit(relay.LogOp(n.emit(relay.SumOp(n.emit(relay.ExpOp(shifted)), axis=[axis], keepdims=True))))
    return n.importer.materialize(reshaped(n, _sub(n, shifted, lse), dims))


@converter("Elu", attrs=("alpha",))
def elu(n: Node):
    dt = _float_input(n)
    x = n.input(0)
    neg = n.emit(relay.LessOp(x, _scalar(n, 0, dt)))
    em1 = _sub(n, n.emit(relay.ExpOp(x)), _scalar(n, 1, dt))
    return n.emit(relay.WhereOp(neg, _mul(n, _scalar(n, n.attr("alpha", 1.0), dt), em1), x))


@converter("Selu", attrs=("alpha", "gamma"))
def selu(n: Node):
    dt = _float_input(n)
    x = n.input(0)
    alpha = _scalar(n, n.attr("alpha", 1.67326319217681884765625), dt)
    gamma = _scalar(n, n.attr("gamma", 1.05070102214813232421875), dt)
    nonpos = n.emit(relay.LessEqualOp(x, _scalar(n, 0, dt)))
    low = _sub(n, _mul(n, alpha, n.emit(relay.ExpOp(x))), alpha)
    return _mul(n, gamma, n.emit(relay.WhereOp(nonpos, low, x)))


@converter("Celu", attrs=("alpha",))
def celu(n: Node):
    """max(0, x) + min(0, alpha * (exp(x / alpha) - 1))."""
    dt = _float_input(n)
    x = n.input(0)
    alpha = _scalar(n, n.attr("alpha", 1.0), dt)
    zero = _scalar(n, 0, dt)
    em1 = _sub(n, n.emit(relay.ExpOp(_div(n, x, alpha))), _scalar(n, 1, dt))
    return _add(n, n.emit(relay.MaximumOp(x, zero)), n.emit(relay.MinimumOp(_mul(n, alpha, em1), zero)))


@converter("Softplus")
def softplus(n: Node):
    return softplus_of(n, n.input(0), _float_input(n))


@converter("Softsign")
def softsign(n: Node):
    dt = _float_input(n)
    x = n.input(0)
    return _div(n, x, _add(n, _scalar(n, 1, dt), n.emit(relay.AbsOp(x))))


@converter("Mish")
def mish(n: Node):
    dt = _float_input(n)
    x = n.input(0)
    return _mul(n, x, n.emit(relay.TanhOp(softplus_of(n, x, dt))))


@converter("Swish", attrs=("alpha",))
def swish(n: Node):
    dt = _float_input(n)
    x = n.input(0)
    alpha = float(n.attr("alpha", 1.0))
    if alpha == 1.0:
        return n.emit(relay.SiluOp(x))
    return _mul(n, x, n.emit(relay.SigmoidOp(_mul(n, x, _scalar(n, alpha, dt)))))


@converter("ThresholdedRelu", attrs=("alpha",))
def thresholded_relu(n: Node):
    dt = _float_input(n)
    x = n.input(0)
    above = n.emit(relay.GreaterOp(x, _scalar(n, n.attr("alpha", 1.0), dt)))
    return n.emit(relay.WhereOp(above, x, _scalar(n, 0, dt)))


@converter("Shrink", attrs=("bias", "lambd"))
def shrink(n: Node):
    """x + bias below -lambd, x - bias above lambd, 0 between (any numeric type)."""
    dt = n.dtype(0)
    x = n.input(0)
    lambd, bias = float(n.attr("lambd", 0.5)), float(n.attr("bias", 0.0))
    compute = dt if dt.kind == "f" else np.dtype(np.float64)
    xf = x if compute == dt else n.emit(relay.CastOp(x, element_type(compute)))
    low = n.emit(relay.LessOp(xf, _scalar(n, -lambd, compute)))
    high = n.emit(relay.GreaterOp(xf, _scalar(n, lambd, compute)))
    zero = _scalar(n, 0, compute)
    y = n.emit(relay.WhereOp(low, _add(n, xf, _scalar(n, bias, compute)),
                             n.emit(relay.WhereOp(high, _sub(n, xf, _scalar(n, bias, compute)), zero))))
    return y if compute == dt else n.emit(relay.CastOp(y, element_type(dt)))


@converter("Sign")
def sign(n: Node):
    dt = n.dtype(0)
    x = n.input(0)
    zero, one = _scalar(n, 0, dt), _scalar(n, 1, dt)
    pos = n.emit(relay.WhereOp(n.emit(relay.GreaterOp(x, zero)), one, zero))
    if dt.kind == "u":
        return pos
    return n.emit(relay.WhereOp(n.emit(relay.LessOp(x, zero)), _scalar(n, -1, dt), pos))


@converter("IsNaN")
def is_nan(n: Node):
    _float_input(n)
    x = n.input(0)
    return n.emit(relay.NotEqualOp(x, x))


@converter("IsInf", attrs=("detect_negative", "detect_positive"))
def is_inf(n: Node):
    dt = _float_input(n)
    x = n.input(0)
    pos = n.emit(relay.EqualOp(x, _scalar(n, np.inf, dt)))
    neg = n.emit(relay.EqualOp(x, _scalar(n, -np.inf, dt)))
    want_pos, want_neg = bool(n.attr("detect_positive", 1)), bool(n.attr("detect_negative", 1))
    if want_pos and want_neg:
        return n.emit(relay.LogicalOrOp(pos, neg))
    if want_pos:
        return pos
    if want_neg:
        return neg
    return n.emit(relay.LogicalAndOp(pos, neg))  # never true: a value is not both


# --------------------------------------------------------------------------------------
# Normalizations
# --------------------------------------------------------------------------------------


def _normalize(n: Node, x: SSAValue, axes: list[int], eps: float, dt: np.dtype) -> SSAValue:
    """(x - mean) / sqrt(var + eps) over `axes` (the biased variance, as ONNX)."""
    mean = n.emit(relay.MeanOp(x, axis=axes, keepdims=True))
    diff = _sub(n, x, mean)
    var = n.emit(relay.MeanOp(_mul(n, diff, diff), axis=axes, keepdims=True))
    return _div(n, diff, n.emit(relay.SqrtOp(_add(n, var, _scalar(n, eps, dt)))))


def _per_channel(n: Node, i: int, channels: int, rank: int, what: str) -> SSAValue:
    """Input `i` (C values) shaped [C, 1, ...] to broadcast over [N, C, ...]."""
    if math.prod(n.shape(i)) != channels:
        raise n.error(f"{what} has shape {list(n.shape(i))}, expected [{channels}]")
    return n.importer.materialize(reshaped(n, n.value(i), (channels,) + (1,) * (rank - 2)))


def batch_norm_training(n: Node) -> list[SSAValue]:
    """BatchNormalization with training_mode = 1 (opset 14+): normalized with the batch's
    own statistics (mean and biased variance over every axis but the channels), and the
    updated running statistics `input * momentum + batch * (1 - momentum)` as outputs 1
    and 2, as onnx.reference computes them."""
    dims = n.shape(0)
    dt = _float_input(n)
    if len(dims) < 2:
        raise n.error(f"input of rank {len(dims)} has no channel axis")
    channels, rank = dims[1], len(dims)
    axes = [0, *range(2, rank)]
    x = n.input(0)
    mean = n.emit(relay.MeanOp(x, axis=axes, keepdims=True))
    diff = _sub(n, x, mean)
    var = n.emit(relay.MeanOp(_mul(n, diff, diff), axis=axes, keepdims=True))
    y = _div(n, diff, n.emit(relay.SqrtOp(_add(n, var, _scalar(n, float(n.attr("epsilon", 1e-5)), dt)))))
    y = _add(n, _mul(n, y, _per_channel(n, 1, channels, rank, "scale")), _per_channel(n, 2, channels, rank, "B"))
    momentum = float(n.attr("momentum", 0.9))
    outputs = [y]
    for i, batch in ((3, mean), (4, var)):
        if len(n.proto.output) <= len(outputs):
            break
        running = n.importer.materialize(reshaped(n, n.value(i), (channels,)))
        batch = n.importer.materialize(reshaped(n, batch, (channels,)))
        outputs.append(_add(n, _mul(n, running, _scalar(n, momentum, dt)), _mul(n, batch, _scalar(n, 1 - momentum, dt))))
    return outputs


@converter("InstanceNormalization", attrs=("epsilon",))
def instance_norm(n: Node):
    dims = n.shape(0)
    dt = _float_input(n)
    if len(dims) < 3:
        raise n.error(f"input of rank {len(dims)} has no spatial axes")
    y = _normalize(n, n.input(0), list(range(2, len(dims))), float(n.attr("epsilon", 1e-5)), dt)
    # torch's GroupNorm export normalizes [N, G, -1] with a scale of ones and a bias of
    # zeros (its affine follows per channel): no product and sum for those, which would
    # stay on the host between the norm and the affine.
    scale, bias = (n.const(i) if n.is_const(i) else None for i in (1, 2))
    if scale is None or not np.all(scale == 1):
        y = _mul(n, y, _per_channel(n, 1, dims[1], len(dims), "scale"))
    if bias is None or not np.all(bias == 0):
        y = _add(n, y, _per_channel(n, 2, dims[1], len(dims), "B"))
    return y


@converter("GroupNormalization", attrs=("epsilon", "num_groups", "stash_type"))
def group_norm(n: Node):
    """Statistics per (sample, group of channels); scale and bias per channel (opset 21)
    or per group (opset 18)."""
    dims = n.shape(0)
    dt = _float_input(n)
    groups = n.attr("num_groups")
    if groups is None or groups <= 0 or dims[1] % groups:
        raise n.error(f"num_groups {groups} must divide the {dims[1]} channels")
    if n.attr("stash_type", 1) != 1:
        raise n.error(f"stash_type {n.attr('stash_type')} is not supported (only 1: float32)")
    grouped = n.importer.materialize(reshaped(n, n.value(0), (dims[0], groups, math.prod(dims[1:]) // groups)))
    y = _normalize(n, grouped, [2], float(n.attr("epsilon", 1e-5)), dt)
    if n.version >= 21:
        y = n.importer.materialize(reshaped(n, y, dims))
        y = _mul(n, y, _per_channel(n, 1, dims[1], len(dims), "scale"))
        return _add(n, y, _per_channel(n, 2, dims[1], len(dims), "bias"))
    y = _mul(n, y, _per_channel(n, 1, groups, 3, "scale"))
    y = _add(n, y, _per_channel(n, 2, groups, 3, "bias"))
    return n.importer.materialize(reshaped(n, y, dims))


@converter("MeanVarianceNormalization", attrs=("axes",))
def mean_variance_norm(n: Node):
    """(x - mean) / (sqrt(var) + 1e-9) over `axes` (default N, H, W), ONNX's definition."""
    dims = n.shape(0)
    dt = _float_input(n)
    axes = sorted({norm_axis(n, a, len(dims), "axes entry") for a in (n.ints("axes") or [0, 2, 3])})
    x = n.input(0)
    mean = n.emit(relay.MeanOp(x, axis=axes, keepdims=True))
    diff = _sub(n, x, mean)
    sq_mean = n.emit(relay.MeanOp(_mul(n, x, x), axis=axes, keepdims=True))
    var = _sub(n, sq_mean, _mul(n, mean, mean))
    return _div(n, diff, _add(n, n.emit(relay.SqrtOp(var)), _scalar(n, 1e-9, dt)))


@converter("LpNormalization", attrs=("axis", "p"))
def lp_norm(n: Node):
    dims = n.shape(0)
    _float_input(n)
    axis = norm_axis(n, n.attr("axis", -1), len(dims))
    p = n.attr("p", 2)
    x = n.input(0)
    if p == 1:
        norm = n.emit(relay.SumOp(n.emit(relay.AbsOp(x)), axis=[axis], keepdims=True))
    elif p == 2:
        norm = n.emit(relay.SqrtOp(n.emit(relay.SumOp(_mul(n, x, x), axis=[axis], keepdims=True))))
    else:
        raise n.error(f"p = {p} is not supported (1 or 2)")
    # An all-zero slice stays zero (its norm divides as 1), as ONNX's reference.
    dt = n.dtype(0)
    zero = n.emit(relay.EqualOp(norm, _scalar(n, 0, dt)))
    return _div(n, x, n.emit(relay.WhereOp(zero, _scalar(n, 1, dt), norm)))


@converter("RMSNormalization", attrs=("axis", "epsilon", "stash_type"))
def rms_norm(n: Node):
    """x / sqrt(mean(x^2 over axis..) + eps) * scale (opset 23)."""
    dims = n.shape(0)
    dt = _float_input(n)
    if n.attr("stash_type", 1) != 1:
        raise n.error(f"stash_type {n.attr('stash_type')} is not supported (only 1: float32)")
    axis = norm_axis(n, n.attr("axis", -1), len(dims))
    x = n.input(0)
    ms = n.emit(relay.MeanOp(_mul(n, x, x), axis=list(range(axis, len(dims))), keepdims=True))
    y = _div(n, x, n.emit(relay.SqrtOp(_add(n, ms, _scalar(n, float(n.attr("epsilon", 1e-5)), dt)))))
    return _mul(n, y, n.input(1))


@converter("LRN", attrs=("alpha", "beta", "bias", "size"))
def lrn(n: Node):
    """Across-channel local response normalization: the window sum of squares over
    channels c - floor((size-1)/2) .. c + ceil((size-1)/2) is a 1x1 convolution with a
    banded 0/1 weight (so it can offload), then (bias + alpha/size * sum)^beta divides x."""
    dims = n.shape(0)
    dt = _float_input(n)
    if len(dims) != 4:
        raise n.error(f"input of rank {len(dims)} is not supported (only NCHW)")
    size = int(n.attr("size"))
    c = dims[1]
    lo, hi = (size - 1) // 2, size - 1 - (size - 1) // 2
    band = np.zeros((c, c, 1, 1), dtype=dt)
    for o in range(c):
        band[o, max(0, o - lo):min(c, o + hi + 1)] = 1
    x = n.input(0)
    sq = _mul(n, x, x)
    window = n.emit(relay.Conv2DOp(sq, n.const_value(band)))
    scale = _add(n, _scalar(n, float(n.attr("bias", 1.0)), dt),
                 _mul(n, _scalar(n, float(n.attr("alpha", 1e-4)) / size, dt), window))
    return _div(n, x, n.emit(relay.PowerOp(scale, _scalar(n, float(n.attr("beta", 0.75)), dt))))


# --------------------------------------------------------------------------------------
# Shapes and masks
# --------------------------------------------------------------------------------------


def _tile_axes(n: Node, x, dims: list[int], repeats: dict[int, int]):
    """Tile the axes in `repeats`: each becomes a broadcast new axis before it; runs of
    axes that are not repeated merge into the axis before them (rank stays low)."""
    interleaved: list[int] = []
    wide: list[int] = []
    for i, d in enumerate(dims):
        r = repeats.get(i, 1)
        if r > 1 or not interleaved:
            interleaved += [1, d] if r > 1 else [d]
            wide += [r, d] if r > 1 else [d]
        else:
            interleaved[-1] *= d
            wide[-1] *= d
    y = n.emit(relay.BroadcastToOp(n.importer.materialize(reshaped(n, x, interleaved)), shape=wide))
    return reshaped(n, y, [repeats.get(i, 1) * d for i, d in enumerate(dims)])


@converter("Tile")
def tile(n: Node):
    """Reshape + broadcast_to + reshape, two repeated axes at a time (the host kernels'
    rank limit is 6)."""
    dims = list(n.shape(0))
    repeats = [int(r) for r in n.const(1, "repeats").reshape(-1)]
    if len(repeats) != len(dims) or any(r < 1 for r in repeats):
        raise n.error(f"repeats {repeats} must hold one positive count per axis of the rank-{len(dims)} input")
    x = n.value(0)
    tiled = [i for i, r in enumerate(repeats) if r > 1]
    for k in range(0, len(tiled), 2):
        step = {i: repeats[i] for i in tiled[k:k + 2]}
        x = _tile_axes(n, x, dims, step)
        dims = [step.get(i, 1) * d for i, d in enumerate(dims)]
    return x


@converter("Trilu", attrs=("upper",))
def trilu(n: Node):
    """A run-time matrix (stack) times a constant triangular mask of its last two axes."""
    dims = n.shape(0)
    if len(dims) < 2:
        raise n.error(f"input of rank {len(dims)} has no matrix axes")
    k = int(n.const(1, "k").reshape(-1)[0]) if n.has(1) else 0
    ones = np.ones(dims[-2:], dtype=bool)
    mask = np.triu(ones, k) if n.attr("upper", 1) else np.tril(ones, k)
    return n.emit(relay.WhereOp(n.const_value(mask), n.input(0), _scalar(n, 0, n.dtype(0))))


@converter("EyeLike", attrs=("dtype", "k"))
def eye_like(n: Node):
    """Depends on the input's static shape only: a constant."""
    dims = n.shape(0)
    if len(dims) != 2:
        raise n.error(f"input of rank {len(dims)} is not supported (only 2-D)")
    from_proto = n.attr("dtype")
    dt = n.dtype(0) if from_proto is None else np_dtype_of(from_proto)
    return n.const_value(np.eye(dims[0], dims[1], k=int(n.attr("k", 0)), dtype=dt))


@converter("OneHot", attrs=("axis",))
def one_hot(n: Node):
    """values[1] where indices (negative ones counted from depth) equal the position along
    the new axis, values[0] elsewhere; the depth must be known."""
    dims = n.shape(0)
    depth = int(n.const(1, "depth").reshape(-1)[0])
    axis = norm_axis(n, n.attr("axis", -1), len(dims) + 1)
    values = n.const(2, "values").reshape(-1)
    if values.size != 2:
        raise n.error(f"values must hold [off, on], got {values.size} values")
    idx = n.input(0)
    if n.dtype(0) != np.int64:
        idx = n.emit(relay.CastOp(idx, element_type(np.dtype(np.int64))))
    neg = n.emit(relay.LessOp(idx, n.const_value(np.array(0, np.int64))))
    idx = n.emit(relay.WhereOp(neg, _add(n, idx, n.const_value(np.array(depth, np.int64))), idx))
    out_dims = list(dims[:axis]) + [depth] + list(dims[axis:])
    expanded = n.importer.materialize(reshaped(n, idx, [1 if i == axis else d for i, d in enumerate(out_dims)]))
    hit = n.emit(relay.EqualOp(expanded, _iota(n, out_dims, axis)))
    return n.emit(relay.WhereOp(hit, n.const_value(values[1]), n.const_value(values[0])))


# --------------------------------------------------------------------------------------
# Import-time evaluation
# --------------------------------------------------------------------------------------

COMPOSED_OPS = (*_REDUCE_COMPOSED, "ArgMax", "ArgMin", "Hardmax", "Mean", "LogSoftmax", "Elu", "Selu", "Celu",
                "Softplus", "Softsign", "Mish", "Swish", "ThresholdedRelu", "Shrink", "Sign", "IsNaN", "IsInf",
                "InstanceNormalization", "GroupNormalization", "MeanVarianceNormalization", "LpNormalization",
                "RMSNormalization", "LRN", "Tile", "Trilu", "EyeLike", "OneHot")


def fold_by_reference(n: Node, arrays: list[np.ndarray | None]) -> list[np.ndarray]:
    """A node on known inputs, evaluated by ONNX's reference implementation of its version."""
    outs = n.importer.fold_with_reference(n.proto, [None if a is None else Const(a) for a in arrays])
    if outs is None:
        raise n.error("cannot evaluate the node on its constant inputs")
    return [o.value for o in outs]


folder(*COMPOSED_OPS)(fold_by_reference)
