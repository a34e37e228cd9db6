"""propagate-qdq: quantizes and dequantizes moved across the layout ops next to them.

Runs in `canonicalize`, after fold-explicit-padding (onnxruntime's QDQ propagation). The
targets' int8 patterns are `dequantize -> op -> [bias, activation] -> quantize`; a
reshape between a dequantize and its op, or between the op and its quantize, hides the
pattern, and the op runs in float on the host. The ONNX importer puts such reshapes
there: a 1-D convolution (or pool) runs as the 2-D one of a [N, C, L, 1] view, so a QDQ
model's Conv1d is `DQ -> reshape -> conv2d -> bias_add -> reshape -> Q`. Two rewrites,
each exact (a dequantize or quantize is elementwise with one scale and zero point, or
one per slice along an axis that the reshape keeps):

- `reshape(DQ(q))` -> `DQ(reshape(q))` (a dequantize read by other ops too stays for them:
  each reshape gets one of its own, as onnxruntime gives each consumer its own DQ);
- `Q(reshape(x))` -> `reshape(Q(x))`, when the quantize is the reshape's only reader.

A per-axis scale moves only across a reshape that inserts or drops unit dimensions (its
axis maps to one axis of the same extent). A reshape moved onto a constant (the int8
weights of a Conv1d) is folded.

A transformer's head split and merge are reshapes and transposes that an exporter's
quantizer wraps in QDQ pairs of their own (onnxruntime's quantize_static gives Reshape,
Transpose and Slice a `DQ -> op -> Q` each, with one scale throughout):
`DQ -> reshape -> Q -> DQ -> transpose -> Q`. Transposes move the same way (a per-axis
scale goes along to its axis's new place); a dequantize moves below a slice when it has
one scale (a quantize stays below its slice: above it, it would convert all of the
slice's input, once per slice) and below a gather (a quantized embedding: the rows it
picks are dequantized, not the table), and a quantize of a dequantize with the same scale, zero point
and type is the int8 data itself (`(q - z) * s / s` rounds back to `q - z` exactly for
8-bit `q - z` and a normal scale), so the layout ops run on the int8 data, where the
accelerators copy them, instead of in float on the host between two conversions.

Before:

    %d = relay.qnn.dequantize %q, %s, %z : (tensor<1x4x16xi8>, tensor<f32>, tensor<i8>) -> tensor<1x4x16xf32>
    %r = relay.reshape %d {newshape = [1, 4, 16, 1]} : (tensor<1x4x16xf32>) -> tensor<1x4x16x1xf32>

After:

    %0 = relay.reshape %q {newshape = [1, 4, 16, 1]} : (tensor<1x4x16xi8>) -> tensor<1x4x16x1xi8>
    %r = relay.qnn.dequantize %0, %s, %z : (tensor<1x4x16x1xi8>, tensor<f32>, tensor<i8>) -> tensor<1x4x16x1xf32>
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import GreedyRewritePatternApplier, PatternRewriter, RewritePattern, op_type_rewrite_pattern
from xdsl.rewriter import InsertPoint

from accel.compiler.pattern_walk import rewrite_module
from accel.compiler.runtime.interpreter import OpEvaluator
from accel.compiler.tensors import known_value, per_tensor, same_value, unit_axes_map
from accel.compiler.transforms.fold_constants import FoldConstantOp
from accel.dialects import relay
from accel.dialects.relay import normalize_axis, shape_of

# --------------------------------------------------------------------------------------
# Helpers
# --------------------------------------------------------------------------------------


def moved_axis(op: relay.QuantizeOp | relay.DequantizeOp, src: tuple[int, ...], dst: tuple[int, ...]) -> int | None:
    """The `axis` the quantize or dequantize `op` (applied to a tensor of shape `src`)
    takes on the reshaped tensor of shape `dst`; None when it cannot move."""
    if math.prod(shape_of(op.scale.type)) == 1 and math.prod(shape_of(op.zero_point.type)) == 1:
        return -1  # one scale and zero point: any reshape
    mapping = unit_axes_map(src, dst)
    axis = normalize_axis(op.prop("axis"), len(src), "property 'axis'")
    return None if mapping is None or mapping[axis] < 0 else mapping[axis]


def _slice_props(op: relay.StridedSliceOp) -> dict:
    props = {k: op.prop(k) for k in ("begin", "end", "strides", "axes")}
    return {k: v for k, v in props.items() if v is not None}


def _replace_with_dequantize(rewriter: PatternRewriter, op: Operation, dq: relay.DequantizeOp,
                             layout: Operation, axis: int) -> None:
    """`op` (a layout op of `dq`'s result) becomes `layout` (the same op of the int8 data,
    inserted before it) dequantized; `dq` goes when nothing else reads it."""
    new = relay.DequantizeOp(layout.results[0], dq.scale, dq.zero_point, axis=axis)
    layout.location, new.location = op.location, dq.location
    rewriter.insert_op(layout, InsertPoint.before(op))
    rewriter.replace_op(op, new)
    if dq.result.first_use is None:
        rewriter.erase_op(dq)


def _replace_with_layout_op(rewriter: PatternRewriter, q_op: relay.QuantizeOp, layout: Operation,
                            q: relay.QuantizeOp, new: Operation) -> None:
    """The quantize `q_op` of `layout`'s result becomes `new` (the layout op) of `q` (the
    quantize of `layout`'s input)."""
    q.location, new.location = q_op.location, layout.location
    rewriter.insert_op(q, InsertPoint.before(q_op))
    rewriter.replace_op(q_op, new)
    rewriter.erase_op(layout)


# --------------------------------------------------------------------------------------
# Patterns
# --------------------------------------------------------------------------------------


class DequantizeBeforeReshape(RewritePattern):
    """reshape(DQ(q)) -> DQ(reshape(q)); a dequantize that other ops read too stays for
    them, and this reshape gets a dequantize of its own (onnxruntime's QDQ transformer
    gives each consumer its own DQ likewise: WaveNet's residual and skip convolutions
    read one dequantized value through two reshapes)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: relay.ReshapeOp, rewriter: PatternRewriter) -> None:
        dq = op.data.owner
        if not isinstance(dq, relay.DequantizeOp):
            return
        src, dst = shape_of(op.data.type), shape_of(op.result.type)
        axis = moved_axis(dq, src, dst)
        if axis is None:
            return
        _replace_with_dequantize(rewriter, op, dq, relay.ReshapeOp(dq.data, newshape=list(dst)), axis)


class QuantizeAfterReshape(RewritePattern):
    """Q(reshape(x)) -> reshape(Q(x))."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: relay.QuantizeOp, rewriter: PatternRewriter) -> None:
        reshape = op.data.owner
        if not isinstance(reshape, relay.ReshapeOp) or not op.data.has_one_use():
            return
        src, dst = shape_of(reshape.data.type), shape_of(reshape.result.type)
        axis = moved_axis(op, dst, src)
        if axis is None:
            return
        q = relay.QuantizeOp(reshape.data, op.scale, op.zero_point, axis=axis)
        new = relay.ReshapeOp(q.result, newshape=list(shape_of(op.result.type)))
        _replace_with_layout_op(rewriter, op, reshape, q, new)


class DequantizeBeforeTranspose(RewritePattern):
    """transpose(DQ(q)) -> DQ(transpose(q)) (a per-axis scale follows its axis); a
    dequantize other ops read too stays for them, as for reshapes."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: relay.TransposeOp, rewriter: PatternRewriter) -> None:
        dq = op.data.owner
        if not isinstance(dq, relay.DequantizeOp):
            return
        rank = len(shape_of(op.data.type))
        perm = relay.TransposeOp.perm(rank, op.prop("axes"))
        axis = -1 if per_tensor(dq) else perm.index(normalize_axis(dq.prop("axis"), rank, "property 'axis'"))
        transpose = relay.TransposeOp(dq.data, axes=list(perm))
        _replace_with_dequantize(rewriter, op, dq, transpose, axis)


class QuantizeAfterTranspose(RewritePattern):
    """Q(transpose(x)) -> transpose(Q(x)), when the quantize is the transpose's only reader."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: relay.QuantizeOp, rewriter: PatternRewriter) -> None:
        transpose = op.data.owner
        if not isinstance(transpose, relay.TransposeOp) or not op.data.has_one_use():
            return
        rank = len(shape_of(op.data.type))
        perm = relay.TransposeOp.perm(rank, transpose.prop("axes"))
        axis = -1 if per_tensor(op) else perm[normalize_axis(op.prop("axis"), rank, "property 'axis'")]
        q = relay.QuantizeOp(transpose.data, op.scale, op.zero_point, axis=axis)
        _replace_with_layout_op(rewriter, op, transpose, q, relay.TransposeOp(q.result, axes=list(perm)))


class DequantizeBeforeSlice(RewritePattern):
    """strided_slice(DQ(q)) -> DQ(strided_slice(q)), for one scale and zero point."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: relay.StridedSliceOp, rewriter: PatternRewriter) -> None:
        dq = op.data.owner
        if not per_tensor(dq, relay.DequantizeOp):
            return
        slice_ = relay.StridedSliceOp(dq.data, **_slice_props(op))
        _replace_with_dequantize(rewriter, op, dq, slice_, -1)


class DequantizeBeforeTake(RewritePattern):
    """take(DQ(q), indices) -> DQ(take(q, indices)): the rows a gather picks are
    dequantized, not the whole table (a quantized embedding dequantized its every row at
    each run); a per-axis scale moves when its axis is not the gathered one."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: relay.TakeOp, rewriter: PatternRewriter) -> None:
        dq = op.data.owner
        if not isinstance(dq, relay.DequantizeOp):
            return
        rank = len(shape_of(op.data.type))
        gathered = normalize_axis(op.prop("axis"), rank, "property 'axis'")
        axis = -1
        if not per_tensor(dq):
            a = normalize_axis(dq.prop("axis"), rank, "property 'axis'")
            if a == gathered:
                return
            axis = a if a < gathered else a - 1 + len(shape_of(op.indices.type))
        take = relay.TakeOp(dq.data, op.indices, axis=gathered)
        _replace_with_dequantize(rewriter, op, dq, take, axis)


class QuantizeOfDequantize(RewritePattern):
    """Q(DQ(q)) -> q, when both have the same scale, zero point and axis and `q` the
    quantize's type: `(q - z) * s / s` rounds back to `q - z` (8-bit, so within 255) for
    a positive normal scale, whichever way the division is done."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: relay.QuantizeOp, rewriter: PatternRewriter) -> None:
        dq = op.data.owner
        if not isinstance(dq, relay.DequantizeOp) or dq.data.type != op.result.type:
            return
        if not (same_value(dq.scale, op.scale) and same_value(dq.zero_point, op.zero_point)):
            return
        if not (per_tensor(dq) or dq.prop("axis") % len(shape_of(dq.data.type))
                == op.prop("axis") % len(shape_of(dq.data.type))):
            return
        scale = known_value(op.scale)
        if scale is None or not np.all((scale >= 2.0 ** -100) & (scale <= 2.0 ** 100)):
            return
        rewriter.replace_op(op, [], [dq.data])
        if dq.result.first_use is None:
            rewriter.erase_op(dq)


# --------------------------------------------------------------------------------------
# The pass
# --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class PropagateQdq(ModulePass):
    """Quantizes and dequantizes moved across layout ops, next to the op they quantize;
    a quantize of a dequantize with the same parameters removed."""

    name = "propagate-qdq"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        # A reshape moved onto a constant (a Conv1d's int8 weights) folds as fold-constants folds.
        patterns = [DequantizeBeforeReshape(), QuantizeAfterReshape(), DequantizeBeforeTranspose(),
                    QuantizeAfterTranspose(), DequantizeBeforeSlice(), DequantizeBeforeTake(), QuantizeOfDequantize(),
                    FoldConstantOp(OpEvaluator(op))]
        rewrite_module(op, GreedyRewritePatternApplier(patterns), apply_recursively=True)
