"""Bring your own accelerator: the Mesh NPU of examples/targets/mesh, a vendor's target
written outside the compiler (its own C API, library, scratchpad and DMA), compiles and
runs real models and matches the reference.

The tutorial of docs/targets.md ("Tutorial: bring your own accelerator") is run here as
written: every ```sh block of that section, line by line.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys

import numpy as np
import onnx
import pytest
from e2e_util import input_signature, ort_run, output_step

from accel.compiler.driver import compile_to_directory, load_model, make_context
from accel.compiler.runtime.interpreter import run_function
from accel.compiler.runtime.run_compiled import run_directory

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MESH = os.path.join(ROOT, "examples", "targets", "mesh", "mesh.toml")
TUTORIAL = "## 10. Tutorial: bring your own accelerator"


def tutorial_commands() -> list[str]:
    with open(os.path.join(ROOT, "docs", "targets.md"), encoding="utf-8") as f:
        text = f.read()
    start = text.index(TUTORIAL)
    end = text.find("\n## ", start + len(TUTORIAL))
    section = text[start : end if end >= 0 else len(text)]
    blocks = re.findall(r"```sh\n(.*?)```", section, re.S)
    return [line for block in blocks for line in block.splitlines() if line.strip()]


def test_the_tutorial_runs_as_written(tmp_path):
    commands = tutorial_commands()
    assert len(commands) >= 5  # explain, compile, inputs, run, reference, compare
    env = dict(os.environ, WORK=str(tmp_path), PATH=os.path.dirname(sys.executable) + os.pathsep + os.environ["PATH"])
    for command in commands:
        done = subprocess.run(["bash", "-c", command], cwd=ROOT, env=env, capture_output=True, text=True)
        assert done.returncode == 0, f"{command}\n{done.stderr}"
        assert "Traceback" not in done.stderr
    counters = json.loads((tmp_path / "mesh" / "counters.json").read_text())
    assert counters["accel_ops"] > 0 and counters["bytes_to_device"] > 0
    wrappers = (tmp_path / "mesh" / "mesh_wrappers.c").read_text()
    assert "mesh_conv(" in wrappers and "mesh_load(" in wrappers and "npu_" not in wrappers


@pytest.mark.parametrize("model", ["examples/tiny_resnet.onnx", "examples/tiny_resnet_int8.onnx",
                                   "tests/models/resnet_dynamo.onnx"])
def test_real_models_match_the_reference_on_mesh(tmp_path, model):
    """Against the interpreter and onnxruntime: float within 1e-4 of the output's max;
    int8 within one quantization step (the device accumulates in int32 where the QDQ
    reference rounds in float32)."""
    path = os.path.join(ROOT, model)
    report = compile_to_directory(path, MESH, str(tmp_path / "out"))
    assert report["ops"]["offloaded"] > 0 and {r["target"] for r in report["regions"]} == {"mesh"}
    proto = onnx.load(path)
    rng = np.random.default_rng(0)
    inputs = {n: rng.standard_normal(s).astype(np.float32) for n, s in input_signature(proto)}
    got, counters = run_directory(str(tmp_path / "out"), inputs)
    references = {"interpreter": run_function(load_model(path, make_context()), inputs),
                  "onnxruntime": ort_run(path, inputs, optimize=False)}
    for which, expected in references.items():
        for name, want in expected.items():
            err = float(np.max(np.abs(got[name].astype(np.float64) - want)))
            bound = output_step(proto, name) * 1.0001 if "int8" in model else 1e-4 * float(np.max(np.abs(want)))
            assert err <= bound, (which, name, err, bound)
    for key in ("bytes_to_device", "bytes_to_host", "transfers"):
        assert report["dma"][key] == counters[key], key


def test_mesh_is_unknown_to_the_compiler():
    hits = []
    for dirpath, _, files in os.walk(os.path.join(ROOT, "compiler")):
        for f in files:
            if f.endswith((".py", ".toml", ".mlir", ".c", ".h")):
                with open(os.path.join(dirpath, f), encoding="utf-8", errors="replace") as fh:
                    if re.search(r"\bmesh", fh.read()):
                        hits.append(f)
    assert hits == []
