"""`pattern_walk.rewrite_module`: xDSL's pattern walker, skipped only where it cannot change
the IR (no op its patterns start from, no dead op for an applier that erases them)."""

from __future__ import annotations

import glob
import os

import pytest
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp, TensorType, f32
from xdsl.ir import Block, Region
from xdsl.pattern_rewriter import GreedyRewritePatternApplier, PatternRewriter, RewritePattern, op_type_rewrite_pattern

from accel.compiler import pattern_walk
from accel.compiler.driver import build_passes, cycle_collection_paused, load_model, make_context
from accel.compiler.transforms.fold_explicit_padding import FoldPadIntoAvgPool, FoldPadIntoConv
from accel.compiler.transforms.recognize_decompositions import GlobalAvgPoolFromMean
from accel.dialects import relay

MODELS = sorted(m for m in glob.glob(os.path.join(os.path.dirname(__file__), "models", "*.onnx"))
                if "embedding_bag" not in m)  # (those import only with inputs bound: tests/test_onnx_sequence.py)


class _Any(RewritePattern):
    def match_and_rewrite(self, op, rewriter: PatternRewriter) -> None:
        pass


class _ReluOrClip(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: relay.ReluOp | relay.ClipOp, rewriter: PatternRewriter) -> None:
        pass


def _module_of(*make) -> ModuleOp:
    """A function of a 1x4 input with the ops `make` builds, each from the previous value;
    the last one returned."""
    t = TensorType(f32, [1, 4])
    block = Block(arg_types=[t])
    v = block.args[0]
    for m in make:
        op = m(v)
        block.add_op(op)
        v = op.results[0]
    block.add_op(func.ReturnOp(v))
    return ModuleOp([func.FuncOp("main", ([t], [t]), Region(block))])


def test_anchors_are_the_annotated_classes():
    assert pattern_walk._pattern_anchors(FoldPadIntoConv()) == (relay.Conv2DOp,)
    assert pattern_walk._pattern_anchors(GlobalAvgPoolFromMean()) == (relay.MeanOp,)
    assert pattern_walk._pattern_anchors(_ReluOrClip()) == (relay.ReluOp, relay.ClipOp)
    assert pattern_walk._pattern_anchors(_Any()) is None  # any op: the walker always runs
    applier = GreedyRewritePatternApplier([FoldPadIntoConv(), FoldPadIntoAvgPool()])
    assert pattern_walk._needs(applier) == ((relay.Conv2DOp, relay.AvgPool2DOp), True, False)
    assert pattern_walk._needs(GreedyRewritePatternApplier([FoldPadIntoConv(), _Any()]))[0] is None


def test_may_rewrite_only_where_an_anchor_or_a_dead_op_is():
    relu = _module_of(relay.ReluOp)
    ops = lambda m: [op for op in m.walk() if op is not m]  # noqa: E731
    assert pattern_walk.may_rewrite(ops(relu), _ReluOrClip())
    assert not pattern_walk.may_rewrite(ops(relu), FoldPadIntoConv())
    assert pattern_walk.may_rewrite(ops(relu), _Any())
    # An applier that erases dead ops runs where one is, whatever its patterns.
    applier = GreedyRewritePatternApplier([FoldPadIntoConv()])
    assert not pattern_walk.may_rewrite(ops(relu), applier)
    dead = _module_of(relay.ReluOp)
    body = dead.body.block.first_op.body.block
    body.insert_op_before(relay.ReluOp(body.args[0]), body.first_op)  # unused: trivially dead
    assert pattern_walk.may_rewrite(ops(dead), applier)
    assert not pattern_walk.may_rewrite(ops(dead), GreedyRewritePatternApplier([FoldPadIntoConv()], dce_enabled=False))
    # A skipped walk leaves the IR as it was and says so.
    before = str(relu)
    assert pattern_walk.rewrite_module(relu, applier) is False
    assert str(relu) == before
    assert pattern_walk.rewrite_module(dead, applier) is True  # (the walker ran: the dead relu is gone)
    assert sum(isinstance(op, relay.ReluOp) for op in dead.walk()) == 1


@pytest.mark.parametrize("model", MODELS, ids=lambda p: os.path.basename(p)[:-5])
def test_canonicalize_as_without_skipping(model, monkeypatch):
    # Every test model canonicalized with walks skipped where they cannot act, and with
    # every walk run: the same IR.
    def canonicalized() -> str:
        ctx = make_context("npu")
        with cycle_collection_paused():
            module = load_model(model, ctx)
            for p in build_passes("canonicalize"):
                p.apply(ctx, module)
        return str(module)

    skipping = canonicalized()
    monkeypatch.setattr(pattern_walk, "may_rewrite", lambda ops, pattern: True)
    assert canonicalized() == skipping
