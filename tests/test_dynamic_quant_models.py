"""Dynamically quantized models (onnxruntime's `quantize_dynamic`): an MLP (int8 weights:
DynamicQuantizeLinear + MatMulInteger) and tests/models' ResNet-style CNN (uint8
weights: ConvInteger, MatMulInteger), through the reference interpreter and the
compiled C (npu target, host kernels for the integer ops), against onnxruntime with
graph optimizations off. The integer products are exact and the float steps follow
ONNX's order, so the outputs agree to 1e-6 of their largest magnitude.
"""

from __future__ import annotations

import os
from collections import Counter

import numpy as np
import onnx
import pytest

from accel.compiler.driver import compile_to_directory
from accel.compiler.frontend.onnx import import_onnx_file
from accel.compiler.runtime.interpreter import run_function
from accel.compiler.runtime.run_compiled import run_directory
from e2e_util import MODELS, input_signature, mlp_model, ort_run

RTOL = 1e-6


@pytest.fixture(scope="module", params=["mlp", "resnet_legacy"])
def model(request, tmp_path_factory):
    from onnxruntime.quantization import QuantType, quantize_dynamic

    tmp = tmp_path_factory.mktemp(request.param)
    src = os.path.join(tmp, "float.onnx")
    if request.param == "mlp":
        onnx.save(mlp_model(), src)
        weight_type = QuantType.QInt8
    else:
        src = os.path.join(MODELS, f"{request.param}.onnx")
        weight_type = QuantType.QUInt8
    dst = os.path.join(tmp, "dynamic.onnx")
    quantize_dynamic(src, dst, weight_type=weight_type, op_types_to_quantize=["Conv", "MatMul", "Gemm"])
    m = onnx.load(dst)
    feeds = {n: np.random.default_rng(2).standard_normal(s).astype(np.float32) for n, s in input_signature(m)}
    return request.param, dst, m, feeds, ort_run(dst, feeds, optimize=False)


def _close(got: dict, want: dict) -> None:
    for k, w in want.items():
        assert float(np.max(np.abs(got[k] - w))) <= RTOL * float(np.max(np.abs(w))), k


def test_model_is_dynamically_quantized(model):
    name, _, m, _, _ = model
    ops = Counter(n.op_type for n in m.graph.node)
    assert ops["DynamicQuantizeLinear"] and ops["MatMulInteger"], ops
    if name == "resnet_legacy":
        assert ops["ConvInteger"] == 9, ops


def test_interpreter_matches_onnxruntime(model):
    _, path, _, feeds, want = model
    _close(run_function(import_onnx_file(path), feeds), want)


def test_compiled_c_matches_onnxruntime(model, tmp_path):
    _, path, _, feeds, want = model
    compile_to_directory(path, "npu", os.path.join(tmp_path, "out"))
    got, _ = run_directory(os.path.join(tmp_path, "out"), feeds)
    _close(got, want)
