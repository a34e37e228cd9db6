"""Dynamically quantized models (onnxruntime's `quantize_dynamic`): an MLP (int8 weights:
DynamicQuantizeLinear + MatMulInteger), tests/models' ResNet-style CNN (uint8
weights: ConvInteger, MatMulInteger) and LSTMs (com.microsoft DynamicQuantizeLSTM, a
bidirectional one and a forward one with initial states and peepholes), through the
reference interpreter and the compiled C (npu target, host kernels for the integer ops),
against onnxruntime with graph optimizations off. The integer products are exact and the
float steps follow ONNX's order, so the outputs agree to 1e-6 of their largest magnitude.
"""

from __future__ import annotations

import os
from collections import Counter

import numpy as np
import onnx
import pytest
from onnx import TensorProto
from onnx import helper as oh
from onnx import numpy_helper as nh

from accel.compiler.driver import compile_to_directory
from accel.compiler.frontend.onnx import import_onnx_file
from accel.compiler.runtime.interpreter import run_function
from accel.compiler.runtime.run_compiled import run_directory
from e2e_util import MODELS, input_signature, mlp_model, ort_run

RTOL = 1e-6


def lstm_model(direction: str, states: bool) -> onnx.ModelProto:
    """An LSTM of 7 steps, batch 2, 16 inputs, 24 hidden units; with `states`, initial_h
    and initial_c are graph inputs and the cell has peepholes."""
    rng = np.random.default_rng(0)
    steps, batch, size, hidden, dirs = 7, 2, 16, 24, 2 if direction == "bidirectional" else 1
    inits = [nh.from_array((rng.standard_normal((dirs, 4 * hidden, size)) * 0.3).astype(np.float32), "W"),
             nh.from_array((rng.standard_normal((dirs, 4 * hidden, hidden)) * 0.3).astype(np.float32), "R"),
             nh.from_array((rng.standard_normal((dirs, 8 * hidden)) * 0.1).astype(np.float32), "B")]
    inputs = [oh.make_tensor_value_info("x", TensorProto.FLOAT, [steps, batch, size])]
    names = ["x", "W", "R", "B"]
    if states:
        inputs += [oh.make_tensor_value_info(n, TensorProto.FLOAT, [dirs, batch, hidden]) for n in ("h0", "c0")]
        inits.append(nh.from_array((rng.standard_normal((dirs, 3 * hidden)) * 0.2).astype(np.float32), "P"))
        names += ["", "h0", "c0", "P"]
    node = oh.make_node("LSTM", names, ["y", "yh", "yc"], hidden_size=hidden, direction=direction)
    outputs = [oh.make_tensor_value_info("y", TensorProto.FLOAT, [steps, dirs, batch, hidden]),
               oh.make_tensor_value_info("yh", TensorProto.FLOAT, [dirs, batch, hidden]),
               oh.make_tensor_value_info("yc", TensorProto.FLOAT, [dirs, batch, hidden])]
    return oh.make_model(oh.make_graph([node], "lstm", inputs, outputs, inits),
                         opset_imports=[oh.make_opsetid("", 14)])


@pytest.fixture(scope="module", params=["mlp", "resnet_legacy", "lstm_bidirectional", "lstm_forward_states"])
def model(request, tmp_path_factory):
    from onnxruntime.quantization import QuantType, quantize_dynamic

    tmp = tmp_path_factory.mktemp(request.param)
    src = os.path.join(tmp, "float.onnx")
    if request.param == "mlp":
        onnx.save(mlp_model(), src)
        weight_type = QuantType.QInt8
    elif request.param.startswith("lstm"):
        onnx.save(lstm_model(request.param.split("_")[1], request.param.endswith("states")), src)
        weight_type = QuantType.QInt8
    else:
        src = os.path.join(MODELS, f"{request.param}.onnx")
        weight_type = QuantType.QUInt8
    dst = os.path.join(tmp, "dynamic.onnx")
    quantize_dynamic(src, dst, weight_type=weight_type, op_types_to_quantize=["Conv", "MatMul", "Gemm", "LSTM"])
    m = onnx.load(dst)
    feeds = {n: np.random.default_rng(2).standard_normal(s).astype(np.float32) for n, s in input_signature(m)}
    return request.param, dst, m, feeds, ort_run(dst, feeds, optimize=False)


def _close(got: dict, want: dict) -> None:
    for k, w in want.items():
        assert float(np.max(np.abs(got[k] - w))) <= RTOL * float(np.max(np.abs(w))), k


def test_model_is_dynamically_quantized(model):
    name, _, m, _, _ = model
    ops = Counter(n.op_type for n in m.graph.node)
    if name.startswith("lstm"):
        assert ops == {"DynamicQuantizeLSTM": 1}, ops
        return
    assert ops["DynamicQuantizeLinear"] and ops["MatMulInteger"], ops
    if name == "resnet_legacy":
        assert ops["ConvInteger"] == 9, ops


def test_interpreter_matches_onnxruntime(model):
    _, path, _, feeds, want = model
    _close(run_function(import_onnx_file(path), feeds), want)


def test_compiled_c_matches_onnxruntime(model, tmp_path):
    _, path, _, feeds, want = model
    compile_to_directory(path, "npu", os.path.join(tmp_path, "out"))
    got, _ = run_directory(os.path.join(tmp_path, "out"), feeds)
    _close(got, want)


def test_dynamic_quantize_lstm_refusals_are_one_line(tmp_path):
    from onnxruntime.quantization import QuantType, quantize_dynamic

    from accel.compiler.diagnostics import CompileError
    from accel.compiler.frontend.onnx import import_onnx_model

    src, dst = str(tmp_path / "float.onnx"), str(tmp_path / "dynamic.onnx")
    onnx.save(lstm_model("bidirectional", False), src)
    quantize_dynamic(src, dst, weight_type=QuantType.QInt8, op_types_to_quantize=["LSTM"])

    def error(edit) -> str:
        m = onnx.load(dst)
        inits = {i.name: i for i in m.graph.initializer}
        node = m.graph.node[0]
        edit(node, inits)
        with pytest.raises(CompileError) as e:
            import_onnx_model(m)
        assert "\n" not in str(e.value)
        return str(e.value)

    def zero_points_differ(node, inits):  # onnxruntime: "Weight point must be constant"
        inits[node.input[11]].CopyFrom(nh.from_array(np.array([[0] * 95 + [3]] * 2, np.int8), node.input[11]))

    def scales_per_row(node, inits):
        inits[node.input[8]].CopyFrom(nh.from_array(np.ones((2, 16), np.float32), node.input[8]))

    def float_weights(node, inits):
        inits[node.input[1]].CopyFrom(nh.from_array(np.ones((2, 16, 96), np.float32), node.input[1]))

    assert "R_zero_point must be one int8 value per direction" in error(zero_points_differ)
    assert "W_scale must have one value per direction or per column (96)" in error(scales_per_row)
    assert "W [2, 16, 96] of float32 must be a rank-3 int8 or uint8 tensor" in error(float_weights)
