"""softmax-last-axis: a softmax along another axis than the last, which no target runs,
becomes the softmax along the last axis between two transposes.

Runs in `byoc`, after collapse-norm-axes and before requantize-concatenations. Targets run
a softmax as a row op, along the last axis. Detection heads take it along other axes:
YOLOv8's distribution focal loss decodes each box side from a softmax over 16 bins along
axis 1 of [N, 16, 4, anchors], then a 1x1 convolution; on the host it cut the head's box
decoding off the npu's region. Moving the axis last (a transpose, a copy on the device),
taking the softmax there and moving it back computes each softmax over the same
elements; a target sums them in its own order (float rounding: within a few units in the
last place of the reference, which sums a strided axis in yet another order).

Rewritten only when no target runs the softmax and one target runs every op it becomes
(`annotate_target.runs_alone`).

Before (`byoc{target=npu}`):

    %y = relay.nn.softmax %x {axis = 1} : tensor<1x16x4x8xf32>

After:

    %0 = relay.transpose %x {axes = [0, 2, 3, 1]} : (tensor<1x16x4x8xf32>) -> tensor<1x4x8x16xf32>
    %1 = relay.nn.softmax %0 : tensor<1x4x8x16xf32>
    %y = relay.transpose %1 {axes = [0, 3, 1, 2]} : (tensor<1x4x8x16xf32>) -> tensor<1x16x4x8xf32>
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


class SoftmaxLastAxis(TargetsRewrite):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: relay.SoftmaxOp, rewriter: PatternRewriter) -> None:
        rank = len(shape_of(op.result.type))
        axis = op.prop("axis") % max(rank, 1)
        if axis == rank - 1 or not self.unclaimed(op):
            return
        perm = [a for a in range(rank) if a != axis] + [axis]
        inverse = [perm.index(a) for a in range(rank)]
        moved = relay.TransposeOp(op.data, axes=perm)
        rows = relay.SoftmaxOp(moved.result, axis=-1)
        back = relay.TransposeOp(rows.result, axes=inverse)
        self.replace_if_run(rewriter, op, [moved, rows, back], back.result)


@dataclass(frozen=True)
class SoftmaxesLastAxis(ModulePass):
    """Softmaxes along another axis than the last, which no target runs, become softmaxes
    along the last axis between two transposes."""

    name = "softmax-last-axis"

    target: tuple[str, ...] = ()
    """Targets that decide (default: --target)."""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        targets = tuple(target_context(ctx).resolve(self.target, self.name))
        if targets:
            rewrite_each(op, SoftmaxLastAxis(targets), (relay.SoftmaxOp,))
