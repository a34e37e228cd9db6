"""Fifteen of xDSL 0.74's core hot paths with the same results in fewer steps.

A 10k-node compile builds and erases about 150k ops and walks its module dozens of times;
the core's generic code for these is a sixth of the compile's instructions:

- `Operation.__init__` assigns its operand and successor lists through their property
  setters, which unhook the (empty) old lists and build the `Use`s with a generator;
- `walk` (of an op, block or region) nests one generator per op, block and region:
  every op yielded passes through as many frames as it is deep, and each op, even one
  without regions, makes a generator of its own;
- iterating a block's ops (`for op in block.ops`) calls an iterator's `__next__` and the
  `next_op` property per op, and so does counting them (`len(block.ops)`, which
  `list(block.ops)` asks first);
- `SSAValue.get` imports `xdsl.utils.hints.isa` on every call, even for a value that
  needs no conversion (every operand of every op our dialects build);
- `SSAValue.erase` (each result of an erased op) makes an `ErasedSSAValue` to hand the
  value's uses to, and walks the uses, even when there are none;
- `op.results[0]` (and any index of a value list) tests the index with `isinstance` and
  reaches the tuple's item through `super()`;
- the `__hash__` (`id(self)`) and `__eq__` (`self is other`) of ops, blocks, regions and
  values are Python functions: every dict or set of them (positions, labels,
  worklists) calls them per lookup, and `op in a_list` per element;
- a tensor or memref type's `get_shape()` builds the tuple anew (a generator over its
  dimension attributes) on every call, and the passes ask per op and per value;
- `op.operands` makes a new `OpOperands` view (a dataclass `__init__`) per access;
- inserting an op into a block checks that the op does not hold the block by walking
  from the block up to the module (six parents deep in a function), even for an op
  without regions, which holds nothing;
- `op.clone()` of an op without regions (tiles' views and the ops of a pipelined loop
  body, cloned by the thousand) builds it without operands, walks the old and the new op
  in step and sets the operands through their setter (unhooking the empty list);
- `Rewriter.insert_op` goes through four calls and two properties per op (the block's
  insertion loop, its check, the neighbours' link updates);
- an IRDL op's `__post_init__` looks up its definition and walks every property and
  attribute it declares for a default to fill in (a compute op declares a dozen), though
  few declare any;
- `isinstance(x, C)` for an IR class `C` (an op, attribute, value, block or region class:
  all are `ABC`s) runs `ABCMeta.__instancecheck__`, a Python frame, when `x` is not
  exactly a `C`: 180 ns against 60 ns for a class of a plain metaclass. The passes ask
  it millions of times per compile (`isinstance(op, accel.ComputeOp)`).

`install()` replaces them (once, process-wide; `AccelContext` calls it) by:

    Operation.__init__   the same fields, set directly (the setters only for successors)
    walk()               one loop over an explicit stack (reverse or region-first: xDSL's)
    iter(block.ops)      a generator following the ops' links
    len(block.ops)       a loop following them
    SSAValue.get(v)      v itself when v is a value and no type is asked (else xDSL's)
    SSAValue.erase()     nothing to do for a value without uses (else xDSL's)
    values[i]            the tuple's item directly (a slice: a value list, as xDSL)
    hash(op), op == x    `object`'s identity hash and equality, in C (the same answers:
                         equal only to itself; the hash a different number, which no
                         code reads)
    block insertion      the containment check only for an op with regions
    t.get_shape()        the tuple built once per type object (types are immutable)
    op.operands          one view per op, made at the first access (a view reads the
                         op's current operands: any view of the op is as good)
    op.clone()           for an op without regions or successors: made with its operands
                         mapped (else xDSL's)
    Rewriter.insert_op   the same checks and links, in one function
    IRDL __post_init__   the defaults of the class, listed once per class, filled in
    isinstance(x, C)     `type`'s own check, in C (`FastCheckMeta`), for the IR classes
                         whose checks cannot differ from ABC's (see `plain_checks`)

The walks and the block iteration visit what xDSL's visit, in the same order, and read
each link when xDSL's code reads it: an op's next op when the op is yielded, its
regions after the caller resumes, a region's first block when the walk reaches the
region, a block's next block and first op when it reaches the block (when `iter()` is
called, for `block.ops`). A caller that erases or inserts ops as it goes sees what it
saw before. tests/test_fast_core.py compares each with xDSL's on the lit suite's IR.
"""

from __future__ import annotations

from abc import ABCMeta
from collections.abc import Iterator, Mapping, Sequence

from _abc import _get_dump  # noqa: PLC2701 - the registry of an ABC (what `abc._dump_registry` prints)
from xdsl.dialects.builtin import MemRefType, TensorType
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue, SSAValues
from xdsl.ir.core import BlockOps, IRWithName, IRWithUses, OpOperands, OpResult, Use, _IRNode, _unknown_loc  # noqa: PLC2701
from xdsl.irdl import IRDLOperation, OptionalDef
from xdsl.rewriter import InsertPoint, Rewriter

_EMPTY: Mapping = {}


def _operation_init(self: Operation, *, operands: Sequence[SSAValue] = (), result_types: Sequence[Attribute] = (),
                    properties: Mapping[str, Attribute] = _EMPTY, attributes: Mapping[str, Attribute] = _EMPTY,
                    location=None, successors: Sequence[Block] = (), regions: Sequence[Region] = ()) -> None:
    values = SSAValues(operands)
    self._operands = values
    if values:
        uses = tuple([Use(self, i) for i in range(len(values))])
        for value, use in zip(values, uses):
            value.add_use(use)
        self._operand_uses = uses
    else:
        self._operand_uses = ()
    self.results = SSAValues([OpResult(t, self, i) for i, t in enumerate(result_types)])
    self.properties = dict(properties)
    self.attributes = dict(attributes)
    self.location = _unknown_loc() if location is None else location
    if successors:
        self.successors = list(successors)
    else:
        self._successors = ()
        self._successor_uses = ()
    self.regions = ()
    for region in regions:
        self.add_region(region)
    self.__post_init__()


def _walk(stack: list) -> Iterator[Operation]:
    """Pre-order walk of what `stack` holds (ops, blocks, regions; the top first): an
    op, then its regions' ops, then the ops after it in its block."""
    pop, push = stack.pop, stack.append
    while stack:
        item = pop()
        kind = item.__class__
        if kind is Block:
            if (after := item._next_block) is not None:  # noqa: SLF001 - see the docstring
                push(after)
            if (first := item._first_op) is not None:  # noqa: SLF001
                push(first)
        elif kind is Region:
            if (first := item.first_block) is not None:
                push(first)
        else:
            if (after := item._next_op) is not None:  # noqa: SLF001
                push(after)
            yield item
            if regions := item.regions:
                stack.extend(reversed(regions))


_xdsl_op_walk, _xdsl_block_walk, _xdsl_region_walk = Operation.walk, Block.walk, Region.walk


def _forward(xdsl_walk, forward):
    """A `walk` method: `forward(node)` for a forward pre-order walk, xDSL's otherwise."""

    def walk(self, *, reverse: bool = False, region_first: bool = False) -> Iterator[Operation]:
        if reverse or region_first:
            return xdsl_walk(self, reverse=reverse, region_first=region_first)
        return forward(self)

    return walk


def _op_walk_forward(op: Operation) -> Iterator[Operation]:
    yield op
    if op.regions:
        yield from _walk(list(reversed(op.regions)))


def _block_walk_forward(block: Block) -> Iterator[Operation]:
    # Only the block's own ops: not the blocks after it.
    if (first := block._first_op) is not None:  # noqa: SLF001
        yield from _walk([first])


_op_walk = _forward(_xdsl_op_walk, _op_walk_forward)
_block_walk = _forward(_xdsl_block_walk, _block_walk_forward)
_region_walk = _forward(_xdsl_region_walk, lambda region: _walk([region]))


def _block_ops_iter(self: BlockOps) -> Iterator[Operation]:
    return _ops_from(self.block._first_op)  # noqa: SLF001 - the first op when iter() is called, as xDSL


def _ops_from(op: Operation | None) -> Iterator[Operation]:
    while op is not None:
        after = op._next_op  # noqa: SLF001 - read when `op` is yielded, as xDSL
        yield op
        op = after


def _block_ops_len(self: BlockOps) -> int:
    n = 0
    op = self.block._first_op  # noqa: SLF001 - see `_ops_from`
    while op is not None:
        n += 1
        op = op._next_op  # noqa: SLF001
    return n


_xdsl_get = SSAValue.get


def _value_get(arg, *, type=Attribute):  # noqa: A002 - xDSL's keyword
    if type is Attribute and isinstance(arg, SSAValue):
        return arg
    return _xdsl_get(arg, type=type)


_xdsl_erase = SSAValue.erase


def _value_erase(self: SSAValue, safe_erase: bool = True) -> None:
    if self.first_use is not None:
        _xdsl_erase(self, safe_erase)


class FastCheckMeta(ABCMeta):
    """`ABCMeta` with `type`'s instance and subclass checks. An ABC's check differs from
    `type`'s only through virtual subclasses (`register`) and `__subclasshook__`, its own
    or its subclasses'; `plain_checks` gives this metaclass only to classes whose whole
    subtree has neither, and a class that brings one later (a new class defining the
    hook, a `register` call) gives its ancestors ABC's checks back first."""

    __instancecheck__ = type.__instancecheck__
    __subclasscheck__ = type.__subclasscheck__

    def __new__(mcls, name, bases, namespace, /, **kwargs):
        cls = super().__new__(mcls, name, bases, namespace, **kwargs)
        if "__subclasshook__" in namespace:
            _abc_checks(cls)
        return cls

    def register(cls, subclass):
        _abc_checks(cls)
        return cls.register(subclass)


def _abc_checks(cls: type) -> None:
    """ABC's checks again for `cls` and its ancestors (those an ABC check of theirs
    would reach through `cls`)."""
    for c in cls.__mro__:
        if type(c) is FastCheckMeta:
            c.__class__ = ABCMeta


IR_ROOTS: tuple[type, ...] = (_IRNode, IRWithUses, IRWithName, Attribute)
"""The IR's base classes: ops, blocks, regions, values and attributes descend from them."""


def plain_checks(roots: Sequence[type] = IR_ROOTS) -> list[type]:
    """Give `FastCheckMeta` to the ABCs below `roots` (included) whose subtree registers
    no virtual subclass and defines no `__subclasshook__` (nor inherits one); returns them."""
    clean: dict[type, bool] = {}

    def visit(cls: type) -> bool:
        if cls not in clean:
            clean[cls] = True  # (a class reached twice through two bases is visited once)
            own = (not _get_dump(cls)[0] if isinstance(cls, ABCMeta) else True) and not any(
                "__subclasshook__" in vars(c) for c in cls.__mro__[:-1])
            subclasses = [visit(sub) for sub in type.__subclasses__(cls)]
            clean[cls] = own and all(subclasses)
        return clean[cls]

    for root in roots:
        visit(root)
    del visit  # (a recursive closure is a reference cycle)
    changed = [cls for cls, ok in clean.items() if ok and type(cls) is ABCMeta]
    for cls in changed:
        cls.__class__ = FastCheckMeta
    return changed


def _values_getitem(self: SSAValues, index, _item=tuple.__getitem__):
    found = _item(self, index)
    return SSAValues(found) if index.__class__ is slice else found


_BY_IDENTITY = (_IRNode, IRDLOperation, SSAValue)
"""The classes whose hash and equality are identity's (ops, blocks, regions; values)."""

def _attach_op(self: Block, operation: Operation) -> None:
    if operation.parent:
        raise ValueError("Can't add to a block an operation already attached to a block.")
    if operation.regions and operation.is_ancestor(self):
        raise ValueError("Can't add an operation to a block contained in the operation.")
    operation.parent = self


def _shape_once(self: TensorType | MemRefType, _set=object.__setattr__) -> tuple[int, ...]:
    try:
        return self._shape_tuple
    except AttributeError:
        shape = tuple(i.data for i in self.shape.data)
        _set(self, "_shape_tuple", shape)  # (a frozen dataclass: not through its __setattr__)
        return shape


def _operands_view(self: Operation) -> OpOperands:
    try:
        return self._operands_view
    except AttributeError:
        view = self._operands_view = OpOperands(self)
        return view


_OPERANDS = property(_operands_view, Operation.operands.fset, doc=Operation.operands.__doc__)

_xdsl_clone = Operation.clone


def _clone(self: Operation, value_mapper: dict | None = None, block_mapper: dict | None = None, *,
           clone_name_hints: bool = True, clone_operands: bool = True) -> Operation:
    # Only the common case: an op without regions or successors, its operands mapped.
    if self.regions or self._successors or not clone_operands:  # noqa: SLF001 - the tuple itself
        return _xdsl_clone(self, value_mapper, block_mapper, clone_name_hints=clone_name_hints,
                           clone_operands=clone_operands)
    if value_mapper is None:
        value_mapper = {}
    get = value_mapper.get
    results = self.results
    op = self.create(operands=[get(v, v) for v in self._operands], result_types=[r.type for r in results],  # noqa: SLF001
                     attributes=self.attributes.copy(), properties=self.properties.copy(), location=self.location)
    for old, new in zip(results, op.results):
        value_mapper[old] = new
        if clone_name_hints:
            new.name_hint = old.name_hint
    return op

def _insert_op(op_or_ops: Operation | Sequence[Operation], insertion_point: InsertPoint) -> None:
    ops = (op_or_ops,) if isinstance(op_or_ops, Operation) else op_or_ops
    block, before = insertion_point.block, insertion_point.insert_before
    if before is None:
        block.add_ops(ops)
        return
    for op in ops:  # (`Block.insert_op_before`, its check first)
        if before.parent is not block:
            raise ValueError("Can't insert operation before operation not in current block")
        block._attach_op(op)  # noqa: SLF001
        prev = before._prev_op  # noqa: SLF001
        if prev is None:
            block._first_op = op  # noqa: SLF001
        else:
            prev._next_op = op  # noqa: SLF001
        op._prev_op = prev  # noqa: SLF001
        op._next_op = before  # noqa: SLF001
        before._prev_op = op  # noqa: SLF001


_DEFAULTS: dict[type, tuple] = {}
"""Per IRDL op class, the (is a property, name, default) its `__post_init__` fills in."""


def _irdl_post_init(self: IRDLOperation) -> None:
    cls = self.__class__
    defaults = _DEFAULTS.get(cls)
    if defaults is None:
        defaults = _DEFAULTS[cls] = _defaults_of(cls)
    for is_property, name, value in defaults:
        held = self.properties if is_property else self.attributes
        if name not in held:
            held[name] = value
    # Looked up per call: xDSL's `ImplicitBuilder` swaps it for one that puts the op in
    # its block (an implicit terminator is made so).
    Operation.__post_init__(self)


def _defaults_of(cls: type[IRDLOperation]) -> tuple:
    """What xDSL's `IRDLOperation.__post_init__` fills in: the defaults of the properties
    and attributes that are not optional."""
    op_def = cls.get_irdl_definition()
    return tuple((is_property, name, d.default_value)
                 for is_property, defs in ((True, op_def.properties), (False, op_def.attributes))
                 for name, d in defs.items() if not isinstance(d, OptionalDef) and d.default_value is not None)


ORIGINALS = {
    (Operation, "__init__"): Operation.__init__,
    (Operation, "walk"): _xdsl_op_walk,
    (Block, "walk"): _xdsl_block_walk,
    (Region, "walk"): _xdsl_region_walk,
    (BlockOps, "__iter__"): BlockOps.__iter__,
    (BlockOps, "__len__"): BlockOps.__len__,
    (SSAValue, "get"): SSAValue.__dict__["get"],
    (SSAValue, "erase"): _xdsl_erase,
    (SSAValues, "__getitem__"): SSAValues.__getitem__,
    **{(cls, name): vars(cls)[name] for cls in _BY_IDENTITY for name in ("__hash__", "__eq__")},
    (Block, "_attach_op"): Block._attach_op,
    (Operation, "operands"): vars(Operation)["operands"],
    (TensorType, "get_shape"): TensorType.get_shape,
    (MemRefType, "get_shape"): MemRefType.get_shape,
    (Operation, "clone"): _xdsl_clone,
    (IRDLOperation, "__post_init__"): IRDLOperation.__post_init__,
    (Rewriter, "insert_op"): vars(Rewriter)["insert_op"],
}
"""What `install` replaces (the tests compare with these)."""

_REPLACEMENTS = {
    (Operation, "__init__"): _operation_init,
    (Operation, "walk"): _op_walk,
    (Block, "walk"): _block_walk,
    (Region, "walk"): _region_walk,
    (BlockOps, "__iter__"): _block_ops_iter,
    (BlockOps, "__len__"): _block_ops_len,
    (SSAValue, "get"): staticmethod(_value_get),
    (SSAValue, "erase"): _value_erase,
    (SSAValues, "__getitem__"): _values_getitem,
    **{(cls, name): getattr(object, name) for cls in _BY_IDENTITY for name in ("__hash__", "__eq__")},
    (Block, "_attach_op"): _attach_op,
    (Operation, "operands"): _OPERANDS,
    (TensorType, "get_shape"): _shape_once,
    (MemRefType, "get_shape"): _shape_once,
    (Operation, "clone"): _clone,
    (IRDLOperation, "__post_init__"): _irdl_post_init,
    (Rewriter, "insert_op"): staticmethod(_insert_op),
}


def install() -> None:
    """Replace the hot paths (idempotent; the IR classes defined since the last call get
    the plain checks too)."""
    for (cls, name), replacement in _REPLACEMENTS.items():
        setattr(cls, name, replacement)
    plain_checks()
