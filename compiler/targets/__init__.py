"""Accelerator descriptions (`--target`): schema, loader, registry, and what they accept.

    from accel.compiler.targets import load_target, select
    npu = load_target("npu")                     # built-in, or load_target("path/x.toml")
    ctx = AccelContext(); ctx.targets.select("npu,dsp")   # the targets of one compile
    npu.memory.scratchpad_bytes, npu.api.prefix, npu.patterns[0].composite
    select(op, npu)       # -> OpSpec | PatternSpec (with .c_function) | "reason"

The schema is documented with an annotated example in docs/targets.md.
"""

from accel.compiler.targets.context import AccelContext, TargetContext, target_context
from accel.compiler.targets.registry import builtin_target_names, load_target, target_names
from accel.compiler.targets.schema import (
    Api,
    Compute,
    Dma,
    Limits,
    Memory,
    OpSpec,
    PatternSpec,
    TargetDescription,
    Throughput,
    symbol_base,
)
from accel.compiler.targets.support import dtype_name, select

__all__ = [
    "AccelContext",
    "Api",
    "Compute",
    "Dma",
    "Limits",
    "Memory",
    "OpSpec",
    "PatternSpec",
    "TargetDescription",
    "TargetContext",
    "Throughput",
    "builtin_target_names",
    "dtype_name",
    "load_target",
    "select",
    "symbol_base",
    "target_context",
    "target_names",
]
