"""recognize-decompositions: exporter decompositions rewritten back into the ops they spell.

Exporters (and the ONNX importer for HardSigmoid/HardSwish) write activations as chains
of scalar arithmetic; each chain becomes one op, which a target can take as a whole:

| chain (products in any order and association, `/ c` as `* 1/c`, `x ^ 2` and `x ^ 3` as `x * x [* x]`) | becomes |
|---|---|
| `clip(x * alpha + beta, 0, 1)` | `relay.nn.hardsigmoid {alpha, beta}` |
| `clip(x + 3, 0, 6) * (1/6)` | `relay.nn.hardsigmoid {alpha = 1/6, beta = 0.5}` |
| `x * hardsigmoid(x)` (alpha 1/6, beta 1/2), `x * clip(x + 3, 0, 6) * (1/6)` | `relay.nn.hardswish` |
| `x * sigmoid(x)` | `relay.nn.silu` |
| `0.5 * x * (1 + erf(x * (1/sqrt 2)))` | `relay.nn.gelu` |
| `0.5 * x * (1 + tanh(sqrt(2/pi) * (x + 0.044715 * x * x * x)))` | `relay.nn.gelu {approximate = "tanh"}` |
| `clip(relu(x), lo, hi)`, `relu(clip(x, lo, hi))` (ReLU6 and kin), `clip(clip(x))` (overlapping ranges) | `relay.clip` |
| `(x - mean(x)) / sqrt(var(x) + eps)` over trailing axes (over others: transposed to put them last and back, as ConvNeXt's channels-first LayerNorm), `var` as `mean((x - mean(x))^2)` or `max(mean(x * x) - mean(x)^2, 0)`, the division as `* 1/sqrt(..)` or `* (1/sqrt(..) * gamma)`, `mean` as `sum * 1/n` | `relay.nn.layer_norm` (gamma 1, beta 0 unless given) |
| `x * s + (beta - mean(x) * s)`, `s = 1/sqrt(var(x) + eps) [* gamma]` (TF's batch_normalization, tf2onnx's Keras LayerNormalization) | `relay.nn.layer_norm` |
| `x / sqrt(mean(x * x) + eps)` over trailing axes, the division as `* 1/sqrt(..)` or `* (1/sqrt(..) * gamma)` (LLaMA's and T5's RMSNorm) | `relay.nn.rms_norm` (gamma 1 unless given) |
| `layer_norm(x, 1, 0) * gamma`, `rms_norm(x, 1) * gamma`, `layer_norm(x, gamma, 0) + beta` (constants over the normalized axes; `add` or `bias_add`), also of a norm over axes that were not the last ones, through its transpose back (and its gamma inside the product with `1/sqrt(..)`: Magika's LayerNorm over axis 1, as jax2tf writes it) | the norm with gamma and beta |
| `exp(x - max(x)) / sum(exp(x - max(x)))` over one axis (`max` guarded by `maximum(-inf, ..)` as jax writes it) | `relay.nn.softmax` |
| `mean(x)` over H and W of a float NCHW image that no pattern above took (torch's dynamo export of `adaptive_avg_pool2d(x, 1)`, `x.mean((2, 3))`) | `relay.nn.global_avg_pool2d` (a reshape after it without `keepdims`) |

Constants are scalars (one element, not widening the result) compared with a relative
tolerance of `REL_TOL` (exporters write 0.1666667 for 1/6). The normalizations are the
forms of exporters without a LayerNormalization or Softmax op (torch's exporter below
opset 17, tf2onnx and jax2tf; the last two are exact only up to float rounding: they
compute the variance or the shift another way); a reduction may drop its axes and a reshape put them back.
For example

    %0 = relay.multiply %x, %c6 : (tensor<1x8x4x4xf32>, tensor<f32>) -> tensor<1x8x4x4xf32>   // 1/6
    %1 = relay.add %0, %half : (tensor<1x8x4x4xf32>, tensor<f32>) -> tensor<1x8x4x4xf32>
    %2 = relay.clip %1 {a_min = 0.0, a_max = 1.0} : tensor<1x8x4x4xf32>
    %3 = relay.multiply %x, %2 : tensor<1x8x4x4xf32>

becomes

    %3 = relay.nn.hardswish %x : tensor<1x8x4x4xf32>

and

    %m = relay.mean %x {axis = [-1], keepdims = true} : (tensor<2x8x32xf32>) -> tensor<2x8x1xf32>
    %d = relay.subtract %x, %m : (tensor<2x8x32xf32>, tensor<2x8x1xf32>) -> tensor<2x8x32xf32>
    %p = relay.power %d, %two : (tensor<2x8x32xf32>, tensor<f32>) -> tensor<2x8x32xf32>
    %v = relay.mean %p {axis = [-1], keepdims = true} : (tensor<2x8x32xf32>) -> tensor<2x8x1xf32>
    %e = relay.add %v, %eps : (tensor<2x8x1xf32>, tensor<f32>) -> tensor<2x8x1xf32>
    %s = relay.sqrt %e : tensor<2x8x1xf32>
    %n = relay.divide %d, %s : (tensor<2x8x32xf32>, tensor<2x8x1xf32>) -> tensor<2x8x32xf32>
    %y = relay.multiply %n, %gamma : (tensor<2x8x32xf32>, tensor<32xf32>) -> tensor<2x8x32xf32>

becomes

    %y = relay.nn.layer_norm %x, %gamma, %zeros {axis = 2, epsilon = 1e-05} : ...

Only the chain's root value is replaced; intermediates that other ops still use stay.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp, TensorType
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
from accel.compiler.runtime.reference import HARDSWISH_ALPHA
from accel.compiler.tensors import inline_constant, known_value, numpy_dtype
from accel.compiler.transforms.fold_constants import erase_dead
from accel.dialects import relay
from accel.dialects.relay import is_float, shape_of

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
        if isinstance(op, relay.PowerOp) and scalar(op.rhs, op.lhs, v) in (2.0, 3.0):  # GPT-2's pow(x, 3)
            n = int(scalar(op.rhs, op.lhs, v))
            coeff, factors = self.product(op.lhs, depth + 1)
            self.ops.append(op)
            return coeff**n, factors * n
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


# --------------------------------------------------------------------------------------
# Normalizations
# --------------------------------------------------------------------------------------


def _keep_shape(x: SSAValue, axes: tuple[int, ...]) -> tuple[int, ...]:
    return tuple(1 if i in axes else s for i, s in enumerate(x.type.get_shape()))


def _drop_shape(x: SSAValue, axes: tuple[int, ...]) -> tuple[int, ...]:
    return tuple(s for i, s in enumerate(x.type.get_shape()) if i not in axes)


def _scaled(chain: Chain, v: SSAValue) -> tuple[SSAValue, float]:
    """`v` as (w, c) when it is `w * c` or `w / c` with a scalar c, else (v, 1)."""
    op = v.owner
    if isinstance(op, relay.MultiplyOp):
        for a, b in ((op.lhs, op.rhs), (op.rhs, op.lhs)):
            c = scalar(b, a, v)
            if c is not None:
                chain.ops.append(op)
                return a, c
    if isinstance(op, relay.DivideOp):
        c = scalar(op.rhs, op.lhs, v)
        if c:
            chain.ops.append(op)
            return op.lhs, 1 / c
    return v, 1.0


def reduction(chain: Chain, v: SSAValue, kind: type[Operation], keep: bool = True
              ) -> tuple[SSAValue, tuple[int, ...]] | None:
    """(x, axes) when `v` is the reduction `kind` of x over `axes`: with its reduced axes
    kept (`keepdims`, or dropped and put back by a reshape), or, with `keep=False`, also
    without them. For `relay.mean`, `sum * 1/n` is a mean as well."""
    w = v
    if isinstance(w.owner, relay.ReshapeOp):
        chain.ops.append(w.owner)
        w = w.owner.data
    scaled, c = _scaled(chain, w) if kind is relay.MeanOp else (w, 1.0)
    op = scaled.owner
    if c != 1.0 and isinstance(op, relay.ReshapeOp):  # jax2tf: sum, reshape, then divide
        chain.ops.append(op)
        op = op.data.owner
    if isinstance(op, relay.SumOp) and kind is relay.MeanOp:
        pass
    elif not isinstance(op, kind) or c != 1.0:
        return None
    if op.prop("exclude"):
        return None
    x = op.data
    axes = op.reduced_axes(len(x.type.get_shape()), op.py_props())
    if kind is relay.MeanOp and isinstance(op, relay.SumOp) and not close(c * math.prod(
            x.type.get_shape()[a] for a in axes), 1.0):
        return None
    shape = v.type.get_shape()
    if shape != _keep_shape(x, axes) and (keep or shape != _drop_shape(x, axes)):
        return None
    chain.ops.append(op)
    return x, axes


def centered(chain: Chain, d: SSAValue) -> tuple[SSAValue, tuple[int, ...]] | None:
    """(x, axes) when `d` is `x - mean(x)` over `axes`."""
    op = d.owner
    if not isinstance(op, relay.SubtractOp) or d.type != op.lhs.type:
        return None
    found = reduction(chain, op.rhs, relay.MeanOp)
    if found is None or found[0] is not op.lhs:
        return None
    chain.ops.append(op)
    return found


def mean_square(chain: Chain, v: SSAValue) -> tuple[SSAValue, tuple[int, ...]] | None:
    """(y, axes) when `v` is `mean(y * y)` (or of `y^2`) over `axes`, its axes kept."""
    found = reduction(chain, v, relay.MeanOp)
    if found is None:
        return None
    sq, axes = found
    op = sq.owner
    if isinstance(op, relay.MultiplyOp) and op.lhs is op.rhs:
        base = op.lhs
    elif isinstance(op, relay.PowerOp) and scalar(op.rhs, op.lhs, sq) == 2.0:
        base = op.lhs
    else:
        return None
    chain.ops.append(op)
    return base, axes


def is_variance(chain: Chain, v: SSAValue, x: SSAValue, axes: tuple[int, ...]) -> bool:
    """Whether `v` is the (biased) variance of x over `axes`: `mean((x - mean(x))^2)`, or
    `mean(x * x) - mean(x)^2` (floored at 0, as jax writes it)."""
    found = mean_square(chain, v)
    if found is not None:
        return found[1] == axes and centered(chain, found[0]) == (x, axes)
    if isinstance(v.owner, relay.MeanOp):
        return False
    w = v
    if isinstance(w.owner, relay.ReshapeOp):
        chain.ops.append(w.owner)
        w = w.owner.data
    op = w.owner
    if isinstance(op, relay.MaximumOp):
        floor = [a for a, b in ((op.lhs, op.rhs), (op.rhs, op.lhs)) if scalar(b, a, w) == 0.0]
        if not floor:
            return False
        chain.ops.append(op)
        w = floor[0]
        op = w.owner
    if not isinstance(op, relay.SubtractOp) or op.lhs.type != w.type:
        return False
    square_mean = reduction(chain, op.lhs, relay.MeanOp, keep=False)
    sq = op.rhs.owner
    if square_mean is None or not isinstance(sq, relay.MultiplyOp) or sq.lhs is not sq.rhs:
        return False
    squared = square_mean[0].owner
    if (square_mean[1] != axes or not isinstance(squared, relay.MultiplyOp) or squared.lhs is not x
            or squared.rhs is not x):  # fmt: skip
        return False
    chain.ops += [op, sq, squared]
    return reduction(chain, sq.lhs, relay.MeanOp, keep=False) == (x, axes)


def inverse_std(chain: Chain, q: SSAValue, x: SSAValue, axes: tuple[int, ...]) -> float | None:
    """eps when `q` is `1 / sqrt(var(x) + eps)` (`var` as `is_variance` takes it)."""
    op = q.owner
    if not isinstance(op, relay.DivideOp) or not close(scalar(op.lhs, op.rhs, q) or 0.0, 1.0):
        return None
    chain.ops.append(op)
    return std(chain, op.rhs, x, axes)


def std(chain: Chain, s: SSAValue, x: SSAValue, axes: tuple[int, ...]) -> float | None:
    """eps when `s` is `sqrt(var(x) + eps)` (eps >= 0; none is 0)."""
    op = s.owner
    if not isinstance(op, relay.SqrtOp):
        return None
    chain.ops.append(op)
    sum_ = chain.plus_const(op.data)
    var, eps = sum_ if sum_ is not None else (op.data, 0.0)
    if eps < 0 or not is_variance(chain, var, x, axes):
        return None
    return eps


Param = np.ndarray | SSAValue | None
"""A layer norm's gamma or beta: a value of the normalized shape, an array to make a
constant of, or None (ones, zeros)."""


def scaled_inverse_std(chain: Chain, q: SSAValue, x: SSAValue, axes: tuple[int, ...], axis: int | None
                       ) -> tuple[float | None, Param]:
    """(eps, gamma) when `q` is `1 / sqrt(var(x) + eps)` (gamma None) or that times a
    gamma over the normalized axes (as jax2tf and TF's batch_normalization write it);
    else (None, None). `axis`: the first normalized axis when they are the last ones
    (else None: the gamma is a constant, taken as `param_over` lays it out)."""
    eps = inverse_std(chain, q, x, axes)
    scale = q.owner
    if eps is not None or not isinstance(scale, relay.MultiplyOp):
        return eps, None
    for r, g in ((scale.lhs, scale.rhs), (scale.rhs, scale.lhs)):
        gamma = as_param(g, x, axis) if axis is not None else param_over(g, x, axes)
        eps = inverse_std(chain, r, x, axes) if gamma is not None else None
        if eps is not None:
            chain.ops.append(scale)
            return eps, gamma
    return None, None


def over_normalized(value: np.ndarray, x: SSAValue, axis: int) -> np.ndarray | None:
    """A constant operand broadcast against x as an array of x's normalized shape (x's
    axes from `axis` on), or None if it varies along an axis before `axis`."""
    norm = x.type.get_shape()[axis:]
    lead = value.ndim - len(norm)
    if lead > 0:
        if any(d != 1 for d in value.shape[:lead]):
            return None
        value = value.reshape(value.shape[lead:])
    try:
        return np.broadcast_to(value, norm)
    except ValueError:
        return None


def param_over(c: SSAValue, x: SSAValue, axes: tuple[int, ...]) -> np.ndarray | None:
    """A float constant broadcast against x as a parameter of x's norm over `axes` (any
    axes): an array over those axes in their order (as `layer_norm_over` puts them last),
    or None if it varies along another axis (or does not broadcast to x's shape)."""
    value = known_value(c)
    shape = x.type.get_shape()
    if value is None or value.dtype.kind != "f" or value.ndim > len(shape):
        return None
    try:
        full = np.broadcast_to(value, shape)
    except ValueError:
        return None
    kept = [a for a in range(len(shape)) if a not in axes]
    rows = np.transpose(full, [*kept, *sorted(axes)])
    first = rows[(0,) * len(kept)]
    return first if np.array_equal(np.broadcast_to(first, rows.shape), rows) else None


def norm_params(x: SSAValue, axis: int, *given: tuple[Param, float]) -> tuple[list[Operation], list[SSAValue]]:
    """Values for the parameters of a norm of x over its axes from `axis` on, each given
    as (param, the fill of a missing one): the constants made, and the values."""
    norm = x.type.get_shape()[axis:]
    dtype = numpy_dtype(x.type.element_type)
    new: list[Operation] = []
    values = []
    for param, fill in given:
        if not isinstance(param, SSAValue):
            new.append(inline_constant(np.full(norm, fill, dtype) if param is None
                                       else np.ascontiguousarray(param, dtype)))
            param = new[-1].results[0]
        values.append(param)
    return new, values


def layer_norm(x: SSAValue, axis: int, eps: float, gamma: Param = None, beta: Param = None) -> list[Operation]:
    """The constants and the `relay.nn.layer_norm` of x over its axes from `axis` on."""
    new, values = norm_params(x, axis, (gamma, 1), (beta, 0))
    return [*new, relay.LayerNormOp(x, *values, axis=axis, epsilon=eps)]


def as_param(c: SSAValue, x: SSAValue, axis: int, reshape: list[int] | None = None) -> Param:
    """`c` as a layer norm parameter of x normalized from `axis` on: `c` itself when it
    has the normalized shape (an initializer keeps its name, a run-time value is taken
    as is), else the value of a float constant, reshaped by `reshape` and broadcast to
    that shape (None if it is not constant or does not fit)."""
    if reshape is None and c.type == TensorType(x.type.element_type, x.type.get_shape()[axis:]):
        return c
    value = known_value(c)
    if value is None or value.dtype.kind != "f":
        return None
    return over_normalized(value if reshape is None else value.reshape(reshape), x, axis)


def replace_by(rewriter: PatternRewriter, root: Operation, new: list[Operation], chain: Chain) -> None:
    """`replace` with ops the last of which replaces the root."""
    for op in new[:-1]:
        rewriter.insert_op(op, InsertPoint.before(root))
    replace(rewriter, root, new[-1], chain)


def trailing(axes: tuple[int, ...], rank: int) -> int | None:
    """The first axis when `axes` are the last ones of a rank-`rank` tensor."""
    first = rank - len(axes)
    return first if axes and tuple(sorted(axes)) == tuple(range(first, rank)) else None


def layer_norm_over(x: SSAValue, axes: tuple[int, ...], eps: float, gamma: np.ndarray | None = None
                    ) -> list[Operation]:
    """The ops of the layer norm of x over `axes`, without beta (gamma: over `axes` in
    their order, see `param_over`). Over axes that are not the last ones (ConvNeXt's
    channels-first LayerNorm: a mean over axis 1 of an NCHW image; Magika's over axis 1
    of its 1x512x256 sequence) it is the norm of x transposed to put them last,
    transposed back (targets run norms over rows)."""
    rank = len(x.type.get_shape())
    axis = trailing(axes, rank)
    if axis is not None:
        return layer_norm(x, axis, eps, gamma)
    perm = [*(a for a in range(rank) if a not in axes), *sorted(axes)]
    to_rows = relay.TransposeOp(x, axes=perm)
    norm = layer_norm(to_rows.result, rank - len(axes), eps, gamma)
    back = relay.TransposeOp(norm[-1].results[0], axes=[perm.index(a) for a in range(rank)])
    return [to_rows, *norm, back]


class LayerNormFromMoments(RewritePattern):
    """`(x - mean(x)) / sqrt(var(x) + eps)` (and the forms of the table) -> layer_norm."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if not isinstance(op, (relay.DivideOp, relay.MultiplyOp)) or not float_valued(op.results[0]):
            return
        if isinstance(op.parent_op(), relay.CompositeOp):
            return
        for d, q in ((op.lhs, op.rhs), (op.rhs, op.lhs)) if isinstance(op, relay.MultiplyOp) else ((op.lhs, op.rhs),):
            chain = Chain()
            found = centered(chain, d)
            if found is None or op.results[0].type != d.type:
                continue
            x, axes = found
            axis = trailing(axes, len(x.type.get_shape()))
            if isinstance(op, relay.DivideOp):
                eps, gamma = std(chain, q, x, axes), None
            else:
                eps, gamma = scaled_inverse_std(chain, q, x, axes, axis)
            if eps is None:
                continue
            if axis is None:
                replace_by(rewriter, op, layer_norm_over(x, axes, eps, gamma), chain)
            else:
                replace_by(rewriter, op, layer_norm(x, axis, eps, gamma), chain)
            return


class LayerNormFromShift(RewritePattern):
    """`x * s + (beta - mean(x) * s)` with `s = 1/sqrt(var(x) + eps) [* gamma]` (TF's
    batch_normalization, as tf2onnx writes Keras' LayerNormalization; `-(mean(x) * s)`
    without beta) -> layer_norm."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: relay.AddOp, rewriter: PatternRewriter) -> None:
        if not float_valued(op.result) or isinstance(op.parent_op(), relay.CompositeOp):
            return
        for p, c in ((op.lhs, op.rhs), (op.rhs, op.lhs)):
            prod, shift = p.owner, c.owner
            if not isinstance(prod, relay.MultiplyOp) or p.type != op.result.type:
                continue
            if isinstance(shift, relay.SubtractOp):
                beta_value, shifted = shift.lhs, shift.rhs
            elif isinstance(shift, relay.NegativeOp):
                beta_value, shifted = None, shift.data
            else:
                continue
            for x, q in ((prod.lhs, prod.rhs), (prod.rhs, prod.lhs)):
                mean_times = shifted.owner
                if x.type != op.result.type or not isinstance(mean_times, relay.MultiplyOp) or q not in (
                        mean_times.lhs, mean_times.rhs):  # fmt: skip
                    continue
                chain = Chain([prod, shift, mean_times])
                found = reduction(chain, other(mean_times, q), relay.MeanOp)
                axis = trailing(found[1], len(x.type.get_shape())) if found and found[0] is x else None
                if axis is None:
                    continue
                eps, gamma = scaled_inverse_std(chain, q, x, found[1], axis)
                beta = as_param(beta_value, x, axis) if beta_value is not None else None
                if eps is not None and (beta_value is None or beta is not None):
                    replace_by(rewriter, op, layer_norm(x, axis, eps, gamma, beta), chain)
                    return


def root_mean_square(chain: Chain, s: SSAValue, x: SSAValue) -> tuple[float, tuple[int, ...]] | None:
    """(eps, axes) when `s` is `sqrt(mean(x * x) + eps)` over `axes` (eps >= 0)."""
    op = s.owner
    if not isinstance(op, relay.SqrtOp):
        return None
    chain.ops.append(op)
    sum_ = chain.plus_const(op.data)
    ms, eps = sum_ if sum_ is not None else (op.data, 0.0)
    found = mean_square(chain, ms)
    if eps < 0 or found is None or found[0] is not x:
        return None
    return eps, found[1]


def inverse_rms(chain: Chain, q: SSAValue, x: SSAValue) -> tuple[float, tuple[int, ...]] | None:
    """(eps, axes) when `q` is `1 / sqrt(mean(x * x) + eps)`."""
    op = q.owner
    if not isinstance(op, relay.DivideOp) or not close(scalar(op.lhs, op.rhs, q) or 0.0, 1.0):
        return None
    chain.ops.append(op)
    return root_mean_square(chain, op.rhs, x)


class RMSNormFromMoments(RewritePattern):
    """`x / sqrt(mean(x * x) + eps)`, `x * (1 / sqrt(..))` and `x * (1 / sqrt(..) * gamma)`
    over trailing axes (LLaMA's and T5's RMSNorm as torch exports it) -> rms_norm. Tried
    after the layer norms: `(x - mean) / sqrt(var + eps)` is an RMS norm of `x - mean`."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if not isinstance(op, (relay.DivideOp, relay.MultiplyOp)) or not float_valued(op.results[0]):
            return
        if isinstance(op.parent_op(), relay.CompositeOp):
            return
        for x, q in ((op.lhs, op.rhs), (op.rhs, op.lhs)) if isinstance(op, relay.MultiplyOp) else ((op.lhs, op.rhs),):
            if op.results[0].type != x.type:
                continue
            chain = Chain()
            gamma: Param = None
            if isinstance(op, relay.DivideOp):
                found = root_mean_square(chain, q, x)
            else:
                found = inverse_rms(chain, q, x)
                scale = q.owner
                if found is None and isinstance(scale, relay.MultiplyOp):  # 1/rms * gamma
                    for r, g in ((scale.lhs, scale.rhs), (scale.rhs, scale.lhs)):
                        found = inverse_rms(chain, r, x)
                        axis = trailing(found[1], len(x.type.get_shape())) if found else None
                        gamma = as_param(g, x, axis) if axis is not None else None
                        if gamma is not None:
                            chain.ops.append(scale)
                            break
                        found = None
            axis = trailing(found[1], len(x.type.get_shape())) if found else None
            if axis is not None:
                replace_by(rewriter, op, rms_norm(x, axis, found[0], gamma), chain)
                return


def rms_norm(x: SSAValue, axis: int, eps: float, gamma: Param = None) -> list[Operation]:
    """The constant and the `relay.nn.rms_norm` of x over its axes from `axis` on."""
    new, (g,) = norm_params(x, axis, (gamma, 1))
    return [*new, relay.RMSNormOp(x, g, axis=axis, epsilon=eps)]


def _all(value: np.ndarray | None, fill: float) -> bool:
    return value is not None and bool(np.all(value == fill))


def takes_affine(op: Operation, ln: relay.LayerNormOp | relay.RMSNormOp) -> bool:
    """Whether `op` (a multiply, add or bias_add of the norm `ln`'s result) can become its
    gamma (a multiply, where its gamma is 1) or its beta (an add, where its beta is 0; an
    RMS norm has none)."""
    scales = isinstance(op, relay.MultiplyOp)
    if scales and not _all(known_value(ln.gamma), 1.0):
        return False
    return scales if isinstance(ln, relay.RMSNormOp) else _all(known_value(ln.beta), 0.0)


def norm_with(ln: relay.LayerNormOp | relay.RMSNormOp, x: SSAValue, axis: int, param: Param, scales: bool
              ) -> list[Operation]:
    """The ops of `ln` (on x, from `axis` on) with `param` as its gamma (`scales`) or beta."""
    if isinstance(ln, relay.RMSNormOp):
        return rms_norm(x, axis, ln.prop("epsilon"), param)
    gamma, beta = (param, ln.beta) if scales else (ln.gamma, param)
    return layer_norm(x, axis, ln.prop("epsilon"), gamma, beta)


class NormAffine(RewritePattern):
    """`layer_norm(x, 1, 0) * gamma`, `rms_norm(x, 1) * gamma` and `layer_norm(x, gamma,
    0) + beta` (`add` or `bias_add`; of a value of the normalized shape, or a constant that
    broadcasts over the normalized axes) -> one norm; exact: the normalized values are
    scaled by 1 and shifted by 0 first."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if not isinstance(op, (relay.MultiplyOp, relay.AddOp, relay.BiasAddOp)):
            return
        for ln_value, c in ((op.operands[0], op.operands[1]), (op.operands[1], op.operands[0])):
            ln = ln_value.owner
            if (isinstance(ln, (relay.LayerNormOp, relay.RMSNormOp)) and ln_value.has_one_use()
                    and op.results[0].type == ln_value.type):  # fmt: skip
                break
            if isinstance(op, relay.BiasAddOp):
                return
        else:
            return
        if not takes_affine(op, ln):
            return
        x = ln.data
        rank = len(x.type.get_shape())
        axis = ln.prop("axis") % rank
        if isinstance(op, relay.BiasAddOp):
            along = op.prop("axis") % rank
            if along < axis:
                return
            # a 1-D bias along the one normalized axis is the parameter itself
            param = c if along == axis == rank - 1 else as_param(
                c, x, axis, [-1 if i == along else 1 for i in range(axis, rank)])
        else:
            param = as_param(c, x, axis)
        if param is None:
            return
        replace_by(rewriter, op, norm_with(ln, x, axis, param, isinstance(op, relay.MultiplyOp)), Chain([ln]))


class NormAffineAcrossTranspose(RewritePattern):
    """`transpose(norm) * gamma` and `transpose(norm) + beta`, where the norm runs over
    axes that were not the last ones (see `layer_norm_over`), with a constant varying
    only along the normalized axes -> the transposed norm with that parameter (as
    `NormAffine`; jax2tf writes Magika's channels-first LayerNorm so, its beta a
    `bias_add` along axis 1)."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if not isinstance(op, (relay.MultiplyOp, relay.AddOp, relay.BiasAddOp)):
            return
        for t_value, c in ((op.operands[0], op.operands[1]), (op.operands[1], op.operands[0])):
            back = t_value.owner
            if (isinstance(back, relay.TransposeOp) and t_value.has_one_use() and back.data.has_one_use()
                    and isinstance(back.data.owner, (relay.LayerNormOp, relay.RMSNormOp))
                    and op.results[0].type == t_value.type):  # fmt: skip
                break
            if isinstance(op, relay.BiasAddOp):
                return
        else:
            return
        ln = back.data.owner
        if not takes_affine(op, ln):
            return
        value = known_value(c)
        out_shape = t_value.type.get_shape()
        if value is None or value.dtype.kind != "f":
            return
        if isinstance(op, relay.BiasAddOp):
            along = op.prop("axis") % len(out_shape)
            value = value.reshape([-1 if i == along else 1 for i in range(len(out_shape))])
        try:
            full = np.broadcast_to(value, out_shape)
        except ValueError:
            return
        x = ln.data
        axis = ln.prop("axis") % len(out_shape)
        perm = relay.TransposeOp.perm(len(out_shape), back.py_props()["axes"])
        rows = np.transpose(full, np.argsort(perm))  # in the norm's layout
        param = rows[(0,) * axis]
        if not np.array_equal(np.broadcast_to(param, rows.shape), rows):
            return
        norm = norm_with(ln, x, axis, param, isinstance(op, relay.MultiplyOp))
        new_back = relay.TransposeOp(norm[-1].results[0], axes=list(perm))
        replace_by(rewriter, op, [*norm, new_back], Chain([ln, back]))


def row_statistic(chain: Chain, v: SSAValue, kind: type[Operation], x: SSAValue | None = None
                  ) -> tuple[SSAValue, int] | None:
    """(x, axis) when `v` is `kind` (max or sum) of x over one axis, its axis kept (see
    `reduction`); a max may be guarded by `maximum(-inf, ..)`."""
    w = v
    if kind is relay.MaxOp:
        reshaped = w.owner if isinstance(w.owner, relay.ReshapeOp) else None
        inner = reshaped.data if reshaped else w
        guard = inner.owner
        if isinstance(guard, relay.MaximumOp):
            for a, b in ((guard.lhs, guard.rhs), (guard.rhs, guard.lhs)):
                if scalar(b, a, inner) == -math.inf:
                    found = reduction(chain, a, kind, keep=reshaped is None)
                    if found is None or (reshaped and reshaped.result.type.get_shape() != _keep_shape(*found)):
                        return None
                    chain.ops += [guard, *([reshaped] if reshaped else [])]
                    break
            else:
                return None
        else:
            found = reduction(chain, w, kind)
    else:
        found = reduction(chain, w, kind)
    if found is None or len(found[1]) != 1 or (x is not None and found[0] is not x):
        return None
    return found[0], found[1][0]


class SoftmaxFromExp(RewritePattern):
    """`exp(x - max(x)) / sum(exp(x - max(x)))` over one axis -> softmax(x)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: relay.DivideOp, rewriter: PatternRewriter) -> None:
        if not float_valued(op.result) or isinstance(op.parent_op(), relay.CompositeOp):
            return
        e = op.lhs
        exp = e.owner
        if not isinstance(exp, relay.ExpOp) or op.result.type != e.type:
            return
        chain = Chain([exp])
        total = row_statistic(chain, op.rhs, relay.SumOp, e)
        shifted = exp.data.owner
        if total is None or not isinstance(shifted, relay.SubtractOp) or shifted.result.type != shifted.lhs.type:
            return
        peak = row_statistic(chain, shifted.rhs, relay.MaxOp, shifted.lhs)
        if peak is None or peak[1] != total[1]:
            return
        chain.ops.append(shifted)
        replace(rewriter, op, relay.SoftmaxOp(shifted.lhs, axis=peak[1]), chain)


class GlobalAvgPoolFromMean(RewritePattern):
    """`mean(x)` over axes 2 and 3 of a float 4-D (NCHW) tensor -> global_avg_pool2d(x)
    (the same mean of each channel's plane, which accelerators run as a pool)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: relay.MeanOp, rewriter: PatternRewriter) -> None:
        shape = shape_of(op.data.type)
        if len(shape) != 4 or not float_valued(op.result) or isinstance(op.parent_op(), relay.CompositeOp):
            return
        if relay.MeanOp.reduced_axes(4, op.py_props()) != (2, 3):
            return
        pool = relay.GlobalAvgPool2DOp(op.data)
        new = [pool] if op.prop("keepdims") else [pool, relay.ReshapeOp(pool.result, newshape=list(shape[:2]))]
        for o in new:
            o.location = op.location
        rewriter.replace_op(op, new)


@dataclass(frozen=True)
class RecognizeDecompositions(ModulePass):
    """Rewrite exporter decompositions back into ops (HardSwish, HardSigmoid, SiLU, GELU,
    ReLU6, layer norm, RMS norm, softmax, global average pool)."""

    name = "recognize-decompositions"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        patterns = GreedyRewritePatternApplier([MergeReluClip(), HardSigmoidFromClip(), SoftmaxFromExp(),
                                                LayerNormFromMoments(), LayerNormFromShift(), RMSNormFromMoments(),
                                                NormAffine(), NormAffineAcrossTranspose(), ProductPatterns()])
        rewrite_module(op, patterns)
        # After the normalizations: their means over H and W stay theirs.
        rewrite_module(op, GlobalAvgPoolFromMean(), apply_recursively=False)
