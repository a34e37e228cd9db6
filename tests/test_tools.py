"""The tools' behaviour that lit cannot express: the README's Python API snippet, the
report and timing of accel-compile, and `-p byoc` compiled and run."""

from __future__ import annotations

import json
import os
import re

import numpy as np
from accel.compiler import api
from accel.tools import accel_compile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MODEL = os.path.join(ROOT, "examples", "tiny_resnet.onnx")
TWO_OPS = """func.func @main(%x: tensor<1x16x8x8xf32>, %w: tensor<16x16x3x3xf32>) -> tensor<1x16x8x8xf32> {
  %0 = relay.nn.conv2d %x, %w {padding = [1, 1, 1, 1]} : (tensor<1x16x8x8xf32>, tensor<16x16x3x3xf32>) -> tensor<1x16x8x8xf32>
  %1 = relay.sigmoid %0 : (tensor<1x16x8x8xf32>) -> tensor<1x16x8x8xf32>
  func.return %1 : tensor<1x16x8x8xf32>
}
"""


def test_readme_python_api_snippet_runs(tmp_path, monkeypatch):
    readme = open(os.path.join(ROOT, "README.md"), encoding="utf-8").read()
    section = readme.split("## Python API", 1)[1]
    snippet = re.search(r"```python\n(.*?)```", section, re.S).group(1)
    os.symlink(os.path.join(ROOT, "examples"), tmp_path / "examples")
    monkeypatch.chdir(tmp_path)
    exec(compile(snippet, "README.md", "exec"), {})
    assert (tmp_path / "out" / "report.json").exists()


def test_byoc_pipeline_compiles_and_runs(tmp_path):
    """-p byoc stops at tensor level; the driver completes it and the C matches the
    interpreter (float: within 1e-4 of the output's max)."""
    compiled = api.compile(MODEL, "npu", str(tmp_path / "out"), pipeline="byoc")
    assert "lower-to-accel" in compiled.report["timing"]
    x = np.random.default_rng(1).random((1, 3, 32, 32), dtype=np.float32)
    got, want = compiled.run({"input": x}), api.reference(MODEL, {"input": x})
    for name, ref in want.items():
        assert np.abs(got[name] - ref).max() <= 1e-4 * np.abs(ref).max()
    assert compiled.counters["accel_ops"] > 0


def test_timing_holds_every_stage(tmp_path, capsys):
    out = tmp_path / "out"
    accel_compile.main([MODEL, "--target", "npu", "-o", str(out), "--time-passes"])
    report = json.loads((out / "report.json").read_text())
    stages = list(report["timing"])
    assert {"import", "byoc", "bufferize", "plan-memory", "plan-memory#2", "optimize-dma", "emit", "write"} <= set(stages)
    err = capsys.readouterr().err
    for stage in stages:
        assert re.search(rf"^Pass {re.escape(stage)} took [0-9.e-]+ seconds$", err, re.M), stage


def test_lower_on_unpartitioned_input_reports_ops(tmp_path):
    src = tmp_path / "two.mlir"
    src.write_text(TWO_OPS)
    report = api.compile(str(src), "npu", str(tmp_path / "out"), pipeline="lower").report
    assert report["ops"] == {"total": 2, "offloaded": 0, "host": 2}
    assert report["regions"] == []
