"""expand-nearest-upsampling: a nearest-neighbour resize by whole factors that no target
runs becomes concatenations that a target copies on its device.

Runs in `byoc`, after expand-activations and before merge-composite. The upsampling of
feature pyramids and YOLO necks (ONNX Resize, nearest, scale 2) repeats each input cell
s times along each axis: output (i, j) is input (i // sh, j // sw). That is the input
written s times side by side, with strides, into the output: along the columns,
[N*C*H, W, 1] concatenated sw times along its last axis ([N*C*H, W, sw]: each copy a
strided write of rank 2); along the rows, [N*C*H, 1, W*sw] concatenated sh times along
its middle axis. A target that copies strided views on its device (the npu) runs them,
and the upsampling stays in the region of the convolutions around it.

Only resizes whose sampling is such a repeat (`resize_sampling`'s nearest index of every
output cell equal to i // s: the usual scale-2 modes, asymmetric or half-pixel) are
rewritten, when no target runs the resize and one runs every op it becomes
(`annotate_target.runs_alone`). The copies move the same values: bit for bit. A QDQ
model's resize (dequantize, resize, quantize of the same scale) moves the int8 data.

Before (`byoc{target=npu}`):

    %y = relay.image.resize2d %x {size = [8, 8], method = "nearest"} : (tensor<1x2x4x4xf32>) -> tensor<1x2x8x8xf32>

After:

    %0 = relay.reshape %x {newshape = [8, 4, 1]} : (tensor<1x2x4x4xf32>) -> tensor<8x4x1xf32>
    %1 = relay.concatenate %0, %0 {axis = 2} : (tensor<8x4x1xf32>, tensor<8x4x1xf32>) -> tensor<8x4x2xf32>
    %2 = relay.reshape %1 {newshape = [8, 1, 8]} : (tensor<8x4x2xf32>) -> tensor<8x1x8xf32>
    %3 = relay.concatenate %2, %2 {axis = 1} : (tensor<8x1x8xf32>, tensor<8x1x8xf32>) -> tensor<8x2x8xf32>
    %y = relay.reshape %3 {newshape = [1, 2, 8, 8]} : (tensor<8x2x8xf32>) -> tensor<1x2x8x8xf32>
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import PatternRewriter, op_type_rewrite_pattern

from accel.compiler.byoc_rewrites import TargetsRewrite, discard, moved_int8, replace_moved, rewrite_each
from accel.compiler.resize_sampling import resize_nearest_index, resize_source_coordinate
from accel.compiler.targets import target_context
from accel.compiler.transforms.annotate_target import one_target_runs
from accel.dialects import relay
from accel.dialects.relay import shape_of


def repeat_factors(op: relay.Resize2DOp) -> tuple[int, int] | None:
    """(sh, sw) when the resize repeats each input cell sh x sw times (nearest sampling,
    output index i from input i // s along each axis); None otherwise."""
    props = op.py_props()
    if props["method"] != "nearest" or props["roi"] is not None:
        return None
    _, _, h, w = shape_of(op.data.type)
    oh, ow = props["size"]
    if oh % h or ow % w:
        return None
    scales = relay.Resize2DOp.scales((h, w), props)
    factors = []
    for length, out, scale in ((h, oh, scales[0]), (w, ow, scales[1])):
        coords = resize_source_coordinate(np.arange(out, dtype=np.float64), scale, length, out,
                                          props["coordinate_transformation_mode"])
        index = resize_nearest_index(coords, length, props["nearest_mode"])
        s = out // length
        if not np.array_equal(index, np.arange(out) // s):
            return None
        factors.append(s)
    return factors[0], factors[1]


def repeated(v: SSAValue, shape: list[int], axis: int, times: int, new: list[Operation]) -> SSAValue:
    """`v` reshaped to `shape` and concatenated `times` times along `axis`."""
    split = relay.ReshapeOp(v, newshape=shape)
    joined = relay.ConcatenateOp(*([split.result] * times), axis=axis)
    new += [split, joined]
    return joined.result


def upsampling_ops(op: relay.Resize2DOp, data: SSAValue, sh: int, sw: int) -> tuple[list[Operation], SSAValue]:
    """The concatenations repeating `data` (the resize's input, or the int8 tensor it is
    dequantized from) sh x sw times."""
    n, c, h, w = shape_of(data.type)
    new: list[Operation] = []
    value = data
    if sw > 1:
        value = repeated(value, [n * c * h, w, 1], 2, sw, new)
    if sh > 1:
        value = repeated(value, [n * c * h, 1, w * sw], 1, sh, new)
    whole = relay.ReshapeOp(value, newshape=[n, c, h * sh, w * sw])
    new.append(whole)
    return new, whole.result


class ExpandNearestUpsampling(TargetsRewrite):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: relay.Resize2DOp, rewriter: PatternRewriter) -> None:
        if not self.unclaimed(op):
            return
        factors = repeat_factors(op)
        if factors is None or factors == (1, 1):
            return
        data, dequant, requant = moved_int8(op)  # int8 data moves (see expand-pixel-shuffles)
        new, value = upsampling_ops(op, data, *factors)
        for o in new:
            o.location = op.location
        if one_target_runs(new, self.targets):
            replace_moved(rewriter, op, new, value, dequant, requant)
        else:
            discard(new)


@dataclass(frozen=True)
class ExpandNearestUpsamplings(ModulePass):
    """Nearest resizes by whole factors no target runs become concatenations a target
    copies on its device."""

    name = "expand-nearest-upsampling"

    target: tuple[str, ...] = ()
    """Targets that decide (default: --target)."""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        targets = tuple(target_context(ctx).resolve(self.target, self.name))
        if targets:
            rewrite_each(op, ExpandNearestUpsampling(targets), (relay.Resize2DOp,))
