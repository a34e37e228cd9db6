"""split-grouped-convs: grouped convolutions on the npu as one convolution per group.

The property test draws random grouped convolutions (groups, channels per group, kernel,
strides, padding, dilation; float with a bias and activations, QDQ int8 with per-channel
weights and bias and per-tensor data, or `relay.qnn.conv2d` with a per-channel kernel
zero point) and checks the reference interpreter's result bit for bit against the
rewrite (each group's products, summed as the grouped convolution sums them), and that
the rewrite happens exactly where the pass's conditions hold. The model test compiles a
ResNeXt-style network (grouped 3x3 bottlenecks with 8, 4 and 2 groups, an AlexNet-style
2-group convolution; torch export and onnxruntime's `quantize_static`) for the npu and
runs it on the simulator against onnxruntime: without the pass half of its MACs offload,
with it all of them (int8: all but the linear head's); float within 1e-5 of the output's
largest magnitude, int8 within one quantization step.
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
from accel.compiler.runtime.run_compiled import run_directory
from accel.compiler.transforms.split_grouped_convs import SplitGroupedConvs
from accel.dialects import relay
from e2e_util import assert_pass_keeps_results, compiled_with_and_without, ort_run, output_step, quantize_qdq

MODEL = os.path.join(os.path.dirname(__file__), "models", "resnext_mini_legacy.onnx")


def relay_ops(module) -> list:
    return [op for op in module.walk() if isinstance(op, relay.RelayOp)]


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_split_grouped_convs_are_bit_identical(data):
    draw = data.draw
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    groups = draw(st.integers(1, 4))
    cg, og = draw(st.integers(1, 3)), draw(st.integers(1, 3))
    if draw(st.integers(0, 5)) == 0:
        cg = 1  # depthwise (with a channel multiplier og)
    c, o = groups * cg, groups * og
    n, h, w = draw(st.integers(1, 2)), draw(st.integers(1, 7)), draw(st.integers(1, 7))
    kh, kw = draw(st.integers(1, 3)), draw(st.integers(1, 3))
    stride, dilation = draw(st.sampled_from([1, 1, 2])), draw(st.sampled_from([1, 1, 1, 2]))
    top, left, bottom, right = (draw(st.integers(0, 2)) for _ in range(4))
    assume(h + top + bottom - dilation * (kh - 1) >= 1 and w + left + right - dilation * (kw - 1) >= 1)
    props = dict(strides=[stride, stride], padding=[top, left, bottom, right], dilation=[dilation, dilation],
                 groups=groups)
    form = draw(st.sampled_from(["float", "qdq", "qnn"]))
    b = GraphBuilder()
    x = b.input("x", (n, c, h, w), np.int8 if form == "qnn" else np.float32)
    wshape = (o, cg, kh, kw)
    if form == "qnn":
        wt = b.const(rng.integers(-128, 128, wshape).astype(np.int8))
        kzp = b.const(rng.integers(-3, 4, o).astype(np.int8))
        kscale = b.const(rng.uniform(0.01, 0.1, o).astype(np.float32))
        y = b.qnn_conv2d(x, wt, b.const(np.array(3, np.int8)), kzp, b.const(np.array(0.5, np.float32)), kscale,
                         **props)
    else:
        data_in, weight, bias = x, b.const(rng.standard_normal(wshape).astype(np.float32)), \
            b.const(rng.standard_normal(o).astype(np.float32))
        if form == "qdq":
            scale, zp = b.const(np.array(0.05, np.float32)), b.const(np.array(-7, np.int8))
            data_in = b.qnn_dequantize(b.qnn_quantize(x, scale, zp), scale, zp)
            weight = b.qnn_dequantize(b.const(rng.integers(-128, 128, wshape).astype(np.int8)),
                                      b.const(rng.uniform(0.01, 0.1, o).astype(np.float32)),
                                      b.const(np.zeros(o, np.int8)), axis=0)
            bias = b.qnn_dequantize(b.const(rng.integers(-500, 500, o).astype(np.int32)),
                                    b.const(rng.uniform(0.001, 0.01, o).astype(np.float32)),
                                    b.const(np.zeros(o, np.int32)), axis=0)
        y = b.conv2d(data_in, weight, **props)
        if draw(st.booleans()):
            y = b.bias_add(y, bias)
        if draw(st.booleans()):
            y = b.relu(y)
        if form == "qdq":
            y = b.qnn_quantize(y, b.const(np.array(0.1, np.float32)), b.const(np.array(5, np.int8)))
    module = b.build([y])
    inputs = {"x": rng.integers(-128, 128, (n, c, h, w)).astype(np.int8) if form == "qnn"
              else rng.standard_normal((n, c, h, w)).astype(np.float32)}
    assert_pass_keeps_results(SplitGroupedConvs(), module, inputs)
    grouped = 1 < groups < c and dilation == 1  # the npu takes no dilation (undilate-convs' case)
    convs = [op for op in relay_ops(module) if isinstance(op, (relay.Conv2DOp, relay.QnnConv2DOp))]
    assert len(convs) == (groups if grouped else 1)
    assert any(isinstance(op, relay.ConcatenateOp) for op in relay_ops(module)) == grouped
    if grouped and form == "qdq":  # each group is the npu's QDQ conv: the slice is of the int8 data
        slices = [op for op in relay_ops(module) if isinstance(op, relay.StridedSliceOp)]
        assert all(relay.is_int8(op.result.type.element_type) for op in slices)
        assert all(isinstance(conv.data.owner, relay.DequantizeOp) for conv in convs)


def test_left_alone_where_one_group_would_not_offload_either():
    """A 9x9 kernel (the npu's largest is 7x7) and a weight computed at run time: no split."""
    b = GraphBuilder()
    x = b.input("x", (1, 4, 12, 12))
    big = b.conv2d(x, b.const(np.ones((4, 2, 9, 9), np.float32)), groups=2)
    wt = b.input("w", (4, 2, 3, 3))
    dynamic = b.conv2d(x, wt, groups=2)
    module = b.build([big, dynamic])
    SplitGroupedConvs().apply(make_context("npu"), module)
    assert [op.prop("groups") for op in relay_ops(module) if isinstance(op, relay.Conv2DOp)] == [2, 2]


# --------------------------------------------------------------------------------------
# A ResNeXt-style model through C
# --------------------------------------------------------------------------------------

OUTPUT = "out"


def _feeds(seed: int) -> dict[str, np.ndarray]:
    return {"x": np.random.default_rng(seed).standard_normal((1, 3, 32, 32)).astype(np.float32)}


@pytest.fixture(scope="module")
def compiled(tmp_path_factory) -> dict[tuple[str, str], tuple[str, dict, str]]:
    d = tmp_path_factory.mktemp("resnext")
    paths = {"float": MODEL, "int8": str(d / "resnext_int8.onnx")}
    quantize_qdq(paths["float"], paths["int8"])
    return compiled_with_and_without(tmp_path_factory, paths, "split-grouped-convs")


@pytest.mark.parametrize("model", ["float", "int8"])
def test_grouped_layers_offload(compiled, model):
    _, plain, _ = compiled[(model, "plain")]
    _, with_pass, _ = compiled[(model, "pass")]
    grouped = [r for r in plain["rejected"] if "grouped convolution" in str(r["reason"])]
    assert len(grouped) == 4, plain["rejected"]
    assert plain["macs"]["offloaded"] < 0.55 * plain["macs"]["total"]
    assert not [r for r in with_pass["rejected"] if "conv" in r["op"]], with_pass["rejected"]
    assert with_pass["macs"]["offloaded"] >= 0.999 * with_pass["macs"]["total"]


def test_float_model_matches_onnxruntime(compiled):
    d, _, path = compiled[("float", "pass")]
    for seed in range(2):
        feeds = _feeds(seed)
        want = ort_run(path, feeds)[OUTPUT]
        got, _ = run_directory(d, feeds)
        assert float(np.max(np.abs(got[OUTPUT] - want))) <= 1e-5 * float(np.max(np.abs(want)))


def test_int8_model_matches_onnxruntime_within_one_step(compiled):
    d, _, path = compiled[("int8", "pass")]
    step = output_step(onnx.load(path), OUTPUT)
    with open(os.path.join(d, "npu_wrappers.c")) as f:
        # the stem, three bottlenecks (1x1, the 3x3 in 8, 4, 2 groups, 1x1) and the 2-group conv
        assert f.read().count("npu_conv2d_s8(") == 1 + (8 + 2) + (4 + 2) + (2 + 2) + 2
    for seed in range(2):
        feeds = _feeds(seed)
        want = ort_run(path, feeds, optimize=False)[OUTPUT]
        got, _ = run_directory(d, feeds)
        assert float(np.max(np.abs(got[OUTPUT] - want))) <= step * 1.001
