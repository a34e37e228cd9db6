"""trailing-broadcasts: a binary elementwise op whose operand broadcasts along leading
axes, which no target runs, runs on a transposed layout in which that operand broadcasts
along the trailing axes, as targets' elementwise entries take.

Runs in `byoc`, after requantize-concatenations and before merge-composite. The
squeeze-and-excitation blocks of EfficientNet, MobileNetV3 and SE-ResNets scale each
channel of a feature map by a gate computed from it: `x [N, C, H, W] * g [N, C, 1, 1]`.
The npu's elementwise ops broadcast only a scalar or the result's trailing dims; on the
channels-last layout `[N, H, W, C]` the gate is trailing:

    y = transpose(transpose(x, [0, 2, 3, 1]) * reshape(g, [N, 1, 1, C]), [0, 3, 1, 2])

In general the axes along which the broadcast operand has more than one element move,
in order, to the end (a transpose of the full operand, a copy the npu makes on its
device; the broadcast operand is only reshaped), and the result moves back. The same
values are combined: bit for bit. For subtract and divide the full operand must be the
left one (the targets broadcast their right operand); add and multiply take either.
Rewritten only when no target runs the op and one target runs every op it becomes
(`annotate_target.runs_alone`). A QDQ op (both operands per-tensor dequantizes, the
result read only by a per-tensor quantize: onnxruntime's int8 gate product) moves the
int8 data instead: the transposes and the reshape are of the int8 tensors, the
dequantizes and the quantize stay by the op, where an int8 pattern (the npu's
`qmultiply`) takes them.

Before (`byoc{target=npu}`):

    %y = relay.multiply %x, %g : (tensor<1x8x4x4xf32>, tensor<1x8x1x1xf32>) -> tensor<1x8x4x4xf32>

After:

    %0 = relay.transpose %x {axes = [0, 2, 3, 1]} : (tensor<1x8x4x4xf32>) -> tensor<1x4x4x8xf32>
    %1 = relay.reshape %g {newshape = [8]} : (tensor<1x8x1x1xf32>) -> tensor<8xf32>
    %2 = relay.multiply %0, %1 : (tensor<1x4x4x8xf32>, tensor<8xf32>) -> tensor<1x4x4x8xf32>
    %y = relay.transpose %2 {axes = [0, 3, 1, 2]} : (tensor<1x4x4x8xf32>) -> tensor<1x8x4x4xf32>
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import PatternRewriter

from accel.compiler.byoc_rewrites import TargetsRewrite, dequantized, discard, replace_chain, rewrite_each
from accel.compiler.targets import target_context
from accel.compiler.tensors import inline_constant, known_value, per_tensor
from accel.compiler.transforms.annotate_target import one_target_runs
from accel.dialects import relay
from accel.dialects.relay import shape_of

BINARY = (relay.AddOp, relay.SubtractOp, relay.MultiplyOp, relay.DivideOp)
COMMUTATIVE = (relay.AddOp, relay.MultiplyOp)


def trailing_order(full: tuple[int, ...], part: tuple[int, ...]) -> list[int] | None:
    """The permutation of the result's axes that puts the axes along which `part`
    (broadcast to `full`) has more than one element last, in order; None when they are
    last already or `part` does not broadcast that way."""
    rank = len(full)
    if len(part) > rank:
        return None
    aligned = (1,) * (rank - len(part)) + tuple(part)
    if any(p not in (1, f) for p, f in zip(aligned, full)):
        return None
    kept = [a for a in range(rank) if aligned[a] != 1]
    if not kept or all(a in kept or full[a] == 1 for a in range(kept[0], rank)):
        return None  # a scalar, or trailing already (axes of one element aside)
    return [a for a in range(rank) if aligned[a] == 1] + kept


def reshaped(v: SSAValue, shape: list[int], new: list[Operation]) -> SSAValue:
    """`v` reshaped: a constant folded into a new constant, else a reshape."""
    value = known_value(v)
    op = inline_constant(value.reshape(shape)) if value is not None else relay.ReshapeOp(v, newshape=shape)
    new.append(op)
    return op.results[0]


class TrailingBroadcast(TargetsRewrite):
    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        out = shape_of(op.results[0].type)
        lhs, rhs = op.operands
        if shape_of(lhs.type) == out and shape_of(rhs.type) != out:
            full, part, swapped = lhs, rhs, False
        elif shape_of(rhs.type) == out and shape_of(lhs.type) != out and isinstance(op, COMMUTATIVE):
            full, part, swapped = rhs, lhs, True
        else:
            return
        order = trailing_order(out, shape_of(part.type))
        if order is None or not self.unclaimed(op):
            return
        # A QDQ op (both operands dequantized, the result quantized: an int8 pattern's
        # form) moves its int8 data: the dequantizes and the quantize stay next to it.
        quant = op.results[0].first_use.operation if op.results[0].has_one_use() else None
        qdq = per_tensor(quant, relay.QuantizeOp) and all(per_tensor(v.owner, relay.DequantizeOp) for v in (full, part))
        new: list[Operation] = []
        moved = relay.TransposeOp(full.owner.data if qdq else full, axes=order)
        new.append(moved)
        aligned = (1,) * (len(out) - len(shape_of(part.type))) + tuple(shape_of(part.type))
        part_value = reshaped(part.owner.data if qdq else part, [out[a] for a in order if aligned[a] != 1], new)
        full_value = moved.result
        if qdq:
            full_value, part_value = dequantized(full_value, full.owner, new), dequantized(part_value, part.owner, new)
        operands = (part_value, full_value) if swapped else (full_value, part_value)
        combined = type(op).create(operands=list(operands),
                                   result_types=[relay.tensor([out[a] for a in order], op.results[0].type.element_type)],
                                   properties=dict(op.properties), attributes=dict(op.attributes))
        new.append(combined)
        result, last = combined.results[0], op
        if qdq:
            requant = relay.QuantizeOp(result, quant.scale, quant.zero_point)
            new.append(requant)
            result, last = requant.result, quant
        back = relay.TransposeOp(result, axes=[order.index(a) for a in range(len(out))])
        new.append(back)
        for o in new:
            o.location = op.location
        computed = [o for o in new if not isinstance(o, (relay.ConstantOp, relay.DequantizeOp, relay.QuantizeOp))]
        if one_target_runs(computed, self.targets):
            replace_chain(rewriter, new, last, back.result, [last, op, *dict.fromkeys(v.owner for v in (full, part) if qdq)])
        else:
            discard(new)


@dataclass(frozen=True)
class TrailingBroadcasts(ModulePass):
    """Binary elementwise ops broadcasting along leading axes, which no target runs, run
    transposed so that they broadcast along trailing ones."""

    name = "trailing-broadcasts"

    target: tuple[str, ...] = ()
    """Targets that decide (default: --target)."""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        targets = tuple(target_context(ctx).resolve(self.target, self.name))
        if targets:
            rewrite_each(op, TrailingBroadcast(targets), BINARY)
