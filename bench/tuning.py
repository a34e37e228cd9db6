"""Tuning real models: default vs tuned simulated cycles, and the wall time of the tune.

    .venv/bin/python bench/tuning.py                                   # the table of bench/README.md
    .venv/bin/python bench/tuning.py --models gpt2_dynamo --targets dsp --trials 32 --no-ray

For each model and target: `accel-tune` with a fixed budget (`--trials` measurements
beyond each task's default, strategy `model`, 2 local worker processes) writes a log; the
model is compiled without and with `--tuning-log`, both builds run on the simulator, and
both outputs are checked against the reference interpreter (1e-4 of the output's max).
Then the same tune runs again into a fresh log on a local Ray cluster of 2 workers (its
wall time; its log is applied too and checked against the reference; `--no-ray` skips it). Printed: per model, default and tuned cycles (the
simulator's counter) and their ratio, the tune's wall time local / Ray; per task (with
`--tasks`), its share of the cycles, default and best measured cycles and the
configuration chosen.

Models (`DEFAULT_RUNS`): `mlp16` (made here: bench/dma.py's `ffn` MLP on 16 rows) on the npu
and the dsp, `mlp64` (that `ffn` itself) on the dsp, tests/models mobilenet_dynamo and decoder_dynamo (CNNs) on the npu, gpt2_dynamo (a
transformer) on the dsp, the CNN zoo's zoo_mobilenetv1_vww on npu-64k (its own target, the
npu's space through `extends`); `--models`/`--targets` run every pair of the ones given
(defaults: mobilenet_dynamo, decoder_dynamo, resnet_dynamo, gpt2_dynamo x npu, dsp); `--targets npu-cmd` tunes the npu's space (inherited through
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
sys.path.insert(0, os.path.join(REPO, "tests", "models"))

import onnx  # noqa: E402
from dma import random_inputs  # noqa: E402
from ffn import ffn_model  # noqa: E402

from accel.compiler import api  # noqa: E402
from accel.compiler.tuning.executors import make_executor  # noqa: E402
from accel.compiler.tuning.tuner import tune  # noqa: E402

MODELS = ("mobilenet_dynamo", "decoder_dynamo", "resnet_dynamo", "gpt2_dynamo")
TARGETS = ("npu", "dsp")
DEFAULT_RUNS = (("mlp16", "npu"), ("mlp16", "dsp"), ("mlp64", "dsp"), ("zoo_mobilenetv1_vww", "npu-64k"),
                ("mobilenet_dynamo", "npu"), ("gpt2_dynamo", "dsp"), ("decoder_dynamo", "npu"))
"""The table of bench/README.md (model, target) when neither --models nor --targets is given."""
GENERATED = {"mlp16": (16, 192, 384), "mlp64": (64, 192, 384)}
"""Dense models made here (rows, width, hidden): bench/dma.py's `ffn` MLP (192 -> 384 -> 192, as
the legacy exporter writes nn.Linear; `mlp64` is that model) on 16 and 64 rows (a batch, or
tokens through a transformer's feed-forward block): its 590 KB of weights stream through
the scratchpad (256 KiB on the npu, 128 KiB on the dsp) while the rows compute."""
RTOL = 1e-4
GOAL = 0.8
"""Issue 16's goal: tuned <= 0.8x default cycles (bold in the table)."""


def generated_model(name: str, directory: str) -> str:
    m, d, h = GENERATED[name]
    path = os.path.join(directory, f"{name}.onnx")
    onnx.save(ffn_model(m, d, h, name=name, producer="bench/tuning.py"), path)
    return path


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
    ap.add_argument("--models", nargs="*", help=f"default: the table's pairs ({', '.join(f'{m}@{t}' for m, t in DEFAULT_RUNS)}); "
                    f"with --targets only: {', '.join(MODELS)}")
    ap.add_argument("--targets", nargs="*", help=f"default: {', '.join(TARGETS)} when --models is given")
    ap.add_argument("--trials", type=int, default=48)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--no-ray", action="store_true")
    ap.add_argument("--tasks", action="store_true", help="print the per-task table too")
    ap.add_argument("--logs", metavar="DIR", help="keep the tuning logs in DIR (default: a temporary directory)")
    args = ap.parse_args()
    rows = []
    if args.models is None and args.targets is None:
        runs = list(DEFAULT_RUNS)
    else:
        runs = [(m, t) for t in args.targets or TARGETS for m in args.models or MODELS]
    with tempfile.TemporaryDirectory(prefix="accel-bench-tune-") as tmp:
        for model, target in runs:
            path = generated_model(model, tmp) if model in GENERATED else \
                os.path.join(REPO, "tests", "models", f"{model}.onnx")
            inputs = random_inputs(path)
            ref = api.reference(path, inputs)
            log = os.path.join(args.logs or tmp, f"{model}-{target}.json")
            start = time.perf_counter()
            with make_executor("local", args.jobs) as ex:
                summary = tune(path, target, log, ex, args.trials, "model")
            local_s = time.perf_counter() - start
            ray_s = ray_tuned = None
            if not args.no_ray:
                ray_log = os.path.join(args.logs or tmp, f"{model}-{target}-ray.json")
                start = time.perf_counter()
                with make_executor("ray", args.jobs) as ex:
                    tune(path, target, ray_log, ex, args.trials, "model")
                ray_s = time.perf_counter() - start
                ray_tuned, out_r = run_model(path, target, os.path.join(tmp, f"{model}-{target}-r"), ray_log, inputs)
                check(out_r, ref, f"{model} on {target}, tuned on Ray")
            default, out_d = run_model(path, target, os.path.join(tmp, f"{model}-{target}-d"), None, inputs)
            tuned, out_t = run_model(path, target, os.path.join(tmp, f"{model}-{target}-t"), log, inputs)
            check(out_d, ref, f"{model} on {target}, default")
            check(out_t, ref, f"{model} on {target}, tuned")
            rows.append((model, target, default, tuned, len(summary.tasks), summary.measurements, local_s, ray_s,
                         ray_tuned))
            print(f"{model:20s} {target:7s} default {default:>9d}  tuned {tuned:>9d}  "
                  f"{tuned / default if default else 1:.3f}x  tasks {len(summary.tasks):3d}  "
                  f"measured {summary.measurements:4d}  local {local_s:6.1f} s  "
                  f"ray {'-' if ray_s is None else f'{ray_s:6.1f} s, tuned {ray_tuned} cycles'}", flush=True)
            if args.tasks:
                for t in sorted(summary.tasks, key=lambda t: -t.share):
                    if t.share < 0.01:
                        continue
                    ratio = t.best / t.default if t.default and t.best else 1.0
                    print(f"    {t.share * 100:5.1f} %  x{t.task.instances:<2d} {t.default:>8} -> {t.best:>8} "
                          f"({ratio:.3f}x)  {t.task.summary}  {t.config or 'default'}", flush=True)
    print()
    print("| model | target | default cycles | tuned cycles | tuned/default | tasks | measurements | tune local (s) "
          "| tune Ray, 2 workers (s) | tuned on Ray (cycles) |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for model, target, d, t, n, m, ls, rs, rt in rows:
        r = f"{t / d if d else 1:.3f}"
        print(f"| {model} | {target} | {d} | {t} | {f'**{r}**' if float(r) <= GOAL else r} | {n} | {m} | {ls:.0f} | "
              f"{'-' if rs is None else f'{rs:.0f}'} | {'-' if rt is None else rt} |")


if __name__ == "__main__":
    main()
