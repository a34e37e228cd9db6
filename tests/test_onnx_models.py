"""Real exported graphs through the importer and the reference interpreter, compared with
onnxruntime (one thread).

- `tests/models/*_{dynamo,legacy}.onnx`: a residual CNN, a MobileNet-style depthwise CNN
  (ReLU6, hardswish, squeeze-excite; the legacy export keeps its BatchNormalization nodes)
  and a pre-LN transformer encoder block, exported by torch 2.13.0's two exporters
  (`tests/models/export_models.py`). Float: within 1e-4 * max|reference|.
- int8: the float models quantized here with `onnxruntime.quantization.quantize_static`
  (random calibration data): QDQ with per-channel weights (Q/DQ kept around float ops),
  and QOperator for Conv/MatMul (QLinearConv, QLinearMatMul). Reference: onnxruntime with
  graph optimizations off (its fused int8 kernels differ from the ONNX semantics on
  AVX2-only CPUs). QDQ: within 1 quantization step of the output; QOperator (the output is
  a float op after the integer kernels): within 1e-4 * max|reference|.
- `tests/models/mnist`: the trained MNIST CNN shipped in the qonnx wheel (CNTK export,
  opset 8, IR 3), against its own reference output and onnxruntime.
- `tests/models/ppocr_cls`, `tests/models/silero_vad`: trained models exported with
  dynamic axes (PaddleOCR's direction classifier from the rapidocr-onnxruntime wheel,
  Silero VAD from the silero-vad wheel), compiled with `input_shapes` for the npu and run
  on the simulator: within 1e-4 * max|reference| of onnxruntime for each output.
"""

from __future__ import annotations

import collections
import os
import shutil
import subprocess
import sys

import numpy as np
import onnx
import pytest
from onnx import numpy_helper

from accel.compiler import api
from accel.compiler.diagnostics import CompileError
from accel.compiler.frontend.onnx import import_onnx_file
from accel.compiler.runtime.interpreter import run_function
from accel.dialects import relay

ort = pytest.importorskip("onnxruntime")

MODELS = os.path.join(os.path.dirname(__file__), "models")
FLOAT_MODELS = [f"{arch}_{exporter}" for arch in ("resnet", "mobilenet", "encoder") for exporter in ("dynamo", "legacy")]


# --------------------------------------------------------------------------------------
# Helpers
# --------------------------------------------------------------------------------------


def input_shape(model: onnx.ModelProto) -> tuple[str, tuple[int, ...]]:
    vi = model.graph.input[0]
    return vi.name, tuple(d.dim_value for d in vi.type.tensor_type.shape.dim)


def ort_run(path: str, feeds: dict, optimize: bool = True) -> list[np.ndarray]:
    so = ort.SessionOptions()
    so.intra_op_num_threads = 1
    if not optimize:
        so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    return ort.InferenceSession(path, so, providers=["CPUExecutionProvider"]).run(None, feeds)


def op_histogram(module) -> collections.Counter:
    return collections.Counter(op.name for op in module.walk() if isinstance(op, relay.RelayOp))


def random_input(shape, seed: int) -> np.ndarray:
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float32)


def check_float(path: str, seeds=(0, 1)) -> float:
    model = onnx.load(path)
    module = import_onnx_file(path)
    name, shape = input_shape(model)
    out_name = model.graph.output[0].name
    worst = 0.0
    for seed in seeds:
        x = random_input(shape, seed)
        (want,) = ort_run(path, {name: x})
        got = run_function(module, {name: x})[out_name]
        assert got.shape == want.shape and got.dtype == want.dtype
        err = float(np.abs(got - want).max())
        assert err <= 1e-4 * float(np.abs(want).max()), f"{path}: max error {err} vs max |ref| {np.abs(want).max()}"
        worst = max(worst, err / float(np.abs(want).max()))
    return worst


# --------------------------------------------------------------------------------------
# Float models
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", FLOAT_MODELS)
def test_float_model_matches_onnxruntime(name):
    path = os.path.join(MODELS, f"{name}.onnx")
    assert os.path.getsize(path) < 300_000
    check_float(path)


def test_float_models_keep_their_structure():
    """Weights stay external tensors of the file, conv biases become bias_add, BN nodes
    of the legacy MobileNet stay batch norms, MatMul on [B, S, D] is a batch_matmul."""
    resnet = import_onnx_file(os.path.join(MODELS, "resnet_legacy.onnx"))
    hist = op_histogram(resnet)
    assert hist["relay.nn.conv2d"] == 9 and hist["relay.nn.bias_add"] == 9 + 1
    assert hist["relay.nn.dense"] == 1  # Gemm(transB=1) -> dense + bias_add
    consts = [op for op in resnet.walk() if isinstance(op, relay.ConstantOp)]
    assert any(op.external is not None for op in consts)
    assert all(op.value.type.element_count() <= 16 for op in consts if op.value is not None)
    mobilenet = op_histogram(import_onnx_file(os.path.join(MODELS, "mobilenet_legacy.onnx")))
    assert mobilenet["relay.nn.batch_norm"] == 10
    assert mobilenet["relay.nn.conv2d"] == 15
    encoder = op_histogram(import_onnx_file(os.path.join(MODELS, "encoder_dynamo.onnx")))
    assert encoder["relay.nn.layer_norm"] == 2 and encoder["relay.nn.gelu"] == 1
    assert encoder["relay.nn.batch_matmul"] == 8 and encoder["relay.nn.softmax"] == 1


def test_external_data_model(tmp_path):
    """A model whose weights live in `model.onnx.data` (the dynamo exporter's default)."""
    model = onnx.load(os.path.join(MODELS, "resnet_dynamo.onnx"))
    path = str(tmp_path / "resnet.onnx")
    onnx.save(model, path, save_as_external_data=True, all_tensors_to_one_file=True,
              location="resnet.onnx.data", size_threshold=64)
    assert os.path.getsize(path) < 20_000 and os.path.exists(path + ".data")
    check_float(path, seeds=(0,))


def test_printed_ir_runs_in_a_fresh_process(tmp_path):
    """The printed IR names its weights by file and tensor name: a new process (empty
    weights cache) runs it with accel-run and gets onnxruntime's answer."""
    src = os.path.join(MODELS, "mobilenet_dynamo.onnx")
    model_path = str(tmp_path / "m.onnx")
    shutil.copy(src, model_path)
    ir_path = tmp_path / "m.mlir"
    ir_path.write_text(str(import_onnx_file(model_path)))
    name, shape = input_shape(onnx.load(src))
    x = random_input(shape, 3)
    np.savez(tmp_path / "in.npz", **{name: x})
    accel_run = os.path.join(os.path.dirname(sys.executable), "accel-run")
    subprocess.run([accel_run, str(ir_path), "--inputs", str(tmp_path / "in.npz"), "--outputs",
                    str(tmp_path / "out.npz")], check=True, capture_output=True, text=True)
    got = np.load(tmp_path / "out.npz")["output"]
    (want,) = ort_run(src, {name: x})
    assert np.abs(got - want).max() <= 1e-4 * np.abs(want).max()


# --------------------------------------------------------------------------------------
# int8
# --------------------------------------------------------------------------------------


def quantize(src: str, dst: str, fmt: str) -> None:
    from onnxruntime.quantization import CalibrationDataReader, QuantFormat, QuantType, quantize_static

    name, shape = input_shape(onnx.load(src))

    class RandomReader(CalibrationDataReader):
        def __init__(self):
            rng = np.random.default_rng(1)
            self.feeds = iter([{name: rng.standard_normal(shape).astype(np.float32)} for _ in range(8)])

        def get_next(self):
            return next(self.feeds, None)

    qdq = fmt == "qdq"
    quantize_static(src, dst, RandomReader(), quant_format=QuantFormat.QDQ if qdq else QuantFormat.QOperator,
                    op_types_to_quantize=None if qdq else ["Conv", "MatMul"], per_channel=True,
                    activation_type=QuantType.QInt8, weight_type=QuantType.QInt8)


def output_step(model: onnx.ModelProto) -> float:
    """The quantization step of the graph output (it comes out of a DequantizeLinear)."""
    producer = {o: n for n in model.graph.node for o in n.output}[model.graph.output[0].name]
    assert producer.op_type == "DequantizeLinear"
    inits = {t.name: numpy_helper.to_array(t) for t in model.graph.initializer}
    return float(np.max(inits[producer.input[1]]))


@pytest.mark.parametrize("name", ["resnet_legacy", "mobilenet_dynamo", "encoder_dynamo"])
def test_qdq_int8_model(tmp_path, name):
    path = str(tmp_path / f"{name}_qdq.onnx")
    quantize(os.path.join(MODELS, f"{name}.onnx"), path, "qdq")
    model = onnx.load(path)
    module = import_onnx_file(path)
    # Q/DQ are kept as they are: the pattern matcher fuses them later.
    onnx_ops = collections.Counter(n.op_type for n in model.graph.node)
    hist = op_histogram(module)
    assert hist["relay.qnn.quantize"] == onnx_ops["QuantizeLinear"]
    assert hist["relay.qnn.dequantize"] == onnx_ops["DequantizeLinear"]
    assert any(op.prop("axis") in (0, 1) and len(op.scale.type.get_shape()) == 1 and op.scale.type.get_shape()[0] > 1
               for op in module.walk() if isinstance(op, relay.DequantizeOp)), "no per-channel weights"
    in_name, shape = input_shape(model)
    step = output_step(model)
    for seed in (0, 1):
        x = random_input(shape, seed)
        (want,) = ort_run(path, {in_name: x}, optimize=False)
        got = run_function(module, {in_name: x})[model.graph.output[0].name]
        err = float(np.abs(got - want).max())
        assert err <= step * (1 + 1e-6), f"{name}: max error {err} is more than one step {step}"


@pytest.mark.parametrize("name", ["resnet_legacy", "encoder_dynamo"])
def test_qoperator_int8_model(tmp_path, name):
    path = str(tmp_path / f"{name}_qop.onnx")
    quantize(os.path.join(MODELS, f"{name}.onnx"), path, "qop")
    model = onnx.load(path)
    onnx_ops = collections.Counter(n.op_type for n in model.graph.node)
    hist = op_histogram(import_onnx_file(path))
    if name == "resnet_legacy":
        assert onnx_ops["QLinearConv"] == 9 and hist["relay.qnn.conv2d"] == 9
    else:
        assert onnx_ops["QLinearMatMul"] == 8 and hist["relay.qnn.dense"] == 6  # + 2 batched products
    module = import_onnx_file(path)
    in_name, shape = input_shape(model)
    x = random_input(shape, 0)
    (want,) = ort_run(path, {in_name: x}, optimize=False)
    got = run_function(module, {in_name: x})[model.graph.output[0].name]
    assert np.abs(got - want).max() <= 1e-4 * np.abs(want).max()


# --------------------------------------------------------------------------------------
# MNIST (trained weights, shipped reference)
# --------------------------------------------------------------------------------------


def _load_pb(path: str) -> np.ndarray:
    t = onnx.TensorProto()
    with open(path, "rb") as f:
        t.ParseFromString(f.read())
    return numpy_helper.to_array(t)


def test_mnist_against_shipped_output_and_onnxruntime():
    d = os.path.join(MODELS, "mnist")
    path = os.path.join(d, "model.onnx")
    x = _load_pb(os.path.join(d, "test_data_set_0", "input_0.pb"))
    shipped = _load_pb(os.path.join(d, "test_data_set_0", "output_0.pb"))
    model = onnx.load(path)
    module = import_onnx_file(path)  # opset 8, IR 3: version-converted, initializers listed as inputs
    fn_inputs = [op for op in module.walk() if op.name == "func.func"][0].body.block.args
    assert len(fn_inputs) == 1
    got = run_function(module, {model.graph.input[0].name: x})[model.graph.output[0].name]
    (want,) = ort_run(path, {model.graph.input[0].name: x})
    tol = 1e-4 * np.abs(shipped).max()
    assert np.abs(got - shipped).max() <= tol
    assert np.abs(got - want).max() <= tol
    assert int(np.argmax(got)) == int(np.argmax(shipped))


def test_mnist_with_accel_run(tmp_path):
    """The command line: accel-run MODEL.onnx --inputs IN.npz --outputs OUT.npz."""
    d = os.path.join(MODELS, "mnist")
    x = _load_pb(os.path.join(d, "test_data_set_0", "input_0.pb"))
    shipped = _load_pb(os.path.join(d, "test_data_set_0", "output_0.pb"))
    np.savez(tmp_path / "in.npz", Input3=x)
    accel_run = os.path.join(os.path.dirname(sys.executable), "accel-run")
    subprocess.run([accel_run, os.path.join(d, "model.onnx"), "--inputs", str(tmp_path / "in.npz"),
                    "--outputs", str(tmp_path / "out.npz")], check=True, capture_output=True, text=True)
    got = np.load(tmp_path / "out.npz")["Plus214_Output_0"]
    assert np.abs(got - shipped).max() <= 1e-4 * np.abs(shipped).max()


# --------------------------------------------------------------------------------------
# Trained models with dynamic axes, compiled with input shapes
# --------------------------------------------------------------------------------------

DYNAMIC_MODELS = {
    # model directory: (input shapes, feeds by name: (shape, scale))
    "ppocr_cls": ("x=1x3x48x192", {"x": ((1, 3, 48, 192), 1.0)}),
    "silero_vad": ("input=3x576", {"input": ((3, 576), 0.3), "h": ((1, 1, 128), 0.1), "c": ((1, 1, 128), 0.1)}),
}


@pytest.mark.parametrize("name", sorted(DYNAMIC_MODELS))
def test_dynamic_axes_model_compiles_with_input_shapes(tmp_path, name):
    """Without shapes the import names the option; with them the model is one npu region
    with nothing on the host (PP-OCR's depthwise convolutions at stride (2, 1) subsampled,
    Silero's STFT one conv on its space-to-depth, its magnitude's sqrt an npu command: 5
    and 2 regions before) and the npu's C matches onnxruntime on every output."""
    path = os.path.join(MODELS, name, "model.onnx")
    shapes, feeds = DYNAMIC_MODELS[name]
    with pytest.raises(CompileError, match=r"has a dynamic dimension \d+ \(.*\); give its size with --input-shapes"):
        import_onnx_file(path)
    rng = np.random.default_rng(0)
    inputs = {n: (rng.standard_normal(shape) * scale).astype(np.float32) for n, (shape, scale) in feeds.items()}
    compiled = api.compile(path, "npu", str(tmp_path / "out"), input_shapes=shapes)
    assert len(compiled.report["regions"]) == 1 and not compiled.report["rejected"], compiled.report["rejected"]
    got = compiled.run(inputs)
    names = [o.name for o in onnx.load(path).graph.output]
    for out_name, want in zip(names, ort_run(path, inputs)):
        assert got[out_name].shape == want.shape
        err = float(np.abs(got[out_name] - want).max())
        assert err <= 1e-4 * float(np.abs(want).max()), f"{name}/{out_name}: max error {err}"


# --------------------------------------------------------------------------------------
# The README demo's models (examples/)
# --------------------------------------------------------------------------------------

EXAMPLES = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "examples")


def test_example_float_model():
    path = os.path.join(EXAMPLES, "tiny_resnet.onnx")
    assert os.path.getsize(path) < 300_000
    check_float(path)


def test_example_int8_model():
    path = os.path.join(EXAMPLES, "tiny_resnet_int8.onnx")
    model = onnx.load(path)
    module = import_onnx_file(path)
    step = output_step(model)
    for seed in (0, 1):
        x = random_input((1, 3, 32, 32), seed)
        (want,) = ort_run(path, {"input": x}, optimize=False)
        got = run_function(module, {"input": x})["logits"]
        assert np.abs(got - want).max() <= step * (1 + 1e-6)


def test_example_models_are_reproducible(tmp_path, monkeypatch):
    """examples/make_models.py regenerates the committed files byte for byte (the int8
    model is the quantization of the committed float one)."""
    sys.path.insert(0, EXAMPLES)
    try:
        import make_models
    finally:
        sys.path.remove(EXAMPLES)
    monkeypatch.setattr(make_models, "FLOAT_PATH", str(tmp_path / "f.onnx"))
    monkeypatch.setattr(make_models, "INT8_PATH", str(tmp_path / "q.onnx"))
    make_models.main()
    for name, fresh in (("tiny_resnet.onnx", "f.onnx"), ("tiny_resnet_int8.onnx", "q.onnx")):
        with open(os.path.join(EXAMPLES, name), "rb") as a, open(tmp_path / fresh, "rb") as b:
            assert a.read() == b.read(), f"examples/{name} differs from what make_models.py writes"


# --------------------------------------------------------------------------------------
# Model-zoo graphs shipped in the onnx wheel (weights are ConstantOfShape fills)
# --------------------------------------------------------------------------------------

LIGHT = os.path.join(os.path.dirname(onnx.__file__), "backend", "test", "data", "light")
ZOO_IMPORTS = {"densenet121": 121, "inception_v2": 69, "resnet50": 53, "shufflenet": 49, "squeezenet": 26, "vgg19": 16,
               # LRN's window sum is a 1x1 conv2d each: AlexNet and ZFNet have 5 + 2, GoogLeNet 57 + 2
               "bvlc_alexnet": 7, "zfnet512": 7, "inception_v1": 59}


@pytest.mark.parametrize("name", sorted(ZOO_IMPORTS))
def test_model_zoo_graph_imports(name):
    """Real zoo graphs (opset 9, IR 3) import whole; their ConstantOfShape weights are
    splats (not 100s of MB of printed values)."""
    module = import_onnx_file(os.path.join(LIGHT, f"light_{name}.onnx"))
    hist = op_histogram(module)
    assert hist["relay.nn.conv2d"] == ZOO_IMPORTS[name]
    assert len(str(module)) < 2_000_000


def test_model_zoo_shufflenet_runs():
    """shufflenet (grouped 1x1 convs, channel shuffle by Reshape/Transpose) end to end."""
    path = os.path.join(LIGHT, "light_shufflenet.onnx")
    model = onnx.load(path)
    inits = {t.name for t in model.graph.initializer}
    (inp,) = [vi for vi in model.graph.input if vi.name not in inits]
    x = random_input([d.dim_value for d in inp.type.tensor_type.shape.dim], 0)
    got = run_function(import_onnx_file(path), {inp.name: x})[model.graph.output[0].name]
    (want,) = ort_run(path, {inp.name: x})
    assert np.abs(got - want).max() <= 1e-4 * np.abs(want).max()
