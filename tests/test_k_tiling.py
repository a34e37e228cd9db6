"""Products split along K (tile-for-scratchpad): a dense layer whose rows of K do not fit
the scratchpad compiles to K tiles that accumulate on the device, runs on the simulator
and matches onnxruntime within 1e-4 of the output's max.

The target is the built-in npu with a 32 KiB scratchpad (the real one admits K <= 4096,
which always fits with whole K rows): one data row and one weight row of K = 4096 (16 KiB
each, the streamed ones twice) exceed it."""

from __future__ import annotations

import os
import re

import numpy as np
import onnx
import onnx.helper as oh
import onnx.numpy_helper as nh
import pytest
from onnx import TensorProto

from e2e_util import _finish, ort_run
from accel.compiler.driver import compile_to_directory
from accel.compiler.runtime.run_compiled import run_directory
from accel.compiler.targets.registry import load_target

TARGETS_DIR = os.path.join(os.path.dirname(__file__), "..", "compiler", "targets")
SCRATCHPAD = 32768
M, K, N = 4, 4096, 64


@pytest.fixture(scope="module")
def small_npu(tmp_path_factory) -> str:
    d = tmp_path_factory.mktemp("npu32k")
    text = open(os.path.join(TARGETS_DIR, "npu.toml")).read()
    text = re.sub(r'^name = "npu"', 'name = "npu32k"', text, flags=re.M)
    text = re.sub(r"^scratchpad_bytes = \d+.*$", f"scratchpad_bytes = {SCRATCHPAD}", text, flags=re.M)
    (d / "npu32k.toml").write_text(text)
    (d / "patterns.mlir").write_text(open(os.path.join(TARGETS_DIR, "patterns.mlir")).read())
    path = str(d / "npu32k.toml")
    assert load_target(path).memory.scratchpad_bytes == SCRATCHPAD
    return path


def dense_model(relu: bool) -> onnx.ModelProto:
    rng = np.random.default_rng(7)
    inits = [nh.from_array((rng.standard_normal((N, K)) / np.sqrt(K)).astype(np.float32), "w"),
             nh.from_array((rng.standard_normal(N) * 0.5).astype(np.float32), "b")]
    nodes = [oh.make_node("Gemm", ["x", "w", "b"], ["g" if relu else "y"], transB=1)]
    if relu:
        nodes.append(oh.make_node("Relu", ["g"], ["y"]))
    return _finish(nodes, "dense_k", [oh.make_tensor_value_info("x", TensorProto.FLOAT, [M, K])],
                   [oh.make_tensor_value_info("y", TensorProto.FLOAT, [M, N])], inits)


@pytest.mark.parametrize("relu", [False, True])
def test_k_tiled_dense_matches_onnxruntime(relu, small_npu, tmp_path):
    path = str(tmp_path / "dense_k.onnx")
    onnx.save(dense_model(relu), path)
    out = tmp_path / "out"
    report = compile_to_directory(path, small_npu, str(out))
    c = "".join(open(os.path.join(out, f)).read() for f in os.listdir(out) if f.endswith(".c"))
    assert ".accumulate = 1" in c, "the product must be split along K for this test to mean anything"
    x = np.random.default_rng(8).standard_normal((M, K)).astype(np.float32)
    got, counters = run_directory(str(out), {"x": x})
    ref = ort_run(path, {"x": x})["y"]
    # The report's model of the accumulating tiles (their reads of the partial sums) is the simulator's.
    assert report["cycles"]["estimate"] == counters["cycles"]
    assert report["dma"]["bytes_to_device"] == counters["bytes_to_device"]
    # The partial sums stay on the device: only data, weights and bias are loaded, once.
    assert counters["bytes_to_device"] == x.nbytes + (N * K + N) * 4
    err = float(np.max(np.abs(got["y"] - ref)))
    assert err <= 1e-4 * float(np.max(np.abs(ref))), f"differs by {err} (max |ref| {np.max(np.abs(ref))})"
