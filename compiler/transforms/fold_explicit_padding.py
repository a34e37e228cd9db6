"""fold-explicit-padding: a constant pad before a convolution or a pooling becomes the op's own padding.

Runs in `canonicalize`, after fold-constants (TVM's FoldExplicitPadding). Exporters write
a convolution's padding as a separate `Pad` where the framework had one: Keras's
`ZeroPadding2D` before a stride-2 convolution or a max pool (tf2onnx), torch's `F.pad`
before a causal `Conv1d`, a "same" padding that is not symmetric. A pad is an op no
accelerator description lists, so it stays on the host and cuts the region around it in
two. Folded (the pads along H and W added to the op's `padding`, top/left/bottom/right):

- a `relay.nn.conv2d` after a zero pad;
- a `relay.nn.avg_pool2d` after a zero pad, when the pool has no padding of its own or
  counts it (`count_include_pad`): the pad's zeros are counted as the pool's padding then is;
- a `relay.nn.max_pool2d` after a pad whose value is -inf, or no larger than any value of
  its input (the pad of a ReLU's, a sigmoid's or a clip's output, or of a dequantize's
  whose zero point is its integer type's least value: `ZeroPadding2D` before the stem
  pool of Keras's ResNet, float or int8), where every window keeps one input value (each
  side's padding below the window, dilation 1): the pool's padding never wins the max,
  as such a pad does not (quantize and dequantize keep the order of values).

Pools in `ceil_mode` are left alone (their last window is dropped when it starts in
padding, which an explicit pad is not). The pad must be along H and W only (constant
mode); between it and the op may stand reshapes that only insert or drop unit dimensions
(torch's Conv1d is imported as a 2-D convolution of a [N, C, L, 1] view) and a quantize /
dequantize pair of one zero point (a QDQ model's pad: `Q(0)` is the zero point and
`DQ(zero point)` is 0, so a zero pad passes through both). Those are rebuilt on the
unpadded value, where a quantize of a dequantize of its own scale and zero point,
`Q(DQ(q))`, is `q` (the QDQ model's pad had its input's scale) and is dropped; the pad
stays only if something else reads it. Bit for bit the same: the
padded cells hold the value the op's own padding stands for (up to the sign of a zero
maximum: a window of -0.0 beside the pad's 0.0 may give either).

Before:

    %p = relay.nn.pad %x {pad_width = [0, 0, 0, 0, 0, 1, 0, 1]} : (tensor<1x8x16x16xf32>) -> tensor<1x8x17x17xf32>
    %y = relay.nn.conv2d %p, %w {strides = [2, 2]} : (tensor<1x8x17x17xf32>, tensor<8x8x3x3xf32>) -> tensor<1x8x8x8xf32>

After:

    %y = relay.nn.conv2d %x, %w {strides = [2, 2], padding = [0, 0, 1, 1]} : (tensor<1x8x16x16xf32>, tensor<8x8x3x3xf32>) -> tensor<1x8x8x8xf32>
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import GreedyRewritePatternApplier, PatternRewriter, RewritePattern, op_type_rewrite_pattern
from xdsl.rewriter import InsertPoint

from accel.compiler.pattern_walk import rewrite_module
from accel.compiler.tensors import known_value, numpy_dtype, per_tensor, same_value, unit_axes_map
from accel.compiler.transforms.fold_constants import erase_dead
from accel.dialects import relay
from accel.dialects.relay import shape_of

# --------------------------------------------------------------------------------------
# Helpers: the pad behind an op's data operand
# --------------------------------------------------------------------------------------


@dataclass
class PadBehind:
    """A pad reaching an op's data operand through `chain` (the ops between, the pad's
    side first), with the widths it adds along each dimension of each link's result
    (`widths[-1]`: of the op's operand)."""

    pad: relay.PadOp
    chain: list[Operation]
    widths: list[list[tuple[int, int]]]


def _same_zero_point(q: relay.QuantizeOp, dq: relay.DequantizeOp) -> bool:
    """Whether `dq` undoes `q`'s zero point (one value, or equal constants): `DQ(Q(0))` is 0."""
    return per_tensor(q) and per_tensor(dq) and same_value(q.zero_point, dq.zero_point)


def _undoes(q: relay.QuantizeOp, v: SSAValue) -> bool:
    """Whether `q` quantizes `v = DQ(x)` back to `x`: the same per-tensor scale (finite,
    normal) and zero point, and `x`'s type. Then `(x - zp) * s / s` is within 2^-22 of
    the integer `x - zp`, and rounds to it."""
    dq = v.owner
    if not isinstance(dq, relay.DequantizeOp) or not (per_tensor(q) and per_tensor(dq)):
        return False
    if dq.data.type.element_type != q.result.type.element_type or not same_value(q.zero_point, dq.zero_point):
        return False
    scale = known_value(q.scale) if q.scale is not dq.scale else known_value(dq.scale)
    return same_value(q.scale, dq.scale) and scale is not None and bool(np.isfinite(scale).all()) \
        and float(abs(scale).min()) >= float(np.finfo(scale.dtype).tiny)


def pad_behind(v: SSAValue) -> PadBehind | None:
    """The constant pad `v` is made of, through unit reshapes and quantize/dequantize
    pairs; None if there is none. (The chain is rebuilt on the unpadded value for the op
    that folds the pad; the old one stays while something else reads it: WaveNet's filter
    and gate convolutions read one padded, quantized value.)"""
    chain: list[Operation] = []
    while not isinstance(v.owner, relay.PadOp):
        op = v.owner
        if isinstance(op, relay.ReshapeOp):
            chain.append(op)
            v = op.data
        elif isinstance(op, relay.DequantizeOp) and isinstance(q := op.data.owner, relay.QuantizeOp) \
                and op.data.has_one_use() and _same_zero_point(q, op):
            chain += [op, q]
            v = q.data
        else:
            return None
    pad = v.owner
    if pad.prop("pad_mode") != "constant":
        return None
    pw = pad.prop("pad_width")
    at = [(pw[2 * i], pw[2 * i + 1]) for i in range(len(pw) // 2)]
    chain.reverse()
    widths = []
    for link in chain:
        if isinstance(link, relay.ReshapeOp):
            mapping = unit_axes_map(shape_of(link.data.type), shape_of(link.result.type))
            if mapping is None or any(to < 0 and at[axis] != (0, 0) for axis, to in enumerate(mapping)):
                return None
            moved = [(0, 0)] * len(shape_of(link.result.type))
            for axis, to in enumerate(mapping):
                if to >= 0:
                    moved[to] = at[axis]
            at = moved
        widths.append(at)
    return PadBehind(pad, chain, widths or [at])


def _is_zero(value: float) -> bool:
    """+0.0 exactly (a pad of -0.0 could make an all-padding window's sum -0.0)."""
    return value == 0.0 and math.copysign(1.0, value) > 0


def spatial_padding(found: PadBehind) -> tuple[int, int, int, int] | None:
    """The pad's (top, left, bottom, right) for an NCHW operand; None if it pads N or C."""
    w = found.widths[-1]
    if len(w) != 4 or w[0] != (0, 0) or w[1] != (0, 0):
        return None
    return (w[2][0], w[3][0], w[2][1], w[3][1])


def _positive_scale(op: relay.QuantizeOp | relay.DequantizeOp) -> float | None:
    scale = known_value(op.scale)
    return float(scale.item()) if scale is not None and per_tensor(op) and scale.item() > 0 else None


def lower_bound(v: SSAValue) -> float:
    """A value no element of `v` is below (-inf when unknown): 0 after a ReLU or a
    sigmoid, a clip's minimum, and a dequantize's of the integer type's least value (as
    the dequantize computes it: `(min - zero point) * scale` in float32)."""
    op = v.owner
    if isinstance(op, (relay.ReluOp, relay.SigmoidOp)):
        return 0.0
    if isinstance(op, relay.ClipOp):
        return op.prop("a_min")
    if isinstance(op, relay.DequantizeOp) and (scale := _positive_scale(op)) is not None \
            and (zp := known_value(op.zero_point)) is not None:
        least = np.iinfo(numpy_dtype(op.data.type.element_type)).min
        return float(np.float32(least - int(zp.item())) * np.float32(scale))
    return -math.inf


def order_keeping(chain: list[Operation]) -> bool:
    """Whether the chain keeps the order of values (its quantizes and dequantizes have
    positive scales): a pad no larger than its input stays so through it."""
    return all(_positive_scale(op) is not None for op in chain if isinstance(op, (relay.QuantizeOp, relay.DequantizeOp)))


def _rebuild(found: PadBehind, rewriter: PatternRewriter, before: Operation) -> SSAValue:
    """The chain between the pad and the op applied to the unpadded value."""
    v = found.pad.data
    for link, widths in zip(found.chain, found.widths):
        result = link.results[0].type
        shape = [s - lo - hi for s, (lo, hi) in zip(shape_of(result), widths)]
        if isinstance(link, relay.ReshapeOp):
            new = relay.ReshapeOp(v, newshape=shape)
        elif isinstance(link, relay.QuantizeOp):
            if _undoes(link, v):  # Q(DQ(q)) of one scale and zero point: q
                v = v.owner.data
                continue
            new = relay.QuantizeOp(v, link.scale, link.zero_point, axis=link.prop("axis"))
        else:
            new = type(link)(v, *link.operands[1:], **link.py_props())
        new.location = link.location
        rewriter.insert_op(new, InsertPoint.before(before))
        v = new.results[0]
    return v


def _within_window(pool: relay.AvgPool2DOp | relay.MaxPool2DOp, padding: tuple[int, ...]) -> bool:
    """Whether the pool's padding with `padding` added stays below its window on each
    side (a pool's padding must: every window keeps an input value)."""
    (kh, kw), (dh, dw) = pool.prop("pool_size"), pool.prop("dilation")
    top, left, bottom, right = (a + b for a, b in zip(pool.prop("padding"), padding))
    return top < kh * dh and bottom < kh * dh and left < kw * dw and right < kw * dw


def _fold(op: relay.RelayOp, found: PadBehind, padding: tuple[int, ...], rewriter: PatternRewriter,
          **extra) -> None:
    data = _rebuild(found, rewriter, op)
    props = op.py_props()
    props["padding"] = [a + b for a, b in zip(props["padding"], padding)]
    props.update(extra)
    new = type(op)(data, *op.operands[1:], result_types=[r.type for r in op.results], **props)
    new.attributes.update(op.attributes)
    new.location = op.location
    rewriter.replace_op(op, new)
    # (The pad's input too, when a dropped Q(DQ(q)) read it last.)
    source = found.pad.data.owner
    erase_dead(rewriter, [*found.chain, found.pad, *([source] if isinstance(source, relay.DequantizeOp) else [])])


# --------------------------------------------------------------------------------------
# Patterns
# --------------------------------------------------------------------------------------


class FoldPadIntoConv(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: relay.Conv2DOp, rewriter: PatternRewriter) -> None:
        found = pad_behind(op.data)
        if found is None or not _is_zero(found.pad.prop("pad_value")):
            return
        padding = spatial_padding(found)
        if padding is not None:
            _fold(op, found, padding, rewriter)


class FoldPadIntoAvgPool(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: relay.AvgPool2DOp, rewriter: PatternRewriter) -> None:
        if op.prop("ceil_mode") or (any(op.prop("padding")) and not op.prop("count_include_pad")):
            return
        found = pad_behind(op.data)
        if found is None or not _is_zero(found.pad.prop("pad_value")):
            return
        padding = spatial_padding(found)
        if padding is not None and _within_window(op, padding):
            _fold(op, found, padding, rewriter, count_include_pad=True)


class FoldPadIntoMaxPool(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: relay.MaxPool2DOp, rewriter: PatternRewriter) -> None:
        if op.prop("ceil_mode") or tuple(op.prop("dilation")) != (1, 1):
            return
        found = pad_behind(op.data)
        if found is None or not order_keeping(found.chain):
            return
        value = found.pad.prop("pad_value")
        if value != -math.inf and not value <= lower_bound(found.pad.data):
            return
        padding = spatial_padding(found)
        if padding is None:
            return
        if _within_window(op, padding):
            _fold(op, found, padding, rewriter)


# --------------------------------------------------------------------------------------
# The pass
# --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class FoldExplicitPadding(ModulePass):
    """A constant pad before a conv2d, avg_pool2d or max_pool2d folded into its padding."""

    name = "fold-explicit-padding"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        rewrite_module(op, GreedyRewritePatternApplier([FoldPadIntoConv(), FoldPadIntoAvgPool(), FoldPadIntoMaxPool()]),
                       apply_recursively=False)
