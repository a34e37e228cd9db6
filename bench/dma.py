"""Data movement of real models: naive vs optimized transfers vs the compulsory lower bound.

    .venv/bin/python bench/dma.py                         # every model, npu, npu-shared and dsp
    .venv/bin/python bench/dma.py --models cnn_large_resnet --targets npu --jobs 2

For each model and target the model is compiled four ways and every build is run on the
simulator (with a numerical check against the reference interpreter):

- `naive`: the TVM-style baseline (every op copies its operands in and its result out,
  even on npu-shared);
- `full`: the optimized pipeline (tiles sized for double buffering, optimize-dma with
  every part on);
- `-DB`: `full` with `optimize-dma{double-buffer=false}`: the same tiles, no overlap of
  the next tile's transfer with the current compute;
- `-DB1`: `tile-for-scratchpad{double-buffer=false}` too: tiles sized for one buffer;
- `nofuse`: `full-nofuse`, the optimized pipeline without `fuse-layers` (every op tiled on
  its own; `-DB` and `-DB1` are unfused too).
- `-PR`: `full` with `optimize-dma{prefetch-regions=false}`: no region's first loads are
  issued by the region before it.
- `-RES`: `full` without `partial-residency` (spilled values go out and come back whole).
- `-DEV`: `full` on the same accelerator described without a copy on the device (its
  description copied without `api.runtime.dma_on_device`, `dma.device_bytes_per_cycle` and
  the `relay.concatenate` entry): tiles are not assembled on the device and concatenations
  stay on the host, as before issue 13's items 2 and 3 (`--variants full,-DEV` compares
  just these two).

Table 1 prints bytes (to device + to host, from the simulator's counters, which must equal
report.json's) against `dma.lower_bound_bytes`, and simulated cycles against
`cycles.lower_bound`. Table 2 explains the optimized traffic of every model/target that
moves data: where the bytes of `full` go (the final IR's transfers, loops counted, grouped
by the host buffer they touch: region inputs and outputs, weights, and intermediates that
do not stay on the device, i.e. spills), a second lower bound valid for any schedule that
runs one operator at a time (the compiler's without fusion), and how much of the DMA time overlaps compute:

    overlap = (DMA busy + compute - simulated cycles) / DMA busy
    exposed = simulated cycles - compute          (DMA time nothing computes under)

Table 4 sets `full` beside `-DEV`: bytes (with the copies on the device the simulator
counted, `bytes_on_device`), regions and cycles, each against its own partition bound (a
concatenation on the npu merges the regions around it, which lowers the bound itself).

Table 5 sets `full` beside `-RES` (without `partial-residency`): bytes (with the copies on
the device) and cycles, against the partition bound.

Table 3 sets layer fusion side by side with the unfused pipeline: bytes and cycles of
`full` and `nofuse` against the partition bound, the 1-op bound and report.json's
`dma.fused_lower_bound_bytes` (the same floor for the fused segments `full` chose), and
the exposed DMA time (`cycles.exposed_dma`: simulated cycles minus compute cycles), and
the cycles against `rLB`, report.json's `cycles.region_lower_bound` (per region call what
no schedule can overlap: compile_report.py's docstring, docs/data-movement.md §2); each
pipeline against its own.

Inputs are seeded standard normal floats; an integer input (gpt2's token ids) is drawn
uniformly over the rows of the table it indexes. The `*_dynamo_int8` and `zoo_*_int8`
models are made from their float models by tests/e2e_util.quantize_qdq (onnxruntime) on
first use. `npu-64k` is the built-in npu with a 64 KiB scratchpad.

Not part of the test suite. Results and their explanation: bench/README.md and
docs/data-movement.md.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field

import numpy as np

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, REPO)
sys.path.insert(0, os.path.join(REPO, "tests", "models"))

from export_cnn_zoo import INPUT_SHAPES as ZOO_SHAPES, INT8_DRIFT_STEPS  # noqa: E402
from ffn import ffn_model  # noqa: E402

MODELS_DIR = os.path.join(REPO, "tests", "models")
EXAMPLES = os.path.join(REPO, "examples")

ZOO = tuple(ZOO_SHAPES)
"""MLPerf Tiny's four, MobileNetV2 at 96 and 224, SqueezeNet 1.1, an Inception-style CNN
(int8 outputs within export_cnn_zoo.INT8_DRIFT_STEPS["npu"] of the reference, where listed)."""

QDQ_EXPORTS = ("yolo_dynamo", "mobilenet_dynamo", "espcn_dynamo", "deeplab_mini_dynamo", "resnet_dynamo")
"""Torch exports (tests/models) quantized here: SiLU, hard-swish, squeeze-and-excitation
gates, concatenations of their own scales, tanh heads as onnxruntime's QDQ writes them."""

MODELS: dict[str, str] = {
    "cnn_large_resnet": os.path.join(MODELS_DIR, "cnn_large_resnet.onnx"),
    "cnn_large_mobilenet": os.path.join(MODELS_DIR, "cnn_large_mobilenet.onnx"),
    "cnn_large_resnet_int8": os.path.join(MODELS_DIR, "cnn_large_resnet_int8.onnx"),
    "resnet_legacy": os.path.join(MODELS_DIR, "resnet_legacy.onnx"),
    "resnet_dynamo": os.path.join(MODELS_DIR, "resnet_dynamo.onnx"),
    "mobilenet_legacy": os.path.join(MODELS_DIR, "mobilenet_legacy.onnx"),
    "mobilenet_dynamo": os.path.join(MODELS_DIR, "mobilenet_dynamo.onnx"),
    "mnist": os.path.join(MODELS_DIR, "mnist", "model.onnx"),
    "tiny_resnet": os.path.join(EXAMPLES, "tiny_resnet.onnx"),
    "tiny_resnet_int8": os.path.join(EXAMPLES, "tiny_resnet_int8.onnx"),
    "ffn": "",  # generated (ffn_model): the dsp's op set, no CNN layer at batch 1 is worth a dsp
    # generated (tests/e2e_util.generator_model): reflection pads and instance norms
    "generator": "",
    "generator_int8": "",
    # the transformers and the MLP of tests/models/export_models.py (dynamo exports)
    **{f"{a}_dynamo": os.path.join(MODELS_DIR, f"{a}_dynamo.onnx") for a in ("encoder", "gpt2", "llama", "vit", "mlp")},
    # generated: QUANTIZED's int8 QDQ versions of the dynamo exports
    **{f"{a}_dynamo_int8": "" for a in ("encoder", "gpt2", "llama", "vit", "mlp")},
    # torch exports whose int8 versions hold QDQ activations, concatenations and gates
    **{m: os.path.join(MODELS_DIR, f"{m}.onnx") for m in ("yolo_dynamo", "espcn_dynamo", "deeplab_mini_dynamo")},
    **{f"{m}_int8": "" for m in QDQ_EXPORTS},
    # the CNN zoo of tests/models/export_cnn_zoo.py, float and int8
    **{m: os.path.join(MODELS_DIR, f"{m}.onnx") for m in ZOO},
    **{f"{m}_int8": "" for m in ZOO},
}
QUANTIZED: dict[str, str] = {**{f"{a}_dynamo_int8": f"{a}_dynamo" for a in ("encoder", "gpt2", "llama", "vit", "mlp")},
                             **{f"{m}_int8": m for m in ZOO},
                             **{f"{m}_int8": m for m in QDQ_EXPORTS}}
"""Models made here with tests/e2e_util.quantize_qdq (as tests/test_transformer_models.py
makes its int8 models: calibrated on the inputs of seeds 100..107) from a float model."""
TARGETS = ("npu", "npu-shared", "dsp", "npu-64k")

_PARTITION = "byoc,bufferize,plan-memory,lower-to-accel"
VARIANTS: dict[str, str] = {
    "naive": "naive",
    "full": "full",
    "-DB": f"{_PARTITION},tile-for-scratchpad,insert-dma,assemble-on-device,optimize-dma{{double-buffer=false}},"
           "plan-memory",
    "-DB1": f"{_PARTITION},tile-for-scratchpad{{double-buffer=false}},insert-dma,assemble-on-device,"
            "optimize-dma{double-buffer=false},plan-memory",
    "nofuse": "full-nofuse",
    "-PR": f"{_PARTITION},fuse-layers,tile-for-scratchpad,insert-dma,assemble-on-device,"
           "optimize-dma{prefetch-regions=false},plan-memory",
    "-DEV": "full",  # on today_target(target): no copy on the device
    "-RES": f"{_PARTITION},fuse-layers,tile-for-scratchpad,insert-dma,assemble-on-device,optimize-dma,plan-memory",
}


def today_target(target: str, work: str) -> str:
    """A built-in npu target's description without its copy on the device (and so
    without the concatenation that runs on it), as a file in `work`; other targets have
    none to remove and stay as they are."""
    sys.path.insert(0, os.path.join(REPO, "tests"))
    from e2e_util import npu_without_device_copies

    from accel.compiler.targets.registry import load_target

    desc = load_target(target)
    if not desc.copies_on_device:
        return target
    text = npu_without_device_copies(f"{target}-today", desc.memory.scratchpad_bytes)
    d = os.path.join(work, f"{target}-today")
    os.makedirs(d, exist_ok=True)
    shutil.copy(os.path.join(REPO, "compiler", "targets", "patterns.mlir"), d)
    path = os.path.join(d, f"{target}-today.toml")
    with open(path + f".{os.getpid()}", "w") as f:
        f.write(text)
    os.replace(path + f".{os.getpid()}", path)
    today = load_target(path)
    assert not today.copies_on_device and not today.ops_named("relay.concatenate"), path
    return path


def model_path(model: str, work: str) -> str:
    if MODELS[model]:
        return MODELS[model]
    import onnx

    path = os.path.join(work, f"{model}.onnx")
    if not os.path.exists(path):
        tmp = path + f".{os.getpid()}.tmp"
        if model in QUANTIZED:
            sys.path.insert(0, os.path.join(REPO, "tests"))
            from e2e_util import quantize_qdq

            src = model_path(QUANTIZED[model], work)
            quantize_qdq(src, tmp, calibration=[random_inputs(src, 100 + i) for i in range(8)])
        elif model.startswith("generator"):
            sys.path.insert(0, os.path.join(REPO, "tests"))
            from e2e_util import generator_model, quantize_qdq

            if model == "generator":
                generator_model(tmp)
            else:
                generator_model(tmp + ".float.onnx", int8=True)
                quantize_qdq(tmp + ".float.onnx", tmp, calibration=[random_inputs(tmp + ".float.onnx", 100 + i)
                                                                    for i in range(8)])
                os.remove(tmp + ".float.onnx")
        else:
            onnx.save(ffn_model(), tmp)
        os.replace(tmp, path)
    return path


# --------------------------------------------------------------------------------------
# Inputs, reference and tolerance
# --------------------------------------------------------------------------------------


def model_io(path: str):
    import onnx

    g = onnx.load(path, load_external_data=False).graph
    inits = {t.name for t in g.initializer}
    ins = [(vi.name, tuple(d.dim_value for d in vi.type.tensor_type.shape.dim)) for vi in g.input
           if vi.name not in inits]
    return ins, [o.name for o in g.output]


def index_bound(graph, name: str) -> int:
    """The number of rows of the smallest table an integer graph input indexes (a Gather's
    constant data, or a dequantized one), so that random ids in [0, bound) are valid
    (gpt2's token ids: 64)."""
    rows = {t.name: t.dims[0] for t in graph.initializer if t.dims}
    rows.update({n.output[0]: rows[n.input[0]] for n in graph.node
                 if n.op_type == "DequantizeLinear" and n.input[0] in rows})
    bounds = [rows[n.input[0]] for n in graph.node
              if n.op_type == "Gather" and n.input[1] == name and n.input[0] in rows]
    if not bounds:
        raise ValueError(f"integer input '{name}' indexes no constant table: no valid random values known")
    return min(bounds)


def random_inputs(path: str, seed: int = 0) -> dict[str, np.ndarray]:
    """Standard normal floats; integer inputs (token ids) uniform over their table's rows."""
    import onnx

    g = onnx.load(path, load_external_data=False).graph
    types = {vi.name: vi.type.tensor_type.elem_type for vi in g.input}
    rng = np.random.default_rng(seed)
    out = {}
    for n, s in model_io(path)[0]:
        if types[n] == onnx.TensorProto.INT64:
            out[n] = rng.integers(0, index_bound(g, n), s).astype(np.int64)
        else:
            out[n] = rng.standard_normal(s).astype(np.float32)
    return out


def matches_int8_kernels(path: str, inputs: dict, output: str, got: np.ndarray) -> bool:
    """Whether `got` is within one step of onnxruntime's own int8 kernels (graph
    optimizations on: QLinearConv sums exactly in int32 and requantizes once, as the npu
    does) for a QDQ model's int8 output. The Q/DQ reference convolves dequantized values
    in float32: at a rounding tie the two differ by a step, which deep chains grow (see
    export_cnn_zoo.INT8_DRIFT_STEPS); a build that agrees with int8 kernels is not wrong."""
    sys.path.insert(0, os.path.join(REPO, "tests"))
    from e2e_util import ort_run

    if _producer_type(path, output) != "DequantizeLinear":
        return False
    want = ort_run(path, inputs, optimize=True)[output]
    return float(np.abs(got.astype(np.float64) - want).max()) <= tolerance(path, output, want, 1)


def _producer_type(path: str, output: str) -> str:
    import onnx

    return next((n.op_type for n in onnx.load(path, load_external_data=False).graph.node if output in n.output), "")


def tolerance(path: str, output: str, ref: np.ndarray, steps: int = 1) -> float:
    """`steps` quantization steps for an output made by a DequantizeLinear (with tests/
    e2e_util.output_step's 0.1 % slack: the dequantized values are float32, so a one-step
    difference of values near max|ref| measures a little more than the scale), else 1e-4 *
    max|ref|."""
    import onnx
    from onnx import numpy_helper

    m = onnx.load(path)
    producer = {o: n for n in m.graph.node for o in n.output}.get(output)
    if producer is not None and producer.op_type == "DequantizeLinear":
        inits = {t.name: numpy_helper.to_array(t) for t in m.graph.initializer}
        return steps * float(np.max(inits[producer.input[1]])) * 1.001
    return 1e-4 * float(np.abs(ref).max())


# --------------------------------------------------------------------------------------
# Building: the runtime objects are compiled once (cbuild's cache), the model's own sources
# per directory. The result is the executable `run_directory` would build.
# --------------------------------------------------------------------------------------


def build_fast(out_dir: str) -> None:
    import filecmp

    from accel.compiler.backend.artifacts import c_sources
    from accel.compiler.runtime import cbuild

    packaged = {p.name: p for p in cbuild.simulator_sources()}
    runtime, own = [], []
    for s in c_sources(out_dir):
        rel = os.path.relpath(s, out_dir)
        name = os.path.basename(s)
        if rel.startswith("runtime" + os.sep) and name in packaged and filecmp.cmp(s, packaged[name], shallow=False):
            runtime.append(packaged[name])
        else:
            own.append(s)
    if not runtime:
        return  # not the packaged runtime: run_directory builds it the ordinary way
    incs = (out_dir, os.path.join(out_dir, "runtime"), os.path.join(out_dir, "runtime", "sim"))
    objects = [cbuild.build([s], kind="object") for s in runtime]
    objects += [cbuild.build([s], kind="object", include_dirs=incs) for s in own]
    exe = cbuild.build(objects, kind="exe", name="model")
    shutil.copy2(exe, os.path.join(out_dir, "model"))
    os.utime(os.path.join(out_dir, "model"))


# --------------------------------------------------------------------------------------
# Where the optimized bytes go
# --------------------------------------------------------------------------------------


@dataclass
class Breakdown:
    inputs_moved: int = 0
    inputs_size: int = 0
    weights_moved: int = 0
    weights_size: int = 0
    spill_out: int = 0
    spill_in: int = 0
    spilled_size: int = 0
    outputs_moved: int = 0
    outputs_size: int = 0
    stores_waited_at_once: int = 0
    """Bytes to the host whose `dma_wait` is the very next op (nothing overlaps them)."""
    loads_prefetched: int = 0
    """Bytes to the device issued one loop iteration ahead (their token is loop-carried)."""
    dma_busy: float = 0.0
    compute: float = 0.0
    one_op_floor: int = 0
    notes: list[str] = field(default_factory=list)


def _root(v):
    from xdsl.dialects import memref

    while isinstance(v.owner, (memref.SubviewOp, memref.ReinterpretCastOp)):  # views of it (a slice's)
        v = v.owner.source
    return v


def traffic_breakdown(module, descs: dict) -> Breakdown:
    """Classify every transfer of every DMA-placed region by the host buffer it touches."""
    from xdsl.dialects import memref, scf
    from xdsl.ir import BlockArgument

    from accel.compiler.compile_report import compute_cycles, dma_cycles, issued_count, multiplicity
    from accel.compiler.tensors import buffer_bytes
    from accel.dialects.conventions import accelerator_functions
    from accel.dialects import accel

    bd = Breakdown()
    for fn, target in accelerator_functions(module):
        desc = descs[target]
        if desc.memory.shared_with_host:
            continue
        per_root: dict = {}
        for op in fn.walk():
            if isinstance(op, accel.ComputeOp):
                bd.compute += compute_cycles(op, desc) * multiplicity(op)
            if not isinstance(op, accel.DmaStartOp):
                continue
            k = issued_count(op)
            b = buffer_bytes(op.source.type) * k
            bd.dma_busy += dma_cycles(buffer_bytes(op.source.type), desc, op.on_device) * k
            if op.on_device:  # within the scratchpad: no host traffic (Table 4 counts it)
                continue
            following = op.next_op
            if not op.to_device and isinstance(following, accel.DmaWaitOp) and op.token in following.tokens:
                bd.stores_waited_at_once += b
            if op.to_device and any(isinstance(u.operation, scf.YieldOp) for u in op.token.uses):
                bd.loads_prefetched += b
            host = _root(op.source if op.to_device else op.dest)
            entry = per_root.setdefault(host, [0, 0])
            entry[0 if op.to_device else 1] += b
        for host, (b_in, b_out) in per_root.items():
            size = buffer_bytes(host.type)
            if isinstance(host, BlockArgument):
                if b_in:
                    bd.inputs_moved += b_in
                    bd.inputs_size += size
                if b_out:
                    bd.outputs_moved += b_out
                    bd.outputs_size += size
            elif isinstance(host.owner, accel.WeightOp):
                bd.weights_moved += b_in
                bd.weights_size += size
            elif isinstance(host.owner, memref.AllocOp):
                bd.spill_out += b_out
                bd.spill_in += b_in
                bd.spilled_size += size
            else:
                bd.notes.append(f"unclassified transfer of {host.type}")
    return bd


def one_op_floor(lowered, descs: dict) -> int:
    """Bytes beyond the partition's lower bound that any schedule running one operator at a
    time must move, from the IR before tiling (`compile_report.spill_floor_bytes`, each op
    its own unit). Recomputing a value instead of keeping it is not considered."""
    from accel.compiler.compile_report import spill_floor_bytes
    from accel.dialects.conventions import accelerator_functions, is_output_arg
    from accel.dialects import accel

    extra = 0
    for fn, target in accelerator_functions(lowered):
        desc = descs[target]
        if desc.memory.shared_with_host:
            continue
        readers: dict = {}
        for op in fn.walk():
            if isinstance(op, accel.ComputeOp):
                for v in set(_root(i) for i in op.inputs):
                    readers[v] = readers.get(v, 0) + 1
        outputs = {a for i, a in enumerate(fn.body.block.args) if is_output_arg(fn, i)}
        extra += spill_floor_bytes(readers, desc.memory.scratchpad_bytes, outputs)
    return extra


# --------------------------------------------------------------------------------------
# One model on one target
# --------------------------------------------------------------------------------------


@dataclass
class Row:
    model: str
    target: str
    bytes: dict = field(default_factory=dict)  # variant -> bytes to device + to host
    transfers: dict = field(default_factory=dict)
    cycles: dict = field(default_factory=dict)  # variant -> simulated cycles
    lower_bound: int = 0
    fused_bound: int = 0  # report.json's dma.fused_lower_bound_bytes (of `full`)
    exposed: dict = field(default_factory=dict)  # variant -> report.json's cycles.exposed_dma
    cycle_bound: int = 0
    region_bound: dict = field(default_factory=dict)  # variant -> report.json's cycles.region_lower_bound
    offloaded: int = 0
    macs: dict = field(default_factory=lambda: {"total": 0, "offloaded": 0})  # report.json's
    max_err: float = 0.0
    errors: dict = field(default_factory=dict)  # variant -> one line
    on_device: dict = field(default_factory=dict)  # variant -> counters' bytes_on_device
    bounds: dict = field(default_factory=dict)  # variant -> (lower_bound_bytes, cycles.lower_bound)
    regions: dict = field(default_factory=dict)  # variant -> regions of report.json
    breakdown: Breakdown | None = None
    seconds: float = 0.0


def measure(model: str, target: str, work: str, variants: tuple[str, ...] = tuple(VARIANTS)) -> Row:
    from accel.compiler.driver import compile_module, compile_to_directory, load_model, make_context
    from accel.compiler.frontend.onnx import import_onnx_file
    from accel.compiler.runtime.interpreter import run_function
    from accel.compiler.runtime.run_compiled import run_directory
    from accel.compiler.targets import TargetContext

    start = time.perf_counter()
    path = model_path(model, work)
    inputs = random_inputs(path)
    ref = run_function(import_onnx_file(path), inputs)
    row = Row(model, target)
    for variant, spec in VARIANTS.items():
        if variant not in variants:
            continue
        out_dir = os.path.join(work, f"{model}-{target}-{variant.strip('-')}")
        try:
            report = compile_to_directory(path, today_target(target, work) if variant == "-DEV" else target,
                                          out_dir, pipeline=spec)
            build_fast(out_dir)
            outputs, counters = run_directory(out_dir, inputs)
            for key in ("bytes_to_device", "bytes_to_host", "transfers"):
                if counters[key] != report["dma"][key]:
                    raise AssertionError(f"{key}: report {report['dma'][key]} != simulator {counters[key]}")
            for name, want in ref.items():
                err = float(np.abs(outputs[name].astype(np.float64) - want).max())
                if err > tolerance(path, name, want, INT8_DRIFT_STEPS["npu"].get(QUANTIZED.get(model, model), 1)) \
                        and not matches_int8_kernels(path, inputs, name, outputs[name]):
                    raise AssertionError(f"output '{name}' off by {err}")
                row.max_err = max(row.max_err, err / max(float(np.abs(want).max()), 1e-30))
        except Exception as e:  # reported under the tables; the other pipelines go on
            row.errors[variant] = f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"
            continue
        row.bytes[variant] = counters["bytes_to_device"] + counters["bytes_to_host"]
        row.transfers[variant] = counters["transfers"]
        row.cycles[variant] = counters["cycles"]
        row.exposed[variant] = report["cycles"]["exposed_dma"]
        row.region_bound[variant] = report["cycles"]["region_lower_bound"]
        row.on_device[variant] = counters.get("bytes_on_device", 0)
        row.bounds[variant] = (report["dma"]["lower_bound_bytes"], report["cycles"]["lower_bound"])
        row.regions[variant] = len(report.get("regions", []))
        if variant == "full":
            row.fused_bound = report["dma"].get("fused_lower_bound_bytes", 0)
        if variant == "full" or not row.cycle_bound:
            row.lower_bound = report["dma"]["lower_bound_bytes"]
            row.cycle_bound = report["cycles"]["lower_bound"]
            row.offloaded = report.get("ops", {}).get("offloaded", 0)
            row.macs = report["macs"]
    if row.bytes.get("full"):
        descs = {d.name: d for d in TargetContext().load(target)}
        ctx = make_context(target)
        module, _ = compile_module(load_model(path, ctx), ctx, "full")
        row.breakdown = traffic_breakdown(module, descs)
        ctx = make_context(target)
        lowered, _ = compile_module(load_model(path, ctx), ctx, _PARTITION)
        row.breakdown.one_op_floor = row.lower_bound + one_op_floor(lowered, descs)
    row.seconds = time.perf_counter() - start
    return row


# --------------------------------------------------------------------------------------
# Tables
# --------------------------------------------------------------------------------------


def ratio(a: float, b: float) -> str:
    if b == 0:
        return "  -  " if a == 0 else "  inf"
    return f"{a / b:5.2f}"


def share(part: float, whole: float) -> str:
    return f"{part / whole:.0%}" if whole else "-"


def mb(n: float) -> str:
    return f"{n / 1e6:8.3f}" if n else "       0"


def table(rows: list[Row]) -> str:
    from accel.compiler.partition_report import mac_share

    head = (f"{'model':<25} {'target':<10} {'ops':>3} {'MACs off':>8} | {'naive MB':>8} {'opt MB':>8} {'LB MB':>8} "
            f"{'opt/LB':>6} {'nv/LB':>6} | {'cyc opt':>9} {'cyc -DB':>9} {'cyc -DB1':>9} {'cyc -PR':>9} {'cyc LB':>9} "
            f"{'opt/LB':>6} {'-DB/LB':>6} {'-DB1/LB':>7} {'-PR/LB':>6}")
    lines = [head, "-" * len(head)]

    def missing(r: Row, v: str, w: int) -> str:
        return f"{'ERR' if v in r.errors else '-':>{w}}"  # failed, or not asked for (--variants)

    def b(r: Row, v: str) -> str:
        return mb(r.bytes[v]) if v in r.bytes else missing(r, v, 8)

    def c(r: Row, v: str, w: int = 9) -> str:
        return f"{r.cycles[v]:>{w}}" if v in r.cycles else missing(r, v, w)

    def q(num: dict, v: str, den: float, w: int = 6) -> str:
        return f"{ratio(num[v], den):>{w}}" if v in num else f"{'-':>{w}}"

    for r in rows:
        lines.append(
            f"{r.model:<25} {r.target:<10} {r.offloaded:>3} {mac_share(r.macs):>8} | {b(r, 'naive')} {b(r, 'full')} {mb(r.lower_bound)} "
            f"{q(r.bytes, 'full', r.lower_bound)} {q(r.bytes, 'naive', r.lower_bound)} | "
            f"{c(r, 'full')} {c(r, '-DB')} {c(r, '-DB1')} {c(r, '-PR')} {r.cycle_bound:>9} "
            f"{q(r.cycles, 'full', r.cycle_bound)} {q(r.cycles, '-DB', r.cycle_bound)} "
            f"{q(r.cycles, '-DB1', r.cycle_bound, 7)} {q(r.cycles, '-PR', r.cycle_bound)}")
    return "\n".join(lines)


def breakdown_table(rows: list[Row]) -> str:
    head = (f"{'model':<25} {'target':<7} | {'LB MB':>7} {'1-op MB':>8} {'opt MB':>7} {'opt/1op':>7} | "
            f"{'in moved/size':>15} {'weights moved/size':>19} {'spill out/in/size':>23} {'out':>7} | "
            f"{'DMA cyc':>8} {'compute':>8} {'overlap':>7} {'exposed':>8} {'exp -PR':>8} {'ld pref':>7} {'st@once':>7}")
    lines = [head, "-" * len(head)]
    for r in rows:
        b = r.breakdown
        if b is None:
            continue
        opt = r.bytes["full"]
        loads = b.inputs_moved + b.weights_moved + b.spill_in
        stores = b.outputs_moved + b.spill_out
        overlap = (b.dma_busy + b.compute - r.cycles["full"]) / b.dma_busy if b.dma_busy else 0.0
        exposed = {v: f"{r.cycles[v] - b.compute:8.0f}" if v in r.cycles else f"{'ERR':>8}" for v in ("full", "-PR")}
        lines.append(
            f"{r.model:<25} {r.target:<7} | {r.lower_bound / 1e6:7.3f} {b.one_op_floor / 1e6:8.3f} {opt / 1e6:7.3f} "
            f"{ratio(opt, b.one_op_floor):>7} | "
            f"{b.inputs_moved / 1e6:7.3f}/{b.inputs_size / 1e6:<7.3f} "
            f"{b.weights_moved / 1e6:9.3f}/{b.weights_size / 1e6:<9.3f} "
            f"{b.spill_out / 1e6:7.3f}/{b.spill_in / 1e6:7.3f}/{b.spilled_size / 1e6:<7.3f} "
            f"{b.outputs_moved / 1e6:7.3f} | {b.dma_busy:8.0f} {b.compute:8.0f} {overlap:7.1%} "
            f"{exposed['full']} {exposed['-PR']} "
            f"{share(b.loads_prefetched, loads):>7} {share(b.stores_waited_at_once, stores):>7}")
        for note in b.notes:
            lines.append(f"    note: {note}")
    return "\n".join(lines)


def device_table(rows: list[Row]) -> str:
    head = (f"{'model':<22} {'target':<8} | {'regions':>7} | {'LB -DEV':>7} {'-DEV MB':>7} {'/LB':>5} | "
            f"{'LB MB':>7} {'full MB':>7} {'/LB':>5} {'on dev':>7} | {'full/-DEV':>9} | {'cyc -DEV':>9} {'/cLB':>5} | "
            f"{'cyc full':>9} {'/cLB':>5}")
    lines = [head, "-" * len(head)]
    for r in rows:
        if "full" not in r.bytes or "-DEV" not in r.bytes:
            continue
        (lb_t, clb_t), (lb, clb) = r.bounds["-DEV"], r.bounds["full"]
        lines.append(
            f"{r.model:<22} {r.target:<8} | {r.regions['-DEV']:>3}>{r.regions['full']:<3} | "
            f"{lb_t / 1e6:7.3f} {r.bytes['-DEV'] / 1e6:7.3f} {ratio(r.bytes['-DEV'], lb_t):>5} | "
            f"{lb / 1e6:7.3f} {r.bytes['full'] / 1e6:7.3f} {ratio(r.bytes['full'], lb):>5} "
            f"{r.on_device['full'] / 1e6:7.3f} | {ratio(r.bytes['full'], r.bytes['-DEV']):>9} | "
            f"{r.cycles['-DEV']:>9} {ratio(r.cycles['-DEV'], clb_t):>5} | {r.cycles['full']:>9} {ratio(r.cycles['full'], clb):>5}")
    return "\n".join(lines)


def fusion_table(rows: list[Row]) -> str:
    head = (f"{'model':<22} {'target':<7} | {'LB MB':>7} {'fusedLB':>7} {'1-op MB':>8} | {'nofuse':>7} {'full':>7} "
            f"{'nf/LB':>6} {'full/LB':>7} {'full/fLB':>8} | {'cyc nofuse':>10} {'cyc full':>9} {'nf/cLB':>6} "
            f"{'full/cLB':>8} {'rLB':>9} {'nf/rLB':>6} {'full/rLB':>8} | {'exposed nf':>10} {'exposed':>8}")
    lines = [head, "-" * len(head)]
    for r in rows:
        if r.breakdown is None or "nofuse" not in r.bytes:
            continue
        nf, fu = r.bytes["nofuse"], r.bytes["full"]
        rlb = r.region_bound.get("full", 0)
        lines.append(
            f"{r.model:<22} {r.target:<7} | {r.lower_bound / 1e6:7.3f} {r.fused_bound / 1e6:7.3f} "
            f"{r.breakdown.one_op_floor / 1e6:8.3f} | {nf / 1e6:7.3f} {fu / 1e6:7.3f} {ratio(nf, r.lower_bound):>6} "
            f"{ratio(fu, r.lower_bound):>7} {ratio(fu, r.fused_bound):>8} | {r.cycles['nofuse']:>10} "
            f"{r.cycles['full']:>9} {ratio(r.cycles['nofuse'], r.cycle_bound):>6} {ratio(r.cycles['full'], r.cycle_bound):>8} "
            f"{rlb:>9} {ratio(r.cycles['nofuse'], r.region_bound.get('nofuse', rlb)):>6} {ratio(r.cycles['full'], rlb):>8} | "
            f"{r.exposed.get('nofuse', 0):>10} {r.exposed.get('full', 0):>8}")
    return "\n".join(lines)


def residency_table(rows: list[Row]) -> str:
    head = (f"{'model':<25} {'target':<8} | {'LB MB':>7} | {'-RES MB':>7} {'/LB':>5} {'on dev':>7} | {'full MB':>7} "
            f"{'/LB':>5} {'on dev':>7} | {'full/-RES':>9} | {'cyc -RES':>9} {'cyc full':>9} {'full/-RES':>9}")
    lines = [head, "-" * len(head)]
    for r in rows:
        if "full" not in r.bytes or "-RES" not in r.bytes:
            continue
        lines.append(
            f"{r.model:<25} {r.target:<8} | {r.lower_bound / 1e6:7.3f} | {r.bytes['-RES'] / 1e6:7.3f} "
            f"{ratio(r.bytes['-RES'], r.lower_bound):>5} {r.on_device['-RES'] / 1e6:7.3f} | {r.bytes['full'] / 1e6:7.3f} "
            f"{ratio(r.bytes['full'], r.lower_bound):>5} {r.on_device['full'] / 1e6:7.3f} | "
            f"{ratio(r.bytes['full'], r.bytes['-RES']):>9} | {r.cycles['-RES']:>9} {r.cycles['full']:>9} "
            f"{ratio(r.cycles['full'], r.cycles['-RES']):>9}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--models", default=",".join(MODELS), help="comma-separated subset of: " + ", ".join(MODELS))
    ap.add_argument("--targets", default=",".join(TARGETS))
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--keep", metavar="DIR", help="write the compiled directories here (kept)")
    ap.add_argument("--variants", default=",".join(VARIANTS), help="comma-separated subset of: " + ", ".join(VARIANTS))
    args = ap.parse_args(argv)
    variants = tuple(v for v in args.variants.split(",") if v)
    if any(v not in VARIANTS for v in variants):
        ap.error(f"unknown variant '{next(v for v in variants if v not in VARIANTS)}'")
    models = [m for m in args.models.split(",") if m]
    unknown = [m for m in models if m not in MODELS]
    if unknown:
        ap.error(f"unknown model '{unknown[0]}'")
    targets = [t for t in args.targets.split(",") if t]
    work = args.keep or tempfile.mkdtemp(prefix="accel-bench-dma-")
    os.makedirs(work, exist_ok=True)
    jobs = [(m, t) for m in models for t in targets]
    start = time.perf_counter()
    with ProcessPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        futures = [pool.submit(measure, m, t, work, variants) for m, t in jobs]
        rows = [f.result() for f in futures]
    if not args.keep:
        shutil.rmtree(work, ignore_errors=True)
    print("Table 1: bytes moved (to device + to host, simulator counters) and simulated cycles")
    print(table(rows))
    print()
    print("Table 2: where the optimized (`full`) bytes go, on targets that move data")
    print(breakdown_table(rows))
    print()
    print("Table 3: layer fusion (`full`) against the unfused pipeline (`nofuse`) and the bounds")
    print(fusion_table(rows))
    print()
    print("Table 4: copies on the device (`full`) against the same target without them (`-DEV`)")
    print(device_table(rows))
    print()
    print("Table 5: partial residency of spilled values (`full`) against `full` without it (`-RES`)")
    print(residency_table(rows))
    print()
    errors = [(r, v, e) for r in rows for v, e in r.errors.items()]
    for r, v, e in errors:
        print(f"ERR {r.model} on {r.target} ({v}): {e}")
    worst = max((r.max_err for r in rows), default=0.0)
    print(f"{len(rows)} model/target pairs x {len(variants)} pipelines; {len(errors)} failed; the others "
          f"match the reference or, int8 outputs, onnxruntime's int8 kernels (worst relative error to the reference "
          f"{worst:.1e}); {time.perf_counter() - start:.0f} s")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
