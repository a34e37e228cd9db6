"""Named pipelines: the pass lists behind `-p byoc|lower|full` (accel-opt, accel-compile).

A pipeline name expands to a pass pipeline spec; anything else is taken as a spec of
its own (`-p 'byoc{min-ops=2},bufferize'`). Options of passes that take a target are
filled from `--target` by the tools.
"""

from __future__ import annotations

PIPELINES: dict[str, str] = {
    "byoc": "canonicalize,byoc",
    "lower": "widen-host-floats,bufferize,plan-memory,lower-to-accel,fuse-layers,tile-for-scratchpad,insert-dma,assemble-on-device,"
             "optimize-dma,partial-residency,plan-memory",
    "full": "canonicalize,byoc,widen-host-floats,bufferize,plan-memory,lower-to-accel,fuse-layers,tile-for-scratchpad,insert-dma,"
            "assemble-on-device,optimize-dma,partial-residency,plan-memory",
    "full-nofuse": "canonicalize,byoc,widen-host-floats,bufferize,plan-memory,lower-to-accel,tile-for-scratchpad,insert-dma,"
                   "assemble-on-device,optimize-dma,partial-residency,plan-memory",
    "naive": "canonicalize,byoc{zero-copy=false},widen-host-floats,bufferize,plan-memory,lower-to-accel,tile-for-scratchpad{zero-copy=false double-buffer=false},"
             "insert-dma{zero-copy=false},plan-memory",
    "host": "canonicalize,fold-constants{dequantize=true},widen-host-floats,bufferize,plan-memory",
}
"""`byoc`: canonicalize (fold-constants, fold-batch-norm, fold-explicit-padding,
undilate-column-convs, propagate-qdq, recognize-decompositions, additive-masks, canonicalize-conv-transpose,
canonicalize-linear), then
partition (dequantize-integer-products, split-tall-kernels, undilate-convs, split-grouped-convs, unstride-convs, split-wide-layers, expand-pixel-shuffles, cascade-max-pools, unstride-pools, global-pools, tabulate-activations, expand-activations, expand-nearest-upsampling, resize-as-matmuls, mean-as-pool, max-as-pools, expand-pads, collapse-norm-axes, softmax-last-axis, requantize-concatenations, trailing-broadcasts,
merge-composite, annotate-target, merge-regions, outline-regions).
`lower`: host ops on f16/bf16 widened to f32 (widen-host-floats), buffers, the host arena, accel ops, tiles, transfers and their optimization.
`full`: both (with `fuse-layers`: chains of ops computed stripe by stripe). `full-nofuse`:
`full` without layer fusion (every op tiled on its own). `naive`: the TVM-style baseline:
every op copies its operands in and its result out, even on targets that share memory with
the host. `host`: every op on the host kernels (nothing partitioned, whatever `--target`
says; constant weights of QDQ models dequantized at compile time)."""


def expand(spec: str) -> str:
    """Replace pipeline names in a comma-separated spec by their passes."""
    return ",".join(PIPELINES.get(p, p) for p in _split(spec))


def _split(spec: str) -> list[str]:
    """The top-level comma-separated parts of a spec (options in braces kept whole)."""
    parts = []
    depth = 0
    current = ""
    for ch in spec:
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append(current)
            current = ""
        else:
            current += ch
    if current:
        parts.append(current)
    return [p.strip() for p in parts if p.strip()]


def with_tuning_log(spec: str, log: str) -> str:
    """`spec` (names expanded) with `apply-tuning{log=...}` before its fuse-layers (else its
    tile-for-scratchpad); a spec that stops at tensor level gets `lower` first (as the
    driver would complete it)."""
    parts = _split(expand(spec))
    if not any(p.split("{", 1)[0] == "tile-for-scratchpad" for p in parts):
        parts += _split(PIPELINES["lower"])
    at = next(i for i, p in enumerate(parts) if p.split("{", 1)[0] in ("fuse-layers", "tile-for-scratchpad"))
    quoted = log.replace("\\", "\\\\").replace('"', '\\"')
    parts.insert(at, f'apply-tuning{{log="{quoted}"}}')
    return ",".join(parts)


def parse_pipeline_spec(available, spec: str) -> list:
    """The passes of a pipeline spec (pipeline names expanded), instantiated with their
    options. Errors name the pass and the option: `pass 'optimize-dma': option 'hoist'
    expects a bool, got 'maybe'` (xDSL's own messages name neither)."""
    import dataclasses
    from typing import get_type_hints

    from xdsl.utils.arg_spec import _convert_arg_to_type, parse_pipeline

    from accel.compiler.diagnostics import CompileError, did_you_mean

    passes = []
    for p in parse_pipeline(expand(spec)):
        if p.name not in available:
            hint = did_you_mean(p.name, available) or " (accel-opt --list-passes lists them)"
            raise CompileError(f"unknown pass '{p.name}'{hint}")
        cls = available[p.name]()
        given = p.normalize_parameter_names().parameters
        fields = {f.name: f for f in dataclasses.fields(cls) if f.init and f.name != "name"}
        for name, value in given.items():
            if name not in fields:
                options = ", ".join(n.replace("_", "-") for n in fields) or "none"
                raise CompileError(f"pass '{p.name}' has no option '{name.replace('_', '-')}' (options: {options})")
            expected = get_type_hints(cls)[name]
            try:
                _convert_arg_to_type(value, expected)
            except (ValueError, TypeError):
                shown = value[0] if isinstance(value, tuple) and len(value) == 1 else value
                kind = getattr(expected, "__name__", str(expected))
                raise CompileError(f"pass '{p.name}': option '{name.replace('_', '-')}' expects {kind}, "
                                   f"got '{shown}'") from None
        try:
            passes.append(cls.from_pass_spec(p))
        except ValueError as e:
            raise CompileError(f"pass '{p.name}': {e}") from None
    return passes
