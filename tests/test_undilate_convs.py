"""undilate-convs: dilated convolutions on the npu as undilated ones on the phase image.

The property test draws random convolutions (dilation, kernel, padding, stride, groups:
one, depthwise, or 2 (split group by group afterwards by split-grouped-convs), sizes
that are and are not whole phases; float with a bias and activations, QDQ int8
through per-tensor dequantize/quantize, or `relay.qnn.conv2d`) and checks the reference
interpreter's result against the rewrite (`relay.qnn.conv2d` bit for bit; float within
1e-6 of the output's largest magnitude, as numpy sums the same products in an order that
depends on the batch; QDQ within one quantization step, where such a difference meets a
rounding boundary), and that the rewrite happens exactly where the pass's conditions
hold. The model test compiles a DeepLab-style network
(a dilated residual backbone and an ASPP head, dilations 2 to 6, one depthwise; torch
export, both exporters, and onnxruntime's `quantize_static`) for the npu and runs it on
the simulator against onnxruntime: without the pass a fifth of its MACs offload, with it
all of them; float within 1e-5 of the output's largest magnitude, int8 within one
quantization step.
"""

from __future__ import annotations

import os

import numpy as np
import onnx
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from accel.compiler.driver import make_context
from accel.compiler.frontend.builder import GraphBuilder
from accel.compiler.runtime.interpreter import run_function
from accel.compiler.runtime.run_compiled import run_directory
from accel.compiler.transforms.undilate_convs import UndilateConvs, axis_phases
from accel.dialects import relay
from e2e_util import build_and_run, compiled_with_and_without, ort_run, output_step, quantize_qdq

MODELS = os.path.join(os.path.dirname(__file__), "models")
NPU_MAX_CHANNELS, NPU_MAX_KERNEL = 1024, 7


def relay_ops(module) -> list:
    return [op for op in module.walk() if isinstance(op, relay.RelayOp)]


@pytest.mark.parametrize("size", range(1, 13))
@pytest.mark.parametrize("d", [2, 3, 5])
def test_axis_phases_cover_the_padded_axis(size, d):
    """For every padding and kernel: the explicit and phase padding add up to the
    convolution's (with the crop at the end), the image is whole phases, and the phase
    convolution's output, back in place and cropped, is the original output's length."""
    for kernel in (1, 2, 3):
        for before in range(0, 2 * d + 2):
            for after in range(0, 2 * d + 2):
                out = size + before + after - d * (kernel - 1)
                if out < 1:
                    continue
                p = axis_phases(size, kernel, d, before, after)
                assert (size + p.pad_before + p.pad_after) % d == 0
                assert p.pad_before + d * p.conv_before == before
                assert p.pad_after + d * p.conv_after == after + p.crop
                assert 0 <= p.crop < d and min(p) >= 0
                phase_out = (size + p.pad_before + p.pad_after) // d + p.conv_before + p.conv_after - (kernel - 1)
                assert phase_out * d - p.crop == out


@settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_undilated_convs_are_bit_identical(data):
    draw = data.draw
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    d = draw(st.integers(1, 4))
    dw = d if draw(st.integers(0, 5)) else draw(st.integers(1, 3))
    kh, kw = draw(st.integers(1, 3)), draw(st.integers(1, 3))
    n = draw(st.integers(1, 2))
    grouping = draw(st.sampled_from(["one", "depthwise", "grouped"]))
    c = 2 * draw(st.integers(1, 2)) if grouping == "grouped" else draw(st.integers(1, 3))
    groups, o = {"one": (1, draw(st.integers(1, 3))), "depthwise": (c, c),
                 "grouped": (2, 2 * draw(st.integers(1, 2)))}[grouping]
    h, w = draw(st.integers(1, 9)), draw(st.integers(1, 9))
    top, left, bottom, right = (draw(st.integers(0, 2 * d)) for _ in range(4))
    stride = draw(st.sampled_from([1, 1, 1, 2]))
    assume(h + top + bottom - d * (kh - 1) >= 1 and w + left + right - dw * (kw - 1) >= 1)
    props = dict(strides=[stride, stride], padding=[top, left, bottom, right], dilation=[d, dw], groups=groups)
    form = draw(st.sampled_from(["float", "qdq", "qnn"]))
    b = GraphBuilder()
    x = b.input("x", (n, c, h, w), np.int8 if form == "qnn" else np.float32)
    weight = rng.standard_normal((o, c // groups, kh, kw)).astype(np.float32)
    if form == "qnn":
        wt = b.const(rng.integers(-128, 128, weight.shape).astype(np.int8))
        q = [b.const(np.array(v, t)) for v, t in ((3, np.int8), (-2, np.int8), (0.5, np.float32), (0.25, np.float32))]
        y = b.qnn_conv2d(x, wt, *q, **props)
    else:
        data_in = x
        if form == "qdq":
            scale, zp = b.const(np.array(0.05, np.float32)), b.const(np.array(-7, np.int8))
            data_in = b.qnn_dequantize(b.qnn_quantize(x, scale, zp), scale, zp)
        y = b.conv2d(data_in, b.const(weight), **props)
        if draw(st.booleans()):
            y = b.bias_add(y, b.const(rng.standard_normal(o).astype(np.float32)))
        if draw(st.booleans()):
            y = b.relu(y)
        if form == "qdq":
            scale, zp = b.const(np.array(0.1, np.float32)), b.const(np.array(5, np.int8))
            y = b.qnn_quantize(y, scale, zp)
    module = b.build([y])
    inputs = {"x": rng.integers(-128, 128, (n, c, h, w)).astype(np.int8) if form == "qnn"
              else rng.standard_normal((n, c, h, w)).astype(np.float32)}
    want = run_function(module, inputs)
    UndilateConvs().apply(make_context("npu"), module)
    module.verify()
    got = run_function(module, inputs)
    for name, value in want.items():
        if form == "qnn":  # int32 sums: exact in any order
            assert np.array_equal(got[name], value), name
        elif form == "qdq":  # a float sum an ulp apart may round to the next step
            assert np.max(np.abs(got[name].astype(np.int32) - value.astype(np.int32)), initial=0) <= 1, name
        else:  # the same products, summed by numpy in another order (the batch differs)
            assert np.max(np.abs(got[name] - value), initial=0) <= 1e-6 * max(np.max(np.abs(value)), 1.0), name
    rewritable = d == dw > 1 and stride == 1
    convs = [op for op in relay_ops(module) if isinstance(op, (relay.Conv2DOp, relay.QnnConv2DOp))]
    assert len(convs) == 1
    assert (convs[0].prop("dilation") == (1, 1)) == (rewritable or d == dw == 1)
    assert any(isinstance(op, relay.TransposeOp) for op in relay_ops(module)) == rewritable
    if rewritable and form == "qdq":
        # The layout changes run on the int8 data: the conv reads a dequantize of them,
        # and its epilogue ends in the quantize (the QDQ patterns still match).
        assert isinstance(convs[0].data.owner, relay.DequantizeOp)
        transposes = [op for op in relay_ops(module) if isinstance(op, relay.TransposeOp)]
        assert all(relay.is_int8(op.result.type.element_type) for op in transposes)


def test_left_alone_where_the_undilated_conv_would_not_offload_either():
    """More channels than the npu takes: the dilated conv stays as it is (the host runs
    dilations itself; the layout copies would only cost it)."""
    b = GraphBuilder()
    x = b.input("x", (1, NPU_MAX_CHANNELS + 1, 4, 4))
    y = b.conv2d(x, b.const(np.ones((2, NPU_MAX_CHANNELS + 1, 3, 3), np.float32)), padding=[2, 2, 2, 2],
                 dilation=[2, 2])
    module = b.build([y])
    UndilateConvs().apply(make_context("npu"), module)
    assert [op.name for op in relay_ops(module)] == ["relay.nn.conv2d"]
    assert relay_ops(module)[0].prop("dilation") == (2, 2)


def test_a_dilated_grouped_conv_runs_on_the_npu(tmp_path):
    """A ResNeXt-style dilated 3x3 with 2 groups, bias and ReLU (the npu takes neither the
    dilation nor the grouping): byoc undilates it, then splits it group by group; one npu
    region, through C within 1e-5 of the interpreter's largest magnitude."""
    rng = np.random.default_rng(4)
    b = GraphBuilder()
    x = b.input("x", (1, 8, 12, 12))
    y = b.conv2d(x, b.const((0.3 * rng.standard_normal((8, 4, 3, 3))).astype(np.float32)), padding=[2, 2, 2, 2],
                 dilation=[2, 2], groups=2)
    y = b.relu(b.bias_add(y, b.const((0.1 * rng.standard_normal(8)).astype(np.float32))))
    module = b.build([y])
    src = tmp_path / "grouped.mlir"
    src.write_text(str(module))
    inputs = {"x": rng.standard_normal((1, 8, 12, 12)).astype(np.float32)}
    want = run_function(module, inputs)
    got, _, report = build_and_run(str(src), "npu", str(tmp_path / "out"), inputs)
    assert report["ops"]["host"] == 0 and len(report["regions"]) == 1, report["rejected"]
    for name, value in want.items():
        assert np.max(np.abs(got[name] - value)) <= 1e-5 * np.max(np.abs(value)), name


# --------------------------------------------------------------------------------------
# A DeepLab-style model through C
# --------------------------------------------------------------------------------------

OUTPUT = "out"


def _feeds(seed: int) -> dict[str, np.ndarray]:
    return {"x": np.random.default_rng(seed).standard_normal((1, 3, 46, 46)).astype(np.float32)}


@pytest.fixture(scope="module")
def compiled(tmp_path_factory) -> dict[tuple[str, str], tuple[str, dict]]:
    d = tmp_path_factory.mktemp("deeplab")
    paths = {"legacy": os.path.join(MODELS, "deeplab_mini_legacy.onnx"),
             "dynamo": os.path.join(MODELS, "deeplab_mini_dynamo.onnx"), "int8": str(d / "deeplab_int8.onnx")}
    quantize_qdq(paths["legacy"], paths["int8"])
    return compiled_with_and_without(tmp_path_factory, paths, "undilate-convs", plain=("legacy", "int8"))


@pytest.mark.parametrize("model", ["legacy", "int8"])
def test_dilated_layers_offload(compiled, model):
    _, plain, _ = compiled[(model, "plain")]
    _, with_pass, _ = compiled[(model, "pass")]
    dilated = [r for r in plain["rejected"] if "dilation" in str(r["reason"])]
    assert len(dilated) == 6, plain["rejected"]  # 2 in the backbone, 4 in the head
    assert plain["macs"]["offloaded"] < 0.25 * plain["macs"]["total"]
    # Every convolution and every padding block is on the npu; the float model keeps only
    # its last resize (the output's upsampling, cheaper on the host) there: the one in the
    # head is products with its interpolation matrices (resize-as-matmuls).
    assert not [r for r in with_pass["rejected"] if "conv" in r["op"] or "constant" in r["reason"]]
    if model == "legacy":
        assert sorted(r["op"] for r in with_pass["rejected"]) == ["relay.image.resize2d"], with_pass["rejected"]
    assert with_pass["macs"]["offloaded"] == with_pass["macs"]["total"]


@pytest.mark.parametrize("model", ["legacy", "dynamo"])
def test_float_model_matches_onnxruntime(compiled, model):
    d, _, path = compiled[(model, "pass")]
    for seed in range(2):
        feeds = _feeds(seed)
        want = ort_run(path, feeds)[OUTPUT]
        got, _ = run_directory(d, feeds)
        assert float(np.max(np.abs(got[OUTPUT] - want))) <= 1e-5 * float(np.max(np.abs(want)))


def test_int8_model_matches_onnxruntime_within_one_step(compiled):
    d, _, path = compiled[("int8", "pass")]
    step = output_step(onnx.load(path), OUTPUT)
    with open(os.path.join(d, "npu_wrappers.c")) as f:
        assert f.read().count("npu_conv2d_s8(") >= 11  # every convolution an int8 one
    for seed in range(2):
        feeds = _feeds(seed)
        want = ort_run(path, feeds, optimize=False)[OUTPUT]
        got, _ = run_directory(d, feeds)
        assert float(np.max(np.abs(got[OUTPUT] - want))) <= step * 1.001
