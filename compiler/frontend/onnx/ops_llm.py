"""Converters of the ops exported language models are made of beyond ONNX's basic set:
ONNX's RotaryEmbedding (opset 23), and the com.microsoft ops onnxruntime-genai's model
builder and onnxruntime's transformers optimizer write (RotaryEmbedding,
GroupQueryAttention, MatMulNBits, GatherBlockQuantized).

    RotaryEmbedding(x, cos_cache, sin_cache, position_ids?)            (ONNX, opset 23)
    RotaryEmbedding(x, position_ids, cos_cache, sin_cache)             (com.microsoft)
        x [B, S, H*D] (num_heads) or [B, H, S, D]; cos, sin = caches[position_ids]
        (com.microsoft: ids [1] are the first position, then one per token; ONNX without
        ids: the caches are [B, S, R/2] already); the first R = rotary_embedding_dim (D by
        default) dims of each head rotate, as halves (x1, x2) or `interleaved` pairs:
            (x1 cos - x2 sin, x1 sin + x2 cos)
    GroupQueryAttention(q, k?, v?, past_key?, past_value?, seqlens_k, total_sequence_length,
                        cos_cache?, sin_cache?, position_ids?, attention_bias?)
        -> (output [B, S, Hq*D], present_key, present_value [B, Hkv, T, D])
        Each sequence's past length is seqlens_k + 1 - S (0 for a first prompt, S ==
        total_sequence_length); present = its past keys, then the S new ones, then zeros
        (T = max(past buffer, total)); query s attends keys 0 .. min(past + s, seqlens_k) (within the last
        `local_window_size` if given); q, k rotated first with `do_rotary`; kv heads
        shared by Hq / Hkv query heads; `softcap`: tanh(qk / c) * c.
    MatMulNBits(a, b, scales, zero_points?, g_idx?, bias?) {K, N, bits, block_size}
        ->  a @ Wᵀ (+ bias), W [N, K] = (code - zero_point) * scale per block of
            `block_size` along K, dequantized at import (2-, 4- and 8-bit codes packed
            low bits first; zero points packed the same way, or floats; 2^(bits-1) by default);
            with g_idx (act-order, GPTQ), row k of W in block g_idx[k]
    GatherBlockQuantized(data, indices, scales, zero_points?) {gather_axis, quantize_axis, block_size, bits}
        ->  take(T, indices, gather_axis), T the uint8 table (4-bit codes packed low bits
            first, or bytes) dequantized at import per block along its last axis (a
            quantized embedding table)

seqlens_k may be a run-time value (onnxruntime-genai computes it from the attention mask):
where the new keys go and which keys a query sees are then computed at run time (a one-hot
product places the new keys, exact in float). `total_sequence_length` fixes the present
length, so it must be known at compile time (it is a shape in exported graphs). In a
right-padded first prompt no query sees the keys past its sequence's length (onnxruntime's
CPU kernel; the padded rows attend the real tokens).

Refused with one line: `smooth_softmax`, `head_sink`, `qk_output`, packed batching,
quantized KV caches, a GatherBlockQuantized table of int4/uint4 elements or quantized
along another axis than its last.
"""

from __future__ import annotations

import numpy as np
from xdsl.ir import SSAValue

from accel.compiler.frontend.onnx.context import MICROSOFT_DOMAIN, Const, Node, converter
from accel.compiler.frontend.onnx.ops_nn import matmul_of
from accel.compiler.frontend.onnx.ops_tensor import reshaped
from accel.compiler.tensors import element_type
from accel.dialects import relay

# --------------------------------------------------------------------------------------
# Helpers
# --------------------------------------------------------------------------------------


def _shaped(n: Node, v: SSAValue | Const, shape) -> SSAValue:
    return n.importer.materialize(reshaped(n, v, shape))


def _slice(n: Node, v: SSAValue, begin: int, end: int, axis: int) -> SSAValue:
    return n.emit(relay.StridedSliceOp(v, begin=[begin], end=[end], axes=[axis]))


def rotate(n: Node, x: SSAValue, cos: SSAValue, sin: SSAValue, interleaved: bool, rotary_dim: int) -> SSAValue:
    """x [B, S, H, D] with its first `rotary_dim` dims of each head rotated by the angles
    of cos, sin [B or 1, S, rotary_dim / 2]."""
    b, s, h, d = x.type.get_shape()
    half = rotary_dim // 2
    cb = cos.type.get_shape()[0]
    cos4, sin4 = _shaped(n, cos, (cb, s, 1, half)), _shaped(n, sin, (cb, s, 1, half))
    turned = x if rotary_dim == d else _slice(n, x, 0, rotary_dim, 3)
    if interleaved:
        pairs = _shaped(n, turned, (b, s, h, half, 2))
        x1 = _shaped(n, _slice(n, pairs, 0, 1, 4), (b, s, h, half))
        x2 = _shaped(n, _slice(n, pairs, 1, 2, 4), (b, s, h, half))
    else:
        x1, x2 = _slice(n, turned, 0, half, 3), _slice(n, turned, half, rotary_dim, 3)
    real = n.emit(relay.SubtractOp(n.emit(relay.MultiplyOp(cos4, x1)), n.emit(relay.MultiplyOp(sin4, x2))))
    imag = n.emit(relay.AddOp(n.emit(relay.MultiplyOp(sin4, x1)), n.emit(relay.MultiplyOp(cos4, x2))))
    if interleaved:
        parts = [_shaped(n, p, (b, s, h, half, 1)) for p in (real, imag)]
        y = _shaped(n, n.emit(relay.ConcatenateOp(*parts, axis=4)), (b, s, h, rotary_dim))
    else:
        y = n.emit(relay.ConcatenateOp(real, imag, axis=3))
    if rotary_dim < d:
        y = n.emit(relay.ConcatenateOp(y, _slice(n, x, rotary_dim, d, 3), axis=3))
    return y


def _rotary_dim(n: Node, head_size: int, half: int) -> int:
    dim = n.attr("rotary_embedding_dim", 0) or head_size
    if dim % 2 or dim > head_size or dim // 2 != half:
        raise n.error(f"rotary_embedding_dim {dim} must be even, at most the head size {head_size}, and twice "
                      f"the caches' last dim {half}")
    return dim


def _heads_last(n: Node, x: SSAValue, heads: int) -> tuple[SSAValue, bool]:
    """x [B, S, H*D] or [B, H, S, D] as [B, S, H, D]; whether it was head-first."""
    dims = x.type.get_shape()
    if len(dims) == 4:
        return n.emit(relay.TransposeOp(x, axes=[0, 2, 1, 3])), True
    if len(dims) != 3 or not heads or dims[2] % heads:
        raise n.error(f"input {list(dims)} must be [batch, heads, sequence, head] or [batch, sequence, hidden] "
                      f"with num_heads dividing hidden")
    return _shaped(n, x, (dims[0], dims[1], heads, dims[2] // heads)), False


def _rotary_embedding(n: Node, x_in: int, cos_in: int, sin_in: int, positions: SSAValue | None) -> SSAValue:
    x = n.input(x_in)
    dims = x.type.get_shape()
    x4, head_first = _heads_last(n, x, n.attr("num_heads", 0))
    b, s, h, d = x4.type.get_shape()
    half = n.shape(cos_in)[-1]
    if n.shape(sin_in) != n.shape(cos_in):
        raise n.error(f"cos_cache {list(n.shape(cos_in))} and sin_cache {list(n.shape(sin_in))} differ")
    rotary_dim = _rotary_dim(n, d, half)
    if positions is None:  # the caches are per token already
        if n.shape(cos_in) not in ((b, s, half), (1, s, half)):
            raise n.error(f"without position_ids the caches must be [{b}, {s}, {half}] (they are "
                          f"{list(n.shape(cos_in))})")
        cos, sin = n.input(cos_in), n.input(sin_in)
    else:
        if n.rank(cos_in) != 2:
            raise n.error(f"with position_ids the caches must be [max_position, {half}]")
        cos = n.emit(relay.TakeOp(n.input(cos_in), positions, axis=0))
        sin = n.emit(relay.TakeOp(n.input(sin_in), positions, axis=0))
    y = rotate(n, x4, cos, sin, bool(n.attr("interleaved", 0)), rotary_dim)
    if head_first:
        return n.emit(relay.TransposeOp(y, axes=[0, 2, 1, 3]))
    return _shaped(n, y, dims)


# --------------------------------------------------------------------------------------
# RotaryEmbedding
# --------------------------------------------------------------------------------------


@converter("RotaryEmbedding", attrs=("interleaved", "rotary_embedding_dim", "num_heads"))
def rotary_embedding(n: Node):
    positions = n.input(3) if n.has(3) else None
    return _rotary_embedding(n, 0, 1, 2, positions)


@converter("RotaryEmbedding", attrs=("interleaved", "rotary_embedding_dim", "num_heads", "scale",
                                     "is_packed_batching"), domain=MICROSOFT_DOMAIN)
def ms_rotary_embedding(n: Node):
    if n.attr("is_packed_batching", 0):
        raise n.error("is_packed_batching is not supported")
    dims = n.shape(0)
    length = dims[1] if len(dims) == 3 else dims[2] if len(dims) == 4 else 0
    ids = n.shape(1)
    if ids == (1,):  # the first position; the tokens follow it
        first = n.importer.materialize(reshaped(n, n.value(1), (1, 1)))
        steps = n.const_value(np.arange(length, dtype=n.dtype(1)).reshape(1, length))
        positions = n.emit(relay.AddOp(first, steps))
    elif len(ids) == 2:
        positions = n.input(1)
    else:
        raise n.error(f"position_ids {list(ids)} must be [batch, sequence] or [1]")
    return _rotary_embedding(n, 0, 2, 3, positions)


# --------------------------------------------------------------------------------------
# GroupQueryAttention
# --------------------------------------------------------------------------------------


def _float_of(n: Node, v: SSAValue, dt: np.dtype) -> SSAValue:
    return n.emit(relay.CastOp(v, element_type(dt)))


@converter("GroupQueryAttention", attrs=("num_heads", "kv_num_heads", "scale", "softcap", "local_window_size",
                                         "do_rotary", "rotary_interleaved", "smooth_softmax", "qk_output",
                                         "k_quant_type", "v_quant_type", "kv_cache_bit_width"),
           domain=MICROSOFT_DOMAIN)
def group_query_attention(n: Node):
    if n.attr("smooth_softmax", 0) or n.has(11):
        raise n.error("smooth_softmax and head_sink are not supported")
    if n.attr("qk_output", 0) or any(n.proto.output[3:]):
        raise n.error("the qk output is not supported")
    if n.string("k_quant_type", "NONE") != "NONE" or n.string("v_quant_type", "NONE") != "NONE" or n.has(12):
        raise n.error("quantized KV caches are not supported")
    hq, hkv = n.attr("num_heads", 0), n.attr("kv_num_heads", 0)
    if not hq or not hkv or hq % hkv:
        raise n.error(f"num_heads {hq} must be a multiple of kv_num_heads {hkv} (both given)")
    qdims = n.shape(0)
    if len(qdims) != 3:
        raise n.error(f"query {list(qdims)} must be [batch, sequence, hidden]")
    batch, length, hidden = qdims
    dt = n.dtype(0)
    packed = not n.has(1)
    head = hidden // (hq + 2 * hkv) if packed else hidden // hq
    if packed:
        if n.has(2) or hidden % (hq + 2 * hkv):
            raise n.error(f"packed query {list(qdims)} must hold (num_heads + 2 kv_num_heads) heads, no value given")
        q = _slice(n, n.input(0), 0, hq * head, 2)
        k = _slice(n, n.input(0), hq * head, (hq + hkv) * head, 2)
        v = _slice(n, n.input(0), (hq + hkv) * head, (hq + 2 * hkv) * head, 2)
    else:
        if hidden % hq or not n.has(2) or any(n.shape(i) != (batch, length, hkv * head) for i in (1, 2)):
            raise n.error(f"key and value must be [{batch}, {length}, {hkv * head}] (kv_num_heads x the query's "
                          f"head size)")
        q, k, v = n.input(0), n.input(1), n.input(2)
    q4 = _shaped(n, q, (batch, length, hq, head))
    k4 = _shaped(n, k, (batch, length, hkv, head))
    v4 = _shaped(n, v, (batch, length, hkv, head))

    has_past = n.has(3) and n.has(4)
    past_len = n.shape(3)[2] if has_past else 0
    if has_past and any(n.shape(i) != (batch, hkv, past_len, head) for i in (3, 4)):
        raise n.error(f"past_key and past_value must be [{batch}, {hkv}, past, {head}] (BNSH)")
    total = int(np.asarray(n.const(6, "total_sequence_length")).reshape(-1)[0])
    if not length <= total <= past_len + length:
        raise n.error(f"total_sequence_length {total} must be between the sequence length {length} and the past "
                      f"plus the sequence ({past_len + length})")
    present_len = max(past_len, total)
    first_prompt = length == total

    # Each sequence's past length: seqlens_k + 1 - S (0 for a first prompt), [B, 1] floats.
    if n.shape(5) != (batch,):
        raise n.error(f"seqlens_k {list(n.shape(5))} must be [{batch}]")
    last = _shaped(n, _float_of(n, n.input(5), dt), (batch, 1))  # each sequence's last position
    if first_prompt:
        past = n.const_value(np.zeros((batch, 1), dtype=dt))
    else:
        past = n.emit(relay.AddOp(last, n.const_value(np.array(1 - length, dtype=dt))))
    steps = n.const_value(np.arange(length, dtype=dt).reshape(1, length))
    positions = n.emit(relay.AddOp(past, steps))  # [B, S]: each token's position

    if n.attr("do_rotary", 0):
        if not (n.has(7) and n.has(8)):
            raise n.error("do_rotary needs cos_cache and sin_cache")
        ids = n.input(9) if n.has(9) else n.emit(relay.CastOp(positions, element_type(np.int64)))
        half = n.shape(7)[-1]
        cos = n.emit(relay.TakeOp(n.input(7), ids, axis=0))
        sin = n.emit(relay.TakeOp(n.input(8), ids, axis=0))
        interleaved = bool(n.attr("rotary_interleaved", 0))
        q4 = rotate(n, q4, cos, sin, interleaved, 2 * half)
        k4 = rotate(n, k4, cos, sin, interleaved, 2 * half)

    new_k = n.emit(relay.TransposeOp(k4, axes=[0, 2, 1, 3]))  # [B, Hkv, S, D]
    new_v = n.emit(relay.TransposeOp(v4, axes=[0, 2, 1, 3]))
    slots = n.const_value(np.arange(present_len, dtype=dt).reshape(1, present_len, 1))
    if first_prompt and not has_past:
        present_k, present_v = new_k, new_v  # present_len == length here
    else:
        # present[j] = past[j] for j < past length, new[j - past length] for the next S, else 0.
        at = n.emit(relay.SubtractOp(slots, _shaped(n, past, (batch, 1, 1))))  # [B, T, 1]: j - past
        new_at = n.const_value(np.arange(length, dtype=dt).reshape(1, 1, length))
        one_hot = _float_of(n, n.emit(relay.EqualOp(at, new_at)), dt)
        place = _shaped(n, one_hot, (batch, 1, present_len, length))
        keep = _shaped(n, _float_of(n, n.emit(relay.LessOp(at, n.const_value(np.zeros((), dtype=dt)))), dt),
                       (batch, 1, present_len, 1))
        present_k = n.emit(relay.BatchMatmulOp(place, new_k, transpose_b=False))
        present_v = n.emit(relay.BatchMatmulOp(place, new_v, transpose_b=False))
        if has_past:
            old_k, old_v = n.input(3), n.input(4)
            if present_len > past_len:
                zeros = n.const_value(np.zeros((batch, hkv, present_len - past_len, head), dtype=dt))
                old_k = n.emit(relay.ConcatenateOp(old_k, zeros, axis=2))
                old_v = n.emit(relay.ConcatenateOp(old_v, zeros, axis=2))
            present_k = n.emit(relay.AddOp(present_k, n.emit(relay.MultiplyOp(old_k, keep))))
            present_v = n.emit(relay.AddOp(present_v, n.emit(relay.MultiplyOp(old_v, keep))))

    groups = hq // hkv
    keys, values = present_k, present_v
    if groups > 1:
        keys, values = (_repeat_kv(n, t, groups) for t in (present_k, present_v))
    qh = n.emit(relay.TransposeOp(q4, axes=[0, 2, 1, 3]))
    scale = n.attr("scale", 0.0) or 1 / np.sqrt(head)
    scores = n.emit(relay.MultiplyOp(n.emit(relay.BatchMatmulOp(qh, keys, transpose_b=True)),
                                     n.const_value(np.array(scale, dtype=dt))))
    cap = n.attr("softcap", 0.0)
    if cap and cap > 0:
        c = n.const_value(np.array(cap, dtype=dt))
        scores = n.emit(relay.MultiplyOp(n.emit(relay.TanhOp(n.emit(relay.DivideOp(scores, c)))), c))
    if n.has(10):
        scores = n.emit(relay.AddOp(scores, n.input(10)))
    # Which keys each query sees: j <= its position and the sequence's last (the padding
    # of a first prompt), and j > position - window.
    key_at = n.const_value(np.arange(present_len, dtype=dt).reshape(1, 1, present_len))
    pos3 = _shaped(n, positions, (batch, length, 1))
    seen = n.emit(relay.LessEqualOp(key_at, pos3))
    if first_prompt:
        seen = n.emit(relay.LogicalAndOp(seen, n.emit(relay.LessEqualOp(key_at, _shaped(n, last, (batch, 1, 1))))))
    window = n.attr("local_window_size", -1)
    if window is not None and window > 0:
        start = n.emit(relay.SubtractOp(pos3, n.const_value(np.array(window, dtype=dt))))
        seen = n.emit(relay.LogicalAndOp(seen, n.emit(relay.GreaterOp(key_at, start))))
    hidden_keys = n.emit(relay.SubtractOp(n.const_value(np.ones((), dtype=dt)), _float_of(n, seen, dt)))
    lowest = n.const_value(np.array(np.finfo(dt).min, dtype=dt))
    mask = _shaped(n, n.emit(relay.MultiplyOp(hidden_keys, lowest)), (batch, 1, length, present_len))
    scores = n.emit(relay.AddOp(scores, mask))
    y = n.emit(relay.BatchMatmulOp(n.emit(relay.SoftmaxOp(scores, axis=-1)), values, transpose_b=False))
    y = _shaped(n, n.emit(relay.TransposeOp(y, axes=[0, 2, 1, 3])), (batch, length, hq * head))
    return [y, present_k, present_v]


def _repeat_kv(n: Node, t: SSAValue, groups: int) -> SSAValue:
    """[B, Hkv, T, D] -> [B, Hkv * groups, T, D], each kv head serving `groups` query heads
    in a row (query head h reads kv head h // groups)."""
    b, h, length, d = t.type.get_shape()
    wide = n.emit(relay.BroadcastToOp(_shaped(n, t, (b, h, 1, length, d)), shape=[b, h, groups, length, d]))
    return _shaped(n, wide, (b, h * groups, length, d))


# --------------------------------------------------------------------------------------
# MatMulNBits
# --------------------------------------------------------------------------------------


def unpack_codes(packed: np.ndarray, bits: int, count: int) -> np.ndarray:
    """The first `count` `bits`-bit codes of each row of bytes, low bits first."""
    per_byte = 8 // bits
    shifts = (np.arange(per_byte, dtype=np.uint8) * bits).astype(np.uint8)
    codes = (packed[..., None] >> shifts) & np.uint8((1 << bits) - 1)
    return codes.reshape(*packed.shape[:-1], packed.shape[-1] * per_byte)[..., :count]


def _block_dequantized(codes: np.ndarray, scales: np.ndarray, zero: np.ndarray, block: int,
                       of_block: np.ndarray | None = None) -> np.ndarray:
    """(code - zero point) * scale of each block of `block` codes along the last axis, in
    the scales' type (as onnxruntime's kernels); `of_block`: each code's block, when not
    the blocks in order (MatMulNBits' g_idx)."""
    if of_block is None:
        of_block = np.arange(codes.shape[-1]) // block  # each code's block (no padding to a block)
    centred = codes.astype(np.float32) - zero[..., of_block]
    return centred.astype(scales.dtype) * scales[..., of_block]


@converter("MatMulNBits", attrs=("K", "N", "bits", "block_size", "accuracy_level"), domain=MICROSOFT_DOMAIN)
def matmul_nbits(n: Node):
    k, cols = n.attr("K", 0), n.attr("N", 0)
    bits, block = n.attr("bits", 4), n.attr("block_size", 0)
    if bits not in (2, 4, 8) or block < 16 or block & (block - 1) or not k or not cols:
        raise n.error(f"bits {bits} must be 2, 4 or 8 and block_size {block} a power of 2 >= 16, K and N given")
    blocks = -(-k // block)
    a_dims = n.shape(0)
    if not a_dims or a_dims[-1] != k:
        raise n.error(f"A {list(a_dims)} must end in K = {k}")
    packed = np.asarray(n.const(1, "B"))
    if packed.dtype != np.uint8 or packed.size != cols * blocks * block * bits // 8:
        raise n.error(f"B must be uint8 [{cols}, {blocks}, {block * bits // 8}]")
    codes = unpack_codes(packed.reshape(cols, blocks * block * bits // 8), bits, blocks * block)
    scales = np.asarray(n.const(2, "scales"))
    if scales.size != cols * blocks:
        raise n.error(f"scales must hold {cols} x {blocks} values")
    scales = scales.reshape(cols, blocks)
    if n.has(3):
        zp = np.asarray(n.const(3, "zero_points"))
        if zp.dtype == np.uint8:
            row_bytes = -(-blocks * bits // 8)
            if zp.size != cols * row_bytes:
                raise n.error(f"packed zero_points must hold {cols} x {row_bytes} bytes")
            zero = unpack_codes(zp.reshape(cols, row_bytes), bits, blocks).astype(np.float32)
        elif zp.size == cols * blocks:
            zero = zp.reshape(cols, blocks).astype(np.float32)
        else:
            raise n.error(f"zero_points must be packed uint8 or {cols} x {blocks} values of the scales' type")
    else:
        zero = np.full((cols, blocks), float(1 << (bits - 1)), dtype=np.float32)
    of_block = None
    if n.has(4):  # act-order (GPTQ): row k of W takes the scale and zero point of block g_idx[k]
        of_block = np.asarray(n.const(4, "g_idx")).reshape(-1)
        if of_block.dtype.kind not in "iu" or of_block.size != k or np.any((of_block < 0) | (of_block >= blocks)):
            raise n.error(f"g_idx must hold {k} block numbers below {blocks}")
    w = _block_dequantized(codes[:, :k], scales, zero, block, of_block)
    weight = Const(np.ascontiguousarray(w.T.astype(n.dtype(0))))
    y = matmul_of(n, n.value(0), weight, tuple(a_dims), (k, cols))
    y = n.importer.materialize(y)
    if n.has(5):
        y = n.emit(relay.AddOp(y, n.input(5)))
    return y


# --------------------------------------------------------------------------------------
# GatherBlockQuantized
# --------------------------------------------------------------------------------------


@converter("GatherBlockQuantized", attrs=("gather_axis", "quantize_axis", "block_size", "bits"),
           domain=MICROSOFT_DOMAIN)
def gather_block_quantized(n: Node):
    data = np.asarray(n.const(0, "data"))
    bits, block = n.attr("bits", 4), n.attr("block_size", 128)
    rank = data.ndim
    if data.dtype != np.uint8 or bits not in (4, 8) or not rank:
        raise n.error(f"data must be a uint8 table of 4- or 8-bit codes (got {data.dtype}, bits {bits})")
    if n.attr("quantize_axis", rank - 1) % rank != rank - 1 or block < 16 or block & (block - 1):
        raise n.error(f"only tables quantized along their last axis in blocks of a power of 2 >= 16 are "
                      f"supported (quantize_axis {n.attr('quantize_axis', rank - 1)}, block_size {block})")
    codes = unpack_codes(data, bits, data.shape[-1] * 8 // bits)
    scales = np.asarray(n.const(2, "scales"))
    blocks = -(-codes.shape[-1] // block)
    if scales.shape != (*codes.shape[:-1], blocks):
        raise n.error(f"scales {list(scales.shape)} must be {[*codes.shape[:-1], blocks]}")
    if n.has(3):
        packed = np.asarray(n.const(3, "zero_points"))
        zero = unpack_codes(packed, bits, packed.shape[-1] * 8 // bits)[..., :blocks].astype(np.float32)
        if zero.shape != scales.shape:
            raise n.error(f"zero_points {list(packed.shape)} do not hold one per block {list(scales.shape)}")
    else:
        zero = np.full(scales.shape, float(1 << (bits - 1)), dtype=np.float32)
    table = _block_dequantized(codes, scales, zero, block)
    axis = n.attr("gather_axis", 0) % rank
    return n.emit(relay.TakeOp(n.importer.materialize(Const(np.ascontiguousarray(table))), n.input(1), axis=axis))
