"""additive-masks: an attention mask written as a select of a huge negative value becomes an added constant.

Runs in `canonicalize`, after fold-constants. Exporters write a causal or padding mask
that is known when compiling as `where(mask, -inf, scores)` (torch's `masked_fill`),
`where(keep, scores, -inf)`, or with the dtype's lowest finite value instead of -inf
(Hugging Face's eager attention: `where(causal, scores, finfo.min)`). For a finite float
`x`, `where(c, f, x)` equals `x + where(c, f, 0)` bit for bit when `f` is -inf (x + 0 = x,
x + -inf = -inf) or when `f` is finite and `|x|` is below half the gap between `f` and
the next float toward zero (then `x + f` rounds to `f`): a fill qualifies if that half
gap is at least 2^64 (float32's `finfo.min`: 2^103; float64's too; no float16 value), so the rewrite
assumes scores below 2^64 in magnitude, as it assumes them finite. An add with a constant
is an op accelerators run (the npu's elementwise add takes the result's trailing dims as
its rhs: the mask's leading dims of size 1 are dropped), so the attention scores no longer
leave a region for a host `where`. A fill such as -1e9 or -10000 is left alone (`x + f`
is not `f`). The other operand must have the result's shape (the add does not broadcast
it). (An infinite or NaN `x` where the mask hides it gives NaN or inf instead of the
fill: scores are finite.)

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


SCORES_BELOW = 2.0 ** 64
"""The magnitude of scores the rewrite of a finite fill value assumes (see above)."""


def absorbing_fill(value: np.ndarray) -> float | None:
    """The fill value of a select (one value, maybe broadcast) if adding any score below
    `SCORES_BELOW` to it gives it back: -inf, or a finite value whose half spacing is at
    least that; else None."""
    if value.dtype not in (np.float16, np.float32, np.float64) or value.size == 0:
        return None
    fill = value.flat[0]
    if not np.all(value == fill):
        return None
    if np.isneginf(fill):
        return float(fill)
    # The gap to the next float toward zero is the smaller of the two around `fill`.
    if np.isfinite(fill) and fill < 0 and float(np.nextafter(fill, fill.dtype.type(0)) - fill) * 0.5 >= SCORES_BELOW:
        return float(fill)
    return None


def additive_mask(condition: np.ndarray, fill_when: bool, fill: float, dtype: np.dtype) -> np.ndarray:
    """`fill` where `condition` is `fill_when`, else 0, without leading dims of size 1."""
    mask = np.where(condition.astype(bool) == fill_when, fill, 0.0).astype(dtype)
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
            fill_value = None if value is None else absorbing_fill(value)
            if fill_value is None or tuple(shape_of(x.type)) != out:
                continue
            shape = np.broadcast_shapes(condition.shape, value.shape)
            mask = additive_mask(np.broadcast_to(condition, shape), fill_when, fill_value, value.dtype)
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
    """`where(mask, f, x)` with a constant mask and f = -inf or a finite fill that absorbs
    any score below 2^64 (`finfo.min`) becomes `x + mask'` (a constant of 0 and f)."""

    name = "additive-masks"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        PatternRewriteWalker(WhereOfMinusInfinity(), apply_recursively=False).rewrite_module(op)
