"""ONNX import of run-time math (`compiler/frontend/onnx/ops_math.py`) and the C path of
every run-time math op.

- Import: each ONNX op becomes its relay op (Reciprocal a divide, Max/Min a chain, Pow's
  exponent converted, integer Pow through f64, ReduceSum's attribute and input forms, bool
  ReduceMax through ui8), nodes whose inputs are all known are still folded, and
  unsupported forms are one-line errors naming the node.
- C: one ONNX graph using every run-time math op (float and integer, broadcasting, bool
  results; Slice with negative steps, Split, Expand of a bool mask) compiled host-only, built and run; it must equal onnxruntime (float within
  1e-5 of the output's magnitude: libm's expf/logf/powf differ from numpy's in the last
  bit; integers and bools exactly).
"""

from __future__ import annotations

import os

import numpy as np
import onnx
import pytest
from onnx import TensorProto as T
from onnx import helper as h
from onnx import numpy_helper as nh

from accel.compiler.diagnostics import CompileError
from accel.compiler.driver import compile_to_directory
from accel.compiler.frontend.onnx import import_onnx_model
from accel.compiler.runtime.interpreter import run_function
from accel.compiler.runtime.run_compiled import run_directory

ort = pytest.importorskip("onnxruntime")

rng = np.random.default_rng(0)


def make(nodes, inputs, outputs, inits=(), opset=18):
    graph = h.make_graph(nodes, "g", inputs, outputs, [nh.from_array(np.asarray(a), n) for n, a in inits])
    return h.make_model(graph, opset_imports=[h.make_opsetid("", opset)])


def vi(name, shape, t=T.FLOAT):
    return h.make_tensor_value_info(name, t, shape)


def ops(module) -> list[str]:
    return [op.name for op in module.walk() if op.name.startswith("relay.") and op.name != "relay.constant"]


def ort_outputs(model, feeds) -> dict[str, np.ndarray]:
    so = ort.SessionOptions()
    so.intra_op_num_threads = 1
    sess = ort.InferenceSession(model.SerializeToString(), so, providers=["CPUExecutionProvider"])
    return dict(zip([o.name for o in sess.get_outputs()], sess.run(None, feeds)))


def import_error(model) -> str:
    with pytest.raises(CompileError) as info:
        import_onnx_model(model)
    text = str(info.value)
    assert "\n" not in text
    return text


# --------------------------------------------------------------------------------------
# Import
# --------------------------------------------------------------------------------------


TRIG = ("Sin", "Cos", "Tan", "Asin", "Acos", "Atan", "Sinh", "Cosh", "Asinh", "Acosh", "Atanh")


@pytest.mark.parametrize("op, relay_ops", [
    ("Sqrt", ["relay.sqrt"]), ("Exp", ["relay.exp"]), ("Log", ["relay.log"]), ("Neg", ["relay.negative"]),
    ("Abs", ["relay.abs"]), ("Reciprocal", ["relay.divide"]), ("Floor", ["relay.floor"]), ("Ceil", ["relay.ceil"]),
    ("Round", ["relay.round"]), *((op, [f"relay.{op.lower()}"]) for op in TRIG),
])  # fmt: skip
def test_unary_ops_import_to_their_relay_op(op, relay_ops):
    m = make([h.make_node(op, ["x"], ["y"])], [vi("x", [2, 3])], [vi("y", [2, 3])])
    module = import_onnx_model(m)
    assert ops(module) == relay_ops
    x = np.abs(rng.standard_normal((2, 3))).astype(np.float32) + 0.1
    np.testing.assert_allclose(run_function(module, {"x": x})["y"], ort_outputs(m, {"x": x})["y"], rtol=1e-6)


def test_abs_of_unsigned_is_the_identity():
    m = make([h.make_node("Abs", ["x"], ["y"])], [vi("x", [4], T.UINT8)], [vi("y", [4], T.UINT8)])
    assert ops(import_onnx_model(m)) == []


def test_variadic_max_min_chain_and_single_input_is_identity():
    m = make([h.make_node("Max", ["a", "b", "c"], ["y"]), h.make_node("Min", ["a"], ["z"])],
             [vi("a", [2, 3]), vi("b", [3]), vi("c", [2, 1])], [vi("y", [2, 3]), vi("z", [2, 3])])
    module = import_onnx_model(m)
    assert ops(module) == ["relay.maximum", "relay.maximum"]
    feeds = {"a": rng.standard_normal((2, 3)).astype(np.float32), "b": rng.standard_normal(3).astype(np.float32),
             "c": rng.standard_normal((2, 1)).astype(np.float32)}
    got, want = run_function(module, feeds), ort_outputs(m, feeds)
    for k in ("y", "z"):
        np.testing.assert_array_equal(got[k], want[k])


def test_pow_exponent_takes_the_base_type_and_integer_pow_goes_through_f64():
    m = make([h.make_node("Pow", ["x", "e"], ["y"])], [vi("x", [3])], [vi("y", [3])], [("e", np.array(2, np.int64))])
    module = import_onnx_model(m)
    assert ops(module) == ["relay.power"]
    assert "tensor<f32>" in str(module)  # the exponent constant, converted
    m = make([h.make_node("Pow", ["x", "e"], ["y"])], [vi("x", [3], T.INT32), vi("e", [3])], [vi("y", [3], T.INT32)])
    module = import_onnx_model(m)
    assert ops(module) == ["relay.cast", "relay.cast", "relay.power", "relay.cast"]
    feeds = {"x": np.array([2, -3, 4], np.int32), "e": np.array([3.0, 2.0, 0.5], np.float32)}
    np.testing.assert_array_equal(run_function(module, feeds)["y"], ort_outputs(m, feeds)["y"])  # [8, 9, 2]


def test_comparisons_give_bool_and_where_selects():
    nodes = [h.make_node("Greater", ["x", "zero"], ["pos"]), h.make_node("Not", ["pos"], ["neg"]),
             h.make_node("Where", ["neg", "fill", "x"], ["y"])]
    m = make(nodes, [vi("x", [2, 3])], [vi("y", [2, 3]), vi("neg", [2, 3], T.BOOL)],
             [("zero", np.zeros(3, np.float32)), ("fill", np.array(-1.0, np.float32))])
    module = import_onnx_model(m)
    assert ops(module) == ["relay.greater", "relay.logical_not", "relay.where"]
    assert "tensor<2x3xi1>" in str(module)
    x = rng.standard_normal((2, 3)).astype(np.float32)
    got, want = run_function(module, {"x": x}), ort_outputs(m, {"x": x})
    for k in ("y", "neg"):
        np.testing.assert_array_equal(got[k], want[k])


@pytest.mark.parametrize("opset, axes_as_input", [(11, False), (13, True)])
def test_reduce_sum_axes_attribute_then_input(opset, axes_as_input):
    attrs = {} if axes_as_input else {"axes": [1]}
    inputs = ["x", "axes"] if axes_as_input else ["x"]
    inits = [("axes", np.array([1], np.int64))] if axes_as_input else []
    m = make([h.make_node("ReduceSum", inputs, ["y"], keepdims=0, **attrs)], [vi("x", [2, 3, 4])],
             [vi("y", [2, 4])], inits, opset=opset)
    module = import_onnx_model(m)
    assert ops(module) == ["relay.sum"]
    x = rng.standard_normal((2, 3, 4)).astype(np.float32)
    np.testing.assert_allclose(run_function(module, {"x": x})["y"], ort_outputs(m, {"x": x})["y"], rtol=1e-6)


def test_reduce_noop_with_empty_axes_and_bool_max():
    m = make([h.make_node("ReduceMax", ["x"], ["y"], noop_with_empty_axes=1)], [vi("x", [2, 3])], [vi("y", [2, 3])])
    assert ops(import_onnx_model(m)) == []
    m = make([h.make_node("ReduceMax", ["b", "axes"], ["y"], keepdims=0)], [vi("b", [2, 3], T.BOOL)],
             [vi("y", [2], T.BOOL)], [("axes", np.array([1], np.int64))])
    module = import_onnx_model(m)
    assert ops(module) == ["relay.cast", "relay.max", "relay.cast"]
    b = np.array([[0, 0, 1], [0, 0, 0]], bool)
    np.testing.assert_array_equal(run_function(module, {"b": b})["y"], [True, False])


def test_nodes_on_constants_are_still_folded():
    nodes = [h.make_node("Sqrt", ["c"], ["s"]), h.make_node("Less", ["s", "c"], ["l"]),
             h.make_node("Where", ["l", "s", "c"], ["w"]), h.make_node("ReduceSum", ["w"], ["r"], keepdims=1),
             h.make_node("Mul", ["x", "r"], ["y"])]
    m = make(nodes, [vi("x", [1, 1])], [vi("y", [1, 1])], [("c", np.array([[0.25, 4.0]], np.float32))], opset=13)
    module = import_onnx_model(m)
    assert ops(module) == ["relay.multiply"]
    np.testing.assert_allclose(run_function(module, {"x": np.ones((1, 1), np.float32)})["y"], [[0.25 + 2.0]])


def test_causal_mask_subgraph_folds_to_one_where():
    """GPT-2's mask as exporters build it from shapes (Shape -> ConstantOfShape -> Trilu ->
    Equal, Range for positions): all known at import time; only the Where on the scores
    and the position Add run."""
    n = h.make_node
    nodes = [n("Shape", ["x"], ["shp"]), n("ConstantOfShape", ["shp"], ["ones"],
                                           value=h.make_tensor("v", T.FLOAT, [1], [1.0])),
             n("Trilu", ["ones"], ["tril"], upper=0), n("Equal", ["tril", "zero"], ["masked"]),
             n("Where", ["masked", "ninf", "x"], ["scores"]),
             n("Range", ["r0", "r4", "r1"], ["pos"]), n("Cast", ["pos"], ["posf"], to=T.FLOAT),
             n("Add", ["scores", "posf"], ["y"])]
    inits = [("zero", np.array(0.0, np.float32)), ("ninf", np.array(-np.inf, np.float32)),
             ("r0", np.array(0, np.int64)), ("r4", np.array(4, np.int64)), ("r1", np.array(1, np.int64))]
    m = make(nodes, [vi("x", [4, 4])], [vi("y", [4, 4])], inits)
    module = import_onnx_model(m)
    assert ops(module) == ["relay.where", "relay.nn.bias_add"]  # positions: a bias along the last axis
    x = rng.standard_normal((4, 4)).astype(np.float32)
    np.testing.assert_array_equal(run_function(module, {"x": x})["y"], ort_outputs(m, {"x": x})["y"])


def test_errors_are_one_line_naming_the_node():
    m = make([h.make_node("ReduceSum", ["x", "axes"], ["y"], name="rs")], [vi("x", [2, 3]), vi("axes", [1], T.INT64)],
             [vi("y", None)], opset=13)
    assert "node 'rs' (ReduceSum): the axes input ('axes') must be a constant" in import_error(m)
    m = make([h.make_node("Where", ["c", "x", "x"], ["y"], name="w")], [vi("c", [3]), vi("x", [3])], [vi("y", [3])])
    assert "node 'w' (Where): the condition must be a bool tensor, got float32" in import_error(m)
    m = make([h.make_node("Less", ["a", "b"], ["y"], name="lt")], [vi("a", [3]), vi("b", [3], T.INT32)],
             [vi("y", [3], T.BOOL)])
    assert "node 'lt' (Less): operands 'lhs' and 'rhs' must have the same element type" in import_error(m)


# --------------------------------------------------------------------------------------
# Every run-time math op through the C host kernels
# --------------------------------------------------------------------------------------


def every_math_op_model() -> tuple[onnx.ModelProto, dict[str, np.ndarray]]:
    n = h.make_node
    nodes = [
        n("Abs", ["x"], ["ax"]), n("Sqrt", ["ax"], ["sq"]), n("Neg", ["x"], ["nx"]), n("Exp", ["nx"], ["ex"]),
        n("Add", ["sq", "one"], ["sq1"]), n("Log", ["sq1"], ["lg"]), n("Pow", ["sq", "half3"], ["pw"]),
        n("Reciprocal", ["sq1"], ["rc"]),
        n("Max", ["pw", "ex", "lg"], ["mx"]), n("Min", ["x", "row"], ["mn"]),
        n("Less", ["x", "row"], ["lt"]), n("Not", ["lt"], ["ge"]), n("Where", ["ge", "mx", "mn"], ["f_where"]),
        n("ReduceSum", ["f_where", "last"], ["f_sum"], keepdims=1), n("ReduceMax", ["rc", "mid"], ["f_max"], keepdims=0),
        n("ReduceMin", ["x"], ["f_min"], keepdims=0), n("ReduceProd", ["sq1", "last"], ["f_prod"], keepdims=0),
        n("Equal", ["i", "three"], ["b_eq"]), n("Greater", ["i", "j"], ["b_gt"]), n("LessOrEqual", ["i", "j"], ["b_le"]),
        n("GreaterOrEqual", ["j", "three"], ["b_ge"]), n("And", ["b_gt", "b_ge"], ["b_and"]),
        n("Or", ["b_eq", "b_le"], ["b_or"]), n("Xor", ["b_and", "b_or"], ["b_xor"]),
        n("Neg", ["i"], ["ni"]), n("Abs", ["ni"], ["ai"]), n("Max", ["ai", "j"], ["i_max"]), n("Min", ["ni", "j"], ["i_min"]),
        n("ReduceSum", ["i_max", "last"], ["i_sum"], keepdims=0), n("ReduceMax", ["i_min", "mid"], ["i_rmax"], keepdims=1),
        n("ReduceMin", ["ni", "mid"], ["i_rmin"], keepdims=0), n("ReduceProd", ["j", "mid"], ["i_prod"], keepdims=0),
        n("Slice", ["x", "s_start", "s_end", "s_axes", "s_step"], ["f_slice"]),
        n("Split", ["i", "split"], ["i_a", "i_b"], axis=2), n("Expand", ["b_ge", "e_shape"], ["b_expand"]),
        n("Mul", ["x", "two"], ["x2"]), n("Floor", ["x2"], ["fl"]), n("Ceil", ["x2"], ["ce"]), n("Round", ["x2"], ["f_round"]),
        n("Sub", ["fl", "ce"], ["f_floor_ceil"]),
        # x in [-2, 2): asin, acos and atanh are NaN beyond 1 and acosh below it, as in C.
        *[n(op, ["x"], [f"f_{op.lower()}"]) for op in TRIG],
    ]
    inits = [("one", np.array(1.0, np.float32)), ("half3", np.array(1.5, np.float32)), ("two", np.array(2.0, np.float32)),
             ("row", (rng.standard_normal(4) * 0.5).astype(np.float32)), ("last", np.array([-1], np.int64)),
             ("mid", np.array([1], np.int64)), ("three", np.array(3, np.int32)),
             ("s_start", np.array([-1, 2], np.int64)), ("s_end", np.array([-100, 0], np.int64)),
             ("s_axes", np.array([2, 1], np.int64)), ("s_step", np.array([-2, -1], np.int64)),
             ("split", np.array([1, 3], np.int64)), ("e_shape", np.array([2, 1, 1], np.int64))]
    outs = {"f_where": (T.FLOAT, [2, 3, 4]), "f_sum": (T.FLOAT, [2, 3, 1]), "f_max": (T.FLOAT, [2, 4]),
            "f_min": (T.FLOAT, []), "f_prod": (T.FLOAT, [2, 3]), "b_eq": (T.BOOL, [2, 3, 4]), "b_gt": (T.BOOL, [2, 3, 4]),
            "b_le": (T.BOOL, [2, 3, 4]), "b_ge": (T.BOOL, [3, 4]), "i_sum": (T.INT32, [2, 3]),
            "i_rmax": (T.INT32, [2, 1, 4]), "i_rmin": (T.INT32, [2, 4]), "i_prod": (T.INT32, [3]),
            "f_slice": (T.FLOAT, [2, 2, 2]), "i_a": (T.INT32, [2, 3, 1]), "i_b": (T.INT32, [2, 3, 3]),
            "b_expand": (T.BOOL, [2, 3, 4]), "b_xor": (T.BOOL, [2, 3, 4]), "f_round": (T.FLOAT, [2, 3, 4]),
            "f_floor_ceil": (T.FLOAT, [2, 3, 4]), **{f"f_{op.lower()}": (T.FLOAT, [2, 3, 4]) for op in TRIG}}
    m = make(nodes, [vi("x", [2, 3, 4]), vi("i", [2, 3, 4], T.INT32), vi("j", [3, 4], T.INT32)],
             [vi(k, s, t) for k, (t, s) in outs.items()], inits)
    onnx.checker.check_model(m, full_check=True)
    x = (rng.standard_normal((2, 3, 4)) * 2).astype(np.float32)
    x.flat[:6] = [0.25, 0.75, -1.25, 1.25, -0.2, 2.0]  # 2x: halves (to even), -0.4 (-0.0), an integer
    feeds = {"x": x,
             "i": rng.integers(-5, 6, (2, 3, 4)).astype(np.int32), "j": rng.integers(-3, 4, (3, 4)).astype(np.int32)}
    return m, feeds


def test_every_math_op_runs_in_c_and_matches_onnxruntime(tmp_path):
    model, feeds = every_math_op_model()
    path = str(tmp_path / "math.onnx")
    onnx.save(model, path)
    module = import_onnx_model(model)
    math_ops = {"relay.sqrt", "relay.exp", "relay.log", "relay.negative", "relay.abs", "relay.power",
                "relay.maximum", "relay.minimum", "relay.equal", "relay.less", "relay.less_equal", "relay.greater",
                "relay.greater_equal", "relay.logical_not", "relay.where", "relay.sum", "relay.prod", "relay.max",
                "relay.min", "relay.strided_slice", "relay.broadcast_to", "relay.logical_and", "relay.logical_or",
                "relay.logical_xor", "relay.floor", "relay.ceil", "relay.round", *(f"relay.{op.lower()}" for op in TRIG)}
    assert math_ops <= set(ops(module)), sorted(math_ops - set(ops(module)))
    compile_to_directory(path, "", str(tmp_path / "out"), pipeline="canonicalize,bufferize,plan-memory")
    got, _ = run_directory(str(tmp_path / "out"), feeds)
    want = ort_outputs(model, feeds)
    assert set(got) == set(want)
    for k, w in want.items():
        assert got[k].dtype == w.dtype and got[k].shape == w.shape, k
        if w.dtype.kind == "f":
            np.testing.assert_allclose(got[k], w, rtol=1e-5, atol=1e-5 * float(np.nanmax(np.abs(w))), err_msg=k)
        else:
            np.testing.assert_array_equal(got[k], w, err_msg=k)
    assert os.path.exists(tmp_path / "out" / "model.c")
