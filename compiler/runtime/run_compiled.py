"""Build a directory written by accel-compile with the system C compiler and run it.

    outputs, counters = run_directory("out/", {"x": x})

The model is built from the sources its Makefile lists (`cc -std=c99 -O2 -Wall -Wextra
-Werror` + the Makefile's HOST_CFLAGS, or with `-fsanitize=address,undefined` when `sanitize`), into DIR/model (or
DIR/model-sanitize). Inputs go in as raw files, outputs come back keyed by the model's
output names, and the simulator's counters are written to DIR/counters.json.

    outputs, latency = time_directory("out/", {"x": x}, repeat=31, warmup=3)

runs model_run 3 + 31 times in one process and times each of the 31 (DIR/latency.json;
the counters then cover every run).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import tempfile
from collections.abc import Mapping
from typing import Any

import numpy as np

from accel.compiler.backend.artifacts import API_FUNCTIONS, build_settings
from accel.compiler.c_runtime_dir import C_DIR
from accel.compiler.diagnostics import CompileError, one_line
from accel.compiler.narrow_types import from_archive

_C_TYPE_DTYPES = {
    "float": np.float32, "double": np.float64, "int8_t": np.int8, "uint8_t": np.uint8, "int16_t": np.int16,
    "uint16_t": np.uint16, "int32_t": np.int32, "uint32_t": np.uint32, "int64_t": np.int64, "uint64_t": np.uint64,
}


def model_signature(out_dir: str) -> tuple[list[tuple[str, tuple[int, ...], np.dtype]], list[tuple[str, tuple[int, ...], np.dtype]]]:
    """Inputs and outputs (name, shape, dtype) of a compiled model, from its report."""
    path = os.path.join(out_dir, "io.json")
    try:
        with open(path) as f:
            io = json.load(f)
    except (OSError, ValueError):
        raise CompileError(f"{out_dir}: not a directory written by accel-compile (no readable io.json)") from None

    def conv(items):
        return [(it["name"], tuple(it["shape"]), np.dtype(it["dtype"])) for it in items]

    return conv(io["inputs"]), conv(io["outputs"])


def build(out_dir: str, sanitize: bool = False) -> str:
    """Build DIR/model (or DIR/model-sanitize) from the sources its Makefile lists, with the
    flags of the Makefile. Objects are cached by content (compiler/runtime/cbuild.py): the
    runtime files every model directory carries are compiled once per flag set."""
    import shutil

    from accel.compiler.runtime import cbuild

    settings = build_settings(out_dir)
    runtime_dirs = [os.path.join(out_dir, "runtime"), os.path.join(out_dir, "runtime", "sim")]
    include_dirs = [out_dir, *runtime_dirs, *(d for d in settings.include_dirs if d not in runtime_dirs)]
    try:
        objects = _objects(out_dir, settings, include_dirs, sanitize)
        linked = cbuild.build(objects, kind="exe", sanitize=sanitize, include_dirs=[], name="model",
                              link_flags=[*settings.host_ldflags, *settings.ldflags])
    except CompileError as e:
        raise _undefined_function(out_dir, e) from None
    exe = os.path.join(out_dir, "model-sanitize" if sanitize else "model")
    tmp = exe + ".tmp"
    shutil.copyfile(linked, tmp)
    os.chmod(tmp, 0o755)
    os.replace(tmp, exe)
    return exe


def _objects(out_dir: str, settings, include_dirs: list[str], sanitize: bool) -> list:
    from accel.compiler.runtime import cbuild

    runtime_dirs = [os.path.join(out_dir, "runtime"), os.path.join(out_dir, "runtime", "sim")]
    objects = []
    for src in settings.sources:
        rel = os.path.relpath(src, runtime_dirs[0])
        shipped = C_DIR / rel
        if not rel.startswith("..") and shipped.is_file() and _same_runtime(runtime_dirs[0], rel):
            # An unmodified copy of the shipped runtime: build the shipped file, whose
            # object every model directory shares.
            objects.append(cbuild.build([shipped], kind="object", sanitize=sanitize,
                                        extra_flags=settings.host_cflags))
        else:
            objects.append(cbuild.build([src], kind="object", sanitize=sanitize, include_dirs=include_dirs,
                                        extra_flags=[*settings.host_cflags, *settings.cflags]))
    return objects


_UNDEFINED = re.compile(r"(?:undefined reference to|implicit declaration of function) [`'\"\u2018]?([A-Za-z_][A-Za-z0-9_]*)")


def _undefined_function(out_dir: str, error: CompileError) -> CompileError:
    """A link error naming a function a description declares, as one line naming the
    function, its target and the description key; other errors unchanged."""
    m = _UNDEFINED.search(error.message)
    if m is None:
        return error
    try:
        with open(os.path.join(out_dir, API_FUNCTIONS)) as f:
            declared = json.load(f)
    except (OSError, ValueError):
        declared = {}
    fn = m.group(1)
    if fn not in declared:
        return error
    target, key = declared[fn]
    return CompileError(f"target '{target}': the library does not define '{fn}' ({key})")


def _same_runtime(runtime_dir: str, rel: str) -> bool:
    """The file and every header of the directory's runtime equal the shipped ones."""

    def same(path: str) -> bool:
        shipped = C_DIR / path
        local = os.path.join(runtime_dir, path)
        try:
            with open(local, "rb") as f:
                return shipped.is_file() and f.read() == shipped.read_bytes()
        except OSError:
            return False

    headers = [os.path.relpath(os.path.join(d, h), runtime_dir)
               for d, _, files in os.walk(runtime_dir) for h in files if h.endswith(".h")]
    return same(rel) and all(same(h) for h in headers)


def run_directory(out_dir: str, inputs: Mapping[str, Any], sanitize: bool = False,
                  timeout: float = 600) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
    results, counters, _ = _run_directory(out_dir, inputs, sanitize, timeout, repeat=0, warmup=0)
    return results, counters


def time_directory(out_dir: str, inputs: Mapping[str, Any], repeat: int, warmup: int = 1,
                   timeout: float = 600) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
    """Runs model_run `warmup + repeat` times in one process (the outputs are the last
    run's) and returns them with the latency of the `repeat` timed runs, which is also
    written to DIR/latency.json: {"runs", "warmup", "median_ms", "min_ms", "max_ms",
    "times_ms", "cpu_median_ms", "cpu_times_ms"}."""
    if repeat < 1 or warmup < 0:
        raise CompileError(f"--repeat must be at least 1 and --warmup at least 0 (got {repeat} and {warmup})")
    results, _, latency = _run_directory(out_dir, inputs, False, timeout, repeat, warmup)
    assert latency is not None
    with open(os.path.join(out_dir, LATENCY_FILE), "w") as f:
        json.dump(latency, f, indent=1)
        f.write("\n")
    return results, latency


def failure_line(stderr: str) -> str:
    """The line of a failed run's stderr that names the cause: the first diagnostic (a
    runtime's or simulator's `error`, a oneDNN call that `failed: `, a sanitizer's report),
    which comes before the model's own summary of the op that failed; else the first line."""
    lines = [ln for ln in stderr.splitlines() if ln.strip()]
    return one_line(next((ln for ln in lines if re.search(r"error|ERROR| failed: ", ln)), lines[0] if lines else ""))


LATENCY_FILE = "latency.json"


def latency_summary(times_ms: list[float], warmup: int, cpu_times_ms: list[float]) -> dict[str, Any]:
    """Median, min and max of the timed runs (wall-clock milliseconds per inference), and
    the process's CPU time of each run (on a loaded machine, the work without the waiting:
    the model runs on one thread)."""
    return {"runs": len(times_ms), "warmup": warmup, "median_ms": float(np.median(times_ms)),
            "min_ms": min(times_ms), "max_ms": max(times_ms), "times_ms": times_ms,
            "cpu_median_ms": float(np.median(cpu_times_ms)), "cpu_times_ms": cpu_times_ms}


def _run_directory(out_dir: str, inputs: Mapping[str, Any], sanitize: bool, timeout: float, repeat: int,
                   warmup: int) -> tuple[dict[str, np.ndarray], dict[str, Any], dict[str, Any] | None]:
    ins, outs = model_signature(out_dir)
    from accel.compiler.runtime.interpreter import ordered_inputs

    inputs = dict(zip([n for n, _, _ in ins], ordered_inputs([n for n, _, _ in ins], inputs)))
    exe = build(out_dir, sanitize)
    with tempfile.TemporaryDirectory(prefix="accel-run-") as tmp:
        in_files = []
        for i, (name, shape, dt) in enumerate(ins):
            arr = from_archive(np.asarray(inputs[name]), dt)
            if arr.shape != shape or arr.dtype != dt:
                raise CompileError(f"input '{name}': expected shape {list(shape)} and dtype {dt}, "
                                   f"got shape {list(arr.shape)} and dtype {arr.dtype}")
            p = os.path.join(tmp, f"in{i}.bin")
            np.ascontiguousarray(arr).astype(dt.newbyteorder("<"), copy=False).tofile(p)
            in_files.append(p)
        out_files = [os.path.join(tmp, f"out{i}.bin") for i in range(len(outs))]
        counters_path = os.path.join(out_dir, "counters.json")
        times_path = os.path.join(tmp, "times.txt")
        timing = ["--repeat", str(repeat), "--warmup", str(warmup), "--times", times_path] if repeat else []
        cmd = [exe, *timing, os.path.join(out_dir, "weights.bin"), *in_files, *out_files, counters_path]
        env = dict(os.environ)
        if sanitize:
            env.setdefault("ASAN_OPTIONS", "detect_leaks=1:abort_on_error=0")
            env.setdefault("UBSAN_OPTIONS", "print_stacktrace=1:halt_on_error=1")
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env)
        if proc.returncode != 0:
            raise CompileError(f"the compiled model failed (exit {proc.returncode}): {failure_line(proc.stderr)}")
        results = {}
        for (name, shape, dt), p in zip(outs, out_files):
            results[name] = np.fromfile(p, dtype=dt.newbyteorder("<")).astype(dt).reshape(shape)
        latency = None
        if repeat:
            with open(times_path) as f:
                rows = [line.split() for line in f if line.strip()]
            latency = latency_summary([float(r[0]) for r in rows], warmup, [float(r[1]) for r in rows])
    try:
        with open(counters_path) as f:
            counters = json.load(f)
    except (OSError, ValueError):
        counters = {}
    return results, counters, latency
