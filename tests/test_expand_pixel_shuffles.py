"""expand-pixel-shuffles: depth_to_space / space_to_depth as reshapes and transposes the
npu copies on its device.

- the two forms a shuffle becomes (its definition, and the two transposes each moving one
  block axis) against the reference on every mode, batch and block size;
- the pass on random shuffles (hypothesis): the interpreter's result is unchanged (bit for
  bit: only copies), the shuffle is gone and every transpose is a copy of rank 4 at most;
- a U-Net-style model (a ConvTranspose decoder: conv2d + depth_to_space DCR) and a
  super-resolution head (PixelShuffle: depth_to_space CRD), float and int8 (QDQ), compiled
  for the npu, against onnxruntime: one region, nothing on the host.
"""

from __future__ import annotations


import numpy as np
import onnx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from onnx import helper as oh
from onnx import numpy_helper as nh

from accel.compiler.driver import make_context
from accel.compiler.frontend.builder import GraphBuilder
from accel.compiler.runtime import reference
from accel.compiler.targets.fused_forms import layout_view
from accel.compiler.transforms.expand_pixel_shuffles import ExpandPixelShuffles, one_step, two_steps
from accel.dialects import relay
from e2e_util import (assert_matches_onnxruntime, assert_pass_keeps_results, compiled_with_and_without, output_step,
                      quantize_qdq, save_image_model)


def relay_ops(module) -> list:
    return [op for op in module.walk() if isinstance(op, relay.RelayOp)]


def _shuffle_module(kind: str, shape: tuple[int, ...], b: int, mode: str, dtype=np.float32):
    g = GraphBuilder()
    x = g.input("x", shape, dtype)
    y = g.depth_to_space(x, block_size=b, mode=mode) if kind == "d2s" else g.space_to_depth(x, block_size=b, mode=mode)
    return g.build([y]), y.owner


def _apply(ops: list, x: np.ndarray) -> np.ndarray:
    """The reshapes and transposes `ops` (a chain from the shuffle's input) on `x`."""
    for op in ops:
        if isinstance(op, relay.ReshapeOp):
            x = x.reshape(op.prop("newshape"))
        else:
            x = x.transpose(op.prop("axes"))
    return x


@pytest.mark.parametrize("kind", ["d2s", "s2d"])
@pytest.mark.parametrize("mode", ["DCR", "CRD"])
def test_both_forms_are_the_shuffle(kind, mode):
    rng = np.random.default_rng(0)
    for n in (1, 2, 3):
        for b in (1, 2, 3):
            for c in (1, 2, 5):
                for h, w in ((1, 1), (2, 3), (4, 2)):
                    shape = (n, c * b * b, h, w) if kind == "d2s" else (n, c, h * b, w * b)
                    x = rng.standard_normal(shape).astype(np.float32)
                    fn = reference.depth_to_space if kind == "d2s" else reference.space_to_depth
                    want = fn(x, b, mode)
                    _, op = _shuffle_module(kind, shape, b, mode)
                    for form in (one_step, two_steps):
                        new: list = []
                        form(op, op.operands[0], new)
                        assert np.array_equal(_apply(new, x), want), (form.__name__, shape, b)
                        if form is two_steps:  # each transpose is a copy of rank 4 at most
                            assert all(layout_view(o).copy_rank() <= 4 for o in new if isinstance(o, relay.TransposeOp))
                        for o in reversed(new):
                            o.erase(safe_erase=False)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(kind=st.sampled_from(["d2s", "s2d"]), mode=st.sampled_from(["DCR", "CRD"]), n=st.integers(1, 3),
       c=st.integers(1, 4), b=st.integers(1, 3), h=st.integers(1, 4), w=st.integers(1, 4),
       int8=st.booleans(), seed=st.integers(0, 2**16))
def test_the_result_is_unchanged(kind, mode, n, c, b, h, w, int8, seed):
    shape = (n, c * b * b, h, w) if kind == "d2s" else (n, c, h * b, w * b)
    rng = np.random.default_rng(seed)
    dtype = np.int8 if int8 else np.float32
    module, _ = _shuffle_module(kind, shape, b, mode, dtype)
    x = rng.integers(-128, 128, shape).astype(np.int8) if int8 else rng.standard_normal(shape).astype(np.float32)
    assert_pass_keeps_results(ExpandPixelShuffles(), module, {"x": x})
    ops = relay_ops(module)
    assert not any(isinstance(op, (relay.DepthToSpaceOp, relay.SpaceToDepthOp)) for op in ops)
    assert all(layout_view(op).copy_rank() <= 4 for op in ops if isinstance(op, relay.TransposeOp))


def test_left_alone_where_no_target_copies_on_its_device():
    """The dsp (matmul and dense only) runs no transpose: the shuffle stays."""
    module, _ = _shuffle_module("d2s", (1, 8, 4, 4), 2, "DCR")
    ExpandPixelShuffles().apply(make_context("dsp"), module)
    assert [op.name for op in relay_ops(module)] == ["relay.nn.depth_to_space"]


# --------------------------------------------------------------------------------------
# U-Net decoder and super-resolution head through C
# --------------------------------------------------------------------------------------

OUTPUT = "y"


def _weights(rng, name: str, shape) -> onnx.TensorProto:
    return nh.from_array((rng.standard_normal(shape) * 0.3).astype(np.float32), name)


def _unet_model(path: str) -> None:
    """conv 3x3 + relu, maxpool, conv 3x3 + relu, ConvTranspose 2x2 / 2 + relu, concat
    with the skip, conv 3x3, relu, conv 1x1 (N = 1, 3 -> 2 channels, 16 x 16)."""
    rng = np.random.default_rng(3)
    inits = [_weights(rng, "w0", [8, 3, 3, 3]), _weights(rng, "b0", [8]), _weights(rng, "w1", [16, 8, 3, 3]),
             _weights(rng, "b1", [16]), _weights(rng, "wt", [16, 8, 2, 2]), _weights(rng, "bt", [8]),
             _weights(rng, "w2", [8, 16, 3, 3]), _weights(rng, "b2", [8]), _weights(rng, "w3", [2, 8, 1, 1]),
             _weights(rng, "b3", [2])]
    nodes = [oh.make_node("Conv", ["x", "w0", "b0"], ["c0"], pads=[1, 1, 1, 1]), oh.make_node("Relu", ["c0"], ["r0"]),
             oh.make_node("MaxPool", ["r0"], ["p0"], kernel_shape=[2, 2], strides=[2, 2]),
             oh.make_node("Conv", ["p0", "w1", "b1"], ["c1"], pads=[1, 1, 1, 1]), oh.make_node("Relu", ["c1"], ["r1"]),
             oh.make_node("ConvTranspose", ["r1", "wt", "bt"], ["u"], kernel_shape=[2, 2], strides=[2, 2]),
             oh.make_node("Relu", ["u"], ["ur"]), oh.make_node("Concat", ["ur", "r0"], ["cat"], axis=1),
             oh.make_node("Conv", ["cat", "w2", "b2"], ["c2"], pads=[1, 1, 1, 1]), oh.make_node("Relu", ["c2"], ["r2"]),
             oh.make_node("Conv", ["r2", "w3", "b3"], [OUTPUT])]
    save_image_model(path, nodes, inits, [1, 3, 16, 16], OUTPUT, [1, 2, 16, 16])


def _espcn_model(path: str) -> None:
    """conv 3x3 + relu, conv 3x3 to 3 * 9 channels, PixelShuffle 3 (depth_to_space CRD)."""
    rng = np.random.default_rng(4)
    inits = [_weights(rng, "w0", [8, 3, 3, 3]), _weights(rng, "b0", [8]), _weights(rng, "w1", [27, 8, 3, 3]),
             _weights(rng, "b1", [27])]
    nodes = [oh.make_node("Conv", ["x", "w0", "b0"], ["c0"], pads=[1, 1, 1, 1]), oh.make_node("Relu", ["c0"], ["r0"]),
             oh.make_node("Conv", ["r0", "w1", "b1"], ["c1"], pads=[1, 1, 1, 1]),
             oh.make_node("DepthToSpace", ["c1"], [OUTPUT], blocksize=3, mode="CRD")]
    save_image_model(path, nodes, inits, [1, 3, 8, 8], OUTPUT, [1, 3, 24, 24])


@pytest.fixture(scope="module")
def compiled(tmp_path_factory) -> dict[tuple[str, str], tuple[str, dict, str]]:
    d = tmp_path_factory.mktemp("shuffles")
    paths = {"unet": str(d / "unet.onnx"), "espcn": str(d / "espcn.onnx")}
    _unet_model(paths["unet"])
    _espcn_model(paths["espcn"])
    for name in ("unet", "espcn"):
        paths[f"{name}_int8"] = str(d / f"{name}_int8.onnx")
        quantize_qdq(paths[name], paths[f"{name}_int8"])
    return compiled_with_and_without(tmp_path_factory, paths, "expand-pixel-shuffles")


@pytest.mark.parametrize("model", ["unet", "espcn", "unet_int8", "espcn_int8"])
def test_shuffles_offload(compiled, model):
    _, plain, _ = compiled[(model, "plain")]
    _, with_pass, _ = compiled[(model, "pass")]
    assert [r for r in plain["rejected"] if r["op"] == "relay.nn.depth_to_space"], plain["rejected"]
    assert not [r for r in with_pass["rejected"] if "depth_to_space" in r["op"] or "conv" in r["op"]], \
        with_pass["rejected"]
    assert with_pass["macs"]["offloaded"] == with_pass["macs"]["total"]
    assert len(with_pass["regions"]) <= len(plain["regions"])
    if not model.endswith("int8"):
        assert with_pass["ops"]["host"] == 0 and len(with_pass["regions"]) == 1, with_pass["rejected"]
    # (QDQ: the input's quantize stays on the host, and the U-Net's concatenation of two
    # int8 values of different scales: dequantized, joined and quantized again there.)


@pytest.mark.parametrize("model", ["unet", "espcn"])
def test_float_models_match_onnxruntime(compiled, model):
    d, _, path = compiled[(model, "pass")]
    assert_matches_onnxruntime(d, path, OUTPUT)


@pytest.mark.parametrize("model", ["unet_int8", "espcn_int8"])
def test_int8_models_match_onnxruntime_within_one_step(compiled, model):
    d, _, path = compiled[(model, "pass")]
    onnx_model = onnx.load(path)
    producer = {o: n for n in onnx_model.graph.node for o in n.output}[OUTPUT]
    # (the quantization tool leaves the pixel shuffle in float, after the dequantize)
    step = output_step(onnx_model, producer.input[0] if producer.op_type == "DepthToSpace" else OUTPUT)
    assert_matches_onnxruntime(d, path, OUTPUT, step=step)
