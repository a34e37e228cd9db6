"""tabulate-activations: int8 activations between a dequantize and a quantize as lookups
in a table of their 256 values (the npu's int8 elementwise command with a table).

- the pass on random activations (hypothesis: chains of 1-4 float elementwise ops, with
  scalar constants and products by the input itself, between a per-tensor dequantize and
  quantize of random scales and zero points, int8 or uint8): the interpreter's result is
  unchanged, bit for bit, and every such activation becomes one lookup (but a single op
  an int8 pattern of the npu takes);
- a MobileNetV3-style block (hard-swish, depthwise conv, squeeze-and-excitation with a
  hard-sigmoid gate) and the suite's torch-exported MobileNetV3-style model
  (tests/models/mobilenet_dynamo.onnx), quantized by onnxruntime's `quantize_static`
  (which leaves HardSwish and HardSigmoid in float between Q/DQ), compiled for the npu:
  the activations run on the npu (one region for the block; the model's regions 10 ->
  2), the C within one quantization step of onnxruntime and of the interpreter.
"""

from __future__ import annotations

import os

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from onnx import helper as oh
from onnx import numpy_helper as nh

from accel.compiler.driver import make_context
from accel.compiler.frontend.builder import GraphBuilder
from accel.compiler.transforms.tabulate_activations import TabulateActivations
from accel.dialects import relay
from e2e_util import (MODELS, assert_int8_matches_references, assert_pass_keeps_results, compiled_with_and_without,
                      quantize_qdq, save_image_model)

STRIPE = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "examples", "targets", "stripe",
                      "stripe.toml")

STEPS = {
    "hardswish": lambda b, x, c: b.hardswish(x),
    "hardsigmoid": lambda b, x, c: b.hardsigmoid(x, alpha=1 / 6, beta=0.5),
    "leaky_relu": lambda b, x, c: b.leaky_relu(x, alpha=0.1),
    "gelu": lambda b, x, c: b.gelu(x),
    "tanh": lambda b, x, c: b.tanh(x),
    "erf": lambda b, x, c: b.erf(x),
    "clip": lambda b, x, c: b.clip(x, a_min=-1.0, a_max=2.0),
    "add": lambda b, x, c: b.add(x, b.const(np.float32(c))),
    "multiply": lambda b, x, c: b.multiply(x, b.const(np.float32(c))),
    "square": lambda b, x, c: b.multiply(x, x),
}
PATTERNED = {"tanh"}
"""Kinds whose single op the npu's int8 patterns take (left to them)."""


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(steps=st.lists(st.sampled_from(sorted(STEPS)), min_size=1, max_size=4),
       shape=st.lists(st.integers(1, 5), min_size=1, max_size=4), unsigned=st.booleans(), by_input=st.booleans(),
       seed=st.integers(0, 2**16))
def test_the_result_is_unchanged(steps, shape, unsigned, by_input, seed):
    rng = np.random.default_rng(seed)
    dtype = np.uint8 if unsigned else np.int8
    offset = 128 if unsigned else 0
    b = GraphBuilder()
    q = b.input("q", shape, dtype)
    x = b.qnn_dequantize(q, b.const(np.float32(rng.uniform(0.01, 0.2))), b.const(dtype(offset + rng.integers(-8, 8))))
    v = x
    for step in steps:
        v = STEPS[step](b, v, float(rng.uniform(-2, 2)))
    if by_input:  # a product by the input: x * f(x), a hard-swish's form
        v = b.multiply(x, v)
    y = b.qnn_quantize(v, b.const(np.float32(rng.uniform(0.01, 0.2))), b.const(dtype(offset + rng.integers(-8, 8))))
    module = b.build([y])
    inputs = {"q": np.arange(int(np.prod(shape)), dtype=np.int64).astype(np.uint8).view(dtype).reshape(shape)}
    assert_pass_keeps_results(TabulateActivations(), module, inputs)
    takes = [op for op in module.walk() if isinstance(op, relay.TakeOp)]
    single_patterned = len(steps) == 1 and not by_input and steps[0] in PATTERNED
    assert len(takes) == (0 if single_patterned else 1)
    if takes:
        assert [op.name for op in module.walk() if isinstance(op, relay.RelayOp) and not
                isinstance(op, relay.ConstantOp)] == ["relay.take"]


@pytest.mark.parametrize("target", ["dsp", STRIPE])
def test_left_alone_where_no_target_looks_up(target):
    """The dsp runs no lookup; stripe (the npu's entries, driven by command streams of its
    own encoding) has no table in its `eltwise_q8` command: the activation stays."""
    b = GraphBuilder()
    q = b.input("q", (4, 8), np.int8)
    s, z = b.const(np.float32(0.05)), b.const(np.int8(0))
    y = b.qnn_quantize(b.hardswish(b.qnn_dequantize(q, s, z)), s, z)
    module = b.build([y])
    TabulateActivations().apply(make_context(target), module)
    assert not any(isinstance(op, relay.TakeOp) for op in module.walk())


# --------------------------------------------------------------------------------------
# MobileNetV3-style models through C
# --------------------------------------------------------------------------------------

OUTPUT = "y"


def _mobilenetv3_block(path: str) -> None:
    """conv 3x3/2 + hard-swish, depthwise 3x3 + hard-swish, squeeze-and-excitation (global
    average pool, 1x1 conv + relu, 1x1 conv + hard-sigmoid, the gate multiplied over the
    channels), projection 1x1 conv (1 x 3 x 32 x 32 -> 1 x 8 x 16 x 16)."""
    rng = np.random.default_rng(13)
    c = 16

    def weights(name, shape):
        return nh.from_array((rng.standard_normal(shape) * 0.3).astype(np.float32), name)

    inits = [weights("w0", [c, 3, 3, 3]), weights("b0", [c]), weights("wd", [c, 1, 3, 3]), weights("bd", [c]),
             weights("ws1", [4, c, 1, 1]), weights("bs1", [4]), weights("ws2", [c, 4, 1, 1]), weights("bs2", [c]),
             weights("wp", [8, c, 1, 1]), weights("bp", [8])]
    nodes = [oh.make_node("Conv", ["x", "w0", "b0"], ["c0"], pads=[1, 1, 1, 1], strides=[2, 2]),
             oh.make_node("HardSwish", ["c0"], ["a0"]),
             oh.make_node("Conv", ["a0", "wd", "bd"], ["c1"], pads=[1, 1, 1, 1], group=c),
             oh.make_node("HardSwish", ["c1"], ["a1"]),
             oh.make_node("GlobalAveragePool", ["a1"], ["g"]), oh.make_node("Conv", ["g", "ws1", "bs1"], ["e1"]),
             oh.make_node("Relu", ["e1"], ["e1a"]), oh.make_node("Conv", ["e1a", "ws2", "bs2"], ["e2"]),
             oh.make_node("HardSigmoid", ["e2"], ["gate"], alpha=1 / 6, beta=0.5),
             oh.make_node("Mul", ["a1", "gate"], ["scaled"]), oh.make_node("Conv", ["scaled", "wp", "bp"], [OUTPUT])]
    save_image_model(path, nodes, inits, [1, 3, 32, 32], OUTPUT, [1, 8, 16, 16])


@pytest.fixture(scope="module")
def compiled(tmp_path_factory) -> dict[tuple[str, str], tuple[str, dict, str]]:
    d = tmp_path_factory.mktemp("mbv3")
    float_path = str(d / "block.onnx")
    paths = {"block": str(d / "block_int8.onnx"), "mobilenet": str(d / "mobilenet_int8.onnx")}
    _mobilenetv3_block(float_path)
    quantize_qdq(float_path, paths["block"])
    quantize_qdq(os.path.join(MODELS, "mobilenet_dynamo.onnx"), paths["mobilenet"])
    return compiled_with_and_without(tmp_path_factory, paths, "tabulate-activations")


def test_the_activations_run_on_the_npu(compiled):
    """With the pass each activation is one lookup; without it, its float ops run on the
    npu between conversions alone (one region either way): the lookups take fewer cycles."""
    _, plain, _ = compiled[("block", "plain")]
    _, with_pass, _ = compiled[("block", "pass")]
    assert len(with_pass["regions"]) == 1, with_pass["rejected"]
    assert with_pass["cycles"]["estimate"] < plain["cycles"]["estimate"]
    # (only the model's first quantize, and its last dequantize when no float op follows it)
    assert {r["op"] for r in with_pass["rejected"]} <= {"relay.qnn.dequantize", "relay.qnn.quantize"}, \
        with_pass["rejected"]
    _, plain, _ = compiled[("mobilenet", "plain")]
    _, with_pass, _ = compiled[("mobilenet", "pass")]
    assert len(with_pass["regions"]) == 1, with_pass["rejected"]
    assert with_pass["cycles"]["estimate"] < plain["cycles"]["estimate"]


@pytest.mark.parametrize("model", ["block", "mobilenet"])
def test_matches_onnxruntime_and_the_interpreter_within_one_step(compiled, model):
    d, _, path = compiled[(model, "pass")]
    assert_int8_matches_references(d, path, seeds=2)
