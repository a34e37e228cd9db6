"""expand-activations: hard-swish, hard-sigmoid and leaky ReLU as the elementwise ops the
npu runs.

- the pass on random activations (hypothesis: shapes, slopes and offsets, values around
  the kinks and far from them): the interpreter's result is unchanged, bit for bit, and
  no activation is left;
- a MobileNetV3-style block (hard-swish after the stem and the depthwise conv, a
  squeeze-excitation gated by hard-sigmoid) and a discriminator-style stack (leaky ReLU),
  compiled for the npu, against onnxruntime: the activations run on the npu.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from onnx import helper as oh
from onnx import numpy_helper as nh

from accel.compiler.driver import make_context
from accel.compiler.frontend.builder import GraphBuilder
from accel.compiler.transforms.expand_activations import FORMS, ExpandActivations
from accel.dialects import relay
from e2e_util import assert_matches_onnxruntime, assert_pass_keeps_results, compiled_with_and_without, save_image_model


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(kind=st.sampled_from(["hardswish", "hardsigmoid", "leaky_relu", "negative", "square"]),
       shape=st.lists(st.integers(1, 5), min_size=1, max_size=4),
       alpha=st.floats(0.015625, 1.0, width=32), beta=st.floats(-1.0, 1.0, width=32), seed=st.integers(0, 2**16))
def test_the_result_is_unchanged(kind, shape, alpha, beta, seed):
    b = GraphBuilder()
    x = b.input("x", shape)
    if kind == "square":  # pow(x, 2): its exponent a scalar constant
        y = b.power(x, b.const(np.float32(2.0)))
    else:
        props = {"hardswish": {}, "hardsigmoid": {"alpha": alpha, "beta": beta}, "leaky_relu": {"alpha": alpha},
                 "negative": {}}[kind]
        y = getattr(b, kind)(x, **props)
    module = b.build([y])
    rng = np.random.default_rng(seed)
    # values at and around the kinks (-3, 3, 0, the hard-sigmoid's ends) and far out
    kinks = np.array([-3, 3, 0, -beta / alpha, (1 - beta) / alpha, 1e-30, -1e-30, 1e6, -1e6], np.float32)
    values = np.concatenate([kinks, rng.standard_normal(int(np.prod(shape))).astype(np.float32) * 4])
    inputs = {"x": rng.choice(values, size=shape).astype(np.float32)}
    assert_pass_keeps_results(ExpandActivations(), module, inputs)
    assert not any(type(op) in FORMS for op in module.walk())


def test_left_alone_where_no_target_runs_the_parts():
    """The dsp (matmul and dense only) runs no elementwise op: the activation stays."""
    b = GraphBuilder()
    y = b.hardswish(b.input("x", (2, 4)))
    module = b.build([y])
    ExpandActivations().apply(make_context("dsp"), module)
    assert [op.name for op in module.walk() if isinstance(op, relay.RelayOp)] == ["relay.nn.hardswish"]


# --------------------------------------------------------------------------------------
# MobileNetV3-style and discriminator-style models through C
# --------------------------------------------------------------------------------------

OUTPUT = "y"


def _weights(rng, name, shape):
    return nh.from_array((rng.standard_normal(shape) * 0.3).astype(np.float32), name)


def _mobilenet_v3_block(path: str) -> None:
    """conv 3x3 / 2 + HardSwish, depthwise 3x3 + HardSwish, squeeze-excitation (mean,
    1x1 conv, ReLU, 1x1 conv, HardSigmoid, multiply), conv 1x1, residual add."""
    rng = np.random.default_rng(6)
    c = 16
    inits = [_weights(rng, "w0", [c, 3, 3, 3]), _weights(rng, "b0", [c]), _weights(rng, "wd", [c, 1, 3, 3]),
             _weights(rng, "bd", [c]), _weights(rng, "ws1", [8, c, 1, 1]), _weights(rng, "bs1", [8]),
             _weights(rng, "ws2", [c, 8, 1, 1]), _weights(rng, "bs2", [c]), _weights(rng, "wp", [c, c, 1, 1]),
             _weights(rng, "bp", [c])]
    nodes = [oh.make_node("Conv", ["x", "w0", "b0"], ["c0"], pads=[1, 1, 1, 1], strides=[2, 2]),
             oh.make_node("HardSwish", ["c0"], ["a0"]),
             oh.make_node("Conv", ["a0", "wd", "bd"], ["c1"], pads=[1, 1, 1, 1], group=c),
             oh.make_node("HardSwish", ["c1"], ["a1"]),
             oh.make_node("ReduceMean", ["a1"], ["g"], axes=[2, 3], keepdims=1),
             oh.make_node("Conv", ["g", "ws1", "bs1"], ["e1"]), oh.make_node("Relu", ["e1"], ["e1r"]),
             oh.make_node("Conv", ["e1r", "ws2", "bs2"], ["e2"]),
             oh.make_node("HardSigmoid", ["e2"], ["gate"], alpha=1 / 6, beta=0.5),
             oh.make_node("Mul", ["a1", "gate"], ["sc"]), oh.make_node("Conv", ["sc", "wp", "bp"], ["p"]),
             oh.make_node("Add", ["p", "a0"], [OUTPUT])]
    save_image_model(path, nodes, inits, [1, 3, 32, 32], OUTPUT, [1, c, 16, 16])


def _discriminator(path: str) -> None:
    """Three conv 3x3 / 2, each followed by LeakyReLU(0.2)."""
    rng = np.random.default_rng(7)
    inits = [_weights(rng, "w0", [8, 3, 3, 3]), _weights(rng, "w1", [16, 8, 3, 3]), _weights(rng, "w2", [16, 16, 3, 3])]
    nodes = []
    src = "x"
    for i in range(3):
        nodes += [oh.make_node("Conv", [src, f"w{i}"], [f"c{i}"], pads=[1, 1, 1, 1], strides=[2, 2]),
                  oh.make_node("LeakyRelu", [f"c{i}"], [OUTPUT if i == 2 else f"a{i}"], alpha=0.2)]
        src = f"a{i}"
    save_image_model(path, nodes, inits, [1, 3, 32, 32], OUTPUT, [1, 16, 4, 4])


@pytest.fixture(scope="module")
def compiled(tmp_path_factory) -> dict[tuple[str, str], tuple[str, dict, str]]:
    d = tmp_path_factory.mktemp("activations")
    paths = {"mobilenet_v3": str(d / "mnv3.onnx"), "discriminator": str(d / "disc.onnx")}
    _mobilenet_v3_block(paths["mobilenet_v3"])
    _discriminator(paths["discriminator"])
    return compiled_with_and_without(tmp_path_factory, paths, "expand-activations")


@pytest.mark.parametrize("model, activations", [("mobilenet_v3", 3), ("discriminator", 3)])
def test_activations_offload(compiled, model, activations):
    _, plain, _ = compiled[(model, "plain")]
    _, with_pass, _ = compiled[(model, "pass")]
    kinds = ("relay.nn.hardswish", "relay.nn.hardsigmoid", "relay.nn.leaky_relu")
    assert len([r for r in plain["rejected"] if r["op"] in kinds]) == activations, plain["rejected"]
    assert not [r for r in with_pass["rejected"] if r["op"] in kinds], with_pass["rejected"]
    assert len(with_pass["regions"]) < len(plain["regions"])
    if model == "discriminator":
        assert with_pass["ops"]["host"] == 0 and len(with_pass["regions"]) == 1


@pytest.mark.parametrize("model", ["mobilenet_v3", "discriminator"])
def test_models_match_onnxruntime(compiled, model):
    d, _, path = compiled[(model, "pass")]
    assert_matches_onnxruntime(d, path, OUTPUT)
