"""`--verify-diagnostics` with MLIR's semantics: the input says which errors it expects.

    // expected-error @+1 {{has 4 input channels per group}}
    %y = relay.nn.conv2d %x, %w : ...

An annotation names a line — its own (`expected-error {{…}}`), one relative to it
(`@+N`, `@-N`) or none (`@unknown`, for an error without a location) — and a text
that the error's message must contain. Each emitted error must match an annotation
and each annotation must be matched; anything else is a failure, reported as one
line at the annotation (or at the error).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_ANNOTATION = re.compile(r"//\s*expected-error\s*(@(?:[+-]\d+|unknown))?\s*\{\{(.*?)\}\}")
_LOCATED = re.compile(r"^(?P<file>.*?):(?P<line>\d+):(?P<col>\d+): error: (?P<message>.*)$")


@dataclass
class Expected:
    line: int | None
    """The line the error must be at (1-based, in the whole file), None for `@unknown`."""
    text: str
    annotation_line: int


@dataclass
class Emitted:
    line: int | None
    message: str
    text: str
    """The whole one-line diagnostic, as the tool prints it."""


def expected_errors(chunk: str, line_offset: int = 0) -> list[Expected]:
    """The `expected-error` annotations of one input chunk starting at `line_offset`."""
    found = []
    for i, line in enumerate(chunk.splitlines()):
        for m in _ANNOTATION.finditer(line):
            here = line_offset + i + 1
            where = m.group(1)
            if where == "@unknown":
                target = None
            elif where:
                target = here + int(where[1:])
            else:
                target = here
            found.append(Expected(target, m.group(2), here))
    return found


def emitted_error(one_line: str) -> Emitted:
    """Split a tool's one-line diagnostic (`file:line:col: error: message`) into its parts."""
    m = _LOCATED.match(one_line)
    if m is None:
        return Emitted(None, one_line.removeprefix("error: "), one_line)
    return Emitted(int(m.group("line")), m.group("message"), one_line)


def mismatches(file: str, expected: list[Expected], emitted: list[Emitted]) -> list[str]:
    """One line per unmatched annotation or unexpected error; empty when they agree."""
    left = list(expected)
    problems = []
    for e in emitted:
        match = next((x for x in left if x.line == e.line and x.text in e.message), None)
        if match is None:
            problems.append(f"{e.text} (unexpected error: no expected-error annotation matches it)")
        else:
            left.remove(match)
    for x in left:
        where = "with no location" if x.line is None else f"at line {x.line}"
        problems.append(f"{file}:{x.annotation_line}: error: expected error {where} "
                        f"containing '{x.text}' was not produced")
    return problems
