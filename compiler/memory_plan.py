"""Static memory planning shared by the host arena (plan-memory) and the scratchpads
(insert-dma, optimize-dma): a linear scan over lifetimes with a first-fit free list.

The passes that rewrite a region tentatively and keep a rewrite only where the scratchpad
still fits (assemble-on-device, optimize-dma, partial-residency) ask `ScratchpadPlan`: it
keeps a valid plan of the region and re-places only the buffers whose lives a rewrite
changed, so a check costs what the rewrite touches, not the region."""

from __future__ import annotations

import bisect
import heapq
import itertools
import os
from collections.abc import Iterable, Sequence
from typing import NamedTuple

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import MemRefType, ModuleOp, StringAttr
from xdsl.ir import BlockArgument, OpResult, Operation

from accel.compiler.diagnostics import CompileError
from accel.compiler.ir_build import i64_attr
from accel.compiler.tensors import buffer_bytes
from accel.dialects import accel
from accel.dialects.conventions import TARGET_ATTR
from accel.dialects.memo import by_identity


class FreeList:
    """First-fit allocator over [0, inf) with coalescing of freed blocks."""

    def __init__(self) -> None:
        self.starts: list[int] = []  # sorted free block starts
        self.sizes: dict[int, int] = {}
        self.top = 0  # end of the used arena

    def allocate(self, size: int) -> int:
        for start in self.starts:
            if self.sizes[start] >= size:
                rest = self.sizes.pop(start) - size
                self.starts.remove(start)
                if rest:
                    self._insert(start + size, rest)
                return start
        # Extend the arena, merging a free block that ends at the top.
        if self.starts and self.starts[-1] + self.sizes[self.starts[-1]] == self.top:
            start = self.starts.pop()
            self.sizes.pop(start)
        else:
            start = self.top
        self.top = start + size
        return start

    def free(self, start: int, size: int) -> None:
        self._insert(start, size)

    def _insert(self, start: int, size: int) -> None:
        i = bisect.bisect_left(self.starts, start)
        # merge with the next block
        if i < len(self.starts) and start + size == self.starts[i]:
            nxt = self.starts.pop(i)
            size += self.sizes.pop(nxt)
        # merge with the previous block
        if i > 0 and self.starts[i - 1] + self.sizes[self.starts[i - 1]] == start:
            prev = self.starts[i - 1]
            self.sizes[prev] += size
            return
        self.starts.insert(i, start)
        self.sizes[start] = size


def greedy_by_size(intervals: Sequence[tuple[int, int, int]]) -> tuple[list[int], int]:
    """Offsets placing the largest buffers first, each at the lowest offset free over its
    lifetime (TFLite's greedy-by-size): less fragmentation than the linear scan, at
    O(n^2) in the worst case, so it is the fallback when the scan does not fit. (For
    large sets the search looks only at the buffers that meet each one in time, or where
    they are many is vectorized: n^2 numpy steps, not n^2 Python ones; see
    `place_among`.)"""
    return place_among(intervals)


def place_among(intervals: Sequence[tuple[int, int, int]], fixed: Sequence[tuple[int, int, int, int]] = (),
                by_size: bool = True) -> tuple[list[int], int]:
    """Offsets for buffers (first, last position, size) around `fixed` ones (first, last,
    offset, size) that keep theirs, each at the lowest offset free over its lifetime, the
    largest first (greedy-by-size) or, without `by_size`, in order of first position (the
    choices of the linear scan). Returns the offsets (in input order) and the top of the
    buffers placed."""
    if by_size:
        order = sorted(range(len(intervals)), key=lambda i: (-intervals[i][2], intervals[i][0]))
    else:
        order = sorted(range(len(intervals)), key=lambda i: intervals[i][0])
    n = len(intervals) + len(fixed)
    if n <= SMALL_PLACEMENT:
        return _place_in_order(intervals, fixed, order)
    firsts = [f for f, _, _, _ in fixed] + [f for f, _, _ in intervals]
    lasts = [l for _, l, _, _ in fixed] + [l for _, l, _ in intervals]
    if _meeting_pairs(firsts, lasts) <= SPARSE_MEETINGS * n:
        return _place_in_order_sparse(intervals, fixed, order, _meetings(firsts, lasts, len(fixed)))
    return _place_in_order_vectorized(intervals, fixed, order)


SMALL_PLACEMENT = 128
"""Up to this many buffers `place_among` places them in plain Python: numpy's steps per
buffer cost more than the comparisons they save (the local re-plans of `ScratchpadPlan`
place at most `LOCAL_LIMIT` at a time)."""

SPARSE_MEETINGS = 64
"""Above `SMALL_PLACEMENT` buffers, `place_among` looks at each buffer's neighbours in
time (`_meetings`) where buffers meet at most this many others on average (a tiled
region's: ResNet-50's 700 scratchpad buffers meet 8), else scans all placed buffers with
numpy."""


def _meeting_pairs(firsts: Sequence[int], lasts: Sequence[int]) -> int:
    """The number of ordered pairs (i, j) of lives [first, last] that meet, i = j
    included: j meets i when it starts no later than i's end and ends no earlier than
    i's start."""
    f, l = np.asarray(firsts), np.asarray(lasts)
    return int((np.searchsorted(np.sort(f), l, "right") - np.searchsorted(np.sort(l), f, "left")).sum())


def _meetings(firsts: Sequence[int], lasts: Sequence[int], fixed: int) -> list[list[int]]:
    """For each life after the first `fixed` (whose lists stay empty), the others that
    meet it, by a sweep in order of first position (linear in the pairs that meet)."""
    met: list[list[int]] = [[] for _ in firsts]
    active: list[int] = []
    for i in sorted(range(len(firsts)), key=firsts.__getitem__):
        start = firsts[i]
        active = [j for j in active if lasts[j] >= start]
        mine = met[i]
        for j in active:
            if i >= fixed:
                mine.append(j)
            if j >= fixed:
                met[j].append(i)
        active.append(i)
    return met


def _place_in_order(intervals: Sequence[tuple[int, int, int]], fixed: Sequence[tuple[int, int, int, int]],
                    order: Sequence[int]) -> tuple[list[int], int]:
    """`place_among`'s placement, the buffers taken in `order`."""
    offsets = [0] * len(intervals)
    placed = [(first, last, offset, offset + size) for first, last, offset, size in fixed]
    top = 0
    for i in order:
        first, last, size = intervals[i]
        offset = _lowest_gap([(lo, hi) for f, l, lo, hi in placed if f <= last and l >= first], size)
        offsets[i] = offset
        placed.append((first, last, offset, offset + size))
        if offset + size > top:
            top = offset + size
    return offsets, top


def _lowest_gap(spans: list[tuple[int, int]], size: int) -> int:
    """The lowest offset with `size` bytes free of the byte ranges [lo, hi) of `spans`:
    the first gap of that size after the running end of the ranges below it."""
    offset = 0
    for lo, hi in sorted(spans):
        if lo - offset >= size:
            break
        if hi > offset:
            offset = hi
    return offset


def _place_in_order_sparse(intervals: Sequence[tuple[int, int, int]], fixed: Sequence[tuple[int, int, int, int]],
                           order: Sequence[int], met: list[list[int]]) -> tuple[list[int], int]:
    """`_place_in_order` looking only at the placed buffers that meet each one (`met`:
    `_meetings` of the fixed buffers, then `intervals`)."""
    n_fixed = len(fixed)
    los = [offset for _, _, offset, _ in fixed] + [0] * len(intervals)
    his = [offset + size for _, _, offset, size in fixed] + [0] * len(intervals)
    placed = [True] * n_fixed + [False] * len(intervals)
    offsets = [0] * len(intervals)
    top = 0
    for i in order:
        k = n_fixed + i
        size = intervals[i][2]
        offset = _lowest_gap([(los[j], his[j]) for j in met[k] if placed[j]], size)
        offsets[i] = offset
        los[k], his[k], placed[k] = offset, offset + size, True
        if offset + size > top:
            top = offset + size
    return offsets, top


def _place_in_order_vectorized(intervals: Sequence[tuple[int, int, int]], fixed: Sequence[tuple[int, int, int, int]],
                               order: Sequence[int]) -> tuple[list[int], int]:
    """`_place_in_order` with the search over placed buffers in numpy (n^2 numpy steps,
    not n^2 Python ones)."""
    offsets = [0] * len(intervals)
    n = len(intervals) + len(fixed)
    firsts = np.empty(n, np.int64)
    lasts = np.empty(n, np.int64)
    los = np.empty(n, np.int64)
    his = np.empty(n, np.int64)
    for k, (first, last, offset, size) in enumerate(fixed):
        firsts[k], lasts[k], los[k], his[k] = first, last, offset, offset + size
    top = 0
    for k, i in enumerate(order, len(fixed)):
        first, last, size = intervals[i]
        # Placed buffers live at the same time, by (start, end) as the scan needs them.
        live = (firsts[:k] <= last) & (lasts[:k] >= first)
        lo, hi = los[:k][live], his[:k][live]
        offset = 0
        if lo.size:
            by = np.lexsort((hi, lo))
            lo, hi = lo[by], hi[by]
            # The first gap of `size` bytes after the running end of the buffers below it.
            ends = np.maximum.accumulate(np.concatenate(([0], hi)))
            gap = np.flatnonzero(lo - ends[:-1] >= size)
            offset = int(ends[gap[0]] if gap.size else ends[-1])
        offsets[i] = offset
        firsts[k], lasts[k], los[k], his[k] = first, last, offset, offset + size
        top = max(top, offset + size)
    return offsets, top


def peak_live(intervals: Sequence[tuple[int, int, int]]) -> int:
    """The largest total size of buffers live at one position: no plan is smaller."""
    events = sorted([(first, size) for first, _, size in intervals] + [(last + 1, -size) for _, last, size in intervals])
    peak = live = 0
    for _, delta in events:
        live += delta
        peak = max(peak, live)
    return peak


def align(n: int, a: int) -> int:
    return (n + a - 1) // a * a


def linear_scan(intervals: Sequence[tuple[int, int, int]]) -> tuple[list[int], int]:
    """Offsets for buffers given as (first position, last position, size in bytes);
    two buffers overlap in memory only if their [first, last] ranges are disjoint.
    Returns the offsets (in input order) and the total size. O(n log n)."""
    order = sorted(range(len(intervals)), key=lambda i: intervals[i][0])
    offsets = [0] * len(intervals)
    free = FreeList()
    live: list[tuple[int, int, int]] = []  # heap of (last position, offset, size)
    for i in order:
        start, last, size = intervals[i]
        while live and live[0][0] < start:
            _, off, sz = heapq.heappop(live)
            free.free(off, sz)
        offsets[i] = free.allocate(size)
        heapq.heappush(live, (last, offsets[i], size))
    return offsets, free.top


def plan_is_valid(intervals: Sequence[tuple[int, int, int]], offsets: Sequence[int | None], capacity: int) -> bool:
    """Whether `offsets` place the buffers (first, last position, size) within `capacity`
    bytes, no two that live at the same time sharing a byte (None: a buffer without one)."""
    occupied: list[tuple[int, int]] = []  # byte ranges of the live buffers, sorted
    live: list[tuple[int, int, int]] = []  # heap of (last position, offset, end)
    for i in sorted(range(len(intervals)), key=lambda i: intervals[i][0]):
        first, last, size = intervals[i]
        offset = offsets[i]
        if offset is None or offset < 0 or offset + size > capacity:
            return False
        while live and live[0][0] < first:
            _, lo, hi = heapq.heappop(live)
            occupied.pop(bisect.bisect_left(occupied, (lo, hi)))
        at = bisect.bisect_left(occupied, (offset, offset + size))
        if (at and occupied[at - 1][1] > offset) or (at < len(occupied) and occupied[at][0] < offset + size):
            return False
        occupied.insert(at, (offset, offset + size))
        heapq.heappush(live, (last, offset, offset + size))
    return True


# --------------------------------------------------------------------------------------
# Scratchpad planning (IR-aware)
# --------------------------------------------------------------------------------------


def _positions(fn, step: int = 1, pos: dict | None = None) -> tuple[dict, dict]:
    """Execution-order numbers of every op of a function (nested ops included, in the
    order of `fn.walk()`), `step` apart from 0, and for each op with regions the number of
    its last nested op. `pos`: the (empty) dict to fill, if not a plain one."""
    pos = {} if pos is None else pos
    last: dict = {}
    counter = 0

    def visit(op) -> None:  # (an op with regions; ops without are numbered inline)
        nonlocal counter
        pos[op] = counter
        counter += step
        for region in op.regions:
            for block in region.blocks:
                inner = block._first_op  # noqa: SLF001 - xDSL's properties cost a call per op
                while inner is not None:
                    if inner.regions:
                        visit(inner)
                    else:
                        pos[inner] = counter
                        counter += step
                    inner = inner._next_op  # noqa: SLF001
        last[op] = counter - step

    visit(fn)
    del visit  # (a recursive closure is a reference cycle: the compile runs without the collector)
    return pos, last


def _block_ancestor(op, block):
    """`op` or its ancestor that sits directly in `block`."""
    # (xDSL's `parent_op()` is three calls a level: the fields are read instead)
    while op is not None:
        parent = op.parent
        if parent is block:
            return op
        region = parent.parent if parent is not None else None
        op = region.parent if region is not None else None
    return None


def _subtree_last(op, pos, memo) -> int:
    """The largest position of `op` and its nested ops (-1 if none is numbered)."""
    known = memo.get(op)
    if known is not None:
        return known
    last = pos.get(op, -1)
    for region in op.regions:
        for block in region.blocks:
            for inner in block.ops:
                last = max(last, _subtree_last(inner, pos, memo))
    memo[op] = last
    return last


def _span_end(op, pos, end, memo) -> int:
    """Last position of `op`: `end` knows it for top-level ops (a call spans its callee),
    otherwise its nested ops (`memo`: their last positions, filled as they are asked)."""
    if op in end:
        return end[op]
    if not op.regions:
        return pos.get(op, 0)
    return max(pos.get(op, 0), _subtree_last(op, pos, memo))


def _use_span(value, block, pos, end, memo) -> tuple[int, int] | None:
    """First and last position at which `value` (defined in `block`) is in use: from the
    op of `block` holding its first use to the end of the one holding its last, where a
    transfer counts until the `dma_wait` of its token, a use inside a loop (or a call)
    until its end; views of it extend it. None if it is not used."""
    # The planner asks this for every buffer of a function per plan: the common cases (a
    # user or a wait directly in `block`, without regions) are inlined, the use lists are
    # followed link by link (xDSL's `uses` builds an iterable object and a generator per
    # value), and the fields of xDSL's values are read instead of their properties (a
    # call each): a transfer's token is its only result, and it is no buffer.
    first = None
    last = -1
    stack: list = []
    use = value.first_use
    while use is not None:
        stack.append(use._operation)  # noqa: SLF001 - see above
        use = use._next_use  # noqa: SLF001
    transfer, memref_type = accel.DmaStartOp, MemRefType
    while stack:
        user = stack.pop()
        anchor = user if user.parent is block else _block_ancestor(user, block)
        if anchor is not None:
            at = pos[anchor]
            if first is None or at < first:
                first = at
            if anchor in end:
                at = end[anchor]
            elif anchor.regions:  # its last nested op (`_span_end`), known once asked
                known = memo.get(anchor)
                at = max(at, known if known is not None else _subtree_last(anchor, pos, memo))
            if at > last:
                last = at
        results = user.results
        if not results:
            continue
        if type(user) is transfer:
            use = results[0].first_use
            while use is not None:
                waiter = use._operation  # noqa: SLF001
                if waiter.parent is not block:
                    waiter = _block_ancestor(waiter, block)
                if waiter is not None:
                    if waiter.regions or waiter in end:
                        at = _span_end(waiter, pos, end, memo)
                    else:
                        at = pos.get(waiter, 0)
                    if at > last:
                        last = at
                use = use._next_use  # noqa: SLF001
            continue
        for r in results:  # views of the buffer extend its life
            if r._type.__class__ is memref_type:  # noqa: SLF001
                use = r.first_use
                while use is not None:
                    stack.append(use._operation)  # noqa: SLF001
                    use = use._next_use  # noqa: SLF001
    return None if first is None else (first, last)


@by_identity
def _buffer_bytes(t) -> int:
    """A buffer type's bytes (at least 1), once per type object: the planner asks for the
    size of every buffer per plan, and buffers share a few type objects."""
    return max(buffer_bytes(t), 1)


def _aligned_bytes(t, alignment: int) -> int:
    return align(_buffer_bytes(t), alignment)


def _intervals(allocs, pos, end, alignment: int, memo: dict) -> list[tuple[int, int, int]]:
    """(first, last position, aligned size) of scratchpad `accel.alloc`s by liveness: a
    buffer lives from its alloc to its last use (see `_use_span`)."""

    intervals = []
    sizes: dict[int, int] = {}  # by type (buffers share a few type objects, alive meanwhile)
    for alloc in allocs:
        result = alloc.results[0]
        used = _use_span(result, alloc.parent, pos, end, memo)
        at = pos[alloc]
        t = result._type  # noqa: SLF001 - (the field: xDSL's property is a call)
        size = sizes.get(id(t))
        if size is None:
            size = sizes[id(t)] = _aligned_bytes(t, alignment)
        intervals.append((at, max(at, used[1]) if used is not None else at, size))
    return intervals


def _plan(allocs, pos, end, capacity: int, alignment: int, what: str, where, memo: dict | None = None) -> int:
    """Offsets for scratchpad `accel.alloc`s by liveness (see `_intervals`)."""
    return _place(allocs, _intervals(allocs, pos, end, alignment, {} if memo is None else memo), capacity, what, where)


def _place(allocs, intervals, capacity: int, what: str, where) -> int:
    """Set the offsets of `allocs` by a plan of the whole: the linear scan, or greedy-by-size
    where that is smaller. When neither fits, the offsets the allocs have (a plan that
    `ScratchpadPlan` kept valid through the rewrites of a pass) stay if they are valid:
    a region that a check said fits always gets a plan."""
    offsets, top = global_plan(intervals, capacity)
    if top > capacity:
        current = [_offset_of(alloc) for alloc in allocs]
        if plan_is_valid(intervals, current, capacity):
            return max((off + size for off, (_, _, size) in zip(current, intervals)), default=0)
        raise CompileError(f"{what} need{'s' if what.startswith('@') else ''} {top} bytes of scratchpad at "
                           f"{'its' if what.startswith('@') else 'their'} peak, the target has {capacity} "
                           "(tile-for-scratchpad splits operations that are too large)", where)
    for alloc, off in zip(allocs, offsets):
        alloc.properties["offset"] = i64_attr(off)
    return top


def global_plan(intervals: Sequence[tuple[int, int, int]], capacity: int) -> tuple[list[int], int]:
    """A plan of all `intervals`: the linear scan, or where it exceeds `capacity` the
    smaller of it and greedy-by-size. Returns the offsets and the top."""
    offsets, top = linear_scan(intervals)
    if top > capacity:
        offsets, top = min((offsets, top), greedy_by_size(intervals), key=lambda plan: plan[1])
    return offsets, top


def _offset_of(alloc) -> int | None:
    offset = alloc.properties.get("offset")
    return None if offset is None else offset.value.data


@by_identity
def _in_spm(t) -> bool:
    return accel.memory_space(t) == "spm"


def _spm_allocs(ops) -> list:
    """The scratchpad `accel.alloc`s among `ops` (exact type test: `isinstance` against
    xDSL's op classes goes through `ABCMeta`, and this runs over every op per plan)."""
    alloc_op = accel.AllocOp
    spm: dict[int, tuple] = {}
    found = []
    for op in ops:
        if type(op) is not alloc_op:
            continue
        t = op.results[0].type
        hit = spm.get(id(t))
        if hit is None:
            hit = spm[id(t)] = (t, accel.memory_space(t) == "spm")
        if hit[1]:
            found.append(op)
    return found


def _function_allocs(fn) -> tuple[list, dict, dict]:

    pos, last = _positions(fn)
    return _spm_allocs(pos), pos, last


def plan_scratchpad(fn, capacity: int, alignment: int) -> int:
    """Plan the scratchpad buffers of one accelerator function; returns the peak.
    Raises CompileError if the peak exceeds `capacity`."""
    allocs, pos, last = _function_allocs(fn)
    return _plan(allocs, pos, {}, capacity, alignment, f"@{fn.sym_name.data}", fn, last)


class LiveBytes:
    """The aligned bytes of a function's scratchpad buffers live at each of its positions
    (by the planner's liveness): no plan of the function, and no buffer added to it, fits
    where the most crowded position of its life does not leave room."""

    def __init__(self, fn, alignment: int) -> None:
        allocs, self.pos, last = _function_allocs(fn)
        diff = np.zeros(len(self.pos) + 1, dtype=np.int64)
        for first, end, size in _intervals(allocs, self.pos, {}, alignment, last):
            diff[first] += size
            diff[end + 1] -= size
        self.live = np.cumsum(diff)

    def peak(self, ops: Iterable) -> int | None:
        """The most bytes live from the first of `ops` to the last (None: none of them
        was in the function when it was measured)."""
        at = [self.pos[op] for op in ops if op in self.pos]
        return int(self.live[min(at):max(at) + 1].max()) if at else None


class Footprint(NamedTuple):
    """What a tentative rewrite changed, as `ScratchpadPlan.check` needs it: the ops it
    moved or inserted (`moved`, nested ops with them; ops it took out may be listed too),
    the ops whose operands it changed in place (`touched`), and the scratchpad allocs
    whose lives it may have changed otherwise (`buffers`). Ops inserted without being
    listed are found when a life reaches them; an op moved without being listed is not."""

    moved: list
    touched: list = []
    buffers: list = []


def merged(prints: Iterable[Footprint]) -> Footprint:
    moved, touched, buffers = [], [], []
    for p in prints:
        moved += p.moved
        touched += p.touched
        buffers += p.buffers
    return Footprint(moved, touched, buffers)


SPACING = 1 << 32
"""The distance between the labels of consecutive ops when a function is numbered: room
for the ops that rewrites move or insert between two, numbered without renumbering the rest."""

BUCKET_SHIFT = 37
"""Buffers are indexed by the labels they live over, in buckets of 2^37 (32 ops as first
numbered): the buffers live over a span are found in time proportional to the span."""

LOCAL_LIMIT = 96
"""At most this many buffers are re-placed together when the buffers a rewrite changed do
not fit among the others as they are (a local re-plan)."""

LOCAL_ROUNDS = 4
"""How many spans a local re-plan tries, each the last widened to the lives of the buffers
that cross it (those then move too; at most doubling it, and within `LOCAL_LIMIT`
buffers, so a check stays bounded). Two rounds refused the double buffering of 105 of
ResNet-50's 146 loops on npu that a whole plan places (4.6 % more cycles)."""

WHOLE_WORK = 64
"""A check of a single rewrite that no local re-plan places gets a whole plan (as
`plan_scratchpad`'s) once the checks since the last one have looked at this many entries
per buffer of the function: whole plans then cost a fraction of the checks' own work. (A
whole plan costs about 10 us a buffer, an entry looked at a fraction of a microsecond: at
16, PP-OCRv6's detector on a 64 KiB npu spent 1.6 of its checks' 3.6 s in 76 whole plans;
at 64, 0.4 of 2.4 s in 21. Of bench/dma.py's 141 pairs, four moved: three fewer bytes,
cycles within 0.2 % either way.)"""

VERIFY = os.environ.get("ACCEL_VERIFY_SPM_PLAN", "") not in ("", "0")
"""Check every plan that `ScratchpadPlan` accepts against one numbered afresh from the IR
(tests turn it on; O(region) per check)."""


class _Labels(dict):
    """Op -> label. `get` raises KeyError like `[]`: the liveness helpers shared with the
    whole-function planner ask with a default, and an op that a rewrite inserted without
    saying so must be numbered (see `ScratchpadPlan._lives`), not taken for position 0."""

    __slots__ = ()

    def get(self, key, default=None):
        return self[key]


class _Renumber(Exception):
    """No room is left between two labels: the function is numbered afresh."""


_NO_END: dict = {}


class ScratchpadPlan:
    """A valid scratchpad plan of one accelerator function (an offset for each buffer, by
    the liveness of `plan_scratchpad`), kept up to date through tentative rewrites, so
    that asking whether a rewrite still fits costs what the rewrite touches:

    - positions are labels, integers `SPACING` apart when the function is numbered; the
      ops a rewrite moves or inserts are numbered between the unchanged ops around them,
      so no other label changes;
    - the buffers whose lives may have changed (allocs among the moved ops, buffers that
      moved or touched ops read or write, through views and transfer tokens, and those
      the rewrite names) get their lives again; one whose life only shrank keeps its
      offset, the others are placed among the buffers live beside them (indexed by label
      buckets), where they were if that is free, else at the lowest free offset;
    - if that fails, the buffers within the span of the failures are re-placed together
      around those that cross it (`LOCAL_LIMIT`, `LOCAL_ROUNDS`), unless the bytes live in
      that span already exceed the capacity (then no plan exists); a batch (`batch=True`)
      may re-plan the whole function as `plan_scratchpad` does.

    Every plan it accepts is valid for the IR (two buffers share bytes only if their lives
    are disjoint, all within the capacity), so it is conservative against planning from
    scratch only where the buffers it keeps in place leave no room. A check that fails is
    rolled back; the rewrite is then undone by its caller, which calls `settle` with the
    same footprint. Accepted offsets are written to the allocs, so that the final plan of
    a pass can fall back to them (see `_place`).

    A function whose scratchpad buffers all fit side by side is not numbered: any plan of
    it fits, so a check only adds the bytes of the buffers the rewrite brings to a sum that
    never decreases (`_still_roomy`), and the function is numbered when that sum passes the
    capacity (`_hand_over`). Its allocs keep the offsets they had; the pass's final plan
    places them."""

    def __init__(self, fn, capacity: int, alignment: int) -> None:
        self.fn = fn
        self.body = fn.body.block
        self.capacity = capacity
        self.alignment = alignment
        self.stats = dict.fromkeys(("checks", "failed", "local", "whole", "renumbered", "unsettled"), 0)
        self._saved_labels: dict = {}
        self._saved_last: dict = {}
        self._saved_buffers: dict = {}
        self._snapshot: tuple | None = None
        self.work = 0
        """Entries and lives the checks looked at since the last whole plan (see `_place`)."""
        numbered = _positions(fn, SPACING, _Labels())  # (a plan that is not roomy needs them: one walk for both)
        allocs = _spm_allocs(numbered[0])
        self._roomy: dict | None = dict.fromkeys(allocs)
        """While all the scratchpad buffers the function ever had fit side by side (their
        bytes summed in `_roomy_bytes`), any plan of them fits: checks only add the buffers
        a rewrite brings, and the function is numbered when they no longer fit (None)."""
        self._roomy_bytes = sum(_aligned_bytes(a.results[0].type, alignment) for a in allocs)
        self.valid = True
        self._unwritten = False
        if self._roomy_bytes > capacity:
            self._start(allocs, numbered)

    def _start(self, allocs: list | None = None, numbered: tuple[dict, dict] | None = None) -> None:
        """Number the function and adopt a plan of it: the offsets the allocs have if
        valid, else a whole plan (none if it does not fit: then only a batch plans).
        `allocs`: the function's scratchpad allocs in walk order, and `numbered` its
        `_positions`, if the caller has them."""
        self._roomy = None
        allocs, intervals = self._numbered(allocs, numbered)
        capacity = self.capacity
        offsets: list = [_offset_of(a) for a in allocs]
        if not plan_is_valid(intervals, offsets, capacity):
            planned, top = global_plan(intervals, capacity)
            offsets = planned if top <= capacity else [None] * len(allocs)
        self._unwritten = offsets != [_offset_of(a) for a in allocs]
        """Whether the allocs lack offsets of the plan: the first commit writes them all."""
        self.valid = all(o is not None for o in offsets)
        self._adopt(allocs, intervals, offsets)

    # ---- checks --------------------------------------------------------------------

    def check(self, moved: Iterable = (), touched: Iterable = (), buffers: Iterable = (), batch: bool = False,
              write: bool = True) -> bool:
        """Whether the scratchpad still fits after a rewrite with this footprint (see
        `Footprint`); if so the plan follows it (and, with `write`, the allocs get its
        offsets), else the plan is as before."""
        self.stats["checks"] += 1
        if self._roomy is not None:
            if self._still_roomy(moved, touched, buffers):
                if VERIFY:
                    self.verify()
                return True
            return self._hand_over(write)
        try:
            pending = self._lives(list(moved), list(touched), list(buffers))
            if self.valid:
                ok = self._place(pending, batch)
            else:  # no valid plan to start from: only a batch plans the whole function
                self._rollback()
                ok = batch and self._renumber()
        except _Renumber:
            self._rollback()
            ok = self._renumber()
        if not ok:
            self.stats["failed"] += 1
            self._rollback()
            return False
        self._commit(write)
        if VERIFY:
            self.verify()
        return True

    def check_all(self) -> bool:
        """`check` for a rewrite all over the function: numbered afresh, the offsets kept
        if still valid, else a whole plan."""
        self.stats["checks"] += 1
        if self._roomy is not None:  # what changed is not known: count every buffer
            return self._still_roomy(_spm_allocs(self.fn.walk()), (), ()) or self._hand_over()
        if not self._renumber():
            self.stats["failed"] += 1
            self._rollback()
            return False
        self._commit()
        return True

    def settle(self, moved: Iterable = (), touched: Iterable = (), buffers: Iterable = ()) -> None:
        """After the rewrite of a failed check was undone (or a kept one committed): number
        the ops it put back, and take the lives it changed again. The plan from before it
        holds, up to lives that shrank, so this places nothing unless it must; if nothing
        fits, later checks fail (and the pass's final plan decides)."""
        # The IR is back as it was: its offsets need no writing unless they are the plan's.
        unwritten, self._unwritten = self._unwritten, False
        if not self.check(moved, touched, buffers, batch=True, write=not unwritten):
            self.stats["unsettled"] += 1
            self.valid = False
        self._unwritten = unwritten

    def verify(self) -> None:
        """Raise AssertionError unless the plan is valid for the IR as it is now."""
        if self._roomy is not None:
            allocs = _spm_allocs(self.fn.walk())
            assert all(a in self._roomy for a in allocs) and self._roomy_bytes <= self.capacity, \
                f"@{self.fn.sym_name.data}: a scratchpad buffer was not counted, or they do not fit side by side"
            return
        pos, last = _positions(self.fn)
        allocs = _spm_allocs(pos)
        intervals = _intervals(allocs, pos, {}, self.alignment, last)
        offsets = [self.buffers[id(a)][3] if id(a) in self.buffers else None for a in allocs]
        assert plan_is_valid(intervals, offsets, self.capacity), \
            f"@{self.fn.sym_name.data}: the incremental scratchpad plan is not valid"

    def peak(self, ops: Iterable) -> int | None:
        """`LiveBytes.peak` of the function as the plan has it (a plan that numbers it, see
        `numbered`): the most bytes live from the first of `ops` to the last (None: none
        of them is numbered)."""
        labels = [at for op in ops if (at := dict.get(self.label, op)) is not None]
        if not labels:
            return None
        a, b = -(-min(labels) // SPACING), min(max(labels) // SPACING, len(self.live) - 1)
        return max(self.live[a:b + 1]) if a <= b else 0

    @property
    def numbered(self) -> bool:
        """Whether the function is numbered and its live bytes counted (not while all its
        buffers fit side by side)."""
        return self._roomy is None

    def no_room_over(self, op: Operation, buffer_types: Iterable) -> bool:
        """Whether buffers of `buffer_types` added to the bytes live over all of `op` (a
        loop: from it to its last nested op) certainly exceed the capacity: a screen for
        a rewrite that makes them live across the loop, refusing it before it is built (the
        check would; `False` decides nothing)."""
        if self._roomy is not None or not self.valid:
            return False
        lo = dict.get(self.label, op)
        hi = self.last.get(op, lo) if op.regions else lo
        if lo is None or hi is None:
            return False
        return self._crowded(lo, hi, sum(_aligned_bytes(t, self.alignment) for t in buffer_types))

    def no_room_between(self, first: Operation, last: Operation, buffer_types: Iterable) -> bool:
        """`no_room_over` for buffers live from `first` to `last` (ops of the function,
        nested or not): whether they certainly do not fit (`False` decides nothing)."""
        if self._roomy is not None or not self.valid:
            return False
        lo, hi = dict.get(self.label, first), dict.get(self.label, last)
        if lo is None or hi is None:
            return False
        return self._crowded(lo, hi, sum(_aligned_bytes(t, self.alignment) for t in buffer_types))

    def no_room_to_extend(self, alloc: Operation, until: Operation) -> bool:
        """Whether the buffer of `alloc`, kept live up to `until` (an op after its planned
        life), certainly does not fit where it was not live: its bytes added over the
        positions after its life and before `until` (`False` decides nothing)."""
        if self._roomy is not None or not self.valid:
            return False
        entry = self.buffers.get(id(alloc))
        end = dict.get(self.label, until)
        if entry is None or end is None or entry[1] + 1 > end - 1:
            return False
        return self._crowded(entry[1] + 1, end - 1, entry[2])

    def _hand_over(self, write: bool = True) -> bool:
        """The buffers no longer fit side by side: number the function with the rewrite in
        place, and let a whole plan decide (a refused rewrite is undone and settled as
        after any failed check: the plan then has none, and the settle renumbers)."""
        self._start()
        if not self.valid:
            self.stats["failed"] += 1
            return False
        self._commit(write)
        return True

    def _still_roomy(self, moved: Iterable, touched: Iterable, buffers: Iterable) -> bool:
        """Count the scratchpad buffers a rewrite brings (allocs among the ops it moved or
        inserted, nested ones included, and those its ops read or write); whether all
        buffers counted so far still fit side by side."""
        found: dict = {}
        ops = [inner for op in moved for inner in (op.walk() if op.regions else (op,))]
        self._affected(ops, touched, buffers, found)
        counted = self._roomy
        for alloc in found:
            if alloc not in counted:
                counted[alloc] = None
                if _in_spm(alloc.results[0].type):
                    self._roomy_bytes += _aligned_bytes(alloc.results[0].type, self.alignment)
        return self._roomy_bytes <= self.capacity

    # ---- numbering -----------------------------------------------------------------

    def _numbered(self, allocs: list | None = None, numbered: tuple[dict, dict] | None = None) -> tuple[list, list]:
        """Number the function afresh (`numbered`: its labels and last labels, `_positions`
        `SPACING` apart, if the IR has not changed since they were taken); its scratchpad
        allocs (`allocs`, if known) and their lives."""
        self.label, self.last = _positions(self.fn, SPACING, _Labels()) if numbered is None else numbered
        allocs = _spm_allocs(self.label) if allocs is None else allocs
        return allocs, _intervals(allocs, self.label, _NO_END, self.alignment, self.last)

    def _attached(self, op) -> bool:
        """Whether `op` is in the function (not taken out, nor inside an op taken out)."""
        body = self.body
        while True:
            block = op.parent
            if block is body:
                return True
            region = block.parent if block is not None else None
            op = region.parent if region is not None else None
            if op is None:
                return False

    def _set_label(self, op, label: int) -> None:
        if op not in self._saved_labels:
            self._saved_labels[op] = dict.get(self.label, op)
        self.label[op] = label

    def _set_last(self, op, label: int) -> None:
        if op not in self._saved_last:
            self._saved_last[op] = self.last.get(op)
        self.last[op] = label

    def _end_label(self, op) -> int:
        return self.last[op] if op.regions else self.label[op]

    def _relabel(self, seeds: list) -> list:
        """Number the runs of moved (or new) ops around `seeds` between the unchanged ops
        that bound them; returns every op numbered, nested ones included. A run reaching
        the start or end of a nested block renumbers the op holding it."""
        label = self.label
        dirty = {op for op in seeds if self._attached(op)}
        done: set = set()
        numbered: list = []
        for seed in seeds:
            if seed not in dirty or seed in done:
                continue
            op = seed
            while True:  # (the neighbours' fields read: xDSL's properties are a call each)
                first = last = op
                while (before := first._prev_op) is not None and (before in dirty or before not in label):  # noqa: SLF001
                    first = before
                while (after := last._next_op) is not None and (after in dirty or after not in label):  # noqa: SLF001
                    last = after
                if op.parent is self.body or (first._prev_op is not None and last._next_op is not None):  # noqa: SLF001
                    break
                op = op.parent.parent.parent
                dirty.add(op)
            if op in done:
                continue
            run = [first]
            while run[-1] is not last:
                run.append(run[-1]._next_op)  # noqa: SLF001
            lo = self._end_label(first.prev_op) if first.prev_op is not None else label[self.fn]
            hi = label[last.next_op] if last.next_op is not None else None
            done.update(run)
            if self._in_order(run, lo, hi):  # put back where it was: its labels hold
                continue
            count = len(run) + sum(sum(1 for _ in o.walk()) - 1 for o in run if o.regions)
            if hi is None:
                hi = lo + (count + 1) * SPACING
            step = (hi - lo) // (count + 1)
            if step < 1:
                raise _Renumber
            at = lo

            def visit(o) -> None:
                nonlocal at
                at += step
                self._set_label(o, at)
                numbered.append(o)
                if o.regions:
                    for region in o.regions:
                        for block in region.blocks:
                            for inner in block.ops:
                                visit(inner)
                    self._set_last(o, at)

            saved, labels = self._saved_labels, label
            for o in run:
                if o.regions:
                    visit(o)
                    continue
                at += step  # (`visit` inlined: most ops hold no region)
                if o not in saved:
                    saved[o] = dict.get(labels, o)
                labels[o] = at
                numbered.append(o)
        visit = None  # (a recursive closure, holding this plan, is a reference cycle: see `_positions`)
        return numbered

    def _in_order(self, run: list, lo: int, hi: int | None) -> bool:
        """Whether the ops of `run` (not nested ones: a run of moved ops holds no region
        op that stayed put) have labels, increasing from above `lo` to below `hi`."""
        for op in run:
            at = dict.get(self.label, op)
            if at is None or at <= lo or op.regions:
                return False
            lo = at
        return hi is None or lo < hi

    def _renumber(self) -> bool:
        """Number the function afresh and take every life again: the offsets stay if they
        are still valid, else a whole plan. (Rolled back as a whole.)"""
        self.stats["renumbered"] += 1
        self._snapshot = (self.label, self.last, self.buffers, self.levels, self.live, self.valid)
        allocs, intervals = self._numbered()
        old = self._snapshot[2]
        offsets = [old[id(a)][3] if id(a) in old else _offset_of(a) for a in allocs]
        if not plan_is_valid(intervals, offsets, self.capacity):
            planned, top = global_plan(intervals, self.capacity)
            if top > self.capacity:
                return False
            offsets = planned
        self._adopt(allocs, intervals, offsets)
        self.valid = True
        return True

    # ---- lives ---------------------------------------------------------------------

    def _affected(self, ops: Iterable, touched: Iterable, buffers: Iterable, found: dict) -> None:
        """The allocs among `ops` and `buffers`, and the buffers that `ops` and `touched`
        read or write (through views, and through the tokens of transfers they wait for)."""
        alloc_op, dma_op = accel.AllocOp, accel.DmaStartOp
        for a in buffers:
            if type(a) is alloc_op:
                found[a] = None
        seen: set = set()
        for op in dict.fromkeys((*ops, *touched)):
            if type(op) is alloc_op:
                found[op] = None
                continue
            if op.regions and not self._attached(op):  # its allocs leave the plan
                for inner in op.walk():
                    if type(inner) is alloc_op:
                        found[inner] = None
            for v in op._operands:  # noqa: SLF001 - (the fields, as in `_use_span`)
                if v in seen:
                    continue
                seen.add(v)
                cls = v.__class__
                owner = v.op if cls is OpResult else None if cls is BlockArgument else v.owner
                if type(owner) is dma_op:  # a token: the transfer's buffers
                    for o in owner._operands:  # noqa: SLF001
                        _roots(o, found, seen)
                elif v._type.__class__ is MemRefType:  # noqa: SLF001
                    _roots(v, found, seen)

    def _lives(self, moved: list, touched: list, buffers: list) -> list:
        """Number what moved, take the lives of the buffers it affects again; returns the
        buffers to place (alloc, first, last, size, old entry or None)."""
        numbered = self._relabel(moved)
        found: dict = {}
        self._affected((*numbered, *(op for op in moved if not self._attached(op))), touched, buffers, found)
        lives = []
        work = list(found)
        while work:
            alloc = work.pop()
            try:
                lives.append((alloc, self._life(alloc)))
            except KeyError as missing:  # an op inserted without a word: number it too
                op = missing.args[0] if missing.args else None
                if not isinstance(op, Operation) or op in self.label or not self._attached(op):
                    raise
                more: dict = {}
                self._affected(self._relabel([op]), (), (), more)
                work += [a for a in more if a not in found]
                found.update(more)
                work.append(alloc)
        pending = []
        for alloc, life in lives:
            old = self.buffers.get(id(alloc))
            if life is None:
                if old is not None:
                    self._set(alloc, None)
                continue
            first, last, size = life
            if old is not None and old[3] is not None and old[0] <= first and last <= old[1] and size <= old[2]:
                if life != old[:3]:
                    self._set(alloc, (first, last, size, old[3], alloc))
                continue
            # Its old entry stays in the index until it is placed: the buffers placed before
            # it keep clear of it, so where it was stays free over its old life.
            pending.append((alloc, first, last, size, old))
        return pending

    def _life(self, alloc) -> tuple[int, int, int] | None:
        """(first, last label, size) of a scratchpad alloc; None if it is not in the function."""
        self.work += 1
        if not self._attached(alloc) or not _in_spm(alloc.results[0].type):
            return None
        result = alloc.results[0]
        at = self.label[alloc]
        used = _use_span(result, alloc.parent, self.label, _NO_END, self.last)
        return at, max(at, used[1]) if used is not None else at, _aligned_bytes(result.type, self.alignment)

    # ---- placing -------------------------------------------------------------------

    def _place(self, pending: list, batch: bool) -> bool:
        if not pending:
            return True
        capacity = self.capacity
        failing = []
        # Where it was if that is still free (only where it lives longer than it did can
        # anything be in the way), or where the IR has it (a buffer new to the plan), else
        # the lowest free offset; in order of first position, as the linear scan takes them.
        for alloc, first, last, size, old in sorted(pending, key=lambda p: (p[1], self.label[p[0]])):
            key = id(alloc)
            if old is not None and old[3] is not None and size <= old[2]:
                offset = old[3]
                spans = [s for s in ((first, old[0] - 1), (old[1] + 1, last)) if s[0] <= s[1]]
            else:
                offset = _offset_of(alloc)
                spans = [(first, last)]
            if any(self._crowded(lo, hi, size) for lo, hi in spans):
                return False
            for lo, hi in spans:
                entries = [e for e in self._overlapping(lo, hi) if id(e[4]) != key]
                if offset is None or any(e[3] < offset + size and offset < e[3] + e[2] for e in entries):
                    # In the way: the lowest offset free over its life. Where even that runs
                    # past the capacity and the bytes live over the span leave no room, no plan
                    # exists. (A free offset within the capacity means they do leave room: the
                    # entries live at one point are disjoint, within the capacity and clear of it.)
                    offset = self._free_offset(first, last, size, key)
                    if offset + size > capacity and \
                            peak_live([(max(e[0], lo), min(e[1], hi), e[2]) for e in entries] + [(lo, hi, size)]) > capacity:
                        return False
                    break
            if offset + size <= capacity:
                self._set(alloc, (first, last, size, offset, alloc))
            else:
                failing.append((alloc, first, last, size))
        if not failing:
            return True
        for alloc, *_ in failing:  # out of the way of the re-plans below
            self._set(alloc, None)
        placed = self._local(failing)
        if placed is None:  # more bytes live at once than the capacity: no plan exists
            return False
        if placed:
            return True
        if batch:
            return self._whole(failing, True)
        # A single rewrite gets a whole plan when the checks since the last one have done
        # as much work: a whole plan per check would cost the region each.
        cost = WHOLE_WORK * len(self.buffers)
        if self.work < cost:
            return False
        self.work -= cost
        return self._whole(failing, True)

    def _overlapping(self, lo: int, hi: int) -> list[tuple]:
        """The entries of the buffers live somewhere in [lo, hi]. (Entries of allocs taken
        out of the function without a word may be among them: they only take room.)"""
        found: set = set()
        a, b = lo >> BUCKET_SHIFT, hi >> BUCKET_SHIFT
        for nodes in self.levels:
            for i in range(a, b + 1):
                members = nodes.get(i)
                if members:
                    found.update(members)
            a >>= 1
            b >>= 1
        buffers = self.buffers
        self.work += len(found)
        return [e for e in map(buffers.__getitem__, found) if e[0] <= hi and e[1] >= lo]

    def _free_at(self, offset: int, size: int, lo: int, hi: int, key: int) -> bool:
        """Whether bytes [offset, offset + size) are free over [lo, hi] (but for buffer `key`)."""
        end = offset + size
        return not any(e[3] < end and offset < e[3] + e[2] and id(e[4]) != key for e in self._overlapping(lo, hi))

    def _free_offset(self, first: int, last: int, size: int, key: int) -> int:
        """The lowest offset free over [first, last] (but for buffer `key`)."""
        offset = 0
        for lo, hi in sorted((e[3], e[3] + e[2]) for e in self._overlapping(first, last) if id(e[4]) != key):
            if lo - offset >= size:
                break
            offset = max(offset, hi)
        return offset

    def _local(self, failing: list) -> bool | None:
        """Re-place the buffers within the span of `failing` together with them, around
        those that cross the span; the span widens to their lives (at most by its own
        length each way) `LOCAL_ROUNDS` times.
        None when the bytes live at some point of the span exceed the capacity (then no
        plan of the function exists)."""
        lo = min(f[1] for f in failing)
        hi = max(f[2] for f in failing)
        for _ in range(LOCAL_ROUNDS):
            members = self._overlapping(lo, hi)
            if len(members) + len(failing) > LOCAL_LIMIT:
                return False
            if peak_live([(max(m[1], lo), min(m[2], hi), m[3]) for m in failing] +
                         [(max(e[0], lo), min(e[1], hi), e[2]) for e in members]) > self.capacity:
                return None
            self.stats["local"] += 1
            inside = [(e[4], e[0], e[1], e[2]) for e in members if lo <= e[0] and e[1] <= hi]
            fixed = [e[:2] + (e[3], e[2]) for e in members if not (lo <= e[0] and e[1] <= hi)]
            movable = sorted((*failing, *inside), key=lambda m: (m[1], self.label[m[0]]))
            for by_size in (False, True):
                offsets, top = place_among([m[1:] for m in movable], fixed, by_size)
                if top <= self.capacity:
                    for (alloc, first, last, size), offset in zip(movable, offsets):
                        self._set(alloc, (first, last, size, offset, alloc))
                    return True
            if members:  # at most by its own length each way
                lo, hi = (max(min(lo, *(e[0] for e in members)), lo - (hi - lo)),
                          min(max(hi, *(e[1] for e in members)), hi + (hi - lo)))
        return False

    def _whole(self, failing: list, greedy: bool) -> bool:
        """A plan of every buffer of the function, adopted if it fits: as `plan_scratchpad`
        (with `greedy`), or the linear scan alone."""
        self.stats["whole"] += 1
        for e in [e for e in self.buffers.values() if not self._attached(e[4])]:
            self._set(e[4], None)
        entries = [(e[4], *e[:3]) for e in self.buffers.values()] + failing
        intervals = [e[1:] for e in entries]
        offsets, top = global_plan(intervals, self.capacity) if greedy else linear_scan(intervals)
        if top > self.capacity:
            return False
        for (alloc, first, last, size), offset in zip(entries, offsets):
            old = self.buffers.get(id(alloc))
            if old is None or old[3] != offset:
                self._set(alloc, (first, last, size, offset, alloc))
        return True

    # ---- state ---------------------------------------------------------------------

    def _adopt(self, allocs: list, intervals: list, offsets: list) -> None:
        self.buffers: dict[int, tuple] = {}
        """id(alloc) -> (first, last label, size, offset, alloc)"""
        self.levels: list[dict[int, set[int]]] = []
        """A segment tree over label buckets: level k holds, by bucket index >> k, the
        buffers whose lives cover those buckets (a life is a few nodes per level, so a
        query meets a long-lived buffer a few times, not once per bucket)."""
        top = max((last for _, last, _ in intervals), default=0) // SPACING + 2
        delta = [0] * (2 * top)
        for alloc, (first, last, size), offset in zip(allocs, intervals, offsets):
            entry = (first, last, size, offset, alloc)
            self.buffers[id(alloc)] = entry
            self._index(id(alloc), entry, True, False)
            delta[-(-first // SPACING)] += size
            delta[last // SPACING + 1] -= size
        self.live = list(itertools.accumulate(delta))
        """The bytes live at the labels k * SPACING (the ops as first numbered): where
        they exceed the capacity, no plan exists (see `_crowded`). A list, not an array:
        the spans a check reads and updates are mostly a few dozen entries long, where
        numpy's call costs more than Python's loop."""

    def _index(self, key: int, entry: tuple, add: bool, live: bool = True) -> None:
        first, last, size = entry[:3]
        if live:
            a, b = -(-first // SPACING), last // SPACING
            if a <= b:
                live = self.live
                if b >= len(live):
                    live.extend([0] * (b + len(live)))
                d = size if add else -size
                live[a:b + 1] = [v + d for v in live[a:b + 1]]
        a, b = first >> BUCKET_SHIFT, last >> BUCKET_SHIFT
        levels = self.levels
        k = 0
        while a <= b:
            if k == len(levels):
                levels.append({})
            nodes = levels[k]
            if a & 1:
                _member(nodes, a, key, add)
                a += 1
            if not b & 1:
                _member(nodes, b, key, add)
                b -= 1
            a >>= 1
            b >>= 1
            k += 1

    def _crowded(self, lo: int, hi: int, size: int) -> bool:
        """Whether `size` more bytes over [lo, hi] exceed the capacity at one of the labels
        `live` counts (a lower bound of the peak: then no plan exists)."""
        a, b = -(-lo // SPACING), min(hi // SPACING, len(self.live) - 1)
        return a <= b and max(self.live[a:b + 1]) + size > self.capacity

    def _set(self, alloc, entry: tuple | None) -> None:
        """Change one buffer's entry (None: not planned any more), remembered for a rollback."""
        key = id(alloc)
        old = self.buffers.get(key)
        if key not in self._saved_buffers:
            self._saved_buffers[key] = old
        if old is not None and entry is not None and old[:3] == entry[:3]:
            self.buffers[key] = entry  # a new offset: the index and profile hold
            return
        if old is not None:
            self._index(key, old, False)
        if entry is None:
            self.buffers.pop(key, None)
        else:
            self.buffers[key] = entry
            self._index(key, entry, True)

    def _commit(self, write: bool = True) -> None:
        """Keep the changes; their offsets go to the allocs (with `write`)."""
        # After a renumbering (or a first plan not the IR's), every offset may be new.
        changed = self.buffers if self._snapshot is not None or self._unwritten else self._saved_buffers
        self._unwritten = self._unwritten and not write
        for key in changed if write else ():
            entry = self.buffers.get(key)
            if entry is not None and entry[3] is not None and _offset_of(entry[4]) != entry[3]:
                entry[4].properties["offset"] = i64_attr(entry[3])
        self._forget()

    def _rollback(self) -> None:
        if self._snapshot is not None:
            self.label, self.last, self.buffers, self.levels, self.live, self.valid = self._snapshot
        else:
            for op, old in self._saved_labels.items():
                if old is None:
                    self.label.pop(op, None)
                else:
                    self.label[op] = old
            for op, old in self._saved_last.items():
                if old is None:
                    self.last.pop(op, None)
                else:
                    self.last[op] = old
            for key, old in self._saved_buffers.items():
                current = self.buffers.pop(key, None)
                if current is not None:
                    self._index(key, current, False)
                if old is not None:
                    self.buffers[key] = old
                    self._index(key, old, True)
        self._forget()

    def _forget(self) -> None:
        self._saved_labels.clear()
        self._saved_last.clear()
        self._saved_buffers.clear()
        self._snapshot = None


def _member(nodes: dict, i: int, key: int, add: bool) -> None:
    members = nodes.get(i)
    if add:
        if members is None:
            nodes[i] = {key}
        else:
            members.add(key)
    elif members is not None:
        members.discard(key)


def _roots(v, found: dict, seen: set) -> None:
    """The scratchpad allocs (candidates: any `accel.alloc`) that view `v` is of (`seen`:
    the values already followed)."""
    stack = [v]
    alloc_op = accel.AllocOp
    while stack:
        v = stack.pop()
        cls = v.__class__
        owner = v.op if cls is OpResult else None if cls is BlockArgument else v.owner
        if type(owner) is alloc_op:
            found[owner] = None
        elif isinstance(owner, Operation):
            for o in owner._operands:  # noqa: SLF001 - (the fields, as in `_use_span`)
                if o._type.__class__ is MemRefType and o not in seen:  # noqa: SLF001
                    seen.add(o)
                    stack.append(o)


def plan_scratchpad_module(module, target_name: str, capacity: int, alignment: int) -> int:
    """Plan the scratchpad buffers of all regions of one target together, in execution
    order, including those `@main` allocates for values kept on the device between
    regions (tagged `accel.target`). Returns the peak."""


    # Without buffers that live across regions (in @main), each region's plan is its own.
    resident = any(isinstance(op, accel.AllocOp) and isinstance(op.attributes.get(TARGET_ATTR), StringAttr)
                   and op.attributes[TARGET_ATTR].data == target_name
                   for fn in module.body.block.ops if isinstance(fn, func.FuncOp) for op in fn.body.block.ops
                   ) if module.body.block.ops else False
    if not resident:
        peak = 0
        for fn in module.body.block.ops:
            t = fn.attributes.get(TARGET_ATTR) if isinstance(fn, func.FuncOp) else None
            if isinstance(t, StringAttr) and t.data == target_name and not fn.is_declaration:
                peak = max(peak, plan_scratchpad(fn, capacity, alignment))
        return peak
    pos, end = schedule(module, entry=None)
    return _plan(_target_allocs(pos, target_name), pos, end, capacity, alignment, f"the regions of '{target_name}'",
                 None)


def _target_allocs(pos: dict, target_name: str) -> list[accel.AllocOp]:
    """The scratchpad allocs of the target's regions and of @main for them, in the order
    of `pos`."""
    allocs = []
    for op in pos:
        if not isinstance(op, accel.AllocOp) or accel.memory_space(op.result.type) != "spm":
            continue
        fn = op.parent_op()
        while fn is not None and not isinstance(fn, func.FuncOp):
            fn = fn.parent_op()
        owner_target = fn.attributes.get(TARGET_ATTR) if fn is not None else None
        if owner_target is None:
            owner_target = op.attributes.get(TARGET_ATTR)
        if isinstance(owner_target, StringAttr) and owner_target.data == target_name:
            allocs.append(op)
    return allocs


class ModuleLiveBytes:
    """The live scratchpad bytes of one target's buffers at each op of the module, numbered
    as `plan_scratchpad_module` numbers them (calls entered): a screen for rewrites that
    add buffers living across regions, each checked over its own span. What it refuses
    no plan can hold; what it accepts a plan may still not place (it does not pack)."""

    def __init__(self, module: ModuleOp, target_name: str, alignment: int):
        self.pos, self.end = schedule(module, entry=None)
        self.alignment = alignment
        allocs = _target_allocs(self.pos, target_name)
        self.interval = dict(zip(allocs, _intervals(allocs, self.pos, self.end, alignment, {})))
        diff = np.zeros(len(self.pos) + 1, np.int64)
        for first, last, size in self.interval.values():
            diff[first] += size
            diff[last + 1] -= size
        self.live = np.cumsum(diff[:-1])

    def add(self, first: int, last: int, buffer_types: Sequence, freed: Sequence[Operation], capacity: int) -> bool:
        """Add buffers of `buffer_types` live over positions first..last, and free the
        allocs `freed` (buffers they replace, within that span), if the live bytes stay
        within `capacity` at every op; False (nothing changed) otherwise."""
        span = self.live[first:last + 1] + sum(_aligned_bytes(t, self.alignment) for t in buffer_types)
        for alloc in freed:
            known = self.interval.get(alloc)
            if known is not None:
                a, b, size = max(known[0], first), min(known[1], last), known[2]
                if a <= b:
                    span[a - first:b - first + 1] -= size
        if len(span) and int(span.max()) > capacity:
            return False
        self.live[first:last + 1] = span
        for alloc in freed:
            self.interval.pop(alloc, None)
        return True


def schedule(module: ModuleOp, entry: str | None = "main") -> tuple[dict[Operation, int], dict[Operation, int]]:
    """Number every op in execution order, entering callees at their call sites.
    Returns (position of each op, end position of each top-level op of a function).
    With `entry=None`, a module without `@main` numbers its functions one after the
    other (for regions looked at on their own)."""
    # One symbol lookup table: a lookup per call would be quadratic in the number of calls.
    functions = {f.sym_name.data: f for f in module.body.block.ops if isinstance(f, func.FuncOp)}
    position: dict[Operation, int] = {}
    end: dict[Operation, int] = {}
    counter = 0
    visiting: set[str] = set()

    def visit_block_ops(fn: func.FuncOp, enter_calls: bool) -> None:
        nonlocal counter
        name = fn.sym_name.data
        if name in visiting:
            raise CompileError(f"plan-memory: recursive call of @{name}", fn)
        visiting.add(name)
        for op in fn.body.block.ops:
            position[op] = counter
            counter += 1
            if isinstance(op, func.CallOp):
                callee = functions.get(op.callee.root_reference.data)
                if enter_calls and isinstance(callee, func.FuncOp) and not callee.is_declaration:
                    visit_block_ops(callee, enter_calls)
            elif op.regions:  # (a walk of each op would cost a generator per op)
                for inner in op.walk():
                    if inner is not op:
                        position[inner] = counter
                        counter += 1
            end[op] = counter - 1
        visiting.discard(name)

    main = functions.get(entry or "main")
    if isinstance(main, func.FuncOp):
        visit_block_ops(main, True)
    elif entry is not None:
        raise CompileError(f"plan-memory: no @{entry} function")
    else:
        for fn in module.body.block.ops:
            if isinstance(fn, func.FuncOp) and not fn.is_declaration:
                visit_block_ops(fn, False)
    del visit_block_ops  # (a recursive closure is a reference cycle: see `_positions`)
    return position, end
