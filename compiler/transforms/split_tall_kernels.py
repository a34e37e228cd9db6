"""split-tall-kernels: a convolution taller or wider than every target's `max_kernel`
becomes convolutions over slices of its kernel, summed, so that it offloads.

Runs in `byoc` after dequantize-integer-products (before patterns are matched). A float conv2d whose kernel no
`max_kernel` of the targets' `relay.nn.conv2d` entries takes (DS-CNN's 10x4 stem, the
9x9 first and last layers of fast style transfer's generators) is split, by the entry
that needs the fewest slices, into n = ceil(kh / limit) row slices of ceil(kh / n) rows
(the same for columns: kernel tiles, rows x columns). Slice k0..k0+L reads, for output
row o, input rows o * s - top + (k0 + i) * d: a conv with kernel W[:, :, k0:k0+L], top
padding top - k0 * d and the bottom padding that gives the same output height (columns
alike, with left and right). A slice whose first tap for output row 0 lies below the
input's first row (a 9x9 kernel padded by 4: its second slice of rows 5..8) reads a
slice of the input instead of a negative padding (`relay.strided_slice`, a copy on the
device), where a target copies slices; else the conv is left alone. A `bias_add`
reading only the conv moves to the last slice, so that slice and its bias match the
targets' conv+bias patterns.

The sum is the same products added in another order: in float it is not bit-identical
to the one convolution (rounding within a few ulps of the accumulated magnitude; the
tests allow 1e-5 relative to the output's max). Integer (QDQ) convolutions are left
alone: their sum would have to stay on the accumulator; so is a convolution whose
strides no conv entry takes (its slices would keep them: unstride-convs makes it a
stride-1 convolution with a kernel s times smaller, an STFT's 256-tap kernel at hop 128 a
2-tap one).

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
from typing import NamedTuple

import numpy as np
from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern

from accel.compiler.byoc_rewrites import replace_chain, rewrite_each, summed_with_bias
from accel.compiler.targets import target_context
from accel.compiler.tensors import inline_constant, known_value
from accel.dialects import relay
from accel.dialects.relay import shape_of


def row_slices(kh: int, limit: int) -> list[tuple[int, int]]:
    """Kernel rows [k0, k1) in ceil(kh / limit) slices of at most `limit` rows."""
    n = math.ceil(kh / limit)
    size = math.ceil(kh / n)
    return [(k0, min(kh, k0 + size)) for k0 in range(0, kh, size)]


class Span(NamedTuple):
    """Along one axis, what the conv over kernel rows (or columns) [k0, k1) reads: input
    rows [start, end) (the whole axis unless a slice of it is needed) and its padding."""

    start: int
    end: int
    before: int
    after: int


def slice_span(op: relay.Conv2DOp, k0: int, k1: int, axis: int = 2) -> Span:
    """The `Span` along `axis` (2: rows, 3: columns) of the conv over kernel rows
    (columns) [k0, k1) with `op`'s output size. Where the slice's first tap for output
    row 0 lies below the input's first row (padding would have to be negative), or rows
    past its last tap would add an output row, the conv reads a slice of the input."""
    i = axis - 2
    size = shape_of(op.data.type)[axis]
    out = shape_of(op.result.type)[axis]
    s, d = op.prop("strides")[i], op.prop("dilation")[i]
    first = k0 * d - op.prop("padding")[i]  # [top, left, bottom, right]: the row output row 0's first tap reads
    last = (out - 1) * s + (k1 - 1) * d - op.prop("padding")[i]
    before, after = max(0, -first), max(0, last - (size - 1))
    if first <= 0 and (size + before + after - d * (k1 - k0 - 1) - 1) // s + 1 == out:
        return Span(0, size, before, after)
    # (empty when every tap of the slice falls in the padding: it adds nothing)
    return Span(max(first, 0), max(min(last, size - 1) + 1, max(first, 0)), before, after)


def kernel_tiles(kh: int, kw: int, limits: list[tuple[int, int]]) -> tuple[list, list] | None:
    """Row and column slices of a kh x kw kernel that fit one entry's max_kernel, the
    fewest slices of any entry's (None when an entry takes the kernel whole)."""
    if any(kh <= h and kw <= w for h, w in limits):
        return None
    h, w = min(limits, key=lambda hw: (math.ceil(kh / hw[0]) * math.ceil(kw / hw[1]), -hw[0]))
    return row_slices(kh, h), row_slices(kw, w)


class SplitTallKernel(RewritePattern):
    def __init__(self, limits: list[tuple[int, int]], strides: list, slices: bool):
        super().__init__()
        self.limits = limits  # (height, width) of max_kernel per conv2d entry
        self.strides = strides  # the strides each conv2d entry takes (None: any)
        self.slices = slices  # whether a target copies slices (relay.strided_slice)

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: relay.Conv2DOp, rewriter: PatternRewriter) -> None:
        w = known_value(op.weight)
        if w is None or w.dtype.kind != "f" or not self.limits:
            return
        split = kernel_tiles(*w.shape[2:], self.limits)
        if split is None or not any(st is None or tuple(op.prop("strides")) in st for st in self.strides):
            return  # (its slices would keep a stride no entry takes: unstride-convs' case)
        rows, cols = split
        h, w_in = shape_of(op.data.type)[2:]
        # (a tile whose taps all fall in the padding reads nothing: it adds nothing)
        tiles = [(r, rs, c, cs) for r, rs in zip(rows, (slice_span(op, *r, 2) for r in rows))
                 for c, cs in zip(cols, (slice_span(op, *c, 3) for c in cols))
                 if rs.end > rs.start and cs.end > cs.start]
        if not tiles or (not self.slices and any((rs.start, rs.end, cs.start, cs.end) != (0, h, 0, w_in)
                                                 for _, rs, _, cs in tiles)):
            return  # (a tile would read a slice of the input, which no target copies)
        uses = [u.operation for u in op.result.uses]
        bias = uses[0] if len(uses) == 1 and isinstance(uses[0], relay.BiasAddOp) and \
            uses[0].data is op.result else None
        new_ops: list[Operation] = []
        parts = []
        props = op.py_props()
        sliced: dict = {}  # (axis, start, end) of the input (or of its row slice) -> value

        def part_of(v, axis: int, span: Span, n: int, key):
            if (span.start, span.end) == (0, n):
                return v, key
            key = (*key, axis, span.start, span.end)
            if key not in sliced:
                cut = relay.StridedSliceOp(v, begin=[span.start], end=[span.end], axes=[axis])
                cut.location = op.location
                new_ops.append(cut)
                sliced[key] = cut.result
            return sliced[key], key

        for (r0, r1), rs, (c0, c1), cs in tiles:
            data, key = part_of(op.data, 2, rs, h, ())
            x, _ = part_of(data, 3, cs, w_in, key)
            w_op = inline_constant(np.ascontiguousarray(w[:, :, r0:r1, c0:c1]))
            conv = relay.Conv2DOp(x, w_op.result, **{**props, "padding": [rs.before, cs.before, rs.after, cs.after]})
            conv.location = op.location
            new_ops += [w_op, conv]
            parts.append(conv.result)
        v = summed_with_bias(parts, op, bias, new_ops)
        replace_chain(rewriter, new_ops, bias if bias is not None else op, v, [bias, op] if bias is not None else [op])


@dataclass(frozen=True)
class SplitTallKernels(ModulePass):
    """Convolutions taller or wider than every target's max_kernel become summed kernel slices."""

    name = "split-tall-kernels"

    target: tuple[str, ...] = ()
    """Targets whose `relay.nn.conv2d` entries give the limit (default: --target)."""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        entries = [e for d in target_context(ctx).resolve(self.target, self.name) for e in d.ops
                   if e.op == "relay.nn.conv2d" and "f32" in (e.limits.dtypes or d.dtypes)]
        limits = [e.limits.max_kernel for e in entries if e.limits.max_kernel is not None]
        slices = any(e.op == "relay.strided_slice" for d in target_context(ctx).resolve(self.target, self.name)
                     for e in d.ops)
        strides = [None if e.limits.strides is None else {tuple(st) for st in e.limits.strides} for e in entries]
        if limits and len(limits) == len(entries):  # an entry without a limit takes any kernel
            rewrite_each(op, SplitTallKernel(limits, strides, slices), (relay.Conv2DOp,))
