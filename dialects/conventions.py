"""The IR's shared conventions: the discardable attributes that accel's passes, tools and
emitter agree on, and their accessors. One home, so that a name is written once.

| attribute | on | meaning | written by |
|---|---|---|---|
| `accel.target = "npu"` / `"host"` | op, composite, `func.func` | who runs it | annotate-target, outline-regions (or the user: a manual mark) |
| `accel.reason` | op | why no target took it | annotate-target |
| `accel.manual` | op | the target was given by the user | annotate-target |
| `accel.region = N` | op | the region an op belongs to | merge-regions |
| `accel.name` | argument / result attrs of `@main` | the model's input/output name | importer, builder |
| `accel.output` | argument attrs | a bufferized result argument (destination-passing style) | bufferize |
| `accel.offset` | `memref.alloc` | byte offset in the host arena | plan-memory |
| `accel.arena_bytes` | module | the host arena's size | plan-memory |
| `accel.placement = "dma"` / `"zero-copy"` | `func.func` | how a region reaches its data: transfers to the scratchpad, or host memory in place (`placement_of`) | insert-dma |
| `accel.resident` | `accel.alloc` | a buffer that lives across regions | optimize-dma |
| `accel.entry = "ops[3]"` | accel compute op | the description entry whose declared C call runs it | lower-to-accel (kept by tiling) |
| `accel.constant`, `accel.duplicate` | pattern IR | pattern-language marks | target descriptions |
| `accel.tuning = {row_tile = 4, ...}` | accel compute op | the tuning configuration of this op instance (knobs of the target's `[tuning]` space; absent: the heuristics) | apply-tuning (kept by tiling) |
| `accel.tuned = [{task = ..., ...}]` | module | the tasks a tuning log configured: key, op, instances, config, measured default and tuned cycles (report.json's `tuning`) | apply-tuning |

Functions: `@main` is the host schedule; a function with `accel.target = "<name>"` (not
"host") is an outlined region of that target; other functions with a body are host
functions.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from xdsl.dialects import func
from xdsl.dialects.builtin import ArrayAttr, DictionaryAttr, IntegerAttr, ModuleOp, StringAttr, i1, i64
from xdsl.ir import Operation

TARGET_ATTR = "accel.target"
REASON_ATTR = "accel.reason"
MANUAL_ATTR = "accel.manual"
REGION_ATTR = "accel.region"
NAME_ATTR = "accel.name"
OUTPUT_ATTR = "accel.output"
OFFSET_ATTR = "accel.offset"
ARENA_ATTR = "accel.arena_bytes"
PLACEMENT_ATTR = "accel.placement"
RESIDENT_ATTR = "accel.resident"
FUSED_FLOOR_ATTR = "accel.fused_spill_floor"
"""On an accelerator function (set by fuse-layers): the bytes beyond the partition bound
that any schedule running its fused segments and remaining ops one at a time must move."""
ENTRY_ATTR = "accel.entry"
CONSTANT_ARG_ATTR = "accel.constant"
DUPLICATE_ATTR = "accel.duplicate"
TUNING_ATTR = "accel.tuning"
TUNED_ATTR = "accel.tuned"

HOST = "host"
"""The pseudo-target of ops no accelerator runs."""

MAIN = "main"
"""The host schedule's function."""


# -- an op's target ----------------------------------------------------------------------


def target_of(op: Operation) -> str | None:
    """The `accel.target` of an op or function, if it has one."""
    attr = op.attributes.get(TARGET_ATTR)
    return attr.data if isinstance(attr, StringAttr) else None


def set_target(op: Operation, name: str) -> None:
    op.attributes[TARGET_ATTR] = StringAttr(name)


def reason_of(op: Operation) -> str | None:
    attr = op.attributes.get(REASON_ATTR)
    return attr.data if isinstance(attr, StringAttr) else None


def entry_of(op: Operation) -> str | None:
    """The description entry ("ops[3]", "patterns[0]") a compute op was lowered from."""
    attr = op.attributes.get(ENTRY_ATTR)
    return attr.data if isinstance(attr, StringAttr) else None


def set_entry(op: Operation, key: str) -> None:
    op.attributes[ENTRY_ATTR] = StringAttr(key)


def placement_of(fn: Operation) -> str | None:
    """How an accelerator function reaches its data (`accel.placement`, set by insert-dma:
    "dma", "zero-copy"), if decided."""
    attr = fn.attributes.get(PLACEMENT_ATTR)
    return attr.data if isinstance(attr, StringAttr) else None


def tuning_of(op: Operation) -> dict[str, int | bool | str] | None:
    """The tuning configuration of a compute op (knob -> value), if it has one."""
    attr = op.attributes.get(TUNING_ATTR)
    if not isinstance(attr, DictionaryAttr):
        return None
    out: dict[str, int | bool | str] = {}
    for k, v in attr.data.items():
        if isinstance(v, StringAttr):
            out[k] = v.data
        elif isinstance(v, IntegerAttr):
            out[k] = bool(v.value.data) if v.type == i1 else v.value.data
    return out


def set_tuning(op: Operation, config: dict[str, int | bool | str]) -> None:
    def attr(v):
        if isinstance(v, bool):
            return IntegerAttr(int(v), i1)
        return StringAttr(v) if isinstance(v, str) else IntegerAttr(v, i64)

    op.attributes[TUNING_ATTR] = DictionaryAttr({k: attr(v) for k, v in sorted(config.items())})


def symbol_base(target_name: str) -> str:
    """A target name as part of a C identifier and a region's symbol (`npu-shared` ->
    `npu_shared`, regions `@npu_shared_0`)."""
    return re.sub(r"[^A-Za-z0-9_]", "_", target_name)


def composite_target(pattern_name: str) -> str:
    """The target of a composite `<target>.<pattern>`."""
    return pattern_name.split(".", 1)[0]


# -- functions ---------------------------------------------------------------------------


def host_functions(module: ModuleOp) -> list[func.FuncOp]:
    """Functions with a body that are not outlined accelerator regions."""
    return [
        op for op in module.ops
        if isinstance(op, func.FuncOp) and not op.is_declaration and TARGET_ATTR not in op.attributes
    ]  # fmt: skip


def accelerator_functions(module: ModuleOp) -> list[tuple[func.FuncOp, str]]:
    """Outlined regions with their target names, in module order."""
    out = []
    for op in module.ops:
        if isinstance(op, func.FuncOp) and not op.is_declaration:
            t = target_of(op)
            if t is not None and t != HOST:
                out.append((op, t))
    return out


def iter_functions(module: ModuleOp) -> Iterator[func.FuncOp]:
    for op in module.ops:
        if isinstance(op, func.FuncOp):
            yield op


def main_function(module: ModuleOp) -> func.FuncOp | None:
    for fn in iter_functions(module):
        if fn.sym_name.data == MAIN:
            return fn
    return None


# -- inputs and outputs ------------------------------------------------------------------


def _dict_at(attrs: ArrayAttr | None, i: int) -> DictionaryAttr | None:
    if attrs is None or i >= len(attrs.data):
        return None
    d = attrs.data[i]
    return d if isinstance(d, DictionaryAttr) else None


def is_output_arg(fn: func.FuncOp, i: int) -> bool:
    """Argument `i` is a result buffer (bufferized, destination-passing style)."""
    d = _dict_at(fn.arg_attrs, i)
    return d is not None and OUTPUT_ATTR in d.data


def _name_at(attrs: ArrayAttr | None, i: int) -> str | None:
    d = _dict_at(attrs, i)
    v = d.data.get(NAME_ATTR) if d is not None else None
    return v.data if isinstance(v, StringAttr) else None


def name_attrs(names) -> ArrayAttr:
    """Argument/result attributes carrying the given I/O names."""
    return ArrayAttr([DictionaryAttr({NAME_ATTR: StringAttr(n)}) for n in names])


def io_names(fn: func.FuncOp) -> tuple[list[str], list[str]]:
    """Input and output names of a function: `accel.name` attributes, else the SSA
    name of the argument, else `arg<i>` / `out<i>`."""
    ins = [_name_at(fn.arg_attrs, i) or arg.name_hint or f"arg{i}" for i, arg in enumerate(fn.body.block.args)]
    outs = [_name_at(fn.res_attrs, i) or f"out{i}" for i in range(len(fn.function_type.outputs))]
    return ins, outs
