"""Static memory planning shared by the host arena (plan-memory) and the scratchpads
(insert-dma, optimize-dma): a linear scan over lifetimes with a first-fit free list."""

from __future__ import annotations

import bisect
import heapq
from collections.abc import Sequence

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import MemRefType, ModuleOp, StringAttr
from xdsl.ir import Operation

from accel.compiler.diagnostics import CompileError
from accel.compiler.ir_build import by_identity, i64_attr
from accel.compiler.tensors import buffer_bytes
from accel.dialects import accel
from accel.dialects.conventions import TARGET_ATTR


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
    O(n^2) in the worst case, so it is the fallback when the scan does not fit. (The
    search over placed buffers is vectorized: n^2 numpy steps, not n^2 Python ones.)"""
    order = sorted(range(len(intervals)), key=lambda i: (-intervals[i][2], intervals[i][0]))
    offsets = [0] * len(intervals)
    n = len(intervals)
    firsts = np.empty(n, np.int64)
    lasts = np.empty(n, np.int64)
    los = np.empty(n, np.int64)
    his = np.empty(n, np.int64)
    top = 0
    for k, i in enumerate(order):
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


# --------------------------------------------------------------------------------------
# Scratchpad planning (IR-aware)
# --------------------------------------------------------------------------------------


def _positions(fn) -> tuple[dict, dict]:
    """Execution-order numbers of every op of a function (nested ops included, in the
    order of `fn.walk()`), and for each op with regions the number of its last nested op."""
    pos: dict = {}
    last: dict = {}
    counter = 0

    def visit(op) -> None:
        nonlocal counter
        pos[op] = counter
        counter += 1
        if op.regions:
            for region in op.regions:
                for block in region.blocks:
                    inner = block.first_op
                    while inner is not None:
                        visit(inner)
                        inner = inner.next_op
            last[op] = counter - 1

    visit(fn)
    return pos, last


def _block_ancestor(op, block):
    """`op` or its ancestor that sits directly in `block`."""
    while op is not None and op.parent is not block:
        op = op.parent_op()
    return op


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
    # The planner asks this for every buffer of a function per plan: the common case (a
    # user directly in `block`, without regions) is inlined, and the named accessors of
    # xDSL ops (a descriptor call each) are avoided: a transfer's token is its only result.
    first = None
    last = -1
    stack = [use.operation for use in value.uses]
    while stack:
        user = stack.pop()
        anchor = user if user.parent is block else _block_ancestor(user, block)
        if anchor is not None:
            at = pos[anchor]
            first = at if first is None or at < first else first
            at = at if not anchor.regions and anchor not in end else _span_end(anchor, pos, end, memo)
            last = at if at > last else last
        if type(user) is accel.DmaStartOp:
            for use in user.results[0].uses:
                waiter = _block_ancestor(use.operation, block)
                if waiter is not None:
                    at = _span_end(waiter, pos, end, memo)
                    last = at if at > last else last
        for r in user.results:  # views of the buffer extend its life
            if r.type.__class__ is MemRefType:
                stack.extend(u.operation for u in r.uses)
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
    for alloc in allocs:
        result = alloc.results[0]
        used = _use_span(result, alloc.parent, pos, end, memo)
        at = pos[alloc]
        intervals.append((at, max(at, used[1]) if used is not None else at, _aligned_bytes(result.type, alignment)))
    return intervals


def _plan(allocs, pos, end, capacity: int, alignment: int, what: str, where, memo: dict | None = None) -> int:
    """Offsets for scratchpad `accel.alloc`s by liveness (see `_intervals`)."""
    return _place(allocs, _intervals(allocs, pos, end, alignment, {} if memo is None else memo), capacity, what, where)


def _place(allocs, intervals, capacity: int, what: str, where) -> int:


    offsets, top = linear_scan(intervals)
    if top > capacity:
        offsets, top = min((offsets, top), greedy_by_size(intervals), key=lambda plan: plan[1])
    if top > capacity:
        raise CompileError(f"{what} need{'s' if what.startswith('@') else ''} {top} bytes of scratchpad at "
                           f"{'its' if what.startswith('@') else 'their'} peak, the target has {capacity} "
                           "(tile-for-scratchpad splits operations that are too large)", where)
    for alloc, off in zip(allocs, offsets):
        alloc.properties["offset"] = i64_attr(off)
    return top


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


def scratchpad_fits(fn, capacity: int, alignment: int) -> bool:
    """Whether `plan_scratchpad` succeeds (and if so, its offsets are set as by it); a
    function whose live buffers exceed `capacity` at some point is rejected without
    trying the allocators."""

    allocs, pos, last = _function_allocs(fn)
    intervals = _intervals(allocs, pos, {}, alignment, last)
    if peak_live(intervals) > capacity:
        return False
    try:
        _place(allocs, intervals, capacity, f"@{fn.sym_name.data}", fn)
    except CompileError:
        return False
    return True


def function_peak_live(fn, alignment: int, start=None) -> int:
    """The most scratchpad bytes one function's own buffers hold at once (a lower bound
    of its plan), from op `start` on (by default from its beginning)."""
    allocs, pos, last = _function_allocs(fn)
    since = pos[start] if start is not None else 0
    return peak_live([(max(first, since), end, size) for first, end, size in _intervals(allocs, pos, {}, alignment, last)
                      if end >= since])


class LiveProfile:
    """Scratchpad bytes live at each position of one function, kept up to date while
    tentative rewrites move ops or change which buffer an op reads. Its peak is a
    necessary condition for a plan (no plan is smaller), so optimize-dma screens
    rewrites one by one against it in O(size of the rewrite), and runs the planner once
    per batch instead of once per rewrite.

    Positions are those of `_positions`, doubled; an op moved before another sits at the
    odd slot just before it (ops moved before the same op share that slot)."""

    def __init__(self, fn, alignment: int) -> None:
        self.alignment = alignment
        self.pos, self.last = _positions(fn)
        self.profile = np.zeros(2 * len(self.pos) + 2, np.int64)
        self.intervals: dict = {}
        allocs = _spm_allocs(self.pos)
        for alloc, interval in zip(allocs, _intervals(allocs, self.pos, {}, alignment, self.last)):
            self._add(alloc, interval)

    def _add(self, alloc, interval) -> None:
        first, last, size = interval
        self.profile[int(2 * first):int(2 * last) + 1] += size
        self.intervals[alloc] = interval

    def peak(self) -> int:
        return int(self.profile.max())

    def moved(self, ops, before) -> dict:
        """Record that `ops` now sit just before `before`; returns their old positions."""
        saved = {op: self.pos[op] for op in ops}
        slot = self.pos[before] - 0.5
        for op in ops:
            self.pos[op] = slot
        return saved

    def restore(self, saved: dict) -> None:
        self.pos.update(saved)

    def refresh(self, allocs) -> None:
        """Recompute the lives of `allocs` from the IR as it is now."""
        for alloc in allocs:
            old = self.intervals.pop(alloc, None)
            if old is not None:
                first, last, size = old
                self.profile[int(2 * first):int(2 * last) + 1] -= size
            if alloc.parent is not None and alloc in self.pos:
                self._add(alloc, _intervals([alloc], self.pos, {}, self.alignment, self.last)[0])


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
    return _plan(allocs, pos, end, capacity, alignment, f"the regions of '{target_name}'", None)


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
            else:
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
    return position, end
