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

A mask known only at run time (a padding mask) is left a select, computed on the host
before the region; but torch's export of `scaled_dot_product_attention` with a boolean
mask then guards the softmax against rows the mask hides whole, `where(isnan(p), 0, p)`
with `p = softmax(s + where(m, 0, -inf))`, a host select after the softmax that cuts the
attention in two. With a finite fill (torch's dynamo exporter writes `finfo.min`) the
softmax of finite scores has no NaN and the guard is dropped; with -inf it is
`softmax(s + where(m, 0, finfo.min)) * any(m along the keys)`:
a row with a key left is the same bit for bit (the finite fill is absorbed as above and
its exponential is 0, as -inf's), a row hidden whole is uniform times 0 = 0 instead of
NaN -> 0; the masks are the host's (small, the mask's shape), the add, the softmax and
the product an accelerator's.

Before:

    %m = relay.constant dense<[[false, true], [false, false]]> : tensor<2x2xi1>
    %n = relay.constant dense<0xFF800000> : tensor<f32>
    %y = relay.where %m, %n, %s : (tensor<2x2xi1>, tensor<f32>, tensor<4x2x2xf32>) -> tensor<4x2x2xf32>

After:

    %a = relay.constant dense<[[0.0, 0xFF800000], [0.0, 0.0]]> : tensor<2x2xf32>
    %y = relay.add %s, %a : (tensor<4x2x2xf32>, tensor<2x2xf32>) -> tensor<4x2x2xf32>

(and the guarded softmax, with `%keep` a run-time `tensor<1x1x2x2xi1>`:

    %a = relay.where %keep, %zero, %minus_inf
    %p = relay.nn.softmax (relay.add %s, %a)
    %y = relay.where (relay.not_equal %p, %p), %zero, %p

becomes `%a' = relay.where %keep, %zero, %lowest`, `%p' = relay.nn.softmax (relay.add %s,
%a')`, `%y = relay.multiply %p', (relay.broadcast_to (relay.max (relay.cast %keep)
{axis = [-1], keepdims}))`.)
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass
from xdsl.ir import SSAValue
from xdsl.pattern_rewriter import GreedyRewritePatternApplier, PatternRewriter, RewritePattern, op_type_rewrite_pattern
from xdsl.rewriter import InsertPoint

from accel.compiler.pattern_walk import rewrite_module
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


def _select_of(v: SSAValue) -> tuple[relay.WhereOp, bool, bool] | None:
    """The run-time select `v` is, `where(m, 0, f)` or `where(m, f, 0)` with f = -inf or a
    finite value (with whether `m` true keeps a key, and whether f is finite), if it is one."""
    op = v.owner
    if not isinstance(op, relay.WhereOp) or known_value(op.condition) is not None:
        return None
    x, y = known_value(op.x), known_value(op.y)
    if x is None or y is None or x.dtype.kind != "f":
        return None
    for keep_when, zero, fill in ((True, x, y), (False, y, x)):
        if np.all(zero == 0) and fill.size and (np.all(np.isneginf(fill)) or np.all(np.isfinite(fill))):
            return op, keep_when, bool(np.isfinite(fill).all())
    return None


class NanGuardedSoftmax(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: relay.WhereOp, rewriter: PatternRewriter) -> None:
        guard, zero, p = op.condition.owner, op.x, op.y
        if not isinstance(guard, relay.NotEqualOp) or guard.lhs is not p or guard.rhs is not p:
            return
        softmax = p.owner
        zero_value = known_value(zero)
        if not isinstance(softmax, relay.SoftmaxOp) or zero_value is None or not np.all(zero_value == 0):
            return
        rank = len(shape_of(p.type))
        if softmax.prop("axis") not in (-1, rank - 1) or {u.operation for u in p.uses} != {guard, op}:
            return
        add = softmax.data.owner
        if not isinstance(add, relay.AddOp) or len(list(softmax.data.uses)) != 1:
            return
        for scores, mask in ((add.lhs, add.rhs), (add.rhs, add.lhs)):
            found = _select_of(mask)
            if found is None:
                continue
            select, keep_when, finite_fill = found
            if finite_fill:
                # softmax of finite scores is never NaN (torch's dynamo export fills with
                # finfo.min): the guard is the softmax itself.
                rewriter.replace_op(op, [], [p])
                erase_dead(rewriter, [guard, zero.owner])
                return
            minus_inf = select.y if keep_when else select.x
            lowest_value = np.full(known_value(minus_inf).shape, np.finfo(known_value(minus_inf).dtype).min,
                                   dtype=known_value(minus_inf).dtype)
            if absorbing_fill(lowest_value) is None or shape_of(mask.type)[-1:] not in ((1,), shape_of(p.type)[-1:]):
                return
            lowest = inline_constant(lowest_value)
            finite = relay.WhereOp(select.condition, *((select.x, lowest.result) if keep_when
                                                       else (lowest.result, select.y)))
            summed = relay.AddOp(*((scores, finite.result) if scores is add.lhs else (finite.result, scores)))
            probabilities = relay.SoftmaxOp(summed.result, axis=-1)
            keep = select.condition if keep_when else None
            new_ops = [lowest, finite, summed, probabilities]
            if keep is None:
                negated = relay.LogicalNotOp(select.condition)
                new_ops.append(negated)
                keep = negated.result
            as_float = relay.CastOp(keep, p.type.element_type)
            any_key = relay.MaxOp(as_float.result, axis=[-1], keepdims=True)
            row_kept = relay.BroadcastToOp(any_key.result, shape=list(shape_of(mask.type)))
            guarded = relay.MultiplyOp(probabilities.result, row_kept.result)
            new_ops += [as_float, any_key, row_kept]
            for new in (*new_ops, guarded):
                new.location = op.location
            rewriter.insert_op(new_ops, InsertPoint.before(op))
            rewriter.replace_op(op, guarded)
            erase_dead(rewriter, [guard, softmax, add, select, zero.owner])
            return


@dataclass(frozen=True)
class AdditiveMasks(ModulePass):
    """Attention masks as adds: where(constant mask, -inf or finfo.min, x) -> x + mask', torch's NaN-guarded softmax -> a product.

    `where(mask, f, x)` with a constant mask and f = -inf or a finite fill that absorbs
    any score below 2^64 (`finfo.min`) becomes `x + mask'` (a constant of 0 and f); a
    softmax guarded against rows a run-time mask hides whole becomes a product."""

    name = "additive-masks"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        rewrite_module(op, GreedyRewritePatternApplier([WhereOfMinusInfinity(), NanGuardedSoftmax()]),
                       apply_recursively=False)
