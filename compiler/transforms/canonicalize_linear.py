"""canonicalize-linear: matrix products with a constant right operand become 2-D dense layers.

Exporters write a linear layer as a MatMul with an [in, out] weight (Keras, torch's
`x @ W`), as a Gemm with `transB = 0`, or as a MatMul on [batch, tokens, in] data, which
imports as `relay.nn.batch_matmul`. A target runs dense layers (`relay.nn.dense`, weight
[out, in], data [rows, in]); this pass makes every such product one:

- `relay.nn.matmul %x, %W` (`transpose_a = false`) and `relay.nn.batch_matmul %x, %W`
  whose `%W` is a constant (or the dequantize of one) with no batch dims other than 1
  become `relay.nn.dense` with the weight laid out [N, K] (transposed at compile time,
  when `transpose_b = false`);
- a dense on data of rank > 2 runs on the rows: reshape to [rows, K], dense, reshape back;
- so that the epilogue fuses with the dense as it does with a convolution, the ops after
  such a trailing reshape move before it: a `bias_add` on the last axis or an `add` of a
  constant that varies along the last axis only (becomes `bias_add`), elementwise
  activations and per-tensor `quantize`s; a per-tensor `dequantize` feeding the leading
  reshape moves after it (QDQ: the int8 value is reshaped, then dequantized); likewise
  after a reshape of a convolution's result that keeps its channels (jax2tf's 1-D
  convolutions: NCHW with a unit width, squeezed before the bias), a `bias_add` along
  the channels, elementwise activations and per-tensor `quantize`s;
- reshape of a reshape is one reshape; a reshape to its operand's shape is removed.

Before:

    %w = relay.constant dense<...> : tensor<128x512xf32>
    %b = relay.constant dense<...> : tensor<512xf32>
    %0 = relay.nn.batch_matmul %x, %w {transpose_b = false} : (tensor<1x64x128xf32>, tensor<128x512xf32>) -> tensor<1x64x512xf32>
    %1 = relay.nn.bias_add %0, %b {axis = 2} : (tensor<1x64x512xf32>, tensor<512xf32>) -> tensor<1x64x512xf32>
    %2 = relay.nn.gelu %1 : tensor<1x64x512xf32>

After:

    %wt = relay.constant dense<...> : tensor<512x128xf32>
    %0 = relay.reshape %x {newshape = [64, 128]} : (tensor<1x64x128xf32>) -> tensor<64x128xf32>
    %1 = relay.nn.dense %0, %wt : (tensor<64x128xf32>, tensor<512x128xf32>) -> tensor<64x512xf32>
    %2 = relay.nn.bias_add %1, %b {axis = 1} : (tensor<64x512xf32>, tensor<512xf32>) -> tensor<64x512xf32>
    %3 = relay.nn.gelu %2 : tensor<64x512xf32>
    %4 = relay.reshape %3 {newshape = [1, 64, 512]} : (tensor<64x512xf32>) -> tensor<1x64x512xf32>

A transpose swapping the last two axes of an activation operand becomes the product's
`transpose_a` / `transpose_b` (QKᵀ as torch exports it, `MatMul(q, Transpose(k))`, is
`batch_matmul %q, %k {transpose_b = true}`: the accelerator reads k row by row). Products
of two activations otherwise stay as they are, and so do products with a transposed
left operand and a constant right one.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint
from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
    PatternRewriter,
    RewritePattern,
    op_type_rewrite_pattern,
)

from accel.compiler.pattern_walk import rewrite_module
from accel.compiler.tensors import inline_constant, known_value, per_tensor
from accel.compiler.transforms.fold_constants import erase_dead
from accel.dialects import relay
from accel.dialects.relay import shape_of

ELEMENTWISE = (relay.ReluOp, relay.ClipOp, relay.SigmoidOp, relay.TanhOp, relay.ErfOp, relay.GeluOp,
               relay.HardSigmoidOp, relay.HardSwishOp, relay.SiluOp, relay.LeakyReluOp)
"""Unary ops that act on each element alone, so they commute with a reshape."""

EPILOGUE_DEPTH = 6
"""How far back from a reshape a dense is looked for (bias, activation, quantize, ...)."""


# --------------------------------------------------------------------------------------
# Helpers
# --------------------------------------------------------------------------------------


def _shape(v: SSAValue) -> tuple[int, ...]:
    return shape_of(v.type)


def _reshape(v: SSAValue, shape: tuple[int, ...]) -> relay.ReshapeOp:
    return relay.ReshapeOp(v, newshape=list(shape))


@dataclass
class ConstantWeight:
    """A constant right operand [K, N] (or [N, K] with `transposed`), possibly the
    dequantize of an integer constant (per tensor or per output channel)."""

    value: np.ndarray
    dequantize: relay.DequantizeOp | None

    @staticmethod
    def of(v: SSAValue) -> ConstantWeight | None:
        value = known_value(v)
        if value is not None:
            return ConstantWeight(value, None)
        dq = v.owner
        if isinstance(dq, relay.DequantizeOp) and (value := known_value(dq.data)) is not None:
            if known_value(dq.scale) is not None and known_value(dq.zero_point) is not None:
                return ConstantWeight(value, dq)
        return None

    def as_dense_weight(self, transposed: bool, rewriter: PatternRewriter, before: Operation) -> SSAValue | None:
        """The weight as dense wants it, [N, K], inserted before `before`; None when its
        quantization cannot follow the transpose."""
        w = self.value
        if w.ndim < 2 or any(d != 1 for d in w.shape[:-2]):
            return None
        w = w.reshape(w.shape[-2:])
        w_nk = w if transposed else w.T
        axis = None
        if self.dequantize is not None:
            dq = self.dequantize
            if not per_tensor(dq):
                rank = len(_shape(dq.data))
                ax = dq.prop("axis") % rank
                n_axis = rank - 2 if transposed else rank - 1
                if ax != n_axis:
                    return None  # quantized along K: no per-channel dense
                axis = 0
        const = inline_constant(np.ascontiguousarray(w_nk))
        rewriter.insert_op(const, InsertPoint.before(before))
        if self.dequantize is None:
            return const.result
        dq = self.dequantize
        new = relay.DequantizeOp(const.result, dq.scale, dq.zero_point, axis=-1 if axis is None else axis)
        new.location = dq.location
        rewriter.insert_op(new, InsertPoint.before(before))
        return new.result


def _layer_before(v: SSAValue) -> relay.DenseOp | relay.Conv2DOp | None:
    """The dense or convolution whose result `v` is, possibly through epilogue ops."""
    for _ in range(EPILOGUE_DEPTH):
        op = v.owner
        if isinstance(op, (relay.DenseOp, relay.Conv2DOp)):
            return op
        if isinstance(op, relay.AddOp) and known_value(op.lhs) is not None:
            v = op.rhs
            continue
        if isinstance(op, (relay.BiasAddOp, relay.AddOp, relay.QuantizeOp, *ELEMENTWISE)):
            v = op.operands[0]
            continue
        return None
    return None


def _last_axis_vector(c: np.ndarray, shape: tuple[int, ...]) -> np.ndarray | None:
    """`c` as a vector along the last axis of `shape` when, broadcast against `shape`, it
    varies along that axis only and does not widen the result; else None."""
    if c.ndim > len(shape) or not shape:
        return None
    aligned = (1,) * (len(shape) - c.ndim) + c.shape
    if any(d != 1 for d in aligned[:-1]) or aligned[-1] not in (1, shape[-1]):
        return None
    return np.ascontiguousarray(np.broadcast_to(c.reshape(-1), (shape[-1],)))


def _replace(rewriter: PatternRewriter, root: Operation, new_ops: list[Operation], result: SSAValue,
             dead: list[Operation]) -> None:
    for op in new_ops:
        if op.location is None or str(op.location) == "loc(unknown)":
            op.location = root.location
    result.name_hint = root.results[0].name_hint
    operands = [v.owner for v in root.operands if isinstance(v.owner, Operation)]
    rewriter.replace_op(root, new_ops, [result])
    erase_dead(rewriter, [*dead, *operands])


# --------------------------------------------------------------------------------------
# Patterns
# --------------------------------------------------------------------------------------


class ProductToDense(RewritePattern):
    """matmul / batch_matmul with a constant right operand -> (reshape) dense (reshape)."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if not isinstance(op, (relay.MatmulOp, relay.BatchMatmulOp)) or op.prop("transpose_a"):
            return
        weight = ConstantWeight.of(op.rhs)
        if weight is None:
            return
        w = weight.as_dense_weight(op.prop("transpose_b"), rewriter, op)
        if w is None:
            return
        out = _shape(op.result)
        x = op.lhs
        ops: list[Operation] = []
        rows = _shape(x)[:-1]
        if len(rows) != 1:
            ops.append(_reshape(x, (math.prod(rows), _shape(x)[-1])))
            x = ops[-1].results[0]
        ops.append(relay.DenseOp(x, w))
        if _shape(ops[-1].results[0]) != out:
            ops.append(_reshape(ops[-1].results[0], out))
        _replace(rewriter, op, ops, ops[-1].results[0], [])


def _swaps_last_two(op: Operation) -> bool:
    """Whether `op` is a transpose that swaps the last two axes and keeps the others."""
    if not isinstance(op, relay.TransposeOp):
        return False
    rank = len(_shape(op.data))
    perm = relay.TransposeOp.perm(rank, op.prop("axes"))
    return rank >= 2 and perm == (*range(rank - 2), rank - 1, rank - 2)


class TransposeIntoProduct(RewritePattern):
    """matmul / batch_matmul of a transpose that swaps the last two axes -> the product
    with that operand's transpose flag flipped (QKᵀ as exported: MatMul(q, Transpose(k)))."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if not isinstance(op, (relay.MatmulOp, relay.BatchMatmulOp)):
            return
        lhs, rhs = op.lhs, op.rhs
        ta, tb = op.prop("transpose_a"), op.prop("transpose_b")
        dead = []
        if _swaps_last_two(rhs.owner) and known_value(rhs.owner.data) is None:
            dead.append(rhs.owner)
            rhs, tb = rhs.owner.data, not tb
        # (Not into a product with a constant weight: that becomes a dense on rows, which
        # has no transposed data; the transpose stays an op of its own, which targets run:
        # MLP-Mixer's token mixing, x^T W.)
        if _swaps_last_two(lhs.owner) and known_value(lhs.owner.data) is None and ConstantWeight.of(rhs) is None:
            dead.append(lhs.owner)
            lhs, ta = lhs.owner.data, not ta
        if not dead:
            return
        new = type(op)(lhs, rhs, transpose_a=ta, transpose_b=tb)
        _replace(rewriter, op, [new], new.results[0], dead)


class DenseOnRows(RewritePattern):
    """dense on data of rank > 2 -> reshape to rows, dense, reshape back."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: relay.DenseOp, rewriter: PatternRewriter) -> None:
        shape = _shape(op.data)
        if len(shape) <= 2:
            return
        rows = _reshape(op.data, (math.prod(shape[:-1]), shape[-1]))
        dense = relay.DenseOp(rows.result, op.weight)
        back = _reshape(dense.result, _shape(op.result))
        _replace(rewriter, op, [rows, dense, back], back.result, [])


class EpilogueBeforeReshape(RewritePattern):
    """op(reshape(y)) -> reshape(op(y)) for the epilogue op of a dense (bias on the last
    axis) or of a convolution (bias on the axis the reshape keeps its channels on: jax2tf
    squeezes a 1-D convolution's unit width before its bias), elementwise activation,
    per-tensor quantize."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if not isinstance(op, (relay.BiasAddOp, relay.AddOp, relay.QuantizeOp, *ELEMENTWISE)):
            return
        data = op.rhs if isinstance(op, relay.AddOp) and known_value(op.lhs) is not None else op.operands[0]
        reshape = data.owner
        if not isinstance(reshape, relay.ReshapeOp) or not reshape.result.has_one_use():
            return
        y = reshape.data
        layer = _layer_before(y)
        if layer is None:
            return
        out, inner = _shape(reshape.result), _shape(y)
        dense = isinstance(layer, relay.DenseOp)
        if not inner or not out or (out[-1] != inner[-1] if dense else len(inner) != 4):
            if not isinstance(op, (relay.QuantizeOp, *ELEMENTWISE)):
                return
        if isinstance(op, relay.BiasAddOp):
            along = op.prop("axis") % len(out)
            if dense and along != len(out) - 1:
                return
            if not dense and (out[along] != inner[1] or math.prod(out[:along]) != inner[0]):
                return
            new = relay.BiasAddOp(y, op.bias, axis=len(inner) - 1 if dense else 1)
            pre: list[Operation] = []
        elif isinstance(op, relay.AddOp):
            if not dense:
                return
            c = known_value(op.lhs if data is op.rhs else op.rhs)
            vector = None if c is None else _last_axis_vector(c, out)
            if vector is None or _shape(op.result) != out:
                return
            bias = inline_constant(vector.astype(c.dtype))
            new = relay.BiasAddOp(y, bias.result, axis=len(inner) - 1)
            pre = [bias]
        else:  # elementwise, or a per-tensor quantize: the same op on the inner shape
            if isinstance(op, relay.QuantizeOp) and not per_tensor(op):
                return
            new = type(op).create(operands=[y, *op.operands[1:]],
                                  result_types=[relay.tensor(inner, op.result.type.element_type)],
                                  properties=dict(op.properties), attributes=dict(op.attributes))
            pre = []
        new.location = op.location
        back = _reshape(new.results[0], out)
        _replace(rewriter, op, [*pre, new, back], back.result, [reshape])


class DequantizeAfterReshape(RewritePattern):
    """reshape(dequantize(q)) -> dequantize(reshape(q)) (per tensor) before a dense, so
    that the int8 value reaches the dense's pattern through its dequantize (QKV
    projections reading one dequantized value each get their own)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: relay.ReshapeOp, rewriter: PatternRewriter) -> None:
        dq = op.data.owner
        if not isinstance(dq, relay.DequantizeOp) or not per_tensor(dq):
            return  # (a dequantize with other users stays for them: this reshape gets its own)
        if not any(isinstance(u.operation, relay.DenseOp) for u in op.result.uses):
            return
        reshaped = _reshape(dq.data, _shape(op.result))
        new = relay.DequantizeOp(reshaped.result, dq.scale, dq.zero_point, axis=dq.prop("axis"))
        new.location = dq.location
        _replace(rewriter, op, [reshaped, new], new.result, [dq])


class FoldReshapes(RewritePattern):
    """reshape(reshape(x)) -> reshape(x); a reshape to its operand's shape -> its operand."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: relay.ReshapeOp, rewriter: PatternRewriter) -> None:
        if _shape(op.data) == _shape(op.result) and op.data.type == op.result.type:
            rewriter.replace_op(op, [], [op.data])
            return
        inner = op.data.owner
        if isinstance(inner, relay.ReshapeOp):
            new = _reshape(inner.data, _shape(op.result))
            _replace(rewriter, op, [new], new.result, [inner])


@dataclass(frozen=True)
class CanonicalizeLinear(ModulePass):
    """Matrix products with a constant right operand become 2-D dense layers, their
    epilogue next to them."""

    name = "canonicalize-linear"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        patterns = [TransposeIntoProduct(), ProductToDense(), DenseOnRows(), EpilogueBeforeReshape(), DequantizeAfterReshape(), FoldReshapes()]
        rewrite_module(op, GreedyRewritePatternApplier(patterns, dce_enabled=False))
