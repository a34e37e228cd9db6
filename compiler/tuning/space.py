"""The configurations of one op that a target's tuning space admits, and an analytic
estimate of each (to rank candidates before measuring them).

    configs = space_of(op, desc)          # every admitted configuration that fits; {} first
    why = check_config(op, config, desc)  # None, or why the configuration is not admitted
    cycles = analytic_cycles(op, config, desc)

`{}` is the default: no knob fixed, the heuristics choose (what an untuned compile does);
it is always a candidate, so a tuned op is never worse than the default as measured.
Whether a configuration fits the scratchpad is the lowering's own check: the
configuration is planned as `tile-for-scratchpad` plans it (`tile_plan.plan_tiles`),
which refuses tiles that do not fit.
"""

from __future__ import annotations

import itertools
import math

from accel.compiler.targets.schema import TargetDescription
from accel.compiler.targets.tuning_space import TILE_KNOBS, KindSpace
from accel.compiler.tile_plan import (ComputeShape, NoFit, accumulates, candidates, eltwise_axis, mnk, plan_tiles,
                                      row_tiles, working_set)
from accel.compiler.tuning.tasks import tunable_kind
from accel.dialects import accel


def extents(op: accel.ComputeOp) -> dict[str, int]:
    """The extent each tile knob of the op's kind divides."""
    if isinstance(op, (accel.Conv2DOp, accel.PoolOp)):
        _, oc, oh, _ = op.output.type.get_shape()
        return {"channel_tile": oc, "row_tile": oh}
    if isinstance(op, accel.EltwiseOp):
        return {"outer_tile": op.output.type.get_shape()[eltwise_axis(ComputeShape.of_op(op))]}
    m, n, k = mnk(ComputeShape.of_op(op))
    return {"row_tile": m, "feature_tile": n, "k_tile": k}


def kind_space(op: accel.ComputeOp, desc: TargetDescription) -> KindSpace | None:
    kind = tunable_kind(op)
    if kind is None or desc.tuning is None or not desc.lowers_to_accel or desc.memory.shared_with_host:
        return None
    return desc.tuning.of(kind)


def knob_values(op: accel.ComputeOp, space: KindSpace, desc: TargetDescription) -> dict[str, list]:
    """Each declared knob's admitted values for this op (before the fit check)."""
    sizes = extents(op)
    values: dict[str, list] = {}
    for name, rng in space.tiles:
        n = sizes[name]
        vals = [t for t in candidates(n) if rng.admits(t, n)]
        if name == "channel_tile" and isinstance(op, accel.Conv2DOp) and op.prop("groups") > 1:
            per_group = n // op.prop("groups")
            vals = [t for t in vals if t % per_group == 0]
        if name == "k_tile" and (not accumulates(desc) or op.is_quantized):
            vals = [n]
        values[name] = vals
    for name in ("resident", "double_buffer", "prefetch"):
        if getattr(space, name):
            values[name] = list(getattr(space, name))
    return values


def _plan(op: accel.ComputeOp, config: dict, desc: TargetDescription):
    """The lowering's plan of `config` (None: the op stays whole; raises NoFit when it
    does not fit)."""
    return plan_tiles(ComputeShape.of_op(op), desc, True, config)


def check_config(op: accel.ComputeOp, config: dict, desc: TargetDescription) -> str | None:
    """Why `config` is not a configuration of the op's space (None: it is, and fits)."""
    space = kind_space(op, desc)
    if space is None:
        return f"target '{desc.name}' has no tuning space for '{op.name}'"
    values = knob_values(op, space, desc)
    for k, v in config.items():
        if k not in values:
            return f"knob '{k}' is not in the space (knobs: {', '.join(values)})"
        if v not in values[k]:
            return f"{k} = {v!r} is not an admitted value"
    if not config:
        return None
    try:
        _plan(op, config, desc)
    except NoFit:
        return "it does not fit the scratchpad"
    return None


def space_of(op: accel.ComputeOp, desc: TargetDescription) -> list[dict]:
    """Every configuration of the op's space that fits, the default `{}` first. Tile
    sizes are checked once per (tiles, double_buffer) combination."""
    space = kind_space(op, desc)
    if space is None:
        return [{}]
    values = knob_values(op, space, desc)
    tile_names = [n for n in values if n in TILE_KNOBS[space.kind]]
    sized = [*tile_names, *(["double_buffer"] if "double_buffer" in values else []),
             *(["resident"] if "resident" in values and space.kind == "matmul" else [])]  # a loop order's fit
    other = [n for n in values if n not in sized]
    fitting = []
    for combo in itertools.product(*(values[n] for n in sized)):
        cfg = dict(zip(sized, combo))
        try:
            _plan(op, cfg, desc)
        except NoFit:
            continue
        fitting.append(cfg)
    if space.kind == "matmul":  # one row or feature tile: both loop orders emit the same loops
        ext, seen = extents(op), {tuple(sorted(c.items())) for c in fitting}
        fitting = [c for c in fitting if c.get("resident") != "input" or not (
            c.get("row_tile") == ext["row_tile"] or c.get("feature_tile") == ext["feature_tile"])
            or tuple(sorted({**c, "resident": "weights"}.items())) not in seen]
    out: list[dict] = [{}]
    for cfg in fitting:
        for rest in itertools.product(*(values[n] for n in other)):
            out.append({**cfg, **dict(zip(other, rest))})
    return out


def analytic_cycles(op: accel.ComputeOp, config: dict, desc: TargetDescription) -> float:
    """A closed-form estimate of the op's cycles under `config`: compute (launch per tile
    plus work at the target's rate), DMA (the planner's transfer estimate), overlapped
    when the tiles are double-buffered. Only a ranking: the measurement decides."""
    capacity, alignment = desc.memory.scratchpad_bytes, desc.memory.alignment
    bpc, setup = desc.dma.bytes_per_cycle, desc.dma.setup_cycles
    shape = ComputeShape.of_op(op)
    int8 = op.is_quantized if isinstance(op, accel.MatmulOp) else shape.inputs[0].itemsize == 1
    rate = desc.compute.macs_per_cycle_int8 if int8 else desc.compute.macs_per_cycle_f32
    double = bool(config.get("double_buffer", True))
    tiles_given = any(k in TILE_KNOBS[tunable_kind(op)] for k in config)
    whole = not tiles_given and working_set(shape, alignment) <= capacity
    io_bytes = sum(b.nbytes for b in shape.distinct)
    if isinstance(op, (accel.Conv2DOp, accel.PoolOp)):
        n, c, h, w = op.inputs[0].type.get_shape()
        _, oc, oh, ow = op.output.type.get_shape()
        out = n * oc * oh * ow
        if isinstance(op, accel.Conv2DOp):
            work = out * math.prod(op.inputs[1].type.get_shape()[1:]) / rate
        else:
            kh, kw = op.prop("pool_size")
            work = out * kh * kw / desc.compute.elementwise_per_cycle
        if whole:
            n_tiles, dma = 1, io_bytes / bpc + setup * (len(op.inputs) + 1)
        else:
            plan = _plan(op, config, desc)
            kh = op.inputs[1].type.get_shape()[2] if isinstance(op, accel.Conv2DOp) else op.prop("pool_size")[0]
            rows = len(row_tiles(oh, plan.row_tile, kh, op.prop("strides")[0], op.prop("dilation")[0],
                                 op.prop("padding")[0], h, plan.row_tile))
            n_tiles, dma = rows * -(-oc // plan.channel_tile), plan.cost
    elif isinstance(op, accel.EltwiseOp):
        work = accel.EltwiseOp.PASSES.get(op.prop("kind"), 1) * math.prod(op.output.type.get_shape()) \
            / desc.compute.elementwise_per_cycle
        if whole:
            n_tiles = 1
        else:
            plan = _plan(op, config, desc)
            out_shape = op.output.type.get_shape()
            n_tiles = math.prod(out_shape[:plan.axis]) * -(-out_shape[plan.axis] // plan.slices)
        dma = io_bytes / bpc + setup * n_tiles * (len(op.inputs) + 1)
    else:
        m, nn, k = mnk(shape)
        work = m * nn * k / rate
        if whole:
            n_tiles, dma = 1, io_bytes / bpc + setup * (len(op.inputs) + 1)
        else:
            plan = _plan(op, config, desc)
            n_m, n_n, n_k = -(-m // plan.m_tile), -(-nn // plan.n_tile), -(-k // plan.k_tile)
            n_tiles = n_m * n_n * n_k
            be, ae = shape.inputs[1].itemsize, shape.inputs[0].itemsize
            if plan.rows_outer:
                moved = nn * k * be * (n_m if n_n > 1 else 1) + m * k * ae
            else:
                moved = nn * k * be * (n_m if n_k > 1 else 1) + m * k * ae * (n_n if n_m > 1 or n_k > 1 else 1)
            moved += m * nn * shape.output.itemsize * (2 * n_k - 1)
            dma = moved / bpc + setup * n_tiles * 3
    compute = n_tiles * desc.compute.launch_cycles + work
    if double and n_tiles > 1:
        return max(compute, dma) + min(compute, dma) / n_tiles
    return compute + dma
