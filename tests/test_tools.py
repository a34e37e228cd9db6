"""The tools' behaviour that lit cannot express: the README's Python API snippet, the
report and timing of accel-compile, and `-p byoc` compiled and run."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys

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
    assert {"import", "byoc", "bufferize", "plan-memory", "plan-memory#2", "optimize-dma", "verify", "emit", "report",
            "write"} <= set(stages)
    err = capsys.readouterr().err
    for stage in stages:
        assert re.search(rf"^Pass {re.escape(stage)} took [0-9.e-]+ seconds$", err, re.M), stage


def test_lower_on_unpartitioned_input_reports_ops(tmp_path):
    src = tmp_path / "two.mlir"
    src.write_text(TWO_OPS)
    report = api.compile(str(src), "npu", str(tmp_path / "out"), pipeline="lower").report
    assert report["ops"] == {"total": 2, "offloaded": 0, "host": 2}
    assert report["regions"] == []


def take_text(rank: int) -> str:
    """A host-only `take` of 2x3 indices from a rank-`rank` tensor (result rank + 1)."""
    shape = "x".join(["2"] * rank)
    out = "x".join(["2", "3"] + ["2"] * (rank - 1))
    return (f"func.func @main(%x: tensor<{shape}xf32>) -> tensor<{out}xf32> {{\n"
            "  %i = relay.constant dense<[[0, 1, -1], [1, 0, -2]]> : tensor<2x3xi64>\n"
            f"  %y = relay.take %x, %i : (tensor<{shape}xf32>, tensor<2x3xi64>) -> tensor<{out}xf32>\n"
            f"  func.return %y : tensor<{out}xf32>\n}}\n")


def test_host_kernels_take_eight_dimensions_and_refuse_more_at_compile_time(tmp_path):
    """Shapes of up to ACC_MAX_RANK (8) dimensions run on the host kernels (seed-7 fuzz case
    9563: a take from a rank-7 tensor failed at run time with 'invalid parameters' when the limit
    was 6); a larger rank is one line at compile time naming the op, never a run-time
    failure."""
    from accel.compiler.runtime.run_compiled import run_directory
    from accel.compiler.runtime.buffer_interpreter import run_module
    from accel.compiler.driver import load_model, make_context

    ok = tmp_path / "take7.mlir"
    ok.write_text(take_text(7))
    x = {"x": np.random.default_rng(0).standard_normal((2,) * 7).astype(np.float32)}
    accel_compile.main([str(ok), "--target", "npu", "-o", str(tmp_path / "ok"), "-q"])
    got, _ = run_directory(str(tmp_path / "ok"), x)
    want = run_module(load_model(str(ok), make_context("npu")), x)
    assert all(np.array_equal(got[k], want[k]) for k in want)

    bad = tmp_path / "take9.mlir"
    bad.write_text(take_text(9))
    tool = os.path.join(os.path.dirname(sys.executable), "accel-compile")
    proc = subprocess.run([tool, str(bad), "--target", "npu", "-o", str(tmp_path / "bad"), "-q"],
                          capture_output=True, text=True)
    assert proc.returncode != 0 and "Traceback" not in proc.stderr
    err = proc.stderr.strip().splitlines()
    assert len(err) == 1 and re.search(r"take9\.mlir:3:\d+: error: 'relay\.take': a rank-9 tensor: the host kernels "
                                       r"take at most 8 dimensions", err[0]), err


def test_the_emitters_rank_limit_is_the_host_kernels_one():
    from accel.compiler.backend.c_emitter import HOST_MAX_RANK
    header = open(os.path.join(ROOT, "compiler", "runtime", "c", "host_kernels.h")).read()
    assert re.search(r"#define ACC_MAX_RANK (\d+)", header).group(1) == str(HOST_MAX_RANK)
