"""dequantize-integer-products: quantize_dynamic's integer products (MatMulInteger or
ConvInteger, Cast, Mul by the scales) become float dense layers or convolutions of the
dequantized operands where a target runs those. On random products the reference interpreter's result stays within 1e-5 of the
output's largest magnitude (the sums are accumulated in float instead of exactly in
int32), and a quantize_dynamic'd MLP and transformer block, which kept everything on the
host, offload their products; their C output matches onnxruntime's within 1e-4 of the
output's largest magnitude."""

from __future__ import annotations

import json
import os

import numpy as np
import onnx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from onnx import TensorProto
from onnx import helper as oh
from onnx import numpy_helper as nh

from accel.compiler.driver import compile_to_directory, make_context
from accel.compiler.frontend.builder import GraphBuilder
from accel.compiler.runtime.interpreter import run_function
from accel.compiler.runtime.run_compiled import run_directory
from accel.compiler.transforms import dequantize_integer_products
from accel.compiler.transforms.dequantize_integer_products import DequantizeIntegerProducts
from accel.dialects import relay
from e2e_util import ort_run

TOLERANCE = 1e-5
"""Relative to the output's largest magnitude (float accumulation against exact int32 sums)."""


@pytest.fixture
def always_pays(monkeypatch):
    """The rewrite wherever a target runs the float product (`pays_off` decides where it
    is made in a compile; its own test is below)."""
    monkeypatch.setattr(dequantize_integer_products, "pays_off", lambda integer, product, target: True)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(lead=st.lists(st.integers(1, 6), min_size=1, max_size=3), k=st.integers(1, 48), n=st.integers(1, 24),
       per_channel=st.booleans(), scale_form=st.sampled_from(["dynamic", "dynamic_swapped", "constant"]),
       signed_weight=st.booleans(), seed=st.integers(0, 2**16))
def test_the_result_stays_within_float_rounding(always_pays, lead, k, n, per_channel, scale_form, signed_weight, seed):
    rng = np.random.default_rng(seed)
    b = GraphBuilder()
    x = b.input("x", (*lead, k))
    s_x, z_x = b.qnn_dynamic_scale(x), b.qnn_dynamic_zero_point(x)
    xq = b.qnn_quantize(x, s_x, z_x)
    wtype = np.int8 if signed_weight else np.uint8
    info = np.iinfo(wtype)
    weight = rng.integers(info.min, info.max + 1, (n, k)).astype(wtype)
    w_scale = rng.uniform(0.001, 0.05, n if per_channel else ()).astype(np.float32)
    w_zero = rng.integers(info.min, info.max + 1, n if per_channel else ()).astype(wtype)
    one = b.const(np.array(1.0, np.float32))
    acc = b.qnn_dense(xq, b.const(weight), z_x, b.const(w_zero), one, one)
    if scale_form == "constant":
        scale = b.const(w_scale * np.float32(0.02))
    elif scale_form == "dynamic":
        scale = b.multiply(s_x, b.const(w_scale))
    else:
        scale = b.multiply(b.const(w_scale), s_x)
    y = b.multiply(b.cast(acc, dtype=np.float32), scale)
    module = b.build([y])
    inputs = {"x": (rng.standard_normal((*lead, k)) * 3).astype(np.float32)}
    want = run_function(module, inputs)["out0"]
    DequantizeIntegerProducts().apply(make_context("npu"), module)
    module.verify()
    got = run_function(module, inputs)["out0"]
    assert got.shape == want.shape and got.dtype == want.dtype
    np.testing.assert_allclose(got, want, rtol=0, atol=TOLERANCE * max(1.0, float(np.abs(want).max())))
    names = [op.name for op in module.walk() if isinstance(op, relay.RelayOp)]
    assert "relay.qnn.dense" not in names and "relay.nn.dense" in names


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(c=st.integers(1, 6), o=st.integers(1, 8), size=st.integers(3, 9), kernel=st.sampled_from([1, 3]),
       stride=st.sampled_from([1, 2]), per_channel=st.booleans(), seed=st.integers(0, 2**16))
def test_a_convolution_stays_within_float_rounding(always_pays, c, o, size, kernel, stride, per_channel, seed):
    """ConvInteger as quantize_dynamic writes it (uint8 weight, its scale per output
    channel shaped [O, 1, 1] when per channel): a float conv of the dequantized operands."""
    rng = np.random.default_rng(seed)
    b = GraphBuilder()
    x = b.input("x", (1, c, size, size))
    s_x, z_x = b.qnn_dynamic_scale(x), b.qnn_dynamic_zero_point(x)
    weight = rng.integers(0, 256, (o, c, kernel, kernel)).astype(np.uint8)
    w_scale = rng.uniform(0.001, 0.05, (o, 1, 1) if per_channel else ()).astype(np.float32)
    w_zero = rng.integers(0, 256, o if per_channel else ()).astype(np.uint8)
    one = b.const(np.array(1.0, np.float32))
    acc = b.qnn_conv2d(b.qnn_quantize(x, s_x, z_x), b.const(weight), z_x, b.const(w_zero), one, one,
                       strides=[stride, stride], padding=[kernel // 2] * 4)
    y = b.multiply(b.cast(acc, dtype=np.float32), b.multiply(s_x, b.const(w_scale)))
    module = b.build([y])
    inputs = {"x": (rng.standard_normal((1, c, size, size)) * 3).astype(np.float32)}
    want = run_function(module, inputs)["out0"]
    DequantizeIntegerProducts().apply(make_context("npu"), module)
    module.verify()
    got = run_function(module, inputs)["out0"]
    np.testing.assert_allclose(got, want, rtol=0, atol=TOLERANCE * max(1.0, float(np.abs(want).max())))
    names = [op.name for op in module.walk() if isinstance(op, relay.RelayOp)]
    assert "relay.qnn.conv2d" not in names and "relay.nn.conv2d" in names


def _product(rows: int, k: int, n: int):
    b = GraphBuilder()
    x = b.input("x", (rows, k))
    s, z = b.qnn_dynamic_scale(x), b.qnn_dynamic_zero_point(x)
    one = b.const(np.array(1.0, np.float32))
    acc = b.qnn_dense(b.qnn_quantize(x, s, z), b.const(np.ones((n, k), np.int8)), z, b.const(np.array(0, np.int8)),
                      one, one)
    return b.build([b.multiply(b.cast(acc, dtype=np.float32), b.multiply(s, b.const(np.array(0.01, np.float32))))])


@pytest.mark.parametrize("rows,k,n,made", [(1, 8, 4, False), (1, 512, 8192, False), (256, 512, 512, True)])
def test_made_where_the_float_product_pays_for_its_transfers(rows, k, n, made):
    """A tiny product (the launch and transfers cost more than its work) and one row
    through a wide weight (an LSTM step, a classifier head: four times the int8 weight's
    bytes to move) stay integer; a product over many rows is made float."""
    module = _product(rows, k, n)
    DequantizeIntegerProducts().apply(make_context("npu"), module)
    assert any(op.name == "relay.nn.dense" for op in module.walk()) == made


def test_left_alone_when_the_product_is_read_otherwise(always_pays):
    """An int32 product read as such (added to another, not rescaled) stays integer."""
    b = GraphBuilder()
    x = b.input("x", (4, 8))
    s, z = b.qnn_dynamic_scale(x), b.qnn_dynamic_zero_point(x)
    one = b.const(np.array(1.0, np.float32))
    acc = b.qnn_dense(b.qnn_quantize(x, s, z), b.const(np.ones((3, 8), np.int8)), z, b.const(np.array(0, np.int8)),
                      one, one)
    module = b.build([b.add(acc, acc)])
    DequantizeIntegerProducts().apply(make_context("npu"), module)
    assert any(op.name == "relay.qnn.dense" for op in module.walk())


def _mlp(path: str, shape: tuple[int, ...], per_channel: bool) -> None:
    """Two linear layers with a ReLU (and a residual add where the input allows), as a
    transformer's feed-forward block on [1, T, D] or an MLP on [B, D], quantize_dynamic'd."""
    from onnxruntime.quantization import QuantType, quantize_dynamic

    d = shape[-1]
    rng = np.random.default_rng(7)
    inits = [nh.from_array((rng.standard_normal((d, 4 * d)) * 0.1).astype(np.float32), "w1"),
             nh.from_array((rng.standard_normal(4 * d) * 0.1).astype(np.float32), "b1"),
             nh.from_array((rng.standard_normal((4 * d, d)) * 0.1).astype(np.float32), "w2"),
             nh.from_array((rng.standard_normal(d) * 0.1).astype(np.float32), "b2")]
    nodes = [oh.make_node("MatMul", ["x", "w1"], ["h"]), oh.make_node("Add", ["h", "b1"], ["hb"]),
             oh.make_node("Relu", ["hb"], ["r"]), oh.make_node("MatMul", ["r", "w2"], ["o"]),
             oh.make_node("Add", ["o", "b2"], ["ob"]), oh.make_node("Add", ["ob", "x"], ["y"])]
    graph = oh.make_graph(nodes, "ffn", [oh.make_tensor_value_info("x", TensorProto.FLOAT, shape)],
                          [oh.make_tensor_value_info("y", TensorProto.FLOAT, shape)], inits)
    fp32 = path.replace(".onnx", "_fp32.onnx")
    onnx.save(oh.make_model(graph, opset_imports=[oh.make_opsetid("", 13)]), fp32)
    quantize_dynamic(fp32, path, weight_type=QuantType.QInt8, per_channel=per_channel)


def test_a_quantize_dynamic_convolution_offloads(tmp_path):
    """Conv, bias, ReLU quantize_dynamic'd (ConvInteger, Cast, Mul, then the bias Add in
    float): the conv, its bias and ReLU on the npu, onnxruntime's result within 1e-4."""
    from onnxruntime.quantization import QuantType, quantize_dynamic

    rng = np.random.default_rng(5)
    inits = [nh.from_array((rng.standard_normal((16, 8, 3, 3)) * 0.1).astype(np.float32), "w"),
             nh.from_array((rng.standard_normal(16) * 0.1).astype(np.float32), "b")]
    graph = oh.make_graph([oh.make_node("Conv", ["x", "w", "b"], ["c"], pads=[1, 1, 1, 1]),
                           oh.make_node("Relu", ["c"], ["y"])], "conv",
                          [oh.make_tensor_value_info("x", TensorProto.FLOAT, (1, 8, 16, 16))],
                          [oh.make_tensor_value_info("y", TensorProto.FLOAT, (1, 16, 16, 16))], inits)
    fp32, path = str(tmp_path / "conv.onnx"), str(tmp_path / "conv_dyn.onnx")
    onnx.save(oh.make_model(graph, opset_imports=[oh.make_opsetid("", 13)]), fp32)
    quantize_dynamic(fp32, path, weight_type=QuantType.QUInt8, op_types_to_quantize=["Conv"])
    assert any(n.op_type == "ConvInteger" for n in onnx.load(path).graph.node)
    out = str(tmp_path / "out")
    compile_to_directory(path, "npu", out)
    with open(os.path.join(out, "report.json")) as f:
        report = json.load(f)
    assert not {"relay.qnn.conv2d", "relay.nn.relu"} & {r["op"] for r in report["rejected"]}, report["rejected"]
    feeds = {"x": rng.standard_normal((1, 8, 16, 16)).astype(np.float32)}
    want = ort_run(path, feeds)["y"]
    got, _ = run_directory(out, feeds)
    assert float(np.max(np.abs(got["y"] - want))) <= 1e-4 * float(np.max(np.abs(want)))


@pytest.mark.parametrize("shape,per_channel", [((64, 96), False), ((1, 32, 128), True)])
def test_a_quantize_dynamic_block_offloads_its_products(tmp_path, shape, per_channel):
    path = str(tmp_path / "ffn_dyn.onnx")
    _mlp(path, shape, per_channel)
    assert any(n.op_type == "MatMulInteger" for n in onnx.load(path).graph.node)
    out = str(tmp_path / "out")
    compile_to_directory(path, "npu", out)
    with open(os.path.join(out, "report.json")) as f:
        report = json.load(f)
    on_host = {r["op"] for r in report["rejected"]}
    assert "relay.qnn.dense" not in on_host and report["ops"]["offloaded"] >= 4, report["rejected"]
    for seed in range(2):
        feeds = {"x": np.random.default_rng(seed).standard_normal(shape).astype(np.float32)}
        want = ort_run(path, feeds)["y"]
        got, _ = run_directory(out, feeds)
        assert float(np.max(np.abs(got["y"] - want))) <= 1e-4 * float(np.max(np.abs(want)))
