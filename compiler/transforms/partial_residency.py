"""partial-residency: the leading part of a spilled value stays in the scratchpad.

Runs after `optimize-dma` (so that it only takes the room forwarding, hoisting and double
buffering left; `assemble-on-device` before them gave a scratchpad buffer to every
region-local value written in tiles that fits beside the plan), on targets with a copy
on the device. What is left in host memory is a *spilled* value:
a region-local host buffer that its producer writes back tile by tile and its readers
load back (the next op, or a later fused segment), because all of it does not fit. This
pass keeps its leading slab on the device for the whole live range: along one dimension
`d`, the indices `[0, k)` of every other coordinate (for an NCHW image, its first `k`
rows: the rows the row-tiled reader needs first) get a scratchpad buffer of their own,
the *resident part*. Every transfer of the value is then one of:

- a transfer whose view lies outside the resident part (every transfer in a loop must
  be, over all iterations, by interval arithmetic on its offsets): unchanged. To get
  there, the leading iterations of a tile loop of the function's block whose transfers
  of the value start below half the scratchpad's worth of it, and below the room the
  buffers live meanwhile leave (`room_for`; no peeling where not even one index of the
  value fits, nor where no slab could come of it: `may_find_slab`), are peeled first
  (at most `PEEL` per loop; the peeled iteration is the loop body with a constant
  induction variable and the loop-carried values flowing through), so that their
  transfers are static. Iterations peeled for a resident part that was not kept, or
  whose transfers miss it, go back into their loop at the end (`Peeled.roll_back`);
- a transfer with static offsets that meets it: split along `d` into a copy on the device
  between the tile and the resident part (`accel.dma_start` with both sides in the
  scratchpad) and, for the rows beyond `k`, a transfer with host memory as before. Who
  waited for the transfer waits for both (a loop-carried token becomes the second's:
  the DMA engine completes transfers in order);
- a transfer of a loop of the function's block whose tiles do not overlap (a tile loop's
  write-back, a channel tile's load; no halo) and whose token only waits read
  (`InLoop`): split by guards, without peeling. Its first `J` iterations, whose tiles lie
  in the resident part, copy between the tile and the resident part at the same offsets
  (`if %iv < %limit`), the others transfer with host memory as before (`if %limit - 1 <
  %iv`); who waited for it waits for both (a guarded transfer not issued is complete).
  The slab's end then falls between two iterations' tiles (`k` is cut back to where a
  tile starts). Such transfers do not bound `k` and are not peeled: a loop of channel
  tiles keeps all its iterations whatever the slab (peeling made one copy of the loop
  body per iteration below the slab, at most `PEEL`).

So the resident part's write-backs and reloads become copies on the device (the bytes of
the resident part no longer cross to the host and back), results are bit-identical (every
element of the value goes through the same place, the resident buffer instead of host
memory, in program order). The host never reads such a value (it is local to the region),
so nothing has to go back. Targets that keep values on the device across regions (buffers
of `@main`) are left alone: their regions share one plan. For each value, along the
dimension that keeps the most bytes off the bus, `k` starts at the largest slab within
half the scratchpad that the loops stay clear of; a choice is kept only where the
scratchpad plan still fits, else `k` is halved (`ROUNDS` times at most; each round checks
the values' slabs together, then one by one where that fails, as `optimize-dma` does).

Before (rows 0..3 of %h written in two tiles, read back in one of three rows and one of
one row; 64 KiB scratchpad assumed too small for all of %h):

    %h = memref.alloc() : memref<1x2x4x8xf32>
    %v0 = memref.subview %h[0, 0, 0, 0] [1, 2, 2, 8] [1, 1, 1, 1] : ... to memref<1x2x2x8xf32, strided<...>>
    %w0 = accel.dma_start %t0, %v0 : memref<1x2x2x8xf32, #accel.mem<"spm">>, memref<1x2x2x8xf32, strided<...>>
    ... %w1: rows 2..3 ...
    %r0 = memref.subview %h[0, 0, 0, 0] [1, 2, 3, 8] [1, 1, 1, 1] : ...
    %l0 = accel.dma_start %r0, %s0 : ..., memref<1x2x3x8xf32, #accel.mem<"spm">>

After (`k` = 2 along the rows: the first tile stays, the read of rows 0..2 takes rows
0..1 from the device and row 2 from host memory):

    %p = accel.alloc : memref<1x2x2x8xf32, #accel.mem<"spm">>
    %p0 = memref.subview %p[0, 0, 0, 0] [1, 2, 2, 8] [1, 1, 1, 1] : ... #accel.mem<"spm">>
    %w0 = accel.dma_start %t0, %p0 : ...spm..., ...spm...                 // a copy on the device
    ... %w1 unchanged ...
    %p1 = memref.subview %p[0, 0, 0, 0] [1, 2, 2, 8] [1, 1, 1, 1] : ...
    %s0a = memref.subview %s0[0, 0, 0, 0] [1, 2, 2, 8] [1, 1, 1, 1] : ...
    %l0a = accel.dma_start %p1, %s0a : ...                                // a copy on the device
    %r0b = memref.subview %h[0, 0, 2, 0] [1, 2, 1, 8] [1, 1, 1, 1] : ...
    %s0b = memref.subview %s0[0, 0, 2, 0] [1, 2, 1, 8] [1, 1, 1, 1] : ...
    %l0b = accel.dma_start %r0b, %s0b : ...                               // from host memory
"""

from __future__ import annotations

import math
from bisect import bisect_right
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from functools import cached_property
from typing import NamedTuple

from xdsl.context import Context
from xdsl.dialects import arith, func, memref, scf
from xdsl.dialects.builtin import DYNAMIC_INDEX, IndexType, IntegerAttr, MemRefType, ModuleOp, StringAttr
from xdsl.ir import Block, BlockArgument, OpResult, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from accel.compiler.index_arith import INDEX_ARITH, constant_index
from accel.compiler.ir_build import (dense_values, operand_segments, ops_between, subview, subview_indices,
                                     subview_type)
from accel.compiler.memory_plan import Footprint, LiveBytes, ScratchpadPlan, align, plan_scratchpad
from accel.compiler.targets.context import target_context
from accel.compiler.tensors import buffer_bytes, numpy_dtype
from accel.compiler.transforms.assemble_on_device import ancestor_in, host_transfers
from accel.compiler.transforms.optimize_dma import erase_if_unused, keep_fitting
from accel.dialects import accel
from accel.dialects.conventions import TARGET_ATTR, accelerator_functions, placement_of

ROUNDS = 6
"""How many times `k` is halved for the values whose resident part did not fit."""

PEEL = 8
"""At most this many leading iterations of a tile loop are peeled (made static) per
spilled value, so that the transfers of the resident slab can be split."""

MAX_TRIPS = 4096
"""A loop of more iterations is not split by guards (its views are evaluated per iteration)."""

# --------------------------------------------------------------------------------------
# Helpers: the box of host memory a transfer touches
# --------------------------------------------------------------------------------------

Interval = tuple[int, int]
"""Inclusive bounds of an index over every execution."""


def index_range(v: SSAValue, memo: dict) -> Interval | None:
    """The values `v` takes (constants, induction variables of loops with static bounds,
    sums, differences, products, minima and maxima of those); None when unknown."""
    if v in memo:
        return memo[v]
    memo[v] = None  # cycles (loop-carried values) stay unknown
    result = None
    c = constant_index(v)
    if c is not None:
        result = (c, c)
    elif isinstance(v, BlockArgument) and v.index == 0 and isinstance(v.block.parent_op(), scf.ForOp):
        loop = v.block.parent_op()
        lb, ub, st = constant_index(loop.lb), constant_index(loop.ub), constant_index(loop.step)
        if lb is not None and ub is not None and st is not None and st > 0:
            result = (lb, lb + max(0, (ub - lb - 1) // st) * st)
    elif type(v.owner) in INDEX_ARITH:
        a, b = index_range(v.owner.lhs, memo), index_range(v.owner.rhs, memo)
        if a is not None and b is not None:
            if isinstance(v.owner, arith.AddiOp):
                result = (a[0] + b[0], a[1] + b[1])
            elif isinstance(v.owner, arith.SubiOp):
                result = (a[0] - b[1], a[1] - b[0])
            elif isinstance(v.owner, arith.MuliOp):
                products = [x * y for x in a for y in b]
                result = (min(products), max(products))
            else:  # min, max: monotonic in both
                f = INDEX_ARITH[type(v.owner)]
                result = (f(a[0], b[0]), f(a[1], b[1]))
    memo[v] = result
    return result


@dataclass
class Box:
    """Where a view of the host buffer starts (per dimension, over every execution) and
    its static sizes."""

    starts: list[Interval | None]
    sizes: list[int]

    @property
    def static(self) -> bool:
        return all(s is not None and s[0] == s[1] for s in self.starts)

    def lowest(self, d: int) -> int | None:
        s = self.starts[d]
        return None if s is None else s[0]


def view_box(v: SSAValue, host: SSAValue, memo: dict) -> Box | None:
    """The box of `host` that `v` (a chain of unit-stride, rank-keeping subviews of it)
    denotes; None for anything else."""
    chain = []
    while v is not host:
        sv = v.owner
        if not isinstance(sv, memref.SubviewOp):
            return None
        chain.append(sv)
        v = sv.source
    rank = len(host.type.get_shape())
    starts: list[Interval | None] = [(0, 0)] * rank
    sizes = list(host.type.get_shape())
    for sv in reversed(chain):
        offsets = dense_values(sv.static_offsets)
        new_sizes = dense_values(sv.static_sizes)
        strides = dense_values(sv.static_strides)
        if len(offsets) != rank or len(new_sizes) != rank or len(sv.result.type.get_shape()) != rank or \
                any(s != 1 for s in strides) or any(s == DYNAMIC_INDEX for s in new_sizes):
            return None
        dynamic = list(operand_segments(sv)[1])
        for i, o in enumerate(offsets):
            r = index_range(dynamic.pop(0), memo) if o == DYNAMIC_INDEX else (o, o)
            base = starts[i]
            starts[i] = None if r is None or base is None else (base[0] + r[0], base[1] + r[1])
        sizes = list(new_sizes)
    return Box(starts, sizes)


def executions(op: Operation) -> int:
    """How often `op` runs (loops with static bounds; 1 per unknown loop)."""
    n = 1
    parent = op.parent_op()
    while parent is not None and not isinstance(parent, func.FuncOp):
        if isinstance(parent, scf.ForOp):
            lb, ub, st = constant_index(parent.lb), constant_index(parent.ub), constant_index(parent.step)
            if lb is not None and ub is not None and st:
                n *= max(0, -(-(ub - lb) // st))
        parent = parent.parent_op()
    return n


@dataclass
class InLoop:
    """A transfer of a loop of the function's block that a guard can split between the
    resident part and host memory: its view of the host buffer is one subview of it
    whose offsets are index arithmetic of the loop's induction variable and constants
    (a static box per iteration, `starts[j]`, of the same `sizes`), and only waits read
    its token (no iteration hands it to the next). Its leading iterations whose boxes
    lie in the resident part copy on the device (`if %iv < %limit`), the others go to
    host memory as before (`if %limit - 1 < %iv`): no iteration is peeled."""

    loop: scf.ForOp
    view: memref.SubviewOp

    @cached_property
    def starts(self) -> list[list[int]]:
        lb, ub, st = (constant_index(v) for v in (self.loop.lb, self.loop.ub, self.loop.step))
        return self.starts_at(range(lb, ub, st))

    @cached_property
    def terms(self) -> list[int | Callable[[int], int] | None]:
        """The view's offsets: static, or functions of the induction variable (None: not one)."""
        iv = self.loop.body.block.args[0]
        return [o if isinstance(o, int) else _index_function(o, iv) for o in subview_indices(self.view)[0]]

    def starts_at(self, indices: Iterable[int]) -> list[list[int]]:
        """The boxes' starts where the induction variable takes the values `indices`."""
        terms = self.terms
        return [[t if isinstance(t, int) else t(i) for t in terms] for i in indices]

    @cached_property
    def sizes(self) -> list[int]:
        return dense_values(self.view.static_sizes)

    @cached_property
    def _columns(self) -> dict[int, list[int] | None]:
        return {}

    def column(self, d: int) -> list[int] | None:
        """The iterations' starts along `d`, in order (None: they are not)."""
        columns = self._columns
        if d not in columns:
            column = [st[d] for st in self.starts]
            columns[d] = None if any(b < a for a, b in zip(column, column[1:])) else column
        return columns[d]

    def inside(self, d: int, k: int) -> int:
        """How many leading iterations' boxes lie in `[0, k)` along `d` (their starts in
        order along it)."""
        column = self.column(d)
        return 0 if column is None else bisect_right(column, k - self.sizes[d])

    def aligned(self, d: int, k: int) -> int:
        """The largest `k' <= k` at which no iteration's box straddles `[0, k')` along
        `d`; 0 when their starts are not in order along it."""
        column = self.column(d)
        if column is None:
            return 0
        j = self.inside(d, k)
        return k if j == len(column) or column[j] >= k else column[j]


def _index_function(v: SSAValue, iv: SSAValue) -> Callable[[int], int] | None:
    """`v` as a function of `iv` (constants and index arithmetic of them and `iv`), or None."""
    if v is iv:
        return lambda i: i
    c = constant_index(v)
    if c is not None:
        return lambda i: c
    f = INDEX_ARITH.get(type(v.owner))
    if f is None:
        return None
    a, b = _index_function(v.owner.lhs, iv), _index_function(v.owner.rhs, iv)
    if a is None or b is None:
        return None
    return lambda i: f(a(i), b(i))


def in_loop(dma: accel.DmaStartOp, index: int, host: SSAValue, block: Block, known: dict | None = None) -> InLoop | None:
    """`dma` as an `InLoop` transfer (see there) of a loop of `block` with static bounds
    (at most `MAX_TRIPS` iterations); None otherwise. `known`: the answers so far."""
    if known is not None:
        if dma not in known:
            known[dma] = in_loop(dma, index, host, block)
        return known[dma]
    loop = dma.parent_op()
    if type(loop) is not scf.ForOp or loop.parent is not block or dma.guarded:
        return None
    if any(type(u.operation) is not accel.DmaWaitOp for u in dma.token.uses):
        return None
    view = dma.operands[index].owner
    if not isinstance(view, memref.SubviewOp) or view.source is not host or \
            any(s != 1 for s in dense_values(view.static_strides)) or \
            any(s == DYNAMIC_INDEX for s in dense_values(view.static_sizes)) or \
            len(view.result.type.get_shape()) != len(host.type.get_shape()):
        return None
    lb, ub, st = constant_index(loop.lb), constant_index(loop.ub), constant_index(loop.step)
    if lb is None or ub is None or st is None or st <= 0 or not 0 < -(-(ub - lb) // st) <= MAX_TRIPS:
        return None
    split = InLoop(loop, view)
    if None in split.terms:
        return None
    # Tiles read with a halo overlap their neighbours: the slab's end would cut one
    # whichever iteration it falls in (a last tile shifted inwards overlaps only its
    # neighbour, at the end). Their loops are peeled instead.
    if ub - lb > st:
        first, second = split.starts_at((lb, lb + st))
        if any(b != a and b < a + n for a, b, n in zip(first, second, split.sizes)):
            return None
    return split


def part_of(v: SSAValue, starts: list[int], sizes: list[int], point: InsertPoint, made: list) -> SSAValue:
    """A subview of `v` (inserted at `point`, recorded in `made`); `v` itself when the
    box is all of it."""
    if all(s == 0 for s in starts) and list(sizes) == list(v.type.get_shape()):
        return v
    strides = [1] * len(sizes)
    view = subview(v, starts, sizes, strides, subview_type(v.type, starts, sizes, strides))
    Rewriter.insert_op(view, point)
    made.append(view)
    return view.result


# --------------------------------------------------------------------------------------
# The rewrite (tentative: apply / undo, kept where the plan fits)
# --------------------------------------------------------------------------------------


class Meeting(NamedTuple):
    """A transfer that meets a resident part: static (`loop` None: its `box`), or of a
    loop, split by guards (`inside`: its leading iterations in the resident part)."""

    dma: accel.DmaStartOp
    index: int
    """Operand index of its view of the host buffer: 0, a load; 1, a write-back."""
    box: Box
    loop: InLoop | None = None
    inside: int = 0


@dataclass
class Residency:
    """The slab `[0, k)` along `dim` of a spilled host buffer, kept in a scratchpad buffer:
    the static transfers meeting it split into a copy on the device and the rest, the
    transfers of loops split by guards."""

    host: memref.AllocOp
    dim: int
    k: int
    first: Operation
    """The op of the function's block before which the resident part is allocated."""
    meeting: list[Meeting]
    saved: int
    device: accel.AllocOp | None = None
    made: list[Operation] = field(default_factory=list)
    replaced: list[tuple[accel.DmaStartOp, Operation | None]] = field(default_factory=list)
    waits: list[tuple[Operation, list[SSAValue]]] = field(default_factory=list)
    """The users of the replaced transfers' tokens, with their operands before."""

    def apply(self) -> None:
        shape = list(self.host.memref.type.get_shape())
        shape[self.dim] = self.k
        self.device = accel.AllocOp(accel.memref_type(self.host.memref.type.element_type, shape, space=accel.SPM))
        Rewriter.insert_op(self.device, InsertPoint.before(self.first))
        self.made, self.replaced, self.waits = [], [], []
        for dma, index, box, loop, inside in self.meeting:
            point = InsertPoint.before(dma)
            if loop is not None:
                self._split_by_guards(dma, index, loop, inside)
                continue
            starts = [s[0] for s in box.starts]
            o, n = starts[self.dim], box.sizes[self.dim]
            m = min(o + n, self.k) - o
            tile = dma.dest if index == 0 else dma.source
            inner = [0] * len(starts)
            near = part_of(tile, inner, box.sizes[:self.dim] + [m] + box.sizes[self.dim + 1:], point, self.made)
            resident = part_of(self.device.result, starts, box.sizes[:self.dim] + [m] + box.sizes[self.dim + 1:],
                               point, self.made)
            guard = dma.guard_pair  # (the parts keep it)
            parts = [accel.DmaStartOp(resident, near, guard) if index == 0 else accel.DmaStartOp(near, resident, guard)]
            if m < n:
                rest_sizes = box.sizes[:self.dim] + [n - m] + box.sizes[self.dim + 1:]
                inner[self.dim] = m
                far = part_of(tile, inner, rest_sizes, point, self.made)
                starts[self.dim] = o + m
                there = part_of(self.host.memref, starts, rest_sizes, point, self.made)
                parts.append(accel.DmaStartOp(there, far, guard) if index == 0 else accel.DmaStartOp(far, there, guard))
            for p in parts:
                Rewriter.insert_op(p, point)
                self.made.append(p)
            self._replace(dma, [p.token for p in parts])

    def _split_by_guards(self, dma: accel.DmaStartOp, index: int, split: InLoop, inside: int) -> None:
        """`dma` of a loop: a copy between its tile and the resident part at the same
        offsets in the loop's first `inside` iterations, the transfer with host memory in
        the others (each guarded; a transfer not issued is complete: who waited for `dma`
        waits for both)."""
        view = dma.operands[index].owner
        offsets, sizes, strides = subview_indices(view)
        tile = dma.operands[1 - index]
        loop = split.loop
        made = self.made
        if inside < len(split.starts):
            # The iterations past the slab take their view of the resident part at its
            # last tile (never used: their copy is not issued), so that every view stays
            # within its buffer.
            limit = constant_index(loop.lb) + inside * constant_index(loop.step)
            bounds = [arith.ConstantOp(IntegerAttr(v, IndexType())) for v in (limit, limit - 1, self.k - sizes[self.dim])]
            for c in bounds:
                Rewriter.insert_op(c, InsertPoint.before(loop))
                made.append(c)
            offset = offsets[self.dim]
            if not isinstance(offset, int):
                last = arith.MinSIOp(offset, bounds[2].result)
                Rewriter.insert_op(last, InsertPoint.before(dma))
                made.append(last)
                offsets = [*offsets[:self.dim], last.result, *offsets[self.dim + 1:]]
        resident = subview(self.device.result, offsets, sizes, strides,
                           subview_type(self.device.result.type, offsets, sizes, strides))
        Rewriter.insert_op(resident, InsertPoint.before(dma))
        made.append(resident)
        if inside == len(split.starts):  # every iteration's box is resident
            near = accel.DmaStartOp(resident, tile) if index == 0 else accel.DmaStartOp(tile, resident)
            parts = [near]
        else:
            iv = loop.body.block.args[0]
            below, above = (iv, bounds[0].result), (bounds[1].result, iv)
            host = dma.operands[index]
            parts = [accel.DmaStartOp(resident, tile, below) if index == 0 else accel.DmaStartOp(tile, resident, below),
                     accel.DmaStartOp(host, tile, above) if index == 0 else accel.DmaStartOp(tile, host, above)]
        for p in parts:
            Rewriter.insert_op(p, InsertPoint.before(dma))
            made.append(p)
        self._replace(dma, [p.token for p in parts])

    def _replace(self, dma: accel.DmaStartOp, tokens: list[SSAValue]) -> None:
        """Take `dma` out, its parts (`tokens`) in its place: who waited for it waits for
        them all."""
        for use in list(dma.token.uses):
            user = use.operation
            old = list(user.operands)
            if isinstance(user, accel.DmaWaitOp):
                new = []
                for t in old:
                    for t2 in (tokens if t is dma.token else [t]):
                        if t2 not in new:
                            new.append(t2)
            else:  # a loop-carried token: the engine runs transfers in order, the last covers both
                new = [tokens[-1] if t is dma.token else t for t in old]
            user.operands = new
            self.waits.append((user, old))
        self.replaced.append((dma, dma.next_op))
        dma.detach()

    def undo(self) -> None:
        for wait, old in reversed(self.waits):
            wait.operands = old
        for dma, successor in reversed(self.replaced):
            Rewriter.insert_op(dma, InsertPoint.before(successor))
        for op in reversed(self.made):
            Rewriter.erase_op(op)
        Rewriter.erase_op(self.device)
        self.device, self.made, self.replaced, self.waits = None, [], [], []

    def no_room(self, plan: ScratchpadPlan) -> bool:
        """Whether the plan says the resident part cannot fit, before it is made: it lives
        at least from `first` to the last transfer meeting it."""
        shape = list(self.host.memref.type.get_shape())
        shape[self.dim] = self.k
        part = accel.memref_type(self.host.memref.type.element_type, shape, space=accel.SPM)
        return any(plan.no_room_between(self.first, m.dma, [part]) for m in self.meeting)

    def footprint(self) -> Footprint:
        # The replaced transfers leave the IR (and come back where they were on undo);
        # who waited for one waits for its parts, among the ops made.
        return Footprint([self.device, *self.made, *(dma for dma, _ in self.replaced)], [], [self.device])

    def commit(self) -> None:
        for dma, _ in self.replaced:
            view = dma.operands[self.meeting_index(dma)]
            dma.erase()
            if isinstance(view.owner, memref.SubviewOp) and view.owner.parent is not None:
                erase_if_unused(view.owner)

    def meeting_index(self, dma: accel.DmaStartOp) -> int:
        return next(m.index for m in self.meeting if m.dma is dma)


def candidates(host: memref.AllocOp, transfers: list[tuple[accel.DmaStartOp, int]], block: Block,
               pos: dict, capacity: int, memo: dict, known: dict | None = None) -> list[Residency]:
    """The slabs worth keeping of one spilled buffer, largest first: along the dimension
    that keeps the most bytes off the bus, the largest `k` within half the scratchpad that
    every other transfer in a loop stays clear of and no box of a loop split by guards
    straddles (`InLoop`), then halved `ROUNDS` times."""
    shape = host.memref.type.get_shape()
    boxes = []
    for dma, index in transfers:
        box = view_box(dma.operands[index], host.memref, memo)
        if box is None:
            return []
        boxes.append((dma, index, box, None if box.static else in_loop(dma, index, host.memref, block, known)))
    limits = slab_limits(host.memref.type, capacity)
    found = []
    for d, extent in enumerate(shape):
        if extent <= 1:
            continue
        k = limits[d]
        for dma, index, box, loop in boxes:
            if not box.static and loop is None:
                low = box.lowest(d)
                k = min(k, 0 if low is None else low)
        split = [b for b in boxes if b[3] is not None]
        for _ in range(ROUNDS + 1):
            k = _aligned(split, d, k)
            if k <= 0:
                break
            meeting = [Meeting(dma, i, b) for dma, i, b, _ in boxes if b.static and b.starts[d][0] < k]
            meeting += [Meeting(dma, i, b, loop, loop.inside(d, k)) for dma, i, b, loop in split
                        if loop.inside(d, k)]
            saved = sum(_bytes(m.box, d, k, host) * executions(m.dma) if m.loop is None else
                        _box_bytes(m.loop.sizes, host) * m.inside for m in meeting)
            if any(m.index == 0 for m in meeting) and any(m.index == 1 for m in meeting):
                first = min((ancestor_in(m.dma, block) for m in meeting), key=lambda o: pos[o])
                found.append(Residency(host, d, k, first, meeting, saved))
            k //= 2
    if not found:
        return []
    # The dimension that keeps the most bytes off the bus at its largest slab, then that
    # slab halved round by round.
    best = max(found, key=lambda r: r.saved).dim
    return sorted((r for r in found if r.dim == best), key=lambda r: -r.k)


def _aligned(split: list[tuple], d: int, k: int) -> int:
    """The largest slab `k' <= k` along `d` that no iteration of the loops' transfers
    split by guards straddles."""
    settled = False
    while not settled and k > 0:
        settled = True
        for *_, loop in split:
            a = loop.aligned(d, k)
            if a < k:
                k, settled = a, False
    return k


def slab_limits(t: MemRefType, capacity: int) -> list[int]:
    """The largest slab `k` along each dimension before the transfers are looked at: short
    of the whole extent (all of it would be assemble-on-device's), within half the
    scratchpad."""
    shape = t.get_shape()
    row_bytes = [buffer_bytes(t) // n if n else 0 for n in shape]
    return [min(n - 1, capacity // 2 // max(row_bytes[d], 1)) for d, n in enumerate(shape)]


def _box_bytes(sizes: list[int], host: memref.AllocOp) -> int:
    return math.prod(sizes) * numpy_dtype(host.memref.type.element_type).itemsize


def _bytes(box: Box, d: int, k: int, host: memref.AllocOp) -> int:
    """Bytes of `box` within `[0, k)` along `d`."""
    rows = min(box.starts[d][0] + box.sizes[d], k) - box.starts[d][0]
    n = max(rows, 0)
    for i, s in enumerate(box.sizes):
        if i != d:
            n *= s
    return n * numpy_dtype(host.memref.type.element_type).itemsize


def peel_first(loop: scf.ForOp) -> bool:
    """Run the first iteration of `loop` (static bounds) before it, with the induction
    variable a constant, and start the loop one step later (erasing it when no iteration
    is left). Loop-carried values flow from the peeled iteration's yield."""
    lb, ub, st = constant_index(loop.lb), constant_index(loop.ub), constant_index(loop.step)
    if lb is None or ub is None or st is None or st <= 0 or ub <= lb:
        return False
    point = InsertPoint.before(loop)
    body = loop.body.block
    first = arith.ConstantOp(IntegerAttr(lb, IndexType()))
    Rewriter.insert_op(first, point)
    mapping: dict[SSAValue, SSAValue] = {body.args[0]: first.result}
    for arg, init in zip(body.args[1:], loop.iter_args):
        mapping[arg] = init
    carried: list[SSAValue] = []
    for op in body.ops:
        if isinstance(op, scf.YieldOp):
            carried = [mapping.get(v, v) for v in op.operands]
            break
        Rewriter.insert_op(op.clone(value_mapper=mapping), point)
    if lb + st >= ub:
        for result, value in zip(loop.results, carried):
            result.replace_all_uses_with(value)
        Rewriter.erase_op(loop)
        return True
    start = arith.ConstantOp(IntegerAttr(lb + st, IndexType()))
    Rewriter.insert_op(start, point)
    loop.operands = [start.result, loop.ub, loop.step, *carried]
    return True


@dataclass
class Peeled:
    """A loop as it was before its first iteration was first peeled: the op before it then
    (None: the block's first) and its operands (bounds and loop-carried inits)."""

    loop: scf.ForOp
    before: Operation | None
    operands: list[SSAValue]
    block: Block
    after: Operation | None
    """The op after the loop then (None: the block's last): where the peeled ops end when
    every iteration was peeled (the loop is gone)."""

    def peeled_ops(self) -> list[Operation] | None:
        """The ops peeling put before the loop (None: the loop or its old neighbour is
        gone: every iteration was peeled, or the neighbour was rewritten)."""
        block = self.loop.parent
        if block is None or (self.before is not None and self.before.parent is not block):
            return None
        return ops_between(block, self.before, self.loop)

    def all_peeled_ops(self) -> list[Operation] | None:
        """Where every iteration was peeled (the loop erased): the ops that took its
        place, between its old neighbours (None: the loop is there, or a neighbour was
        rewritten)."""
        block = self.block
        if self.loop.parent is not None or \
                any(n is not None and n.parent is not block for n in (self.before, self.after)):
            return None
        return ops_between(block, self.before, self.after)

    def roll_back(self, split: set[Operation]) -> bool:
        """Put the peeled iterations back into the loop if none of their transfers was split
        (none of the kept resident parts' ops, `split`, among them, nested ones included)
        and nothing else reads what they compute."""
        ops = self.peeled_ops()
        if not ops:
            return False
        # The loop's old operands must still be there (a split transfer before it, whose
        # token the loop carried, is gone).
        inside = set(ops)
        if any(isinstance(v, OpResult) and (v.op.parent is None or v.op in inside) for v in self.operands):
            return False
        block = self.loop.parent
        for inner in (inner for op in ops for inner in op.walk()):  # loops of a peeled iteration included
            if inner in split:
                return False
            for r in inner.results:
                if any(ancestor_in(u.operation, block) not in inside and u.operation is not self.loop for u in r.uses):
                    return False
        self.loop.operands = self.operands
        for op in reversed(ops):
            Rewriter.erase_op(op)
        return True


def peel_towards(host: SSAValue, transfers: list[tuple[accel.DmaStartOp, int]], block: Block,
                 capacity: int, peeled_loops: dict[scf.ForOp, Peeled], room: int | None = None,
                 known: dict | None = None) -> bool:
    """Peel the leading iterations of the loops of `block` whose transfers of `host` start
    below the slab a resident part could have (half the scratchpad, and at most `room`
    bytes, along the dimension the loops step through), at most `PEEL` per loop: their
    transfers become static and can be split. Transfers that guards split (`in_loop`)
    need no peeling. Each loop's state before its first peel goes into `peeled_loops`.
    Returns whether anything was peeled."""
    memo: dict = {}
    shape = host.type.get_shape()
    loops: dict[scf.ForOp, list[int]] = {}
    transfers = [(dma, i) for dma, i in transfers if dma.parent is block or in_loop(dma, i, host, block, known) is None]
    for dma, index in transfers:
        if dma.parent is block:
            continue
        top = ancestor_in(dma, block)
        if not isinstance(top, scf.ForOp) or dma.parent_op() is not top:
            continue  # only transfers of a loop of the function's block, not nested deeper
        box = view_box(dma.operands[index], host, memo)
        if box is None:
            return False
        for d, st in enumerate(box.starts):
            if st is not None and st[0] != st[1]:
                loops.setdefault(top, []).append(d)
    peeled = False
    for loop, dims in loops.items():
        d = max(set(dims), key=dims.count)
        slab = min(capacity // 2, capacity if room is None else room)
        goal = min(shape[d] - 1, slab // max(buffer_bytes(host.type) // shape[d], 1))
        inside = [(dma, i) for dma, i in transfers if dma.parent is loop.body.block]  # (peeling clones them)
        for _ in range(PEEL):
            memo = {}
            lows = [b.lowest(d) for b in (view_box(dma.operands[i], host, memo) for dma, i in inside) if b is not None]
            if not lows or any(low is None for low in lows) or min(lows) >= goal or loop.parent is None:
                break
            if loop not in peeled_loops:
                peeled_loops[loop] = Peeled(loop, loop.prev_op, list(loop.operands), block, loop.next_op)
            if not peel_first(loop):
                break
            peeled = True
            if loop.parent is None:
                break
    return peeled


def may_find_slab(host: SSAValue, transfers: list[tuple[accel.DmaStartOp, int]], block: Block,
                  capacity: int, known: dict | None = None) -> bool:
    """Whether peeling the loops of `block` for `host` could let `candidates` find a
    slab: some dimension `d` where every transfer that stays in a loop after `PEEL` peels
    starts above 0, and transfers that are or could become static both ways (a write-back
    and a reload). False is certain for `host`'s own peels: a transfer left in a loop
    starts, after m <= PEEL peels, at most where the loop from `PEEL` iterations on does
    (interval arithmetic only narrows as the induction variable's range does), and a
    loop of at most `PEEL` iterations may be peeled whole (no bound from it); a transfer
    in a loop nested in the peeled one stays in a loop, and its copy in the first peeled
    iteration starts where it does with that iteration's index. Peeling what cannot give
    a slab would be undone at the end (`Peeled.roll_back`)."""
    shape = host.type.get_shape()
    bound = slab_limits(host.type, capacity)
    kinds: set[int] = set()
    memo: dict = {}
    peeled_memos: dict[scf.ForOp, dict | None] = {}
    first_memos: dict[scf.ForOp, dict | bool] = {}
    for dma, index in transfers:
        box = view_box(dma.operands[index], host, memo)
        if box is None:
            return False  # `candidates` finds nothing (peeling keeps the views' form)
        top = ancestor_in(dma, block)
        if not box.static and in_loop(dma, index, host, block, known) is not None:
            kinds.add(index)  # guards split it wherever the slab ends
            continue
        if isinstance(top, scf.ForOp) and dma.parent_op() is not top:
            # In a loop of the loop: peeling `top` leaves it in that inner loop, in the
            # first peeled iteration with `top`'s index at its first value.
            if top not in first_memos:
                first_memos[top] = _first_iteration(top)
            first = first_memos[top]
            if first is not False:
                box = view_box(dma.operands[index], host, first)
            if box is not None and box.static:
                kinds.add(index)
                continue
        elif isinstance(top, scf.ForOp):
            kinds.add(index)  # a peeled iteration may make it static
            if top not in peeled_memos:
                peeled_memos[top] = _after_peels(top)
            after = peeled_memos[top]
            if after is None:
                continue  # may be peeled whole
            if after is not False:
                box = view_box(dma.operands[index], host, after)
        elif box.static:
            kinds.add(index)
        if box is None or box.static:
            continue
        for d in range(len(shape)):
            low = box.lowest(d)
            bound[d] = min(bound[d], 0 if low is None else low)
    return 0 in kinds and 1 in kinds and any(k > 0 for k in bound)


def _first_iteration(loop: scf.ForOp) -> dict | bool:
    """A `view_box` memo in which `loop`'s induction variable is its first value; False
    when its bounds are not static (peeling does not touch it)."""
    lb, ub, st = constant_index(loop.lb), constant_index(loop.ub), constant_index(loop.step)
    if lb is None or ub is None or st is None or st <= 0 or ub <= lb:
        return False
    return {loop.body.block.args[0]: (lb, lb)}


def _after_peels(loop: scf.ForOp) -> dict | None | bool:
    """A `view_box` memo in which `loop`'s induction variable ranges over its iterations
    from the `PEEL`-th on; None when `PEEL` peels may leave no iteration, False when its
    bounds are not static (peeling does not touch it)."""
    lb, ub, st = constant_index(loop.lb), constant_index(loop.ub), constant_index(loop.step)
    if lb is None or ub is None or st is None or st <= 0:
        return False
    trips = max(0, -(-(ub - lb) // st))
    if trips <= PEEL:
        return None
    return {loop.body.block.args[0]: (lb + PEEL * st, lb + (trips - 1) * st)}


def room_for(host: SSAValue, transfers: list[tuple[accel.DmaStartOp, int]], live: LiveBytes | ScratchpadPlan,
             capacity: int, alignment: int) -> int:
    """The bytes a resident part of `host` could have beside the buffers live while its
    transfers run; 0 when not even its smallest (one index along some dimension) fits:
    peeling towards one would be wasted."""
    shape = host.type.get_shape()
    sizes = [buffer_bytes(host.type) // n for n in shape if n > 1]
    peak = live.peak(dma for dma, _ in transfers)
    room = capacity - (peak or 0)
    return room if sizes and align(min(sizes), alignment) <= room else 0


def keep_resident(fn: func.FuncOp, capacity: int, alignment: int) -> bool:
    block = fn.body.block
    options: list[list[Residency]] = []
    peeled_loops: dict[scf.ForOp, Peeled] = {}
    # The bytes live before any peeling (peeled iterations live as their loop's): the
    # scratchpad plan's count, which the checks below start from once told of the peels.
    plan = ScratchpadPlan(fn, capacity, alignment)
    live = plan if plan.numbered else LiveBytes(fn, alignment)
    known: dict = {}  # the transfers guards could split (`in_loop`)
    for op in list(block.ops):
        if not isinstance(op, memref.AllocOp):
            continue
        transfers = host_transfers(op.memref, guarded=True)
        if not transfers or not any(i == 0 for _, i in transfers) or not any(i == 1 for _, i in transfers):
            continue
        room = room_for(op.memref, transfers, live, capacity, alignment)
        if room and may_find_slab(op.memref, transfers, block, capacity, known):
            peel_towards(op.memref, transfers, block, capacity, peeled_loops, room, known)
    pos = {op: i for i, op in enumerate(block.ops)}
    memo: dict = {}
    known.clear()  # (a loop peeled for one value starts later: its views' boxes moved)
    for op in list(block.ops):
        if not isinstance(op, memref.AllocOp):
            continue
        transfers = host_transfers(op.memref, guarded=True)
        if not transfers or not any(i == 0 for _, i in transfers) or not any(i == 1 for _, i in transfers):
            continue
        found = candidates(op, transfers, block, pos, capacity, memo, known)
        if found:
            options.append(found)
    kept_parts: set[Operation] = set()
    if options:
        if peeled_loops and not _told_of_peels(plan, peeled_loops.values()):
            plan = ScratchpadPlan(fn, capacity, alignment)
        for _ in range(ROUNDS + 1):
            changes = [found.pop(0) for found in options if found]
            if not changes:
                break
            # (A slab the plan's screen refuses is not made: `keep_fitting` would undo it.)
            changes = [c for c in changes if not c.no_room(plan)]
            for c in changes:
                c.apply()
            kept = keep_fitting(changes, plan)
            for c in kept:
                c.commit()
                kept_parts.update(c.made)
            done = {id(c.host) for c in kept}
            options = [found for found in options if found and id(found[0].host) not in done]
    # Iterations peeled for a resident part that did not fit, or whose transfers miss
    # it, go back into their loops: they would only multiply the code (and every later
    # stage's work) for nothing.
    for peeled in peeled_loops.values():
        peeled.roll_back(kept_parts)
    return bool(kept_parts)


def _told_of_peels(plan: ScratchpadPlan, peels: Iterable[Peeled]) -> bool:
    """Bring `plan` (of the function before any peeling) up to date with the peels, as
    one check: the ops each put before its loop, and the loop, whose bounds and carried
    values changed (or, all of it peeled, is gone with its buffers). False (the plan as it
    was) when a neighbour of a loop was rewritten or the check fails: the caller plans the
    function afresh."""
    moved: list[Operation] = []
    loops: list[Operation] = []
    for p in peels:
        # (A loop every iteration of which was peeled is erased: its ops keep their
        # buffers, which the check finds gone from the function.)
        ops = p.peeled_ops()
        if ops is None:
            ops = p.all_peeled_ops()
        if ops is None:
            return False
        moved += ops
        loops.append(p.loop)
    return plan.check(moved, loops, batch=True)


def targets_with_buffers_in_main(module: ModuleOp) -> set[str]:
    """The targets that keep values on the device across regions (scratchpad buffers of
    `@main`, from optimize-dma's `cross-region` and `prefetch-regions`). Their regions are
    planned together (`plan_scratchpad_module`); this pass plans one region at a time, so
    it leaves their regions alone (checking the whole module's plan per try would make it
    quadratic in the number of regions)."""
    names: set[str] = set()
    for fn in module.body.block.ops:
        if isinstance(fn, func.FuncOp) and fn.sym_name.data == "main" and not fn.is_declaration:
            for op in fn.walk():
                t = op.attributes.get(TARGET_ATTR) if isinstance(op, accel.AllocOp) else None
                if isinstance(t, StringAttr):
                    names.add(t.data)
    return names


# --------------------------------------------------------------------------------------
# The pass
# --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class PartialResidency(ModulePass):
    """The leading slab of a region-local value too large for the scratchpad stays there
    for its whole live range: its write-backs and reloads become copies on the device."""

    name = "partial-residency"

    target: tuple[str, ...] = ()
    """Descriptions (names or .toml paths) to load for the regions' `accel.target` names;
    by default the compile's targets, then built-ins by name."""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        known = target_context(ctx)
        known.load(self.target)
        across = targets_with_buffers_in_main(op)
        for fn, name in list(accelerator_functions(op)):
            if placement_of(fn) != "dma" or name in across:
                continue
            desc = known.named(name, fn)
            if not desc.lowers_to_accel or not desc.copies_on_device:
                continue
            if keep_resident(fn, desc.memory.scratchpad_bytes, desc.memory.alignment):
                plan_scratchpad(fn, desc.memory.scratchpad_bytes, desc.memory.alignment)
