"""ONNX Einsum (`compiler/frontend/onnx/ops_einsum.py`): equations against onnxruntime,
random two-operand equations against numpy, the relay ops the common forms become (the
products MatMul imports as), the npu offloading a linear layer written as an einsum, and
the one-line errors of equations that do not fit.
"""

from __future__ import annotations

import json
import os

import numpy as np
import onnx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from onnx import TensorProto as T
from onnx import helper as h

from accel.compiler.diagnostics import CompileError
from accel.compiler.driver import compile_to_directory
from accel.compiler.frontend.onnx import SUPPORTED_OPS, import_onnx_model
from accel.compiler.runtime.interpreter import run_function
from accel.compiler.runtime.run_compiled import run_directory
from test_onnx_import import make, vi

ort = pytest.importorskip("onnxruntime")

rng = np.random.default_rng(0)


@pytest.fixture(autouse=True)
def _seeded():
    """Every test sees the same random numbers, whatever runs before it (xdist)."""
    global rng
    rng = np.random.default_rng(0)


def f32(*shape) -> np.ndarray:
    return rng.standard_normal(shape).astype(np.float32)




def assert_matches_ort(model, feeds, rtol=1e-5):
    """Equal shapes and dtypes; values within rtol of the largest reference magnitude."""
    got = run_function(import_onnx_model(model), feeds)
    so = ort.SessionOptions()
    so.intra_op_num_threads = 1
    want = ort.InferenceSession(model.SerializeToString(), so).run(None, feeds)
    for o, w in zip(model.graph.output, want):
        g = got[o.name]
        assert g.shape == w.shape and g.dtype == w.dtype, (g.shape, g.dtype, w.shape, w.dtype)
        np.testing.assert_allclose(g, w, rtol=rtol, atol=rtol * float(np.abs(w).max(initial=1.0)))


def import_error(model: onnx.ModelProto) -> str:
    with pytest.raises(CompileError) as info:
        import_onnx_model(model)
    text = str(info.value)
    assert "\n" not in text
    return text


def relay_ops(module) -> list[str]:
    return [op.name for op in module.walk() if op.name.startswith("relay.") and op.name != "relay.constant"]


def einsum_model(equation: str, shapes, dtype=T.FLOAT, consts: dict[int, np.ndarray] | None = None):
    """Einsum of inputs x0, x1, ... (those in `consts` initializers), output y."""
    consts = consts or {}
    names = [f"x{i}" for i in range(len(shapes))]
    inputs = [vi(nm, s, dtype) for i, (nm, s) in enumerate(zip(names, shapes)) if i not in consts]
    node = h.make_node("Einsum", names, ["y"], equation=equation)
    return make([node], inputs, [vi("y", None, dtype)], [(f"x{i}", a) for i, a in consts.items()])


def test_einsum_is_supported():
    assert "Einsum" in SUPPORTED_OPS


# --------------------------------------------------------------------------------------
# Equations against onnxruntime
# --------------------------------------------------------------------------------------

EQUATIONS = [
    ("ij,jk->ik", [(3, 4), (4, 5)]),                          # matmul
    ("bij,bjk->bik", [(2, 3, 4), (2, 4, 5)]),                 # batched matmul
    ("bhqd,bhkd->bhqk", [(2, 3, 4, 8), (2, 3, 6, 8)]),        # attention scores
    ("bhqk,bhkd->bhqd", [(2, 3, 4, 6), (2, 3, 6, 8)]),        # attention values
    ("bnd,dk->bnk", [(2, 5, 8), (8, 3)]),                     # linear layer
    ("bnd,kd->bnk", [(2, 5, 8), (3, 8)]),                     # linear layer, [out, in] weight
    ("ij->ji", [(3, 4)]),                                     # transposes
    ("bij->jbi", [(2, 3, 4)]),
    ("ij->i", [(3, 4)]),                                      # reductions
    ("ij->", [(3, 4)]),
    ("i,j->ij", [(3,), (4,)]),                                # outer products
    ("bi,bj->bij", [(2, 3), (2, 4)]),
    ("...ij,...jk->...ik", [(2, 3, 4, 5), (2, 3, 5, 6)]),     # ellipsis
    ("...ij,...jk->...ik", [(2, 1, 4, 5), (2, 3, 5, 6)]),     # ellipsis, broadcast
    ("...ij,...jk", [(2, 3, 4, 5), (2, 3, 5, 6)]),            # ellipsis, implicit output
    ("ij,jk,kl->il", [(2, 3), (3, 4), (4, 5)]),               # three operands
    ("abc,cd,de->abe", [(2, 3, 4), (4, 5), (5, 2)]),
    ("ij,jk", [(3, 4), (4, 5)]),                              # implicit output
    ("bij,bjk->bk", [(2, 3, 4), (2, 4, 5)]),                  # a letter summed in one operand
    ("ii->i", [(4, 4)]),                                      # diagonals
    ("ii", [(4, 4)]),
    ("...ii->...i", [(2, 3, 3)]),
    ("bcd,dce->be", [(2, 3, 4), (4, 3, 5)]),                  # two contracted letters, in other orders
    ("ij,j->i", [(3, 4), (4,)]),                              # matrix-vector, dot product
    ("i,i", [(5,), (5,)]),
    ("ij,ij->ij", [(3, 4), (3, 4)]),                          # elementwise product
    ("Ab,bC->AC", [(3, 4), (4, 5)]),                          # upper-case letters
    (" b i j , b j k -> b i k ", [(2, 3, 4), (2, 4, 5)]),     # spaces
    (",i->i", [(), (3,)]),                                    # a scalar operand
    ("ij,jk->ik", [(3, 4), (1, 5)]),                          # a broadcast letter of size 1
]


@pytest.mark.parametrize("equation,shapes", EQUATIONS, ids=[e for e, _ in EQUATIONS])
def test_equation_matches_onnxruntime(equation, shapes):
    model = einsum_model(equation, shapes)
    assert_matches_ort(model, {f"x{i}": f32(*s) for i, s in enumerate(shapes)})


@pytest.mark.parametrize("dtype,np_dtype", [(T.INT32, np.int32), (T.INT64, np.int64), (T.DOUBLE, np.float64)])
@pytest.mark.parametrize("equation,shapes", [("bij,bjk->bik", [(2, 3, 4), (2, 4, 5)]), ("ij->i", [(3, 4)]),
                                             ("i,j->ij", [(3,), (4,)]), ("ij,jk,kl->il", [(2, 3), (3, 4), (4, 5)])])
def test_integer_and_double_operands(equation, shapes, dtype, np_dtype):
    feeds = {f"x{i}": rng.integers(-5, 6, s).astype(np_dtype) for i, s in enumerate(shapes)}
    assert_matches_ort(einsum_model(equation, shapes, dtype), feeds)


def test_constant_operand_matches_onnxruntime():
    w = f32(8, 3)
    model = einsum_model("bnd,dk->bnk", [(2, 5, 8), (8, 3)], consts={1: w})
    assert_matches_ort(model, {"x0": f32(2, 5, 8)})


def test_all_constant_operands_fold():
    a, b = f32(3, 4), f32(4, 5)
    node = h.make_node("Einsum", ["a", "b"], ["e"], equation="ij,jk->ik")
    add = h.make_node("Add", ["x", "e"], ["y"])
    model = make([node, add], [vi("x", (3, 5))], [vi("y", (3, 5))], [("a", a), ("b", b)])
    module = import_onnx_model(model)
    assert relay_ops(module) == ["relay.add"]
    x = f32(3, 5)
    np.testing.assert_allclose(run_function(module, {"x": x})["y"], x + a @ b, rtol=1e-5, atol=1e-5)


# --------------------------------------------------------------------------------------
# The relay ops of the common forms
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize("equation,shapes,expected", [
    ("ij,jk->ik", [(3, 4), (4, 5)], ["relay.nn.matmul"]),
    ("bij,bjk->bik", [(2, 3, 4), (2, 4, 5)], ["relay.nn.batch_matmul"]),
    ("bhqd,bhkd->bhqk", [(2, 3, 4, 8), (2, 3, 6, 8)], ["relay.nn.batch_matmul"]),
    ("bhqk,bhkd->bhqd", [(2, 3, 4, 6), (2, 3, 6, 8)], ["relay.nn.batch_matmul"]),
    ("...ij,...jk->...ik", [(2, 3, 4, 5), (3, 5, 6)], ["relay.nn.batch_matmul"]),
    ("ij->ji", [(3, 4)], ["relay.transpose"]),
    ("ij->i", [(3, 4)], ["relay.sum"]),
    ("ii->i", [(3, 3)], ["relay.reshape", "relay.take"]),
    ("i,j->ij", [(3,), (4,)], ["relay.reshape", "relay.multiply"]),
])
def test_common_forms_become_one_op(equation, shapes, expected):
    assert relay_ops(import_onnx_model(einsum_model(equation, shapes))) == expected


def _product(module):
    return next(op for op in module.walk() if op.name in ("relay.nn.matmul", "relay.nn.batch_matmul"))


def test_attention_scores_use_the_transpose_flag():
    module = import_onnx_model(einsum_model("bhqd,bhkd->bhqk", [(2, 3, 4, 8), (2, 3, 6, 8)]))
    p = _product(module)
    assert p.prop("transpose_b") and not p.prop("transpose_a")
    assert relay_ops(module) == ["relay.nn.batch_matmul"]  # on the graph inputs as they are


@pytest.mark.parametrize("equation,w_shape", [("bnd,dk->bnk", (8, 3)), ("dk,bnd->bnk", (8, 3))])
def test_linear_layer_is_what_matmul_imports_as(equation, w_shape):
    """x [2, 5, 8] times a constant weight: the batch_matmul MatMul imports as (constant
    right operand, transpose_b = false), whichever side the equation writes it on."""
    w = f32(*w_shape)
    x_first = equation.startswith("bnd")
    shapes = [(2, 5, 8), w_shape] if x_first else [w_shape, (2, 5, 8)]
    model = einsum_model(equation, shapes, consts={1 if x_first else 0: w})
    einsum_ir = import_onnx_model(model)
    matmul = make([h.make_node("MatMul", ["x", "w"], ["y"])], [vi("x", (2, 5, 8))], [vi("y", None)], [("w", w)])
    matmul_ir = import_onnx_model(matmul)
    assert relay_ops(einsum_ir) == relay_ops(matmul_ir) == ["relay.nn.batch_matmul"]
    a, b = _product(einsum_ir), _product(matmul_ir)
    assert [a.prop(p) for p in ("transpose_a", "transpose_b")] == [b.prop(p) for p in ("transpose_a", "transpose_b")]
    assert [o.type for o in a.operands] == [o.type for o in b.operands]


# --------------------------------------------------------------------------------------
# Random equations against numpy
# --------------------------------------------------------------------------------------


@st.composite
def two_operand_equations(draw):
    """(equation, shapes): letters a-f (repeats within an operand: diagonals), sizes 1-4,
    now and then a letter of size 1 in one operand (broadcast), explicit or implicit output."""
    letters = "abcdef"
    sizes = {c: draw(st.integers(1, 4)) for c in letters}
    terms = [draw(st.lists(st.sampled_from(letters), min_size=0, max_size=4)) for _ in range(2)]
    shapes = []
    for term in terms:
        shape = []
        for c in term:
            broadcast = term.count(c) == 1 and draw(st.integers(0, 7)) == 0
            shape.append(1 if broadcast else sizes[c])
        shapes.append(tuple(shape))
    if draw(st.booleans()):
        used = sorted(set(terms[0]) | set(terms[1]))
        out = draw(st.permutations(used))[: draw(st.integers(0, len(used)))]
        equation = f"{''.join(terms[0])},{''.join(terms[1])}->{''.join(out)}"
    else:
        equation = f"{''.join(terms[0])},{''.join(terms[1])}"
    return equation, shapes


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(two_operand_equations())
def test_random_equations_match_numpy(case):
    equation, shapes = case
    r = np.random.default_rng(len(equation))
    xs = [r.standard_normal(s).astype(np.float32) for s in shapes]
    module = import_onnx_model(einsum_model(equation, shapes))
    got = run_function(module, {f"x{i}": x for i, x in enumerate(xs)})["y"]
    want = np.einsum(equation, *[x.astype(np.float64) for x in xs])
    assert got.shape == want.shape and got.dtype == np.float32, (equation, got.shape, want.shape)
    # 1e-5 of the output's max, the output's max taken over the terms' magnitudes: a sum
    # whose terms cancel is exact only to float32's rounding of the terms themselves.
    magnitude = np.einsum(equation, *[np.abs(x.astype(np.float64)) for x in xs])
    tol = 1e-5 * max(float(magnitude.max(initial=0.0)), 1e-30)
    np.testing.assert_allclose(got, want, rtol=0, atol=tol, err_msg=equation)


# --------------------------------------------------------------------------------------
# On the npu
# --------------------------------------------------------------------------------------


def test_linear_einsum_is_offloaded_to_the_npu(tmp_path):
    """"bnd,dk->bnk" with a constant weight: canonicalize-linear makes it a dense layer,
    which the npu runs; its result matches onnxruntime."""
    w = f32(16, 32)
    model = einsum_model("bnd,dk->bnk", [(2, 8, 16), (16, 32)], consts={1: w})
    path = str(tmp_path / "einsum.onnx")
    onnx.save(model, path)
    out = str(tmp_path / "out")
    report = compile_to_directory(path, "npu", out)
    with open(os.path.join(out, "report.json")) as f:
        assert json.load(f)["ops"] == report["ops"]
    assert report["ops"]["offloaded"] >= 1, report["ops"]
    assert not any("matmul" in r["op"] or "dense" in r["op"] for r in report["rejected"]), report["rejected"]
    assert report["macs"]["offloaded"] == report["macs"]["total"] > 0, report["macs"]
    with open(os.path.join(out, "npu_wrappers.c")) as f:
        assert "npu_matmul_f32(" in f.read()
    x = f32(2, 8, 16)
    got, _ = run_directory(out, {"x0": x})
    want = ort.InferenceSession(model.SerializeToString()).run(None, {"x0": x})[0]
    np.testing.assert_allclose(got["y"], want, rtol=0, atol=1e-4 * float(np.abs(want).max()))


# --------------------------------------------------------------------------------------
# Refused equations: one line each
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize("equation,shapes,message", [
    ("ij.jk->ik", [(3, 4), (4, 5)], "has '.', which is neither a letter (a-z, A-Z) nor '...'"),
    ("ij,jk->i-k", [(3, 4), (4, 5)], "has '-', which is neither a letter"),
    ("ij,jk->ik->k", [(3, 4), (4, 5)], "has more than one '->'"),
    ("i1,jk->ik", [(3, 4), (4, 5)], "has '1', which is neither a letter"),
    ("......ij->ij", [(3, 4)], "has '...' twice"),
    ("ij,jk,kl->il", [(3, 4), (4, 5)], "equation 'ij,jk,kl->il' has 3 operands but the node has 2 inputs"),
    ("ij->ij", [(3, 4), (4, 5)], "equation 'ij->ij' has 1 operand but the node has 2 inputs"),
    ("ij,jk->ik", [(3, 4), (5, 6)], "letter 'j' has sizes 4 and 5, which do not broadcast"),
    ("...ij,...jk->...ik", [(2, 3, 4), (3, 4, 5)], "the '...' axes have sizes 2 and 3, which do not broadcast"),
    ("ii->i", [(3, 4)], "operand 0 repeats 'i' over axes of sizes 3 and 4"),
    ("ijk,jk->i", [(3, 4), (4, 5)], "operand 0 has rank 2 but 'ijk' names 3 axes"),
    ("...ijk->i", [(3, 4)], "operand 0 has rank 2, fewer than the 3 letters of '...ijk'"),
    ("ij->ii", [(3, 4)], "the output repeats 'i'"),
    ("ij->k", [(3, 4)], "the output's letter 'k' is in no operand"),
    ("...ij->ij", [(2, 3, 4)], "the operands have '...' axes but the output has no '...'"),
])
def test_refused_equation_is_one_line(equation, shapes, message):
    err = import_error(einsum_model(equation, shapes))
    assert message in err, err
    assert "Einsum" in err or "y" in err


def test_refused_equation_on_constants_is_one_line():
    """Known operands go through the folder, which refuses the same way."""
    node = h.make_node("Einsum", ["a", "b"], ["y"], equation="ij,jk->ik")
    model = make([node], [], [vi("y", None)], [("a", f32(3, 4)), ("b", f32(5, 6))])
    assert "letter 'j' has sizes 4 and 5" in import_error(model)


def test_bool_operands_are_refused():
    model = einsum_model("ij,jk->ik", [(3, 4), (4, 5)], dtype=T.BOOL)
    assert "Einsum on bool tensors is not supported (float and integer types only)" in import_error(model)


def test_missing_equation_is_refused():
    model = make([h.make_node("Einsum", ["x0"], ["y"])], [vi("x0", (3, 4))], [vi("y", None)])
    assert "the equation attribute is missing" in import_error(model)
