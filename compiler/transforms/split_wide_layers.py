"""split-wide-layers: a float convolution or dense layer with more output (or input)
channels than any target takes becomes layers over slices of its output channels,
concatenated (or over slices of its input channels, summed).

Runs in `byoc`, after unstride-convs and before expand-pixel-shuffles. Classifier heads are
wide: the 512 -> 1280 1x1 convolution of MobileNetV3-style heads (RapidOCR's orientation
model), the character classifiers of text recognizers over their vocabularies (PP-OCRv4's
6,625 classes, PP-OCRv6's 18,710, ddddocr's 8,210), ResNet-50's last stage (1x1 convs
512 -> 2048 and back), where the npu's entries take at most 1,024 (convolutions) and
4,096 (dense) channels.

- Output channels: channel o of the layer reads only row o of its weight, so the layer
  over rows [a, b) computes channels [a, b) exactly, and the concatenation of the slices is
  the layer, bit for bit. A `bias_add` that is the layer's only reader is sliced with it
  (each slice keeps its bias, so that a target's layer+bias pattern still matches).
- Input channels: the layer is the sum of the layers over slices of its input channels
  (the data's channel slice, a copy on the device, and the weight's columns), the bias on
  the last (split-tall-kernels' sum over kernel tiles): the same products added in another
  order, so within float rounding (the tests allow 1e-5 of the output's max).

The n = ceil(channels / limit) slices are of equal size but the last (the largest limit of
the entries that would take the slices); a layer over the limit in both is left alone.
A float layer needs a constant weight. An int8 layer of a QDQ model (its weight the
dequantize of an int8 constant, per tensor or per output channel) is split along its
output channels only, with what it is computed with: its bias (the dequantize of int32
constants, sliced as the weight), its activations and its per-tensor quantize go into each
slice, and the int8 slices are concatenated. A quantize acts on each element alone, so
each slice computes its channels' int8 values exactly (each slice is then an int8 layer
a target's pattern takes: `npu.qconv2d_bias_relu`). Over its input channels, the int8
slices' sums would round to int8 where the layer accumulates in int32: the slices are
float layers instead, on the dequantized data's channel slices with the dequantized
weight's columns (constants: the dequantize evaluated as the reference interpreter runs
it), summed in float, the dequantized bias on the last, then the layer's activations and
quantize as before (float rounding of another order: the quantized result within one
step). Rewritten only when no target runs the layer and one target runs every slice and
the concatenation or sum (`annotate_target.runs_alone`).

An int8 head (`quantize_static`'s QDQ form), 512 -> 1280:

    %wf = relay.qnn.dequantize %wq, %ws, %wz {axis = 0} : (tensor<1280x512x1x1xi8>, tensor<1280xf32>, tensor<1280xi8>) -> ...
    %bf = relay.qnn.dequantize %bq, %bs, %bz {axis = 0} : (tensor<1280xi32>, tensor<1280xf32>, tensor<1280xi32>) -> ...
    %c = relay.nn.conv2d %xf, %wf : (tensor<1x512x1x1xf32>, tensor<1280x512x1x1xf32>) -> tensor<1x1280x1x1xf32>
    %a = relay.nn.bias_add %c, %bf : ...
    %y = relay.qnn.quantize %a, %ys, %yz : (tensor<1x1280x1x1xf32>, tensor<f32>, tensor<i8>) -> tensor<1x1280x1x1xi8>

becomes two slices of 640 channels, each `dequantize(wq[a:b], ws[a:b], wz[a:b])`, conv2d,
bias_add of `dequantize(bq[a:b], ...)`, quantize to `%ys, %yz`, and

    %y = relay.concatenate %q0, %q1 {axis = 1} : (tensor<1x640x1x1xi8>, tensor<1x640x1x1xi8>) -> tensor<1x1280x1x1xi8>

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
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import PatternRewriter

from accel.compiler.byoc_rewrites import (TargetsRewrite, channel_epilogue, discard, int8_weight, keep_attributes,
                                          per_channel_parts, rebuilt_on, replace_chain, rewrite_each, summed_with_bias)
from accel.compiler.runtime.interpreter import OpEvaluator
from accel.compiler.targets import target_context
from accel.compiler.targets.schema import TargetDescription
from accel.compiler.tensors import inline_constant, known_value, per_tensor
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


def _output_slices(op: Operation, weight: np.ndarray, limit: int, axis: int, bias: Operation | None,
                   bias_value: np.ndarray | None) -> tuple[list[Operation], Operation]:
    """The layer over slices of its output channels (each with its bias), concatenated
    along `axis` (the last op)."""
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
    return new, joined


def _input_slices(op: Operation, weight: np.ndarray, limit: int, bias: Operation | None) -> tuple[list[Operation], Operation]:
    """The layer over slices of its input channels (the data's slice, the weight's
    columns), summed (the last op); the bias on the last slice."""
    data = op.operands[0]
    in_axis = 1 if isinstance(op, relay.Conv2DOp) else len(shape_of(data.type)) - 1
    new: list[Operation] = []
    parts = []
    for a, b in channel_slices(weight.shape[1], limit):
        cut = relay.StridedSliceOp(data, begin=[a], end=[b], axes=[in_axis])
        w = inline_constant(np.ascontiguousarray(weight[:, a:b]))
        part = type(op)(cut.result, w.result, **op.py_props())
        keep_attributes(part, op)
        cut.location = op.location
        new += [cut, w, part]
        parts.append(part.results[0])
    summed_with_bias(parts, op, bias, new)
    return new, new[-1]


def _slice_of(v: SSAValue, channels: int, a: int, b: int, new: list[Operation]) -> SSAValue:
    """Channels [a, b) of a constant of `channels` values (one value: `v` itself)."""
    values = known_value(v)
    if values.size == 1:
        return v
    const = inline_constant(np.ascontiguousarray(values.reshape(channels, *values.shape[1:])[a:b]))
    new.append(const)
    return const.result


def _dequantized_slice(dq: relay.DequantizeOp, channels: int, a: int, b: int, new: list[Operation]) -> SSAValue:
    """`dq` of the channels [a, b) of its constant data (its scale and zero point sliced
    where they are per channel)."""
    parts = [_slice_of(v, channels, a, b, new) for v in (dq.data, dq.scale, dq.zero_point)]
    sliced = relay.DequantizeOp(*parts, **dq.py_props())
    sliced.location = dq.location
    new.append(sliced)
    return sliced.result


def _int8_output_slices(op: Operation, dq: relay.DequantizeOp, channels: int, limit: int, axis: int,
                        chain: list[Operation]) -> tuple[list[Operation], Operation]:
    """The int8 layer over slices of its output channels, each with its slice of the
    bias, its activations and its quantize (`chain`), concatenated along `axis` (the
    last op)."""
    new: list[Operation] = []
    parts = []
    for a, b in channel_slices(channels, limit):
        part = type(op)(op.operands[0], _dequantized_slice(dq, channels, a, b, new), **op.py_props())
        keep_attributes(part, op)
        new.append(part)
        value = part.results[0]
        for e in chain:
            if isinstance(e, relay.BiasAddOp):
                bias = per_channel_parts(e.bias, channels)
                if len(bias) == 1:
                    sliced = _slice_of(bias[0], channels, a, b, new)
                else:
                    sliced = _dequantized_slice(e.bias.owner, channels, a, b, new)
                step = relay.BiasAddOp(value, sliced, **e.py_props())
                step.location = e.location
            else:
                step = rebuilt_on(e, value)
            new.append(step)
            value = step.results[0]
        parts.append(value)
    joined = relay.ConcatenateOp(*parts, axis=axis)
    joined.location = chain[-1].location
    new.append(joined)
    return new, joined


def _int8_input_slices(op: Operation, weight: np.ndarray, limit: int, bias: relay.BiasAddOp | None,
                       bias_value: np.ndarray | None) -> tuple[list[Operation], Operation]:
    """The int8 layer over slices of its input channels, in float (`weight`, `bias_value`:
    its dequantized weight and bias), summed (the last op), the bias on the last slice."""
    if bias is None:
        return _input_slices(op, weight, limit, None)
    const = inline_constant(bias_value)
    template = relay.BiasAddOp(op.results[0], const.result, **bias.py_props())  # what summed_with_bias copies
    template.location = bias.location
    new, last = _input_slices(op, weight, limit, template)
    template.erase(safe_erase=False)
    return [const, *new], last


class SplitWideLayer(TargetsRewrite):
    def __init__(self, targets: tuple[TargetDescription, ...]):
        super().__init__(targets)
        self.evaluator: OpEvaluator | None = None  # dequantizes weights and biases (made when first needed)
        self.limits = {layer.name: channel_limits(targets, layer.name) for layer in LAYERS}

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if not isinstance(op, LAYERS) or (isinstance(op, relay.Conv2DOp) and op.prop("groups") != 1):
            return
        limits = self.limits[op.name]
        # (the weight's shape first: a layer within every limit is the common case, and
        # reading a constant's values is not free)
        out, inp = shape_of(op.weight.type)[:2]
        if all(out <= limit and inp <= limit for limit in limits) or not self.unclaimed(op):
            return
        axis = 1 if isinstance(op, relay.Conv2DOp) else len(shape_of(op.results[0].type)) - 1
        weight = known_value(op.weight)
        if weight is None or weight.dtype.kind != "f":
            self.split_int8(op, rewriter, limits, axis)
            return
        bias = _only_bias(op)
        bias_value = known_value(bias.bias) if bias is not None else None
        if bias is not None and (bias_value is None or bias.prop("axis") % len(shape_of(bias.result.type)) != axis):
            bias, bias_value = None, None  # (a bias along another axis, or computed: stays after the layer)
        for limit in limits:
            if out > limit and inp <= limit:
                new, last_new = _output_slices(op, weight, limit, axis, bias, bias_value)
                computed = [o for o in new if isinstance(o, (*LAYERS, relay.ConcatenateOp))]
            elif inp > limit and out <= limit:
                new, last_new = _input_slices(op, weight, limit, bias)
                computed = [o for o in new if isinstance(o, (*LAYERS, relay.StridedSliceOp, relay.AddOp))]
            else:
                continue  # (both: one split at a time leaves the other over the limit)
            if any(all(runs_alone(o, t) for o in computed) for t in self.targets):
                last = bias if bias is not None else op
                replace_chain(rewriter, new, last, last_new.results[0], [last, op] if bias is not None else [op])
                return
            discard(new)

    def split_int8(self, op: Operation, rewriter: PatternRewriter, limits: list[int], axis: int) -> None:
        """An int8 layer (`int8_weight`) over the limit in its output or its input
        channels, its chain ending in a per-tensor quantize: output slices, each
        quantized, or input slices summed in float before the bias (see the module)."""
        found = int8_weight(op)
        if found is None:
            return
        dq, data = found
        out, inp = data.shape[:2]
        chain = channel_epilogue(op.results[0], axis, out)
        if not chain or not per_tensor(chain[-1], relay.QuantizeOp):
            return
        bias = chain[0] if isinstance(chain[0], relay.BiasAddOp) else None
        for limit in limits:
            if out > limit >= inp:
                new, joined = _int8_output_slices(op, dq, out, limit, axis, chain)
                computed = [o for o in new if isinstance(o, (*LAYERS, relay.ConcatenateOp))]
                last, dead = chain[-1], [*reversed(chain), op]
            elif inp > limit >= out:
                bias_value = None if bias is None else self.dequantized(bias.bias)
                new, joined = _int8_input_slices(op, self.dequantized(op.weight), limit, bias, bias_value)
                computed = [o for o in new if isinstance(o, (*LAYERS, relay.StridedSliceOp, relay.AddOp))]
                last, dead = (bias, [bias, op]) if bias is not None else (op, [op])
            else:
                continue
            if any(all(runs_alone(o, t) for o in computed) for t in self.targets):
                read = [dq, *([bias.bias.owner] if bias is not None else [])]
                replace_chain(rewriter, new, last, joined.results[0],
                              [*dead, *(r for r in read if isinstance(r, relay.DequantizeOp))])
                return
            discard(new)

    def dequantized(self, v: SSAValue) -> np.ndarray:
        """A weight's or bias's float values: the constant, or its dequantize (of
        constants) evaluated as the reference interpreter runs it."""
        value = known_value(v)
        if value is not None:
            return value
        dq = v.owner
        if self.evaluator is None:
            self.evaluator = OpEvaluator(ModuleOp([]))
        (value,) = self.evaluator.evaluate(dq, [known_value(v) for v in dq.operands])
        return value


@dataclass(frozen=True)
class SplitWideLayers(ModulePass):
    """Convolutions and dense layers (float, or int8 of QDQ models) with more output (input)
    channels than any target takes become layers over slices of their channels,
    concatenated (summed)."""

    name = "split-wide-layers"

    target: tuple[str, ...] = ()
    """Targets that decide (default: --target)."""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        targets = tuple(target_context(ctx).resolve(self.target, self.name))
        if any(channel_limits(targets, layer.name) for layer in LAYERS):
            rewrite_each(op, SplitWideLayer(targets), LAYERS)
