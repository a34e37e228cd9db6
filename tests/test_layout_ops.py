"""Transposes, reshapes and slices on the npu (issue: transformers crossed the host at every
head split and merge). The npu runs each as one strided copy of a view of its input on the
device (`npu_dma_on_device`); a chain of them is one copy; the copy of a value the region
computed reads it on the device; a reshape of one is a view of it, no copy.

Each transformer test model is built for `npu` and for `npu-today`, the same description
without the copy on the device (its layout ops and concatenations stay on the host): the
npu build must match onnxruntime (1e-5 of the output's largest magnitude), run in fewer
regions, move fewer bytes to and from host memory, and its report must predict the
simulator's counters and cycles exactly.
"""

from __future__ import annotations

import os

import numpy as np
import onnx
import pytest
from e2e_util import MODELS, build_and_run, input_signature, ort_run, write_npu_today

from accel.compiler.driver import compile_to_directory
from accel.compiler.runtime.run_compiled import run_directory

FLOAT_TOL = 1e-5

TRANSFORMERS = {
    # model: (regions on npu-today, regions on npu) as measured when layout ops moved on the npu
    "gpt2_legacy": (9, 1),  # its causal mask an add (additive-masks): the npu runs it
    "vit_legacy": (13, 1),  # its patch embedding on the npu (unstride-convs), its layout change not on npu-today
    "llama_legacy": (8, 1),  # its rotary negation a product (expand-activations): the npu runs it
    "encoder_legacy": (6, 1),
}


@pytest.fixture(scope="module")
def today(tmp_path_factory) -> str:
    return write_npu_today(tmp_path_factory.mktemp("npu-today"))


@pytest.mark.parametrize("name", sorted(TRANSFORMERS))
def test_transformers_keep_head_splits_on_the_npu(tmp_path, today, name):
    path = os.path.join(MODELS, f"{name}.onnx")
    model = onnx.load(path)
    rng = np.random.default_rng(0)
    types = {vi.name: vi.type.tensor_type.elem_type for vi in model.graph.input}
    feeds = {n: rng.integers(0, 2 if "mask" in n else 30, s).astype(np.int64) if types[n] == onnx.TensorProto.INT64
             else rng.standard_normal(s).astype(np.float32) for n, s in input_signature(model)}
    want = ort_run(path, feeds)
    got, counters, report = build_and_run(path, "npu", str(tmp_path / "npu"), feeds)
    _, before, report_before = build_and_run(path, today, str(tmp_path / "today"), feeds)
    for k, w in want.items():
        assert np.abs(got[k] - w).max() <= FLOAT_TOL * np.abs(w).max(), k
    assert (len(report_before["regions"]), len(report["regions"])) == TRANSFORMERS[name]
    host_bytes = lambda c: c["bytes_to_device"] + c["bytes_to_host"]  # noqa: E731
    assert host_bytes(counters) < host_bytes(before), (host_bytes(counters), host_bytes(before))
    assert counters["bytes_on_device"] > 0
    # A layout op left on the host is one the cost model keeps there (alone between host
    # ops: ViT's patch embedding), never one the npu cannot run.
    assert all(r["reason"].startswith("npu: not profitable") for r in report["rejected"]
               if r["op"] in ("relay.transpose", "relay.reshape", "relay.strided_slice")), report["rejected"]


HANDED_OVER_RESHAPE = """
func.func @main(%x: tensor<1x512xf32>) -> tensor<1x1x1x512xf32> {
  %r = relay.nn.relu %x : tensor<1x512xf32>
  %f = relay.reshape %r {newshape = [1, 1, 1, 512]} : (tensor<1x512xf32>) -> tensor<1x1x1x512xf32>
  %e = relay.floor %r : tensor<1x512xf32>
  %e4 = relay.reshape %e {newshape = [1, 1, 1, 512]} : (tensor<1x512xf32>) -> tensor<1x1x1x512xf32>
  %y = relay.add %f, %e4 : tensor<1x1x1x512xf32>
  func.return %y : tensor<1x1x1x512xf32>
}
"""


def test_a_reshape_handed_to_a_later_region_is_written(tmp_path):
    """Found on ddddocr's OCR model at 64 KiB: a reshape's result leaving its region for a
    later region of the npu (a host op in between: the exp of then, a floor now that the
    npu runs exp) was written back from a view of
    the relu's buffer; cross-region then made the output argument a resident scratchpad
    buffer and dropped the write (the view is not a buffer the region can compute into),
    so nothing wrote it (the C did not even build: an unused parameter)."""
    src = tmp_path / "handover.mlir"
    src.write_text(HANDED_OVER_RESHAPE)
    x = np.random.default_rng(0).standard_normal((1, 512)).astype(np.float32)
    report = compile_to_directory(str(src), "npu", str(tmp_path / "out"),
                                  pipeline="canonicalize,byoc{cost-model=false},lower")
    assert len(report["regions"]) == 2
    (got,) = run_directory(str(tmp_path / "out"), {"x": x})[0].values()
    r = np.maximum(x, 0)
    np.testing.assert_allclose(got, (r + np.floor(r)).reshape(1, 1, 1, 512), rtol=1e-6)
