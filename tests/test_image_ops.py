"""The ops of issue 11 (Resize/Upsample, ConvTranspose, DepthToSpace, SpaceToDepth,
GatherElements, MaxPool's Indices, Clip with run-time bounds, the 3-D Conv/ConvTranspose/MaxPool/AveragePool) against onnxruntime, through both the
reference interpreter and the compiled C (host kernels, `-Werror`).

Each case is a one- or two-node model built here. Tolerances: float outputs within
1e-5 of the output's largest magnitude (the interpreter and the C sum the same way in
double; onnxruntime sums in float32; cubic, antialias and tf_crop_and_resize likewise);
nearest resize, depth/space, gather and indices
exactly.
"""

from __future__ import annotations

import os

import numpy as np
import onnx
import pytest
from onnx import TensorProto as T
from onnx import helper as oh
from onnx import numpy_helper as nh

from accel.compiler.driver import compile_to_directory
from accel.compiler.frontend.onnx import import_onnx_model
from accel.compiler.runtime.interpreter import run_function
from accel.compiler.runtime.run_compiled import run_directory
from e2e_util import ort_run

RTOL = 1e-5

rng = np.random.default_rng(11)


def _model(nodes, inputs, outputs, inits=(), opset=19) -> onnx.ModelProto:
    graph = oh.make_graph(nodes, "g", inputs, outputs, [nh.from_array(a, n) for n, a in inits])
    m = oh.make_model(graph, opset_imports=[oh.make_opsetid("", opset)])
    m.ir_version = 9
    return m


def _vi(name, shape, t=T.FLOAT):
    return oh.make_tensor_value_info(name, t, shape)


def _resize(shape, mode, coord, nearest="round_prefer_floor", scales=None, sizes=None, opset=19, roi=None,
            **filter_attrs):
    inits = [("roi", np.array(roi, np.float32))] if roi is not None else []
    ins = ["x", "roi" if roi is not None else ""]
    if scales is not None:
        ins.append("scales")
        inits.append(("scales", np.array(scales, np.float32)))
    else:
        ins += ["", "sizes"]
        inits.append(("sizes", np.array(sizes, np.int64)))
    attrs = {"mode": mode, "coordinate_transformation_mode": coord}
    if mode == "nearest":
        attrs["nearest_mode"] = nearest
    attrs.update(filter_attrs)
    node = oh.make_node("Resize", ins, ["y"], **attrs)
    return _model([node], [_vi("x", shape)], [_vi("y", None)], inits, opset=opset)


def _conv_transpose(x_shape, w_shape, bias=True, **attrs):
    ins = ["x", "w"] + (["b"] if bias else [])
    inits = [("w", rng.standard_normal(w_shape).astype(np.float32))]
    if bias:
        inits.append(("b", rng.standard_normal(w_shape[1] * attrs.get("group", 1)).astype(np.float32)))
    return _model([oh.make_node("ConvTranspose", ins, ["y"], **attrs)], [_vi("x", x_shape)], [_vi("y", None)], inits)


def _conv3d(x_shape, w_shape, **attrs):
    inits = [("w", rng.standard_normal(w_shape).astype(np.float32)),
             ("b", rng.standard_normal(w_shape[0]).astype(np.float32))]
    return _model([oh.make_node("Conv", ["x", "w", "b"], ["y"], **attrs)], [_vi("x", x_shape)], [_vi("y", None)],
                  inits)


def _single(op, shape, **attrs):
    return _model([oh.make_node(op, ["x"], ["y"], **attrs)], [_vi("x", shape)], [_vi("y", None)])


def _gather_elements(shape, idx_shape, axis):
    n = shape[axis]
    idx = rng.integers(-n, n, idx_shape).astype(np.int64)
    return _model([oh.make_node("GatherElements", ["x", "i"], ["y"], axis=axis)], [_vi("x", shape)],
                  [_vi("y", None)], [("i", idx)])


def _max_pool_indices(shape, **attrs):
    return _model([oh.make_node("MaxPool", ["x"], ["y", "idx"], **attrs)], [_vi("x", shape)],
                  [_vi("y", None), _vi("idx", None, T.INT64)])


CASES = {
    # Resize: the modes torch and TF export (nearest: asymmetric/floor is torch's
    # 'nearest', tf_half_pixel_for_nn/round_prefer_ceil TF's; linear: half_pixel is
    # align_corners=False, align_corners, pytorch_half_pixel), upsampling and downsampling.
    "resize_nearest_torch": _resize([1, 3, 5, 4], "nearest", "asymmetric", "floor", scales=[1, 1, 2, 3]),
    "resize_nearest_half_pixel": _resize([1, 2, 5, 7], "nearest", "half_pixel", sizes=[1, 2, 8, 3]),
    "resize_nearest_tf": _resize([1, 2, 4, 4], "nearest", "tf_half_pixel_for_nn", "round_prefer_ceil",
                                 scales=[1, 1, 1.5, 2.5]),
    "resize_nearest_ceil_align": _resize([2, 1, 3, 5], "nearest", "align_corners", "ceil", sizes=[2, 1, 7, 4]),
    "resize_linear_half_pixel": _resize([1, 3, 6, 5], "linear", "half_pixel", scales=[1, 1, 2, 2]),
    "resize_linear_align_corners": _resize([1, 2, 5, 6], "linear", "align_corners", sizes=[1, 2, 9, 4]),
    "resize_linear_pytorch_down": _resize([1, 2, 8, 8], "linear", "pytorch_half_pixel", scales=[1, 1, 0.5, 0.375]),
    "resize_linear_asymmetric": _resize([1, 1, 4, 3], "linear", "asymmetric", scales=[1, 1, 1.7, 2.3]),
    # Cubic (A, exclude_outside), antialias when downsampling, tf_crop_and_resize (roi,
    # extrapolation value), on the taps of reference.resize_taps.
    "resize_cubic_up": _resize([1, 2, 4, 5], "cubic", "half_pixel", scales=[1, 1, 1.5, 2.2]),
    "resize_cubic_exclude_outside": _resize([1, 1, 5, 4], "cubic", "align_corners", sizes=[1, 1, 3, 7],
                                            cubic_coeff_a=-0.5, exclude_outside=1),
    "resize_cubic_antialias": _resize([1, 2, 9, 8], "cubic", "half_pixel", scales=[1, 1, 0.45, 0.6], antialias=1),
    "resize_linear_antialias": _resize([2, 1, 8, 9], "linear", "pytorch_half_pixel", sizes=[2, 1, 3, 4], antialias=1),
    "resize_crop_linear": _resize([1, 2, 6, 5], "linear", "tf_crop_and_resize", sizes=[1, 2, 4, 7],
                                  roi=[0, 0, 0.2, -0.1, 1, 1, 0.9, 1.3], extrapolation_value=7.0),
    "resize_crop_cubic_axes": _resize([1, 1, 5, 6], "cubic", "tf_crop_and_resize", sizes=[5, 3], axes=[3, 2],
                                      roi=[0.3, 0.1, 0.8, 1.2]),
    "upsample9_nearest": _model([oh.make_node("Upsample", ["x", "s"], ["y"], mode="nearest")],
                                [_vi("x", [1, 2, 3, 3])], [_vi("y", None)],
                                [("s", np.array([1, 1, 2, 2], np.float32))], opset=9),
    "upsample9_linear": _model([oh.make_node("Upsample", ["x", "s"], ["y"], mode="linear")],
                               [_vi("x", [1, 2, 3, 3])], [_vi("y", None)],
                               [("s", np.array([1, 1, 2, 3], np.float32))], opset=9),
    # ConvTranspose: groups, strides, pads, output_padding, dilations, output_shape, 1-D.
    "deconv_stride2": _conv_transpose([1, 4, 5, 5], [4, 3, 3, 3], strides=[2, 2], pads=[1, 1, 1, 1]),
    "deconv_groups_outpad": _conv_transpose([2, 6, 4, 3], [6, 2, 3, 2], group=3, strides=[2, 3],
                                            pads=[0, 1, 1, 0], output_padding=[1, 2]),
    "deconv_dilated": _conv_transpose([1, 2, 4, 4], [2, 3, 3, 3], bias=False, dilations=[2, 1], strides=[1, 2]),
    "deconv_output_shape": _conv_transpose([1, 1, 3, 3], [1, 2, 3, 3], strides=[3, 2], output_shape=[10, 8]),
    "deconv_same_upper": _conv_transpose([1, 2, 3, 4], [2, 2, 3, 3], strides=[2, 2], auto_pad="SAME_UPPER"),
    "deconv_1d": _conv_transpose([1, 3, 7], [3, 2, 4], strides=[2], pads=[1, 2]),
    # 3-D (NCDHW) on 2-D relay ops (ops_volume.py): the depth gathered or pooled apart.
    "conv3d_strided_padded": _conv3d([1, 2, 5, 6, 4], [4, 2, 3, 2, 3], strides=[2, 1, 2], pads=[1, 0, 1, 2, 1, 0]),
    "conv3d_groups_dilated": _conv3d([2, 4, 6, 4, 4], [6, 2, 2, 3, 1], group=2, dilations=[2, 1, 1],
                                     pads=[0, 1, 0, 0, 1, 0]),
    "deconv3d_stride_outpad": _conv_transpose([1, 2, 3, 4, 3], [2, 3, 3, 2, 2], strides=[2, 1, 2],
                                              pads=[1, 0, 0, 0, 1, 1], output_padding=[1, 0, 1]),
    "deconv3d_groups_dilated": _conv_transpose([1, 4, 3, 3, 2], [4, 1, 2, 2, 2], bias=False, group=2,
                                               dilations=[2, 1, 1], strides=[3, 1, 1]),
    "maxpool3d_ceil_dilated": _single("MaxPool", [1, 3, 7, 6, 5], kernel_shape=[3, 2, 2], strides=[2, 2, 1],
                                      dilations=[2, 1, 1], pads=[1, 0, 0, 1, 0, 1], ceil_mode=1),
    "avgpool3d_exclude_pad": _single("AveragePool", [2, 2, 5, 5, 6], kernel_shape=[2, 3, 3], strides=[2, 2, 2],
                                     pads=[1, 1, 0, 0, 1, 1], ceil_mode=1),
    "avgpool3d_include_pad": _single("AveragePool", [1, 3, 4, 6, 5], kernel_shape=[3, 2, 2], strides=[1, 2, 2],
                                     pads=[1, 1, 1, 1, 0, 1], count_include_pad=1),
    # DepthToSpace / SpaceToDepth, GatherElements, MaxPool Indices.
    "depth_to_space_dcr": _single("DepthToSpace", [1, 8, 2, 3], blocksize=2, mode="DCR"),
    "depth_to_space_crd": _single("DepthToSpace", [2, 18, 2, 2], blocksize=3, mode="CRD"),
    "space_to_depth": _single("SpaceToDepth", [1, 3, 4, 6], blocksize=2),
    "gather_elements_axis0": _gather_elements([4, 5], [3, 5], 0),
    "gather_elements_axis_last": _gather_elements([2, 3, 6], [2, 2, 4], 2),
    "maxpool_indices": _max_pool_indices([2, 3, 6, 7], kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1]),
    "maxpool_indices_col_major": _max_pool_indices([1, 2, 5, 5], kernel_shape=[2, 2], storage_order=1,
                                                   dilations=[2, 1]),
    # Clip with run-time bounds (relay.dyn.clip), one of them missing.
    "clip_runtime_bounds": _model([oh.make_node("Clip", ["x", "lo", "hi"], ["y"])],
                                  [_vi("x", [3, 4]), _vi("lo", []), _vi("hi", [])], [_vi("y", None)]),
    "clip_runtime_min_int8": _model([oh.make_node("Clip", ["x", "lo"], ["y"])],
                                    [_vi("x", [2, 5], T.INT8), _vi("lo", [], T.INT8)], [_vi("y", None, T.INT8)]),
}

EXACT = ("resize_nearest", "upsample9_nearest", "depth_to_space", "space_to_depth", "gather_elements", "maxpool")


def _compare(name: str, got: dict, want: dict) -> None:
    for key, w in want.items():
        g = np.asarray(got[key])
        assert g.shape == w.shape and g.dtype == w.dtype, f"{key}: {g.dtype}{g.shape} vs {w.dtype}{w.shape}"
        if name.startswith(EXACT) or w.dtype.kind != "f":
            np.testing.assert_array_equal(g, w, err_msg=key)
        else:
            scale = max(float(np.max(np.abs(w))), 1e-30)
            assert float(np.max(np.abs(g - w))) <= RTOL * scale, f"{key}: {np.max(np.abs(g - w))} vs {scale}"


@pytest.fixture(scope="module")
def feeds():
    out = {}
    for name, m in CASES.items():
        out[name] = {}
        for vi in m.graph.input:
            shape = [d.dim_value for d in vi.type.tensor_type.shape.dim]
            dtype = oh.tensor_dtype_to_np_dtype(vi.type.tensor_type.elem_type)
            x = np.asarray(rng.standard_normal(shape) * (1 if dtype.kind == "f" else 50)).astype(dtype)
            if name.startswith("maxpool_"):
                x = rng.permutation(x.size).reshape(shape).astype(np.float32)  # no ties: one first maximum
            out[name][vi.name] = x
    return out


@pytest.mark.parametrize("name", sorted(CASES))
def test_interpreter_matches_onnxruntime(tmp_path, feeds, name):
    path = os.path.join(tmp_path, f"{name}.onnx")
    onnx.save(CASES[name], path)
    want = ort_run(path, feeds[name])
    got = run_function(import_onnx_model(CASES[name]), feeds[name])
    _compare(name, got, want)


@pytest.mark.parametrize("name", sorted(CASES))
def test_compiled_c_matches_onnxruntime(tmp_path, feeds, name):
    path = os.path.join(tmp_path, f"{name}.onnx")
    onnx.save(CASES[name], path)
    want = ort_run(path, feeds[name])
    out_dir = os.path.join(tmp_path, "out")
    compile_to_directory(path, "npu", out_dir)
    got, _ = run_directory(out_dir, feeds[name])
    _compare(name, got, want)
