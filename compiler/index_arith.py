"""Index constants in the IR, shared by the tiling, the DMA optimizer and the report."""

from __future__ import annotations

import operator

from xdsl.dialects import arith
from xdsl.dialects.builtin import IndexType, IntegerAttr
from xdsl.ir import Operation, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter

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


def merge_equal_index_constants(op: Operation) -> int:
    """In each block of `op`'s regions (nested ones included), replace each index
    `arith.constant` by the first one of the same value in its block (which dominates
    it), and erase it. Tiling and double buffering build the constants of each tile
    where they need them: merged, the later passes do not walk a copy per tile (a
    compiled ResNet-50 for npu: 1,611 constants, 394 once merged). Returns how many it
    erased."""
    erased = 0
    for region in op.regions:
        for block in region.blocks:
            first: dict[int, SSAValue] = {}
            for inner in list(block.ops):
                if inner.regions:
                    erased += merge_equal_index_constants(inner)
                if type(inner) is not arith.ConstantOp or inner.attributes:
                    continue
                value = inner.value
                if not isinstance(value, IntegerAttr) or not isinstance(value.type, IndexType):
                    continue
                kept = first.setdefault(value.value.data, inner.result)
                if kept is not inner.result:
                    inner.result.replace_all_uses_with(kept)
                    Rewriter.erase_op(inner)
                    erased += 1
    return erased
