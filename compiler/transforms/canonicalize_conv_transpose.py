"""canonicalize-conv-transpose: a transposed convolution becomes one ordinary convolution
and a pixel shuffle, so it offloads wherever conv2d does (the sub-pixel form of
Shi et al. 2016; Vela and TFLite delegates lower TransposeConv to convolutions too).

A stride-s transposed convolution computes, for the output cell Y + pad = q*s + r,
y[Y] = sum_t x[q - t] * w[t*s + r] over t < T = ceil(k / s): for each phase r a
stride-1 correlation of x with the taps w[r], w[s + r], ... reversed. All s*s phases are
the output channels of one conv2d (kernel T x T, padding T-1 before), `depth_to_space`
(DCR) interleaves them, and a slice removes the `padding` cells. A `bias_add` (a constant
bias, or a dequantize of one: repeated per phase) and elementwise activations after it move before the pixel
shuffle, so they fuse with the convolution, and so does a per-tensor `quantize` that
ends them (the shuffle then moves int8 data). A weight that is a dequantize of an int8
constant (per tensor, or per output channel: QDQ models) is rearranged under it, its
scales and zero points repeated per phase, so that the convolution is a QDQ one. Groups
other than 1 and dilation other than 1, unequal strides and any other weight are left
alone.

Before:

    %0 = relay.nn.conv2d_transpose %x, %w {strides = [2, 2], padding = [1, 1, 1, 1]} : (tensor<1x4x8x8xf32>, tensor<4x2x4x4xf32>) -> tensor<1x2x16x16xf32>
    %1 = relay.nn.relu %0 : tensor<1x2x16x16xf32>

After:

    %w2 = relay.constant dense<...> : tensor<8x4x2x2xf32>            // [s*s*O, C, T, T]
    %0 = relay.nn.conv2d %x, %w2 {padding = [1, 1, 1, 1]} : (tensor<1x4x8x8xf32>, tensor<8x4x2x2xf32>) -> tensor<1x8x9x9xf32>
    %1 = relay.nn.relu %0 : tensor<1x8x9x9xf32>
    %2 = relay.nn.depth_to_space %1 {block_size = 2} : (tensor<1x8x9x9xf32>) -> tensor<1x2x18x18xf32>
    %3 = relay.strided_slice %2 {begin = [1, 1], end = [17, 17], axes = [2, 3]} : (...) -> tensor<1x2x16x16xf32>
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    PatternRewriter,
    RewritePattern,
    op_type_rewrite_pattern,
)

from accel.compiler.byoc_rewrites import channel_epilogue, discard, per_channel_parts, rebuilt_on, replace_chain
from accel.compiler.pattern_walk import rewrite_module
from accel.compiler.tensors import inline_constant, known_value, per_tensor
from accel.dialects import relay
from accel.dialects.relay import shape_of

# --------------------------------------------------------------------------------------
# Helpers
# --------------------------------------------------------------------------------------


def phase_weight(w: np.ndarray, strides: tuple[int, int], zero: np.ndarray | None = None) -> np.ndarray:
    """[C, O, KH, KW] transposed-convolution taps -> [SH*SW*O, C, TH, TW] convolution
    taps, output channel (rh*SW + rw)*O + o holding phase (rh, rw) reversed; the taps past
    the kernel are `zero` (per output channel: an int8 weight's zero points), else 0."""
    c, o, kh, kw = w.shape
    sh, sw = strides
    th, tw = math.ceil(kh / sh), math.ceil(kw / sw)
    out = np.zeros((sh, sw, o, c, th, tw), dtype=w.dtype)
    if zero is not None:
        out[...] = np.broadcast_to(zero.reshape(-1), (o,)).reshape(1, 1, o, 1, 1, 1)
    for rh in range(sh):
        for uh in range(th):
            ky = (th - 1 - uh) * sh + rh
            if ky >= kh:
                continue
            for rw in range(sw):
                for uw in range(tw):
                    kx = (tw - 1 - uw) * sw + rw
                    if kx < kw:
                        out[rh, rw, :, :, uh, uw] = w[:, :, ky, kx].T
    return out.reshape(sh * sw * o, c, th, tw)


def phase_kernel(weight: SSAValue, strides: tuple[int, int], new_ops: list[Operation]) -> SSAValue | None:
    """The conv2d's weight: `phase_weight` of a constant, or of the int8 constant under a
    dequantize per tensor or along the output channels (axis 1; the scales and zero
    points repeated per phase, along axis 0); None for any other weight."""
    w = known_value(weight)
    if w is not None:
        const = inline_constant(phase_weight(w, strides))
        new_ops.append(const)
        return const.result
    dq = weight.owner
    if not isinstance(dq, relay.DequantizeOp) or (q := known_value(dq.data)) is None:
        return None
    scale, zp = known_value(dq.scale), known_value(dq.zero_point)
    if scale is None or zp is None:
        return None
    if scale.size == 1 and zp.size == 1:
        scale_op, zp_op = dq.scale, dq.zero_point
    elif dq.prop("axis") % 4 == 1:
        phases = strides[0] * strides[1]
        scale_c, zp_c = inline_constant(np.tile(scale.reshape(-1), phases)), inline_constant(np.tile(zp.reshape(-1), phases))
        new_ops += [scale_c, zp_c]
        scale_op, zp_op = scale_c.result, zp_c.result
    else:
        return None
    const = inline_constant(phase_weight(q, strides, zp))
    moved = relay.DequantizeOp(const.result, scale_op, zp_op, axis=0)
    new_ops += [const, moved]
    return moved.result


def tiled_bias(bias: SSAValue, channels: int, phases: int, new_ops: list[Operation]) -> SSAValue:
    """The bias (`per_channel_parts`) repeated for each of `phases` phases along the channels."""
    def tiled(v: SSAValue) -> SSAValue:
        values = known_value(v)
        if values.ndim == 0:  # a per-tensor scale or zero point
            return v
        const = inline_constant(np.tile(values.reshape(channels), phases))
        new_ops.append(const)
        return const.result

    parts = [tiled(v) for v in per_channel_parts(bias, channels)]
    if len(parts) == 1:
        return parts[0]
    dq = relay.DequantizeOp(*parts, axis=0)
    new_ops.append(dq)
    return dq.result


# --------------------------------------------------------------------------------------
# Pattern
# --------------------------------------------------------------------------------------


class ConvTransposeToConv(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: relay.Conv2DTransposeOp, rewriter: PatternRewriter) -> None:
        if op.prop("groups") != 1 or tuple(op.prop("dilation")) != (1, 1):
            return
        sh, sw = op.prop("strides")
        if sh != sw:
            return  # depth_to_space has one block size
        h, wd = shape_of(op.data.type)[2:]
        _, o, oh, ow = shape_of(op.result.type)
        top, left = op.prop("padding")[0], op.prop("padding")[1]
        new_ops: list[Operation] = []
        kernel = phase_kernel(op.weight, (sh, sw), new_ops)
        if kernel is None:
            discard(new_ops)
            return
        th, tw = shape_of(kernel.type)[2:]
        # Enough phase rows q that q*s covers the cropped window [top, top + oh).
        qh, qw = math.ceil((top + oh) / sh), math.ceil((left + ow) / sw)
        pad = [th - 1, tw - 1, max(0, qh - h), max(0, qw - wd)]
        conv = relay.Conv2DOp(op.data, kernel, padding=pad)
        conv.location = op.location
        new_ops.append(conv)
        v = conv.result
        epilogue = channel_epilogue(op.result, 1, o)
        for e in epilogue:
            if isinstance(e, relay.BiasAddOp):
                new = relay.BiasAddOp(v, tiled_bias(e.bias, o, sh * sw, new_ops), axis=1)
                new.location = e.location
                new_ops.append(new)
            else:
                new = rebuilt_on(e, v)
                new_ops.append(new)
            v = new.results[0]
        if sh != 1:
            d2s = relay.DepthToSpaceOp(v, block_size=sh, mode="DCR")
            new_ops.append(d2s)
            v = d2s.result
        full_h, full_w = shape_of(v.type)[2:]
        if (top, left, top + oh, left + ow) != (0, 0, full_h, full_w):
            crop = relay.StridedSliceOp(v, begin=[top, left], end=[top + oh, left + ow], axes=[2, 3])
            new_ops.append(crop)
            v = crop.result
        last = epilogue[-1] if epilogue else op
        read = [op.weight.owner, *(e.bias.owner for e in epilogue if isinstance(e, relay.BiasAddOp))]
        replace_chain(rewriter, new_ops, last, v, [*reversed(epilogue), op,
                                                   *(r for r in read if isinstance(r, relay.DequantizeOp))])


# --------------------------------------------------------------------------------------
# Pass
# --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class CanonicalizeConvTranspose(ModulePass):
    """Transposed convolutions become a conv2d (all stride phases as channels) and a pixel shuffle."""

    name = "canonicalize-conv-transpose"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        rewrite_module(op, ConvTransposeToConv(), apply_recursively=False)
