"""annotate-target: decide, op by op, which target runs it.

Every op of a host function gets the discardable attribute `accel.target`: the FIRST
target of the `targets` list that accepts it, else `"host"`. Every rejection is kept in
`accel.reason`, one `"<target>: <why>"` per target, joined by `"; "`:

    %y = relay.nn.conv2d %x, %w {accel.target = "host",
           accel.reason = "npu: kernel 9x9 exceeds 7x7; dsp: op not supported"} : ...

An op accepted by a later target keeps the earlier targets' rejections in `accel.reason`,
so that a host op's reason names every target that declined it even when merge-regions
drops its region (`"npu: op not supported; dsp: not profitable: ..."`).

- Single ops: the target's first `[[ops]]` entry for the op whose dtypes, limits and
  predicate accept it, if the lowering can run the op (`fused_forms.lowerable`, the
  answer lower-to-accel gives: a `relay.nn.batch_matmul` entry is rejected with
  "'relay.nn.batch_matmul' has no accelerator form") and the target's scratchpad holds
  the smallest tiles of every compute op it lowers to (`tile_plan.misfit`, the
  planner tile-for-scratchpad uses: "'accel.conv2d' needs 73984 bytes of scratchpad even
  with one output row and one channel per tile; the scratchpad has 65536"). A target with
  `api.lowering = "none"` is not lowered: its entries and predicates alone decide (its
  codegen hook emits the op); a target sharing host memory computes in place, untiled
  (no scratchpad check, unless the option `zero-copy` is false: the `naive` pipeline
  stages such regions through the scratchpad too).
- Composites `<t>.<pattern>` were checked when they were formed (merge-composite): they
  go to `<t>` when `<t>` is in the list, the lowering can run their body and its compute
  ops' smallest tiles fit (else they stay on the host, whole, with the reason).
  Composites of other targets are dissolved back into their ops, which are then
  annotated one by one, so composites only ever run on their target.
- An op that already carries `accel.target` keeps it (a manual override, TVM's
  compiler_begin/compiler_end) and gets the unit attribute `accel.manual`, which
  merge-regions respects (no cost or size rule drops it). A mark the target's
  description or the lowering cannot honour is an error here, naming the op:
  `'relay.sigmoid' op has accel.target = "npu", but npu cannot run it: op not supported`.
- `relay.constant` follows its users: their common target, else `"host"` (outlining copies
  the constants a region uses into its function).

Before (`annotate-target{targets=npu}`):

    %1 = relay.composite "npu.conv2d_bias_relu" (%x, %w, %b) : ... { ... }
    %2 = relay.sigmoid %1 : tensor<1x8x8x8xf32>

After:

    %1 = relay.composite "npu.conv2d_bias_relu" (%x, %w, %b) {accel.target = "npu"} : ... { ... }
    %2 = relay.sigmoid %1 {accel.target = "host", accel.reason = "npu: op not supported"} : ...
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp, StringAttr, UnitAttr
from xdsl.ir import Block, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from accel.compiler.diagnostics import CompileError
from accel.compiler.targets import TargetContext, TargetDescription, target_context
from accel.compiler.targets.fused_forms import ComputePlan, lowerable, lowering
from accel.compiler.targets.support import select_op
from accel.compiler.tile_plan import misfit
from accel.dialects.relay import CompositeOp, ConstantOp, YieldOp
from accel.dialects.conventions import HOST, MANUAL_ATTR, REASON_ATTR, TARGET_ATTR, composite_target, host_functions, target_of


def dissolve(composite: CompositeOp) -> list[Operation]:
    """Replace a composite by its body's ops (in place); returns them."""
    block = composite.body.block
    mapping: dict[SSAValue, SSAValue] = dict(zip(block.args, composite.inputs))
    ops: list[Operation] = []
    for inner in block.ops:
        if isinstance(inner, YieldOp):
            for res, v in zip(composite.outputs, inner.values):
                res.replace_all_uses_with(mapping[v])
            break
        clone = inner.clone(value_mapper=mapping)
        Rewriter.insert_op(clone, InsertPoint.before(composite))
        for old, new in zip(inner.results, clone.results):
            mapping[old] = new
        ops.append(clone)
    Rewriter.erase_op(composite)
    return ops


def annotate_block(block: Block, targets: tuple[TargetDescription, ...], known: TargetContext,
                   zero_copy: bool = True) -> None:
    names = {t.name for t in targets}
    constants: list[ConstantOp] = []
    for op in list(block.ops):
        if isinstance(op, func.ReturnOp):
            continue
        if isinstance(op, ConstantOp):
            constants.append(op)
            continue
        manual = target_of(op)
        if manual is not None:
            if isinstance(op, CompositeOp) and manual not in (HOST, composite_target(op.pattern.data)):
                raise CompileError(f"composite '{op.pattern.data}' cannot run on '{manual}'", op)
            _check_manual(op, manual, known, zero_copy)
            op.attributes[MANUAL_ATTR] = UnitAttr()
            continue
        if isinstance(op, CompositeOp):
            owner = composite_target(op.pattern.data)
            if owner in names:
                target = next(t for t in targets if t.name == owner)
                reason = cannot_run(op, target, zero_copy)
                op.attributes[TARGET_ATTR] = StringAttr(owner if reason is None else HOST)
                if reason is not None:
                    op.attributes[REASON_ATTR] = StringAttr(f"{owner}: {reason}")
                continue
            for inner in dissolve(op):
                if isinstance(inner, ConstantOp):
                    constants.append(inner)
                else:
                    _annotate_op(inner, targets, zero_copy)
            continue
        _annotate_op(op, targets, zero_copy)
    for c in constants:
        users = {target_of(u.operation) or HOST for u in c.result.uses}
        c.attributes[TARGET_ATTR] = StringAttr(users.pop() if len(users) == 1 else HOST)


def cannot_run(op: Operation, target: TargetDescription, zero_copy: bool) -> str | None:
    """Why `target` cannot run `op` (a composite of its own, or an op its description
    accepts): the lowering cannot (`lowerable`), or the smallest tiles of a compute op it
    lowers to do not fit the scratchpad (`misfit`); None: it can."""
    if not target.lowers_to_accel:
        return lowerable(op, target)
    lowered = lowering(op)
    return lowerable(op, target, lowered) or (None if isinstance(lowered, str) else misfit(lowered, target, zero_copy))


def runs_alone(op: Operation, target: TargetDescription, zero_copy: bool = True) -> bool:
    """Whether `target` takes `op` by one of its `[[ops]]` entries, as annotate-target
    decides (for the byoc rewrites that check what they would make before making it)."""
    return not isinstance(select_op(op, target), str) and cannot_run(op, target, zero_copy) is None


def one_target_runs(ops, targets) -> bool:
    """Whether one of `targets` runs every op of `ops` (`runs_alone`): what a byoc rewrite
    asks of the ops it would make before it makes them."""
    return any(all(runs_alone(o, t) for o in ops) for t in targets)


def _annotate_op(op: Operation, targets: tuple[TargetDescription, ...], zero_copy: bool) -> None:
    reasons: list[str] = []
    lowered: list[list[ComputePlan] | str] = []  # lowering(op), asked once: it does not depend on the target
    for target in targets:
        verdict = select_op(op, target)
        if not isinstance(verdict, str) and not target.lowers_to_accel:
            verdict = None  # api.lowering = "none": the entry (and its predicate) decide, the hook emits
        elif not isinstance(verdict, str):
            if not lowered:
                lowered.append(lowering(op))
            plans = lowered[0]
            verdict = plans if isinstance(plans, str) else misfit(plans, target, zero_copy)
        if verdict is None:
            op.attributes[TARGET_ATTR] = StringAttr(target.name)
            if reasons:  # why the targets listed before it declined (kept if merge-regions drops it)
                op.attributes[REASON_ATTR] = StringAttr("; ".join(reasons))
            return
        reasons.append(f"{target.name}: {verdict}")
    op.attributes[TARGET_ATTR] = StringAttr(HOST)
    op.attributes[REASON_ATTR] = StringAttr("; ".join(reasons))


def _check_manual(op: Operation, name: str, known: TargetContext, zero_copy: bool) -> None:
    """A manual mark the target's description or the lowering cannot honour is an error here,
    not a failure in a later pass."""
    if name == HOST:
        return
    try:
        target = known.named(name)
    except CompileError as e:
        raise CompileError(f"'{op.name}' op has accel.target = \"{name}\": {e.message}", op) from None
    verdict = None if isinstance(op, CompositeOp) else select_op(op, target)
    reason = verdict if isinstance(verdict, str) else cannot_run(op, target, zero_copy)
    if reason is not None:
        what = f"composite '{op.pattern.data}'" if isinstance(op, CompositeOp) else f"'{op.name}' op"
        raise CompileError(f"{what} has accel.target = \"{name}\", but {name} cannot run it: {reason}", op)


@dataclass(frozen=True)
class AnnotateTarget(ModulePass):
    """Mark every op with the first target that accepts it (accel.target), else host with the reasons (accel.reason)."""

    name = "annotate-target"

    targets: tuple[str, ...] = ()
    """Targets in priority order: built-in names or paths (default: --target)."""

    zero_copy: bool = True
    """Targets sharing host memory compute in place, untiled: their scratchpad is not
    checked (false: it is, for pipelines whose tile-for-scratchpad and insert-dma stage
    them through it, as `naive` does)."""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        known = target_context(ctx)
        targets = known.resolve(self.targets, self.name, "targets")
        for fn in host_functions(op):
            annotate_block(fn.body.block, targets, known, self.zero_copy)
