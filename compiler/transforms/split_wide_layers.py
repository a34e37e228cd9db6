"""split-wide-layers: a float convolution or dense layer with more output channels than any
target takes becomes layers over slices of its output channels, concatenated.

Runs in `byoc`, after unstride-convs and before expand-pixel-shuffles. Classifier heads are
wide: the 512 -> 1280 1x1 convolution of MobileNetV3-style heads (RapidOCR's orientation
model), the character classifiers of text recognizers over their vocabularies (PP-OCRv4's
6,625 classes, PP-OCRv6's 18,710, ddddocr's 8,210), where the npu's entries take at most
1,024 (convolutions) and 4,096 (dense) channels. Output channel o of the layer reads only
row o of its weight: the layer over rows [a, b) of the weight computes channels [a, b)
exactly, so the concatenation of the slices is the layer, bit for bit. A `bias_add` that is
the layer's only reader is sliced with it (each slice keeps its bias, so that a target's
layer+bias pattern still matches).

The n = ceil(channels / limit) slices are of equal size but the last (the largest limit of
the entries that would take the slices). Only float layers with a constant weight (an int8
layer's output quantization is one per tensor over all its channels; the same split with
its requantization is left for later); input channels beyond the limit (a sum of partial
layers, float rounding of another order) are not split. Rewritten only when no target runs
the layer and one target runs every slice and the concatenation
(`annotate_target.runs_alone`).

Before (`byoc{target=npu}`; the npu's conv entries take 1,024 channels):

    %y = relay.nn.conv2d %x, %w : (tensor<1x512x1x1xf32>, tensor<1280x512x1x1xf32>) -> tensor<1x1280x1x1xf32>

After:

    %0 = relay.constant ... : tensor<640x512x1x1xf32>
    %1 = relay.nn.conv2d %x, %0 : (tensor<1x512x1x1xf32>, tensor<640x512x1x1xf32>) -> tensor<1x640x1x1xf32>
    %2 = relay.constant ... : tensor<640x512x1x1xf32>
    %3 = relay.nn.conv2d %x, %2 : (tensor<1x512x1x1xf32>, tensor<640x512x1x1xf32>) -> tensor<1x640x1x1xf32>
    %y = relay.concatenate %1, %3 {axis = 1} : (...) -> tensor<1x1280x1x1xf32>
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import PatternRewriter

from accel.compiler.byoc_rewrites import TargetsRewrite, discard, keep_attributes, replace_chain, rewrite_each
from accel.compiler.targets import target_context
from accel.compiler.targets.schema import TargetDescription
from accel.compiler.tensors import inline_constant, known_value
from accel.compiler.transforms.annotate_target import runs_alone
from accel.dialects import relay
from accel.dialects.relay import shape_of

LAYERS = (relay.Conv2DOp, relay.DenseOp)


def channel_limits(targets: tuple[TargetDescription, ...], name: str) -> list[int]:
    """The `max_channels` of the targets' entries of op `name` (none: no entry limits it)."""
    return sorted({e.limits.max_channels for t in targets for e in t.ops
                   if e.op == name and e.limits.max_channels is not None}, reverse=True)


def channel_slices(channels: int, limit: int) -> list[tuple[int, int]]:
    """[a, b) ranges of at most `limit` channels, as few as can be, of equal size but the last."""
    size = math.ceil(channels / math.ceil(channels / limit))
    return [(a, min(channels, a + size)) for a in range(0, channels, size)]


def _only_bias(op: Operation) -> relay.BiasAddOp | None:
    uses = [u.operation for u in op.results[0].uses]
    if len(uses) == 1 and isinstance(uses[0], relay.BiasAddOp) and uses[0].data is op.results[0]:
        return uses[0]
    return None


class SplitWideLayer(TargetsRewrite):
    def __init__(self, targets: tuple[TargetDescription, ...]):
        super().__init__(targets)
        self.limits = {layer.name: channel_limits(targets, layer.name) for layer in LAYERS}

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if not isinstance(op, LAYERS) or (isinstance(op, relay.Conv2DOp) and op.prop("groups") != 1):
            return
        limits = self.limits[op.name]
        # (the weight's shape first: a layer within every limit is the common case, and
        # reading a constant's values is not free)
        if all(shape_of(op.weight.type)[0] <= limit for limit in limits) or not self.unclaimed(op):
            return
        weight = known_value(op.weight)
        if weight is None or weight.dtype.kind != "f":
            return
        axis = 1 if isinstance(op, relay.Conv2DOp) else len(shape_of(op.results[0].type)) - 1
        bias = _only_bias(op)
        bias_value = known_value(bias.bias) if bias is not None else None
        if bias is not None and (bias_value is None or bias.prop("axis") % len(shape_of(bias.result.type)) != axis):
            bias, bias_value = None, None  # (a bias along another axis, or computed: stays after the concatenation)
        for limit in limits:
            new: list[Operation] = []
            parts = []
            for a, b in channel_slices(weight.shape[0], limit):
                w = inline_constant(np.ascontiguousarray(weight[a:b]))
                part = type(op)(op.operands[0], w.result, **op.py_props())
                keep_attributes(part, op)
                new += [w, part]
                value = part.results[0]
                if bias is not None:
                    c = inline_constant(np.ascontiguousarray(bias_value[a:b]))
                    added = relay.BiasAddOp(value, c.result, **bias.py_props())
                    added.location = bias.location
                    new += [c, added]
                    value = added.result
                parts.append(value)
            joined = relay.ConcatenateOp(*parts, axis=axis)
            joined.location = op.location
            new.append(joined)
            computed = [o for o in new if isinstance(o, (*LAYERS, relay.ConcatenateOp))]
            if any(all(runs_alone(o, t) for o in computed) for t in self.targets):
                last = bias if bias is not None else op
                replace_chain(rewriter, new, last, joined.result, [last, op] if bias is not None else [op])
                return
            discard(new)


@dataclass(frozen=True)
class SplitWideLayers(ModulePass):
    """Float convolutions and dense layers with more output channels than any target
    takes become layers over slices of their channels, concatenated."""

    name = "split-wide-layers"

    target: tuple[str, ...] = ()
    """Targets that decide (default: --target)."""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        targets = tuple(target_context(ctx).resolve(self.target, self.name))
        if any(channel_limits(targets, layer.name) for layer in LAYERS):
            rewrite_each(op, SplitWideLayer(targets), LAYERS)
