"""global-pools: an average pool whose one window is the whole unpadded image, which no
target runs (its window beyond every target's), becomes a global average pool.

Runs in `byoc`, after unstride-pools and before tabulate-activations. Older exports write a
network's final pooling as an average pool over the whole feature map (ResNet-50's and
Inception's 7x7 and 8x8, SqueezeNet's 13x13), where the npu's pool windows stop at 3x3
and its global average pool takes any image: each output is the mean of its channel's
H x W cells either way (the sum in another order: float rounding).

Only a pool with no padding, no dilation, a window of the image's size and so one output
cell per channel; rewritten only when no target runs the pool and one target runs the
global pool (`annotate_target.runs_alone`).

Before (`byoc{target=npu}`):

    %y = relay.nn.avg_pool2d %x {pool_size = [7, 7]} : (tensor<1x8x7x7xf32>) -> tensor<1x8x1x1xf32>

After:

    %y = relay.nn.global_avg_pool2d %x : (tensor<1x8x7x7xf32>) -> tensor<1x8x1x1xf32>
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import PatternRewriter, op_type_rewrite_pattern

from accel.compiler.byoc_rewrites import TargetsRewrite, rewrite_each
from accel.compiler.targets import target_context
from accel.dialects import relay
from accel.dialects.relay import shape_of


class GlobalPool(TargetsRewrite):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: relay.AvgPool2DOp, rewriter: PatternRewriter) -> None:
        props = op.py_props()
        if (list(props["pool_size"]) != list(shape_of(op.data.type)[2:]) or any(props["padding"])
                or tuple(props["dilation"]) != (1, 1) or shape_of(op.result.type)[2:] != (1, 1)
                or not self.unclaimed(op)):
            return
        pool = relay.GlobalAvgPool2DOp(op.data)
        self.replace_if_run(rewriter, op, [pool], pool.result)


@dataclass(frozen=True)
class GlobalPools(ModulePass):
    """Average pools over the whole unpadded image, which no target runs, become global
    average pools."""

    name = "global-pools"

    target: tuple[str, ...] = ()
    """Targets that decide (default: --target)."""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        targets = tuple(target_context(ctx).resolve(self.target, self.name))
        if targets:
            rewrite_each(op, GlobalPool(targets), (relay.AvgPool2DOp,))
