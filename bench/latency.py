"""Whole-model inference latency: compiled C next to onnxruntime, in one run.

    .venv/bin/python bench/latency.py                                    # every model, target `host`
    .venv/bin/python bench/latency.py --models cnn_large_resnet,encoder_dynamo --targets host,host-gemm
    .venv/bin/python bench/latency.py --targets host,dnnl --runs 51 --json /tmp/latency.json
    .venv/bin/python bench/latency.py --clock cpu        # on a loaded machine: CPU time, not wall clock

Each model of tests/models is compiled once per target into a temporary directory and run
by its own runner with `--repeat` (`time_directory`: model_run `--warmup` times untimed,
then `--runs` timed runs in one process; the median is reported). onnxruntime runs the
same inputs in this process on the CPU provider, with intra_op_num_threads = 1 and = all
cores (inter-op 1, the same warm-up and number of runs, each run timed around
`session.run`). The ratios are the target's median (`--stat min`: fastest run, the
least disturbed on a shared machine) over onnxruntime's; `err` is the
largest difference from onnxruntime's outputs relative to their largest magnitude, so a
fast wrong result shows.

Targets:
- `host`: every op on the host kernels (the pipeline `host`: nothing is partitioned, the
  constant weights of QDQ models dequantized at compile time), built as accel-run builds
  (HOST_CFLAGS: -O3, -march=native where the compiler takes it, CBLAS where it links);
- `host-gemm`: the same with `ACCEL_HOST_BLAS=0`: the host kernels' own blocked GEMM;
- any other name (`dnnl`, `npu`, a .toml path): `--target NAME` with the `full` pipeline.
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import json
import os
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from accel.compiler.diagnostics import CompileError, format_error
from accel.compiler.driver import compile_to_directory
from accel.compiler.runtime import cbuild
from accel.compiler.runtime.run_compiled import model_signature, time_directory

MODELS_DIR = Path(__file__).resolve().parent.parent / "tests" / "models"
DEFAULT_MODELS = ("resnet_dynamo", "mobilenet_dynamo", "cnn_large_resnet", "cnn_large_mobilenet",
                  "cnn_large_resnet_int8", "encoder_dynamo", "gpt2_dynamo", "llama_dynamo", "vit_dynamo",
                  "mlp_dynamo")


@dataclass(frozen=True)
class TargetBuild:
    """How a `--targets` name compiles: accel-compile's target and pipeline, and the
    host BLAS choice (None: the machine's default)."""

    target: str
    pipeline: str
    host_blas: bool | None = None


HOST_TARGETS = {
    "host": TargetBuild("npu", "host"),  # the target is unused: nothing is partitioned
    "host-gemm": TargetBuild("npu", "host", host_blas=False),
}


def target_build(name: str) -> TargetBuild:
    return HOST_TARGETS.get(name) or TargetBuild(name, "full")


@contextlib.contextmanager
def host_blas(choice: bool | None) -> Iterator[None]:
    """`$ACCEL_HOST_BLAS` for the compile (the Makefile records the choice)."""
    old = os.environ.get(cbuild.HOST_BLAS_ENV)
    if choice is not None:
        os.environ[cbuild.HOST_BLAS_ENV] = "1" if choice else "0"
    try:
        yield
    finally:
        if old is None:
            os.environ.pop(cbuild.HOST_BLAS_ENV, None)
        else:
            os.environ[cbuild.HOST_BLAS_ENV] = old


def model_inputs(onnx_path: Path, seed: int = 0) -> dict[str, np.ndarray]:
    """Seeded inputs for the model's graph inputs: floats in [-1, 1), integers (token
    ids) in [0, 16)."""
    import onnxruntime as ort

    rng = np.random.default_rng(seed)
    session = ort.InferenceSession(str(onnx_path), providers=["CPUExecutionProvider"])
    inputs = {}
    for i in session.get_inputs():
        shape = [d if isinstance(d, int) else 1 for d in i.shape]
        if "int" in i.type:
            dtype = np.int64 if "int64" in i.type else np.int32
            inputs[i.name] = rng.integers(0, 16, size=shape).astype(dtype)
        else:
            inputs[i.name] = rng.uniform(-1, 1, size=shape).astype(np.float32)
    del session
    gc.collect()  # see ort_latency
    return inputs


STATS = {"median": lambda times: float(np.median(times)), "min": min}
"""How the timed runs of one measurement are summarized (`--stat`)."""


def ort_latency(onnx_path: Path, inputs: dict[str, np.ndarray], threads: int, runs: int,
                warmup: int, cpu: bool = False) -> tuple[list[float], list[np.ndarray]]:
    """The ms of `runs` timed session.run calls after `warmup` (`cpu`: the process's CPU
    time, which is the latency's work only on one thread), and the outputs."""
    import onnxruntime as ort

    opts = ort.SessionOptions()
    opts.intra_op_num_threads = threads
    opts.inter_op_num_threads = 1
    opts.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    session = ort.InferenceSession(str(onnx_path), opts, providers=["CPUExecutionProvider"])
    outputs = session.run(None, inputs)
    for _ in range(max(warmup - 1, 0)):
        session.run(None, inputs)
    clock = time.process_time if cpu else time.perf_counter
    times = []
    for _ in range(runs):
        start = clock()
        session.run(None, inputs)
        times.append((clock() - start) * 1e3)
    # The session sits in a reference cycle: alive, its pool's threads spin on for seconds
    # and take a core from the next measurement (mobilenet_dynamo on dnnl, 2 threads: 66 ms
    # instead of 0.077). Collect it now.
    del session
    gc.collect()
    return times, outputs


def compiled_latency(onnx_path: Path, name: str, inputs: dict[str, np.ndarray], work: str, runs: int,
                     warmup: int, cpu: bool = False) -> tuple[list[float], list[np.ndarray]]:
    build = target_build(name)
    out_dir = os.path.join(work, f"{onnx_path.stem}-{name.replace('/', '_')}")
    with host_blas(build.host_blas):
        compile_to_directory(str(onnx_path), build.target, out_dir, build.pipeline)
    ins, _ = model_signature(out_dir)
    results, latency = time_directory(out_dir, {n: inputs[n] for n, _, _ in ins}, repeat=runs, warmup=warmup)
    return latency["cpu_times_ms" if cpu else "times_ms"], list(results.values())


def relative_error(got: list[np.ndarray], expected: list[np.ndarray]) -> float:
    worst = 0.0
    for g, e in zip(got, expected):
        e = np.asarray(e, dtype=np.float64)
        scale = max(float(np.abs(e).max(initial=0.0)), 1e-30)
        worst = max(worst, float(np.abs(np.asarray(g, dtype=np.float64) - e).max(initial=0.0)) / scale)
    return worst


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", default=",".join(DEFAULT_MODELS),
                        help="comma list of tests/models/<name>.onnx (or .onnx paths)")
    parser.add_argument("--targets", default="host", help="comma list: host, host-gemm, or accel-compile targets")
    parser.add_argument("--runs", type=int, default=31, help="timed runs per measurement (median reported)")
    parser.add_argument("--warmup", type=int, default=3, help="untimed runs first")
    parser.add_argument("--stat", choices=sorted(STATS), default="median",
                        help="summary of the timed runs (min: the least disturbed run, on a loaded machine)")
    parser.add_argument("--clock", choices=("wall", "cpu"), default="wall",
                        help="cpu: CPU time of each run (the compiled model and onnxruntime on 1 thread; "
                             "onnxruntime on all cores stays wall clock): the work, without the waiting "
                             "of a loaded machine")
    parser.add_argument("--json", metavar="PATH", help="also write the rows (with every run's time) as JSON")
    args = parser.parse_args(argv)
    models = [m for m in args.models.split(",") if m]
    targets = [t for t in args.targets.split(",") if t]
    cores = os.cpu_count() or 1
    blas = "CBLAS" if cbuild.host_runtime().uses_cblas else "own GEMM"
    stat = STATS[args.stat]
    cpu = args.clock == "cpu"
    print(f"{args.stat} of {args.runs} runs after {args.warmup} warm-up, {args.clock} ms per inference; host build: "
          f"{' '.join(cbuild.host_runtime().cflags)} ({blas}); onnxruntime on 1 and {cores} threads")
    head = f"{'model':22} {'ort-1':>8} {f'ort-{cores}':>8}"
    for t in targets:
        head += f" | {t:>10} {'x ort-1':>7} {f'x ort-{cores}':>7} {'err':>7}"
    print(head)
    rows = []
    failed = 0
    with tempfile.TemporaryDirectory(prefix="accel-latency-") as work:
        for m in models:
            path = Path(m) if m.endswith(".onnx") else MODELS_DIR / f"{m}.onnx"
            inputs = model_inputs(path)
            ort1_times, expected = ort_latency(path, inputs, 1, args.runs, args.warmup, cpu)
            ortn_times, _ = ort_latency(path, inputs, cores, args.runs, args.warmup)
            ort1, ortn = stat(ort1_times), stat(ortn_times)
            row = {"model": path.stem, "stat": args.stat, "clock": args.clock, "ort_1_ms": ort1, f"ort_{cores}_ms": ortn,
                   "ort_1_times_ms": ort1_times, f"ort_{cores}_times_ms": ortn_times}
            line = f"{path.stem:22} {ort1:8.3f} {ortn:8.3f}"
            for t in targets:
                try:
                    times, got = compiled_latency(path, t, inputs, work, args.runs, args.warmup, cpu)
                    ms = stat(times)
                except CompileError as e:
                    failed += 1
                    line += f" | {'failed':>10} {'':7} {'':7} {'':7}"
                    print(f"{path.stem} on {t}: {format_error(e)}", file=sys.stderr)
                    continue
                err = relative_error(got, expected)
                row[t] = {"ms": ms, "vs_ort_1": ms / ort1, f"vs_ort_{cores}": ms / ortn, "rel_err": err,
                          "times_ms": times}
                line += f" | {ms:10.3f} {ms / ort1:7.2f} {ms / ortn:7.2f} {err:7.1e}"
            rows.append(row)
            print(line, flush=True)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=1)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
