"""The codegen hook: how the C of one outlined region is produced (TVM's relay.ext.<name>).

The host-schedule emitter (`ModelEmitter`) calls, for every region, the hook of the
region's target: `api.codegen = "module:function"` of its description, else the
built-in C-API codegen (`accel.compiler.backend.c_emitter.CApiCodegen`, which writes
`<target>_wrappers.c` from the lowered accel IR). One contract for both:

    def codegen(region: RegionCodegenInput) -> RegionCodegenResult

The hook defines `int <result.function>(T *a0, ..., T *aN)`, one typed pointer per
parameter of the final region function, in order (inputs, then outputs, as bufferize
made them: `region.params`), returning 0 on success; the host schedule calls it with the
region's host buffers (or scratchpad buffers kept on the device) and stops the model on a
non-zero status. The emitter declares that prototype in `model_internal.h` (which the
hook's sources may include, with `model_arena` and `model_weights`).

Merging the results of all regions (in order: targets by name, regions in module order):
a file named by several results is their texts concatenated, each distinct text once (a
helper file every region returns is written once; fragments of one file are joined);
`init` and `free` snippets go to `model_init` / `model_free`, each distinct snippet once;
flags, include dirs and includes are collected in order without duplicates and reach
model.c, the Makefile and `run_compiled`'s builds.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from xdsl.dialects import func
from xdsl.ir import BlockArgument, SSAValue

from accel.compiler.diagnostics import CompileError

RESERVED_FILES = frozenset({"model.c", "model.h", "model_internal.h", "runner.c", "weights.bin", "Makefile",
                            "host_kernels.c", "host_kernels.h", "host_kernels_real.inc",
                            "host_kernels_scan_bits.inc"})
"""Files the emitter and the artifact writer write themselves."""

_C_IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_FILE_NAME = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.-]*$")


@dataclass(frozen=True)
class RegionParam:
    """One parameter of the region's C function."""

    name: str
    """`a0`, `a1`, ...: the parameter names of the prototype."""
    ctype: str
    """The element's C type (`float`, `int8_t`, ...): the parameter is `ctype *name`."""
    shape: tuple[int, ...]
    output: bool
    """The region writes it (a result of the region before bufferize)."""
    value: BlockArgument
    """The argument of `RegionCodegenInput.function` it is."""


@dataclass(frozen=True)
class RegionCodegenInput:
    """What a hook gets for one region."""

    name: str
    """The region's symbol (`@npu_0`)."""
    target: Any
    """Its `TargetDescription`."""
    context: Any
    """The compile's `TargetContext` (every description of the compile), or None."""
    relay_function: func.FuncOp | None
    """The region at relay/composite level: a clone taken by outline-regions (kept for
    targets with a codegen hook; None for the built-in codegen or when the module was
    outlined by another process). Not part of the module: do not modify the module
    through it."""
    function: func.FuncOp
    """The final region function, bufferized (host-buffer signature, `params`), planned,
    and lowered to accel ops unless the target says `api.lowering = "none"` (then it
    holds `accel.kernel` ops around the relay ops or composites)."""
    params: tuple[RegionParam, ...]
    c_buffer: Callable[[SSAValue], str] = field(repr=False)
    """The C expression (a typed pointer) of a buffer of `function`: a parameter (`a0`),
    a planned host buffer (`memref.alloc`, in the model's arena) or a weight (a
    `relay.constant` or `accel.weight`, placed in weights.bin). Raises CompileError for
    anything else."""
    host_location: Callable[[SSAValue], tuple[str, int]] | None = field(default=None, repr=False)
    """Where a host buffer of `function` lies, for code that is not C (a command stream
    relocating addresses): ("param", i) for parameter `a<i>`, ("arena", byte offset) for a
    planned host buffer, ("weights", byte offset in weights.bin) for a weight. Raises
    CompileError for anything else."""

    @property
    def symbol(self) -> str:
        """The region's name as a C identifier: the default name of its function."""
        return c_symbol(self.name)

    def prototype(self, function: str | None = None) -> str:
        """`int <function>(float *a0, ...)`: the signature the host schedule calls."""
        params = ", ".join(f"{p.ctype} *{p.name}" for p in self.params) or "void"
        return f"int {function or self.symbol}({params})"


@dataclass(frozen=True)
class RegionCodegenResult:
    """What a hook returns for one region."""

    function: str
    """The C function the host schedule calls (`RegionCodegenInput.prototype`)."""
    sources: Mapping[str, str] = field(default_factory=dict)
    """C sources, file name -> text, written next to model.c and compiled into the model."""
    headers: Mapping[str, str] = field(default_factory=dict)
    """Headers, file name -> text, written next to model.c."""
    includes: tuple[str, ...] = ()
    """Headers model.c includes (what `init` and `free` call), e.g. ("vendor.h",)."""
    include_dirs: tuple[str, ...] = ()
    cflags: tuple[str, ...] = ()
    ldflags: tuple[str, ...] = ()
    """Link flags and libraries (`-lopenblas`), after the objects."""
    init: str = ""
    """C statements run by `model_init` after the weights are loaded; a failure is
    `return 1;`."""
    free: str = ""
    """C statements run by `model_free`."""
    data: Mapping[str, bytes] = field(default_factory=dict)
    """Binary files, file name -> bytes, written next to model.c (a region's command
    stream, for accel-disasm); not compiled."""
    report: Mapping[str, Any] = field(default_factory=dict)
    """JSON-able facts about the region's code (a stream's size), in report.json under
    `codegen.<region>`."""


CodegenHook = Callable[[RegionCodegenInput], RegionCodegenResult]


def c_symbol(name: str) -> str:
    return "".join(c if c.isalnum() or c == "_" else "_" for c in name)


def call_hook(hook: CodegenHook, hook_name: str, region: RegionCodegenInput) -> RegionCodegenResult:
    """Run `hook` on `region`: its result checked, its failure one line naming the target
    and the hook (a CompileError it raises is kept as it is: it may carry a location)."""
    target = region.target.name
    try:
        result = hook(region)
    except CompileError:
        raise
    except Exception as e:  # the vendor's code: one line, no traceback
        raise CompileError(f"target '{target}': codegen hook '{hook_name}' failed: {type(e).__name__}: {e}") from None
    problem = malformed(result)
    if problem is not None:
        raise CompileError(f"target '{target}': codegen hook '{hook_name}' returned a malformed result for "
                           f"@{region.name}: {problem}")
    return result


def malformed(result: Any) -> str | None:
    """What is wrong with a hook's result, or None."""
    if not isinstance(result, RegionCodegenResult):
        return f"expected a RegionCodegenResult, got {type(result).__name__}"
    if not isinstance(result.function, str) or not result.function:
        return "no function name ('function')"
    if not _C_IDENT.match(result.function):
        return f"function '{result.function}' is not a C identifier"
    for key, suffix in (("sources", ".c"), ("headers", ".h")):
        files = getattr(result, key)
        if not isinstance(files, Mapping):
            return f"'{key}' must map file names to text, got {type(files).__name__}"
        for name, text in files.items():
            if not isinstance(name, str) or not _FILE_NAME.match(name) or not name.endswith(suffix):
                return f"{key}: '{name}' is not a file name ending in '{suffix}'"
            if name in RESERVED_FILES:
                return f"{key}: '{name}' is written by accel-compile itself"
            if not isinstance(text, str):
                return f"{key}['{name}'] must be C text, got {type(text).__name__}"
    for key in ("includes", "include_dirs", "cflags", "ldflags"):
        value = getattr(result, key)
        if isinstance(value, str) or not isinstance(value, (tuple, list)) or not all(isinstance(x, str) for x in value):
            return f"'{key}' must be a list of strings, got {value!r}"
    if not isinstance(result.data, Mapping) or not all(
            isinstance(n, str) and _FILE_NAME.match(n) and n not in RESERVED_FILES and isinstance(b, bytes)
            for n, b in result.data.items()):
        return "'data' must map file names to bytes"
    if not isinstance(result.report, Mapping):
        return f"'report' must be a table, got {type(result.report).__name__}"
    for key in ("init", "free"):
        if not isinstance(getattr(result, key), str):
            return f"'{key}' must be C text, got {type(getattr(result, key)).__name__}"
    return None


@dataclass
class MergedCodegen:
    """The results of every region, merged (rules in the module docstring). Linear in the
    regions: a file's fragments are joined once, when `files` is read."""

    _parts: dict[str, list[str]] = field(default_factory=dict)
    """File name -> its distinct texts, in order."""
    _seen: dict[str, set[str]] = field(default_factory=dict)
    """File name -> the texts of `_parts` (what makes a text a repeat)."""
    includes: list[str] = field(default_factory=list)
    include_dirs: list[str] = field(default_factory=list)
    cflags: list[str] = field(default_factory=list)
    ldflags: list[str] = field(default_factory=list)
    init: list[str] = field(default_factory=list)
    free: list[str] = field(default_factory=list)
    functions: dict[str, str] = field(default_factory=dict)
    """Region symbol -> the C function the host calls."""
    _owners: dict[str, str] = field(default_factory=dict)
    """C function -> the region that defines it (the inverse of `functions`)."""
    data: dict[str, bytes] = field(default_factory=dict)
    reports: dict[str, dict[str, Any]] = field(default_factory=dict)
    """Region symbol -> its result's `report`."""

    @property
    def files(self) -> dict[str, str]:
        """File name -> text: the distinct texts of the results, concatenated."""
        return {name: "".join(parts) for name, parts in self._parts.items()}

    def add(self, region: RegionCodegenInput, result: RegionCodegenResult, hook_name: str) -> None:
        owner = self._owners.get(result.function)
        if owner is not None:
            raise CompileError(f"target '{region.target.name}': codegen hook '{hook_name}' names function "
                               f"'{result.function}' for @{region.name}, but @{owner} already uses it")
        self.functions[region.name] = result.function
        self._owners[result.function] = region.name
        for name, text in (*result.sources.items(), *result.headers.items()):
            seen = self._seen.setdefault(name, set())
            if text not in seen:
                seen.add(text)
                self._parts.setdefault(name, []).append(text)
        for mine, theirs in ((self.includes, result.includes), (self.include_dirs, result.include_dirs),
                             (self.cflags, result.cflags), (self.ldflags, result.ldflags)):
            mine.extend(x for x in theirs if x not in mine)
        for name, blob in result.data.items():
            if name in self.data or name in self._parts:
                raise CompileError(f"target '{region.target.name}': codegen hook '{hook_name}' writes '{name}' "
                                   f"for @{region.name}, but another region already did")
            self.data[name] = blob
        if result.report:
            self.reports[region.name] = dict(result.report)
        for mine, snippet in ((self.init, result.init), (self.free, result.free)):
            if snippet and snippet not in mine:
                mine.append(snippet)
