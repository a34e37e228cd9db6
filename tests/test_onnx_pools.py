"""The last vision pools: GlobalLpPool (composed: |x|^p, relay.sum over the spatial axes,
^(1/p)) and MaxRoiPool (relay.vision.roi_pool, a host C kernel) on random shapes and
attributes against onnxruntime, through the reference interpreter and through compiled C
(the npu target); f64 in C against the interpreter (onnxruntime's MaxRoiPool is f32
only); the C kernel's range checks on the rois (batch index and corners come from data:
an error code, never a read outside the input); the one-line refusals.

ONNX has no node tests of either op (onnx 1.23 builds none for MaxRoiPool or
GlobalLpPool), so onnxruntime is the oracle. MaxRoiPool is opset 1 only in onnxruntime:
the models here are opset 13.

Tolerance: float results within RTOL of the largest magnitude of onnxruntime's output
(atol = RTOL * max|want|); MaxRoiPool picks input values, so it is compared exactly.
"""

from __future__ import annotations

import numpy as np
import onnx
import pytest
from onnx import TensorProto as T
from onnx import helper as h

from accel.compiler.diagnostics import CompileError
from accel.compiler.driver import compile_to_directory
from accel.compiler.frontend.graph_inputs import GraphInputs
from accel.compiler.frontend.onnx import SUPPORTED_OPS, import_onnx_model
from accel.compiler.runtime.interpreter import run_function
from accel.compiler.runtime.run_compiled import run_directory
from e2e_util import import_error, ort_run
from test_onnx_import import make, vi

pytest.importorskip("onnxruntime")

RTOL = 1e-5
OPSET = 13  # onnxruntime 1.32 registers MaxRoiPool-1 only (none for opset 22)


def assert_close(got: dict, want: dict, exact: tuple[str, ...] = ()) -> None:
    for k, w in want.items():
        g = np.asarray(got[k])
        assert g.shape == w.shape and g.dtype == w.dtype, (k, g.shape, g.dtype, w.shape, w.dtype)
        if k in exact:
            np.testing.assert_array_equal(g, w, err_msg=k)
        else:
            np.testing.assert_allclose(g, w, rtol=RTOL, atol=RTOL * float(np.abs(w).max(initial=1.0)), err_msg=k)


def run_ort(model: onnx.ModelProto, feeds: dict, tmp_path) -> dict:
    path = str(tmp_path / "ort.onnx")
    onnx.save(model, path)
    return ort_run(path, feeds)


def run_c(model: onnx.ModelProto, feeds: dict, tmp_path, name: str = "m") -> tuple[dict, str]:
    path = str(tmp_path / f"{name}.onnx")
    onnx.save(model, path)
    out = tmp_path / f"{name}-out"
    compile_to_directory(path, "npu", str(out), inputs=GraphInputs())
    got, _ = run_directory(str(out), feeds)
    return got, (out / "model.c").read_text()


def test_the_pools_are_supported():
    assert {"GlobalLpPool", "MaxRoiPool"} <= SUPPORTED_OPS


# --------------------------------------------------------------------------------------
# Random models against onnxruntime
# --------------------------------------------------------------------------------------


def global_lp_pool_model(rng, opset: int = OPSET):
    rank = int(rng.integers(3, 6))
    shape = [int(rng.integers(1, 3)), int(rng.integers(1, 4))] + [int(v) for v in rng.integers(1, 6, rank - 2)]
    p = int(rng.integers(1, 5))
    node = h.make_node("GlobalLpPool", ["x"], ["y"], p=p)
    return make([node], [vi("x", shape)], [vi("y", None)], opset=opset), \
        {"x": rng.standard_normal(shape).astype(np.float32)}


def rois(rng, r: int, n: int, h: int, w: int, scale: float) -> np.ndarray:
    """r rois (batch index with a fraction, x1, y1, x2, y2): some past the image, some
    inverted (ends before starts), corners on halves (rounding ties) now and then."""
    lo = rng.uniform(-3, max(h, w) + 1, (r, 2)) / scale
    hi = lo + rng.uniform(-2, 10, (r, 2)) / scale
    boxes = np.concatenate([lo, hi], axis=1)
    halves = rng.integers(0, 2, boxes.shape).astype(bool)
    boxes = np.where(halves, np.round(boxes * scale * 2) / 2 / scale, boxes)
    batch = rng.integers(0, n, (r, 1)) + rng.uniform(0, 0.99, (r, 1))
    return np.concatenate([batch, boxes], axis=1).astype(np.float32)


def max_roi_pool_model(rng):
    n, c, hh, ww = int(rng.integers(1, 3)), int(rng.integers(1, 4)), int(rng.integers(2, 12)), int(rng.integers(2, 12))
    r = int(rng.integers(1, 6))
    scale = float(rng.choice([1.0, 0.5, 0.25, 0.0625]))
    pooled = [int(v) for v in rng.integers(1, 5, 2)]
    node = h.make_node("MaxRoiPool", ["x", "r"], ["y"], pooled_shape=pooled, spatial_scale=scale)
    model = make([node], [vi("x", [n, c, hh, ww]), vi("r", [r, 5])], [vi("y", None)], opset=OPSET)
    return model, {"x": rng.standard_normal((n, c, hh, ww)).astype(np.float32), "r": rois(rng, r, n, hh, ww, scale)}


@pytest.mark.parametrize("seed", range(16))
@pytest.mark.parametrize("op", ["GlobalLpPool", "MaxRoiPool"])
def test_random_models_match_onnxruntime_in_the_interpreter(op, seed, tmp_path):
    rng = np.random.default_rng(7000 + 100 * (op == "MaxRoiPool") + seed)
    model, feeds = (global_lp_pool_model if op == "GlobalLpPool" else max_roi_pool_model)(rng)
    want = run_ort(model, feeds, tmp_path)
    assert_close(run_function(import_onnx_model(model), feeds), want, exact=("y",) if op == "MaxRoiPool" else ())


@pytest.mark.parametrize("p", [1, 2, 3, 5])
def test_global_lp_pool_of_an_old_opset_against_the_formula(p):
    """An opset-8 model (converted to 13 on import) against ONNX's formula in f64."""
    node = h.make_node("GlobalLpPool", ["x"], ["y"], p=p)
    model = make([node], [vi("x", [2, 3, 4, 5])], [vi("y", None)], opset=8)
    x = np.random.default_rng(p).standard_normal((2, 3, 4, 5)).astype(np.float32)
    want = np.power(np.sum(np.power(np.abs(x.astype(np.float64)), p), axis=(2, 3), keepdims=True), 1 / p)
    got = run_function(import_onnx_model(model), {"x": x})["y"]
    assert got.dtype == np.float32 and got.shape == (2, 3, 1, 1)
    np.testing.assert_allclose(got, want, rtol=RTOL, atol=RTOL * np.abs(want).max())


def every_op_model(rng):
    """MaxRoiPool on a feature map and on its GlobalLpPool-weighted version (p drawn)."""
    n, c, size = 2, 3, int(rng.integers(6, 12))
    scale = float(rng.choice([1.0, 0.5]))
    nodes = [
        h.make_node("GlobalLpPool", ["x"], ["g"], p=int(rng.integers(1, 5))),
        h.make_node("Mul", ["x", "g"], ["xg"]),
        h.make_node("MaxRoiPool", ["x", "r"], ["y"], pooled_shape=[int(v) for v in rng.integers(1, 5, 2)],
                    spatial_scale=scale),
        h.make_node("MaxRoiPool", ["xg", "r"], ["yg"], pooled_shape=[2, 3], spatial_scale=scale),
        h.make_node("GlobalLpPool", ["x3"], ["g3"], p=int(rng.integers(1, 5))),
    ]
    feeds = {"x": rng.standard_normal((n, c, size, size)).astype(np.float32), "r": rois(rng, 6, n, size, size, scale),
             "x3": rng.standard_normal((1, 2, 5)).astype(np.float32)}
    model = make(nodes, [vi("x", [n, c, size, size]), vi("r", [6, 5]), vi("x3", [1, 2, 5])],
                 [vi(o, None) for o in ("g", "y", "yg", "g3")], opset=OPSET)
    return model, feeds


@pytest.mark.parametrize("seed", range(4))
def test_the_pools_run_in_c_and_match_onnxruntime(seed, tmp_path):
    model, feeds = every_op_model(np.random.default_rng(seed))
    want = run_ort(model, feeds, tmp_path)
    assert_close(run_function(import_onnx_model(model), feeds), want, exact=("y",))
    got, source = run_c(model, feeds, tmp_path)
    assert_close(got, want, exact=("y",))
    assert "acc_roi_pool_f32(" in source


def test_max_roi_pool_of_non_finite_values_follows_onnxruntime(tmp_path):
    """onnxruntime's loop: a value replaces the bin's running value unless it is <= it,
    from the lowest finite float: -inf never wins, a NaN does until a later number; a
    bin clipped to nothing is 0. Interpreter, C and onnxruntime alike."""
    x = np.arange(2 * 16, dtype=np.float32).reshape(2, 1, 4, 4)
    x[0, 0, :2, :2] = np.nan
    x[0, 0, 2:, :2] = -np.inf
    x[1, 0, 0, 0] = np.inf
    r = np.array([[0, 0, 0, 1, 1], [0, 0, 2, 1, 3], [0, 0, 0, 3, 3], [1.5, 0, 0, 1, 1], [0, 9, 9, 12, 12],
                  [0, -8, -8, -6, -6]], np.float32)
    node = h.make_node("MaxRoiPool", ["x", "r"], ["y"], pooled_shape=[2, 2])
    model = make([node], [vi("x", [2, 1, 4, 4]), vi("r", [6, 5])], [vi("y", None)], opset=OPSET)
    feeds = {"x": x, "r": r}
    want = run_ort(model, feeds, tmp_path)
    assert np.isnan(want["y"][0, 0, 0, 0]) and want["y"][1, 0, 0, 0] == np.finfo(np.float32).min
    assert want["y"][4].sum() == 0
    assert_close(run_function(import_onnx_model(model), feeds), want, exact=("y",))
    assert_close(run_c(model, feeds, tmp_path)[0], want, exact=("y",))


def test_f64_pools_in_c_match_the_interpreter(tmp_path):
    """onnxruntime runs neither in f64: the C kernel's f64 instance against the
    interpreter (bin bounds in f64 there)."""
    rng = np.random.default_rng(3)
    nodes = [h.make_node("MaxRoiPool", ["x", "r"], ["y"], pooled_shape=[3, 2], spatial_scale=0.5),
             h.make_node("GlobalLpPool", ["x"], ["g"], p=3)]
    model = make(nodes, [vi("x", [2, 2, 9, 7], T.DOUBLE), vi("r", [5, 5], T.DOUBLE)],
                 [vi("y", None, T.DOUBLE), vi("g", None, T.DOUBLE)], opset=OPSET)
    feeds = {"x": rng.standard_normal((2, 2, 9, 7)), "r": rois(rng, 5, 2, 9, 7, 0.5).astype(np.float64)}
    want = run_function(import_onnx_model(model), feeds)
    got, source = run_c(model, feeds, tmp_path)
    assert want["y"].dtype == np.float64 and "acc_roi_pool_f64(" in source
    np.testing.assert_array_equal(got["y"], want["y"])
    np.testing.assert_allclose(got["g"], want["g"], rtol=1e-12)


def test_f16_pools_in_c_match_the_interpreter(tmp_path):
    """f16 (ONNX allows it; onnxruntime has f32 only): the host kernel runs on the
    values widened to f32, as the interpreter computes f16 (bin bounds in f32)."""
    rng = np.random.default_rng(4)
    nodes = [h.make_node("MaxRoiPool", ["x", "r"], ["y"], pooled_shape=[2, 3], spatial_scale=0.5),
             h.make_node("GlobalLpPool", ["x"], ["g"], p=3)]
    model = make(nodes, [vi("x", [2, 2, 8, 8], T.FLOAT16), vi("r", [4, 5], T.FLOAT16)],
                 [vi("y", None, T.FLOAT16), vi("g", None, T.FLOAT16)], opset=OPSET)
    feeds = {"x": rng.standard_normal((2, 2, 8, 8)).astype(np.float16),
             "r": rois(rng, 4, 2, 8, 8, 0.5).astype(np.float16)}
    want = run_function(import_onnx_model(model), feeds)
    got, source = run_c(model, feeds, tmp_path)
    assert want["y"].dtype == np.float16 and "acc_roi_pool_f32(" in source
    np.testing.assert_array_equal(got["y"], want["y"])
    np.testing.assert_allclose(got["g"].astype(np.float32), want["g"].astype(np.float32), rtol=2**-9)


# --------------------------------------------------------------------------------------
# The rois come from data: range-checked (an error, never a read outside the input)
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize("bad", [[2.0, 0, 0, 1, 1], [-1.0, 0, 0, 1, 1], [np.nan, 0, 0, 1, 1], [0, 0, np.inf, 1, 1],
                                 [0, 0, 0, 3e7, 1], [0, np.nan, 0, 1, 1]])
def test_rois_out_of_range_are_errors_in_the_interpreter_and_c(bad, tmp_path):
    node = h.make_node("MaxRoiPool", ["x", "r"], ["y"], pooled_shape=[2, 2])
    model = make([node], [vi("x", [2, 1, 4, 4]), vi("r", [2, 5])], [vi("y", None)], opset=OPSET)
    feeds = {"x": np.ones((2, 1, 4, 4), np.float32), "r": np.array([[1, 0, 0, 2, 2], bad], np.float32)}
    with pytest.raises(CompileError, match="out of range"):
        run_function(import_onnx_model(model), feeds)
    path = str(tmp_path / "m.onnx")
    onnx.save(model, path)
    compile_to_directory(path, "npu", str(tmp_path / "out"), inputs=GraphInputs())
    with pytest.raises(CompileError, match=r"relay\.vision\.roi_pool at y failed: index out of range"):
        run_directory(str(tmp_path / "out"), feeds)


def test_a_batch_index_truncates_toward_zero(tmp_path):
    """-0.5 and 1.99 are images 0 and 1 (onnxruntime's static_cast<int>)."""
    x = np.stack([np.zeros((1, 3, 3)), np.ones((1, 3, 3))]).astype(np.float32)
    node = h.make_node("MaxRoiPool", ["x", "r"], ["y"], pooled_shape=[1, 1])
    model = make([node], [vi("x", [2, 1, 3, 3]), vi("r", [2, 5])], [vi("y", None)], opset=OPSET)
    feeds = {"x": x, "r": np.array([[-0.5, 0, 0, 2, 2], [1.99, 0, 0, 2, 2]], np.float32)}
    want = run_ort(model, feeds, tmp_path)
    np.testing.assert_array_equal(want["y"].reshape(-1), [0, 1])
    assert_close(run_function(import_onnx_model(model), feeds), want, exact=("y",))
    assert_close(run_c(model, feeds, tmp_path)[0], want, exact=("y",))


# --------------------------------------------------------------------------------------
# Found by the fuzzer
# --------------------------------------------------------------------------------------


def test_roi_align_max_of_zero_weights_is_a_positive_zero_in_c_and_the_interpreter(tmp_path):
    """`accel-fuzz --kinds new --seed 102 --start 1272`: RoiAlign's max of samples whose
    weights are all 0 on negative values was -0.0 in C and +0.0 in the interpreter (which
    of +-0 wins a max is the order's), seen through a BitCast of the result. Both make
    the zero positive now."""
    node = h.make_node("RoiAlign", ["x", "r", "b"], ["y"], mode="max", output_height=2, output_width=2,
                       coordinate_transformation_mode="output_half_pixel")
    cast = h.make_node("BitCast", ["y"], ["bits"], to=T.INT32)
    model = make([node, cast], [vi("x", [1, 1, 4, 4]), vi("r", [2, 4]), vi("b", [2], T.INT64)],
                 [vi("y", None), vi("bits", None, T.INT32)], opset=26)
    feeds = {"x": -np.ones((1, 1, 4, 4), np.float32), "r": np.array([[20, 20, 24, 24], [-9, -9, -7, -7]], np.float32),
             "b": np.zeros(2, np.int64)}
    want = run_function(import_onnx_model(model), feeds)
    assert not np.signbit(want["y"]).any() and not want["bits"].any()
    got, _ = run_c(model, feeds, tmp_path)
    np.testing.assert_array_equal(got["bits"], want["bits"])


# --------------------------------------------------------------------------------------
# Refusals: one line naming the node
# --------------------------------------------------------------------------------------


def _one(op, inputs, opset=OPSET, **attrs):
    return make([h.make_node(op, [i.name for i in inputs], ["y"], name="the_node", **attrs)], inputs,
                [vi("y", None)], opset=opset)


REFUSALS = {
    "lp_p0": (lambda: _one("GlobalLpPool", [vi("x", [1, 1, 4, 4])], p=0), "p = 0 is not supported"),
    "lp_p_negative": (lambda: _one("GlobalLpPool", [vi("x", [1, 1, 4, 4])], p=-2), "p = -2 is not supported"),
    "lp_rank2": (lambda: _one("GlobalLpPool", [vi("x", [3, 4])]), "the input must have rank >= 3, got 2"),
    "lp_int": (lambda: _one("GlobalLpPool", [vi("x", [1, 1, 4], T.INT32)]), "must be a float tensor"),
    "roi_pool_rois": (lambda: _one("MaxRoiPool", [vi("x", [1, 1, 4, 4]), vi("r", [2, 4])], pooled_shape=[2, 2]),
                      "rois [2, 4] must be [R, 5]"),
    "roi_pool_no_shape": (lambda: _one("MaxRoiPool", [vi("x", [1, 1, 4, 4]), vi("r", [2, 5])]),
                          "pooled_shape None must be two positive extents"),
    "roi_pool_zero": (lambda: _one("MaxRoiPool", [vi("x", [1, 1, 4, 4]), vi("r", [2, 5])], pooled_shape=[0, 2]),
                      "pooled_shape [0, 2] must be two positive extents"),
    "roi_pool_rank": (lambda: _one("MaxRoiPool", [vi("x", [1, 4, 4]), vi("r", [2, 5])], pooled_shape=[1, 1]),
                      "the input must be NCHW (rank 4), got rank 3"),
    "roi_pool_types": (lambda: _one("MaxRoiPool", [vi("x", [1, 1, 4, 4]), vi("r", [2, 5], T.DOUBLE)],
                                    pooled_shape=[1, 1]), "the rois' type float64 must be the input's (float32)"),
}


@pytest.mark.parametrize("name", REFUSALS)
def test_refusals_are_one_line_naming_the_node(name):
    factory, text = REFUSALS[name]
    msg = import_error(factory())
    assert "the_node" in msg and text in msg, msg
