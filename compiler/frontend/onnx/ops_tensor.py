"""Converters of data-movement and bookkeeping ops: constants, shapes, reshapes,
transpose, concat, pad, gather, slice, split, cast.

    Unsqueeze(x: [3, 4], axes = [0])      ->  relay.reshape %x {newshape = [1, 3, 4]}
    Slice(x: [1, 8], starts=[2], ends=[5], axes=[1])
                                          ->  relay.strided_slice %x {begin = [2], end = [5], strides = [1], axes = [1]}
    Shape(x: tensor<1x3x8x8xf32>)         ->  (known at import time: [1, 3, 8, 8])

Reshape-like ops on constants keep the constant's file name (only its shape changes), so
a reshaped weight is still an external tensor of the model file.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from accel.compiler.frontend.onnx.context import Const, Node, Value, converter, folder, np_dtype_of, tensor_to_array
from accel.compiler.frontend.onnx.folding import cast_options, slice_indices, slice_params
from accel.compiler.tensors import element_type
from accel.dialects import relay

# --------------------------------------------------------------------------------------
# Helpers shared by the converters
# --------------------------------------------------------------------------------------


def reshaped(n: Node, v: Value, shape: Sequence[int]) -> Value:
    """`v` with a new static shape: a reshaped constant (same file tensor) or a relay.reshape
    (of a value known at import, known too: see `GraphImporter.try_fold`)."""
    shape = tuple(int(s) for s in shape)
    if isinstance(v, Const):
        return Const(v.value.reshape(shape), v.file_name)
    if tuple(v.type.get_shape()) == shape:
        return v
    out = n.emit(relay.ReshapeOp(v, newshape=shape))
    known = n.importer.known.get(v)
    if known is not None:
        n.importer.known[out] = known.reshape(shape)
    return out


def norm_axis(n: Node, axis: int, rank: int, what: str = "axis") -> int:
    if not -rank <= axis < max(rank, 1):
        raise n.error(f"{what} {axis} is out of range for rank {rank}")
    return axis + rank if axis < 0 else axis


def axes_operand(n: Node, attr_until: int, input_index: int = 1) -> list[int] | None:
    """Axes given as an attribute (op versions before `attr_until`) or as a constant input."""
    if n.version < attr_until:
        return n.ints("axes")
    if not n.has(input_index):
        return None
    return [int(a) for a in n.const(input_index, "the axes input").reshape(-1)]


# --------------------------------------------------------------------------------------
# Constants and shapes
# --------------------------------------------------------------------------------------


@converter("Constant", attrs=("value", "value_float", "value_floats", "value_int", "value_ints",
                              "value_string", "value_strings", "sparse_value"))
def constant(n: Node):
    a = n.attrs
    if "value" in a:
        return n.importer.file_const(n.proto.output[0], tensor_to_array(a["value"]))
    if "value_float" in a:
        return Const(np.array(a["value_float"], np.float32))
    if "value_floats" in a:
        return Const(np.array(a["value_floats"], np.float32))
    if "value_int" in a:
        return Const(np.array(a["value_int"], np.int64))
    if "value_ints" in a:
        return Const(np.array(a["value_ints"], np.int64))
    if "sparse_value" in a:
        raise n.error("sparse constants are not supported")
    if "value_string" in a or "value_strings" in a:
        raise n.error("string constants are not supported")
    raise n.error("the node has no value attribute")


@converter("Shape", attrs=("start", "end"))
def shape(n: Node):
    dims = n.shape(0)
    r = len(dims)
    start, end = n.attr("start", 0), n.attr("end", r)
    start = min(max(start + r if start < 0 else start, 0), r)
    end = min(max(end + r if end < 0 else end, 0), r)
    return Const(np.array(dims[start:end], dtype=np.int64))


@converter("Size")
def size(n: Node):
    return Const(np.array(math.prod(n.shape(0)), dtype=np.int64))


@converter("ConstantOfShape", attrs=("value",))
def constant_of_shape(n: Node):
    dims = [int(d) for d in n.const(0, "the shape input").reshape(-1)]
    if any(d < 0 for d in dims):
        raise n.error(f"negative dimension in shape {dims}")
    v = n.attr("value")
    fill = tensor_to_array(v).reshape(-1) if v is not None else np.zeros(1, np.float32)
    if fill.size != 1:
        raise n.error("the value attribute must have one element")
    # A read-only broadcast view: model-zoo graphs fill whole weight tensors this way.
    return Const(np.broadcast_to(fill[:1].reshape(()), dims))


@converter("Identity")
def identity(n: Node):
    return n.value(0)


@converter("Dropout", attrs=("ratio", "is_test", "seed"))
def dropout(n: Node):
    """Inference, or training with ratio 0: the identity, and a mask of ones."""
    if n.version >= 12 and n.has(2):
        if bool(np.asarray(n.const(2, "the training_mode input")).reshape(-1)[0]):
            ratio = float(np.asarray(n.const(1, "the ratio input")).reshape(-1)[0]) if n.has(1) else 0.5
            if ratio != 0:
                raise n.error(f"training_mode = true with ratio {ratio:g} draws a random mask: not supported "
                              "(inference, or ratio 0)")
    if n.version < 7 and not n.attr("is_test", 0):
        raise n.error("is_test = 0 (training) is not supported (inference only)")
    outs: list[Value] = [n.value(0)]
    if len(n.proto.output) > 1 and n.proto.output[1]:
        mask_dtype = np.bool_ if n.version >= 10 else n.dtype(0)
        outs.append(Const(np.ones(n.shape(0), dtype=mask_dtype)))
    return outs


def empty(n: Node, shape: Sequence[int], i: int = 0) -> Const:
    """A result with a zero in its shape (input `i`'s element type): it holds no data, so
    its value is known at import time, whatever the inputs (the C program copies 0 bytes)."""
    return Const(np.zeros(tuple(int(s) for s in shape), n.dtype(i)))


# --------------------------------------------------------------------------------------
# Reshapes
# --------------------------------------------------------------------------------------


@converter("Reshape", attrs=("allowzero",))
def reshape(n: Node):
    target = [int(s) for s in n.const(1, "the shape input").reshape(-1)]
    in_shape = n.shape(0)
    allow_zero = bool(n.attr("allowzero", 0))
    out: list[int] = []
    infer_at = None
    for i, s in enumerate(target):
        if s == 0 and not allow_zero:
            if i >= len(in_shape):
                raise n.error(f"shape {target} copies dimension {i} that the input {list(in_shape)} lacks")
            out.append(in_shape[i])
        elif s == -1:
            if infer_at is not None:
                raise n.error(f"shape {target} has more than one -1")
            infer_at = i
            out.append(1)
        elif s < 0:
            raise n.error(f"shape {target} has the unsupported entry {s}")
        else:
            out.append(s)
    total = math.prod(in_shape)
    if infer_at is not None:
        known = math.prod(out)
        if known == 0 or total % known:
            raise n.error(f"cannot reshape {list(in_shape)} to {target}")
        out[infer_at] = total // known
    if math.prod(out) != total:
        raise n.error(f"cannot reshape {list(in_shape)} ({total} elements) to {out}")
    if total == 0:
        return empty(n, out)
    return reshaped(n, n.value(0), out)


@converter("Flatten", attrs=("axis",))
def flatten(n: Node):
    dims = n.shape(0)
    axis = n.attr("axis", 1)
    if not -len(dims) <= axis <= len(dims):
        raise n.error(f"axis {axis} is out of range for rank {len(dims)}")
    axis = axis + len(dims) if axis < 0 else axis
    return reshaped(n, n.value(0), (math.prod(dims[:axis]), math.prod(dims[axis:])))


@converter("Squeeze", attrs=("axes",))
def squeeze(n: Node):
    dims = n.shape(0)
    axes = axes_operand(n, 13)
    if axes is None:
        drop = {i for i, d in enumerate(dims) if d == 1}
    else:
        drop = {norm_axis(n, a, len(dims)) for a in axes}
        for a in sorted(drop):
            if dims[a] != 1:
                raise n.error(f"cannot squeeze axis {a} of size {dims[a]}")
    return reshaped(n, n.value(0), [d for i, d in enumerate(dims) if i not in drop])


@converter("Unsqueeze", attrs=("axes",))
def unsqueeze(n: Node):
    dims = n.shape(0)
    axes = axes_operand(n, 13)
    if axes is None:
        raise n.error("the axes are missing")
    rank = len(dims) + len(axes)
    ins = sorted(norm_axis(n, a, rank) for a in axes)
    if len(set(ins)) != len(ins):
        raise n.error(f"axes {axes} repeat an axis")
    out = list(dims)
    for a in ins:
        out.insert(a, 1)
    return reshaped(n, n.value(0), out)


# --------------------------------------------------------------------------------------
# Transpose, concat, pad
# --------------------------------------------------------------------------------------


@converter("Transpose", attrs=("perm",))
def transpose(n: Node):
    rank = n.rank(0)
    perm = n.ints("perm", list(reversed(range(rank))))
    if perm == list(range(rank)):
        return n.value(0)
    return n.emit(relay.TransposeOp(n.input(0), axes=perm))


@converter("Concat", attrs=("axis",))
def concat(n: Node):
    if n.attr("axis") is None:
        raise n.error("the axis attribute is missing")
    values = [n.input(i) for i in range(n.num_inputs) if n.has(i)]
    if len(values) == 1:
        return values[0]
    return n.emit(relay.ConcatenateOp(*values, axis=n.attr("axis")))


@converter("Pad", attrs=("mode", "pads", "value"))
def pad(n: Node):
    mode = n.string("mode", "constant")
    if mode not in ("constant", "edge", "reflect", "wrap"):
        raise n.error(f"mode '{mode}' is not supported (constant, edge, reflect and wrap are)")
    rank = n.rank(0)
    if n.version < 11:
        pads = n.ints("pads")
        value = float(n.attr("value", 0.0))
        axes = list(range(rank))
    else:
        pads = [int(p) for p in n.const(1, "the pads input").reshape(-1)]
        cv = n.opt_const(2, "the constant_value input")
        value = float(cv.reshape(-1)[0]) if cv is not None and cv.size else 0.0
        axes = [int(a) for a in n.const(3, "the axes input").reshape(-1)] if n.version >= 18 and n.has(3) \
            else list(range(rank))
    if pads is None or len(pads) != 2 * len(axes):
        raise n.error(f"pads {pads} must have {2 * len(axes)} entries")
    if any(p < 0 for p in pads):
        raise n.error(f"negative pads {pads} (cropping) are not supported")
    width = [0] * (2 * rank)
    for j, a in enumerate(axes):
        a = norm_axis(n, a, rank)
        width[2 * a] = pads[j]
        width[2 * a + 1] = pads[j + len(axes)]
    if not any(width):
        return n.value(0)
    return n.emit(relay.PadOp(n.input(0), pad_width=width, pad_value=value, pad_mode=mode))


# --------------------------------------------------------------------------------------
# Gather, slice, split, expand
# --------------------------------------------------------------------------------------


@converter("Gather", attrs=("axis",))
def gather(n: Node):
    """A gather of data computed at run time by constant indices in steps (one index: ViT's
    class token, Swin's `qkv[0]`; a range) is a strided slice (and a reshape dropping the
    axis for a scalar index), which targets run as a copy; other gathers are `relay.take`."""
    dims = n.shape(0)
    axis = norm_axis(n, n.attr("axis", 0), len(dims))
    known = n.value(1) if n.is_const(1) else None
    if known is not None and not n.is_const(0) and known.value.ndim <= 1 and known.value.size >= 1:
        idx = known.value.astype(np.int64).reshape(-1)
        if np.all((idx >= -dims[axis]) & (idx < dims[axis])):
            idx = np.where(idx < 0, idx + dims[axis], idx)
            step = int(idx[1] - idx[0]) if idx.size > 1 else 1
            if step > 0 and np.array_equal(idx, idx[0] + step * np.arange(idx.size)):
                sliced = n.emit(relay.StridedSliceOp(n.input(0), begin=[int(idx[0])], end=[int(idx[-1]) + 1],
                                                     strides=[step], axes=[axis]))
                if known.value.ndim == 0:
                    return reshaped(n, sliced, dims[:axis] + dims[axis + 1:])
                return sliced
    return n.emit(relay.TakeOp(n.input(0), n.input(1), axis=n.attr("axis", 0)))


@converter("Slice", attrs=("starts", "ends", "axes"))
def slice_(n: Node):
    """One `relay.strided_slice` of the picked range of every sliced axis (ONNX's clamping
    resolved here; axes sliced whole are left out)."""
    dims = n.shape(0)
    params = [n.opt_const(i, f"input {i} of Slice") for i in range(1, 5)]
    begin, end, strides, axes = [], [], [], []
    out = list(dims)
    for axis, start, stop, step in slice_params(n, len(dims), params):
        axis = norm_axis(n, axis, len(dims))
        try:
            idx = slice_indices(dims[axis], start, stop, step)
        except ValueError as e:
            raise n.error(str(e)) from None
        if axis in axes:
            raise n.error(f"axis {axis} is sliced twice")
        out[axis] = idx.size
        if idx.size == 0:
            axes.append(axis)
            continue
        if np.array_equal(idx, np.arange(dims[axis])):
            continue
        begin.append(int(idx[0]))
        # The end just past the last index; below index 0 (a negative step) is -dim - 1.
        last = int(idx[-1]) + step
        end.append(last if last >= 0 else -dims[axis] - 1)
        strides.append(step)
        axes.append(axis)
    if not axes:
        return n.value(0)
    if 0 in out:
        return empty(n, out)
    return n.emit(relay.StridedSliceOp(n.input(0), begin=begin, end=end, strides=strides, axes=axes))


def split_sizes(n: Node, dim: int, n_out: int) -> list[int]:
    if n.version < 13:
        sizes = n.ints("split")
    else:
        sizes = [int(s) for s in n.const(1, "the split input").reshape(-1)] if n.has(1) else None
    if sizes is None:
        num = n.attr("num_outputs") if n.version >= 18 else None
        if num is not None:
            chunk = -(-dim // num)
            sizes = [min(chunk, dim - i * chunk) for i in range(num)]
        else:
            if dim % n_out:
                raise n.error(f"cannot split {dim} evenly into {n_out} outputs")
            sizes = [dim // n_out] * n_out
    if sum(sizes) != dim or len(sizes) != n_out or any(s < 0 for s in sizes):
        raise n.error(f"split sizes {sizes} do not cover the dimension {dim} with {n_out} outputs")
    return sizes


def _split_parts(n: Node, dims: Sequence[int]) -> tuple[int, list[np.ndarray]]:
    axis = norm_axis(n, n.attr("axis", 0), len(dims))
    sizes = split_sizes(n, dims[axis], len(n.proto.output))
    starts = np.cumsum([0] + sizes[:-1])
    return axis, [np.arange(s, s + k, dtype=np.int64) for s, k in zip(starts, sizes)]


@folder("Split", attrs=("axis", "split", "num_outputs"))
def fold_split(n: Node, xs):
    axis, parts = _split_parts(n, xs[0].shape)
    return [np.take(xs[0], idx, axis=axis) for idx in parts]


@converter("Split", attrs=("axis", "split", "num_outputs"))
def split(n: Node):
    """One `relay.strided_slice` per output (an empty output: `empty`)."""
    dims = n.shape(0)
    axis, parts = _split_parts(n, dims)
    outs = []
    for idx in parts:
        if idx.size == 0 or 0 in dims:
            outs.append(empty(n, [*dims[:axis], idx.size, *dims[axis + 1:]]))
        else:
            outs.append(n.emit(relay.StridedSliceOp(n.input(0), begin=[int(idx[0])], end=[int(idx[-1]) + 1],
                                                    axes=[axis])))
    return outs


@converter("Expand")
def expand(n: Node):
    target = tuple(int(s) for s in n.const(1, "the shape input").reshape(-1))
    dims = n.shape(0)
    out = np.broadcast_shapes(dims, target)
    if out == dims:
        return n.value(0)
    return n.emit(relay.BroadcastToOp(n.input(0), shape=target))


# --------------------------------------------------------------------------------------
# Casts
# --------------------------------------------------------------------------------------


def _cast(n: Node, dtype: np.dtype) -> Value:
    if n.dtype(0) == dtype:
        return n.value(0)
    return n.emit(relay.CastOp(n.input(0), element_type(dtype), **cast_options(n, dtype)))


@converter("Cast", attrs=("to", "saturate", "round_mode"))
def cast(n: Node):
    return _cast(n, np_dtype_of(n.attr("to")))


@converter("CastLike", attrs=("saturate", "round_mode"))
def cast_like(n: Node):
    return _cast(n, n.dtype(1))
