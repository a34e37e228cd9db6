"""Index constants in the IR, shared by the tiling, the DMA optimizer and the report."""

from __future__ import annotations

from xdsl.dialects import arith
from xdsl.dialects.builtin import IntegerAttr
from xdsl.ir import SSAValue
from xdsl.rewriter import InsertPoint, Rewriter

from accel.compiler.ir_build import index_constant


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
