"""What the partitioner decided, for people: the report dict, the `--explain` table, and
a Graphviz picture.

    report = partition_report(module)     # {"ops": {...}, "regions": [...], "rejected": [...]}
    print(explain_table(module))          # op | location | target | reason
    open("p.dot", "w").write(partition_dot(module))

They read partitioned IR in any of its forms: after `outline-regions`/`byoc` (regions
are the functions with `accel.target`), after `merge-regions` (regions are the
`accel.region` ids) or after `annotate-target` (no regions yet). An "op" is a model op:
a composite counts the ops of its body; constants and calls are not ops. Work is
counted in multiply-accumulates (`macs`: conv2d, conv2d_transpose, dense, matmul and batch_matmul ops, the
cost model's formula, `targets.cost.op_work`).

`partition_report` returns a plain dict (JSON-ready) that later stages extend with their
own sections (`dma`, `memory`, `cycles`, `timing`).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field

from xdsl.dialects import func
from xdsl.dialects.builtin import IntegerAttr, ModuleOp, StringAttr
from xdsl.ir import BlockArgument, Operation, OpResult, SSAValue

from accel.compiler.diagnostics import format_location
from accel.compiler.targets.cost import op_work
from accel.dialects.relay import CompositeOp, ConstantOp
from accel.dialects.conventions import HOST, REASON_ATTR, REGION_ATTR, TARGET_ATTR, symbol_base



def _str_attr(op: Operation, name: str) -> str | None:
    attr = op.attributes.get(name)
    return attr.data if isinstance(attr, StringAttr) else None


def op_count(op: Operation) -> int:
    if isinstance(op, CompositeOp):
        return sum(1 for o in op.body.block.ops if o.name not in ("relay.yield", "relay.constant"))
    return 1


def op_label(op: Operation) -> str:
    """`relay.nn.conv2d`, or the composite's name (`npu.conv2d_bias_relu`)."""
    if isinstance(op, CompositeOp):
        return op.pattern.data
    return op.name


@dataclass
class OpView:
    """One op as the partitioner placed it."""

    op: Operation
    target: str
    region: str | None
    reason: str | None

    @property
    def location(self) -> str | None:
        return format_location(self.op.location)


@dataclass
class RegionView:
    name: str
    target: str
    ops: list[OpView] = field(default_factory=list)
    inputs: list[SSAValue] = field(default_factory=list)
    outputs: list[SSAValue] = field(default_factory=list)
    weights: int = 0


@dataclass
class Partition:
    """The partition of a module's host functions, in program order."""

    views: list[OpView]
    regions: list[RegionView]
    alias: dict[SSAValue, SSAValue]
    """Values inside outlined functions -> the values they stand for in the caller."""
    host_functions: list[func.FuncOp]

    def resolve(self, v: SSAValue) -> SSAValue:
        while v in self.alias:
            v = self.alias[v]
        return v


def _functions(module: ModuleOp) -> tuple[list[func.FuncOp], dict[str, func.FuncOp]]:
    host: list[func.FuncOp] = []
    outlined: dict[str, func.FuncOp] = {}
    for op in module.ops:
        if not isinstance(op, func.FuncOp) or op.is_declaration:
            continue
        if TARGET_ATTR in op.attributes:
            outlined[op.sym_name.data] = op
        else:
            host.append(op)
    return host, outlined


def analyze(module: ModuleOp) -> Partition:
    host, outlined = _functions(module)
    views: list[OpView] = []
    regions: list[RegionView] = []
    by_id: dict[tuple[int, int], RegionView] = {}
    per_target: dict[str, int] = {}
    alias: dict[SSAValue, SSAValue] = {}
    for fi, fn in enumerate(host):
        for op in fn.body.block.ops:
            if isinstance(op, (ConstantOp, func.ReturnOp)):
                continue
            if isinstance(op, func.CallOp) and op.callee.string_value() in outlined:
                callee = outlined[op.callee.string_value()]
                target = _str_attr(callee, TARGET_ATTR) or "?"
                region = RegionView(callee.sym_name.data, target, inputs=list(op.arguments), outputs=list(op.res))
                for arg, v in zip(callee.body.block.args, op.arguments):
                    alias[arg] = v
                for inner in callee.body.block.ops:
                    if isinstance(inner, ConstantOp):
                        region.weights += 1
                    elif isinstance(inner, func.ReturnOp):
                        for res, v in zip(op.res, inner.operands):
                            alias[res] = v
                    else:
                        view = OpView(inner, target, region.name, _str_attr(inner, REASON_ATTR))
                        region.ops.append(view)
                        views.append(view)
                regions.append(region)
                continue
            target = _str_attr(op, TARGET_ATTR) or HOST
            rid = op.attributes.get(REGION_ATTR)
            region = None
            if isinstance(rid, IntegerAttr) and target != HOST:
                key = (fi, rid.value.data)
                region = by_id.get(key)
                if region is None:
                    n = per_target.get(target, 0)
                    per_target[target] = n + 1
                    region = RegionView(f"{symbol_base(target)}_{n}", target)
                    by_id[key] = region
                    regions.append(region)
            view = OpView(op, target, region.name if region else None, _str_attr(op, REASON_ATTR))
            if region is not None:
                region.ops.append(view)
            views.append(view)
    for region in by_id.values():  # regions still inline (merge-regions): compute their boundary
        inside = {v.op for v in region.ops}
        seen: dict[SSAValue, None] = {}
        for v in region.ops:
            for operand in v.op.operands:
                if isinstance(operand, OpResult) and operand.op in inside:
                    continue
                if isinstance(operand, OpResult) and isinstance(operand.op, ConstantOp):
                    region.weights += 1
                    continue
                seen[operand] = None
            for r in v.op.results:
                if any(u.operation not in inside for u in r.uses):
                    region.outputs.append(r)
        region.inputs = list(seen)
    return Partition(views, regions, alias, host)


# --------------------------------------------------------------------------------------
# The report
# --------------------------------------------------------------------------------------


def partition_report(module: ModuleOp, part: Partition | None = None) -> dict:
    """`ops.total/offloaded/host`, `regions` (name, target, ops, inputs, outputs, ...),
    `rejected` (op, location, reason) — the partition fields of report.json. `part`:
    `analyze(module)` when the caller has it (the report, table and picture share one)."""
    part = part if part is not None else analyze(module)
    counts = {id(v): op_count(v.op) for v in part.views}  # each view's ops, counted once
    offloaded = sum(counts[id(v)] for v in part.views if v.target != HOST)
    total = sum(counts.values())
    macs = [(op_work(v.op).macs, v.target != HOST) for v in part.views]
    return {
        "ops": {"total": total, "offloaded": offloaded, "host": total - offloaded},
        "macs": {"total": sum(m for m, _ in macs), "offloaded": sum(m for m, off in macs if off)},
        "regions": [
            {
                "name": r.name,
                "target": r.target,
                "ops": sum(counts[id(v)] for v in r.ops),  # a region's ops are views too
                "composites": [op_label(v.op) for v in r.ops if isinstance(v.op, CompositeOp)],
                "inputs": [str(v.type) for v in r.inputs],
                "outputs": [str(v.type) for v in r.outputs],
                "weights": r.weights,
            }
            for r in part.regions
        ],
        "rejected": [
            {"op": op_label(v.op), "location": v.location, "reason": v.reason}
            for v in part.views
            if v.target == HOST and v.reason
        ],
    }


def mac_share(macs: dict) -> str:
    """The offloaded share of `report["macs"]` as a percentage ("-" without MACs)."""
    return f"{100 * macs['offloaded'] / macs['total']:.1f} %" if macs["total"] else "- %"


def write_report(report: dict, path: str) -> None:
    with open(path, "w", encoding="utf-8") as f:
        json.dump(report, f, indent=2)
        f.write("\n")


# --------------------------------------------------------------------------------------
# --explain
# --------------------------------------------------------------------------------------


def explain_rows(module: ModuleOp, part: Partition | None = None) -> Iterator[tuple[str, str, str, str]]:
    for v in (part if part is not None else analyze(module)).views:
        where = f"{v.target} ({v.region})" if v.region else v.target
        yield op_label(v.op), v.location or "-", where, v.reason or ""


def explain_table(module: ModuleOp, part: Partition | None = None) -> str:
    """A fixed-width table: op, location, chosen target (region), reason."""
    part = part if part is not None else analyze(module)
    header = ("op", "location", "target", "reason")
    rows = [header, *explain_rows(module, part)]
    widths = [max(len(r[i]) for r in rows) for i in range(3)]
    lines = []
    for i, r in enumerate(rows):
        lines.append("  ".join(c.ljust(w) for c, w in zip(r[:3], widths)) + "  " + r[3])
        if i == 0:
            lines.append("  ".join("-" * w for w in widths) + "  " + "-" * len(header[3]))
    report = partition_report(module, part)
    ops, macs = report["ops"], report["macs"]
    lines.append(f"{ops['offloaded']} of {ops['total']} ops offloaded, {ops['host']} on the host")
    lines.append(f"{macs['offloaded']} of {macs['total']} MACs offloaded ({mac_share(macs)})")
    return "\n".join(line.rstrip() for line in lines) + "\n"


# --------------------------------------------------------------------------------------
# --dot
# --------------------------------------------------------------------------------------

_PALETTE = ("#8dd3c7", "#bebada", "#fb8072", "#80b1d3", "#fdb462", "#b3de69", "#fccde5", "#ffffb3")


def _quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def partition_dot(module: ModuleOp, part: Partition | None = None) -> str:
    """Graphviz source: ops as nodes, dataflow as edges, one cluster per region filled
    with its target's colour; host ops are white boxes, rejected ones show their reason."""
    part = part if part is not None else analyze(module)
    colours: dict[str, str] = {}
    for r in part.regions:
        colours.setdefault(r.target, _PALETTE[len(colours) % len(_PALETTE)])
    node_of: dict[Operation, str] = {}
    for i, v in enumerate(part.views):
        node_of[v.op] = f"op{i}"

    lines = ["digraph partition {", "  rankdir=TB;", '  node [shape=box, style="rounded,filled", fillcolor=white];']
    inputs: dict[SSAValue, str] = {}
    for fn in part.host_functions:
        for i, arg in enumerate(fn.body.block.args):
            name = f"in_{fn.sym_name.data}_{i}"
            inputs[arg] = name
            lines.append(f"  {name} [shape=ellipse, label={_quote(arg.name_hint or f'arg{i}')}];")

    def label(v: OpView) -> str:
        text = op_label(v.op).removeprefix("relay.")
        if v.location:
            text += "\n" + v.location
        if v.target == HOST and v.reason:
            text += "\n" + v.reason
        return _quote(text)

    by_region: dict[str, list[OpView]] = {}
    for v in part.views:
        if v.region is None:
            lines.append(f"  {node_of[v.op]} [label={label(v)}];")
        else:
            by_region.setdefault(v.region, []).append(v)
    for r in part.regions:
        colour = colours[r.target]
        lines.append(f"  subgraph cluster_{r.name} {{")
        lines.append(
            f"    label={_quote(f'{r.name} ({r.target})')}; style=\"rounded,filled\"; "
            f"color={_quote(colour)}; fillcolor={_quote(colour + '40')};"
        )
        for v in by_region.get(r.name, []):
            lines.append(f"    {node_of[v.op]} [label={label(v)}, fillcolor={_quote(colour)}];")
        lines.append("  }")

    def source(value: SSAValue) -> str | None:
        value = part.resolve(value)
        if isinstance(value, BlockArgument):
            return inputs.get(value)
        if isinstance(value, OpResult):
            return node_of.get(value.op)
        return None

    for v in part.views:
        seen: set[str] = set()
        for operand in v.op.operands:
            src = source(operand)
            if src is not None and src not in seen:
                seen.add(src)
                lines.append(f"  {src} -> {node_of[v.op]};")
    for fn in part.host_functions:
        ret = fn.body.block.last_op
        if not isinstance(ret, func.ReturnOp):
            continue
        for i, value in enumerate(ret.operands):
            name = f"out_{fn.sym_name.data}_{i}"
            lines.append(f"  {name} [shape=ellipse, label={_quote(f'output {i}')}];")
            src = source(value)
            if src is not None:
                lines.append(f"  {src} -> {name};")
    lines.append("}")
    return "\n".join(lines) + "\n"


PARTITIONING_PASSES = ("byoc", "outline-regions", "merge-regions", "annotate-target")


def is_partitioning(pass_name: str) -> bool:
    """Whether the pass decides the partition: the report describes the IR right after
    the last such pass of a pipeline."""
    return pass_name in PARTITIONING_PASSES
