"""The vision ops of compiler/frontend/onnx/ops_vision.py (LpPool, CenterCropPad,
AffineGrid, Col2Im composed from relay ops; GridSample, RoiAlign, MaxUnpool as relay ops
with host C kernels) on random shapes and attributes, against onnxruntime: through the
reference interpreter, and through compiled C (one model of every op per seed, built
for the npu target). Plus the one-line refusals, and the C kernels' range checks on
indices that come from data.

Tolerance: float results within RTOL of the largest magnitude of onnxruntime's output
(atol = RTOL * max|want|); shapes and dtypes exactly.
"""

from __future__ import annotations

import numpy as np
import onnx
import pytest
from onnx import TensorProto as T
from onnx import helper as h
from onnx.reference import ReferenceEvaluator

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
OPSET = 21  # onnxruntime 1.32 has no RoiAlign-22 (22 adds bfloat16 only)
VISION = ("LpPool", "CenterCropPad", "AffineGrid", "Col2Im", "GridSample", "RoiAlign", "MaxUnpool", "DeformConv")


def assert_close(got: dict, want: dict, rtol: float = RTOL) -> None:
    assert set(got) >= set(want)
    for k, w in want.items():
        g = np.asarray(got[k])
        assert g.shape == w.shape and g.dtype == w.dtype, (k, g.shape, g.dtype, w.shape, w.dtype)
        np.testing.assert_allclose(g, w, rtol=rtol, atol=rtol * float(np.abs(w).max(initial=1.0)), err_msg=k)


def ort(model: onnx.ModelProto, feeds: dict, tmp_path) -> dict:
    path = str(tmp_path / "ort.onnx")
    onnx.save(model, path)
    return ort_run(path, feeds)


def test_the_vision_ops_are_supported():
    assert set(VISION) <= SUPPORTED_OPS


# --------------------------------------------------------------------------------------
# Random single-op models against onnxruntime, through the interpreter
# --------------------------------------------------------------------------------------


def lp_pool_model(rng):
    d = int(rng.integers(1, 4))
    spatial = [int(s) for s in rng.integers(5, 9 if d < 3 else 7, d)]
    kernel = [int(k) for k in rng.integers(1, 4, d)]
    attrs = dict(kernel_shape=kernel, p=int(rng.choice([1, 2, 3])), strides=[int(s) for s in rng.integers(1, 3, d)])
    if rng.random() < 0.5:
        attrs["pads"] = [int(rng.integers(0, k)) for k in kernel] * 2
    elif rng.random() < 0.5:
        attrs["auto_pad"] = str(rng.choice(["SAME_UPPER", "SAME_LOWER", "VALID"]))
    if d == 2 and "auto_pad" not in attrs and rng.random() < 0.5:
        attrs["dilations"] = [int(x) for x in rng.integers(1, 3, d)]
    shape = [int(rng.integers(1, 3)), int(rng.integers(1, 4)), *spatial]
    node = h.make_node("LpPool", ["x"], ["y"], **attrs)
    return make([node], [vi("x", shape)], [vi("y", None)], opset=OPSET), {"x": f32(rng, shape)}


def center_crop_pad_model(rng):
    rank = int(rng.integers(2, 5))
    shape = [int(s) for s in rng.integers(1, 9, rank)]
    axes = sorted(rng.choice(rank, int(rng.integers(1, rank + 1)), replace=False).tolist())
    want = [int(rng.integers(1, 12)) for _ in axes]
    signed = [a - rank if rng.random() < 0.3 else a for a in axes]
    node = h.make_node("CenterCropPad", ["x", "s"], ["y"], axes=signed)
    model = make([node], [vi("x", shape)], [vi("y", None)], [("s", np.array(want, np.int64))], opset=OPSET)
    return model, {"x": f32(rng, shape)}


def affine_grid_model(rng):
    d = int(rng.choice([2, 3]))
    align = int(rng.integers(0, 2))
    # An axis of one cell with align_corners: onnxruntime puts it at +1, ONNX's reference
    # and torch at -1 (test_affine_grid_single_cell_axis).
    size = [int(rng.integers(1, 3)), 1, *(int(s) for s in rng.integers(1 + align, 6, d))]
    node = h.make_node("AffineGrid", ["theta", "size"], ["y"], align_corners=align)
    theta = f32(rng, (size[0], d, d + 1))
    return make([node], [vi("theta", theta.shape)], [vi("y", None)], [("size", np.array(size, np.int64))],
                opset=OPSET), {"theta": theta}


def col2im_model(rng):
    d = 2
    blocks = [0]
    while min(blocks) < 1:
        image = [int(s) for s in rng.integers(3, 8, d)]
        block = [int(k) for k in rng.integers(1, 4, d)]
        strides = [int(s) for s in rng.integers(1, 3, d)]
        dil = [int(x) for x in rng.integers(1, 3, d)]
        pads = [int(p) for p in rng.integers(0, 2, 2 * d)]
        blocks = [(i + pads[a] + pads[a + d] - dl * (k - 1) - 1) // s + 1
                  for a, (i, k, s, dl) in enumerate(zip(image, block, strides, dil))]
    c = int(rng.integers(1, 3))
    shape = [int(rng.integers(1, 3)), c * int(np.prod(block)), int(np.prod(blocks))]
    node = h.make_node("Col2Im", ["x", "image", "block"], ["y"], strides=strides, dilations=dil, pads=pads)
    inits = [("image", np.array(image, np.int64)), ("block", np.array(block, np.int64))]
    return make([node], [vi("x", shape)], [vi("y", None)], inits, opset=OPSET), {"x": f32(rng, shape)}


def grid_sample_model(rng):
    d = int(rng.choice([2, 2, 3]))
    mode = str(rng.choice(["linear", "nearest", "cubic"] if d == 2 else ["linear", "nearest"]))
    x_shape = [int(rng.integers(1, 3)), int(rng.integers(1, 4)), *(int(s) for s in rng.integers(1, 7, d))]
    g_shape = [x_shape[0], *(int(s) for s in rng.integers(1, 6, d)), d]
    node = h.make_node("GridSample", ["x", "g"], ["y"], mode=mode, align_corners=int(rng.integers(0, 2)),
                       padding_mode=str(rng.choice(["zeros", "border", "reflection"])))
    grid = rng.uniform(-1.6, 1.6, g_shape).astype(np.float32)
    return make([node], [vi("x", x_shape), vi("g", g_shape)], [vi("y", None)], opset=OPSET), \
        {"x": f32(rng, x_shape), "g": grid}


def roi_align_model(rng):
    n, c, hh, ww = int(rng.integers(1, 3)), int(rng.integers(1, 4)), int(rng.integers(4, 12)), int(rng.integers(4, 12))
    r = int(rng.integers(1, 5))
    lo = rng.uniform(-2, max(hh, ww), (r, 2))
    rois = np.concatenate([lo, lo + rng.uniform(0.5, 10, (r, 2))], axis=1).astype(np.float32)
    attrs = dict(mode=str(rng.choice(["avg", "max"])), output_height=int(rng.integers(1, 4)),
                 output_width=int(rng.integers(1, 4)), sampling_ratio=int(rng.integers(0, 3)),
                 spatial_scale=float(rng.choice([1.0, 0.5, 0.25])),
                 coordinate_transformation_mode=str(rng.choice(["half_pixel", "output_half_pixel"])))
    node = h.make_node("RoiAlign", ["x", "rois", "b"], ["y"], **attrs)
    batch = rng.integers(0, n, r).astype(np.int64)
    model = make([node], [vi("x", [n, c, hh, ww]), vi("rois", [r, 4]), vi("b", [r], T.INT64)], [vi("y", None)],
                 opset=OPSET)
    return model, {"x": f32(rng, (n, c, hh, ww)), "rois": rois, "b": batch}


def max_unpool_model(rng):
    """A MaxPool's output and indices unpooled (the indices are ONNX MaxPool's). The
    pooled extents divide by the window: else the indices reach past the unpooled
    shape, which only an output_shape makes room for, and there ONNX's reference and
    onnxruntime disagree (test_max_unpool_output_shape_follows_onnx_reference)."""
    d = int(rng.integers(1, 3))
    k = int(rng.integers(2, 4))
    shape = [int(rng.integers(1, 3)), int(rng.integers(1, 3)), *(k * int(s) for s in rng.integers(1, 4, d))]
    pool = h.make_node("MaxPool", ["x"], ["p", "i"], kernel_shape=[k] * d, strides=[k] * d)
    unpool = h.make_node("MaxUnpool", ["p", "i"], ["y"], kernel_shape=[k] * d, strides=[k] * d)
    return make([pool, unpool], [vi("x", shape)], [vi("y", None)], opset=OPSET), {"x": f32(rng, shape)}


def deform_conv_model(rng):
    group, og = int(rng.integers(1, 3)), int(rng.integers(1, 3))
    ic, oc = group * og * int(rng.integers(1, 3)), group * int(rng.integers(1, 3))
    kh, kw = (int(v) for v in rng.integers(1, 4, 2))
    strides, dil = [int(v) for v in rng.integers(1, 3, 2)], [int(v) for v in rng.integers(1, 3, 2)]
    pads = [int(v) for v in rng.integers(0, 2, 4)]
    nb, ih, iw = int(rng.integers(1, 3)), int(rng.integers(5, 9)), int(rng.integers(5, 9))
    oh = (ih + pads[0] + pads[2] - dil[0] * (kh - 1) - 1) // strides[0] + 1
    ow = (iw + pads[1] + pads[3] - dil[1] * (kw - 1) - 1) // strides[1] + 1
    k = kh * kw
    feeds = {"x": f32(rng, (nb, ic, ih, iw)), "w": f32(rng, (oc, ic // group, kh, kw)),
             "off": 2 * f32(rng, (nb, og * k * 2, oh, ow)), "b": f32(rng, (oc,)),
             "m": rng.uniform(0, 1, (nb, og * k, oh, ow)).astype(np.float32)}
    node = h.make_node("DeformConv", list(feeds), ["y"], group=group, offset_group=og, kernel_shape=[kh, kw],
                       strides=strides, dilations=dil, pads=pads)
    return make([node], [vi(nm, list(v.shape)) for nm, v in feeds.items()], [vi("y", None)], opset=OPSET), feeds


def f32(rng, shape) -> np.ndarray:
    return rng.standard_normal(shape).astype(np.float32)


MODELS = {"LpPool": lp_pool_model, "CenterCropPad": center_crop_pad_model, "AffineGrid": affine_grid_model,
          "Col2Im": col2im_model, "GridSample": grid_sample_model, "RoiAlign": roi_align_model,
          "MaxUnpool": max_unpool_model, "DeformConv": deform_conv_model}


@pytest.mark.parametrize("seed", range(12))
@pytest.mark.parametrize("op", VISION)
def test_random_models_match_onnxruntime_in_the_interpreter(op, seed, tmp_path):
    rng = np.random.default_rng(1000 * VISION.index(op) + seed)
    model, feeds = MODELS[op](rng)
    got = run_function(import_onnx_model(model), feeds)
    assert_close(got, ort(model, feeds, tmp_path))


# --------------------------------------------------------------------------------------
# Through C: one model of every op per seed, compiled for the npu
# --------------------------------------------------------------------------------------


def every_op_model(rng):
    """A spatial transformer (AffineGrid -> GridSample) whose image is LpPool'ed and
    center-cropped, RoiAlign on it, Col2Im of patches, MaxUnpool of a MaxPool, a
    DeformConv of three offset groups."""
    n, c = 2, 3
    size = int(rng.integers(7, 11))
    mode = str(rng.choice(["linear", "nearest", "cubic"]))
    padding = str(rng.choice(["zeros", "border", "reflection"]))
    align = int(rng.integers(0, 2))
    k = int(rng.integers(2, 4))
    nodes = [
        h.make_node("LpPool", ["x"], ["lp"], kernel_shape=[3, 3], p=int(rng.choice([2, 3])), pads=[1, 1, 1, 1]),
        h.make_node("CenterCropPad", ["lp", "crop"], ["cc"], axes=[2, 3]),
        h.make_node("AffineGrid", ["theta", "size"], ["grid"], align_corners=align),
        h.make_node("GridSample", ["cc", "grid"], ["gs"], mode=mode, padding_mode=padding, align_corners=align),
        h.make_node("RoiAlign", ["x", "rois", "b"], ["ra"], output_height=2, output_width=3,
                    mode=str(rng.choice(["avg", "max"])), sampling_ratio=int(rng.integers(0, 3)), spatial_scale=0.5),
        h.make_node("Col2Im", ["cols", "image", "block"], ["im"], strides=[2, 1], pads=[1, 0, 1, 1]),
        h.make_node("MaxPool", ["x"], ["mp", "mi"], kernel_shape=[k, k], strides=[k, k]),
        h.make_node("MaxUnpool", ["mp", "mi"], ["mu"], kernel_shape=[k, k], strides=[k, k]),
        h.make_node("DeformConv", ["x", "dw", "off", "db"], ["dc"], kernel_shape=[3, 3], pads=[1, 1, 1, 1],
                    offset_group=3),
    ]
    crop = np.array([size - 1, size + 2], np.int64)
    inits = [("crop", crop), ("size", np.array([n, c, 5, 6], np.int64)), ("image", np.array([6, 5], np.int64)),
             ("block", np.array([2, 3], np.int64)), ("dw", f32(rng, (4, 3, 3, 3))), ("db", f32(rng, (4,)))]
    theta = (np.tile(np.array([[1, 0, 0], [0, 1, 0]], np.float32), (n, 1, 1))
             + 0.3 * rng.standard_normal((n, 2, 3))).astype(np.float32)
    lo = rng.uniform(0, 2 * size - 4, (4, 2))
    rois = np.concatenate([lo, lo + rng.uniform(1, 8, (4, 2))], axis=1).astype(np.float32)
    blocks = ((6 + 2 - 2) // 2 + 1) * ((5 + 1 - 3) // 1 + 1)
    feeds = {"x": f32(rng, (n, c, size, size)), "theta": theta, "rois": rois,
             "b": rng.integers(0, n, 4).astype(np.int64), "cols": f32(rng, (n, c * 6, blocks)),
             "off": 1.5 * f32(rng, (n, 3 * 9 * 2, size, size))}
    inputs = [vi(name, list(v.shape), T.INT64 if v.dtype == np.int64 else T.FLOAT) for name, v in feeds.items()]
    outs = [vi(o, None) for o in ("gs", "ra", "im", "mu", "dc")]
    return make(nodes, inputs, outs, inits, opset=OPSET), feeds


@pytest.mark.parametrize("seed", range(3))
def test_every_vision_op_runs_in_c_and_matches_onnxruntime(seed, tmp_path):
    model, feeds = every_op_model(np.random.default_rng(seed))
    path = str(tmp_path / "vision.onnx")
    onnx.save(model, path)
    want = ort_run(path, feeds)
    assert_close(run_function(import_onnx_model(model), feeds), want)
    compile_to_directory(path, "npu", str(tmp_path / "out"), inputs=GraphInputs())
    got, _ = run_directory(str(tmp_path / "out"), feeds)
    assert_close(got, want)
    source = (tmp_path / "out" / "model.c").read_text()
    for kernel in ("acc_grid_sample_f32", "acc_roi_align_f32", "acc_max_unpool"):
        assert kernel in source


def test_affine_grid_single_cell_axis():
    """An axis of one cell with align_corners sits at -1 (ONNX's reference, torch's
    linspace(-1, 1, 1)); onnxruntime 1.32 puts it at +1."""
    node = h.make_node("AffineGrid", ["t", "s"], ["y"], align_corners=1)
    model = make([node], [vi("t", [1, 2, 3])], [vi("y", None)], [("s", np.array([1, 1, 1, 3], np.int64))],
                 opset=OPSET)
    theta = np.array([[[1, 0, 0], [0, 1, 0]]], np.float32)
    got = run_function(import_onnx_model(model), {"t": theta})["y"]
    np.testing.assert_array_equal(got, ReferenceEvaluator(model).run(None, {"t": theta})[0])
    np.testing.assert_array_equal(got[0, 0, :, 1], [-1, -1, -1])


def test_max_unpool_output_shape_follows_onnx_reference(tmp_path):
    """A larger output_shape: ONNX's reference (and its node test) unpools into the
    inferred shape and pads at the end; onnxruntime indexes the larger shape instead."""
    x = np.array([[[[5.0, 6.0], [7.0, 8.0]]]], np.float32)
    i = np.array([[[[5, 7], [13, 15]]]], np.int64)
    node = h.make_node("MaxUnpool", ["x", "i", "shape"], ["y"], kernel_shape=[2, 2], strides=[2, 2])
    model = make([node], [vi("x", [1, 1, 2, 2]), vi("i", [1, 1, 2, 2], T.INT64)], [vi("y", None)],
                 [("shape", np.array([1, 1, 5, 5], np.int64))], opset=OPSET)
    want = ReferenceEvaluator(model).run(None, {"x": x, "i": i})[0]
    got = run_function(import_onnx_model(model), {"x": x, "i": i})["y"]
    np.testing.assert_array_equal(got, want)
    assert got[0, 0, 1, 1] == 5.0 and got[0, 0, 4].sum() == 0


# --------------------------------------------------------------------------------------
# Indices from data: range-checked in C (an error code, never an access out of bounds)
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize("case", ["max_unpool", "roi_align"])
def test_indices_out_of_range_are_errors_in_c(case, tmp_path):
    if case == "max_unpool":
        node = h.make_node("MaxUnpool", ["x", "i"], ["y"], kernel_shape=[2, 2], strides=[2, 2])
        inputs = [vi("x", [1, 1, 2, 2]), vi("i", [1, 1, 2, 2], T.INT64)]
        feeds = {"x": np.ones((1, 1, 2, 2), np.float32), "i": np.array([[[[0, 3], [16, 5]]]], np.int64)}
    else:
        node = h.make_node("RoiAlign", ["x", "r", "i"], ["y"])
        inputs = [vi("x", [2, 1, 4, 4]), vi("r", [2, 4]), vi("i", [2], T.INT64)]
        feeds = {"x": np.ones((2, 1, 4, 4), np.float32), "r": np.ones((2, 4), np.float32),
                 "i": np.array([1, 2], np.int64)}
    model = make([node], inputs, [vi("y", None)], opset=OPSET)
    path = str(tmp_path / "m.onnx")
    onnx.save(model, path)
    with pytest.raises(Exception, match="out of range"):
        run_function(import_onnx_model(model), feeds)
    compile_to_directory(path, "npu", str(tmp_path / "out"), inputs=GraphInputs())
    failed = r"relay\.(nn\.max_unpool|vision\.roi_align) at y failed: index out of range"
    with pytest.raises(CompileError, match=failed):
        run_directory(str(tmp_path / "out"), feeds)


def test_grid_sample_of_non_finite_grids_stays_inside_in_c(tmp_path):
    """NaN and infinite grid coordinates read inside the input (clamped before they
    index), in C as in the interpreter."""
    grid = np.array([[[[np.nan, 0.0], [np.inf, -np.inf], [1e30, -1e30], [0.5, np.nan]]]], np.float32)
    x = np.arange(12, dtype=np.float32).reshape(1, 1, 3, 4)
    outs = {}
    for padding in ("zeros", "border", "reflection"):
        node = h.make_node("GridSample", ["x", "g"], [padding], mode="nearest", padding_mode=padding)
        outs[padding] = node
    model = make(list(outs.values()), [vi("x", [1, 1, 3, 4]), vi("g", [1, 1, 4, 2])],
                 [vi(p, None) for p in outs], opset=OPSET)
    path = str(tmp_path / "g.onnx")
    onnx.save(model, path)
    feeds = {"x": x, "g": grid}
    want = run_function(import_onnx_model(model), feeds)
    compile_to_directory(path, "npu", str(tmp_path / "out"), inputs=GraphInputs())
    got, _ = run_directory(str(tmp_path / "out"), feeds)
    for p in outs:
        np.testing.assert_array_equal(got[p], want[p], err_msg=p)
        assert np.all(np.isin(got[p], np.append(x.reshape(-1), 0.0))), p


# --------------------------------------------------------------------------------------
# Refusals: one line naming the node
# --------------------------------------------------------------------------------------


def _one(op, inputs, inits=(), **attrs):
    names = [i.name for i in inputs] + [n for n, _ in inits]
    return make([h.make_node(op, names, ["y"], name="the_node", **attrs)], inputs, [vi("y", None)], inits,
                opset=OPSET)


REFUSALS = {
    "lp_pool_p0": (lambda: _one("LpPool", [vi("x", [1, 1, 4, 4])], kernel_shape=[2, 2], p=0),
                   "p = 0 is not supported"),
    "lp_pool_int": (lambda: _one("LpPool", [vi("x", [1, 1, 4, 4], T.INT32)], kernel_shape=[2, 2]),
                    "must be a float tensor"),
    "center_crop_runtime_shape": (lambda: _one("CenterCropPad", [vi("x", [4, 4]), vi("s", [2], T.INT64)]),
                                  "must be a constant"),
    "center_crop_shape_len": (lambda: _one("CenterCropPad", [vi("x", [4, 4])], [("s", np.array([2], np.int64))]),
                              "must have one entry per axis"),
    "affine_grid_theta": (lambda: _one("AffineGrid", [vi("t", [2, 2, 4])], [("s", np.array([2, 1, 3, 3]))]),
                          "theta [2, 2, 4] must be [2, 2, 3]"),
    "col2im_blocks": (lambda: _one("Col2Im", [vi("x", [1, 4, 5])], [("i", np.array([3, 3])), ("b", np.array([2, 2]))]),
                      "the input has 5 blocks"),
    "grid_sample_mode": (lambda: _one("GridSample", [vi("x", [1, 1, 3, 3]), vi("g", [1, 2, 2, 2])], mode="area"),
                         "mode 'area' is not supported"),
    "grid_sample_cubic_3d": (lambda: _one("GridSample", [vi("x", [1, 1, 3, 3, 3]), vi("g", [1, 2, 2, 2, 3])],
                                          mode="cubic"), "mode 'cubic' samples 2-D"),
    "grid_sample_types": (lambda: _one("GridSample", [vi("x", [1, 1, 3, 3]), vi("g", [1, 2, 2, 2], T.DOUBLE)]),
                          "the grid's type float64 must be the input's"),
    "roi_align_mode": (lambda: _one("RoiAlign", [vi("x", [1, 1, 3, 3]), vi("r", [2, 4]), vi("b", [2], T.INT64)],
                                    mode="median"), "mode 'median' is not supported"),
    "max_unpool_small_output": (lambda: _one("MaxUnpool", [vi("x", [1, 1, 2, 2]), vi("i", [1, 1, 2, 2], T.INT64)],
                                             [("s", np.array([1, 1, 3, 3]))], kernel_shape=[2, 2], strides=[2, 2]),
                                "output_shape [1, 1, 3, 3] must be at least the unpooled shape [1, 1, 4, 4]"),
}


@pytest.mark.parametrize("name", REFUSALS)
def test_refusals_are_one_line_naming_the_node(name):
    factory, text = REFUSALS[name]
    msg = import_error(factory())
    assert "the_node" in msg and text in msg, msg


def test_unknown_attribute_is_refused():
    model = _one("RoiAlign", [vi("x", [1, 1, 3, 3]), vi("r", [2, 4]), vi("b", [2], T.INT64)], bogus=1)
    with pytest.raises(CompileError, match="bogus"):
        import_onnx_model(model)
