"""Data movement end to end on CNNs whose layers are far larger than the scratchpad.

Models (`tests/models/export_cnn_large.py`, 1x3x128x128 inputs, seeded random weights):
`cnn_large_resnet` (a 2 MiB first activation, 32-64 channels), `cnn_large_mobilenet`
(depthwise separable, 64-96 expanded channels) and `cnn_large_resnet_int8` (the ResNet
quantized to int8 QDQ by onnxruntime). Each is compiled once per session for npu,
npu-shared and dsp with the optimized `full` pipeline and the TVM-style `naive` one, and
(the MobileNet and the int8 ResNet) for npu with optimize-dma's parts switched off one at
a time and all at once; the dsp's own op set (tiled dense layers) gets the same treatment
on a generated two-layer MLP (`ffn`: x[64, 192] -> 384 -> 192), since no CNN layer at
batch 1 is worth a dsp.

Every build runs on the simulator (C built with the system compiler) and is checked:

- against the reference interpreter: float within 1e-4 * max|ref|, int8 within one
  quantization step of the output (the scale of its DequantizeLinear);
- report.json's `dma` bytes and transfers equal the simulator's counters exactly, and the
  compiler's lower bounds hold (bytes >= `dma.lower_bound_bytes`, simulated cycles >=
  `cycles.lower_bound`);
- optimized bytes < naive bytes; on the same tiles, any subset of optimize-dma's parts
  moves no more than none of them (insert-dma's placement) and changes no output bit;
- double buffering never costs cycles and saves some on a tiled model;
- partial-residency keeps part of the int8 ResNet's spills on the device: the same
  output bits, the bytes it keeps off the bus moved as copies on the device instead;
- npu-shared moves nothing with `full` (and the naive baseline copies anyway);
- a tile placed past the end of the scratchpad makes the simulator stop with its one-line
  error and exit status 3, under AddressSanitizer (so nothing was written out of bounds).
"""

from __future__ import annotations

import filecmp
import json
import os
import re
import shutil
import subprocess
import sys

import numpy as np
import onnx
import pytest
from onnx import TensorProto
from onnx import numpy_helper as nh

from e2e_util import locked, session_dir

from accel.compiler.backend.artifacts import c_sources
from accel.compiler.diagnostics import CompileError
from accel.compiler.driver import compile_to_directory
from accel.compiler.runtime import cbuild
from accel.compiler.runtime.run_compiled import run_directory

MODELS_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "models")
sys.path.insert(0, MODELS_DIR)
from ffn import ffn_model  # noqa: E402  (the dsp's model)

CNNS = {
    "resnet": os.path.join(MODELS_DIR, "cnn_large_resnet.onnx"),
    "mobilenet": os.path.join(MODELS_DIR, "cnn_large_mobilenet.onnx"),
    "resnet_int8": os.path.join(MODELS_DIR, "cnn_large_resnet_int8.onnx"),
}
TARGETS = ("npu", "npu-shared", "dsp")
SCRATCHPAD = {"npu": 256 * 1024, "dsp": 128 * 1024}

_LOWER = "byoc,bufferize,plan-memory,lower-to-accel,fuse-layers,tile-for-scratchpad,insert-dma"
OPTION_SETS = {
    "no-hoist": "hoist=false",
    "no-forward": "forward=false",
    "no-cross-region": "cross-region=false",
    "no-double-buffer": "double-buffer=false",
    "all-off": "hoist=false forward=false cross-region=false double-buffer=false",
}
"""optimize-dma option sets besides all on (= the `full` pipeline)."""


def pipeline(variant: str) -> str:
    if variant in ("full", "naive"):
        return variant
    if variant == "no-residency":  # `full` without partial-residency
        return f"{_LOWER},assemble-on-device,optimize-dma,plan-memory"
    return f"{_LOWER},optimize-dma{{{OPTION_SETS[variant]}}},plan-memory"


# --------------------------------------------------------------------------------------
# Session cache: each model/target/pipeline is compiled, built and run once, shared by
# the pytest-xdist workers of the session through a directory and a lock
# --------------------------------------------------------------------------------------


@pytest.fixture(scope="session")
def work(tmp_path_factory) -> str:
    path = os.path.join(session_dir(tmp_path_factory), "data-movement")
    os.makedirs(path, exist_ok=True)
    return path


@pytest.fixture(scope="session")
def models(work) -> dict[str, str]:
    paths = dict(CNNS)
    paths["ffn"] = os.path.join(work, "ffn.onnx")
    with locked(paths["ffn"]):
        if not os.path.exists(paths["ffn"]):
            onnx.save(ffn_model(), paths["ffn"] + ".tmp")
            os.replace(paths["ffn"] + ".tmp", paths["ffn"])
    return paths


def inputs_of(path: str) -> dict[str, np.ndarray]:
    g = onnx.load(path, load_external_data=False).graph
    rng = np.random.default_rng(0)
    return {vi.name: rng.standard_normal([d.dim_value for d in vi.type.tensor_type.shape.dim]).astype(np.float32)
            for vi in g.input}


_REFERENCE: dict[str, dict[str, np.ndarray]] = {}


def reference(path: str) -> dict[str, np.ndarray]:
    if path not in _REFERENCE:
        from accel.compiler.frontend.onnx import import_onnx_file
        from accel.compiler.runtime.interpreter import run_function

        _REFERENCE[path] = run_function(import_onnx_file(path), inputs_of(path))
    return _REFERENCE[path]


def tolerance(path: str, output: str, want: np.ndarray) -> float:
    """One quantization step for an output made by a DequantizeLinear, else 1e-4 * max|ref|."""
    model = onnx.load(path)
    producer = {o: n for n in model.graph.node for o in n.output}[output]
    if producer.op_type == "DequantizeLinear":
        inits = {t.name: nh.to_array(t) for t in model.graph.initializer}
        return float(np.max(inits[producer.input[1]])) * (1 + 1e-6)
    return 1e-4 * float(np.abs(want).max())


def build_cached(out_dir: str, sanitize: bool = False) -> None:
    """Build DIR/model (or DIR/model-sanitize) as `run_directory` would, but with the
    runtime's objects from cbuild's cache (the directory's copies of the runtime sources
    are checked to be the packaged ones): only the model's own sources are compiled."""
    packaged = {p.name: p for p in cbuild.simulator_sources()}
    runtime, own = [], []
    for s in c_sources(out_dir):
        name = os.path.basename(s)
        in_runtime = os.path.relpath(s, out_dir).startswith("runtime" + os.sep)
        if in_runtime and name in packaged and filecmp.cmp(s, packaged[name], shallow=False):
            runtime.append(packaged[name])
        else:
            assert not in_runtime, f"{s} differs from the packaged runtime source"
            own.append(s)
    incs = (out_dir, os.path.join(out_dir, "runtime"), os.path.join(out_dir, "runtime", "sim"))
    objects = [cbuild.build([s], kind="object", sanitize=sanitize) for s in runtime]
    objects += [cbuild.build([s], kind="object", include_dirs=incs, sanitize=sanitize) for s in own]
    exe = cbuild.build(objects, kind="exe", sanitize=sanitize, name="model")
    dest = os.path.join(out_dir, "model-sanitize" if sanitize else "model")
    shutil.copy2(exe, dest)
    os.utime(dest)  # newer than the sources: run_directory uses it as it is


class Run:
    def __init__(self, out_dir: str):
        self.dir = out_dir
        with open(os.path.join(out_dir, "report.json")) as f:
            self.report = json.load(f)
        with open(os.path.join(out_dir, "counters.json")) as f:
            self.counters = json.load(f)
        with np.load(os.path.join(out_dir, "outputs.npz")) as z:
            self.outputs = {k: z[k] for k in z.files}

    @property
    def bytes(self) -> int:
        return self.counters["bytes_to_device"] + self.counters["bytes_to_host"]


@pytest.fixture(scope="session")
def run(work, models):
    """run(model, target, variant) -> Run: compiled, built and run once per session."""

    def get(model: str, target: str, variant: str) -> Run:
        out_dir = os.path.join(work, f"{model}-{target}-{variant}")
        with locked(out_dir):
            if not os.path.exists(os.path.join(out_dir, "outputs.npz")):
                path = models[model]
                compile_to_directory(path, target, out_dir, pipeline=pipeline(variant))
                build_cached(out_dir)
                outputs, _ = run_directory(out_dir, inputs_of(path))
                np.savez(os.path.join(out_dir, "outputs.tmp.npz"), **outputs)
                os.replace(os.path.join(out_dir, "outputs.tmp.npz"), os.path.join(out_dir, "outputs.npz"))
        return Run(out_dir)

    return get


def check_consistent(r: Run, what: str) -> None:
    """The report's planned traffic is what the simulator counted; the bounds hold."""
    for key in ("bytes_to_device", "bytes_to_host", "transfers"):
        assert r.report["dma"][key] == r.counters[key], f"{what}: {key}: report {r.report['dma'][key]}, " \
                                                       f"simulator {r.counters[key]}"
    assert r.bytes >= r.report["dma"]["lower_bound_bytes"], f"{what}: moved less than the lower bound"
    # The fused bound holds for schedules made of fuse-layers' units, which `full`'s is.
    fused_bound = r.report["dma"]["fused_lower_bound_bytes"]
    assert r.report["dma"]["lower_bound_bytes"] <= fused_bound <= r.bytes, \
        f"{what}: fused bound {fused_bound} outside [lower bound, {r.bytes}]"
    assert r.counters["cycles"] >= r.report["cycles"]["lower_bound"], f"{what}: faster than the cycle bound"
    assert r.report["cycles"]["lower_bound"] <= r.report["cycles"]["region_lower_bound"] <= r.counters["cycles"], \
        f"{what}: the region cycle bound is not between the cycle bound and the simulated cycles"


def check_outputs(r: Run, path: str, what: str) -> None:
    for name, want in reference(path).items():
        got = r.outputs[name]
        assert got.shape == want.shape and got.dtype == want.dtype, what
        err = float(np.abs(got.astype(np.float64) - want).max())
        tol = tolerance(path, name, want)
        assert err <= tol, f"{what}: output '{name}' off by {err} (tolerance {tol})"


# --------------------------------------------------------------------------------------
# The models
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize("model", sorted(CNNS))
def test_models_have_layers_far_larger_than_the_scratchpad(model):
    """Some activation is at least twice the npu's scratchpad, and the weights stay
    below 1 MiB per file."""
    path = CNNS[model]
    assert os.path.getsize(path) < 1 << 20
    inferred = onnx.shape_inference.infer_shapes(onnx.load(path))
    sizes = {TensorProto.FLOAT: 4, TensorProto.INT8: 1}
    biggest = max(int(np.prod([d.dim_value for d in vi.type.tensor_type.shape.dim])) *
                  sizes.get(vi.type.tensor_type.elem_type, 4) for vi in inferred.graph.value_info)
    assert biggest >= 2 * SCRATCHPAD["npu"]


# --------------------------------------------------------------------------------------
# Every model, target and pipeline against the reference
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize("variant", ["full", "naive"])
@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("model", sorted(CNNS))
def test_compiles_runs_and_matches_the_reference(run, models, model, target, variant):
    r = run(model, target, variant)
    what = f"{model} on {target} ({variant})"
    check_outputs(r, models[model], what)
    check_consistent(r, what)
    offloaded = r.report["ops"]["offloaded"]
    if target == "dsp":  # no CNN layer is a dense worth a dsp at batch 1: all on the host
        assert offloaded == 0 and r.counters["accel_ops"] == 0
        return
    assert offloaded > 0
    if target == "npu" or variant == "naive":
        # Tiled: more compute commands than offloaded layers, through a scratchpad
        # far smaller than the data.
        regions = len(r.report["regions"])
        assert r.counters["accel_ops"] > regions and r.report["memory"]["scratchpad_peak_bytes"] <= SCRATCHPAD["npu"]
        # Several scratchpads' worth moves in (fewer with layer fusion, whose stripes keep
        # intermediates on the device, and tiles assembled there: the int8 ResNet's
        # 0.67 MB are 2.5 of them).
        assert r.counters["bytes_to_device"] > (4 if variant == "naive" else 2) * SCRATCHPAD["npu"]


PARTIAL = ["full", *(o for o in OPTION_SETS if o != "all-off")]
"""optimize-dma with all parts, and with one part off."""


def check_against_unoptimized(run, models, model: str, target: str, variant: str) -> None:
    """On the same tiles, optimize-dma with some of its parts computes bit for bit what it
    computes with none (insert-dma's placement), and never moves more."""
    r, none = run(model, target, variant), run(model, target, "all-off")
    what = f"{model} on {target} ({variant})"
    check_consistent(r, what)
    check_consistent(none, f"{model} on {target} (all-off)")
    check_outputs(none, models[model], f"{model} on {target} (all-off)")
    for name, want in none.outputs.items():
        np.testing.assert_array_equal(r.outputs[name], want, err_msg=what)
    assert r.bytes <= none.bytes, what
    assert r.counters["transfers"] <= none.counters["transfers"], what


@pytest.mark.parametrize("variant", ["naive", *PARTIAL])
def test_dsp_tiles_dense_layers(run, models, variant):
    """The dsp's op set: two dense layers larger than its scratchpad, tiled, with
    optimize-dma's parts switched off as on the npu (below)."""
    r = run("ffn", "dsp", variant)
    what = f"ffn on dsp ({variant})"
    check_outputs(r, models["ffn"], what)
    check_consistent(r, what)
    assert r.report["ops"]["offloaded"] > 0 and r.counters["accel_ops"] > 2
    if variant != "naive":
        check_against_unoptimized(run, models, "ffn", "dsp", variant)


# --------------------------------------------------------------------------------------
# optimize-dma: every part can be switched off without changing a result
# --------------------------------------------------------------------------------------

OPTION_MODELS = ("mobilenet", "resnet_int8")
"""The float ResNet's optimize-dma takes ~15 s per run; these two exercise the same
rewrites (row loops, channel tiles, forwarding, int8) in a fraction of that."""


@pytest.mark.parametrize("variant", PARTIAL)
@pytest.mark.parametrize("model", OPTION_MODELS)
def test_optimize_dma_parts_keep_results_and_never_add_traffic(run, models, model, variant):
    check_against_unoptimized(run, models, model, "npu", variant)


def test_partial_residency_keeps_spilled_rows_on_the_device(run, models):
    """cnn_large_resnet_int8 on the npu spills three activations (64-131 KB, beside
    double-buffered tiles): partial-residency keeps their first rows on the device. The
    same outputs bit for bit, every byte kept off the bus moved by a copy on the device
    instead, at least 5 % fewer bytes (measured 6.2 %: 1.061 -> 0.995 MB; 9.7 % when
    optimize-dma planned whole regions: its incremental plan places more prefetches, which
    leaves partial-residency less room, for 1 % fewer cycles) and no more cycles."""
    full, without = run("resnet_int8", "npu", "full"), run("resnet_int8", "npu", "no-residency")
    for r, what in ((full, "full"), (without, "no-residency")):
        check_consistent(r, what)
    for name, want in without.outputs.items():
        assert np.array_equal(full.outputs[name], want), name
    saved = without.bytes - full.bytes
    assert saved == full.counters["bytes_on_device"] - without.counters["bytes_on_device"]
    assert saved >= 0.05 * without.bytes, (full.bytes, without.bytes)
    assert full.counters["cycles"] <= without.counters["cycles"]


@pytest.mark.parametrize("model", sorted(CNNS))
def test_optimized_moves_less_than_naive(run, model):
    full, naive = run(model, "npu", "full"), run(model, "npu", "naive")
    assert full.bytes < naive.bytes
    assert full.counters["cycles"] < naive.counters["cycles"]


def test_double_buffering_overlaps_transfers_with_compute(run):
    """Same tiles, with and without the prefetch of the next tile: never more bytes, never
    slower, and faster on a tiled CNN (the simulator's two-engine timeline). (Not always
    the same bytes: forwarding keeps a value on the device when the plan with it fits,
    and the two builds' plans differ: resnet_int8 moves fewer with double buffering.)"""
    saved = {}
    for model in OPTION_MODELS:
        with_db = run(model, "npu", "full").counters
        without = run(model, "npu", "no-double-buffer").counters
        assert with_db["cycles"] <= without["cycles"], model
        assert with_db["bytes_to_device"] <= without["bytes_to_device"], model
        saved[model] = without["cycles"] - with_db["cycles"]
    assert any(s > 0 for s in saved.values()), saved


@pytest.mark.parametrize("model", sorted(CNNS))
def test_shared_memory_moves_nothing(run, model):
    shared = run(model, "npu-shared", "full")
    assert shared.counters["bytes_to_device"] == shared.counters["bytes_to_host"] == 0
    assert shared.counters["transfers"] == 0 and shared.report["dma"]["lower_bound_bytes"] == 0
    assert shared.counters["accel_ops"] > 0
    # The TVM-style baseline copies even there.
    assert run(model, "npu-shared", "naive").counters["transfers"] > 0


# --------------------------------------------------------------------------------------
# A tile that overflows the scratchpad
# --------------------------------------------------------------------------------------


def test_simulator_catches_a_tile_past_the_scratchpad(tmp_path, run, models):
    """The compiled int8 ResNet with the scratchpad offset of a double-buffered tile buffer
    moved (in the emitted C; every buffer the plan put at that offset moves with it) so
    that its second slot lies past the end of the scratchpad: the first transfer that
    reaches past the end stops the program with the simulator's one-line error and exit
    status 3, before any byte is copied (the build is sanitized, so nothing was written out
    of bounds either)."""
    out_dir = str(tmp_path / "out")
    shutil.copytree(run("resnet_int8", "npu", "full").dir, out_dir)
    wrappers_path = os.path.join(out_dir, "npu_wrappers.c")
    wrappers = open(wrappers_path).read()
    # A prefetch into the other slot of a two-slot buffer at `spm + base`, slots `size` apart.
    prefetch = re.search(r"npu_dma_to_device\(\(\((\w+) \*\)\(\(\1 \*\)\(spm \+ (\d+)\)\) \+ \(1 - \w+\) \* (\d+)\)",
                         wrappers)
    assert prefetch, "no double-buffered transfer in the int8 ResNet's wrappers"
    base, size = int(prefetch.group(2)), int(prefetch.group(3))
    capacity = SCRATCHPAD["npu"]
    moved = capacity - size  # slot 0 ends at the last byte; slot 1 lies wholly past the end
    wrappers = wrappers.replace(f"(spm + {base})", f"(spm + {moved})")
    with open(wrappers_path, "w") as f:
        f.write(wrappers)
    build_cached(out_dir, sanitize=True)
    inputs = inputs_of(models["resnet_int8"])
    with pytest.raises(CompileError, match=r"failed \(exit 3\): npu: error: .*outside the scratchpad"):
        run_directory(out_dir, inputs, sanitize=True)
    # The program itself: exit status 3 and exactly one line on stderr, naming a transfer
    # that starts inside the scratchpad (at or after the moved offset) and ends past it.
    in_file = tmp_path / "in0.bin"
    inputs["input"].astype("<f4").tofile(in_file)
    proc = subprocess.run([os.path.join(out_dir, "model-sanitize"), os.path.join(out_dir, "weights.bin"), str(in_file),
                           str(tmp_path / "out0.bin"), str(tmp_path / "counters.json")],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 3, proc.stderr
    lines = proc.stderr.splitlines()
    assert len(lines) == 1, proc.stderr
    m = re.fullmatch(r"npu: error: .*destination.* is outside the scratchpad \(dma #\d+, spm offset (\d+), "
                     r"(\d+) bytes; the scratchpad has (\d+) bytes\)", lines[0])
    assert m, lines[0]
    offset, nbytes, spm = map(int, m.groups())
    assert spm == capacity and moved <= offset <= capacity < offset + nbytes, lines[0]
