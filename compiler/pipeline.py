"""Named pipelines: the pass lists behind `-p byoc|lower|full` (accel-opt, accel-compile).

A pipeline name expands to a pass pipeline spec; anything else is taken as a spec of
its own (`-p 'byoc{min-ops=2},bufferize'`). Options of passes that take a target are
filled from `--target` by the tools.
"""

from __future__ import annotations

PIPELINES: dict[str, str] = {
    "byoc": "byoc",
    "lower": "bufferize,plan-memory,lower-to-accel,tile-for-scratchpad,insert-dma,optimize-dma,plan-memory",
    "full": "byoc,bufferize,plan-memory,lower-to-accel,tile-for-scratchpad,insert-dma,optimize-dma,plan-memory",
    "naive": "byoc,bufferize,plan-memory,lower-to-accel,tile-for-scratchpad{zero-copy=false double-buffer=false},"
             "insert-dma{zero-copy=false},plan-memory",
}
"""`byoc`: partition (merge-composite, annotate-target, merge-regions, outline-regions).
`lower`: buffers, the host arena, accel ops, tiles, transfers and their optimization.
`full`: both. `naive`: the TVM-style baseline: every op copies its operands in and its
result out, even on targets that share memory with the host."""


def expand(spec: str) -> str:
    """Replace pipeline names in a comma-separated spec by their passes."""
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
    return ",".join(PIPELINES.get(p.strip(), p.strip()) for p in parts if p.strip())
