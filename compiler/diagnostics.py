"""User-facing errors: one line, with the source location when there is one.

`CompileError` is what passes, the frontend and the tools raise for bad input. The
command lines print `format_error(e)` and exit 1; nothing else may reach the user as a
traceback. `ModelWarning` is what the compiler overrides in a model and goes on (as
onnxruntime does); the command lines print it as one line (`print_model_warnings`). `LocatingParser` gives every parsed op a `file:line:col` location so that
verifier failures and pass errors can point back to the source.
"""

from __future__ import annotations

import bisect
import dataclasses
import difflib
import inspect
import re
import sys
import warnings
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from xdsl.dialects import arith, func, memref
from xdsl.dialects.builtin import (DYNAMIC_INDEX, DenseArrayBase, FileLineColLoc, IndexType, IntAttr, ModuleOp, NameLoc,
                                  StringAttr, UnknownLoc, i32, i64)
from xdsl.ir import Attribute, Block, Operation, OpTraits, SSAValue
from xdsl.ir.core import ErasedSSAValue
from xdsl.irdl import IRDLOperation, OptionalDef, VariadicDef
from xdsl.irdl.constraints import BaseAttr, RangeLengthConstraint, RangeOf, VerificationContext
from xdsl.irdl.operations import AttrSizedOperandSegments, OpDef, OptAttributeDef, OptPropertyDef, SingleBlockRegionDef
from xdsl.parser import Parser
from xdsl.traits import IsolatedFromAbove, IsTerminator, NoTerminator
from xdsl.utils.exceptions import VerifyException
from xdsl.utils.mlir_lexer import MLIRLexer, MLIRTokenKind

from accel.compiler.index_arith import INDEX_ARITH
from accel.compiler.ir_build import dense_values
from accel.dialects import accel
from accel.dialects.conventions import PLACEMENT_ATTR
from accel.dialects.memo import by_identity


class CompileError(Exception):
    """A user error. `op` (or `location`) says where, when known."""

    def __init__(self, message: str, op: Operation | None = None, location: str | None = None):
        super().__init__(message)
        self.message = message
        self.op = op
        self.location = location

    def __str__(self) -> str:
        where = self.location or (format_location(self.op.location) if self.op is not None else None)
        return f"{where}: error: {self.message}" if where else f"error: {self.message}"


class ModelWarning(UserWarning):
    """Something the model declares that the compiler overrides, then goes on (e.g. a
    graph output's declared shape that the graph does not compute: the computed one is
    used, as onnxruntime does). `location` says where, when known."""

    def __init__(self, message: str, location: str | None = None):
        super().__init__(message)
        self.message = message
        self.location = location

    def __str__(self) -> str:
        return f"{self.location}: warning: {self.message}" if self.location else f"warning: {self.message}"


def print_model_warnings(prog: str) -> None:
    """Show every `ModelWarning` as one line `prog: <location>: warning: <message>` on
    stderr (other warnings as Python shows them)."""
    shown = warnings.showwarning

    def show(message, category, filename, lineno, file=None, line=None):
        if isinstance(message, ModelWarning):
            print(f"{prog}: {one_line(str(message))}", file=sys.stderr)
        else:
            shown(message, category, filename, lineno, file, line)

    warnings.showwarning = show


def format_location(loc: Attribute | None) -> str | None:
    """`file:line:col` for file locations; the name for named (e.g. ONNX node) locations."""
    if loc is None or isinstance(loc, UnknownLoc):
        return None
    if isinstance(loc, FileLineColLoc):
        return f"{loc.filename.data}:{loc.line.data}:{loc.column.data}"
    if isinstance(loc, NameLoc):
        inner = format_location(loc.location)
        return f"{inner}: '{loc.desc.data}'" if inner else loc.desc.data
    return None


def one_line(text: str) -> str:
    """Collapse a message to one line (model names may contain newlines)."""
    return " ".join(str(text).split())


def did_you_mean(name: str, known: Iterable[str]) -> str:
    """` (did you mean 'x'?)` for the closest known name, or nothing."""
    close = difflib.get_close_matches(name, list(known), n=1, cutoff=0.75)
    return f" (did you mean '{close[0]}'?)" if close else ""


# xDSL 0.74 lexes string literals with `"(?:[^"\\\n\v\f]+|\\...)*"`: a nested quantifier that
# backtracks exponentially on an unterminated string (a stray `"` in a line of 40
# characters never returns; the fuzzer found it). The same language with possessive
# quantifiers fails in linear time, so the lexer reports "End of file reached before
# closing string literal" at once.
MLIRLexer._unescaped_characters_regex = re.compile(r'"(?:[^"\\\n\v\f]++|\\(?:["nt\\]|[0-9A-Fa-f]{2}))*+"')


_SHAPED = frozenset(("tensor", "memref", "vector"))


def _angle_end(text: str, i: int) -> int | None:
    """The index after the `>` that closes the `<` at `text[i]` (nested brackets and
    quoted strings skipped), or None."""
    if i >= len(text) or text[i] != "<":
        return None
    depth = 0
    n = len(text)
    while i < n:
        ch = text[i]
        if ch == "<":
            depth += 1
        elif ch == ">":
            depth -= 1
            if depth == 0:
                return i + 1
        elif ch == '"':
            i = text.find('"', i + 1)
            while i > 0 and text[i - 1] == "\\":
                i = text.find('"', i + 1)
            if i < 0:
                return None
        elif ch in "\n;{}()":
            return None  # not a type's text
        i += 1
    return None


class LocatingParser(Parser):
    """A parser that records `file:line:col` on every op that has no explicit `loc(...)`."""

    def __init__(self, ctx, input: str | bytes, name: str = "<unknown>", line_offset: int = 0):
        super().__init__(ctx, input, name)
        text = input if isinstance(input, str) else input.decode("utf-8", "replace")
        self._line_starts = [0]
        pos = text.find("\n")
        while pos != -1:
            self._line_starts.append(pos + 1)
            pos = text.find("\n", pos + 1)
        self._byte_input = isinstance(input, bytes)
        self._file_attr = StringAttr(name)
        self._line_offset = line_offset
        self._text = text
        self._types: dict[str, Attribute] = {}
        """Shaped types parsed so far, by their text (see `parse_optional_type`)."""

    def _get_op_by_name(self, name: str) -> type[Operation]:
        op_type = self.ctx.get_optional_op(name, dialect_stack=self._parser_state.dialect_stack)
        if op_type is not None:
            return op_type
        dialect = self.ctx.get_optional_dialect(name.split(".", 1)[0])
        known = [o.name for o in dialect.operations] if dialect is not None else []
        self.raise_error(f"Operation {name} is not registered{did_you_mean(name, known)}")

    def parse_optional_type(self) -> Attribute | None:
        """xDSL's, but a shaped type (`tensor<...>`, `memref<...>`, `vector<...>`) whose text
        was parsed before in this input is taken again: IR text repeats its types (every
        op of a pattern file, of a model's layers), and xDSL parses each ~20 tokens afresh."""
        token = self._current_token
        if token.kind is not MLIRTokenKind.BARE_IDENT or token.text not in _SHAPED or self._byte_input:
            return super().parse_optional_type()
        start = token.span.start
        end = _angle_end(self._text, token.span.end)
        key = self._text[start:end] if end is not None else None
        found = self._types.get(key) if key is not None else None
        if found is not None:
            self._resume_from(end)
            return found
        parsed = super().parse_optional_type()
        # Kept only where xDSL read exactly the bracketed text (the next token starts after it).
        if key is not None and parsed is not None and self._text[end:self._current_token.span.start].strip() == "":
            self._types[key] = parsed
        return parsed

    def parse_operation(self) -> Operation:
        start = self._current_token.span.start
        op = super().parse_operation()
        if isinstance(op.location, UnknownLoc):
            line = bisect.bisect_right(self._line_starts, start) - 1
            col = start - self._line_starts[line] + 1
            op.location = FileLineColLoc(self._file_attr, IntAttr(line + 1 + self._line_offset), IntAttr(col))
        return op


# xDSL's func.call verifier looks its callee up by a scan of the module's ops, which
# makes verifying a module with many regions quadratic; calls are verified with the
# call's definition minus that trait, and checked against a symbol table built once.
_CALL_DEFINITION = dataclasses.replace(
    func.CallOp.get_irdl_definition(),
    traits=OpTraits(lambda: tuple(t for t in func.CallOp.get_irdl_definition().traits
                                  if not isinstance(t, func.CallOpSymbolUserOpInterface))),
)


def _check_call(call: func.CallOp, functions: dict[str, Operation]) -> None:
    name = call.callee.string_value()
    callee = functions.get(name)
    if callee is None:
        raise VerifyException(f"'{call.callee}' could not be found in symbol table")
    if not isinstance(callee, func.FuncOp):
        raise VerifyException(f"'{call.callee}' does not reference a valid function")
    expected = callee.function_type
    if len(expected.inputs) != len(call.arguments):
        raise VerifyException("incorrect number of operands for callee")
    if len(expected.outputs) != len(call.result_types):
        raise VerifyException("incorrect number of results for callee")
    for i, (want, arg) in enumerate(zip(expected.inputs, call.arguments)):
        if want != arg.type:
            raise VerifyException(f"operand type mismatch: expected operand type {want}, "
                                  f"but provided {arg.type} for operand number {i}")
    for i, (want, got) in enumerate(zip(expected.outputs, call.result_types)):
        if want != got:
            raise VerifyException(f"result type mismatch: expected result type {want}, "
                                  f"but provided {got} for result number {i}")


def _verify_call(call: func.CallOp, functions: dict[str, Operation]) -> None:
    block = call.parent_block()
    if block is not None and block.last_op is call:
        raise VerifyException(f"Operation {call.name} terminates block in single-block region "
                              "but is not a terminator")
    _CALL_DEFINITION.verify(call)
    _check_call(call, functions)


# Verification costs as much as a pass, most of it IRDL's generic bookkeeping (the
# segment sizes of every operand, result, region and successor list, accessors by
# name) around the checks themselves. For ops of fixed arity (at most one variadic
# operand list and one variadic result list, no segment-size attribute, no successors)
# `FastCheck` runs the checks of `Operation.verify`, `OpDef.verify` and the op's own
# `verify_` directly. It only ever decides that an op is valid: on any doubt (a count
# that does not match, a block's last op, any exception) the op goes through xDSL's
# verifier, which accepts it or raises its usual message.


@dataclasses.dataclass(frozen=True)
class FastCheck:
    op_def: OpDef
    custom_verify: Callable[[Operation], None] | None
    pre_check: Callable[[Operation], None] | None
    # Per operand (result) def: its constraint, and whether it is the variadic one.
    operands: tuple[tuple[Any, bool, bool], ...]
    results: tuple[tuple[Any, bool, bool], ...]
    single_block: tuple[bool, ...]
    operand_segments: AttrSizedOperandSegments | None  # where the operand lists' sizes are
    trait_checks: tuple[Callable[[Operation], None], ...]  # the traits' verifiers
    verify_reads: tuple[str, ...] | None  # all the own verifier reads (`_PROPERTY_VERIFIERS`)
    by_signature: bool  # whether the whole verdict is the signature's (`_SIGNATURE_VERIFIED`)
    in_function: bool  # whether it is the signature's with the placement's function (compute ops)
    by_markers: bool  # whether the signature holds markers and type classes (`_MARKER_SIGNATURES`)

    @staticmethod
    def of(cls: type[Operation]) -> FastCheck | None:
        """The check for ops of `cls`, or None where only xDSL's path applies."""
        if not issubclass(cls, IRDLOperation):
            return None
        op_def = cls.get_irdl_definition()
        segments = [o for o in op_def.options if isinstance(o, AttrSizedOperandSegments)]
        if len(segments) != len(op_def.options) or op_def.successors:
            return None
        if any(isinstance(d, VariadicDef) for _, d in op_def.regions):
            return None
        if any(sum(isinstance(d, VariadicDef) for _, d in defs) > 1
               for defs in ((() if segments else op_def.operands), op_def.results)):
            return None
        # IRDL's generated `verify_` runs `op_def.verify`, then the class's own verifier,
        # which it holds in its closure: take that one (and nothing if the shape differs).
        # A dialect may wrap it with a check of its own first (`relay_op`: `pre_check`,
        # then `checked`, IRDL's).
        verifier = cls.verify_
        pre_check = getattr(verifier, "pre_check", None)
        if pre_check is not None:
            verifier = verifier.checked
        try:
            held = inspect.getclosurevars(verifier).nonlocals
        except (TypeError, ValueError):
            return None
        if held.get("op_def") is not op_def or "custom_verify" not in held:
            return None

        def defs(items) -> tuple[tuple[Any, bool, bool], ...]:
            return tuple((d.constr, isinstance(d, VariadicDef), isinstance(d, OptionalDef)) for _, d in items)

        in_function = issubclass(cls, accel.ComputeOp) and not op_def.regions
        by_markers = cls in _MARKER_SIGNATURES and cls in _PROPERTY_VERIFIERS and all(
            _class_only(d.constr) for _, d in (*op_def.operands, *op_def.results))

        return FastCheck(op_def, held["custom_verify"], pre_check, defs(op_def.operands), defs(op_def.results),
                         tuple(isinstance(d, SingleBlockRegionDef) for _, d in op_def.regions),
                         segments[0] if segments else None,
                         tuple(_isolated if isinstance(t, IsolatedFromAbove) else t.verify for t in op_def.traits),
                         _PROPERTY_VERIFIERS.get(cls), cls in _SIGNATURE_VERIFIED or in_function,
                         in_function, by_markers)

    def _segment_sizes(self, op: Operation) -> list[int] | None:
        """The operand lists' sizes of an op with `operandSegmentSizes`, if valid."""
        option = self.operand_segments
        sizes = option.container(op).get(option.attribute_name)
        if not isinstance(sizes, DenseArrayBase) or sizes.elt_type != i32:
            return None
        values = dense_values(sizes)
        if len(values) != len(self.operands) or sum(values) != len(op.operands):
            return None
        for n, (_, variadic, optional) in zip(values, self.operands):
            if n < 0 or (optional and n > 1) or (not variadic and n != 1):
                return None
        return list(values)

    @staticmethod
    def _verify_list(values: Sequence[SSAValue], defs: tuple[tuple[Any, bool, bool], ...],
                     ctx: VerificationContext, sizes: list[int] | None = None) -> bool:
        """Verify each def's share of `values`, split as IRDL's accessors split them
        (by `sizes` when the op records them); False if the count cannot match."""
        if sizes is not None:
            i = 0
            for (constr, _, _), n in zip(defs, sizes):
                constr.verify(tuple(v.type for v in values[i:i + n]), ctx)
                i += n
            return True
        n_var = len(values) - (len(defs) - 1)
        i = 0
        for constr, variadic, optional in defs:
            if variadic:
                if n_var < 0 or (optional and n_var > 1):
                    return False
                constr.verify(tuple(v.type for v in values[i:i + n_var]), ctx)
                i += n_var
            elif i < len(values):
                t = values[i].type
                if _passed.get((id(constr), id(t))) is not t:
                    constr.verify((t,), ctx)
                    _remember(constr, t, ctx)
                i += 1
            else:
                return False
        return i == len(values)

    @staticmethod
    def _verify_named(present: dict[str, Attribute], defs: dict, optional: type, ctx: VerificationContext) -> bool:
        """Verify the properties (attributes) `defs` declares; False if one is missing."""
        for name, d in defs.items():
            if name in present:
                attr, constr = present[name], d.constr
                if _passed.get((id(constr), id(attr))) is not attr:
                    constr.verify(attr, ctx)
                    _remember(constr, attr, ctx)
            elif not isinstance(d, optional):
                return False
        return True

    def _accepts_by_markers(self, op: Operation, operands, props: dict) -> bool:
        """`accepts` by a signature of the properties' markers and the types' classes (see
        `_MARKER_SIGNATURES`)."""
        key: list = [id(self), len(operands), *props]
        held = []
        reads = self.verify_reads
        for name, attr in props.items():
            markers = _markers(attr) if name in reads else None
            if markers is None:
                key.append(id(attr))
                held.append(attr)
            else:
                key.append(markers)
        for v in operands:
            if v.__class__ is ErasedSSAValue:
                return False
            key.append(v._type.__class__)  # noqa: SLF001
        key += [r._type.__class__ for r in op.results]  # noqa: SLF001
        signature = tuple(key)
        if signature in _signatures:
            return True
        if not self._check(op, operands):
            return False
        _signatures[signature] = tuple(held)
        return True

    def accepts(self, op: Operation, isolation: bool = True) -> bool:
        # (the fields are read, not xDSL's properties: this runs for every op of a module)
        block = op.parent
        if op._successors or (block is not None and block._last_op is op and not _may_end_block(op, block)):  # noqa: SLF001
            return False  # the successor rules, a missing terminator: xDSL's path
        operands = op._operands  # noqa: SLF001
        signature = None
        if self.by_signature and self.pre_check is None and (self.in_function or not op.attributes):
            props = op.properties
            if self.by_markers:
                return self._accepts_by_markers(op, operands, props)
            # (types without parameters are equal but many objects: their class stands for them)
            key = [id(self), len(operands), *props, *map(id, props.values())]
            if self.in_function:
                attrs = op.attributes
                fn = _placed_in(op)
                key += [*attrs, *map(id, attrs.values()), id(fn)]
            for v in operands:
                if v.__class__ is ErasedSSAValue:
                    return False
                t = v._type  # noqa: SLF001
                key.append(t.__class__ if t.__class__ in _UNIT_TYPES else id(t))
            for r in op.results:
                t = r._type  # noqa: SLF001
                key.append(t.__class__ if t.__class__ in _UNIT_TYPES else id(t))
            signature = tuple(key)
            if signature in _signatures:  # (the held objects keep their ids their own)
                return True
            held = (*props.values(), *[v._type for v in operands], *[r._type for r in op.results])  # noqa: SLF001
            if self.in_function:
                held = (*held, *op.attributes.values(), fn)
        else:
            for v in operands:
                if v.__class__ is ErasedSSAValue:
                    return False
            if self.pre_check is not None:
                self.pre_check(op)
        if not self._check(op, operands, isolation):
            return False
        if signature is not None:
            _signatures[signature] = held
        return True

    def _check(self, op: Operation, operands, isolation: bool = True) -> bool:
        """The checks of `Operation.verify` for `op` (whose operands are `operands`; its
        `IsolatedFromAbove` check only with `isolation`)."""
        sizes = None
        if self.operand_segments is not None and (sizes := self._segment_sizes(op)) is None:
            return False
        ctx = _unbound_context()
        if not (self._verify_list(operands, self.operands, ctx, sizes)
                and self._verify_list(op.results, self.results, ctx)):
            return False
        regions = op.regions
        if len(regions) != len(self.single_block):
            return False
        d = self.op_def
        for single, (_, region_def), region in zip(self.single_block, d.regions, regions):
            if single and len(region.blocks) != 1:
                return False
            if (entry := region.first_block) is not None:
                region_def.entry_args.verify(entry.arg_types, ctx)
        props = op.properties
        if not (self._verify_named(props, d.properties, OptPropertyDef, ctx)
                and self._verify_named(op.attributes, d.attributes, OptAttributeDef, ctx)):
            return False
        if len(props) > len(d.properties) or any(name not in d.properties for name in props):
            return False
        for check in self.trait_checks:
            if isolation or check is not _isolated:
                check(op)
        if self.custom_verify is not None:
            if self.verify_reads is None:
                self.custom_verify(op)
            else:
                read = tuple(props.get(name) for name in self.verify_reads)
                key = (id(self), *map(id, read), *(sizes if sizes is not None else (len(operands),)))
                if key not in _verified:  # (the held properties keep their ids their own)
                    self.custom_verify(op)
                    _verified[key] = read
        return True


def _placed_in(op: Operation) -> Operation | None:
    """The nearest op holding `op` that has a placement (its function), as a compute op's
    verifier finds it (`ComputeOp.verify_placement`); None if none."""
    block = op.parent
    while block is not None:
        region = block.parent
        holder = region.parent if region is not None else None
        if holder is None:
            return None
        if PLACEMENT_ATTR in holder.attributes:
            return holder
        block = holder.parent
    return None


def _may_end_block(op: Operation, block: Block) -> bool:
    """xDSL's terminator rule for the last op of a block: a terminator, unless the block
    is the only one of a region whose op needs none (`NoTerminator`), or of no op."""
    region = block.parent
    if region is None:
        return True
    if len(region.blocks) == 1 and (region.parent is None or region.parent.has_trait(NoTerminator)):
        return True
    return op.has_trait(IsTerminator)


def _isolated(op: Operation) -> None:
    """`IsolatedFromAbove.verify` (the ops nested in `op`, but in ops isolated in turn,
    use only values defined in `op`) with a step for the common case: a value defined
    in the same block as its user, or in a block of `op`'s own regions. Any failure
    raises (the caller then runs xDSL's verifier for its message)."""
    own = {block for region in op.regions for block in region.blocks}
    regions = list(op.regions)
    while regions:
        for block in regions.pop().blocks:
            for child in block.ops:
                for v in child._operands:  # noqa: SLF001 - the tuple itself (not through a property)
                    owner = v.owner
                    home = owner if owner.__class__ is Block else owner.parent
                    if home is not block and home not in own and (owner is op or not op.is_ancestor(owner)):
                        raise VerifyException("a value defined above an isolated op")
                if child.regions and not child.has_trait(IsolatedFromAbove):
                    regions += child.regions


_FAST_CHECKS: dict[type[Operation], FastCheck | None] = {}

_passed: dict[tuple[int, int], Attribute] = {}
"""(constraint, attribute) pairs, by identity, that passed in a context without bindings
and bound nothing, so pass again (constraints are pure). Types and properties are shared
objects (a compiled 10k-node model: 13 type objects among 100k operands and results); the
attribute is held, so its id stays its own, until `verify_located` ends."""


_PROPERTY_VERIFIERS: dict[type[Operation], tuple[str, ...]] = {
    memref.SubviewOp: ("static_offsets", "static_sizes", "static_strides"),
}
"""Ops whose own verifier (`verify_`) reads only these properties and the sizes of the
operand lists (xDSL 0.74's memref.subview: the dynamic markers of its static offsets,
sizes and strides against the dynamic operands; a tile's views are ~30 % of a compiled
region's ops, sharing a few property objects)."""

_SIGNATURE_VERIFIED = frozenset({memref.SubviewOp, accel.DmaStartOp, accel.DmaWaitOp, accel.AllocOp,
                                  arith.ConstantOp, *INDEX_ARITH})
"""Ops without regions whose verification, traits and own verifier included, reads only
their properties, the number and types of their operands and the types of their results
(the memref views, transfers, buffers and index arithmetic of tiled regions: 70 % of a
compiled ResNet-50's ops, with about 400 distinct signatures among its 2,000 views).
Compute ops (`accel.ComputeOp`) as well, with their discardable attributes and the
function whose placement their verifier reads (`_placed_in`) in the signature: a compiled
ResNet-50's 356 have 86 signatures."""

_MARKER_SIGNATURES = frozenset({memref.SubviewOp})
"""Ops of `_SIGNATURE_VERIFIED` whose operand and result constraints are base classes and
whose own verifier reads, of the properties it reads (`_PROPERTY_VERIFIERS`), only their
length and where they hold the dynamic marker (i64 arrays, as their constraints ask):
their signature holds those and the types' classes instead of the objects (a compiled
ResNet-50's 2,016 views, at as many offsets: 401 signatures by object, 5 by markers)."""


@by_identity
def _markers(attr: Attribute) -> tuple | None:
    """An i64 array's length and the indices of its dynamic markers (None: not such an array)."""
    if type(attr) is not DenseArrayBase or attr.elt_type != i64:
        return None
    values = dense_values(attr)
    return len(values), tuple(i for i, v in enumerate(values) if v == DYNAMIC_INDEX)


def _class_only(constr: Any) -> bool:
    """Whether an operand or result constraint asks only for a class (`BaseAttr`, in a range)."""
    while isinstance(constr, (RangeLengthConstraint, RangeOf)):
        constr = constr.constraint if isinstance(constr, RangeLengthConstraint) else constr.constr
    return isinstance(constr, BaseAttr)


_UNIT_TYPES = frozenset({IndexType, accel.TokenType})
"""Types without parameters: all of a class are equal."""

_signatures: dict[tuple, tuple] = {}
"""(check, operand count, property names, the ids of the properties and of the operand and
result types) of accepted ops of `_SIGNATURE_VERIFIED` without discardable attributes -> those objects
(held, so their ids stay their own until `verify_located` ends): an op of the same
signature is accepted."""

_verified: dict[tuple, tuple] = {}
"""(check, the properties `verify_reads` names by identity, the operand lists' sizes) of
ops whose own verifier passed: it passes again. The properties are held, as `_passed`'s."""


def _remember(constr: Any, attr: Attribute, ctx: VerificationContext) -> None:
    """Note that `constr` passed `attr`, unless the check bound or may have read a
    variable (the context holds any: the op's earlier checks bound some)."""
    if not (ctx._variables or ctx._range_variables or ctx._int_variables):  # noqa: SLF001 - all it holds
        _passed[(id(constr), id(attr))] = attr

_context = VerificationContext()


def _unbound_context() -> VerificationContext:
    """A verification context without bindings: the last one, unless a constraint bound
    variables in it (most ops' bind none, and a new context per op costs more than the
    rest of their type checks)."""
    global _context
    ctx = _context
    if ctx._variables or ctx._range_variables or ctx._int_variables:  # noqa: SLF001 - all it holds
        ctx = _context = VerificationContext()
    return ctx


def verify_op(op: Operation, isolation: bool = True) -> None:
    """`op.verify(verify_nested_ops=False)`, through `FastCheck` where it applies; without
    `isolation`, the fast path leaves out `IsolatedFromAbove` (for a caller that checks
    dominance from the op's region down: see `verify_located`)."""
    cls = type(op)
    check = _FAST_CHECKS.get(cls, False)
    if check is False:
        check = _FAST_CHECKS[cls] = FastCheck.of(cls)
    if check is not None:
        try:
            if check.accepts(op, isolation):
                return
        except Exception:  # noqa: BLE001 - xDSL's path below gives the error its usual form
            pass
    op.verify(verify_nested_ops=False)


def verify_located(module: ModuleOp) -> None:
    """Verify every op, in time linear in the module; the first failure becomes a
    CompileError at that op's location."""
    functions = {
        op.sym_name.data: op for op in module.ops if isinstance(getattr(op, "sym_name", None), StringAttr)
    }
    # A function of the module uses only values defined in it where every operand is
    # defined before its use, scoped from the module down (`_check_dominance`, below),
    # when the module's block defines no values: its isolation check would walk it again.
    top = module.body.block
    if any(o.results for o in top.ops):
        top = None
    try:
        for op in module.walk():
            try:
                if type(op) is func.CallOp and op.parent_op() is not None:
                    _verify_call(op, functions)
                else:
                    verify_op(op, op.parent is not top)
            except VerifyException as e:
                msg = str(e.args[0]) if e.args else str(e)
                msg = msg.removeprefix("Operation does not verify: ")
                raise CompileError(f"'{op.name}' op {one_line(msg)}", op) from None
        for region in module.regions:
            _check_dominance(region, set())
    finally:
        _passed.clear()  # the module's attributes are not held beyond its verification
        _verified.clear()
        _signatures.clear()


def _check_dominance(region, visible: set) -> None:
    """Every operand is defined before its use: earlier in the user's block, or before
    the op holding it (xDSL's verifier does not check dominance). `visible`: the values
    defined before the region's op, in its blocks and those enclosing them. The blocks
    of a region of several (a CFG, which accel's IR does not make) are one scope."""
    blocks = region.blocks
    defined: list = []
    if len(blocks) > 1:
        for block in blocks:
            defined += block.args
            for op in block.ops:
                defined += op.results
        visible.update(defined)
    for block in blocks:
        for arg in block.args:
            visible.add(arg)
            defined.append(arg)
        for op in block.ops:
            for i, v in enumerate(op._operands):  # noqa: SLF001 - the tuple itself (not through a property)
                if v not in visible:
                    raise CompileError(f"'{op.name}' op operand #{i} does not dominate this use", op)
            for inner in op.regions:
                _check_dominance(inner, visible)
            for r in op.results:
                visible.add(r)
                defined.append(r)
    visible.difference_update(defined)


def format_error(e: BaseException) -> str:
    """One line for any error a tool may meet; internal errors are labelled as such."""
    from xdsl.utils.exceptions import ArgSpecParseError, DiagnosticException, ParseError

    if isinstance(e, CompileError):
        return one_line(str(e))
    if isinstance(e, ParseError):
        return f"{e.span.get_location()}: error: {one_line(e.msg)}"
    if isinstance(e, ArgSpecParseError):
        return "error: invalid pass pipeline: " + one_line(str(e).removeprefix("Error parsing pass pipeline specification:"))
    if isinstance(e, (VerifyException, DiagnosticException)):
        msg = str(e.args[0]) if e.args else type(e).__name__
        return "error: " + one_line(msg.removeprefix("Operation does not verify: "))
    if isinstance(e, OSError):
        name = f" '{e.filename}'" if getattr(e, "filename", None) else ""
        return f"error: cannot access{name}: {e.strerror or e}"
    if isinstance(e, RecursionError):
        return "error: the input is nested too deeply"
    if isinstance(e, (ValueError, TypeError, KeyError)) and e.args:
        return "error: " + one_line(str(e.args[0]))
    return f"internal error: {type(e).__name__}: {one_line(str(e))}"
