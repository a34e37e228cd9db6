"""Named operand and result accessors of IRDL ops at the cost of a tuple index.

xDSL 0.74's IRDL accessors (`op.source`, `op.result`, `op.inputs`) are descriptors that
take the op's operand (result) list through `get_op_constructs` (an `OpOperands` view made
per access) and index it through `SSAValues.__getitem__` (a Python override): about a
microsecond an access, and the passes make millions (7 % of a 10k-node compile).
`speed_up(op_class)` replaces the accessors whose position is fixed by the op definition
with properties that read the op's operand tuple (results tuple) directly:

    before: DmaStartOp.source = BeforeVariadicSingleAccessor(OPERAND, idx=0)
    after:  DmaStartOp.source = property(lambda op: tuple.__getitem__(op._operands, 0))

The values are the same objects xDSL's accessors return (a variadic group is an
`SSAValues`, as before); a setter still fails, as xDSL's does. Of the accessors of ops
whose lists have sizes in an attribute (`memref.subview`), only the first single one is
replaced (`subview.source`: always operand 0; the others decode the sizes per access);
other kinds (same-size variadics, regions) are left to xDSL. `AccelContext` applies
it to every op class it loads.
"""

from __future__ import annotations

from xdsl.ir import Operation, SSAValues
from xdsl.irdl.operations import (
    AfterVariadicSingleAccessor,
    BeforeVariadicSingleAccessor,
    SingleAttrAccessor,
    UniqueVariadicAccessor,
    VarIRConstruct,
)

_item = tuple.__getitem__


def _single(construct: VarIRConstruct, index: int) -> property | None:
    if construct is VarIRConstruct.OPERAND:
        return property(lambda op: _item(op._operands, index))  # noqa: SLF001 - see the docstring
    if construct is VarIRConstruct.RESULT:
        return property(lambda op: _item(op.results, index))
    return None


def _variadic(construct: VarIRConstruct, start: int, others: int) -> property | None:
    # `others` single defs besides the variadic one: it takes what they leave.
    if construct is VarIRConstruct.OPERAND:
        return property(lambda op: SSAValues(_item(op._operands, slice(start, len(op._operands) - others + start))))  # noqa: SLF001
    if construct is VarIRConstruct.RESULT:
        return property(lambda op: SSAValues(_item(op.results, slice(start, len(op.results) - others + start))))
    return None


def _fast(accessor) -> property | None:
    kind = type(accessor)
    if kind is BeforeVariadicSingleAccessor:
        return _single(accessor.construct, accessor.idx)
    if kind is AfterVariadicSingleAccessor:
        return _single(accessor.construct, accessor.idx - accessor.num_defs)
    if kind is UniqueVariadicAccessor:
        return _variadic(accessor.construct, accessor.idx, accessor.num_defs - 1)
    if kind is SingleAttrAccessor and accessor.idx == 0:  # first of segment-sized lists: always at 0
        return _single(accessor.construct, 0)
    return None


def speed_up(op_class: type[Operation]) -> None:
    """Replace `op_class`'s fixed-position operand and result accessors (idempotent)."""
    for name, accessor in list(vars(op_class).items()):
        fast = _fast(accessor)
        if fast is not None:
            setattr(op_class, name, fast)
