"""recognize-decompositions: exporter decompositions rewritten back into the ops they spell.

Exporters (and the ONNX importer for HardSigmoid/HardSwish) write activations as chains
of scalar arithmetic; each chain becomes one op, which a target can take as a whole:

| chain (products in any order and association, `/ c` as `* 1/c`) | becomes |
|---|---|
| `clip(x * alpha + beta, 0, 1)` | `relay.nn.hardsigmoid {alpha, beta}` |
| `clip(x + 3, 0, 6) * (1/6)` | `relay.nn.hardsigmoid {alpha = 1/6, beta = 0.5}` |
| `x * hardsigmoid(x)` (alpha 1/6, beta 1/2), `x * clip(x + 3, 0, 6) * (1/6)` | `relay.nn.hardswish` |
| `x * sigmoid(x)` | `relay.nn.silu` |
| `0.5 * x * (1 + erf(x * (1/sqrt 2)))` | `relay.nn.gelu` |
| `0.5 * x * (1 + tanh(sqrt(2/pi) * (x + 0.044715 * x * x * x)))` | `relay.nn.gelu {approximate = "tanh"}` |
| `clip(relu(x), lo, hi)`, `relu(clip(x, lo, hi))` (ReLU6 and kin), `clip(clip(x))` (overlapping ranges) | `relay.clip` |

Constants are scalars (one element, not widening the result) compared with a relative
tolerance of `REL_TOL` (exporters write 0.1666667 for 1/6). For example

    %0 = relay.multiply %x, %c6 : (tensor<1x8x4x4xf32>, tensor<f32>) -> tensor<1x8x4x4xf32>   // 1/6
    %1 = relay.add %0, %half : (tensor<1x8x4x4xf32>, tensor<f32>) -> tensor<1x8x4x4xf32>
    %2 = relay.clip %1 {a_min = 0.0, a_max = 1.0} : tensor<1x8x4x4xf32>
    %3 = relay.multiply %x, %2 : tensor<1x8x4x4xf32>

becomes

    %3 = relay.nn.hardswish %x : tensor<1x8x4x4xf32>

Only the chain's root value is replaced; intermediates that other ops still use stay.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)

from accel.compiler.runtime.reference import HARDSWISH_ALPHA
from accel.compiler.tensors import known_value
from accel.compiler.transforms.fold_constants import erase_dead
from accel.dialects import relay
from accel.dialects.relay import is_float

REL_TOL = 1e-5
"""Relative tolerance of a recognised constant (float32 rounding, 7-digit decimals)."""

MAX_DEPTH = 4
"""How deep a product is looked into (the deepest chain, GELU's 0.044715 * x * x * x, is 3)."""

GELU_TANH_COEFF = 0.044715
SQRT_2_OVER_PI = math.sqrt(2 / math.pi)


def float_valued(v: SSAValue) -> bool:
    return is_float(v.type.element_type)


def close(value: float, want: float) -> bool:
    return abs(value - want) <= REL_TOL * abs(want)


def scalar(v: SSAValue, partner: SSAValue, result: SSAValue) -> float | None:
    """The value of `v` when it is a one-element float constant that leaves the shape of
    `partner` unchanged in `result`."""
    value = known_value(v)
    if value is None or value.size != 1 or value.dtype.kind != "f" or result.type != partner.type:
        return None
    return float(value.reshape(()))


def other(op: Operation, v: SSAValue) -> SSAValue:
    """The operand of the binary `op` that is not `v`."""
    return op.operands[1] if op.operands[0] is v else op.operands[0]


@dataclass
class Chain:
    """The ops a match looked through (operands before users), erased when dead."""

    ops: list[Operation] = field(default_factory=list)

    def product(self, v: SSAValue, depth: int = 0) -> tuple[float, list[SSAValue]]:
        """`v` as coefficient * product of factors, looking through multiplies and
        divisions by scalar constants: below `v`, only through single-use ones and at
        most `MAX_DEPTH` deep (a tree of bounded size, so each root costs O(1))."""
        op = v.owner
        if depth > MAX_DEPTH or (depth and not v.has_one_use()):
            return 1.0, [v]
        if isinstance(op, relay.MultiplyOp):
            for a, b in ((op.lhs, op.rhs), (op.rhs, op.lhs)):
                c = scalar(b, a, v)
                if c is not None:
                    coeff, factors = self.product(a, depth + 1)
                    self.ops.append(op)
                    return coeff * c, factors
            ca, fa = self.product(op.lhs, depth + 1)
            cb, fb = self.product(op.rhs, depth + 1)
            self.ops.append(op)
            return ca * cb, fa + fb
        if isinstance(op, relay.DivideOp):
            c = scalar(op.rhs, op.lhs, v)
            if c is not None and c != 0:
                coeff, factors = self.product(op.lhs, depth + 1)
                self.ops.append(op)
                return coeff / c, factors
        return 1.0, [v]

    def plus_const(self, v: SSAValue) -> tuple[SSAValue, float] | None:
        """`v` as (y, c) when it is `y + c` (or `c + y`, `y - c`) with a scalar c."""
        op = v.owner
        if isinstance(op, relay.AddOp):
            for a, b in ((op.lhs, op.rhs), (op.rhs, op.lhs)):
                c = scalar(b, a, v)
                if c is not None:
                    self.ops.append(op)
                    return a, c
        if isinstance(op, relay.SubtractOp):
            c = scalar(op.rhs, op.lhs, v)
            if c is not None:
                self.ops.append(op)
                return op.lhs, -c
        return None

    def one_plus(self, v: SSAValue, kind: type[Operation]) -> SSAValue | None:
        """The operand of `kind` when `v` is `1 + kind(operand)`."""
        sum_ = self.plus_const(v)
        if sum_ is None or not close(sum_[1], 1.0) or not isinstance(sum_[0].owner, kind):
            return None
        self.ops.append(sum_[0].owner)
        return sum_[0].owner.operands[0]

    def is_clip(self, v: SSAValue, lo: float, hi: float) -> SSAValue | None:
        op = v.owner
        if isinstance(op, relay.ClipOp) and op.prop("a_min") == lo and op.prop("a_max") == hi:
            self.ops.append(op)
            return op.data
        return None

    def hardsigmoid6(self, v: SSAValue) -> SSAValue | None:
        """x when `v` is `clip(x + 3, 0, 6)`."""
        inner = self.is_clip(v, 0.0, 6.0)
        sum_ = self.plus_const(inner) if inner is not None else None
        return sum_[0] if sum_ is not None and close(sum_[1], 3.0) else None


def linear_in(chain: Chain, v: SSAValue, x: SSAValue, coeff: float) -> bool:
    c, factors = chain.product(v)
    return factors == [x] and close(c, coeff)


def _same_value(factors: list[SSAValue]) -> bool:
    return all(f is factors[0] for f in factors)


# --------------------------------------------------------------------------------------
# Patterns
# --------------------------------------------------------------------------------------


def replace(rewriter: PatternRewriter, root: Operation, new: Operation, chain: Chain) -> None:
    new.location = root.location
    new.results[0].name_hint = root.results[0].name_hint
    rewriter.replace_op(root, new)
    erase_dead(rewriter, chain.ops)


class HardSigmoidFromClip(RewritePattern):
    """clip(x * alpha + beta, 0, 1) -> hardsigmoid(x)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: relay.ClipOp, rewriter: PatternRewriter) -> None:
        if not float_valued(op.result) or op.prop("a_min") != 0.0 or op.prop("a_max") != 1.0:
            return
        chain = Chain()
        sum_ = chain.plus_const(op.data)
        if sum_ is None:
            return
        alpha, (x, *rest) = chain.product(sum_[0])
        if rest or x.type != op.result.type:
            return
        replace(rewriter, op, relay.HardSigmoidOp(x, alpha=alpha, beta=sum_[1]), chain)


class ProductPatterns(RewritePattern):
    """Products rooted at a multiply or divide: hardsigmoid (clip6 form), hardswish,
    silu, gelu (erf and tanh forms)."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if not isinstance(op, (relay.MultiplyOp, relay.DivideOp)) or not float_valued(op.results[0]):
            return
        if isinstance(op.parent_op(), relay.CompositeOp):
            return
        chain = Chain()
        coeff, factors = chain.product(op.results[0])
        new = self.recognize(chain, coeff, factors)
        if new is not None and new.results[0].type == op.results[0].type:
            replace(rewriter, op, new, chain)

    def recognize(self, chain: Chain, coeff: float, factors: list[SSAValue]) -> Operation | None:
        if len(factors) == 1 and close(coeff, HARDSWISH_ALPHA):
            x = chain.hardsigmoid6(factors[0])
            if x is not None:
                return relay.HardSigmoidOp(x, alpha=HARDSWISH_ALPHA, beta=0.5)
        if len(factors) != 2:
            return None
        for x, g in (factors, factors[::-1]):
            new = self.recognize_pair(chain, coeff, x, g)
            if new is not None:
                return new
        return None

    def recognize_pair(self, chain: Chain, coeff: float, x: SSAValue, g: SSAValue) -> Operation | None:
        """`coeff * x * g(x)` as one op of x."""
        gate = g.owner
        if close(coeff, 1.0):
            if isinstance(gate, relay.SigmoidOp) and gate.data is x:
                return relay.SiluOp(x)
            if (isinstance(gate, relay.HardSigmoidOp) and gate.data is x
                    and close(gate.prop("alpha"), HARDSWISH_ALPHA) and close(gate.prop("beta"), 0.5)):  # fmt: skip
                return relay.HardSwishOp(x)
        if close(coeff, HARDSWISH_ALPHA) and chain.hardsigmoid6(g) is x:
            return relay.HardSwishOp(x)
        if not close(coeff, 0.5):
            return None
        arg = chain.one_plus(g, relay.ErfOp)
        if arg is not None and linear_in(chain, arg, x, 1 / math.sqrt(2)):
            return relay.GeluOp(x)
        arg = chain.one_plus(g, relay.TanhOp)
        if arg is not None and self.gelu_tanh_inner(chain, arg, x):
            return relay.GeluOp(x, approximate="tanh")
        return None

    def gelu_tanh_inner(self, chain: Chain, v: SSAValue, x: SSAValue) -> bool:
        """v == sqrt(2/pi) * (x + 0.044715 * x * x * x)."""
        coeff, factors = chain.product(v)
        if len(factors) != 1 or not close(coeff, SQRT_2_OVER_PI):
            return False
        op = factors[0].owner
        if not isinstance(op, relay.AddOp):
            return False
        for a, b in ((op.lhs, op.rhs), (op.rhs, op.lhs)):
            if a is x:
                c, cube = chain.product(b)
                if len(cube) == 3 and _same_value(cube) and cube[0] is x and close(c, GELU_TANH_COEFF):
                    chain.ops.append(op)
                    return True
        return False


class MergeReluClip(RewritePattern):
    """clip(relu(x), lo, hi) with lo >= 0, relu(clip(x, lo, hi)) and clip(clip(x)) with
    overlapping ranges -> one clip (ReLU6)."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        chain = Chain()
        if isinstance(op, relay.ClipOp) and isinstance(op.data.owner, relay.ReluOp) and op.prop("a_min") >= 0:
            chain.ops.append(op.data.owner)
            new = relay.ClipOp(op.data.owner.data, a_min=op.prop("a_min"), a_max=op.prop("a_max"))
        elif isinstance(op, relay.ReluOp) and isinstance(op.data.owner, relay.ClipOp):
            clip = op.data.owner
            chain.ops.append(clip)
            new = relay.ClipOp(clip.data, a_min=max(clip.prop("a_min"), 0.0), a_max=max(clip.prop("a_max"), 0.0))
        elif isinstance(op, relay.ClipOp) and isinstance(op.data.owner, relay.ClipOp):
            # Two clips whose ranges overlap are one (a relu6 chain after another one).
            inner = op.data.owner
            lo, hi = max(inner.prop("a_min"), op.prop("a_min")), min(inner.prop("a_max"), op.prop("a_max"))
            if lo > hi:
                return
            chain.ops.append(inner)
            new = relay.ClipOp(inner.data, a_min=lo, a_max=hi)
        else:
            return
        replace(rewriter, op, new, chain)


@dataclass(frozen=True)
class RecognizeDecompositions(ModulePass):
    """Rewrite exporter decompositions back into ops (HardSwish, HardSigmoid, SiLU, GELU, ReLU6)."""

    name = "recognize-decompositions"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        patterns = GreedyRewritePatternApplier([MergeReluClip(), HardSigmoidFromClip(), ProductPatterns()])
        PatternRewriteWalker(patterns).rewrite_module(op)
