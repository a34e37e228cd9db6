"""unstride-convs: a convolution no target takes (strided more than any target takes, or
with a kernel larger than any takes) becomes a stride-1 convolution on the image's
space-to-depth (a kernel s times smaller), or, grouped, a stride-1 convolution subsampled.

Runs in `byoc`, after split-grouped-convs and before merge-composite. The patch
embeddings of vision transformers (a 16x16 kernel with stride 16) and ConvNeXt's stem (4x4,
stride 4) are such convolutions; the npu takes strides 1 and 2. With stride s and kernel
m*s (one group, no dilation), output pixel (i, j) reads input rows i*s .. i*s + m*s - 1: on
X[n, (u*s + v)*C + c, i, j] = x[n, c, i*s + u, j*s + v] (reshape [N, C, H/s, s, W/s, s],
transpose [0, 3, 5, 1, 2, 4], reshape [N, s*s*C, H/s, W/s]: for one image a copy of rank
4, which the npu makes on its device) the same products are an m x m convolution with
stride 1 and weight W'[o, (u*s + v)*C + c, p, q] = w[o, c, p*s + u, q*s + v] (rearranged at
compile time). The output is the original one: nothing to put back.

Each axis has its own stride (sh, sw): PP-OCR's and CRNNs' (2, 1) convolutions take the
space-to-depth along the rows only. An axis along which the output has one position
never applies its stride (an STFT's hop of 128 over a single column): it counts as 1, its
rows cut to those the output reads. A kernel that is not a multiple of the stride is
extended at its end by zero taps (an int8 weight's: its zero point), to at most
`MAX_EXTENSION` times its taps, which read as many more padded rows (a 3x3 kernel at
stride (2, 1) is a 2x3 one on twice the channels). A grouped convolution (PP-OCR's
depthwise ones at stride (2, 1)), whose space-to-depth would mix its groups, is computed at
stride 1 and its output rows and columns picked every sh and sw by a strided slice (a
copy on the device; `byoc_rewrites.MAX_SUBSAMPLE` times the products at most), a
`bias_add` reading it taken before the slice so that the conv and its bias still match a
pattern.

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

from accel.compiler.byoc_rewrites import (MAX_SUBSAMPLE, ConvRewrite, apply_conv_rewrite, data_source, dequantized,
                                          discard, effective_strides, keep_attributes, padded, replace_chain,
                                          subsample, takes)
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


def space_to_depth(v: SSAValue, sh: int, sw: int, new: list[Operation]) -> SSAValue:
    """[N, C, H, W] (H a multiple of sh, W of sw) as [N, sh*sw*C, H/sh, W/sw], channel
    (u*sw + v)*C + c holding pixel (u, v) of each sh x sw patch of channel c (pixel-major:
    for one image the transpose is a copy of rank 4, which the npu makes on its device)."""
    n, c, h, w = shape_of(v.type)
    split = relay.ReshapeOp(v, newshape=[n, c, h // sh, sh, w // sw, sw])
    moved = relay.TransposeOp(split.result, axes=[0, 3, 5, 1, 2, 4])
    stacked = relay.ReshapeOp(moved.result, newshape=[n, sh * sw * c, h // sh, w // sw])
    new += [split, moved, stacked]
    return stacked.result


def rearranged(w: np.ndarray, sh: int, sw: int, fill: np.ndarray | float = 0) -> np.ndarray:
    """The weight [O, C, kh, kw] of the strided conv as the stride-1 conv's
    [O, sh*sw*C, ceil(kh/sh), ceil(kw/sw)] (the channel order of `space_to_depth`); a
    kernel that is not a multiple of the stride is extended at its end by taps of `fill`
    (the weight's zero: 0, or an int8 weight's zero point per output channel), which read
    the padding the caller adds after the data."""
    o, c, kh, kw = w.shape
    eh, ew = -kh % sh, -kw % sw
    if eh or ew:
        full = np.empty((o, c, kh + eh, kw + ew), w.dtype)
        full[...] = np.reshape(fill, (-1, 1, 1, 1)) if np.ndim(fill) else fill
        full[:, :, :kh, :kw] = w
        w, kh, kw = full, kh + eh, kw + ew
    return np.ascontiguousarray(
        w.reshape(o, c, kh // sh, sh, kw // sw, sw).transpose(0, 3, 5, 1, 2, 4).reshape(o, sh * sw * c, kh // sh,
                                                                                        kw // sw))


def new_weight(op: Operation, sh: int, sw: int, new: list[Operation]) -> SSAValue | None:
    """The rearranged weight of conv `op`: of a constant (an int8 conv's taps added as its
    kernel zero point), or under a dequantize of one along the output channels (or per
    tensor); None otherwise."""
    weight = op.weight
    value = known_value(weight)
    if value is not None:
        fill: np.ndarray | float = 0
        if isinstance(op, relay.QnnConv2DOp):
            zero = known_value(op.kernel_zero_point)
            if zero is None:
                return None
            fill = zero.reshape(-1) if zero.size > 1 else zero.reshape(-1)[0]
        const = inline_constant(rearranged(value, sh, sw, fill))
        new.append(const)
        return const.result
    dq = weight.owner
    if isinstance(dq, relay.DequantizeOp) and known_value(dq.data) is not None:
        axis = dq.py_props()["axis"] % 4
        zero = known_value(dq.zero_point)
        per_tensor = all(known_value(p) is not None and np.size(known_value(p)) == 1 for p in (dq.scale, dq.zero_point))
        if zero is not None and (axis == 0 or per_tensor):
            const = inline_constant(rearranged(known_value(dq.data), sh, sw, zero.reshape(-1) if zero.size > 1
                                               else zero.reshape(-1)[0]))
            moved = relay.DequantizeOp(const.result, dq.scale, dq.zero_point, axis=dq.py_props()["axis"])
            new += [const, moved]
            return moved.result
    return None


MAX_EXTENSION = 2
"""A kernel that is not a multiple of the stride is extended by zero taps to at most this
many times its taps (a 3x3 kernel at stride (2, 1): 4x3; not a 1x1 kernel at stride 3)."""


def _axis(size: int, s: int, stride: int, k: int, before: int, after: int) -> AxisSpace | None:
    """`axis_space` of one axis of the conv for the space-to-depth by `s` (its effective
    stride). A kernel extended to a multiple of `s` reads as many more padded rows after
    the data, with zero taps: the same output rows. An axis with one output position
    (effective stride 1, `stride` more) keeps only the rows that output reads, so that
    the stride-1 convolution has one output there too."""
    if s == 1 and stride > 1:
        read = k - before  # data rows and padding after them that the one output reads
        if read <= 0:
            return None
        size, after = min(size, read), max(0, read - size)
    return axis_space(size, s, before, after + -k % s)


def unstrided(op: Operation, sh: int, sw: int, source: tuple) -> list[Operation] | None:
    """The ops computing `op` (one group, no dilation) as a stride-1 convolution on the
    space-to-depth image (the last op), or None where the data's rows allow none;
    `source` is `data_source(op)`."""
    props = op.py_props()
    kh, kw = shape_of(op.weight.type)[2:]
    if (kh + -kh % sh) * (kw + -kw % sw) > MAX_EXTENSION * kh * kw:
        return None
    h, w = shape_of(op.data.type)[2:]
    top, left, bottom, right = props["padding"]
    rows = _axis(h, sh, props["strides"][0], kh, top, bottom)
    cols = _axis(w, sw, props["strides"][1], kw, left, right)
    if rows is None or cols is None:
        return None
    data, dequant, zero = source
    new: list[Operation] = []
    weight = new_weight(op, sh, sw, new)
    if weight is None:
        discard(new)
        return None
    if rows.keep < h or cols.keep < w:
        crop = relay.StridedSliceOp(data, begin=[0, 0], end=[rows.keep, cols.keep], axes=[2, 3])
        new.append(crop)
        data = crop.result
    data = padded(data, 2, rows.pad_before, rows.pad, zero, new)
    data = padded(data, 3, cols.pad_before, cols.pad, zero, new)
    data = dequantized(space_to_depth(data, sh, sw, new), dequant, new)
    conv = type(op)(data, weight, *op.operands[2:], **{
        **props, "strides": [1, 1],
        "padding": [rows.conv_before, cols.conv_before, rows.conv_after, cols.conv_after]})
    keep_attributes(conv, op)
    new.append(conv)
    for o in new:
        o.location = op.location
    return new


def subsampled(op: Operation, sh: int, sw: int, bias: Operation | None) -> list[Operation]:
    """The ops computing `op` as a stride-1 convolution whose output rows and columns are
    then picked every sh and sw (a strided slice, a copy on the device): sh * sw times its
    products, for grouped convolutions (a depthwise one's space-to-depth would mix its
    groups). `bias`, a `bias_add` that is the conv's only reader, is taken before the
    slice (so that the conv and its bias still match the targets' patterns)."""
    props = op.py_props()
    oh, ow = shape_of(op.results[0].type)[2:]
    conv = type(op)(*op.operands, **{**props, "strides": [1, 1]})
    conv.location = op.location
    keep_attributes(conv, op)
    new: list[Operation] = [conv]
    value = conv.results[0]
    if bias is not None:
        moved = relay.BiasAddOp(value, bias.bias, **bias.py_props())
        moved.location = bias.location
        new.append(moved)
        value = moved.result
    pick = subsample(value, oh, ow, sh, sw)
    pick.location = op.location
    new.append(pick)
    return new


def _only_bias(op: Operation) -> Operation | None:
    """The `bias_add` that is `op`'s only reader, if so."""
    uses = [u.operation for u in op.results[0].uses]
    if len(uses) == 1 and isinstance(uses[0], relay.BiasAddOp) and uses[0].data is op.results[0]:
        return uses[0]
    return None


class UnstrideConv(ConvRewrite):
    def rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        props = op.py_props()
        sh, sw = effective_strides(op)
        # (a stride a target takes counts too: the kernel may be what it refuses, and the
        # stride-1 kernel is s times smaller)
        if (sh, sw) == (1, 1) or tuple(props["dilation"]) != (1, 1) or takes(self.limits, op):
            return
        source = data_source(op)
        if source is None:
            return
        bias = None
        if props["groups"] == 1:
            new = unstrided(op, sh, sw, source)
            if new is None:
                return
            conv, replaced = new[-1], op
        else:
            if sh * sw > MAX_SUBSAMPLE:
                return
            bias = _only_bias(op)
            new = subsampled(op, sh, sw, bias)
            conv, replaced = new[0], bias or op
        if not takes(self.limits, conv) or new[-1].results[0].type != replaced.results[0].type:
            discard(new)
            return
        dequantizes = (o for o in (source[1], op.weight.owner) if isinstance(o, relay.DequantizeOp))
        replace_chain(rewriter, new, replaced, new[-1].results[0], [*([bias] if bias else []), op, *dequantizes])


@dataclass(frozen=True)
class UnstrideConvs(ModulePass):
    """Convolutions no target takes (strided beyond its strides, or a kernel too large)
    become stride-1 convolutions on the space-to-depth image (by each axis' stride), or,
    grouped, stride-1 convolutions subsampled by a strided slice."""

    name = "unstride-convs"

    target: tuple[str, ...] = ()
    """Targets whose convolution entries decide (default: --target)."""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        apply_conv_rewrite(ctx, op, self.target, self.name, UnstrideConv)
