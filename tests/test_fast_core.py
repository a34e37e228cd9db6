"""dialects/fast_core.py: op construction, walks and `SSAValue.get` give what xDSL's own
give, on every op, block and region of the lit suite's inputs, and a walk that erases and
inserts ops as it goes visits what xDSL's visits."""

from __future__ import annotations

import contextlib
import glob
import os
from abc import ABC, ABCMeta

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import IndexType, IntegerAttr, MemRefType, TensorType, i32
from xdsl.ir import Block, Operation, Region, SSAValue, SSAValues
from xdsl.ir.core import ErasedSSAValue
from xdsl.parser import Parser
from xdsl.rewriter import InsertPoint, Rewriter

from accel.compiler.driver import make_context
from accel.dialects import accel, fast_core

LIT = os.path.join(os.path.dirname(__file__), "lit")


def _sources():
    for path in sorted(glob.glob(os.path.join(LIT, "**", "*.mlir"), recursive=True)):
        with open(path) as f:
            yield from f.read().split("// -----")


def _modules(ctx):
    for chunk in _sources():
        try:
            yield Parser(ctx, chunk).parse_module()
        except Exception:  # noqa: BLE001 - negative tests hold IR that does not parse
            continue


def _xdsl(cls, name):
    return fast_core.ORIGINALS[(cls, name)]


@contextlib.contextmanager
def xdsl_core():
    """xDSL's own code while the block runs (its walks call each other: all are put back)."""
    for (cls, name), original in fast_core.ORIGINALS.items():
        setattr(cls, name, original)
    try:
        yield
    finally:
        fast_core.install()


def _xdsl_walk(node, **kw) -> list[Operation]:
    with xdsl_core():
        return list(node.walk(**kw))


def test_installed_by_the_context():
    make_context()
    assert Operation.__init__ is fast_core._operation_init
    assert Operation.walk is not _xdsl(Operation, "walk")


def test_walks_visit_what_xdsl_visits():
    ctx = make_context()
    walked = 0
    for module in _modules(ctx):
        for op in list(module.walk()):
            for kw in ({}, {"reverse": True}, {"region_first": True}):
                assert list(op.walk(**kw)) == _xdsl_walk(op, **kw), op.name
            for region in op.regions:
                assert list(region.walk()) == _xdsl_walk(region)
                for block in region.blocks:
                    assert list(block.walk()) == _xdsl_walk(block)
                    with xdsl_core():
                        ops, count = list(block.ops), len(block.ops)
                    assert list(block.ops) == ops and len(block.ops) == count
            walked += 1
    assert walked > 3_000, walked


NESTED = """
func.func @f(%n: index) -> i32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %dead = arith.constant 7 : i32
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%a = %dead) -> (i32) {
    %x = arith.constant 3 : i32
    %unused = arith.addi %x, %x : i32
    %s = arith.addi %a, %x : i32
    scf.yield %s : i32
  }
  %cond = arith.cmpi slt, %c0, %n : index
  %y = scf.if %cond -> (i32) {
    %t = arith.constant 9 : i32
    scf.yield %t : i32
  } else {
    %e = arith.constant 8 : i32
    scf.yield %e : i32
  }
  %z = arith.addi %r, %y : i32
  func.return %z : i32
}
"""


def _mutating_walk(module, ops=None) -> list[str]:
    """Visit `ops` (by default, the module's walk), erasing unused constants and adds as
    they come and inserting a constant after each scf.for."""
    seen = []
    for op in ops if ops is not None else module.walk():
        seen.append(op.name)
        if isinstance(op, (arith.ConstantOp, arith.AddiOp)) and all(not r.uses for r in op.results):
            Rewriter.erase_op(op)
        elif op.name == "scf.for":
            Rewriter.insert_op(arith.ConstantOp(IntegerAttr(5, i32)), InsertPoint.after(op))
    return seen


def test_a_walk_that_rewrites_sees_what_xdsls_sees():
    ctx = make_context()
    module = Parser(ctx, NESTED).parse_module()
    assert list(module.walk()) == _xdsl_walk(module)  # two regions: in order
    fast = _mutating_walk(Parser(ctx, NESTED).parse_module())
    with xdsl_core():
        slow = _mutating_walk(Parser(ctx, NESTED).parse_module())
    assert fast == slow and "scf.yield" in fast
    seen = []
    for patched in (True, False):
        module = Parser(ctx, NESTED).parse_module()
        body = module.body.block.first_op.body.block
        with contextlib.nullcontext() if patched else xdsl_core():
            seen.append(_mutating_walk(module, body.ops))
    assert seen[0] == seen[1] and "scf.for" in seen[0]


def _fields(op: Operation) -> tuple:
    """What construction sets, with the op itself (in uses, as results' owner) left out."""
    return (op._operands, tuple(u.index for u in op._operand_uses), op.results.types,
            tuple(r.index for r in op.results), op.properties, op.attributes, op.location, op._successors,
            tuple(u.index for u in op._successor_uses), op.regions, op.parent)


def test_construction_makes_what_xdsls_makes():
    ctx = make_context()
    built = 0
    for module in _modules(ctx):
        for op in list(module.walk()):
            cls = type(op)
            if op.regions:
                continue  # the regions belong to `op`: moving them is not construction
            made = []
            for init in (fast_core._operation_init, _xdsl(Operation, "__init__")):
                new = cls.__new__(cls)
                init(new, operands=op.operands, result_types=op.result_types, properties=op.properties,
                     attributes=op.attributes, location=op.location, successors=op.successors)
                made.append(new)
            fast, slow = made
            assert _fields(fast) == _fields(slow), op.name
            assert all(r.owner is fast for r in fast.results)
            assert all(u.operation is fast for u in (*fast._operand_uses, *fast._successor_uses))
            for i, v in enumerate(fast.operands):
                assert any(u.operation is fast and u.index == i for u in v.uses)
            for new in made:
                new.drop_all_references()
            built += 1
    assert built > 2_000, built


def test_clone_makes_what_xdsls_makes():
    ctx = make_context()
    cloned = 0
    for module in _modules(ctx):
        for op in list(module.walk()):
            if op.regions or op.successors:
                continue
            # Map every other operand, as a rewrite maps some of a cloned body's values.
            mapping = {v: op.operands[0] for v in op.operands[1::2]}
            made = []
            for clone in (fast_core._clone, _xdsl(Operation, "clone")):
                mapper = dict(mapping)
                new = clone(op, mapper)
                made.append((new, mapper))
            (fast, fast_map), (slow, slow_map) = made
            assert type(fast) is type(op) and _fields(fast) == _fields(slow), op.name
            assert [fast_map.get(r) for r in op.results] == list(fast.results)
            assert [slow_map.get(r) for r in op.results] == list(slow.results)
            assert [r.name_hint for r in fast.results] == [r.name_hint for r in op.results]
            assert fast.properties is not op.properties and fast.attributes is not op.attributes
            for new, _ in made:
                new.drop_all_references()
            cloned += 1
    assert cloned > 2_000, cloned


def test_value_get():
    make_context()
    c = arith.ConstantOp(IntegerAttr(1, IndexType()))
    v = c.result
    assert SSAValue.get(v) is v and SSAValue.get(c) is v
    assert SSAValue.get(v, type=IndexType) is v
    with pytest.raises(ValueError, match="Expected"):
        SSAValue.get(v, type=type(i32))
    two = Operation.__new__(arith.AddiOp)
    fast_core._operation_init(two, operands=[v, v], result_types=[IndexType(), IndexType()])
    with pytest.raises(ValueError, match="single result"):
        SSAValue.get(two)


def test_value_erase():
    make_context()
    c = arith.ConstantOp(IntegerAttr(1, IndexType()))
    add = arith.AddiOp(c.result, c.result)
    with pytest.raises(ValueError, match="still has uses"):
        c.result.erase()
    c.result.erase(safe_erase=False)  # the uses now name an erased value
    assert c.result.first_use is None
    assert all(type(v) is ErasedSSAValue and v.old_value is c.result for v in add.operands)
    add.result.erase()  # no uses: nothing to do
    assert add.result.first_use is None


def _ir_objects(module) -> list:
    """Every op, block, region, value and type of `module` (and the ops' properties)."""
    found: list = []
    for op in module.walk():
        found += [op, *op.results, *op.regions, *(v.type for v in op.results), *op.properties.values()]
        for region in op.regions:
            for block in region.blocks:
                found += [block, *block.args]
    return found


def _plain_classes() -> list[type]:
    seen, stack = set(), list(fast_core.IR_ROOTS)
    while stack:
        cls = stack.pop()
        if cls not in seen:
            seen.add(cls)
            stack += type.__subclasses__(cls)
    return [cls for cls in seen if type(cls) is fast_core.FastCheckMeta]


def test_isinstance_answers_what_abc_answers():
    """For every IR class given the plain checks, and every kind of IR object of the lit
    inputs: `isinstance` and `issubclass` say what `ABCMeta`'s own checks say."""
    ctx = make_context()
    classes = _plain_classes()
    # The op, block, region, value and attribute classes the passes test most.
    assert {Operation, Block, Region, SSAValue, accel.ComputeOp, accel.DmaStartOp, MemRefType} <= set(classes)
    samples: dict[type, object] = {}
    for module in _modules(ctx):
        for x in _ir_objects(module):
            samples.setdefault(type(x), x)
    assert len(samples) > 40
    for cls in classes:
        for kind, x in samples.items():
            assert isinstance(x, cls) == ABCMeta.__instancecheck__(cls, x), (kind, cls)
            assert issubclass(kind, cls) == ABCMeta.__subclasscheck__(cls, kind), (kind, cls)


def test_register_and_hooks_get_abc_checks_back():
    """A virtual subclass registered with a class of plain checks, or a subclass hook
    defined below one, makes it and its ancestors ABCs again: their checks see them."""

    class Root(ABC):
        pass

    class Middle(Root):
        pass

    class Leaf(Middle):
        pass

    class Elsewhere:
        pass

    assert set(fast_core.plain_checks((Root,))) == {Root, Middle, Leaf}
    Leaf.register(Elsewhere)
    assert isinstance(Elsewhere(), Root) and issubclass(Elsewhere, Middle)
    assert type(Root) is type(Middle) is type(Leaf) is ABCMeta
    assert fast_core.plain_checks((Root,)) == []  # a registry: left to ABC

    class Other(ABC):
        pass

    class Child(Other):
        pass

    fast_core.plain_checks((Other,))

    class Hooked(Child):  # everything is a Hooked, so a Child and an Other
        @classmethod
        def __subclasshook__(cls, sub):
            return True

    assert type(Other) is type(Child) is ABCMeta
    assert isinstance(3, Other) and issubclass(int, Child)


def test_classes_with_hooks_keep_abc_checks():
    class Base(ABC):
        pass

    class Sized(Base):
        @classmethod
        def __subclasshook__(cls, sub):
            return hasattr(sub, "__len__") or NotImplemented

    class Plain(ABC):
        pass

    assert fast_core.plain_checks((Base, Plain)) == [Plain]
    assert isinstance([], Base) and type(Base) is ABCMeta


def test_value_list_indexing():
    """An index gives the value, a slice a value list, as xDSL's `SSAValues.__getitem__`."""
    make_context()
    op = arith.ConstantOp(IntegerAttr(1, i32))
    values = SSAValues((*op.results, *op.results, *op.results))
    xdsl_getitem = _xdsl(SSAValues, "__getitem__")
    assert SSAValues.__getitem__ is not xdsl_getitem
    for index in (0, 2, -1, True, slice(1, None), slice(None, None, -1), slice(5, 9)):
        mine, theirs = values[index], xdsl_getitem(values, index)
        assert mine == theirs and type(mine) is type(theirs), index
    with pytest.raises(IndexError):
        values[3]


@pytest.mark.parametrize("kind", ["op", "value", "block", "region"])
def test_identity(kind):
    """An op, value, block or region equals itself only, as xDSL's `__eq__` says, and
    dicts and sets find it."""
    make_context()
    make = {
        "op": lambda: arith.ConstantOp(IntegerAttr(1, i32)),
        "value": lambda: arith.ConstantOp(IntegerAttr(1, i32)).result,
        "block": lambda: Block(arg_types=[i32]),
        "region": lambda: Region(),
    }[kind]
    a, b = make(), make()
    owner = next(c for c in type(a).__mro__ if c in fast_core._BY_IDENTITY)
    xdsl_eq = _xdsl(owner, "__eq__")
    assert type(a).__hash__ is object.__hash__ and xdsl_eq is not object.__eq__
    for x, y in ((a, a), (a, b), (a, 1), (a, None)):
        assert (x == y) == xdsl_eq(x, y) and (x != y) == (not xdsl_eq(x, y))
    assert a in [b, a] and b not in [a] and {a: 1, b: 2}[b] == 2 and len({a, b, a}) == 2


def test_block_insertion_refuses_what_xdsl_refuses():
    """An op goes into a block unless it is in one already or holds that block (xDSL's
    two errors, the same messages); an op without regions holds none."""
    make_context()
    inner = Block([scf.YieldOp()])
    holder = scf.ExecuteRegionOp([], Region(inner))  # in no block: it may go anywhere but into itself
    attached = arith.ConstantOp(IntegerAttr(1, i32))
    Block([attached])
    cases = [(Block(), attached), (inner, holder), (inner, arith.ConstantOp(IntegerAttr(2, i32)))]
    verdicts = []
    for block, op in cases:
        outcomes = []
        for attach in (Block._attach_op, _xdsl(Block, "_attach_op")):
            parent = op.parent
            try:
                attach(block, op)
                outcomes.append(None)
            except ValueError as e:
                outcomes.append(str(e))
            op.parent = parent  # as before the attempt
        assert outcomes[0] == outcomes[1]
        verdicts.append(outcomes[0])
    assert verdicts[0].startswith("Can't add to a block an operation already attached")
    assert verdicts[1].startswith("Can't add an operation to a block contained in the operation")
    assert verdicts[2] is None


def test_operand_view():
    """`op.operands` reads and writes the op's operands as xDSL's view does, also after
    they are replaced."""
    make_context()
    a, b = arith.ConstantOp(IntegerAttr(1, i32)), arith.ConstantOp(IntegerAttr(2, i32))
    add = arith.AddiOp(a, b)
    xdsl_view = _xdsl(Operation, "operands").fget
    assert type(add).operands is not _xdsl(Operation, "operands")
    assert list(add.operands) == list(xdsl_view(add)) == [a.result, b.result]
    add.operands[1] = a.result
    assert list(xdsl_view(add)) == [a.result, a.result] and not list(b.result.uses)
    add.operands = [b.result, b.result]
    assert list(add.operands) == [b.result, b.result] and add.operands[0] is b.result
    assert add.operands == xdsl_view(add) and not list(a.result.uses)


def test_type_shapes():
    """Every tensor and memref type of the lit inputs: the shape xDSL computes, asked
    twice; the type still equals, hashes and prints as an equal type that was never asked."""
    ctx = make_context()
    xdsl_shape = {cls: _xdsl(cls, "get_shape") for cls in (TensorType, MemRefType)}
    checked = 0
    for module in _modules(ctx):
        for x in _ir_objects(module):
            if type(x) in xdsl_shape:
                fresh = type(x).new(x.parameters)
                assert x.get_shape() == x.get_shape() == xdsl_shape[type(x)](x)
                assert x == fresh and hash(x) == hash(fresh) and str(x) == str(fresh)
                checked += 1
    assert checked > 500


def test_post_init_fills_the_defaults_xdsl_fills():
    """Every op class of the context's dialects, built without properties or attributes
    (and with some of its own): the fast `__post_init__` fills in what xDSL's does."""
    from xdsl.dialects.builtin import StringAttr
    from xdsl.irdl import IRDLOperation

    ctx = make_context()
    classes = [cls for d in ctx.loaded_dialects for cls in d.operations if issubclass(cls, IRDLOperation)]
    with_defaults = 0
    for cls in classes:
        filled = []
        for post_init in (fast_core._irdl_post_init, _xdsl(IRDLOperation, "__post_init__")):
            for given in ({}, {"x": StringAttr("mine")}):
                op = cls.__new__(cls)
                op.properties, op.attributes = dict(given), dict(given)
                post_init(op)
                filled.append((op.properties, op.attributes))
        assert filled[:2] == filled[2:], cls.name
        with_defaults += filled[0] != ({}, {})
    assert len(classes) > 100 and with_defaults > 5, (len(classes), with_defaults)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 12), st.integers(1, 3)), min_size=1, max_size=12))
def test_insertion_links_what_xdsl_links(steps):
    """`Rewriter.insert_op` of one op or a list, before an op (the first, a middle one) or
    at the end: the block's order and links are xDSL's; an op already in a block and a
    point whose op left the block are refused as xDSL refuses them."""
    from xdsl.dialects import test
    from xdsl.rewriter import InsertPoint, Rewriter

    def run(insert) -> list:
        block = Block()
        names = []
        for where, count in steps:
            ops = [test.TestOp(attributes={"n": IntegerAttr(len(names) + k, 32)}) for k in range(count)]
            names += [len(names) + k for k in range(count)]
            present = list(block.ops)
            point = InsertPoint.at_end(block) if where >= len(present) else InsertPoint.before(present[where])
            insert(ops if count > 1 else ops[0], point)
        order = [op.attributes["n"].value.data for op in block.ops]
        back = []
        op = block.last_op
        while op is not None:
            back.append(op.attributes["n"].value.data)
            op = op.prev_op
        assert back == order[::-1] and all(op.parent is block for op in block.ops)
        first = block.first_op
        with pytest.raises(ValueError):
            insert(first, InsertPoint.at_end(block))  # already in the block
        point = InsertPoint.before(first)
        first.detach()
        with pytest.raises(ValueError):
            insert(test.TestOp(), point)  # its op left the block
        return order

    fast = run(Rewriter.insert_op)
    with xdsl_core():
        slow = run(Rewriter.insert_op)
    assert fast == slow


def test_ops_made_in_an_implicit_builder_land_in_its_block():
    """xDSL's `ImplicitBuilder` puts the ops made while it is open into its block through
    `Operation.__post_init__` (how a parsed `scf.for` gets its implicit `scf.yield`): the
    fast `__post_init__` still calls it."""
    from xdsl.builder import ImplicitBuilder
    from xdsl.dialects import scf

    block = Block()
    with ImplicitBuilder(block):
        made = scf.YieldOp.create()
    assert block.last_op is made
