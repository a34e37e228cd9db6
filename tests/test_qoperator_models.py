"""QOperator int8 models: tests/models' ResNet- and MobileNet-style CNNs quantized here
with onnxruntime's `quantize_static(..., quant_format=QuantFormat.QOperator)` (QLinearConv,
com.microsoft QLinearAdd / QLinearMul / QGemm / QLinearGlobalAveragePool), compiled for
the npu (`compile_to_directory`, C + simulator, `-Werror`).

- the quantized models do contain the com.microsoft ops (what the import must serve);
- compiled, they match onnxruntime (graph optimizations off: its fused int8 kernels
  differ from the ONNX semantics on this CPU) within 2 quantization steps of the output;
- the integer convolutions and the QLinearAdds offload as the npu's int8 composites, and
  QGemm becomes the same dense composite as the QDQ form's.
"""

from __future__ import annotations

import os
from collections import Counter

import numpy as np
import onnx
import pytest

from accel.compiler.driver import compile_to_directory
from accel.compiler.runtime.run_compiled import run_directory
from e2e_util import MODELS, input_signature, ort_run, output_step

STEPS = 2


def quantize_qoperator(src: str, dst: str, seed: int = 1) -> None:
    from onnxruntime.quantization import CalibrationDataReader, QuantFormat, QuantType, quantize_static

    sig = input_signature(onnx.load(src))

    class RandomReader(CalibrationDataReader):
        def __init__(self) -> None:
            rng = np.random.default_rng(seed)
            self.feeds = iter([{n: rng.standard_normal(s).astype(np.float32) for n, s in sig} for _ in range(8)])

        def get_next(self):
            return next(self.feeds, None)

    quantize_static(src, dst, RandomReader(), quant_format=QuantFormat.QOperator, per_channel=True,
                    activation_type=QuantType.QInt8, weight_type=QuantType.QInt8)


@pytest.fixture(scope="module", params=["resnet_legacy", "mobilenet_legacy"])
def compiled(request, tmp_path_factory):
    tmp = tmp_path_factory.mktemp(request.param)
    path = os.path.join(tmp, f"{request.param}_qop.onnx")
    quantize_qoperator(os.path.join(MODELS, f"{request.param}.onnx"), path)
    model = onnx.load(path)
    rng = np.random.default_rng(5)
    feeds = {n: rng.standard_normal(s).astype(np.float32) for n, s in input_signature(model)}
    out_dir = os.path.join(tmp, "out")
    report = compile_to_directory(path, "npu", out_dir)
    got, _ = run_directory(out_dir, feeds)
    return request.param, path, model, report, feeds, got


def test_models_use_the_microsoft_ops(compiled):
    _, _, model, _, _, _ = compiled
    ops = {n.op_type for n in model.graph.node if n.domain == "com.microsoft"}
    assert {"QLinearAdd", "QGemm"} <= ops, ops


def test_compiled_matches_onnxruntime(compiled):
    _, path, model, _, feeds, got = compiled
    want = ort_run(path, feeds, optimize=False)
    for name, w in want.items():
        step = output_step(model, name)
        err = float(np.max(np.abs(got[name] - w)))
        assert err <= STEPS * step * (1 + 1e-6), f"{name}: {err / step:.2f} steps"


def test_int8_ops_offload_as_composites(compiled):
    name, _, model, report, _, _ = compiled
    ops = Counter((n.domain, n.op_type) for n in model.graph.node)
    offloaded = Counter(c for r in report["regions"] for c in r["composites"])
    rejected = Counter(r["op"] for r in report["rejected"])
    convs = sum(v for k, v in offloaded.items() if k.startswith("npu.qlinear_conv2d"))
    unprofitable = sum(v for k, v in rejected.items() if k.startswith("npu.qlinear_conv2d"))
    # Every QLinearConv is an int8 composite, and QGemm the QDQ form's dense composite:
    # offloaded or, when too small to pay for its DMA, rejected as one unit (never as
    # loose integer ops).
    assert convs + unprofitable == ops[("", "QLinearConv")], (offloaded, rejected)
    assert offloaded["npu.qdense_bias"] + rejected["npu.qdense_bias"] == ops[("com.microsoft", "QGemm")]
    if name == "resnet_legacy":  # everything but the head offloads
        assert convs == ops[("", "QLinearConv")]
        assert offloaded["npu.qadd"] == ops[("com.microsoft", "QLinearAdd")]
    else:
        assert convs >= 10


# --------------------------------------------------------------------------------------
# The other com.microsoft ops, in a chain built here
# --------------------------------------------------------------------------------------


def _ms_chain() -> onnx.ModelProto:
    """Q -> QLinearAveragePool -> QLinearSigmoid -> QLinearLeakyRelu -> QLinearConcat
    (with the pooled tensor) -> QLinearMul -> QLinearGlobalAveragePool -> DQ, int8
    per-tensor parameters of their own at every step."""
    from onnx import TensorProto as T
    from onnx import helper as oh
    from onnx import numpy_helper as nh

    params = {}

    def qp(name, scale, zp):
        params[f"{name}_s"] = np.array(scale, np.float32)
        params[f"{name}_z"] = np.array(zp, np.int8)
        return [f"{name}_s", f"{name}_z"]

    ms = "com.microsoft"
    nodes = [
        oh.make_node("QuantizeLinear", ["x", *qp("x", 0.03, -3)], ["xq"]),
        oh.make_node("QLinearAveragePool", ["xq", "x_s", "x_z", *qp("p", 0.025, 2)], ["p"], domain=ms,
                     kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1], count_include_pad=0),
        oh.make_node("QLinearSigmoid", ["p", "p_s", "p_z", *qp("s", 1 / 256, -128)], ["s"], domain=ms),
        oh.make_node("QLinearLeakyRelu", ["p", "p_s", "p_z", *qp("l", 0.02, 10)], ["l"], domain=ms, alpha=0.1),
        oh.make_node("QLinearConcat", [*qp("c", 0.02, 0), "s", "s_s", "s_z", "l", "l_s", "l_z"], ["c"],
                     domain=ms, axis=1),
        oh.make_node("QLinearMul", ["c", "c_s", "c_z", "c", "c_s", "c_z", *qp("m", 0.004, -100)], ["m"], domain=ms),
        oh.make_node("QLinearGlobalAveragePool", ["m", "m_s", "m_z", *qp("g", 0.003, -90)], ["g"], domain=ms),
        oh.make_node("DequantizeLinear", ["g", "g_s", "g_z"], ["y"]),
    ]
    graph = oh.make_graph(nodes, "ms_chain", [oh.make_tensor_value_info("x", T.FLOAT, [1, 3, 9, 9])],
                          [oh.make_tensor_value_info("y", T.FLOAT, [1, 6, 1, 1])],
                          [nh.from_array(v, k) for k, v in params.items()])
    m = oh.make_model(graph, opset_imports=[oh.make_opsetid("", 17), oh.make_opsetid(ms, 1)])
    m.ir_version = 8
    return m


@pytest.mark.parametrize("path_kind", ["interpreter", "c"])
def test_microsoft_chain_matches_onnxruntime(tmp_path, path_kind):
    from accel.compiler.frontend.onnx import import_onnx_file
    from accel.compiler.runtime.interpreter import run_function

    model = _ms_chain()
    path = os.path.join(tmp_path, "chain.onnx")
    onnx.save(model, path)
    feeds = {"x": np.random.default_rng(3).standard_normal((1, 3, 9, 9)).astype(np.float32)}
    want = ort_run(path, feeds, optimize=False)["y"]
    if path_kind == "interpreter":
        got = run_function(import_onnx_file(path), feeds)["y"]
    else:
        compile_to_directory(path, "npu", os.path.join(tmp_path, "out"))
        got, _ = run_directory(os.path.join(tmp_path, "out"), feeds)
        got = got["y"]
    step = output_step(model, "y")
    assert float(np.max(np.abs(got - want))) <= STEPS * step * (1 + 1e-6), np.max(np.abs(got - want)) / step
