"""Converters of run-time math: elementwise functions, comparisons, selection and
reductions on values computed at run time (RMSNorm, rotary embeddings, causal masks).

    Pow(x, 2.0)                      ->  relay.power %x, %c   (constant exponent cast to x's type;
                                         an integer x is raised in f64 and cast back)
    Reciprocal(x)                    ->  relay.divide %one, %x
    Less(a, b)                       ->  relay.less %a, %b : (...) -> tensor<...xi1>
    Where(c, x, y)                   ->  relay.where %c, %x, %y
    Max(a, b, c)                     ->  relay.maximum (relay.maximum %a, %b), %c
    ReduceSum(x, axes=[-1]) keepdims ->  relay.sum %x {axis = [-1], keepdims = true}

When every input is known at import time these nodes are folded instead (`folding`).
Comparisons give boolean (`i1`) tensors, as ONNX and TVM do.
"""

from __future__ import annotations

import numpy as np

from accel.compiler.frontend.onnx.context import Const, Node, converter
from accel.compiler.frontend.onnx.ops_tensor import axes_operand
from accel.compiler.tensors import element_type
from accel.dialects import relay

# --------------------------------------------------------------------------------------
# Elementwise
# --------------------------------------------------------------------------------------

_UNARY = {"Sqrt": relay.SqrtOp, "Exp": relay.ExpOp, "Log": relay.LogOp, "Neg": relay.NegativeOp,
          "Abs": relay.AbsOp, "Not": relay.LogicalNotOp, "Floor": relay.FloorOp, "Ceil": relay.CeilOp,
          "Round": relay.RoundOp, "Sin": relay.SinOp, "Cos": relay.CosOp, "Tan": relay.TanOp, "Asin": relay.AsinOp,
          "Acos": relay.AcosOp, "Atan": relay.AtanOp, "Sinh": relay.SinhOp, "Cosh": relay.CoshOp,
          "Asinh": relay.AsinhOp, "Acosh": relay.AcoshOp, "Atanh": relay.AtanhOp}


@converter(*_UNARY)
def unary(n: Node):
    if n.op_type == "Abs" and n.dtype(0).kind == "u":
        return n.value(0)
    return n.emit(_UNARY[n.op_type](n.input(0)))


@converter("Reciprocal")
def reciprocal(n: Node):
    """1 / x (IEEE: the same rounding as a reciprocal)."""
    return n.emit(relay.DivideOp(n.const_value(np.array(1, dtype=n.dtype(0))), n.input(0)))


@converter("Pow")
def pow_(n: Node):
    """ONNX lets the exponent have its own type. A float base takes the exponent in its
    own type; an integer base is raised in float64 and the result truncated back (as
    onnxruntime's std::pow; exact while the result fits 53 bits)."""
    base_dtype = n.dtype(0)
    compute = base_dtype if base_dtype.kind == "f" else np.dtype(np.float64)
    base = n.input(0) if compute == base_dtype else n.emit(relay.CastOp(n.input(0), element_type(compute)))
    exponent = n.value(1)
    if isinstance(exponent, Const):
        e = n.importer.materialize(Const(exponent.value.astype(compute)))
    elif n.dtype(1) != compute:
        e = n.emit(relay.CastOp(n.input(1), element_type(compute)))
    else:
        e = n.input(1)
    y = n.emit(relay.PowerOp(base, e))
    return y if compute == base_dtype else n.emit(relay.CastOp(y, element_type(base_dtype)))


_VARIADIC = {"Max": relay.MaximumOp, "Min": relay.MinimumOp}


@converter(*_VARIADIC)
def variadic(n: Node):
    values = [n.input(i) for i in range(n.num_inputs) if n.has(i)]
    if not values:
        raise n.error("needs at least one input")
    y = values[0]
    for v in values[1:]:
        y = n.emit(_VARIADIC[n.op_type](y, v))
    return y


# --------------------------------------------------------------------------------------
# Comparisons and selection
# --------------------------------------------------------------------------------------

_COMPARE = {"Equal": relay.EqualOp, "Less": relay.LessOp, "LessOrEqual": relay.LessEqualOp,
            "Greater": relay.GreaterOp, "GreaterOrEqual": relay.GreaterEqualOp}


@converter(*_COMPARE)
def compare(n: Node):
    return n.emit(_COMPARE[n.op_type](n.input(0), n.input(1)))


_LOGICAL = {"And": relay.LogicalAndOp, "Or": relay.LogicalOrOp, "Xor": relay.LogicalXorOp}


@converter(*_LOGICAL)
def logical(n: Node):
    return n.emit(_LOGICAL[n.op_type](n.input(0), n.input(1)))


@converter("Where")
def where(n: Node):
    if n.dtype(0) != np.bool_:
        raise n.error(f"the condition must be a bool tensor, got {n.dtype(0)}")
    return n.emit(relay.WhereOp(n.input(0), n.input(1), n.input(2)))


# --------------------------------------------------------------------------------------
# Reductions
# --------------------------------------------------------------------------------------

_REDUCE = {"ReduceSum": (relay.SumOp, 13), "ReduceMax": (relay.MaxOp, 18), "ReduceMin": (relay.MinOp, 18),
           "ReduceProd": (relay.ProdOp, 18)}


@converter(*_REDUCE, attrs=("axes", "keepdims", "noop_with_empty_axes"))
def reduce(n: Node):
    """Axes as an attribute before `since`, as a constant input from then on; no axes
    reduce everything unless noop_with_empty_axes. Bool ReduceMax/ReduceMin (any/all)
    reduce the values as ui8."""
    op_cls, since = _REDUCE[n.op_type]
    axes = axes_operand(n, since)
    if not axes:
        if n.version >= since and n.attr("noop_with_empty_axes", 0):
            return n.value(0)
        axes = None
    x = n.input(0)
    is_bool = n.dtype(0) == np.bool_ and op_cls in (relay.MaxOp, relay.MinOp)
    if is_bool:
        x = n.emit(relay.CastOp(x, element_type(np.dtype(np.uint8))))
    y = n.emit(op_cls(x, axis=axes, keepdims=bool(n.attr("keepdims", 1))))
    return n.emit(relay.CastOp(y, element_type(np.dtype(np.bool_)))) if is_bool else y
