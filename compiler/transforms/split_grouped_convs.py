"""split-grouped-convs: a grouped convolution that no target runs, but one would run one
group at a time, becomes a convolution per group on its channel slice, concatenated.

Runs in `byoc`, after undilate-convs and before merge-composite. A convolution with g
groups (1 < g < input channels: not depthwise; ResNeXt's and RegNet's 3x3 layers,
AlexNet's g = 2) computes output channels [k*O/g, (k+1)*O/g) from input channels
[k*C/g, (k+1)*C/g) with weight rows [k*O/g, (k+1)*O/g): the same products, group by
group, so each group's convolution (groups = 1) gives its channels bit for bit. The
slices of the data are channel ranges (a copy on the device of a target that runs
`relay.strided_slice`, or a view); the results are concatenated along the channels,
which a target that copies on its device assembles by having each convolution write its
slice.

The epilogue that reads only the result (a channel `bias_add` with a constant bias,
elementwise activations, a per-tensor `quantize`) is split with it, so that every group
is a target's conv pattern (conv + bias + activation, or its QDQ form: a per-tensor
`dequantize` of the data is taken after the slice, a per-channel one of the weight or
bias sliced with it).

Rewritten only when no target's convolution entry (single op or pattern) takes the
grouping and a convolution of one group passes an entry's limits: the host runs grouped
convolutions itself.

Before (`byoc{target=npu}`; the npu takes one group or depthwise):

    %y = relay.nn.conv2d %x, %w {padding = [1, 1, 1, 1], groups = 2} : (tensor<1x8x8x8xf32>, tensor<8x4x3x3xf32>) -> tensor<1x8x8x8xf32>
    %r = relay.nn.relu %y : tensor<1x8x8x8xf32>

After:

    %0 = relay.strided_slice %x {begin = [0], end = [4], axes = [1]} : ... -> tensor<1x4x8x8xf32>
    %1 = relay.constant ... : tensor<4x4x3x3xf32>                     // weight rows 0..3
    %2 = relay.nn.conv2d %0, %1 {padding = [1, 1, 1, 1]} : ... -> tensor<1x4x8x8xf32>
    %3 = relay.nn.relu %2 : tensor<1x4x8x8xf32>
    %4 = relay.strided_slice %x {begin = [4], end = [8], axes = [1]} : ... -> tensor<1x4x8x8xf32>
    %5 = relay.constant ... : tensor<4x4x3x3xf32>                     // weight rows 4..7
    %6 = relay.nn.conv2d %4, %5 {padding = [1, 1, 1, 1]} : ... -> tensor<1x4x8x8xf32>
    %7 = relay.nn.relu %6 : tensor<1x4x8x8xf32>
    %r = relay.concatenate %3, %7 {axis = 1} : ... -> tensor<1x8x8x8xf32>
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import PatternRewriter

from accel.compiler.byoc_rewrites import (ConvRewrite, accepts_with, apply_conv_rewrite, dequantized, epilogue, keep_attributes, rebuilt_on, replace_chain, takes)
from accel.compiler.targets.support import groups_kind
from accel.compiler.tensors import inline_constant, known_value, per_tensor
from accel.compiler.transforms.undilate_column_convs import moves_before_reshape
from accel.dialects import relay
from accel.dialects.relay import shape_of


def _per_row(p: SSAValue, rows: int) -> bool:
    """Whether a quantization parameter has one value per row (else one in all)."""
    return math.prod(shape_of(p.type)) == rows and rows > 1


def sliceable(v: SSAValue) -> bool:
    """Whether `constant_rows` can slice `v`: a constant, or a dequantize along axis 0 of
    one with constant parameters, one per row or one in all."""
    if known_value(v) is not None:
        return True
    dq = v.owner
    if not isinstance(dq, relay.DequantizeOp) or known_value(dq.data) is None:
        return False
    rows = shape_of(dq.data.type)[0]
    return all(known_value(p) is not None and (math.prod(shape_of(p.type)) == 1 or
                                               (_per_row(p, rows) and dq.py_props()["axis"] % len(shape_of(dq.data.type)) == 0))
               for p in (dq.scale, dq.zero_point))


def constant_rows(v: SSAValue, rows: int, lo: int, new: list[Operation]) -> SSAValue:
    """Rows [lo, lo + rows) of a `sliceable` value (a weight or a bias)."""
    value = known_value(v)
    if value is not None:
        part = inline_constant(value[lo:lo + rows])
        new.append(part)
        return part.result
    dq = v.owner
    total = shape_of(dq.data.type)[0]
    data = constant_rows(dq.data, rows, lo, new)
    params = [constant_rows(p, rows, lo, new) if _per_row(p, total) else p for p in (dq.scale, dq.zero_point)]
    sliced = relay.DequantizeOp(data, *params, axis=dq.py_props()["axis"])
    new.append(sliced)
    return sliced.result


def channel_slice(v: SSAValue, lo: int, hi: int, new: list[Operation]) -> SSAValue:
    part = relay.StridedSliceOp(v, begin=[lo], end=[hi], axes=[1])
    new.append(part)
    return part.result


def splits_with(user: Operation, value: SSAValue) -> bool:
    """Whether `user` of a grouped conv's result `value` can be split with it: a channel
    bias whose rows can be sliced, or an elementwise activation."""
    if isinstance(user, relay.BiasAddOp):
        return moves_before_reshape(user, value) and sliceable(user.bias)
    return moves_before_reshape(user, value)


def splittable(op: Operation) -> bool:
    """Whether the rewrite below can split a grouped conv group by group (its weight, and
    a QNN conv's quantization parameters, constants it can slice)."""
    return groups_kind(op)[0] == "grouped" and sliceable(op.weight) and \
        (not isinstance(op, relay.QnnConv2DOp) or all(known_value(v) is not None for v in op.operands[2:]))


class SplitGroupedConv(ConvRewrite):
    def rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if not splittable(op) or takes(self.limits, op) or not accepts_with(op, self.limits, groups=1):
            return
        g = op.prop("groups")
        c = shape_of(op.data.type)[1] // g
        o = shape_of(op.weight.type)[0] // g
        chain = epilogue(op, splits_with)
        dequant = op.data.owner if per_tensor(op.data.owner, relay.DequantizeOp) else None
        data = dequant.data if dequant is not None else op.data

        new: list[Operation] = []
        parts = []
        for k in range(g):
            x = dequantized(channel_slice(data, k * c, (k + 1) * c, new), dequant, new)
            operands = [x, constant_rows(op.weight, o, k * o, new), *op.operands[2:]]
            if isinstance(op, relay.QnnConv2DOp):  # a per-channel kernel scale / zero point
                for i in (3, 5):
                    if _per_row(operands[i], g * o):
                        operands[i] = constant_rows(operands[i], o, k * o, new)
            conv = type(op)(*operands, **{**op.py_props(), "groups": 1})
            keep_attributes(conv, op)
            new.append(conv)
            value = conv.results[0]
            for user in chain:
                moved = rebuilt_on(user, value)
                if isinstance(user, relay.BiasAddOp):
                    moved.operands = [value, constant_rows(user.bias, o, k * o, new)]
                new.append(moved)
                value = moved.results[0]
            parts.append(value)
        joined = relay.ConcatenateOp(*parts, axis=1)
        new.append(joined)
        last = chain[-1] if chain else op
        # The old chain, then what only it read: the data's dequantize, the weight's and
        # the bias's (erase_dead keeps what is still used).
        read = [v.owner for v in (op.weight, *(u.bias for u in chain if isinstance(u, relay.BiasAddOp)))]
        replace_chain(rewriter, new, last, joined.result, [*reversed(chain), op, *([dequant] if dequant is not None else []),
                              *(o for o in read if isinstance(o, relay.DequantizeOp))])


@dataclass(frozen=True)
class SplitGroupedConvs(ModulePass):
    """Grouped convolutions no target takes become one convolution per group, concatenated."""

    name = "split-grouped-convs"

    target: tuple[str, ...] = ()
    """Targets whose convolution entries decide (default: --target)."""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        apply_conv_rewrite(ctx, op, self.target, self.name, SplitGroupedConv)
