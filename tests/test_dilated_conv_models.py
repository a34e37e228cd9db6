"""undilate-column-convs on a WaveNet-style model built here with onnx.helper (seeded
weights): a stack of gated residual blocks, each a causal dilated `Conv1d` pair (dilation
1, 2, 4, 8; torch's `F.pad` on the left, which fold-explicit-padding makes the conv's
padding), `tanh(filter) * sigmoid(gate)` and a 1x1 residual convolution; float, and int8
QDQ (onnxruntime's `quantize_static`). Compiled for the npu (`full`) and run with
`run_directory` (C + simulator).

Without the pass every dilated convolution stays on the host (the npu's take no dilation);
with it none does, and the results match onnxruntime: float within 1e-4 of the output's
largest magnitude, int8 within one quantization step of its output.
"""

from __future__ import annotations

import json
import os

import numpy as np
import onnx
import pytest
from onnx import TensorProto
from onnx import helper as oh
from onnx import numpy_helper as nh

from accel.compiler.driver import compile_to_directory
from accel.compiler.pipeline import PIPELINES
from accel.compiler.runtime.run_compiled import run_directory
from e2e_util import ort_run, output_step, quantize_qdq

CHANNELS, LENGTH, KERNEL = 8, 64, 2
WITHOUT_PASS = PIPELINES["full"].replace(
    "canonicalize,byoc,", "fold-constants,fold-batch-norm,fold-explicit-padding,propagate-qdq,recognize-decompositions,"
    "additive-masks,canonicalize-conv-transpose,canonicalize-linear,"
    # byoc without undilate-convs (which would take the columns as 2-D dilations)
    "split-tall-kernels,merge-composite,annotate-target,merge-regions{min-ops=1},outline-regions,")
assert WITHOUT_PASS != PIPELINES["full"]


def wavenet_style() -> onnx.ModelProto:
    rng = np.random.default_rng(3)
    nodes, inits = [], []

    def init(name: str, value: np.ndarray) -> str:
        inits.append(nh.from_array(value, name))
        return name

    def node(op: str, inputs: list[str], name: str, **attrs) -> str:
        nodes.append(oh.make_node(op, inputs, [name], name=name, **attrs))
        return name

    def conv(x: str, k: int, name: str, **attrs) -> str:
        w = init(f"{name}_w", rng.uniform(-0.4, 0.4, (CHANNELS, CHANNELS, k)).astype(np.float32))
        b = init(f"{name}_b", rng.uniform(-0.1, 0.1, CHANNELS).astype(np.float32))
        return node("Conv", [x, w, b], name, kernel_shape=[k], **attrs)

    x = node("Relu", [conv("signal", 1, "stem")], "stem_relu")
    for i, d in enumerate((1, 2, 4, 8)):
        pads = init(f"pad{i}_pads", np.array([0, 0, (KERNEL - 1) * d, 0, 0, 0], np.int64))
        p = node("Pad", [x, pads], f"pad{i}", mode="constant")
        filt = node("Tanh", [conv(p, KERNEL, f"filt{i}", dilations=[d])], f"tanh{i}")
        gate = node("Sigmoid", [conv(p, KERNEL, f"gate{i}", dilations=[d])], f"sigmoid{i}")
        x = node("Add", [x, conv(node("Mul", [filt, gate], f"gated{i}"), 1, f"res{i}")], f"block{i}")
    graph = oh.make_graph(nodes, "wavenet_style",
                          [oh.make_tensor_value_info("signal", TensorProto.FLOAT, (1, CHANNELS, LENGTH))],
                          [oh.make_tensor_value_info(x, TensorProto.FLOAT, (1, CHANNELS, LENGTH))], inits)
    model = oh.make_model(graph, opset_imports=[oh.make_opsetid("", 17)],
                          producer_name="tests/test_dilated_conv_models.py")
    model.ir_version = 8
    onnx.checker.check_model(model, full_check=True)
    return model


OUTPUT = "block3"


@pytest.fixture(scope="module")
def models(tmp_path_factory) -> dict[str, str]:
    d = tmp_path_factory.mktemp("dilated")
    paths = {"float": str(d / "wavenet.onnx"), "int8": str(d / "wavenet_int8.onnx")}
    onnx.save(wavenet_style(), paths["float"])
    quantize_qdq(paths["float"], paths["int8"])
    return paths


@pytest.fixture(scope="module")
def compiled(models, tmp_path_factory) -> dict[tuple[str, str], tuple[str, dict]]:
    out = {}
    for name, path in models.items():
        for tag, pipeline in (("pass", "full"), ("plain", WITHOUT_PASS)):
            d = str(tmp_path_factory.mktemp(f"{name}_{tag}"))
            compile_to_directory(path, "npu", d, pipeline=pipeline)
            with open(os.path.join(d, "report.json")) as f:
                out[(name, tag)] = (d, json.load(f))
    return out


def _feeds(seed: int) -> dict[str, np.ndarray]:
    return {"signal": np.random.default_rng(seed).standard_normal((1, CHANNELS, LENGTH)).astype(np.float32)}


@pytest.mark.parametrize("model", ["float", "int8"])
def test_dilated_convolutions_offload(compiled, model):
    _, with_pass = compiled[(model, "pass")]
    _, plain = compiled[(model, "plain")]
    dilated = [r for r in plain["rejected"] if "dilation" in str(r["reason"])]
    assert len(dilated) == 6, plain["rejected"]  # the filter and gate convs of dilations 2, 4, 8
    assert not [r for r in with_pass["rejected"] if "conv2d" in r["op"]], with_pass["rejected"]
    assert with_pass["macs"]["offloaded"] == with_pass["macs"]["total"]


def test_float_model_matches_onnxruntime(models, compiled):
    d, _ = compiled[("float", "pass")]
    for seed in range(2):
        feeds = _feeds(seed)
        want = ort_run(models["float"], feeds)[OUTPUT]
        got, _ = run_directory(d, feeds)
        assert float(np.max(np.abs(got[OUTPUT] - want))) <= 1e-4 * float(np.max(np.abs(want)))


def test_int8_model_matches_onnxruntime_within_one_step(models, compiled):
    d, _ = compiled[("int8", "pass")]
    step = output_step(onnx.load(models["int8"]), OUTPUT)
    # Every convolution (stem, 4 x filter, gate, residual) runs as an int8 one on the npu.
    with open(os.path.join(d, "npu_wrappers.c")) as f:
        assert f.read().count("npu_conv2d_s8(") == 13
    for seed in range(2):
        feeds = _feeds(seed)
        want = ort_run(models["int8"], feeds, optimize=False)[OUTPUT]
        got, _ = run_directory(d, feeds)
        assert float(np.max(np.abs(got[OUTPUT] - want))) <= step * 1.001
