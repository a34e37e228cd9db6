"""requantize-concatenations: a QDQ concatenation of int8 tensors of their own scales
as a concatenation of int8 data, each input requantized to the output's quantization.

- the pass on random concatenations (hypothesis: 2-4 inputs of random shapes along a
  random axis, int8 or uint8, each input's scale and zero point drawn or the output's,
  sometimes a dequantize read by another op too): the interpreter's result is unchanged,
  bit for bit; inputs already in the output's quantization are not requantized;
- a YOLO-style neck (conv branches, a 2x nearest upsampling, a concatenation of three
  branches, a 1x1 conv) and the suite's torch-exported YOLO-style detector
  (tests/models/yolo_dynamo.onnx), quantized by onnxruntime's `quantize_static` (every
  tensor a scale of its own) and compiled for the npu: one region with this pass (the
  concatenations split them without it), the C within one quantization step of
  onnxruntime and of the reference interpreter.
"""

from __future__ import annotations

import os

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from onnx import helper as oh
from onnx import numpy_helper as nh

from accel.compiler.frontend.builder import GraphBuilder
from accel.compiler.transforms.requantize_concatenations import RequantizeConcatenations
from accel.dialects import relay
from e2e_util import (MODELS, assert_int8_matches_references, assert_pass_keeps_results, compiled_with_and_without,
                      quantize_qdq, save_image_model)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(n=st.integers(2, 4), rank=st.integers(1, 4), data=st.data(), seed=st.integers(0, 2**16))
def test_the_result_is_unchanged(n, rank, data, seed):
    rng = np.random.default_rng(seed)
    axis = data.draw(st.integers(0, rank - 1))
    base = [data.draw(st.integers(1, 4)) for _ in range(rank)]
    out_dtype = data.draw(st.sampled_from([np.int8, np.uint8]))
    b = GraphBuilder()

    def quantization(dtype):
        zp = int(rng.integers(-5, 6)) + (128 if dtype == np.uint8 else 0)
        return float(rng.uniform(0.005, 0.2)), zp

    out_q = quantization(out_dtype)
    s_out, z_out = b.const(np.array(out_q[0], np.float32)), b.const(np.array(out_q[1], out_dtype))
    inputs, parts, same = {}, [], 0
    shared = None
    for i in range(n):
        shape = list(base)
        shape[axis] = data.draw(st.integers(1, 3))
        dtype = data.draw(st.sampled_from([np.int8, np.uint8]))
        x = b.input(f"x{i}", shape, dtype)
        inputs[f"x{i}"] = rng.integers(np.iinfo(dtype).min, np.iinfo(dtype).max + 1, shape).astype(dtype)
        if dtype == out_dtype and data.draw(st.booleans()):
            s, z = s_out, z_out  # already in the output's quantization
            same += 1
        else:
            q = quantization(dtype)
            s, z = b.const(np.array(q[0], np.float32)), b.const(np.array(q[1], dtype))
        d = b.qnn_dequantize(x, s, z)
        parts.append(d)
        shared = shared or d
    y = b.qnn_quantize(b.concatenate(*parts, axis=axis), s_out, z_out)
    outputs = [y, b.relu(shared)] if data.draw(st.booleans()) else [y]  # a dequantize read by another op too
    module = b.build(outputs)
    assert_pass_keeps_results(RequantizeConcatenations(), module, inputs)
    ops = list(module.walk())
    assert not any(isinstance(op, relay.QuantizeOp) for op in ops)
    assert sum(isinstance(op, relay.RequantizeOp) for op in ops) == n - same


# --------------------------------------------------------------------------------------
# Models through C
# --------------------------------------------------------------------------------------

OUTPUT = "y"


def _neck_model(path: str) -> None:
    """x[1,3,16,16] -> conv 3x3 (8) -> relu -> {conv 3x3/2 -> relu -> 2x nearest upsampling,
    conv 1x1 -> relu, the relu itself} concatenated (24 channels) -> conv 1x1 (8): y."""
    rng = np.random.default_rng(12)

    def weights(name, shape):
        return nh.from_array((rng.standard_normal(shape) * 0.3).astype(np.float32), name)

    inits = [weights("w0", [8, 3, 3, 3]), weights("b0", [8]), weights("wd", [8, 8, 3, 3]), weights("bd", [8]),
             weights("wl", [8, 8, 1, 1]), weights("bl", [8]), weights("w2", [8, 24, 1, 1]), weights("b2", [8]),
             nh.from_array(np.array([1, 1, 2, 2], np.float32), "scales")]
    nodes = [oh.make_node("Conv", ["x", "w0", "b0"], ["c0"], pads=[1, 1, 1, 1]), oh.make_node("Relu", ["c0"], ["r0"]),
             oh.make_node("Conv", ["r0", "wd", "bd"], ["cd"], pads=[1, 1, 1, 1], strides=[2, 2]),
             oh.make_node("Relu", ["cd"], ["rd"]), oh.make_node("Resize", ["rd", "", "scales"], ["up"], mode="nearest"),
             oh.make_node("Conv", ["r0", "wl", "bl"], ["cl"]), oh.make_node("Relu", ["cl"], ["rl"]),
             oh.make_node("Concat", ["up", "rl", "r0"], ["cat"], axis=1),
             oh.make_node("Conv", ["cat", "w2", "b2"], [OUTPUT])]
    save_image_model(path, nodes, inits, [1, 3, 16, 16], OUTPUT, [1, 8, 16, 16])


@pytest.fixture(scope="module")
def compiled(tmp_path_factory) -> dict[tuple[str, str], tuple[str, dict, str]]:
    d = tmp_path_factory.mktemp("neck")
    float_path, paths = str(d / "neck.onnx"), {"neck": str(d / "neck_int8.onnx"), "yolo": str(d / "yolo_int8.onnx")}
    _neck_model(float_path)
    quantize_qdq(float_path, paths["neck"])
    quantize_qdq(os.path.join(MODELS, "yolo_dynamo.onnx"), paths["yolo"])
    return compiled_with_and_without(tmp_path_factory, paths, "requantize-concatenations")


@pytest.mark.parametrize("model", ["neck", "yolo"])
def test_one_region_with_the_pass(compiled, model):
    """Without the pass, the concatenation of dequantized inputs runs in float between
    conversions alone on the npu (one region too, since those run there); with it, one
    int8 concatenation of requantized inputs: fewer cycles."""
    _, plain, _ = compiled[(model, "plain")]
    _, with_pass, _ = compiled[(model, "pass")]
    assert not any(r["op"] == "relay.concatenate" for r in plain["rejected"]), plain["rejected"]
    assert len(with_pass["regions"]) == 1, with_pass["rejected"]
    assert with_pass["cycles"]["estimate"] < plain["cycles"]["estimate"], (with_pass["cycles"], plain["cycles"])
    # (only the model's first quantize, and its last dequantize when no float op follows it)
    assert {r["op"] for r in with_pass["rejected"]} <= {"relay.qnn.dequantize", "relay.qnn.quantize"}, \
        with_pass["rejected"]


@pytest.mark.parametrize("model", ["neck", "yolo"])
def test_matches_onnxruntime_and_the_interpreter_within_one_step(compiled, model):
    d, _, path = compiled[(model, "pass")]
    assert_int8_matches_references(d, path, seeds=2)
