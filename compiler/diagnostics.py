"""User-facing errors: one line, with the source location when there is one.

`CompileError` is what passes, the frontend and the tools raise for bad input. The
command lines print `format_error(e)` and exit 1; nothing else may reach the user as a
traceback. `LocatingParser` gives every parsed op a `file:line:col` location so that
verifier failures and pass errors can point back to the source.
"""

from __future__ import annotations

import bisect

from xdsl.dialects.builtin import FileLineColLoc, IntAttr, ModuleOp, NameLoc, StringAttr, UnknownLoc
from xdsl.ir import Attribute, Operation
from xdsl.parser import Parser
from xdsl.utils.exceptions import VerifyException


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

    def parse_operation(self) -> Operation:
        start = self._current_token.span.start
        op = super().parse_operation()
        if isinstance(op.location, UnknownLoc):
            line = bisect.bisect_right(self._line_starts, start) - 1
            col = start - self._line_starts[line] + 1
            op.location = FileLineColLoc(self._file_attr, IntAttr(line + 1 + self._line_offset), IntAttr(col))
        return op


def verify_located(module: ModuleOp) -> None:
    """Verify every op; the first failure becomes a CompileError at that op's location."""
    for op in module.walk():
        try:
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
