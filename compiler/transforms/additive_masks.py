"""additive-masks: an attention mask written as a select of -inf becomes an added constant.

Runs in `canonicalize`, after fold-constants. Exporters write a causal or padding mask
that is known when compiling as `where(mask, -inf, scores)` (torch's `masked_fill`) or
`where(keep, scores, -inf)`. For a finite float `x`, `where(c, -inf, x)` equals
`x + where(c, -inf, 0)` bit for bit (x + 0 = x, x + -inf = -inf), and an add with a
constant is an op accelerators run (the npu's elementwise add takes the result's trailing
dims as its rhs: the mask's leading dims of size 1 are dropped), so the attention scores
no longer leave a region for a host `where`. Only -inf qualifies: a finite fill value
(HF's `finfo.min`) added is not the fill value for every `x`. The other operand must have
the result's shape (the add does not broadcast it). (An infinite or NaN `x` where the mask
hides it gives NaN instead of -inf: scores are finite.)

Before:

    %m = relay.constant dense<[[false, true], [false, false]]> : tensor<2x2xi1>
    %n = relay.constant dense<0xFF800000> : tensor<f32>
    %y = relay.where %m, %n, %s : (tensor<2x2xi1>, tensor<f32>, tensor<4x2x2xf32>) -> tensor<4x2x2xf32>

After:

    %a = relay.constant dense<[[0.0, 0xFF800000], [0.0, 0.0]]> : tensor<2x2xf32>
    %y = relay.add %s, %a : (tensor<4x2x2xf32>, tensor<2x2xf32>) -> tensor<4x2x2xf32>
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import PatternRewriter, PatternRewriteWalker, RewritePattern, op_type_rewrite_pattern
from xdsl.rewriter import InsertPoint

from accel.compiler.tensors import inline_constant, known_value
from accel.compiler.transforms.fold_constants import erase_dead
from accel.dialects import relay
from accel.dialects.relay import shape_of


def additive_mask(condition: np.ndarray, fill_when: bool, dtype: np.dtype) -> np.ndarray:
    """-inf where `condition` is `fill_when`, else 0, without leading dims of size 1."""
    mask = np.where(condition.astype(bool) == fill_when, -np.inf, 0.0).astype(dtype)
    while mask.ndim > 1 and mask.shape[0] == 1:
        mask = mask[0]
    return mask


class WhereOfMinusInfinity(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: relay.WhereOp, rewriter: PatternRewriter) -> None:
        condition = known_value(op.condition)
        if condition is None:
            return
        out = tuple(shape_of(op.result.type))
        for fill_when, fill, x in ((True, op.x, op.y), (False, op.y, op.x)):
            value = known_value(fill)
            if value is None or value.dtype.kind != "f" or not np.all(np.isneginf(value)):
                continue
            if tuple(shape_of(x.type)) != out:
                continue
            shape = np.broadcast_shapes(condition.shape, value.shape)
            mask = additive_mask(np.broadcast_to(condition, shape), fill_when, value.dtype)
            const = inline_constant(mask)
            add = relay.AddOp(x, const.result)
            add.location = op.location
            dead = [op.condition.owner, fill.owner]
            rewriter.insert_op(const, InsertPoint.before(op))
            rewriter.replace_op(op, add)
            erase_dead(rewriter, dead)
            return


@dataclass(frozen=True)
class AdditiveMasks(ModulePass):
    """`where(mask, -inf, x)` with a constant mask becomes `x + mask'` (a constant of 0 and -inf)."""

    name = "additive-masks"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        PatternRewriteWalker(WhereOfMinusInfinity(), apply_recursively=False).rewrite_module(op)
