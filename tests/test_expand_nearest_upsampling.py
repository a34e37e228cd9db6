"""expand-nearest-upsampling: nearest resizes by whole factors as concatenations the npu
copies on its device.

- the pass on random resizes (hypothesis: sizes, factors 1-3 per axis, every coordinate
  transformation and nearest mode, float and QDQ int8): the interpreter's result is
  unchanged, bit for bit; a resize is rewritten exactly when its sampling is a repeat
  (checked against the reference's own index map), and a QDQ one moves int8 data;
- a feature-pyramid block (conv, 2x nearest upsampling, add of a lateral conv, conv),
  float and int8 (QDQ), compiled for the npu, against onnxruntime: the upsampling runs on
  the npu.
"""

from __future__ import annotations

import numpy as np
import onnx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from onnx import helper as oh
from onnx import numpy_helper as nh

from accel.compiler.frontend.builder import GraphBuilder
from accel.compiler.runtime import reference
from accel.compiler.transforms.expand_nearest_upsampling import ExpandNearestUpsamplings
from accel.dialects import relay
from e2e_util import (assert_matches_onnxruntime, assert_pass_keeps_results, compiled_with_and_without, output_step,
                      quantize_qdq, save_image_model)

MODES = ["half_pixel", "half_pixel_symmetric", "pytorch_half_pixel", "align_corners", "asymmetric",
         "tf_half_pixel_for_nn"]
NEAREST = ["round_prefer_floor", "round_prefer_ceil", "floor", "ceil"]


def _is_repeat(h: int, w: int, oh: int, ow: int, props: dict) -> bool:
    """Whether the reference's resize of an index image is the repeat of each cell."""
    index = np.arange(h * w, dtype=np.float32).reshape(1, 1, h, w)
    got = reference.resize2d(index, (oh, ow), **props)
    return oh % h == 0 and ow % w == 0 and np.array_equal(got, index.repeat(oh // h, 2).repeat(ow // w, 3))


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(h=st.integers(1, 5), w=st.integers(1, 5), fh=st.integers(1, 3), fw=st.integers(1, 3),
       extra=st.sampled_from([0, 0, 0, 1]), mode=st.sampled_from(MODES), nearest=st.sampled_from(NEAREST),
       scales=st.booleans(), qdq=st.booleans(), seed=st.integers(0, 2**16))
def test_the_result_is_unchanged(h, w, fh, fw, extra, mode, nearest, scales, qdq, seed):
    oh, ow = h * fh + extra, w * fw
    props = dict(method="nearest", coordinate_transformation_mode=mode, nearest_mode=nearest)
    if scales:
        props.update(scale_h=oh / h, scale_w=ow / w)
    b = GraphBuilder()
    rng = np.random.default_rng(seed)
    if qdq:
        x = b.input("x", (1, 3, h, w), np.int8)
        s, z = b.const(np.array(0.1, np.float32)), b.const(np.array(-3, np.int8))
        y = b.qnn_quantize(b.resize2d(b.qnn_dequantize(x, s, z), size=[oh, ow], **props), s, z)
        inputs = {"x": rng.integers(-128, 128, (1, 3, h, w)).astype(np.int8)}
    else:
        x = b.input("x", (1, 3, h, w))
        y = b.resize2d(x, size=[oh, ow], **props)
        inputs = {"x": rng.standard_normal((1, 3, h, w)).astype(np.float32)}
    module = b.build([y])
    assert_pass_keeps_results(ExpandNearestUpsamplings(), module, inputs)
    ops = [op for op in module.walk() if isinstance(op, relay.RelayOp)]
    rewritten = not any(isinstance(op, relay.Resize2DOp) for op in ops)
    repeat = _is_repeat(h, w, oh, ow, {k: v for k, v in props.items() if k != "method"}) and (oh, ow) != (h, w)
    assert rewritten == repeat
    if rewritten and qdq:  # the int8 data is repeated; the dequantize and quantize cancel
        assert not any(isinstance(op, (relay.QuantizeOp, relay.DequantizeOp)) for op in ops)


# --------------------------------------------------------------------------------------
# A feature-pyramid block through C
# --------------------------------------------------------------------------------------

OUTPUT = "y"


def _fpn_model(path: str) -> None:
    """conv 3x3 / 2 + relu (the coarse level), 2x nearest upsampling, plus a 1x1 lateral
    conv of the input's 3x3 conv, relu, conv 3x3 (1 x 3 x 16 x 16 -> 1 x 8 x 16 x 16)."""
    rng = np.random.default_rng(8)

    def weights(name, shape):
        return nh.from_array((rng.standard_normal(shape) * 0.3).astype(np.float32), name)

    inits = [weights("w0", [8, 3, 3, 3]), weights("b0", [8]), weights("wc", [8, 8, 3, 3]), weights("bc", [8]),
             weights("wl", [8, 8, 1, 1]), weights("bl", [8]), weights("w2", [8, 8, 3, 3]), weights("b2", [8]),
             nh.from_array(np.array([1, 1, 2, 2], np.float32), "scales")]
    nodes = [oh.make_node("Conv", ["x", "w0", "b0"], ["c0"], pads=[1, 1, 1, 1]), oh.make_node("Relu", ["c0"], ["r0"]),
             oh.make_node("Conv", ["r0", "wc", "bc"], ["cc"], pads=[1, 1, 1, 1], strides=[2, 2]),
             oh.make_node("Relu", ["cc"], ["coarse"]),
             oh.make_node("Resize", ["coarse", "", "scales"], ["up"], mode="nearest"),
             oh.make_node("Conv", ["r0", "wl", "bl"], ["lat"]), oh.make_node("Add", ["up", "lat"], ["sum"]),
             oh.make_node("Relu", ["sum"], ["rs"]), oh.make_node("Conv", ["rs", "w2", "b2"], [OUTPUT], pads=[1, 1, 1, 1])]
    save_image_model(path, nodes, inits, [1, 3, 16, 16], OUTPUT, [1, 8, 16, 16])


@pytest.fixture(scope="module")
def compiled(tmp_path_factory) -> dict[tuple[str, str], tuple[str, dict, str]]:
    d = tmp_path_factory.mktemp("fpn")
    paths = {"float": str(d / "fpn.onnx"), "int8": str(d / "fpn_int8.onnx")}
    _fpn_model(paths["float"])
    quantize_qdq(paths["float"], paths["int8"])
    # Without resize-as-matmuls as well: it would take the upsampling as products.
    return compiled_with_and_without(tmp_path_factory, paths, ("expand-nearest-upsampling", "resize-as-matmuls"))


@pytest.mark.parametrize("model", ["float", "int8"])
def test_upsampling_offloads(compiled, model):
    _, plain, _ = compiled[(model, "plain")]
    _, with_pass, _ = compiled[(model, "pass")]
    assert [r for r in plain["rejected"] if r["op"] == "relay.image.resize2d"], plain["rejected"]
    assert not [r for r in with_pass["rejected"] if r["op"] == "relay.image.resize2d"], with_pass["rejected"]
    assert len(with_pass["regions"]) < len(plain["regions"])
    if model == "float":
        assert with_pass["ops"]["host"] == 0 and len(with_pass["regions"]) == 1, with_pass["rejected"]


def test_float_model_matches_onnxruntime(compiled):
    d, _, path = compiled[("float", "pass")]
    assert_matches_onnxruntime(d, path, OUTPUT)


def test_int8_model_matches_onnxruntime_within_one_step(compiled):
    d, _, path = compiled[("int8", "pass")]
    assert_matches_onnxruntime(d, path, OUTPUT, step=output_step(onnx.load(path), OUTPUT))
