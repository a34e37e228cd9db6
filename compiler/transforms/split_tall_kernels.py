"""split-tall-kernels: a convolution taller than every target's `max_kernel` becomes
convolutions over slices of its kernel rows, summed, so that it offloads.

Runs first in `byoc` (before patterns are matched). A float conv2d whose kernel height
exceeds the largest `max_kernel` height of the targets' `relay.nn.conv2d` entries (and
whose width fits that entry) is split into n = ceil(kh / limit) row slices of
ceil(kh / n) rows. Slice k0..k0+L reads, for output row o, input rows
o * s - top + (k0 + i) * d: a conv with kernel W[:, :, k0:k0+L], top padding
top - k0 * d and the bottom padding that gives the same output height. A slice whose
first row lies below the input's first row would need a crop (a negative padding, which
conv2d has not): such a conv is left alone. A `bias_add` reading only the conv moves to
the last slice, so that slice and its bias match the targets' conv+bias patterns.

The sum is the same products added in another order: in float it is not bit-identical
to the one convolution (rounding within a few ulps of the accumulated magnitude; the
tests allow 1e-5 relative to the output's max). Integer (QDQ) convolutions are left
alone: their sum would have to stay on the accumulator.

Before (DS-CNN's first layer, the npu's max_kernel = [7, 7]):

    %0 = relay.nn.conv2d %x, %w {strides = [2, 2], padding = [5, 1, 5, 1]} : (tensor<1x1x49x10xf32>, tensor<64x1x10x4xf32>) -> tensor<1x64x25x5xf32>
    %1 = relay.nn.bias_add %0, %b : ...

After:

    %w0 = relay.constant ... : tensor<64x1x5x4xf32>        // kernel rows 0..4
    %w1 = relay.constant ... : tensor<64x1x5x4xf32>        // kernel rows 5..9
    %0 = relay.nn.conv2d %x, %w0 {strides = [2, 2], padding = [5, 1, 0, 1]} : ... -> tensor<1x64x25x5xf32>
    %1 = relay.nn.conv2d %x, %w1 {strides = [2, 2], padding = [0, 1, 4, 1]} : ... -> tensor<1x64x25x5xf32>
    %2 = relay.nn.bias_add %1, %b : ...
    %3 = relay.add %2, %0 : ...
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern

from accel.compiler.byoc_rewrites import replace_chain, rewrite_each
from accel.compiler.targets import target_context
from accel.compiler.tensors import inline_constant, known_value
from accel.dialects import relay
from accel.dialects.relay import shape_of


def row_slices(kh: int, limit: int) -> list[tuple[int, int]]:
    """Kernel rows [k0, k1) in ceil(kh / limit) slices of at most `limit` rows."""
    n = math.ceil(kh / limit)
    size = math.ceil(kh / n)
    return [(k0, min(kh, k0 + size)) for k0 in range(0, kh, size)]


def slice_padding(op: relay.Conv2DOp, k0: int, k1: int) -> tuple[int, int] | None:
    """Top and bottom padding of the conv over kernel rows [k0, k1) with `op`'s output
    rows; None when it would need a negative padding (a crop)."""
    h = shape_of(op.data.type)[2]
    oh = shape_of(op.result.type)[2]
    s, d = op.prop("strides")[0], op.prop("dilation")[0]
    pad_top = op.prop("padding")[0]
    first = k0 * d - pad_top  # the input row read by output row 0's first tap
    last = (oh - 1) * s + (k1 - 1) * d - pad_top
    if first > 0:
        return None
    top, bottom = -first, max(0, last - (h - 1))
    # Rows below `last` that no window reaches must not add an output row.
    if (h + top + bottom - d * (k1 - k0 - 1) - 1) // s + 1 != oh:
        return None
    return top, bottom


class SplitTallKernel(RewritePattern):
    def __init__(self, limits: list[tuple[int, int]]):
        super().__init__()
        self.limits = limits  # (height, width) of max_kernel per conv2d entry

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: relay.Conv2DOp, rewriter: PatternRewriter) -> None:
        w = known_value(op.weight)
        if w is None or w.dtype.kind != "f":
            return
        kh, kw = w.shape[2:]
        fits = [h for h, wd in self.limits if kw <= wd]
        if not fits or kh <= max(fits) or any(kh <= h and kw <= wd for h, wd in self.limits):
            return
        slices = row_slices(kh, max(fits))
        pads = [slice_padding(op, k0, k1) for k0, k1 in slices]
        if any(p is None for p in pads):
            return
        uses = [u.operation for u in op.result.uses]
        bias = uses[0] if len(uses) == 1 and isinstance(uses[0], relay.BiasAddOp) and \
            uses[0].data is op.result else None
        new_ops: list[Operation] = []
        parts = []
        props = op.py_props()
        left, right = props["padding"][1], props["padding"][3]
        for (k0, k1), (top, bottom) in zip(slices, pads):
            w_op = inline_constant(np.ascontiguousarray(w[:, :, k0:k1]))
            conv = relay.Conv2DOp(op.data, w_op.result, **{**props, "padding": [top, left, bottom, right]})
            conv.location = op.location
            new_ops += [w_op, conv]
            parts.append(conv.result)
        if bias is not None:
            moved = relay.BiasAddOp(parts[-1], bias.bias, **bias.py_props())
            moved.location = bias.location
            new_ops.append(moved)
            parts[-1] = moved.result
        v = parts[-1]
        for part in reversed(parts[:-1]):
            add = relay.AddOp(v, part)
            add.location = op.location
            new_ops.append(add)
            v = add.result
        replace_chain(rewriter, new_ops, bias if bias is not None else op, v, [bias, op] if bias is not None else [op])


@dataclass(frozen=True)
class SplitTallKernels(ModulePass):
    """Convolutions taller than every target's max_kernel become summed kernel-row slices."""

    name = "split-tall-kernels"

    target: tuple[str, ...] = ()
    """Targets whose `relay.nn.conv2d` entries give the limit (default: --target)."""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        entries = [e for d in target_context(ctx).resolve(self.target, self.name) for e in d.ops
                   if e.op == "relay.nn.conv2d" and "f32" in (e.limits.dtypes or d.dtypes)]
        limits = [e.limits.max_kernel for e in entries if e.limits.max_kernel is not None]
        if limits and len(limits) == len(entries):  # an entry without a limit takes any kernel
            rewrite_each(op, SplitTallKernel(limits), (relay.Conv2DOp,))
