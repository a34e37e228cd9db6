"""Measuring one candidate: compile a task's one-task module with a configuration, build
its C against the simulator, run it, read the simulator's cycle counter.

    result = measure(Request(task_text, weights, "npu", {"row_tile": 4}))
    result.cycles        # counters.json's `cycles`; None with `error` set on failure

A request is plain data (it crosses process and machine boundaries: local workers, Ray).
The module goes through the rest of the `full` pipeline from the accel level
(`TASK_PIPELINE`) with the configuration on its compute op (`accel.tuning`), as
`apply-tuning` would put it; the inputs and weights are seeded random values (cycles do
not depend on them). A configuration the lowering refuses is a failed measurement with
the compiler's one-line reason.
"""

from __future__ import annotations

import os
import tempfile
import time
from dataclasses import dataclass, field

import numpy as np

from accel.compiler.diagnostics import CompileError, format_error
from accel.compiler.driver import compile_to_directory, load_model, make_context, print_ir
from accel.compiler.runtime.run_compiled import model_signature, run_directory
from accel.compiler.targets.tuning_space import SEGMENTS_KNOB
from accel.compiler.tuning.fusion import set_fusion
from accel.compiler.tuning.tasks import TASK_WEIGHTS_FILE
from accel.dialects import accel
from accel.dialects.conventions import accelerator_functions, set_tuning

TASK_PIPELINE = "plan-memory,tile-for-scratchpad,insert-dma,optimize-dma,plan-memory"
"""What follows lower-to-accel in `full` but fuse-layers (a one-task module starts at the
accel level; an op task tunes the op's own tiles)."""
FUSION_TASK_PIPELINE = "plan-memory,fuse-layers,tile-for-scratchpad,insert-dma,optimize-dma,plan-memory"
"""A fusion task's: with fuse-layers, which its configuration steers."""


@dataclass(frozen=True)
class Request:
    text: str
    weights: tuple[tuple[str, tuple[int, ...], str], ...]
    target: str
    """A built-in name or a description path (as accel-tune was given it)."""
    config: dict = field(default_factory=dict)
    centre: int = 0
    """Which compute op the configuration is for (Task.centre)."""
    timeout: float = 120.0
    """Seconds the compiled program may run."""
    pipeline: str = TASK_PIPELINE


@dataclass
class Result:
    cycles: int | None = None
    estimate: int | None = None
    """The compile report's timeline estimate (the analytic model of the lowered IR)."""
    error: str | None = None
    seconds: float = 0.0


def random_array(shape: tuple[int, ...], dtype: str, rng: np.random.Generator) -> np.ndarray:
    dt = np.dtype(dtype)
    if dt.kind == "f":
        return (rng.random(shape, dtype=np.float32) - 0.5).astype(dt)
    info = np.iinfo(dt)
    return rng.integers(max(info.min, -8), min(info.max, 8) + 1, size=shape).astype(dt)


def configured_text(text: str, config: dict, target: str, centre: int = 0) -> str:
    """The one-task module with `config` on its tuned compute op (the `centre`-th)."""
    if not config:
        return text
    ctx = make_context(target)
    with tempfile.TemporaryDirectory(prefix="accel-tune-") as tmp:
        path = os.path.join(tmp, "task.mlir")
        with open(path, "w") as f:
            f.write(text)
        module = load_model(path, ctx)
    for fn, _ in accelerator_functions(module):
        ops = [op for op in fn.body.block.ops if isinstance(op, accel.ComputeOp)]
        if SEGMENTS_KNOB in config:
            set_fusion(ops, config)  # a fusion task's module is its chain
        else:
            set_tuning(ops[centre], config)
    return print_ir(module)


def measure(request: Request) -> Result:
    start = time.perf_counter()
    rng = np.random.default_rng(0)
    try:
        with tempfile.TemporaryDirectory(prefix="accel-tune-") as tmp:
            path = os.path.join(tmp, "task.mlir")
            with open(path, "w") as f:
                f.write(configured_text(request.text, request.config, request.target, request.centre))
            if request.weights:
                np.savez(os.path.join(tmp, TASK_WEIGHTS_FILE),
                         **{name: random_array(shape, dt, rng) for name, shape, dt in request.weights})
            out = os.path.join(tmp, "out")
            report = compile_to_directory(path, request.target, out, request.pipeline)
            ins, _ = model_signature(out)
            inputs = {name: random_array(shape, dt.name, rng) for name, shape, dt in ins}
            _, counters = run_directory(out, inputs, timeout=request.timeout)
        return Result(int(counters["cycles"]), int(report["cycles"]["estimate"]), None,
                      time.perf_counter() - start)
    except CompileError as e:
        return Result(error=format_error(e), seconds=time.perf_counter() - start)
    except Exception as e:  # a crash of the compiler on one candidate must not stop the tune
        return Result(error=f"{type(e).__name__}: {e}", seconds=time.perf_counter() - start)
