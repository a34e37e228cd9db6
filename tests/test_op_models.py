"""Real exported models for the ONNX ops the importer gained (tests/models/export_op_models.py:
torch, dynamo and legacy exporters): a YOLO-style detector (nearest Resize in its FPN), an
FCN-style segmenter (bilinear Resize), CRNNs with a bidirectional LSTM or GRU (and
LogSoftmax), an ESPCN super-resolution net (DepthToSpace) and a ConvTranspose decoder.
Each compiles for the npu, runs in C on the simulator and matches onnxruntime within 1e-4
of the output's max |value|; its convolutions and matrix products offload (the share of
MACs on the npu is asserted: all of them, except the CRNNs' per-step recurrent products
h @ R, 1x16 by 16x64, which the cost model keeps on the host because moving them costs
more than computing them there). The decoder's ConvTransposes offload as convolutions
(canonicalize-conv-transpose).
"""

from __future__ import annotations

import os

import numpy as np
import onnx
import pytest

from accel.compiler.driver import compile_to_directory
from accel.compiler.runtime.run_compiled import run_directory
from e2e_util import input_signature, ort_run

MODELS = os.path.join(os.path.dirname(__file__), "models")

MIN_OFFLOADED = {"yolo": 1.0, "segment": 1.0, "espcn": 1.0, "decoder": 1.0, "crnn": 0.95, "crnn_gru": 0.95}
"""Share of the MACs on the npu, per architecture."""

CASES = [f"{arch}_{kind}" for arch in MIN_OFFLOADED for kind in ("dynamo", "legacy")]


@pytest.mark.parametrize("name", CASES)
def test_op_model_offloads_and_matches_onnxruntime(tmp_path, name):
    path = os.path.join(MODELS, f"{name}.onnx")
    rng = np.random.default_rng(0)
    feeds = {n: rng.standard_normal(s).astype(np.float32) for n, s in input_signature(onnx.load(path))}
    report = compile_to_directory(path, "npu", str(tmp_path / "out"))
    macs = report["macs"]
    arch = name.rsplit("_", 1)[0]
    assert macs["total"] > 0 and macs["offloaded"] >= MIN_OFFLOADED[arch] * macs["total"], macs
    got, _ = run_directory(str(tmp_path / "out"), feeds)
    want = ort_run(path, feeds)
    assert set(got) == set(want)
    for k, w in want.items():
        np.testing.assert_allclose(got[k], w, rtol=0, atol=1e-4 * float(np.abs(w).max()), err_msg=k)
