"""A journal of IR changes: tentative rewrites that can be undone, or kept.

A pass that must try a rewrite before it knows whether to keep it (does the scratchpad
plan still fit?) applies it through a `Journal`; `undo()` puts the IR back as it was, the
same op and value objects in the same places, in time proportional to the change (not
to the function or module, as restoring from a copy would cost), and `keep()` frees what
the change took out. Erased ops and block arguments are held out of the IR (an erased op
without its operands, so that it is no longer a use) until one or the other.

    journal = Journal()
    journal.erase(transfer)               # out of the IR, held by the journal
    journal.replace_uses(old, new)
    if fits(module):
        journal.keep()                    # the held ops are erased for good
    else:
        journal.undo()                    # the transfer is back, `old` has its uses

Helpers that change the IR take a journal; `IMMEDIATE` is the one for changes that are
kept at once (nothing recorded, erased ops erased right away).
"""

from __future__ import annotations

from collections.abc import Callable
from itertools import chain

from xdsl.ir import Attribute, Block, BlockArgument, Operation, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter


class Journal:
    """Changes applied to the IR, each with how to undo it and what keeping it costs."""

    def __init__(self) -> None:
        self._entries: list[tuple[Callable[[], None], Callable[[], None] | None]] = []

    def __len__(self) -> int:
        return len(self._entries)

    def record(self, undo: Callable[[], None], keep: Callable[[], None] | None = None) -> None:
        """A change made by the caller: `undo` reverts it, `keep` (if any) finishes it."""
        self._entries.append((undo, keep))

    def undo(self) -> None:
        """Revert every change, last first; the journal is then empty."""
        entries, self._entries = self._entries, []
        for undo, _ in reversed(entries):
            undo()

    def keep(self) -> None:
        """Keep every change; the journal is then empty."""
        entries, self._entries = self._entries, []
        for _, keep in entries:
            if keep is not None:
                keep()

    # ---- ops -----------------------------------------------------------------------

    def insert(self, op: Operation | list[Operation], point: InsertPoint) -> None:
        """Insert new op(s) at `point`; undone, they are erased (their results unused by then)."""
        ops = op if isinstance(op, list) else [op]
        Rewriter.insert_op(ops, point)

        def undo() -> None:
            for o in reversed(ops):
                o.detach()
                o.erase()

        self.record(undo)

    def move(self, op: Operation, point: InsertPoint) -> None:
        """Move `op` to `point`; undone, it goes back before its old successor."""
        home, block = op.next_op, op.parent
        op.detach()
        Rewriter.insert_op(op, point)
        self.record(lambda: self._put_back(op, home, block))

    def erase(self, op: Operation) -> None:
        """Take `op` (whose results are unused) out of the IR with its operands; undone,
        it is back in its place; kept, it is erased."""
        assert all(not r.uses for r in op.results), f"{op.name}: erased while its results are in use"
        home, block, operands = op.next_op, op.parent, tuple(op.operands)
        op.detach()
        op.operands = ()

        def undo() -> None:
            op.operands = operands
            self._put_back(op, home, block)

        self.record(undo, op.erase)

    @staticmethod
    def _put_back(op: Operation, home: Operation | None, block: Block) -> None:
        if op.parent is not None:
            op.detach()
        Rewriter.insert_op(op, InsertPoint.before(home) if home is not None else InsertPoint.at_end(block))

    # ---- values --------------------------------------------------------------------

    def set_operand(self, op: Operation, index: int, value: SSAValue) -> None:
        old = op.operands[index]
        op.operands[index] = value
        self.record(lambda: op.operands.__setitem__(index, old))

    def set_operands(self, op: Operation, values: tuple[SSAValue, ...]) -> None:
        """`op.operands = values`; undone, the old operands again."""
        old = op._operands  # noqa: SLF001 - the tuple, not a view of it
        op.operands = values
        self.record(lambda: setattr(op, "operands", old))

    def replace_uses(self, old: SSAValue, new: SSAValue) -> None:
        """`old.replace_all_uses_with(new)`; undone, the same uses read `old` again (in
        their old order)."""
        uses = [(u.operation, u.index) for u in old.uses]
        old.replace_all_uses_with(new)

        def undo() -> None:
            for op, index in reversed(uses):  # a use is added at the head of the list
                op.operands[index] = old

        self.record(undo)

    # ---- block arguments -----------------------------------------------------------

    def insert_arg(self, block: Block, arg_type: Attribute, index: int) -> BlockArgument:
        arg = block.insert_arg(arg_type, index)
        self.record(lambda: block.erase_arg(arg))
        return arg

    def erase_arg(self, arg: BlockArgument) -> None:
        """Take an unused argument out of its block; undone, the same argument object is
        back at its index (ops held by the journal may name it)."""
        block, index = arg.block, arg.index
        assert not arg.uses, "erased a block argument that is in use"
        block.erase_arg(arg)

        def undo() -> None:
            args = block.args
            for later in args[index:]:
                later.index += 1
            arg.index = index
            # xDSL's Block has no public way to put an argument object back (its Rewriter
            # sets `_args` the same way in `replace_value_with_new_type`).
            block._args = tuple(chain(args[:index], [arg], args[index:]))  # noqa: SLF001

        self.record(undo)

    def retype_arg(self, arg: BlockArgument, arg_type: Attribute) -> BlockArgument:
        """A new argument of `arg_type` in the place of `arg`, taking its uses."""
        new = self.insert_arg(arg.block, arg_type, arg.index)
        self.replace_uses(arg, new)
        self.erase_arg(arg)
        return new

    # ---- attributes ----------------------------------------------------------------

    def assign(self, op: Operation, name: str, value: Attribute | None) -> None:
        """Set a named attribute or property of `op` (through its accessor, e.g. a
        FuncOp's `arg_attrs`); undone, it holds its old value (or is absent again)."""
        old = getattr(op, name)
        setattr(op, name, value)
        self.record(lambda: setattr(op, name, old))


class Immediate(Journal):
    """Changes made for good as they are made: nothing is recorded, what `keep` would
    finish is done at once (an erased op is erased). Code that makes its changes through
    a journal takes this one where nothing will be undone (`IMMEDIATE`), so that it has
    one path for both."""

    def record(self, undo: Callable[[], None], keep: Callable[[], None] | None = None) -> None:
        if keep is not None:
            keep()

    def undo(self) -> None:
        raise RuntimeError("an immediate journal cannot undo its changes")


IMMEDIATE = Immediate()
"""The journal of changes that are not undone."""
