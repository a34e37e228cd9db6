"""numpy evaluation of nodes whose inputs are all known at import time.

Exporters compute shapes at run time even when every shape is static:

    s = Shape(x)                  # [1, 64, 7, 7]       -> known: x has a static type
    n = Gather(s, 0)              # 1
    u = Unsqueeze(n, [0])         # [1]
    c = Concat(u, [-1])           # [1, -1]
    y = Reshape(x, c)             # relay.reshape %x {newshape = [1, 3136]}

Each such node is evaluated here as soon as its inputs are known, so only the real
computation reaches relay. The importer calls these only when all inputs are constants;
`Shape`, `Size` and `ConstantOfShape` are converters (they depend on static types only).
"""

from __future__ import annotations

import numpy as np

from accel.compiler.frontend.onnx.context import Node, folder, np_dtype_of
from accel.compiler.narrow_types import E8M0, FLOAT8, ROUND_MODES
from accel.compiler.tensors import cast

_BINARY = {
    "Add": np.add,
    "Sub": np.subtract,
    "Mul": np.multiply,
    "Pow": np.power,
    "Equal": np.equal,
    "Less": np.less,
    "LessOrEqual": np.less_equal,
    "Greater": np.greater,
    "GreaterOrEqual": np.greater_equal,
    "And": np.logical_and,
    "Or": np.logical_or,
    "Xor": np.logical_xor,
}


def _same_dtype(a: np.ndarray, out) -> np.ndarray:
    return np.asarray(out).astype(a.dtype, copy=False)


@folder("Add", "Sub", "Mul")
def fold_arith(n: Node, xs):
    a, b = xs
    with np.errstate(all="ignore"):
        return _same_dtype(a, _BINARY[n.op_type](a, b))


@folder("Div")
def fold_div(n: Node, xs):
    a, b = xs
    with np.errstate(all="ignore"):
        if a.dtype.kind in "iu":
            # Integer division truncates toward zero (C), numpy's // floors.
            q = np.abs(a.astype(np.int64)) // np.abs(b.astype(np.int64))
            return (q * np.sign(a.astype(np.int64)) * np.sign(b.astype(np.int64))).astype(a.dtype)
        return _same_dtype(a, a / b)


@folder("Pow")
def fold_pow(n: Node, xs):
    a, b = xs
    with np.errstate(all="ignore"):
        return _same_dtype(a, np.power(a, b.astype(a.dtype)))


@folder("Mod", attrs=("fmod",))
def fold_mod(n: Node, xs):
    a, b = xs
    with np.errstate(all="ignore"):
        if n.attr("fmod", 0):
            return _same_dtype(a, np.fmod(a, b))
        return _same_dtype(a, np.mod(a, b))


@folder("Equal", "Less", "LessOrEqual", "Greater", "GreaterOrEqual", "And", "Or", "Xor")
def fold_compare(n: Node, xs):
    return _BINARY[n.op_type](xs[0], xs[1])


@folder("Not")
def fold_not(n: Node, xs):
    return np.logical_not(xs[0])


_UNARY = {
    "Neg": np.negative,
    "Abs": np.abs,
    "Sqrt": np.sqrt,
    "Reciprocal": np.reciprocal,
    "Floor": np.floor,
    "Ceil": np.ceil,
    "Round": np.round,  # halves to even, as ONNX
    "Exp": np.exp,
    "Sin": np.sin,
    "Cos": np.cos,
    "Tan": np.tan,
    "Asin": np.arcsin,
    "Acos": np.arccos,
    "Atan": np.arctan,
    "Sinh": np.sinh,
    "Cosh": np.cosh,
    "Asinh": np.arcsinh,
    "Acosh": np.arccosh,
    "Atanh": np.arctanh,
    "Log": np.log,
    "Sign": np.sign,
    "Relu": lambda x: np.maximum(x, np.zeros((), x.dtype)),  # Range's expansion: Relu(Ceil(n)) trips
}


@folder(*_UNARY)
def fold_unary(n: Node, xs):
    with np.errstate(all="ignore"):
        return _same_dtype(xs[0], _UNARY[n.op_type](xs[0]))


@folder("Min", "Max", "Sum")
def fold_variadic(n: Node, xs):
    fn = {"Min": np.minimum, "Max": np.maximum, "Sum": np.add}[n.op_type]
    out = xs[0]
    for x in xs[1:]:
        out = fn(out, x)
    return _same_dtype(xs[0], out)


@folder("Where")
def fold_where(n: Node, xs):
    c, a, b = xs
    return np.where(c, a, b).astype(a.dtype)


def cast_options(n: Node, dtype: np.dtype) -> dict[str, object]:
    """relay.cast's `saturate` and `round_mode` where ONNX's Cast reads them (float8 and
    f8E8M0FNU results; see accel.compiler.narrow_types)."""
    opts: dict[str, object] = {}
    if dtype in FLOAT8 and not n.attr("saturate", 1):
        opts["saturate"] = False
    if dtype == E8M0:
        opts["saturate"] = bool(n.attr("saturate", 1))
        round_mode = n.attr("round_mode", "up")
        if round_mode not in ROUND_MODES:
            raise n.error(f"round_mode '{round_mode}' is not one of {', '.join(ROUND_MODES)}")
        opts["round_mode"] = round_mode
    return opts


@folder("Cast", attrs=("to", "saturate", "round_mode"))
def fold_cast(n: Node, xs):
    dtype = np_dtype_of(n.attr("to"))
    with np.errstate(all="ignore"):
        return cast(xs[0], dtype, **cast_options(n, dtype))


@folder("CastLike", attrs=("saturate", "round_mode"))
def fold_cast_like(n: Node, xs):
    with np.errstate(all="ignore"):
        return cast(xs[0], xs[1].dtype, **cast_options(n, xs[1].dtype))


@folder("Concat", attrs=("axis",))
def fold_concat(n: Node, xs):
    return np.concatenate([x for x in xs if x is not None], axis=n.attr("axis", 0))


@folder("Gather", attrs=("axis",))
def fold_gather(n: Node, xs):
    data, idx = xs
    return np.take(data, idx.astype(np.int64), axis=n.attr("axis", 0))


@folder("Transpose", attrs=("perm",))
def fold_transpose(n: Node, xs):
    return np.transpose(xs[0], n.ints("perm"))


@folder("Expand")
def fold_expand(n: Node, xs):
    x, shape = xs
    out_shape = np.broadcast_shapes(x.shape, tuple(int(s) for s in shape))
    return np.broadcast_to(x, out_shape).copy()


@folder("Tile")
def fold_tile(n: Node, xs):
    return np.tile(xs[0], tuple(int(r) for r in xs[1]))


@folder("Range")
def fold_range(n: Node, xs):
    start, limit, delta = (x.reshape(()) for x in xs)
    return np.arange(start, limit, delta, dtype=start.dtype)


def slice_indices(dim: int, start: int, end: int, step: int) -> np.ndarray:
    """The indices ONNX Slice picks along one axis (negative bounds count from the end,
    then clamp: [0, dim] for positive steps, [-1, dim - 1] for negative ones)."""
    if step == 0:
        raise ValueError("Slice step must not be 0")
    start = start + dim if start < 0 else start
    end = end + dim if end < 0 else end
    if step > 0:
        start, end = min(max(start, 0), dim), min(max(end, 0), dim)
    else:
        start, end = min(max(start, -1), dim - 1), min(max(end, -1), dim - 1)
    return np.arange(start, end, step, dtype=np.int64)


def slice_params(n: Node, rank: int, xs) -> list[tuple[int, np.ndarray]]:
    """(axis, indices) for each sliced axis of a Slice node (attributes before opset 10)."""
    if n.version < 10:
        starts, ends = n.ints("starts"), n.ints("ends")
        axes = n.ints("axes", list(range(len(starts))))
        steps = [1] * len(starts)
    else:
        starts, ends = [int(v) for v in xs[0]], [int(v) for v in xs[1]]
        axes = [int(v) for v in xs[2]] if xs[2] is not None else list(range(len(starts)))
        steps = [int(v) for v in xs[3]] if xs[3] is not None else [1] * len(starts)
    return list(zip(axes, starts, ends, steps))


@folder("Slice", attrs=("starts", "ends", "axes"))
def fold_slice(n: Node, xs):
    data = xs[0]
    params = xs[1:] + [None] * (5 - len(xs))
    out = data
    for axis, start, end, step in slice_params(n, data.ndim, params):
        axis = axis + data.ndim if axis < 0 else axis
        out = np.take(out, slice_indices(data.shape[axis], start, end, step), axis=axis)
    return out


def reduce_axes(n: Node, xs, axes_input_since: int) -> tuple[tuple[int, ...] | None, bool]:
    """(axes or None for all, keepdims) of a Reduce* node of either generation."""
    keep = bool(n.attr("keepdims", 1))
    if n.version >= axes_input_since:
        axes = xs[1] if len(xs) > 1 and xs[1] is not None else None
        if axes is None or axes.size == 0:
            return (() if n.attr("noop_with_empty_axes", 0) else None), keep
        return tuple(int(a) for a in axes), keep
    axes = n.ints("axes")
    return (tuple(axes) if axes else None), keep


_REDUCE = {"ReduceProd": (np.prod, 18), "ReduceSum": (np.sum, 13), "ReduceMin": (np.min, 18),
           "ReduceMax": (np.max, 18)}


@folder(*_REDUCE, attrs=("axes", "keepdims", "noop_with_empty_axes"))
def fold_reduce(n: Node, xs):
    fn, since = _REDUCE[n.op_type]
    axes, keep = reduce_axes(n, xs, since)
    if axes == ():
        return xs[0]
    return _same_dtype(xs[0], fn(xs[0], axis=axes, keepdims=keep))
