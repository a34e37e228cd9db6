"""propagate-qdq: quantizes and dequantizes moved across the reshapes next to them.

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

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (GreedyRewritePatternApplier, PatternRewriter, PatternRewriteWalker, RewritePattern,
                                   op_type_rewrite_pattern)
from xdsl.rewriter import InsertPoint

from accel.compiler.runtime.interpreter import OpEvaluator
from accel.compiler.tensors import unit_axes_map
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
        reshape = relay.ReshapeOp(dq.data, newshape=list(dst))
        new = relay.DequantizeOp(reshape.result, dq.scale, dq.zero_point, axis=axis)
        reshape.location, new.location = op.location, dq.location
        rewriter.insert_op(reshape, InsertPoint.before(op))
        rewriter.replace_op(op, new)
        if dq.result.first_use is None:
            rewriter.erase_op(dq)


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
        q.location, new.location = op.location, reshape.location
        rewriter.insert_op(q, InsertPoint.before(op))
        rewriter.replace_op(op, new)
        rewriter.erase_op(reshape)


# --------------------------------------------------------------------------------------
# The pass
# --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class PropagateQdq(ModulePass):
    """Quantizes and dequantizes moved across reshapes, next to the op they quantize."""

    name = "propagate-qdq"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        # A reshape moved onto a constant (a Conv1d's int8 weights) folds as fold-constants folds.
        patterns = [DequantizeBeforeReshape(), QuantizeAfterReshape(), FoldConstantOp(OpEvaluator(op))]
        PatternRewriteWalker(GreedyRewritePatternApplier(patterns), apply_recursively=True).rewrite_module(op)
