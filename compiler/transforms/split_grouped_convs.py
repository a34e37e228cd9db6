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
from xdsl.pattern_rewriter import PatternRewriter, PatternRewriteWalker, RewritePattern
from xdsl.rewriter import InsertPoint

from accel.compiler.targets import target_context
from accel.compiler.targets.schema import Limits
from accel.compiler.targets.support import groups_kind
from accel.compiler.tensors import inline_constant, known_value
from accel.compiler.transforms.fold_constants import erase_dead
from accel.compiler.transforms.undilate_column_convs import moves_before_reshape
from accel.compiler.transforms.undilate_convs import CONV_NAMES, conv_limits, per_tensor, takes
from accel.dialects import relay
from accel.dialects.relay import shape_of, tensor


def one_group_accepted(op: Operation, limits: list[Limits]) -> bool:
    """Whether an entry takes the convolution of one group of `op` (a probe on the same
    operands with one group: the kernel and the strides stay; the channels only shrink)."""
    probe = type(op).create(operands=list(op.operands), result_types=[op.results[0].type],
                            properties={**op.properties, "groups": op.prop_kind("groups").to_attr(1)})
    try:
        return takes(limits, probe)
    finally:
        probe.erase(safe_erase=False)


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


class SplitGroupedConv(RewritePattern):
    def __init__(self, limits: list[Limits]):
        super().__init__()
        self.limits = limits

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if op.name not in CONV_NAMES or groups_kind(op)[0] != "grouped":
            return
        if takes(self.limits, op) or not sliceable(op.weight) or not one_group_accepted(op, self.limits):
            return
        if isinstance(op, relay.QnnConv2DOp) and not all(known_value(v) is not None for v in op.operands[2:]):
            return
        g = op.prop("groups")
        c = shape_of(op.data.type)[1] // g
        o = shape_of(op.weight.type)[0] // g
        # The epilogue that comes along: ops reading only the previous one's result.
        epilogue: list[Operation] = []
        last = op
        while last.results[0].has_one_use():
            user = last.results[0].first_use.operation
            quantize = per_tensor(user, relay.QuantizeOp)
            if isinstance(user, relay.BiasAddOp) and user.data is last.results[0] and \
                    user.prop("axis") % 4 == 1 and sliceable(user.bias):
                pass
            elif not (quantize or (moves_before_reshape(user, last.results[0])
                                   and not isinstance(user, relay.BiasAddOp))):
                break
            epilogue.append(user)
            last = user
            if quantize:
                break
        data, dequant = op.data, op.data.owner
        if not per_tensor(dequant, relay.DequantizeOp):
            dequant = None
        else:
            data = dequant.data

        new: list[Operation] = []
        parts = []
        for k in range(g):
            x = channel_slice(data, k * c, (k + 1) * c, new)
            if dequant is not None:
                dq = relay.DequantizeOp(x, dequant.scale, dequant.zero_point, axis=dequant.py_props()["axis"])
                new.append(dq)
                x = dq.result
            operands = [x, constant_rows(op.weight, o, k * o, new), *op.operands[2:]]
            if isinstance(op, relay.QnnConv2DOp):  # a per-channel kernel scale / zero point
                for i in (3, 5):
                    if _per_row(operands[i], g * o):
                        operands[i] = constant_rows(operands[i], o, k * o, new)
            conv = type(op)(*operands, **{**op.py_props(), "groups": 1})
            conv.location = op.location
            new.append(conv)
            value = conv.results[0]
            for user in epilogue:
                rest = list(user.operands[1:])
                if isinstance(user, relay.BiasAddOp):
                    rest = [constant_rows(user.bias, o, k * o, new)]
                moved = type(user).create(operands=[value, *rest],
                                          result_types=[tensor(shape_of(value.type), user.results[0].type.element_type)],
                                          properties=dict(user.properties), attributes=dict(user.attributes))
                moved.location = user.location
                new.append(moved)
                value = moved.results[0]
            parts.append(value)
        joined = relay.ConcatenateOp(*parts, axis=1)
        new.append(joined)
        joined.result.name_hint = last.results[0].name_hint
        rewriter.insert_op(new, InsertPoint.before(last))
        rewriter.replace_all_uses_with(last.results[0], joined.result)
        # The old chain, then what only it read: the data's dequantize, the weight's and
        # the bias's (erase_dead keeps what is still used).
        read = [v.owner for v in (op.weight, *(u.bias for u in epilogue if isinstance(u, relay.BiasAddOp)))]
        erase_dead(rewriter, [*reversed(epilogue), op, *([dequant] if dequant is not None else []),
                              *(o for o in read if isinstance(o, relay.DequantizeOp))])


@dataclass(frozen=True)
class SplitGroupedConvs(ModulePass):
    """Grouped convolutions no target takes become one convolution per group, concatenated."""

    name = "split-grouped-convs"

    target: tuple[str, ...] = ()
    """Targets whose convolution entries decide (default: --target)."""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        limits = conv_limits(target_context(ctx).resolve(self.target, self.name))
        if limits:
            PatternRewriteWalker(SplitGroupedConv(limits), apply_recursively=False).rewrite_module(op)
