"""optimize-dma's tentative loop steps (hoisting, double buffering) undone in place from a
journal instead of a copy of the function or loop: undoing restores the function exactly
(printed IR), keeping gives the IR the copy-based path gives, and `ir_build.by_identity`
caches per object."""

from __future__ import annotations

import os

import pytest
from xdsl.dialects import scf

from accel.compiler.driver import build_passes, cycle_collection_paused, load_model, make_context
from accel.compiler.ir_build import by_identity, dense_i64, dense_values
from accel.compiler.transforms import optimize_dma as od
from accel.dialects.conventions import accelerator_functions

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MODEL = os.path.join(ROOT, "tests", "models", "cnn_large_resnet.onnx")
BEFORE_OPTIMIZE = ("byoc,bufferize,plan-memory,lower-to-accel,tile-for-scratchpad,insert-dma")


@pytest.fixture(scope="module")
def placed():
    """The model on the npu after insert-dma (its regions have tiled loops of transfers)."""
    ctx = make_context("npu")
    with cycle_collection_paused():
        module = load_model(MODEL, ctx)
        for p in build_passes(BEFORE_OPTIMIZE):
            p.apply(ctx, module)
    return module


def functions(module):
    return [fn for fn, _ in accelerator_functions(module)
            if any(isinstance(o, scf.ForOp) for o in fn.walk())]


STEPS = {
    "hoist": od.hoist_invariant_loads,
    "double-buffer": od._tuned(od.double_buffer_loop),
}


@pytest.mark.parametrize("step", sorted(STEPS))
def test_journal_undo_restores_the_function_exactly(placed, step):
    fns = functions(placed.clone())
    assert fns
    changed = 0
    for fn in fns:
        before = str(fn)
        holder = [fn]
        # A plan that never fits: the first sweep is undone in place, the loop-by-loop
        # sweep is undone after each attempt.
        od._per_loop(holder, STEPS[step], lambda: False, journaled=True, journaled_sweep=True)
        assert str(holder[0]) == before
        journal: list = []
        for loop in [o for o in holder[0].walk() if isinstance(o, scf.ForOp)][::-1]:
            changed += STEPS[step](loop, journal=journal)
        for undo, _ in reversed(journal):
            undo()
        assert str(holder[0]) == before
        holder[0].verify()
    assert changed


@pytest.mark.parametrize("step", sorted(STEPS))
def test_journal_keep_matches_the_copy_based_path(placed, step):
    for fa, fb in zip(functions(placed.clone()), functions(placed.clone())):
        a, b = [fa], [fb]
        od._per_loop(a, STEPS[step], lambda: True)
        od._per_loop(b, STEPS[step], lambda: True, journaled=True, journaled_sweep=True)
        assert str(a[0]) == str(b[0])
        b[0].verify()


def test_journaled_sweep_keeps_what_fits_like_the_copy_based_path(placed):
    """A plan that fits every other attempt: both paths keep the same loops."""
    for i in range(len(functions(placed))):
        results = []
        for journaled in (False, True):
            holder = [functions(placed.clone())[i]]
            calls = [0]

            def fits() -> bool:
                calls[0] += 1
                return calls[0] % 2 == 0 and calls[0] > 1

            od._per_loop(holder, STEPS["double-buffer"], fits, journaled=journaled, journaled_sweep=journaled)
            results.append(str(holder[0]))
        assert results[0] == results[1]


def test_by_identity_caches_per_object():
    calls = []

    @by_identity
    def size(x):
        calls.append(x)
        return len(x)

    a, b = (1, 2), (1, 2, 3)
    assert (size(a), size(a), size(b)) == (2, 2, 3)
    assert calls == [a, b]
    assert dense_values(dense_i64((3, 4))) == (3, 4)
