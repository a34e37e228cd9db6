"""xDSL's pattern walker, skipped where it cannot change anything.

`PatternRewriteWalker(pattern).rewrite_module(module)` queues every op of the module and
offers each to the pattern: a few microseconds an op even where no pattern applies, and
the graph clean-ups of `canonicalize` are nine such passes (eleven walks), most of which
find nothing in a given model (no batch norm, pad, transposed conv or quantizer in a
transformer). `rewrite_module` below walks the module once first, testing only each op's
class, and runs the walker only where it could act:

- some op is of a class one of its patterns starts from: a pattern whose
  `match_and_rewrite` is xDSL's `op_type_rewrite_pattern` (it returns at once for any
  other op) starts from the class of its annotation; any other pattern may start
  anywhere (the walker always runs);
- or, for a `GreedyRewritePatternApplier` that erases dead ops (`dce_enabled`), some op
  is trivially dead; or, where it folds (`folding_enabled`), some op has a folder.

Where none holds, the walk would offer every op to patterns that return at once: the IR
is left as it is and False (nothing rewritten) is returned, as the walker would.

(The byoc rewrites, single patterns applied once per op of given classes, do without
xDSL's walker altogether: `byoc_rewrites.rewrite_each`. The clean-ups here keep it: their
appliers erase dead ops and some run to a fixed point.)"""

from __future__ import annotations

import inspect
from collections.abc import Iterable
from types import UnionType
from typing import Union, get_args, get_origin

from xdsl.ir import Operation
from xdsl.pattern_rewriter import GreedyRewritePatternApplier, PatternRewriteWalker, RewritePattern
from xdsl.traits import HasFolder
from xdsl.transforms.dead_code_elimination import is_trivially_dead

_ANCHORS: dict[type, tuple[type[Operation], ...] | None] = {}
"""Pattern class -> the op classes its `match_and_rewrite` starts from (None: any op)."""


def _pattern_anchors(pattern: RewritePattern) -> tuple[type[Operation], ...] | None:
    """The op classes `pattern` may rewrite from, by its `op_type_rewrite_pattern`
    annotation (None: not known, any op), once per pattern class."""
    cls = type(pattern)
    if cls in _ANCHORS:
        return _ANCHORS[cls]
    method = cls.match_and_rewrite
    anchors = None
    # `op_type_rewrite_pattern` returns its `impl`, which holds the annotation (a class or
    # a union of classes) it tests each op against.
    if method.__name__ == "impl" and method.__closure__ is not None:
        expected = inspect.getclosurevars(method).nonlocals.get("expected_type")
        classes = get_args(expected) if get_origin(expected) in (Union, UnionType) else (expected,)
        if classes and all(isinstance(t, type) and issubclass(t, Operation) for t in classes):
            anchors = tuple(classes)
    _ANCHORS[cls] = anchors
    return anchors


def _needs(pattern: RewritePattern) -> tuple[tuple[type[Operation], ...] | None, bool, bool]:
    """(anchor classes or None for any op, whether dead ops are erased, whether ops fold)."""
    if isinstance(pattern, GreedyRewritePatternApplier):
        anchors: list[type[Operation]] = []
        for p in pattern.rewrite_patterns:
            found = _needs(p)
            if found[0] is None or found[1] or found[2]:
                return None, False, False
            anchors += found[0]
        return tuple(dict.fromkeys(anchors)), pattern.dce_enabled, pattern.folding_enabled
    return _pattern_anchors(pattern), False, False


def may_rewrite(ops: Iterable[Operation], pattern: RewritePattern) -> bool:
    """Whether a walk of `ops` by `pattern` could rewrite anything (see the module
    docstring); True when that is not known."""
    anchors, dce, folds = _needs(pattern)
    if anchors is None:
        return True
    for op in ops:
        if isinstance(op, anchors):
            return True
        if dce and is_trivially_dead(op):
            return True
        if folds and op.has_trait(HasFolder, value_if_unregistered=False):
            return True
    return False


def rewrite_module(module: Operation, pattern: RewritePattern, apply_recursively: bool = True) -> bool:
    """`PatternRewriteWalker(pattern, apply_recursively).rewrite_module(module)` where it
    could rewrite something (`may_rewrite`); returns whether it did."""
    if not may_rewrite((op for op in module.walk() if op is not module), pattern):
        return False
    return PatternRewriteWalker(pattern, apply_recursively=apply_recursively).rewrite_module(module)
