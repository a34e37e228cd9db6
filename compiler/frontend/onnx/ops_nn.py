"""Converters of compute ops: convolution, dense/matmul, elementwise, activations,
pooling, normalization, softmax and reductions.

    Conv(x, w, b) pads=[1,1,1,1]   ->  %0 = relay.nn.conv2d %x, %w {padding = [1, 1, 1, 1]}
                                       %1 = relay.nn.bias_add %0, %b {axis = 1}
    Gemm(a, w, b) transB=1         ->  %0 = relay.nn.dense %a, %w
                                       %1 = relay.nn.bias_add %0, %b {axis = 1}
    MatMul(x: [2,5,8], w: [8,4])   ->  relay.nn.batch_matmul %x, %w {transpose_b = false}
    Softmax-11(x: [2,3,4], axis=1) ->  reshape to [2, 12], softmax over axis 1, reshape back

1-D convolution and pooling ([N, C, L]) run as their 2-D forms on a column, [N, C, L, 1]
(the signal along the rows, which tile-for-scratchpad splits: a long signal tiles); 3-D
ones ([N, C, D, H, W]) as 2-D ops over the depth (ops_volume).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
from xdsl.ir import SSAValue

from accel.compiler.frontend.onnx import ops_volume
from accel.compiler.frontend.onnx.context import Const, Node, Value, converter
from accel.compiler.frontend.onnx.ops_composed import batch_norm_training
from accel.compiler.frontend.onnx.ops_tensor import axes_operand, norm_axis, reshaped
from accel.dialects import relay

# --------------------------------------------------------------------------------------
# Window geometry (Conv, pools, QLinearConv)
# --------------------------------------------------------------------------------------

CONV_ATTRS = ("auto_pad", "dilations", "group", "kernel_shape", "pads", "strides")


def window_geometry(n: Node, in_dims: Sequence[int], kernel: Sequence[int], *, dilations: bool = True):
    """(strides, dilations, pads_begin, pads_end) of a node with ONNX window attributes,
    `auto_pad` resolved (SAME_UPPER puts the odd cell at the end, SAME_LOWER at the start)."""
    d = len(in_dims)
    strides = n.ints("strides", [1] * d)
    dil = n.ints("dilations", [1] * d) if dilations else [1] * d
    if len(strides) != d or len(dil) != d:
        raise n.error(f"strides {strides} and dilations {dil} must have {d} entries")
    if any(s < 1 for s in strides) or any(x < 1 for x in dil):
        raise n.error(f"strides {strides} and dilations {dil} must be positive")
    auto_pad = n.string("auto_pad", "NOTSET")
    if auto_pad == "NOTSET":
        pads = n.ints("pads", [0] * (2 * d))
        if len(pads) != 2 * d:
            raise n.error(f"pads {pads} must have {2 * d} entries")
        if any(p < 0 for p in pads):
            raise n.error(f"negative pads {pads} are not supported")
        return strides, dil, pads[:d], pads[d:]
    if auto_pad == "VALID":
        return strides, dil, [0] * d, [0] * d
    if auto_pad not in ("SAME_UPPER", "SAME_LOWER"):
        raise n.error(f"auto_pad '{auto_pad}' is not supported")
    begin, end = [], []
    for size, k, s, dl in zip(in_dims, kernel, strides, dil):
        out = -(-size // s)
        total = max(0, (out - 1) * s + (k - 1) * dl + 1 - size)
        small, large = total // 2, total - total // 2
        begin.append(small if auto_pad == "SAME_UPPER" else large)
        end.append(large if auto_pad == "SAME_UPPER" else small)
    return strides, dil, begin, end


def spatial_rank(n: Node, rank: int, what: str, volumes: bool = False) -> int:
    """1 or 2 spatial dims (1-D runs as 2-D with height 1), and 3 where the caller has the
    3-D form (`volumes`: ops_volume); anything else is an error."""
    if rank == 4:
        return 2
    if rank == 3:
        return 1
    if rank == 5 and volumes:
        return 3
    supported = "1-D, 2-D and 3-D: rank 3, 4 or 5" if volumes else "only 1-D and 2-D: rank 3 or 4"
    raise n.error(f"{what} on rank-{rank} input is not supported ({supported})")


def lift_1d(strides, dil, begin, end, column: bool = False):
    """Attributes of a 1-D window as those of the 2-D window of a row, [N, C, 1, L] (a
    transposed convolution's, whose stride phases canonicalize-conv-transpose lays along
    the width), or with `column` of a column, [N, C, L, 1] (convolutions and pools: the
    tiler splits rows). Along the axis of extent 1 (kernel 1, no padding) the output is 1
    whatever the stride and dilation there: a column's take the signal's, since targets
    list square strides (a Conv1d of stride 2 is a 2x2-strided conv2d, which the npu runs)."""
    if column:
        return [strides[0], strides[0]], [dil[0], dil[0]], [begin[0], 0], [end[0], 0]
    return [1, *strides], [1, *dil], [0, *begin], [0, *end]


def check_kernel_shape(n: Node, kernel: Sequence[int]) -> None:
    ks = n.ints("kernel_shape")
    if ks is not None and list(ks) != list(kernel):
        raise n.error(f"kernel_shape {ks} does not match the weight's spatial shape {list(kernel)}")


# --------------------------------------------------------------------------------------
# Convolution
# --------------------------------------------------------------------------------------


@converter("Conv", attrs=CONV_ATTRS)
def conv(n: Node):
    x_dims, w_dims = n.shape(0), n.shape(1)
    d = spatial_rank(n, len(x_dims), "convolution", volumes=True)
    if len(w_dims) != len(x_dims):
        raise n.error(f"the weight {list(w_dims)} must have the input's rank {len(x_dims)}")
    kernel = w_dims[2:]
    check_kernel_shape(n, kernel)
    strides, dil, begin, end = window_geometry(n, x_dims[2:], kernel)
    x, w = n.value(0), n.value(1)
    if d == 3:
        y = ops_volume.conv3d(n, x, w, strides, dil, begin, end, n.attr("group", 1))
        return n.emit(relay.BiasAddOp(y, n.input(2), axis=1)) if n.has(2) else y
    if d == 1:
        strides, dil, begin, end = lift_1d(strides, dil, begin, end, column=True)
        x = reshaped(n, x, (x_dims[0], x_dims[1], x_dims[2], 1))
        w = reshaped(n, w, (w_dims[0], w_dims[1], w_dims[2], 1))
    y = n.emit(relay.Conv2DOp(n.importer.materialize(x), n.importer.materialize(w), strides=strides,
                              padding=(*begin, *end), dilation=dil, groups=n.attr("group", 1)))
    if n.has(2):
        y = n.emit(relay.BiasAddOp(y, n.input(2), axis=1))
    if d == 1:
        out = tuple(y.type.get_shape())
        y = reshaped(n, y, (out[0], out[1], out[2]))
    return y


# --------------------------------------------------------------------------------------
# Gemm and MatMul
# --------------------------------------------------------------------------------------


def scale_value(n: Node, v: Value, factor: float) -> Value:
    """`factor * v`: folded for small constants, else a relay.multiply."""
    if factor == 1.0:
        return v
    if isinstance(v, Const) and v.value.size <= 16:
        return Const((v.value * v.value.dtype.type(factor)).astype(v.value.dtype))
    ssa = n.importer.materialize(v)
    return n.emit(relay.MultiplyOp(ssa, n.const_value(np.array(factor, dtype=n.dtype(0)))))


def add_bias(n: Node, y: SSAValue, c: Value) -> SSAValue:
    """y + c; a bias along the last axis of a 2-D y becomes relay.nn.bias_add."""
    y_dims = tuple(y.type.get_shape())
    c_dims = c.shape if isinstance(c, Const) else tuple(c.type.get_shape())
    if len(y_dims) == 2 and c_dims in ((y_dims[1],), (1, y_dims[1])) and y_dims[1] > 1:
        bias = reshaped(n, c, (y_dims[1],))
        return n.emit(relay.BiasAddOp(y, n.importer.materialize(bias), axis=1))
    return n.emit(relay.AddOp(y, n.importer.materialize(c)))


@converter("Gemm", attrs=("alpha", "beta", "transA", "transB", "broadcast"))
def gemm(n: Node):
    trans_a, trans_b = bool(n.attr("transA", 0)), bool(n.attr("transB", 0))
    a, b = n.input(0), n.input(1)
    if n.rank(0) != 2 or n.rank(1) != 2:
        raise n.error(f"A {list(n.shape(0))} and B {list(n.shape(1))} must be 2-D")
    if not trans_a and trans_b:
        y = n.emit(relay.DenseOp(a, b))
    else:
        y = n.emit(relay.MatmulOp(a, b, transpose_a=trans_a, transpose_b=trans_b))
    alpha, beta = float(n.attr("alpha", 1.0)), float(n.attr("beta", 1.0))
    if alpha != 1.0:
        y = n.emit(relay.MultiplyOp(y, n.const_value(np.array(alpha, dtype=n.dtype(0)))))
    if n.has(2) and beta != 0.0:
        y = add_bias(n, y, scale_value(n, n.value(2), beta))
    return y


@converter("MatMul")
def matmul(n: Node):
    return matmul_of(n, n.value(0), n.value(1), n.shape(0), n.shape(1))


def matmul_of(n: Node, a: Value, b: Value, a_dims: tuple[int, ...], b_dims: tuple[int, ...]) -> SSAValue:
    """ONNX MatMul of `a` [a_dims] and `b` [b_dims] (numpy's matmul: batch dims broadcast)."""
    if not a_dims or not b_dims:
        raise n.error("MatMul operands must have rank >= 1")
    if len(a_dims) == 1:
        a = reshaped(n, a, (1, a_dims[0]))
    if len(b_dims) == 1:
        b = reshaped(n, b, (b_dims[0], 1))
    a_ssa, b_ssa = n.importer.materialize(a), n.importer.materialize(b)
    if len(a_dims) <= 2 and len(b_dims) <= 2:
        y = n.emit(relay.MatmulOp(a_ssa, b_ssa))
    else:
        y = n.emit(relay.BatchMatmulOp(a_ssa, b_ssa, transpose_b=False))
    out = list(y.type.get_shape())
    if len(a_dims) == 1:
        del out[-2]
    if len(b_dims) == 1:
        del out[-1]
    return reshaped(n, y, out)


# --------------------------------------------------------------------------------------
# Elementwise
# --------------------------------------------------------------------------------------

_BINARY = {"Add": relay.AddOp, "Sub": relay.SubtractOp, "Mul": relay.MultiplyOp, "Div": relay.DivideOp}


@converter(*_BINARY, attrs=("broadcast", "axis"))
def binary(n: Node):
    if n.version < 7:
        raise n.error("legacy broadcasting (opset < 7) is not supported")
    if n.op_type == "Add" and (bias := _as_bias_add(n)) is not None:
        return bias
    return n.emit(_BINARY[n.op_type](n.input(0), n.input(1)))


def _as_bias_add(n: Node) -> SSAValue | None:
    """An Add of a constant that varies along one axis of the other operand only (a
    Conv/MatMul bias: [C, 1, 1] on NCHW, [D] on [B, S, D]) is a relay.nn.bias_add, the form
    that patterns match."""
    for data_i, bias_i in ((0, 1), (1, 0)):
        data, bias = n.value(data_i), n.value(bias_i)
        if isinstance(data, Const) or not isinstance(bias, Const):
            continue
        d_dims, b_dims = n.shape(data_i), bias.shape
        if len(b_dims) > len(d_dims) or n.dtype(0) != n.dtype(1):
            continue
        padded = (1,) * (len(d_dims) - len(b_dims)) + b_dims
        axes = [i for i, s in enumerate(padded) if s != 1]
        if len(axes) != 1 or padded[axes[0]] != d_dims[axes[0]]:
            continue
        flat = reshaped(n, bias, (d_dims[axes[0]],))
        return n.emit(relay.BiasAddOp(data, n.importer.materialize(flat), axis=axes[0]))
    return None


@converter("Sum")
def sum_(n: Node):
    values = [n.input(i) for i in range(n.num_inputs) if n.has(i)]
    y = values[0]
    for v in values[1:]:
        y = n.emit(relay.AddOp(y, v))
    return y


_UNARY = {"Relu": relay.ReluOp, "Sigmoid": relay.SigmoidOp, "Tanh": relay.TanhOp, "Erf": relay.ErfOp}


@converter(*_UNARY)
def unary(n: Node):
    return n.emit(_UNARY[n.op_type](n.input(0)))


@converter("Gelu", attrs=("approximate",))
def gelu(n: Node):
    approx = n.string("approximate", "none")
    if approx not in ("none", "tanh"):
        raise n.error(f"approximate '{approx}' is not supported")
    return n.emit(relay.GeluOp(n.input(0), approximate=approx))


@converter("LeakyRelu", attrs=("alpha",))
def leaky_relu(n: Node):
    return n.emit(relay.LeakyReluOp(n.input(0), alpha=float(n.attr("alpha", 0.01))))


@converter("PRelu")
def prelu(n: Node):
    """relu(x) + slope * (x - relu(x)): exactly x for x >= 0 and slope * x below."""
    x = n.input(0)
    slope = n.value(1)
    x_dims, s_dims = n.shape(0), n.shape(1)
    if n.importer.original_opset < 7 and len(s_dims) == 1 and len(x_dims) > 2 and s_dims[0] == x_dims[1] > 1:
        # Opset-6 PRelu broadcasts a [C] slope along the channel axis; the version
        # converter keeps the [C] shape, which numpy broadcasting would misalign.
        slope = reshaped(n, slope, (s_dims[0],) + (1,) * (len(x_dims) - 2))
    r = n.emit(relay.ReluOp(x))
    below = n.emit(relay.SubtractOp(x, r))
    return n.emit(relay.AddOp(r, n.emit(relay.MultiplyOp(n.importer.materialize(slope), below))))


@converter("HardSigmoid", attrs=("alpha", "beta"))
def hard_sigmoid(n: Node):
    return hard_sigmoid_of(n, n.input(0), float(n.attr("alpha", 0.2)), float(n.attr("beta", 0.5)))


def hard_sigmoid_of(n: Node, x: SSAValue, alpha: float, beta: float) -> SSAValue:
    dt = n.dtype(0)
    y = n.emit(relay.MultiplyOp(x, n.const_value(np.array(alpha, dtype=dt))))
    y = n.emit(relay.AddOp(y, n.const_value(np.array(beta, dtype=dt))))
    return n.emit(relay.ClipOp(y, a_min=0.0, a_max=1.0))


@converter("HardSwish")
def hard_swish(n: Node):
    x = n.input(0)
    return n.emit(relay.MultiplyOp(x, hard_sigmoid_of(n, x, 1.0 / 6.0, 0.5)))


@converter("Clip", attrs=("min", "max"))
def clip(n: Node):
    dt = n.dtype(0)
    if n.version < 11:
        # Clip-6's defaults are the float type's finite limits (they clamp infinities).
        lim = np.finfo(dt) if dt.kind == "f" else np.iinfo(dt)
        lo, hi = float(n.attr("min", lim.min)), float(n.attr("max", lim.max))
    else:
        if any(n.has(i) and not n.is_const(i) for i in (1, 2)):
            return _dyn_clip(n, dt)
        lo_c = n.opt_const(1, "the min input")
        hi_c = n.opt_const(2, "the max input")
        if lo_c is None and hi_c is None:
            return n.value(0)
        unbounded = (-math.inf, math.inf) if dt.kind == "f" else (np.iinfo(dt).min, np.iinfo(dt).max)
        lo = float(lo_c.reshape(-1)[0]) if lo_c is not None else float(unbounded[0])
        hi = float(hi_c.reshape(-1)[0]) if hi_c is not None else float(unbounded[1])
    if lo > hi:
        lo = hi  # ONNX: min > max sets every value to max
    return n.emit(relay.ClipOp(n.input(0), a_min=lo, a_max=hi))


def _dyn_clip(n: Node, dt: np.dtype) -> SSAValue:
    """Clip whose min or max is a run-time value: relay.dyn.clip (a missing bound is the
    type's unbounded end)."""
    unbounded = (-math.inf, math.inf) if dt.kind == "f" else (np.iinfo(dt).min, np.iinfo(dt).max)
    bounds = [n.input(i) if n.has(i) else n.const_value(np.array(u, dtype=dt)) for i, u in zip((1, 2), unbounded)]
    return n.emit(relay.DynClipOp(n.input(0), *bounds))


@converter("Softmax", attrs=("axis",))
def softmax(n: Node):
    dims = n.shape(0)
    if n.version >= 13:
        return n.emit(relay.SoftmaxOp(n.input(0), axis=norm_axis(n, n.attr("axis", -1), len(dims))))
    # Before opset 13 the input is coerced to 2-D at `axis` and normalized over the tail.
    axis = norm_axis(n, n.attr("axis", 1), len(dims))
    if axis == len(dims) - 1:
        return n.emit(relay.SoftmaxOp(n.input(0), axis=axis))
    flat = reshaped(n, n.value(0), (math.prod(dims[:axis]), math.prod(dims[axis:])))
    y = n.emit(relay.SoftmaxOp(n.importer.materialize(flat), axis=1))
    return reshaped(n, y, dims)


# --------------------------------------------------------------------------------------
# Pooling
# --------------------------------------------------------------------------------------


def pool(n: Node, op_cls, x: Value | None = None, **extra):
    """Input 0 (or `x`, a value of its shape) pooled with the node's window attributes."""
    dims = n.shape(0)
    indices = op_cls is relay.MaxPool2DIndicesOp
    d = spatial_rank(n, len(dims), "MaxPool's Indices output" if indices else "pooling", volumes=not indices)
    kernel = n.ints("kernel_shape")
    if kernel is None or len(kernel) != d:
        raise n.error(f"kernel_shape {kernel} must have {d} entries")
    dilations = (n.op_type == "MaxPool" and n.version >= 10 or n.op_type == "AveragePool" and n.version >= 19
                 or n.op_type == "LpPool" and n.version >= 18)
    strides, dil, begin, end = window_geometry(n, dims[2:], kernel, dilations=dilations)
    x = n.value(0) if x is None else x
    ceil_mode = bool(n.attr("ceil_mode", 0)) if n.version >= 10 else False
    if d == 3:
        return ops_volume.pool3d(n, op_cls, x, kernel, strides, dil, begin, end, ceil_mode, **extra)
    if d == 1:
        strides, dil, begin, end = lift_1d(strides, dil, begin, end, column=True)
        kernel = [*kernel, 1]
        x = reshaped(n, x, (dims[0], dims[1], dims[2], 1))
    y = n.emit(op_cls(n.importer.materialize(x), pool_size=kernel, strides=strides, dilation=dil,
                      padding=(*begin, *end), ceil_mode=ceil_mode, **extra))
    if d == 1:
        out = tuple(y.type.get_shape())
        y = reshaped(n, y, (out[0], out[1], out[2]))
    return y


@converter("MaxPool", attrs=("auto_pad", "ceil_mode", "dilations", "kernel_shape", "pads", "storage_order",
                             "strides"))
def max_pool(n: Node):
    y = pool(n, relay.MaxPool2DOp)
    if len(n.proto.output) < 2 or not n.proto.output[1]:
        return y
    # The Indices output: flat indices into [N, C, H, W] (1-D: [N, C, L, 1] has the same).
    order = n.attr("storage_order", 0)
    return [y, pool(n, relay.MaxPool2DIndicesOp, storage_order=order)]


@converter("AveragePool", attrs=("auto_pad", "ceil_mode", "count_include_pad", "dilations", "kernel_shape",
                                 "pads", "strides"))
def avg_pool(n: Node):
    return pool(n, relay.AvgPool2DOp, count_include_pad=bool(n.attr("count_include_pad", 0)))


@converter("GlobalAveragePool")
def global_avg_pool(n: Node):
    rank = n.rank(0)
    if rank == 4:
        return n.emit(relay.GlobalAvgPool2DOp(n.input(0)))
    if rank < 3:
        raise n.error(f"the input must have rank >= 3, got {rank}")
    return n.emit(relay.MeanOp(n.input(0), axis=list(range(2, rank)), keepdims=True))


@converter("GlobalMaxPool")
def global_max_pool(n: Node):
    dims = n.shape(0)
    if len(dims) == 4:
        return n.emit(relay.MaxPool2DOp(n.input(0), pool_size=dims[2:]))
    if len(dims) < 3:
        raise n.error(f"the input must have rank >= 3, got {len(dims)}")
    return n.emit(relay.MaxOp(n.input(0), axis=list(range(2, len(dims))), keepdims=True))


# --------------------------------------------------------------------------------------
# Normalization and reductions
# --------------------------------------------------------------------------------------


@converter("BatchNormalization", attrs=("epsilon", "momentum", "spatial", "training_mode", "is_test"))
def batch_norm(n: Node):
    """Inference: normalizes with the running statistics (inputs 3 and 4); training mode
    with the batch's (ops_composed.batch_norm_training)."""
    if n.attr("training_mode", 0):
        return batch_norm_training(n)
    if any(o for o in n.proto.output[1:]):
        raise n.error("the training outputs (running/saved mean and variance) are not supported")
    if n.version < 9 and not n.attr("spatial", 1):
        raise n.error("spatial = 0 is not supported")
    args = [n.input(i) for i in range(5)]
    return n.emit(relay.BatchNormOp(*args, axis=1, epsilon=float(n.attr("epsilon", 1e-5))))


def param_of_shape(n: Node, i: int, shape: tuple[int, ...], what: str) -> SSAValue:
    """Input `i` as a tensor of exactly `shape` (broadcast constants are expanded)."""
    if n.shape(i) == shape:
        return n.input(i)
    v = n.value(i)
    if isinstance(v, Const):
        try:
            return n.importer.materialize(Const(np.broadcast_to(v.value, shape).copy()))
        except ValueError:
            pass
    raise n.error(f"{what} of shape {list(n.shape(i))} must have the normalized shape {list(shape)}")


def _normalized(n: Node) -> tuple[int, tuple[int, ...], float]:
    """A normalization's axis, the shape it normalizes over (axes from `axis` on) and its
    epsilon (LayerNormalization, RMSNormalization: float32 statistics only)."""
    if n.attr("stash_type", 1) != 1:
        raise n.error(f"stash_type {n.attr('stash_type')} is not supported (only 1: float32)")
    dims = n.shape(0)
    axis = norm_axis(n, n.attr("axis", -1), len(dims))
    return axis, tuple(dims[axis:]), float(n.attr("epsilon", 1e-5))


@converter("LayerNormalization", attrs=("axis", "epsilon", "stash_type"))
def layer_norm(n: Node):
    axis, normalized, eps = _normalized(n)
    gamma = param_of_shape(n, 1, normalized, "Scale")
    if n.has(2):
        beta = param_of_shape(n, 2, normalized, "B")
    else:
        beta = n.importer.materialize(Const(np.zeros(normalized, dtype=n.dtype(0))))
    x = n.input(0)
    y = n.emit(relay.LayerNormOp(x, gamma, beta, axis=axis, epsilon=eps))
    outs = n.proto.output
    if not any(outs[1:]):
        return y
    return [y, *_layer_norm_stats(n, x, axis, eps)]


@converter("RMSNormalization", attrs=("axis", "epsilon", "stash_type"))
def rms_norm(n: Node):
    axis, normalized, eps = _normalized(n)
    gamma = param_of_shape(n, 1, normalized, "scale")
    return n.emit(relay.RMSNormOp(n.input(0), gamma, axis=axis, epsilon=eps))


def _layer_norm_stats(n: Node, x: SSAValue, axis: int, eps: float) -> list[SSAValue]:
    """The optional Mean and InvStdDev outputs (training graphs), as ONNX's function
    body defines them: Mean = mean(X), InvStdDev = 1 / sqrt(mean((X - Mean)^2) + eps).
    relay has no rsqrt; a batch norm of ones with `var` as its variance computes it."""
    dims = n.shape(0)
    red = list(range(axis, len(dims)))
    mean = n.emit(relay.MeanOp(x, axis=red, keepdims=True))
    diff = n.emit(relay.SubtractOp(x, mean))
    var = n.emit(relay.MeanOp(n.emit(relay.MultiplyOp(diff, diff)), axis=red, keepdims=True))
    stats_shape = tuple(var.type.get_shape())
    size = math.prod(stats_shape)
    dt = n.dtype(0)
    ones = n.importer.materialize(Const(np.ones((size,), dt)))
    zeros = n.importer.materialize(Const(np.zeros((size,), dt)))
    flat_var = n.importer.materialize(reshaped(n, var, (size,)))
    inv = n.emit(relay.BatchNormOp(ones, ones, zeros, zeros, flat_var, axis=0, epsilon=eps))
    return [mean, n.importer.materialize(reshaped(n, inv, stats_shape))]


@converter("ReduceMean", attrs=("axes", "keepdims", "noop_with_empty_axes"))
def reduce_mean(n: Node):
    keep = bool(n.attr("keepdims", 1))
    axes = axes_operand(n, 18)
    if not axes:
        if n.version >= 18 and n.attr("noop_with_empty_axes", 0):
            return n.value(0)
        axes = None
    return n.emit(relay.MeanOp(n.input(0), axis=axes, keepdims=keep))

