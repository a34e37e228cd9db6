"""The accelerator description: a frozen dataclass tree, and the strict TOML reader.

Every key is checked: an unknown key, a wrong type or a missing field fails with one line
naming the file, the key and what was expected:

    npu.toml: error: key 'ops[2].max_kernel': expected a list of 2 positive integers, got "7"

The annotated schema is in docs/targets.md; `TargetDescription` is what passes and the
lowering use.
"""

from __future__ import annotations

import dataclasses
import functools
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
from accel.dialects.conventions import symbol_base
from accel.compiler.c_runtime_dir import SIM_DIR
from accel.compiler.targets.c_api import (
    ARRAY, BUFFER, COMMANDS, COMPUTE_KINDS, CONFIG_WORDS, RELAY_TO_COMPUTE, RUNTIME_FUNCTIONS, Arg, Call, Runtime, Struct, Value,
    compute_word,
)
from accel.compiler.targets import isa as isa_vocab
from accel.compiler.targets.isa import BitField, Command, InstructionSet
from accel.compiler.targets.patterns import Pattern, build_pattern, parse_pattern_source, shadowing_match
from accel.compiler.targets.tuning_space import TuningSpace, parse_tuning

# --------------------------------------------------------------------------------------
# The description
# --------------------------------------------------------------------------------------

DTYPES = ("f16", "f32", "f64", "i1", "i8", "i16", "i32", "i64", "ui8", "ui16", "ui32", "ui64")
GROUP_KINDS = ("one", "depthwise", "grouped")
LOWERINGS = ("accel", "none")
RESERVED_NAMES = ("host",)
COPIED_OPS = {"relay.concatenate": "a concatenation", "relay.transpose": "a transpose", "relay.reshape": "a reshape",
              "relay.strided_slice": "a strided slice"}
"""Ops an accelerator runs as copies on the device (`api.runtime.dma_on_device`): their
entry names that function (lower-to-accel, `fused_forms.layout_view`)."""

Predicate = Callable[[Any, "TargetDescription"], "str | None"]


@dataclass(frozen=True)
class Api:
    prefix: str
    """Prefix of every C identifier of the vendor API (e.g. "npu_")."""
    header: str
    """The vendor header the generated wrappers include (e.g. "npu.h")."""
    runtime: Runtime | None = None
    """The runtime functions ([api.runtime]); required by the built-in codegen."""
    structs: tuple[Struct, ...] = ()
    """The params structs of the vendor header ([api.structs.<name>])."""
    codegen: str | None = None
    """Optional Python code generator "module:function" (TVM's relay.ext.<name>);
    None means the built-in C-API emitter."""
    codegen_fn: Callable | None = field(default=None, compare=False, repr=False)
    """The imported `codegen` function."""
    lowering: str = "accel"
    """"accel": the regions are lowered to accel ops (lower-to-accel, tiling, DMA);
    "none": the codegen hook gets them bufferized only (on host memory)."""


@dataclass(frozen=True)
class Library:
    """The target's C library ([library]); absolute paths (given relative to the TOML)."""

    headers: tuple[str, ...] = ()
    sources: tuple[str, ...] = ()
    libraries: tuple[str, ...] = ()
    """Prebuilt libraries (.a, .so, .o) linked into the model."""
    include_dirs: tuple[str, ...] = ()
    cflags: tuple[str, ...] = ()
    ldflags: tuple[str, ...] = ()


@dataclass(frozen=True)
class Memory:
    scratchpad_bytes: int
    alignment: int
    shared_with_host: bool

    @property
    def ready_block(self) -> int:
        """The granularity at which the simulator (sim_core.c) tracks when scratchpad bytes
        are written and read: two buffers in one block wait for each other."""
        return max(1, min(self.alignment, READY_BLOCK_MAX))


READY_BLOCK_MAX = 64
"""The largest `Memory.ready_block` (sim_core.c's `block`)."""


@dataclass(frozen=True)
class Dma:
    bytes_per_cycle: float
    setup_cycles: int
    """Fixed cost of one transfer."""
    device_bytes_per_cycle: float | None = None
    """Copies from scratchpad to scratchpad (`api.runtime.dma_on_device`, or an [isa]
    command running `dma_on_device`), on the DMA engine after `setup_cycles`; None: the
    target has no such copy, so tiles are never assembled on the device."""


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
    call: Call | None = None
    """The call of `c_function` with its declared arguments (None: a codegen hook's entry
    without `args`)."""


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
    call: Call | None = None


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
    library: Library = Library()
    isa: InstructionSet | None = None
    """The instruction set of a command-stream target ([isa]), or None."""
    tuning: TuningSpace | None = None
    """The `[tuning]` tables: knobs accel-tune may search (compiler/targets/tuning_space.py)."""

    def entry(self, key: str) -> OpSpec | PatternSpec | None:
        """An `[[ops]]` or `[[patterns]]` entry by its key ("ops[3]", "patterns[0]")."""
        return self._entries.get(key)

    @functools.cached_property
    def _entries(self) -> dict[str, OpSpec | PatternSpec]:
        """Key -> entry (the emitter asks per compute op); the first of a key wins."""
        out: dict[str, OpSpec | PatternSpec] = {}
        for e in (*self.ops, *self.patterns):
            out.setdefault(e.key, e)
        return out

    def struct(self, name: str) -> Struct:
        return next(s for s in self.api.structs if s.name == name)

    def ops_named(self, op_name: str) -> tuple[OpSpec, ...]:
        return tuple(s for s in self.ops if s.op == op_name)

    def pattern(self, name: str) -> PatternSpec | None:
        """A pattern by its short name or its composite name."""
        for p in self.patterns:
            if p.name == name or p.composite == name:
                return p
        return None

    @property
    def lowers_to_accel(self) -> bool:
        """Whether lower-to-accel, tile-for-scratchpad, insert-dma and optimize-dma
        handle this target's regions (`api.lowering`)."""
        return self.api.lowering == "accel"

    @property
    def copies_on_device(self) -> bool:
        """Whether the target copies within its scratchpad (`dma.device_bytes_per_cycle`
        and the means to: `api.runtime.dma_on_device`, or with an instruction set a
        command running `dma_on_device`), so tiles can be assembled there."""
        if self.dma.device_bytes_per_cycle is None:
            return False
        if self.isa is not None:
            return self.isa.command("dma_on_device") is not None
        return self.api.runtime is not None and self.api.runtime.dma_on_device is not None

    @property
    def symbol_base(self) -> str:
        """The target name as part of an identifier (`npu-shared` -> `npu_shared`)."""
        return symbol_base(self.name)


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


def _one_of(choices: tuple[str, ...]) -> Callable[[Any], str]:
    def kind(v):
        if v not in choices:
            raise _Expected
        return v

    return kind


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



# -- the C API (vocabulary: accel.compiler.targets.c_api) ------------------------------


def _value(t: _Table, name: str, raw: Any, lookup: Callable[[str], Any], kinds: tuple[str, ...]) -> Value:
    """A struct field or argument: a word, a literal number, or {value = word, enum = {...}}."""
    where = t.where(name)
    if isinstance(raw, bool) or isinstance(raw, (int, float)):
        return Value(literal=raw)
    enum = None
    if isinstance(raw, dict):
        unknown = set(raw) - {"value", "enum"}
        if unknown or "value" not in raw or "enum" not in raw:
            t.fail(where, f"expected {{value = \"<word>\", enum = {{...}}}}, got {_show(raw)}")
        raw, enum_raw = raw["value"], raw["enum"]
        if not isinstance(enum_raw, dict) or not enum_raw or not all(
                isinstance(v, str) and _IDENT.match(v) for v in enum_raw.values()):
            t.fail(f"{where}.enum", "expected a table of value = \"VENDOR_IDENTIFIER\"")
        enum = tuple(enum_raw.items())
    if not isinstance(raw, str):
        t.fail(where, f"expected a vocabulary word (docs/targets.md), a number or {{value, enum}}, got {_show(raw)}")
    word = lookup(raw)
    if word is None:
        t.fail(where, f"unknown word '{raw}' (the vocabulary is in docs/targets.md)")
    kind = getattr(word, "kind", "scalar")
    if kind not in kinds:
        t.fail(where, f"'{raw}' is a {kind}, expected a {' or '.join(kinds)} here")
    domain = getattr(word, "domain", None)
    if domain is not None and enum is None:
        t.fail(where, f"'{raw}' takes names ({', '.join(domain)}): map them with {{value = \"{raw}\", enum = {{...}}}}")
    if enum is not None:
        if domain is None:
            t.fail(f"{where}.enum", f"'{raw}' is a number; an enum maps names")
        bad = [k for k, _ in enum if k not in domain]
        if bad:
            t.fail(f"{where}.enum", f"'{bad[0]}' is not a value of '{raw}' (values: {', '.join(domain)})")
    return Value(word=raw, enum=enum)


def _struct(t: _Table, name: str, lookup: Callable[[str], Any], kinds: tuple[str, ...]) -> Struct:
    ctype = t.get("type", _matching(_IDENT), "the C struct type of the vendor header")
    fields_t = t.table("fields")
    assert fields_t is not None
    fields = []
    for fname, raw in fields_t.data.items():
        if not _IDENT.match(fname):
            fields_t.fail(fields_t.where(fname), "expected a C field name")
        fields.append((fname, _value(fields_t, fname, raw, lookup, kinds)))
        fields_t.read.append(fname)
    if not fields:
        fields_t.fail(fields_t.key, "a struct needs at least one field")
    return Struct(name, ctype, tuple(fields))


def _structs(api_t: _Table) -> tuple[Struct, ...]:
    structs_t = api_t.table("structs", required=False)
    if structs_t is None:
        return ()
    out = []
    for name in structs_t.data:
        st = structs_t.table(name)
        assert st is not None
        base = st.get("base", _matching(_IDENT), "the name of another struct in api.structs", required=False)
        own = _struct(st, name, compute_word, (SCALAR_KINDS))
        st.finish()
        if base is not None:
            parent = next((s for s in out if s.name == base), None)
            if parent is None:
                st.fail(st.where("base"), f"no struct '{base}' declared before it in api.structs")
            merged = dict(parent.fields)
            merged.update(own.fields)
            if parent.type != own.type:
                st.fail(st.where("type"), f"'{own.type}' differs from its base's type '{parent.type}'")
            own = Struct(name, own.type, tuple(merged.items()))
        out.append(own)
    return tuple(out)


SCALAR_KINDS = ("scalar", ARRAY)


def _call_args(t: _Table, function: str, lookup: Callable[[str], Any], structs: dict[str, Struct] | None,
               allowed: tuple[str, ...] | None) -> Call:
    raw = t.data.get("args")
    t.read.append("args")
    if raw is None:
        t.fail(t.where("args"), "missing (expected the argument list of the call: vocabulary words, numbers, '&<struct>')")
    if not isinstance(raw, list):
        t.fail(t.where("args"), f"expected a list of arguments (vocabulary words, numbers, '&<struct>'), got {_show(raw)}")
    args = []
    for i, a in enumerate(raw):
        key = f"args[{i}]"
        if isinstance(a, str) and a.startswith("&"):
            sname = a[1:]
            if structs is None or sname not in structs:
                known = ", ".join(sorted(structs or {})) or "none"
                t.fail(t.where(key), f"no struct '{sname}' in api.structs (declared: {known})")
            args.append(Arg(struct=sname))
            continue
        if allowed is not None and isinstance(a, str) and a not in allowed:
            t.fail(t.where(key), f"unknown word '{a}' (this function's arguments: {', '.join(allowed) or 'none'})")
        args.append(Arg(value=_value(t, key, a, lookup, (BUFFER, *SCALAR_KINDS))))
    return Call(function, tuple(args))


def _check_call_applies(call: Call, kind: str | None, structs: dict[str, Struct], t: _Table, what: str) -> None:
    """Every word of an entry's call applies to the compute op the entry lowers to."""
    if kind is None:
        t.fail(t.where("args"), f"{what} does not lower to an accel compute op ({', '.join(COMPUTE_KINDS)}), "
                                "so it has no built-in C call (use a codegen hook)")
    values = [(t.where(f"args[{i}]"), a.value) for i, a in enumerate(call.args) if a.value is not None]
    for i, a in enumerate(call.args):
        if a.struct is not None:
            values += [(f"api.structs.{a.struct}.fields.{f}", v) for f, v in structs[a.struct].fields]
    for where, v in values:
        if v.word is None:
            continue
        word = compute_word(v.word)
        assert word is not None
        if kind not in word.applies_to:
            t.fail(where, f"'{v.word}' does not apply to {what} (accel.{kind}; it applies to "
                          f"{', '.join('accel.' + k for k in sorted(word.applies_to))})")


def compute_kind_of(op_names: set[str] | frozenset[str]) -> str | None:
    """The accel compute op an entry lowers to: its anchor's (conv2d before matmul before
    pool before elementwise, as the lowering recognises a fused form)."""
    kinds = {RELAY_TO_COMPUTE[n] for n in op_names if n in RELAY_TO_COMPUTE}
    return next((k for k in COMPUTE_KINDS if k in kinds), None)


def _runtime(api_t: _Table) -> Runtime | None:
    rt = api_t.table("runtime", required=False)
    if rt is None:
        return None
    token_type = rt.get("token_type", _matching(_IDENT), "the C type of a DMA token")
    config_t = rt.table("config")
    assert config_t is not None
    config = _struct(config_t, "config", lambda w: "scalar" if w in CONFIG_WORDS else None, ("scalar",))
    config_t.finish()
    calls: dict[str, Call | None] = {}
    for name, (words, required) in RUNTIME_FUNCTIONS.items():
        raw = rt.data.get(name)
        rt.read.append(name)
        if raw is None:
            if required:
                rt.fail(rt.where(name), f"missing (expected {{function = \"...\", args = [{', '.join(words)}]}})")
            calls[name] = None
            continue
        ft = _Table(rt.path, raw, rt.where(name))
        fn = ft.get("function", _matching(_IDENT), "a C function name")
        calls[name] = _call_args(ft, fn, lambda w: "scalar" if w in words else None, {"config": config}, words)
        ft.finish()
    rt.finish()
    return Runtime(config=config, token_type=token_type, **calls)  # type: ignore[arg-type]


_LIBRARY_KEYS = ("headers", "sources", "libraries", "include_dirs")
SIM_DIR_TOKEN = "{accel_sim}"
"""A library path starting with `{accel_sim}/` names a file of accel's simulator
(`sim_core.{c,h}`: device memory, DMA, counters, the two-engine timeline), which the
built-in targets use and a vendor's simulated accelerator may reuse."""


def _library(top: _Table, base_dir: str) -> Library:
    lt = top.table("library", required=False)
    if lt is None:
        return Library()

    def strings(v):
        if not isinstance(v, list) or any(not isinstance(x, str) or not x for x in v):
            raise _Expected
        return tuple(v)

    values: dict[str, tuple[str, ...]] = {}
    for key in (*_LIBRARY_KEYS, "cflags", "ldflags"):
        values[key] = lt.get(key, strings, "a list of strings", required=False, default=())
    for key in _LIBRARY_KEYS:
        paths = []
        for i, rel in enumerate(values[key]):
            if rel.startswith(SIM_DIR_TOKEN + "/"):  # accel's simulator core, for simulated targets
                path = os.path.normpath(os.path.join(SIM_DIR, rel[len(SIM_DIR_TOKEN) + 1 :]))
            else:
                path = os.path.normpath(rel if os.path.isabs(rel) else os.path.join(base_dir, rel))
            exists = os.path.isdir(path) if key == "include_dirs" else os.path.isfile(path)
            if not exists:
                lt.fail(lt.where(f"{key}[{i}]"), f"no such {'directory' if key == 'include_dirs' else 'file'}: '{rel}'")
            paths.append(path)
        values[key] = tuple(paths)
    lt.finish()
    return Library(**values)


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
    codegen_fn = resolve_callable(codegen, base_dir, "api.codegen", path) if codegen else None
    lowering = api_t.get("lowering", _one_of(LOWERINGS), " or ".join(f'"{x}"' for x in LOWERINGS),
                         required=False, default="accel")
    if lowering == "none" and codegen is None:
        api_t.fail(api_t.where("lowering"), '"none" needs a codegen hook (api.codegen): the built-in C codegen '
                                            "emits lowered accel IR only")
    structs = _structs(api_t)
    runtime = _runtime(api_t)
    api_t.finish()
    api = Api(prefix, header, runtime, structs, codegen, codegen_fn, lowering)
    struct_names = {st.name: st for st in structs}
    library = _library(top, base_dir)

    mem_t = top.table("memory")
    memory = Memory(
        scratchpad_bytes=mem_t.get("scratchpad_bytes", _positive_int, "a positive integer"),
        alignment=mem_t.get("alignment", _power_of_two, "a power of two"),
        shared_with_host=mem_t.get("shared_with_host", _bool, "true or false"),
    )
    mem_t.finish()
    if lowering == "none" and not memory.shared_with_host:
        api_t.fail(api_t.where("lowering"), '"none" leaves the regions on host memory: the target needs '
                                            "memory.shared_with_host = true")

    dma_t = top.table("dma")
    dma = Dma(
        bytes_per_cycle=dma_t.get("bytes_per_cycle", _positive_number, "a positive number"),
        setup_cycles=dma_t.get("setup_cycles", _non_negative_int, "a non-negative integer"),
        device_bytes_per_cycle=dma_t.get("device_bytes_per_cycle", _positive_number, "a positive number",
                                         required=False),
    )
    has_copy_call = runtime is not None and runtime.dma_on_device is not None
    if has_copy_call and dma.device_bytes_per_cycle is None:
        dma_t.fail(dma_t.where("device_bytes_per_cycle"), "missing: api.runtime.dma_on_device needs its cost "
                                                          "(bytes per cycle of a scratchpad-to-scratchpad copy)")
    if dma.device_bytes_per_cycle is not None and not has_copy_call and codegen is None:
        dma_t.fail(dma_t.where("device_bytes_per_cycle"), "set, but the API has no copy on the device "
                                                          "(api.runtime.dma_on_device)")
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

    def call(t: _Table, fn: str, kind: str | None, what: str) -> Call | None:
        if "args" not in t.data:
            t.read.append("args")
            return None  # partitioning only, or a codegen hook's entry: the emitter asks for it
        c = _call_args(t, fn, compute_word, struct_names, None)
        _check_call_applies(c, kind, struct_names, t, what)
        return c

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
        c = call(t, fn, compute_kind_of({op_name}), op_name)
        t.finish()
        _check_applicable(limits, {op_name}, t, op_name)
        if op_name in COPIED_OPS and lowering == "accel":
            copy = runtime.dma_on_device if runtime is not None else None
            if copy is None or dma.device_bytes_per_cycle is None or copy.function != fn:
                t.fail(t.where("c_function"), f"{COPIED_OPS[op_name]} runs as copies on the device: expected the "
                                              "function of api.runtime.dma_on_device, with dma.device_bytes_per_cycle")
        ops.append(OpSpec(op_name, fn, limits, ref, pred, t.key, c))

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
        t.read.append("args")  # read below, once the pattern's ops are known
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
        c = call(t, fn, compute_kind_of(pattern.names), f"pattern '{pname}'")
        patterns.append(PatternSpec(pname, f"{name}.{pname}", fn, pattern, limits, ref, pred, t.key, c))

    isa_t = top.table("isa", required=False)
    top.read.append("tuning")
    tuning = parse_tuning(data.get("tuning"), path)
    top.finish()
    if not ops and not patterns:
        top.fail("ops", "a description needs at least one [[ops]] or [[patterns]] entry")
    _check_shadowing(patterns, path)
    desc = TargetDescription(
        name, description, path, api, dtypes, memory, dma, compute, host, tuple(ops), tuple(patterns), library,
        tuning=tuning,
    )
    if isa_t is None:
        return desc
    instruction_set = _isa(isa_t, desc)
    _check_mapped(instruction_set, desc, isa_t)
    return dataclasses.replace(desc, isa=instruction_set)


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


# -- the instruction set of a command-stream target (vocabulary: accel.compiler.targets.isa)


def _u32(v):
    if _int(v) < 0 or v >= 1 << 32:
        raise _Expected
    return v


def _bitfield(v) -> BitField:
    if not isinstance(v, list) or len(v) != 3:
        raise _Expected
    word, bit, width = (_non_negative_int(x) for x in v)
    if not 1 <= width <= 64 or (width == 64 and bit != 0) or (width < 64 and (width > 32 or bit + width > 32)):
        raise _Expected
    return BitField(word, bit, width)


_BITFIELD = "[word, bit, width] (width 1..32 within one word, or 64 at bit 0: two words)"


def _isa(t: _Table, desc: TargetDescription) -> InstructionSet:
    magic = t.get("magic", _u32, "a 32-bit unsigned integer")
    version = t.get("version", _u32, "a 32-bit unsigned integer")
    alignment = t.get("alignment", _power_of_two, "a power of two (bytes)")
    if alignment < 4:
        t.fail(t.where("alignment"), f"{alignment} is less than a word (4 bytes)")
    header = t.get("header", lambda v: tuple(_string(x) for x in v) if isinstance(v, list) else _string(None),
                   "a list of header words")
    for i, word in enumerate(header):
        if word.startswith("config."):
            fn = CONFIG_WORDS.get(word.removeprefix("config."))
            if fn is None or word.removeprefix("config.") not in isa_vocab.HEADER_CONFIG:
                t.fail(t.where(f"header[{i}]"), f"unknown config word '{word}' (config.<word> of: "
                                                f"{', '.join(isa_vocab.HEADER_CONFIG)})")
            value = isa_vocab.integral(fn(desc))
            if value is None or not 0 <= value < 1 << 32:
                t.fail(t.where(f"header[{i}]"), f"'{word}' = {fn(desc)} cannot fit a 32-bit unsigned word")
        elif word not in isa_vocab.HEADER_WORDS:
            t.fail(t.where(f"header[{i}]"), f"unknown header word '{word}' (expected "
                                            f"{', '.join(isa_vocab.HEADER_WORDS)} or config.<word>)")
    for word in isa_vocab.HEADER_WORDS:
        if word not in header:
            t.fail(t.where("header"), f"missing '{word}' (the header needs {', '.join(isa_vocab.HEADER_WORDS)})")
    if len(set(header)) != len(header):
        t.fail(t.where("header"), "a header word is listed twice")
    opcode = t.get("opcode", _bitfield, _BITFIELD)
    length = t.get("length", _bitfield, _BITFIELD)
    for key, f in (("opcode", opcode), ("length", length)):
        if f.word != 0 or f.width > 32:
            t.fail(t.where(key), "must lie in a command's first word")
    if _overlap(opcode, length):
        t.fail(t.where("length"), "overlaps 'opcode'")

    enums_t = t.table("enums")
    assert enums_t is not None
    enums: dict[str, dict[str, int]] = {}
    for name, values in isa_vocab.ENUMS.items():
        codes_t = enums_t.table(name, required=False)
        if codes_t is None:
            continue
        codes = {}
        for value in codes_t.data:
            if value not in values:
                codes_t.fail(codes_t.where(value), f"unknown value '{value}' of enum '{name}' "
                                                   f"(values: {', '.join(values)})")
            codes[value] = codes_t.get(value, _u32, "an unsigned code")
        codes_t.finish()
        if len(set(codes.values())) != len(codes):
            codes_t.fail(codes_t.key, "two values share a code")
        enums[name] = codes
    for name in enums_t.data:
        if name not in isa_vocab.ENUMS:
            enums_t.fail(enums_t.where(name), f"unknown enum '{name}' (enums: {', '.join(isa_vocab.ENUMS)})")

    commands_t = t.table("commands")
    assert commands_t is not None
    commands: list[Command] = []
    for cname in commands_t.data:
        ct = commands_t.table(cname)
        assert ct is not None
        if not _IDENT.match(cname):
            ct.fail(ct.key, "a command name is an identifier")
        op = ct.get("op", _one_of(tuple(isa_vocab.OPS)), f"one of {', '.join(isa_vocab.OPS)}")
        code = ct.get("opcode", _non_negative_int, "a non-negative integer")
        if not isa_vocab.fits(isa_vocab.UINT, code, opcode.width):
            ct.fail(ct.where("opcode"), f"{code} cannot fit the {opcode.width}-bit opcode field (isa.opcode)")
        other = next((c for c in commands if c.opcode == code), None)
        if other is not None:
            ct.fail(ct.where("opcode"), f"{code} is also the opcode of '{other.name}'")
        words = ct.get("words", _positive_int, "the command's length in 32-bit words")
        if not isa_vocab.fits(isa_vocab.UINT, words, length.width):
            ct.fail(ct.where("words"), f"{words} cannot fit the {length.width}-bit length field (isa.length)")
        fields_t = ct.table("fields", required=False) or _Table(t.path, {}, ct.where("fields"))
        fields: dict[str, BitField] = {}
        taken: list[tuple[str, BitField]] = [("opcode", opcode), ("length", length)]
        for fname in fields_t.data:
            where = fields_t.where(fname)
            if fname not in isa_vocab.fields_of(op):
                fields_t.fail(where, f"'{op}' has no field '{fname}' (its fields: "
                                     f"{', '.join(isa_vocab.fields_of(op)) or 'none'})")
            f = fields_t.get(fname, _bitfield, _BITFIELD)
            kind, enum = isa_vocab.FIELDS[fname]
            if f.word + (2 if f.width == 64 else 1) > words:
                fields_t.fail(where, f"lies past the command's {words} words")
            if (kind == isa_vocab.HOST) != (f.width == 64):
                fields_t.fail(where, "a host address is 64 bits at bit 0; no other field is" if kind == isa_vocab.HOST
                              else "only host addresses are 64 bits wide")
            if kind == isa_vocab.F32 and f.width != 32:
                fields_t.fail(where, "a float field is 32 bits wide")
            if kind == isa_vocab.ENUM:
                if enum not in enums:
                    fields_t.fail(where, f"enum '{enum}' has no codes (isa.enums.{enum})")
                big = max(enums[enum].values())
                if not isa_vocab.fits(isa_vocab.UINT, big, f.width):
                    fields_t.fail(where, f"code {big} of enum '{enum}' cannot fit {f.width} bits")
            for other_name, g in taken:
                if _overlap(f, g):
                    fields_t.fail(where, f"overlaps '{other_name}' (word {g.word}, bits {g.bit}..{g.bit + g.width - 1})"
                                  if g.width < 64 else f"overlaps '{other_name}' (words {g.word}..{g.word + 1})")
            taken.append((fname, f))
            fields[fname] = f
        fields_t.finish()
        missing = [f for f in isa_vocab.OPS[op] if f not in fields]
        if missing:
            fields_t.fail(fields_t.key, f"'{op}' needs field '{missing[0]}'")
        ct.finish()
        optional = [f for f in isa_vocab.OPTIONAL.get(op, ()) if f in fields]
        if optional and len(optional) < len(isa_vocab.OPTIONAL[op]):
            fields_t.fail(fields_t.key, f"'{op}' has '{optional[0]}' without "
                                        f"'{next(f for f in isa_vocab.OPTIONAL[op] if f not in fields)}'")
        commands.append(Command(cname, op, code, words, dict(sorted(fields.items(), key=lambda kv:
                                                                      isa_vocab.fields_of(op).index(kv[0]))),
                                ct.key))
    for op in ("dma_to_device", "dma_to_host", "dma_wait", "barrier", "end"):
        if not any(c.op == op for c in commands):
            commands_t.fail(commands_t.key, f"no command runs '{op}' (every stream needs it)")
    t.finish()
    return InstructionSet(magic, version, alignment, header, opcode, length, enums, tuple(commands))


def _overlap(a: BitField, b: BitField) -> bool:
    (a0, a1), (b0, b1) = a.span(), b.span()
    return a0 < b1 and b0 < a1


def _check_mapped(instruction_set: InstructionSet, desc: TargetDescription, t: _Table) -> None:
    """Every op the target offloads has a command: an entry's compute ops (its anchor
    and the epilogues it may run alone, for each element type it accepts)."""
    for entry in (*desc.ops, *desc.patterns):
        names = {entry.op} if isinstance(entry, OpSpec) else set(entry.pattern.names)
        dtypes = entry.limits.dtypes or desc.dtypes
        for name in sorted(names):
            if name not in COMMANDS:
                continue
            kind, sub = COMMANDS[name]
            if sub in isa_vocab.CONVERSIONS and (isinstance(entry, PatternSpec) or
                                                 instruction_set.command(sub) is None):
                # A pattern's conversions fold into its forms; a conversion alone without
                # a command stays on the host (support.entry_encodes says so).
                continue
            for dtype in dtypes:
                if dtype not in ("f32", *isa_vocab.QUANTIZED):
                    continue
                op = isa_vocab.op_for(kind, dtype, sub)
                if op is None:
                    continue
                command = instruction_set.command(op)
                if command is None:
                    t.fail(t.where("commands"), f"no command runs '{op}': {entry.key} ({name} on {dtype}) "
                                                "is unmapped")
                if sub == "lut" and "table" not in command.fields:
                    continue  # a command without tables runs no lookup (support.entry_encodes says so)
                # An engine encodes the kinds it has: a kind the target offloads needs a code.
                for enum in {isa_vocab.FIELDS[f][1] for f in command.fields if isa_vocab.FIELDS[f][0] == isa_vocab.ENUM}:
                    if sub in isa_vocab.ENUMS[enum] and sub not in instruction_set.enums.get(enum, {}):
                        t.fail(t.where(f"enums.{enum}"), f"no code for '{sub}': {entry.key} ({name}) "
                                                         "is unmapped")
