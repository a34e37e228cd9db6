"""Real exported models (tests/models) partitioned for the built-in targets: convolutions
land on the npu as composites (float and int8 QDQ), the rest stays on the host with a
reason, and the partitioned IR interprets to exactly the same values."""

from __future__ import annotations

import collections
import json
import os
import re
import subprocess
import sys

import numpy as np
import onnx
import pytest
from xdsl.dialects import func

from accel.compiler.frontend.onnx import import_onnx_file
from accel.compiler.partition_report import explain_table, partition_dot, partition_report
from accel.compiler.runtime.interpreter import run_function
from accel.compiler.transforms.byoc import Byoc
from accel.dialects import relay
from accel.compiler.targets import AccelContext

HERE = os.path.dirname(os.path.abspath(__file__))
MODELS = os.path.join(HERE, "models")
sys.path.insert(0, HERE)


def _input(model: onnx.ModelProto, seed: int) -> dict[str, np.ndarray]:
    (inp,) = [i for i in model.graph.input if i.name not in {t.name for t in model.graph.initializer}]
    shape = tuple(d.dim_value for d in inp.type.tensor_type.shape.dim)
    return {inp.name: np.random.default_rng(seed).standard_normal(shape).astype(np.float32)}


def _composites(module) -> collections.Counter:
    return collections.Counter(op.pattern.data for op in module.walk() if isinstance(op, relay.CompositeOp))


def _partition_and_compare(path: str, targets=("npu",)):
    model = onnx.load(path)
    module = import_onnx_file(path)
    inputs = _input(model, 0)
    expected = run_function(module, inputs)
    Byoc(target=targets).apply(AccelContext(), module)
    got = run_function(module, inputs)
    for k in expected:
        np.testing.assert_array_equal(got[k], expected[k], err_msg=k)
    return module


def _offloaded_convs(module) -> int:
    """Conv2d ops inside outlined accelerator functions (in composites or alone)."""
    count = 0
    for fn in module.ops:
        if isinstance(fn, func.FuncOp) and "accel.target" in fn.attributes:
            count += sum(1 for op in fn.walk() if op.name in ("relay.nn.conv2d", "relay.qnn.conv2d"))
    return count


@pytest.mark.parametrize("name", ["resnet_legacy", "resnet_dynamo", "mobilenet_legacy", "mobilenet_dynamo"])
def test_float_cnn_partitions_for_npu(name):
    path = os.path.join(MODELS, f"{name}.onnx")
    module = _partition_and_compare(path)
    total_convs = sum(1 for n in onnx.load(path).graph.node if n.op_type == "Conv")
    report = partition_report(module)
    assert report["regions"], "nothing offloaded"
    assert all(r["target"] == "npu" for r in report["regions"])
    composites = _composites(module)
    assert any(c.startswith("npu.conv2d_bias") for c in composites), composites
    # Convolutions run on the npu unless their reason says otherwise.
    offloaded = _offloaded_convs(module)
    rejected_convs = [r for r in report["rejected"] if "conv2d" in r["op"]]
    assert offloaded >= total_convs // 2, (offloaded, total_convs)
    assert all(r["reason"] and r["location"] for r in report["rejected"])
    assert offloaded + sum(1 for r in rejected_convs) <= total_convs


def test_resnet_all_convolutions_offloaded_into_one_region():
    module = _partition_and_compare(os.path.join(MODELS, "resnet_legacy.onnx"))
    report = partition_report(module)
    assert len(report["regions"]) == 1
    region = report["regions"][0]
    assert region["name"] == "npu_0" and region["inputs"] == ["tensor<1x3x32x32xf32>"]
    assert _offloaded_convs(module) == 9
    # The flatten is a copy on the device (npu_dma_on_device), so the classifier joins the region.
    assert report["rejected"] == []
    table = explain_table(module)
    assert "/layers/layers.1/conv1/Conv" in table and "npu (npu_0)" in table
    assert re.search(r"^relay\.reshape +/Flatten +npu \(npu_0\)$", table, re.M)
    assert re.search(r"^npu\.dense_bias +/head/Gemm +npu \(npu_0\)$", table, re.M)
    assert "cluster_npu_0" in partition_dot(module)


def test_two_targets_on_a_cnn():
    module = _partition_and_compare(os.path.join(MODELS, "resnet_legacy.onnx"), targets=("dsp", "npu"))
    # The dsp takes dense layers only; convolutions still go to the npu.
    assert _offloaded_convs(module) == 9


@pytest.fixture(scope="module")
def resnet_qdq(tmp_path_factory) -> str:
    from test_onnx_models import quantize

    path = str(tmp_path_factory.mktemp("qdq") / "resnet_qdq.onnx")
    quantize(os.path.join(MODELS, "resnet_legacy.onnx"), path, "qdq")
    return path


def test_int8_qdq_model_lands_on_the_npu_as_integer_composites(resnet_qdq):
    module = _partition_and_compare(resnet_qdq)
    composites = _composites(module)
    assert composites["npu.qconv2d_bias"] == 9, composites
    assert composites["npu.qadd"] == 3 and composites["npu.qmaxpool"] == 1
    report = partition_report(module)
    assert len(report["regions"]) == 1 and report["ops"]["offloaded"] > 0.8 * report["ops"]["total"]
    # No float convolution outside a composite: every conv of the model is an int8 one.
    assert not any(op.name == "relay.nn.conv2d" and not isinstance(op.parent_op(), relay.CompositeOp)
                   for op in module.walk())


def test_accel_opt_on_a_real_model(tmp_path):
    """The issue's command line: explain table, report and picture."""
    path = os.path.join(MODELS, "resnet_legacy.onnx")
    report, dot = tmp_path / "r.json", tmp_path / "p.dot"
    out = subprocess.run(
        [os.path.join(os.path.dirname(sys.executable), "accel-opt"), path, "--target", "npu", "-p", "byoc",
         "--explain", "--report", str(report), "--dot", str(dot)],
        capture_output=True, text=True, check=True,
    )
    assert "func.func private @npu_0" in out.stdout
    assert "npu.conv2d_bias_relu" in out.stderr and "33 of 33 ops offloaded, 0 on the host" in out.stderr
    data = json.loads(report.read_text())
    assert data["ops"]["offloaded"] + data["ops"]["host"] == data["ops"]["total"]
    assert dot.read_text().startswith("digraph partition {")
