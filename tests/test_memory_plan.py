"""The scratchpad/arena allocators of compiler/memory_plan.py against plain references."""

from __future__ import annotations

import random

import pytest

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
