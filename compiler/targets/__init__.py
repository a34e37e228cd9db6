"""Accelerator descriptions (`--target`): schema, loader, registry, and what they accept.

    from accel.compiler.targets import load_target, select
    npu = load_target("npu")                     # built-in, or load_target("path/x.toml")
    ctx = AccelContext(); ctx.targets.select("npu,dsp")   # the targets of one compile
    npu.memory.scratchpad_bytes, npu.api.prefix, npu.patterns[0].composite
    select(op, npu)       # -> OpSpec | PatternSpec (with .c_function) | "reason"

The schema is documented with an annotated example in docs/targets.md.
"""

from importlib import import_module

_HOME = {
    "AccelContext": "context", "TargetContext": "context", "target_context": "context",
    "builtin_target_names": "registry", "load_target": "registry", "target_names": "registry",
    "Api": "schema", "Compute": "schema", "Dma": "schema", "Limits": "schema", "Memory": "schema",
    "OpSpec": "schema", "PatternSpec": "schema", "TargetDescription": "schema", "Throughput": "schema",
    "dtype_name": "support", "select": "support",
}  # fmt: skip
"""Where each name of this package lives: imported on first use (PEP 562), so a tool
that never reads a description does not pay for the schema (and numpy) at start-up."""


def __getattr__(name: str):
    if name not in _HOME:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(import_module(f"{__name__}.{_HOME[name]}"), name)


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
    "target_context",
    "target_names",
]
