"""Predicates of the built-in targets, and an example for vendors.

A predicate is named in a description as `predicate = "module:function"` on an `[[ops]]`
or `[[patterns]]` entry and is called as `fn(op_or_composite, target)`:

- for an `[[ops]]` entry, with the relay op, after its limits passed (annotate-target);
- for a `[[patterns]]` entry, with the `relay.composite` just built from a match, after
  the pattern's limits passed (merge-composite); the composite's operands are the real
  values of the graph, so `is_constant(composite.inputs[i])` and the shapes work.

It returns None to accept, or a short reason to reject (kept in `accel.reason`, or the
match falls back to shorter patterns). An exception in a predicate rejects too, with the
exception as the reason.
"""

from __future__ import annotations

import math

from xdsl.dialects.builtin import TensorType
from xdsl.ir import Operation, SSAValue

from accel.compiler.targets.support import is_constant
from accel.dialects.relay import CompositeOp, DequantizeOp, QuantizeOp, RequantizeOp


def _numel(v: SSAValue) -> int:
    t = v.type
    return math.prod(t.get_shape()) if isinstance(t, TensorType) else 1


def per_tensor_activations(op: Operation, target) -> str | None:
    """Quantized composites: the activations (non-constant inputs and the result) must be
    quantized per tensor; weights may be per channel."""
    if not isinstance(op, CompositeOp):
        return None
    block = op.body.block
    data_args = {arg for arg, v in zip(block.args, op.inputs) if not is_constant(v)}
    for inner in block.ops:
        if isinstance(inner, DequantizeOp) and inner.data in data_args:
            if _numel(inner.scale) != 1 or _numel(inner.zero_point) != 1:
                return "per-channel activation quantization not supported"
        if isinstance(inner, QuantizeOp) and (_numel(inner.scale) != 1 or _numel(inner.zero_point) != 1):
            return "per-channel output quantization not supported"
        if isinstance(inner, RequantizeOp) and (
            _numel(inner.output_scale) != 1 or _numel(inner.output_zero_point) != 1
        ):
            return "per-channel output quantization not supported"
    return None
