"""The report's timeline replays every loop iteration; a loop whose state repeats
(relative to the engines' time, every one or two iterations: double buffering alternates
slots; a loop holding loops too, when they run alike in each of its iterations) jumps
over the remaining whole periods (`Timeline.run_loop`). The jump
must give exactly the replay's figures (the estimate equals the simulator's cycle count;
tests/test_end_to_end.py and others compare them), on loops that repeat and on loops that
do not, and where costs are not multiples of 1/1024 cycle it must not jump."""

from __future__ import annotations

import itertools
import os

import numpy as np
import onnx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from onnx import TensorProto, helper, numpy_helper

from accel.compiler.compile_report import Timeline, _row_runs, cycles
from accel.compiler.driver import compile_module, load_model, make_context

TARGETS_DIR = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "compiler", "targets")


def _conv_model(path: str, cin: int, cout: int, size: int) -> None:
    rng = np.random.default_rng(0)
    inits = [numpy_helper.from_array((rng.standard_normal((cout, cin, 3, 3)) * 0.05).astype(np.float32), "w"),
             numpy_helper.from_array((rng.standard_normal(cout) * 0.05).astype(np.float32), "b")]
    nodes = [helper.make_node("Conv", ["x", "w", "b"], ["c"], pads=[1, 1, 1, 1]), helper.make_node("Relu", ["c"], ["y"])]
    graph = helper.make_graph(nodes, "conv", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, cin, size, size])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)], inits)
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]), path)


def _figures(module, ctx, target: str, jump: bool, monkeypatch) -> tuple[tuple[float, float], int]:
    """(estimate, compute) and how many loop iterations were replayed."""
    replayed = [0]
    run_block = Timeline.run_block

    def counting(self, block, env):
        if block.parent_op() is not None and block.parent_op().name == "scf.for":
            replayed[0] += 1
        return run_block(self, block, env)

    with monkeypatch.context() as m:
        m.setattr(Timeline, "run_block", counting)
        if not jump:
            m.setattr(Timeline, "repeats", lambda self, op: None)
        result = cycles(module, {target: ctx.targets.named(target)})
    return result, replayed[0]


@pytest.mark.parametrize("target,cin,cout,size", [("npu", 512, 512, 7), ("npu", 256, 256, 14), ("npu-64k", 512, 512, 7),
                                                  ("npu-64k", 64, 64, 56)])
def test_jumping_over_repeated_iterations_gives_the_replays_figures(tmp_path, monkeypatch, target, cin, cout, size):
    path = str(tmp_path / "conv.onnx")
    _conv_model(path, cin, cout, size)
    ctx = make_context(target)
    module = load_model(path, ctx)
    compile_module(module, ctx, "full")
    jumped, replayed_jumping = _figures(module, ctx, target, True, monkeypatch)
    full, replayed_all = _figures(module, ctx, target, False, monkeypatch)
    assert jumped == full
    assert replayed_jumping < replayed_all / 4, (replayed_jumping, replayed_all)


def test_a_loop_holding_loops_jumps_too(tmp_path, monkeypatch):
    """Channels outside rows (a strided 1x1 conv to 512 channels on the npu): a loop over
    the channel tiles holds each tile's weight loads and its double-buffered row loop.
    Each channel tile runs its row loop alike, so the outer loop repeats as well and
    jumps, with the replay's figures."""
    rng = np.random.default_rng(1)
    inits = [numpy_helper.from_array((rng.standard_normal((512, 256, 1, 1)) * 0.05).astype(np.float32), "w")]
    graph = helper.make_graph([helper.make_node("Conv", ["x", "w"], ["y"], strides=[2, 2])], "conv",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 256, 56, 56])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)], inits)
    path = str(tmp_path / "conv.onnx")
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]), path)
    ctx = make_context("npu")
    module = load_model(path, ctx)
    compile_module(module, ctx, "full")
    loops = [op for op in module.walk() if op.name == "scf.for"]
    outer = [lp for lp in loops if any(o.name == "scf.for" for o in lp.body.block.ops)]
    assert outer, "the channel tiles must run in a loop holding their row loop"
    outer_runs = [0]
    run_loop = Timeline.run_loop

    def counting(self, op, env):
        if any(o is op for lp in outer for o in lp.body.block.ops):
            outer_runs[0] += 1  # a row loop run by one iteration of the channel loop
        return run_loop(self, op, env)

    monkeypatch.setattr(Timeline, "run_loop", counting)
    jumped, _ = _figures(module, ctx, "npu", True, monkeypatch)
    runs_jumping, outer_runs[0] = outer_runs[0], 0
    full, _ = _figures(module, ctx, "npu", False, monkeypatch)
    assert jumped == full
    assert runs_jumping < outer_runs[0], (runs_jumping, outer_runs[0])


def _compiled_at_rate(tmp_path, rate: str, cin: int, cout: int, size: int):
    """A conv compiled for the npu with a DMA rate of `rate` bytes per cycle (target
    `npu-rate`): (module, context)."""
    text = open(os.path.join(TARGETS_DIR, "npu.toml")).read()
    assert "bytes_per_cycle = 16\n" in text
    (tmp_path / "npu-rate.toml").write_text(text.replace('name = "npu"', 'name = "npu-rate"', 1)
                                            .replace("bytes_per_cycle = 16\n", f"bytes_per_cycle = {rate}\n", 1))
    (tmp_path / "patterns.mlir").write_text(open(os.path.join(TARGETS_DIR, "patterns.mlir")).read())
    path = str(tmp_path / "conv.onnx")
    _conv_model(path, cin, cout, size)
    ctx = make_context(str(tmp_path / "npu-rate.toml"))
    module = load_model(path, ctx)
    compile_module(module, ctx, "full")
    return module, ctx


def test_no_jump_where_costs_are_not_exact_in_floats(tmp_path, monkeypatch):
    """A DMA rate of 12.5 bytes per cycle: a transfer's time is not a multiple of 1/1024
    cycle, so sums depend on their order and the loop is replayed in full."""
    module, ctx = _compiled_at_rate(tmp_path, "12.5", 512, 512, 7)
    jumped, replayed_jumping = _figures(module, ctx, "npu-rate", True, monkeypatch)
    full, replayed_all = _figures(module, ctx, "npu-rate", False, monkeypatch)
    assert jumped == full and replayed_jumping == replayed_all



def _boundary(m: float, relative: list[float], trace: list[tuple[int, int]], scalars=(0.0, 0.0, 0.0, 0.0)):
    from accel.compiler.compile_report import _Boundary

    ready = m + np.array(relative)
    return _Boundary(m, scalars, (), (), ready, np.zeros_like(ready), trace, 1.0)


RELATIVE = [0.5, 0.0, 3.0, 4.0, 1.0, 0.25, 2.0, 9.0]


@pytest.mark.parametrize("p", [1, 2])
def test_a_period_needs_equal_times_on_every_block_the_period_touched(p):
    """Equal engines, carried values and outer tokens are not enough: the blocks the last
    p iterations touched must hold equal times (relative to the engines'); blocks they did
    not touch may differ. (Spans may overlap or be empty.)"""
    tl = Timeline.__new__(Timeline)
    now = [7.0, *RELATIVE[1:7], 1.0]  # blocks 0 and 7 are not touched: they differ
    traces = [[(2, 4), (3, 5), (7, 7)], [(4, 7)]]  # together, blocks 2-6
    if p == 1:
        history = [_boundary(10.0, RELATIVE, []), _boundary(12.0, now, traces[0] + traces[1])]
    else:  # the iteration between differs in its engines: no period of 1
        history = [_boundary(10.0, RELATIVE, []), _boundary(11.0, RELATIVE, traces[0], (1.0, 0.0, 0.0, 0.0)),
                   _boundary(12.0, now, traces[1])]
    assert tl._period(history) == (p, 2.0)
    for block in range(2, 7):  # a touched block whose time differs: no period
        changed = list(now)
        changed[block] += 0.5
        history[-1] = _boundary(12.0, changed, history[-1].trace)
        assert tl._period(history) is None, block


@pytest.mark.parametrize("exact_costs", [True, False])
def test_a_jump_reads_the_blocks_only_while_a_cost_was_inexact(exact_costs):
    """`_shift` moves the state on only where every time is a multiple of 1/1024 cycle.
    While every cost taken was (`exact_costs`), so is every time, and the blocks' times
    are not scanned; once one was not, a block's time decides."""
    tl = Timeline.__new__(Timeline)
    tl.host = tl.dma_free = tl.compute_free = tl.end = 10.0
    tl.exact_costs = exact_costs
    tl.ready, tl.reads_end = np.array([9.0, 10.0]), np.zeros(2)
    now = _boundary(8.0, [1.0, 2.0], [])
    assert tl._shift(now, [], 4.0)
    assert tl.end == 14.0 and list(tl.ready) == [13.0, 14.0]
    tl.ready = np.array([9.0, 10.0 + 1 / 3])  # a time only an inexact cost can give
    assert tl._shift(now, [], 4.0) is exact_costs


def test_every_cost_a_timeline_takes_decides_whether_it_stays_exact(tmp_path):
    """The flag follows the costs of the steps taken: exact on the npu (rates of 16 bytes
    and 64 MACs per cycle), not with a DMA rate of 12.5 bytes per cycle."""
    for rate, exact in (("16", True), ("12.5", False)):
        module, ctx = _compiled_at_rate(tmp_path, rate, 64, 64, 14)
        fn = next(op for op in module.body.block.ops if getattr(op, "sym_name", None) is not None
                  and op.sym_name.data.startswith("npu_rate"))
        tl = Timeline(ctx.targets.named("npu-rate"))
        tl.block_ops(fn.body.block)
        for loop in (op for op in fn.walk() if op.name == "scf.for"):
            tl.block_ops(loop.body.block)
        assert tl.exact_costs is exact, rate


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(1, 5), min_size=2, max_size=4), st.data(), st.sampled_from([1, 2, 4]))
def test_row_runs_are_the_rows_joined(shape, data, es):
    """`_row_runs`: the rows of a strided view (every index but the last, in row-major
    order), a run each, joined where one starts at the end of the one before: as a loop
    over the rows builds them."""
    strides = [data.draw(st.integers(1, 40)) for _ in shape[:-1]] + [data.draw(st.integers(1, 3))]
    run = (shape[-1] - 1) * strides[-1] * es + es
    joined: list[tuple[int, int]] = []
    for idx in itertools.product(*(range(n) for n in shape[:-1])):
        offset = sum(i * s for i, s in zip(idx, strides)) * es
        if joined and joined[-1][0] + joined[-1][1] == offset:
            joined[-1] = (joined[-1][0], joined[-1][1] + run)
        else:
            joined.append((offset, run))
    assert _row_runs(shape, strides, es, run) == joined


def _strided_pair(path: str) -> None:
    """A strided conv to 512 channels and a conv after it: on the npu the first writes
    each tile into its place in its output, which stays on the device for the second; its
    channel tiles run in loops whose written views move with the loop."""
    rng = np.random.default_rng(2)
    inits = [numpy_helper.from_array((rng.standard_normal((512, 512, 3, 3)) * 0.05).astype(np.float32), name)
             for name in ("w1", "w2")]
    nodes = [helper.make_node("Conv", ["x", "w1"], ["c"], pads=[1, 1, 1, 1], strides=[2, 2]),
             helper.make_node("Relu", ["c"], ["r"]), helper.make_node("Conv", ["r", "w2"], ["y"], pads=[1, 1, 1, 1])]
    graph = helper.make_graph(nodes, "pair", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 512, 14, 14])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)], inits)
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]), path)


def _moving_loops(module, ctx, monkeypatch) -> list:
    """The loops whose views move, with whether `_moves` lets them jump."""
    found = []
    moves = Timeline._moves

    def watching(self, loop, *args):
        result = moves(self, loop, *args)
        found.append((loop, result is not None))
        return result

    with monkeypatch.context() as m:
        m.setattr(Timeline, "_moves", watching)
        cycles(module, {"npu": ctx.targets.named("npu")})
    return found


def test_a_loop_writing_tiles_into_their_places_jumps_too(tmp_path, monkeypatch):
    """Each iteration writes its own blocks of a buffer that stays on the device (a
    view moving with the induction variable): those blocks take no part in the period,
    and the jump writes the skipped iterations' times on theirs: the replay's figures."""
    path = str(tmp_path / "pair.onnx")
    _strided_pair(path)
    ctx = make_context("npu")
    module = load_model(path, ctx)
    compile_module(module, ctx, "full")
    moving = _moving_loops(module, ctx, monkeypatch)
    assert moving and all(ok for _, ok in moving), moving
    jumped, replayed_jumping = _figures(module, ctx, "npu", True, monkeypatch)
    full, replayed_all = _figures(module, ctx, "npu", False, monkeypatch)
    assert jumped == full
    assert replayed_jumping < replayed_all / 4, (replayed_jumping, replayed_all)


def test_no_jump_where_iterations_write_the_same_blocks(tmp_path, monkeypatch):
    """The same loops with half the step: each iteration's tile overlaps the next one's,
    so an iteration's writes wait on what the one before wrote there: no jump, and the
    replay's figures."""
    from xdsl.dialects import arith
    from xdsl.dialects.builtin import IndexType, IntegerAttr

    path = str(tmp_path / "pair.onnx")
    _strided_pair(path)
    ctx = make_context("npu")
    module = load_model(path, ctx)
    compile_module(module, ctx, "full")
    halved = []
    for loop, _ in _moving_loops(module, ctx, monkeypatch):
        step = loop.step.owner.value.value.data
        if step > 1:
            half = arith.ConstantOp(IntegerAttr(step // 2, IndexType()))
            loop.parent.insert_op_before(half, loop)
            loop.operands = [loop.lb, loop.ub, half.result, *loop.operands[3:]]
            halved.append(loop)
    moving = _moving_loops(module, ctx, monkeypatch)
    watched = {loop: ok for loop, ok in moving}
    assert halved and all(loop in watched and not watched[loop] for loop in halved), moving
    jumped, _ = _figures(module, ctx, "npu", True, monkeypatch)
    full, _ = _figures(module, ctx, "npu", False, monkeypatch)
    assert jumped == full


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 60), st.integers(0, 60)), max_size=120))
def test_touched_blocks_are_the_spans_union_either_way(spans):
    """An iteration's touched blocks (a few spans marked one at a time, many counted with
    numpy at once): the union of its non-empty spans, overlapping or not."""
    from accel.compiler.compile_report import _Boundary

    expected = np.zeros(64, bool)
    for b0, b1 in spans:
        expected[b0:b1] = True
    state = _Boundary(0.0, (), (), (), np.zeros(64), np.zeros(64), list(spans), 0.0)
    assert np.array_equal(state.touched(64), expected)
