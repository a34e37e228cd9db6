"""unstride-convs: a convolution no target takes (strided more than any target takes, or
with a kernel larger than any takes), whose kernel is a multiple of its stride, becomes a
stride-1 convolution on the image's space-to-depth (a kernel s times smaller).

Runs in `byoc`, after split-grouped-convs and before merge-composite. The patch
embeddings of vision transformers (a 16x16 kernel with stride 16) and ConvNeXt's stem (4x4,
stride 4) are such convolutions; the npu takes strides 1 and 2. With stride s and kernel
m*s (one group, no dilation), output pixel (i, j) reads input rows i*s .. i*s + m*s - 1: on
X[n, (u*s + v)*C + c, i, j] = x[n, c, i*s + u, j*s + v] (reshape [N, C, H/s, s, W/s, s],
transpose [0, 3, 5, 1, 2, 4], reshape [N, s*s*C, H/s, W/s]: for one image a copy of rank
4, which the npu makes on its device) the same products are an m x m convolution with
stride 1 and weight W'[o, (u*s + v)*C + c, p, q] = w[o, c, p*s + u, q*s + v] (rearranged at
compile time). The output is the original one: nothing to put back.

Padding before (top, left) that is a multiple of s is the new convolution's, in image
rows of X; what is not a whole phase is a constant block before the image (DS-CNN's
first layer: a 10x4 kernel, stride 2, padding 5 and 1, which no npu entry takes, becomes
a 5x2 kernel on 4 channels); rows and columns past the last one the strided convolution reads are
cropped, and the bottom and right padding it does read is the new convolution's padding
and, for what is not a whole phase, a constant block concatenated to the image. A
per-tensor `dequantize` of the data is taken after the layout change (which then runs on
int8 data), and a weight that is a per-channel dequantize of a constant is rearranged
under it, so that a target's QDQ conv pattern still matches.

Rewritten only when no target's convolution entry takes the convolution and the
stride-1 convolution passes an entry's limits (kernel, channels): the host runs strided
convolutions itself.

Before (`byoc{target=npu}`; a ConvNeXt stem):

    %y = relay.nn.conv2d %x, %w {strides = [4, 4]} : (tensor<1x3x32x32xf32>, tensor<16x3x4x4xf32>) -> tensor<1x16x8x8xf32>

After:

    %0 = relay.reshape %x {newshape = [1, 3, 8, 4, 8, 4]} : ... -> tensor<1x3x8x4x8x4xf32>
    %1 = relay.transpose %0 {axes = [0, 3, 5, 1, 2, 4]} : ... -> tensor<1x4x4x3x8x8xf32>
    %2 = relay.reshape %1 {newshape = [1, 48, 8, 8]} : ... -> tensor<1x48x8x8xf32>
    %3 = relay.constant ... : tensor<16x48x1x1xf32>
    %y = relay.nn.conv2d %2, %3 : (tensor<1x48x8x8xf32>, tensor<16x48x1x1xf32>) -> tensor<1x16x8x8xf32>
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import PatternRewriter

from accel.compiler.byoc_rewrites import (ConvRewrite, apply_conv_rewrite, data_source, dequantized, discard,
                                          keep_attributes, padded, replace_chain, takes)
from accel.compiler.tensors import inline_constant, known_value
from accel.dialects import relay
from accel.dialects.relay import shape_of


class AxisSpace(NamedTuple):
    """How one spatial axis of the data becomes rows of the space-to-depth image."""

    keep: int
    """Rows of the data the strided convolution reads (the rest are cropped)."""
    pad: int
    """Constant rows added after them (the part of the bottom padding that is not a whole
    phase)."""
    conv_before: int
    conv_after: int
    """The stride-1 convolution's padding, in rows of the space-to-depth image."""
    pad_before: int = 0
    """Constant rows added before the data (the part of the top padding that is not a
    whole phase: DS-CNN's 10x4 kernel with stride 2 and padding 5)."""


def axis_space(size: int, s: int, before: int, after: int) -> AxisSpace | None:
    """The rows of one axis (None when the convolution reads no row of the data): the
    padding before that is not whole phases becomes constant rows before the data; then
    the strided convolution reads the padded rows [0, used + before), `used` a multiple of
    s (its outputs cover whole phases)."""
    lead = before % s
    before -= lead
    size += lead  # the constant rows count as data from here on
    used = (size + before + after) // s * s - before  # data rows and padding after it, read
    if used <= lead:
        return None  # the convolution reads only padding along this axis
    if used <= size:
        return AxisSpace(used - lead, 0, before // s, 0, lead)
    extra = used - size
    return AxisSpace(size - lead, extra % s, before // s, extra // s, lead)


def space_to_depth(v: SSAValue, s: int, new: list[Operation]) -> SSAValue:
    """[N, C, H, W] (H, W multiples of s) as [N, s*s*C, H/s, W/s], channel (u*s + v)*C + c
    holding pixel (u, v) of each s x s patch of channel c (pixel-major: for one image the
    transpose is a copy of rank 4, which the npu makes on its device)."""
    n, c, h, w = shape_of(v.type)
    split = relay.ReshapeOp(v, newshape=[n, c, h // s, s, w // s, s])
    moved = relay.TransposeOp(split.result, axes=[0, 3, 5, 1, 2, 4])
    stacked = relay.ReshapeOp(moved.result, newshape=[n, s * s * c, h // s, w // s])
    new += [split, moved, stacked]
    return stacked.result


def rearranged(w: np.ndarray, s: int) -> np.ndarray:
    """The weight [O, C, m*s, m*s] of the strided conv as the stride-1 conv's [O, s*s*C, m, m]
    (the channel order of `space_to_depth`)."""
    o, c, kh, kw = w.shape
    return np.ascontiguousarray(
        w.reshape(o, c, kh // s, s, kw // s, s).transpose(0, 3, 5, 1, 2, 4).reshape(o, s * s * c, kh // s, kw // s))


def new_weight(weight: SSAValue, s: int, new: list[Operation]) -> SSAValue | None:
    """The rearranged weight: of a constant, or under a dequantize of one along the output
    channels (or per tensor); None otherwise."""
    value = known_value(weight)
    if value is not None:
        const = inline_constant(rearranged(value, s))
        new.append(const)
        return const.result
    dq = weight.owner
    if isinstance(dq, relay.DequantizeOp) and known_value(dq.data) is not None:
        axis = dq.py_props()["axis"] % 4
        per_tensor = all(known_value(p) is not None and np.size(known_value(p)) == 1 for p in (dq.scale, dq.zero_point))
        if axis == 0 or per_tensor:
            const = inline_constant(rearranged(known_value(dq.data), s))
            moved = relay.DequantizeOp(const.result, dq.scale, dq.zero_point, axis=dq.py_props()["axis"])
            new += [const, moved]
            return moved.result
    return None


class UnstrideConv(ConvRewrite):
    def rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        props = op.py_props()
        sh, sw = props["strides"]
        kh, kw = shape_of(op.weight.type)[2:]
        # (a stride a target takes counts too: the kernel may be what it refuses, and the
        # stride-1 kernel is s times smaller)
        if sh != sw or sh == 1 or kh % sh or kw % sh or props["groups"] != 1 or \
                tuple(props["dilation"]) != (1, 1) or takes(self.limits, op):
            return
        s = sh
        h, w = shape_of(op.data.type)[2:]
        top, left, bottom, right = props["padding"]
        rows, cols = axis_space(h, s, top, bottom), axis_space(w, s, left, right)
        source = data_source(op)
        if rows is None or cols is None or source is None:
            return
        data, dequant, zero = source
        new: list[Operation] = []
        weight = new_weight(op.weight, s, new)
        if weight is None:
            return
        if rows.keep < h or cols.keep < w:
            crop = relay.StridedSliceOp(data, begin=[0, 0], end=[rows.keep, cols.keep], axes=[2, 3])
            new.append(crop)
            data = crop.result
        data = padded(data, 2, rows.pad_before, rows.pad, zero, new)
        data = padded(data, 3, cols.pad_before, cols.pad, zero, new)
        data = dequantized(space_to_depth(data, s, new), dequant, new)
        conv = type(op)(data, weight, *op.operands[2:], **{
            **props, "strides": [1, 1],
            "padding": [rows.conv_before, cols.conv_before, rows.conv_after, cols.conv_after]})
        keep_attributes(conv, op)
        new.append(conv)
        if not takes(self.limits, conv) or conv.results[0].type != op.results[0].type:
            discard(new)
            return
        replace_chain(rewriter, new, op, conv.results[0], [op, *(o for o in (dequant, op.weight.owner) if isinstance(o, relay.DequantizeOp))])


@dataclass(frozen=True)
class UnstrideConvs(ModulePass):
    """Convolutions no target takes (strided beyond its strides, or a kernel too large;
    kernel a multiple of the stride) become stride-1 convolutions on the space-to-depth
    image."""

    name = "unstride-convs"

    target: tuple[str, ...] = ()
    """Targets whose convolution entries decide (default: --target)."""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        apply_conv_rewrite(ctx, op, self.target, self.name, UnstrideConv)
