"""mean-as-pool: a mean over trailing axes that no target runs becomes a global average
pool of the data viewed as one row per mean, which a target's pooling engine runs.

Runs in `byoc`, after resize-as-matmuls and before expand-pads. The mean of each row of
`[L, T]` (L the product of the kept leading axes, T of the reduced trailing ones) is the
global average pool of `[1, L, 1, T]`: L channels of a 1 x T image. The RMS norms that a
QDQ quantizer splits into `pow -> mean -> quantize -> dequantize -> ...` (LLaMA's: the norm
no longer matches the fused `rms_norm`) and the token means of sentence-embedding heads
then run beside the ops around them. The reference sums the same contiguous elements in
both forms (numpy's pairwise sum over the trailing block): the same result bit for bit in
the interpreter; a target's pool sums in its own order (float32: a few units in the last
place).

Only means over a non-empty set of trailing axes (keepdims or not) of float data, to a
result of rank 1 or more (a DMA transfer has rank 1 to 4: a scalar computed on the device
could not leave it); a mean over other axes would need a transpose first and is left
alone. Rewritten only when no
target runs the mean and one target runs every op it becomes
(`annotate_target.runs_alone`).

Before (`byoc{target=npu}`):

    %m = relay.mean %x {axis = [-1], keepdims = true} : (tensor<1x16x32xf32>) -> tensor<1x16x1xf32>

After:

    %0 = relay.reshape %x {newshape = [1, 16, 1, 32]} : (tensor<1x16x32xf32>) -> tensor<1x16x1x32xf32>
    %1 = relay.nn.global_avg_pool2d %0 : (tensor<1x16x1x32xf32>) -> tensor<1x16x1x1xf32>
    %m = relay.reshape %1 {newshape = [1, 16, 1]} : (tensor<1x16x1x1xf32>) -> tensor<1x16x1xf32>
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import PatternRewriter, op_type_rewrite_pattern

from accel.compiler.byoc_rewrites import TargetsRewrite, rewrite_each
from accel.compiler.targets import target_context
from accel.compiler.tensors import numpy_dtype
from accel.dialects import relay
from accel.dialects.relay import shape_of


def trailing_split(op: relay.MeanOp | relay.MaxOp) -> tuple[int, int] | None:
    """(L, T): the rows and the row length of a mean or max over the trailing axes of its
    data, or None when the reduced axes are not a non-empty trailing run."""
    shape = shape_of(op.data.type)
    axes = type(op).reduced_axes(len(shape), op.py_props())
    if not axes or list(axes) != list(range(len(shape) - len(axes), len(shape))):
        return None
    first = len(shape) - len(axes)
    return math.prod(shape[:first]), math.prod(shape[first:])


class MeanAsPool(TargetsRewrite):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: relay.MeanOp, rewriter: PatternRewriter) -> None:
        if not self.unclaimed(op):
            return
        if not np.issubdtype(numpy_dtype(op.data.type.element_type), np.floating):
            return
        split = trailing_split(op)
        if split is None or not shape_of(op.result.type):
            return  # (a scalar result: no transfer carries a value of rank 0)
        rows, length = split
        view = relay.ReshapeOp(op.data, newshape=[1, rows, 1, length])
        pool = relay.GlobalAvgPool2DOp(view.result)
        back = relay.ReshapeOp(pool.result, newshape=list(shape_of(op.result.type)))
        self.replace_if_run(rewriter, op, [view, pool, back], back.result)


@dataclass(frozen=True)
class MeansAsPools(ModulePass):
    """Means over trailing axes no target runs become global average pools of the data
    viewed as [1, rows, 1, row length] where a target runs those."""

    name = "mean-as-pool"

    target: tuple[str, ...] = ()
    """Targets that decide (default: --target)."""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        targets = tuple(target_context(ctx).resolve(self.target, self.name))
        if targets:
            rewrite_each(op, MeanAsPool(targets), (relay.MeanOp,))
