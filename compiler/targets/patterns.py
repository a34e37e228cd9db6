"""Composite patterns written as relay IR, and the structural matcher that finds them.

A pattern is a `func.func` whose arguments are wildcards and whose body is the DAG to
match; the single value it returns is the root of the match:

    func.func @conv2d_bias_relu(%x: tensor<*xf32>, %w: tensor<*xf32> {accel.constant},
                                %b: tensor<*xf32> {accel.constant}) -> tensor<*xf32> {
      %0 = relay.nn.conv2d %x, %w : (tensor<*xf32>, tensor<*xf32>) -> tensor<*xf32>
      %1 = relay.nn.bias_add %0, %b : (tensor<*xf32>, tensor<*xf32>) -> tensor<*xf32>
      %2 = relay.nn.relu %1 : tensor<*xf32>
      func.return %2 : tensor<*xf32>
    }

Matching rules (documented in docs/targets.md):
- an op matches a pattern op with the same name and the same number of operands whose
  operands match in order (no commutativity: write `add(a, b)` and `add(b, a)` as two
  patterns if both orders matter);
- a pattern argument matches any value; an argument used twice must bind the same value
  both times; `{accel.constant}` on an argument requires a `relay.constant` there;
- a property written on a pattern op must equal the graph op's property (defaults
  included); properties not written match anything; types in a pattern are ignored
  (shapes vary; use the target's `dtypes` limits or a predicate for element types);
- every op of a match except the root must have all its uses inside the match (a leaking
  intermediate rejects the match), unless the pattern op carries `{accel.duplicate}`: such
  an op (its operands must all be pattern arguments) is copied into the composite and the
  original stays for its other users (e.g. a `dequantize` shared by several consumers in
  QDQ models);
- no matched op may produce a value bound to an argument (that would be a cycle).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import ArrayAttr, Builtin, DictionaryAttr, UnitAttr
from xdsl.ir import Block, Operation, OpResult, SSAValue
from xdsl.utils.exceptions import ParseError

from accel.compiler.diagnostics import CompileError, LocatingParser, format_location, one_line
from accel.dialects.relay import ConstantOp, Relay, RelayOp
from accel.dialects.conventions import CONSTANT_ARG_ATTR, DUPLICATE_ATTR

"""Argument attribute of a pattern: the operand must be a `relay.constant`."""

"""Op attribute in a pattern: the op may be shared with code outside the match."""

# Ops whose location a composite does not take (see `Pattern.anchor`).
_GLUE_OPS = frozenset({"relay.qnn.quantize", "relay.qnn.dequantize"})


@dataclass(frozen=True)
class ArgRef:
    """An operand that is pattern argument `index`."""

    index: int


@dataclass(frozen=True)
class OpRef:
    """An operand that is result `result` of pattern op `node`."""

    node: int
    result: int


@dataclass(eq=False)
class PatternOp:
    index: int
    name: str
    operands: tuple[ArgRef | OpRef, ...]
    props: dict[str, Any]
    """Written properties as Python values (`RelayOp.prop` form)."""
    duplicate: bool
    op: Operation


@dataclass(eq=False)
class Match:
    """One occurrence of a pattern: `ops[i]` is the graph op of pattern op `i`;
    `inputs[j]` is the value bound to pattern argument `j`."""

    pattern: Pattern
    ops: list[Operation]
    inputs: list[SSAValue]

    @property
    def root(self) -> Operation:
        return self.ops[self.pattern.root.index]

    @property
    def anchor(self) -> Operation:
        return self.ops[self.pattern.anchor.index]


@dataclass(eq=False)
class Pattern:
    name: str
    function: func.FuncOp
    nodes: tuple[PatternOp, ...]
    root: PatternOp
    num_args: int
    constant_args: frozenset[int]
    source: str
    """Where the pattern was written, for messages."""
    names: frozenset[str] = field(init=False)

    def __post_init__(self) -> None:
        self.names = frozenset(n.name for n in self.nodes)

    @property
    def anchor(self) -> PatternOp:
        """The op whose location the composite takes: the first op that is not a
        quantize/dequantize (the conv of a QDQ conv), else the root."""
        for node in self.nodes:
            if node.name not in _GLUE_OPS:
                return node
        return self.root

    def __len__(self) -> int:
        return len(self.nodes)

    # -- matching ----------------------------------------------------------------------

    def match(
        self,
        root: Operation,
        *,
        usable: Callable[[Operation], bool],
        is_constant: Callable[[SSAValue], bool] | None = None,
    ) -> Match | None:
        """The match rooted at `root`, or None. `usable(op)` says whether a graph op may
        join a match (not yet taken, same block, no conflicting manual target)."""
        if root.name != self.root.name:
            return None
        is_constant = is_constant or _is_relay_constant
        ops: list[Operation | None] = [None] * len(self.nodes)
        bound: list[SSAValue | None] = [None] * self.num_args
        taken: set[Operation] = set()
        if not self._match_op(self.root, root, ops, bound, taken, usable, is_constant):
            return None
        if any(o is None for o in ops) or any(v is None for v in bound):
            return None  # unreachable for validated patterns
        matched: list[Operation] = ops  # type: ignore[assignment]
        for v in bound:
            if isinstance(v, OpResult) and v.op in taken:
                return None
        for node, op in zip(self.nodes, matched):
            if node is self.root or node.duplicate:
                continue
            for res in op.results:
                if any(use.operation not in taken for use in res.uses):
                    return None
        return Match(self, matched, bound)  # type: ignore[arg-type]

    def _match_op(self, node, op, ops, bound, taken, usable, is_constant) -> bool:
        if ops[node.index] is not None:
            return ops[node.index] is op
        if op.name != node.name or len(op.operands) != len(node.operands):
            return False
        if op in taken or not usable(op):
            return False
        if node.props:
            if not isinstance(op, RelayOp):
                return False
            for prop, want in node.props.items():
                if op.prop(prop) != want:
                    return False
        ops[node.index] = op
        taken.add(op)
        for ref, value in zip(node.operands, op.operands):
            if isinstance(ref, ArgRef):
                prev = bound[ref.index]
                if prev is None:
                    if ref.index in self.constant_args and not is_constant(value):
                        return False
                    bound[ref.index] = value
                elif prev is not value:
                    return False
                continue
            if not isinstance(value, OpResult) or value.index != ref.result:
                return False
            if not self._match_op(self.nodes[ref.node], value.op, ops, bound, taken, usable, is_constant):
                return False
        return True


def _is_relay_constant(value: SSAValue) -> bool:
    return isinstance(value, OpResult) and isinstance(value.op, ConstantOp)


# --------------------------------------------------------------------------------------
# Parsing and validation
# --------------------------------------------------------------------------------------


class _PatternParser(LocatingParser):
    """Records which properties each relay op wrote: the relay parser fills in defaults,
    but only written properties constrain a match. The keys are read from the op's own
    source text (its `{...}` dictionary), so this does not depend on how the dialect
    parses it."""

    def __init__(self, ctx, text: str, name: str):
        super().__init__(ctx, text, name)
        self.text = text
        self.written: dict[Operation, frozenset[str]] = {}

    def parse_operation(self) -> Operation:
        start = self._current_token.span.start
        op = super().parse_operation()
        if isinstance(op, RelayOp):
            end = self._current_token.span.start
            self.written[op] = _dictionary_keys(self.text[start:end], op.name)
        return op


_OPEN = {"{": "}", "[": "]", "(": ")", "<": ">"}
_KEY = re.compile(r"\s*([A-Za-z_][A-Za-z0-9_.$]*)\s*(=|,|})")


def _dictionary_keys(source: str, op_name: str) -> frozenset[str]:
    """The keys of the `{...}` dictionary that follows `op_name`'s operands in `source`
    (the text of one relay op in custom syntax); empty when there is none."""
    i = source.find(op_name)
    if i < 0:
        return frozenset()
    i += len(op_name)
    while i < len(source) and source[i] not in "{:":
        i += 1
    if i >= len(source) or source[i] != "{":
        return frozenset()
    keys: set[str] = set()
    depth = 0
    expect_key = True
    while i < len(source):
        ch = source[i]
        if ch == '"':
            i = source.index('"', i + 1) + 1 if '"' in source[i + 1 :] else len(source)
            continue
        if depth == 1 and expect_key:
            m = _KEY.match(source, i)
            if m:
                keys.add(m.group(1))
                expect_key = False
                i = m.end(1)
                continue
        if ch in _OPEN:
            depth += 1
        elif ch in _OPEN.values() and not (ch == ">" and source[i - 1] == "-"):
            depth -= 1
            if depth == 0:
                break
        elif ch == "," and depth == 1:
            expect_key = True
        if ch == "{" and depth == 1:
            expect_key = True
        i += 1
    return frozenset(keys)


_CONTEXT: Context | None = None


def _context() -> Context:
    global _CONTEXT
    if _CONTEXT is None:
        ctx = Context()
        ctx.load_dialect(Builtin)
        ctx.load_dialect(func.Func)
        ctx.load_dialect(Relay)
        _CONTEXT = ctx
    return _CONTEXT


def parse_pattern_source(text: str, source: str) -> tuple[dict[str, func.FuncOp], dict[Operation, frozenset[str]]]:
    """Parse a pattern file (or inline IR) into its functions by name. Errors name `source`
    with line and column."""
    parser = _PatternParser(_context(), text, source)
    try:
        module = parser.parse_module()
    except ParseError as e:
        raise CompileError(one_line(e.msg), location=e.span.get_location()) from None
    functions: dict[str, func.FuncOp] = {}
    for op in module.ops:
        if not isinstance(op, func.FuncOp):
            raise CompileError(f"expected only func.func ops in a pattern file, got '{op.name}'", op)
        name = op.sym_name.data
        if name in functions:
            raise CompileError(f"pattern function @{name} is defined twice", op)
        functions[name] = op
    return functions, parser.written


def build_pattern(name: str, fn: func.FuncOp, written: dict[Operation, frozenset[str]], source: str) -> Pattern:
    """Validate a pattern function and compile it into a `Pattern`."""
    block: Block = fn.body.block
    if not fn.body.blocks or len(fn.body.blocks) != 1:
        raise CompileError(f"pattern @{fn.sym_name.data} must have one block", fn)
    constant_args: set[int] = set()
    for i, attrs in enumerate(_arg_dicts(fn, len(block.args))):
        for key, value in attrs.items():
            if key != CONSTANT_ARG_ATTR:
                raise CompileError(
                    f"pattern @{fn.sym_name.data}: unknown argument attribute '{key}' on argument #{i} "
                    f"(allowed: {CONSTANT_ARG_ATTR})",
                    fn,
                )
            if not isinstance(value, UnitAttr):
                raise CompileError(f"pattern @{fn.sym_name.data}: '{key}' takes no value", fn)
            constant_args.add(i)

    arg_index = {arg: i for i, arg in enumerate(block.args)}
    node_index: dict[Operation, int] = {}
    nodes: list[PatternOp] = []
    body = list(block.ops)
    if not body or not isinstance(body[-1], func.ReturnOp):
        raise CompileError(f"pattern @{fn.sym_name.data} must end with func.return", fn)
    ret = body[-1]
    for op in body[:-1]:
        if not isinstance(op, RelayOp):
            raise CompileError(f"pattern ops must be relay graph ops, got '{op.name}'", op)
        refs: list[ArgRef | OpRef] = []
        for v in op.operands:
            if v in arg_index:
                refs.append(ArgRef(arg_index[v]))  # type: ignore[index]
            else:
                assert isinstance(v, OpResult) and v.op in node_index
                refs.append(OpRef(node_index[v.op], v.index))
        keys = written.get(op, frozenset())
        props = {k: op.prop(k) for k in keys if op.prop_kind(k) is not None}
        extra = [k for k in op.attributes if k != DUPLICATE_ATTR]
        if extra:
            raise CompileError(
                f"unknown attribute '{extra[0]}' on a pattern op (allowed: {DUPLICATE_ATTR})", op
            )
        duplicate = DUPLICATE_ATTR in op.attributes
        if duplicate and not all(isinstance(r, ArgRef) for r in refs):
            raise CompileError(f"a '{DUPLICATE_ATTR}' op may only use pattern arguments", op)
        node_index[op] = len(nodes)
        nodes.append(PatternOp(len(nodes), op.name, tuple(refs), props, duplicate, op))

    if len(ret.operands) != 1:
        raise CompileError(f"pattern @{fn.sym_name.data} must return exactly one value", ret)
    result = ret.operands[0]
    if not isinstance(result, OpResult) or result.op not in node_index:
        raise CompileError(f"pattern @{fn.sym_name.data} must return the result of one of its ops", ret)
    root = nodes[node_index[result.op]]
    if root.duplicate:
        raise CompileError(f"the root of a pattern cannot be '{DUPLICATE_ATTR}'", root.op)

    # Every op and argument must take part in the match reached from the root; anything
    # else would be silently ignored.
    reached: set[int] = set()
    used_args: set[int] = set()
    stack = [root.index]
    while stack:
        i = stack.pop()
        if i in reached:
            continue
        reached.add(i)
        for ref in nodes[i].operands:
            if isinstance(ref, ArgRef):
                used_args.add(ref.index)
            else:
                stack.append(ref.node)
    for node in nodes:
        if node.index not in reached:
            raise CompileError(f"pattern op '{node.name}' does not feed the returned value", node.op)
    for i, arg in enumerate(block.args):
        if i not in used_args:
            shown = f"%{arg.name_hint}" if arg.name_hint else f"#{i}"
            raise CompileError(f"pattern @{fn.sym_name.data}: argument {shown} is unused", fn)
    return Pattern(name, fn, tuple(nodes), root, len(block.args), frozenset(constant_args), source)


def _arg_dicts(fn: func.FuncOp, n: int) -> list[dict]:
    attrs = fn.arg_attrs
    if attrs is None:
        return [{} for _ in range(n)]
    assert isinstance(attrs, ArrayAttr)
    return [d.data if isinstance(d, DictionaryAttr) else {} for d in attrs.data]


def pattern_location(pattern: Pattern) -> str:
    return format_location(pattern.function.location) or pattern.source


# --------------------------------------------------------------------------------------
# Shadowing: an earlier pattern that always takes part of a later one
# --------------------------------------------------------------------------------------


def shadowing_match(earlier: Pattern, later: Pattern) -> bool:
    """Whether `earlier` matches inside `later`'s own body, which means that wherever
    `later` could match, `earlier` (tried first) takes part of it. Only the properties
    `later` writes are known, so `earlier`'s written properties must appear there."""

    def usable(op: Operation) -> bool:
        return True

    nodes = {n.op: n for n in later.nodes}
    args = later.function.body.block.args
    constant = {args[i] for i in later.constant_args}

    def is_constant(v: SSAValue) -> bool:
        return v in constant

    for node in later.nodes:
        if node.name != earlier.root.name:
            continue
        m = earlier.match(node.op, usable=usable, is_constant=is_constant)
        if m is None:
            continue
        ok = True
        for enode, op in zip(earlier.nodes, m.ops):
            lnode = nodes[op]
            if any(lnode.props.get(k, _MISSING) != v for k, v in enode.props.items()):
                ok = False
            if op is later.root.op and enode is not earlier.root:
                ok = False  # `later`'s root may have outside users that `earlier` cannot see
        if ok:
            return True
    return False


_MISSING = object()
