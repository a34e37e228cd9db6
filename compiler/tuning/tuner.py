"""The tune: tasks of a model, a budget split by their share of the cycles, a search per
task, measurements on an executor, every result appended to the log.

    summary = tune("model.onnx", "npu", "log.json", trials=64, strategy="model", executor=ex)

1. The model is compiled to the accel level (`full` up to `lower-to-accel`) and its
   tunable ops grouped into distinct tasks (compiler/tuning/tasks.py).
2. Each task's default (`{}`: the heuristics) is measured first; a task's weight is its
   default cycles times its instances over the sum: its share of the model's
   accelerator cycles.
3. The `trials` measurements (beyond the defaults) are split by weight; a task below
   `min_share` of the cycles gets none (light kernels are not worth tuning). Every round
   each task with budget left proposes up to `jobs` candidates (search.py), all of them
   measured in parallel; the learned model is refitted between rounds.
4. Resume: measurements already in the log count against their task's budget and are
   never repeated; a log for another version of a target is refused.
5. The whole model decides (`select_in_model`): a task measured with its neighbours
   only can gain alone and lose in the model (its neighbours' transfers were already
   overlapped there by optimize-dma's prefetching, a chain cut differently changes what
   stays on the device). From the faster of all defaults and all fastest measurements,
   tasks by share, each tries its default and fastest measured configurations in the
   whole model (the compile report's cycle estimate: the
   simulator's two-engine timeline replayed on the IR, which the simulator counts the
   same) with the other tasks at their choice so far, and keeps one only when the model
   gets faster; the choices are `selected` records, so the tuned model is never slower
   than the default.
"""

from __future__ import annotations

import math
import os
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from accel.compiler.compile_report import build_report
from accel.compiler.driver import compile_module, load_model, make_context
from accel.compiler.frontend.graph_inputs import GraphInputs
from accel.compiler.pipeline import with_tuning_log
from accel.compiler.targets.tuning_space import FUSION_KIND, TILE_KNOBS
from accel.compiler.tuning.executors import Executor
from accel.compiler.tuning.log import LogWriter, Record, TuningLog, config_key, fingerprint, read_log
from accel.compiler.tuning.fusion import fusion_features, fusion_kind_space, fusion_space, module_fusion_tasks
from accel.compiler.tuning.measure import FUSION_TASK_PIPELINE, TASK_PIPELINE, Request, Result
from accel.compiler.tuning.search import STRATEGIES, TaskSearch, fit_model, propose
from accel.compiler.tuning.space import analytic_cycles, extents, space_of
from accel.compiler.tuning.tasks import Task, distinct_tasks, module_tasks
from accel.compiler.diagnostics import CompileError

TO_ACCEL = "canonicalize,byoc,bufferize,plan-memory,lower-to-accel"
SELECT_CANDIDATES = 3
"""Measured configurations per task that the whole-model selection tries (its fastest)."""


@dataclass
class TaskResult:
    task: Task
    share: float
    default: int | None
    best: int | None
    config: dict
    measured: int
    space: int


@dataclass
class Summary:
    tasks: list[TaskResult] = field(default_factory=list)
    measurements: int = 0
    failures: int = 0
    seconds: float = 0.0
    model_default: int = 0
    """The whole model's cycle estimate without the log, and with it (after the check)."""
    model_tuned: int = 0

    @property
    def predicted_speedup(self) -> float:
        d = sum((t.default or 0) * t.task.instances for t in self.tasks)
        b = sum((t.best or t.default or 0) * t.task.instances for t in self.tasks)
        return d / b if b else 1.0


class Progress:
    """What the tune reports as it goes (the tool shows it on a terminal)."""

    def start(self, tasks: int, trials: int) -> None: ...

    def update(self, tasks_done: int, trials_done: int, best_speedup: float) -> None: ...

    def finish(self) -> None: ...


FEATURES = ("channel_tile", "row_tile", "feature_tile", "k_tile", "outer_tile", "tiles", "analytic", "default",
            "double_buffer", "prefetch", "resident_input", "channels", "rows", "matmul", "eltwise", "common_knobs",
            "fusion", "fused_ops", "segments", "stripes")
"""The learned model's inputs, one layout for every task (it is fitted across tasks)."""


def features(op, config: dict, analytic: float, kind: str) -> list[float]:
    """`op` is the chain of a fusion task."""
    if kind == FUSION_KIND:
        slots = {**fusion_features(op, config), "fusion": 1.0}
    else:
        ext = extents(op)
        names = TILE_KNOBS[kind]
        slots = {n: config[n] / ext[n] if n in config else 1.0
                 for n in ("channel_tile", "row_tile", "feature_tile", "k_tile", "outer_tile")}
        slots.update({
            "tiles": math.log(math.prod(-(-ext[n] // config[n]) for n in names if n in config)),
            "default": float(not config), "double_buffer": float(config.get("double_buffer", True)),
            "prefetch": float(config.get("prefetch", -1)), "resident_input": float(config.get("resident") == "input"),
            "channels": math.log(ext.get("channel_tile", 1)), "rows": math.log(ext.get("row_tile", 1)),
            "matmul": float(kind == "matmul"), "eltwise": float(kind == "eltwise"),
            "common_knobs": float(len(config) - sum(1 for n in names if n in config)),
        })
    slots["analytic"] = math.log(max(analytic, 1.0))
    return [slots.get(n, 0.0) for n in FEATURES]


def extract_tasks(model: str, target: str, inputs: GraphInputs | None = None):
    """(tasks, the first instance of each task by key, the context, the module) of a
    model; an instance is an op, or (chain, entries) for a fusion task."""
    ctx = make_context(target)
    module = load_model(model, ctx, inputs)
    module, _ = compile_module(module, ctx, TO_ACCEL)
    pairs = module_tasks(module)
    ops: dict = {}
    for op, task in pairs:
        ops.setdefault(task.key, op)
    for chain, entries, task in module_fusion_tasks(module):
        if fusion_kind_space(ctx.targets.named(task.target, chain[0])) is not None:
            pairs.append((chain[0], task))
            ops.setdefault(task.key, (chain, entries))
    return distinct_tasks(pairs), ops, ctx, module


def _anchor(instance):
    """The op that names a task instance's region (a fusion task's first op)."""
    return instance[0][0] if isinstance(instance, tuple) else instance


def task_space(task: Task, instance, desc) -> tuple[list[dict], list[float], list[list[float]]]:
    """(configurations, analytic estimates, features) of a task's space."""
    if task.kind == FUSION_KIND:
        chain, entries = instance
        pairs = fusion_space(chain, entries, desc)
        return ([c for c, _ in pairs], [e for _, e in pairs],
                [features(chain, c, e, task.kind) for c, e in pairs])
    configs = space_of(instance, desc)
    est = [analytic_cycles(instance, c, desc) for c in configs]
    return configs, est, [features(instance, c, e, task.kind) for c, e in zip(configs, est)]


def tune(model: str, target: str, log_path: str, executor: Executor, trials: int = 64, strategy: str = "model",
         progress: Progress | None = None, inputs: GraphInputs | None = None, seed: int = 0, min_share: float = 0.01,
         timeout: float = 120.0, on_result: Callable[[Task, dict, Result], None] | None = None) -> Summary:
    if strategy not in STRATEGIES:
        raise CompileError(f"unknown strategy '{strategy}' (expected one of: {', '.join(STRATEGIES)})")
    start = time.perf_counter()
    progress = progress or Progress()
    tasks, ops, ctx, _ = extract_tasks(model, target, inputs)
    descs = {t.target: ctx.targets.named(t.target, _anchor(ops[t.key])) for t in tasks}
    log = read_log(log_path) if os.path.exists(log_path) and os.path.getsize(log_path) > 0 else TuningLog(log_path)
    for desc in descs.values():
        log.check_target(desc)
    writer = LogWriter(log_path, {name: fingerprint(d) for name, d in descs.items()})
    summary = Summary()
    searches: dict[str, TaskSearch] = {}
    for i, t in enumerate(tasks):
        configs, est, feats = task_space(t, ops[t.key], descs[t.target])
        searches[t.key] = TaskSearch(configs, est, feats, seed + i)
        for rec in log.measured(t.key).values():
            searches[t.key].record(rec.config, rec.cycles)
    by_key = {t.key: t for t in tasks}

    def request(t: Task, config: dict) -> Request:
        return Request(t.text, tuple(t.weights), target_spec(descs[t.target], target), config, t.centre, timeout,
                       FUSION_TASK_PIPELINE if t.kind == FUSION_KIND else TASK_PIPELINE)

    def run(batch: list[tuple[Task, dict]]) -> None:
        reqs = {id(r): (t, r) for t, c in batch for r in [request(t, c)]}
        for req, result in executor.run([r for _, r in reqs.values()]):
            t = reqs[id(req)][0]
            writer.append(Record(t.key, t.target, t.summary, t.instances, req.config, result.cycles, result.error))
            searches[t.key].record(req.config, result.cycles)
            summary.measurements += 1
            summary.failures += result.cycles is None
            if on_result is not None:
                on_result(t, req.config, result)
            done[0] += 1
            progress.update(tasks_done[0], done[0], speedup())

    def speedup() -> float:
        d = b = 0.0
        for t in tasks:
            s = searches[t.key]
            default = s.measured.get(0)
            best = s.best()
            if default and best is not None:
                d += default * t.instances
                b += s.measured[best] * t.instances
        return d / b if b else 1.0

    done, tasks_done = [0], [0]
    share: dict[str, float] = {}
    try:
        defaults = [(t, {}) for t in tasks if 0 not in searches[t.key].measured]
        progress.start(len(tasks), len(defaults) + trials)
        run(defaults)
        total = sum((searches[t.key].measured.get(0) or 0) * t.instances for t in tasks) or 1
        share = {t.key: (searches[t.key].measured.get(0) or 0) * t.instances / total for t in tasks}
        budget = _split_budget(trials, tasks, share, searches, min_share)
        learned = None
        while True:
            batch = []
            for t in sorted(tasks, key=lambda t: -share[t.key]):
                left = budget[t.key]
                if left <= 0:
                    continue
                picked = propose(strategy, searches[t.key], min(left, executor.jobs), learned)
                if not picked:
                    budget[t.key] = 0
                budget[t.key] -= len(picked)
                batch += [(t, c) for c in picked]
            if not batch:
                break
            run(batch)
            tasks_done[0] = sum(1 for t in tasks if budget[t.key] <= 0)
            if strategy == "model":
                learned = fit_model(list(searches.values()))
        tasks_done[0] = len(tasks)
        progress.update(tasks_done[0], done[0], speedup())
        summary.model_default, summary.model_tuned = select_in_model(
            model, target, log_path, writer, tasks, share, inputs)
    finally:
        writer.close()
        progress.finish()
    final = read_log(log_path)
    for t in tasks:
        s = searches[t.key]
        chosen, _ = final.best(t.key)
        best = s.index.get(config_key(chosen.config)) if chosen is not None else None
        summary.tasks.append(TaskResult(
            by_key[t.key], share.get(t.key, 0.0), s.measured.get(0),
            s.measured[best] if best is not None else None, s.configs[best] if best is not None else {},
            len(s.measured), len(s.configs)))
    summary.seconds = time.perf_counter() - start
    return summary


def model_estimate(model: str, target: str, log: str | None, inputs: GraphInputs | None = None) -> int:
    """The whole model's cycle estimate, compiled with `log` applied (or without)."""
    ctx = make_context(target)
    module = load_model(model, ctx, inputs)
    module, _ = compile_module(module, ctx, with_tuning_log("full", log) if log else "full")
    return int(build_report(module, ctx.targets.descriptions, None, {})["cycles"]["estimate"])


def select_in_model(model: str, target: str, log_path: str, writer: LogWriter, tasks: list[Task],
                    share: dict[str, float], inputs: GraphInputs | None = None, candidates: int = SELECT_CANDIDATES) -> tuple[int, int]:
    """Choose each task's configuration by the whole model's estimate. The start is the
    faster of every task at its default and every task at its fastest measurement (gains
    can need each other: tiled neighbours keep a stream going); then tasks by share, each
    tries its default and its `candidates` fastest measured configurations with every
    other task at its choice so far, keeping the one that makes the model fastest. The
    choices are recorded (`selected`) in the log; returns (default, tuned) model
    estimates, tuned <= default."""
    log = read_log(log_path)
    options: dict[str, list[Record]] = {}
    for t in tasks:
        measured = [r for r in log.records if r.task == t.key and r.cycles is not None and not r.selected]
        base = next((r for r in measured if not r.config), None)
        if base is not None:
            faster = sorted((r for r in measured if r.config and r.cycles < base.cycles), key=lambda r: r.cycles)
            options[t.key] = [base, *faster[:candidates]]
    with tempfile.TemporaryDirectory(prefix="accel-tune-select-") as tmp:
        probe_path = os.path.join(tmp, "probe.json")

        def estimate_with(choice: dict[str, Record]) -> int:
            probe = LogWriter(probe_path, log.targets)
            try:
                for r in choice.values():
                    probe.append(Record(r.task, r.target, r.op, r.instances, r.config, r.cycles, selected=True))
            finally:
                probe.close()
            try:
                return model_estimate(model, target, probe_path, inputs)
            finally:
                os.remove(probe_path)

        default = model_estimate(model, target, None, inputs)
        chosen = {k: rs[0] for k, rs in options.items()}
        current = default
        fastest = {k: rs[1] if len(rs) > 1 else rs[0] for k, rs in options.items()}
        if fastest != chosen:
            together = estimate_with(fastest)
            if together < current:
                current, chosen = together, fastest
        for t in sorted(tasks, key=lambda t: -share.get(t.key, 0.0)):
            for r in options.get(t.key, [])[:1 + candidates]:
                if r is chosen[t.key]:
                    continue
                cycles = estimate_with({**chosen, t.key: r})
                if cycles < current:
                    current, chosen[t.key] = cycles, r
    for t in tasks:
        pick = chosen.get(t.key)
        if pick is not None:
            writer.append(Record(t.key, t.target, t.summary, t.instances, pick.config, pick.cycles, selected=True))
    return default, current


def _split_budget(trials: int, tasks: list[Task], share: dict[str, float], searches: dict[str, TaskSearch],
                  min_share: float) -> dict[str, int]:
    """Trials per task by share of the cycles (tasks below `min_share` get none; what
    rounding leaves goes one each to the largest), less what the log already holds,
    capped by the space."""
    worth = [t for t in tasks if share[t.key] >= min_share]
    weight = sum(share[t.key] for t in worth) or 1.0
    budget = {t.key: 0 for t in tasks}
    for t in worth:
        budget[t.key] = int(trials * share[t.key] / weight)
    spare = trials - sum(budget.values())
    for t in sorted(worth, key=lambda t: -share[t.key]):
        if spare <= 0:
            break
        budget[t.key] += 1
        spare -= 1
    for t in tasks:
        s = searches[t.key]
        already = sum(1 for i in s.measured if i != 0)
        budget[t.key] = max(0, min(budget[t.key] - already, len(s.configs) - len(s.measured)))
    return budget


def target_spec(desc, given: str) -> str:
    """How a worker names the target: the built-in name, or the description's path."""
    return desc.name if desc.name in [g.strip() for g in given.split(",")] else desc.path
