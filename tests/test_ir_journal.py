"""`Journal`: tentative rewrites undone in place (the same objects back where they were)
instead of restoring a copy of the module. optimize-dma's cross-region rewrites (values
kept on the device, loads prefetched by the previous region) go through one: undoing them
gives the module back exactly (printed IR), keeping them gives what applying them gives,
and a try that does not fit costs no copy of the module.
"""

from __future__ import annotations

import numpy as np
import onnx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from onnx import TensorProto
from onnx import helper as oh
from onnx import numpy_helper as onh
from xdsl.dialects import arith, func
from xdsl.dialects.builtin import ArrayAttr, DictionaryAttr, FunctionType, IndexType, ModuleOp, StringAttr
from xdsl.ir import Block, BlockArgument, Region
from xdsl.rewriter import InsertPoint

from accel.compiler.ir_journal import IMMEDIATE, Journal
from accel.compiler.transforms import optimize_dma as od
from e2e_util import after_passes
from test_keep_on_device import NO_COST_MODEL, handoff_chain

BEFORE_OPTIMIZE = NO_COST_MODEL[:NO_COST_MODEL.index(",optimize-dma")]


def small_function() -> tuple[func.FuncOp, list]:
    """func @f(%a, %b: index) { %c = a + b; %d = c + b; return }"""
    block = Block(arg_types=[IndexType(), IndexType()])
    a, b = block.args
    c = arith.AddiOp(a, b)
    d = arith.AddiOp(c.result, b)
    block.add_ops([c, d, func.ReturnOp()])
    fn = func.FuncOp("f", FunctionType.from_lists([IndexType(), IndexType()], []), Region(block))
    ModuleOp([fn])
    return fn, [c, d]


def test_every_change_is_undone_exactly_and_kept_as_made():
    fn, (c, d) = small_function()
    block = fn.body.block
    a, b = block.args
    before, b_users = str(fn), [u.operation for u in b.uses]
    journal = Journal()
    extra = journal.insert_arg(block, IndexType(), 2)
    e = arith.AddiOp(extra, extra)
    journal.insert(e, InsertPoint.before(c))
    journal.set_operand(c, 0, e.result)
    journal.set_operands(d, (c.result, e.result))
    journal.replace_uses(b, a)
    journal.move(d, InsertPoint.before(c))
    journal.move(d, InsertPoint.after(c))
    journal.erase(d)
    journal.assign(fn, "arg_attrs", ArrayAttr([DictionaryAttr({"x": StringAttr("y")})] * 3))
    journal.assign(fn, "sym_name", StringAttr("g"))
    assert not b.uses
    journal.erase_arg(b)
    changed = str(fn)
    assert changed != before and len(journal) == 11
    journal.undo()
    assert str(fn) == before and len(journal) == 0
    assert block.args == (a, b) and [u.operation for u in b.uses] == b_users  # the same objects, in order
    assert fn.arg_attrs is None
    fn.verify()


def test_keep_erases_what_the_journal_held():
    fn, (c, d) = small_function()
    journal = Journal()
    journal.erase(d)
    journal.keep()
    assert d.parent is None and not d.operands
    assert all(u.operation is not d for v in fn.body.block.args for u in v.uses)
    journal.undo()  # nothing left to undo
    assert d.parent is None


def test_the_immediate_journal_makes_changes_for_good():
    # The journal helpers take where nothing is undone: the changes are made as through a
    # journal that is kept at once, and none is recorded.
    fn, (c, d) = small_function()
    kept, _ = small_function()
    journal = Journal()
    for j in (IMMEDIATE, journal):
        f = fn if j is IMMEDIATE else kept
        first, second = list(f.body.block.ops)[:2]
        j.move(second, InsertPoint.before(first))
        j.move(second, InsertPoint.after(first))
        j.erase(second)
    journal.keep()
    assert str(fn) == str(kept) and len(IMMEDIATE) == 0
    assert d.parent is None and not d.operands  # erased, not held
    with pytest.raises(RuntimeError):
        IMMEDIATE.undo()


def test_erasing_an_op_in_use_is_refused():
    fn, (c, d) = small_function()
    with pytest.raises(AssertionError):
        Journal().erase(c)


def weighted_chain(path: str, regions: int) -> str:
    """Region i computes y_i = relu(x_i @ W_i + b_i), x_{i+1} = erf(y_i) on the host: each
    region's first loads (its weights) can be issued by the region before it."""
    rng = np.random.default_rng(0)
    nodes, inits, x = [], [], "x"
    for i in range(regions):
        inits += [onh.from_array(rng.standard_normal((16, 16)).astype(np.float32), f"w{i}"),
                  onh.from_array(rng.standard_normal(16).astype(np.float32), f"b{i}")]
        nodes += [oh.make_node("Gemm", [x, f"w{i}", f"b{i}"], [f"g{i}"]), oh.make_node("Relu", [f"g{i}"], [f"y{i}"]),
                  oh.make_node("Erf", [f"y{i}"], [f"e{i}"])]
        x = f"e{i}"
    graph = oh.make_graph(nodes, "weighted", [oh.make_tensor_value_info("x", TensorProto.FLOAT, [4, 16])],
                          [oh.make_tensor_value_info(x, TensorProto.FLOAT, [4, 16])], inits)
    onnx.save(oh.make_model(graph, opset_imports=[oh.make_opsetid("", 17)]), path)
    return path


def before_optimize_dma(model: str) -> ModuleOp:
    return after_passes(model, "npu", BEFORE_OPTIMIZE)


@pytest.fixture(scope="module")
def handed_over(tmp_path_factory):
    """A chain of 12 regions handing values on, after assemble-on-device: what
    optimize-dma's cross-region steps start from."""
    return before_optimize_dma(handoff_chain(str(tmp_path_factory.mktemp("journal") / "chain.onnx"), 12, 3))


@pytest.fixture(scope="module")
def weighted(tmp_path_factory):
    """A chain of 8 regions with weights, after assemble-on-device."""
    return before_optimize_dma(weighted_chain(str(tmp_path_factory.mktemp("journal") / "weighted.onnx"), 8))


def residents(module: ModuleOp):
    found = od._resident_candidates(module, "npu")
    return [od._key(r) for r in found], lambda chosen, journal: od._apply_residents("npu", found, chosen, journal)


def prefetches(module: ModuleOp):
    found = od._region_prefetches(module, "npu")
    return [pf.later[1].sym_name.data for pf in found], lambda chosen, journal: od._apply_region_prefetches(
        "npu", found, chosen, journal)


@pytest.fixture(params=["residents", "prefetches"])
def step(request, handed_over, weighted):
    """A cross-region step: a module it applies to, and how to find its candidates there
    (their names, and how to apply those chosen)."""
    if request.param == "residents":
        return handed_over.clone(), residents
    return weighted.clone(), prefetches


def test_cross_region_rewrites_are_undone_exactly(step):
    module, candidates = step
    names, apply = candidates(module)
    before = str(module)
    journal = Journal()
    apply(set(names), journal)
    assert len(names) >= 5
    assert str(module) != before
    module.verify()
    journal.undo()
    assert str(module) == before
    module.verify()


def test_cross_region_rewrites_kept_in_halves_are_the_rewrites_applied_at_once(step):
    """Tries that fail are undone and the next applies on top of those kept: keeping both
    halves gives what applying them all at once gives."""
    module, candidates = step
    at_once = module.clone()
    names, apply = candidates(module)
    remaining = list(names)
    for group in (names[: len(names) // 2], names[len(names) // 2:]):
        journal = Journal()  # a try of all that remains, that fails
        apply(set(remaining), journal)
        journal.undo()
        journal = Journal()
        apply(set(group), journal)
        journal.keep()
        remaining = [n for n in remaining if n not in group]
    module.verify()
    names, apply = candidates(at_once)
    apply(set(names), Journal())
    assert str(module) == str(at_once)


def test_a_plan_that_never_fits_leaves_the_module_as_it_was_without_copying_it(step, monkeypatch):
    module, candidates = step
    names, apply = candidates(module)
    before = str(module)
    plans = []

    def never_fits(m):
        plans.append(m)
        raise od.CompileError("does not fit", None)

    monkeypatch.setattr(ModuleOp, "clone", lambda self, *a, **k: pytest.fail("the module was copied"))
    assert not od._apply_within_plans(module, names, apply, never_fits)
    assert len(plans) == od.MODULE_PLAN_ATTEMPTS
    assert str(module) == before


@settings(max_examples=150, deadline=None)
@given(steps=st.lists(st.tuples(st.integers(0, 6), st.integers(0, 1 << 16), st.integers(0, 1 << 16)),
                      min_size=1, max_size=25))
def test_random_changes_are_undone_exactly(steps):
    """Random sequences of journaled changes to a small function (inserts, moves,
    erasures, operand and use changes, arguments added and taken out): undone, the
    printed function is the one before, the ops between verifying."""
    fn, _ = small_function()
    block = fn.body.block
    before = str(fn)
    journal = Journal()
    applied = 0
    for kind, a, b in steps:
        ops = [o for o in block.ops if o is not block.last_op]
        if kind == 0:  # a new op reading two arguments, at the start
            x, y = block.args[a % len(block.args)], block.args[b % len(block.args)]
            journal.insert(arith.AddiOp(x, y), InsertPoint.at_start(block))
        elif kind == 1 and ops:  # an unused op taken out
            unused = [o for o in ops if not any(r.uses for r in o.results)]
            if not unused:
                continue
            journal.erase(unused[a % len(unused)])
        elif kind == 2 and ops:  # an operand set to an argument
            op = ops[a % len(ops)]
            journal.set_operand(op, b % len(op.operands), block.args[b % len(block.args)])
        elif kind == 3 and len(block.args) > 1:  # an argument's uses moved to another
            old, new = block.args[a % len(block.args)], block.args[b % len(block.args)]
            if old is new:
                continue
            journal.replace_uses(old, new)
        elif kind == 4:  # a new argument
            journal.insert_arg(block, IndexType(), a % (len(block.args) + 1))
        elif kind == 5 and len(block.args) > 1:  # an unused argument taken out
            unused = [v for v in block.args if not v.uses]
            if not unused:
                continue
            journal.erase_arg(unused[a % len(unused)])
        elif kind == 6 and len(ops) > 1:  # an op reading arguments only, unused, moved anywhere
            free = [o for o in ops if all(isinstance(v, BlockArgument) for v in o.operands)
                    and not any(r.uses for r in o.results)]
            if not free:
                continue
            op = free[a % len(free)]
            journal.move(op, InsertPoint.before([o for o in ops if o is not op][b % (len(ops) - 1)]))
        else:
            continue
        applied += 1
        assert len(journal) >= applied
    for op in block.ops:  # (the function's type does not follow its arguments here)
        op.verify()
    journal.undo()
    assert str(fn) == before
    fn.verify()
