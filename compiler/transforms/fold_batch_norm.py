"""fold-batch-norm: inference batch norm folded into the convolution or dense before it.

A batch norm with constant statistics is a per-channel affine map, y = x * s + t with
s = gamma / sqrt(var + epsilon) and t = beta - mean * s. When x is a `relay.nn.conv2d`
or a `relay.nn.conv2d_transpose` of one group (NCHW, batch norm along axis 1) or a
`relay.nn.dense` (batch norm along the last axis)
with constant weights, optionally followed by a `bias_add` or an `add` of a per-channel
constant, and no other op uses those intermediates, s scales the weights' output
channels and the bias becomes b * s + t:

    %0 = relay.nn.conv2d %x, %w : (tensor<1x3x8x8xf32>, tensor<8x3x3x3xf32>) -> tensor<1x8x6x6xf32>
    %1 = relay.nn.batch_norm %0, %g, %b, %m, %v : (...) -> tensor<1x8x6x6xf32>

becomes

    %w2 = relay.constant dense<...> : tensor<8x3x3x3xf32>          // w * s per output channel
    %t = relay.constant dense<...> : tensor<8xf32>
    %0 = relay.nn.conv2d %x, %w2 : (...) -> tensor<1x8x6x6xf32>
    %1 = relay.nn.bias_add %0, %t : (tensor<1x8x6x6xf32>, tensor<8xf32>) -> tensor<1x8x6x6xf32>

Any other batch norm with constant statistics becomes a scale-shift the npu can run:
on NCHW data (axis 1) a depthwise 1x1 `conv2d` by s plus a `bias_add` of t (the npu has
no broadcasting elementwise ops, but takes depthwise convolutions and conv2d_bias);
on other data a `multiply` and an `add` of per-channel constants laid along the axis.
Statistics may also be dequantized constants (a QDQ model quantizes them too). A batch
norm whose statistics are not known at compile time is left alone.

A product of NCHW data with a per-channel constant ([C, 1, 1], not one value) is the same
scale: a depthwise 1x1 `conv2d` (GroupNorm's affine as torch exports it, `x * gamma`, with
its `+ beta` a bias_add after it). Each element is one product, as before (a zero product
may lose its sign: the convolution adds it to 0).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    PatternRewriter,
    RewritePattern,
    op_type_rewrite_pattern,
)

from accel.compiler.diagnostics import CompileError
from accel.compiler.pattern_walk import rewrite_module
from accel.compiler.runtime.interpreter import OpEvaluator
from accel.compiler.runtime.reference import batch_norm_scale
from accel.compiler.tensors import inline_constant, known_value, numpy_dtype
from accel.compiler.transforms.fold_constants import erase_dead
from accel.dialects import relay
from accel.dialects.relay import normalize_axis, shape_of


@dataclass
class _Affine:
    """A linear op with constant weights, its optional constant bias and the ops that the
    fold replaces (in program order, the batch norm's operand last)."""

    linear: relay.Conv2DOp | relay.Conv2DTransposeOp | relay.DenseOp
    weight: np.ndarray
    bias: np.ndarray | None
    replaced: list[Operation]


def per_channel(value: np.ndarray, out_shape: tuple[int, ...], axis: int) -> np.ndarray | None:
    """`value` as a vector along `axis` when, broadcast against `out_shape`, it varies
    along that axis only (a scalar, [C], [C,1,1], [1,C,1,1], ...); else None."""
    if value.ndim > len(out_shape):
        return None
    aligned = (1,) * (len(out_shape) - value.ndim) + value.shape
    if any(d != 1 for i, d in enumerate(aligned) if i != axis) or aligned[axis] not in (1, out_shape[axis]):
        return None
    return np.broadcast_to(value.reshape(aligned[axis]), (out_shape[axis],))


def _bias_before(bn: relay.BatchNormOp, axis: int) -> tuple[SSAValue, np.ndarray | None, list[Operation]]:
    """The value before an optional per-channel constant bias feeding the batch norm."""
    v = bn.data
    op = v.owner
    if not v.has_one_use():
        return v, None, []
    if isinstance(op, relay.BiasAddOp) and normalize_axis(op.prop("axis"), len(shape_of(v.type))) == axis:
        bias = known_value(op.bias)
        if bias is not None:
            return op.data, bias, [op]
    if isinstance(op, relay.AddOp):
        for data, other in ((op.lhs, op.rhs), (op.rhs, op.lhs)):
            value = known_value(other)
            if value is not None and shape_of(data.type) == shape_of(v.type):
                bias = per_channel(value, shape_of(v.type), axis)
                if bias is not None:
                    return data, bias, [op]
    return v, None, []


def _affine_producer(bn: relay.BatchNormOp) -> _Affine | None:
    shape = shape_of(bn.data.type)
    axis = normalize_axis(bn.prop("axis"), len(shape))
    v, bias, replaced = _bias_before(bn, axis)
    linear = v.owner
    if not v.has_one_use():
        return None
    if isinstance(linear, relay.Conv2DOp) and axis == 1:
        weight = known_value(linear.operands[1])
    elif isinstance(linear, relay.Conv2DTransposeOp) and axis == 1 and linear.prop("groups") == 1:
        weight = known_value(linear.operands[1])
    elif isinstance(linear, relay.DenseOp) and axis == len(shape) - 1:
        weight = known_value(linear.operands[1])
    else:
        return None
    if weight is None:
        return None
    return _Affine(linear, weight, bias, [linear, *replaced])


def _statistics_owners(bn: relay.BatchNormOp) -> list[Operation]:
    """The distinct ops defining the statistics (they may die with the batch norm)."""
    return list(dict.fromkeys(v.owner for v in bn.operands[1:] if isinstance(v.owner, Operation)))


def _channel_shape(rank: int, axis: int, channels: int) -> tuple[int, ...]:
    """The shape that lays a per-channel vector along `axis` of a rank-`rank` value."""
    return (channels,) + (1,) * (rank - 1 - axis)


class FoldBatchNormPattern(RewritePattern):
    def __init__(self, evaluator: OpEvaluator):
        self.evaluator = evaluator

    def statistic(self, v: SSAValue) -> np.ndarray | None:
        """A constant, or the dequantized value of constants (a QDQ model quantizes the
        statistics too; fold-constants keeps dequantize for the patterns)."""
        op = v.owner
        if isinstance(op, relay.DequantizeOp) and all(isinstance(o.owner, relay.ConstantOp) for o in op.operands):
            try:
                return self.evaluator.evaluate(op, [known_value(o) for o in op.operands])[0]
            except CompileError:
                return None
        return known_value(v)

    @op_type_rewrite_pattern
    def match_and_rewrite(self, bn: relay.BatchNormOp, rewriter: PatternRewriter) -> None:
        stats = [self.statistic(v) for v in (bn.gamma, bn.beta, bn.moving_mean, bn.moving_var)]
        if any(s is None for s in stats):
            return
        gamma, beta, mean, var = stats
        dtype = gamma.dtype
        scale = batch_norm_scale(gamma, var, bn.prop("epsilon")).astype(dtype, copy=False)
        shift = (beta - mean * scale).astype(dtype, copy=False)
        shape = shape_of(bn.data.type)
        axis = normalize_axis(bn.prop("axis"), len(shape))
        affine = _affine_producer(bn)
        if affine is not None:
            self.fold(bn, affine, scale, shift, axis, rewriter)
        else:
            self.scale_shift(bn, scale, shift, shape, axis, rewriter)

    def fold(self, bn: relay.BatchNormOp, affine: _Affine, scale, shift, axis: int, rewriter: PatternRewriter):
        linear = affine.linear
        w = affine.weight
        # Output channels are the weight's axis 0, but axis 1 of a transposed convolution's.
        out_axis = 1 if isinstance(linear, relay.Conv2DTransposeOp) else 0
        weight = (w * scale.reshape((-1,) + (1,) * (w.ndim - 1 - out_axis))).astype(w.dtype, copy=False)
        bias = shift if affine.bias is None else (affine.bias * scale + shift).astype(shift.dtype, copy=False)
        w_op, b_op = inline_constant(weight), inline_constant(bias)
        new_linear = type(linear)(linear.operands[0], w_op.result, **linear.py_props())
        new_linear.location = linear.location
        bias_add = relay.BiasAddOp(new_linear.results[0], b_op.result, axis=axis)
        bias_add.location = bn.location
        bias_add.result.name_hint = bn.result.name_hint
        stats = _statistics_owners(bn)
        rewriter.replace_op(bn, [w_op, b_op, new_linear, bias_add], [bias_add.result])
        erase_dead(rewriter, stats + affine.replaced)

    def scale_shift(self, bn: relay.BatchNormOp, scale, shift, shape, axis: int, rewriter: PatternRewriter):
        channels = shape[axis]
        if len(shape) == 4 and axis == 1:
            s_op, t_op = inline_constant(scale.reshape(channels, 1, 1, 1)), inline_constant(shift)
            mul = relay.Conv2DOp(bn.data, s_op.result, groups=channels)
            add = relay.BiasAddOp(mul.result, t_op.result, axis=1)
        else:
            per_axis = _channel_shape(len(shape), axis, channels)
            s_op, t_op = inline_constant(scale.reshape(per_axis)), inline_constant(shift.reshape(per_axis))
            mul = relay.MultiplyOp(bn.data, s_op.result)
            add = relay.AddOp(mul.result, t_op.result)
        mul.location = add.location = bn.location
        add.results[0].name_hint = bn.result.name_hint
        stats = _statistics_owners(bn)
        rewriter.replace_op(bn, [s_op, t_op, mul, add], [add.results[0]])
        erase_dead(rewriter, stats)


class ChannelScale(RewritePattern):
    """x * c, x float NCHW and c a constant varying along the channels only -> a depthwise
    1x1 conv2d by c (the scale-shift's product)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: relay.MultiplyOp, rewriter: PatternRewriter) -> None:
        shape = shape_of(op.result.type)
        if len(shape) != 4 or not relay.is_float(op.result.type.element_type) or \
                isinstance(op.parent_op(), relay.CompositeOp):
            return
        for data, other in ((op.lhs, op.rhs), (op.rhs, op.lhs)):
            value = known_value(other)
            if value is None or value.size == 1 or shape_of(data.type) != shape or value.dtype != numpy_dtype(
                    op.result.type.element_type):
                continue
            scale = per_channel(value, shape, 1)
            if scale is None:
                continue
            s_op = inline_constant(np.ascontiguousarray(scale).reshape(shape[1], 1, 1, 1))
            conv = relay.Conv2DOp(data, s_op.result, groups=shape[1])
            conv.location = op.location
            rewriter.replace_op(op, [s_op, conv], [conv.result])
            erase_dead(rewriter, [other.owner] if isinstance(other.owner, Operation) else [])
            return


@dataclass(frozen=True)
class FoldBatchNorm(ModulePass):
    """Fold inference batch norm into the conv2d/dense before it, else make it a scale-shift."""

    name = "fold-batch-norm"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        rewrite_module(op, FoldBatchNormPattern(OpEvaluator(op)), apply_recursively=False)
        # After the folds: a batch norm's own product folds into the convolution before it.
        rewrite_module(op, ChannelScale(), apply_recursively=False)
