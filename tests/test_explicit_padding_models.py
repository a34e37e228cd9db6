"""fold-explicit-padding on models of the kinds that carry explicit pads, built here with
onnx.helper (seeded weights), compiled for the npu (`compile_to_directory`, pipeline
`full`) and run with `run_directory` (C + simulator):

- a Keras-style CNN as tf2onnx writes it: `ZeroPadding2D` before the 7x7 stride-2 stem,
  before the stem's max pool (of a ReLU's output) and before a stride-2 depthwise
  convolution; float, and int8 QDQ (onnxruntime's `quantize_static`, where each pad sits
  between a dequantize and a quantize);
- a causal TCN as torch exports it: `F.pad` on the left of each dilation-1 `Conv1d`;
  float, and int8 QDQ (each convolution an int8 one on the npu: propagate-qdq moves its
  quantizes across the reshapes of the [N, C, L, 1] view).

Each compiles to one npu region with no pad left (without the pass and expand-pads each
pad stays on the host between two regions; with expand-pads alone each is copies on the
device, one region too, moving no fewer bytes), and matches onnxruntime: float within 1e-4 of the output's
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
from e2e_util import full_without, ort_run, output_step, quantize_qdq

# `full` with canonicalize written out as some of its passes, fold-explicit-padding left out:
WITHOUT_FOLD = full_without("expand-pads").replace(
    "canonicalize,", "fold-constants,fold-batch-norm,recognize-decompositions,additive-masks,"
    "canonicalize-conv-transpose,canonicalize-linear,", 1)
"""Neither folded nor copied: each pad stays on the host."""
COPIED = PIPELINES["full"].replace(
    "canonicalize,", "fold-constants,fold-batch-norm,recognize-decompositions,additive-masks,"
    "canonicalize-conv-transpose,canonicalize-linear,", 1)
"""Not folded: each pad is copies on the device (expand-pads)."""
assert WITHOUT_FOLD != PIPELINES["full"] and COPIED != PIPELINES["full"]


class _Graph:
    def __init__(self, seed: int):
        self.rng = np.random.default_rng(seed)
        self.nodes: list[onnx.NodeProto] = []
        self.inits: list[onnx.TensorProto] = []

    def init(self, name: str, value: np.ndarray) -> str:
        self.inits.append(nh.from_array(value, name))
        return name

    def node(self, op: str, inputs: list[str], name: str, **attrs) -> str:
        self.nodes.append(oh.make_node(op, inputs, [name], name=name, **attrs))
        return name

    def pad(self, x: str, pads: list[int], name: str) -> str:
        return self.node("Pad", [x, self.init(f"{name}_pads", np.array(pads, np.int64))], name, mode="constant")

    def conv(self, x: str, cin: int, cout: int, k: tuple[int, ...], name: str, **attrs) -> str:
        groups = attrs.get("group", 1)
        w = self.init(f"{name}_w", self.rng.uniform(-0.5, 0.5, (cout, cin // groups, *k)).astype(np.float32))
        b = self.init(f"{name}_b", self.rng.uniform(-0.1, 0.1, cout).astype(np.float32))
        return self.node("Conv", [x, w, b], name, **attrs)

    def model(self, name: str, inp: tuple[str, tuple[int, ...]], out: tuple[str, tuple[int, ...]]) -> onnx.ModelProto:
        graph = oh.make_graph(self.nodes, name, [oh.make_tensor_value_info(inp[0], TensorProto.FLOAT, inp[1])],
                              [oh.make_tensor_value_info(out[0], TensorProto.FLOAT, out[1])], self.inits)
        model = oh.make_model(graph, opset_imports=[oh.make_opsetid("", 17)], producer_name="tests/test_explicit_padding_models.py")
        model.ir_version = 8
        onnx.checker.check_model(model, full_check=True)
        return model


def keras_style_cnn() -> onnx.ModelProto:
    g = _Graph(0)
    x = g.pad("image", [0, 0, 3, 3, 0, 0, 3, 3], "stem_pad")                       # ZeroPadding2D(3)
    x = g.node("Relu", [g.conv(x, 3, 16, (7, 7), "stem", strides=[2, 2])], "stem_relu")  # 32 -> 16
    x = g.pad(x, [0, 0, 1, 1, 0, 0, 1, 1], "pool_pad")                             # ZeroPadding2D(1)
    x = g.node("MaxPool", [x], "pool", kernel_shape=[3, 3], strides=[2, 2])         # 16 -> 8
    y = g.node("Relu", [g.conv(x, 16, 16, (3, 3), "c1", pads=[1, 1, 1, 1])], "c1_relu")
    x = g.node("Add", [x, y], "res")
    x = g.pad(x, [0, 0, 0, 0, 0, 0, 1, 1], "dw_pad")                               # ZeroPadding2D(((0, 1), (0, 1)))
    x = g.node("Relu", [g.conv(x, 16, 16, (3, 3), "dw", strides=[2, 2], group=16)], "dw_relu")  # 8 -> 4
    x = g.node("Relu", [g.conv(x, 16, 32, (1, 1), "pw")], "pw_relu")
    return g.model("keras_style_cnn", ("image", (1, 3, 32, 32)), (g.node("GlobalAveragePool", [x], "features"), (1, 32, 1, 1)))


def causal_tcn() -> onnx.ModelProto:
    g = _Graph(1)
    x = "signal"
    for i, (cin, cout) in enumerate([(4, 16), (16, 16), (16, 8)]):
        p = g.pad(x, [0, 0, 2, 0, 0, 0], f"pad{i}")                                 # F.pad(x, (2, 0))
        x = g.node("Relu", [g.conv(p, cin, cout, (3,), f"conv{i}")], f"relu{i}")
    return g.model("causal_tcn", ("signal", (1, 4, 64)), (x, (1, 8, 64)))


MODELS = {"keras": (keras_style_cnn, "image", "features"), "tcn": (causal_tcn, "signal", "relu2")}


@pytest.fixture(scope="module")
def models(tmp_path_factory) -> dict[str, str]:
    d = tmp_path_factory.mktemp("explicit_padding")
    paths = {}
    for name, (build, _, _) in MODELS.items():
        paths[name] = str(d / f"{name}.onnx")
        onnx.save(build(), paths[name])
    for name in ("keras", "tcn"):
        paths[f"{name}_int8"] = str(d / f"{name}_int8.onnx")
        quantize_qdq(paths[name], paths[f"{name}_int8"])
    return paths


def _feeds(model: str, seed: int) -> dict[str, np.ndarray]:
    build, inp, _ = MODELS[model.removesuffix("_int8")]
    shape = tuple(d.dim_value for d in build().graph.input[0].type.tensor_type.shape.dim)
    return {inp: np.random.default_rng(seed).standard_normal(shape).astype(np.float32)}


@pytest.fixture(scope="module")
def compiled(models, tmp_path_factory) -> dict[tuple[str, str], tuple[str, dict]]:
    out = {}
    for name, path in models.items():
        for tag, pipeline in (("fold", "full"), ("plain", WITHOUT_FOLD), ("copied", COPIED)):
            d = str(tmp_path_factory.mktemp(f"{name}_{tag}"))
            compile_to_directory(path, "npu", d, pipeline=pipeline)
            with open(os.path.join(d, "report.json")) as f:
                out[(name, tag)] = (d, json.load(f))
    return out


@pytest.mark.parametrize("model", ["keras", "keras_int8", "tcn", "tcn_int8"])
def test_pads_fold_into_one_region(compiled, model):
    _, fold = compiled[(model, "fold")]
    _, plain = compiled[(model, "plain")]
    assert len(fold["regions"]) == 1, fold["regions"]
    assert not any("pad" in r["op"] for r in fold["rejected"]), fold["rejected"]
    assert any("relay.nn.pad" in r["op"] for r in plain["rejected"])  # the pads cut the baseline
    assert len(plain["regions"]) > 1
    assert fold["dma"]["transfers"] < plain["dma"]["transfers"]
    # Copying the pads on the device (expand-pads) keeps them off the host too; folding
    # them moves no more.
    _, copied = compiled[(model, "copied")]
    assert len(copied["regions"]) == 1 and not any("pad" in r["op"] for r in copied["rejected"]), copied["rejected"]
    assert fold["dma"]["bytes_to_device"] + fold["dma"]["bytes_to_host"] <= \
        copied["dma"]["bytes_to_device"] + copied["dma"]["bytes_to_host"]


@pytest.mark.parametrize("model", ["keras", "tcn"])
def test_float_models_match_onnxruntime(models, compiled, model):
    d, _ = compiled[(model, "fold")]
    out = MODELS[model][2]
    for seed in range(2):
        feeds = _feeds(model, seed)
        want = ort_run(models[model], feeds)[out]
        got, _ = run_directory(d, feeds)
        err = float(np.max(np.abs(got[out] - want)))
        assert err <= 1e-4 * float(np.max(np.abs(want))), err


@pytest.mark.parametrize("model", ["keras_int8", "tcn_int8"])
def test_int8_models_match_onnxruntime_within_one_step(models, compiled, model):
    d, _ = compiled[(model, "fold")]
    out = MODELS[model.removesuffix("_int8")][2]
    step = output_step(onnx.load(models[model]), out)
    # Every convolution runs as an int8 one: the Conv1d's quantize and dequantizes met it
    # across the reshapes of its [N, C, L, 1] view (propagate-qdq).
    with open(os.path.join(d, "npu_wrappers.c")) as f:
        assert f.read().count("npu_conv2d_s8(") == (3 if model == "tcn_int8" else 4)
    for seed in range(2):
        feeds = _feeds(model, seed)
        want = ort_run(models[model], feeds, optimize=False)[out]
        got, _ = run_directory(d, feeds)
        assert float(np.max(np.abs(got[out] - want))) <= step * 1.001
