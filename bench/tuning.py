"""Tuning real models: default vs tuned simulated cycles, and the wall time of the tune.

    .venv/bin/python bench/tuning.py                                   # the table of bench/README.md
    .venv/bin/python bench/tuning.py --models gpt2_dynamo --targets dsp --trials 32 --no-ray

For each model and target: `accel-tune` with a fixed budget (`--trials` measurements
beyond each task's default, strategy `model`, 2 local worker processes) writes a log; the
model is compiled without and with `--tuning-log`, both builds run on the simulator, and
both outputs are checked against the reference interpreter (1e-4 of the output's max).
Then the same tune runs again into a fresh log on a local Ray cluster of 2 workers (its
wall time; `--no-ray` skips it). Printed: per model, default and tuned cycles (the
simulator's counter) and their ratio, the tune's wall time local / Ray; per task (with
`--tasks`), its share of the cycles, default and best measured cycles and the
configuration chosen.

Models: tests/models mobilenet_dynamo, decoder_dynamo, resnet_dynamo (CNNs) and
gpt2_dynamo (a transformer); `--targets npu-cmd` tunes the npu's space (inherited through
`extends`) on the command-stream backend. Inputs: bench/dma.py's `random_inputs` (seeded normal floats,
token ids over the embedding's rows). Not part of the test suite; results and their
explanation: bench/README.md.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time

import numpy as np

BENCH = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(BENCH)
sys.path.insert(0, BENCH)

from dma import random_inputs  # noqa: E402

from accel.compiler import api  # noqa: E402
from accel.compiler.tuning.executors import make_executor  # noqa: E402
from accel.compiler.tuning.tuner import tune  # noqa: E402

MODELS = ("mobilenet_dynamo", "decoder_dynamo", "resnet_dynamo", "gpt2_dynamo")
TARGETS = ("npu", "dsp")
RTOL = 1e-4


def run_model(path: str, target: str, out: str, log: str | None, inputs: dict) -> tuple[int, dict]:
    compiled = api.compile(path, target, out, tuning_log=log)
    outputs = compiled.run(inputs)
    return int(compiled.counters["cycles"]), outputs


def check(outputs: dict, ref: dict, what: str) -> None:
    for k, r in ref.items():
        err = float(np.abs(outputs[k] - r).max())
        if err > RTOL * float(np.abs(r).max()) + 1e-6:
            raise SystemExit(f"{what}: output '{k}' differs from the reference by {err}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--models", nargs="*", default=list(MODELS))
    ap.add_argument("--targets", nargs="*", default=list(TARGETS))
    ap.add_argument("--trials", type=int, default=48)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--no-ray", action="store_true")
    ap.add_argument("--tasks", action="store_true", help="print the per-task table too")
    ap.add_argument("--logs", metavar="DIR", help="keep the tuning logs in DIR (default: a temporary directory)")
    args = ap.parse_args()
    rows = []
    with tempfile.TemporaryDirectory(prefix="accel-bench-tune-") as tmp:
        for target in args.targets:
            for model in args.models:
                path = os.path.join(REPO, "tests", "models", f"{model}.onnx")
                inputs = random_inputs(path)
                ref = api.reference(path, inputs)
                log = os.path.join(args.logs or tmp, f"{model}-{target}.json")
                start = time.perf_counter()
                with make_executor("local", args.jobs) as ex:
                    summary = tune(path, target, log, ex, args.trials, "model")
                local_s = time.perf_counter() - start
                ray_s = None
                if not args.no_ray:
                    start = time.perf_counter()
                    with make_executor("ray", args.jobs) as ex:
                        tune(path, target, os.path.join(args.logs or tmp, f"{model}-{target}-ray.json"), ex, args.trials,
                             "model")
                    ray_s = time.perf_counter() - start
                default, out_d = run_model(path, target, os.path.join(tmp, f"{model}-{target}-d"), None, inputs)
                tuned, out_t = run_model(path, target, os.path.join(tmp, f"{model}-{target}-t"), log, inputs)
                check(out_d, ref, f"{model} on {target}, default")
                check(out_t, ref, f"{model} on {target}, tuned")
                rows.append((model, target, default, tuned, len(summary.tasks), summary.measurements, local_s, ray_s))
                print(f"{model:20s} {target:4s} default {default:>9d}  tuned {tuned:>9d}  "
                      f"{tuned / default if default else 1:.3f}x  tasks {len(summary.tasks):3d}  "
                      f"measured {summary.measurements:4d}  local {local_s:6.1f} s  "
                      f"ray {'-' if ray_s is None else f'{ray_s:6.1f} s'}", flush=True)
                if args.tasks:
                    for t in sorted(summary.tasks, key=lambda t: -t.share):
                        if t.share < 0.01:
                            continue
                        ratio = t.best / t.default if t.default and t.best else 1.0
                        print(f"    {t.share * 100:5.1f} %  x{t.task.instances:<2d} {t.default:>8} -> {t.best:>8} "
                              f"({ratio:.3f}x)  {t.task.summary}  {t.config or 'default'}", flush=True)
    print()
    print("| model | target | default cycles | tuned cycles | tuned/default | tasks | measurements | tune local (s) | tune Ray, 2 workers (s) |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|")
    for model, target, d, t, n, m, ls, rs in rows:
        print(f"| {model} | {target} | {d} | {t} | {t / d if d else 1:.3f} | {n} | {m} | {ls:.0f} | "
              f"{'-' if rs is None else f'{rs:.0f}'} |")


if __name__ == "__main__":
    main()
