"""merge-regions: group same-target ops into maximal regions that never create a cycle.

Runs on annotated IR (annotate-target). Ops are visited once, in program order (a
topological order). An op joins the regions of its operands that have its target when
the graph in which every region is one node stays acyclic (then each region can become
one call: no value leaves a region and comes back, not even through another region):

- host ops and regions keep the set (a Python int used as a bitset) of the regions they
  depend on; regions are merged with union-find;
- op `v` may join the candidate regions S when no operand of `v` outside S depends on S
  (else a value would leave and come back), and no region of S that already feeds an op
  outside it gains a new dependency. The second rule keeps every stored set exact in a
  single pass, and it rejects two candidates of which one depends on the other through an
  outside node. It is the one conservative rule: such an op starts or joins another
  region instead.

The cost is one visit per op plus bitset operations (linear in practice; no walk over the
module per op).

A quantize or dequantize alone at the edge of a region of a target that moves data (no
memory shared with the host; a quantize of data from outside it, a dequantize read only
outside it) goes back to the host: there the data crosses in 8 bits. Then regions are
dropped back to the host (`accel.target = "host"` plus `accel.reason`)
when they have fewer than `min-ops` ops (a composite counts its body's ops), or, with
`cost-model=true`, when the accelerator would be slower than the host: compute from the
target's throughputs plus the DMA of every tensor crossing the boundary (inputs, weights,
outputs), see `accel.compiler.targets.cost`. So a lone relu between host ops stays on the host.
Regions holding an op the user marked (`accel.manual`) are never dropped. Kept regions are
numbered in program order of their first op: `accel.region = <n>`.

Before (`merge-regions`):

    %1 = relay.composite "npu.conv2d_bias" (%x, %w, %b) {accel.target = "npu"} ...
    %2 = relay.nn.relu %1 {accel.target = "npu"} : ...
    %3 = relay.sigmoid %2 {accel.target = "host", accel.reason = "npu: op not supported"} : ...

After:

    %1 = relay.composite "npu.conv2d_bias" (%x, %w, %b) {accel.target = "npu", accel.region = 0 : i64} ...
    %2 = relay.nn.relu %1 {accel.target = "npu", accel.region = 0 : i64} : ...
    %3 = relay.sigmoid %2 {accel.target = "host", accel.reason = "npu: op not supported"} : ...
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp, StringAttr
from xdsl.ir import Block, Operation, OpResult, SSAValue
from xdsl.passes import ModulePass

from accel.compiler.ir_build import i64_attr
from accel.compiler.targets import TargetDescription, target_context
from accel.compiler.targets.cost import region_cost
from accel.dialects.relay import CompositeOp, ConstantOp, DequantizeOp, QuantizeOp, YieldOp
from accel.dialects.conventions import HOST, MANUAL_ATTR, REASON_ATTR, REGION_ATTR, TARGET_ATTR, host_functions, target_of


def graph_op_count(op: Operation) -> int:
    """How many model ops `op` stands for: a composite counts its body's ops."""
    if isinstance(op, CompositeOp):
        return sum(1 for o in op.body.block.ops if not isinstance(o, (YieldOp, ConstantOp)))
    return 1


@dataclass
class _Regions:
    """Union-find over region ids. Per class: its target, its member ids, its closure (the
    ids of every region it depends on, itself included, in the graph where each region
    is one node), and whether an op outside it already consumes it (`exposed`)."""

    parent: list[int] = field(default_factory=list)
    target: list[str] = field(default_factory=list)
    members: list[int] = field(default_factory=list)
    closure: list[int] = field(default_factory=list)
    exposed: list[bool] = field(default_factory=list)

    def new(self, target: str) -> int:
        rid = len(self.parent)
        self.parent.append(rid)
        self.target.append(target)
        self.members.append(1 << rid)
        self.closure.append(1 << rid)
        self.exposed.append(False)
        return rid

    def find(self, r: int) -> int:
        root = r
        while self.parent[root] != root:
            root = self.parent[root]
        while self.parent[r] != root:
            self.parent[r], r = root, self.parent[r]
        return root

    def union(self, classes: list[int]) -> int:
        root = classes[0]
        for c in classes[1:]:
            self.parent[c] = root
            self.members[root] |= self.members[c]
            self.closure[root] |= self.closure[c]
            self.exposed[root] = self.exposed[root] or self.exposed[c]
        return root


class _Merger:
    """One visit per op, in program order, keeping the graph in which every region is a
    single node acyclic (so every region can become one call).

    Dependencies are bitsets of region ids: a host op keeps the ids of every region it
    depends on (through regions as whole nodes); a region keeps its closure. These stay
    exact because a region that already feeds an op outside it never gains a new
    dependency: an op that would add one starts a new region instead. Without that rule,
    ops visited earlier would depend on more than their bitsets say."""

    def __init__(self, block: Block):
        self.block = block
        self.regions = _Regions()
        self.region_of: dict[Operation, int] = {}  # initial region id of an offloaded op
        self.anc: dict[Operation, int] = {}  # host ops: the regions they depend on

    def producers(self, op: Operation) -> list[Operation]:
        seen: list[Operation] = []
        for v in op.operands:
            if isinstance(v, OpResult) and v.op.parent is self.block and not isinstance(v.op, ConstantOp):
                if v.op not in seen:
                    seen.append(v.op)
        return seen

    def class_of(self, op: Operation) -> int | None:
        rid = self.region_of.get(op)
        return None if rid is None else self.regions.find(rid)

    def deps(self, op: Operation) -> int:
        c = self.class_of(op)
        return self.regions.closure[c] if c is not None else self.anc[op]

    def run(self) -> dict[Operation, int]:
        ops = [op for op in self.block.ops if not isinstance(op, (ConstantOp, func.ReturnOp))]
        pending = {op: sum(r.uses.get_length() for r in op.results) for op in ops}
        for v in ops:
            preds = self.producers(v)
            target = target_of(v)
            if target is None or target == HOST:
                deps = 0
                for p in preds:
                    deps |= self.deps(p)
                self.anc[v] = deps
                root = None
            else:
                root = self.place(v, target, preds)
            for p in preds:
                c = self.class_of(p)
                if c is not None and c != root:
                    self.regions.exposed[c] = True
            for u in v.operands:  # free what nobody needs any more
                if isinstance(u, OpResult) and u.op in pending:
                    pending[u.op] -= 1
                    if pending[u.op] == 0:
                        self.anc.pop(u.op, None)
        return {op: self.regions.find(rid) for op, rid in self.region_of.items()}

    def place(self, v: Operation, target: str, preds: list[Operation]) -> int:
        candidates: list[int] = []
        for p in preds:
            c = self.class_of(p)
            if c is not None and self.regions.target[c] == target and c not in candidates:
                candidates.append(c)
        # Join every candidate that keeps the graph of regions acyclic; retry the rejected
        # ones after each success (a region joined later may absorb what separated them).
        chosen: list[int] = []
        progress = True
        while progress and candidates:
            progress = False
            for c in list(candidates):
                if self.can_join(preds, [*chosen, c]):
                    chosen.append(c)
                    candidates.remove(c)
                    progress = True
        regions = self.regions
        root = regions.union(chosen) if chosen else regions.new(target)
        self.region_of[v] = root
        for p in preds:
            c = self.class_of(p)
            if c == root:
                continue
            regions.closure[root] |= self.deps(p)
        return root

    def can_join(self, preds: list[Operation], classes: list[int]) -> bool:
        """Whether the new op may join `classes` (its producers are `preds`)."""
        regions = self.regions
        members = 0
        closure = 0
        for c in classes:
            members |= regions.members[c]
            closure |= regions.closure[c]
        for p in preds:
            if self.class_of(p) in classes:
                continue
            deps = self.deps(p)
            if deps & members:
                return False  # a path leaves the union and comes back through `p`
            closure |= deps
        # A region others already consume may not gain a dependency. This also covers
        # two candidates where one depends on the other through an outside node x: the
        # earlier one is exposed (x consumes it) and would gain the later one.
        for c in classes:
            if regions.exposed[c] and closure & ~regions.closure[c]:
                return False
        return True


def merge_block(
    block: Block,
    resolve: Callable[[str, Operation], TargetDescription],
    min_ops: int,
    cost_model: bool,
) -> None:
    while True:
        # Conversions at the edges go to the host, and the regions are formed again
        # without them (they may have kept others apart); rarely more than twice.
        classes = _Merger(block).run()
        members: dict[int, list[Operation]] = {}
        for op in block.ops:  # program order
            c = classes.get(op)
            if c is not None:
                members.setdefault(c, []).append(op)
        edge = []
        for ops in members.values():
            found = edge_conversions(ops)
            if found and not resolve(target_of(ops[0]), ops[0]).memory.shared_with_host:
                edge += found
        if not edge:
            break
        for op in edge:
            earlier = op.attributes.get(REASON_ATTR)  # the rejections of higher-priority targets
            why = f"{target_of(op)}: a conversion at the edge of its region (on the host the data crosses in 8 bits)"
            op.attributes[TARGET_ATTR] = StringAttr(HOST)
            op.attributes[REASON_ATTR] = StringAttr(f"{earlier.data}; {why}" if isinstance(earlier, StringAttr) else why)

    number = 0
    for ops in members.values():  # dict order = program order of the first op
        target_name = target_of(ops[0])
        assert target_name is not None
        reason = None
        if not any(MANUAL_ATTR in op.attributes for op in ops):
            target = resolve(target_name, ops[0]) if cost_model else None
            reason = _drop_reason(ops, target, min_ops)
        if reason is not None:
            for op in ops:
                earlier = op.attributes.get(REASON_ATTR)  # the rejections of higher-priority targets
                why = f"{target_name}: {reason}"
                op.attributes[TARGET_ATTR] = StringAttr(HOST)
                op.attributes[REASON_ATTR] = StringAttr(f"{earlier.data}; {why}" if isinstance(earlier, StringAttr) else why)
                op.attributes.pop(REGION_ATTR, None)
            continue
        for op in ops:
            op.attributes[REGION_ATTR] = i64_attr(number)
        number += 1

    for op in block.ops:
        if isinstance(op, ConstantOp):
            users = {target_of(u.operation) or HOST for u in op.result.uses}
            op.attributes[TARGET_ATTR] = StringAttr(users.pop() if len(users) == 1 else HOST)
        elif op not in classes:
            op.attributes.pop(REGION_ATTR, None)


def edge_conversions(ops: list[Operation]) -> list[Operation]:
    """The quantizes and dequantizes alone at the edge of a region: a quantize of data
    from outside it, a dequantize read only outside it. On the host, the data crosses the
    edge in 8 bits instead of 32 (a quantized model's first quantize and last dequantize
    stay there). Taking them out creates no cycle: such an op's operands do not depend on
    the region (else the region would already have been cyclic), nor do its readers
    feed it."""
    inside = set(ops)
    edge = []
    for op in ops:
        if MANUAL_ATTR in op.attributes:
            continue  # the user's choice
        if isinstance(op, QuantizeOp):
            if not (isinstance(op.data, OpResult) and op.data.op in inside):
                edge.append(op)
        elif isinstance(op, DequantizeOp):
            if all(use.operation not in inside for use in op.result.uses):
                edge.append(op)
    return edge


def region_boundary(ops: list[Operation]) -> tuple[list[SSAValue], list[SSAValue]]:
    """(inputs, outputs) of a set of ops: values used from outside (constants included),
    and results used outside; each once, in program order."""
    inside = set(ops)
    inputs: dict[SSAValue, None] = {}
    outputs: list[SSAValue] = []
    for op in ops:
        for v in op.operands:
            if not (isinstance(v, OpResult) and v.op in inside):
                inputs[v] = None
        for r in op.results:
            if any(u.operation not in inside for u in r.uses):
                outputs.append(r)
    return list(inputs), outputs


def _drop_reason(ops: list[Operation], target: TargetDescription | None, min_ops: int) -> str | None:
    """Why a region goes back to the host, or None; `target` is None without cost model."""
    count = sum(graph_op_count(op) for op in ops)
    if count < min_ops:
        return f"region of {count} op{'s' if count != 1 else ''} is below min-ops={min_ops}"
    if target is None:
        return None
    inputs, outputs = region_boundary(ops)
    cost = region_cost(ops, [*inputs, *outputs], target)
    if cost.profitable:
        return None
    return (
        f"not profitable: {cost.accel_cycles:.0f} cycles on {target.name} (DMA {cost.dma_cycles:.0f}) "
        f"vs {cost.host_cycles:.0f} on the host"
    )


@dataclass(frozen=True)
class MergeRegions(ModulePass):
    """Merge same-target ops into maximal cycle-free regions (accel.region); drop small or unprofitable ones."""

    name = "merge-regions"

    min_ops: int = 1
    """Regions with fewer ops go back to the host."""

    cost_model: bool = True
    """Keep a region on the host when compute + DMA on the target costs more."""

    targets: tuple[str, ...] = ()
    """Descriptions (names or .toml paths) to load for the annotated target names; by
    default the compile's targets, then built-ins by name."""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        known = target_context(ctx)
        known.load(self.targets)
        resolve = known.named
        for fn in host_functions(op):
            merge_block(fn.body.block, resolve, self.min_ops, self.cost_model)
