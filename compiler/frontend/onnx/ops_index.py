"""Converters of the ONNX ops that gather or scatter by indices computed at run time, and
of the classification losses composed from relay's ops:

    GatherND(x, i) batch_dims=1         ->  relay.gather_nd %x, %i {batch_dims = 1}
    ScatterElements(x, i, u) axis=1     ->  relay.scatter_elements %x, %i, %u {axis = 1}
    Scatter(x, i, u)                    ->  the same (Scatter-9/11, ScatterElements' old name)
    ScatterND(x, i, u) reduction=add    ->  relay.scatter_nd %x, %i, %u {reduction = "add"}

    NegativeLogLikelihoodLoss(x [N, C, d...], t [N, d...], w [C]) ignore_index=k
        keep = t != k;  s = where(keep, t, 0)           (an ignored label may lie outside [0, C))
        l = where(keep, -gather(x, s[:, None], axis=1), 0) * take(w, s)
        none: l;  sum: sum(l);  mean: sum(l) / sum(where(keep, take(w, s), 0))
    SoftmaxCrossEntropyLoss: the same on log_softmax(x, axis=1) (x - m - log(sum(exp(x - m)))),
        which is also its optional second output.

Without weights the mean divides by the number of kept labels (all of them without
ignore_index). A label outside [-C, C) that is not ignore_index is an error at run time
(relay.gather's bounds check), as an out-of-range index of the scatter and gather ops.
Nodes whose inputs are all known fold with the reference semantics.
"""

from __future__ import annotations

import numpy as np
from xdsl.ir import SSAValue

from accel.compiler.frontend.onnx.context import Node, converter, folder
from accel.compiler.frontend.onnx.ops_tensor import norm_axis, reshaped
from accel.compiler.narrow_types import is_compute_float
from accel.compiler.runtime import reference as ref
from accel.compiler.tensors import element_type
from accel.dialects import relay

# --------------------------------------------------------------------------------------
# GatherND, ScatterElements / Scatter, ScatterND
# --------------------------------------------------------------------------------------


def _reduction(n: Node) -> str:
    r = n.string("reduction", "none")
    if r not in relay.SCATTER_REDUCTIONS:
        raise n.error(f"reduction '{r}' is not supported (none, add, mul, max, min are)")
    return r


def _int_indices(n: Node, i: int = 1) -> None:
    if n.dtype(i).kind not in "iu":
        raise n.error(f"input {i} (indices) must be an integer tensor, got {n.dtype(i)}")


@converter("GatherND", attrs=("batch_dims",))
def gather_nd(n: Node):
    _int_indices(n)
    return n.emit(relay.GatherNDOp(n.input(0), n.input(1), batch_dims=n.attr("batch_dims", 0)))


@converter("ScatterElements", "Scatter", attrs=("axis", "reduction"))
def scatter_elements(n: Node):
    _int_indices(n)
    axis = norm_axis(n, n.attr("axis", 0), n.rank(0))
    return n.emit(relay.ScatterElementsOp(n.input(0), n.input(1), n.input(2), axis=axis, reduction=_reduction(n)))


@converter("ScatterND", attrs=("reduction",))
def scatter_nd(n: Node):
    _int_indices(n)
    return n.emit(relay.ScatterNDOp(n.input(0), n.input(1), n.input(2), reduction=_reduction(n)))


@folder("GatherND", attrs=("batch_dims",))
def fold_gather_nd(n: Node, xs):
    return ref.gather_nd(xs[0], xs[1], batch_dims=n.attr("batch_dims", 0))


@folder("ScatterElements", "Scatter", attrs=("axis", "reduction"))
def fold_scatter_elements(n: Node, xs):
    return ref.scatter_elements(xs[0], xs[1], xs[2], axis=n.attr("axis", 0), reduction=_reduction(n))


@folder("ScatterND", attrs=("reduction",))
def fold_scatter_nd(n: Node, xs):
    return ref.scatter_nd(xs[0], xs[1], xs[2], reduction=_reduction(n))


# --------------------------------------------------------------------------------------
# NegativeLogLikelihoodLoss, SoftmaxCrossEntropyLoss
# --------------------------------------------------------------------------------------

_LOSS_REDUCTIONS = ("none", "sum", "mean")


def _log_softmax_channels(n: Node, x: SSAValue) -> SSAValue:
    """log_softmax along axis 1, as ops_composed's LogSoftmax."""
    shifted = n.emit(relay.SubtractOp(x, n.emit(relay.MaxOp(x, axis=[1], keepdims=True))))
    total = n.emit(relay.SumOp(n.emit(relay.ExpOp(shifted)), axis=[1], keepdims=True))
    return n.emit(relay.SubtractOp(shifted, n.emit(relay.LogOp(total))))


@converter("NegativeLogLikelihoodLoss", "SoftmaxCrossEntropyLoss", attrs=("ignore_index", "reduction"))
def classification_loss(n: Node):
    dims, tdims = n.shape(0), n.shape(1)
    dt = n.dtype(0)
    if not is_compute_float(dt):
        raise n.error(f"input 0 (scores) must be a float tensor, got {dt}")
    if n.dtype(1).kind not in "iu":
        raise n.error(f"input 1 (labels) must be an integer tensor, got {n.dtype(1)}")
    if len(dims) < 2 or tdims != (dims[0], *dims[2:]):
        raise n.error(f"the labels' shape {list(tdims)} must be the scores' {list(dims)} without axis 1")
    reduction = n.string("reduction", "mean")
    if reduction not in _LOSS_REDUCTIONS:
        raise n.error(f"reduction '{reduction}' is not supported (none, sum, mean are)")
    weighted = n.has(2)
    if weighted and (n.shape(2) != (dims[1],) or n.dtype(2) != dt):
        raise n.error(f"the weights must be a [{dims[1]}] tensor of {dt}, got {list(n.shape(2))} of {n.dtype(2)}")
    sce = n.op_type == "SoftmaxCrossEntropyLoss"
    wants_log_prob = len(n.proto.output) > 1 and bool(n.proto.output[1])
    if wants_log_prob and not sce:
        raise n.error("has one output")

    x = n.input(0)
    scores = _log_softmax_channels(n, x) if sce else x
    labels = n.input(1)
    ldt = n.dtype(1)
    keep = None
    if n.attr("ignore_index") is not None:
        ii = n.attr("ignore_index")
        info = np.iinfo(ldt)
        if info.min <= ii <= info.max:
            keep = n.emit(relay.NotEqualOp(labels, n.const_value(np.array(ii, ldt))))
            labels = n.emit(relay.WhereOp(keep, labels, n.const_value(np.array(0, ldt))))
        # else no label can equal it: nothing is ignored
    column = n.importer.materialize(reshaped(n, labels, (dims[0], 1, *dims[2:])))
    picked = n.emit(relay.GatherOp(scores, column, axis=1))
    loss = n.emit(relay.NegativeOp(n.importer.materialize(reshaped(n, picked, tdims))))
    if keep is not None:
        zero = n.const_value(np.array(0, dt))
        loss = n.emit(relay.WhereOp(keep, loss, zero))
    weights = None  # the per-label weights the mean divides by (None: a count)
    if weighted:
        weights = n.emit(relay.TakeOp(n.input(2), labels, axis=0))
        loss = n.emit(relay.MultiplyOp(loss, weights))
        if keep is not None:
            weights = n.emit(relay.WhereOp(keep, weights, zero))
    elif keep is not None:
        weights = n.emit(relay.CastOp(keep, element_type(dt)))

    every = list(range(len(tdims)))
    if reduction == "none":
        out = loss
    elif reduction == "sum":
        out = n.emit(relay.SumOp(loss, axis=every, keepdims=False))
    else:
        total = n.emit(relay.SumOp(loss, axis=every, keepdims=False))
        if weights is None:
            count = int(np.prod(tdims))
            out = n.emit(relay.DivideOp(total, n.const_value(np.array(count, dt))))
        else:
            out = n.emit(relay.DivideOp(total, n.emit(relay.SumOp(weights, axis=every, keepdims=False))))
    return [out, scores] if wants_log_prob else out
