"""xDSL's common subexpression elimination, its scopes and keys made cheap.

xDSL's `CSEDriver` gives every nested region a copy of the table of the ops known around
it, and builds an op's key (hashing its attributes, properties and result types, which
walks their parameters) on every lookup and insertion, up to four times an op. On a tiled
region (a loop per tile, views with dense-array properties) that is most of what
optimize-dma's CSE costs. `scoped_cse` runs that same driver with another table: one
dictionary for all scopes, with a log of what a region's ops added (undone when the region
ends), and each attribute or type object hashed once. Keys compare as xDSL's do
(`OperationInfo`): it merges and erases what xDSL's `cse` does (tests/test_compile_speed.py
compares them on random IR and on tiled models)."""

from __future__ import annotations

from collections.abc import Callable

from xdsl.dialects.builtin import UnregisteredOp
from xdsl.ir import Block, Operation
from xdsl.traits import (IsolatedFromAbove, IsTerminator, MemoryEffect, NoMemoryEffect, RecursiveMemoryEffect,
                         SymbolOpInterface)
from xdsl.transforms.common_subexpression_elimination import CSEDriver, KnownOps, OperationInfo

from accel.dialects.memo import by_identity

_ABSENT = object()


class _Key:
    """An op as a key of the table: hashed once when made (the op does not change while
    the driver looks it up and inserts it), compared as `OperationInfo` compares."""

    __slots__ = ("op", "hash")

    def __init__(self, op: Operation, hash_of: Callable[[object], int]):
        self.op = op
        name = op.op_name.data if isinstance(op, UnregisteredOp) else op.name
        self.hash = hash((name,
                          sum(hash((k, hash_of(v))) for k, v in op.attributes.items()),
                          sum(hash((k, hash_of(v))) for k, v in op.properties.items()),
                          tuple(hash_of(t) for t in op.result_types),
                          tuple(op.operands)))

    def __hash__(self) -> int:
        return self.hash

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Key) and OperationInfo(self.op) == OperationInfo(other.op)


class _ScopedKnownOps(KnownOps):
    """`KnownOps` for all scopes at once: `mark` where a region starts, `restore` when it
    ends takes back what it added or replaced."""

    def __init__(self, hash_of: Callable[[object], int]):
        self._known_ops = {}
        self._log: list[tuple[_Key, object]] = []
        self._hash_of = hash_of
        self._looked_up: _Key | None = None  # the key `get` made, for the insertion after it

    def _key(self, op: Operation) -> _Key:
        return _Key(op, self._hash_of)

    def get(self, k: Operation, default=None):
        key = self._looked_up = self._key(k)
        return self._known_ops.get(key, default)

    def __getitem__(self, k: Operation):
        return self._known_ops[self._key(k)]

    def __contains__(self, k: Operation) -> bool:
        return self._key(k) in self._known_ops

    def __setitem__(self, k: Operation, v: Operation) -> None:
        key = self._looked_up if self._looked_up is not None and self._looked_up.op is k else self._key(k)
        self._looked_up = None
        self._log.append((key, self._known_ops.get(key, _ABSENT)))
        self._known_ops[key] = v

    def pop(self, k: Operation):
        key = self._key(k)
        value = self._known_ops.pop(key)
        self._log.append((key, value))
        return value

    def mark(self) -> int:
        return len(self._log)

    def restore(self, mark: int) -> None:
        self._looked_up = None
        table, log = self._known_ops, self._log
        while len(log) > mark:
            key, old = log.pop()
            if old is _ABSENT:
                del table[key]
            else:
                table[key] = old


_OPAQUE, _PURE, _RECURSIVE, _OTHER = range(4)
_KINDS: dict[type, int] = {}


def _kind(cls: type[Operation]) -> int:
    """What decides xDSL's `_simplify_operation` for an op of `cls`, from the class's
    traits alone: `_OPAQUE` for an op without regions, nothing (no memory effect declared:
    unknown effects, neither dead nor a candidate; the accel ops); `_PURE` for one
    without regions, no effects (dead when unused, else a candidate: views, constants,
    index arithmetic); `_RECURSIVE`, the effects of the ops it holds (a loop: see
    `_simplify_operation`); else `_OTHER` (xDSL's checks decide)."""
    kind = _KINDS.get(cls)
    if kind is None:
        effects = cls.get_traits_of_type(MemoryEffect)
        special = cls.has_trait(IsTerminator) or cls.has_trait(SymbolOpInterface)
        if not effects:
            kind = _OPAQUE
        elif special:
            kind = _OTHER
        elif all(isinstance(t, NoMemoryEffect) for t in effects):
            kind = _PURE
        elif all(isinstance(t, RecursiveMemoryEffect) for t in effects):
            kind = _RECURSIVE
        else:
            kind = _OTHER
        _KINDS[cls] = kind
    return kind


class _ScopedCSEDriver(CSEDriver):
    """xDSL's driver on a `_ScopedKnownOps`: its region and block walks with the scope
    marked and restored instead of copied, and ops without regions whose class settles
    what xDSL's checks of memory effects would find decided without them."""

    def _simplify_operation(self, op: Operation):
        kind = _kind(type(op))
        if not op.regions:
            if kind == _OPAQUE:
                return
            if kind == _PURE:
                if all(r.first_use is None for r in op.results):
                    self._mark_erasure(op)
                elif existing := self._known_ops.get(op):
                    self._replace_and_delete(op, existing)
                else:
                    self._known_ops[op] = op
                return
        elif kind == _RECURSIVE and all(len(r.blocks) == 1 for r in op.regions) and any(
                not child.regions and _kind(type(child)) == _OPAQUE for r in op.regions for child in r.block.ops):
            return  # a child of unknown effects: so are the op's (neither dead nor a candidate)
        super()._simplify_operation(op)

    def _simplify_block(self, block: Block):
        for op in block.ops:
            if op.regions:
                if op.has_trait(IsolatedFromAbove, value_if_unregistered=True):
                    outer = self._known_ops
                    self._known_ops = _ScopedKnownOps(outer._hash_of)
                    for region in op.regions:
                        self._simplify_region(region)
                    self._known_ops = outer
                else:
                    for region in op.regions:
                        self._simplify_region(region)
            self._simplify_operation(op)

    def _simplify_region(self, region):
        if len(region.blocks) == 1:  # (as xDSL's: regions of several blocks are left alone)
            mark = self._known_ops.mark()
            self._simplify_block(region.block)
            self._known_ops.restore(mark)


def scoped_cse(thing: Operation) -> None:
    """xDSL's `cse(thing)`, in time linear in the ops (see the module docstring)."""
    # Attributes and types are immutable: each object hashed once.
    _ScopedCSEDriver(_known_ops=_ScopedKnownOps(by_identity(hash))).simplify(thing)
