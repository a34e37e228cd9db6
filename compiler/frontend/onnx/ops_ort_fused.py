"""Converters of the com.microsoft ops onnxruntime's graph optimizer writes into a model it
saves (`SessionOptions.optimized_model_filepath` at the extended level, optimum's
ORTOptimizer, `onnxruntime.transformers.optimizer`): each becomes the relay ops of the
ops it fused, so such a model imports, partitions and offloads as its unfused graph does.

    FusedConv(x, w, b?, z?) {activation, activation_params}  ->  act(conv(x, w) + b + z)
    FusedGemm(a, b, c?) {alpha, beta, transA, transB, activation, activation_alpha, ...}
                                                             ->  act(Gemm(a, b, c))
    FusedMatMul(a, b) {alpha, transA, transB}                ->  alpha * (a' b')
    Gelu(x), BiasGelu(x, bias)                               ->  relay.nn.gelu (x + bias)
    FastGelu(x, bias?)                                       ->  relay.nn.gelu {approximate = "tanh"}
    QuickGelu(x) {alpha = 1.702}                             ->  x * sigmoid(alpha * x)
    SkipLayerNormalization(x, skip, gamma, beta?, bias?) {epsilon}
                                                             ->  layer_norm(x + skip + bias), and x + skip + bias
    SkipSimplifiedLayerNormalization(x, skip, gamma, bias?) {epsilon}
                                                             ->  rms_norm(x + skip + bias), and x + skip + bias
    SimplifiedLayerNormalization(x, scale) {axis, epsilon}   ->  relay.nn.rms_norm (written in the ONNX domain)
    EmbedLayerNormalization(ids, segment_ids?, word, position, segment?, gamma, beta, mask?, position_ids?)
        ->  layer_norm(take(word, ids) + take(position, 0..S-1) + take(segment, segment_ids)), sum(mask == 1)
    Attention(x, w, b?, mask_index?, past?, attention_bias?) {num_heads, unidirectional, scale, ...}
        ->  q, k, v = slices of (x w + b), heads first; k, v after past's; p = softmax(scale q kᵀ + mask);
            p v, heads merged; present = [k, v] (the transformers optimizer's self-attention:
            `optimize_model(model_type="bert")`, GPT-2's with its KV cache)
    MultiHeadAttention(q, k, v, bias?, key_padding_mask?, attention_bias?, past_key?, past_value?) {num_heads, ...}
        ->  the same with q, k, v given (cross-attention too; k and v heads first as they are), and
            present_key / present_value = k, v after past_key / past_value

Attention's masks are additive, as onnxruntime's CPU kernel makes them: a raw mask
[B, T] or [B, S, T] adds `mask_filter_value` (-10000) where it is 0, lengths [B] (as
EmbedLayerNormalization's mask_index) where the position is at or past the length, `unidirectional`
adds the float's lowest value above the diagonal, `attention_bias` is added as it is.

Activations (onnxruntime's MLAS set): Relu, Tanh, Sigmoid, LeakyRelu (alpha), Clip (min,
max), HardSigmoid (alpha, beta). Refused with one line: other activations, FusedMatMul's
transBatchA / transBatchB, the normalizations' mean and inverse-deviation outputs,
a KV cache shared with present (past_present_share_buffer, past_sequence_length,
cache_indirection), rotary embedding, packed q/k/v.
"""

from __future__ import annotations

import numpy as np
from xdsl.ir import SSAValue

from accel.compiler.frontend.onnx.context import MICROSOFT_DOMAIN, Const, Node, converter
from accel.compiler.frontend.onnx.ops_attention import heads_first
from accel.compiler.frontend.onnx.ops_nn import (CONV_ATTRS, conv, gemm, hard_sigmoid_of, matmul_of, param_of_shape,
                                                 rms_norm)
from accel.compiler.frontend.onnx.ops_tensor import reshaped
from accel.compiler.tensors import element_type
from accel.dialects import relay

# --------------------------------------------------------------------------------------
# Helpers
# --------------------------------------------------------------------------------------


def activation(n: Node, y: SSAValue, name: str, params: list[float | None]) -> SSAValue:
    """`name` (onnxruntime's fused activation) applied to `y`, with its parameters (a
    missing one, or None: the activation's default)."""

    def param(i: int, default: float) -> float:
        return float(params[i]) if len(params) > i and params[i] is not None else default

    if name == "Relu":
        return n.emit(relay.ReluOp(y))
    if name == "Tanh":
        return n.emit(relay.TanhOp(y))
    if name == "Sigmoid":
        return n.emit(relay.SigmoidOp(y))
    if name == "LeakyRelu":
        return n.emit(relay.LeakyReluOp(y, alpha=param(0, 0.01)))
    if name == "Clip":
        return n.emit(relay.ClipOp(y, a_min=param(0, -np.inf), a_max=param(1, np.inf)))
    if name == "HardSigmoid":
        return hard_sigmoid_of(n, y, param(0, 0.2), param(1, 0.5))
    raise n.error(f"activation '{name}' is not supported (Relu, Tanh, Sigmoid, LeakyRelu, Clip, HardSigmoid are)")


def swap_last(n: Node, v: SSAValue) -> SSAValue:
    """`v` with its last two dims swapped."""
    rank = len(v.type.get_shape())
    return n.emit(relay.TransposeOp(v, axes=[*range(rank - 2), rank - 1, rank - 2]))


def biased(n: Node, x: SSAValue, *optional: int) -> SSAValue:
    """x plus the inputs `optional` that are given."""
    for i in optional:
        if n.has(i):
            x = n.emit(relay.AddOp(x, n.input(i)))
    return x


# --------------------------------------------------------------------------------------
# Converters
# --------------------------------------------------------------------------------------


@converter("FusedConv", attrs=(*CONV_ATTRS, "activation", "activation_params"), domain=MICROSOFT_DOMAIN)
def fused_conv(n: Node):
    y = biased(n, conv(n), 3)  # input 3: the sum (Conv + Add fused)
    name = n.string("activation", "")
    return activation(n, y, name, list(n.attr("activation_params", []))) if name else y


@converter("FusedGemm", attrs=("alpha", "beta", "transA", "transB", "activation", "activation_alpha",
                               "activation_beta", "activation_gamma"), domain=MICROSOFT_DOMAIN)
def fused_gemm(n: Node):
    y = gemm(n)
    name = n.string("activation", "")
    return activation(n, y, name, [n.attr("activation_alpha"), n.attr("activation_beta")]) if name else y


@converter("FusedMatMul", attrs=("alpha", "transA", "transB", "transBatchA", "transBatchB"), domain=MICROSOFT_DOMAIN)
def fused_matmul(n: Node):
    if n.attr("transBatchA", 0) or n.attr("transBatchB", 0):
        raise n.error("transBatchA and transBatchB are not supported")
    a, b = n.input(0), n.input(1)
    for flag, i in (("transA", 0), ("transB", 1)):
        if n.attr(flag, 0) and n.rank(i) < 2:
            raise n.error(f"{flag} needs an operand of rank 2 or more, got {list(n.shape(i))}")
    if n.attr("transA", 0):
        a = swap_last(n, a)
    if n.attr("transB", 0):
        b = swap_last(n, b)
    y = matmul_of(n, a, b, tuple(a.type.get_shape()), tuple(b.type.get_shape()))
    alpha = float(n.attr("alpha", 1.0))
    if alpha != 1.0:
        y = n.emit(relay.MultiplyOp(y, n.const_value(np.array(alpha, dtype=n.dtype(0)))))
    return y


@converter("Gelu", "BiasGelu", domain=MICROSOFT_DOMAIN)
def gelu(n: Node):
    return n.emit(relay.GeluOp(biased(n, n.input(0), 1)))


@converter("FastGelu", domain=MICROSOFT_DOMAIN)
def fast_gelu(n: Node):
    return n.emit(relay.GeluOp(biased(n, n.input(0), 1), approximate="tanh"))


@converter("QuickGelu", attrs=("alpha",), domain=MICROSOFT_DOMAIN)
def quick_gelu(n: Node):
    x = n.input(0)
    alpha = n.const_value(np.array(float(n.attr("alpha", 1.702)), dtype=n.dtype(0)))
    return n.emit(relay.MultiplyOp(x, n.emit(relay.SigmoidOp(n.emit(relay.MultiplyOp(x, alpha))))))


def _skip_sum(n: Node, bias: int) -> tuple[SSAValue, tuple[int, ...]]:
    """input + skip (+ bias), and the normalized shape (the last dim)."""
    if any(n.proto.output[1:3]):
        raise n.error("the mean and inverse standard deviation outputs are not supported")
    dims = n.shape(0)
    if not dims:
        raise n.error("the input must have rank 1 or more")
    return biased(n, n.emit(relay.AddOp(n.input(0), n.input(1))), bias), (dims[-1],)


@converter("SkipLayerNormalization", attrs=("epsilon",), domain=MICROSOFT_DOMAIN)
def skip_layer_norm(n: Node):
    s, normalized = _skip_sum(n, 4)
    gamma = param_of_shape(n, 2, normalized, "gamma")
    beta = param_of_shape(n, 3, normalized, "beta") if n.has(3) else \
        n.importer.materialize(Const(np.zeros(normalized, dtype=n.dtype(0))))
    y = n.emit(relay.LayerNormOp(s, gamma, beta, axis=-1, epsilon=float(n.attr("epsilon", 1e-12))))
    return [y, None, None, s]


@converter("SimplifiedLayerNormalization", attrs=("axis", "epsilon", "stash_type"), domain=MICROSOFT_DOMAIN)
def simplified_layer_norm(n: Node):
    """RMS norm (onnxruntime writes it in the ONNX domain: `ORT_OPS_OF_THE_ONNX_DOMAIN`)."""
    if any(n.proto.output[1:]):
        raise n.error("the inverse standard deviation output is not supported")
    return rms_norm(n)  # ONNX's RMSNormalization (opset 23) is the same op


@converter("SkipSimplifiedLayerNormalization", attrs=("epsilon",), domain=MICROSOFT_DOMAIN)
def skip_rms_norm(n: Node):
    s, normalized = _skip_sum(n, 3)
    gamma = param_of_shape(n, 2, normalized, "gamma")
    y = n.emit(relay.RMSNormOp(s, gamma, axis=-1, epsilon=float(n.attr("epsilon", 1e-12))))
    return [y, None, None, s]


@converter("Attention", attrs=("num_heads", "unidirectional", "qkv_hidden_sizes", "mask_filter_value", "scale",
                               "do_rotary", "rotary_embedding_dim", "past_present_share_buffer"),
           domain=MICROSOFT_DOMAIN)
def attention(n: Node):
    if n.has(6) or n.attr("past_present_share_buffer", 0):
        raise n.error("a KV cache shared with present (past_present_share_buffer, past_sequence_length) "
                      "is not supported")
    if n.attr("do_rotary", 0):
        raise n.error("do_rotary is not supported")
    dims = n.shape(0)
    heads = n.attr("num_heads")
    if len(dims) != 3 or n.rank(1) != 2 or not heads:
        raise n.error(f"input {list(dims)} must be [batch, sequence, hidden], weights 2-D, num_heads given")
    batch, length, _ = dims
    total = n.shape(1)[1]
    sizes = list(n.attr("qkv_hidden_sizes", [total // 3] * 3))
    if len(sizes) != 3 or sum(sizes) != total or any(s % heads for s in sizes) or sizes[0] != sizes[1]:
        raise n.error(f"qkv_hidden_sizes {sizes} must split the weights' {total} columns into q, k (equal) and v, "
                      f"each a multiple of {heads} heads")
    starts = [0, sizes[0], sizes[0] + sizes[1]]
    if n.is_const(1) and (not n.has(2) or n.is_const(2)):
        # Constant weights: three products (each a dense an accelerator takes), no slices.
        w, b = n.const(1), n.opt_const(2)
        parts = []
        for a, s in zip(starts, sizes):
            part = matmul_of(n, n.value(0), Const(np.ascontiguousarray(w[:, a:a + s])), tuple(dims), (w.shape[0], s))
            if b is not None:
                part = n.emit(relay.AddOp(part, n.importer.materialize(Const(np.ascontiguousarray(b[a:a + s])))))
            parts.append(part)
    else:
        qkv = biased(n, matmul_of(n, n.value(0), n.value(1), tuple(dims), tuple(n.shape(1))), 2)
        parts = [n.emit(relay.StridedSliceOp(qkv, begin=[a], end=[a + s], axes=[2])) for a, s in zip(starts, sizes)]
    q, k, v = (heads_first(n, part, heads) for part in parts)
    present = None
    if n.has(4):  # past [2, B, N, P, H]: keys then values, heads first; present = past + this step
        head = sizes[1] // heads
        past = n.shape(4)
        if sizes[1] != sizes[2] or len(past) != 5 or (*past[:3], past[4]) != (2, batch, heads, head):
            raise n.error(f"past {list(past)} must be [2, {batch}, {heads}, past length, {head}] "
                          "(keys and values of one head size)")
        past_k, past_v = (_squeezed_first(n, n.emit(relay.StridedSliceOp(n.input(4), begin=[i], end=[i + 1], axes=[0])))
                          for i in (0, 1))
        k = n.emit(relay.ConcatenateOp(past_k, k, axis=2))
        v = n.emit(relay.ConcatenateOp(past_v, v, axis=2))
    if len(n.proto.output) > 1 and n.proto.output[1]:
        if sizes[1] != sizes[2]:
            raise n.error(f"present needs keys and values of one size (qkv_hidden_sizes {sizes})")
        present = n.emit(relay.ConcatenateOp(*(_leading_one(n, t) for t in (k, v)), axis=0))
    return [_attend(n, q, k, v, mask=3, bias=5), present]


def _squeezed_first(n: Node, v: SSAValue) -> SSAValue:
    return n.importer.materialize(reshaped(n, v, tuple(v.type.get_shape()[1:])))


def _leading_one(n: Node, v: SSAValue) -> SSAValue:
    return n.importer.materialize(reshaped(n, v, (1, *v.type.get_shape())))


@converter("MultiHeadAttention", attrs=("num_heads", "unidirectional", "mask_filter_value", "scale"),
           domain=MICROSOFT_DOMAIN)
def multi_head_attention(n: Node):
    """Query [B, S, D], key [B, L, D] and value [B, L, Dv] given apart, each plus its part of
    `bias` [D + D + Dv], or key and value given heads first ([B, N, L, H], a cached
    cross-attention: no bias, no past); past_key / past_value [B, N, P, H] go before this
    step's keys and values (present_key / present_value: [B, N, P + L, H]). The packed
    forms are refused."""
    if n.has(8) or n.has(9) or (len(n.proto.output) > 3 and n.proto.output[3]):
        raise n.error("past_sequence_length, cache_indirection and the qk output are not supported")
    heads = n.attr("num_heads")
    if not heads or not (n.has(1) and n.has(2)) or n.rank(0) != 3:
        raise n.error("query [batch, length, hidden], key and value must be given apart, num_heads given")
    batch, length, d = n.shape(0)
    if d % heads:
        raise n.error(f"query {list(n.shape(0))} is not a multiple of {heads} heads")
    q = n.input(0)
    if n.rank(1) == 4 and n.rank(2) == 4:  # keys and values heads first: used as they are
        (kb, kh, kv_len, hk), (vb, vh, vl, _) = n.shape(1), n.shape(2)
        if (kb, vb, kh, vh, vl, hk) != (batch, batch, heads, heads, kv_len, d // heads):
            raise n.error(f"key {list(n.shape(1))} and value {list(n.shape(2))} must be [{batch}, {heads}, "
                          f"length, head size] with the query's head size {d // heads}")
        if n.has(3) or n.has(6) or n.has(7):
            raise n.error("keys and values given heads first take no bias and no past_key / past_value")
        if n.attr("unidirectional", 0) and length not in (1, kv_len):
            # onnxruntime's kernel masks such a query by neither alignment of the diagonal.
            raise n.error(f"unidirectional with keys given heads first needs a query of 1 or {kv_len} positions "
                          f"(the keys'), not {length}")
        k, v = n.input(1), n.input(2)
        q = heads_first(n, q, heads)
    else:
        if any(n.rank(i) != 3 for i in (1, 2)):
            raise n.error(f"key {list(n.shape(1))} and value {list(n.shape(2))} must be [batch, length, hidden] or "
                          "heads first [batch, heads, length, head size] (the packed forms are not supported)")
        (kb, kv_len, dk), (vb, vl, dv) = n.shape(1), n.shape(2)
        if (kb, vb, vl, dk) != (batch, batch, kv_len, d) or dv % heads:
            raise n.error(f"query {list(n.shape(0))}, key {list(n.shape(1))} and value {list(n.shape(2))} do not "
                          f"agree (or are not multiples of {heads} heads)")
        parts = [q, n.input(1), n.input(2)]
        if n.has(3):
            starts, sizes = (0, d, 2 * d), (d, d, dv)
            if n.shape(3) != (2 * d + dv,):
                raise n.error(f"bias {list(n.shape(3))} must be [{2 * d + dv}]")
            parts = [n.emit(relay.AddOp(p, n.emit(relay.StridedSliceOp(n.input(3), begin=[a], end=[a + s], axes=[0]))))
                     for p, a, s in zip(parts, starts, sizes)]
        q, k, v = (heads_first(n, part, heads) for part in parts)
        for i, cached in ((6, k), (7, v)):
            if n.has(i) != n.has(13 - i):
                raise n.error("past_key and past_value must be given together")
            if n.has(i):
                want = tuple(cached.type.get_shape())
                if n.rank(i) != 4 or (*n.shape(i)[:2], n.shape(i)[3]) != (*want[:2], want[3]):
                    raise n.error(f"{'past_key' if i == 6 else 'past_value'} {list(n.shape(i))} must be "
                                  f"[{want[0]}, {want[1]}, past length, {want[3]}]")
        if n.has(6):
            if n.shape(6)[2] != n.shape(7)[2]:
                raise n.error(f"past_key {list(n.shape(6))} and past_value {list(n.shape(7))} must hold as many "
                              "positions")
            k = n.emit(relay.ConcatenateOp(n.input(6), k, axis=2))
            v = n.emit(relay.ConcatenateOp(n.input(7), v, axis=2))
    return [_attend(n, q, k, v, mask=4, bias=5), k, v]


def _attend(n: Node, q: SSAValue, k: SSAValue, v: SSAValue, mask: int, bias: int) -> SSAValue:
    """softmax(scale q kᵀ + masks) v over the heads of q [B, N, S, H], k [B, N, T, H], v [B,
    N, T, Hv]; input `mask` a key mask, input `bias` an attention bias (when given),
    `unidirectional` causal (query i sees keys up to T - S + i); the result [B, S, N Hv]."""
    batch, _, length, head_size = q.type.get_shape()
    kv_len = k.type.get_shape()[2]
    dt = n.dtype(0)
    scale = n.attr("scale")
    scale = 1 / np.sqrt(head_size) if not scale else float(scale)
    scores = n.emit(relay.MultiplyOp(n.emit(relay.BatchMatmulOp(q, k, transpose_b=True)),
                                     n.const_value(np.array(scale, dtype=dt))))
    if n.has(mask):
        scores = n.emit(relay.AddOp(scores, _key_mask(n, mask, batch, length, kv_len, dt)))
    if n.attr("unidirectional", 0):
        above = np.triu(np.full((length, kv_len), np.finfo(dt).min, dtype=dt), k=1 + kv_len - length)
        scores = n.emit(relay.AddOp(scores, n.importer.materialize(Const(above.reshape(1, 1, length, kv_len)))))
    if n.has(bias):
        scores = n.emit(relay.AddOp(scores, n.input(bias)))
    y = n.emit(relay.BatchMatmulOp(n.emit(relay.SoftmaxOp(scores, axis=-1)), v, transpose_b=False))
    y = n.emit(relay.TransposeOp(y, axes=[0, 2, 1, 3]))
    b, s, h, d = y.type.get_shape()
    return n.importer.materialize(reshaped(n, y, (b, s, h * d)))


def _key_mask(n: Node, i: int, batch: int, length: int, kv_len: int, dt: np.dtype) -> SSAValue:
    """Input `i` as an additive [B, 1, S or 1, T] mask: `mask_filter_value` where a raw mask
    is not above 0 (onnxruntime's `mask > 0 ? 0 : mask_filter_value`), at and past a
    sequence's end ([B]: right padding) or outside [start, end) ([2B]: ends, then starts)."""
    dims = n.shape(i)
    zero = n.const_value(np.zeros((), dtype=n.dtype(i)))
    if dims in ((batch,), (2 * batch,)):
        shape = (batch, 1, 1, kv_len)
        positions = n.const_value(np.arange(kv_len, dtype=n.dtype(i)).reshape(1, kv_len))
        bounds = n.importer.materialize(reshaped(n, n.value(i), (dims[0] // batch, batch, 1)))
        ends = n.emit(relay.StridedSliceOp(bounds, begin=[0], end=[1], axes=[0]))
        attend = n.emit(relay.LessOp(positions, n.importer.materialize(reshaped(n, ends, (batch, 1)))))
        if dims[0] == 2 * batch:  # the second half: where each sequence starts (left padding)
            starts = n.emit(relay.StridedSliceOp(bounds, begin=[1], end=[2], axes=[0]))
            after = n.emit(relay.LessOp(positions, n.importer.materialize(reshaped(n, starts, (batch, 1)))))
            attend = n.emit(relay.LogicalAndOp(attend, n.emit(relay.LogicalNotOp(after))))
    elif dims in ((batch, kv_len), (batch, length, kv_len)):
        shape = (batch, 1, 1, kv_len) if len(dims) == 2 else (batch, 1, length, kv_len)
        attend = n.emit(relay.GreaterOp(n.input(i), zero))
    else:
        raise n.error(f"mask {list(dims)} is not supported (ends [{batch}], ends and starts [{2 * batch}] or a raw "
                      f"mask [{batch}, {kv_len}] or [{batch}, {length}, {kv_len}] are)")
    attended = n.emit(relay.CastOp(attend, element_type(dt)))
    masked = n.emit(relay.SubtractOp(n.const_value(np.ones((), dtype=dt)), attended))
    fill = n.const_value(np.array(float(n.attr("mask_filter_value", -10000.0)), dtype=dt))
    additive = n.emit(relay.MultiplyOp(masked, fill))
    return n.importer.materialize(reshaped(n, additive, shape))


@converter("EmbedLayerNormalization", attrs=("epsilon", "mask_index_type"), domain=MICROSOFT_DOMAIN)
def embed_layer_norm(n: Node):
    """BERT's embeddings: word[ids] + position[position_ids or 0..S-1] (+ segment[segment_ids]),
    layer-normalized; mask_index = how many of each sequence's mask values are 1 (0 without
    a mask); embedding_sum = the sum before the norm."""
    if n.attr("mask_index_type", 1) not in (0, 1):
        raise n.error(f"mask_index_type {n.attr('mask_index_type')} is not supported (0 and 1 are)")
    dims = n.shape(0)
    if len(dims) != 2:
        raise n.error(f"input_ids {list(dims)} must be [batch, sequence]")
    batch, length = dims
    hidden = n.shape(2)[-1]
    total = n.emit(relay.TakeOp(n.input(2), n.input(0), axis=0))
    if n.has(8):
        positions = n.input(8)
    else:
        positions = n.const_value(np.arange(length, dtype=np.int32).reshape(1, length))
    total = n.emit(relay.AddOp(total, n.emit(relay.TakeOp(n.input(3), positions, axis=0))))
    if n.has(1) and n.has(4):
        total = n.emit(relay.AddOp(total, n.emit(relay.TakeOp(n.input(4), n.input(1), axis=0))))
    gamma = param_of_shape(n, 5, (hidden,), "gamma")
    beta = param_of_shape(n, 6, (hidden,), "beta")
    y = n.emit(relay.LayerNormOp(total, gamma, beta, axis=-1, epsilon=float(n.attr("epsilon", 1e-12))))
    if n.has(7):
        ones = n.emit(relay.EqualOp(n.input(7), n.const_value(np.ones((), dtype=n.dtype(7)))))
        counts = n.emit(relay.SumOp(n.emit(relay.CastOp(ones, element_type(np.int32))), axis=[1]))
    else:
        counts = n.const_value(np.zeros(batch, dtype=np.int32))
    return [y, counts, total]
