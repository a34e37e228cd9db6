"""undilate-column-convs: a convolution one column wide and dilated along its rows is the
same convolution without dilation on the image whose row phases stand side by side.

Runs in `canonicalize`, after fold-explicit-padding (a causal pad is the conv's padding
then) and before propagate-qdq. WaveNet's and TCNs' dilated `Conv1d`s import as 2-D
convolutions of a [N, C, L, 1] column with dilation d (accelerators' convolutions often
take none: the npu's do not). Such a kernel, kh x 1, reads rows y, y + d, ..., all of one
phase y mod d. Reshaped to [N, C, H/d, d * W] (free: the same bytes), row i * d + p of
the image is row i of columns p * W ... p * W + W - 1, so an undilated kh x 1 kernel
there reads exactly the dilated taps, and the result reshaped back is the original
result, bit for bit (the same products summed in the same order). Rewritten when:

- the kernel is one column wide (kw = 1: then the dilation and stride along W do not
  matter when W = 1, else the stride along W must be 1), d = dilation along H > 1,
  stride 1 along H;
- H and the top and bottom padding are multiples of d (the padded rows of each phase are
  then padding rows of the phase image) and there is no padding along W.

A `bias_add` on the channels and elementwise activations reading only the result move
before the reshape back, so that they stay next to the convolution (a target's conv
patterns take them; a lone `bias_add` is not an op the npu runs). Integer convolutions
(`relay.qnn.conv2d`) are rewritten the same way.

Before (a causal Conv1d with dilation 4, imported as a column):

    %y = relay.nn.conv2d %x, %w {padding = [4, 0, 0, 0], dilation = [4, 4]} : (tensor<1x16x64x1xf32>, tensor<16x16x2x1xf32>) -> tensor<1x16x64x1xf32>
    %z = relay.nn.bias_add %y, %b : (tensor<1x16x64x1xf32>, tensor<16xf32>) -> tensor<1x16x64x1xf32>

After:

    %0 = relay.reshape %x {newshape = [1, 16, 16, 4]} : (tensor<1x16x64x1xf32>) -> tensor<1x16x16x4xf32>
    %1 = relay.nn.conv2d %0, %w {padding = [1, 0, 0, 0]} : (tensor<1x16x16x4xf32>, tensor<16x16x2x1xf32>) -> tensor<1x16x16x4xf32>
    %2 = relay.nn.bias_add %1, %b : (tensor<1x16x16x4xf32>, tensor<16xf32>) -> tensor<1x16x16x4xf32>
    %z = relay.reshape %2 {newshape = [1, 16, 64, 1]} : (tensor<1x16x16x4xf32>) -> tensor<1x16x64x1xf32>
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern
from xdsl.rewriter import InsertPoint

from accel.compiler.byoc_rewrites import rebuilt_on
from accel.compiler.pattern_walk import rewrite_module
from accel.compiler.transforms.canonicalize_linear import ELEMENTWISE
from accel.dialects import relay
from accel.dialects.relay import shape_of


def phase_props(op: relay.Conv2DOp | relay.QnnConv2DOp) -> dict | None:
    """The undilated conv's properties on the phase image, or None when `op` is not a
    one-column conv dilated along rows that the phases can carry (see the module)."""
    _, _, h, w = shape_of(op.data.type)
    kh, kw = shape_of(op.weight.type)[2:]
    props = op.py_props()
    d = props["dilation"][0]
    (sh, sw), (top, left, bottom, right) = props["strides"], props["padding"]
    if kw != 1 or d == 1 or sh != 1 or left or right or h % d or top % d or bottom % d:
        return None
    if sw != 1 and w != 1:
        return None
    return {**props, "strides": [1, 1], "dilation": [1, 1], "padding": [top // d, 0, bottom // d, 0]}


def moves_before_reshape(user: Operation, value) -> bool:
    """Whether `user` of `value` (the conv's result, [N, C, H, W]) is a channel bias or an
    elementwise activation, which act the same on the phase image."""
    if isinstance(user, relay.BiasAddOp):
        return user.data is value and user.prop("axis") % 4 == 1
    return isinstance(user, ELEMENTWISE)


class UndilateColumnConv(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: relay.Conv2DOp | relay.QnnConv2DOp, rewriter: PatternRewriter) -> None:
        props = phase_props(op)
        if props is None:
            return
        n, c, h, w = shape_of(op.data.type)
        d = op.py_props()["dilation"][0]
        phases = relay.ReshapeOp(op.data, newshape=[n, c, h // d, d * w])
        conv = type(op)(phases.result, *op.operands[1:], **props)
        conv.location = op.location
        new: list[Operation] = [phases, conv]
        value, last = conv.results[0], op
        # The epilogue reading only the result comes along (each op rebuilt on the phases).
        while last.results[0].has_one_use():
            user = last.results[0].first_use.operation
            if not moves_before_reshape(user, last.results[0]):
                break
            moved = rebuilt_on(user, value)
            new.append(moved)
            value, last = moved.results[0], user
        back = relay.ReshapeOp(value, newshape=list(shape_of(last.results[0].type)))
        back.result.name_hint = last.results[0].name_hint
        new.append(back)
        rewriter.insert_op(new, InsertPoint.before(last))
        rewriter.replace_all_uses_with(last.results[0], back.result)
        # The old chain, from its end (each op's only user is the next one).
        chain = [op]
        while chain[-1] is not last:
            chain.append(chain[-1].results[0].first_use.operation)
        for old in reversed(chain):
            rewriter.erase_op(old)


@dataclass(frozen=True)
class UndilateColumnConvs(ModulePass):
    """One-column convolutions dilated along rows become undilated ones on the row phases."""

    name = "undilate-column-convs"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        rewrite_module(op, UndilateColumnConv(), apply_recursively=False)
