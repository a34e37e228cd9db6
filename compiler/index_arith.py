"""Index constants in the IR, shared by the tiling, the DMA optimizer and the report."""

from __future__ import annotations

import operator

from xdsl.dialects import arith
from xdsl.dialects.builtin import IndexType, IntegerAttr
from xdsl.ir import Operation, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter
from xdsl.traits import IsolatedFromAbove

from accel.compiler.ir_build import index_constant
from accel.compiler.ir_journal import IMMEDIATE, Journal


INDEX_ARITH = {arith.AddiOp: operator.add, arith.SubiOp: operator.sub, arith.MuliOp: operator.mul, arith.MinSIOp: min,
               arith.MaxSIOp: max}
"""The index arithmetic of tiled IR (tiles' offsets: affine in loop indices, a last tile
shifted inwards with `arith.minsi`), by op class, with what each computes: what the DMA
optimizer moves with a view, partial-residency bounds, the report and the command
stream evaluate, and the C emitter prints."""


def offset_from(x: SSAValue, iv: SSAValue) -> tuple[SSAValue | None] | None:
    """`(c,)` when index `x` is `iv + c` (`arith.addi` either way round; `(None,)` when
    `x` is `iv` itself), else None: the form of a guard `x < bound` that holds in a
    loop's iterations up to one (see `accel.dma_start`'s guard)."""
    if x is iv:
        return (None,)
    owner = x.owner
    if type(owner) is arith.AddiOp:
        if owner.lhs is iv:
            return (owner.rhs,)
        if owner.rhs is iv:
            return (owner.lhs,)
    return None


def constant_index(v: SSAValue) -> int | None:
    """The value of an `arith.constant` index, else None."""
    owner = v.owner
    if isinstance(owner, arith.ConstantOp) and isinstance(owner.value, IntegerAttr):
        return owner.value.value.data
    return None


def make_index(point: InsertPoint, v: int) -> SSAValue:
    """Insert `arith.constant v : index` at `point`."""
    op = index_constant(v)
    Rewriter.insert_op(op, point)
    return op.result


class IndexConstants:
    """The index constants of a function, one per value at the start of its entry block
    (which dominates every op of it), made there when first asked for: a step that builds
    ops all over a function (double buffering: a loop's bounds, its first and last
    iterations' indices) takes its constants from here instead of building its own
    beside each use for `hoist_index_constants` to merge (ResNet-50 on npu: 913 made and
    erased). The constants leading the block (where `hoist_index_constants` puts them)
    are taken as found. A constant made through a journal goes when it is undone."""

    def __init__(self, fn: Operation) -> None:
        self.entry = fn.regions[0].blocks[0]
        self.values: dict[int, SSAValue] = {}
        op = self.entry.first_op
        while op is not None and (value := _index_value(op)) is not None:
            self.values.setdefault(value, op.results[0])
            op = op.next_op

    @staticmethod
    def around(op: Operation) -> IndexConstants:
        """The constants of the function (the op isolated from above) holding `op`."""
        holder = op.parent_op()
        while holder is not None and not holder.has_trait(IsolatedFromAbove):
            holder = holder.parent_op()
        if holder is None:
            raise ValueError(f"'{op.name}' is not in a function")
        return IndexConstants(holder)

    def get(self, value: int, journal: Journal = IMMEDIATE) -> SSAValue:
        """The index constant `value` of the function."""
        found = self.values.get(value)
        if found is not None and found.owner.parent is self.entry:
            return found
        op = index_constant(value)
        Rewriter.insert_op(op, InsertPoint.at_start(self.entry))
        self.values[value] = op.result

        def undo() -> None:
            # (the undo of a rewrite spanning the block's start may have taken it already)
            if self.values.get(value) is op.result:
                del self.values[value]
            if op.parent is not None:
                op.detach()
                op.erase()

        journal.record(undo)
        return op.result


def hoist_index_constants(fn: Operation) -> int:
    """Put one index `arith.constant` per value at the start of function `fn`'s entry
    block (which dominates every op of it), in the order first met, and replace the
    others by it: nested ones included, but not those in an op isolated from above.
    Tiling and double buffering build the constants of each tile and iteration where
    they need them: hoisted, the later passes neither walk a copy per tile nor evaluate
    one per loop iteration (a compiled ResNet-50 for npu: 478 constants left by merging
    per block, 164 hoisted). Returns how many it erased."""
    entry = fn.regions[0].blocks[0]
    anchor = entry.first_op
    first: dict[int, SSAValue] = {}
    erased = 0
    found: list[Operation] = []

    def collect(block) -> None:
        for inner in block.ops:
            if type(inner) is arith.ConstantOp:  # (the class first: this sees every op)
                if _index_value(inner) is not None:
                    found.append(inner)
            elif inner.regions and not inner.has_trait(IsolatedFromAbove):
                for region in inner.regions:
                    for nested in region.blocks:
                        collect(nested)

    collect(entry)
    del collect  # (a recursive closure is a reference cycle: the compile runs without the collector)
    for const in found:
        value = _index_value(const)
        kept = first.get(value)
        if const is anchor:  # (the constants met so far lead the block)
            anchor = const.next_op
            if kept is None:
                first[value] = const.result
                continue
        if kept is None:
            first[value] = const.result
            const.detach()
            entry.insert_op_before(const, anchor)
        else:
            const.result.replace_all_uses_with(kept)
            Rewriter.erase_op(const)
            erased += 1
    return erased


def _index_value(op: Operation) -> int | None:
    """The value of an index `arith.constant` without attributes of its own, else None."""
    if type(op) is not arith.ConstantOp or op.attributes:
        return None
    value = op.value
    if not isinstance(value, IntegerAttr) or not isinstance(value.type, IndexType):
        return None
    return value.value.data
