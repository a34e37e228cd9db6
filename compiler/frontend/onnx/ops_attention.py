"""The ONNX Attention op (opsets 23-25) as relay's own ops, following ONNX's reference
(`onnx/reference/ops/op_attention.py`) step by step so the results agree:

    Q [B, S, Hq*D] -> reshape [B, S, Hq, D] -> transpose [B, Hq, S, D]     (3-D inputs)
    K, V           -> concatenate(past, K/V, axis=2)                       (present_key/value)
    bias           =  where(mask, 0, -inf) | mask  (+ causal / window constants, + padding)
    K, V           -> heads repeated Hq / Hkv times (grouped-query attention)
    qk             =  batch_matmul(Q * sqrt(scale), K * sqrt(scale), transpose_b)
                      (softcap: tanh(qk / c) * c)
    p              =  softmax(qk + bias)  (rows whose bias is all -inf: 0)
    Y              =  batch_matmul(p, V) (3-D: back to [B, S, Hq*Dv])

The causal and sliding-window masks depend only on static shapes and are constants;
`attn_mask` and `nonpad_kv_seqlen` may be run-time values.
"""

from __future__ import annotations

import math

import numpy as np
from xdsl.ir import SSAValue

from accel.compiler.frontend.onnx.context import Node, converter, folder, np_dtype_of
from accel.compiler.frontend.onnx.ops_composed import fold_by_reference
from accel.compiler.frontend.onnx.ops_tensor import reshaped
from accel.compiler.tensors import element_type
from accel.compiler.narrow_types import is_compute_float
from accel.dialects import relay

_ATTRS = ("scale", "is_causal", "q_num_heads", "kv_num_heads", "softmax_precision", "softcap",
          "qk_matmul_output_mode", "left_window_size", "right_window_size")


def heads_first(n: Node, v: SSAValue, heads: int) -> SSAValue:
    """[B, S, H*D] -> [B, H, S, D]."""
    b, s, hidden = v.type.get_shape()
    if hidden % heads:
        raise n.error(f"hidden size {hidden} is not a multiple of {heads} heads")
    v4 = n.importer.materialize(reshaped(n, v, (b, s, heads, hidden // heads)))
    return n.emit(relay.TransposeOp(v4, axes=[0, 2, 1, 3]))


def _repeat_heads(n: Node, v: SSAValue, reps: int) -> SSAValue:
    """[B, H, L, D] -> [B, H*reps, L, D], each head repeated in place (h0, h0, h1, h1, ...)."""
    b, h, length, d = v.type.get_shape()
    v5 = n.importer.materialize(reshaped(n, v, (b, h, 1, length, d)))
    wide = n.emit(relay.BroadcastToOp(v5, shape=[b, h, reps, length, d]))
    return n.importer.materialize(reshaped(n, wide, (b, h * reps, length, d)))


def _static_mask(q_len: int, kv_len: int, causal: bool, offset: int, left: int, right: int) -> np.ndarray:
    """Which (query, key) pairs the causal / window constraints allow, query i at
    absolute position i + offset (bottom-right aligned, as ONNX)."""
    i = np.arange(q_len).reshape(q_len, 1) + offset
    j = np.arange(kv_len).reshape(1, kv_len)
    allowed = np.ones((q_len, kv_len), dtype=bool)
    if causal:
        allowed &= j <= i
    if left >= 0:
        allowed &= i - j <= left
    if right >= 0:
        allowed &= j - i <= right
    return allowed


folder("Attention", attrs=_ATTRS)(fold_by_reference)


@converter("Attention", attrs=_ATTRS)
def attention(n: Node):
    dt = n.dtype(0)
    if not is_compute_float(dt):
        raise n.error(f"Q must be a float tensor, got {dt}")
    rank = n.rank(0)
    if rank not in (3, 4) or n.rank(1) != rank or n.rank(2) != rank:
        raise n.error(f"Q, K and V must all be 3-D or all 4-D, got ranks {n.rank(0)}, {n.rank(1)}, {n.rank(2)}")
    q, k, v = n.input(0), n.input(1), n.input(2)
    if rank == 3:
        q_heads, kv_heads = n.attr("q_num_heads"), n.attr("kv_num_heads")
        if not q_heads or not kv_heads:
            raise n.error("3-D inputs need the q_num_heads and kv_num_heads attributes")
        q, k, v = heads_first(n, q, q_heads), heads_first(n, k, kv_heads), heads_first(n, v, kv_heads)
    batch, q_heads, q_len, head_size = q.type.get_shape()

    # KV cache.
    past_len = 0
    if n.has(4) != n.has(5):
        raise n.error("past_key and past_value must be given together")
    if n.has(4):
        if n.has(6):
            raise n.error("nonpad_kv_seqlen cannot be combined with past_key / past_value")
        past_len = n.shape(4)[2]
        k = n.emit(relay.ConcatenateOp(n.input(4), k, axis=2))
        v = n.emit(relay.ConcatenateOp(n.input(5), v, axis=2))
    present_k, present_v = k, v
    kv_heads, kv_len = k.type.get_shape()[1], k.type.get_shape()[2]

    bias, rows_may_be_masked = _bias(n, dt, batch, q_len, kv_len, past_len)

    if q_heads != kv_heads:
        if q_heads % kv_heads:
            raise n.error(f"{q_heads} query heads are not a multiple of {kv_heads} key/value heads")
        k, v = _repeat_heads(n, k, q_heads // kv_heads), _repeat_heads(n, v, q_heads // kv_heads)

    scale = n.attr("scale")
    scale = 1 / math.sqrt(head_size) if scale is None else float(scale)
    root = n.const_value(np.array(np.sqrt(scale), dtype=dt))
    qs, ks = n.emit(relay.MultiplyOp(q, root)), n.emit(relay.MultiplyOp(k, root))
    qk = n.emit(relay.BatchMatmulOp(qs, ks, transpose_b=True))
    softcap = n.attr("softcap")
    if softcap is not None and softcap > 0:
        cap = n.const_value(np.array(softcap, dtype=dt))
        qk = n.emit(relay.MultiplyOp(n.emit(relay.TanhOp(n.emit(relay.DivideOp(qk, cap)))), cap))
    qk_out = qk
    logits = qk if bias is None else n.emit(relay.AddOp(qk, bias))
    mode = int(n.attr("qk_matmul_output_mode", 0))
    if mode not in (0, 1, 2, 3):
        raise n.error(f"qk_matmul_output_mode {mode} is not one of 0, 1, 2, 3")
    if mode == 2:
        qk_out = logits

    precision = n.attr("softmax_precision")
    soft_dt = dt if precision is None else np_dtype_of(precision)
    if soft_dt != dt:
        logits = n.emit(relay.CastOp(logits, element_type(soft_dt)))
    p = n.emit(relay.SoftmaxOp(logits, axis=-1))
    if soft_dt != dt:
        p = n.emit(relay.CastOp(p, element_type(dt)))
    if rows_may_be_masked:
        p = _zero_fully_masked_rows(n, p, bias, dt)
    if mode == 3:
        qk_out = p

    y = n.emit(relay.BatchMatmulOp(p, v, transpose_b=False))
    if rank == 3:
        yt = n.emit(relay.TransposeOp(y, axes=[0, 2, 1, 3]))
        b, s, h, d = yt.type.get_shape()
        y = n.importer.materialize(reshaped(n, yt, (b, s, h * d)))
    return [y, present_k, present_v, qk_out]


def _bias(n: Node, dt: np.dtype, batch: int, q_len: int, kv_len: int,
          past_len: int) -> tuple[SSAValue | None, bool]:
    """The additive bias (0 where attended, -inf where not), or None when nothing masks;
    and whether a query row may be masked entirely (always, with a run-time mask)."""

    def additive(allowed: SSAValue) -> SSAValue:
        return n.emit(relay.WhereOp(allowed, n.const_value(np.array(0, dt)), n.const_value(np.array(-np.inf, dt))))

    bias = None
    if n.has(3):
        mask = n.input(3)
        mask_len = n.shape(3)[-1]
        if mask_len > kv_len:
            raise n.error(f"attn_mask covers {mask_len} keys, more than the {kv_len} there are")
        if mask_len < kv_len:  # the keys past the mask are masked out (ONNX pads with False / -inf)
            pad = [[0, 0]] * (n.rank(3) - 1) + [[0, kv_len - mask_len]]
            if n.dtype(3) == np.bool_:
                mask = n.emit(relay.CastOp(mask, element_type(np.dtype(np.uint8))))
                mask = n.emit(relay.PadOp(mask, pad_width=[x for p in pad for x in p], pad_value=0.0))
                mask = n.emit(relay.CastOp(mask, element_type(np.dtype(np.bool_))))
            else:
                mask = n.emit(relay.PadOp(mask, pad_width=[x for p in pad for x in p], pad_value=-np.inf))
        if n.dtype(3) == np.bool_:
            bias = additive(mask)
        elif n.dtype(3) == dt:
            bias = mask
        else:
            raise n.error(f"attn_mask must be bool or {dt}, got {n.dtype(3)}")
    causal = bool(n.attr("is_causal", 0))
    left, right = int(n.attr("left_window_size", -1)), int(n.attr("right_window_size", -1))
    nonpad = n.input(6) if n.has(6) else None
    if nonpad is not None and (causal or left >= 0 or right >= 0):
        # The frontier moves per batch: key j allowed for query i iff j <= i + nonpad[b] - q_len.
        offset = n.emit(relay.SubtractOp(n.importer.materialize(reshaped(n, nonpad, (batch, 1, 1))),
                                         n.const_value(np.array(q_len, n.dtype(6)))))
        i = n.const_value(np.arange(q_len, dtype=n.dtype(6)).reshape(1, q_len, 1))
        j = n.const_value(np.arange(kv_len, dtype=n.dtype(6)).reshape(1, 1, kv_len))
        diff = n.emit(relay.SubtractOp(n.emit(relay.AddOp(i, offset)), j))  # [B, q, kv]: i + offset - j
        allowed, parts = None, []
        if causal:
            parts.append(n.emit(relay.GreaterEqualOp(diff, n.const_value(np.array(0, n.dtype(6))))))
        if left >= 0:
            parts.append(n.emit(relay.LessEqualOp(diff, n.const_value(np.array(left, n.dtype(6))))))
        if right >= 0:
            parts.append(n.emit(relay.GreaterEqualOp(diff, n.const_value(np.array(-right, n.dtype(6))))))
        for part in parts:
            allowed = part if allowed is None else n.emit(relay.LogicalAndOp(allowed, part))
        frontier = additive(allowed)
        frontier = n.importer.materialize(reshaped(n, frontier, (batch, 1, q_len, kv_len)))
        bias = frontier if bias is None else n.emit(relay.AddOp(bias, frontier))
    elif causal or left >= 0 or right >= 0:
        allowed = _static_mask(q_len, kv_len, causal, past_len, left, right)
        frontier = n.const_value(np.where(allowed, 0, -np.inf).astype(dt))
        static_rows_masked = bool((~allowed.any(axis=1)).any())
        bias = frontier if bias is None else n.emit(relay.AddOp(bias, frontier))
        if not n.has(3):
            return bias, static_rows_masked
    if nonpad is not None:
        j = n.const_value(np.arange(kv_len, dtype=n.dtype(6)).reshape(1, kv_len))
        valid = n.emit(relay.LessOp(j, n.importer.materialize(reshaped(n, nonpad, (batch, 1)))))
        padding = n.importer.materialize(reshaped(n, additive(valid), (batch, 1, 1, kv_len)))
        bias = padding if bias is None else n.emit(relay.AddOp(bias, padding))
    return bias, bias is not None


def _zero_fully_masked_rows(n: Node, p: SSAValue, bias: SSAValue, dt: np.dtype) -> SSAValue:
    """A query row whose bias is -inf everywhere attends to nothing: its probabilities
    are 0 (ONNX), not the NaN softmax gives."""
    row_max = n.emit(relay.MaxOp(bias, axis=[-1], keepdims=True))
    masked = n.emit(relay.EqualOp(row_max, n.const_value(np.array(-np.inf, dt))))
    return n.emit(relay.WhereOp(masked, n.const_value(np.array(0, dt)), p))
