"""Results with a zero in their shape (Slice past the end, Split with an empty part,
Reshape with allowzero of an empty input) are empty constants at import
(ops_tensor.empty): the compiled C takes and returns 0-byte tensors, and every output
equals onnxruntime's (the non-empty one exactly: a copy)."""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest

from accel.compiler.driver import compile_to_directory
from accel.compiler.runtime.run_compiled import run_directory
from e2e_util import ort_run

HERE = os.path.dirname(os.path.abspath(__file__))


@pytest.mark.parametrize("target", ["", "npu"])
def test_empty_results_compile_run_and_match_onnxruntime(tmp_path, target):
    path = str(tmp_path / "empty.onnx")
    subprocess.run([sys.executable, os.path.join(HERE, "lit", "onnx", "Inputs", "make_model.py"), "empty_results", path],
                   check=True)
    feeds = {"x": np.arange(6, dtype=np.float32).reshape(2, 3), "e": np.zeros((0, 4), np.float32)}
    want = ort_run(path, feeds)
    compile_to_directory(path, target, str(tmp_path / "out"),
                         **({"pipeline": "canonicalize,bufferize,plan-memory"} if not target else {}))
    got, _ = run_directory(str(tmp_path / "out"), feeds)
    assert set(got) == set(want) == {"s", "a", "b", "r"}
    for k, w in want.items():
        assert got[k].shape == w.shape and got[k].dtype == w.dtype, k
        np.testing.assert_array_equal(got[k], w, err_msg=k)
