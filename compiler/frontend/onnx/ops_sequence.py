"""ONNX sequences, optionals, Loop and Scan, statically.

relay has no sequence or optional type, and a static compiler needs none when every
length and position is known at import: a sequence is an import-time list of values
(`SeqValue`), an optional a value or nothing (`OptValue`), and only their tensors reach
relay. `SequenceAt(seq, 1)` is the second tensor of the list, `ConcatFromSequence` one
`relay.concatenate` of the elements, `SplitToSequence` one `relay.strided_slice` per
element. A position, length or condition known only at run time is a one-line error; so is
a run-time sequence or optional graph input (one bound with `--bind-inputs` in the Python
API is constant), and a sequence graph output is one output per element, `name[i]`.

Loop and Scan are unrolled at import (`MAX_UNROLLED_ITERATIONS`): each iteration imports
the body once (its names in a scope of their own, `GraphImporter.run_subgraph`), fed the
iteration number, the condition and the loop-carried values (tensors, sequences or
optionals) of the previous iteration; scan outputs are the per-iteration tensors stacked.
A Loop runs while its trip count M (a constant) is not reached and its condition is true;
the body's condition must be known at import in every iteration (a constant, or computed
from constants and the iteration number: it folds), else the Loop is refused.
"""

from __future__ import annotations

import numpy as np
import onnx
from xdsl.ir import SSAValue

from accel.compiler.frontend.onnx.context import Const, Node, OptValue, SeqValue, Value, converter, np_dtype_of
from accel.dialects import relay

MAX_UNROLLED_ITERATIONS = 4096
"""Loop/Scan/SequenceMap iterations unrolled at import; more is refused."""


# --------------------------------------------------------------------------------------
# Tensor helpers (constants stay numpy)
# --------------------------------------------------------------------------------------


def _shape(v: SSAValue | Const) -> tuple[int, ...]:
    return v.shape if isinstance(v, Const) else tuple(v.type.get_shape())


def _slice(n: Node, v: SSAValue | Const, axis: int, start: int, stop: int) -> SSAValue | Const:
    if isinstance(v, Const):
        return Const(np.ascontiguousarray(np.take(v.value, np.arange(start, stop), axis=axis)))
    if start == 0 and stop == _shape(v)[axis]:
        return v
    return n.emit(relay.StridedSliceOp(v, begin=[start], end=[stop], axes=[axis]))


def _reshape(n: Node, v: SSAValue | Const, shape: tuple[int, ...]) -> SSAValue | Const:
    if isinstance(v, Const):
        return Const(v.value.reshape(shape))
    if _shape(v) == shape:
        return v
    return n.emit(relay.ReshapeOp(v, newshape=list(shape)))


def _take(n: Node, v: SSAValue | Const, axis: int, i: int) -> SSAValue | Const:
    """v[..., i, ...] along `axis` (the axis dropped)."""
    dims = _shape(v)
    return _reshape(n, _slice(n, v, axis, i, i + 1), dims[:axis] + dims[axis + 1:])


def _concat(n: Node, values: list[SSAValue | Const], axis: int) -> SSAValue | Const:
    if all(isinstance(v, Const) for v in values):
        return Const(np.concatenate([v.value for v in values], axis=axis))
    if len(values) == 1:
        return values[0]
    return n.emit(relay.ConcatenateOp(*[n.importer.materialize(v) for v in values], axis=axis))


def _stack(n: Node, values: list[SSAValue | Const], axis: int) -> SSAValue | Const:
    """numpy's stack: a new axis `axis` (0 <= axis <= rank)."""
    dims = _shape(values[0])
    for v in values[1:]:
        if _shape(v) != dims:
            raise n.error(f"the elements to stack have different shapes {list(dims)} and {list(_shape(v))}")
    return _concat(n, [_reshape(n, v, dims[:axis] + (1,) + dims[axis:]) for v in values], axis)


def _check_axis(n: Node, axis: int, rank: int, what: str = "axis") -> int:
    if not -rank <= axis < rank:
        raise n.error(f"{what} {axis} is out of range [{-rank}, {rank - 1}]")
    return axis + rank if axis < 0 else axis


def _dtype(v: SSAValue | Const) -> np.dtype:
    from accel.compiler.tensors import numpy_dtype

    return v.value.dtype if isinstance(v, Const) else numpy_dtype(v.type.element_type)


def _elem_dtype(n: Node, attr: str, default: int = onnx.TensorProto.FLOAT) -> np.dtype:
    return np_dtype_of(int(n.attr(attr, default)))


# --------------------------------------------------------------------------------------
# Sequences
# --------------------------------------------------------------------------------------


def _position(n: Node, i: int, length: int, insert: bool = False) -> int:
    p = n.const(i, "the position input")
    if p.size != 1 or p.dtype.kind not in "iu":
        raise n.error(f"the position input is not an integer scalar ({p.dtype}{list(p.shape)})")
    pos = int(p.reshape(-1)[0])
    hi = length if insert else length - 1
    if not -length <= pos <= hi:
        raise n.error(f"position {pos} is out of range [{-length}, {hi}] for a sequence of {length} tensors")
    return pos + length if pos < 0 else pos


def _check_elem(n: Node, seq: SeqValue, v: SSAValue | Const) -> None:
    if seq.dtype is not None and _dtype(v) != seq.dtype:
        raise n.error(f"a {_dtype(v)} tensor cannot join a sequence of {seq.dtype} tensors")


@converter("SequenceEmpty", attrs=("dtype",))
def sequence_empty(n: Node):
    return SeqValue([], _elem_dtype(n, "dtype"))


@converter("SequenceConstruct")
def sequence_construct(n: Node):
    items = [n.tensor_value(i) for i in range(n.num_inputs)]
    if not items:
        raise n.error("no inputs: a SequenceConstruct takes at least one tensor")
    seq = SeqValue(items, _dtype(items[0]))
    for v in items[1:]:
        _check_elem(n, seq, v)
    return seq


@converter("SequenceInsert")
def sequence_insert(n: Node):
    seq = n.sequence(0)
    t = n.tensor_value(1)
    _check_elem(n, seq, t)
    pos = _position(n, 2, len(seq.items), insert=True) if n.has(2) else len(seq.items)
    return SeqValue(seq.items[:pos] + [t] + seq.items[pos:], _dtype(t))


@converter("SequenceErase")
def sequence_erase(n: Node):
    seq = n.sequence(0)
    if not seq.items:
        raise n.error("the sequence is empty: nothing to erase")
    pos = _position(n, 1, len(seq.items)) if n.has(1) else len(seq.items) - 1
    return SeqValue(seq.items[:pos] + seq.items[pos + 1:], seq.dtype)


@converter("SequenceAt")
def sequence_at(n: Node):
    seq = n.sequence(0)
    if not seq.items:
        raise n.error("the sequence is empty")
    return seq.items[_position(n, 1, len(seq.items))]


@converter("SequenceLength")
def sequence_length(n: Node):
    return Const(np.array(len(n.sequence(0).items), dtype=np.int64))


@converter("SplitToSequence", attrs=("axis", "keepdims"))
def split_to_sequence(n: Node):
    x = n.tensor_value(0)
    dims = n.shape(0)
    axis = _check_axis(n, int(n.attr("axis", 0)), len(dims))
    size = dims[axis]
    if n.has(1):
        split = n.const(1, "the split input")
        if split.dtype.kind not in "iu":
            raise n.error(f"the split input is {split.dtype}, not an integer tensor")
        if split.ndim == 0:
            chunk = int(split)
            if chunk <= 0:
                raise n.error(f"split {chunk} is not positive")
            lengths = [min(chunk, size - s) for s in range(0, size, chunk)]
        else:
            lengths = [int(s) for s in split.reshape(-1)]
            if any(s < 0 for s in lengths) or sum(lengths) != size:
                raise n.error(f"split {lengths} does not add up to dimension {axis}'s {size}")
        keep = True
    else:
        lengths = [1] * size
        keep = bool(n.attr("keepdims", 1))
    items, start = [], 0
    for length in lengths:
        part = _slice(n, x, axis, start, start + length)
        if not keep:
            part = _reshape(n, part, dims[:axis] + dims[axis + 1:])
        items.append(part)
        start += length
    return SeqValue(items, n.dtype(0))


@converter("ConcatFromSequence", attrs=("axis", "new_axis"))
def concat_from_sequence(n: Node):
    seq = n.sequence(0)
    if n.attr("axis") is None:
        raise n.error("the axis attribute is missing")
    if not seq.items:
        raise n.error("the sequence is empty: its concatenation has no shape")
    rank = len(_shape(seq.items[0]))
    axis = int(n.attr("axis"))
    if n.attr("new_axis", 0):
        if not -rank - 1 <= axis <= rank:
            raise n.error(f"axis {axis} is out of range [{-rank - 1}, {rank}] with new_axis = 1")
        return _stack(n, seq.items, axis + rank + 1 if axis < 0 else axis)
    axis = _check_axis(n, axis, rank)
    for v in seq.items[1:]:
        d, d0 = _shape(v), _shape(seq.items[0])
        if len(d) != rank or d[:axis] + d[axis + 1:] != d0[:axis] + d0[axis + 1:]:
            raise n.error(f"the tensors of shapes {list(d0)} and {list(d)} do not concatenate along axis {axis}")
    return _concat(n, seq.items, axis)


@converter("SequenceMap", attrs=("body",))
def sequence_map(n: Node):
    body: onnx.GraphProto = n.attr("body")
    if body is None:
        raise n.error("attribute 'body' is missing")
    if len(body.input) != n.num_inputs:
        raise n.error(f"the body has {len(body.input)} inputs, the node {n.num_inputs}")
    if len(body.output) != len(n.proto.output):
        raise n.error(f"the body has {len(body.output)} outputs, the node {len(n.proto.output)}")
    length = len(n.sequence(0).items)
    args: list[Value] = []
    for i in range(n.num_inputs):
        v = n.value(i)
        if isinstance(v, SeqValue) and len(v.items) != length:
            raise n.error(f"input {i} has {len(v.items)} tensors, input 0 {length}")
        args.append(v)
    if length > MAX_UNROLLED_ITERATIONS:
        raise n.error(f"{length} iterations: more than the {MAX_UNROLLED_ITERATIONS} unrolled at import")
    outs: list[list] = [[] for _ in body.output]
    constants = n.importer.subgraph_constants(n.proto, body)
    for it in range(length):
        feeds = {vi.name: (a.items[it] if isinstance(a, SeqValue) else a) for vi, a in zip(body.input, args)}
        for k, v in enumerate(n.importer.run_subgraph(n.proto, body, feeds, constants)):
            if isinstance(v, (SeqValue, OptValue)):
                raise n.error(f"body output {k} is not a tensor")
            outs[k].append(v)
    result = []
    for k, vi in enumerate(body.output):
        dtype = _dtype(outs[k][0]) if outs[k] else _declared_dtype(vi)
        result.append(SeqValue(outs[k], dtype))
    return result


def _declared_dtype(vi: onnx.ValueInfoProto) -> np.dtype | None:
    t = vi.type
    if t.HasField("tensor_type") and t.tensor_type.elem_type:
        return np_dtype_of(t.tensor_type.elem_type)
    return None


# --------------------------------------------------------------------------------------
# Optionals
# --------------------------------------------------------------------------------------


@converter("Optional", attrs=("type",))
def optional(n: Node):
    return OptValue(n.value(0) if n.has(0) else None)


@converter("OptionalHasElement")
def optional_has_element(n: Node):
    has = n.has(0) and not (isinstance(n.value(0), OptValue) and n.value(0).value is None)
    return Const(np.array(has, dtype=np.bool_))


@converter("OptionalGetElement")
def optional_get_element(n: Node):
    v = n.value(0)
    if isinstance(v, OptValue):
        if v.value is None:
            raise n.error(f"the optional ('{n.proto.input[0]}') is empty")
        return v.value
    return v


# --------------------------------------------------------------------------------------
# Loop and Scan, unrolled
# --------------------------------------------------------------------------------------


def _known_bool(n: Node, v: Value, what: str) -> bool:
    arr = None
    if isinstance(v, Const):
        arr = v.value
    elif isinstance(v, SSAValue) and v in n.importer.known:
        arr = n.importer.known[v]
    if arr is None:
        raise n.error(f"{what} is computed at run time; only a Loop whose condition is known at import time "
                      "(a constant, or computed from constants and the iteration number) is supported")
    if arr.size != 1:
        raise n.error(f"{what} has {arr.size} elements, not one")
    return bool(arr.reshape(-1)[0])


def _too_many(n: Node, count: int) -> None:
    if count > MAX_UNROLLED_ITERATIONS:
        raise n.error(f"{count} iterations: more than the {MAX_UNROLLED_ITERATIONS} unrolled at import "
                      "(a static compiler unrolls Loop and Scan)")


def _passes_condition_through(body: onnx.GraphProto) -> bool:
    """The body's condition output is its condition input (directly or by an Identity):
    a Loop with trip count M then runs M iterations, known before unrolling any."""
    name = body.output[0].name if body.output else ""
    for node in body.node:
        if node.op_type == "Identity" and list(node.output) == [name] and node.input:
            name = node.input[0]
    return len(body.input) > 1 and name == body.input[1].name


@converter("Loop", attrs=("body",))
def loop(n: Node):
    body: onnx.GraphProto = n.attr("body")
    if body is None:
        raise n.error("attribute 'body' is missing")
    carried_n = n.num_inputs - 2
    scan_n = len(body.output) - 1 - carried_n
    if carried_n < 0 or len(body.input) != carried_n + 2 or scan_n < 0:
        raise n.error(f"the body has {len(body.input)} inputs and {len(body.output)} outputs for "
                      f"{max(carried_n, 0)} loop-carried values")
    if len(n.proto.output) > carried_n + scan_n:
        raise n.error(f"the node has {len(n.proto.output)} outputs, the body {carried_n + scan_n}")
    trips = None
    if n.has(0):
        m = n.const(0, "the trip count M")
        if m.size != 1:
            raise n.error(f"the trip count M has {m.size} elements, not one")
        trips = int(m.reshape(-1)[0])
    cond = _known_bool(n, n.value(1), "the condition") if n.has(1) else True
    if trips is None and not n.has(1):
        raise n.error("neither a trip count M nor a condition: the loop never ends")
    if cond and _passes_condition_through(body):
        if trips is None:
            raise n.error("no trip count M and the body passes its condition (true) through: the loop never ends")
        _too_many(n, trips)
    carried: list[Value] = [n.value(2 + i) for i in range(carried_n)]
    scans: list[list] = [[] for _ in range(scan_n)]
    constants = n.importer.subgraph_constants(n.proto, body)
    it = 0
    while cond and (trips is None or it < trips):
        _too_many(n, it + 1)
        feeds: dict[str, Value] = {body.input[0].name: Const(np.array(it, dtype=np.int64)),
                                   body.input[1].name: Const(np.array(cond, dtype=np.bool_))}
        feeds.update({vi.name: v for vi, v in zip(body.input[2:], carried)})
        feeds.pop("", None)
        outs = n.importer.run_subgraph(n.proto, body, feeds, constants)
        cond = _known_bool(n, outs[0], f"the body's condition ('{body.output[0].name}') in iteration {it}")
        carried = outs[1:1 + carried_n]
        for k in range(scan_n):
            v = outs[1 + carried_n + k]
            if isinstance(v, (SeqValue, OptValue)):
                raise n.error(f"scan output {k} ('{body.output[1 + carried_n + k].name}') is not a tensor")
            scans[k].append(v)
        it += 1
    results: list[Value | None] = list(carried)
    for k in range(scan_n):
        if not scans[k]:
            if k + carried_n < len(n.proto.output) and n.proto.output[k + carried_n]:
                raise n.error(f"the loop runs no iteration: scan output {k} would be empty, of unknown shape")
            results.append(None)
        else:
            results.append(_stack(n, scans[k], 0))
    return results


@converter("Scan", attrs=("body", "num_scan_inputs", "scan_input_axes", "scan_input_directions",
                          "scan_output_axes", "scan_output_directions"))
def scan(n: Node):
    body: onnx.GraphProto = n.attr("body")
    m = n.attr("num_scan_inputs")
    if body is None or m is None:
        raise n.error("attribute 'body' or 'num_scan_inputs' is missing")
    values = [n.tensor_value(i) for i in range(n.num_inputs)]  # Scan-9 on (opset-8 models are converted)
    states_n = len(values) - m
    k_n = len(body.output) - states_n
    if states_n < 0 or len(body.input) != len(values) or k_n < 0:
        raise n.error(f"the body has {len(body.input)} inputs and {len(body.output)} outputs for "
                      f"{len(values)} inputs of which {m} scanned")
    in_dirs = n.ints("scan_input_directions", [0] * m)
    in_axes = n.ints("scan_input_axes", [0] * m)
    out_axes = n.ints("scan_output_axes", [0] * k_n)
    out_dirs = n.ints("scan_output_directions", [0] * k_n)
    if len(in_dirs) != m or len(in_axes) != m or len(out_axes) != k_n or len(out_dirs) != k_n:
        raise n.error("the scan axes/directions attributes do not have one entry per scan input/output")
    states, xs = values[:states_n], values[states_n:]
    if not xs:
        raise n.error("no scan inputs: the number of iterations is unknown")

    axes = [_check_axis(n, a, len(_shape(x)), "scan input axis") for a, x in zip(in_axes, xs)]
    steps = _shape(xs[0])[axes[0]]
    if any(_shape(x)[a] != steps for a, x in zip(axes, xs)):
        raise n.error("the scan inputs have different sequence lengths")
    _too_many(n, steps)
    return _scan_run(n, body, states, xs, axes, in_dirs, out_axes, out_dirs)


def _scan_run(n: Node, body: onnx.GraphProto, states: list, xs: list, in_axes: list[int], in_dirs: list[int],
              out_axes: list[int], out_dirs: list[int]) -> list:
    states_n = len(states)
    steps = _shape(xs[0])[in_axes[0]]
    if steps == 0:
        raise n.error("the sequence length is 0: the scan outputs would be empty, of unknown shape")
    outs_k: list[list] = [[] for _ in out_axes]
    constants = n.importer.subgraph_constants(n.proto, body)
    for t in range(steps):
        feeds = {vi.name: v for vi, v in zip(body.input, states)}
        for vi, x, a, d in zip(body.input[states_n:], xs, in_axes, in_dirs):
            feeds[vi.name] = _take(n, x, a, steps - 1 - t if d else t)
        outs = n.importer.run_subgraph(n.proto, body, feeds, constants)
        for k, v in enumerate(outs):
            if isinstance(v, (SeqValue, OptValue)):
                raise n.error(f"body output {k} ('{body.output[k].name}') is not a tensor")
        states = outs[:states_n]
        for k in range(len(out_axes)):
            outs_k[k].append(outs[states_n + k])
    results = list(states)
    for k, (a, d) in enumerate(zip(out_axes, out_dirs)):
        parts = outs_k[k][::-1] if d else outs_k[k]
        rank = len(_shape(parts[0])) + 1
        results.append(_stack(n, parts, _check_axis(n, a, rank, "scan output axis")))
    return results
