"""ONNX Einsum as relay products, sums, transposes and reshapes.

    Einsum "bij,bjk->bik"   (x, y)     ->  relay.nn.batch_matmul %x, %y {transpose_b = false}
    Einsum "bhqd,bhkd->bhqk" (q, k)    ->  relay.nn.batch_matmul %q, %k {transpose_b = true}
    Einsum "ij,jk->ik"      (a, b)     ->  relay.nn.matmul %a, %b
    Einsum "bnd,dk->bnk"    (x, W)     ->  relay.nn.batch_matmul %x, %W {transpose_b = false}
                                           (what MatMul imports as: canonicalize-linear makes
                                           it a dense layer when W is a constant)
    Einsum "ij->ji"         (x)        ->  relay.transpose %x {axes = [1, 0]}
    Einsum "ij->i"          (x)        ->  relay.sum %x {axis = [1]}
    Einsum "bi,bj->bij"     (x, y)     ->  relay.multiply (reshape %x [b, i, 1]), (reshape %y [b, 1, j])
    Einsum "ii->i"          (x)        ->  relay.take (reshape %x [n * n]), [0, n + 1, 2n + 2, ...]

The equation (spaces ignored) names each operand's axes with letters (a-z, A-Z), and at
most once per operand `...` for the leading axes the letters leave (right-aligned across
operands, as numpy broadcasts them). Without `->`, the output is `...` followed by the
letters that appear exactly once, sorted (ASCII: upper case first, as numpy). A letter of
size 1 in one operand broadcasts against its size in another (numpy, onnxruntime).

Lowering, operand by operand from the left:

- a letter repeated within one operand is its diagonal: the repeated axes are merged by a
  reshape and the diagonal taken with `relay.take` (flat indices i * (1 + n + n² ...));
- a broadcast axis of size 1 is dropped (the operand does not vary along it);
- a letter that no later operand and not the output needs is summed first (`relay.sum`);
- two operands: letters in both that the output (or a later operand) needs are batch
  axes, letters in both that nothing needs are contracted, the others are free. Float
  operands with contracted letters become one product, [batch..., M, K] x [batch..., K, N]
  (`relay.nn.matmul` without batch axes, else `relay.nn.batch_matmul`; several letters
  of a group merged by a reshape): the layout (operand order, transpose flags, group
  orders) is the one needing the fewest transposes of run-time values, preferring a
  constant right operand (canonicalize-linear makes that a dense layer) and no
  `transpose_a`. Without contracted letters, and for integer operands (the products are
  float only), a broadcast `relay.multiply`, then `relay.sum` over the contracted axes;
- three or more operands: contracted pairwise from the left, keeping the letters a later
  operand needs;
- the result: letters the output lacks summed, then transposed to the output's order.

Equations whose operands are all known at import time are evaluated with numpy
(`np.einsum`, float16/bfloat16 in float32).
"""

from __future__ import annotations

import itertools
import math
import string
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from accel.compiler.frontend.onnx.context import Const, Node, Value, converter, folder
from accel.compiler.frontend.onnx.ops_tensor import reshaped
from accel.compiler.tensors import UnsupportedDtype, element_type
from accel.dialects import relay

LETTERS = frozenset(string.ascii_letters)
ELLIPSIS = "..."


# --------------------------------------------------------------------------------------
# The equation
# --------------------------------------------------------------------------------------


@dataclass
class Equation:
    """An equation resolved against its operands' shapes: each operand's labels (one per
    axis: a letter, or `...N` for the Nth of the ellipsis' axes counted from the left of
    the widest ellipsis), the output's labels, and each label's size (broadcast)."""

    text: str
    inputs: list[list[str]]
    output: list[str]
    sizes: dict[str, int]


def show(label: str) -> str:
    return "'...'" if label.startswith(ELLIPSIS) else f"'{label}'"


def _terms(n: Node, text: str, term: str, what: str) -> list[str]:
    """The labels of one term ('...' kept as one label)."""
    labels: list[str] = []
    i = 0
    while i < len(term):
        if term.startswith(ELLIPSIS, i):
            if ELLIPSIS in labels:
                raise n.error(f"equation '{text}': {what} '{term}' has '...' twice")
            labels.append(ELLIPSIS)
            i += 3
            continue
        c = term[i]
        if c not in LETTERS:
            raise n.error(f"equation '{text}': {what} '{term}' has '{c}', which is neither a letter "
                          "(a-z, A-Z) nor '...'")
        labels.append(c)
        i += 1
    return labels


def parse_equation(n: Node, shapes: Sequence[Sequence[int]]) -> Equation:
    """The node's equation against operands of `shapes`; a malformed equation, or one that
    does not fit the shapes, is a one-line error."""
    raw = n.attr("equation")
    if raw is None:
        raise n.error("the equation attribute is missing")
    text = "".join(str(raw).split())
    if text.count("->") > 1:
        raise n.error(f"equation '{text}' has more than one '->'")
    lhs, arrow, rhs = text.partition("->")
    terms = lhs.split(",")
    parsed = [_terms(n, text, t, f"operand {k}") for k, t in enumerate(terms)]
    out_terms = _terms(n, text, rhs, "the output") if arrow else None
    if len(terms) != len(shapes):
        raise n.error(f"equation '{text}' has {len(terms)} operand{'s' * (len(terms) != 1)} but the node has "
                      f"{len(shapes)} input{'s' * (len(shapes) != 1)}")

    # '...': how many axes it stands for in each operand (right-aligned across operands).
    ell_ranks: list[int] = []
    for k, (labels, shape) in enumerate(zip(parsed, shapes)):
        letters = len(labels) - (ELLIPSIS in labels)
        if ELLIPSIS in labels:
            if len(shape) < letters:
                raise n.error(f"equation '{text}': operand {k} has rank {len(shape)}, fewer than the "
                              f"{letters} letters of '{terms[k]}'")
            ell_ranks.append(len(shape) - letters)
        else:
            if len(shape) != letters:
                raise n.error(f"equation '{text}': operand {k} has rank {len(shape)} but '{terms[k]}' "
                              f"names {letters} ax{'es' if letters != 1 else 'is'}")
            ell_ranks.append(0)
    width = max(ell_ranks, default=0)
    ell = [f"{ELLIPSIS}{j}" for j in range(width)]
    inputs: list[list[str]] = []
    for labels, e in zip(parsed, ell_ranks):
        expanded: list[str] = []
        for lab in labels:
            expanded.extend(ell[width - e:] if lab == ELLIPSIS else [lab])
        inputs.append(expanded)

    used = {lab for labels in parsed for lab in labels if lab != ELLIPSIS}
    if out_terms is None:
        counts: dict[str, int] = {}
        for labels in parsed:
            for lab in labels:
                counts[lab] = counts.get(lab, 0) + 1
        output = ell + sorted(lab for lab, c in counts.items() if c == 1 and lab != ELLIPSIS)
    else:
        seen: set[str] = set()
        for lab in out_terms:
            if lab in seen:
                raise n.error(f"equation '{text}': the output repeats {show(lab)}")
            seen.add(lab)
            if lab != ELLIPSIS and lab not in used:
                raise n.error(f"equation '{text}': the output's letter '{lab}' is in no operand")
        if ELLIPSIS not in out_terms and width > 0:
            raise n.error(f"equation '{text}': the operands have '...' axes but the output has no '...'")
        output = []
        for lab in out_terms:
            output.extend(ell if lab == ELLIPSIS else [lab])

    # Sizes: equal within an operand (a diagonal), broadcast (1 against n) across operands.
    sizes: dict[str, int] = {}
    for k, (labels, shape) in enumerate(zip(inputs, shapes)):
        mine: dict[str, int] = {}
        for lab, s in zip(labels, shape):
            s = int(s)
            if mine.setdefault(lab, s) != s:
                raise n.error(f"equation '{text}': operand {k} repeats {show(lab)} over axes of sizes "
                              f"{mine[lab]} and {s}")
        for lab, s in mine.items():
            old = sizes.get(lab)
            if old is None or old == 1:
                sizes[lab] = s
            elif s != 1 and s != old:
                what = "the '...' axes have" if lab.startswith(ELLIPSIS) else f"letter '{lab}' has"
                raise n.error(f"equation '{text}': {what} sizes {old} and {s}, which do not broadcast")
    return Equation(text, inputs, output, sizes)


def check_dtypes(n: Node, dtypes: Sequence[np.dtype]) -> np.dtype:
    """The operands' common element type, which must be a float or integer one."""
    first = np.dtype(dtypes[0])
    for k, d in enumerate(dtypes[1:], 1):
        if np.dtype(d) != first:
            raise n.error(f"operand {k} is {np.dtype(d)} but operand 0 is {first}: Einsum's operands "
                          "must have one element type")
    try:
        t = element_type(first)
    except UnsupportedDtype:
        t = None
    if t is None or not (relay.is_float(t) or relay.is_int(t)):
        raise n.error(f"Einsum on {first} tensors is not supported (float and integer types only)")
    return first


# --------------------------------------------------------------------------------------
# Folding
# --------------------------------------------------------------------------------------


@folder("Einsum", attrs=("equation",))
def fold_einsum(n: Node, xs):
    eq = parse_equation(n, [x.shape for x in xs])
    dtype = check_dtypes(n, [x.dtype for x in xs])
    ids = {lab: i for i, lab in enumerate(dict.fromkeys(lab for labels in eq.inputs for lab in labels))}
    if len(ids) > 52:
        raise n.error(f"equation '{eq.text}' has {len(ids)} distinct axes; numpy evaluates at most 52")
    compute = dtype if dtype.kind in "iu" or dtype in (np.float32, np.float64) else np.dtype(np.float32)
    args: list = []
    for x, labels in zip(xs, eq.inputs):
        args += [np.asarray(x).astype(compute, copy=False), [ids[lab] for lab in labels]]
    with np.errstate(all="ignore"):
        y = np.einsum(*args, [ids[lab] for lab in eq.output])
    return np.asarray(y).astype(dtype, copy=False)


# --------------------------------------------------------------------------------------
# Operands: a value and the label of each of its axes
# --------------------------------------------------------------------------------------


@dataclass
class Term:
    value: Value
    labels: list[str]

    @property
    def is_const(self) -> bool:
        return isinstance(self.value, Const)


def _shape(v: Value) -> tuple[int, ...]:
    return v.shape if isinstance(v, Const) else tuple(v.type.get_shape())


def transposed(n: Node, v: Value, perm: Sequence[int]) -> Value:
    perm = [int(p) for p in perm]
    if perm == list(range(len(perm))):
        return v
    if isinstance(v, Const) and v.file_name is None:
        return Const(np.ascontiguousarray(np.transpose(v.value, perm)))
    # A weight of the model file stays external: fold-constants transposes it when compiling.
    return n.emit(relay.TransposeOp(n.importer.materialize(v), axes=perm))


def summed(n: Node, v: Value, axes: Sequence[int]) -> Value:
    axes = sorted(int(a) for a in axes)
    if not axes:
        return v
    if isinstance(v, Const) and v.file_name is None:
        return Const(np.asarray(np.sum(v.value, axis=tuple(axes))).astype(v.value.dtype))
    return n.emit(relay.SumOp(n.importer.materialize(v), axis=axes, keepdims=False))


def arranged(n: Node, t: Term, order: Sequence[str]) -> Value:
    """`t`'s value with its axes in `order` (a permutation of its labels)."""
    return transposed(n, t.value, [t.labels.index(lab) for lab in order])


def sum_out(n: Node, t: Term, keep: set[str]) -> Term:
    """`t` with the labels not in `keep` summed."""
    axes = [i for i, lab in enumerate(t.labels) if lab not in keep]
    if not axes:
        return t
    return Term(summed(n, t.value, axes), [lab for lab in t.labels if lab in keep])


def diagonal(n: Node, t: Term, label: str) -> Term:
    """`t` along the diagonal of the axes it labels `label` (two or more): the axes moved
    next to each other (at the first one), merged, and the diagonal taken."""
    pos = [i for i, lab in enumerate(t.labels) if lab == label]
    first = pos[0]
    others = [i for i in range(len(t.labels)) if i not in pos]
    perm = [i for i in others if i < first] + pos + [i for i in others if i > first]
    v = transposed(n, t.value, perm)
    dims = [_shape(t.value)[i] for i in perm]
    at = perm.index(first)
    size, count = dims[at], len(pos)
    v = reshaped(n, v, dims[:at] + [size**count] + dims[at + count:])
    step = sum(size**j for j in range(count))
    idx = n.const_value(np.arange(size, dtype=np.int64) * step)
    y = n.emit(relay.TakeOp(n.importer.materialize(v), idx, axis=at))
    labels = [t.labels[i] for i in perm]
    return Term(y, labels[:at] + [label] + labels[at + count:])


def prepared(n: Node, t: Term, sizes: dict[str, int]) -> Term:
    """An operand with its diagonals taken and its broadcast axes of size 1 dropped."""
    for label in dict.fromkeys(t.labels):
        if t.labels.count(label) > 1:
            t = diagonal(n, t, label)
    shape = _shape(t.value)
    drop = [i for i, (lab, s) in enumerate(zip(t.labels, shape)) if s == 1 and sizes[lab] != 1]
    if drop:
        keep = [i for i in range(len(t.labels)) if i not in drop]
        t = Term(reshaped(n, t.value, [shape[i] for i in keep]), [t.labels[i] for i in keep])
    return t


# --------------------------------------------------------------------------------------
# Pairwise contraction
# --------------------------------------------------------------------------------------


def _in_order(labels: Sequence[str], order: Sequence[str]) -> list[str]:
    rank = {lab: i for i, lab in enumerate(order)}
    return sorted(labels, key=lambda lab: rank[lab])


@dataclass
class Layout:
    """One way to lay a contraction out as a product: lhs [lead, batch, M, K] (or
    [lead, batch, K, M] with transpose_a), rhs [batch, K, N] (or [batch, N, K] with
    transpose_b). `lead` are free axes of the lhs that the product broadcasts the rhs over
    (what MatMul imports [B, S, K] x [K, N] as); several letters of M, K or N are merged by
    a reshape."""

    lhs: Term
    rhs: Term
    lead: list[str]
    batch: list[str]
    free_l: list[str]
    contr: list[str]
    free_r: list[str]
    ta: bool
    tb: bool

    @property
    def lhs_order(self) -> list[str]:
        return self.lead + self.batch + (self.contr + self.free_l if self.ta else self.free_l + self.contr)

    @property
    def rhs_order(self) -> list[str]:
        return self.batch + (self.free_r + self.contr if self.tb else self.contr + self.free_r)

    @property
    def result(self) -> list[str]:
        return self.lead + self.batch + self.free_l + self.free_r

    def cost(self, desired: list[str] | None) -> float:
        """Transposes of run-time values count 1, of constants (folded when compiling) a
        quarter, reshapes of run-time values 0.05; a constant left operand of a run-time
        right one (no dense layer) and `transpose_a` (which canonicalize-linear does not
        make dense) are avoided too."""
        c = 0.0
        for t, order in ((self.lhs, self.lhs_order), (self.rhs, self.rhs_order)):
            if t.labels != order:
                c += 0.25 if t.is_const else 1.0
        if desired is not None and self.result != desired:
            c += 1.0
        merged_l, merged_r, merged_k = len(self.free_l) != 1, len(self.free_r) != 1, len(self.contr) != 1
        c += 0.05 * ((merged_l or merged_k) and not self.lhs.is_const)
        c += 0.05 * ((merged_r or merged_k) and not self.rhs.is_const)
        c += 0.05 * (merged_l or merged_r)
        if self.lhs.is_const and not self.rhs.is_const:
            c += 0.5
        return c + 0.5 * self.ta + 0.01 * self.tb


def _layouts(a: Term, b: Term, batch_set: set[str], contr_set: set[str], desired: list[str] | None):
    """Every candidate layout, the plain ones first (ties keep the first)."""
    for lhs, rhs in ((a, b), (b, a)):
        orders = [lhs.labels, rhs.labels] + ([desired] if desired is not None else [])
        batches = [[lab for lab in o if lab in batch_set] for o in orders]
        contrs = [[lab for lab in o if lab in contr_set] for o in (lhs.labels, rhs.labels)]
        free_ls = [[lab for lab in o if lab in lhs.labels and lab not in rhs.labels] for o in orders[::2]]
        free_rs = [[lab for lab in o if lab in rhs.labels and lab not in lhs.labels] for o in orders[1:]]
        for batch, contr, free_l, free_r, ta, tb in itertools.product(
                _unique(batches), _unique(contrs), _unique(free_ls), _unique(free_rs), (False, True), (False, True)):
            for j in range(len(free_l) + 1):
                yield Layout(lhs, rhs, free_l[:j], batch, free_l[j:], contr, free_r, ta, tb)


def _unique(lists: list[list[str]]) -> list[list[str]]:
    out: list[list[str]] = []
    for x in lists:
        if x not in out:
            out.append(x)
    return out


def product(n: Node, a: Term, b: Term, batch: set[str], contr: set[str], desired: list[str] | None,
            sizes: dict[str, int]) -> Term:
    """The float contraction of `a` and `b` over `contr` (non-empty) as one matrix product."""
    best = min(_layouts(a, b, batch, contr, desired), key=lambda lay: lay.cost(desired))
    lhs = arranged(n, best.lhs, best.lhs_order)
    rhs = arranged(n, best.rhs, best.rhs_order)
    ls = [sizes[lab] for lab in best.lead + best.batch]
    bs = [sizes[lab] for lab in best.batch]
    fl = [sizes[lab] for lab in best.free_l]
    fr = [sizes[lab] for lab in best.free_r]
    m, k, nn = math.prod(fl), math.prod(sizes[lab] for lab in best.contr), math.prod(fr)
    lhs = n.importer.materialize(reshaped(n, lhs, ls + ([k, m] if best.ta else [m, k])))
    rhs = n.importer.materialize(reshaped(n, rhs, bs + ([nn, k] if best.tb else [k, nn])))
    if ls:
        y = n.emit(relay.BatchMatmulOp(lhs, rhs, transpose_a=best.ta, transpose_b=best.tb))
    else:
        y = n.emit(relay.MatmulOp(lhs, rhs, transpose_a=best.ta, transpose_b=best.tb))
    return Term(reshaped(n, y, ls + fl + fr), best.result)


def broadcast_product(n: Node, a: Term, b: Term, contr: list[str], desired: list[str] | None,
                      sizes: dict[str, int]) -> Term:
    """`a` * `b` broadcast over the union of their labels, summed over `contr`."""
    if desired is not None:
        order = list(desired)
    else:
        order = [lab for lab in a.labels if lab not in contr] + [lab for lab in b.labels if lab not in a.labels]
    full = order + contr
    values = []
    for t in (a, b):
        mine = _in_order(t.labels, full)
        v = arranged(n, t, mine)
        dims = [sizes[lab] if lab in t.labels else 1 for lab in full]
        while dims and dims[0] == 1 and full[len(full) - len(dims)] not in t.labels:
            dims.pop(0)  # leading unit axes broadcast anyway
        values.append(n.importer.materialize(reshaped(n, v, dims)))
    y: Value = n.emit(relay.MultiplyOp(values[0], values[1]))
    rank = len(_shape(y))
    y = summed(n, y, range(rank - len(contr), rank))
    if len(_shape(y)) < len(order):  # every axis of the result was a broadcast unit axis
        y = reshaped(n, y, [sizes[lab] for lab in order])
    return Term(y, order)


def contract(n: Node, a: Term, b: Term, keep: set[str], desired: list[str] | None, sizes: dict[str, int],
             is_float: bool) -> Term:
    """`a` and `b` contracted: the labels in `keep` (the output's and later operands') stay."""
    a = sum_out(n, a, keep | set(b.labels))
    b = sum_out(n, b, keep | set(a.labels))
    common = [lab for lab in a.labels if lab in b.labels]
    batch = {lab for lab in common if lab in keep}
    contr = [lab for lab in common if lab not in keep]
    if desired is not None:
        desired = [lab for lab in desired if lab in a.labels or lab in b.labels]
    if contr and is_float:
        return product(n, a, b, batch, set(contr), desired, sizes)
    return broadcast_product(n, a, b, contr, desired, sizes)


# --------------------------------------------------------------------------------------
# The converter
# --------------------------------------------------------------------------------------


@converter("Einsum", attrs=("equation",))
def einsum(n: Node):
    if n.num_inputs == 0 or not all(n.has(i) for i in range(n.num_inputs)):
        raise n.error("every input must be given (at least one)")
    eq = parse_equation(n, [n.shape(i) for i in range(n.num_inputs)])
    dtype = check_dtypes(n, [n.dtype(i) for i in range(n.num_inputs)])
    out_shape = [eq.sizes[lab] for lab in eq.output]
    if any(s == 0 for s in eq.sizes.values()):
        # No data, or sums over no element: zeros.
        return Const(np.zeros(out_shape, dtype))
    is_float = relay.is_float(element_type(dtype))
    terms = [prepared(n, Term(n.value(i), labels), eq.sizes) for i, labels in enumerate(eq.inputs)]
    out = set(eq.output)
    acc = terms[0]
    for k in range(1, len(terms)):
        keep = out.union(*(t.labels for t in terms[k + 1:]))
        last = k == len(terms) - 1
        acc = contract(n, acc, terms[k], keep, eq.output if last else None, eq.sizes, is_float)
    acc = sum_out(n, acc, out)
    # Every output label is still there: an operand keeps each label whose size is its own.
    assert sorted(acc.labels) == sorted(eq.output), (acc.labels, eq.output)
    return reshaped(n, arranged(n, acc, eq.output), out_shape)
