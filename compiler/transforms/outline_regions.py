"""outline-regions: each region becomes `func.func @<target>_<n>` called from its host
function (TVM's PartitionGraph).

Regions are the ops sharing an `accel.region` id (merge-regions). For each region, in
program order of its first op:

- `@<target>_<n>`: `n` counts the regions of that target in program order (skipping
  names already taken), the target name made an identifier (`npu-shared` -> `npu_shared`);
  the function is private and carries `accel.target = "<target>"`;
- its arguments are the non-constant values flowing in, in order of first use; its
  results are the region's values used outside, in program order (several are allowed);
- weights are BOUND: every `relay.constant` the region uses is cloned into the function
  (so a region wrapper knows its weights statically); a constant left without users on
  the host is erased;
- the ops move into the function unchanged except that `accel.region` and
  `accel.target` are dropped (the function says it); host ops keep theirs.

The call is placed where the region's last op was; host ops between the region's ops are
reordered only when they must run after the call (a stable topological order).

Before:

    %1 = relay.nn.conv2d %x, %w {accel.target = "npu", accel.region = 0 : i64} : ...
    %2 = relay.nn.relu %1 {accel.target = "npu", accel.region = 0 : i64} : ...
    %3 = relay.sigmoid %2 {accel.target = "host", ...} : ...

After:

    func.func @main(%x: ...) -> ... {
      %2 = func.call @npu_0(%x) : (...) -> tensor<...>
      %3 = relay.sigmoid %2 {accel.target = "host", ...} : ...
    }
    func.func private @npu_0(%a: ...) -> tensor<...> attributes {accel.target = "npu"} {
      %w = relay.constant ... : ...
      %1 = relay.nn.conv2d %a, %w : ...
      %2 = relay.nn.relu %1 : ...
      func.return %2 : ...
    }
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import IntegerAttr, ModuleOp, StringAttr
from xdsl.ir import Block, Operation, OpResult, Region, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from accel.compiler.diagnostics import CompileError
from accel.compiler.targets.context import AccelContext
from accel.dialects.relay import ConstantOp
from accel.dialects.conventions import HOST, MANUAL_ATTR, REGION_ATTR, TARGET_ATTR, host_functions, symbol_base, target_of


def _region_id(op: Operation) -> int | None:
    attr = op.attributes.get(REGION_ATTR)
    return attr.value.data if isinstance(attr, IntegerAttr) else None


@dataclass
class _Names:
    taken: set[str]
    next: dict[str, int]

    def fresh(self, target: str) -> str:
        base = symbol_base(target)
        n = self.next.get(base, 0)
        while f"{base}_{n}" in self.taken:
            n += 1
        self.next[base] = n + 1
        name = f"{base}_{n}"
        self.taken.add(name)
        return name


def outline_block(block: Block, names: _Names) -> list[func.FuncOp]:
    regions: dict[int, list[Operation]] = {}
    position: dict[Operation, float] = {}
    for i, op in enumerate(block.ops):
        position[op] = i
        rid = _region_id(op)
        if rid is not None:
            regions.setdefault(rid, []).append(op)
    outlined: list[func.FuncOp] = []
    moved_before = False
    for ops in regions.values():
        target = target_of(ops[0])
        if target is None or target == HOST:
            raise CompileError("an op with accel.region has no accelerator accel.target", ops[0])
        if any(target_of(op) != target for op in ops):
            bad = next(op for op in ops if target_of(op) != target)
            raise CompileError(f"region {_region_id(ops[0])} mixes targets '{target}' and '{target_of(bad)}'", bad)
        fn, reordered = _outline(ops, target, names.fresh(target), position)
        moved_before |= reordered
        outlined.append(fn)
    if moved_before:
        _stable_topological_sort(block)
    return outlined


def _outline(
    ops: list[Operation], target: str, name: str, position: dict[Operation, float]
) -> tuple[func.FuncOp, bool]:
    inside = set(ops)
    inputs: dict[SSAValue, None] = {}
    constants: dict[ConstantOp, None] = {}
    outputs: list[SSAValue] = []
    for op in ops:
        for v in op.operands:
            if isinstance(v, OpResult) and v.op in inside:
                continue
            if isinstance(v, OpResult) and isinstance(v.op, ConstantOp):
                constants[v.op] = None
            else:
                inputs[v] = None
        for r in op.results:
            if any(u.operation not in inside for u in r.uses):
                outputs.append(r)

    body = Block(arg_types=[v.type for v in inputs])
    mapping: dict[SSAValue, SSAValue] = dict(zip(inputs, body.args))
    for arg, v in zip(body.args, inputs):
        arg.name_hint = v.name_hint
    moved: list[ConstantOp] = []
    for c in constants:
        if all(u.operation in inside for u in c.result.uses):
            moved.append(c)  # used by this region only: move it (the same as a copy, cheaper)
            continue
        clone = c.clone()
        clone.attributes.pop(TARGET_ATTR, None)
        body.add_op(clone)
        mapping[c.result] = clone.result
    for c in moved:
        c.detach()
        c.attributes.pop(TARGET_ATTR, None)
        body.add_op(c)

    last = ops[-1]
    call = func.CallOp(name, list(inputs), [r.type for r in outputs])
    Rewriter.insert_op(call, InsertPoint.after(last))
    for old, new in zip(outputs, call.results):
        new.name_hint = old.name_hint
        old.replace_uses_with_if(new, lambda use: use.operation not in inside)
    # A host op placed between the region's ops that now uses a call result must move
    # after the call: detected here, fixed by one sort of the block.
    position[call] = position[last] + 0.5
    reordered = any(position.get(u.operation, float("inf")) < position[call] for r in call.results for u in r.uses)

    for op in ops:
        op.detach()
        if any(v in mapping for v in op.operands):
            op.operands = [mapping.get(v, v) for v in op.operands]
        for key in (TARGET_ATTR, REGION_ATTR, MANUAL_ATTR):
            op.attributes.pop(key, None)
        body.add_op(op)
    body.add_op(func.ReturnOp(*[mapping.get(r, r) for r in outputs]))
    for c in constants:
        if c.parent is not body and not c.result.uses:
            Rewriter.erase_op(c)

    fn = func.FuncOp(name, ([v.type for v in inputs], [r.type for r in outputs]), Region(body), visibility="private")
    fn.attributes[TARGET_ATTR] = StringAttr(target)
    return fn, reordered


def _stable_topological_sort(block: Block) -> None:
    """Reorder `block` so every op follows its operands' producers, keeping the current
    order wherever it is already valid (Kahn's algorithm keyed by position)."""
    ops = list(block.ops)
    position = {op: i for i, op in enumerate(ops)}
    waiting = {op: 0 for op in ops}
    users: dict[Operation, list[Operation]] = {op: [] for op in ops}
    for op in ops:
        for v in op.operands:
            if isinstance(v, OpResult) and v.op in position:
                waiting[op] += 1
                users[v.op].append(op)
    ready = [(position[op], op) for op in ops if waiting[op] == 0]
    heapq.heapify(ready)
    order: list[Operation] = []
    while ready:
        _, op = heapq.heappop(ready)
        order.append(op)
        for u in users[op]:
            waiting[u] -= 1
            if waiting[u] == 0:
                heapq.heappush(ready, (position[u], u))
    if len(order) != len(ops):
        raise CompileError("outlining created a cycle between regions", ops[0])
    terminator = ops[-1]
    for op in order:
        if op is not terminator:
            op.detach()
    for op in order:
        if op is not terminator:
            block.insert_op_before(op, terminator)


@dataclass(frozen=True)
class OutlineRegions(ModulePass):
    """Outline each region (accel.region) into func.func @<target>_<n> {accel.target} and call it."""

    name = "outline-regions"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        taken = {o.sym_name.data for o in op.ops if isinstance(o, func.FuncOp)}
        names = _Names(taken, {})
        new: list[func.FuncOp] = []
        for fn in host_functions(op):
            new.extend(outline_block(fn.body.block, names))
        for fn in new:
            op.body.block.add_op(fn)
        keep_hook_regions(ctx, new)


def keep_hook_regions(ctx: Context, functions: list[func.FuncOp]) -> None:
    """Keep a clone of each region of a target with a codegen hook in the target context:
    the hook gets the region at relay/composite level (docs/targets.md, "The codegen hook")."""
    if not isinstance(ctx, AccelContext):
        return
    for fn in functions:
        desc = ctx.targets.get(target_of(fn) or "")
        if desc is not None and desc.api.codegen is not None:
            ctx.targets.keep_region(fn.sym_name.data, fn.clone())
