"""undilate-convs: a dilated convolution that no target runs, but one would run without
dilation, becomes that convolution on the image's phases stacked along the batch
(space-to-batch, as TensorFlow lowers its atrous convolutions).

Runs in `byoc`, after split-tall-kernels and before merge-composite. With dilation d
along both axes and stride 1, output pixel (d*i + p, d*j + q) reads only input pixels
of the same phase (p, q) of the padded image, d apart: on the phase image
X[n*d*d + p*d + q, c, i, j] = x[n, c, d*i + p, d*j + q] the same kernel undilated
computes every phase's outputs. The phase image is a layout change each way (reshape
[N, C, H/d, d, W/d, d], transpose [0, 3, 5, 1, 2, 4], reshape [N*d*d, C, H/d, W/d]; the
inverse after the convolution), which a target that copies on its device (the npu's
transposes) runs as one copy: the dilated layers of a DeepLab-style network offload. The
products are the same; a float sum may be taken in another order (within rounding), an
integer one is exact.

Padding: the convolution's padding is taken in whole phases (padding // d) where it can
be; what is left (padding % d on top and left, and the rows and columns that make the
image whole phases below and right) is added first, as constant blocks concatenated to
the image (its zero point for int8 data: the real zero), and output rows and columns past
the original result are cropped after the layout back.

The epilogue that reads only the result (a channel `bias_add`, elementwise activations,
a per-tensor `quantize`) moves into the phase form, and a per-tensor `dequantize` that
feeds the data moves out of it, so that the layout changes run on int8 data and the
targets' QDQ convolution patterns still match.

Rewritten only when no target's convolution entry (single op or pattern) accepts the
dilation and the undilated convolution passes an entry's limits (kernel, channels,
groups), or would group by group (a grouped convolution, dilated in a ResNeXt backbone's
later stages: split-grouped-convs, the next step, splits the undilated one): the host
runs dilated convolutions itself, and the layout copies would only cost it time.

Before (`byoc{target=npu}`; the npu takes no dilation):

    %y = relay.nn.conv2d %x, %w {padding = [2, 2, 2, 2], dilation = [2, 2]} : (tensor<1x8x16x16xf32>, tensor<8x8x3x3xf32>) -> tensor<1x8x16x16xf32>
    %r = relay.nn.relu %y : tensor<1x8x16x16xf32>

After:

    %0 = relay.reshape %x {newshape = [1, 8, 8, 2, 8, 2]} : ... -> tensor<1x8x8x2x8x2xf32>
    %1 = relay.transpose %0 {axes = [0, 3, 5, 1, 2, 4]} : ... -> tensor<1x2x2x8x8x8xf32>
    %2 = relay.reshape %1 {newshape = [4, 8, 8, 8]} : ... -> tensor<4x8x8x8xf32>
    %3 = relay.nn.conv2d %2, %w {padding = [1, 1, 1, 1]} : (tensor<4x8x8x8xf32>, tensor<8x8x3x3xf32>) -> tensor<4x8x8x8xf32>
    %4 = relay.nn.relu %3 : tensor<4x8x8x8xf32>
    %5 = relay.reshape %4 {newshape = [1, 2, 2, 8, 8, 8]} : ... -> tensor<1x2x2x8x8x8xf32>
    %6 = relay.transpose %5 {axes = [0, 3, 4, 1, 5, 2]} : ... -> tensor<1x8x8x2x8x2xf32>
    %r = relay.reshape %6 {newshape = [1, 8, 16, 16]} : ... -> tensor<1x8x16x16xf32>
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import PatternRewriter

from accel.compiler.byoc_rewrites import (ConvRewrite, accepts_with, apply_conv_rewrite, data_source, dequantized,
                                          epilogue, keep_attributes, padded, rebuilt_on, replace_chain, takes)
from accel.compiler.transforms.split_grouped_convs import splittable
from accel.compiler.transforms.undilate_column_convs import moves_before_reshape
from accel.dialects import relay
from accel.dialects.relay import shape_of


class AxisPhases(NamedTuple):
    """How one spatial axis of size `size` is split into phases (see the module)."""

    pad_before: int
    """Added before the layout change (the convolution's padding % d)."""
    pad_after: int
    """Added at the end (so that the image is whole phases)."""
    conv_before: int
    """The undilated convolution's padding, in phase rows (the rest // d)."""
    conv_after: int
    crop: int
    """Output rows past the original result, cropped after the layout back."""


def axis_phases(size: int, kernel: int, d: int, before: int, after: int) -> AxisPhases:
    """The phases of one axis: the padded length is made a multiple of d by `crop` rows
    at the end; the explicit padding makes the image itself whole phases starting at a
    phase boundary of the padded image (before - before % d is a multiple of d)."""
    crop = -(size + before + after) % d
    pad_before = before % d
    pad_after = -(size + pad_before) % d
    # after + crop - pad_after is a multiple of d, and >= 0 (pad_after is it mod d).
    return AxisPhases(pad_before, pad_after, before // d, (after + crop - pad_after) // d, crop)


# --------------------------------------------------------------------------------------
# The rewrite
# --------------------------------------------------------------------------------------


def to_phases(v: SSAValue, d: int, new: list[Operation]) -> SSAValue:
    """[N, C, H, W] (H, W multiples of d) as its phase image [N*d*d, C, H/d, W/d]."""
    n, c, h, w = shape_of(v.type)
    split = relay.ReshapeOp(v, newshape=[n, c, h // d, d, w // d, d])
    moved = relay.TransposeOp(split.result, axes=[0, 3, 5, 1, 2, 4])
    stacked = relay.ReshapeOp(moved.result, newshape=[n * d * d, c, h // d, w // d])
    new += [split, moved, stacked]
    return stacked.result


def from_phases(v: SSAValue, d: int, new: list[Operation]) -> SSAValue:
    """The inverse of `to_phases`: [N*d*d, C, H', W'] back to [N, C, H'*d, W'*d]."""
    nb, c, h, w = shape_of(v.type)
    n = nb // (d * d)
    split = relay.ReshapeOp(v, newshape=[n, d, d, c, h, w])
    moved = relay.TransposeOp(split.result, axes=[0, 3, 4, 1, 5, 2])
    whole = relay.ReshapeOp(moved.result, newshape=[n, c, h * d, w * d])
    new += [split, moved, whole]
    return whole.result


class UndilateConv(ConvRewrite):
    def rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        props = op.py_props()
        dh, dw = props["dilation"]
        if dh != dw or dh == 1 or tuple(props["strides"]) != (1, 1) or takes(self.limits, op):
            return
        # (a grouped conv a target takes only one group at a time: split-grouped-convs,
        # which runs next, splits the undilated one)
        if not (accepts_with(op, self.limits, dilation=[1, 1]) or
                (splittable(op) and accepts_with(op, self.limits, dilation=[1, 1], groups=1))):
            return
        source = data_source(op)
        if source is None:
            return
        data, dequant, zero = source
        d = dh
        h, w = shape_of(op.data.type)[2:]
        kh, kw = shape_of(op.weight.type)[2:]
        top, left, bottom, right = props["padding"]
        rows, cols = axis_phases(h, kh, d, top, bottom), axis_phases(w, kw, d, left, right)

        new: list[Operation] = []
        data = padded(data, 2, rows.pad_before, rows.pad_after, zero, new)
        data = padded(data, 3, cols.pad_before, cols.pad_after, zero, new)
        data = dequantized(to_phases(data, d, new), dequant, new)
        conv = type(op)(data, *op.operands[1:], **{
            **props, "dilation": [1, 1],
            "padding": [rows.conv_before, cols.conv_before, rows.conv_after, cols.conv_after]})
        keep_attributes(conv, op)
        new.append(conv)
        # The epilogue reading only the result comes along (each op rebuilt on the phases).
        chain = epilogue(op, moves_before_reshape)
        value = conv.results[0]
        for user in chain:
            new.append(rebuilt_on(user, value))
            value = new[-1].results[0]
        value = from_phases(value, d, new)
        if rows.crop or cols.crop:
            out_h, out_w = shape_of(op.results[0].type)[2:]
            crop = relay.StridedSliceOp(value, begin=[0, 0], end=[out_h, out_w], axes=[2, 3])
            new.append(crop)
            value = crop.result
        last = chain[-1] if chain else op
        replace_chain(rewriter, new, last, value, [*reversed(chain), op, *([dequant] if dequant is not None else [])])


@dataclass(frozen=True)
class UndilateConvs(ModulePass):
    """Dilated convolutions no target takes become undilated ones on the phase image."""

    name = "undilate-convs"

    target: tuple[str, ...] = ()
    """Targets whose convolution entries decide (default: --target)."""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        apply_conv_rewrite(ctx, op, self.target, self.name, UndilateConv)
