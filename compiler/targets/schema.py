"""The accelerator description: a frozen dataclass tree, and the strict TOML reader.

Every key is checked: an unknown key, a wrong type or a missing field fails with one line
naming the file, the key and what was expected:

    npu.toml: error: key 'ops[2].max_kernel': expected a list of 2 positive integers, got "7"

The annotated schema is in docs/targets.md; `TargetDescription` is what passes and the
lowering use.
"""

from __future__ import annotations

import importlib
import importlib.util
import json
import os
import re
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from accel.compiler.diagnostics import CompileError, did_you_mean
from accel.compiler.targets.patterns import Pattern, build_pattern, parse_pattern_source, shadowing_match

# --------------------------------------------------------------------------------------
# The description
# --------------------------------------------------------------------------------------

DTYPES = ("f16", "f32", "f64", "i1", "i8", "i16", "i32", "i64", "ui8", "ui16", "ui32", "ui64")
GROUP_KINDS = ("one", "depthwise", "grouped")
RESERVED_NAMES = ("host",)

Predicate = Callable[[Any, "TargetDescription"], "str | None"]


@dataclass(frozen=True)
class Api:
    prefix: str
    """Prefix of every C identifier of the vendor API (e.g. "npu_")."""
    header: str
    """The vendor header the generated wrappers include (e.g. "npu.h")."""
    codegen: str | None = None
    """Optional Python code generator "module:function" (TVM's relay.ext.<name>);
    None means the built-in C-API emitter."""


@dataclass(frozen=True)
class Memory:
    scratchpad_bytes: int
    alignment: int
    shared_with_host: bool


@dataclass(frozen=True)
class Dma:
    bytes_per_cycle: float
    setup_cycles: int
    """Fixed cost of one transfer."""


@dataclass(frozen=True)
class Throughput:
    """Work per cycle, in the accelerator's cycles (the host model uses the same unit)."""

    macs_per_cycle_f32: float
    macs_per_cycle_int8: float
    elementwise_per_cycle: float


@dataclass(frozen=True)
class Compute(Throughput):
    launch_cycles: int = 0
    """Fixed cost of one call of an outlined region (driver, synchronisation)."""


DEFAULT_HOST = Throughput(macs_per_cycle_f32=4, macs_per_cycle_int8=8, elementwise_per_cycle=4)
"""The host model used when a description has no [host] table: a small SIMD core,
measured in the accelerator's cycles."""


@dataclass(frozen=True)
class Limits:
    """Attribute limits of an op entry or a pattern (None = no limit). See
    `accel.compiler.targets.support` for exactly what each one checks."""

    dtypes: tuple[str, ...] | None = None
    max_kernel: tuple[int, int] | None = None
    strides: tuple[tuple[int, int], ...] | None = None
    dilations: tuple[tuple[int, int], ...] | None = None
    groups: tuple[str, ...] | None = None
    max_channels: int | None = None
    broadcast: bool | None = None
    max_rank: int | None = None

    def is_empty(self) -> bool:
        return all(getattr(self, f) is None for f in self.__dataclass_fields__)


@dataclass(frozen=True)
class OpSpec:
    """One `[[ops]]` entry: a single relay op the accelerator runs."""

    op: str
    c_function: str
    limits: Limits
    predicate: str | None = None
    predicate_fn: Predicate | None = field(default=None, compare=False, repr=False)
    key: str = ""
    """Where it was declared, e.g. "ops[3]"."""


@dataclass(frozen=True)
class PatternSpec:
    """One `[[patterns]]` entry: a composite `<target>.<name>`."""

    name: str
    composite: str
    """The composite name: "<target>.<name>"."""
    c_function: str
    pattern: Pattern = field(compare=False, repr=False)
    limits: Limits = Limits()
    predicate: str | None = None
    predicate_fn: Predicate | None = field(default=None, compare=False, repr=False)
    key: str = ""


@dataclass(frozen=True)
class TargetDescription:
    name: str
    description: str
    path: str
    api: Api
    dtypes: tuple[str, ...]
    memory: Memory
    dma: Dma
    compute: Compute
    host: Throughput
    ops: tuple[OpSpec, ...]
    patterns: tuple[PatternSpec, ...]
    """In priority order: the first listed wins."""

    def ops_named(self, op_name: str) -> tuple[OpSpec, ...]:
        return tuple(s for s in self.ops if s.op == op_name)

    def pattern(self, name: str) -> PatternSpec | None:
        """A pattern by its short name or its composite name."""
        for p in self.patterns:
            if p.name == name or p.composite == name:
                return p
        return None

    @property
    def symbol_base(self) -> str:
        """The target name as part of an identifier (`npu-shared` -> `npu_shared`)."""
        return symbol_base(self.name)


def symbol_base(target_name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_]", "_", target_name)


# --------------------------------------------------------------------------------------
# The strict reader
# --------------------------------------------------------------------------------------


class _Expected(Exception):
    """A value of the wrong kind; the message says what was expected."""


def _show(value: Any) -> str:
    if isinstance(value, dict):
        return "a table"
    try:
        return json.dumps(value)
    except TypeError:
        return str(value)


class _Table:
    """Reads the keys of one TOML table; `finish()` rejects the keys nobody read."""

    def __init__(self, path: str, data: Any, key: str):
        self.path = path
        self.key = key
        if not isinstance(data, dict):
            self.fail(key, f"expected a table, got {_show(data)}")
        self.data: dict[str, Any] = data
        self.read: list[str] = []

    def where(self, name: str) -> str:
        return f"{self.key}.{name}" if self.key else name

    def fail(self, key: str, message: str):
        raise CompileError(f"key '{key}': {message}", location=self.path)

    def get(self, name: str, kind: Callable[[Any], Any], expected: str, *, required: bool = True, default=None):
        self.read.append(name)
        if name not in self.data:
            if required:
                self.fail(self.where(name), f"missing (expected {expected})")
            return default
        value = self.data[name]
        try:
            return kind(value)
        except _Expected:
            self.fail(self.where(name), f"expected {expected}, got {_show(value)}")

    def table(self, name: str, *, required: bool = True) -> _Table | None:
        self.read.append(name)
        if name not in self.data:
            if required:
                self.fail(self.where(name), "missing (expected a table)")
            return None
        return _Table(self.path, self.data[name], self.where(name))

    def array_of_tables(self, name: str) -> list[_Table]:
        self.read.append(name)
        items = self.data.get(name, [])
        if not isinstance(items, list):
            self.fail(self.where(name), f"expected an array of tables ([[{name}]]), got {_show(items)}")
        return [_Table(self.path, item, f"{self.where(name)}[{i}]") for i, item in enumerate(items)]

    def finish(self) -> None:
        for name in self.data:
            if name not in self.read:
                known = ", ".join(self.read)
                self.fail(self.where(name), f"unknown key (expected one of: {known})")


# -- value kinds -----------------------------------------------------------------------


def _string(v):
    if not isinstance(v, str):
        raise _Expected
    return v


def _nonempty_string(v):
    if not isinstance(v, str) or not v.strip():
        raise _Expected
    return v


_IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_TARGET_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_-]*$")
_REF = re.compile(r"^[A-Za-z_][A-Za-z0-9_.]*:[A-Za-z_][A-Za-z0-9_]*$")


def _matching(regex: re.Pattern) -> Callable[[Any], str]:
    def kind(v):
        if not isinstance(v, str) or not regex.match(v):
            raise _Expected
        return v

    return kind


def _bool(v):
    if not isinstance(v, bool):
        raise _Expected
    return v


def _int(v) -> int:
    if isinstance(v, bool) or not isinstance(v, int):
        raise _Expected
    return v


def _positive_int(v):
    if _int(v) < 1:
        raise _Expected
    return v


def _non_negative_int(v):
    if _int(v) < 0:
        raise _Expected
    return v


def _power_of_two(v):
    if _positive_int(v) & (v - 1):
        raise _Expected
    return v


def _positive_number(v):
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not v > 0:
        raise _Expected
    return float(v)


def _pair(v) -> tuple[int, int]:
    if not isinstance(v, list) or len(v) != 2:
        raise _Expected
    return (_positive_int(v[0]), _positive_int(v[1]))


def _pairs(v) -> tuple[tuple[int, int], ...]:
    if not isinstance(v, list) or not v:
        raise _Expected
    return tuple(_pair(p) for p in v)


def _choices(choices: tuple[str, ...]) -> Callable[[Any], tuple[str, ...]]:
    def kind(v):
        if not isinstance(v, list) or not v or any(not isinstance(x, str) or x not in choices for x in v):
            raise _Expected
        if len(set(v)) != len(v):
            raise _Expected
        return tuple(v)

    return kind


_DTYPES_EXPECTED = f"a non-empty list of element types from {', '.join(DTYPES)}"
_LIMIT_KEYS = {
    "dtypes": (_choices(DTYPES), _DTYPES_EXPECTED),
    "max_kernel": (_pair, "a list of 2 positive integers"),
    "strides": (_pairs, "a non-empty list of [h, w] pairs of positive integers"),
    "dilations": (_pairs, "a non-empty list of [h, w] pairs of positive integers"),
    "groups": (_choices(GROUP_KINDS), f"a non-empty list from {', '.join(GROUP_KINDS)}"),
    "max_channels": (_positive_int, "a positive integer"),
    "broadcast": (_bool, "true or false"),
    "max_rank": (_positive_int, "a positive integer"),
}


def _limits(t: _Table) -> Limits:
    values = {}
    for name, (kind, expected) in _LIMIT_KEYS.items():
        values[name] = t.get(name, kind, expected, required=False)
    return Limits(**values)


# -- predicates ------------------------------------------------------------------------


def resolve_callable(ref: str, base_dir: str, where: str, path: str) -> Callable:
    """Import "module:function". A `module.py` next to the description wins over an
    installed module of the same name, so a vendor can ship both files together."""
    module_name, _, fn_name = ref.partition(":")
    local = os.path.join(base_dir, *module_name.split(".")) + ".py"
    try:
        if os.path.isfile(local):
            unique = f"_accel_target_{abs(hash(local))}_{module_name.replace('.', '_')}"
            module = sys.modules.get(unique)
            if module is None:
                spec = importlib.util.spec_from_file_location(unique, local)
                assert spec is not None and spec.loader is not None
                module = importlib.util.module_from_spec(spec)
                sys.modules[unique] = module
                spec.loader.exec_module(module)
        else:
            module = importlib.import_module(module_name)
    except Exception as e:  # the user's module failed to import: one line, no traceback
        raise CompileError(f"key '{where}': cannot import '{module_name}': {e}", location=path) from None
    fn = getattr(module, fn_name, None)
    if not callable(fn):
        raise CompileError(f"key '{where}': '{module_name}' has no function '{fn_name}'", location=path)
    return fn


# -- which limits apply to which ops ---------------------------------------------------

_KERNEL_OPS = {"relay.nn.conv2d", "relay.qnn.conv2d", "relay.nn.max_pool2d", "relay.nn.avg_pool2d"}
_GROUP_OPS = {"relay.nn.conv2d", "relay.qnn.conv2d"}
_CHANNEL_OPS = _KERNEL_OPS | {
    "relay.nn.global_avg_pool2d", "relay.nn.dense", "relay.qnn.dense", "relay.nn.matmul", "relay.nn.batch_matmul",
}  # fmt: skip
_BINARY_OPS = {"relay.add", "relay.subtract", "relay.multiply", "relay.divide", "relay.qnn.add"}
LIMIT_APPLIES_TO: dict[str, set[str] | None] = {
    "dtypes": None,  # every op
    "max_kernel": _KERNEL_OPS,
    "strides": _KERNEL_OPS,
    "dilations": _KERNEL_OPS,
    "groups": _GROUP_OPS,
    "max_channels": _CHANNEL_OPS,
    "broadcast": _BINARY_OPS,
    "max_rank": None,  # every op
}


def _check_applicable(limits: Limits, op_names: set[str], t: _Table, what: str) -> None:
    for name, ops in LIMIT_APPLIES_TO.items():
        if getattr(limits, name) is None or ops is None:
            continue
        if not ops & op_names:
            t.fail(t.where(name), f"does not apply to {what} (it applies to {', '.join(sorted(ops))})")


# -- the description -------------------------------------------------------------------


def _graph_op_names() -> set[str]:
    from accel.dialects.relay import GRAPH_OPS, ConstantOp

    return {cls.name for cls in GRAPH_OPS if cls is not ConstantOp}


def parse_description(data: dict, path: str) -> TargetDescription:
    """Build a `TargetDescription` from parsed TOML; `path` is used for messages and to
    find pattern files and predicate modules next to the description."""
    base_dir = os.path.dirname(os.path.abspath(path))
    top = _Table(path, data, "")
    name = top.get("name", _matching(_TARGET_NAME), "a name of letters, digits, '_' and '-'")
    if name in RESERVED_NAMES:
        top.fail("name", f"'{name}' is reserved")
    description = top.get("description", _string, "a string")
    dtypes = top.get("dtypes", _choices(DTYPES), _DTYPES_EXPECTED)

    api_t = top.table("api")
    prefix = api_t.get("prefix", _matching(_IDENT), "a C identifier prefix like \"npu_\"")
    header = api_t.get("header", _matching(re.compile(r"^[A-Za-z0-9_./-]+\.h$")), "a header file name like \"npu.h\"")
    codegen = api_t.get("codegen", _matching(_REF), "\"module:function\"", required=False)
    api_t.finish()
    api = Api(prefix, header, codegen)

    mem_t = top.table("memory")
    memory = Memory(
        scratchpad_bytes=mem_t.get("scratchpad_bytes", _positive_int, "a positive integer"),
        alignment=mem_t.get("alignment", _power_of_two, "a power of two"),
        shared_with_host=mem_t.get("shared_with_host", _bool, "true or false"),
    )
    mem_t.finish()

    dma_t = top.table("dma")
    dma = Dma(
        bytes_per_cycle=dma_t.get("bytes_per_cycle", _positive_number, "a positive number"),
        setup_cycles=dma_t.get("setup_cycles", _non_negative_int, "a non-negative integer"),
    )
    dma_t.finish()

    def throughput(t: _Table) -> dict[str, float]:
        return {
            k: t.get(k, _positive_number, "a positive number")
            for k in ("macs_per_cycle_f32", "macs_per_cycle_int8", "elementwise_per_cycle")
        }

    comp_t = top.table("compute")
    compute = Compute(
        **throughput(comp_t),
        launch_cycles=comp_t.get("launch_cycles", _non_negative_int, "a non-negative integer", required=False, default=0),
    )
    comp_t.finish()

    host_t = top.table("host", required=False)
    host = DEFAULT_HOST
    if host_t is not None:
        host = Throughput(**throughput(host_t))
        host_t.finish()

    c_ident = _matching(_IDENT)
    graph_ops = _graph_op_names()

    def c_function(t: _Table) -> str:
        fn = t.get("c_function", c_ident, "a C identifier")
        if not fn.startswith(prefix):
            t.fail(t.where("c_function"), f"'{fn}' must start with the API prefix '{prefix}'")
        return fn

    def predicate(t: _Table) -> tuple[str | None, Predicate | None]:
        ref = t.get("predicate", _matching(_REF), "\"module:function\"", required=False)
        if ref is None:
            return None, None
        return ref, resolve_callable(ref, base_dir, t.where("predicate"), path)

    ops: list[OpSpec] = []
    for t in top.array_of_tables("ops"):
        op_name = t.get("op", _string, "a relay op name like \"relay.nn.conv2d\"")
        if op_name not in graph_ops:
            hint = did_you_mean(f"relay.{op_name}" if f"relay.{op_name}" in graph_ops else op_name, graph_ops)
            t.fail(t.where("op"), f"'{op_name}' is not a relay graph op{hint}")
        fn = c_function(t)
        limits = _limits(t)
        ref, pred = predicate(t)
        t.finish()
        _check_applicable(limits, {op_name}, t, op_name)
        ops.append(OpSpec(op_name, fn, limits, ref, pred, t.key))

    patterns: list[PatternSpec] = []
    sources: dict[str, tuple[dict, dict]] = {}
    for t in top.array_of_tables("patterns"):
        pname = t.get("name", c_ident, "an identifier like \"conv2d_bias_relu\"")
        if any(p.name == pname for p in patterns):
            t.fail(t.where("name"), f"pattern '{pname}' is declared twice")
        inline = t.get("ir", _nonempty_string, "relay IR text with one func.func", required=False)
        file = t.get("file", _nonempty_string, "a path to a .mlir file", required=False)
        fn_name = t.get("function", c_ident, "a function name", required=False)
        fn = c_function(t)
        limits = _limits(t)
        ref, pred = predicate(t)
        t.finish()
        if (inline is None) == (file is None):
            t.fail(t.key, "needs exactly one of 'ir' (inline IR) and 'file' (a .mlir file next to the description)")
        if inline is not None:
            functions, written = parse_pattern_source(inline, f"{path}: key '{t.where('ir')}'")
            if fn_name is None:
                if len(functions) != 1:
                    t.fail(t.where("ir"), f"expected one func.func, got {len(functions)}")
                fn_name = next(iter(functions))
            source = f"{path}: key '{t.where('ir')}'"
        else:
            file_path = file if os.path.isabs(file) else os.path.join(base_dir, file)
            if file_path not in sources:
                try:
                    with open(file_path, encoding="utf-8") as f:
                        text = f.read()
                except OSError as e:
                    t.fail(t.where("file"), f"cannot read '{file}': {e.strerror}")
                shown = file if os.path.isabs(file) else os.path.join(os.path.dirname(path), file)
                sources[file_path] = parse_pattern_source(text, shown)
            functions, written = sources[file_path]
            fn_name = fn_name or pname
            source = file
        if fn_name not in functions:
            t.fail(t.where("function" if t.data.get("function") else "name"), f"no func.func @{fn_name} in {source}")
        pattern = build_pattern(pname, functions[fn_name], written, source)
        _check_applicable(limits, set(pattern.names), t, f"pattern '{pname}'")
        patterns.append(PatternSpec(pname, f"{name}.{pname}", fn, pattern, limits, ref, pred, t.key))

    top.finish()
    if not ops and not patterns:
        top.fail("ops", "a description needs at least one [[ops]] or [[patterns]] entry")
    _check_shadowing(patterns, path)
    return TargetDescription(
        name, description, path, api, dtypes, memory, dma, compute, host, tuple(ops), tuple(patterns)
    )


def _check_shadowing(patterns: list[PatternSpec], path: str) -> None:
    """First listed wins, so a pattern listed after one that always takes part of it can
    never match: say so instead of silently never fusing (list longer patterns first)."""
    for i, later in enumerate(patterns):
        for earlier in patterns[:i]:
            if earlier.predicate is not None or not earlier.limits.is_empty():
                continue  # it may decline, so the later one stays reachable
            if shadowing_match(earlier.pattern, later.pattern):
                raise CompileError(
                    f"key '{later.key}': pattern '{later.name}' can never match: '{earlier.name}' "
                    f"({earlier.key}) is tried first and matches part of it; list longer patterns first",
                    location=path,
                )
