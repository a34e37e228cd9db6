"""cascade-max-pools: a stride-1 max pool larger than every target's window becomes a
cascade of smaller stride-1 max pools that a target runs.

Runs in `byoc`, after expand-pixel-shuffles and before merge-composite. YOLO's spatial
pyramid pooling (SPPF: three 5x5 max pools, stride 1, padding 2; SPP: 5x5, 9x9 and 13x13)
uses windows larger than the npu's 3x3. With stride 1 a max over a window of k rows is the
max over windows of k1, k2, ... rows taken one after the other, k - 1 = sum(ki - 1): output
row i of the last pool covers input rows i - sum(bi) .. i - sum(bi) + k - 1, each pool's
padding bi before and ai after summing to the original's. Padding never wins a max (it is
the lowest value), and every window of every pool holds a row of its input (bi, ai < ki),
so the result is the same, bit for bit, in float and int8.

Each axis is split into n = ceil((k - 1) / (L - 1)) pools of at most L (the largest window
the targets' max_pool2d entries take); the axis that needs fewer pools gets windows of 1.
Rewritten only when no target runs the pool and one target runs every pool of the cascade
(`annotate_target.runs_alone`).

Before (`byoc{target=npu}`; the npu's max_pool2d windows are at most 3x3):

    %y = relay.nn.max_pool2d %x {pool_size = [5, 5], padding = [2, 2, 2, 2]} : (tensor<1x8x16x16xf32>) -> tensor<1x8x16x16xf32>

After:

    %0 = relay.nn.max_pool2d %x {pool_size = [3, 3], padding = [1, 1, 1, 1]} : (tensor<1x8x16x16xf32>) -> tensor<1x8x16x16xf32>
    %y = relay.nn.max_pool2d %0 {pool_size = [3, 3], padding = [1, 1, 1, 1]} : (tensor<1x8x16x16xf32>) -> tensor<1x8x16x16xf32>
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import PatternRewriter, op_type_rewrite_pattern

from accel.compiler.byoc_rewrites import TargetsRewrite, discard, replace_chain, rewrite_each
from accel.compiler.targets import target_context
from accel.compiler.targets.schema import TargetDescription
from accel.compiler.transforms.annotate_target import one_target_runs
from accel.dialects import relay


def axis_windows(k: int, before: int, after: int, pools: int, limit: int) -> list[tuple[int, int, int]] | None:
    """(window, padding before, padding after) of each of `pools` stride-1 pools along one
    axis whose cascade is a window of `k` padded by `before` and `after`; None if windows
    of at most `limit` cannot make it."""
    grow = k - 1
    if pools * (limit - 1) < grow:
        return None
    steps = spread(grow, [limit - 1] * pools)
    return [(step + 1, b, a) for step, b, a in zip(steps, spread(before, steps), spread(after, steps))]


def spread(total: int, caps: list[int]) -> list[int]:
    """`total` in parts as even as the caps allow, the larger parts first (so that no
    intermediate pool's output grows more than it must)."""
    parts = [0] * len(caps)
    while total:
        open_ = [i for i, cap in enumerate(caps) if parts[i] < cap]
        share = max(1, total // len(open_))
        for i in open_:
            take = min(share, caps[i] - parts[i], total)
            parts[i] += take
            total -= take
            if not total:
                break
    return parts


def cascade(op: relay.MaxPool2DOp, limit: int) -> list[relay.MaxPool2DOp] | None:
    """The pools of windows at most `limit` (built on the op's input, not inserted) whose
    cascade is `op`, or None."""
    kh, kw = op.prop("pool_size")
    top, left, bottom, right = op.prop("padding")
    pools = max(math.ceil((k - 1) / (limit - 1)) for k in (kh, kw)) if limit > 1 else 0
    rows = axis_windows(kh, top, bottom, pools, limit) if pools else None
    cols = axis_windows(kw, left, right, pools, limit) if pools else None
    if rows is None or cols is None:
        return None
    built: list[relay.MaxPool2DOp] = []
    value = op.data
    for (wh, t, b), (ww, lf, r) in zip(rows, cols):
        pool = relay.MaxPool2DOp(value, pool_size=[wh, ww], padding=[t, lf, b, r])
        pool.location = op.location
        built.append(pool)
        value = pool.result
    return built


def window_limits(targets: tuple[TargetDescription, ...]) -> list[int]:
    """The largest windows (the smaller side) of the targets' max_pool2d entries."""
    found = []
    for t in targets:
        for entry in t.ops_named("relay.nn.max_pool2d"):
            if entry.limits.max_kernel is not None:
                found.append(min(entry.limits.max_kernel))
    return sorted(set(found), reverse=True)


class CascadeMaxPool(TargetsRewrite):
    def __init__(self, targets: tuple[TargetDescription, ...]):
        super().__init__(targets)
        self.limits = window_limits(targets)

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: relay.MaxPool2DOp, rewriter: PatternRewriter) -> None:
        if not self.limits or max(op.prop("pool_size")) <= self.limits[0]:
            return  # a window no target's exceeds: a cascade would be the pool itself
        if tuple(op.prop("strides")) != (1, 1) or tuple(op.prop("dilation")) != (1, 1) or not self.unclaimed(op):
            return
        for limit in self.limits:  # the largest windows first: the fewest pools
            pools = cascade(op, limit)
            if pools is None:
                continue
            if pools[-1].result.type == op.result.type and \
                    one_target_runs(pools, self.targets):
                replace_chain(rewriter, pools, op, pools[-1].result, [op])
                return
            discard(pools)


@dataclass(frozen=True)
class CascadeMaxPools(ModulePass):
    """Stride-1 max pools larger than every target's window become cascades of smaller ones."""

    name = "cascade-max-pools"

    target: tuple[str, ...] = ()
    """Targets that decide (default: --target)."""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        targets = tuple(target_context(ctx).resolve(self.target, self.name))
        if targets:
            rewrite_each(op, CascadeMaxPool(targets), (relay.MaxPool2DOp,))
