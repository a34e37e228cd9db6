"""sqrt, exp and log on the npu (`accel.eltwise` kinds, `NPU_ELTWISE_SQRT/EXP/LOG`; the
command-stream targets' eltwise codes).

Models compute these between their convolutions and projections: Silero VAD takes the
magnitude of its STFT (`sqrt(re^2 + im^2)`), log-spectra and log-softmax heads take logs
and exponentials. On the host each cut the npu's work into regions.

- each kind through C on npu (one command), npu-64k (tiled) and the command-stream
  targets npu-cmd and stripe: sqrt bit for bit with the interpreter (correctly rounded
  both), exp and log within four units in the last place (numpy's float32 SIMD exp and
  log against the simulator's rounded double: a few ulps near log's zero); negative data give NaN where the interpreter
  does;
- Silero VAD (the trained model of the silero-vad wheel) is one npu region with no host
  op (it was two regions and 82 host ops: its STFT's 37 kernel slices and its sqrt),
  its C against onnxruntime: tests/test_onnx_models.py.
"""

from __future__ import annotations

import os

import numpy as np
import pytest

from accel.compiler.driver import compile_to_directory, print_ir
from accel.compiler.frontend.builder import GraphBuilder
from accel.compiler.runtime.interpreter import run_function
from accel.compiler.runtime.run_compiled import run_directory

HERE = os.path.dirname(os.path.abspath(__file__))
STRIPE = os.path.join(os.path.dirname(HERE), "examples", "targets", "stripe", "stripe.toml")
KINDS = ("sqrt", "exp", "log")


def _graph(kind: str, shape: tuple[int, ...]):
    rng = np.random.default_rng(3)
    b = GraphBuilder()
    x = b.input("x", shape)
    y = getattr(b, kind)(b.relu(x))
    data = rng.standard_normal(shape).astype(np.float32) * 4
    data.flat[:3] = [0.0, 1e-30, 80.0]  # zero, a subnormal's neighbourhood, exp's range end
    return b.build([y], ["y"]), {"x": data}


@pytest.mark.parametrize("target, shape", [("npu", (6, 40)), ("npu-64k", (160, 300)), ("npu-cmd", (6, 40)),
                                           ("stripe", (6, 40))],
                         ids=["npu", "npu-64k-tiled", "npu-cmd", "stripe"])
@pytest.mark.parametrize("kind", KINDS)
def test_unary_math_runs_on_the_npu(kind, target, shape, tmp_path):
    module, inputs = _graph(kind, shape)
    want = run_function(module, inputs)["y"]
    path = tmp_path / "m.mlir"
    path.write_text(print_ir(module))
    # (a small graph alone is not worth a region by the cost rule: asked to offload anyway)
    report = compile_to_directory(str(path), STRIPE if target == "stripe" else target, str(tmp_path / "out"),
                                  pipeline="byoc{cost-model=false},lower")
    assert len(report["regions"]) == 1 and report["ops"]["host"] == 0, report["rejected"]
    got, counters = run_directory(str(tmp_path / "out"), inputs)
    got = got["y"]
    if kind == "sqrt":
        assert np.array_equal(got, want, equal_nan=True)
    else:  # numpy's float32 exp and log (SIMD, a few ulps near log's zero) against the rounded double
        same = (got == want) | (np.isnan(got) & np.isnan(want))
        ulp = np.spacing(np.abs(want).astype(np.float32))
        assert np.all(same | (np.abs(got - want) <= 4 * ulp)), float(np.nanmax(np.abs(got - want)[~same] / ulp[~same]))
    if target == "npu-64k":
        assert counters["transfers"] > 2, counters


def test_negative_data_give_nan_as_the_interpreter(tmp_path):
    b = GraphBuilder()
    x = b.input("x", (4, 16))
    module = b.build([b.sqrt(x), b.log(x)], ["s", "l"])
    inputs = {"x": np.linspace(-2, 2, 64, dtype=np.float32).reshape(4, 16)}
    want = run_function(module, inputs)
    path = tmp_path / "m.mlir"
    path.write_text(print_ir(module))
    compile_to_directory(str(path), "npu", str(tmp_path / "out"), pipeline="byoc{cost-model=false},lower")
    got, _ = run_directory(str(tmp_path / "out"), inputs)
    for k, w in want.items():
        assert np.isnan(w).any() and np.array_equal(np.isnan(got[k]), np.isnan(w)), k
        assert np.allclose(got[k], w, rtol=1e-6, atol=0, equal_nan=True), k
