"""unstride-pools: a pool at a stride no target takes becomes the pool at stride 1, its
outputs then picked every sh rows and sw columns (a strided slice, a copy on the device).

Runs in `byoc`, after cascade-max-pools and before tabulate-activations. CRNNs and text
recognizers pool their feature maps at stride (2, 1) (halving the height, keeping the
width for the sequence); the npu's pools take strides 1 and 2 on both axes, so each such
pool ran on the host between two npu regions. At stride 1 the pool computes every window
of the strided one (and those between): output (i, j) of the strided pool is output
(i * sh, j * sw) of the stride-1 pool, the same window, so the result is the same bit for
bit (max and average, float and int8). The pool does sh * sw times its work (at most
`byoc_rewrites.MAX_SUBSAMPLE`: pools are cheap beside the convolutions around them). An
axis with one output position counts with stride 1. A `ceil_mode` pool whose last window
reaches past what the stride-1 pool computes is left alone.

Rewritten only when no target runs the pool and one target runs both ops
(`annotate_target.runs_alone`).

Before (`byoc{target=npu}`):

    %y = relay.nn.max_pool2d %x {pool_size = [2, 2], strides = [2, 1], padding = [0, 1, 0, 1]} : (tensor<1x8x8x16xf32>) -> tensor<1x8x4x17xf32>

After:

    %0 = relay.nn.max_pool2d %x {pool_size = [2, 2], padding = [0, 1, 0, 1]} : (tensor<1x8x8x16xf32>) -> tensor<1x8x7x17xf32>
    %y = relay.strided_slice %0 {begin = [0, 0], end = [7, 17], strides = [2, 1], axes = [2, 3]} : (tensor<1x8x7x17xf32>) -> tensor<1x8x4x17xf32>
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import PatternRewriter

from accel.compiler.byoc_rewrites import (MAX_SUBSAMPLE, TargetsRewrite, discard, effective_strides, rewrite_each,
                                          subsample)
from accel.compiler.targets import target_context
from accel.dialects import relay
from accel.dialects.relay import shape_of

POOLS = (relay.MaxPool2DOp, relay.AvgPool2DOp)


class UnstridePool(TargetsRewrite):
    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if not isinstance(op, POOLS):
            return
        sh, sw = effective_strides(op)
        if (sh, sw) == (1, 1) or sh * sw > MAX_SUBSAMPLE or not self.unclaimed(op):
            return
        oh, ow = shape_of(op.result.type)[2:]
        dense = type(op)(op.data, **{**op.py_props(), "strides": [1, 1], "ceil_mode": False})
        h1, w1 = shape_of(dense.result.type)[2:]
        if (oh - 1) * sh >= h1 or (ow - 1) * sw >= w1:  # (a ceil_mode window past them)
            discard([dense])
            return
        pick = subsample(dense.result, oh, ow, sh, sw)
        self.replace_if_run(rewriter, op, [dense, pick], pick.result)


@dataclass(frozen=True)
class UnstridePools(ModulePass):
    """Pools at strides no target takes become stride-1 pools subsampled by a strided
    slice."""

    name = "unstride-pools"

    target: tuple[str, ...] = ()
    """Targets that decide (default: --target)."""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        targets = tuple(target_context(ctx).resolve(self.target, self.name))
        if targets:
            rewrite_each(op, UnstridePool(targets), POOLS)
