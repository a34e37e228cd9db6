"""Fusion tasks: the chains of `fuse-layers`, tuned where they are cut and how high each
fused segment's stripes are.

A fusion task is a maximal chain of a region (`fuse_layers.find_chains` on the logical
accel form) as a one-task module (tasks.chain_module, marked `// fusion`): the key
includes every op of the chain with its neighbours' shapes at its ends. Its configuration
is one knob, `segments` (compiler/targets/tuning_space.py):

    {"segments": "3x8,1"}    # ops 0-2 fused in stripes of 8 output rows, op 3 alone
    {}                       # the default: fuse-layers' cost model chooses

    configs = fusion_space(chain, entries, desc)    # every admitted configuration that fits; {} first
    why = check_fusion(chain, entries, config, desc)
    set_fusion(chain, config)                       # `fuse` / `stripe_rows` on the chain's ops

Whether a segment fits is fuse-layers' own planner (`plan_segment` with the stripe height
fixed); the estimate that ranks candidates is its cost model (halo, recompute and
per-stripe setup of each segment, `edge_cost` at each cut). Chains with more
configurations than `MAX_CONFIGS` keep the first found with the cheapest options of each
segment first.
"""

from __future__ import annotations

from accel.compiler.targets.schema import TargetDescription
from accel.compiler.targets.tuning_space import (FUSE_KNOB, FUSION_KIND, SEGMENTS_KNOB, STRIPE_KNOB, KindSpace)
from accel.compiler.transforms.fuse_layers import (SegmentPlan, choose_segments, edge_cost, find_chains,
                                                   plan_segment)
from accel.compiler.tile_plan import candidates
from accel.compiler.tuning.tasks import Task, chain_module, shape_of
from accel.dialects import accel
from accel.dialects.conventions import accelerator_functions, set_tuning, tuning_of

MAX_CONFIGS = 512
OPTIONS_PER_SEGMENT = 6
"""Stripe heights tried per segment (the cheapest by the cost model)."""

Segments = list[tuple[int, int | None]]
"""(ops, stripe rows) per segment in chain order; rows None for an op alone."""


def fusion_kind_space(desc: TargetDescription) -> KindSpace | None:
    if desc.tuning is None or not desc.lowers_to_accel or desc.memory.shared_with_host:
        return None
    return desc.tuning.of(FUSION_KIND)


def parse_segments(text: str) -> Segments | None:
    """"3x8,1" -> [(3, 8), (1, None)]; None when malformed."""
    out: Segments = []
    for part in text.split(","):
        length, _, rows = part.partition("x")
        if not length.isdigit() or (rows and not rows.isdigit()) or int(length) < 1:
            return None
        if (int(length) > 1) != bool(rows):
            return None  # a fused segment names its stripe height, an op alone none
        out.append((int(length), int(rows) if rows else None))
    return out


def format_segments(segments: Segments) -> str:
    return ",".join(f"{n}x{r}" if r is not None else f"{n}" for n, r in segments)


def _bounds(segments: Segments) -> list[tuple[int, int, int | None]]:
    out, i = [], 0
    for n, r in segments:
        out.append((i, i + n, r))
        i += n
    return out


def _segment_plan(chain, entries, i: int, j: int, rows: int, desc) -> SegmentPlan | None:
    return plan_segment(chain[i:j], [None, *entries[i + 1:j]], desc, True, rows=rows)


def check_fusion(chain: list[accel.ComputeOp], entries: list[int | None], config: dict,
                 desc: TargetDescription) -> str | None:
    """Why `config` is not a configuration of the chain's space (None: it is, and fits)."""
    space = fusion_kind_space(desc)
    if space is None:
        return f"target '{desc.name}' has no fusion tuning space"
    if not config:
        return None
    if set(config) != {SEGMENTS_KNOB} or not isinstance(config[SEGMENTS_KNOB], str):
        return f"a fusion configuration is one string knob '{SEGMENTS_KNOB}', got {sorted(config)}"
    segments = parse_segments(config[SEGMENTS_KNOB])
    if segments is None or sum(n for n, _ in segments) != len(chain):
        return f"'{config[SEGMENTS_KNOB]}' does not describe the segments of a chain of {len(chain)} ops"
    depth, stripe = space.tile("depth"), space.tile("stripe_rows")
    for i, j, rows in _bounds(segments):
        if rows is None:
            continue
        if not (depth.min <= j - i <= depth.max and (j - i) % depth.multiple_of == 0):
            return f"a segment of {j - i} ops is not an admitted depth"
        if not stripe.admits(rows, chain[j - 1].output.type.get_shape()[2]):
            return f"stripe_rows = {rows} is not an admitted value"
        if _segment_plan(chain, entries, i, j, rows, desc) is None:
            return "it does not fit the scratchpad"
    return None


def _options(chain, entries, desc, space: KindSpace) -> dict[tuple[int, int], list[tuple[int, float]]]:
    """Per fused segment [i, j) the admitted stripe heights that fit, cheapest first."""
    depth, stripe = space.tile("depth"), space.tile("stripe_rows")
    out: dict[tuple[int, int], list[tuple[int, float]]] = {}
    for i in range(len(chain)):
        for j in range(i + max(2, depth.min), min(len(chain), i + depth.max) + 1):
            if (j - i) % depth.multiple_of:
                continue
            rows = chain[j - 1].output.type.get_shape()[2]
            found = []
            for t in candidates(rows):
                if stripe.admits(t, rows):
                    plan = _segment_plan(chain, entries, i, j, t, desc)
                    if plan is not None:
                        found.append((t, plan.cost))
            if found:
                out[(i, j)] = sorted(found, key=lambda x: x[1])[:OPTIONS_PER_SEGMENT]
    return out


def segments_cost(chain, bounds: list[tuple[int, int, float | None]], desc) -> float:
    """fuse-layers' cost of a segmentation ((start, end, segment cost or None) per segment)."""
    total = 0.0
    for k, (i, j, cost) in enumerate(bounds):
        total += cost or 0.0
        if k > 0:
            total += edge_cost(chain, i, bounds[k - 1][2] is not None, cost is not None, desc)
    return total


def fusion_space(chain: list[accel.ComputeOp], entries: list[int | None],
                 desc: TargetDescription) -> list[tuple[dict, float]]:
    """(configuration, cost-model estimate) of every admitted segmentation that fits, the
    default `{}` first (its estimate: the cost model's own choice)."""
    space = fusion_kind_space(desc)
    default = choose_segments(chain, entries, desc, True, len(chain))
    default_cost = segments_cost(chain, [(i, j, p.cost if p else None) for i, j, p in default], desc)
    out: list[tuple[dict, float]] = [({}, default_cost)]
    if space is None:
        return out
    options = _options(chain, entries, desc, space)
    found: list[list[tuple[int, int, int | None, float | None]]] = []

    def walk(i: int, prefix: list) -> None:
        if len(found) >= MAX_CONFIGS:
            return
        if i == len(chain):
            if any(r is not None for _, _, r, _ in prefix):
                found.append(list(prefix))
            return
        walk(i + 1, [*prefix, (i, i + 1, None, None)])
        for j in range(i + 2, len(chain) + 1):
            for rows, cost in options.get((i, j), []):
                walk(j, [*prefix, (i, j, rows, cost)])

    walk(0, [])
    del walk  # (a recursive closure is a reference cycle)
    for seg in found:
        config = {SEGMENTS_KNOB: format_segments([(j - i, r) for i, j, r, _ in seg])}
        out.append((config, segments_cost(chain, [(i, j, c) for i, j, _, c in seg], desc)))
    return out


def set_fusion(chain: list[accel.ComputeOp], config: dict) -> None:
    """Put a chain's configuration on its ops (merged with their own tuning): `fuse` on
    every op after the first, `stripe_rows` on a fused segment's last op."""
    if not config:
        return
    for i, j, rows in _bounds(parse_segments(config[SEGMENTS_KNOB])):
        for k in range(i, j):
            own = tuning_of(chain[k]) or {}
            knobs = {FUSE_KNOB: k > i} if k > 0 else {}
            if k == j - 1 and rows is not None:
                knobs[STRIPE_KNOB] = rows
            if knobs:
                set_tuning(chain[k], {**own, **knobs})


def fusion_features(chain: list[accel.ComputeOp], config: dict) -> dict[str, float]:
    """What the learned model sees of a fusion configuration (tuner.features' slots)."""
    segments = parse_segments(config[SEGMENTS_KNOB]) if config else None
    if not segments:
        return {"default": 1.0}
    fused = [(n, r) for n, r in segments if r is not None]
    stripes = sum(-(-chain[j - 1].output.type.get_shape()[2] // r) for i, j, r in _bounds(segments) if r)
    return {"fused_ops": sum(n for n, _ in fused) / len(chain), "segments": len(segments) / len(chain),
            "stripes": float(stripes)}


def fusion_task_of(chain: list[accel.ComputeOp], target: str) -> Task | None:
    built = chain_module(chain, target, "// fusion")
    if built is None:
        return None
    key, text, specs = built
    kinds = " > ".join(o.name.removeprefix("accel.") for o in chain)
    summary = f"fusion of {len(chain)}: {kinds} ({shape_of(chain[0].inputs[0])} -> {shape_of(chain[-1].output)})"
    return Task(key, target, FUSION_KIND, summary, text, specs, context=len(chain) - 1)


def module_fusion_tasks(module) -> list[tuple[list[accel.ComputeOp], list[int | None], Task]]:
    """Every chain of the module's accelerator regions (logical accel form) with its task."""
    out = []
    for fn, target in accelerator_functions(module):
        for chain, entries, shared in find_chains(fn.body.block):
            if shared:  # residual chains: the cost model alone cuts them (fuse-layers ignores a tuned cut there)
                continue
            task = fusion_task_of(chain, target)
            if task is not None:
                out.append((chain, entries, task))
    return out
