"""End to end (issue 5): ONNX models through `accel-compile` and `accel-run`, for the
built-in targets `npu`, `npu-shared` and `dsp`.

Each (model, target) is compiled once per session (`compile_to_directory`, the driver
behind accel-compile), built with the system C compiler (`-std=c99 -Wall -Wextra
-Werror`) against the bundled simulator and run (`run_directory`, behind accel-run);
pytest-xdist workers share the directories through a file lock. Models:

- the README demo's `tiny_resnet` and its int8 QDQ export (`examples/`);
- real exports from `tests/models/`: the residual CNN (`resnet_dynamo`, and
  `resnet_legacy` quantized here to int8 QDQ) and the MobileNet-style CNN
  (`mobilenet_dynamo`, float and int8 QDQ);
- `mlp`: a 2 MiB dense layer (`e2e_util.mlp_model`), the model the matrix DSP takes, float
  and int8 QDQ; it is larger than either scratchpad, so it is also tiled.

int8 models are made with onnxruntime's `quantize_static` (QDQ, int8 activations per
tensor, int8 weights per channel); their outputs come out of a DequantizeLinear, so one
quantization step of an output is that DequantizeLinear's scale.

Tolerances (the issue's): float outputs within 1e-4 * max|reference| of the reference
interpreter and of onnxruntime (one thread); int8 models within one quantization step of
the output of the interpreter and of onnxruntime with graph optimizations off (its fused
int8 kernels differ from the ONNX semantics). The max errors are printed (`-rP`).

Besides the numbers: the DMA traffic the compiler plans (`report.json`) is exactly what
the simulator counts (`counters.json`); every report field of DESIGN §6 is there; the ops
land where the target descriptions say; hostile ONNX names reach C only escaped and come
back unchanged as npz keys; ASan/UBSan builds run clean; compiling twice gives the same
bytes; and the command lines fail with one line.
"""

from __future__ import annotations

import collections
import glob
import json
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass

import numpy as np
import onnx
import pytest
from e2e_util import (
    EXAMPLES,
    HOSTILE_INPUT,
    HOSTILE_INTERNAL,
    HOSTILE_KEYWORD,
    HOSTILE_OUTPUTS,
    MODELS,
    c_lex,
    c_string_value,
    compute_op_count,
    hostile_model,
    input_signature,
    locked,
    mlp_model,
    ort_run,
    output_step,
    quantize_qdq,
    scratchpad_conflicts,
    session_dir,
)

from accel.compiler.diagnostics import LocatingParser, verify_located
from accel.compiler.driver import compile_module, compile_to_directory, load_model, make_context, print_ir
from accel.compiler.frontend.onnx import import_onnx_file
from accel.compiler.pipeline import PIPELINES, expand
from accel.compiler.runtime.interpreter import run_function
from accel.compiler.runtime.run_compiled import model_signature, run_directory
from accel.compiler.targets import TargetContext
from accel.dialects import accel

pytest.importorskip("onnxruntime")

BIN = os.path.dirname(sys.executable)
ACCEL_COMPILE = os.path.join(BIN, "accel-compile")
ACCEL_RUN = os.path.join(BIN, "accel-run")
ACCEL_OPT = os.path.join(BIN, "accel-opt")

TARGETS = ("npu", "npu-shared", "dsp")
FLOAT_TOL = 1e-4
"""Float outputs: max |C - reference| <= FLOAT_TOL * max |reference|."""

# --------------------------------------------------------------------------------------
# The models and what each target should take
# --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Model:
    name: str
    int8: bool
    convs_on_npu: int | None
    """accel.conv2d ops on npu and npu-shared: the model's every Conv (an int), or at
    least one (None: the cost model keeps some cheap convolutions on the host)."""
    dense_layers: int = 0
    """Dense (Gemm) layers; when non-zero every one runs on every target (the DSP
    included); when zero the DSP gets nothing (it runs dense/matmul only)."""


MODEL_LIST = (
    Model("tiny_resnet", False, 6),
    Model("tiny_resnet_int8", True, 6),
    Model("resnet_dynamo", False, 9),
    Model("resnet_legacy_int8", True, 9),
    Model("mobilenet_dynamo", False, None),
    Model("mobilenet_dynamo_int8", True, None),
    Model("mlp", False, 0, dense_layers=2),
    Model("mlp_int8", True, 0, dense_layers=2),
)
SPECS = {m.name: m for m in MODEL_LIST}
CASES = [pytest.param(m.name, t, id=f"{m.name}-{t}") for m in MODEL_LIST for t in TARGETS]

ALLOWED_COMPUTE = {
    "npu": {"accel.conv2d", "accel.matmul", "accel.pool", "accel.eltwise"},
    "npu-shared": {"accel.conv2d", "accel.matmul", "accel.pool", "accel.eltwise"},
    "dsp": {"accel.matmul"},
}
"""The compute ops each built-in target's description allows."""


@dataclass
class Compiled:
    model: Model
    target: str
    path: str
    out_dir: str
    report: dict
    inputs: dict[str, np.ndarray]
    outputs: dict[str, np.ndarray]
    counters: dict


class Workspace:
    """Models, compiled directories, references: made once, shared by the workers."""

    def __init__(self, root: str):
        self.root = root
        self.compiled: dict[tuple[str, str], Compiled | BaseException] = {}
        self.references: dict[str, dict[str, np.ndarray]] = {}
        self.ort: dict[str, dict[str, np.ndarray]] = {}
        self.modules: dict[tuple[str, str], object] = {}

    def model_path(self, name: str) -> str:
        fixed = {
            "tiny_resnet": os.path.join(EXAMPLES, "tiny_resnet.onnx"),
            "tiny_resnet_int8": os.path.join(EXAMPLES, "tiny_resnet_int8.onnx"),
            "resnet_dynamo": os.path.join(MODELS, "resnet_dynamo.onnx"),
            "mobilenet_dynamo": os.path.join(MODELS, "mobilenet_dynamo.onnx"),
        }
        if name in fixed:
            return fixed[name]
        path = os.path.join(self.root, f"{name}.onnx")
        with locked(path):
            if not os.path.exists(path):
                if name == "mlp":
                    onnx.save(mlp_model(), path + ".tmp")
                else:
                    float_name = name.removesuffix("_int8")
                    src = self.model_path(float_name) if float_name == "mlp" else os.path.join(MODELS, f"{float_name}.onnx")
                    quantize_qdq(src, path + ".tmp")
                os.replace(path + ".tmp", path)
        return path

    def inputs(self, name: str) -> dict[str, np.ndarray]:
        rng = np.random.default_rng(sum(map(ord, name)))
        return {n: rng.standard_normal(s).astype(np.float32) for n, s in input_signature(onnx.load(self.model_path(name)))}

    def reference(self, name: str) -> dict[str, np.ndarray]:
        if name not in self.references:
            self.references[name] = run_function(import_onnx_file(self.model_path(name)), self.inputs(name))
        return self.references[name]

    def onnxruntime(self, name: str) -> dict[str, np.ndarray]:
        if name not in self.ort:
            self.ort[name] = ort_run(self.model_path(name), self.inputs(name), optimize=not SPECS[name].int8)
        return self.ort[name]

    def steps(self, name: str) -> dict[str, float] | None:
        """One quantization step of each output of an int8 model (None for float ones)."""
        if not SPECS[name].int8:
            return None
        model = onnx.load(self.model_path(name))
        return {o.name: output_step(model, o.name) for o in model.graph.output}

    def final_module(self, name: str, target: str):
        """The IR after the full pipeline (compiled in this process, as the driver does)."""
        key = (name, target)
        if key not in self.modules:
            ctx = make_context(target)
            module = load_model(self.model_path(name), ctx)
            compile_module(module, ctx)
            self.modules[key] = module
        return self.modules[key]

    def get(self, name: str, target: str) -> Compiled:
        key = (name, target)
        if key not in self.compiled:
            try:
                self.compiled[key] = self._build(name, target)
            except BaseException as e:  # noqa: BLE001 - re-raised by every test of the case
                self.compiled[key] = e
        got = self.compiled[key]
        if isinstance(got, BaseException):
            raise got
        return got

    def _build(self, name: str, target: str) -> Compiled:
        path = self.model_path(name)
        inputs = self.inputs(name)
        out_dir = os.path.join(self.root, f"{name}@{target}")
        results = out_dir + ".results"
        with locked(out_dir):
            if not os.path.exists(os.path.join(results, "done.json")):
                report = compile_to_directory(path, target, out_dir)
                outputs, counters = run_directory(out_dir, inputs)
                os.makedirs(results, exist_ok=True)
                np.savez(os.path.join(results, "outputs.npz"), **outputs)
                with open(os.path.join(results, "done.json"), "w") as f:
                    json.dump({"report": report, "counters": counters}, f)
            with open(os.path.join(results, "done.json")) as f:
                done = json.load(f)
            with np.load(os.path.join(results, "outputs.npz")) as npz:
                outputs = {k: npz[k] for k in npz.files}
        return Compiled(SPECS[name], target, path, out_dir, done["report"], inputs, outputs, done["counters"])

    def run_sanitized(self, c: Compiled) -> dict[str, np.ndarray]:
        with locked(c.out_dir):
            outputs, _ = run_directory(c.out_dir, c.inputs, sanitize=True)
        return outputs


@pytest.fixture(scope="session")
def ws(tmp_path_factory) -> Workspace:
    return Workspace(session_dir(tmp_path_factory))


def compare(got: dict[str, np.ndarray], want: dict[str, np.ndarray], what: str,
            steps: dict[str, float] | None = None) -> dict[str, str]:
    """Assert the issue's tolerance (one quantization step per output when `steps` are
    given, else FLOAT_TOL of the reference's magnitude); prints the max errors."""
    assert set(got) == set(want), f"{what}: outputs {sorted(got)} vs {sorted(want)}"
    errors = {}
    for k, ref in want.items():
        out = got[k]
        assert out.shape == ref.shape and out.dtype == ref.dtype, f"{what}: {k} is {out.dtype}{out.shape}, want {ref.dtype}{ref.shape}"
        assert np.all(np.isfinite(out)), f"{what}: {k} has non-finite values"
        err = float(np.max(np.abs(out.astype(np.float64) - ref.astype(np.float64))))
        scale = float(np.max(np.abs(ref)))
        assert scale > 0, f"{what}: the reference output {k} is all zeros (a useless check)"
        if steps is not None:
            step = steps[k]
            errors[k] = f"{err:.3g} = {err / step:.2f} steps (step {step:.3g})"
            assert err <= step * (1 + 1e-6), f"{what}: {k}: max error {err} is more than one quantization step {step}"
        else:
            errors[k] = f"{err:.3g} = {err / scale:.2g} x max|ref| ({scale:.3g})"
            assert err <= FLOAT_TOL * scale, f"{what}: {k}: max error {err} > {FLOAT_TOL} x max|ref| {scale}"
    print(f"{what}: max error {errors}")
    return errors


# --------------------------------------------------------------------------------------
# Results: C against the reference interpreter and onnxruntime
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize("name,target", CASES)
def test_matches_the_interpreter(ws, name, target):
    c = ws.get(name, target)
    compare(c.outputs, ws.reference(name), f"{name}: C on {target} vs interpreter", ws.steps(name))


@pytest.mark.parametrize("name,target", CASES)
def test_matches_onnxruntime(ws, name, target):
    c = ws.get(name, target)
    compare(c.outputs, ws.onnxruntime(name), f"{name}: C on {target} vs onnxruntime", ws.steps(name))


# --------------------------------------------------------------------------------------
# The report and the simulator's counters
# --------------------------------------------------------------------------------------

REPORT_FIELDS = {
    "ops": ("total", "offloaded", "host"),
    "macs": ("total", "offloaded"),
    "dma": ("bytes_to_device", "bytes_to_host", "transfers", "lower_bound_bytes", "fused_lower_bound_bytes"),
    "cycles": ("estimate", "lower_bound", "exposed_dma"),
    "memory": ("host_arena_bytes", "scratchpad_peak_bytes"),
}
COUNTER_FIELDS = ("bytes_to_device", "bytes_to_host", "transfers", "accel_ops", "cycles")


@pytest.mark.parametrize("name,target", CASES)
def test_report_and_counters_have_every_field(ws, name, target):
    c = ws.get(name, target)
    with open(os.path.join(c.out_dir, "report.json")) as f:
        report = json.load(f)
    assert report == c.report, "report.json differs from what compile_to_directory returned"
    for group, keys in REPORT_FIELDS.items():
        for k in keys:
            v = report[group][k]
            assert isinstance(v, int) and not isinstance(v, bool) and v >= 0, f"report {group}.{k} = {v!r}"
    for r in report["regions"]:
        assert {"name", "target", "ops", "inputs", "outputs"} <= set(r), f"region entry {r}"
    for r in report["rejected"]:
        assert {"op", "location", "reason"} <= set(r) and r["reason"], f"rejected entry {r}"
    stages = ["import", *(p.split("{")[0] for p in expand("full").split(",")), "emit"]
    assert set(stages) <= set(report["timing"]), f"timing has {sorted(report['timing'])}, want every stage of {stages}"
    assert all(isinstance(v, float) and v >= 0 for v in report["timing"].values())
    with open(os.path.join(c.out_dir, "counters.json")) as f:
        counters = json.load(f)
    for k in COUNTER_FIELDS:
        assert isinstance(counters[k], int) and counters[k] >= 0, f"counters.json {k} = {counters.get(k)!r}"


@pytest.mark.parametrize("name,target", CASES)
def test_planned_dma_is_what_the_simulator_counts(ws, name, target):
    c = ws.get(name, target)
    dma, counters = c.report["dma"], c.counters
    for k in ("bytes_to_device", "bytes_to_host", "transfers"):
        assert dma[k] == counters[k], f"{k}: planned {dma[k]}, simulated {counters[k]}"
    assert counters["accel_ops"] == compute_op_count(ws.final_module(name, target))
    moved = counters["bytes_to_device"] + counters["bytes_to_host"]
    assert dma["lower_bound_bytes"] <= moved, f"the DMA lower bound {dma['lower_bound_bytes']} exceeds the {moved} bytes moved"
    assert c.report["cycles"]["lower_bound"] <= counters["cycles"], "the cycle lower bound exceeds the simulated cycles"
    assert dma["lower_bound_bytes"] <= dma["fused_lower_bound_bytes"] <= moved, dma
    assert c.report["cycles"]["exposed_dma"] <= counters["cycles"]
    # The compiler replays the simulator's timeline on the IR: the estimate is exact.
    assert c.report["cycles"]["estimate"] == counters["cycles"], (c.report["cycles"], counters["cycles"])
    assert (counters["cycles"] > 0) == (counters["accel_ops"] > 0)
    if target == "npu-shared":
        assert dma["bytes_to_device"] == dma["bytes_to_host"] == dma["transfers"] == 0
        assert counters["bytes_to_device"] == counters["bytes_to_host"] == counters["transfers"] == 0
    elif c.report["ops"]["offloaded"]:
        assert counters["bytes_to_device"] > 0 and counters["bytes_to_host"] > 0


@pytest.mark.parametrize("name,target", CASES)
def test_ops_land_where_the_targets_say(ws, name, target):
    c = ws.get(name, target)
    model, report = c.model, c.report
    ops = report["ops"]
    assert ops["total"] == ops["offloaded"] + ops["host"]
    assert ops["offloaded"] == sum(r["ops"] for r in report["regions"])
    assert all(r["target"] == target for r in report["regions"])
    module = ws.final_module(name, target)
    computes = collections.Counter(op.name for op in module.walk() if isinstance(op, accel.ComputeOp))
    assert set(computes) <= ALLOWED_COMPUTE[target], f"{target} runs {dict(computes)}"
    wrappers = glob.glob(os.path.join(c.out_dir, "*_wrappers.c"))
    composites = [p for r in report["regions"] for p in r.get("composites", [])]
    if target == "dsp" and not model.dense_layers:
        # Convolutions are not the DSP's: nothing is offloaded, every conv says why.
        assert ops["offloaded"] == 0 and report["regions"] == [] and not computes and not wrappers
        convs = [r for r in report["rejected"] if r["op"] == "relay.nn.conv2d"]
        assert convs and all("not supported" in r["reason"] for r in convs)
        return
    assert ops["offloaded"] > 0 and report["regions"], f"nothing offloaded to {target}"
    assert [os.path.basename(w) for w in wrappers] == [f"{target.replace('-', '_')}_wrappers.c"]
    if model.dense_layers:
        assert computes["accel.matmul"] >= model.dense_layers and "accel.conv2d" not in computes
        dense = [p for p in composites if "dense" in p]
        assert len(dense) == model.dense_layers and all(p.startswith(target + ".") for p in dense), composites
        if not model.int8:
            assert ops["offloaded"] == ops["total"], "the float MLP runs on the accelerator entirely"
    elif model.convs_on_npu is None:
        assert computes["accel.conv2d"] >= 1
    else:
        assert computes["accel.conv2d"] == model.convs_on_npu
    quantized = [op.is_quantized for op in module.walk() if isinstance(op, (accel.Conv2DOp, accel.MatmulOp))]
    assert quantized and all(q == model.int8 for q in quantized), "int8 models run int8 convolutions/matmuls"


@pytest.mark.parametrize("name,target", CASES)
def test_scratchpad_plan(ws, name, target):
    """No two live scratchpad buffers share bytes, across regions too; the report's
    peak is within the scratchpad."""
    module = ws.final_module(name, target)
    descs = {d.name: d for d in TargetContext().load(target)}
    assert scratchpad_conflicts(module, descs) == []
    peak = ws.get(name, target).report["memory"]["scratchpad_peak_bytes"]
    assert peak <= descs[target].memory.scratchpad_bytes


@pytest.mark.parametrize("name,target", CASES)
def test_final_ir_prints_and_parses_back(ws, name, target):
    """What --dump-ir writes and accel-opt / accel-compile read back: the same IR."""
    module = ws.final_module(name, target)
    text = print_ir(module)
    again = LocatingParser(make_context(), text, f"{name}-{target}.mlir").parse_module()
    verify_located(again)
    assert print_ir(again) == text


# --------------------------------------------------------------------------------------
# Sanitizers, determinism
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize("name,target", [
    pytest.param("resnet_dynamo", "npu", id="resnet_dynamo-npu"),
    pytest.param("mobilenet_dynamo_int8", "npu", id="mobilenet_dynamo_int8-npu"),
])
def test_sanitized_build_runs_clean(ws, name, target):
    """-fsanitize=address,undefined with -fno-sanitize-recover: any report fails the run
    (run_directory raises); the outputs are the optimized build's, bit for bit. A float
    CNN, and an int8 CNN with several regions and values kept on the device between
    them (tiled loops run sanitized in test_lowering_semantics.test_tiled_model_runs_in_c)."""
    c = ws.get(name, target)
    outputs = ws.run_sanitized(c)
    assert set(outputs) == set(c.outputs)
    for k in outputs:
        np.testing.assert_array_equal(outputs[k], c.outputs[k], err_msg=k)
    compare(outputs, ws.reference(name), f"{name}: sanitized C on {target} vs interpreter", ws.steps(name))


def _files(out_dir: str) -> dict[str, bytes]:
    out = {}
    for dirpath, _, names in os.walk(out_dir):
        for n in names:
            p = os.path.join(dirpath, n)
            out[os.path.relpath(p, out_dir)] = open(p, "rb").read()
    return out


@pytest.mark.parametrize("name", ["mobilenet_dynamo_int8", "gpt2_eager_legacy"])
def test_compiling_twice_gives_identical_bytes(ws, tmp_path, name):
    """Two processes with different hash seeds: every file but the timings is the same (an
    int8 CNN; a transformer, whose layout copies optimize-dma reorders)."""
    model = ws.model_path(name) if name.endswith("_int8") else os.path.join(MODELS, f"{name}.onnx")
    dirs = []
    for seed in ("1", "2"):
        d = str(tmp_path / f"out{seed}")
        env = dict(os.environ, PYTHONHASHSEED=seed)
        proc = subprocess.run([ACCEL_COMPILE, model, "--target", "npu", "-o", d], capture_output=True, text=True, env=env)
        assert proc.returncode == 0, proc.stderr
        dirs.append(_files(d))
    first, second = dirs
    assert sorted(first) == sorted(second)
    assert {"model.c", "model.h", "npu_wrappers.c", "weights.bin", "Makefile"} <= set(first)
    for rel in first:
        if rel == "report.json":
            a, b = (json.loads(x[rel]) for x in (first, second))
            a.pop("timing"), b.pop("timing")
            assert a == b
        else:
            assert first[rel] == second[rel], f"{rel} differs between two compiles"


# --------------------------------------------------------------------------------------
# Hostile names
# --------------------------------------------------------------------------------------

HOSTILE_NAMES = (HOSTILE_INPUT, HOSTILE_KEYWORD, *HOSTILE_OUTPUTS, *HOSTILE_INTERNAL)
GENERATED_C = ("model.c", "model.h", "model_internal.h", "runner.c")


@pytest.fixture(scope="module", params=["npu", "dsp"])
def hostile(request, tmp_path_factory):
    """The hostile CNN compiled for npu (everything offloaded) and for dsp (everything on
    the host: the host kernels' error messages name the ops)."""
    root = tmp_path_factory.mktemp(f"hostile-{request.param}")
    path = str(root / "hostile.onnx")
    onnx.save(hostile_model(), path)
    out_dir = str(root / "out")
    report = compile_to_directory(path, request.param, out_dir, dump_ir=True)
    return request.param, path, out_dir, report


def test_hostile_names_compile_run_and_come_back(hostile, tmp_path):
    target, path, out_dir, report = hostile
    assert (report["ops"]["offloaded"] > 0) == (target == "npu")
    rng = np.random.default_rng(7)
    inputs = {n: rng.standard_normal((1, 3, 8, 8)).astype(np.float32) for n in (HOSTILE_INPUT, HOSTILE_KEYWORD)}
    ins, outs = model_signature(out_dir)
    assert [n for n, _, _ in ins] == [HOSTILE_INPUT, HOSTILE_KEYWORD]
    assert [n for n, _, _ in outs] == list(HOSTILE_OUTPUTS)
    # accel-run through its command line: the npz keys are the model's own names.
    in_npz, out_npz = tmp_path / "in.npz", tmp_path / "out.npz"
    with open(in_npz, "wb") as f:
        np.savez(f, **inputs)
    proc = subprocess.run([ACCEL_RUN, out_dir, "--inputs", str(in_npz), "--outputs", str(out_npz)],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    with np.load(out_npz) as npz:
        got = {k: npz[k] for k in npz.files}
    assert sorted(got) == sorted(HOSTILE_OUTPUTS)
    compare(got, run_function(import_onnx_file(path), inputs), f"hostile names on {target} vs interpreter")
    compare(got, ort_run(path, inputs), f"hostile names on {target} vs onnxruntime")
    assert not np.array_equal(got["out-1"].ravel(), got["out_1"].ravel()[:8]), "the two outputs are distinct"


def test_hostile_names_in_dumped_ir_parse_back(hostile):
    """The names are string attributes in the IR: every stage of --dump-ir reads back
    (as accel-compile and accel-opt read a .mlir) and prints the same."""
    _, _, out_dir, _ = hostile
    dumps = sorted(glob.glob(os.path.join(out_dir, "ir", "*.mlir")))
    assert len(dumps) == 1 + len(expand("full").split(","))
    for path in dumps:
        text = open(path, encoding="utf-8").read()
        assert HOSTILE_KEYWORD in text and "out-1" in text
        module = LocatingParser(make_context(), text, path).parse_module()
        verify_located(module)
        assert print_ir(module) == text, f"{os.path.basename(path)} does not print back the same"


def test_hostile_directory_builds_with_its_makefile(hostile):
    """The generated Makefile (`make`, CFLAGS -std=c99 -O2 -Wall -Wextra -Werror) builds
    the runner; it reads raw inputs and writes raw outputs in the model's order."""
    target, path, out_dir, _ = hostile
    if shutil.which("make") is None:
        pytest.skip("no make")
    proc = subprocess.run(["make", "-C", out_dir], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    rng = np.random.default_rng(8)
    arrays = [rng.standard_normal((1, 3, 8, 8)).astype(np.float32) for _ in range(2)]
    files = []
    for i, a in enumerate(arrays):
        files.append(os.path.join(out_dir, f"in{i}.raw"))
        a.tofile(files[-1])
    outs = [os.path.join(out_dir, f"out{i}.raw") for i in range(2)]
    proc = subprocess.run([os.path.join(out_dir, "model"), os.path.join(out_dir, "weights.bin"), *files, *outs],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    want = ort_run(path, dict(zip((HOSTILE_INPUT, HOSTILE_KEYWORD), arrays)))
    for name, out in zip(HOSTILE_OUTPUTS, outs):
        got = np.fromfile(out, dtype=np.float32).reshape(want[name].shape)
        assert np.max(np.abs(got - want[name])) <= FLOAT_TOL * np.max(np.abs(want[name])), name


def test_make_rebuilds_only_what_a_new_compile_changed(tmp_path):
    """A compile into a directory `make` has built leaves unchanged files untouched and
    `make` recompiles only the C that changed (not the host kernels); other flags or
    SANITIZE=1 rebuild everything they affect."""
    if shutil.which("make") is None:
        pytest.skip("no make")
    out = str(tmp_path / "out")
    portable = ["HOST_CFLAGS=", "HOST_LDLIBS="]  # -O2, quicker to build

    def accel_compile(model: str) -> None:
        proc = subprocess.run([ACCEL_COMPILE, os.path.join(EXAMPLES, model), "--target", "npu", "-o", out, "-q"],
                              capture_output=True, text=True)
        assert proc.returncode == 0, proc.stderr

    def make(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run(["make", "-C", out, *args], capture_output=True, text=True)

    def compiled_by_dry_run(*args: str) -> set[str]:
        proc = make("-n", *args)
        assert proc.returncode == 0, proc.stdout + proc.stderr
        return {line.split()[-1] for line in proc.stdout.splitlines() if " -c -o " in line}

    accel_compile("tiny_resnet.onnx")
    built = make("-j2", *portable)
    assert built.returncode == 0, built.stdout + built.stderr
    assert {"model.c", "runtime/host_kernels.c", "runtime/sim/npu.c"} <= {
        line.split()[-1] for line in built.stdout.splitlines() if " -c -o " in line}
    first = os.stat(os.path.join(out, "model")).st_mtime_ns
    kernels = os.stat(os.path.join(out, "runtime", "host_kernels.c")).st_mtime_ns
    accel_compile("tiny_resnet.onnx")  # the same files again: nothing to do
    assert make("-q", *portable).returncode == 0
    assert os.stat(os.path.join(out, "runtime", "host_kernels.c")).st_mtime_ns == kernels
    accel_compile("tiny_resnet_int8.onnx")  # another model, the same runtime and flags
    changed = compiled_by_dry_run(*portable)
    assert "model.c" in changed and not any(src.startswith("runtime/") for src in changed), changed
    rebuilt = make(*portable)
    assert rebuilt.returncode == 0, rebuilt.stdout + rebuilt.stderr
    assert os.stat(os.path.join(out, "model")).st_mtime_ns > first
    assert make("-q", *portable).returncode == 0
    # Other flags rebuild every object; SANITIZE=1 builds its own objects and relinks.
    assert "runtime/host_kernels.c" in compiled_by_dry_run("HOST_CFLAGS=-O1", "HOST_LDLIBS=")
    assert "runtime/host_kernels.c" in compiled_by_dry_run("SANITIZE=1", *portable)
    assert make("-q", *portable).returncode != 0, "the program must be linked again after a sanitized dry run"


def test_hostile_names_reach_c_only_escaped(hostile):
    """Every generated C file is ASCII; after C's own lexing (trigraphs, line splices,
    comments, literals) no piece of a model name is left in the code, no comment holding
    one spans lines, and every string literal holding one spells exactly that name."""
    target, _, out_dir, _ = hostile
    files = list(GENERATED_C) + [os.path.basename(p) for p in glob.glob(os.path.join(out_dir, "*_wrappers.c"))]
    encoded = [n.encode("utf-8") for n in HOSTILE_NAMES]
    # Pieces of the names that C code itself never contains.
    pieces = ["naïve", "名前", "∑", 'in"put', "??=", "%s%n", "s*/um", "c\\onv", "relu%d", "w\"*/eight", "main(){}", "out-1"]
    named = 0
    for rel in files:
        text_bytes = open(os.path.join(out_dir, rel), "rb").read()
        assert max(text_bytes, default=0) < 0x80, f"{rel} is not ASCII"
        lexed = c_lex(text_bytes.decode("ascii"))
        for piece in pieces:
            assert piece not in lexed.code, f"{rel}: {piece!r} appears in C code"
        for comment in lexed.comments:
            if any(f in comment for f in ('in"put', "%s%n", "relu%d", "/eight")):
                assert "\n" not in comment, f"{rel}: a comment holding a name spans lines: {comment!r}"
            assert "/*" not in comment, f"{rel}: a comment opens another: {comment!r}"
        for literal in lexed.strings:
            value = c_string_value(literal)
            rest = value
            for name in sorted(encoded, key=len, reverse=True):
                rest = rest.replace(name, b"")
            if rest != value:
                named += 1
            leftover = [p for p in pieces if p.encode("utf-8") in rest]
            assert not leftover, f"{rel}: string literal {literal} holds {leftover} outside any whole model name"
    assert named >= 1, "the escaped input name is in the C (model_input_names)"


# --------------------------------------------------------------------------------------
# The command lines
# --------------------------------------------------------------------------------------


def run_tool(*args: str, env=None) -> subprocess.CompletedProcess:
    return subprocess.run(list(args), capture_output=True, text=True, env=env)


def assert_one_line_error(proc: subprocess.CompletedProcess, *needles: str) -> None:
    assert proc.returncode == 1, (proc.returncode, proc.stderr)
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, f"want one line on stderr, got:\n{proc.stderr}"
    assert "Traceback" not in proc.stderr and "internal error" not in proc.stderr, proc.stderr
    for n in needles:
        assert n in lines[0], f"{n!r} not in {lines[0]!r}"


def test_cli_bad_target_missing_model_unsupported_op(tmp_path):
    tiny = os.path.join(EXAMPLES, "tiny_resnet.onnx")
    assert_one_line_error(run_tool(ACCEL_COMPILE, tiny, "--target", "nosuchtarget", "-o", str(tmp_path / "a")),
                          "nosuchtarget")
    missing = str(tmp_path / "missing.onnx")
    assert_one_line_error(run_tool(ACCEL_COMPILE, missing, "--target", "npu", "-o", str(tmp_path / "b")), "missing.onnx")
    from onnx import TensorProto
    from onnx import helper as oh

    graph = oh.make_graph([oh.make_node("StringNormalizer", ["x"], ["y"], name="my_norm")], "g",
                          [oh.make_tensor_value_info("x", TensorProto.FLOAT, [3, 3])],
                          [oh.make_tensor_value_info("y", TensorProto.FLOAT, [])])
    model = oh.make_model(graph, opset_imports=[oh.make_opsetid("", 17)])
    model.ir_version = 8
    unsupported = str(tmp_path / "norm.onnx")
    onnx.save(model, unsupported)
    out = tmp_path / "c"
    assert_one_line_error(run_tool(ACCEL_COMPILE, unsupported, "--target", "npu", "-o", str(out)), "my_norm",
                          "StringNormalizer")
    assert not (out / "model.c").exists(), "a failed compile wrote C"


def test_cli_dump_ir_every_stage_parses_again(tmp_path):
    out = tmp_path / "out"
    tiny = os.path.join(EXAMPLES, "tiny_resnet.onnx")
    proc = run_tool(ACCEL_COMPILE, tiny, "--target", "npu", "-o", str(out), "--dump-ir")
    assert proc.returncode == 0, proc.stderr
    stages = [p.split("{")[0] for p in PIPELINES["full"].split(",")]
    want = ["00-import.mlir"] + [f"{i + 1:02d}-{s}.mlir" for i, s in enumerate(stages)]
    assert sorted(os.listdir(out / "ir")) == want
    # One accel-opt process parses (and verifies, and prints) every stage.
    texts = [(out / "ir" / n).read_text() for n in want]
    joined = tmp_path / "all.mlir"
    joined.write_text("\n// -----\n".join(texts))
    proc = run_tool(ACCEL_OPT, str(joined), "--split-input-file")
    assert proc.returncode == 0, proc.stderr
    printed = proc.stdout.split("// -----")
    assert len(printed) == len(texts)
    for name, before, after in zip(want, texts, printed):
        assert after.strip() == before.strip(), f"{name} does not print back the same"


def test_cli_recompiles_into_its_own_directory_and_runs(tmp_path):
    out = tmp_path / "out"
    tiny = os.path.join(EXAMPLES, "tiny_resnet_int8.onnx")
    for _ in range(2):
        proc = run_tool(ACCEL_COMPILE, tiny, "--target", "npu", "-o", str(out))
        assert proc.returncode == 0, proc.stderr
        assert "ops offloaded" in proc.stdout
    x = np.random.default_rng(3).standard_normal((1, 3, 32, 32)).astype(np.float32)
    with open(tmp_path / "in.npz", "wb") as f:
        np.savez(f, input=x)
    proc = run_tool(ACCEL_RUN, str(out), "--inputs", str(tmp_path / "in.npz"), "--outputs", str(tmp_path / "out.npz"))
    assert proc.returncode == 0, proc.stderr
    with np.load(tmp_path / "out.npz") as npz:
        assert npz.files == ["logits"]
        got = npz["logits"]
    want = run_function(import_onnx_file(tiny), {"input": x})["logits"]
    step = output_step(onnx.load(tiny), "logits")
    assert np.max(np.abs(got - want)) <= step * (1 + 1e-6)
    with open(out / "counters.json") as f:
        counters = json.load(f)
    with open(out / "report.json") as f:
        report = json.load(f)
    assert set(COUNTER_FIELDS) <= set(counters)
    assert counters["bytes_to_device"] == report["dma"]["bytes_to_device"] > 0


def test_cli_refuses_a_directory_with_the_users_own_files(tmp_path):
    out = tmp_path / "mine"
    out.mkdir()
    mine = b"/* my own model.c */\nint main(void) { return 0; }\n"
    (out / "model.c").write_bytes(mine)
    tiny = os.path.join(EXAMPLES, "tiny_resnet.onnx")
    assert_one_line_error(run_tool(ACCEL_COMPILE, tiny, "--target", "npu", "-o", str(out)), "model.c")
    assert (out / "model.c").read_bytes() == mine
    assert sorted(os.listdir(out)) == ["model.c"], "nothing else is written when the directory is refused"
