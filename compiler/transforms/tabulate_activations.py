"""tabulate-activations: an int8 activation between a dequantize and a quantize becomes a
lookup in a table of its 256 values.

Runs in `byoc`, after global-pools and before expand-activations. An int8 input has
256 values, so whatever elementwise function a QDQ model computes between a dequantize
and a quantize (onnxruntime's `quantize_static` leaves HardSwish, HardSigmoid, LeakyRelu,
Elu, GELU's erf... in float there: `DQ -> f -> Q`) is a table of 256 entries, as NPUs
(Ethos-U, TFLite Micro's int8 kernels) run such activations. The table is computed here,
by the reference interpreter's kernels on the 256 dequantized values and the reference's
quantize: the lookup gives what the original ops give, element by element.

The function is the DAG of ops between one per-tensor dequantize of 8-bit data and one
per-tensor quantize to 8 bits: float elementwise ops (relay's unary ops but softmax, and
add, subtract, multiply, divide, power, maximum, minimum), whose other operands are scalar
constants, and whose values nothing else reads. `x * hardsigmoid(x)` is such a DAG. A DAG
of one op that an int8 pattern of a target computes (`qsigmoid`, `qtanh`, `qsilu`...) is
left to that pattern. Rewritten only when one target runs the lookup
(`annotate_target.runs_alone`: the npu's `relay.take` entry, its int8 elementwise command
with a table) and no manual `accel.target` is on the ops.

Before (`byoc{target=npu}`):

    %x = relay.qnn.dequantize %q, %s, %z : (tensor<1x8x4x4xi8>, tensor<f32>, tensor<i8>) -> tensor<1x8x4x4xf32>
    %h = relay.nn.hardswish %x : tensor<1x8x4x4xf32>
    %y = relay.qnn.quantize %h, %ys, %yz : (tensor<1x8x4x4xf32>, tensor<f32>, tensor<i8>) -> tensor<1x8x4x4xi8>

After (entry b of the table: the activation of the int8 value whose byte is b):

    %t = relay.constant dense<[...256 values...]> : tensor<256xi8>
    %y = relay.take %t, %q : (tensor<256xi8>, tensor<1x8x4x4xi8>) -> tensor<1x8x4x4xi8>
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp, f32
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern

from accel.compiler.byoc_rewrites import discard, replace_chain, rewrite_each
from accel.compiler.runtime import reference
from accel.compiler.runtime.interpreter import OpEvaluator
from accel.compiler.targets import target_context
from accel.compiler.targets.schema import TargetDescription
from accel.compiler.tensors import inline_constant, known_value, numpy_dtype, per_tensor
from accel.compiler.transforms.annotate_target import runs_alone
from accel.dialects import relay
from accel.dialects.conventions import TARGET_ATTR
from accel.dialects.relay import shape_of

MAX_OPS = 32
"""The most ops one table stands for (a bound on the walk back from a quantize)."""

_NOT_ELEMENTWISE = (relay.SoftmaxOp, relay.BitwiseNotOp, relay.BitwiseBinaryOp)


def is_elementwise(op: Operation) -> bool:
    """Whether `op` computes each element of its result from the same element of its
    operands alone (on floats)."""
    return isinstance(op, (relay.UnaryOp, relay.BinaryOp)) and not isinstance(op, _NOT_ELEMENTWISE) and \
        op.results[0].type.element_type == f32


def _bits(v: SSAValue) -> int:
    return getattr(v.type.element_type, "bitwidth", 0)


def activation_of(quant: relay.QuantizeOp) -> tuple[relay.DequantizeOp, list[Operation]] | None:
    """The dequantize and the elementwise ops between it and `quant` (each after the ops
    it reads), when they form an int8 activation (see the module docstring); else None."""
    if not (per_tensor(quant, relay.QuantizeOp) and _bits(quant.results[0]) == 8 and quant.data.has_one_use()):
        return None
    source: relay.DequantizeOp | None = None
    ops: dict[Operation, None] = {}
    pending = [quant.data]
    while pending:
        v = pending.pop()
        op = v.owner
        if isinstance(op, relay.DequantizeOp):
            if source is not None and op is not source:
                return None
            if not (per_tensor(op, relay.DequantizeOp) and _bits(op.data) == 8):
                return None
            source = op
            continue
        if op in ops:
            continue
        if not isinstance(op, Operation) or not is_elementwise(op) or TARGET_ATTR in op.attributes or \
                len(ops) == MAX_OPS:
            return None
        ops[op] = None
        for operand in op.operands:
            value = known_value(operand)
            if value is not None and value.size == 1:
                continue  # a scalar constant
            if value is not None:
                return None
            pending.append(operand)
    if source is None or not ops:
        return None
    inside = {*ops, quant}
    for op in ops:  # nothing outside reads a value of the activation
        if any(use.operation not in inside for use in op.results[0].uses):
            return None
    if any(shape_of(op.results[0].type) != shape_of(source.results[0].type) for op in ops):
        return None  # a scalar constant broadcast the value: not one table per element
    return source, _in_order(quant.data.owner, ops)


def _in_order(last: Operation, ops: dict[Operation, None]) -> list[Operation]:
    """`ops` (a DAG ending in `last`) with each op after the ops of `ops` it reads."""
    done: dict[Operation, None] = {}
    stack: list[tuple[Operation, bool]] = [(last, False)]
    while stack:
        op, expanded = stack.pop()
        if op in done:
            continue
        if expanded:
            done[op] = None
            continue
        stack.append((op, True))
        stack += [(v.owner, False) for v in op.operands if v.owner in ops and v.owner not in done]
    return list(done)


def lookup_table(source: relay.DequantizeOp, ops: list[Operation], quant: relay.QuantizeOp,
                 evaluator: OpEvaluator) -> np.ndarray:
    """Entry b: the activation of the 8-bit value whose byte is b, quantized by `quant`."""
    codes = np.arange(256, dtype=np.uint8).view(numpy_dtype(source.data.type.element_type))
    values: dict[SSAValue, np.ndarray] = {
        source.results[0]: reference.qnn_dequantize(codes, known_value(source.scale), known_value(source.zero_point))}
    for op in ops:
        args = [values[v] if v in values else known_value(v).reshape(()) for v in op.operands]
        # The op on a vector of the 256 values: a detached copy of it of that type.
        probe = type(op).create(operands=list(op.operands), result_types=[relay.tensor([256], f32)],
                                properties=dict(op.properties))
        try:
            values[op.results[0]] = evaluator.evaluate(probe, args)[0]
        finally:
            probe.erase(safe_erase=False)
    result = values[quant.data].reshape(-1).astype(np.float32)
    return reference.qnn_quantize(result, known_value(quant.scale), known_value(quant.zero_point))


def _left_to_patterns(ops: list[Operation], targets: tuple[TargetDescription, ...]) -> bool:
    """A single unary op that an int8 pattern of a target is (dequantize, that op, quantize)."""
    return len(ops) == 1 and isinstance(ops[0], relay.UnaryOp) and any(spec.pattern.names == {"relay.qnn.dequantize", ops[0].name, "relay.qnn.quantize"}
                                 for t in targets for spec in t.patterns)


class TabulateActivation(RewritePattern):
    def __init__(self, targets: tuple[TargetDescription, ...], evaluator: OpEvaluator):
        super().__init__()
        self.targets = targets
        self.evaluator = evaluator

    def match_and_rewrite(self, op: relay.QuantizeOp, rewriter: PatternRewriter) -> None:
        found = activation_of(op)
        if found is None or TARGET_ATTR in op.attributes or _left_to_patterns(found[1], self.targets):
            return
        source, ops = found
        table = inline_constant(lookup_table(source, ops, op, self.evaluator))
        take = relay.TakeOp(table.result, source.data, axis=0)
        new: list[Operation] = [table, take]
        take.location = op.location
        if any(runs_alone(take, t) for t in self.targets):
            replace_chain(rewriter, new, op, take.result, [op, *reversed(ops), source])
        else:
            discard(new)


@dataclass(frozen=True)
class TabulateActivations(ModulePass):
    """int8 activations between a dequantize and a quantize become lookups in a table of
    their 256 values."""

    name = "tabulate-activations"

    target: tuple[str, ...] = ()
    """Targets that decide (default: --target)."""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        targets = tuple(target_context(ctx).resolve(self.target, self.name))
        if targets:
            rewrite_each(op, TabulateActivation(targets, OpEvaluator(op)), (relay.QuantizeOp,))
