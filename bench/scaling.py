"""Compile speed at scale: ms per ONNX node per stage, growth factors and peak memory.

    .venv/bin/python bench/scaling.py                                   # 1k, 10k, 100k nodes; all targets
    .venv/bin/python bench/scaling.py --sizes 1000,10000 --targets npu  # a quick run
    .venv/bin/python bench/scaling.py --models cnn --sizes 1000 --profile /tmp/p.prof
    .venv/bin/python bench/scaling.py --zoo                             # model-zoo graphs only
    .venv/bin/python bench/scaling.py --sizes '' --zoo --repeat 9       # medians, npu / npu-shared ratios

Models (generated with onnx.helper, seeded random weights, about `size` nodes each):
- `cnn`: blocks of [Conv 3x3 8->8 + bias, Relu, Add(skip)] on 1x8x16x16, a MaxPool 3x3/1
  every 3rd block, a host-only Erf (no npu command) every 4th block (so there is one region per 4 blocks);
- `transformer`: blocks of [Gemm 32->64 + bias, Relu, Gemm 64->32 + bias, Add(skip)] on
  16x32 tokens, a host-only Erf after every 2nd block;
- `cnn-chain`: `cnn` without the Erfs: on the npu targets, the whole graph is one region
  (the passes that work per region see it all at once);
- `handoff`: blocks of [Gemm 32->32 + bias, Add(previous block's result), Relu] on 16x32,
  each followed by a host-only Erf: one region per block, each handing its result to the
  next directly (values optimize-dma keeps on the device) as well as through the host;
- `unet`: such blocks without the direct hand-over, the second half's block i adding the
  first half's block n-1-i (nested skips: values live across many regions).
With `--zoo`, the onnx wheel's model-zoo graphs (`onnx/backend/test/data/light/`: ResNet-50 and
Inception v2, the issue's graphs, stored without weights: each gets seeded random values) are
compiled too, on the `--targets`.

Targets: `npu`, `npu-shared`, and `npu-64k` (the built-in npu with a 64 KiB scratchpad). Each
(model, size, target) compiles in its own process (so peak RSS, the process's `VmHWM`, is that
compile's; `ru_maxrss` is not: it survives `execve`, and a worker started by the bench after
it generated a 100k-node model reported the bench's peak), as the `accel-compile` command
compiles it (with the cycle collector off, see `accel.tools.one_shot`; `compile_to_directory`: import and its
verification, every pass of `full` with byoc split into its five passes, verification at the
end, the C emitter, the report, the artifacts written), each stage timed by the driver in
CPU time (`process_time`: the machine is shared, wall clock is not comparable between runs),
in ms per ONNX node; `whole` is the CPU time of the whole call (what the stages do not
cover included); `growth` is the ratio of whole compile times between consecutive sizes
(linear = the size ratio, 10x); `sys` is the part of `whole` spent in the kernel, mostly
first touches of fresh memory pages (page faults: linear in peak memory, but their cost per
page varies 3-12 us on the VMs here, so a run at 100k nodes can spend 10 s there).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

from accel.compiler.pipeline import PIPELINES
from accel.compiler.transforms.byoc import STEPS
from accel.tools.one_shot import run_then_exit

BYOC = STEPS
"""The passes of `byoc`, timed one by one."""

STAGES = tuple(s for p in PIPELINES["full"].split(",") for s in (BYOC if p == "byoc" else (p,)))
"""The `full` pipeline, with byoc written out as its passes."""

SHORT = {"import": "imp", "canonicalize": "canon", "split-tall-kernels": "split", "undilate-convs": "undil",
         "split-grouped-convs": "groups", "unstride-convs": "unstr", "expand-pixel-shuffles": "shuf", "cascade-max-pools": "pools", "tabulate-activations": "lut", "expand-activations": "acts", "expand-nearest-upsampling": "upsmp", "expand-pads": "pads", "collapse-norm-axes": "norms", "requantize-concatenations": "rqcat", "trailing-broadcasts": "bcast",
         "merge-composite": "mcomp",
         "annotate-target": "annot", "merge-regions": "mreg", "outline-regions": "outl",
         "widen-host-floats": "widen", "bufferize": "buf", "plan-memory": "plan", "lower-to-accel": "lower",
         "fuse-layers": "fuse", "tile-for-scratchpad": "tile", "insert-dma": "idma",
         "assemble-on-device": "asm", "optimize-dma": "odma", "partial-residency": "pres", "verify": "verify",
         "emit": "emit", "report": "report", "write": "write"}


# ---- models ---------------------------------------------------------------------------------

def _finish(nodes, inits, inputs, output, name) -> onnx.ModelProto:
    graph = helper.make_graph(nodes, name, inputs, [output], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    return model


def cnn_model(size: int, host_erf: bool = True) -> onnx.ModelProto:
    """Conv+bias+Relu+Add blocks with pools and (with `host_erf`) host-only Erfs; about
    `size` nodes."""
    rng = np.random.default_rng(0)
    nodes, inits = [], []
    x = "x"
    i = 0
    while len(nodes) < size:
        w, b = f"w{i}", f"b{i}"
        inits.append(numpy_helper.from_array((rng.standard_normal((8, 8, 3, 3)) * 0.1).astype(np.float32), w))
        inits.append(numpy_helper.from_array((rng.standard_normal(8) * 0.1).astype(np.float32), b))
        nodes.append(helper.make_node("Conv", [x, w, b], [f"c{i}"], name=f"conv{i}", pads=[1, 1, 1, 1]))
        nodes.append(helper.make_node("Relu", [f"c{i}"], [f"r{i}"], name=f"relu{i}"))
        nodes.append(helper.make_node("Add", [f"r{i}", x], [f"a{i}"], name=f"add{i}"))
        x = f"a{i}"
        if i % 3 == 2:
            nodes.append(helper.make_node("MaxPool", [x], [f"p{i}"], name=f"pool{i}",
                                          kernel_shape=[3, 3], pads=[1, 1, 1, 1]))
            x = f"p{i}"
        if host_erf and i % 4 == 3:
            nodes.append(helper.make_node("Erf", [x], [f"s{i}"], name=f"erf{i}"))
            x = f"s{i}"
        i += 1
    shape = [1, 8, 16, 16]
    return _finish(nodes, inits, [helper.make_tensor_value_info("x", TensorProto.FLOAT, shape)],
                   helper.make_tensor_value_info(x, TensorProto.FLOAT, shape), "cnn")


def transformer_model(size: int) -> onnx.ModelProto:
    """Feed-forward blocks (dense+bias, Relu, dense+bias, residual Add), host-only Erf
    after every 2nd block; about `size` nodes."""
    rng = np.random.default_rng(0)
    nodes, inits = [], []
    x = "x"
    i = 0
    while len(nodes) < size:
        for k, (n_out, n_in) in enumerate(((64, 32), (32, 64))):
            w, b = f"w{i}_{k}", f"b{i}_{k}"
            inits.append(numpy_helper.from_array((rng.standard_normal((n_out, n_in)) * 0.1).astype(np.float32), w))
            inits.append(numpy_helper.from_array((rng.standard_normal(n_out) * 0.1).astype(np.float32), b))
        nodes.append(helper.make_node("Gemm", [x, f"w{i}_0", f"b{i}_0"], [f"h{i}"], name=f"fc{i}a", transB=1))
        nodes.append(helper.make_node("Relu", [f"h{i}"], [f"r{i}"], name=f"relu{i}"))
        nodes.append(helper.make_node("Gemm", [f"r{i}", f"w{i}_1", f"b{i}_1"], [f"o{i}"], name=f"fc{i}b", transB=1))
        nodes.append(helper.make_node("Add", [f"o{i}", x], [f"a{i}"], name=f"add{i}"))
        x = f"a{i}"
        if i % 2 == 1:
            nodes.append(helper.make_node("Erf", [x], [f"t{i}"], name=f"erf_t{i}"))
            x = f"t{i}"
        i += 1
    shape = [16, 32]
    return _finish(nodes, inits, [helper.make_tensor_value_info("x", TensorProto.FLOAT, shape)],
                   helper.make_tensor_value_info(x, TensorProto.FLOAT, shape), "transformer")


def handoff_model(size: int) -> onnx.ModelProto:
    """Blocks of [Gemm 32->32 + bias of the host's last value, Add the previous block's
    result, Relu], each followed by a host-only Erf: every region hands its result to the
    next one directly (a value optimize-dma may keep on the device) and through the host;
    about `size` nodes."""
    rng = np.random.default_rng(0)
    nodes, inits = [], []
    x = y = "x"
    i = 0
    while len(nodes) < size:
        w, b = f"w{i}", f"b{i}"
        inits.append(numpy_helper.from_array((rng.standard_normal((32, 32)) * 0.1).astype(np.float32), w))
        inits.append(numpy_helper.from_array((rng.standard_normal(32) * 0.1).astype(np.float32), b))
        nodes.append(helper.make_node("Gemm", [x, w, b], [f"h{i}"], name=f"fc{i}", transB=1))
        nodes.append(helper.make_node("Add", [f"h{i}", y], [f"a{i}"], name=f"add{i}"))
        nodes.append(helper.make_node("Relu", [f"a{i}"], [f"y{i}"], name=f"relu{i}"))
        nodes.append(helper.make_node("Erf", [f"y{i}"], [f"e{i}"], name=f"erf{i}"))
        x, y = f"e{i}", f"y{i}"
        i += 1
    shape = [16, 32]
    return _finish(nodes, inits, [helper.make_tensor_value_info("x", TensorProto.FLOAT, shape)],
                   helper.make_tensor_value_info(x, TensorProto.FLOAT, shape), "handoff")


def unet_model(size: int) -> onnx.ModelProto:
    """`handoff`-like blocks without the direct hand-over, where the second half's block i
    adds the result of the first half's block n-1-i (nested skips, as a U-Net's): values
    live across many regions; about `size` nodes."""
    rng = np.random.default_rng(0)
    nodes, inits, ys = [], [], []
    n = max(size // 4, 2)
    x = "x"
    for i in range(n):
        w, b = f"w{i}", f"b{i}"
        inits.append(numpy_helper.from_array((rng.standard_normal((32, 32)) * 0.1).astype(np.float32), w))
        inits.append(numpy_helper.from_array((rng.standard_normal(32) * 0.1).astype(np.float32), b))
        nodes.append(helper.make_node("Gemm", [x, w, b], [f"h{i}"], name=f"fc{i}", transB=1))
        h = f"h{i}"
        if i >= (n + 1) // 2:
            nodes.append(helper.make_node("Add", [h, ys[n - 1 - i]], [f"a{i}"], name=f"add{i}"))
            h = f"a{i}"
        nodes.append(helper.make_node("Relu", [h], [f"y{i}"], name=f"relu{i}"))
        nodes.append(helper.make_node("Erf", [f"y{i}"], [f"e{i}"], name=f"erf{i}"))
        ys.append(f"y{i}")
        x = f"e{i}"
    shape = [16, 32]
    return _finish(nodes, inits, [helper.make_tensor_value_info("x", TensorProto.FLOAT, shape)],
                   helper.make_tensor_value_info(x, TensorProto.FLOAT, shape), "unet")


GENERATORS = {"cnn": cnn_model, "transformer": transformer_model, "unet": unet_model,
              "cnn-chain": lambda size: cnn_model(size, host_erf=False), "handoff": handoff_model}

ZOO = ("resnet50", "inception_v2")


def zoo_model(name: str) -> onnx.ModelProto | None:
    """A model-zoo graph of the onnx wheel, its weights filled with seeded values. The
    "light" graphs store none: each weight is a `ConstantOfShape` of one value (which the
    compile would fold into a splat), or a float initializer without data."""
    path = os.path.join(os.path.dirname(onnx.__file__), "backend", "test", "data", "light", f"light_{name}.onnx")
    if not os.path.exists(path):
        return None
    model = onnx.load(path)
    rng = np.random.default_rng(0)

    def seeded(shape) -> np.ndarray:  # positive: some are BatchNorm variances
        return rng.uniform(0.5, 1.5, shape).astype(np.float32)

    inits = {i.name: i for i in model.graph.initializer}
    for init in model.graph.initializer:
        if init.data_type == TensorProto.FLOAT and not (init.raw_data or init.float_data):
            init.CopyFrom(numpy_helper.from_array(seeded(tuple(init.dims)), init.name))
    nodes = []
    for node in model.graph.node:
        if node.op_type == "ConstantOfShape" and node.input[0] in inits:
            shape = tuple(int(d) for d in numpy_helper.to_array(inits[node.input[0]]))
            model.graph.initializer.append(numpy_helper.from_array(seeded(shape), node.output[0]))
        else:
            nodes.append(node)
    del model.graph.node[:]
    model.graph.node.extend(nodes)
    return model



# ---- one compile (in a worker process) ------------------------------------------------------

def compile_once(model_path: str, target: str, profile: str | None) -> dict:
    """One `accel-compile` as the tool runs it (`compile_to_directory`, the pipeline
    `full` with byoc written out), its stages timed in CPU time; `whole` is the CPU time
    of the whole call (stages, the context, what no stage covers)."""
    from accel.compiler.driver import compile_to_directory

    profiler = None
    if profile:
        import cProfile

        profiler = cProfile.Profile(time.process_time)
        profiler.enable()
    with tempfile.TemporaryDirectory() as out:
        start, sys_start = time.process_time(), resource.getrusage(resource.RUSAGE_SELF).ru_stime
        report = compile_to_directory(model_path, target, out, ",".join(STAGES), clock=time.process_time)
        whole = time.process_time() - start
        sys_seconds = resource.getrusage(resource.RUSAGE_SELF).ru_stime - sys_start
    if profiler is not None:
        profiler.disable()
        profiler.dump_stats(profile)
    return {
        "timing": report["timing"],
        "whole": whole,
        "sys": sys_seconds,
        "regions": len(report.get("regions", [])),
        "transfers": report["dma"]["transfers"],
        "peak_mb": peak_rss_kib() / 1024,
    }


def peak_rss_kib() -> float:
    """This process image's peak resident set (Linux `VmHWM`; else `ru_maxrss`, which may
    be the parent's if that was larger when this process was started)."""
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return float(line.split()[1])
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


def run_worker(model_path: str, target: str, profile: str | None, timeout: float) -> dict:
    cmd = [sys.executable, os.path.abspath(__file__), "--worker", model_path, target]
    if profile:
        cmd += ["--profile", profile]
    try:
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"error": f"timeout after {timeout:.0f} s"}
    if out.returncode != 0:
        lines = out.stderr.strip().splitlines()
        return {"error": lines[-1] if lines else f"exit {out.returncode}"}
    return json.loads(out.stdout.strip().splitlines()[-1])


def run_repeated(model_path: str, targets: list[str], args) -> dict[str, dict]:
    """`args.repeat` compiles of the model per target, the targets taken in turn (so that a
    slow spell of the machine falls on all of them), as one result per target: the medians
    of each stage, of `whole` and of `sys` (the first error, if any)."""
    runs: dict[str, list[dict]] = {t: [] for t in targets}
    for _ in range(max(1, args.repeat)):
        for target in targets:
            runs[target].append(run_worker(model_path, target, args.profile, args.timeout))
    return {target: median_result(rs) for target, rs in runs.items()}


def median_result(results: list[dict]) -> dict:
    """One worker result of several: medians of the timings, the rest from the first."""
    for r in results:
        if "error" in r:
            return r
    merged = dict(results[0])
    merged["timing"] = {k: float(np.median([r["timing"].get(k, 0.0) for r in results])) for k in results[0]["timing"]}
    for key in ("whole", "sys", "peak_mb"):
        merged[key] = float(np.median([r[key] for r in results]))
    merged["runs"] = [(r["whole"], r["sys"]) for r in results]  # in order: the targets' runs pair up
    return merged


def ratio_line(name: str, target: str, r: dict, shared: dict, repeat: int) -> str:
    """`target`'s whole CPU over npu-shared's; with repeats, also the ratios of the runs taken
    side by side (a busy spell inflates npu-shared's system time, half its compile, more
    than the npu's: the pairs show the spread) and of the medians of user time."""
    line = f"{name}: {target} / npu-shared whole = {r['whole']:.3f} / {shared['whole']:.3f} s = {r['whole'] / shared['whole']:.2f}x"
    if repeat <= 1:
        return line
    pairs = [a[0] / b[0] for a, b in zip(r["runs"], shared["runs"])]
    user = [float(np.median([w - s for w, s in x["runs"]])) for x in (r, shared)]
    return (line + f" (medians of {repeat}); side by side {float(np.median(pairs)):.2f}x ({min(pairs):.2f}-{max(pairs):.2f}x)"
            f"; user time {user[0]:.3f} / {user[1]:.3f} s = {user[0] / user[1]:.2f}x")


# ---- the table ------------------------------------------------------------------------------

COLUMNS = ("import", *dict.fromkeys(STAGES), "verify", "emit", "report", "write")
"""The stages of `report.json`'s timing, in order (a pass that runs twice is summed)."""


def print_header() -> None:
    cols = [SHORT.get(c, c) for c in COLUMNS]
    print(f"{'model':<12} {'target':<10} {'nodes':>7} {'regs':>5} {'dma':>6} | "
          + " ".join(f"{c:>6}" for c in cols) + f" | {'whole':>6} {'s':>7} {'sys':>6} {'growth':>6} {'MB':>6}")


def stage_seconds(timing: dict[str, float], stage: str) -> float:
    """A stage's time, its second and later runs (`plan-memory#2`) included."""
    return sum(v for k, v in timing.items() if k.split("#")[0] == stage)


def print_row(model: str, target: str, nodes: int, r: dict, previous: dict | None) -> None:
    if "error" in r:
        print(f"{model:<12} {target:<10} {nodes:>7} | {r['error']}", flush=True)
        return
    per_node = [stage_seconds(r["timing"], c) * 1000 / nodes for c in COLUMNS]
    whole = r["whole"]
    growth = "" if not previous or "error" in previous else f"{whole / previous['whole']:.2f}"
    print(f"{model:<12} {target:<10} {nodes:>7} {r['regions']:>5} {r['transfers']:>6} | "
          + " ".join(f"{v:>6.3f}" for v in per_node)
          + f" | {whole * 1000 / nodes:>6.3f} {whole:>7.2f} {r['sys']:>6.2f} {growth:>6} {r['peak_mb']:>6.0f}",
          flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="1000,10000,100000", help="approximate ONNX node counts")
    ap.add_argument("--targets", default="npu,npu-shared,npu-64k")
    ap.add_argument("--models", default="cnn,transformer")
    ap.add_argument("--zoo", action="store_true", help="also (with --sizes '' only) the model-zoo graphs")
    ap.add_argument("--timeout", type=float, default=1800, help="seconds per compile")
    ap.add_argument("--profile", help="write a cProfile of the (last) compile to this file")
    ap.add_argument("--repeat", type=int, default=1,
                    help="compile each (model, target) this many times, the targets' runs interleaved, and show "
                         "medians (a shared machine's noise is ~0.1 s on a 1 s compile)")
    ap.add_argument("--worker", nargs=2, metavar=("MODEL", "TARGET"), help=argparse.SUPPRESS)
    args = ap.parse_args()

    if args.worker:  # as the accel-compile command runs: the cycle collector off
        run_then_exit(lambda: print(json.dumps(compile_once(args.worker[0], args.worker[1], args.profile))))

    with tempfile.TemporaryDirectory() as tmp:
        targets = [t for t in args.targets.split(",") if t]
        print("ms per ONNX node per stage (CPU time); whole = the whole compile; growth = whole / whole at the previous size")
        print_header()
        sizes = [int(s) for s in args.sizes.split(",") if s]
        for name in (m for m in args.models.split(",") if m and sizes):
            for target in targets:
                previous = None
                for size in sizes:
                    model = GENERATORS[name](size)
                    path = os.path.join(tmp, f"{name}{size}.onnx")
                    onnx.save(model, path)
                    r = run_repeated(path, [target], args)[target]
                    print_row(name, target, len(model.graph.node), r, previous)
                    previous = r
        if args.zoo:
            for name in ZOO:
                model = zoo_model(name)
                if model is None:
                    print(f"{name}: not in this onnx wheel")
                    continue
                path = os.path.join(tmp, f"{name}.onnx")
                onnx.save(model, path)
                results = run_repeated(path, targets, args)
                for target in targets:
                    print_row(name, target, len(model.graph.node), results[target], None)
                shared = results.get("npu-shared", {})
                for target in targets:
                    r = results[target]
                    if target != "npu-shared" and "error" not in r and "whole" in shared:
                        print(ratio_line(name, target, r, shared, args.repeat), flush=True)


if __name__ == "__main__":
    main()
