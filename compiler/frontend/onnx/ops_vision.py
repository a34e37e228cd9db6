"""Converters of the vision ops spatial transformers, detectors and patch models use:
LpPool, GlobalLpPool, CenterCropPad, AffineGrid, Col2Im and DeformConv composed from relay's own ops;
GridSample, RoiAlign, MaxRoiPool and MaxUnpool as relay ops of their own.

    LpPool(x) p=2 kernel_shape=[3, 3]
        ->  %0 = relay.multiply %x, %x
            %1 = relay.nn.avg_pool2d %0 {pool_size = [3, 3], count_include_pad}
            %2 = relay.multiply %1, 9.0 ; relay.sqrt %2
        (ONNX's reference: kernel area x the average with padding counted, to the 1/p)
    CenterCropPad(x, shape)  ->  relay.strided_slice (crop) + relay.nn.pad (zeros)
    AffineGrid(theta, size)  ->  relay.nn.batch_matmul of the constant base grid
                                 [1, H*W, 3] by theta [N, 2, 3] (transposed), reshaped
    Col2Im(x, image, block)  ->  relay.nn.conv2d_transpose of x [N, C*K, bh, bw] by a
                                 one-hot weight [C*K, 1, kh, kw], groups = C
                                 (each block value lands on its pixel, overlaps add)

    DeformConv(x, w, offset, b, mask)
        ->  relay.image.grid_sample of x at the offset kernel taps (one per offset
            group), times the mask, relay.nn.batch_matmul by the weight, bias_add

The shapes (CenterCropPad's shape, AffineGrid's size, Col2Im's image and block shapes)
must be known at import time.
"""

from __future__ import annotations

import numpy as np

from accel.compiler.frontend.onnx import ops_volume
from accel.compiler.frontend.onnx.context import Const, Node, converter
from accel.compiler.frontend.onnx.ops_composed import _float_input, _mul, _scalar
from accel.compiler.frontend.onnx.ops_nn import lift_1d, pool
from accel.compiler.frontend.onnx.ops_tensor import norm_axis, reshaped
from accel.dialects import relay

# --------------------------------------------------------------------------------------
# LpPool
# --------------------------------------------------------------------------------------


def _lp_order(n: Node) -> int:
    p = n.attr("p", 2)
    if not isinstance(p, int) or p < 1:
        raise n.error(f"p = {p} is not supported (a positive integer)")
    return p


def _abs_power(n: Node, x, p: int, dt):
    """|x|^p (p = 1 and 2 without pow)."""
    if p == 1:
        return n.emit(relay.AbsOp(x))
    if p == 2:
        return _mul(n, x, x)
    return n.emit(relay.PowerOp(n.emit(relay.AbsOp(x)), _scalar(n, p, dt)))


def _root(n: Node, total, p: int, dt):
    """total^(1/p) (p = 1 and 2 without pow)."""
    if p == 1:
        return total
    if p == 2:
        return n.emit(relay.SqrtOp(total))
    return n.emit(relay.PowerOp(total, _scalar(n, 1.0 / p, dt)))


@converter("LpPool", attrs=("auto_pad", "ceil_mode", "dilations", "kernel_shape", "p", "pads", "strides"))
def lp_pool(n: Node):
    """(sum over the window of |x|^p)^(1/p) = (area x avg_pool(|x|^p, count_include_pad))^(1/p),
    as ONNX's reference computes it; p = 1 and 2 take no pow."""
    dt = _float_input(n)
    p = _lp_order(n)
    kernel = n.ints("kernel_shape")
    if kernel is None:
        raise n.error("kernel_shape is missing")
    avg = pool(n, relay.AvgPool2DOp, x=_abs_power(n, n.input(0), p, dt), count_include_pad=True)
    return _root(n, _mul(n, avg, _scalar(n, float(np.prod(kernel)), dt)), p, dt)


@converter("GlobalLpPool", attrs=("p",))
def global_lp_pool(n: Node):
    """(sum over the spatial axes of |x|^p)^(1/p), kept as axes of one (ONNX's reference);
    p = 1 and 2 take no pow. (GlobalLpPool-1, whose p is a float, has no version adapter:
    its models are refused when they are converted.)"""
    dt = _float_input(n)
    p = _lp_order(n)
    rank = n.rank(0)
    if rank < 3:
        raise n.error(f"the input must have rank >= 3, got {rank}")
    powered = _abs_power(n, n.input(0), p, dt)
    return _root(n, n.emit(relay.SumOp(powered, axis=list(range(2, rank)), keepdims=True)), p, dt)


# --------------------------------------------------------------------------------------
# CenterCropPad
# --------------------------------------------------------------------------------------


@converter("CenterCropPad", attrs=("axes",))
def center_crop_pad(n: Node):
    """Each listed axis cropped (start (size - want) // 2) or zero padded (before
    (want - size) // 2) to the wanted length, centred as ONNX's reference."""
    dims = n.shape(0)
    rank = len(dims)
    shape = [int(s) for s in n.const(1, "the shape input").reshape(-1)]
    axes = n.ints("axes")
    axes = list(range(rank)) if axes is None else [norm_axis(n, a, rank) for a in axes]
    if len(set(axes)) != len(axes):
        raise n.error(f"axes {n.ints('axes')} repeat an axis")
    if len(shape) != len(axes):
        raise n.error(f"the shape {shape} must have one entry per axis ({len(axes)})")
    if any(s < 1 for s in shape):
        raise n.error(f"the shape {shape} must be positive")
    begin, end, crop_axes = [], [], []
    pad_width = [0] * (2 * rank)
    for a, want in zip(axes, shape):
        size = dims[a]
        if want < size:
            start = (size - want) // 2
            crop_axes.append(a)
            begin.append(start)
            end.append(start + want)
        elif want > size:
            before = (want - size) // 2
            pad_width[2 * a] = before
            pad_width[2 * a + 1] = want - size - before
    y = n.input(0)
    if crop_axes:
        y = n.emit(relay.StridedSliceOp(y, begin=begin, end=end, axes=crop_axes))
    if any(pad_width):
        y = n.emit(relay.PadOp(y, pad_width=pad_width, pad_value=0.0))
    if not crop_axes and not any(pad_width):
        return n.value(0)
    return y


# --------------------------------------------------------------------------------------
# AffineGrid
# --------------------------------------------------------------------------------------


def _base_coords(size: int, align_corners: bool) -> np.ndarray:
    """The normalized coordinates of `size` cells along an axis (ONNX's reference:
    corners at -1 and 1, or cell centres)."""
    i = np.arange(size, dtype=np.float64)
    if align_corners:
        return -1.0 + 2.0 * i / (size - 1) if size > 1 else np.full(size, -1.0)
    return -1.0 + (2.0 * i + 1.0) / size


@converter("AffineGrid", attrs=("align_corners",))
def affine_grid(n: Node):
    """grid[n, (d,) h, w] = theta[n] @ (x_w, y_h, (z_d,) 1): one batched product of the
    constant homogeneous base grid [1, D*H*W, k+1] by theta [N, k, k+1] transposed."""
    dt = _float_input(n)
    size = [int(s) for s in n.const(1, "the size input").reshape(-1)]
    theta = n.shape(0)
    if len(size) not in (4, 5):
        raise n.error(f"the size {size} must be [N, C, H, W] or [N, C, D, H, W]")
    k = len(size) - 2
    if any(s < 1 for s in size):
        raise n.error(f"the size {size} must be positive")
    if tuple(theta) != (size[0], k, k + 1):
        raise n.error(f"theta {list(theta)} must be [{size[0]}, {k}, {k + 1}] for the size {size}")
    align = bool(n.attr("align_corners", 0))
    spatial = size[2:]
    axes = [_base_coords(s, align) for s in spatial]  # (D,) H, W
    grids = np.broadcast_arrays(*np.ix_(*axes))  # every combination, axes in order
    # Homogeneous coordinates in the grid's order: x (width) first, then y, (z,) and 1.
    base = np.stack([*reversed(grids), np.ones_like(grids[0])], axis=-1).reshape(1, -1, k + 1).astype(dt)
    y = n.emit(relay.BatchMatmulOp(n.const_value(base), n.input(0), transpose_b=True))
    return reshaped(n, y, (size[0], *spatial, k))


# --------------------------------------------------------------------------------------
# Col2Im
# --------------------------------------------------------------------------------------


@converter("Col2Im", attrs=("dilations", "pads", "strides"))
def col2im(n: Node):
    """Each block column of x [N, C*K, L] added into the image at its window: a grouped
    transposed convolution (groups = C) of x as [N, C*K, blocks...] by the one-hot weight
    [C*K, 1, kernel...] whose tap k is 1 at kernel offset k."""
    dt = _float_input(n)
    image = [int(s) for s in n.const(1, "the image_shape input").reshape(-1)]
    block = [int(s) for s in n.const(2, "the block_shape input").reshape(-1)]
    d = len(image)
    if len(block) != d or d not in (1, 2, 3):
        raise n.error(f"image_shape {image} and block_shape {block} must have 1, 2 or 3 equal entries")
    if any(s < 1 for s in image) or any(k < 1 for k in block):
        raise n.error(f"image_shape {image} and block_shape {block} must be positive")
    strides = n.ints("strides", [1] * d)
    dil = n.ints("dilations", [1] * d)
    pads = n.ints("pads", [0] * (2 * d))
    if len(strides) != d or len(dil) != d or len(pads) != 2 * d:
        raise n.error(f"strides {strides}, dilations {dil} and pads {pads} must have {d}, {d} and {2 * d} entries")
    if any(s < 1 for s in strides) or any(x < 1 for x in dil) or any(p < 0 for p in pads):
        raise n.error(f"strides {strides} and dilations {dil} must be positive, pads {pads} non-negative")
    dims = n.shape(0)
    if len(dims) != 3:
        raise n.error(f"the input must be [N, C*K, L], got {list(dims)}")
    kk = int(np.prod(block))
    if dims[1] % kk:
        raise n.error(f"the input's {dims[1]} rows are not a multiple of the block size {kk}")
    c = dims[1] // kk
    begin, end = pads[:d], pads[d:]
    blocks = [(i + b + e - dl * (k - 1) - 1) // s + 1
              for i, b, e, dl, k, s in zip(image, begin, end, dil, block, strides)]
    if min(blocks) < 1 or int(np.prod(blocks)) != dims[2]:
        raise n.error(f"the input has {dims[2]} blocks, the image {image} with block {block} makes "
                      f"{' x '.join(map(str, blocks))}")
    full = [(b - 1) * s + dl * (k - 1) + 1 for b, s, dl, k in zip(blocks, strides, dil, block)]
    out_pad = [i + bg + e - f for i, bg, e, f in zip(image, begin, end, full)]  # rows no block reaches
    weight = np.zeros((c * kk, 1, *block), dtype=dt)
    for ch in range(c):
        for k in range(kk):
            weight[(ch * kk + k, 0, *np.unravel_index(k, block))] = 1
    x = reshaped(n, n.value(0), (dims[0], c * kk, *blocks))
    w = Const(weight)
    if d == 3:
        return ops_volume.conv_transpose3d(n, x, w, strides, dil, begin, end, out_pad, c,
                                          x_dims=(dims[0], c * kk, *blocks), w_dims=weight.shape)
    if d == 1:
        strides, dil, begin, end = lift_1d(strides, dil, begin, end)
        out_pad = [0, *out_pad]
        x = reshaped(n, x, (dims[0], c * kk, 1, blocks[0]))
        w = Const(weight.reshape(c * kk, 1, 1, block[0]))
    y = n.emit(relay.Conv2DTransposeOp(n.importer.materialize(x), n.importer.materialize(w), strides=strides,
                                       padding=(*begin, *end), dilation=dil, groups=c, output_padding=out_pad))
    if d == 1:
        y = reshaped(n, y, (dims[0], c, image[0]))
    return y


# --------------------------------------------------------------------------------------
# GridSample, RoiAlign, MaxRoiPool, MaxUnpool: relay ops of their own
# --------------------------------------------------------------------------------------

_GRID_MODES = {"bilinear": "linear", "linear": "linear", "nearest": "nearest", "bicubic": "cubic", "cubic": "cubic"}


@converter("GridSample", attrs=("align_corners", "mode", "padding_mode"))
def grid_sample(n: Node):
    """relay.image.grid_sample; opset 16's mode names (bilinear, bicubic) and opset 20's
    (linear, cubic) alike."""
    _float_input(n)
    mode = n.string("mode", "bilinear" if n.version < 20 else "linear")
    if mode not in _GRID_MODES:
        raise n.error(f"mode '{mode}' is not supported (linear, nearest, cubic)")
    padding = n.string("padding_mode", "zeros")
    if padding not in ("zeros", "border", "reflection"):
        raise n.error(f"padding_mode '{padding}' is not supported (zeros, border, reflection)")
    rank = n.rank(0)
    if rank not in (4, 5):
        raise n.error(f"only 2-D and 3-D sampling (rank 4 or 5 input) is supported, got rank {rank}")
    if _GRID_MODES[mode] == "cubic" and rank != 4:
        raise n.error("mode 'cubic' samples 2-D (rank-4) input only")
    if n.dtype(1) != n.dtype(0):
        raise n.error(f"the grid's type {n.dtype(1)} must be the input's ({n.dtype(0)})")
    g = n.shape(1)
    if len(g) != rank or g[0] != n.shape(0)[0] or g[-1] != rank - 2:
        raise n.error(f"the grid {list(g)} must be [N, ..., {rank - 2}] for the input {list(n.shape(0))}")
    return n.emit(relay.GridSampleOp(n.input(0), n.input(1), method=_GRID_MODES[mode], padding_mode=padding,
                                     align_corners=bool(n.attr("align_corners", 0))))


@converter("RoiAlign", attrs=("coordinate_transformation_mode", "mode", "output_height", "output_width",
                              "sampling_ratio", "spatial_scale"))
def roi_align(n: Node):
    """relay.vision.roi_align; the rois are run-time data, their number static (the
    shape). RoiAlign-10 has no coordinate_transformation_mode and is output_half_pixel."""
    _float_input(n)
    coord = n.string("coordinate_transformation_mode", "half_pixel" if n.version >= 16 else "output_half_pixel")
    if coord not in ("half_pixel", "output_half_pixel"):
        raise n.error(f"coordinate_transformation_mode '{coord}' is not supported")
    mode = n.string("mode", "avg")
    if mode not in ("avg", "max"):
        raise n.error(f"mode '{mode}' is not supported (avg, max)")
    if n.rank(0) != 4:
        raise n.error(f"the input must be NCHW (rank 4), got rank {n.rank(0)}")
    rois, idx = n.shape(1), n.shape(2)
    if len(rois) != 2 or rois[1] != 4 or tuple(idx) != (rois[0],):
        raise n.error(f"rois {list(rois)} must be [R, 4] and batch_indices {list(idx)} [R]")
    if n.dtype(1) != n.dtype(0):
        raise n.error(f"the rois' type {n.dtype(1)} must be the input's ({n.dtype(0)})")
    oh, ow, sr = n.attr("output_height", 1), n.attr("output_width", 1), n.attr("sampling_ratio", 0)
    if oh < 1 or ow < 1 or sr < 0:
        raise n.error(f"output_height {oh} and output_width {ow} must be positive, sampling_ratio {sr} "
                      "non-negative")
    return n.emit(relay.RoiAlignOp(n.input(0), n.input(1), n.input(2), output_height=oh, output_width=ow,
                                   sampling_ratio=sr, spatial_scale=float(n.attr("spatial_scale", 1.0)), mode=mode,
                                   coordinate_transformation_mode=coord))


@converter("MaxRoiPool", attrs=("pooled_shape", "spatial_scale"))
def max_roi_pool(n: Node):
    """relay.vision.roi_pool; the rois [R, 5] (batch index, x1, y1, x2, y2) are run-time
    data, their number static."""
    _float_input(n)
    if n.rank(0) != 4:
        raise n.error(f"the input must be NCHW (rank 4), got rank {n.rank(0)}")
    rois = n.shape(1)
    if len(rois) != 2 or rois[1] != 5:
        raise n.error(f"rois {list(rois)} must be [R, 5]")
    if n.dtype(1) != n.dtype(0):
        raise n.error(f"the rois' type {n.dtype(1)} must be the input's ({n.dtype(0)})")
    pooled = n.ints("pooled_shape")
    if pooled is None or len(pooled) != 2 or min(pooled) < 1:
        raise n.error(f"pooled_shape {pooled} must be two positive extents")
    scale = float(n.attr("spatial_scale", 1.0))
    if not np.isfinite(scale):
        raise n.error(f"spatial_scale {scale} must be finite")
    return n.emit(relay.RoiPoolOp(n.input(0), n.input(1), pooled_shape=pooled, spatial_scale=scale))


@converter("MaxUnpool", attrs=("kernel_shape", "pads", "strides"))
def max_unpool(n: Node):
    """relay.nn.max_unpool into the unpooled shape ((in - 1) * stride - pads + kernel);
    a larger output_shape gets zeros at the end of each axis, as ONNX's reference (the
    indices index the unpooled shape)."""
    dims = n.shape(0)
    d = len(dims) - 2
    if d < 1:
        raise n.error(f"the input must have rank >= 3, got {len(dims)}")
    if tuple(n.shape(1)) != tuple(dims):
        raise n.error(f"the indices {list(n.shape(1))} must have the input's shape {list(dims)}")
    kernel = n.ints("kernel_shape")
    if kernel is None or len(kernel) != d:
        raise n.error(f"kernel_shape {kernel} must have {d} entries")
    strides = n.ints("strides", [1] * d)
    pads = n.ints("pads", [0] * (2 * d))
    if len(strides) != d or len(pads) != 2 * d or any(s < 1 for s in strides) or any(p < 0 for p in pads):
        raise n.error(f"strides {strides} must be {d} positive and pads {pads} {2 * d} non-negative entries")
    inferred = [dims[0], dims[1]] + [(i - 1) * s - pads[a] - pads[a + d] + k
                                     for a, (i, s, k) in enumerate(zip(dims[2:], strides, kernel))]
    if min(inferred) < 1:
        raise n.error(f"the unpooled shape {inferred} is empty")
    y = n.emit(relay.MaxUnpoolOp(n.input(0), n.input(1), shape=inferred))
    if not n.has(2):
        return y
    want = [int(s) for s in n.const(2, "the output_shape input").reshape(-1)]
    if len(want) != len(dims) or want[:2] != inferred[:2] or any(w < i for w, i in zip(want, inferred)):
        raise n.error(f"output_shape {want} must be at least the unpooled shape {inferred}")
    if want == inferred:
        return y
    widths = [v for w, i in zip(want, inferred) for v in (0, w - i)]
    return n.emit(relay.PadOp(y, pad_width=widths, pad_value=0.0))


# --------------------------------------------------------------------------------------
# DeformConv: grid samples and a grouped product
# --------------------------------------------------------------------------------------


@converter("DeformConv", attrs=("dilations", "group", "kernel_shape", "offset_group", "pads", "strides"))
def deform_conv(n: Node):
    """2-D DeformConv as ONNX's reference computes it: each kernel tap k of output (i, j)
    reads x bilinearly (zeros outside) at (i·stride − pad + k·dilation + offset): one
    relay.image.grid_sample per offset group of the pixel coordinates (normalized with
    align_corners = 0, whose inverse is exact up to rounding) over [K·OH, OW], times the
    mask, then the grouped product with the weight [group, OC/group, IC/group·K] (a
    batch_matmul) and the bias."""
    dt = _float_input(n)
    x_dims, w_dims, o_dims = n.shape(0), n.shape(1), n.shape(2)
    if len(x_dims) != 4 or len(w_dims) != 4 or len(o_dims) != 4:
        raise n.error(f"only 2-D DeformConv (rank-4 input, weight and offset) is supported, got ranks "
                      f"{len(x_dims)}, {len(w_dims)}, {len(o_dims)}")
    nb, ic, ih, iw = x_dims
    oc, icg, kh, kw = w_dims
    ks = n.ints("kernel_shape")
    if ks is not None and list(ks) != [kh, kw]:
        raise n.error(f"kernel_shape {ks} does not match the weight's spatial shape {[kh, kw]}")
    group, og = n.attr("group", 1), n.attr("offset_group", 1)
    if group < 1 or og < 1 or ic != icg * group or oc % group or ic % og:
        raise n.error(f"group {group} and offset_group {og} must divide the channels (input {ic}, weight "
                      f"{list(w_dims)})")
    strides, dil = n.ints("strides", [1, 1]), n.ints("dilations", [1, 1])
    pads = n.ints("pads", [0, 0, 0, 0])
    if len(strides) != 2 or len(dil) != 2 or len(pads) != 4 or min(strides + dil) < 1 or min(pads) < 0:
        raise n.error(f"strides {strides} and dilations {dil} must be 2 positive, pads {pads} 4 non-negative entries")
    oh = (ih + pads[0] + pads[2] - dil[0] * (kh - 1) - 1) // strides[0] + 1
    ow = (iw + pads[1] + pads[3] - dil[1] * (kw - 1) - 1) // strides[1] + 1
    k = kh * kw
    if oh < 1 or ow < 1 or tuple(o_dims) != (nb, og * k * 2, oh, ow):
        raise n.error(f"the offset {list(o_dims)} must be [{nb}, {og * k * 2}, {oh}, {ow}]")
    if n.has(4) and tuple(n.shape(4)) != (nb, og * k, oh, ow):
        raise n.error(f"the mask {list(n.shape(4))} must be [{nb}, {og * k}, {oh}, {ow}]")
    if n.has(3) and tuple(n.shape(3)) != (oc,):
        raise n.error(f"the bias {list(n.shape(3))} must be [{oc}]")
    # Pixel coordinates of tap (r, t) of output (i, j), before the offsets.
    taps_h = np.repeat(np.arange(kh) * dil[0], kw)  # [K]
    taps_w = np.tile(np.arange(kw) * dil[1], kh)
    base_h = taps_h[:, None, None] + (np.arange(oh) * strides[0] - pads[0])[None, :, None]  # [K, OH, 1]
    base_w = taps_w[:, None, None] + (np.arange(ow) * strides[1] - pads[1])[None, None, :]  # [K, 1, OW]
    # Normalized (align_corners = 0): g = (2 * p + 1) / size - 1 = offset * (2 / size) + const.
    off = reshaped(n, n.value(2), (nb * og, k, 2, oh, ow))
    parts = []
    for axis, size, base in ((1, iw, base_w), (0, ih, base_h)):  # the grid lists x first
        o = n.emit(relay.StridedSliceOp(n.importer.materialize(off), begin=[axis], end=[axis + 1], axes=[2]))
        scaled = _mul(n, o, _scalar(n, 2.0 / size, dt))
        shift = ((2.0 * base + 1.0) / size - 1.0).reshape(k, 1, *base.shape[1:]).astype(dt)
        parts.append(n.emit(relay.AddOp(scaled, n.const_value(shift))))
    grid = n.emit(relay.ConcatenateOp(*parts, axis=2))  # [N*G, K, 2, OH, OW]
    grid = n.emit(relay.TransposeOp(grid, axes=[0, 1, 3, 4, 2]))
    grid = reshaped(n, grid, (nb * og, k * oh, ow, 2))
    data = reshaped(n, n.value(0), (nb * og, ic // og, ih, iw))
    samples = n.emit(relay.GridSampleOp(n.importer.materialize(data), n.importer.materialize(grid)))
    samples = reshaped(n, samples, (nb, og, ic // og, k, oh, ow))
    if n.has(4):
        mask = reshaped(n, n.value(4), (nb, og, 1, k, oh, ow))
        samples = _mul(n, samples, n.importer.materialize(mask))
    cols = reshaped(n, samples, (nb, group, icg * k, oh * ow))
    w = reshaped(n, n.value(1), (group, oc // group, icg * k))
    y = n.emit(relay.BatchMatmulOp(n.importer.materialize(w), n.importer.materialize(cols), transpose_b=False))
    y = reshaped(n, y, (nb, oc, oh, ow))
    if n.has(3):
        y = n.emit(relay.BiasAddOp(n.importer.materialize(y), n.input(3), axis=1))
    return y
