"""dequantize-integer-products: an integer product rescaled to float after it (onnxruntime's
`quantize_dynamic`: MatMulInteger or ConvInteger, Cast, Mul by the scales) that no target
runs becomes the float product of its dequantized operands, which a target's float dense
or convolution runs.

Runs in `byoc`, first. `quantize_dynamic` (onnxruntime's recipe for transformers and MLPs
on CPUs) quantizes each product's data at run time: its scale and zero point come from the
data's range (`relay.qnn.dynamic_scale`, `dynamic_zero_point`), its weight is int8 with a
constant scale, and the product is `cast(qnn.dense(x_q, W_q, z_x, z_w)) * (s_x * s_w)`
(`qnn.conv2d` likewise, its bias added in float after). No
accelerator here takes a scale known only at run time, and the int8 operands differ in
signedness, so nothing of such a model was offloaded. The same product in float,
`dense((x_q - z_x) * s_x, (W_q - z_w) * s_w)`, is the real-valued product of the same 8-bit
operands: the data still goes through its quantization (on the host, where its range is
taken), the weight is dequantized at compile time (per output row where its scale or zero
point is), and a target's float dense runs the product, its bias and activation after it.
The sums are accumulated in float rather than exactly in int32: within a few units in the
last place of each output (tests/test_dequantize_integer_products.py).

Only a `relay.qnn.dense` or `relay.qnn.conv2d` with a constant weight and weight zero
point, whose int32 result is read only by a cast to float read only by a multiply by
`s_x * s_w` (a product of a scalar and a constant, scalar or one per output feature or
channel) or by a constant; rewritten when no target runs the integer product and one
target runs the float one, and pays off there (`pays_off`: the float product and its
transfers against the integer product on the host). Data of rank > 2 is a dense on its rows between reshapes (as
canonicalize-linear makes them). (Older onnxruntime versions add a bias quantized at run
time to a ConvInteger's int32 sums before the cast: not taken.)

Before (`byoc{target=npu}`):

    %q = relay.qnn.quantize %x, %s, %z : (tensor<16x64xf32>, tensor<f32>, tensor<ui8>) -> tensor<16x64xui8>
    %sw = relay.multiply %s, %c : tensor<f32>
    %a = relay.qnn.dense %q, %w, %z, %zw, %one, %one : (...) -> tensor<16x128xi32>
    %f = relay.cast %a : tensor<16x128xi32> -> tensor<16x128xf32>
    %h = relay.multiply %f, %sw : (tensor<16x128xf32>, tensor<f32>) -> tensor<16x128xf32>

After:

    %q = relay.qnn.quantize %x, %s, %z : (tensor<16x64xf32>, tensor<f32>, tensor<ui8>) -> tensor<16x64xui8>
    %0 = relay.qnn.dequantize %q, %s, %z : (tensor<16x64xui8>, tensor<f32>, tensor<ui8>) -> tensor<16x64xf32>
    %1 = relay.constant dense<...> : tensor<128x64xf32>     // (W_q - z_w) * c
    %h = relay.nn.dense %0, %1 : (tensor<16x64xf32>, tensor<128x64xf32>) -> tensor<16x128xf32>
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from xdsl.context import Context
from xdsl.dialects.builtin import Float32Type, ModuleOp
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import PatternRewriter

from accel.compiler.byoc_rewrites import TargetsRewrite, discard, replace_chain, rewrite_each
from accel.compiler.runtime.reference import qnn_dequantize
from accel.compiler.targets import target_context
from accel.compiler.targets.cost import op_work, region_cost
from accel.compiler.targets.schema import TargetDescription
from accel.compiler.tensors import inline_constant, known_value
from accel.compiler.transforms.annotate_target import runs_alone
from accel.compiler.transforms.fold_batch_norm import per_channel
from accel.dialects import relay
from accel.dialects.relay import shape_of


def only_reader(v: SSAValue, kind: type[Operation]) -> Operation | None:
    """The one op reading `v`, if it is a `kind`."""
    use = v.first_use
    return use.operation if use is not None and v.has_one_use() and isinstance(use.operation, kind) else None


def split_scale(scale: SSAValue, out_shape: tuple[int, ...], axis: int
                ) -> tuple[SSAValue | None, np.ndarray] | None:
    """The rescale `scale` as (the data's scale, a scalar value; None: 1) and the weight's
    (a constant, as a vector along the product's feature `axis` of `out_shape`)."""
    whole = known_value(scale)
    if whole is not None:
        vector = per_channel(whole, out_shape, axis) if whole.dtype.kind == "f" else None
        return None if vector is None else (None, vector)
    op = scale.owner
    if not isinstance(op, relay.MultiplyOp):
        return None
    for data_scale, weight_scale in ((op.lhs, op.rhs), (op.rhs, op.lhs)):
        value = known_value(weight_scale)
        if value is not None and value.dtype.kind == "f" and not shape_of(data_scale.type):
            vector = per_channel(value, out_shape, axis)
            if vector is not None:
                return data_scale, vector
    return None


def pays_off(integer: Operation, product: Operation, target: TargetDescription) -> bool:
    """Whether the float `product` on `target`, its data, weight and result crossing to and
    from it, takes no longer than the `integer` product on the host (the cost model of
    merge-regions): float weights are four times the int8 ones' bytes, and a product
    whose transfers cost more than it saves stays integer (an LSTM's per-step products,
    a wide head), where its neighbours' regions are as before."""
    boundary = [product.operands[0], product.operands[1], product.results[0]]
    return region_cost([product], boundary, target).accel_cycles <= op_work(integer).cycles(target.host)


class DequantizeIntegerProduct(TargetsRewrite):
    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if not isinstance(op, (relay.QnnDenseOp, relay.QnnConv2DOp)) or not self.unclaimed(op):
            return
        cast = only_reader(op.result, relay.CastOp)
        rescale = only_reader(cast.result, relay.MultiplyOp) if cast is not None else None
        weight, weight_zero = known_value(op.weight), known_value(op.kernel_zero_point)
        if (rescale is None or weight is None or weight_zero is None or rescale.result.type != cast.result.type
                or not isinstance(cast.result.type.element_type, Float32Type)):  # fmt: skip
            return
        conv = isinstance(op, relay.QnnConv2DOp)
        out_shape = shape_of(rescale.result.type)
        scale = rescale.rhs if rescale.lhs is cast.result else rescale.lhs
        scales = split_scale(scale, out_shape, 1 if conv else len(out_shape) - 1)
        if scales is None or shape_of(op.input_zero_point.type):
            return
        data_scale, weight_scale = scales
        new: list[Operation] = []
        if data_scale is None:
            one = inline_constant(np.array(1.0, np.float32))
            new.append(one)
            data_scale = one.result
        data = relay.DequantizeOp(op.data, data_scale, op.input_zero_point)
        real = qnn_dequantize(weight, weight_scale.astype(np.float32),
                              weight_zero.reshape(-1) if weight_zero.size > 1 else weight_zero.reshape(()), axis=0)
        float_weight = inline_constant(np.ascontiguousarray(real, np.float32))
        new += [data, float_weight]
        value = data.result
        rows = shape_of(op.data.type)
        if conv:
            product = relay.Conv2DOp(value, float_weight.result, **op.py_props())
            new.append(product)
            value = product.result
        else:
            features, k = shape_of(op.weight.type)
            if len(rows) > 2:
                flat = relay.ReshapeOp(value, newshape=[math.prod(rows[:-1]), k])
                new.append(flat)
                value = flat.result
            product = relay.DenseOp(value, float_weight.result)
            new.append(product)
            value = product.result
            if len(rows) > 2:
                back = relay.ReshapeOp(value, newshape=[*rows[:-1], features])
                new.append(back)
                value = back.result
        for o in new:
            o.location = op.location
        if any(runs_alone(product, t) and pays_off(op, product, t) for t in self.targets):
            replace_chain(rewriter, new, rescale, value,
                          [rescale, cast, op, *([scale.owner] if isinstance(scale.owner, relay.MultiplyOp) else [])])
        else:
            discard(new)


@dataclass(frozen=True)
class DequantizeIntegerProducts(ModulePass):
    """Integer products rescaled to float after them (quantize_dynamic's) that no target
    runs become float products of their dequantized operands where a target runs those."""

    name = "dequantize-integer-products"

    target: tuple[str, ...] = ()
    """Targets that decide (default: --target)."""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        targets = tuple(target_context(ctx).resolve(self.target, self.name))
        if targets:
            rewrite_each(op, DequantizeIntegerProduct(targets), (relay.QnnDenseOp, relay.QnnConv2DOp))
