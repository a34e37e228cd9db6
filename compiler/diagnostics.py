"""User-facing errors: one line, with the source location when there is one.

`CompileError` is what passes, the frontend and the tools raise for bad input. The
command lines print `format_error(e)` and exit 1; nothing else may reach the user as a
traceback. `LocatingParser` gives every parsed op a `file:line:col` location so that
verifier failures and pass errors can point back to the source.
"""

from __future__ import annotations

import bisect
import dataclasses
import difflib
import re
from collections.abc import Iterable

from xdsl.dialects import func
from xdsl.dialects.builtin import FileLineColLoc, IntAttr, ModuleOp, NameLoc, StringAttr, UnknownLoc
from xdsl.ir import Attribute, Operation, OpTraits
from xdsl.parser import Parser
from xdsl.utils.exceptions import VerifyException
from xdsl.utils.mlir_lexer import MLIRLexer


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

    def _get_op_by_name(self, name: str) -> type[Operation]:
        op_type = self.ctx.get_optional_op(name, dialect_stack=self._parser_state.dialect_stack)
        if op_type is not None:
            return op_type
        dialect = self.ctx.get_optional_dialect(name.split(".", 1)[0])
        known = [o.name for o in dialect.operations] if dialect is not None else []
        self.raise_error(f"Operation {name} is not registered{did_you_mean(name, known)}")

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


def verify_located(module: ModuleOp) -> None:
    """Verify every op, in time linear in the module; the first failure becomes a
    CompileError at that op's location."""
    functions = {
        op.sym_name.data: op for op in module.ops if isinstance(getattr(op, "sym_name", None), StringAttr)
    }
    for op in module.walk():
        try:
            if type(op) is func.CallOp and op.parent_op() is not None:
                _verify_call(op, functions)
            else:
                op.verify(verify_nested_ops=False)
        except VerifyException as e:
            msg = str(e.args[0]) if e.args else str(e)
            msg = msg.removeprefix("Operation does not verify: ")
            raise CompileError(f"'{op.name}' op {one_line(msg)}", op) from None


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
