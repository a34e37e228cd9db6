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
(`ok` within 1e-4; else the error line).
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
    """How inputs are drawn: `image` (a page of strokes) or `audio` (noise)."""


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
    "ddddocr_ocr": WheelModel("ddddocr==1.6.1", "ddddocr/common.onnx", "input1=1x1x64x256"),
    "ddddocr_det": WheelModel("ddddocr==1.6.1", "ddddocr/common_det.onnx"),
    "ddddocr_ocr_int8": WheelModel("ddddocr==1.6.1", "ddddocr/common_old.onnx", "input1=1x1x64x256"),
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
        else:
            out[vi.name] = (rng.random(shape, dtype=np.float32) - 0.5).astype(np.float32)
    return out


def run_one(name: str, target: str, cache: Path) -> tuple[str, float | None, float | None, str]:
    import onnxruntime as ort

    from accel.compiler.frontend.graph_inputs import parse_input_shapes

    model = MODELS[name]
    path = str(fetch(model, cache))
    so = ort.SessionOptions()
    so.intra_op_num_threads = 1
    so.log_severity_level = 3
    so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL  # the graph as written
    session = ort.InferenceSession(path, so, providers=["CPUExecutionProvider"])
    inputs = feeds(session, model, parse_input_shapes(model.shapes))
    want = session.run(None, {**inputs, **model.bind})
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
    names = [o.name for o in session.get_outputs()]
    err = max(float(np.abs(got[n] - w).max()) / max(float(np.abs(w).max()), 1e-30) for n, w in zip(names, want))
    return f"{ops['offloaded']}/{ops['total']}", seconds, err, "ok" if err <= TOLERANCE else f"err > {TOLERANCE:g}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", default=",".join(MODELS), help="comma list of: " + ", ".join(MODELS))
    parser.add_argument("--targets", default="npu", help="comma list of targets (default npu)")
    parser.add_argument("--cache", default=os.path.expanduser("~/.cache/accel-wheels"),
                        help="where wheels and their models are kept")
    args = parser.parse_args()
    print_model_warnings("wheel_models")
    names = [m for m in args.models.split(",") if m]
    unknown = [m for m in names if m not in MODELS]
    if unknown:
        sys.exit(f"wheel_models: unknown model '{unknown[0]}' (known: {', '.join(MODELS)})")
    print(f"{'model':24} {'target':10} {'offloaded':>10} {'compile s':>10} {'err':>9}  status")
    for name in names:
        for target in args.targets.split(","):
            ops, seconds, err, status = run_one(name, target, Path(args.cache))
            shown_s = f"{seconds:10.2f}" if seconds is not None else f"{'-':>10}"
            shown_err = f"{err:9.1e}" if err is not None else f"{'-':>9}"
            print(f"{name:24} {target:10} {ops:>10} {shown_s} {shown_err}  {status}", flush=True)


if __name__ == "__main__":
    main()
