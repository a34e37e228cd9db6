"""optimize-dma's tentative loop steps (hoisting, double buffering) undone in place from a
journal instead of a copy of the loop: undoing restores the function exactly (printed IR),
keeping gives the IR the steps give without a journal and the copy-based path gives, and
`ir_build.by_identity` caches per object."""

from __future__ import annotations

import os

import pytest
from xdsl.dialects import scf
from xdsl.rewriter import InsertPoint, Rewriter

from accel.compiler.ir_build import dense_i64, dense_values
from accel.compiler.ir_journal import Journal
from accel.compiler.transforms import optimize_dma as od
from accel.dialects.conventions import accelerator_functions
from accel.dialects.memo import by_identity
from e2e_util import after_passes

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MODEL = os.path.join(ROOT, "tests", "models", "cnn_large_resnet.onnx")
BEFORE_OPTIMIZE = ("byoc,bufferize,plan-memory,lower-to-accel,tile-for-scratchpad,insert-dma")


@pytest.fixture(scope="module")
def placed():
    """The model on the npu after insert-dma (its regions have tiled loops of transfers)."""
    return after_passes(MODEL, "npu", BEFORE_OPTIMIZE)


def functions(module):
    return [fn for fn, _ in accelerator_functions(module)
            if any(isinstance(o, scf.ForOp) for o in fn.walk())]


STEPS = {
    "hoist": od.hoist_invariant_loads,
    "double-buffer": od._tuned(od.double_buffer_loop),
}


class Answers:
    """A stand-in for `ScratchpadPlan` that answers every check with `fits()`."""

    def __init__(self, fits) -> None:
        self.fits = fits

    def check(self, *footprint, batch: bool = False) -> bool:
        return self.fits()

    def check_all(self) -> bool:
        return self.fits()

    def settle(self, *footprint) -> None:
        pass

    def no_room_over(self, *args) -> bool:  # the screens decide nothing: every try is checked
        return False

    no_room_between = no_room_to_extend = no_room_over


@pytest.mark.parametrize("step", sorted(STEPS))
def test_journal_undo_restores_the_function_exactly(placed, step):
    fns = functions(placed.clone())
    assert fns
    changed = 0
    for fn in fns:
        before = str(fn)
        # A plan that never fits: each attempt is undone in place.
        od._per_loop(od._loops_and_tuning(fn)[0], Answers(lambda: False), STEPS[step])
        assert str(fn) == before
        journal = Journal()
        for loop in [o for o in fn.walk() if isinstance(o, scf.ForOp)][::-1]:
            changed += STEPS[step](loop, journal=journal)
        journal.undo()
        assert str(fn) == before
        fn.verify()
    assert changed


@pytest.mark.parametrize("step", sorted(STEPS))
def test_journal_keep_matches_the_step_without_journal(placed, step):
    for fa, fb in zip(functions(placed.clone()), functions(placed.clone())):
        for loop in [o for o in fa.walk() if isinstance(o, scf.ForOp)][::-1]:
            STEPS[step](loop)
        od._per_loop(od._loops_and_tuning(fb)[0], Answers(lambda: True), STEPS[step])
        assert str(fa) == str(fb)
        fb.verify()


def copy_based_sweep(fn, fits, step, fallback) -> None:
    """The sweep as it was before its journal: each attempt on a copy-backed loop, a
    failed one undone by putting the copy back (an oracle for `_per_loop`)."""
    for loop in [o for o in fn.walk() if isinstance(o, scf.ForOp)][::-1]:
        for attempt in (step, fallback):
            before, after = loop.prev_op, loop.next_op
            copy = loop.clone()
            if not attempt(loop):
                copy.erase(safe_erase=False)
                break
            if fits():
                copy.erase(safe_erase=False)
                break
            op = after.prev_op
            while op is not None and op is not before:
                prev = op.prev_op
                Rewriter.erase_op(op, safe_erase=False)
                op = prev
            Rewriter.insert_op(copy, InsertPoint.before(after))
            loop = copy


@pytest.mark.parametrize("step", sorted(STEPS))
def test_journaled_sweep_keeps_what_fits_like_the_copy_based_path(placed, step):
    """A plan that fits every other attempt: the journal and copies keep the same loops."""
    fallback = od._tuned(lambda lp, **kw: od.double_buffer_loop(lp, False, **kw))
    for i in range(len(functions(placed))):
        results = []
        for journaled in (False, True):
            calls = [0]

            def fits() -> bool:
                calls[0] += 1
                return calls[0] % 2 == 0 and calls[0] > 1

            fn = functions(placed.clone())[i]
            if journaled:
                od._per_loop(od._loops_and_tuning(fn)[0], Answers(fits), STEPS[step], fallback)
            else:
                copy_based_sweep(fn, fits, STEPS[step], fallback)
            fn.verify()
            results.append(str(fn))
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


def _within(block):
    return od._within_prefetch(block, 3)


def test_prefetch_rounds_at_once_or_round_by_round_give_the_same_ir(placed):
    """The rounds applied under one check (accepted), and refused at once then taken round
    by round (each accepted): the same IR (the refused rounds are undone exactly)."""
    fns = [fn for fn, _ in accelerator_functions(placed)]
    moved = 0
    for i in range(len(fns)):
        at_once = [fn for fn, _ in accelerator_functions(placed.clone())][i]
        before = str(at_once)
        od.prefetch_rounds(at_once.body.block, Answers(lambda: True), 3, _within(at_once.body.block))
        moved += str(at_once) != before
        calls = [0]

        def first_refused() -> bool:
            calls[0] += 1
            return calls[0] > 1

        by_round = [fn for fn, _ in accelerator_functions(placed.clone())][i]
        od.prefetch_rounds(by_round.body.block, Answers(first_refused), 3, _within(by_round.body.block))
        assert str(by_round) == str(at_once)
        for fn in (at_once, by_round):
            fn.verify()
    assert moved


def test_deferred_copy_waits_undo_restores_the_function_exactly():
    """The layout copies' deferred waits and reordered copies (defer_copy_waits), undone
    as a failed scratchpad check undoes them: the function prints as before (a wait back
    before the copy it waits for was how a naive undo went wrong)."""
    model = after_passes(os.path.join(ROOT, "tests", "models", "gpt2_eager_legacy.onnx"), "npu",
                         BEFORE_OPTIMIZE + ",optimize-dma{double-buffer=false}")
    reordered = 0
    for fn, _ in accelerator_functions(model):
        before = str(fn)
        change = od.defer_copy_waits(fn)
        fn.verify()
        reordered += len(change.reordered)
        assert change.inserted
        change.undo()
        assert str(fn) == before
        fn.verify()
    assert reordered  # the queries, values, keys of a head split: values issued last


@pytest.mark.parametrize("target", ["npu", "npu-64k"])
def test_the_room_screen_refuses_only_what_the_check_refuses(monkeypatch, target):
    """The screens of double buffering and prefetching (`ScratchpadPlan.no_room_over`: a
    loop's second slots, or a moved load's buffer, added to the most crowded point they
    would cover exceed the scratchpad) build nothing where the plan's check would refuse
    the rewrite: optimize-dma gives the same IR with the screens and without them, and they
    refuse some rewrites (on a scratchpad the tiles fill)."""
    from accel.compiler.driver import make_context, print_ir
    from accel.compiler.memory_plan import ScratchpadPlan
    from accel.compiler.transforms.optimize_dma import OptimizeDma

    placed = after_passes(MODEL, target, BEFORE_OPTIMIZE)
    screened, refused = placed.clone(), []
    screen = ScratchpadPlan.no_room_over

    def counting(self, op, buffer_types):
        full = screen(self, op, buffer_types)
        refused.append(full)
        return full

    monkeypatch.setattr(ScratchpadPlan, "no_room_over", counting)
    OptimizeDma().apply(make_context(target), screened)
    monkeypatch.setattr(ScratchpadPlan, "no_room_over", lambda self, op, buffer_types: False)
    OptimizeDma().apply(make_context(target), placed)
    assert print_ir(screened) == print_ir(placed)
    assert any(refused), target


def test_the_reuse_and_residency_screens_refuse_only_what_the_check_refuses(monkeypatch, tmp_path):
    """The screens of forwarding (`Forwarding.no_room`: the device copy kept live up to the
    load's buffer) and of partial residency (`Residency.no_room`: the resident part live
    from its first op to the transfers meeting it) build nothing where the plan's check
    would refuse the rewrite: optimize-dma and partial-residency give the same IR with the
    screens and without them, and the screens refuse some rewrites."""
    from accel.compiler.driver import make_context, print_ir
    from accel.compiler.memory_plan import ScratchpadPlan
    from accel.compiler.transforms.assemble_on_device import AssembleOnDevice
    from accel.compiler.transforms.optimize_dma import OptimizeDma
    from accel.compiler.transforms.partial_residency import PartialResidency

    target = str(tmp_path / "npu-32k.toml")
    with open(target, "w") as f:  # the npu with a scratchpad the tiles fill (both screens refuse some)
        f.write('extends = "npu"\nname = "npu-32k"\n\n[memory]\nscratchpad_bytes = 32768\n')
    placed = after_passes(MODEL, target, BEFORE_OPTIMIZE)
    screened = placed.clone()
    screens = {name: getattr(ScratchpadPlan, name) for name in ("no_room_between", "no_room_to_extend")}
    refused = {name: [] for name in screens}

    def counting(name):
        def screen(self, *args):
            full = screens[name](self, *args)
            refused[name].append(full)
            return full
        return screen

    def run(module) -> str:
        ctx = make_context(target)
        for p in (AssembleOnDevice(), OptimizeDma(), PartialResidency()):
            p.apply(ctx, module)
        return print_ir(module)

    for name in screens:
        monkeypatch.setattr(ScratchpadPlan, name, counting(name))
    with_screens = run(screened)
    for name in screens:
        monkeypatch.setattr(ScratchpadPlan, name, lambda self, *args: False)
    assert with_screens == run(placed)
    assert all(any(r) for r in refused.values()), {k: sum(r) for k, r in refused.items()}


def test_index_constants_are_the_functions_and_go_with_their_journal(placed):
    """Double buffering takes its index constants from the function's (`IndexConstants`):
    those leading the entry block are found, a new one is made at its start (dominating
    every use), and one made through a journal goes when the journal is undone."""
    from accel.compiler.index_arith import IndexConstants, constant_index

    fn = functions(placed.clone())[0]
    leading = {}
    op = fn.body.block.first_op
    while op.results and (value := constant_index(op.results[0])) is not None:
        leading.setdefault(value, op.results[0])
        op = op.next_op
    assert leading
    pool = IndexConstants(fn)
    for value, result in leading.items():
        assert pool.get(value) is result
    new = 1 + max(leading)
    before = str(fn)
    journal = Journal()
    made = pool.get(new, journal)
    assert constant_index(made) == new and made.owner is fn.body.block.first_op
    assert pool.get(new, journal) is made
    journal.undo()
    assert str(fn) == before
    again = pool.get(new)
    assert again is not made and constant_index(again) == new
