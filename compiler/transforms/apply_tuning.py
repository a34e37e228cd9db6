"""apply-tuning: put a tuning log's best configuration on each op of a task it tuned.

Runs on the logical accel form (after `lower-to-accel`, before `fuse-layers` and
`tile-for-scratchpad`), which read the configuration (`accel.tuning`) as `optimize-dma`
does later. Each tunable compute op is matched with the log by its task key
(compiler/tuning/tasks.py), each chain of fuse-layers by its fusion task's key
(compiler/tuning/fusion.py: its ops get `fuse` / `stripe_rows`); an op or chain whose
task the log does not hold keeps the heuristics. The log must have been
tuned for this version of the target description, and the configuration must still be
in the target's space and fit the scratchpad: otherwise the pass fails with one line
naming the log and the task (a stale entry is never silently used). The module records
what was applied (`accel.tuned`, report.json's `tuning`).

Before (`log` holds {"row_tile": 4} as the best of this conv's task):

    accel.conv2d ins(%x, %w : ...) outs(%y : ...) {padding = [1, 1, 1, 1]} attributes {accel.entry = "patterns[16]"}

After:

    accel.conv2d ins(%x, %w : ...) outs(%y : ...) {padding = [1, 1, 1, 1]} attributes {accel.entry = "patterns[16]", accel.tuning = {row_tile = 4 : i64}}
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ArrayAttr, DictionaryAttr, IntegerAttr, ModuleOp, StringAttr, i64
from xdsl.passes import ModulePass

from accel.compiler.diagnostics import CompileError
from accel.compiler.targets.context import target_context
from accel.compiler.tuning.log import read_log
from accel.compiler.tuning.fusion import check_fusion, module_fusion_tasks, set_fusion
from accel.compiler.tuning.space import check_config
from accel.compiler.tuning.tasks import module_tasks
from accel.dialects.conventions import PLACEMENT_ATTR, TUNED_ATTR, accelerator_functions, set_tuning, tuning_of


@dataclass(frozen=True)
class ApplyTuning(ModulePass):
    """Configure each tuned op with its task's best measured configuration."""

    name = "apply-tuning"

    log: str = ""
    """The tuning log (accel-tune -o); empty: nothing is applied."""

    target: tuple[str, ...] = ()
    """Descriptions (names or .toml paths) to load for the regions' `accel.target` names;
    by default the compile's targets, then built-ins by name."""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        if not self.log:
            return
        known = target_context(ctx)
        known.load(self.target)
        log = read_log(self.log)
        for fn, name in accelerator_functions(op):
            if PLACEMENT_ATTR in fn.attributes:
                raise CompileError(f"apply-tuning: @{fn.sym_name.data} is already placed (run it before insert-dma)", fn)
        checked: set[str] = set()
        applied: dict[str, dict] = {}
        # (op, chain and entries of a fusion task, task); keys first, configurations after.
        instances = [(c, None, None, task) for c, task in module_tasks(op)]
        instances += [(chain[0], chain, entries, task) for chain, entries, task in module_fusion_tasks(op)]
        for c, chain, entries, task in instances:
            desc = known.named(task.target, c)
            if task.target not in checked:
                log.check_target(desc)
                checked.add(task.target)
            best, default = log.best(task.key)
            if best is None:
                continue
            if best.target != task.target:
                raise CompileError(f"{self.log}: task {task.key} ({task.summary}) was tuned for target "
                                   f"'{best.target}', this op runs on '{task.target}'")
            if best.config:
                why = check_config(c, best.config, desc) if chain is None else \
                    check_fusion(chain, entries, best.config, desc)
                if why is not None:
                    raise CompileError(f"{self.log}: task {task.key} ({task.summary}): configuration "
                                       f"{json.dumps(best.config, sort_keys=True)} rejected: {why}; rerun accel-tune", c)
                if chain is None:
                    set_tuning(c, {**(tuning_of(c) or {}), **best.config})
                else:
                    set_fusion(chain, best.config)
            entry = applied.setdefault(task.key, {"op": task.summary, "target": task.target, "instances": 0,
                                                  "config": json.dumps(best.config, sort_keys=True),
                                                  "tuned_cycles": best.cycles,
                                                  "default_cycles": default.cycles if default else best.cycles})
            entry["instances"] += 1
        if applied:
            op.attributes[TUNED_ATTR] = ArrayAttr([
                DictionaryAttr({"task": StringAttr(key), **{
                    k: StringAttr(v) if isinstance(v, str) else IntegerAttr(v, i64) for k, v in e.items()}})
                for key, e in applied.items()
            ])
