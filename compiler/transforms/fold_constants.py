"""fold-constants: relay ops whose operands are all constants become constants.

Each op is evaluated with the reference interpreter's kernel for it (`OpEvaluator`), so
folding computes exactly what running the graph would. Folding visits ops in program
order, so a chain of constant ops folds in one sweep; constants left without users are
erased. In particular `relay.qnn.quantize` of constant float weights becomes an int8
constant, so the QDQ weights of a model whose weights are `Constant` nodes take the
`constant(int8) -> dequantize` form the int8 patterns of the targets match:

    %w = relay.constant dense<...> : tensor<8x3x3x3xf32>
    %s = relay.constant dense<0.02> : tensor<f32>
    %z = relay.constant dense<0> : tensor<i8>
    %q = relay.qnn.quantize %w, %s, %z : (...) -> tensor<8x3x3x3xi8>
    %d = relay.qnn.dequantize %q, %s, %z : (...) -> tensor<8x3x3x3xf32>

becomes

    %q = relay.constant dense<...> : tensor<8x3x3x3xi8>
    %s = relay.constant dense<0.02> : tensor<f32>
    %z = relay.constant dense<0> : tensor<i8>
    %d = relay.qnn.dequantize %q, %s, %z : (...) -> tensor<8x3x3x3xf32>

`relay.qnn.dequantize` is not folded: it is how the patterns see that a float value
is a quantized tensor. With `fold-constants{dequantize=true}` it is (for a module that
runs on the host, where no pattern looks for quantized weights: the float weights are
then computed once at compile time, not at every run):

    %d = relay.constant dense<...> : tensor<8x3x3x3xf32>

A dequantize of constants read only as a norm's parameters (layer_norm's gamma and beta,
rms_norm's gamma: quantize_static quantizes a LayerNormalization's scale) folds always:
no int8 pattern reads those (norms run in float), and a target takes a norm only with
constant parameters. So does one whose every reader folds with it (all of the reader's
operands constants or dequantizes of constants): a computation on constants alone, such
as YOLOv8's anchor grid (ranges plus 0.5, reshaped and expanded) once quantize_static
has put QDQ pairs between its steps, becomes constants, not ops that run every time
(the pairs between its steps fold one after the other). A dequantize that an op with a
run-time operand reads stays: that is the int8 form the patterns match (a reader whose
other operand folds later in program order is found by another sweep); so does one on the
way to a layer's weight through reshapes, transposes and slices (a QDQ Conv1d's weight).
 An op whose evaluation fails (integer division by zero, an
overflowing accumulator) is kept, so that it fails where the graph runs. Folded values
are inline constants (a computed tensor has no name in the model's weights file); large
ones print as one hex string.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import PatternRewriter, PatternRewriteWalker, RewritePattern

from accel.compiler.diagnostics import CompileError
from accel.compiler.runtime.interpreter import OpEvaluator
from accel.compiler.tensors import inline_constant, known_value
from accel.dialects import relay
from accel.dialects.conventions import TARGET_ATTR

KEPT: tuple[type[relay.RelayOp], ...] = (relay.DequantizeOp,)
"""Ops never folded (see the module docstring)."""


def erase_dead(rewriter: PatternRewriter, ops: list[Operation]) -> None:
    """Erase the ops of `ops` that nothing uses, until none is left to erase (a few ops:
    the order need not be known), then the constants they used that became unused."""
    pending = list(dict.fromkeys(ops))
    operands: list[SSAValue] = []
    erased = True
    while erased:
        erased = False
        for op in pending:
            if op.parent is not None and all(not r.uses for r in op.results):
                operands.extend(op.operands)
                rewriter.erase_op(op)
                erased = True
    for v in operands:
        owner = v.owner
        if isinstance(owner, relay.ConstantOp) and not owner.result.uses and owner.parent is not None:
            rewriter.erase_op(owner)


def only_norm_parameter(v: SSAValue) -> bool:
    """Whether every reader of `v` takes it as a norm's gamma or beta (see the module)."""
    return v.first_use is not None and all(
        isinstance(u.operation, (relay.LayerNormOp, relay.RMSNormOp)) and u.index > 0 for u in v.uses)


def _constant_or_dequantized(v: SSAValue) -> bool:
    owner = v.owner
    return isinstance(owner, relay.ConstantOp) or (
        isinstance(owner, relay.DequantizeOp) and all(isinstance(o.owner, relay.ConstantOp) for o in owner.operands))


LAYERS = (relay.Conv2DOp, relay.Conv2DTransposeOp, relay.DenseOp, relay.MatmulOp, relay.BatchMatmulOp)
"""Ops whose weight operands (after the data) the int8 patterns read as dequantizes."""

LAYOUT = (relay.ReshapeOp, relay.TransposeOp, relay.StridedSliceOp)
"""Ops that only move a weight's elements (propagate-qdq moves dequantizes below them)."""


def reaches_a_weight(v: SSAValue, depth: int = 0) -> bool:
    """Whether `v` is a layer's weight, directly or through layout ops (a QDQ Conv1d's
    int8 weight: dequantize, reshape to 2-D, conv)."""
    for use in v.uses:
        op = use.operation
        if isinstance(op, LAYERS) and use.index > 0:
            return True
        if isinstance(op, LAYOUT) and depth < 8 and reaches_a_weight(op.results[0], depth + 1):
            return True
    return False


def only_folding_readers(v: SSAValue) -> bool:
    """Whether every reader of `v` (a dequantize of constants) would fold once it does
    (each reads only constants and dequantizes of constants), none on the way to a
    layer's weight (see the module docstring)."""
    return v.first_use is not None and not reaches_a_weight(v) and all(
        isinstance(u.operation, relay.RelayOp) and not isinstance(u.operation, KEPT)
        and len(u.operation.results) == 1 and TARGET_ATTR not in u.operation.attributes
        and all(_constant_or_dequantized(o) for o in u.operation.operands) for u in v.uses)


class FoldConstantOp(RewritePattern):
    def __init__(self, evaluator: OpEvaluator, kept: tuple[type[relay.RelayOp], ...] = KEPT):
        self.evaluator = evaluator
        self.kept = kept
        self.deferred: list[relay.DequantizeOp] = []
        """Dequantizes of constants kept because a reader did not fold (yet, maybe: a
        reader's other operand may fold later in the sweep)."""

    def match_and_rewrite(self, op, rewriter: PatternRewriter) -> None:
        if not isinstance(op, relay.RelayOp) or len(op.results) != 1:
            return
        if isinstance(op, self.kept) and not (isinstance(op, relay.DequantizeOp) and (
                only_norm_parameter(op.result) or only_folding_readers(op.result))):
            if isinstance(op, relay.DequantizeOp) and all(_constant_or_dequantized(v) for v in op.operands):
                self.deferred.append(op)
            return
        if not op.operands or TARGET_ATTR in op.attributes or isinstance(op.parent_op(), relay.CompositeOp):
            return
        if not all(isinstance(v.owner, relay.ConstantOp) for v in op.operands):
            return
        values = [known_value(v) for v in op.operands]
        try:
            (result,) = self.evaluator.evaluate(op, values)
        except CompileError:
            return  # fails at run time, where the user sees it
        constant = inline_constant(result)
        constant.location = op.location
        operands = [v.owner for v in op.operands]
        rewriter.replace_op(op, constant)
        erase_dead(rewriter, list(dict.fromkeys(operands)))


@dataclass(frozen=True)
class FoldConstants(ModulePass):
    """Evaluate relay ops whose operands are all constants (incl. quantize of weights)."""

    name = "fold-constants"

    dequantize: bool = False
    """Fold relay.qnn.dequantize of constants too (see the module docstring)."""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        kept = () if self.dequantize else KEPT
        pattern = FoldConstantOp(OpEvaluator(op), kept)
        walker = PatternRewriteWalker(pattern, apply_recursively=False)
        # One sweep in program order folds chains; a dequantize met before a reader's
        # other operand folded stayed, so the sweep runs again while one of those now has
        # only readers that fold (and the last sweep folded something).
        while walker.rewrite_module(op):
            deferred, pattern.deferred = pattern.deferred, []
            if not any(d.parent is not None and only_folding_readers(d.result) for d in deferred):
                break
