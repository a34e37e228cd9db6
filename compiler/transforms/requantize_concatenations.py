"""requantize-concatenations: a QDQ model's concatenation of int8 tensors of different
scales concatenates int8 data, each input requantized to the output's scale first.

Runs in `byoc`, after softmax-last-axis and before trailing-broadcasts.
onnxruntime's `quantize_static` gives every tensor a scale of its own, so a Concat of a
QDQ model (a YOLO neck, a C2f block, a DenseNet layer) is

    quantize(concatenate(dequantize(x_1, s_1, z_1), ..., dequantize(x_n, s_n, z_n)), s, z)

a float concatenation that a target copies as four times the bytes, or runs on the host
between two regions. A quantize acts on each element alone, so it commutes with the
concatenation: the same is

    concatenate(requantize(x_1, s_1, z_1, s, z), ..., requantize(x_n, s_n, z_n, s, z))

exactly (`relay.qnn.requantize` is dequantize then quantize, in f32, by definition), and
an input already in the output's quantization is taken as it is (the requantize is the
identity). Rewritten when every input is a per-tensor dequantize, the quantize (per
tensor) is the concatenation's only reader, no manual `accel.target` is on it, and one
target runs every op it becomes (`annotate_target.runs_alone`: the npu's int8
elementwise command requantizes, its device copies concatenate).

Before (`byoc{target=npu}`):

    %a = relay.qnn.dequantize %x, %sx, %zx : (tensor<1x4x8x8xi8>, tensor<f32>, tensor<i8>) -> tensor<1x4x8x8xf32>
    %b = relay.qnn.dequantize %w, %s, %z : (tensor<1x4x8x8xi8>, tensor<f32>, tensor<i8>) -> tensor<1x4x8x8xf32>
    %c = relay.concatenate %a, %b {axis = 1} : (tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>) -> tensor<1x8x8x8xf32>
    %y = relay.qnn.quantize %c, %s, %z : (tensor<1x8x8x8xf32>, tensor<f32>, tensor<i8>) -> tensor<1x8x8x8xi8>

After:

    %0 = relay.qnn.requantize %x, %sx, %zx, %s, %z : (...) -> tensor<1x4x8x8xi8>
    %y = relay.concatenate %0, %w {axis = 1} : (tensor<1x4x8x8xi8>, tensor<1x4x8x8xi8>) -> tensor<1x8x8x8xi8>
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import PatternRewriter

from accel.compiler.byoc_rewrites import TargetsRewrite, discard, replace_chain, rewrite_each
from accel.compiler.targets import target_context
from accel.compiler.tensors import per_tensor, same_value
from accel.compiler.transforms.annotate_target import one_target_runs
from accel.dialects import relay
from accel.dialects.conventions import TARGET_ATTR


def requantized(dequant: relay.DequantizeOp, quant: relay.QuantizeOp, new: list[Operation]) -> SSAValue:
    """The int8 data of `dequant` in the quantization of `quant`: the data itself when
    both say the same, else a requantize of it (appended to `new`)."""
    data = dequant.data
    if (data.type.element_type == quant.results[0].type.element_type and same_value(dequant.scale, quant.scale)
            and same_value(dequant.zero_point, quant.zero_point)):
        return data
    op = relay.RequantizeOp(data, dequant.scale, dequant.zero_point, quant.scale, quant.zero_point)
    new.append(op)
    return op.result


class RequantizeConcatenation(TargetsRewrite):
    def match_and_rewrite(self, op: relay.ConcatenateOp, rewriter: PatternRewriter) -> None:
        result = op.results[0]
        if TARGET_ATTR in op.attributes or not result.has_one_use():
            return
        quant = result.first_use.operation
        dequants = [v.owner for v in op.operands]
        if not (per_tensor(quant, relay.QuantizeOp) and all(per_tensor(d, relay.DequantizeOp) for d in dequants)):
            return
        new: list[Operation] = []
        inputs = [requantized(d, quant, new) for d in dequants]
        joined = relay.ConcatenateOp(*inputs, axis=op.prop("axis"))
        new.append(joined)
        for o in new:
            o.location = op.location
        if one_target_runs(new, self.targets):
            replace_chain(rewriter, new, quant, joined.result, [quant, op, *dict.fromkeys(dequants)])
        else:
            discard(new)


@dataclass(frozen=True)
class RequantizeConcatenations(ModulePass):
    """A QDQ concatenation of int8 tensors concatenates int8 data, each input requantized
    to the output's quantization."""

    name = "requantize-concatenations"

    target: tuple[str, ...] = ()
    """Targets that decide (default: --target)."""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        targets = tuple(target_context(ctx).resolve(self.target, self.name))
        if targets:
            rewrite_each(op, RequantizeConcatenation(targets), (relay.ConcatenateOp,))
