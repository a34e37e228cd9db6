"""Index constants in the IR, shared by the tiling, the DMA optimizer and the report."""

from __future__ import annotations

import operator

from xdsl.dialects import arith
from xdsl.dialects.builtin import IndexType, IntegerAttr
from xdsl.ir import Operation, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter
from xdsl.traits import IsolatedFromAbove

from accel.compiler.ir_build import index_constant


INDEX_ARITH = {arith.AddiOp: operator.add, arith.SubiOp: operator.sub, arith.MuliOp: operator.mul, arith.MinSIOp: min,
               arith.MaxSIOp: max}
"""The index arithmetic of tiled IR (tiles' offsets: affine in loop indices, a last tile
shifted inwards with `arith.minsi`), by op class, with what each computes: what the DMA
optimizer moves with a view, partial-residency bounds, the report and the command
stream evaluate, and the C emitter prints."""


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
