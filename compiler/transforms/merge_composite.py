"""merge-composite: wrap each match of a target's patterns into a `relay.composite`.

Patterns are tried in the order the target lists them: the FIRST listed wins (list longer
patterns first; the loader rejects a pattern that an earlier one always shadows). For one
pattern, candidate roots are visited in program order and each match takes its ops, so
later patterns and later roots only see what is left. A match is not taken when an
intermediate value is used outside it (a leaking intermediate), when one of its ops was
marked by the user with another `accel.target`, when the pattern's limits or predicate
reject it, or when the lowering cannot run the matched body (`fused_forms.lowerable_match`:
e.g. a pattern conv2d -> sigmoid, since sigmoid has no compute form); its ops then stay
single ops (or join a shorter pattern).

Weights stay operands of the composite: a composite is a pure function of its inputs, and
whether an input is a constant is visible through its defining `relay.constant`. The
composite takes the location of its anchor op (the conv of a QDQ conv).

Before (`merge-composite{target=npu}`):

    %0 = relay.nn.conv2d %x, %w : (...) -> tensor<1x8x8x8xf32>
    %1 = relay.nn.bias_add %0, %b : (...) -> tensor<1x8x8x8xf32>
    %2 = relay.nn.relu %1 : tensor<1x8x8x8xf32>

After:

    %2 = relay.composite "npu.conv2d_bias_relu" (%x, %w, %b) : (...) -> tensor<1x8x8x8xf32> {
    ^bb0(%a: tensor<1x3x8x8xf32>, %k: tensor<8x3x3x3xf32>, %c: tensor<8xf32>):
      %3 = relay.nn.conv2d %a, %k : (...) -> tensor<1x8x8x8xf32>
      %4 = relay.nn.bias_add %3, %c : (...) -> tensor<1x8x8x8xf32>
      %5 = relay.nn.relu %4 : tensor<1x8x8x8xf32>
      relay.yield %5 : tensor<1x8x8x8xf32>
    }
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp, StringAttr
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from accel.compiler.targets import TargetDescription, target_context
from accel.compiler.targets.fused_forms import lowerable_match
from accel.compiler.targets.patterns import Match
from accel.compiler.targets.support import check_match_limits, check_pattern_predicate
from accel.dialects.relay import CompositeOp, YieldOp
from accel.dialects.conventions import TARGET_ATTR, host_functions, target_of


def build_composite(match: Match, composite_name: str) -> CompositeOp:
    """A detached composite computing `match`: its body clones the matched ops."""
    root = match.root
    block = Block(arg_types=[v.type for v in match.inputs])
    mapping: dict[SSAValue, SSAValue] = dict(zip(match.inputs, block.args))
    for op in match.ops:  # pattern body order is a topological order
        clone = op.clone(value_mapper=mapping)
        clone.attributes.pop(TARGET_ATTR, None)
        block.add_op(clone)
        for old, new in zip(op.results, clone.results):
            mapping[old] = new
    block.add_op(YieldOp(*[mapping[r] for r in root.results]))
    composite = CompositeOp(composite_name, match.inputs, [r.type for r in root.results], Region(block))
    composite.location = match.anchor.location
    return composite


def merge_block(block: Block, target: TargetDescription) -> int:
    """Apply the target's patterns to one block; returns the number of composites."""
    by_name: dict[str, list[Operation]] = defaultdict(list)
    for op in block.ops:
        by_name[op.name].append(op)
    taken: set[Operation] = set()

    def usable(op: Operation) -> bool:
        if op in taken or op.parent is not block:
            return False
        manual = target_of(op)
        return manual is None or manual == target.name

    count = 0
    for spec in target.patterns:
        for root in by_name.get(spec.pattern.root.name, ()):
            if root in taken:
                continue
            match = spec.pattern.match(root, usable=usable)
            if match is None:
                continue
            if check_match_limits(spec, target, match.ops, match.inputs, match.root.results) is not None:
                continue
            if lowerable_match(match.ops, match.inputs, match.root.results, target) is not None:
                continue
            manual = any(target_of(op) == target.name for op in match.ops)
            if spec.predicate_fn is None:
                composite = _move_into_composite(match, spec.composite, taken)
            else:
                # The predicate sees the composite before anything changes: build a copy.
                composite = build_composite(match, spec.composite)
                if check_pattern_predicate(composite, spec, target) is not None:
                    composite.erase()
                    continue
                _replace_by_copy(match, composite, taken)
            if manual:
                composite.attributes[TARGET_ATTR] = StringAttr(target.name)
            count += 1
    return count


def _move_into_composite(match: Match, composite_name: str, taken: set[Operation]) -> CompositeOp:
    """Build the composite by moving the matched ops into its body (cheaper than a
    copy); `{accel.duplicate}` ops are copied and stay while others use them."""
    root = match.root
    body = Block(arg_types=[v.type for v in match.inputs])
    composite = CompositeOp(composite_name, match.inputs, [r.type for r in root.results], Region(body))
    composite.location = match.anchor.location
    Rewriter.insert_op(composite, InsertPoint.before(root))
    for old, new in zip(root.results, composite.outputs):
        old.replace_all_uses_with(new)
    mapping: dict[SSAValue, SSAValue] = dict(zip(match.inputs, body.args))
    for node, op in zip(match.pattern.nodes, match.ops):  # a topological order
        if node.duplicate:
            clone = op.clone(value_mapper=mapping)
            clone.attributes.pop(TARGET_ATTR, None)
            body.add_op(clone)
            mapping.update(zip(op.results, clone.results))
            continue
        op.detach()
        op.operands = [mapping.get(v, v) for v in op.operands]
        op.attributes.pop(TARGET_ATTR, None)
        body.add_op(op)
        taken.add(op)
    body.add_op(YieldOp(*root.results))
    for node, op in zip(match.pattern.nodes, match.ops):
        if node.duplicate and not any(r.uses for r in op.results):
            taken.add(op)
            Rewriter.erase_op(op)
    return composite


def _replace_by_copy(match: Match, composite: CompositeOp, taken: set[Operation]) -> None:
    root = match.root
    Rewriter.insert_op(composite, InsertPoint.before(root))
    for old, new in zip(root.results, composite.outputs):
        old.replace_all_uses_with(new)
    # Erase users before producers; a duplicated op stays while others still use it.
    for node, op in reversed(list(zip(match.pattern.nodes, match.ops))):
        if node.duplicate and any(r.uses for r in op.results):
            continue
        taken.add(op)
        Rewriter.erase_op(op)


@dataclass(frozen=True)
class MergeComposite(ModulePass):
    """Group each match of the target's composite patterns into a relay.composite."""

    name = "merge-composite"

    target: tuple[str, ...] = ()
    """Targets in priority order: built-in names or .toml paths (default: --target)."""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for target in target_context(ctx).resolve(self.target, self.name):
            for fn in host_functions(op):
                merge_block(fn.body.block, target)
