"""LSTM and GRU (unrolled at import into dense/slice/sigmoid/tanh/multiply) and If with a
condition known at import time, against onnxruntime: through the reference interpreter,
the compiled C on the host alone, and the compiled C with `--target npu` (at a CRNN's
sizes every dense, the per-step matmuls with constant weights, is offloaded).

Each case is a one-node model built here with onnx.helper. onnxruntime has no kernel for
layout 1 (batch-major) recurrences; those cases are checked against onnx's reference
evaluator instead. Tolerance: float outputs within 1e-4 of the output's largest magnitude.
"""

from __future__ import annotations

import os

import numpy as np
import onnx
import pytest
from onnx import TensorProto as T
from onnx import helper as oh
from onnx import numpy_helper as nh
from onnx.reference import ReferenceEvaluator

from accel.compiler.diagnostics import CompileError
from accel.compiler.driver import compile_to_directory
from accel.compiler.frontend.onnx import import_onnx_model
from accel.compiler.runtime.interpreter import run_function
from accel.compiler.runtime.run_compiled import run_directory
from e2e_util import ort_run

RTOL = 1e-4
SEQ, BATCH, INPUT, HIDDEN = 4, 2, 3, 5

rng = np.random.default_rng(23)


def _vi(name, shape, t=T.FLOAT):
    return oh.make_tensor_value_info(name, t, shape)


def _model(nodes, inputs, outputs, inits=(), opset=14) -> onnx.ModelProto:
    graph = oh.make_graph(nodes, "g", inputs, outputs, [nh.from_array(a, n) for n, a in inits])
    m = oh.make_model(graph, opset_imports=[oh.make_opsetid("", opset)])
    m.ir_version = 9
    return m


def _recurrent(op, direction="forward", bias=True, initial=False, layout=0, outputs=("Y", "Y_h", "Y_c"),
               sizes=(SEQ, BATCH, INPUT, HIDDEN), peepholes=False, **attrs):
    seq, batch, input_size, hidden = sizes
    gates = {"LSTM": 4, "GRU": 3}[op]
    nd = 2 if direction == "bidirectional" else 1
    inits = [("W", rng.standard_normal((nd, gates * hidden, input_size)).astype(np.float32) * 0.5),
             ("R", rng.standard_normal((nd, gates * hidden, hidden)).astype(np.float32) * 0.5)]
    ins = ["X", "W", "R"]
    if bias:
        inits.append(("B", rng.standard_normal((nd, 2 * gates * hidden)).astype(np.float32)))
    ins.append("B" if bias else "")
    x_shape = [seq, batch, input_size] if layout == 0 else [batch, seq, input_size]
    state = [nd, batch, hidden] if layout == 0 else [batch, nd, hidden]
    graph_inputs = [_vi("X", x_shape)]
    if initial:
        ins += ["", "h0"] + (["c0"] if op == "LSTM" else [])
        graph_inputs += [_vi("h0", state)] + ([_vi("c0", state)] if op == "LSTM" else [])
    if peepholes:
        inits.append(("P", rng.standard_normal((nd, 3 * hidden)).astype(np.float32)))
        ins += [""] * (7 - len(ins)) + ["P"]
    outputs = outputs[:3 if op == "LSTM" else 2]
    node = oh.make_node(op, ins, list(outputs), hidden_size=hidden, direction=direction, layout=layout, **attrs)
    return _model([node], graph_inputs, [_vi(o, None) for o in outputs if o], inits)


def _if_model(cond: bool) -> onnx.ModelProto:
    """If on a condition computed from a shape (Shape -> Gather -> Equal: known at import);
    each branch uses the outer `x` and an initializer of its own."""
    then_g = oh.make_graph([oh.make_node("Add", ["x", "one"], ["t"])], "then", [], [_vi("t", [2, 3])],
                           [nh.from_array(np.ones((2, 3), np.float32), "one")])
    else_g = oh.make_graph([oh.make_node("Tanh", ["x"], ["e0"]), oh.make_node("Mul", ["e0", "x"], ["e"])],
                           "else", [], [_vi("e", [2, 3])])
    nodes = [oh.make_node("Shape", ["x"], ["s"]),
             oh.make_node("Gather", ["s", "zero"], ["d0"], axis=0),
             oh.make_node("Equal", ["d0", "want"], ["c"]),
             oh.make_node("If", ["c"], ["y"], then_branch=then_g, else_branch=else_g),
             oh.make_node("Relu", ["y"], ["z"])]
    return _model(nodes, [_vi("x", [2, 3])], [_vi("z", [2, 3])],
                  [("zero", np.array(0, np.int64)), ("want", np.array(2 if cond else 5, np.int64))], opset=17)


CASES = {
    "lstm_forward": _recurrent("LSTM"),
    "lstm_reverse_initial": _recurrent("LSTM", "reverse", initial=True),
    "lstm_bidirectional_initial": _recurrent("LSTM", "bidirectional", initial=True),
    "lstm_bidirectional_no_bias": _recurrent("LSTM", "bidirectional", bias=False),
    "lstm_forward_no_bias_initial": _recurrent("LSTM", bias=False, initial=True),
    "lstm_only_y_h": _recurrent("LSTM", "reverse", outputs=("", "Y_h", "")),
    "lstm_default_activations_named": _recurrent("LSTM", activations=["Sigmoid", "Tanh", "Tanh"]),
    "lstm_peepholes": _recurrent("LSTM", "bidirectional", initial=True, peepholes=True),
    "lstm_peepholes_zero_initial": _recurrent("LSTM", "reverse", peepholes=True),
    "lstm_clip": _recurrent("LSTM", "bidirectional", initial=True, clip=0.7),
    "lstm_layout1_bidirectional": _recurrent("LSTM", "bidirectional", initial=True, layout=1),
    "gru_forward": _recurrent("GRU"),
    "gru_reverse_initial": _recurrent("GRU", "reverse", initial=True),
    "gru_bidirectional_initial": _recurrent("GRU", "bidirectional", initial=True),
    "gru_no_bias": _recurrent("GRU", bias=False, initial=True),
    "gru_before_reset": _recurrent("GRU", linear_before_reset=1),
    "gru_before_reset_bidirectional_initial": _recurrent("GRU", "bidirectional", initial=True,
                                                         linear_before_reset=1),
    "gru_before_reset_clip": _recurrent("GRU", "reverse", initial=True, linear_before_reset=1, clip=0.6),
    "gru_layout1": _recurrent("GRU", "bidirectional", initial=True, layout=1, linear_before_reset=1),
    "if_then": _if_model(True),
    "if_else": _if_model(False),
}

REFERENCE_ONLY = ("lstm_layout1", "gru_layout1")  # onnxruntime: "layout == 1 ... not supported"


def _expected(name: str, path: str, feeds) -> dict[str, np.ndarray]:
    model = CASES[name]
    if name.startswith(REFERENCE_ONLY):
        names = [o.name for o in model.graph.output]
        return dict(zip(names, ReferenceEvaluator(model).run(None, feeds)))
    return ort_run(path, feeds)


def _compare(got: dict, want: dict) -> None:
    for key, w in want.items():
        g = np.asarray(got[key])
        assert g.shape == w.shape and g.dtype == w.dtype, f"{key}: {g.dtype}{g.shape} vs {w.dtype}{w.shape}"
        scale = max(float(np.max(np.abs(w))), 1e-30)
        err = float(np.max(np.abs(g - w)))
        assert err <= RTOL * scale, f"{key}: max error {err} vs max magnitude {scale}"


@pytest.fixture(scope="module")
def feeds():
    out = {}
    for name, m in CASES.items():
        out[name] = {vi.name: rng.standard_normal([d.dim_value for d in vi.type.tensor_type.shape.dim])
                     .astype(np.float32) for vi in m.graph.input}
    return out


@pytest.mark.parametrize("name", sorted(CASES))
def test_interpreter_matches_onnxruntime(tmp_path, feeds, name):
    path = os.path.join(tmp_path, f"{name}.onnx")
    onnx.save(CASES[name], path)
    _compare(run_function(import_onnx_model(CASES[name]), feeds[name]), _expected(name, path, feeds[name]))


@pytest.mark.parametrize("name", sorted(CASES))
def test_compiled_c_on_host_matches_onnxruntime(tmp_path, feeds, name):
    path = os.path.join(tmp_path, f"{name}.onnx")
    onnx.save(CASES[name], path)
    out_dir = os.path.join(tmp_path, "out")
    compile_to_directory(path, "", out_dir, pipeline="canonicalize,bufferize,plan-memory")
    got, _ = run_directory(out_dir, feeds[name])
    _compare(got, _expected(name, path, feeds[name]))


@pytest.mark.parametrize("name", sorted(n for n in CASES if not n.startswith("if_")))
def test_compiled_c_on_npu_matches_onnxruntime(tmp_path, feeds, name):
    path = os.path.join(tmp_path, f"{name}.onnx")
    onnx.save(CASES[name], path)
    out_dir = os.path.join(tmp_path, "out")
    compile_to_directory(path, "npu", out_dir)
    got, _ = run_directory(out_dir, feeds[name])
    _compare(got, _expected(name, path, feeds[name]))


@pytest.mark.parametrize("op, attrs", [("LSTM", {}), ("GRU", {}), ("GRU", {"linear_before_reset": 1})])
def test_matmuls_offload_at_model_size(tmp_path, op, attrs):
    """At a CRNN's sizes the cost rule sends every matmul to the npu (at the tiny sizes
    above the DMA costs more than the host takes, so they stay there)."""
    model = _recurrent(op, "bidirectional", initial=True, sizes=(8, 4, 64, 64), **attrs)
    path = os.path.join(tmp_path, "rnn.onnx")
    onnx.save(model, path)
    out_dir = os.path.join(tmp_path, "out")
    report = compile_to_directory(path, "npu", out_dir)
    gates = {"LSTM": 4, "GRU": 3}[op]
    # two directions x 8 steps x (input + recurrent dense): [4, 64] x [gates*64, 64]ᵀ each
    assert report["macs"]["total"] == 2 * 8 * 2 * 4 * 64 * gates * 64
    assert report["macs"]["offloaded"] == report["macs"]["total"], report["macs"]
    feeds = {vi.name: rng.standard_normal([d.dim_value for d in vi.type.tensor_type.shape.dim]).astype(np.float32)
             for vi in model.graph.input}
    got, _ = run_directory(out_dir, feeds)
    _compare(got, ort_run(path, feeds))


def _error(model: onnx.ModelProto) -> str:
    with pytest.raises(CompileError) as e:
        import_onnx_model(model)
    msg = str(e.value)
    assert "\n" not in msg
    return msg


def test_refusals_are_one_line():
    assert "only the default" in _error(_recurrent("LSTM", activations=["Relu", "Tanh", "Tanh"]))
    assert "clip -1.0 must be positive" in _error(_recurrent("LSTM", clip=-1.0))
    assert "input_forget = 1" in _error(_recurrent("LSTM", input_forget=1))
    assert "only the default ['Sigmoid', 'Tanh', 'Sigmoid', 'Tanh']" in _error(
        _recurrent("GRU", "bidirectional", activations=["Sigmoid", "Tanh", "Sigmoid", "Relu"]))
    m = _recurrent("LSTM")
    node = m.graph.node[0]
    node.input.extend(["lens"])
    m.graph.initializer.append(nh.from_array(np.array([SEQ, SEQ - 1], np.int32), "lens"))
    assert "sequence_lens [4, 3] is not supported" in _error(m)


def test_full_sequence_lens_is_accepted(feeds):
    m = _recurrent("LSTM")
    m.graph.node[0].input.extend(["lens"])
    m.graph.initializer.append(nh.from_array(np.array([SEQ, SEQ], np.int32), "lens"))
    x = rng.standard_normal((SEQ, BATCH, INPUT)).astype(np.float32)
    _compare(run_function(import_onnx_model(m), {"X": x}), dict(zip(["Y", "Y_h", "Y_c"],
                                                                     ReferenceEvaluator(m).run(None, {"X": x}))))


def test_if_on_a_runtime_condition_is_one_line():
    m = _if_model(True)
    m.graph.input.append(_vi("c_in", [], T.BOOL))
    m.graph.node[3].input[0] = "c_in"
    assert "the condition ('c_in') must be a constant; it is a graph input: bind it" in _error(m)
