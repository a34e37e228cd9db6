"""int8 activations on the npu: `qsigmoid`, `qtanh`, `qsilu` and `qmultiply`; int8 average pools.

onnxruntime's `quantize_static` (QDQ) writes a SiLU as a quantized Sigmoid and a
quantized Mul of the activation by it; a Tanh or a Sigmoid head as dequantize, the
activation, quantize. The npu runs each as one int8 elementwise command (an int8 input
has 256 values: the hardware's table; the simulator dequantizes, computes in f32 and
quantizes, as the reference does). Before these patterns, every such activation split
the graph: an int8 YOLO-style block was three npu regions with the activations on the
host between them.

- a YOLO-style block (strided conv, SiLU, conv, SiLU, 1x1 conv, Tanh, 1x1 conv, Sigmoid)
  quantized by onnxruntime, compiled for the npu: one region, nothing of it on the host
  but the input's quantize and the output's dequantize; the C within one quantization
  step of onnxruntime and of the reference interpreter;
- the same block quantized with the activations left in float (`nodes_to_exclude`):
  canonicalize recognises the SiLU (`x * sigmoid(x)`) between a dequantize and a
  quantize, which `qsilu` takes;
- the float forms of what no int8 command computes (a subtraction) stay on the host;
- int8 average pooling (`qavgpool`, `qglobal_avgpool`) between int8 convs: one region,
  against onnxruntime and the interpreter.
"""

from __future__ import annotations

import collections
import json
import os

import numpy as np
import onnx
import pytest
from onnx import helper as oh
from onnx import numpy_helper as nh

from accel.compiler.driver import compile_to_directory
from accel.compiler.runtime.run_compiled import run_directory
from e2e_util import after_passes, assert_int8_matches_references, ort_run, quantize_qdq, save_image_model

OUTPUT = "y"


def _yolo_block(path: str) -> None:
    """x[1,3,32,32] -> conv 3x3/2 (16) -> SiLU -> conv 3x3 (16) -> SiLU -> conv 1x1 (8)
    -> Tanh -> conv 1x1 (8) -> Sigmoid: y[1,8,16,16]."""
    rng = np.random.default_rng(11)

    def weights(name, shape):
        return nh.from_array((rng.standard_normal(shape) * 0.3).astype(np.float32), name)

    inits = [weights("w0", [16, 3, 3, 3]), weights("b0", [16]), weights("w1", [16, 16, 3, 3]), weights("b1", [16]),
             weights("w2", [8, 16, 1, 1]), weights("b2", [8]), weights("w3", [8, 8, 1, 1]), weights("b3", [8])]
    nodes = [oh.make_node("Conv", ["x", "w0", "b0"], ["c0"], pads=[1, 1, 1, 1], strides=[2, 2]),
             oh.make_node("Sigmoid", ["c0"], ["s0"]), oh.make_node("Mul", ["c0", "s0"], ["a0"]),
             oh.make_node("Conv", ["a0", "w1", "b1"], ["c1"], pads=[1, 1, 1, 1]),
             oh.make_node("Sigmoid", ["c1"], ["s1"]), oh.make_node("Mul", ["c1", "s1"], ["a1"]),
             oh.make_node("Conv", ["a1", "w2", "b2"], ["c2"]), oh.make_node("Tanh", ["c2"], ["t2"]),
             oh.make_node("Conv", ["t2", "w3", "b3"], ["c3"]), oh.make_node("Sigmoid", ["c3"], [OUTPUT])]
    save_image_model(path, nodes, inits, [1, 3, 32, 32], OUTPUT, [1, 8, 16, 16])


def _quantize_without_activations(src: str, dst: str) -> None:
    """QDQ with the SiLUs' nodes left in float: dequantize, sigmoid, mul, quantize."""
    from onnxruntime.quantization import CalibrationDataReader, QuantFormat, QuantType, quantize_static

    model = onnx.load(src)
    for i, n in enumerate(model.graph.node):
        n.name = n.name or f"{n.op_type}_{i}"
    excluded = [n.name for n in model.graph.node if n.output[0] in ("s0", "a0", "s1", "a1")]
    named = src.replace(".onnx", "_named.onnx")
    onnx.save(model, named)
    rng = np.random.default_rng(1)

    class Reader(CalibrationDataReader):
        def __init__(self) -> None:
            self.feeds = iter([{"x": rng.standard_normal((1, 3, 32, 32)).astype(np.float32)} for _ in range(8)])

        def get_next(self):
            return next(self.feeds, None)

    quantize_static(named, dst, Reader(), quant_format=QuantFormat.QDQ, per_channel=True,
                    activation_type=QuantType.QInt8, weight_type=QuantType.QInt8, nodes_to_exclude=excluded)


@pytest.fixture(scope="module")
def models(tmp_path_factory) -> dict[str, str]:
    d = tmp_path_factory.mktemp("int8_activations")
    paths = {"float": str(d / "yolo.onnx"), "int8": str(d / "yolo_int8.onnx"),
             "int8_float_activations": str(d / "yolo_int8_fa.onnx")}
    _yolo_block(paths["float"])
    quantize_qdq(paths["float"], paths["int8"])
    _quantize_without_activations(paths["float"], paths["int8_float_activations"])
    return paths


@pytest.fixture(scope="module")
def compiled(models, tmp_path_factory) -> dict[str, tuple[str, dict]]:
    out = {}
    for name in ("int8", "int8_float_activations"):
        directory = str(tmp_path_factory.mktemp(name))
        compile_to_directory(models[name], "npu", directory)
        with open(os.path.join(directory, "report.json")) as f:
            out[name] = (directory, json.load(f))
    return out


def _composites(path: str) -> collections.Counter:
    module = after_passes(path, "npu", "canonicalize,byoc")
    return collections.Counter(op.properties["pattern"].data for op in module.walk() if op.name == "relay.composite")


def test_the_activations_of_a_qdq_model_run_on_the_npu(models, compiled):
    _, report = compiled["int8"]
    assert len(report["regions"]) == 1, report["regions"]
    on_host = sorted({r["op"] for r in report["rejected"]})
    assert on_host == ["relay.qnn.dequantize", "relay.qnn.quantize"], report["rejected"]
    composites = _composites(models["int8"])
    assert composites["npu.qsigmoid"] == 3 and composites["npu.qmultiply"] == 2 and composites["npu.qtanh"] == 1, \
        composites


def test_a_silu_between_dequantize_and_quantize_is_one_command(models, compiled):
    composites = _composites(models["int8_float_activations"])
    assert composites["npu.qsilu"] == 2 and composites["npu.qmultiply"] == 0, composites
    _, report = compiled["int8_float_activations"]
    assert len(report["regions"]) == 1, report["regions"]


@pytest.mark.parametrize("model", ["int8", "int8_float_activations"])
def test_matches_onnxruntime_and_the_interpreter_within_one_step(models, compiled, model):
    directory, _ = compiled[model]
    assert_int8_matches_references(directory, models[model], seeds=2)


def test_what_no_int8_command_computes_runs_in_float_between_conversions(tmp_path):
    """A quantized Sub has no int8 form on the npu: no composite takes it; its float op
    runs on the npu between a dequantize and a quantize alone (conversion commands), in
    the region of the rest; results within one step of onnxruntime."""
    rng = np.random.default_rng(3)
    inits = [nh.from_array((rng.standard_normal([8, 3, 3, 3]) * 0.3).astype(np.float32), "w"),
             nh.from_array(np.zeros(8, np.float32), "b")]
    nodes = [oh.make_node("Conv", ["x", "w", "b"], ["c"], pads=[1, 1, 1, 1]), oh.make_node("Sigmoid", ["c"], ["s"]),
             oh.make_node("Sub", ["c", "s"], [OUTPUT])]
    path, qpath = str(tmp_path / "sub.onnx"), str(tmp_path / "sub_int8.onnx")
    save_image_model(path, nodes, inits, [1, 3, 16, 16], OUTPUT, [1, 8, 16, 16])
    quantize_qdq(path, qpath)
    composites = _composites(qpath)
    assert composites["npu.qsigmoid"] == 1 and not any("sub" in name for name in composites), composites
    directory = str(tmp_path / "out")
    compile_to_directory(qpath, "npu", directory)
    with open(os.path.join(directory, "report.json")) as f:
        report = json.load(f)
    assert {r["op"] for r in report["rejected"]} == {"relay.qnn.quantize"}, report["rejected"]  # the input's
    assert len(report["regions"]) == 1
    with open(os.path.join(directory, "npu_wrappers.c")) as f:
        c = f.read()
    assert ".kind = NPU_ELTWISE_SUB" in c and c.count(".kind = NPU_DEQUANTIZE") == 2  # (its float result is the output)
    # The float output: within one step of the sigmoid's quantization (a rounding tie of
    # the int8 sigmoid) of onnxruntime (Q/DQ semantics, no graph optimizations).
    model = onnx.load(qpath)
    producers = {o: n for n in model.graph.node for o in n.output}
    inits = {t.name: nh.to_array(t) for t in model.graph.initializer}
    sub = next(n for n in model.graph.node if n.op_type == "Sub")
    step = max(float(inits[producers[v].input[1]]) for v in sub.input)
    feeds = {"x": np.random.default_rng(1).standard_normal([1, 3, 16, 16]).astype(np.float32)}
    got = run_directory(directory, feeds)[0][OUTPUT]
    want = ort_run(qpath, feeds, optimize=False)[OUTPUT]
    assert float(np.max(np.abs(got - want))) <= step * 1.001 + 1e-5 * float(np.max(np.abs(want)))


@pytest.mark.parametrize("count_include_pad", [0, 1])
def test_int8_average_pools_run_on_the_npu(tmp_path, count_include_pad):
    """`qavgpool` (a 3x3 average pool, padded) and `qglobal_avgpool` between int8 convs:
    one region, within one quantization step of onnxruntime and of the interpreter."""
    rng = np.random.default_rng(4)

    def weights(name, shape):
        return nh.from_array((rng.standard_normal(shape) * 0.3).astype(np.float32), name)

    inits = [weights("w0", [8, 3, 3, 3]), weights("b0", [8]), weights("w1", [8, 8, 1, 1]), weights("b1", [8])]
    nodes = [oh.make_node("Conv", ["x", "w0", "b0"], ["c0"], pads=[1, 1, 1, 1]), oh.make_node("Relu", ["c0"], ["r0"]),
             oh.make_node("AveragePool", ["r0"], ["p0"], kernel_shape=[3, 3], pads=[1, 1, 1, 1],
                          count_include_pad=count_include_pad),
             oh.make_node("Conv", ["p0", "w1", "b1"], ["c1"]), oh.make_node("GlobalAveragePool", ["c1"], ["g"]),
             oh.make_node("Add", ["c1", "g"], [OUTPUT])]
    path, qpath = str(tmp_path / "pools.onnx"), str(tmp_path / "pools_int8.onnx")
    save_image_model(path, nodes, inits, [1, 3, 12, 12], OUTPUT, [1, 8, 12, 12])
    quantize_qdq(path, qpath)
    composites = _composites(qpath)
    assert composites["npu.qavgpool"] == 1 and composites["npu.qglobal_avgpool"] == 1, composites
    directory = str(tmp_path / "out")
    compile_to_directory(qpath, "npu", directory)
    with open(os.path.join(directory, "report.json")) as f:
        report = json.load(f)
    assert len(report["regions"]) == 1, report["rejected"]
    assert_int8_matches_references(directory, qpath)
