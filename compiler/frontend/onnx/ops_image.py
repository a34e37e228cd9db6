"""Converters of the image and layout ops real exporters write (issue 11): Resize and
Upsample, ConvTranspose, DepthToSpace, SpaceToDepth, GatherElements.

    Resize(x: [1,3,4,4], scales=[1,1,2,2]) mode=nearest
        ->  relay.image.resize2d %x {size = [8, 8], scale_h = 2.0, scale_w = 2.0,
                                     coordinate_transformation_mode = "half_pixel"}
    ConvTranspose(x, w, b) strides=[2,2]
        ->  %0 = relay.nn.conv2d_transpose %x, %w {strides = [2, 2]}
            %1 = relay.nn.bias_add %0, %b {axis = 1}
    DepthToSpace(x) blocksize=2 mode=CRD  ->  relay.nn.depth_to_space %x {block_size = 2, mode = "CRD"}
    GatherElements(x, i) axis=1           ->  relay.gather %x, %i {axis = 1}

Resize's scales or sizes must be known at import time (initializers, Constant nodes, or
bound inputs); only the two spatial axes of a rank-4 input may change. 1-D ConvTranspose
runs as the 2-D form on [N, C, 1, L], 3-D as 2-D ops over the depth taps (ops_volume).
"""

from __future__ import annotations

import math

import numpy as np

from accel.compiler.frontend.onnx import ops_volume
from accel.compiler.frontend.onnx.context import Node, converter
from accel.compiler.frontend.onnx.ops_nn import lift_1d, spatial_rank
from accel.compiler.frontend.onnx.ops_tensor import norm_axis, reshaped
from accel.dialects import relay

# --------------------------------------------------------------------------------------
# Resize and Upsample
# --------------------------------------------------------------------------------------

_RESIZE_MODES = {"nearest": "nearest", "linear": "linear", "bilinear": "linear", "cubic": "cubic"}


def _resize(n: Node, scales, sizes, method: str, coord_mode: str, nearest_mode: str, policy: str = "stretch",
            **filter_props):
    dims = n.shape(0)
    if len(dims) != 4:
        raise n.error(f"only rank-4 (NCHW) input is supported, got rank {len(dims)}")
    if method not in _RESIZE_MODES:
        raise n.error(f"mode '{method}' is not supported (nearest, linear and cubic are)")
    if sizes is not None:
        sizes = [int(s) for s in sizes]
        if len(sizes) != 4 or sizes[:2] != list(dims[:2]):
            raise n.error(f"sizes {sizes} may only change the two spatial axes of {list(dims)}")
        out = sizes[2:]
        scale_h = scale_w = None
        if policy != "stretch":
            # One scale for both axes, the largest that fits (not_larger) or the smallest
            # that covers (not_smaller) the requested size; the output is rounded.
            ratios = [o / i for o, i in zip(out, dims[2:])]
            scale_h = scale_w = min(ratios) if policy == "not_larger" else max(ratios)
            out = [int(np.round(scale_h * i)) for i in dims[2:]]
    else:
        scales = [float(s) for s in scales]
        if len(scales) != 4 or scales[:2] != [1.0, 1.0]:
            raise n.error(f"scales {scales} may only scale the two spatial axes")
        if any(not (s > 0 and math.isfinite(s)) for s in scales):
            raise n.error(f"scales {scales} must be positive")
        scale_h, scale_w = scales[2:]
        out = [int(math.floor(dims[2] * scale_h)), int(math.floor(dims[3] * scale_w))]
    if min(out) < 1:
        raise n.error(f"the output would be empty ({out[0]}x{out[1]})")
    return n.emit(relay.Resize2DOp(n.input(0), size=out, scale_h=scale_h, scale_w=scale_w,
                                   method=_RESIZE_MODES[method], coordinate_transformation_mode=coord_mode,
                                   nearest_mode=nearest_mode, **filter_props))


@converter("Resize", attrs=("mode", "coordinate_transformation_mode", "nearest_mode", "cubic_coeff_a",
                            "exclude_outside", "extrapolation_value", "antialias", "axes",
                            "keep_aspect_ratio_policy"))
def resize(n: Node):
    method = n.string("mode", "nearest")
    if n.version < 11:
        # Resize-10 is Upsample's semantics: output = input / scale, nearest takes the floor.
        return _resize(n, n.const(1, "the scales input").reshape(-1), None, method, "asymmetric", "floor")
    coord = n.string("coordinate_transformation_mode", "half_pixel")
    if coord not in relay.RESIZE_COORDINATE_MODES:
        raise n.error(f"coordinate_transformation_mode '{coord}' is not supported")
    nearest = n.string("nearest_mode", "round_prefer_floor")
    if nearest not in relay.RESIZE_NEAREST_MODES:
        raise n.error(f"nearest_mode '{nearest}' is not supported")
    if n.attr("axes") is not None and sorted(norm_axis(n, a, 4) for a in n.ints("axes")) != [2, 3]:
        raise n.error(f"axes {n.ints('axes')} are not supported (only the spatial axes [2, 3])")
    axes = n.ints("axes")
    policy = n.string("keep_aspect_ratio_policy", "stretch")
    if policy not in ("stretch", "not_larger", "not_smaller"):
        raise n.error(f"keep_aspect_ratio_policy '{policy}' is not supported")
    scales = n.opt_const(2, "the scales input")
    sizes = n.opt_const(3, "the sizes input")
    if scales is not None and scales.size == 0:
        scales = None
    if sizes is not None and sizes.size == 0:
        sizes = None
    if axes is not None:  # scales/sizes list only the spatial axes: complete them
        full = list(n.shape(0)) if sizes is not None else [1.0] * 4
        given = list((sizes if sizes is not None else scales).reshape(-1))
        for a, v in zip((norm_axis(n, a, 4) for a in axes), given):
            full[a] = v
        sizes, scales = (full, None) if sizes is not None else (None, full)
    if (scales is None) == (sizes is None):
        raise n.error("exactly one of scales and sizes must be given")
    filter_props = {}
    if method != "nearest":
        filter_props = {"cubic_coeff_a": float(n.attr("cubic_coeff_a", -0.75)),
                        "exclude_outside": bool(n.attr("exclude_outside", 0)), "antialias": bool(n.attr("antialias", 0))}
    if coord == "tf_crop_and_resize":
        if method == "nearest":
            raise n.error("tf_crop_and_resize with mode 'nearest' is not supported (linear and cubic are)")
        filter_props["roi"] = _spatial_roi(n, axes)
        filter_props["extrapolation_value"] = float(n.attr("extrapolation_value", 0.0))
    return _resize(n, None if scales is None else list(np.reshape(scales, -1)),
                   None if sizes is None else list(np.reshape(sizes, -1)), method, coord, nearest, policy,
                   **filter_props)


def _spatial_roi(n: Node, axes) -> list[float]:
    """tf_crop_and_resize's roi input as [start_h, start_w, end_h, end_w]: the roi lists
    starts then ends of every axis (of `axes` when given); N and C must keep [0, 1]."""
    roi = n.opt_const(1, "the roi input")
    if roi is None or roi.size == 0:
        raise n.error("tf_crop_and_resize needs the roi input")
    roi = [float(v) for v in np.reshape(roi, -1)]
    listed = [norm_axis(n, a, 4) for a in axes] if axes is not None else [0, 1, 2, 3]
    if len(roi) != 2 * len(listed):
        raise n.error(f"the roi has {len(roi)} values, expected {2 * len(listed)} (starts and ends)")
    full = {a: (0.0, 1.0) for a in range(4)}
    for i, a in enumerate(listed):
        full[a] = (roi[i], roi[len(listed) + i])
    if full[0] != (0.0, 1.0) or full[1] != (0.0, 1.0):
        raise n.error(f"the roi {roi} may only crop the two spatial axes")
    return [full[2][0], full[3][0], full[2][1], full[3][1]]


@converter("Upsample", attrs=("mode", "scales", "height_scale", "width_scale"))
def upsample(n: Node):
    if n.version < 9:
        scales = n.attr("scales")
        if scales is None:
            raise n.error("the scales attribute is missing")
    else:
        scales = n.const(1, "the scales input").reshape(-1)
    return _resize(n, list(scales), None, n.string("mode", "nearest"), "asymmetric", "floor")


# --------------------------------------------------------------------------------------
# ConvTranspose
# --------------------------------------------------------------------------------------


@converter("ConvTranspose", attrs=("auto_pad", "dilations", "group", "kernel_shape", "output_padding",
                                   "output_shape", "pads", "strides"))
def conv_transpose(n: Node):
    x_dims, w_dims = n.shape(0), n.shape(1)
    d = spatial_rank(n, len(x_dims), "transposed convolution", volumes=True)
    if len(w_dims) != len(x_dims):
        raise n.error(f"the weight {list(w_dims)} must have the input's rank {len(x_dims)}")
    kernel = list(w_dims[2:])
    ks = n.ints("kernel_shape")
    if ks is not None and list(ks) != kernel:
        raise n.error(f"kernel_shape {ks} does not match the weight's spatial shape {kernel}")
    strides = n.ints("strides", [1] * d)
    dil = n.ints("dilations", [1] * d)
    out_pad = n.ints("output_padding", [0] * d)
    if len(strides) != d or len(dil) != d or len(out_pad) != d:
        raise n.error(f"strides {strides}, dilations {dil} and output_padding {out_pad} must have {d} entries")
    if any(s < 1 for s in strides) or any(x < 1 for x in dil) or any(p < 0 for p in out_pad):
        raise n.error(f"strides {strides} and dilations {dil} must be positive, output_padding {out_pad} "
                      "non-negative")
    in_dims = x_dims[2:]
    full = [(i - 1) * s + (k - 1) * dl + 1 + op for i, s, k, dl, op in zip(in_dims, strides, kernel, dil, out_pad)]
    auto_pad = n.string("auto_pad", "NOTSET")
    output_shape = n.ints("output_shape")
    if output_shape is not None or auto_pad in ("SAME_UPPER", "SAME_LOWER"):
        if output_shape is not None:
            want = list(output_shape[-d:])
        else:
            want = [i * s for i, s in zip(in_dims, strides)]
        begin, end = [], []
        for i, (f, o) in enumerate(zip(full, want)):
            total = f - o
            if total < 0:  # the requested output is larger: zeros at the end
                out_pad[i] += -total
                total = 0
            small, large = total // 2, total - total // 2
            upper = auto_pad != "SAME_LOWER"
            begin.append(small if upper else large)
            end.append(large if upper else small)
    elif auto_pad == "VALID":
        begin, end = [0] * d, [0] * d
    elif auto_pad == "NOTSET":
        pads = n.ints("pads", [0] * (2 * d))
        if len(pads) != 2 * d or any(p < 0 for p in pads):
            raise n.error(f"pads {pads} must be {2 * d} non-negative entries")
        begin, end = pads[:d], pads[d:]
    else:
        raise n.error(f"auto_pad '{auto_pad}' is not supported")
    x, w = n.value(0), n.value(1)
    if d == 3:
        y = ops_volume.conv_transpose3d(n, x, w, strides, dil, begin, end, out_pad, n.attr("group", 1))
        return n.emit(relay.BiasAddOp(y, n.input(2), axis=1)) if n.has(2) else y
    if d == 1:
        strides, dil, begin, end = lift_1d(strides, dil, begin, end)
        out_pad = [0, *out_pad]
        x = reshaped(n, x, (x_dims[0], x_dims[1], 1, x_dims[2]))
        w = reshaped(n, w, (w_dims[0], w_dims[1], 1, w_dims[2]))
    y = n.emit(relay.Conv2DTransposeOp(n.importer.materialize(x), n.importer.materialize(w), strides=strides,
                                       padding=(*begin, *end), dilation=dil, groups=n.attr("group", 1),
                                       output_padding=out_pad))
    if n.has(2):
        y = n.emit(relay.BiasAddOp(y, n.input(2), axis=1))
    if d == 1:
        out = tuple(y.type.get_shape())
        y = reshaped(n, y, (out[0], out[1], out[3]))
    return y


# --------------------------------------------------------------------------------------
# DepthToSpace, SpaceToDepth, GatherElements
# --------------------------------------------------------------------------------------


_BLOCK_OPS = {"DepthToSpace": relay.DepthToSpaceOp, "SpaceToDepth": relay.SpaceToDepthOp}


@converter(*_BLOCK_OPS, attrs=("blocksize", "mode"))
def block_rearrange(n: Node):
    mode = n.string("mode", "DCR")
    if mode not in ("DCR", "CRD"):
        raise n.error(f"mode '{mode}' is not supported")
    if n.rank(0) != 4:
        raise n.error(f"only rank-4 (NCHW) input is supported, got rank {n.rank(0)}")
    return n.emit(_BLOCK_OPS[n.op_type](n.input(0), block_size=n.attr("blocksize"), mode=mode))


@converter("GatherElements", attrs=("axis",))
def gather_elements(n: Node):
    axis = norm_axis(n, n.attr("axis", 0), n.rank(0))
    return n.emit(relay.GatherOp(n.input(0), n.input(1), axis=axis))
