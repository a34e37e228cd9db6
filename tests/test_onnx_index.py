"""ONNX GatherND, ScatterElements / Scatter, ScatterND (`relay.gather_nd`,
`relay.scatter_elements`, `relay.scatter_nd`) and the classification losses
NegativeLogLikelihoodLoss / SoftmaxCrossEntropyLoss (composed: `ops_index.py`).

Random shapes, axes, index types and attributes built with onnx.helper, compared with
onnxruntime through the reference interpreter and through compiled C (npu target, host
kernels); duplicate scatter indices against onnx's reference implementation (onnxruntime
leaves their order undefined); out-of-range indices as errors of the interpreter, the
C program and the kernels themselves (nothing written); the one-line refusals.

Tolerance: integers exactly; floats within 1e-5 (gathers and scatters without a float
reduction: exactly) of the output's largest magnitude (the losses sum in another order).
"""

from __future__ import annotations

import ctypes as C
import os

import numpy as np
import onnx
import pytest
from onnx import TensorProto as T
from onnx import helper as h
from onnx.reference import ReferenceEvaluator

from accel.compiler.diagnostics import CompileError
from accel.compiler.frontend.onnx import SUPPORTED_OPS, import_onnx_model
from accel.compiler.runtime import cbuild
from accel.compiler.runtime.interpreter import run_function
from accel.compiler.runtime.run_compiled import run_directory
from accel.compiler.driver import compile_to_directory
from test_onnx_import import import_error, make, vi

ort = pytest.importorskip("onnxruntime")

RTOL = 1e-5
ONNX_TYPE = {np.dtype(np.float32): T.FLOAT, np.dtype(np.float64): T.DOUBLE, np.dtype(np.int32): T.INT32,
             np.dtype(np.int64): T.INT64, np.dtype(np.int8): T.INT8, np.dtype(np.uint8): T.UINT8}


def rng_for(*key) -> np.random.Generator:
    """A generator seeded by `key` alone (the same numbers whatever runs before)."""
    return np.random.default_rng([ord(c) for c in repr(key)])


def data(rng, shape, dt) -> np.ndarray:
    dt = np.dtype(dt)
    if dt.kind == "f":
        return rng.standard_normal(shape).astype(dt)
    return rng.integers(-20, 20, shape).astype(dt)


def model_of(op: str, feeds: dict[str, np.ndarray], outputs: dict[str, np.dtype], opset: int = 18, **attrs):
    node = h.make_node(op, list(feeds), list(outputs), **attrs)
    ins = [vi(n, a.shape, ONNX_TYPE[a.dtype]) for n, a in feeds.items()]
    outs = [vi(n, None, ONNX_TYPE[np.dtype(d)]) for n, d in outputs.items()]
    return make([node], ins, outs, opset=opset)


def ort_outputs(model: onnx.ModelProto, feeds) -> list[np.ndarray]:
    so = ort.SessionOptions()
    so.intra_op_num_threads = 1
    return ort.InferenceSession(model.SerializeToString(), so, providers=["CPUExecutionProvider"]).run(None, feeds)


def c_outputs(model: onnx.ModelProto, feeds, tmp_path) -> list[np.ndarray]:
    path = str(tmp_path / "m.onnx")
    onnx.save(model, path)
    compile_to_directory(path, "npu", str(tmp_path / "out"))
    got, _ = run_directory(str(tmp_path / "out"), feeds)
    return [got[o.name] for o in model.graph.output]


def assert_close(got: np.ndarray, want: np.ndarray, exact: bool = False) -> None:
    got = np.asarray(got)
    assert got.shape == want.shape and got.dtype == want.dtype, (got.shape, got.dtype, want.shape, want.dtype)
    if exact or want.dtype.kind != "f":
        np.testing.assert_array_equal(got, want)
    else:
        scale = float(np.abs(want).max(initial=1.0))
        np.testing.assert_allclose(got, want, rtol=RTOL, atol=RTOL * scale)


def check(model, feeds, tmp_path, *, want=None, exact=False, through_c=True) -> None:
    """Interpreter and (through_c) compiled C against `want` (default: onnxruntime)."""
    want = ort_outputs(model, feeds) if want is None else want
    got = run_function(import_onnx_model(model), feeds)
    for o, w in zip(model.graph.output, want):
        assert_close(got[o.name], w, exact)
    if through_c:
        for g, w in zip(c_outputs(model, feeds, tmp_path), want):
            assert_close(g, w, exact)


def test_ops_are_supported():
    for op in ("GatherND", "ScatterElements", "Scatter", "ScatterND", "NegativeLogLikelihoodLoss",
               "SoftmaxCrossEntropyLoss"):
        assert op in SUPPORTED_OPS


# --------------------------------------------------------------------------------------
# GatherND
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize("seed", range(6))
def test_gather_nd_random(seed, tmp_path):
    rng = rng_for("gather_nd", seed)
    rank = int(rng.integers(1, 5))
    shape = tuple(int(s) for s in rng.integers(1, 5, rank))
    b = int(rng.integers(0, rank))  # batch_dims < rank
    k = int(rng.integers(1, rank - b + 1))
    q = tuple(int(s) for s in rng.integers(1, 4, rng.integers(0, 3)))
    dt = [np.float32, np.int64, np.float64][seed % 3]
    idt = np.int64  # GatherND's indices are int64 (ONNX)
    x = data(rng, shape, dt)
    cols = [rng.integers(-s, s, shape[:b] + q) for s in shape[b : b + k]]
    idx = np.stack(cols, -1).astype(idt)
    m = model_of("GatherND", {"x": x, "i": idx}, {"y": dt}, batch_dims=b)
    feeds = {"x": x, "i": idx}
    check(m, feeds, tmp_path, exact=True, through_c=seed < 4)


# --------------------------------------------------------------------------------------
# ScatterElements / Scatter
# --------------------------------------------------------------------------------------


def _unique_positions(rng, n: int, count: int) -> np.ndarray:
    return rng.permutation(n)[:count]


@pytest.mark.parametrize("reduction", ["none", "add", "mul", "max", "min"])
@pytest.mark.parametrize("seed", range(2))
def test_scatter_elements_random(reduction, seed, tmp_path):
    rng = rng_for("scatter_elements", reduction, seed)
    rank = int(rng.integers(1, 4))
    shape = tuple(int(s) for s in rng.integers(2, 5, rank))
    axis = int(rng.integers(-rank, rank))
    ax = axis % rank
    ishape = tuple(int(rng.integers(1, s + 1)) for s in shape)
    dt = [np.float32, np.int32][seed] if reduction != "none" else [np.float32, np.int64][seed]
    x = data(rng, shape, dt)
    # Unique indices along the axis for every other position (onnxruntime's order of
    # duplicates is unspecified), half of them negative.
    idx = np.stack([_unique_positions(rng, shape[ax], ishape[ax]) for _ in range(int(np.prod(ishape)) // ishape[ax])])
    idx = np.moveaxis(idx.reshape(tuple(s for i, s in enumerate(ishape) if i != ax) + (ishape[ax],)), -1, ax)
    idx = np.where(rng.random(idx.shape) < 0.5, idx - shape[ax], idx).astype(np.int64)
    u = data(rng, ishape, dt)
    attrs = {"axis": axis} | ({} if reduction == "none" else {"reduction": reduction})
    m = model_of("ScatterElements", {"x": x, "i": idx, "u": u}, {"y": dt}, **attrs)
    check(m, {"x": x, "i": idx, "u": u}, tmp_path, through_c=seed == 0)


def test_scatter_opset_10(tmp_path):
    rng = rng_for("scatter")
    x, u = data(rng, (4, 5), np.float32), data(rng, (2, 5), np.float32)
    idx = np.array([[0, 3, 1, 2, -1], [3, 0, 2, 1, 0]], np.int64)
    m = model_of("Scatter", {"x": x, "i": idx, "u": u}, {"y": np.float32}, opset=10, axis=0)
    check(m, {"x": x, "i": idx, "u": u}, tmp_path, exact=True)


@pytest.mark.parametrize("op, reduction", [("ScatterElements", "none"), ("ScatterElements", "add"),
                                           ("ScatterND", "none"), ("ScatterND", "mul")])
def test_duplicate_indices_follow_onnx_reference(op, reduction, tmp_path):
    """Duplicate indices apply in row-major order of the indices: the last update wins
    for "none" (onnx's reference implementation; onnxruntime leaves the order open)."""
    rng = rng_for("dup", op, reduction)
    x = data(rng, (3, 4), np.float32)
    if op == "ScatterElements":
        idx = np.array([[1, 1, 0, 2], [1, -2, 0, 2]], np.int64)
        u = data(rng, (2, 4), np.float32)
        attrs = {"axis": 0}
    else:
        idx = np.array([[1], [2], [-2], [1]], np.int64)
        u = data(rng, (4, 4), np.float32)
        attrs = {}
    if reduction != "none":
        attrs["reduction"] = reduction
    m = model_of(op, {"x": x, "i": idx, "u": u}, {"y": np.float32}, **attrs)
    feeds = {"x": x, "i": idx, "u": u}
    want = ReferenceEvaluator(m).run(None, feeds)
    check(m, feeds, tmp_path, want=want, exact=reduction == "none")


# --------------------------------------------------------------------------------------
# ScatterND
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize("reduction", ["none", "add", "mul", "max", "min"])
@pytest.mark.parametrize("seed", range(2))
def test_scatter_nd_random(reduction, seed, tmp_path):
    rng = rng_for("scatter_nd", reduction, seed)
    rank = int(rng.integers(1, 4))
    shape = tuple(int(s) for s in rng.integers(2, 5, rank))
    k = int(rng.integers(1, rank + 1))
    cells = int(np.prod(shape[:k]))
    count = int(rng.integers(1, cells + 1))
    flat = _unique_positions(rng, cells, count)  # unique targets: onnxruntime's order is unspecified
    idx = np.stack(np.unravel_index(flat, shape[:k]), -1)
    idx = np.where(rng.random(idx.shape) < 0.5, idx - np.array(shape[:k]), idx)
    q = (count,) if seed == 0 or count % 2 else (2, count // 2)
    idx = idx[: int(np.prod(q))].reshape(q + (k,)).astype(np.int64)  # ScatterND's indices are int64
    dt = [np.float32, np.int64][seed] if reduction in ("none", "max", "min") else [np.float32, np.float64][seed]
    x = data(rng, shape, dt)
    u = data(rng, q + shape[k:], dt)
    attrs = {} if reduction == "none" else {"reduction": reduction}
    m = model_of("ScatterND", {"x": x, "i": idx, "u": u}, {"y": dt}, **attrs)
    check(m, {"x": x, "i": idx, "u": u}, tmp_path, through_c=seed == 0)


# --------------------------------------------------------------------------------------
# Out-of-range indices: errors, never memory outside the tensors
# --------------------------------------------------------------------------------------

BAD_INDEX_MODELS = {
    "GatherND": lambda: ({"x": np.zeros((3, 4), np.float32), "i": np.array([[0, 4]], np.int64)}, {}),
    "ScatterElements": lambda: ({"x": np.zeros((3, 4), np.float32), "i": np.array([[0, -4]], np.int64),
                                 "u": np.ones((1, 2), np.float32)}, {"axis": 0}),
    "ScatterND": lambda: ({"x": np.zeros((3, 4), np.float32), "i": np.array([[1], [3]], np.int64),
                           "u": np.ones((2, 4), np.float32)}, {}),
    "NegativeLogLikelihoodLoss": lambda: ({"x": np.zeros((2, 3), np.float32), "t": np.array([1, 7], np.int64)},
                                          {"reduction": "sum"}),
}


@pytest.mark.parametrize("op", sorted(BAD_INDEX_MODELS))
def test_out_of_range_index_is_an_error(op, tmp_path):
    feeds, attrs = BAD_INDEX_MODELS[op]()
    out = np.float32
    m = model_of(op, feeds, {"y": out}, **attrs)
    with pytest.raises(CompileError, match="out of range"):
        run_function(import_onnx_model(m), feeds)
    with pytest.raises(CompileError, match="compiled model failed"):
        c_outputs(m, feeds, tmp_path)


# The kernels themselves (ctypes): the error comes before any write; integer reductions
# wrap; NaN wins max / min.

I64P, VP, i = C.POINTER(C.c_int64), C.c_void_p, C.c_int
KERNELS = {
    "acc_gather_nd": [C.c_size_t, VP, i, I64P, i, i, VP, i, I64P, VP],
    "acc_scatter_elements": [i, VP, i, I64P, i, i, VP, I64P, VP, i, VP],
    "acc_scatter_nd": [i, VP, i, I64P, i, VP, i, I64P, VP, i, VP],
}
DT = {np.dtype(np.float32): 0, np.dtype(np.float64): 1, np.dtype(np.int8): 2, np.dtype(np.uint8): 3,
      np.dtype(np.int32): 5, np.dtype(np.int64): 6}
REDUCTION = {"none": 0, "add": 1, "mul": 2, "max": 3, "min": 4}
OK, EINVAL, ERANGE = 0, 1, 2


@pytest.fixture(scope="module")
def lib():
    dll = C.CDLL(str(cbuild.build(cbuild.host_kernel_sources(), kind="shared", name="host_kernels")))
    for name, args in KERNELS.items():
        getattr(dll, name).argtypes = args
        getattr(dll, name).restype = C.c_int
    return dll


def _p(a):
    return a.ctypes.data_as(VP)


def _s(shape):
    """A pointer to an int64 shape array, and the array (keep it alive while the pointer is used)."""
    arr = np.array(list(shape) or [0], np.int64)
    return arr.ctypes.data_as(I64P), arr


def scatter_nd_c(lib, x, idx, u, reduction, y=None):
    y = np.full_like(x, 7) if y is None else y
    sx, sx_keep = _s(x.shape)
    si, si_keep = _s(idx.shape)
    rc = lib.acc_scatter_nd(DT[x.dtype], _p(x), x.ndim, sx, DT[idx.dtype], _p(idx), idx.ndim, si, _p(u),
                            REDUCTION[reduction], _p(y))
    return rc, y


def test_kernel_range_error_writes_nothing(lib):
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    for bad in (3, -4, 1 << 40):
        idx = np.array([[0], [bad]], np.int64)
        rc, y = scatter_nd_c(lib, x, idx, np.ones((2, 4), np.float32), "add")
        assert rc == ERANGE and (y == 7).all()
    y = np.full((1,), 7, np.float32)
    sx, _a = _s(x.shape)
    idx = np.array([[2, 4]], np.int32)
    si, _b = _s(idx.shape)
    assert lib.acc_gather_nd(4, _p(x), 2, sx, 0, DT[idx.dtype], _p(idx), 2, si, _p(y)) == ERANGE and y[0] == 7
    idx = np.array([[0, 5]], np.int8)
    si, _c = _s(idx.shape)
    u = np.ones((1, 2), np.float32)
    y = np.full_like(x, 7)
    assert lib.acc_scatter_elements(0, _p(x), 2, sx, 1, DT[idx.dtype], _p(idx), si, _p(u), 0, _p(y)) == ERANGE
    assert (y == 7).all()
    # invalid parameters: a reduction on bool data, an unknown reduction, k > rank
    b = np.zeros((3, 4), np.bool_)
    assert lib.acc_scatter_elements(7, _p(b), 2, sx, 1, DT[idx.dtype], _p(idx), si, _p(b), 1, _p(b)) == EINVAL
    assert lib.acc_scatter_elements(0, _p(x), 2, sx, 1, DT[idx.dtype], _p(idx), si, _p(u), 5, _p(y)) == EINVAL


def test_kernel_integer_wrap_and_nan(lib):
    from accel.compiler.runtime import reference as ref

    x = np.array([120, -128, 5, 0], np.int8)
    idx = np.array([[0], [1], [2], [0]], np.int64)
    u = np.array([10, -1, 100, 3], np.int8)
    for reduction in ("add", "mul", "max", "min"):
        rc, y = scatter_nd_c(lib, x, idx, u, reduction)
        assert rc == OK
        np.testing.assert_array_equal(y, ref.scatter_nd(x, idx, u, reduction))
    f = np.array([1.0, np.nan, 3.0], np.float32)
    idx = np.array([[0], [1], [2]], np.int64)
    u = np.array([np.nan, 2.0, 1.0], np.float32)
    for reduction in ("max", "min"):
        rc, y = scatter_nd_c(lib, f, idx, u, reduction)
        want = ref.scatter_nd(f, idx, u, reduction)
        assert rc == OK and np.array_equal(np.isnan(y), np.isnan(want)) and np.isnan(want[:2]).all()
        assert y[2] == want[2]


# --------------------------------------------------------------------------------------
# NegativeLogLikelihoodLoss, SoftmaxCrossEntropyLoss
# --------------------------------------------------------------------------------------

LOSS_CASES = {
    # name: (op, scores shape, reduction, weights, ignore_index, log_prob)
    "nll-mean": ("NegativeLogLikelihoodLoss", (4, 5), "mean", False, None, False),
    "nll-none-weight-ii": ("NegativeLogLikelihoodLoss", (3, 4, 6), "none", True, 2, False),
    "nll-sum-4d-ii-neg": ("NegativeLogLikelihoodLoss", (2, 3, 4, 5), "sum", False, -1, False),
    "nll-mean-weight-ii": ("NegativeLogLikelihoodLoss", (5, 6, 3), "mean", True, 0, False),
    "sce-mean": ("SoftmaxCrossEntropyLoss", (4, 7), "mean", False, None, True),
    "sce-none-4d-weight": ("SoftmaxCrossEntropyLoss", (2, 5, 3, 4), "none", True, None, True),
    "sce-sum-ii-high": ("SoftmaxCrossEntropyLoss", (6, 5), "sum", True, 9, False),
    "sce-mean-ii-3d": ("SoftmaxCrossEntropyLoss", (3, 6, 7), "mean", False, 3, True),
    "sce-mean-weight-ii-5d": ("SoftmaxCrossEntropyLoss", (2, 4, 3, 2, 2), "mean", True, 1, False),
}


@pytest.mark.parametrize("name", sorted(LOSS_CASES))
def test_loss_random(name, tmp_path):
    op, shape, reduction, weighted, ii, log_prob = LOSS_CASES[name]
    rng = rng_for("loss", name)
    x = (rng.standard_normal(shape) * 3).astype(np.float32)
    labels = rng.integers(0, shape[1], (shape[0], *shape[2:])).astype(np.int64)
    if ii is not None:
        labels = np.where(rng.random(labels.shape) < 0.3, ii, labels).astype(np.int64)
    feeds = {"x": x, "t": labels}
    if weighted:
        feeds["w"] = rng.random(shape[1]).astype(np.float32) + 0.1
    outs = {"loss": np.float32} | ({"log_prob": np.float32} if log_prob else {})
    attrs = {"reduction": reduction} | ({} if ii is None else {"ignore_index": ii})
    m = model_of(op, feeds, outs, opset=13, **attrs)
    check(m, feeds, tmp_path)


def test_loss_float64_labels_int32(tmp_path):
    rng = rng_for("loss64")
    x = rng.standard_normal((4, 3, 2))
    feeds = {"x": x, "t": rng.integers(0, 3, (4, 2)).astype(np.int32)}
    m = model_of("SoftmaxCrossEntropyLoss", feeds, {"loss": np.float64}, opset=13, reduction="mean")
    check(m, feeds, tmp_path)


def test_loss_is_composed_of_existing_ops():
    rng = rng_for("composed")
    feeds = {"x": rng.standard_normal((2, 3)).astype(np.float32), "t": np.array([0, 2], np.int64),
             "w": np.ones(3, np.float32)}
    m = model_of("SoftmaxCrossEntropyLoss", feeds, {"loss": np.float32}, opset=13, ignore_index=1)
    names = {op.name for op in import_onnx_model(m).walk() if op.name.startswith("relay.")}
    assert {"relay.gather", "relay.take", "relay.where", "relay.sum", "relay.exp", "relay.log"} <= names


def test_constant_scatter_folds_at_import():
    x = np.zeros((3, 2), np.float32)
    idx = np.array([[2], [0]], np.int64)
    u = np.ones((2, 2), np.float32)
    node = h.make_node("ScatterND", ["x", "i", "u"], ["s"], reduction="add")
    add = h.make_node("Add", ["s", "a"], ["y"])
    m = make([node, add], [vi("a", (3, 2))], [vi("y", (3, 2))], [("x", x), ("i", idx), ("u", u)], opset=18)
    module = import_onnx_model(m)
    assert "relay.scatter_nd" not in {op.name for op in module.walk()}
    a = np.full((3, 2), 0.5, np.float32)
    np.testing.assert_array_equal(run_function(module, {"a": a})["y"], [[1.5, 1.5], [0.5, 0.5], [1.5, 1.5]])


# --------------------------------------------------------------------------------------
# Refusals: one line naming the node
# --------------------------------------------------------------------------------------


def _refusal(op, feeds, outs, opset=18, **attrs) -> str:
    node = h.make_node(op, list(feeds), list(outs), name="n0", **attrs)
    ins = [vi(n, a.shape, ONNX_TYPE[a.dtype]) for n, a in feeds.items()]
    return import_error(make([node], ins, [vi(o, None, t) for o, t in outs.items()], opset=opset))


def test_refusals():
    x, i1, u = np.zeros((3, 4), np.float32), np.zeros((2, 1), np.int64), np.zeros((2, 4), np.float32)
    msg = _refusal("ScatterND", {"x": x, "i": i1, "u": u}, {"y": T.FLOAT}, reduction="avg")
    assert "n0" in msg and "reduction 'avg' is not supported" in msg
    msg = _refusal("ScatterND", {"x": x, "i": i1, "u": np.zeros((2, 3), np.float32)}, {"y": T.FLOAT})
    assert "operand 'updates' must have shape [2, 4]" in msg
    msg = _refusal("GatherND", {"x": x, "i": np.zeros((3, 3), np.int64)}, {"y": T.FLOAT})
    assert "the last dimension of 'indices' (3) must be in [1, 2]" in msg
    msg = _refusal("GatherND", {"x": x, "i": np.zeros((3, 1), np.int64)}, {"y": T.FLOAT}, batch_dims=2)
    assert "property 'batch_dims' (2) must be in [0, 2)" in msg
    msg = _refusal("ScatterElements", {"x": x, "i": np.zeros((2, 4), np.int64), "u": u}, {"y": T.FLOAT}, axis=2)
    assert "axis 2 is out of range for rank 2" in msg
    b = np.zeros((3, 4), np.bool_)
    ONNX_TYPE[np.dtype(np.bool_)] = T.BOOL
    msg = _refusal("ScatterElements", {"x": b, "i": np.zeros((1, 4), np.int64), "u": np.zeros((1, 4), np.bool_)},
                   {"y": T.BOOL}, reduction="add")
    assert "reduction 'add' needs a numeric 'data'" in msg
    t = np.zeros((3,), np.int64)
    msg = _refusal("NegativeLogLikelihoodLoss", {"x": x, "t": t}, {"y": T.FLOAT}, opset=13, reduction="avg")
    assert "n0" in msg and "reduction 'avg' is not supported" in msg
    msg = _refusal("SoftmaxCrossEntropyLoss", {"x": x, "t": np.zeros((4,), np.int64)}, {"y": T.FLOAT}, opset=13)
    assert "the labels' shape [4] must be the scores' [3, 4] without axis 1" in msg
    msg = _refusal("SoftmaxCrossEntropyLoss", {"x": x, "t": t, "w": np.zeros((3,), np.float32)}, {"y": T.FLOAT},
                   opset=13)
    assert "the weights must be a [4] tensor" in msg
    msg = _refusal("NegativeLogLikelihoodLoss", {"x": x.astype(np.int32), "t": t}, {"y": T.INT32}, opset=13)
    assert "must be a float tensor" in msg


# --------------------------------------------------------------------------------------
# A real export: torch's index assignment, scatter_add and cross_entropy
# --------------------------------------------------------------------------------------


def test_torch_export_index_put_scatter_add_cross_entropy(tmp_path):
    """torch.onnx.export (legacy, opset 17; tests/models/export_selection_models.py) writes
    `y[:, idx] = v` as ScatterND, scatter_add as ScatterElements(reduction add),
    cross_entropy with ignore_index as SoftmaxCrossEntropyLoss; all three against
    onnxruntime through the interpreter and C, on the export's inputs and on other labels."""
    m = onnx.load(os.path.join(os.path.dirname(__file__), "models", "index_put_legacy.onnx"))
    kinds = {n.op_type for n in m.graph.node}
    assert {"ScatterND", "ScatterElements", "SoftmaxCrossEntropyLoss"} <= kinds
    g = np.random.default_rng(0)
    for labels in (g.integers(0, 6, (4, 3)), np.full((4, 3), 2)):  # (2 is the ignored index)
        args = (g.standard_normal((3, 5)).astype(np.float32), np.array([4, 0], np.int64),
                g.standard_normal((3, 2)).astype(np.float32), g.standard_normal((4, 6, 3)).astype(np.float32),
                labels.astype(np.int64))
        feeds = {i.name: a for i, a in zip(m.graph.input, args)}
        check(m, feeds, tmp_path)
