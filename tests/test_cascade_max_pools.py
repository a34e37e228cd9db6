"""cascade-max-pools: stride-1 max pools larger than the npu's windows as cascades of
smaller ones.

- `axis_windows` on every window, padding and limit: the cascade grows by k - 1 and pads
  as the original, each pool's padding smaller than its window;
- the pass on random pools (hypothesis; float and int8, any padding smaller than the
  window): the interpreter's result is unchanged, bit for bit, and every pool left runs on
  the npu (windows of at most 3x3);
- a YOLO-style neck (SPPF: three 5x5 max pools, concatenated; then a 1x1 conv), float and
  int8 (QDQ), compiled for the npu, against onnxruntime: the pools offload.
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
from accel.compiler.transforms.cascade_max_pools import CascadeMaxPools, axis_windows
from accel.dialects import relay
from e2e_util import (assert_matches_onnxruntime, assert_pass_keeps_results, compiled_with_and_without, output_step,
                      quantize_qdq, save_image_model)

NPU_WINDOW = 3


def test_axis_windows_make_the_window():
    for k in range(1, 16):
        for limit in (2, 3, 5):
            pools = max(1, -(-(k - 1) // (limit - 1)))
            for before in range(k):
                for after in range(k):
                    windows = axis_windows(k, before, after, pools, limit)
                    assert windows is not None and len(windows) == pools
                    assert sum(w - 1 for w, _, _ in windows) == k - 1
                    assert sum(b for _, b, _ in windows) == before and sum(a for _, _, a in windows) == after
                    assert all(1 <= w <= limit and b < w and a < w for w, b, a in windows)
            assert axis_windows(k, 0, 0, pools - 1, limit) is None or k == 1


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(kh=st.integers(1, 9), kw=st.integers(1, 9), h=st.integers(1, 12), w=st.integers(1, 12),
       data=st.data(), int8=st.booleans(), seed=st.integers(0, 2**16))
def test_the_result_is_unchanged(kh, kw, h, w, data, int8, seed):
    pads = [data.draw(st.integers(0, k - 1)) for k in (kh, kw, kh, kw)]
    if h + pads[0] + pads[2] < kh or w + pads[1] + pads[3] < kw:
        return
    dtype = np.int8 if int8 else np.float32
    b = GraphBuilder()
    x = b.input("x", (1, 3, h, w), dtype)
    y = b.max_pool2d(x, pool_size=[kh, kw], padding=pads)
    module = b.build([y])
    rng = np.random.default_rng(seed)
    inputs = {"x": rng.integers(-128, 128, (1, 3, h, w)).astype(np.int8) if int8
              else rng.standard_normal((1, 3, h, w)).astype(np.float32)}
    assert_pass_keeps_results(CascadeMaxPools(), module, inputs)
    pools = [op for op in module.walk() if isinstance(op, relay.MaxPool2DOp)]
    assert all(max(p.prop("pool_size")) <= NPU_WINDOW for p in pools)
    assert len(pools) == (1 if max(kh, kw) <= NPU_WINDOW else -(-(max(kh, kw) - 1) // (NPU_WINDOW - 1)))


# --------------------------------------------------------------------------------------
# A YOLO-style neck through C
# --------------------------------------------------------------------------------------

OUTPUT = "y"


def _sppf_model(path: str) -> None:
    """conv 3x3 / 2 + relu, SPPF (three chained 5x5 max pools, stride 1, padding 2, with
    their input concatenated), conv 1x1 (1 x 3 x 32 x 32 -> 1 x 8 x 16 x 16)."""
    rng = np.random.default_rng(5)

    def weights(name, shape):
        return nh.from_array((rng.standard_normal(shape) * 0.3).astype(np.float32), name)

    inits = [weights("w0", [8, 3, 3, 3]), weights("b0", [8]), weights("w1", [8, 32, 1, 1]), weights("b1", [8])]
    pool = dict(kernel_shape=[5, 5], pads=[2, 2, 2, 2])
    nodes = [oh.make_node("Conv", ["x", "w0", "b0"], ["c0"], pads=[1, 1, 1, 1], strides=[2, 2]),
             oh.make_node("Relu", ["c0"], ["r0"]), oh.make_node("MaxPool", ["r0"], ["m1"], **pool),
             oh.make_node("MaxPool", ["m1"], ["m2"], **pool), oh.make_node("MaxPool", ["m2"], ["m3"], **pool),
             oh.make_node("Concat", ["r0", "m1", "m2", "m3"], ["cat"], axis=1),
             oh.make_node("Conv", ["cat", "w1", "b1"], [OUTPUT])]
    save_image_model(path, nodes, inits, [1, 3, 32, 32], OUTPUT, [1, 8, 16, 16])


@pytest.fixture(scope="module")
def compiled(tmp_path_factory) -> dict[tuple[str, str], tuple[str, dict, str]]:
    d = tmp_path_factory.mktemp("sppf")
    paths = {"float": str(d / "sppf.onnx"), "int8": str(d / "sppf_int8.onnx")}
    _sppf_model(paths["float"])
    quantize_qdq(paths["float"], paths["int8"])
    return compiled_with_and_without(tmp_path_factory, paths, "cascade-max-pools")


@pytest.mark.parametrize("model", ["float", "int8"])
def test_pools_offload(compiled, model):
    _, plain, _ = compiled[(model, "plain")]
    _, with_pass, _ = compiled[(model, "pass")]
    assert len([r for r in plain["rejected"] if r["op"] == "relay.nn.max_pool2d"]) == 3, plain["rejected"]
    assert not [r for r in with_pass["rejected"] if "pool" in r["op"]], with_pass["rejected"]
    assert with_pass["ops"]["offloaded"] > plain["ops"]["offloaded"]
    if model == "float":
        assert with_pass["ops"]["host"] == 0 and len(with_pass["regions"]) == 1, with_pass["rejected"]


def test_float_model_matches_onnxruntime(compiled):
    d, _, path = compiled[("float", "pass")]
    assert_matches_onnxruntime(d, path, OUTPUT)


def test_int8_model_matches_onnxruntime_within_one_step(compiled):
    d, _, path = compiled[("int8", "pass")]
    assert_matches_onnxruntime(d, path, OUTPUT, step=output_step(onnx.load(path), OUTPUT))
