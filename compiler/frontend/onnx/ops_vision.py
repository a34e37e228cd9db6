"""Converters of the vision ops spatial transformers, detectors and patch models use:
LpPool, CenterCropPad, AffineGrid and Col2Im composed from relay's own ops; GridSample,
RoiAlign and MaxUnpool as relay ops of their own.

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


@converter("LpPool", attrs=("auto_pad", "ceil_mode", "dilations", "kernel_shape", "p", "pads", "strides"))
def lp_pool(n: Node):
    """(sum over the window of |x|^p)^(1/p) = (area x avg_pool(|x|^p, count_include_pad))^(1/p),
    as ONNX's reference computes it; p = 1 and 2 take no pow."""
    dt = _float_input(n)
    p = n.attr("p", 2)
    if not isinstance(p, int) or p < 1:
        raise n.error(f"p = {p} is not supported (a positive integer)")
    kernel = n.ints("kernel_shape")
    if kernel is None:
        raise n.error("kernel_shape is missing")
    x = n.input(0)
    if p == 1:
        powered = n.emit(relay.AbsOp(x))
    elif p == 2:
        powered = _mul(n, x, x)
    else:
        powered = n.emit(relay.PowerOp(n.emit(relay.AbsOp(x)), _scalar(n, p, dt)))
    avg = pool(n, relay.AvgPool2DOp, x=powered, count_include_pad=True)
    total = _mul(n, avg, _scalar(n, float(np.prod(kernel)), dt))
    if p == 1:
        return total
    if p == 2:
        return n.emit(relay.SqrtOp(total))
    return n.emit(relay.PowerOp(total, _scalar(n, 1.0 / p, dt)))


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
    mesh = np.meshgrid(*axes, indexing="ij")
    # Homogeneous coordinates in the grid's order: x (width) first, then y, (z,) and 1.
    base = np.stack([*reversed(mesh), np.ones_like(mesh[0])], axis=-1).reshape(1, -1, k + 1).astype(dt)
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
    blocks = [(i + b + e - dl * (k - 1) - 1) // s + 1 for i, b, e, dl, k, s in zip(image, begin, end, dil, block, strides)]
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
