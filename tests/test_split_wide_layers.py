"""split-wide-layers: a float convolution or dense layer with more output channels than
the npu takes becomes layers over slices of its output channels, concatenated; the
reference interpreter's result is unchanged bit for bit (each channel reads its own weight
row), with and without a bias; with too many input channels, layers over input slices,
summed (within float rounding). An int8 layer of a QDQ model (weights per tensor or per
channel, bias, activation, quantize) over its output channels too, bit for bit; over its
input channels as float slices summed, within one quantization step. An int8 head and an
int8 bottleneck made with onnxruntime's quantize_static then run wholly on the npu, within
one quantization step of onnxruntime and the interpreter. The trained models of bench/wheel_models.py whose heads are
wide (RapidOCR's orientation classifier, the PP-OCR and ddddocr recognizers) then run wholly
on the npu; a MobileNetV3-style head made here through C against onnxruntime."""

from __future__ import annotations

import numpy as np
from e2e_util import (assert_int8_matches_references, assert_matches_onnxruntime, assert_pass_keeps_results,
                      quantize_qdq, save_image_model)
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from onnx import helper as oh
from onnx import numpy_helper as nh

from accel.compiler.driver import compile_to_directory, make_context
from accel.compiler.frontend.builder import GraphBuilder
from accel.compiler.runtime.interpreter import run_function
from accel.compiler.transforms.split_wide_layers import SplitWideLayers, channel_slices
from accel.dialects import relay


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(layer=st.sampled_from(["conv2d", "dense"]), extra=st.integers(1, 1200), bias=st.booleans(),
       seed=st.integers(0, 2**16))
def test_the_result_is_unchanged(layer, extra, bias, seed):
    rng = np.random.default_rng(seed)
    b = GraphBuilder()
    if layer == "conv2d":
        out = 1024 + extra
        x = b.input("x", (1, 3, 2, 2))
        y = b.conv2d(x, b.const(rng.standard_normal((out, 3, 1, 1)).astype(np.float32)))
        shape, axis = (1, 3, 2, 2), 1
    else:
        out = 4096 + extra
        x = b.input("x", (2, 3))
        y = b.dense(x, b.const(rng.standard_normal((out, 3)).astype(np.float32)))
        shape, axis = (2, 3), 1
    if bias:
        y = b.bias_add(y, b.const(rng.standard_normal(out).astype(np.float32)), axis=axis)
    module = b.build([y])
    assert_pass_keeps_results(SplitWideLayers(), module, {"x": rng.standard_normal(shape).astype(np.float32)})
    concat = [op for op in module.walk() if isinstance(op, relay.ConcatenateOp)]
    assert len(concat) == 1 and len(concat[0].operands) == len(channel_slices(out, 1024 if layer == "conv2d" else 4096))


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(layer=st.sampled_from(["conv2d", "dense"]), extra=st.integers(1, 1200), bias=st.booleans(),
       seed=st.integers(0, 2**16))
def test_input_slices_sum_within_rounding(layer, extra, bias, seed):
    """Too many input channels: the layers over input-channel slices, summed (another order
    of the same products: within 1e-5 of the output's max)."""
    rng = np.random.default_rng(seed)
    b = GraphBuilder()
    if layer == "conv2d":
        inp = 1024 + extra
        shape = (1, inp, 2, 2)
        y = b.conv2d(b.input("x", shape), b.const(rng.standard_normal((3, inp, 1, 1)).astype(np.float32)))
    else:
        inp = 4096 + extra
        shape = (2, inp)
        y = b.dense(b.input("x", shape), b.const(rng.standard_normal((3, inp)).astype(np.float32)))
    if bias:
        y = b.bias_add(y, b.const(rng.standard_normal(3).astype(np.float32)), axis=1)
    module = b.build([y])
    inputs = {"x": rng.standard_normal(shape).astype(np.float32)}
    want = run_function(module, inputs)
    SplitWideLayers().apply(make_context("npu"), module)
    module.verify()
    got = run_function(module, inputs)
    for k, w in want.items():
        assert np.max(np.abs(got[k] - w)) <= 1e-5 * max(float(np.max(np.abs(w))), 1.0), k
    adds = [op for op in module.walk() if isinstance(op, relay.AddOp)]
    assert len(adds) == len(channel_slices(inp, 1024 if layer == "conv2d" else 4096)) - 1


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(layer=st.sampled_from(["conv2d", "dense"]), extra=st.integers(1, 1200), per_channel=st.booleans(),
       bias=st.booleans(), relu=st.booleans(), seed=st.integers(0, 2**16))
def test_int8_slices_keep_the_result(layer, extra, per_channel, bias, relu, seed):
    """An int8 layer of a QDQ model (dequantized int8 weight, per tensor or per output
    channel; an int32 bias; a ReLU; the quantize) over its output channels: each slice
    quantized, the int8 slices concatenated; the interpreter's result bit for bit."""
    rng = np.random.default_rng(seed)
    b = GraphBuilder()
    out = (1024 if layer == "conv2d" else 4096) + extra
    shape = (1, 3, 2, 2) if layer == "conv2d" else (2, 3)
    x = b.qnn_dequantize(b.input("x", shape, np.int8), b.const(np.float32(0.05)), b.const(np.int8(3)))
    wq = rng.integers(-127, 128, (out, 3, 1, 1) if layer == "conv2d" else (out, 3)).astype(np.int8)
    if per_channel:
        w = b.qnn_dequantize(b.const(wq), b.const((rng.random(out) * 0.02 + 0.001).astype(np.float32)),
                             b.const(np.zeros(out, np.int8)), axis=0)
    else:
        w = b.qnn_dequantize(b.const(wq), b.const(np.float32(0.01)), b.const(np.int8(0)))
    y = b.conv2d(x, w) if layer == "conv2d" else b.dense(x, w)
    if bias:
        bq = b.const(rng.integers(-2000, 2000, out).astype(np.int32))
        y = b.bias_add(y, b.qnn_dequantize(bq, b.const(np.float32(0.0005)), b.const(np.int32(0))), axis=1)
    if relu:
        y = b.relu(y)
    y = b.qnn_quantize(y, b.const(np.float32(0.1)), b.const(np.int8(-5)))
    module = b.build([y])
    inputs = {"x": rng.integers(-128, 128, shape).astype(np.int8)}
    assert_pass_keeps_results(SplitWideLayers(), module, inputs)
    concat = [op for op in module.walk() if isinstance(op, relay.ConcatenateOp)]
    slices = len(channel_slices(out, 1024 if layer == "conv2d" else 4096))
    assert len(concat) == 1 and len(concat[0].operands) == slices
    assert all(isinstance(v.owner, relay.QuantizeOp) for v in concat[0].operands)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(layer=st.sampled_from(["conv2d", "dense"]), extra=st.integers(1, 1200), per_channel=st.booleans(),
       bias=st.booleans(), seed=st.integers(0, 2**16))
def test_int8_input_slices_within_a_step(layer, extra, per_channel, bias, seed):
    """An int8 layer of a QDQ model with too many input channels: float layers on the
    dequantized data's slices, summed before the bias and the quantize; the quantized
    result within one step of the interpreter's on the layer (another order of the same
    float products), no int8 layer left over the limit."""
    rng = np.random.default_rng(seed)
    b = GraphBuilder()
    inp = (1024 if layer == "conv2d" else 4096) + extra
    shape = (1, inp, 2, 2) if layer == "conv2d" else (2, inp)
    x = b.qnn_dequantize(b.input("x", shape, np.int8), b.const(np.float32(0.05)), b.const(np.int8(3)))
    wq = rng.integers(-127, 128, (3, inp, 1, 1) if layer == "conv2d" else (3, inp)).astype(np.int8)
    if per_channel:
        w = b.qnn_dequantize(b.const(wq), b.const((rng.random(3) * 0.002 + 0.0005).astype(np.float32)),
                             b.const(np.zeros(3, np.int8)), axis=0)
    else:
        w = b.qnn_dequantize(b.const(wq), b.const(np.float32(0.001)), b.const(np.int8(0)))
    y = b.conv2d(x, w) if layer == "conv2d" else b.dense(x, w)
    if bias:
        bq = b.const(rng.integers(-2000, 2000, 3).astype(np.int32))
        y = b.bias_add(y, b.qnn_dequantize(bq, b.const(np.float32(0.0005)), b.const(np.int32(0))), axis=1)
    y = b.qnn_quantize(y, b.const(np.float32(0.05)), b.const(np.int8(-5)))
    module = b.build([y])
    inputs = {"x": rng.integers(-128, 128, shape).astype(np.int8)}
    want = run_function(module, inputs)
    SplitWideLayers().apply(make_context("npu"), module)
    module.verify()
    got = run_function(module, inputs)
    for k, w in want.items():
        assert np.max(np.abs(got[k].astype(np.int32) - w.astype(np.int32))) <= 1, k
    adds = [op for op in module.walk() if isinstance(op, relay.AddOp)]
    assert len(adds) == len(channel_slices(inp, 1024 if layer == "conv2d" else 4096)) - 1


def test_slices_are_as_few_and_even_as_can_be():
    assert channel_slices(1280, 1024) == [(0, 640), (640, 1280)]
    assert channel_slices(6625, 4096) == [(0, 3313), (3313, 6625)]
    assert channel_slices(18710, 4096) == [(0, 3742), (3742, 7484), (7484, 11226), (11226, 14968), (14968, 18710)]


def _head(path: str, activation: str) -> None:
    """conv 3x3 (16 -> 64) + relu, global average pool, a 64 -> 1280 1x1 conv + bias,
    `activation`, flatten, a 1280 -> 10 linear layer (MobileNetV3's classifier), saved."""
    rng = np.random.default_rng(5)

    def w(name, shape):
        return nh.from_array((rng.standard_normal(shape) * 0.2).astype(np.float32), name)

    inits = [w("w0", [64, 16, 3, 3]), w("b0", [64]), w("wh", [1280, 64, 1, 1]), w("bh", [1280]),
             w("wc", [10, 1280]), w("bc", [10])]
    nodes = [oh.make_node("Conv", ["x", "w0", "b0"], ["c0"], pads=[1, 1, 1, 1]), oh.make_node("Relu", ["c0"], ["r0"]),
             oh.make_node("GlobalAveragePool", ["r0"], ["g"]), oh.make_node("Conv", ["g", "wh", "bh"], ["h"]),
             oh.make_node(activation, ["h"], ["hs"]), oh.make_node("Flatten", ["hs"], ["f"]),
             oh.make_node("Gemm", ["f", "wc", "bc"], ["y"], transB=1)]
    save_image_model(path, nodes, inits, [1, 16, 32, 32], "y", [1, 10])


def _bottleneck(path: str) -> None:
    """ResNet-50's last-stage bottleneck ends: a 1x1 conv 256 -> 2048 + relu, then 2048 ->
    128 + bias, then a 3x3 conv, saved."""
    rng = np.random.default_rng(9)

    def w(name, shape, scale):
        return nh.from_array((rng.standard_normal(shape) * scale).astype(np.float32), name)

    inits = [w("wa", [2048, 256, 1, 1], 0.06), w("ba", [2048], 0.1), w("wb", [128, 2048, 1, 1], 0.02),
             w("bb", [128], 0.1), w("wc", [16, 128, 3, 3], 0.05)]
    nodes = [oh.make_node("Conv", ["x", "wa", "ba"], ["a"]), oh.make_node("Relu", ["a"], ["r"]),
             oh.make_node("Conv", ["r", "wb", "bb"], ["b"]), oh.make_node("Conv", ["b", "wc"], ["y"], pads=[1, 1, 1, 1])]
    save_image_model(path, nodes, inits, [1, 256, 7, 7], "y", [1, 16, 7, 7])


def test_a_wide_head_runs_on_the_npu_and_matches_onnxruntime(tmp_path):
    """`_head` with hard-swish: the 1280-channel conv cut the model in two."""
    path = str(tmp_path / "head.onnx")
    _head(path, "HardSwish")
    report = compile_to_directory(path, "npu", str(tmp_path / "out"))
    assert len(report["regions"]) == 1 and not report["rejected"], report["rejected"]
    assert_matches_onnxruntime(str(tmp_path / "out"), path, "y")


def test_a_wide_bottleneck_runs_on_the_npu_and_matches_onnxruntime(tmp_path):
    """`_bottleneck` (both 1x1 convs over the npu's 1,024 channels: output slices, then
    input slices summed): one npu region, its C within 1e-5 of onnxruntime."""
    path = str(tmp_path / "bottleneck.onnx")
    _bottleneck(path)
    report = compile_to_directory(path, "npu", str(tmp_path / "out"))
    assert len(report["regions"]) == 1 and not report["rejected"], report["rejected"]
    assert_matches_onnxruntime(str(tmp_path / "out"), path, "y")


def test_an_int8_head_runs_on_the_npu_within_a_step(tmp_path):
    """`_head` with a ReLU quantized by onnxruntime's quantize_static (QDQ, weights per
    channel): its 64 -> 1280 conv runs on the npu as two int8 slices; the whole model is
    one npu region, within one quantization step of onnxruntime (its QDQ arithmetic) and
    of the interpreter."""
    float_path, path = str(tmp_path / "head.onnx"), str(tmp_path / "head_int8.onnx")
    _head(float_path, "Relu")
    quantize_qdq(float_path, path)
    report = compile_to_directory(path, "npu", str(tmp_path / "out"))
    assert len(report["regions"]) == 1 and not [r for r in report["rejected"] if "qnn" not in r["op"]], \
        report["rejected"]
    assert report["regions"][0]["composites"].count("npu.qconv2d_bias") == 3  # the 3x3 conv and two slices
    assert_int8_matches_references(str(tmp_path / "out"), path, seeds=2)


def test_an_int8_bottleneck_runs_on_the_npu_within_a_step(tmp_path):
    """`_bottleneck` quantized by onnxruntime's quantize_static (QDQ, weights per
    channel): its 256 -> 2048 conv as int8 output slices, its 2048 -> 128 conv as float
    slices of the dequantized data summed before the quantize; one npu region, within one
    quantization step of onnxruntime and of the interpreter."""
    float_path, path = str(tmp_path / "bottleneck.onnx"), str(tmp_path / "bottleneck_int8.onnx")
    _bottleneck(float_path)
    quantize_qdq(float_path, path)
    report = compile_to_directory(path, "npu", str(tmp_path / "out"))
    assert len(report["regions"]) == 1 and not [r for r in report["rejected"] if "qnn" not in r["op"]], \
        report["rejected"]
    assert_int8_matches_references(str(tmp_path / "out"), path, seeds=2)
