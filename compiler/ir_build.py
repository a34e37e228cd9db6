"""Cheap construction of the small ops and attributes that tiling and the DMA passes build
by the thousand.

xDSL verifies an attribute's parameters whenever one is constructed (an `IntegerAttr`
checks its value's range, a `DenseArrayBase` converts and checks every element, a
`MemRefType` with a strided layout checks both), and `memref.SubviewOp.get` builds three
dense arrays, its operand segment sizes and infers its type through those constructors:
about 1 ms per view on the ResNet-50 compile for the npu, which builds ~13,000 of them,
nearly all of a few dozen distinct shapes. Attributes are immutable values, so each
distinct one is built once here and shared; the ops are the same as xDSL's builders make
(the printed IR is identical).
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any

from xdsl.dialects import arith, memref
from xdsl.dialects.builtin import (DYNAMIC_INDEX, UNKNOWN_LOC, DenseArrayBase, IndexType, IntegerAttr, MemRefType, NoneAttr,
                                   StridedLayoutAttr, i32, i64)
from xdsl.ir import Attribute, Block, Operation, SSAValue
from xdsl.irdl import AttrSizedOperandSegments

from accel.dialects import accel
from accel.dialects.memo import by_identity

INDEX = IndexType()


@functools.cache
def index_attr(value: int) -> IntegerAttr:
    """`value : index`."""
    return IntegerAttr(value, INDEX)


def memref_alloc(result_type: MemRefType) -> memref.AllocOp:
    """`memref.AllocOp([], [], result_type)` (not inserted)."""
    return memref.AllocOp.create(location=UNKNOWN_LOC, result_types=[result_type],
                                 properties={AttrSizedOperandSegments.attribute_name: _segment_sizes((0, 0))})


def index_constant(value: int) -> arith.ConstantOp:
    """`arith.constant value : index` (not inserted)."""
    return arith.ConstantOp.create(location=UNKNOWN_LOC, result_types=[INDEX], properties={"value": index_attr(value)})


_NO_OVERFLOW = arith.IntegerOverflowAttr("none")


def index_op(cls: type[arith.SignlessIntegerBinaryOperation], lhs: SSAValue, rhs: SSAValue) -> Operation:
    """`cls(lhs, rhs)` (`arith.addi`, `subi`, `muli`, `minsi`, ...; not inserted) as xDSL's
    builder makes it, without IRDL's generic constructor (four times the cost)."""
    props = {"overflowFlags": _NO_OVERFLOW} if issubclass(cls, arith.SignlessIntegerBinaryOperationWithOverflow) else {}
    return cls.create(location=UNKNOWN_LOC, operands=[lhs, rhs], result_types=[lhs.type], properties=props)


@functools.cache
def i64_attr(value: int) -> IntegerAttr:
    """`value : i64`."""
    return IntegerAttr(value, i64)


@functools.cache
def dense_i64(values: tuple[int, ...]) -> DenseArrayBase:
    return DenseArrayBase.from_list(i64, values)


@functools.cache
def _segment_sizes(sizes: tuple[int, ...]) -> DenseArrayBase:
    return DenseArrayBase.from_list(i32, sizes)


_NONE = NoneAttr()


@functools.cache
def strided_layout(strides: tuple[int | None, ...], offset: int | None) -> StridedLayoutAttr:
    if None in strides:
        return StridedLayoutAttr(strides, offset)
    # From interned parts (still verified): views of one buffer differ in their offset.
    return StridedLayoutAttr.new((accel.int_array(strides), _NONE if offset is None else accel.int_attr(offset)))


def _static(values: Sequence[int | SSAValue]) -> tuple[tuple[int, ...], list[SSAValue]]:
    for v in values:
        if not isinstance(v, int):
            break
    else:  # (most lists are: a view's sizes and strides, a static tile's offsets)
        return tuple(values), []
    static = tuple(v if isinstance(v, int) else DYNAMIC_INDEX for v in values)
    return static, [v for v in values if not isinstance(v, int)]


def subview(source: SSAValue, offsets: Sequence[int | SSAValue], sizes: Sequence[int | SSAValue],
            strides: Sequence[int | SSAValue], result_type: Attribute) -> memref.SubviewOp:
    """`memref.SubviewOp.get(source, offsets, sizes, strides, result_type)`, with shared
    attributes."""
    static_offsets, dyn_offsets = _static(offsets)
    static_sizes, dyn_sizes = _static(sizes)
    static_strides, dyn_strides = _static(strides)
    return memref.SubviewOp.create(location=UNKNOWN_LOC,
        operands=[source, *dyn_offsets, *dyn_sizes, *dyn_strides],
        result_types=[result_type],
        properties={
            "static_offsets": dense_i64(static_offsets),
            "static_sizes": dense_i64(static_sizes),
            "static_strides": dense_i64(static_strides),
            AttrSizedOperandSegments.attribute_name: _segment_sizes(
                (1, len(dyn_offsets), len(dyn_sizes), len(dyn_strides))),
        },
    )


def view_of(view: memref.SubviewOp | memref.ReinterpretCastOp, source: SSAValue,
            result_type: Attribute) -> memref.SubviewOp | memref.ReinterpretCastOp:
    """`view` taken of `source` instead of its own source, with `result_type`: the same
    dynamic operands and static entries (the attributes shared, not built again)."""
    return type(view).create(location=UNKNOWN_LOC, operands=[source, *view.operands[1:]],
                             result_types=[result_type], properties=dict(view.properties))


def strided_view(source: SSAValue, offset: int, sizes: Sequence[int], strides: Sequence[int]) -> memref.ReinterpretCastOp:
    """`memref.reinterpret_cast` of a dense buffer: the elements `offset + sum(i[k] *
    strides[k])` of it, over `sizes` (a transpose, reshape or slice of it; static)."""
    source_type = source.type
    assert isinstance(source_type, MemRefType) and not isinstance(source_type.layout, StridedLayoutAttr), source_type
    dense, step = offset == 0, 1
    for size, stride in zip(reversed(sizes), reversed(strides)):
        dense = dense and (size == 1 or stride == step)
        step *= size
    # A dense view (a reshape) is a plain buffer of its shape: what reads it may take it as one.
    layout = NoneAttr() if dense else strided_layout(tuple(strides), offset)
    result = accel.memref_type(source_type.element_type, sizes, layout, source_type.memory_space)
    return memref.ReinterpretCastOp(source, [], [], [], [offset], list(sizes), list(strides), result)


def subview_indices(view: memref.SubviewOp) -> tuple[list[int | SSAValue], ...]:
    """A subview's offsets, sizes and strides, each an int or the SSA value of a dynamic entry."""
    def mixed(static: DenseArrayBase, dynamic: Sequence[SSAValue]) -> list[int | SSAValue]:
        it = iter(dynamic)
        return [next(it) if v == DYNAMIC_INDEX else v for v in static.get_values()]

    return (mixed(view.static_offsets, view.offsets), mixed(view.static_sizes, view.sizes),
            mixed(view.static_strides, view.strides))


def subview_type(source_type: MemRefType, offsets: Sequence[int | SSAValue], sizes: Sequence[int | SSAValue],
                 strides: Sequence[int | SSAValue]) -> MemRefType:
    """`memref.SubviewOp.infer_result_type(...)`: it depends on the source type and on
    which offsets, sizes and strides are static (and their values) only."""
    entries = tuple(tuple(v if isinstance(v, int) else None for v in vs) for vs in (offsets, sizes, strides))
    result = _SUBVIEW_TYPES.get((source_type,), entries)
    if result is None:
        result = _subview_type(source_type, *entries)
        _SUBVIEW_TYPES.put((source_type,), result, entries)
    return result


def _subview_type(source_type: MemRefType, offsets: tuple, sizes: tuple, strides: tuple) -> MemRefType:
    # A dynamic entry is any SSA value to xDSL's inference: a placeholder stands for it.
    def values(vs: tuple) -> list:
        return [_DYNAMIC if v is None else v for v in vs]

    source_strides = source_type.get_strides()
    if source_strides is None or not len(offsets) == len(sizes) == len(strides) == source_type.get_num_dims():
        return memref.SubviewOp.infer_result_type(source_type, values(offsets), values(sizes), values(strides))
    # What `infer_result_type` computes, the type built from shared attributes: views of
    # one source at many offsets differ in their layout's offset only.
    shape = tuple(DYNAMIC_INDEX if size is None else size for size in sizes)
    result_strides = tuple(None if a is None or b is None else a * b for a, b in zip(source_strides, strides))
    offset = source_type.get_offset()
    if offset is not None:
        for o, stride in zip(offsets, source_strides):
            if o == 0:
                continue
            if o is None or stride is None:
                offset = None
                break
            offset += o * stride
    return accel.memref_type(source_type.element_type, shape, strided_layout(result_strides, offset),
                             source_type.memory_space)


class _Dynamic:
    """Not an int: what `infer_result_type` sees for an SSA value."""


_DYNAMIC = _Dynamic()


PER_DESCRIPTION = 16
"""`by_identity`'s limit for functions of a target description."""


class IdentityMemo:
    """Values keyed by a tuple of objects, by identity (`by_identity` for several
    objects: attributes and types are immutable and interned, hashing them walks their
    parameters). An entry keeps its objects alive, so their ids are not reused; the table
    is emptied past `limit` entries."""

    def __init__(self, limit: int = 100_000) -> None:
        self.table: dict[tuple, tuple[tuple, Any]] = {}
        self.limit = limit

    def get(self, objects: tuple, extra: tuple = ()) -> Any:
        """The value stored for `objects` (and `extra`, plain hashable values keyed by
        value), or None."""
        hit = self.table.get((*map(id, objects), *extra))
        return None if hit is None else hit[1]

    def put(self, objects: tuple, value: Any, extra: tuple = ()) -> None:
        if len(self.table) >= self.limit:
            self.table.clear()
        self.table[(*map(id, objects), *extra)] = (objects, value)


_SUBVIEW_TYPES = IdentityMemo()
"""`subview_type`'s results by the source type's identity (hashing a type walks its
parameters: a third of a lookup keyed by the type) and the static entries."""


def operand_segments(op: Operation) -> list[tuple[SSAValue, ...]]:
    """The operand groups of an op with `AttrSizedOperandSegments` (a kernel's ins and
    outs; a subview's source, offsets, sizes, strides), the sizes unpacked once per
    attribute (IRDL's accessors unpack them on every use)."""
    operands = tuple(op.operands)
    groups, at = [], 0
    for n in dense_values(op.properties[AttrSizedOperandSegments.attribute_name]):
        groups.append(operands[at:at + n])
        at += n
    return groups


def op_signature(op: Operation) -> tuple:
    """What an op is apart from its place: its name, properties (names and values) and
    operand types, flat (an `IdentityMemo` key: property names are strings, types are not)."""
    return (op.name, *(x for item in op.properties.items() for x in item), *(v.type for v in op.operands))


@by_identity
def dense_values(attr: DenseArrayBase) -> tuple:
    """`tuple(attr.get_values())` (it unpacks the array's bytes on every call)."""
    return tuple(attr.get_values())


class TypeTest:
    """`isinstance(x, cls)` answered once per concrete type: xDSL's op and attribute classes
    are ABCs, whose `isinstance` costs ~1 us through `ABCMeta.__instancecheck__`, and a
    pass that walks every op of a large module asks it per op."""

    __slots__ = ("cls", "known")

    def __init__(self, cls: type):
        self.cls = cls
        self.known: dict[type, bool] = {}

    def __call__(self, x: object) -> bool:
        t = type(x)
        answer = self.known.get(t)
        if answer is None:
            answer = self.known[t] = issubclass(t, self.cls)
        return answer


def ops_between(block: Block, before: Operation | None, end: Operation | None) -> list[Operation] | None:
    """The ops of `block` after `before` (from its start when None) and before `end` (to
    its end when None); None if `end` does not follow."""
    ops = []
    op = before.next_op if before is not None else block.first_op
    while op is not None and op is not end:
        ops.append(op)
        op = op.next_op
    return ops if op is end else None


def defined_outside(v: SSAValue, region_op: Operation) -> bool:
    """Whether `v` is defined outside `region_op` (not in its regions, at any depth)."""
    owner = v.owner
    op = owner if isinstance(owner, Operation) else owner.parent_op()
    while op is not None:
        if op is region_op:
            return False
        op = op.parent_op()
    return True


VIEWS = (memref.SubviewOp, memref.ReinterpretCastOp)
"""Ops that name part of a buffer (a tile; a layout op's strided view of its input)."""


def root(v: SSAValue) -> SSAValue:
    """The buffer that view `v` (through any chain of `VIEWS`) is part of."""
    while isinstance(v.owner, VIEWS):
        v = v.owner.source
    return v
