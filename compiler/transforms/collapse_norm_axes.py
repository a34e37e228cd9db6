"""collapse-norm-axes: a layer or RMS norm over several trailing axes that no target runs
becomes the same norm over one axis, between two reshapes.

Runs in `byoc`, after expand-pads and before requantize-concatenations. ONNX's instance norm
(recognised as a layer norm over the spatial axes, then a per-channel scale and bias:
CycleGAN's and style transfer's generators, after every convolution) and a LayerNorm of
`normalized_shape` [H, W] or [T, D] normalize over axes [axis, rank): the same elements,
one group per index of the leading axes, as a norm along the last axis of the tensor with
those axes merged into one. Targets run norms along the last axis (a row op); the
reshapes merge contiguous axes (a view, or one copy on the device). gamma and beta, of
the normalized shape, are merged the same way (constants: reshaped at compile time).
The mean is taken over the same contiguous elements in the same order (the reference
interpreter's too).

Rewritten only when no target runs the norm and one target runs every op it becomes
(`annotate_target.runs_alone`).

Before (`byoc{target=npu}`):

    %y = relay.nn.layer_norm %x, %g, %b {axis = 2} : (tensor<1x8x4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<1x8x4x4xf32>

After:

    %0 = relay.reshape %x {newshape = [1, 8, 16]} : (tensor<1x8x4x4xf32>) -> tensor<1x8x16xf32>
    %1 = relay.constant dense<...> : tensor<16xf32>
    %2 = relay.constant dense<...> : tensor<16xf32>
    %3 = relay.nn.layer_norm %0, %1, %2 {axis = 2} : (...) -> tensor<1x8x16xf32>
    %y = relay.reshape %3 {newshape = [1, 8, 4, 4]} : (tensor<1x8x16xf32>) -> tensor<1x8x4x4xf32>
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import PatternRewriter

from accel.compiler.byoc_rewrites import TargetsRewrite, discard, keep_attributes, replace_chain, rewrite_each
from accel.compiler.targets import target_context
from accel.compiler.tensors import inline_constant, known_value
from accel.compiler.transforms.annotate_target import one_target_runs
from accel.dialects import relay
from accel.dialects.relay import shape_of

NORMS = (relay.LayerNormOp, relay.RMSNormOp)


def flattened(v: SSAValue, new: list[Operation]) -> SSAValue:
    """A gamma or beta of the normalized shape as one axis: a constant reshaped at compile
    time, else a reshape."""
    value = known_value(v)
    if value is not None:
        const = inline_constant(value.reshape(-1))
        new.append(const)
        return const.result
    reshaped = relay.ReshapeOp(v, newshape=[math.prod(shape_of(v.type))])
    new.append(reshaped)
    return reshaped.result


def collapsed_norm(op: Operation) -> tuple[list[Operation], SSAValue]:
    """The norm along one merged last axis, between reshapes (see the module)."""
    shape = list(shape_of(op.data.type))
    axis = op.prop("axis") % len(shape)
    new: list[Operation] = []
    merged = relay.ReshapeOp(op.data, newshape=[*shape[:axis], math.prod(shape[axis:])])
    new.append(merged)
    params = [flattened(v, new) for v in op.operands[1:]]
    # (the axis from the front: a negative one counted from the old rank would be off)
    norm = type(op)(merged.result, *params, **{**op.py_props(), "axis": axis})
    keep_attributes(norm, op)
    new.append(norm)
    back = relay.ReshapeOp(norm.results[0], newshape=shape)
    new.append(back)
    return new, back.result


class CollapseNorm(TargetsRewrite):
    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        rank = len(shape_of(op.data.type))
        if op.prop("axis") % max(rank, 1) >= rank - 1 or not self.unclaimed(op):
            return
        new, value = collapsed_norm(op)
        for o in new:
            o.location = op.location
        ops = [o for o in new if not isinstance(o, relay.ConstantOp)]
        if one_target_runs(ops, self.targets):
            replace_chain(rewriter, new, op, value, [op])  # (and the old gamma and beta, now unread)
        else:
            discard(new)


@dataclass(frozen=True)
class CollapseNormAxes(ModulePass):
    """Layer and RMS norms over several trailing axes that no target runs become norms
    along one merged axis, between reshapes."""

    name = "collapse-norm-axes"

    target: tuple[str, ...] = ()
    """Targets that decide (default: --target)."""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        targets = tuple(target_context(ctx).resolve(self.target, self.name))
        if targets:
            rewrite_each(op, CollapseNorm(targets), NORMS)
