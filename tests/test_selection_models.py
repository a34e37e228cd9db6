"""A real torch export with selection and scan ops (tests/models/export_selection_models.py:
a tiny mixture-of-experts language model, dynamo and legacy exporters): position ids as a
CumSum of a left-padded attention mask, a top-2 router (TopK, gates scattered with
ScatterElements), einsum experts, ArgMax and the top-3 logits (TopK).

Compiled for the npu and for dnnl, run in C and compared with onnxruntime: the greedy
tokens exactly, the top-3 logits within 1e-5 of their largest magnitude; every MAC of the
model (the router, the experts, the head) runs on the accelerator, while the scans and
selections run on the host kernels.
"""

from __future__ import annotations

import os

import numpy as np
import pytest

from accel.compiler.driver import compile_to_directory
from accel.compiler.runtime.run_compiled import run_directory
from e2e_util import ort_run

MODELS = os.path.join(os.path.dirname(__file__), "models")


def _feeds(seed: int) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    pad = int(rng.integers(0, 6))
    return {"ids": rng.integers(0, 50, (1, 12)).astype(np.int64),
            "mask": np.array([[0] * pad + [1] * (12 - pad)], np.int64)}


@pytest.mark.parametrize("target", ["npu", "dnnl"])
@pytest.mark.parametrize("kind", ["dynamo", "legacy"])
def test_moe_language_model_matches_onnxruntime(tmp_path, kind, target):
    path = os.path.join(MODELS, f"moe_lm_{kind}.onnx")
    report = compile_to_directory(path, target, str(tmp_path / "out"))
    assert report["macs"]["offloaded"] == report["macs"]["total"] > 0, report["macs"]
    host_ops = {r["op"] for r in report["rejected"]}
    assert {"relay.cumsum", "relay.topk"} <= host_ops, host_ops
    for seed in range(3):
        feeds = _feeds(seed)
        want = ort_run(path, feeds)
        got, _ = run_directory(str(tmp_path / "out"), feeds)
        np.testing.assert_array_equal(got["next"], want["next"])
        top3 = want["top3"]
        np.testing.assert_allclose(got["top3"], top3, rtol=0, atol=1e-5 * float(np.abs(top3).max()))
