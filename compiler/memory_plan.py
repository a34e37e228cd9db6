"""Static memory planning shared by the host arena (plan-memory) and the scratchpads
(insert-dma, optimize-dma): a linear scan over lifetimes with a first-fit free list."""

from __future__ import annotations

import bisect
import heapq
from accel.dialects.conventions import TARGET_ATTR
from collections.abc import Sequence


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
    O(n^2) in the worst case, so it is the fallback when the scan does not fit."""
    order = sorted(range(len(intervals)), key=lambda i: (-intervals[i][2], intervals[i][0]))
    offsets = [0] * len(intervals)
    placed: list[tuple[int, int, int, int]] = []  # (first, last, offset, size)
    top = 0
    for i in order:
        first, last, size = intervals[i]
        busy = sorted((off, off + sz) for f, l, off, sz in placed if f <= last and first <= l)
        offset = 0
        for lo, hi in busy:
            if lo - offset >= size:
                break
            offset = max(offset, hi)
        offsets[i] = offset
        placed.append((first, last, offset, size))
        top = max(top, offset + size)
    return offsets, top


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


def _positions(fn) -> dict:
    """Execution-order numbers of every op of a function (nested ops included)."""
    return {op: i for i, op in enumerate(fn.walk())}


def _block_ancestor(op, block):
    """`op` or its ancestor that sits directly in `block`."""
    while op is not None and op.parent is not block:
        op = op.parent_op()
    return op


def _span_end(op, pos, end) -> int:
    """Last position of `op`: `end` knows it for top-level ops (a call spans its callee),
    otherwise its nested ops."""
    if op in end:
        return end[op]
    last = pos.get(op, 0)
    for inner in op.walk():
        last = max(last, pos.get(inner, last))
    return last


def _plan(allocs, pos, end, capacity: int, alignment: int, what: str, where) -> int:
    """Offsets for scratchpad `accel.alloc`s by liveness: a buffer lives from its alloc
    to its last use, where a transfer counts until the `dma_wait` of its token and a use
    inside a loop (or a call) until its end, unless the buffer is allocated inside it."""
    from xdsl.dialects.builtin import IntegerAttr, i64

    from accel.compiler.diagnostics import CompileError
    from accel.compiler.tensors import numpy_dtype
    from accel.dialects import accel

    intervals = []
    for alloc in allocs:
        block = alloc.parent
        last = pos[alloc]
        stack = [use.operation for use in alloc.result.uses]
        while stack:
            user = stack.pop()
            anchor = _block_ancestor(user, block)
            if anchor is not None:
                last = max(last, _span_end(anchor, pos, end))
            if isinstance(user, accel.DmaStartOp):
                for use in user.token.uses:
                    waiter = _block_ancestor(use.operation, block)
                    if waiter is not None:
                        last = max(last, _span_end(waiter, pos, end))
            for r in user.results:  # views of the buffer extend its life
                if r.type.__class__.__name__ == "MemRefType":
                    stack.extend(u.operation for u in r.uses)
        t = alloc.result.type
        size = numpy_dtype(t.element_type).itemsize
        for d in t.get_shape():
            size *= d
        intervals.append((pos[alloc], last, align(max(size, 1), alignment)))
    offsets, top = linear_scan(intervals)
    if top > capacity:
        offsets, top = min((offsets, top), greedy_by_size(intervals), key=lambda plan: plan[1])
    if top > capacity:
        raise CompileError(f"{what} need{'s' if what.startswith('@') else ''} {top} bytes of scratchpad at "
                           f"{'its' if what.startswith('@') else 'their'} peak, the target has {capacity} "
                           "(tile-for-scratchpad splits operations that are too large)", where)
    for alloc, off in zip(allocs, offsets):
        alloc.properties["offset"] = IntegerAttr(off, i64)
    return top


def plan_scratchpad(fn, capacity: int, alignment: int) -> int:
    """Plan the scratchpad buffers of one accelerator function; returns the peak.
    Raises CompileError if the peak exceeds `capacity`."""
    from accel.dialects import accel

    pos = _positions(fn)
    allocs = [op for op in pos if isinstance(op, accel.AllocOp) and accel.memory_space(op.result.type) == "spm"]
    return _plan(allocs, pos, {}, capacity, alignment, f"@{fn.sym_name.data}", fn)


def plan_scratchpad_module(module, target_name: str, capacity: int, alignment: int) -> int:
    """Plan the scratchpad buffers of all regions of one target together, in execution
    order, including those `@main` allocates for values kept on the device between
    regions (tagged `accel.target`). Returns the peak."""
    from xdsl.dialects import func
    from xdsl.dialects.builtin import StringAttr

    from accel.compiler.transforms.plan_memory import schedule
    from accel.dialects import accel

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
