"""expand-activations: an activation (or a negation, or a square) that no target runs
becomes the elementwise ops it is made of, when one target runs all of them.

Runs in `byoc`, after tabulate-activations and before merge-composite (canonicalize has
recognised these activations in exporters' decompositions; this undoes that only for a
target that lacks the activation but has its parts). MobileNetV3's hard-swish and its
squeeze-excitation's hard-sigmoid, and the leaky ReLU of YOLO and GAN discriminators,
then run beside the convolutions around them instead of sending each activation map
through the host; so does the negation in the rotary embeddings of LLaMA-style
transformers (`rotate_half`: `concat(-x2, x1)`), which cut their attention into two
regions, and the square of the RMS norms that a QDQ quantizer splits (LLaMA's `pow(x, 2)`
before its mean). Each form computes what the reference does, in the same order, so the
result is the same bit for bit:

    hardsigmoid(x; a, b) = clip(x * a + b, 0, 1)
    hardswish(x)         = x * clip(x * (1/6) + 1/2, 0, 1)
    leaky_relu(x; a)     = relu(x) - relu(x * -1) * a      (x for x >= 0, a * x below: exact)
    negative(x)          = x * -1                          (floats: exact, the sign flipped)
    power(x, 2)          = x * x                           (floats, a constant exponent 2: the
                                                            correctly rounded square)

The constants are scalars of the data's type (the npu's binary ops broadcast a scalar).
Rewritten only when no target runs the activation and one target runs every op of its
form (`annotate_target.runs_alone`). Where merge-regions then keeps the ops on the host
(a region not worth offloading), the host runs the form, not its one kernel: the same
values, a few more passes over a small tensor.

Before (`byoc{target=npu}`; the npu has no hard-swish):

    %y = relay.nn.hardswish %x : tensor<1x16x8x8xf32>

After:

    %0 = relay.constant dense<0.166666672> : tensor<f32>
    %1 = relay.multiply %x, %0 : (tensor<1x16x8x8xf32>, tensor<f32>) -> tensor<1x16x8x8xf32>
    %2 = relay.constant dense<5.000000e-01> : tensor<f32>
    %3 = relay.add %1, %2 : (tensor<1x16x8x8xf32>, tensor<f32>) -> tensor<1x16x8x8xf32>
    %4 = relay.clip %3 {a_min = 0.0, a_max = 1.0} : tensor<1x16x8x8xf32>
    %y = relay.multiply %x, %4 : tensor<1x16x8x8xf32>
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import PatternRewriter

from accel.compiler.byoc_rewrites import TargetsRewrite, discard, replace_chain, rewrite_each
from accel.compiler.runtime.reference import HARDSWISH_ALPHA
from accel.compiler.targets import target_context
from accel.compiler.tensors import inline_constant, known_value, numpy_dtype
from accel.compiler.transforms.annotate_target import one_target_runs
from accel.dialects import relay


class _Form:
    """Builds the ops of a form on `x` (not inserted), collecting them in `ops`."""

    def __init__(self, x: SSAValue):
        self.x = x
        self.dtype = numpy_dtype(x.type.element_type)
        self.ops: list[Operation] = []

    def _add(self, op: Operation) -> SSAValue:
        self.ops.append(op)
        return op.results[0]

    def scalar(self, value: float) -> SSAValue:
        return self._add(inline_constant(np.asarray(value, self.dtype)))

    def mul(self, a: SSAValue, b: SSAValue) -> SSAValue:
        return self._add(relay.MultiplyOp(a, b))

    def add(self, a: SSAValue, b: SSAValue) -> SSAValue:
        return self._add(relay.AddOp(a, b))

    def sub(self, a: SSAValue, b: SSAValue) -> SSAValue:
        return self._add(relay.SubtractOp(a, b))

    def clip(self, a: SSAValue, lo: float, hi: float) -> SSAValue:
        return self._add(relay.ClipOp(a, a_min=lo, a_max=hi))

    def relu(self, a: SSAValue) -> SSAValue:
        return self._add(relay.ReluOp(a))


def _hardsigmoid(f: _Form, alpha: float, beta: float) -> SSAValue:
    return f.clip(f.add(f.mul(f.x, f.scalar(alpha)), f.scalar(beta)), 0.0, 1.0)


FORMS: dict[type[Operation], Callable[[_Form, Operation], SSAValue]] = {
    relay.HardSigmoidOp: lambda f, op: _hardsigmoid(f, op.prop("alpha"), op.prop("beta")),
    relay.HardSwishOp: lambda f, op: f.mul(f.x, _hardsigmoid(f, HARDSWISH_ALPHA, 0.5)),
    relay.LeakyReluOp: lambda f, op: f.sub(f.relu(f.x), f.mul(f.relu(f.mul(f.x, f.scalar(-1.0))),
                                                               f.scalar(op.prop("alpha")))),
    relay.NegativeOp: lambda f, op: f.mul(f.x, f.scalar(-1.0)),
    relay.PowerOp: lambda f, op: f.mul(f.x, f.x),
}
"""The ops this pass expands, and the elementwise ops each is made of."""

FLOAT_ONLY = (relay.NegativeOp, relay.PowerOp)
"""Forms exact only on floats (an integer negation wraps; `x * -1` of unsigned data has
no -1 to multiply by)."""


def _a_square(op: Operation) -> bool:
    """A power whose exponent is the constant 2 and does not broadcast the base."""
    exponent = known_value(op.operands[1])
    return (exponent is not None and bool(np.all(exponent == 2))
            and op.results[0].type == op.operands[0].type)


APPLIES: dict[type[Operation], Callable[[Operation], bool]] = {relay.PowerOp: _a_square}
"""Forms that hold only for some ops of their kind."""


class ExpandActivation(TargetsRewrite):
    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        form = FORMS.get(type(op))
        if form is None or not self.unclaimed(op):
            return
        if isinstance(op, FLOAT_ONLY) and not np.issubdtype(numpy_dtype(op.results[0].type.element_type), np.floating):
            return
        if not APPLIES.get(type(op), lambda _: True)(op):
            return
        built = _Form(op.operands[0])
        value = form(built, op)
        for o in built.ops:
            o.location = op.location
        computed = [o for o in built.ops if not isinstance(o, relay.ConstantOp)]
        if one_target_runs(computed, self.targets):
            replace_chain(rewriter, built.ops, op, value, [op])
        else:
            discard(built.ops)


@dataclass(frozen=True)
class ExpandActivations(ModulePass):
    """Activations no target runs (hard-swish, hard-sigmoid, leaky ReLU), float negations
    and squares become the elementwise ops they are made of, where a target runs those."""

    name = "expand-activations"

    target: tuple[str, ...] = ()
    """Targets that decide (default: --target)."""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        targets = tuple(target_context(ctx).resolve(self.target, self.name))
        if targets:
            rewrite_each(op, ExpandActivation(targets), tuple(FORMS))
