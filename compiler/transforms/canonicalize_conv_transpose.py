"""canonicalize-conv-transpose: a transposed convolution becomes one ordinary convolution
and a pixel shuffle, so it offloads wherever conv2d does (the sub-pixel form of
Shi et al. 2016; Vela and TFLite delegates lower TransposeConv to convolutions too).

A stride-s transposed convolution computes, for the output cell Y + pad = q*s + r,
y[Y] = sum_t x[q - t] * w[t*s + r] over t < T = ceil(k / s): for each phase r a
stride-1 correlation of x with the taps w[r], w[s + r], ... reversed. All s*s phases are
the output channels of one conv2d (kernel T x T, padding T-1 before), `depth_to_space`
(DCR) interleaves them, and a slice removes the `padding` cells. A `bias_add` (constant
bias, repeated per phase) and elementwise activations after it move before the pixel
shuffle, so they fuse with the convolution. Groups other than 1 and dilation other
than 1, unequal strides and a weight that is not a constant are left alone.

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
from xdsl.ir import Operation
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)

from accel.compiler.conv_rewrites import replace_chain
from accel.compiler.tensors import inline_constant, known_value
from accel.compiler.transforms.canonicalize_linear import ELEMENTWISE
from accel.dialects import relay
from accel.dialects.relay import shape_of

# --------------------------------------------------------------------------------------
# Helpers
# --------------------------------------------------------------------------------------


def phase_weight(w: np.ndarray, strides: tuple[int, int]) -> np.ndarray:
    """[C, O, KH, KW] transposed-convolution taps -> [SH*SW*O, C, TH, TW] convolution
    taps, output channel (rh*SW + rw)*O + o holding phase (rh, rw) reversed."""
    c, o, kh, kw = w.shape
    sh, sw = strides
    th, tw = math.ceil(kh / sh), math.ceil(kw / sw)
    out = np.zeros((sh, sw, o, c, th, tw), dtype=w.dtype)
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


def _epilogue(v, channels: int) -> tuple[list[Operation], np.ndarray | None]:
    """The ops after the transposed convolution that move before the pixel shuffle: an
    optional bias_add of a constant along the channels, then elementwise activations;
    each the only use of the value before it."""
    ops: list[Operation] = []
    bias = None
    while v.has_one_use():
        user = next(iter(v.uses)).operation
        if (isinstance(user, relay.BiasAddOp) and bias is None and not ops and user.data is v
                and user.prop("axis") % 4 == 1 and (b := known_value(user.bias)) is not None and b.size == channels):
            bias = b.reshape(channels)
        elif isinstance(user, ELEMENTWISE):
            pass
        else:
            break
        ops.append(user)
        v = user.results[0]
    return ops, bias


def _recreate(op: Operation, operand) -> Operation:
    """`op` (an elementwise activation) applied to `operand` instead."""
    new = type(op)(operand, **op.py_props())
    new.location = op.location
    return new


# --------------------------------------------------------------------------------------
# Pattern
# --------------------------------------------------------------------------------------


class ConvTransposeToConv(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: relay.Conv2DTransposeOp, rewriter: PatternRewriter) -> None:
        w = known_value(op.weight)
        if w is None or op.prop("groups") != 1 or tuple(op.prop("dilation")) != (1, 1):
            return
        sh, sw = op.prop("strides")
        if sh != sw:
            return  # depth_to_space has one block size
        h, wd = shape_of(op.data.type)[2:]
        _, o, oh, ow = shape_of(op.result.type)
        top, left = op.prop("padding")[0], op.prop("padding")[1]
        kernel = phase_weight(w, (sh, sw))
        th, tw = kernel.shape[2:]
        # Enough phase rows q that q*s covers the cropped window [top, top + oh).
        qh, qw = math.ceil((top + oh) / sh), math.ceil((left + ow) / sw)
        pad = [th - 1, tw - 1, max(0, qh - h), max(0, qw - wd)]
        new_ops: list[Operation] = []
        w_op = inline_constant(kernel)
        conv = relay.Conv2DOp(op.data, w_op.result, padding=pad)
        conv.location = op.location
        new_ops += [w_op, conv]
        v = conv.result
        epilogue, bias = _epilogue(op.result, o)
        for e in epilogue:
            if isinstance(e, relay.BiasAddOp):
                b_op = inline_constant(np.tile(bias, sh * sw))
                new = relay.BiasAddOp(v, b_op.result, axis=1)
                new.location = e.location
                new_ops += [b_op, new]
            else:
                new = _recreate(e, v)
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
        replace_chain(rewriter, new_ops, last, v, [*reversed(epilogue), op])


# --------------------------------------------------------------------------------------
# Pass
# --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class CanonicalizeConvTranspose(ModulePass):
    """Transposed convolutions become a conv2d (all stride phases as channels) and a pixel shuffle."""

    name = "canonicalize-conv-transpose"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        PatternRewriteWalker(ConvTransposeToConv(), apply_recursively=False).rewrite_module(op)
