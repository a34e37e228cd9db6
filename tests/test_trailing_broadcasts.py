"""trailing-broadcasts: binary elementwise ops broadcasting along leading axes, run on a
transposed layout where the npu's trailing-dims broadcast takes them.

- `trailing_order` on every broadcast shape of ranks 1-4;
- the pass on random broadcasts (hypothesis: shapes, which axes broadcast, each of the
  four ops, the broadcast operand on either side, a constant or a value): the
  interpreter's result is unchanged, bit for bit, and what it rewrites the npu runs;
- an EfficientNet-style block (SiLU, depthwise conv, squeeze-and-excitation gate
  multiplied over the channels), compiled for the npu, against onnxruntime: one region.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from onnx import helper as oh
from onnx import numpy_helper as nh

from accel.compiler.driver import make_context
from accel.compiler.frontend.builder import GraphBuilder
from accel.compiler.transforms.trailing_broadcasts import TrailingBroadcasts, trailing_order
from accel.dialects import relay
from e2e_util import (assert_int8_matches_references, assert_matches_onnxruntime, assert_pass_keeps_results,
                      compiled_with_and_without, quantize_qdq, save_image_model)


def test_trailing_order_moves_the_broadcast_axes_last():
    for rank in range(1, 5):
        full = tuple(range(2, 2 + rank))
        for keep in itertools.product([False, True], repeat=rank):
            part = tuple(f if k else 1 for f, k in zip(full, keep))
            order = trailing_order(full, part)
            kept = [a for a in range(rank) if keep[a]]
            if not kept or kept == list(range(kept[0], rank)):
                assert order is None  # a scalar, or trailing already
                continue
            assert sorted(order) == list(range(rank)) and order[-len(kept):] == kept
            x = np.arange(np.prod(full)).reshape(full)
            assert x.transpose(order).shape[-len(kept):] == tuple(full[a] for a in kept)
    assert trailing_order((2, 3), (3, 3)) is None  # not a broadcast of the result's shape


OPS = {"add": relay.AddOp, "subtract": relay.SubtractOp, "multiply": relay.MultiplyOp, "divide": relay.DivideOp}


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(shape=st.lists(st.integers(1, 4), min_size=2, max_size=4), data=st.data(),
       kind=st.sampled_from(sorted(OPS)), part_left=st.booleans(), constant=st.booleans(), qdq=st.booleans(),
       seed=st.integers(0, 2**16))
def test_the_result_is_unchanged(shape, data, kind, part_left, constant, qdq, seed):
    """Float, or QDQ (int8 operands dequantized, the result quantized: the int8 data is
    transposed and reshaped, the dequantizes and the quantize stay by the op)."""
    keep = data.draw(st.lists(st.booleans(), min_size=len(shape), max_size=len(shape)))
    part_shape = [s if k else 1 for s, k in zip(shape, keep)]
    rng = np.random.default_rng(seed)
    b = GraphBuilder()
    if qdq:
        x = b.qnn_dequantize(b.input("x", shape, np.int8), b.const(np.float32(0.05)), b.const(np.int8(3)))
        part_value = rng.integers(20, 120, part_shape).astype(np.int8)  # away from the zero point: divide
        raw = b.const(part_value) if constant else b.input("p", part_shape, np.int8)
        part = b.qnn_dequantize(raw, b.const(np.float32(0.02)), b.const(np.int8(-4)))
    else:
        x = b.input("x", shape)
        part_value = (rng.standard_normal(part_shape) + 3).astype(np.float32)  # away from 0: divide
        part = b.const(part_value) if constant else b.input("p", part_shape)
    y = getattr(b, kind)(*((part, x) if part_left else (x, part)))
    if qdq:
        y = b.qnn_quantize(y, b.const(np.float32(0.1)), b.const(np.int8(-2)))
    module = b.build([y])
    inputs = {"x": rng.integers(-128, 128, shape).astype(np.int8) if qdq else rng.standard_normal(shape).astype(np.float32)}
    if not constant:
        inputs["p"] = part_value
    assert_pass_keeps_results(TrailingBroadcasts(), module, inputs)
    ops = [op for op in module.walk() if isinstance(op, relay.RelayOp)]
    order = trailing_order(tuple(shape), tuple(part_shape))
    rewritten = any(isinstance(op, relay.TransposeOp) for op in ops)
    if order is None or part_shape == shape or (part_left and kind in ("subtract", "divide")):
        assert not rewritten
    else:
        assert rewritten
        if qdq:  # the int8 data moves: every transpose and reshape is of 8-bit values
            assert all(op.results[0].type.element_type.bitwidth == 8 for op in ops
                       if isinstance(op, (relay.TransposeOp, relay.ReshapeOp)))


def test_left_alone_where_no_target_runs_the_parts():
    """The dsp (matmul and dense only) runs no elementwise op: the multiply stays."""
    b = GraphBuilder()
    y = b.multiply(b.input("x", (1, 4, 2, 2)), b.input("g", (1, 4, 1, 1)))
    module = b.build([y])
    TrailingBroadcasts().apply(make_context("dsp"), module)
    assert [op.name for op in module.walk() if isinstance(op, relay.RelayOp)] == ["relay.multiply"]


# --------------------------------------------------------------------------------------
# An EfficientNet-style block through C
# --------------------------------------------------------------------------------------

OUTPUT = "y"


def _se_block(path: str) -> None:
    """conv 3x3 / 2 + SiLU, depthwise 3x3 + SiLU, squeeze-and-excitation (global average
    pool, 1x1 conv + SiLU, 1x1 conv + sigmoid, the gate multiplied over the channels),
    projection 1x1 conv, residual add (1 x 3 x 32 x 32 -> 1 x 16 x 16 x 16)."""
    rng = np.random.default_rng(9)
    c = 16

    def weights(name, shape):
        return nh.from_array((rng.standard_normal(shape) * 0.3).astype(np.float32), name)

    def silu(src, dst):
        return [oh.make_node("Sigmoid", [src], [dst + "_s"]), oh.make_node("Mul", [src, dst + "_s"], [dst])]

    inits = [weights("w0", [c, 3, 3, 3]), weights("b0", [c]), weights("wd", [c, 1, 3, 3]), weights("bd", [c]),
             weights("ws1", [4, c, 1, 1]), weights("bs1", [4]), weights("ws2", [c, 4, 1, 1]), weights("bs2", [c]),
             weights("wp", [c, c, 1, 1]), weights("bp", [c])]
    nodes = [oh.make_node("Conv", ["x", "w0", "b0"], ["c0"], pads=[1, 1, 1, 1], strides=[2, 2]), *silu("c0", "a0"),
             oh.make_node("Conv", ["a0", "wd", "bd"], ["c1"], pads=[1, 1, 1, 1], group=c), *silu("c1", "a1"),
             oh.make_node("GlobalAveragePool", ["a1"], ["g"]), oh.make_node("Conv", ["g", "ws1", "bs1"], ["e1"]),
             *silu("e1", "e1a"), oh.make_node("Conv", ["e1a", "ws2", "bs2"], ["e2"]),
             oh.make_node("Sigmoid", ["e2"], ["gate"]), oh.make_node("Mul", ["a1", "gate"], ["scaled"]),
             oh.make_node("Conv", ["scaled", "wp", "bp"], ["p"]), oh.make_node("Add", ["p", "a0"], [OUTPUT])]
    save_image_model(path, nodes, inits, [1, 3, 32, 32], OUTPUT, [1, c, 16, 16])


@pytest.fixture(scope="module")
def compiled(tmp_path_factory) -> dict[tuple[str, str], tuple[str, dict, str]]:
    d = tmp_path_factory.mktemp("se")
    paths = {"se": str(d / "se.onnx"), "se_int8": str(d / "se_int8.onnx")}
    _se_block(paths["se"])
    quantize_qdq(paths["se"], paths["se_int8"])
    return compiled_with_and_without(tmp_path_factory, paths, "trailing-broadcasts")


@pytest.mark.parametrize("model", ["se", "se_int8"])
def test_the_gate_offloads(compiled, model):
    """Float: nothing on the host. int8 (onnxruntime's QDQ): the int8 gate product, its
    SiLUs and pooling on the npu, only the input's quantize and the output's dequantize
    on the host."""
    _, plain, _ = compiled[(model, "plain")]
    _, with_pass, _ = compiled[(model, "pass")]
    assert len(with_pass["regions"]) == 1, with_pass["rejected"]
    assert len(plain["regions"]) > 1
    if model == "se":
        assert [r for r in plain["rejected"] if r["op"] == "relay.multiply"], plain["rejected"]
        assert with_pass["ops"]["host"] == 0, with_pass["rejected"]
    else:
        on_host = sorted({r["op"] for r in with_pass["rejected"]})
        assert on_host == ["relay.qnn.dequantize", "relay.qnn.quantize"], with_pass["rejected"]


def test_the_block_matches_onnxruntime(compiled):
    d, _, path = compiled[("se", "pass")]
    assert_matches_onnxruntime(d, path, OUTPUT)


def test_the_int8_block_matches_onnxruntime_and_the_interpreter_within_one_step(compiled):
    d, _, path = compiled[("se_int8", "pass")]
    assert_int8_matches_references(d, path, seeds=2)
