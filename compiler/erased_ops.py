"""Erased ops freed at the end of each pass.

A compile runs with the cycle collector off (`accel.tools.one_shot`: the IR is millions
of objects in cycles, and the collector would walk them over and over). An erased op is
such a cycle too: it holds its results and each result its op; an erased loop's body ops
also hold their neighbours, and its blocks their arguments. Without the collector every
op a pass erases (a lowered relay op, a load that forwarding replaced, a peeled loop put
back) stayed in memory until the process ended: a third of the Python heap at the end of
a compile of a transformer graph.

While `recorded()` is active, `Operation.erase` notes the ops it erases; `release()`,
called by the driver between passes (no pass holds an op of the IR across passes), breaks
those cycles: each erased op and the ops nested in it drop their results and neighbour
links, their blocks their arguments and ops. Reference counting then frees them as soon
as nothing else refers to them. An erased op is not used again (xDSL forbids inserting
it); after `release()` its `results` are empty."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from xdsl.ir import Block, Operation, SSAValues

from accel.dialects.fast_core import OPERANDS_VIEW

_xdsl_erase = Operation.erase
_NO_RESULTS: SSAValues = SSAValues(())

_recorded: list[Operation] | None = None
"""The ops erased since the last `release` (None: not recording)."""


def _erase(self: Operation, safe_erase: bool = True, drop_references: bool = True) -> None:
    _xdsl_erase(self, safe_erase, drop_references)
    if _recorded is not None:
        _recorded.append(self)


@contextmanager
def recorded() -> Iterator[None]:
    """Note the ops erased meanwhile, for `release` (what is left is released at the end)."""
    global _recorded
    outer = _recorded
    _recorded = [] if outer is None else outer
    Operation.erase = _erase
    try:
        yield
    finally:
        if outer is None:
            release()
            Operation.erase = _xdsl_erase
        _recorded = outer


def release() -> int:
    """Break the cycles of the ops erased since the last call (those not back in the IR);
    returns how many ops, nested ones included."""
    if not _recorded:
        return 0
    erased, _recorded[:] = list(_recorded), []
    count = 0
    for op in erased:
        if op.parent is not None:
            continue
        ops = list(op.walk())
        blocks: list[Block] = [b for o in ops for r in o.regions for b in r.blocks]
        for o in ops:
            o.results = _NO_RESULTS
            o._next_op = o._prev_op = None  # noqa: SLF001 - the links xDSL's erase leaves
            vars(o).pop(OPERANDS_VIEW, None)  # (the operand view fast_core keeps holds the op)
        for b in blocks:
            b._args = ()  # noqa: SLF001
            b._first_op = b._last_op = None  # noqa: SLF001
        count += len(ops)
    return count
