"""quantize-layer-biases: the float bias of an int8 layer becomes int32 on its accumulator's grid.

The twenty-second step of `byoc`, after the rewrites of layers no target takes (their slices,
split channels, are layers of their own). onnxruntime's `quantize_static` gives a Conv's bias input the
form the targets' int8 layer patterns take: `dequantize(int32, x_scale * w_scale, 0)`,
the layer's accumulator grid, as an int8 accelerator adds it. Some biases it leaves in
float (a bias made by a `Constant` node; 52 of PP-OCRv4's detector's conv biases): the
layer then matches no int8 pattern and runs in float, its result crossing to the host for
the bias and the quantize (that detector, quantized, compiled for npu: 47 regions). Here
such a bias becomes what the quantizer writes, where a target has an int8 pattern of that
layer with a bias (`npu.qconv2d_bias`: a dequantize, the layer, a bias_add and a
quantize), for a layer (conv2d, dense) whose data is a per-tensor dequantize, whose weight
is the dequantize of an integer constant (per tensor, or per output channel), and whose
bias_add, activations and per-tensor quantize follow it each as the only reader of the
one before (`byoc_rewrites.channel_epilogue`):

    q = round(b / (x_scale * w_scale))   (int32, ties to even, as the quantizer rounds)

So the bias moves by at most half of an accumulator step (x_scale * w_scale, a small part
of the output's step): the quantized output is the same, or one step off where the sum
lies that close to a rounding boundary (as onnxruntime's own int8 kernels are off from
its QDQ arithmetic). A bias whose quantized value would not fit in int32, or a scale that
is not positive, is left alone; so is every bias on targets without such a pattern (on
the host the float bias is as cheap, and exactly the model's).

Before:

    %xf = relay.qnn.dequantize %x, %sx, %zx : (tensor<1x4x8x8xi8>, tensor<f32>, tensor<i8>) -> tensor<1x4x8x8xf32>
    %wf = relay.qnn.dequantize %wq, %sw, %zw {axis = 0} : (tensor<8x4x3x3xi8>, tensor<8xf32>, tensor<8xi8>) -> ...
    %c = relay.nn.conv2d %xf, %wf : (tensor<1x4x8x8xf32>, tensor<8x4x3x3xf32>) -> tensor<1x8x6x6xf32>
    %a = relay.nn.bias_add %c, %b : (tensor<1x8x6x6xf32>, tensor<8xf32>) -> tensor<1x8x6x6xf32>
    %y = relay.qnn.quantize %a, %sy, %zy : (tensor<1x8x6x6xf32>, tensor<f32>, tensor<i8>) -> tensor<1x8x6x6xi8>

After:

    %0 = relay.constant dense<[...]> : tensor<8xi32>        // round(b / (sx * sw))
    %1 = relay.constant dense<[...]> : tensor<8xf32>        // sx * sw
    %2 = relay.constant dense<0> : tensor<8xi32>
    %3 = relay.qnn.dequantize %0, %1, %2 {axis = 0} : (tensor<8xi32>, tensor<8xf32>, tensor<8xi32>) -> tensor<8xf32>
    %a = relay.nn.bias_add %c, %3 : (tensor<1x8x6x6xf32>, tensor<8xf32>) -> tensor<1x8x6x6xf32>
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern
from xdsl.rewriter import InsertPoint

from accel.compiler.byoc_rewrites import channel_epilogue, int8_weight, rewrite_each
from accel.compiler.targets import target_context
from accel.compiler.targets.schema import TargetDescription
from accel.compiler.tensors import inline_constant, known_value, per_tensor
from accel.compiler.transforms.fold_constants import erase_dead
from accel.dialects import relay
from accel.dialects.conventions import TARGET_ATTR
from accel.dialects.relay import shape_of

LAYERS = (relay.Conv2DOp, relay.DenseOp)

INT32_MAX = 2**31 - 1


def accumulator_scales(layer: Operation) -> np.ndarray | None:
    """`x_scale * w_scale` of an int8 layer (float32; one value, or one per output
    channel), or None when the layer is not one (see the module docstring)."""
    data, weight = layer.operands[0].owner, int8_weight(layer)
    if not per_tensor(data, relay.DequantizeOp) or weight is None:
        return None
    sx = known_value(data.scale)
    if sx is None:
        return None
    scales = np.float32(sx.reshape(-1)[0]) * known_value(weight[0].scale).astype(np.float32).reshape(-1)
    return scales if np.all(np.isfinite(scales)) and np.all(scales > 0) else None


def int8_layers_with_bias(targets: tuple[TargetDescription, ...]) -> frozenset[str]:
    """The layer ops (conv2d, dense) of which a target has an int8 pattern with a bias: a
    dequantize, the layer, a bias_add and a quantize."""
    glue = {relay.DequantizeOp.name, relay.BiasAddOp.name, relay.QuantizeOp.name}
    return frozenset(layer.name for layer in LAYERS for t in targets for p in t.patterns
                     if {layer.name, *glue} <= p.pattern.names)


class QuantizeLayerBias(RewritePattern):
    def __init__(self, layers: frozenset[str]):
        self.layers = layers

    def match_and_rewrite(self, op: relay.BiasAddOp, rewriter: PatternRewriter) -> None:
        layer = op.data.owner  # (the op's own facts first: the bias may be read from the weights file)
        if not isinstance(layer, LAYERS) or layer.name not in self.layers or TARGET_ATTR in op.attributes:
            return
        bias = known_value(op.bias)
        if bias is None or bias.dtype.kind != "f":
            return
        rank = len(shape_of(layer.results[0].type))
        axis = 1 if isinstance(layer, relay.Conv2DOp) else rank - 1
        channels = shape_of(layer.results[0].type)[axis]
        chain = channel_epilogue(layer.results[0], axis, channels)
        if not chain or chain[0] is not op or not per_tensor(chain[-1], relay.QuantizeOp):
            return
        scales = accumulator_scales(layer)
        if scales is None:
            return
        quantized = np.round(bias.astype(np.float32).reshape(-1) / scales)
        if not np.all(np.abs(quantized) <= INT32_MAX):
            return
        scale_shape = (channels,) if scales.size == channels else ()
        data = inline_constant(quantized.astype(np.int32))
        scale = inline_constant(scales.reshape(scale_shape))
        zero = inline_constant(np.zeros(scale_shape, np.int32))
        axis_prop = {"axis": 0} if scale_shape else {}  # (one scale: the default axis, as the quantizer writes it)
        dequantize = relay.DequantizeOp(data.result, scale.result, zero.result, **axis_prop)
        for new in (data, scale, zero, dequantize):
            new.location = op.bias.owner.location if isinstance(op.bias.owner, Operation) else op.location
        rewriter.insert_op([data, scale, zero, dequantize], InsertPoint.before(op))
        old = op.bias.owner
        op.operands = (op.data, dequantize.result)
        if isinstance(old, Operation):
            erase_dead(rewriter, [old])


@dataclass(frozen=True)
class QuantizeLayerBiases(ModulePass):
    """Float biases of int8 layers (a bias_add of a constant between a QDQ layer and its
    quantize) become the dequantize of int32 values on the layer's accumulator grid, where
    a target has an int8 pattern of that layer with a bias."""

    name = "quantize-layer-biases"

    target: tuple[str, ...] = ()
    """Targets whose patterns decide (default: --target)."""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        layers = int8_layers_with_bias(tuple(target_context(ctx).resolve(self.target, self.name)))
        if layers:
            rewrite_each(op, QuantizeLayerBias(layers), (relay.BiasAddOp,))
