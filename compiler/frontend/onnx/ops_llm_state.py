"""Converters of the ONNX ops of recent language models (opsets 24 to 28) that carry a
model's state from one call to the next (a KV cache, a convolution's tail, a recurrent
state), SwiGLU, and ai.onnx.preview's FlexAttention. Each is a composition of relay ops that exist, so the dense layers,
convolutions and products inside partition and offload as usual.

    SwiGLU(A, B) {alpha}                          (opset 28)
        ->  silu(A) * B                             (alpha = 1)
            A * sigmoid(alpha * A) * B              (otherwise)
    TensorScatter(past, update, write_indices?) {axis, mode}                 (opset 24)
        past [B, ..., M, ...], update [B, ..., L, ...] (M, L along `axis`), w [B]:
        present[b, ..., s, ...] = update[b, ..., j, ...] where j = s - w[b] (mod M in
        circular mode) lies in [0, L), else past[b, ..., s, ...]
        w absent or constant and equal for every batch: slices of past and update,
            concatenated along `axis` (circular: the update's tail wraps to the front)
        otherwise (w at run time):
            %j = s - w (circular: made non-negative mod M, s an iota along `axis`)
            %g = relay.gather(update, broadcast_to(where(0 <= j < L, j, 0)), axis)
            present = relay.where(0 <= j < L, %g, past)
    CausalConvWithState(x, W, bias?, past?) {activation}                    (opset 27)
        x [B, C, L], W [C, 1, K], past [B, C, K-1]:
        padded = concatenate(past, x) (no past: the conv2d's K-1 zeros of padding)
        y = conv2d of the column [B, C, L+K-1, 1] with W [C, 1, K, 1], groups C (+ bias)
            (silu / swish: relay.nn.silu of it)
        present = the last K-1 positions of padded (zeros where x is shorter)
    LinearAttention(q, k, v, past?, decay?, beta?) {q_num_heads, kv_num_heads, scale,
                    update_rule, chunk_size}                                (opset 27)
        unrolled over the static sequence length T as the LSTM importer does; per step t
        (heads unpacked: q_t [B, Hkv, G, dk], k_t [B, Hkv, dk], v_t [B, Hkv, dv]):
            S = S * exp(g_t)                                       (gated, gated_delta)
            v_t = beta_t * (v_t - k_t S)     (batch_matmul)        (delta, gated_delta)
            S = S + k_t ⊗ v_t                (broadcast multiply)
            o_t = (scale q_t) S              (batch_matmul)
        output = concatenate of the o_t along T; present = S. A missing past state is
        zero: the first step's decay and retrieval are left out. f16 and bf16 inputs are
        computed in f32 (as ONNX's reference does) and the results cast back. chunk_size is
        a tuning hint of chunked kernels and changes nothing here.

    FlexAttention(Q, K, V) {scale, score_mod, prob_mod, softmax_precision}
                                                            (ai.onnx.preview, version 1)
        Q [B, Hq, L, E], K [B, Hkv, S, E], V [B, Hkv, S, Ev]; query head h reads head h // g:
            scores = batch_matmul(√scale Q as [B, Hkv, g, L, E], √scale K as [B, Hkv, 1, S, E])
            Y = batch_matmul(prob_mod(softmax(score_mod(scores))), V as [B, Hkv, 1, S, Ev])
        in softmax_precision (f32 for f16 and bf16 inputs); the graph attributes are
        imported in place, as an If's taken branch (their shape computations fold).

Refused with one line: an `activation` or `mode` or `update_rule` not listed above, shapes
that do not fit, decay/beta given to a rule that does not take them or missing where it
does, a FlexAttention modifier with other than one input and one output or that changes
the type of its input. TensorScatter in linear mode writes nothing outside the cache (a write index with
w + L > M, which ONNX leaves undefined, drops the positions past the end).
"""

from __future__ import annotations

import math

import numpy as np
from xdsl.ir import SSAValue

from accel.compiler.frontend.onnx.context import PREVIEW_DOMAIN, Const, Node, Value, converter, tensor_to_array
from accel.compiler.frontend.onnx.ops_tensor import empty, norm_axis, reshaped
from accel.compiler.narrow_types import BF16
from accel.compiler.tensors import element_type, numpy_dtype
from accel.dialects import relay

# --------------------------------------------------------------------------------------
# Helpers
# --------------------------------------------------------------------------------------


def _ssa(n: Node, v: Value) -> SSAValue:
    return n.importer.materialize(v)


def _shaped(n: Node, v: Value, shape) -> SSAValue:
    return _ssa(n, reshaped(n, v, shape))


def _slice(n: Node, v: SSAValue, begin: int, end: int, axis: int) -> SSAValue:
    if begin == 0 and end == v.type.get_shape()[axis]:
        return v
    return n.emit(relay.StridedSliceOp(v, begin=[begin], end=[end], axes=[axis]))


def _concat(n: Node, parts: list[SSAValue], axis: int) -> SSAValue:
    return parts[0] if len(parts) == 1 else n.emit(relay.ConcatenateOp(*parts, axis=axis))


def _float_input(n: Node, i: int, what: str) -> np.dtype:
    dt = n.dtype(i)
    if dt.kind != "f" and dt != BF16:
        raise n.error(f"{what} must be a float tensor, got {dt}")
    return dt


def _cast(n: Node, v: SSAValue, dt: np.dtype) -> SSAValue:
    if numpy_dtype(v.type.element_type) == dt:
        return v
    return n.emit(relay.CastOp(v, element_type(dt)))


def _string_choice(n: Node, name: str, default: str, choices: tuple[str, ...]) -> str:
    v = n.string(name, default)
    if v not in choices:
        raise n.error(f"{name} '{v}' is not one of {', '.join(choices)}")
    return v


# --------------------------------------------------------------------------------------
# SwiGLU
# --------------------------------------------------------------------------------------


@converter("SwiGLU", attrs=("alpha",))
def swiglu(n: Node):
    dt = _float_input(n, 0, "input A")
    if n.shape(0) != n.shape(1) or n.dtype(1) != dt:
        raise n.error(f"inputs A {list(n.shape(0))} {dt} and B {list(n.shape(1))} {n.dtype(1)} must have the "
                      f"same shape and type (SwiGLU does not broadcast)")
    a, b = n.input(0), n.input(1)
    alpha = float(n.attr("alpha", 1.0))
    if alpha == 1.0:
        gate = n.emit(relay.SiluOp(a))
    else:
        scaled = n.emit(relay.MultiplyOp(a, n.const_value(np.array(alpha, dtype=dt))))
        gate = n.emit(relay.MultiplyOp(a, n.emit(relay.SigmoidOp(scaled))))
    return n.emit(relay.MultiplyOp(gate, b))


# --------------------------------------------------------------------------------------
# TensorScatter
# --------------------------------------------------------------------------------------


@converter("TensorScatter", attrs=("axis", "mode"))
def tensor_scatter(n: Node):
    mode = _string_choice(n, "mode", "linear", ("linear", "circular"))
    dims, upd = n.shape(0), n.shape(1)
    rank = len(dims)
    if rank < 2:
        raise n.error(f"past_cache {list(dims)} must have rank >= 2 (a batch and a sequence axis)")
    axis = norm_axis(n, int(n.attr("axis", -2)), rank)
    if axis == 0:
        raise n.error("axis must not be 0 (the batch axis)")
    if n.dtype(1) != n.dtype(0):
        raise n.error(f"update's type {n.dtype(1)} differs from past_cache's {n.dtype(0)}")
    m, length = dims[axis], (upd[axis] if len(upd) == rank else -1)
    if len(upd) != rank or any(a != b for i, (a, b) in enumerate(zip(dims, upd)) if i != axis) or length > m:
        raise n.error(f"update {list(upd)} must have past_cache's shape {list(dims)} except along axis {axis}, "
                      f"where it may be shorter")
    past = n.input(0)
    if length == 0:
        return past
    update = n.input(1)
    if n.has(2):
        if n.shape(2) != (dims[0],):
            raise n.error(f"write_indices {list(n.shape(2))} must be [{dims[0]}] (one per batch)")
        if n.dtype(2) != np.int64:
            raise n.error(f"write_indices must be int64, got {n.dtype(2)}")
    w = np.zeros(dims[0], np.int64) if not n.has(2) else (n.const(2) if n.is_const(2) else None)
    if w is not None and (w == w.flat[0]).all():
        return _scatter_static(n, past, update, int(w.flat[0]), axis, m, length, mode)
    return _scatter_dynamic(n, past, update, axis, m, length, mode)


def _scatter_static(n: Node, past, update, w: int, axis: int, m: int, length: int, mode: str) -> SSAValue:
    """One write index for every batch: slices of past and update in order."""
    if mode == "circular":
        w %= m
    elif not 0 <= w <= m - length:
        raise n.error(f"write index {w} plus the update's length {length} exceeds the cache's {m} (mode linear)")
    if w + length <= m:
        parts = [_slice(n, past, 0, w, axis)] if w else []
        parts.append(update)
        if w + length < m:
            parts.append(_slice(n, past, w + length, m, axis))
        return _concat(n, parts, axis)
    head = m - w  # circular: update[:head] goes to [w, m), update[head:] to [0, length - head)
    parts = [_slice(n, update, head, length, axis)]
    if length - head < w:
        parts.append(_slice(n, past, length - head, w, axis))
    parts.append(_slice(n, update, 0, head, axis))
    return _concat(n, parts, axis)


def _scatter_dynamic(n: Node, past, update, axis: int, m: int, length: int, mode: str) -> SSAValue:
    """Write indices known at run time (or differing per batch): each cache position
    gathers the update's position it receives, if any."""
    dims = tuple(past.type.get_shape())
    rank = len(dims)
    pos_shape = [1] * rank
    pos_shape[axis] = m
    s = n.const_value(np.arange(m, dtype=np.int64).reshape(pos_shape))
    w = _shaped(n, n.value(2), (dims[0],) + (1,) * (rank - 1))
    j = n.emit(relay.SubtractOp(s, w))  # [B, 1.., M, 1..]
    zero = n.const_value(np.array(0, np.int64))
    if mode == "circular":
        size = n.const_value(np.array(m, np.int64))
        j = n.emit(relay.SubtractOp(j, n.emit(relay.MultiplyOp(n.emit(relay.DivideOp(j, size)), size))))
        j = n.emit(relay.WhereOp(n.emit(relay.LessOp(j, zero)), n.emit(relay.AddOp(j, size)), j))
        valid = n.emit(relay.LessOp(j, n.const_value(np.array(length, np.int64))))
    else:
        valid = n.emit(relay.LogicalAndOp(n.emit(relay.GreaterEqualOp(j, zero)),
                                          n.emit(relay.LessOp(j, n.const_value(np.array(length, np.int64))))))
    index = n.emit(relay.WhereOp(valid, j, zero))
    index = n.emit(relay.BroadcastToOp(index, shape=dims))
    gathered = n.emit(relay.GatherOp(update, index, axis=axis))
    return n.emit(relay.WhereOp(valid, gathered, past))


# --------------------------------------------------------------------------------------
# CausalConvWithState
# --------------------------------------------------------------------------------------


@converter("CausalConvWithState", attrs=("activation",))
def causal_conv_with_state(n: Node):
    activation = _string_choice(n, "activation", "none", ("none", "silu", "swish"))
    dt = _float_input(n, 0, "input")
    x_dims, w_dims = n.shape(0), n.shape(1)
    if len(x_dims) != 3:
        raise n.error(f"input {list(x_dims)} must be [batch, channels, length]")
    b, c, length = x_dims
    if len(w_dims) != 3 or w_dims[0] != c or w_dims[1] != 1 or w_dims[2] < 1:
        raise n.error(f"weight {list(w_dims)} must be [{c}, 1, k] (depthwise)")
    k = w_dims[2]
    if n.has(2) and n.shape(2) != (c,):
        raise n.error(f"bias {list(n.shape(2))} must be [{c}]")
    if n.has(3) and n.shape(3) != (b, c, k - 1):
        raise n.error(f"past_state {list(n.shape(3))} must be [{b}, {c}, {k - 1}]")
    for i in (1, 2, 3):
        if n.has(i) and n.dtype(i) != dt:
            raise n.error(f"input {i} has type {n.dtype(i)}, the input {dt}")
    x = n.input(0)
    past = n.input(3) if n.has(3) and k > 1 else None
    padded = n.emit(relay.ConcatenateOp(past, x, axis=2)) if past is not None else x
    top = 0 if past is not None else k - 1
    rows = length + k - 1 - top
    y = n.emit(relay.Conv2DOp(_shaped(n, padded, (b, c, rows, 1)), _shaped(n, n.value(1), (c, 1, k, 1)),
                              strides=[1, 1], padding=[top, 0, 0, 0], dilation=[1, 1], groups=c))
    if n.has(2):
        y = n.emit(relay.BiasAddOp(y, n.input(2), axis=1))
    y = _shaped(n, y, (b, c, length))
    if activation != "none":
        y = n.emit(relay.SiluOp(y))
    return y, _conv_state(n, x, padded if past is not None else None, b, c, length, k)


def _conv_state(n: Node, x: SSAValue, padded: SSAValue | None, b: int, c: int, length: int, k: int) -> Value:
    """The last k - 1 positions of past ++ x (zeros ++ x without a past)."""
    if k == 1:
        return empty(n, (b, c, 0))
    if padded is not None:
        return _slice(n, padded, length, length + k - 1, 2)
    if length >= k - 1:
        return _slice(n, x, length - (k - 1), length, 2)
    zeros = n.const_value(np.zeros((b, c, k - 1 - length), n.dtype(0)))
    return n.emit(relay.ConcatenateOp(zeros, x, axis=2))


# --------------------------------------------------------------------------------------
# LinearAttention
# --------------------------------------------------------------------------------------

_RULES = ("linear", "gated", "delta", "gated_delta")


@converter("LinearAttention", attrs=("chunk_size", "kv_num_heads", "q_num_heads", "scale", "update_rule"))
def linear_attention(n: Node):
    rule = _string_choice(n, "update_rule", "gated_delta", _RULES)
    gating, delta = rule in ("gated", "gated_delta"), rule in ("delta", "gated_delta")
    hq, hkv = n.attr("q_num_heads"), n.attr("kv_num_heads")
    if hq is None or hkv is None:
        raise n.error("attributes q_num_heads and kv_num_heads are required")
    hq, hkv = int(hq), int(hkv)
    if hq <= 0 or hkv <= 0 or hq % hkv:
        raise n.error(f"q_num_heads {hq} must be a positive multiple of kv_num_heads {hkv}")
    for i, what, needed in ((4, "decay", gating), (5, "beta", delta)):
        if needed and not n.has(i):
            raise n.error(f"update_rule '{rule}' needs the {what} input")
        if not needed and n.has(i):
            raise n.error(f"update_rule '{rule}' takes no {what} input")
    dt = _float_input(n, 0, "query")
    for i, what in ((1, "key"), (2, "value")):
        if n.dtype(i) != dt:
            raise n.error(f"{what} has type {n.dtype(i)}, query {dt}")
    qd, kd, vd = n.shape(0), n.shape(1), n.shape(2)
    if len(qd) != 3 or len(kd) != 3 or len(vd) != 3 or not qd[:2] == kd[:2] == vd[:2]:
        raise n.error(f"query {list(qd)}, key {list(kd)} and value {list(vd)} must be [batch, sequence, heads * size] "
                      f"of one batch and sequence")
    b, t = qd[0], qd[1]
    if t == 0:
        raise n.error("the sequence length is 0")
    if qd[2] % hq or vd[2] % hkv:
        raise n.error(f"query's last dim {qd[2]} must divide by q_num_heads {hq} and value's {vd[2]} by "
                      f"kv_num_heads {hkv}")
    dk, dv, g = qd[2] // hq, vd[2] // hkv, hq // hkv
    if kd[2] != hkv * dk:
        raise n.error(f"key's last dim {kd[2]} must be kv_num_heads * head size = {hkv * dk}")
    state_dt = n.dtype(3) if n.has(3) else dt
    if n.has(3) and n.shape(3) != (b, hkv, dk, dv):
        raise n.error(f"past_state {list(n.shape(3))} must be [{b}, {hkv}, {dk}, {dv}]")
    work = np.dtype(np.float32) if dt.itemsize < 4 or dt == BF16 else dt
    if n.has(3):
        _float_input(n, 3, "past_state")
        work = np.dtype(np.float64) if np.dtype(np.float64) in (work, state_dt) else work

    def operand(i: int, shape) -> SSAValue:
        return _shaped(n, _cast(n, n.input(i), work), shape)

    scale = float(n.attr("scale", 0.0)) or 1.0 / math.sqrt(dk)
    q = n.emit(relay.MultiplyOp(operand(0, (b, t, hkv, g, dk)), n.const_value(np.array(scale, dtype=work))))
    k = operand(1, (b, t, hkv, dk))
    v = operand(2, (b, t, hkv, dv))
    decay = beta = None
    if gating:
        last = n.shape(4)
        if len(last) != 3 or last[:2] != (b, t) or last[2] not in (hkv, hkv * dk):
            raise n.error(f"decay {list(last)} must be [{b}, {t}, {hkv}] or [{b}, {t}, {hkv * dk}]")
        _float_input(n, 4, "decay")
        per = last[2] // hkv
        decay = n.emit(relay.ExpOp(operand(4, (b, t, hkv, per, 1))))
    if delta:
        last = n.shape(5)
        if len(last) != 3 or last[:2] != (b, t) or last[2] not in (hkv, 1):
            raise n.error(f"beta {list(last)} must be [{b}, {t}, {hkv}] or [{b}, {t}, 1]")
        _float_input(n, 5, "beta")
        beta = operand(5, (b, t, last[2], 1))
    state = _cast(n, n.input(3), work) if n.has(3) else None

    def step(v4: SSAValue, i: int, shape) -> SSAValue:
        return _shaped(n, _slice(n, v4, i, i + 1, 1), shape)

    outs = []
    for i in range(t):
        k_t, v_t = step(k, i, (b, hkv, dk)), step(v, i, (b, hkv, dv))
        if gating and state is not None:
            state = n.emit(relay.MultiplyOp(state, step(decay, i, (b, hkv, decay.type.get_shape()[3], 1))))
        if delta:
            if state is not None:
                read = n.emit(relay.BatchMatmulOp(_shaped(n, k_t, (b, hkv, 1, dk)), state, transpose_b=False))
                v_t = n.emit(relay.SubtractOp(v_t, _shaped(n, read, (b, hkv, dv))))
            v_t = n.emit(relay.MultiplyOp(v_t, step(beta, i, (b, beta.type.get_shape()[2], 1))))
        outer = n.emit(relay.MultiplyOp(_shaped(n, k_t, (b, hkv, dk, 1)), _shaped(n, v_t, (b, hkv, 1, dv))))
        state = outer if state is None else n.emit(relay.AddOp(state, outer))
        o = n.emit(relay.BatchMatmulOp(step(q, i, (b, hkv, g, dk)), state, transpose_b=False))
        outs.append(_shaped(n, o, (b, 1, hq * dv)))
    out = _cast(n, _concat(n, outs, 1), dt)
    return out, _cast(n, state, state_dt)


# --------------------------------------------------------------------------------------
# FlexAttention (ai.onnx.preview)
# --------------------------------------------------------------------------------------

_SOFTMAX_PRECISIONS = {1: np.dtype(np.float32), 10: np.dtype(np.float16), 16: BF16, 11: np.dtype(np.float64)}


@converter("FlexAttention", attrs=("scale", "score_mod", "prob_mod", "softmax_precision"), domain=PREVIEW_DOMAIN)
def flex_attention(n: Node):
    dt = _float_input(n, 0, "Q")
    for i, what in ((1, "K"), (2, "V")):
        if n.dtype(i) != dt:
            raise n.error(f"{what} has type {n.dtype(i)}, Q {dt}")
    qd, kd, vd = n.shape(0), n.shape(1), n.shape(2)
    if len(qd) != 4 or len(kd) != 4 or len(vd) != 4:
        raise n.error(f"Q {list(qd)}, K {list(kd)} and V {list(vd)} must be rank 4 (batch, heads, sequence, size)")
    b, hq, length, e = qd
    if kd[0] != b or vd[0] != b or kd[1] != vd[1] or kd[2] != vd[2] or kd[3] != e:
        raise n.error(f"Q {list(qd)}, K {list(kd)} and V {list(vd)} must share the batch, K and V their heads and "
                      f"sequence, Q and K their head size")
    hkv, s, ev = vd[1:]
    if hkv <= 0 or hq % hkv:
        raise n.error(f"Q's {hq} heads are not a multiple of K's and V's {hkv}")
    precision = n.attr("softmax_precision")
    if precision is not None and int(precision) not in _SOFTMAX_PRECISIONS:
        raise n.error(f"softmax_precision {precision} is not float, float16, bfloat16 or double")
    soft = _SOFTMAX_PRECISIONS[int(precision)] if precision is not None else (
        np.dtype(np.float32) if dt.itemsize < 4 or dt == BF16 else dt)
    scale = n.attr("scale")
    scale = 1.0 / math.sqrt(e) if scale is None else float(scale)
    root = n.const_value(np.array(np.sqrt(np.float32(scale)), dtype=dt))
    g = hq // hkv
    # Query head h reads key/value head h // g: Q as [B, Hkv, g, L, E] against K [B, Hkv, 1, S, E].
    q = _shaped(n, n.emit(relay.MultiplyOp(n.input(0), root)), (b, hkv, g, length, e))
    k = _shaped(n, n.emit(relay.MultiplyOp(n.input(1), root)), (b, hkv, 1, s, e))
    scores = _shaped(n, n.emit(relay.BatchMatmulOp(q, k, transpose_b=True)), (b, hq, length, s))
    scores = _modifier(n, "score_mod", _cast(n, scores, soft))
    probs = _modifier(n, "prob_mod", n.emit(relay.SoftmaxOp(scores, axis=-1)))
    v = _shaped(n, _cast(n, n.input(2), soft), (b, hkv, 1, s, ev))
    y = n.emit(relay.BatchMatmulOp(_shaped(n, probs, (b, hkv, g, length, s)), v, transpose_b=False))
    return _cast(n, _shaped(n, y, (b, hq, length, ev)), dt)


def _modifier(n: Node, name: str, x: SSAValue) -> SSAValue:
    """The graph attribute `name` (one input, one output of x's shape and type) applied to
    x: its nodes imported in place, as an If's taken branch (they see the outer graph's
    values); the names it defines are restored afterwards."""
    graph = n.attr(name)
    if graph is None:
        return x
    if len(graph.input) != 1 or len(graph.output) != 1:
        raise n.error(f"{name} must have one input and one output, it has {len(graph.input)} and {len(graph.output)}")
    importer = n.importer
    defined = [graph.input[0].name, *(t.name for t in graph.initializer), *(o for nd in graph.node for o in nd.output)]
    saved = {name_: importer.values[name_] for name_ in defined if name_ in importer.values}
    try:
        importer.bind(graph.input[0].name, x)
        for init in graph.initializer:
            importer.values[init.name] = Const(tensor_to_array(init))
        for proto in graph.node:
            importer.import_node(proto)
        out = _ssa(n, importer.lookup(n.proto, graph.output[0].name))
    finally:
        for name_ in defined:
            importer.values.pop(name_, None)
        importer.values.update(saved)
    if out.type != x.type:
        raise n.error(f"{name} returns {out.type}, not its input's type {x.type}")
    return out
