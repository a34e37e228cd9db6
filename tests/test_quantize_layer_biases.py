"""quantize-layer-biases: the float bias of an int8 layer becomes int32 on the layer's
accumulator grid (round(b / (x_scale * w_scale)), as onnxruntime's quantizer writes a
Conv's bias). On random int8 layers the reference interpreter's quantized result moves by
at most one step (the bias moves by at most half an accumulator step), and the rewritten
bias is the quantizer's. An int8 model whose conv biases quantize_static left in float (made
by Constant nodes, as 52 of PP-OCRv4's detector's are) then runs as one npu region instead
of a region per layer, within one quantization step of onnxruntime and the interpreter."""

from __future__ import annotations

import numpy as np
from e2e_util import assert_int8_matches_references, quantize_qdq, save_image_model
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from onnx import helper as oh
from onnx import numpy_helper as nh

from accel.compiler.driver import compile_to_directory, make_context, print_ir
from accel.compiler.fuzz.graphs import relay_graphs
from accel.compiler.frontend.builder import GraphBuilder
from accel.compiler.runtime.interpreter import run_function
from accel.compiler.runtime.run_compiled import run_directory
from accel.compiler.tensors import known_value
from accel.compiler.transforms.quantize_layer_biases import QuantizeLayerBiases
from accel.dialects import relay


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(layer=st.sampled_from(["conv2d", "dense"]), channels=st.integers(1, 12), per_channel=st.booleans(),
       relu=st.booleans(), seed=st.integers(0, 2**16))
def test_the_quantized_result_moves_by_at_most_a_step(layer, channels, per_channel, relu, seed):
    rng = np.random.default_rng(seed)
    b = GraphBuilder()
    shape = (1, 5, 4, 4) if layer == "conv2d" else (3, 5)
    sx = np.float32(rng.uniform(0.005, 0.05))
    x = b.qnn_dequantize(b.input("x", shape, np.int8), b.const(sx), b.const(np.int8(rng.integers(-10, 10))))
    wq = rng.integers(-127, 128, (channels, 5, 3, 3) if layer == "conv2d" else (channels, 5)).astype(np.int8)
    sw = (rng.uniform(0.001, 0.02, channels) if per_channel else rng.uniform(0.001, 0.02, ())).astype(np.float32)
    w = b.qnn_dequantize(b.const(wq), b.const(sw), b.const(np.zeros(sw.shape, np.int8)), **({"axis": 0} if per_channel else {}))
    y = b.conv2d(x, w) if layer == "conv2d" else b.dense(x, w)
    bias = rng.normal(0, 0.5, channels).astype(np.float32)
    y = b.bias_add(y, b.const(bias), axis=1)
    if relu:
        y = b.relu(y)
    y = b.qnn_quantize(y, b.const(np.float32(rng.uniform(0.02, 0.2))), b.const(np.int8(rng.integers(-20, 20))))
    module = b.build([y])
    inputs = {"x": rng.integers(-128, 128, shape).astype(np.int8)}
    want = run_function(module, inputs)
    QuantizeLayerBiases().apply(make_context("npu"), module)
    module.verify()
    got = run_function(module, inputs)
    for k, w in want.items():
        assert np.max(np.abs(got[k].astype(np.int32) - w.astype(np.int32))) <= 1, k
    (add,) = [op for op in module.walk() if isinstance(op, relay.BiasAddOp)]
    dq = add.bias.owner
    assert isinstance(dq, relay.DequantizeOp)
    step = (sx * sw).astype(np.float32)
    assert np.array_equal(known_value(dq.data), np.round(bias / step).astype(np.int32))  # the quantizer's rounding
    assert np.all(np.abs(run_function(module, inputs)["out0"].astype(np.int32)) <= 128)


def test_float_conv_biases_of_an_int8_model_run_on_the_npu(tmp_path):
    """Three 3x3 convs (one depthwise), each with its bias made by a Constant node and a
    ReLU, quantized by quantize_static (QDQ, weights per channel): it leaves such biases
    in float. Without the pass each conv is a region of its own, its bias and quantize on
    the host; with it, one npu region, within one quantization step of onnxruntime and of
    the interpreter."""
    rng = np.random.default_rng(3)

    def w(name, shape, scale):
        return nh.from_array((rng.standard_normal(shape) * scale).astype(np.float32), name)

    inits = [w("w0", [16, 3, 3, 3], 0.3), w("w1", [16, 1, 3, 3], 0.3), w("w2", [8, 16, 3, 3], 0.1)]
    nodes = [oh.make_node("Constant", [], ["b0"], value=w("b0v", [16], 0.2)),
             oh.make_node("Constant", [], ["b1"], value=w("b1v", [16], 0.2)),
             oh.make_node("Constant", [], ["b2"], value=w("b2v", [8], 0.2)),
             oh.make_node("Conv", ["x", "w0", "b0"], ["c0"], pads=[1, 1, 1, 1]), oh.make_node("Relu", ["c0"], ["r0"]),
             oh.make_node("Conv", ["r0", "w1", "b1"], ["c1"], pads=[1, 1, 1, 1], group=16),
             oh.make_node("Relu", ["c1"], ["r1"]),
             oh.make_node("Conv", ["r1", "w2", "b2"], ["y"], pads=[1, 1, 1, 1])]
    float_path, path = str(tmp_path / "convs.onnx"), str(tmp_path / "convs_int8.onnx")
    save_image_model(float_path, nodes, inits, [1, 3, 16, 16], "y", [1, 8, 16, 16])
    quantize_qdq(float_path, path)
    report = compile_to_directory(path, "npu", str(tmp_path / "out"))
    assert len(report["regions"]) == 1, report["regions"]
    assert not [r for r in report["rejected"] if "qnn" not in r["op"]], report["rejected"]
    assert_int8_matches_references(str(tmp_path / "out"), path, seeds=2)


@settings(max_examples=12, deadline=None, suppress_health_check=list(HealthCheck))
@given(graph=relay_graphs(max_ops=3, ops=["qdq_layer", "qdq_activation"]))
def test_the_fuzzers_int8_layers_through_c(tmp_path_factory, graph):
    """The fuzzer's `qdq_layer` kind (QDQ convs and dense layers, weights per tensor or per
    channel, a bias on the grid or in float, a ReLU) compiled for the npu: the C matches
    the interpreter on the graph as written within one step of each int8 output."""
    out = tmp_path_factory.mktemp("qdq_layer")
    src = out / "graph.mlir"
    src.write_text(print_ir(graph.module))
    compile_to_directory(str(src), "npu", str(out / "c"))
    got, _ = run_directory(str(out / "c"), graph.inputs)
    want = run_function(graph.module, graph.inputs)
    for name, w in want.items():
        assert np.max(np.abs(got[name].astype(np.int32) - w.astype(np.int32))) <= 1, name
