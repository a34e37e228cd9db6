"""Tile plans: how an accelerator compute op is split into tiles that fit the scratchpad.

The one home of "which tiles of this op fit the target's scratchpad, and which are
cheapest", asked by

- `tile-for-scratchpad`, which emits the tiles of the plan (`plan_tiles`);
- `annotate-target`, which keeps on the host an op or composite that a target could run
  but whose smallest tiles do not fit its scratchpad (`misfit`), so that everything it
  offloads can be tiled;
- the tuning space (`compiler/tuning/space.py`), which admits a configuration only if
  it plans.

The planners read a `ComputeShape`: a compute op's kind, operand shapes, element sizes
and properties, taken from an `accel` compute op (`ComputeShape.of_op`) or, before
lowering, from the fused form lower-to-accel will build of a relay op or composite
(`ComputeShape.of_plan`): the partitioner and the tiler ask the same functions about the
same numbers.

A tiling's footprint is the sum of its tiles, each aligned: the streamed ones (data and
output tiles; twice over when double-buffered, so that the next tile's transfer overlaps
the current compute) and those that stay (weights and bias, a layer norm's gamma and beta):

- conv2d and pool: output channels (whole groups) by output rows; each row tile reads
  the input rows its windows need (with the halo); a conv with groups = 1 reads every
  input channel in every tile;
- matmul: data rows by output features, with whole K rows; failing that, a float
  product on a target that accumulates is also split along K; a batched product along
  its batch dims, whole matrices per tile;
- eltwise: slices of its outermost axes, every later axis whole (a row op's rows whole);
- a copy staged through the scratchpad (an input of a concatenation): likewise
  (`plan_copy`; one element always fits).

An op that fits whole is not tiled. Otherwise, untuned, it is tiled exactly when its
smallest tiling (one output row and one channel or group per tile; one data row and one
feature, and one element of K when K is split; one matrix of a batch; one element or one
row) fits single-buffered (`needs_tiles`): double buffering is a preference, and an op
whose tiles fit only once is tiled single-buffered. Every planner enumerates the smallest
tiling among its candidates, so `needs_tiles` is exactly the condition under which
`plan_tiles` finds a plan. A tuning configuration that fixes tiles or buffering is
planned as given: it is an error when it does not fit, never shrunk.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from accel.compiler.memory_plan import align
from accel.compiler.targets.fused_forms import ComputePlan, weight_key
from accel.compiler.targets.schema import TargetDescription
from accel.compiler.targets.tuning_space import COMMON_KNOBS, FUSION_OP_KNOBS
from accel.compiler.tensors import numpy_dtype
from accel.dialects import accel, relay
from accel.dialects.relay import is_int8


class NoFit(Exception):
    """No tiling of the op fits the scratchpad (the message says why, naming the op)."""


# --------------------------------------------------------------------------------------
# What the planners read of an op
# --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Buffer:
    shape: tuple[int, ...]
    itemsize: int

    @property
    def nbytes(self) -> int:
        return math.prod(self.shape) * self.itemsize


def _buffer(t) -> Buffer:
    return Buffer(tuple(t.get_shape()), numpy_dtype(t.element_type).itemsize)


@dataclass(frozen=True, eq=False)
class ComputeShape:
    """A compute op as the planners see it: `kind` (an accel compute op class), its
    inputs and output, its properties (defaults filled in), `distinct`, the buffers it
    touches, each once (an input read twice is one buffer), and whether it is int8."""

    kind: type[accel.ComputeOp]
    inputs: tuple[Buffer, ...]
    output: Buffer
    props: dict[str, Any]
    distinct: tuple[Buffer, ...]
    quantized: bool  # an int8 output (an int8 product is never split along K)

    @property
    def name(self) -> str:
        return self.kind.name

    def prop(self, name: str) -> Any:
        return self.props[name]

    def key(self) -> tuple | None:
        """What the plans depend on, hashable (None if a property is not): equal keys,
        equal plans."""
        key = (self.kind, self.inputs, self.output, tuple(self.props.items()), self.distinct, self.quantized)
        try:
            hash(key)
        except TypeError:
            return None
        return key

    @staticmethod
    def of_op(op: accel.ComputeOp) -> ComputeShape:
        values = list(dict.fromkeys([*op.inputs, op.output]))
        return ComputeShape(type(op), tuple(_buffer(v.type) for v in op.inputs), _buffer(op.output.type),
                            {kind.name: op.prop(kind.name) for kind in op.PROPS},
                            tuple(_buffer(v.type) for v in values), op.is_quantized)

    @staticmethod
    def of_plan(plan: ComputePlan) -> ComputeShape:
        """The compute op lower-to-accel builds of `plan` (lower_kernel): an input of the
        body is the kernel's operand, a constant a weight buffer of the given shape (one
        per `weight_key`), a value of an earlier form a fresh buffer."""
        inputs: list[Buffer] = []
        keyed: dict[Any, Buffer] = {}
        consts: dict[tuple[int, tuple[int, ...]], relay.ConstantOp] = {}
        for o, shape in zip(plan.inputs, plan.shapes):
            t = o.value.type
            if o.const is not None:
                shape = tuple(o.const.result.type.get_shape()) if shape is None else tuple(shape)
                key: Any = (id(o.const), shape)
                # Another constant of the same weight buffer (compared only then: it costs).
                key = next((k for k, c in consts.items() if k[1] == shape and k != key
                            and weight_key(c, shape) == weight_key(o.const, shape)), key)
                consts.setdefault(key, o.const)
            else:
                shape = tuple(t.get_shape())
                key = ("input", o.input) if o.input is not None else ("temp", o.temp)
            b = Buffer(shape, numpy_dtype(t.element_type).itemsize)
            inputs.append(b)
            keyed.setdefault(key, b)
        out = _buffer(plan.result.type)
        props = {kind.name: plan.props.get(kind.name, kind.default) for kind in plan.op_type.PROPS}
        return ComputeShape(plan.op_type, tuple(inputs), out, props, (*keyed.values(), out),
                            is_int8(plan.result.type.element_type))


def working_set(s: ComputeShape, alignment: int) -> int:
    """Bytes of the op's buffers, whole, each once and aligned: what it needs untiled."""
    return sum(align(b.nbytes, alignment) for b in s.distinct)


def footprint(streamed: Sequence[int], fixed: Sequence[int], alignment: int, double: bool) -> int:
    """Scratchpad bytes of one tiling: its streamed tiles (twice when double-buffered)
    and the tiles that stay, each aligned."""
    # (loops, not generator sums: the planners' searches ask this thousands of times)
    moving = 0
    for b in streamed:
        moving += align(b, alignment)
    total = 2 * moving if double else moving
    for b in fixed:
        total += align(b, alignment)
    return total


@functools.cache
def candidates(n: int) -> tuple[int, ...]:
    """Tile sizes worth trying for an extent n: ceil(n / k) for every k (1 included),
    largest first (once per extent: every op of a shape asks, and the planners' searches
    and their screens ask again)."""
    return tuple(sorted({-(-n // k) for k in range(1, n + 1)}, reverse=True))


def accumulates(desc: TargetDescription) -> bool:
    """Whether the target's matrix product can add to its output (a params field reads the
    `accumulate` word), which splitting K needs."""
    return any(v.word == "accumulate" for st in desc.api.structs for _, v in st.fields)


# --------------------------------------------------------------------------------------
# Convolution and pooling
# --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class RowTile:
    start: int  # first output row
    rows: int
    pad_top: int
    pad_bottom: int
    in_start: int
    in_rows: int

    def signature(self):
        return (self.rows, self.pad_top, self.pad_bottom, self.in_rows)


def row_tiles(out: int, size: int, k: int, stride: int, dil: int, pad_lo: int, in_size: int, tile: int) -> list[RowTile]:
    """Output rows in tiles of `tile`, with the input rows each reads and its padding. A
    tile whose windows lie wholly in the padding (only possible first or last) reads no
    input row, which no op accepts: it is merged into its neighbour."""
    eff = dil * (k - 1) + 1

    def tile_of(r0: int, r1: int) -> RowTile:
        lo = r0 * stride - pad_lo
        hi = (r1 - 1) * stride - pad_lo + eff
        start = max(lo, 0)
        return RowTile(r0, r1 - r0, max(0, -lo), max(0, hi - in_size), start, min(hi, in_size) - start)

    tiles = [tile_of(r0, min(out, r0 + tile)) for r0 in range(0, out, tile)]
    while len(tiles) > 1 and tiles[0].in_rows <= 0:
        tiles[:2] = [tile_of(0, tiles[1].start + tiles[1].rows)]
    while len(tiles) > 1 and tiles[-1].in_rows <= 0:
        tiles[-2:] = [tile_of(tiles[-2].start, out)]
    return tiles


@functools.cache
def _rows(oh: int, tr: int, kh: int, stride: int, dilation: int, pad_top: int, h: int
          ) -> tuple[tuple[RowTile, ...], int, int]:
    """`_Spatial.rows`, once per geometry (a network repeats a few: every conv of a shape
    asks for every row tile height, and `smallest_tiling` for one-row tiles again)."""
    tiles = tuple(row_tiles(oh, tr, kh, stride, dilation, pad_top, h, tr))
    in_rows = max(min(h, (tr - 1) * stride + dilation * (kh - 1) + 1), *(t.in_rows for t in tiles))
    return tiles, in_rows, max(tr, *(t.rows for t in tiles))


@dataclass(frozen=True)
class SpatialPlan:
    channel_tile: int
    row_tile: int
    rows_outer: bool
    cost: float
    weights_fit: bool = False  # all channels' weights fit beside the streamed tiles (they can stay)


@dataclass(frozen=True)
class _Spatial:
    """The geometry of a conv or pool that its tilings depend on."""

    n: int
    c: int
    h: int
    w: int
    oc: int
    oh: int
    ow: int
    kh: int
    stride: int
    dilation: int
    pad_top: int
    conv: bool
    groups: int
    per_group: int  # output channels per group (1 for a pool)
    cin_per_group: int
    x_bytes: int
    y_bytes: int
    # Weight and bias bytes of one output channel (two buffers on the device, each
    # aligned: a tile's footprint counts them apart).
    weight_per_channel: int
    bias_per_channel: int

    @property
    def per_channel(self) -> int:
        return self.weight_per_channel + self.bias_per_channel

    def weight_buffers(self, channels: int) -> list[int]:
        """The bytes of the weight and bias buffers of `channels` output channels."""
        return [channels * self.weight_per_channel, channels * self.bias_per_channel] if self.conv else []

    @staticmethod
    def of(s: ComputeShape) -> _Spatial:
        n, c, h, w = s.inputs[0].shape
        _, oc, oh, ow = s.output.shape
        conv = s.kind is accel.Conv2DOp
        if conv:
            wt = s.inputs[1]
            kh, groups = wt.shape[2], s.prop("groups")
            per_group, cin_per_group = oc // groups, c // groups
            weight_pc = math.prod(wt.shape[1:]) * wt.itemsize
            bias_pc = s.inputs[2].itemsize if len(s.inputs) > 2 else 0
        else:
            kh, groups, per_group, cin_per_group, weight_pc, bias_pc = s.prop("pool_size")[0], c, 1, 1, 0, 0
        return _Spatial(n, c, h, w, oc, oh, ow, kh, s.prop("strides")[0], s.prop("dilation")[0], s.prop("padding")[0],
                        conv, groups, per_group, cin_per_group, s.inputs[0].itemsize, s.output.itemsize, weight_pc,
                        bias_pc)

    def channel_steps(self) -> Sequence[int]:
        """Output channel tiles: whole groups of a grouped conv (the smallest: one group)."""
        if self.conv and self.groups > 1:
            return [t for t in candidates(self.oc) if t % self.per_group == 0]
        return candidates(self.oc)

    def rows(self, tr: int) -> tuple[tuple[RowTile, ...], int, int]:
        """The row tiles of height `tr`, and the input and output rows of the largest (a
        merged all-padding tile, see row_tiles, may exceed the others)."""
        return _rows(self.oh, tr, self.kh, self.stride, self.dilation, self.pad_top, self.h)

    def tiles(self, tc: int, in_rows: int, out_rows: int) -> tuple[list[int], list[int]]:
        """(streamed, fixed) tile bytes of `tc` output channels by a row tile."""
        return self.streamed(tc, in_rows, out_rows), self.weight_buffers(tc)

    def streamed(self, tc: int, in_rows: int, out_rows: int) -> list[int]:
        """The input and output tile bytes of `tc` output channels by a row tile."""
        cin = self.c if (self.conv and self.groups == 1) else (tc // self.per_group) * self.cin_per_group
        return [self.n * cin * in_rows * self.w * self.x_bytes, self.n * tc * out_rows * self.ow * self.y_bytes]


def plan_spatial(s: ComputeShape, capacity: int, alignment: int, double: bool, desc: TargetDescription,
                 config: dict | None = None) -> SpatialPlan | None:
    """Channel and row tiles of a conv or pool, the cheapest that fits (None: none does);
    a tuning `config` fixes the knobs it names (channel_tile, row_tile, resident).

    Among the tilings that fit, the one with the least estimated DMA time wins, given
    that `optimize-dma` keeps a tile that does not change across iterations on the device:
    rows-inside-channels streams the weights once and re-reads the input per channel tile;
    channels-inside-rows reads the input once and re-reads the weights per row tile unless
    they all fit."""
    config = config or {}
    g = _Spatial.of(s)
    channel_steps = g.channel_steps()
    if "channel_tile" in config:
        channel_steps = [t for t in channel_steps if t == config["channel_tile"]]
    row_steps = [config["row_tile"]] if "row_tile" in config else candidates(g.oh)
    orders = {"weights": (False,), "input": (True,)}.get(config.get("resident"), (False, True))
    bpc, setup = desc.dma.bytes_per_cycle, desc.dma.setup_cycles
    row_plans = []
    for tr in row_steps:
        tiles, in_rows, out_rows = g.rows(tr)
        x_pass = g.n * g.c * sum(t.in_rows for t in tiles) * g.w * g.x_bytes  # every input row tile once
        row_plans.append((tr, len(tiles), x_pass, in_rows, out_rows))
    w_total = g.oc * g.per_channel
    y_total = g.n * g.oc * g.oh * g.ow * g.y_bytes
    all_weights = g.weight_buffers(g.oc)
    # rows inside channels: weights once; with one input channel set shared by all channel
    # tiles, x is read once per channel tile unless it is a single tile (then it stays on
    # the device across channel tiles).
    shared_input = g.conv and g.groups == 1
    best: SpatialPlan | None = None
    # (`footprint`, its sums taken apart: the weights' once per channel tile, or at all)
    all_fixed = footprint((), all_weights, alignment, double)
    for tc in channel_steps:
        n_ct = -(-g.oc // tc)
        room = capacity - footprint((), g.weight_buffers(tc), alignment, double)
        x_row, y_row = g.streamed(tc, 1, 1)  # (the streamed tiles' bytes per row, taken once per channel tile)
        for tr, n_rt, x_pass, in_rows, out_rows in row_plans:
            moving = footprint((x_row * in_rows, y_row * out_rows), (), alignment, double)
            if moving > room:
                continue
            x_in = x_pass * n_ct if (shared_input and n_rt > 1) else x_pass
            cost_a = (w_total + x_in + y_total) / bpc + setup * n_ct * (1 + 2 * n_rt)
            # channels inside rows: x once; weights once when they all fit beside the tiles.
            w_fit = moving + all_fixed <= capacity
            w_in = w_total if (w_fit or n_ct == 1) else w_total * n_rt
            cost_b = (w_in + x_pass + y_total) / bpc + setup * n_rt * (1 + 2 * n_ct)
            for rows_outer, cost in ((False, cost_a), (True, cost_b)):
                if rows_outer in orders and (best is None or cost < best.cost - 1e-9):
                    best = SpatialPlan(tc, tr, rows_outer, cost, w_fit)
    return best


# --------------------------------------------------------------------------------------
# Matrix products
# --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class MatmulPlan:
    m_tile: int
    n_tile: int
    k_tile: int  # K when the product is not split along K
    rows_outer: bool = False  # tuned `resident = "input"`: a row tile stays while weight tiles stream


@dataclass(frozen=True)
class BatchPlan:
    matrices: int  # matrices of the last batch dim per tile (the earlier batch dims one at a time)


def mnk(s: ComputeShape) -> tuple[int, int, int]:
    """M, N and K of a 2-D product (a vector data is one row)."""
    p = _Product.of(s)
    return p.m, p.n, p.k


@dataclass(frozen=True)
class _Product:
    """The sizes of a 2-D product that its tilings depend on."""

    m: int
    n: int
    k: int
    a_bytes: int
    b_bytes: int
    y_bytes: int
    bias_bytes: int  # 0 without a bias

    @staticmethod
    def of(s: ComputeShape) -> _Product:
        a, y = s.inputs[0].shape, s.output.shape
        vector = len(y) == 1
        m, n = (1, y[0]) if vector else y
        k = a[-1] if vector or not s.prop("transpose_a") else a[0]
        return _Product(m, n, k, s.inputs[0].itemsize, s.inputs[1].itemsize, s.output.itemsize,
                        s.inputs[2].itemsize if len(s.inputs) > 2 else 0)

    def tiles(self, tm: int, tn: int, tk: int | None, rows_outer: bool = False) -> tuple[list[int], list[int]]:
        """(streamed, fixed) tile bytes of `tm` rows by `tn` features: with whole K rows
        (`tk` None) the weight tile stays while row tiles stream (the row tile stays when
        `rows_outer`); split along K, data and weight tiles both stream."""
        out, bias = tm * tn * self.y_bytes, tn * self.bias_bytes  # weights and bias: two buffers
        if tk is None:
            rows, cols = tm * self.k * self.a_bytes, tn * self.k * self.b_bytes
            return ([cols, bias, out], [rows]) if rows_outer else ([rows, out], [cols, bias])
        return [tm * tk * self.a_bytes, tn * tk * self.b_bytes, out], [bias]


def splits_k(s: ComputeShape, desc: TargetDescription) -> bool:
    """Whether a product may be split along K: a float product on a target that accumulates."""
    return accumulates(desc) and not s.quantized


def plan_matmul(s: ComputeShape, capacity: int, alignment: int, double: bool, split_k: bool,
                config: dict | None = None) -> MatmulPlan | None:
    """M and N tiles with whole K rows, the cheapest that fits; failing that (when
    `split_k`, and not with row tiles outside) K tiles too, their partial sums accumulated
    into the output tile on the device. None: nothing fits. A tuning `config` fixes the
    knobs it names (row_tile, feature_tile, k_tile: a K tile below K splits K even when
    whole rows fit; resident)."""
    config = config or {}
    p = _Product.of(s)
    m, n, k, ae, be, ye = p.m, p.n, p.k, p.a_bytes, p.b_bytes, p.y_bytes
    m_steps = [config["row_tile"]] if "row_tile" in config else candidates(m)
    n_steps = [config["feature_tile"]] if "feature_tile" in config else candidates(n)
    k_steps = [config["k_tile"]] if "k_tile" in config else candidates(k)
    best, rows_outer = None, config.get("resident") == "input"
    for tn in n_steps if config.get("k_tile", k) == k else ():
        for tm in m_steps:
            if footprint(*p.tiles(tm, tn, None, rows_outer), alignment, double) > capacity:
                continue
            n_m, n_n = -(-m // tm), -(-n // tn)
            cost = n * k * be * (n_m if rows_outer and n_n > 1 else 1) + m * k * ae * (
                n_n if n_m > 1 and not rows_outer else 1) + m * n * ye + 64 * n_m * n_n
            if best is None or cost < best[0]:
                best = (cost, MatmulPlan(tm, tn, k, rows_outer))
    if best is None and split_k and not rows_outer:
        # Every K tile brings its data and weight slices; the output tile stays.
        for tk in k_steps:
            for tn in n_steps:
                for tm in m_steps:
                    if footprint(*p.tiles(tm, tn, tk), alignment, double) > capacity:
                        continue
                    n_m, n_n, n_k = -(-m // tm), -(-n // tn), -(-k // tk)
                    cost = n * k * be * n_m + m * k * ae * n_n + m * n * ye + 64 * n_m * n_n * n_k
                    if best is None or cost < best[0]:
                        best = (cost, MatmulPlan(tm, tn, tk))
    return None if best is None else best[1]


def _batch_tiles(s: ComputeShape, matrices: int) -> list[int]:
    lead = len(s.output.shape) - 2
    return [matrices * math.prod(b.shape[lead:]) * b.itemsize for b in (s.inputs[0], s.inputs[1], s.output)]


def plan_batched(s: ComputeShape, capacity: int, alignment: int, double: bool) -> BatchPlan | None:
    """As many matrices of the last batch dim per tile as fit (None: not even one)."""
    t = s.output.shape[-3]
    while t > 1 and footprint(_batch_tiles(s, t), [], alignment, double) > capacity:
        t -= 1
    return BatchPlan(t) if footprint(_batch_tiles(s, t), [], alignment, double) <= capacity else None


# --------------------------------------------------------------------------------------
# Element-wise ops
# --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class EltwisePlan:
    axis: int  # the axis split; the tile keeps every later axis whole
    slices: int  # slices of `axis` per tile


def eltwise_axis(s: ComputeShape) -> int | None:
    """The axis a tuned element-wise op is split along (`outer_tile` slices of it per
    tile): its outermost axis longer than 1 (a row op's rows stay whole). None: no such axis."""
    shape = s.output.shape
    last = len(shape) - 1 if s.prop("kind") in accel.EltwiseOp.ROWS else len(shape)
    return next((a for a in range(last) if shape[a] > 1), None)


def _eltwise_parts(s: ComputeShape) -> tuple[list[int], list[int], int]:
    """(bytes per element of each streamed operand and of the output, the bytes that
    stay, the number of axes that may be split): a row op streams its data, its gamma and
    beta stay, and its rows stay whole."""
    rows = s.prop("kind") in accel.EltwiseOp.ROWS
    streamed = s.inputs[:1] if rows else s.inputs
    resident = [b.nbytes for b in s.inputs[1:]] if rows else []
    return [b.itemsize for b in streamed] + [s.output.itemsize], resident, len(s.output.shape) - (1 if rows else 0)


def _slice_tiles(shape: Sequence[int], per_elem: Sequence[int], resident: list[int], axis: int,
                 t: int) -> tuple[list[int], list[int]]:
    """(streamed, fixed) tile bytes of `t` slices of `axis` (every later axis whole): one
    tile per streamed buffer (`per_elem`: their bytes per element), each aligned apart as
    insert-dma places them."""
    inner = t * math.prod(shape[axis + 1:])
    return [inner * e for e in per_elem], resident


def _eltwise_tiles(s: ComputeShape, axis: int, t: int) -> tuple[list[int], list[int]]:
    per_elem, resident, _ = _eltwise_parts(s)
    return _slice_tiles(s.output.shape, per_elem, resident, axis, t)


def plan_eltwise(s: ComputeShape, capacity: int, alignment: int, double: bool,
                 config: dict | None = None) -> EltwisePlan | None:
    """The axis and slices per tile of an element-wise op (None: nothing fits); a tuning
    `config` fixes `outer_tile` (slices of `eltwise_axis`)."""
    if config and "outer_tile" in config:
        axis, t = eltwise_axis(s), config["outer_tile"]
        if axis is None or footprint(*_eltwise_tiles(s, axis, t), alignment, double) > capacity:
            return None
        return EltwisePlan(axis, t)
    per_elem, resident, splittable = _eltwise_parts(s)
    return _slices(s.output.shape, splittable, per_elem, resident, capacity, alignment, double)


def _slices(shape: Sequence[int], splittable: int, per_elem: Sequence[int], resident: list[int], capacity: int,
            alignment: int, double: bool) -> EltwisePlan | None:
    """Heuristic slicing of buffers of `per_elem` bytes per element (beside `resident`
    bytes) among their first `splittable` axes: the outermost axis whose slices fit, as
    many slices as fit (None: not even one element, or one row, fits)."""

    def fits(axis: int, t: int) -> bool:
        return footprint(*_slice_tiles(shape, per_elem, resident, axis, t), alignment, double) <= capacity

    axis = next((a for a in range(splittable) if fits(a, 1)), None)
    if axis is None:
        return None
    inner = math.prod(shape[axis + 1:])
    t = max(1, min(shape[axis], max(1, (capacity // (2 if double else 1)) // max(1, inner * sum(per_elem) + 3 * alignment))))
    while t > 1 and not fits(axis, t):
        t -= 1
    return EltwisePlan(axis, t)


def plan_copy(shape: Sequence[int], itemsize: int, desc: TargetDescription, double: bool = True) -> EltwisePlan | None:
    """How tile-for-scratchpad splits a copy that insert-dma stages through one scratchpad
    buffer (an input of a concatenation, copied in and out): None when it fits whole, else
    slices of its outermost axes, sized for two buffers when they fit so. One element
    always fits: a copy never keeps an op off the accelerator."""
    capacity, alignment = desc.memory.scratchpad_bytes, desc.memory.alignment
    if align(math.prod(shape) * itemsize, alignment) <= capacity:
        return None
    plan = (_slices(shape, len(shape), [itemsize], [], capacity, alignment, double)
            or _slices(shape, len(shape), [itemsize], [], capacity, alignment, False))
    assert plan is not None, f"a scratchpad of {capacity} bytes holds no element of {itemsize} bytes"
    return plan


# --------------------------------------------------------------------------------------
# The plan of an op
# --------------------------------------------------------------------------------------


def _batched(s: ComputeShape) -> bool:
    return s.kind is accel.MatmulOp and len(s.output.shape) > 2


def smallest_tiling(s: ComputeShape, desc: TargetDescription) -> tuple[int | None, str]:
    """The footprint, single-buffered, of the op's smallest tiling (None: the op has no
    tiling: a row op of one row), and what that tiling is. Every planner's candidates
    include it."""
    alignment = desc.memory.alignment
    if s.kind in (accel.Conv2DOp, accel.PoolOp):
        g = _Spatial.of(s)
        tc = g.channel_steps()[-1]  # one channel, or one group
        _, in_rows, out_rows = g.rows(1)
        what = "one group" if tc > 1 else "one channel"
        return footprint(*g.tiles(tc, in_rows, out_rows), alignment, False), f"with one output row and {what} per tile"
    if _batched(s):
        return (footprint(_batch_tiles(s, 1), [], alignment, False),
                "one matrix of the batch at a time (batched products are not tiled within a matrix)")
    if s.kind is accel.MatmulOp:
        p = _Product.of(s)
        whole_rows = footprint(*p.tiles(1, 1, None), alignment, False)
        if splits_k(s, desc):
            return (min(whole_rows, footprint(*p.tiles(1, 1, 1), alignment, False)),
                    "with one row, one output feature and one element of K per tile")
        why = "int8 products are not split along K" if s.quantized else "the target cannot accumulate, so K is not split"
        return whole_rows, f"with one row and one output feature per tile ({why})"
    _, _, splittable = _eltwise_parts(s)
    what = "row by row" if s.prop("kind") in accel.EltwiseOp.ROWS else "element by element"
    if splittable == 0:
        return None, f"{what} (its one row is not split)"
    return footprint(*_eltwise_tiles(s, splittable - 1, 1), alignment, False), what


def needs_tiles(s: ComputeShape, desc: TargetDescription) -> bool:
    """Whether the op, untuned, is tiled: False when it fits whole, True when its smallest
    tiling fits (single-buffered); raises NoFit when neither. What annotate-target asks
    (`misfit`) and what `plan_tiles` checks first."""
    capacity = desc.memory.scratchpad_bytes
    whole = working_set(s, desc.memory.alignment)
    if whole <= capacity:
        return False
    need, what = smallest_tiling(s, desc)
    if need is None or need > capacity:
        raise NoFit(f"'{s.name}' needs {whole if need is None else need} bytes of scratchpad even {what}; "
                    f"the scratchpad has {capacity}")
    return True


def _plan(s: ComputeShape, desc: TargetDescription, double: bool, tiles: dict):
    capacity, alignment = desc.memory.scratchpad_bytes, desc.memory.alignment
    if s.kind in (accel.Conv2DOp, accel.PoolOp):
        return plan_spatial(s, capacity, alignment, double, desc, tiles)
    if _batched(s):
        return plan_batched(s, capacity, alignment, double)
    if s.kind is accel.MatmulOp:
        return plan_matmul(s, capacity, alignment, double, splits_k(s, desc), tiles)
    return plan_eltwise(s, capacity, alignment, double, tiles)


def plan_tiles(s: ComputeShape, desc: TargetDescription, double: bool = True, config: dict | None = None):
    """How tile-for-scratchpad splits the op: None when it stays whole, else its plan
    (`SpatialPlan`, `MatmulPlan`, `BatchPlan` or `EltwisePlan`). `double`: size streamed
    tiles for two slots when they fit so. A tuning `config` (accel.tuning) fixes the knobs
    it names, even of an op that fits whole; its `double_buffer` overrides `double`.
    Raises NoFit."""
    config = config or {}
    tiles = {k: v for k, v in config.items() if k not in COMMON_KNOBS and k not in FUSION_OP_KNOBS}
    if _batched(s):
        tiles = {}  # not in a tuning space (batched products: whole matrices)
    if not tiles and "double_buffer" not in config:
        if not needs_tiles(s, desc):
            return None
        plan = _plan(s, desc, double, {}) or _plan(s, desc, False, {})  # fits once: single-buffered
        assert plan is not None, f"{s.name}: the smallest tiling fits, yet no plan does"
        return plan
    double = bool(config.get("double_buffer", double))
    if not tiles and working_set(s, desc.memory.alignment) <= desc.memory.scratchpad_bytes:
        return None
    plan = _plan(s, desc, double, tiles)
    if plan is None:
        raise NoFit(_tuned_misfit(s, desc, tiles or {"double_buffer": double}))
    return plan


def _tuned_misfit(s: ComputeShape, desc: TargetDescription, shown: dict) -> str:
    message = (f"'{s.name}': tuning configuration {shown} does not fit the scratchpad "
               f"({desc.memory.scratchpad_bytes} bytes)")
    if s.kind is accel.MatmulOp and not _batched(s):
        rows_outer = shown.get("resident") == "input"
        if not splits_k(s, desc) or rows_outer:
            message += " or splits K, which this product cannot"
        if rows_outer:
            message += " with resident = input (whole K rows)"
    return message


def misfit(plans: Sequence[ComputePlan], desc: TargetDescription, zero_copy: bool = True) -> str | None:
    """Why `desc`'s scratchpad cannot hold even the smallest tiles of one of the compute
    ops lower-to-accel builds of an op or composite (`plans`, see `needs_tiles`), or None.
    A target that is not lowered has nothing to fit, nor one that computes in place on
    host memory (shared with the host) when `zero_copy` (tile-for-scratchpad's option of
    that name: it leaves such regions untiled)."""
    if not desc.lowers_to_accel or (desc.memory.shared_with_host and zero_copy):
        return None
    for plan in plans:
        try:
            needs_tiles(ComputeShape.of_plan(plan), desc)
        except NoFit as e:
            return str(e)
    return None
