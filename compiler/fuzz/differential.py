"""Differential fuzzing of the whole pipeline: random graph + random target description +
random pipeline, compiled to C, run on the simulator, compared with the reference
interpreter; a failure is minimised with hypothesis' shrinker and written as a
regression case.

A case (`FuzzCase`, drawn by `fuzz_cases`) is

- a valid relay graph (`accel.compiler.fuzz.graphs.relay_graphs`): every op kind, or a
  random handful of them (so accelerator ops meet each other often); float and int8;
  random shapes, branches and several outputs;
- one or two target descriptions derived from `npu`, `npu-shared`, `dsp`
  (`accel.compiler.fuzz.targets`: random scratchpad size, op subset, pattern subset);
- a pipeline: `full`, `naive` or `byoc` (completed by `lower`), the byoc cost model on
  or off.

`check_case` compiles it with `compile_to_directory` (what accel-compile does), runs it
with `run_directory` (accel-run) and compares every output with `run_function` on the
graph. Outcomes: `passed`; `refused: <reason>` (a `CompileError` that is the compiler's
documented answer, `REFUSALS`); or a failure:
`mismatch`, `compile-error` (any other CompileError), `run-error` (the C build or the
simulator failed) or `crash` (any other exception: a compiler bug by definition).

Tolerances (`compare`): float outputs within 1e-4 * max|reference| + 1e-5 (C's libm and
summation order against numpy's); graphs with quantized ops get one quantization step
more (the largest dequantize scale), int8 outputs may differ by 1 step: the
accelerators' integer forms round the exact int32 result, the reference rounds float32
arithmetic, and a value next to a rounding boundary may go either way. Graphs that round
values to float16 (a cast) get one float16 step of the output's largest magnitude more
(`HALF_STEP` of it) for the same reason: a float32 result one ulp from the reference's,
next to a float16 rounding boundary, rounds to the neighbouring half.

Minimisation (`minimise`): the case's hypothesis choice sequence is shrunk while the case
still fails the same way (same `Failure.origin`): fewer ops, smaller shapes, simpler
properties, a simpler target and pipeline. Deterministic: case `i` of seed `s` is drawn
from `Random(s * 2**32 + i)`.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import tempfile
import time
import traceback
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from random import Random

import numpy as np
from hypothesis import HealthCheck, Phase, Verbosity, settings
from hypothesis import strategies as st
from hypothesis.control import BuildContext
from hypothesis.errors import StopTest
from hypothesis.internal.conjecture import providers
from hypothesis.internal.conjecture.data import ConjectureData, Status
from hypothesis.internal.conjecture.engine import ConjectureRunner, RunIsComplete
from xdsl.dialects.builtin import Float16Type

from accel.compiler.diagnostics import CompileError
from accel.compiler.driver import compile_to_directory, print_ir
from accel.compiler.fuzz.graphs import ALL_OP_KINDS, NEW_OP_KINDS, OP_KINDS, QUANTIZED_OPS, RelayGraph, relay_graphs
from accel.compiler.fuzz.targets import DerivedTarget, derived_targets
from accel.compiler.runtime.interpreter import run_function
from accel.compiler.runtime.run_compiled import run_directory
from accel.compiler.tensors import constant_value
from accel.dialects import relay

PIPELINES = ("full", "naive", "byoc")
TARGET_SETS = (("npu",), ("npu-shared",), ("dsp",), ("npu", "dsp"), ("npu-shared", "dsp"), ("npu-cmd",),
               ("npu-cmd", "dsp"))
"""What one compile may target (npu and npu-shared share their C prefix: one at a time;
npu-cmd, the npu driven by command streams, is decoded and run by the simulator's stream
engine)."""
REFUSALS = {
    "host rank": re.compile(r"the host kernels take at most \d+ dimensions"),
}
"""CompileErrors that are the compiler's documented answer to a valid case: a shape of
more dimensions than the host kernels take (`c_emitter.HOST_MAX_RANK`). A scratchpad too
small is none: annotate-target keeps an op whose smallest tiles do not fit on the host
(`tile_plan.misfit`, tile-for-scratchpad's own planner) and the copies of a
concatenation's inputs are tiled, so a compile that runs out of scratchpad is a failure."""

FLOAT_RTOL = 1e-4
FLOAT_ATOL = 1e-5
HALF_STEP = 2.0 ** -10
"""The spacing of float16 values relative to their magnitude, at most (10 mantissa bits)."""

# --------------------------------------------------------------------------------------
# The case
# --------------------------------------------------------------------------------------


@dataclass
class FuzzCase:
    graph: RelayGraph
    targets: list[DerivedTarget]
    pipeline: str
    cost_model: bool

    def pipeline_spec(self) -> str:
        """The `-p` argument: a named pipeline, with `byoc{cost-model=false}` spelled out
        when the cost model is off."""
        if self.cost_model:
            return self.pipeline
        stages = {"full": "byoc{cost-model=false},lower", "byoc": "byoc{cost-model=false}",
                  "naive": "canonicalize,byoc{cost-model=false zero-copy=false},bufferize,plan-memory,lower-to-accel,"
                           "tile-for-scratchpad{zero-copy=false double-buffer=false},insert-dma{zero-copy=false},"
                           "plan-memory"}
        spec = stages[self.pipeline]
        return spec if spec.startswith("canonicalize") else "canonicalize," + spec

    def describe(self) -> str:
        tgts = ", ".join(f"{t.base}(spm={t.scratchpad_bytes}, ops={t.ops}, patterns={t.patterns})" for t in self.targets)
        return f"{len(self.graph.kinds)} ops {self.graph.kinds}; targets {tgts}; -p {self.pipeline_spec()}"


KIND_SETS = {"all": ALL_OP_KINDS, "classic": OP_KINDS, "new": NEW_OP_KINDS}
"""What `--kinds` names: every kind the generator has; the classic ones alone (the cases
of the seeds run before the newer kinds came: `accel-fuzz --kinds classic --seed S
--start I -n 1` replays them); or the newer ones alone (scans, top k, bit ops, det,
gathers and scatters, the image and vision ops: their kernels meet each other)."""


@st.composite
def fuzz_cases(draw, max_ops: int = 8, kinds: str = "all") -> FuzzCase:
    pool = KIND_SETS[kinds]
    # Half the cases draw from a handful of kinds: accelerator ops then meet each other
    # (and the patterns) far more often than among all kinds.
    if draw(st.booleans()):
        kinds = draw(st.sets(st.sampled_from(pool), min_size=2, max_size=6))
    else:
        kinds = set(pool)
    graph = draw(relay_graphs(max_ops=max_ops, ops=sorted(kinds)))
    bases = draw(st.sampled_from(TARGET_SETS))
    targets = [draw(derived_targets(bases=(b,))) for b in bases]
    return FuzzCase(graph, targets, draw(st.sampled_from(PIPELINES)), draw(st.booleans()))


class Unsuitable(Exception):
    """The drawn kinds build no graph from the drawn inputs: draw another case."""


def draw_case(data: ConjectureData, max_ops: int, kinds: str = "all") -> FuzzCase:
    try:
        with BuildContext(data, wrapped_test=draw_case):
            return data.draw(fuzz_cases(max_ops=max_ops, kinds=kinds))
    except ValueError as e:  # relay_graphs: none of the kinds applies
        if "applies to the drawn inputs" not in str(e):
            raise
        raise Unsuitable(str(e)) from None


# --------------------------------------------------------------------------------------
# Checking a case
# --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Failure(Exception):
    kind: str
    """mismatch | compile-error | run-error | crash"""
    message: str
    origin: str
    """What makes two failures the same bug (kept while minimising)."""

    def __str__(self) -> str:
        return f"{self.kind}: {self.message}"


def _origin_of_message(kind: str, message: str) -> str:
    # Numbers (shapes, sizes, offsets) change while shrinking; the words do not.
    return f"{kind}: " + re.sub(r"\d+", "N", message)[:120]


def _crash(e: BaseException) -> Failure:
    frames = traceback.extract_tb(e.__traceback__)
    where = next((f for f in reversed(frames) if "/accel/" in f.filename or "/compiler/" in f.filename), frames[-1] if frames else None)
    loc = f"{os.path.basename(where.filename)}:{where.name}" if where else "?"
    message = f"{type(e).__name__} in {loc}: {e}".splitlines()[0][:300]
    return Failure("crash", message, f"crash: {type(e).__name__} in {loc}")


def rounds_to_half(graph: RelayGraph) -> bool:
    """Whether the graph casts values to float16."""
    return any(isinstance(op, relay.CastOp) and op.results[0].type.element_type == Float16Type()
               for op in graph.module.walk())


def dequantize_step(graph: RelayGraph) -> float:
    """The largest scale of any dequantize in the graph (0 if it has none)."""
    step = 0.0
    for op in graph.module.walk():
        if isinstance(op, relay.DequantizeOp) and isinstance(op.scale.owner, relay.ConstantOp):
            step = max(step, float(np.max(constant_value(op.scale.owner))))
    return step


def compare(got: dict[str, np.ndarray], want: dict[str, np.ndarray], quantized: bool, step: float,
            half: bool = False) -> str | None:
    """None if `got` matches the reference `want` within the tolerances (module
    docstring), else what differs."""
    if list(got) != list(want):
        return f"outputs {list(got)}, want {list(want)}"
    for name, ref in want.items():
        out = got[name]
        if out.shape != ref.shape or out.dtype != ref.dtype:
            return f"{name}: {out.dtype}{list(out.shape)}, want {ref.dtype}{list(ref.shape)}"
        if ref.size == 0:
            continue
        if ref.dtype.kind in "iub":
            diff = int(np.max(np.abs(out.astype(np.int64) - ref.astype(np.int64))))
            if diff > (1 if quantized else 0):
                return f"{name}: differs by {diff} steps"
            continue
        if not np.array_equal(np.isnan(out), np.isnan(ref)):
            return f"{name}: NaNs at other places"
        finite = np.isfinite(ref)
        infinite = ~finite & ~np.isnan(ref)
        if not np.array_equal(out[infinite], ref[infinite]):
            return f"{name}: infinities differ"
        if not finite.any():
            continue
        err = float(np.max(np.abs(out[finite].astype(np.float64) - ref[finite].astype(np.float64))))
        largest = float(np.max(np.abs(ref[finite])))
        tol = FLOAT_RTOL * largest + FLOAT_ATOL + (step if quantized else 0.0) + (HALF_STEP * largest if half else 0.0)
        if not err <= tol:
            return f"{name}: max error {err:.3g} > {tol:.3g}"
    return None


@dataclass
class Written:
    """A case's files: the graph, its inputs, the target descriptions."""

    graph: str
    inputs: str
    targets: list[str]


def write_case(case: FuzzCase, directory: str) -> Written:
    os.makedirs(directory, exist_ok=True)
    graph = os.path.join(directory, "graph.mlir")
    with open(graph, "w") as f:
        f.write(print_ir(case.graph.module))
    inputs = os.path.join(directory, "inputs.npz")
    np.savez(inputs, **case.graph.inputs)
    return Written(graph, inputs, [t.write(directory) for t in case.targets])


def check_case(case: FuzzCase, workdir: str) -> str:
    """'passed' or 'refused: <reason>', else raises `Failure`."""
    quantized = any(k in QUANTIZED_OPS for k in case.graph.kinds)
    try:
        expected = run_function(case.graph.module, case.graph.inputs)
    except Exception as e:  # the generator promises graphs the reference runs
        raise Failure("crash", f"reference interpreter: {type(e).__name__}: {e}"[:300],
                      f"crash: reference {type(e).__name__}") from None
    files = write_case(case, workdir)
    out = os.path.join(workdir, "out")
    try:
        compile_to_directory(files.graph, ",".join(files.targets), out, case.pipeline_spec())
    except CompileError as e:
        for reason, pattern in REFUSALS.items():
            if pattern.search(e.message):
                return f"refused: {reason}"
        raise Failure("compile-error", str(e), _origin_of_message("compile-error", e.message)) from None
    except Exception as e:
        raise _crash(e) from None
    try:
        got, _ = run_directory(out, case.graph.inputs, timeout=120)
    except CompileError as e:
        raise Failure("run-error", str(e), _origin_of_message("run-error", e.message)) from None
    except Exception as e:
        raise _crash(e) from None
    diff = compare(got, expected, quantized, dequantize_step(case.graph), rounds_to_half(case.graph))
    if diff is not None:
        raise Failure("mismatch", diff, "mismatch")
    return "passed"


# --------------------------------------------------------------------------------------
# Drawing, minimising, reporting
# --------------------------------------------------------------------------------------

QUIET = settings(database=None, deadline=None, verbosity=Verbosity.quiet, phases=[Phase.shrink],
                 suppress_health_check=list(HealthCheck))


@contextmanager
def seed_alone() -> Iterator[None]:
    """Draws that depend on the seed (and hypothesis's version) alone. Hypothesis takes
    about one number in twenty from the literals of the "local" modules the process has
    loaded (ours): a case of a seed changed with any literal of the compiler's source and
    with what the process had imported (the fuzz tool and the test suite drew different
    cases of one seed, and minimised one case differently). Inside, that pool is empty."""
    saved = providers._get_local_constants
    empty = providers.Constants()
    providers._get_local_constants = lambda: empty
    providers.CONSTANTS_CACHE.cache.clear()
    try:
        yield
    finally:
        providers._get_local_constants = saved
        providers.CONSTANTS_CACHE.cache.clear()


def case_random(seed: int, index: int, attempt: int = 0) -> Random:
    return Random((seed << 32) + index + (attempt << 56))


def draw_from(random: Random, max_ops: int, kinds: str = "all") -> tuple[FuzzCase, tuple]:
    """A case drawn from `random` and the choice sequence that replays it."""
    with seed_alone():
        for attempt in range(100):
            data = ConjectureData(random=random)
            try:
                case = draw_case(data, max_ops, kinds)
            except (Unsuitable, StopTest):
                continue
            data.freeze()
            return case, tuple(data.choices)
    raise RuntimeError("no suitable case in 100 draws")


def replay(choices: tuple, max_ops: int, kinds: str = "all") -> FuzzCase:
    with seed_alone():
        return draw_case(ConjectureData.for_choices(choices), max_ops, kinds)


class _BudgetSpent(Exception):
    pass


@dataclass
class Minimised:
    case: FuzzCase
    failure: Failure
    attempts: int
    seconds: float


def minimise(choices: tuple, failure: Failure, max_ops: int, workdir: str, budget_s: float,
             kinds: str = "all") -> Minimised:
    """Shrink the case of `choices` while it fails with `failure.origin` (at most
    `budget_s` seconds; the smallest failing case found by then)."""
    start = time.monotonic()
    best = [failure]
    count = [0]

    def test_function(data: ConjectureData) -> None:
        try:
            case = draw_case(data, max_ops, kinds)
        except Unsuitable:
            data.mark_invalid()
        # (after the draw: a test function that draws less than before is "flaky")
        if count[0] and time.monotonic() - start > budget_s:
            raise _BudgetSpent
        count[0] += 1
        with tempfile.TemporaryDirectory(dir=workdir) as tmp:
            try:
                check_case(case, tmp)
            except Failure as f:
                if f.origin == failure.origin:
                    best[0] = f
                    data.mark_interesting(f.origin)

    runner = ConjectureRunner(test_function, settings=QUIET, random=Random(0))
    with seed_alone():
        initial = runner.cached_test_function(choices)
        result = initial
        if initial.status == Status.INTERESTING:
            try:
                runner.shrink(initial,
                              lambda d: d.status == Status.INTERESTING and d.interesting_origin == failure.origin)
            except (_BudgetSpent, RunIsComplete):
                pass
            result = runner.interesting_test_cases.get(failure.origin, initial)
    case = replay(tuple(result.choices), max_ops, kinds)
    # best[0] is the last failure seen, not necessarily the smallest case's: recheck it.
    with tempfile.TemporaryDirectory(dir=workdir) as tmp:
        try:
            check_case(case, tmp)
            final = failure  # flaky: keep the original message
        except Failure as f:
            final = f
    return Minimised(case, final, count[0], time.monotonic() - start)


def command_lines(case: FuzzCase, files: Written, directory: str) -> list[str]:
    rel = lambda p: os.path.relpath(p, directory)  # noqa: E731
    target = ",".join(rel(t) for t in files.targets)
    return [
        f"accel-compile {rel(files.graph)} --target {target} -p {shlex.quote(case.pipeline_spec())} -o out -q",
        f"accel-run out --inputs {rel(files.inputs)} --outputs got.npz",
        f"accel-run {rel(files.graph)} --inputs {rel(files.inputs)} --outputs want.npz",
    ]


def write_regression(directory: str, seed: int, index: int, original: FuzzCase, result: Minimised,
                     kinds: str = "all") -> str:
    """The minimised case as files: graph.mlir, inputs.npz, the target .toml(s),
    command.sh (compile, run, reference) and failure.json (what failed, how found)."""
    slug = re.sub(r"[^a-z0-9]+", "-", result.failure.origin.lower()).strip("-")[:40]
    path = os.path.join(directory, f"seed{seed}-case{index}-{slug}")
    files = write_case(result.case, path)
    with open(os.path.join(path, "command.sh"), "w") as f:
        f.write("#!/bin/sh\n# run from this directory; compare got.npz with want.npz\nset -e\n")
        f.write("\n".join(command_lines(result.case, files, path)) + "\n")
    with open(os.path.join(path, "failure.json"), "w") as f:
        json.dump({
            "kind": result.failure.kind, "message": result.failure.message, "origin": result.failure.origin,
            "seed": seed, "case": index, "minimised": result.case.describe(), "original": original.describe(),
            "shrink_attempts": result.attempts, "shrink_seconds": round(result.seconds, 1),
            "replay": f"accel-fuzz --seed {seed} --start {index} -n 1"
                      + ("" if kinds == "all" else f" --kinds {kinds}"),
        }, f, indent=1)
        f.write("\n")
    return path


@dataclass
class Outcome:
    index: int
    status: str
    """passed | refused: <reason> | failed"""
    summary: str = ""
    regression: str = ""


def fuzz_one(seed: int, index: int, max_ops: int, failures_dir: str | None, shrink_budget: float,
             kinds: str = "all") -> Outcome:
    """Draw case `index` of `seed`, check it; a failure is minimised and written into
    `failures_dir` (unless None)."""
    case, choices = draw_from(case_random(seed, index), max_ops, kinds)
    with tempfile.TemporaryDirectory(prefix="accel-fuzz-") as work:
        try:
            with tempfile.TemporaryDirectory(dir=work) as tmp:
                status = check_case(case, tmp)
            return Outcome(index, status)
        except Failure as failure:
            if failures_dir is None:
                return Outcome(index, "failed", f"{failure} [{case.describe()}]")
            result = minimise(choices, failure, max_ops, work, shrink_budget, kinds)
            path = write_regression(failures_dir, seed, index, case, result, kinds)
            return Outcome(index, "failed", f"{result.failure} [{result.case.describe()}]", path)
