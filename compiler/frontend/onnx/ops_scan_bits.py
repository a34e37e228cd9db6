"""Converters of ONNX scans, selections and integer bit ops:

    CumSum / CumProd(x, axis)          ->  relay.cumsum / relay.cumprod (axis a constant input)
    TopK(x, k)                         ->  relay.topk {ret_type = "indices"} (k a constant input),
                                           the values a relay.gather of x at those indices
    BitwiseAnd / Or / Xor / Not        ->  relay.bitwise_and / _or / _xor / _not
    BitShift(x, y, direction)          ->  relay.left_shift / relay.right_shift
    BitCast(x, to)                     ->  relay.reinterpret
    Det(x)                             ->  relay.det
    ReverseSequence(x, lengths)        ->  relay.gather along the time axis at
                                           where(t < len[b], len[b] - 1 - t, t)
    Compress(x, condition)             ->  a strided slice (the kept indices in steps) or a
                                           relay.take of the kept indices (condition constant)
    NonZero(x), Unique(x)              ->  folded when x is a constant; on a run-time value a
                                           one-line refusal (the output shape depends on the data)
"""

from __future__ import annotations

import numpy as np

from accel.compiler.frontend.onnx.context import Node, converter, folder, np_dtype_of
from accel.compiler.frontend.onnx.ops_tensor import norm_axis, reshaped
from accel.compiler.tensors import element_type
from accel.dialects import relay

# --------------------------------------------------------------------------------------
# Scans and selection
# --------------------------------------------------------------------------------------


def _numeric_input(n: Node, i: int = 0) -> np.dtype:
    dt = n.dtype(i)
    if dt.kind not in "iuf" or dt.itemsize < 4 and dt.kind == "f":
        raise n.error(f"input {i} must be a float32/float64 or integer tensor, got {dt}")
    return dt


@converter("CumSum", "CumProd", attrs=("exclusive", "reverse"))
def cumulative(n: Node):
    _numeric_input(n)
    rank = n.rank(0)
    if rank == 0:
        raise n.error("the input must have rank >= 1")
    axis_value = n.const(1, "the axis input").reshape(-1)
    if axis_value.size != 1:
        raise n.error(f"the axis input must hold one value, got {axis_value.size}")
    axis = norm_axis(n, int(axis_value[0]), rank)
    cls = relay.CumsumOp if n.op_type == "CumSum" else relay.CumprodOp
    return n.emit(cls(n.input(0), axis=axis, exclusive=bool(n.attr("exclusive", 0)),
                      reverse=bool(n.attr("reverse", 0))))


@converter("TopK", attrs=("axis", "largest", "sorted", "k"))
def topk(n: Node):
    _numeric_input(n)
    dims = n.shape(0)
    if not dims:
        raise n.error("the input must have rank >= 1")
    axis = norm_axis(n, n.attr("axis", -1), len(dims))
    if n.version < 10:
        k = n.attr("k")
    else:
        kv = n.const(1, "K").reshape(-1)
        if kv.size != 1:
            raise n.error(f"K must hold one value, got {kv.size}")
        k = int(kv[0])
    if k is None or not 0 <= k <= dims[axis]:
        raise n.error(f"K = {k} is out of range for axis {axis} of size {dims[axis]}")
    if k == 0:
        raise n.error("K = 0 gives empty outputs, which are not supported")
    # `sorted` = 0 lets any order through; the sorted one is such an order.
    ascend = not n.attr("largest", 1)
    x = n.input(0)
    outs = n.proto.output
    if len(outs) > 1 and outs[1]:
        idx = n.emit(relay.TopKOp(x, k=k, axis=axis, is_ascend=ascend, ret_type="indices"))
        values = n.emit(relay.GatherOp(x, idx, axis=axis)) if outs[0] else None
        return [values, idx]
    return [n.emit(relay.TopKOp(x, k=k, axis=axis, is_ascend=ascend, ret_type="values"))]


@converter("ReverseSequence", attrs=("batch_axis", "time_axis"))
def reverse_sequence(n: Node):
    dims = n.shape(0)
    if len(dims) < 2:
        raise n.error(f"the input must have rank >= 2, got rank {len(dims)}")
    t_ax = norm_axis(n, n.attr("time_axis", 0), len(dims), "time_axis")
    b_ax = norm_axis(n, n.attr("batch_axis", 1), len(dims), "batch_axis")
    if t_ax == b_ax:
        raise n.error(f"time_axis and batch_axis must differ, both are {t_ax}")
    if n.shape(1) != (dims[b_ax],):
        raise n.error(f"sequence_lens must have shape [{dims[b_ax]}] (the batch), got {list(n.shape(1))}")
    if n.dtype(1).kind not in "iu":
        raise n.error(f"sequence_lens must be an integer tensor, got {n.dtype(1)}")
    iota_shape = [1] * len(dims)
    iota_shape[t_ax] = dims[t_ax]
    len_shape = [1] * len(dims)
    len_shape[b_ax] = dims[b_ax]
    t = np.arange(dims[t_ax], dtype=np.int64).reshape(iota_shape)
    if n.is_const(1):
        lengths = n.const(1).astype(np.int64).reshape(len_shape)
        if np.any(lengths > dims[t_ax]) or np.any(lengths < 0):
            raise n.error(f"sequence_lens {n.const(1).tolist()} must lie in [0, {dims[t_ax]}] (the time axis)")
        idx = np.broadcast_to(np.where(t < lengths, lengths - 1 - t, t), dims)
        return n.emit(relay.GatherOp(n.input(0), n.const_value(np.ascontiguousarray(idx)), axis=t_ax))
    # Run time: a length above the time axis makes an index out of range, which the gather
    # reports (never a read outside the data).
    lengths = n.input(1)
    if n.dtype(1) != np.int64:
        lengths = n.emit(relay.CastOp(lengths, element_type(np.dtype(np.int64))))
    lengths = reshaped(n, lengths, len_shape)
    tv = n.const_value(t)
    rev = n.emit(relay.SubtractOp(n.emit(relay.SubtractOp(lengths, n.const_value(np.ones(len_shape, np.int64)))), tv))
    idx = n.emit(relay.WhereOp(n.emit(relay.LessOp(tv, lengths)), rev, tv))
    if tuple(idx.type.get_shape()) != tuple(dims):  # the other axes of a rank above 2
        idx = n.emit(relay.BroadcastToOp(idx, shape=list(dims)))
    return n.emit(relay.GatherOp(n.input(0), idx, axis=t_ax))


@converter("Compress", attrs=("axis",))
def compress(n: Node):
    if not n.is_const(1) and not (n.has(1) and n.value(1) in n.importer.known):
        raise n.error("the condition must be a constant: on a value computed at run time the output shape "
                      "depends on the data")
    cond = n.const(1, "the condition").reshape(-1).astype(bool)
    dims = n.shape(0)
    x = n.value(0)
    if n.attr("axis") is None:
        dims = (int(np.prod(dims)),)
        x = reshaped(n, x, dims)
        axis = 0
    else:
        axis = norm_axis(n, n.attr("axis"), len(dims))
    if np.any(cond[dims[axis]:]):
        raise n.error(f"the condition selects index {int(np.flatnonzero(cond)[-1])}, beyond axis {axis} of size "
                      f"{dims[axis]}")
    idx = np.flatnonzero(cond[: dims[axis]]).astype(np.int64)
    if idx.size == 0:
        raise n.error("the condition selects nothing: empty outputs are not supported")
    x = n.importer.materialize(x)
    step = int(idx[1] - idx[0]) if idx.size > 1 else 1
    if np.array_equal(idx, idx[0] + step * np.arange(idx.size)):
        return n.emit(relay.StridedSliceOp(x, begin=[int(idx[0])], end=[int(idx[-1]) + 1], strides=[step],
                                           axes=[axis]))
    return n.emit(relay.TakeOp(x, n.const_value(idx), axis=axis))


@converter("Det")
def det(n: Node):
    dims = n.shape(0)
    if len(dims) < 2 or dims[-1] != dims[-2]:
        raise n.error(f"the input must be square matrices [..., M, M], got shape {list(dims)}")
    if n.dtype(0).kind != "f":
        raise n.error(f"the input must be a float tensor, got {n.dtype(0)}")
    return n.emit(relay.DetOp(n.input(0)))


# --------------------------------------------------------------------------------------
# Integer bit ops
# --------------------------------------------------------------------------------------


def _int_input(n: Node, i: int) -> np.dtype:
    dt = n.dtype(i)
    if dt.kind not in "iu":
        raise n.error(f"input {i} must be an integer tensor, got {dt}")
    return dt


_BITWISE = {"BitwiseAnd": relay.BitwiseAndOp, "BitwiseOr": relay.BitwiseOrOp, "BitwiseXor": relay.BitwiseXorOp}


@converter(*_BITWISE)
def bitwise(n: Node):
    _int_input(n, 0)
    return n.emit(_BITWISE[n.op_type](n.input(0), n.input(1)))


@converter("BitwiseNot")
def bitwise_not(n: Node):
    _int_input(n, 0)
    return n.emit(relay.BitwiseNotOp(n.input(0)))


@converter("BitShift", attrs=("direction",))
def bit_shift(n: Node):
    _int_input(n, 0)
    direction = n.string("direction", "")
    if direction not in ("LEFT", "RIGHT"):
        raise n.error(f"direction must be \"LEFT\" or \"RIGHT\", got \"{direction}\"")
    cls = relay.LeftShiftOp if direction == "LEFT" else relay.RightShiftOp
    return n.emit(cls(n.input(0), n.input(1)))


@converter("BitCast", attrs=("to",))
def bit_cast(n: Node):
    to = n.attr("to")
    if to is None:
        raise n.error("attribute 'to' is required")
    dt = np_dtype_of(to)
    src = n.dtype(0)
    if dt == src:
        return n.value(0)
    if dt == np.bool_:
        raise n.error("a bit cast to bool is not supported (bytes other than 0 and 1 are no booleans)")
    if dt.itemsize != src.itemsize:
        raise n.error(f"BitCast needs types of one size, got {src} ({src.itemsize} bytes) and {dt} "
                      f"({dt.itemsize} bytes)")
    return n.emit(relay.ReinterpretOp(n.input(0), element_type(dt)))


# --------------------------------------------------------------------------------------
# Data-dependent shapes: constants only
# --------------------------------------------------------------------------------------


@folder("NonZero")
def fold_nonzero(n: Node, xs):
    return np.array(np.nonzero(xs[0]), dtype=np.int64).reshape(xs[0].ndim, -1)


@folder("Unique", attrs=("axis", "sorted"))
def fold_unique(n: Node, xs):
    from onnx import helper
    from onnx.reference import ReferenceEvaluator

    x = xs[0]
    outs = [o or f"_unused{i}" for i, o in enumerate(n.proto.output)]
    node = helper.make_node("Unique", ["x"], outs, **n.attrs)
    graph = helper.make_graph([node], "fold", [helper.make_tensor_value_info(
        "x", helper.np_dtype_to_tensor_dtype(x.dtype), x.shape)], [helper.make_empty_tensor_value_info(o) for o in outs])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", max(n.version, 11))])
    return [np.asarray(r) for r in ReferenceEvaluator(model).run(None, {"x": x})]


@converter("NonZero")
@converter("Unique", attrs=("axis", "sorted"))
def data_dependent(n: Node):
    raise n.error(f"the output shape depends on the input's values: {n.op_type} is supported only on a constant "
                  "input (folded at import)")
