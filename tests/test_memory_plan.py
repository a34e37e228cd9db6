"""The scratchpad/arena allocators of compiler/memory_plan.py against plain references."""

from __future__ import annotations

import random

import pytest

from accel.dialects import accel

from accel.compiler.memory_plan import greedy_by_size, linear_scan, peak_live


def reference_greedy(intervals):
    """TFLite's greedy-by-size written plainly (the vectorized one must place the same)."""
    order = sorted(range(len(intervals)), key=lambda i: (-intervals[i][2], intervals[i][0]))
    offsets, placed, top = [0] * len(intervals), [], 0
    for i in order:
        first, last, size = intervals[i]
        offset = 0
        for lo, hi in sorted((o, o + s) for f, l, o, s in placed if f <= last and first <= l):
            if lo - offset >= size:
                break
            offset = max(offset, hi)
        offsets[i] = offset
        placed.append((first, last, offset, size))
        top = max(top, offset + size)
    return offsets, top


def random_intervals(rng: random.Random) -> list[tuple[int, int, int]]:
    out = []
    for _ in range(rng.randint(0, 40)):
        first = rng.randint(0, 50)
        out.append((first, first + rng.randint(0, 20), rng.choice([64, 128, 192, 256, 1024, 4096])))
    return out


@pytest.mark.parametrize("seed", range(5))
def test_greedy_by_size_matches_reference(seed):
    rng = random.Random(seed)
    for _ in range(300):
        intervals = random_intervals(rng)
        assert greedy_by_size(intervals) == reference_greedy(intervals), intervals


@pytest.mark.parametrize("seed", range(5))
def test_peak_live_is_the_largest_overlap_and_bounds_both_plans(seed):
    rng = random.Random(seed)
    for _ in range(300):
        intervals = random_intervals(rng)
        positions = {p for f, l, _ in intervals for p in (f, l)}
        brute = max((sum(s for f, l, s in intervals if f <= p <= l) for p in positions), default=0)
        assert peak_live(intervals) == brute, intervals
        assert brute <= linear_scan(intervals)[1] and brute <= greedy_by_size(intervals)[1]


# ---- LiveProfile: the incremental live-bytes screen of optimize-dma -------------------

def _dma_module(path: str):
    from accel.compiler.driver import build_passes, load_model, make_context

    ctx = make_context("npu")
    module = load_model(path, ctx)
    for p in build_passes("byoc,bufferize,plan-memory,lower-to-accel,tile-for-scratchpad,insert-dma"):
        p.apply(ctx, module)
    return module


def _fresh_peak(fn, alignment: int) -> int:
    from accel.compiler.memory_plan import _function_allocs, _intervals

    allocs, pos, last = _function_allocs(fn)
    return peak_live(_intervals(allocs, pos, {}, alignment, last))


@pytest.mark.parametrize("model", ["resnet_legacy.onnx", "mobilenet_dynamo.onnx"])
def test_live_profile_follows_prefetches_and_forwardings(model):
    """The profile kept up to date through tentative rewrites (accepted and undone) has
    the peak that a profile computed afresh from the rewritten IR has."""
    import os

    from accel.compiler.memory_plan import LiveProfile
    from accel.compiler.transforms import optimize_dma as od
    from accel.dialects.conventions import accelerator_functions

    module = _dma_module(os.path.join(os.path.dirname(__file__), "models", model))
    alignment = 64
    checked = 0
    for fn, _ in accelerator_functions(module):
        block = fn.body.block
        changes = od.find_forwardings(block)
        for c in reversed(changes):
            c.undo()
        profile = LiveProfile(fn, alignment)
        assert profile.peak() == _fresh_peak(fn, alignment)
        baseline = profile.peak()
        # Admit every other change at any size, refuse the rest: both paths are exercised.
        for i, c in enumerate(changes):
            od._admit(c, profile, 1 << 40 if i % 2 == 0 else 0)
            assert profile.peak() == _fresh_peak(fn, alignment)
            checked += 1
        moves = []
        for dma in [op for op in block.ops if isinstance(op, accel.DmaStartOp) and op.to_device]:
            prev = dma.prev_op
            while prev is not None and not isinstance(prev, accel.ComputeOp):
                prev = prev.prev_op
            alloc = dma.dest.owner
            if prev is None or not isinstance(alloc, accel.AllocOp) or alloc.parent is not block:
                continue
            chain = od._movable_chain(dma.source, block, prev, od.BlockOrder(block))
            if chain is None or dma.next_op is None:
                continue
            ops = [*chain, alloc, dma] if not alloc.is_before_in_block(prev) else [*chain, dma]
            moves.append(od.Prefetch(ops, prev, dma.next_op))
        for i, m in enumerate(moves):
            od._admit(m, profile, 1 << 40 if i % 3 else 0)
            assert profile.peak() == _fresh_peak(fn, alignment)
            checked += 1
        assert profile.peak() >= baseline or changes
    assert checked > 10
