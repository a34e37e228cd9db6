"""tile-for-scratchpad: split accelerator ops whose operands do not fit the scratchpad.

Runs on the logical form (after `lower-to-accel`, before `insert-dma`). An op whose
working set (inputs, weights, bias and output, each aligned) exceeds the target's
scratchpad is split into tiles that fit, twice over for the streamed operands when
`double-buffer` is set and they fit so (so `optimize-dma` can overlap the next tile's
transfer with the current compute; an op whose tiles fit only once is tiled
single-buffered). What fits, and which tiling is cheapest, is planned by
`accel.compiler.tile_plan` (`plan_tiles`), which annotate-target also asks: an op whose
smallest tiles do not fit never reaches this pass from a partitioned model.

- `accel.conv2d`: output channels (whole groups) and output rows; each row tile reads
  the input rows its windows need (with the halo) and gets its own padding;
- `accel.pool`: channels and output rows, likewise;
- `accel.matmul`: output features (weight rows) and data rows (feature tiles in a loop
  around the row loops, as a conv's channel tiles, unless K is split or the features
  have quantization parameters of their own; unrolled over one row tile); when one row
  and one feature with whole K rows do not fit, a float product on a target that
  accumulates is also split along K: the first K tile writes the output tile, the later ones (unrolled)
  add to it on the device (`accumulate`), and only the last applies bias and activation;
  a batched product along its batch dims (whole matrices);
- `accel.eltwise`: its leading dimensions (row ops keep their rows whole; a broadcast rhs
  is cut along the dims it shares with the output);
- `memref.copy` (an input of a concatenation copied into its slice of the output, which
  insert-dma stages through one scratchpad buffer): likewise, in copies of slices.

Row tiles run in `scf.for` loops over `memref.subview`s, with the first and last tiles
peeled when their padding or size differs. Channel tiles of a conv or pool run in a loop
too (weights, bias and output sliced at the loop's channel; where the channels are not
a whole number of tiles, the last tile is shifted inwards to end at the last channel,
`arith.minsi` of the loop's channel and its start, and computes the few channels it
shares with the tile before again):
inside a row tile (rows outside channels), or around the row loops (channels outside
rows: the loop holds each channel tile's weight load and row loops, double-buffered
inside it). They are unrolled where per-channel quantization scales must be static
slices, where all the weights stay on the device across row tiles (optimize-dma hoists
or forwards each unrolled tile's weights; a channel loop would reload them per row
tile), or where there are only a few of them (`MIN_CHANNEL_LOOP`). A shared input tile
is built before its channel loop, so that optimize-dma hoists its transfer out of it.

A tuning configuration on an op (`accel.tuning`, see apply-tuning and
compiler/targets/tuning_space.py) fixes the knobs it names: channel/row tiles (conv,
pool), row/feature/K tiles (2-D products), slices of the outermost axis per tile
(element-wise ops: `outer_tile`), the resident operand (rows inside or outside channels; a product's row tiles outside or inside its feature tiles), and whether tiles are sized for double buffering; such an op is tiled even when
it fits whole, and a configuration that does not fit is an error, never shrunk.

Before (a 1x64x56x56 conv, 3.2 MB of operands):

    accel.conv2d ins(%x, %w, %b : ...) outs(%y : memref<1x64x56x56xf32>) {padding = [1, 1, 1, 1]}

After (sketch):

    scf.for %r = %c0 to %c56 step %c8 {
      %xi = memref.subview %x[0, 0, %lo, 0] [1, 64, 10, 56] [1, 1, 1, 1] : ...
      %yi = memref.subview %y[0, 0, %r, 0] [1, 64, 8, 56] [1, 1, 1, 1] : ...
      accel.conv2d ins(%xi, %w, %b : ...) outs(%yi : ...) {padding = [0, 1, 0, 1]}
    }
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from xdsl.context import Context
from xdsl.dialects import arith, memref, scf
from xdsl.dialects.builtin import IndexType, ModuleOp
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from accel.compiler.diagnostics import CompileError
from accel.compiler.index_arith import IndexConstants, hoist_index_constants, make_index
from accel.compiler.ir_build import index_op, root, subview, subview_type
from accel.compiler.targets.context import target_context
from accel.compiler.tensors import numpy_dtype
from accel.compiler.tile_plan import (BatchPlan, ComputeShape, EltwisePlan, MatmulPlan, NoFit, RowTile, SpatialPlan,
                                      plan_copy, plan_tiles, row_tiles)
from accel.dialects import accel
from accel.dialects.conventions import PLACEMENT_ATTR, accelerator_functions, tuning_of

MIN_CHANNEL_LOOP = 4
"""Channel tiles of one size run in a loop from this many on (see `emit_spatial`)."""

SHIFT_LIMIT = 64
"""A last tile is shifted inwards (`shifted_loops`) when what it computes again is at most
1/SHIFT_LIMIT of the extent: its extra transfers (weights of the channels computed twice,
per row tile where weights stream) cost up to that share of the op's traffic, where the
tile of its own it replaces costs a loop with its prologue and peeled iteration in the
code. (1/32 would also shift the tiles of 6 or 11 of 64 channels whose weights stream
per row tile on a 64 KiB scratchpad: 5 % more bytes on bench/dma.py's cnn_large_resnet.)"""

_UNPLANNED = object()
"""A shape not planned yet (in `TileForScratchpad.apply`'s plans by shape)."""

# --------------------------------------------------------------------------------------
# Helpers: IR building inside the current insertion point
# --------------------------------------------------------------------------------------


class Emitter:
    """Builds ops at an insertion point; index arithmetic folds constants. `constants`:
    the function's index constants (`IndexConstants`) if the caller keeps them, else
    each is built at the insertion point."""

    def __init__(self, point: InsertPoint, constants: IndexConstants | None = None):
        self.point = point
        self.constants = constants

    def add(self, op: Operation) -> Operation:
        Rewriter.insert_op(op, self.point)
        return op

    def const(self, v: int) -> SSAValue:
        return make_index(self.point, v) if self.constants is None else self.constants.get(v)

    def index(self, v: int | SSAValue) -> SSAValue:
        return self.const(v) if isinstance(v, int) else v

    def affine(self, iv: SSAValue | None, scale: int, offset: int) -> int | SSAValue:
        """scale * iv + offset (iv None: just offset)."""
        if iv is None:
            return offset
        v = iv
        if scale != 1:
            v = self.add(index_op(arith.MuliOp, v, self.const(scale))).results[0]
        if offset:
            v = self.add(index_op(arith.AddiOp, v, self.const(offset))).results[0]
        return v

    def subview(self, source: SSAValue, offsets: list[int | SSAValue], sizes: list[int]) -> SSAValue:
        if all(isinstance(o, int) and o == 0 for o in offsets) and tuple(sizes) == tuple(source.type.get_shape()):
            return source
        strides = [1] * len(sizes)
        rtype = subview_type(source.type, offsets, sizes, strides)
        return self.add(subview(source, offsets, sizes, strides, rtype)).results[0]

    def loop(self, start: int, count: int, step: int) -> tuple[SSAValue | None, "Emitter"]:
        """A loop over `count` values start, start+step, ...; one value needs no loop."""
        if count == 1:
            return None, self
        body = Block(arg_types=[IndexType()])
        body.add_op(scf.YieldOp())
        lb, ub, st = self.const(start), self.const(start + count * step), self.const(step)
        self.add(scf.ForOp(lb, ub, st, [], Region(body)))
        return body.args[0], Emitter(InsertPoint.before(body.last_op), self.constants)


def group_tiles(tiles: list[RowTile]) -> list[tuple[RowTile, int, int]]:
    """Runs of tiles with the same signature at a constant step: (first, count, step).
    Within a run the input row is affine in the output row (same top padding)."""
    groups: list[tuple[RowTile, int, int]] = []
    for t in tiles:
        if groups:
            first, count, step = groups[-1]
            if t.signature() == first.signature() and (count == 1 or t.start - first.start == step * count):
                groups[-1] = (first, count + 1, t.start - first.start if count == 1 else step)
                continue
        groups.append((t, 1, 0))
    return groups


def uniform_runs(extent: int, tile: int) -> list[tuple[int, int, int]]:
    """Tiles of `tile` over [0, extent) as runs of equal size: (first start, count, size);
    the last, smaller tile (if any) is a run of its own (it is peeled out of the loop)."""
    runs: list[list[int]] = []
    for start in range(0, extent, tile):
        size = min(tile, extent - start)
        if runs and runs[-1][2] == size:
            runs[-1][1] += 1
        else:
            runs.append([start, 1, size])
    return [(a, b, c) for a, b, c in runs]


@dataclass(frozen=True)
class TileLoop:
    """`count` tiles of `size` from `start`, each starting at most at `last` (a last tile
    shifted inwards: see `shifted_loops`); one tile is unrolled (no loop)."""

    start: int
    count: int
    size: int
    last: int

    def open(self, e: Emitter) -> tuple[int | SSAValue, Emitter]:
        """The loop over the run's tiles at `e` (none for one tile), and the first index of
        the tile in its body."""
        shifted = self.last < self.start + (self.count - 1) * self.size
        bound = e.const(self.last) if shifted else None  # before the loop, once
        iv, body = e.loop(self.start, self.count, self.size)
        if iv is None:
            return self.start, body
        return (iv if bound is None else body.add(index_op(arith.MinSIOp, iv, bound)).results[0]), body


def shifted_loops(extent: int, tile: int, shift: bool = True) -> list[TileLoop]:
    """The runs of `uniform_runs` as loops. With `shift`, a smaller last tile after at
    least `MIN_CHANNEL_LOOP` whole ones becomes the loop's last iteration: a whole tile
    shifted inwards to end at `extent`, where the indices it shares with the tile before
    (computed again, the same values) are at most 1/`SHIFT_LIMIT` of the extent. One loop
    instead of a loop and a tile of its own with its transfers and prefetches (for a
    conv's channels, its row loops too). Only for ops whose tile does not read what its
    output held (not in place)."""
    runs = uniform_runs(extent, tile)
    if shift and len(runs) == 2 and runs[0][1] >= MIN_CHANNEL_LOOP and (tile - runs[1][2]) * SHIFT_LIMIT <= extent:
        return [TileLoop(0, runs[0][1] + 1, tile, extent - tile)]
    return [TileLoop(start, count, size, start + (count - 1) * size) for start, count, size in runs]


def tile_loops(extent: int, tile: int, looped: bool) -> list[TileLoop]:
    """Channel or feature tiles of `tile` over [0, extent): with `looped`, at least
    `MIN_CHANNEL_LOOP` of them run in one loop (`shifted_loops`); otherwise every tile is
    its own run."""
    if looped and extent // tile >= MIN_CHANNEL_LOOP:
        return shifted_loops(extent, tile)
    return [TileLoop(start, 1, min(tile, extent - start), start) for start in range(0, extent, tile)]


# --------------------------------------------------------------------------------------
# Convolution and pooling
# --------------------------------------------------------------------------------------


QUANT_PER_CHANNEL = ("in_scale", "weight_zero_point")
"""The quantization parameters of a conv or product that may hold one value per output
channel (`_slice_quant` slices them per tile)."""


def per_channel_quant(op: accel.ComputeOp) -> bool:
    """Whether `op` has a quantization parameter per output channel (a tile of them is a
    static slice: such tiles cannot run in a loop)."""
    return any(len(op.prop(name)) > 1 for name in QUANT_PER_CHANNEL)


def channel_tiles_can_loop(op: accel.ComputeOp) -> bool:
    """Whether the channel tiles of a conv or pool can run in a loop: every slice they take
    is affine in the loop's first output channel. Not with per-channel quantization scales
    (static slices of an attribute), nor in a grouped conv whose groups' input channels
    are not a whole multiple of their output channels."""
    if not isinstance(op, accel.Conv2DOp):
        return True
    if per_channel_quant(op):
        return False
    groups = op.prop("groups")
    c, oc = op.inputs[0].type.get_shape()[1], op.output.type.get_shape()[1]
    return groups == 1 or (c // groups) % (oc // groups) == 0


def emit_spatial(op: accel.ComputeOp, plan: SpatialPlan, constants: IndexConstants | None = None) -> None:
    """Replace `op` by its tiles (see the module docstring)."""
    conv = isinstance(op, accel.Conv2DOp)
    x, y = op.inputs[0], op.output
    n, c, h, w = x.type.get_shape()
    _, oc, oh, ow = y.type.get_shape()
    strides, dil, pad = op.prop("strides"), op.prop("dilation"), op.prop("padding")
    kh = op.inputs[1].type.get_shape()[2] if conv else op.prop("pool_size")[0]
    tiles = row_tiles(oh, plan.row_tile, kh, strides[0], dil[0], pad[0], h, plan.row_tile)
    groups_of_rows = group_tiles(tiles)
    top = Emitter(InsertPoint.before(op), constants)
    # Channel tiles run in a loop unless the weights stay on the device across row tiles
    # (rows outside channels and all weights fit: unrolled, optimize-dma hoists or
    # forwards each tile's; a loop would reload them per row tile). A loop holding one
    # tile is double-buffered by optimize-dma as row loops are; a loop around row loops
    # (channels outside rows) is not, its row loops are: unrolled, every channel tile
    # would be its own row loop with prologue and peeled iteration, and the final IR of
    # a CNN would be nearly twice as large for the same data movement (the next tile's
    # weights are loaded after the current tile's rows instead of during them). A few
    # tiles stay unrolled: straight-line code costs little to compile there, and
    # optimize-dma prefetches and forwards across its ops more freely than into a loop.
    looped = channel_tiles_can_loop(op) and (len(tiles) == 1 or not (plan.rows_outer and plan.weights_fit))
    channel_runs = tile_loops(oc, plan.channel_tile, looped)

    shared_input = conv and op.prop("groups") == 1  # every channel tile reads all input channels

    def rows_of(e: Emitter, rt: RowTile, riv: SSAValue | None) -> tuple[int | SSAValue, int | SSAValue]:
        """The first output and input rows of row tile `rt` (riv: the loop's output row)."""
        if riv is None:
            return rt.start, rt.in_start
        return e.affine(riv, 1, 0), e.affine(riv, strides[0], rt.in_start - rt.start * strides[0])

    def input_tile(e: Emitter, rt: RowTile, in_row: int | SSAValue, ch: int | SSAValue, size: int) -> SSAValue:
        if shared_input:
            return e.subview(x, [0, 0, in_row, 0], [n, c, rt.in_rows, w])
        if conv:
            per_group, cin_per_group = oc // op.prop("groups"), c // op.prop("groups")
            if isinstance(ch, int):
                cin0 = (ch // per_group) * cin_per_group
            else:
                cin0 = e.affine(ch, cin_per_group // per_group, 0)
            return e.subview(x, [0, cin0, in_row, 0], [n, size // per_group * cin_per_group, rt.in_rows, w])
        return e.subview(x, [0, ch, in_row, 0], [n, size, rt.in_rows, w])

    def emit_tile(e: Emitter, rt: RowTile, rows: tuple[int | SSAValue, int | SSAValue], ch: int | SSAValue, size: int,
                  xs: SSAValue | None = None) -> None:
        # rt is the run's first row tile, `rows` its first output and input rows; ch is
        # the first output channel, `size` channels; xs the input tile when built outside.
        out_row, in_row = rows
        xs = xs or input_tile(e, rt, in_row, ch, size)
        ys = e.subview(y, [0, ch, out_row, 0], [n, size, rt.rows, ow])
        # A pool's last window may reach past the bottom padding in ceil mode: that
        # overhang is not padding (count_include_pad must not count it), so the tile keeps
        # ceil_mode and only the real padding.
        pad_bottom = rt.pad_bottom if conv else min(rt.pad_bottom, pad[2])
        padding = (rt.pad_top, pad[1], pad_bottom, pad[3])
        props: dict[str, Any] = {k: op.properties[k] for k in op.properties}
        props["padding"] = accel.Conv2DOp.PROPS[1].to_attr(padding)
        if conv:
            wt = op.inputs[1]
            ws = e.subview(wt, [ch, 0, 0, 0], [size, *wt.type.get_shape()[1:]])
            ins = [xs, ws]
            if len(op.inputs) > 2:
                ins.append(e.subview(op.inputs[2], [ch], [size]))
            props["groups"] = accel.Conv2DOp.PROPS[3].to_attr(1 if shared_input else size // (oc // op.prop("groups")))
            if isinstance(ch, int):
                _slice_quant(op, props, ch, ch + size)
            new = accel.Conv2DOp(ins, ys, dict(op.attributes), **{k: v for k, v in props.items()})
        else:
            new = accel.PoolOp([xs], ys, dict(op.attributes), **props)
        new.location = op.location
        e.add(new)

    def channel_tiles(e: Emitter, rt: RowTile, riv: SSAValue | None) -> None:
        # The row offsets and a shared input tile are built before the channel loop:
        # invariant in it, the input's transfer is hoisted out of it (optimize-dma).
        rows = rows_of(e, rt, riv)
        xs = input_tile(e, rt, rows[1], 0, oc) if shared_input else None
        for run in channel_runs:
            ch, inner = run.open(e)
            emit_tile(inner, rt, rows, ch, run.size, xs)

    if plan.rows_outer:
        for first, count, step in groups_of_rows:
            riv, inner = top.loop(first.start, count, step or plan.row_tile)
            channel_tiles(inner, first, riv)
    else:
        for run in channel_runs:
            ch, outer = run.open(top)
            for first, rcount, step in groups_of_rows:
                riv, inner = outer.loop(first.start, rcount, step or plan.row_tile)
                emit_tile(inner, first, rows_of(inner, first, riv), ch, run.size)
    Rewriter.erase_op(op)


def _slice_quant(op: accel.ComputeOp, props: dict[str, Any], c0: int, c1: int) -> None:
    """Per-output-channel quantization parameters of a channel tile."""
    for name in QUANT_PER_CHANNEL:
        values = op.prop(name)
        if len(values) > 1:
            kind = next(k for k in op.PROPS if k.name == name)
            props[name] = kind.to_attr(values[c0:c1])


# --------------------------------------------------------------------------------------
# Matrix products and elementwise ops
# --------------------------------------------------------------------------------------


def tile_batched_matmul(op: accel.MatmulOp, plan: BatchPlan, constants: IndexConstants | None = None) -> None:
    """A batched product split along its batch dims: whole matrices per tile, `plan.matrices`
    along the last batch dim (the earlier batch dims one at a time)."""
    a, b, y = op.inputs[0], op.inputs[1], op.output
    shape = list(y.type.get_shape())
    lead = len(shape) - 2
    t = plan.matrices

    def level(e: Emitter, prefix: list[int | SSAValue], depth: int) -> None:
        if depth < lead - 1:
            iv, inner_e = e.loop(0, shape[depth], 1)
            level(inner_e, prefix + [iv if iv is not None else 0], depth + 1)
            return
        for s0, count, size in uniform_runs(shape[depth], t):
            iv, body = e.loop(s0, count, t)
            start = body.affine(iv, 1, 0) if iv is not None else s0
            offsets = prefix + [start]
            sizes = [1] * (lead - 1) + [size]
            ins = [body.subview(v, offsets + [0, 0], sizes + list(v.type.get_shape()[lead:])) for v in (a, b)]
            out = body.subview(y, offsets + [0, 0], sizes + shape[lead:])
            props = {kname: op.properties[kname] for kname in op.properties}
            new = accel.MatmulOp(ins, out, dict(op.attributes), **props)
            new.location = op.location
            body.add(new)

    level(Emitter(InsertPoint.before(op), constants), [], 0)
    del level  # (a recursive closure is a reference cycle: the compile runs without the collector)
    Rewriter.erase_op(op)


def _k_tile_props(op: accel.MatmulOp, first: bool, last: bool) -> dict[str, Any]:
    """Properties of one K tile: later tiles accumulate; bias and activation (kept by the
    caller for the last tile only) apply once, after the last."""
    props = {kname: op.properties[kname] for kname in op.properties}
    if not first:
        props["accumulate"] = next(p for p in accel.MatmulOp.PROPS if p.name == "accumulate").to_attr(True)
    if not last:
        for kind in accel.ACTIVATION:
            props.pop(kind.name, None)
    return props


def tile_matmul(op: accel.MatmulOp, plan: MatmulPlan, constants: IndexConstants | None = None) -> None:
    a, b, y = op.inputs[0], op.inputs[1], op.output
    vector = len(y.type.get_shape()) == 1
    m, n = (1, y.type.get_shape()[0]) if vector else y.type.get_shape()
    ta, tb = op.prop("transpose_a"), op.prop("transpose_b")
    k = a.type.get_shape()[-1] if vector or not ta else a.type.get_shape()[0]
    tm, tn, tk = plan.m_tile, plan.n_tile, plan.k_tile
    k_ranges = [(k0, min(k, k0 + tk)) for k0 in range(0, k, tk)]
    top = Emitter(InsertPoint.before(op), constants)

    def emit_tile(e: Emitter, row: int | SSAValue, size: int, n0: int | SSAValue, features: int) -> None:
        out = e.subview(y, [n0], [features]) if vector else e.subview(y, [row, n0], [size, features])
        for i, (k0, k1) in enumerate(k_ranges):
            last = i == len(k_ranges) - 1
            if vector:
                a_tile = e.subview(a, [k0], [k1 - k0])
            else:
                a_tile = e.subview(a, [k0, row] if ta else [row, k0], [k1 - k0, size] if ta else [size, k1 - k0])
            b_tile = e.subview(b, [n0, k0] if tb else [k0, n0], [features, k1 - k0] if tb else [k1 - k0, features])
            ins = [a_tile, b_tile]
            if len(op.inputs) > 2 and last:
                ins.append(e.subview(op.inputs[2], [n0], [features]))
            props = _k_tile_props(op, i == 0, last)
            if isinstance(n0, int):
                _slice_quant(op, props, n0, n0 + features)
            new = accel.MatmulOp(ins, out, dict(op.attributes), **props)
            new.location = op.location
            e.add(new)

    def row_tiles_of(e: Emitter, n0: int | SSAValue, features: int) -> None:
        for m0, count, size in uniform_runs(m, tm):
            miv, inner = e.loop(m0, count, tm)
            emit_tile(inner, inner.affine(miv, 1, 0) if miv is not None else m0, size, n0, features)

    if plan.rows_outer:
        # Row tiles outside feature tiles (tuned `resident = "input"`): the row tile stays
        # while the weight tiles stream.
        for m0, count, size in uniform_runs(m, tm):
            miv, e = top.loop(m0, count, tm)
            row = e.affine(miv, 1, 0) if miv is not None else m0
            for n0 in range(0, n, tn):
                emit_tile(e, row, size, n0, min(tn, n - n0))
    else:
        # Feature tiles outside row loops (the weight tile stays while rows stream) run in
        # a loop around them, as a conv's channel tiles do, where every slice is affine in
        # its first feature: not with per-feature quantization parameters (static
        # slices), nor with K tiles (optimize-dma keeps their partial sums on the device
        # in straight-line code), nor for a few tiles (`MIN_CHANNEL_LOOP`). Feature tiles
        # of one row tile stay unrolled: optimize-dma issues their loads several tiles
        # ahead (a loop of them is double-buffered, one ahead: 19 % more cycles on a
        # 64-row feed-forward block).
        looped = len(k_ranges) == 1 and m > tm and not per_channel_quant(op)
        for run in tile_loops(n, tn, looped):
            n0, e = run.open(top)
            row_tiles_of(e, n0, run.size)
    Rewriter.erase_op(op)


def _eltwise_tile_of(v: SSAValue, shape: list[int], offsets: list[int | SSAValue], sizes: list[int],
                     e: Emitter) -> SSAValue:
    """The part of operand `v` that an output tile (`offsets`, `sizes` of `shape`) reads:
    the same tile for a full-shape operand; for a broadcast rhs (its dims aligned with the
    output's trailing dims) the tile's trailing part, whole along its broadcast (size 1) dims."""
    vs = list(v.type.get_shape())
    if vs == shape:
        return e.subview(v, offsets, sizes)
    lead = len(shape) - len(vs)
    v_off = [0 if d == 1 else offsets[lead + i] for i, d in enumerate(vs)]
    v_size = [1 if d == 1 else sizes[lead + i] for i, d in enumerate(vs)]
    return e.subview(v, v_off, v_size)


def emit_slices(top: Emitter, shape: list[int], plan: EltwisePlan, emit, shift: bool) -> None:
    """Loops over the slices of `plan` (one at a time along the axes before `plan.axis`,
    `plan.slices` of it per tile; the last smaller tile shifted inwards with `shift`, see
    `shifted_loops`, else peeled): `emit(body, offsets, sizes)` builds one tile."""
    axis, t = plan.axis, plan.slices

    def level(e: Emitter, prefix: list[int | SSAValue], depth: int) -> None:
        if depth < axis:
            iv, inner_e = e.loop(0, shape[depth], 1)
            level(inner_e, prefix + [iv if iv is not None else 0], depth + 1)
            return
        for run in shifted_loops(shape[axis], t, shift):
            start, body = run.open(e)
            emit(body, prefix + [start] + [0] * (len(shape) - axis - 1), [1] * axis + [run.size] + shape[axis + 1:])

    level(top, [], 0)
    del level  # (a recursive closure is a reference cycle: the compile runs without the collector)


def _apart(output: SSAValue, inputs: Sequence[SSAValue]) -> bool:
    """Whether `output` is in a buffer none of `inputs` is in (a tile computed twice then
    writes the same values)."""
    return all(root(output) is not root(v) for v in inputs)


def tile_eltwise(op: accel.EltwiseOp, plan: EltwisePlan, constants: IndexConstants | None = None) -> None:
    shape = list(op.output.type.get_shape())
    rows = op.prop("kind") in accel.EltwiseOp.ROWS
    streamed = [op.inputs[0]] if rows else list(op.inputs)

    def emit(body: Emitter, offsets: list[int | SSAValue], sizes: list[int]) -> None:
        ins = [_eltwise_tile_of(v, shape, offsets, sizes, body) if v in streamed or not rows else v
               for v in op.inputs]
        props = {kname: op.properties[kname] for kname in op.properties}
        new = accel.EltwiseOp(ins, body.subview(op.output, offsets, sizes), dict(op.attributes), **props)
        new.location = op.location
        body.add(new)

    emit_slices(Emitter(InsertPoint.before(op), constants), shape, plan, emit, _apart(op.output, op.inputs))
    Rewriter.erase_op(op)


def tile_copy(copy: memref.CopyOp, plan: EltwisePlan, constants: IndexConstants | None = None) -> None:
    """A copy (an input of a concatenation into its slice of the output) as copies of
    slices, each of which insert-dma stages through a scratchpad buffer that fits."""
    shape = list(copy.source.type.get_shape())

    def emit(body: Emitter, offsets: list[int | SSAValue], sizes: list[int]) -> None:
        new = memref.CopyOp(body.subview(copy.source, offsets, sizes), body.subview(copy.destination, offsets, sizes))
        new.location = copy.location
        body.add(new)

    emit_slices(Emitter(InsertPoint.before(copy), constants), shape, plan, emit, _apart(copy.destination, [copy.source]))
    Rewriter.erase_op(copy)


@dataclass(frozen=True)
class TileForScratchpad(ModulePass):
    """Split accelerator ops whose operands exceed the scratchpad into fitting tiles."""

    name = "tile-for-scratchpad"

    target: tuple[str, ...] = ()
    """Descriptions (names or .toml paths) to load for the regions' `accel.target` names;
    by default the compile's targets, then built-ins by name."""

    double_buffer: bool = True
    """Size streamed tiles so that two of each fit (room for overlapping transfers); an
    op whose tiles fit only once is tiled single-buffered."""

    zero_copy: bool = True
    """Leave targets that share host memory untiled: they compute in place (see insert-dma)."""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        known = target_context(ctx)
        known.load(self.target)
        plans: dict[tuple, Any] = {}  # (target, ComputeShape.key()) -> its plan
        for fn, name in list(accelerator_functions(op)):
            desc = known.named(name, fn)
            if not desc.lowers_to_accel or (desc.memory.shared_with_host and self.zero_copy):
                continue
            if PLACEMENT_ATTR in fn.attributes:
                raise CompileError(f"tile-for-scratchpad: @{fn.sym_name.data} is already placed (run it before insert-dma)", fn)
            constants = IndexConstants(fn)  # the tiles' bounds and offsets, one per value
            for c in [o for o in fn.body.block.ops if isinstance(o, accel.ComputeOp)]:
                # A tuning configuration (apply-tuning) fixes the tiles it names, even of
                # an op that fits whole (smaller tiles let transfers overlap compute).
                # Untuned ops of one shape (repeated blocks) share a plan.
                shape, config = ComputeShape.of_op(c), tuning_of(c)
                key = None if config else shape.key()
                plan = plans.get((desc.name, key), _UNPLANNED) if key is not None else _UNPLANNED
                if plan is _UNPLANNED:  # (a plan of None: the op fits whole)
                    try:
                        plan = plan_tiles(shape, desc, self.double_buffer, config)
                    except NoFit as e:
                        raise CompileError(str(e), c) from None
                    if key is not None:
                        plans[(desc.name, key)] = plan
                if isinstance(plan, SpatialPlan):
                    emit_spatial(c, plan, constants)
                elif isinstance(plan, MatmulPlan):
                    tile_matmul(c, plan, constants)
                elif isinstance(plan, BatchPlan):
                    tile_batched_matmul(c, plan, constants)
                elif isinstance(plan, EltwisePlan):
                    tile_eltwise(c, plan, constants)
            for copy in [o for o in fn.body.block.ops if isinstance(o, memref.CopyOp)]:
                source = copy.source.type
                plan = plan_copy(source.get_shape(), numpy_dtype(source.element_type).itemsize, desc, self.double_buffer)
                if plan is not None:
                    tile_copy(copy, plan, constants)
            hoist_index_constants(fn)  # fuse-layers' tiles built their own
