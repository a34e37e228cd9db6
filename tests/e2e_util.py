"""Shared helpers of the end-to-end and lowering-semantics tests.

- onnxruntime as the outside reference (`ort_run`) and int8 QDQ models made from float
  ones with `quantize_static` (`quantize_qdq`), the quantization step of an output
  (`output_step`);
- models built here with onnx.helper: a two-layer MLP with a large dense layer
  (`mlp_model`), a Keras-style MLP (`keras_mlp_model`), transformer encoder blocks
  (`encoder_model`) and a small CNN whose every name is hostile to C (`hostile_model`);
- `run_planned`: the buffer-level reference interpreter with the compiler's memory plan
  honoured: every planned host buffer (`memref.alloc {accel.offset}`) is a view into one
  host arena and every placed scratchpad buffer (`accel.alloc {offset}`) a view into its
  target's scratchpad, both filled with 0xFF bytes (NaN floats) at the start. Two live
  buffers sharing bytes then change the result, which the plain interpreter
  (`run_module`, a fresh array per buffer) cannot see;
- `scratchpad_conflicts`: a structural check of the scratchpad plan (two buffers live at
  the same time never share bytes; every buffer inside the scratchpad and aligned);
- `compute_op_count`: accelerator compute ops executed, loops counted (the simulator's
  `accel_ops`);
- `c_lex`: split C text into code, comments and string literals.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import re
import shutil
import signal
import subprocess
import sys
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import onnx
from onnx import TensorProto
from onnx import helper as oh
from onnx import numpy_helper as nh
from xdsl.dialects import func, memref, scf
from xdsl.dialects.builtin import IntegerAttr, MemRefType, ModuleOp, StringAttr
from xdsl.interpreter import Interpreter, impl, register_impls
from xdsl.interpreters.arith import ArithFunctions
from xdsl.interpreters.func import FuncFunctions
from xdsl.interpreters.scf import ScfFunctions
from xdsl.ir import Operation, SSAValue

from accel.compiler.compile_report import multiplicity
from accel.compiler.diagnostics import CompileError
from accel.compiler.driver import build_passes, compile_to_directory, cycle_collection_paused, load_model, make_context
from accel.compiler.frontend.onnx import import_onnx_model
from accel.compiler.pipeline import PIPELINES
from accel.compiler.runtime import interpreter as relay_interpreter
from accel.compiler.runtime.buffer_interpreter import BufferFunctions, fresh_buffer
from accel.compiler.runtime.run_compiled import run_directory
from accel.compiler.tensors import buffer_bytes, numpy_dtype
from accel.compiler.transforms.byoc import STEPS as BYOC_STEPS
from accel.dialects import accel
from accel.dialects.conventions import ARENA_ATTR, OFFSET_ATTR, TARGET_ATTR, io_names, is_output_arg

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
MODELS = os.path.join(HERE, "models")
EXAMPLES = os.path.join(REPO, "examples")


# --------------------------------------------------------------------------------------
# onnxruntime and quantization
# --------------------------------------------------------------------------------------


NPU_TOML = os.path.join(os.path.dirname(__file__), "..", "compiler", "targets", "npu.toml")


def after_passes(model: str, target: str, pipeline: str) -> ModuleOp:
    """The model (a path) imported for `target` with the passes of `pipeline` applied."""
    ctx = make_context(target)
    with cycle_collection_paused():
        module = load_model(model, ctx)
        for p in build_passes(pipeline):
            p.apply(ctx, module)
    return module


def full_without(*passes: str) -> str:
    """The pipeline `full` with byoc written out as its passes, `passes` left out."""
    steps = [s for s in BYOC_STEPS if s not in passes]
    assert len(steps) == len(BYOC_STEPS) - len(passes), f"not passes of byoc: {passes}"
    return PIPELINES["full"].replace("byoc,", ",".join(steps) + ",")


def compiled_with_and_without(factory, paths: Mapping[str, str], without: str | tuple[str, ...], target: str = "npu",
                              plain: tuple[str, ...] | None = None) -> dict[tuple[str, str], tuple[str, dict, str]]:
    """Each model of `paths` (name -> path) compiled for `target` with `full` ("pass") and
    without the byoc pass(es) `without` ("plain"; only the names in `plain`, if given):
    (name, tag) -> (directory, report.json, model path)."""
    out = {}
    left_out = (without,) if isinstance(without, str) else without
    for name, path in paths.items():
        for tag, pipeline in (("pass", PIPELINES["full"]), ("plain", full_without(*left_out))):
            if tag == "plain" and plain is not None and name not in plain:
                continue
            directory = str(factory.mktemp(f"{name}_{tag}"))
            compile_to_directory(path, target, directory, pipeline=pipeline)
            with open(os.path.join(directory, "report.json")) as f:
                out[(name, tag)] = (directory, json.load(f), path)
    return out


def npu_without_device_copies(name: str, scratchpad_bytes: int | None = None) -> str:
    """npu.toml's text renamed `name` (scratchpad resized) without its copy on the device:
    no `dma_on_device`, no `dma.device_bytes_per_cycle`, no concatenation, transpose,
    reshape or slice entries that run on it, i.e. the npu before tiles were assembled on the
    device."""
    import re

    text = open(NPU_TOML).read()
    text = re.sub(r"^dma_on_device = .*\n", "", text, flags=re.M)
    text = re.sub(r"^device_bytes_per_cycle = .*\n", "", text, flags=re.M)
    text = re.sub(r", device_bytes_per_cycle = \"dma.device_bytes_per_cycle\"", "", text)
    text = re.sub(r'\[\[ops\]\]\nop = "relay.(?:concatenate|transpose|reshape|strided_slice)"\n(?:[a-z_]+ = .*\n)*', "",
                  text)
    text = re.sub(r'^name = "npu"', f'name = "{name}"', text, flags=re.M)
    if scratchpad_bytes is not None:
        text = re.sub(r"^scratchpad_bytes = \d+", f"scratchpad_bytes = {scratchpad_bytes}", text, flags=re.M)
    return text


def write_npu_today(directory) -> str:
    """`npu_without_device_copies("npu-today")` and the npu's patterns in `directory`; the
    description's path."""
    with open(os.path.join(directory, "npu-today.toml"), "w") as f:
        f.write(npu_without_device_copies("npu-today"))
    with open(os.path.join(os.path.dirname(NPU_TOML), "patterns.mlir")) as src, open(os.path.join(directory, "patterns.mlir"), "w") as f:
        f.write(src.read())
    return os.path.join(directory, "npu-today.toml")


DMA_COUNTERS = ("bytes_to_device", "bytes_to_host", "transfers", "bytes_on_device")


def build_and_run(src: str, target: str, out: str, inputs: dict) -> tuple[dict, dict, dict]:
    """Compile `src` for `target` into `out` and run it on the simulator: (outputs,
    counters, report), the report's planned transfers and cycles checked against the
    counters (they must be exact)."""
    report = compile_to_directory(src, target, out)
    outputs, counters = run_directory(out, inputs)
    for key in DMA_COUNTERS:
        assert report["dma"][key] == counters[key], (target, key)
    assert report["cycles"]["estimate"] == counters["cycles"], target
    return outputs, counters, report


def run_with_stream(directory: str, blob: bytes, feeds: Mapping[str, np.ndarray], work) -> str:
    """A copy of the npu-cmd build in `directory` (in `work`, a pathlib directory) whose
    region npu_cmd_0 runs the stream `blob` instead of its own, run by accel-run on
    `feeds`: its one error line ("" if it ran)."""
    copy = work / "model"
    with locked(directory):
        shutil.copytree(directory, copy)
    wrappers = copy / "npu_cmd_wrappers.c"
    body = ",\n".join("    " + ", ".join(f"0x{b:02x}" for b in blob[i:i + 16]) for i in range(0, len(blob), 16))
    text, n = re.subn(r"static const uint8_t npu_cmd_0_stream\[\d+\] = \{.*?\};",
                      lambda _: f"static const uint8_t npu_cmd_0_stream[{len(blob)}] = {{\n{body}\n}};",
                      wrappers.read_text(), flags=re.S)
    assert n == 1
    wrappers.write_text(text)
    inputs = work / "in.npz"
    np.savez(inputs, **feeds)
    return one_error_line(run_tool("accel-run", str(copy), "--inputs", str(inputs), "--outputs", str(work / "o.npz")))


def import_error(model: onnx.ModelProto) -> str:
    """The one-line CompileError importing `model` gives."""
    try:
        import_onnx_model(model)
    except CompileError as e:
        assert "\n" not in str(e)
        return str(e)
    raise AssertionError("the model imported")


def ort_run(path: str, feeds: Mapping[str, np.ndarray], optimize: bool = True) -> dict[str, np.ndarray]:
    """onnxruntime on one thread; `optimize=False` turns graph optimizations off (its
    fused int8 kernels differ from the ONNX semantics on some CPUs)."""
    import onnxruntime as ort

    so = ort.SessionOptions()
    so.intra_op_num_threads = 1
    so.inter_op_num_threads = 1
    if not optimize:
        so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    sess = ort.InferenceSession(path, so, providers=["CPUExecutionProvider"])
    names = [o.name for o in sess.get_outputs()]
    return dict(zip(names, sess.run(None, dict(feeds))))


def input_signature(model: onnx.ModelProto) -> list[tuple[str, tuple[int, ...]]]:
    inits = {t.name for t in model.graph.initializer}
    return [(vi.name, tuple(d.dim_value for d in vi.type.tensor_type.shape.dim))
            for vi in model.graph.input if vi.name not in inits]


def quantize_qdq(src: str, dst: str, seed: int = 1, calibration: list[dict[str, np.ndarray]] | None = None) -> None:
    """int8 QDQ (activations per tensor, weights per channel) calibrated on 8 seeded
    random float inputs (or on the given `calibration` feeds): the format onnxruntime's
    quantization tool writes by default."""
    from onnxruntime.quantization import CalibrationDataReader, QuantFormat, QuantType, quantize_static

    sig = input_signature(onnx.load(src))

    class RandomReader(CalibrationDataReader):
        def __init__(self) -> None:
            rng = np.random.default_rng(seed)
            self.feeds = iter(calibration if calibration is not None else
                              [{n: rng.standard_normal(s).astype(np.float32) for n, s in sig} for _ in range(8)])

        def get_next(self):
            return next(self.feeds, None)

    # The model, not its path: given a path, quantize_static writes `<src>-inferred.onnx`
    # beside it and deletes it, and two processes quantizing one model (bench/dma.py's
    # jobs) delete each other's (the same bytes come out).
    quantize_static(onnx.load(src), dst, RandomReader(), quant_format=QuantFormat.QDQ, per_channel=True,
                    activation_type=QuantType.QInt8, weight_type=QuantType.QInt8)


def output_step(model: onnx.ModelProto, output: str) -> float:
    """The quantization step of a float graph output made by a DequantizeLinear (its
    scale); 1.0 for an integer output."""
    producer = {o: n for n in model.graph.node for o in n.output}[output]
    if producer.op_type != "DequantizeLinear":
        raise ValueError(f"output '{output}' is made by {producer.op_type}, not DequantizeLinear")
    inits = {t.name: nh.to_array(t) for t in model.graph.initializer}
    return float(np.max(inits[producer.input[1]]))


# --------------------------------------------------------------------------------------
# Models built here
# --------------------------------------------------------------------------------------


def _finish(nodes, name, inputs, outputs, inits) -> onnx.ModelProto:
    graph = oh.make_graph(nodes, name, inputs, outputs, inits)
    model = oh.make_model(graph, opset_imports=[oh.make_opsetid("", 17)], producer_name="tests/e2e_util.py")
    model.ir_version = 8
    onnx.checker.check_model(model, full_check=True)
    return model


def save_image_model(path: str, nodes, inits, in_shape, output: str, out_shape) -> None:
    """A float model of one input `x` and one output, checked and saved to `path`."""
    onnx.save(_finish(nodes, "g", [oh.make_tensor_value_info("x", TensorProto.FLOAT, list(in_shape))],
                      [oh.make_tensor_value_info(output, TensorProto.FLOAT, list(out_shape))], inits), path)


def generator_model(path: str, int8: bool = False) -> None:
    """A CycleGAN-style generator on 1x3x24x24 with seeded weights, output `y`: reflection
    pad, 7x7 conv, instance norm, ReLU; two residual blocks of pad, 3x3 conv, instance norm
    (ReLU after the first); reflection pad, 7x7 conv to 3 channels, tanh. `int8`: the float
    model to quantize, without the instance norms and the tanh (onnxruntime's quantizer
    leaves a tanh output in float, and through instance norms its QDQ arithmetic and the
    interpreter's drift apart by 3 steps: a float convolution summed in another order
    flips a quantize's rounding, which each norm then amplifies)."""
    tanh = not int8
    rng = np.random.default_rng(12)
    nodes, inits = [], []

    def const(name, arr):
        inits.append(nh.from_array(arr, name))
        return name

    def pad(x, p, name):
        pads = const(name + "_pads", np.array([0, 0, p, p, 0, 0, p, p], np.int64))
        nodes.append(oh.make_node("Pad", [x, pads], [name], mode="reflect"))
        return name

    def conv(x, cin, cout, k, name):
        w = const(name + "_w", (rng.standard_normal((cout, cin, k, k)) * 0.2).astype(np.float32))
        bias = const(name + "_b", (rng.standard_normal(cout) * 0.1).astype(np.float32))
        nodes.append(oh.make_node("Conv", [x, w, bias], [name]))
        return name

    def instance_norm(x, c, name):
        if int8:
            return x
        scale = const(name + "_s", (1 + 0.1 * rng.standard_normal(c)).astype(np.float32))
        bias = const(name + "_bb", (0.1 * rng.standard_normal(c)).astype(np.float32))
        nodes.append(oh.make_node("InstanceNormalization", [x, scale, bias], [name], epsilon=1e-5))
        return name

    def relu(x, name):
        nodes.append(oh.make_node("Relu", [x], [name]))
        return name

    y = relu(instance_norm(conv(pad("x", 3, "p0"), 3, 8, 7, "c0"), 8, "n0"), "r0")
    for i in range(2):
        t = relu(instance_norm(conv(pad(y, 1, f"b{i}p1"), 8, 8, 3, f"b{i}c1"), 8, f"b{i}n1"), f"b{i}r1")
        t = instance_norm(conv(pad(t, 1, f"b{i}p2"), 8, 8, 3, f"b{i}c2"), 8, f"b{i}n2")
        nodes.append(oh.make_node("Add", [y, t], [f"b{i}out"]))
        y = f"b{i}out"
    last = conv(pad(y, 3, "p9"), 8, 3, 7, "c9" if tanh else "y")
    if tanh:
        nodes.append(oh.make_node("Tanh", [last], ["y"]))
    save_image_model(path, nodes, inits, [1, 3, 24, 24], "y", [1, 3, 24, 24])


def style_transfer_model(path: str, size: int = 32, width: int = 8) -> None:
    """A fast style transfer generator (Johnson et al.'s layout) on 1x3xSxS with seeded
    weights, output `y`: reflection-padded convs (9x9, then 3x3 stride 2 twice), instance
    norms and ReLUs, two residual blocks, two nearest 2x upsamplings each followed by a
    reflection-padded 3x3 conv, and a 9x9 conv to 3 channels."""
    rng = np.random.default_rng(7)
    nodes, inits = [], []

    def const(name, arr):
        inits.append(nh.from_array(arr, name))
        return name

    def conv(x, cin, cout, k, name, stride=1):
        p = k // 2
        nodes.append(oh.make_node("Pad", [x, const(name + "_pads", np.array([0, 0, p, p, 0, 0, p, p], np.int64))],
                                  [name + "_pad"], mode="reflect"))
        w = (rng.standard_normal((cout, cin, k, k)) / np.sqrt(cin * k * k)).astype(np.float32)
        nodes.append(oh.make_node("Conv", [name + "_pad", const(name + "_w", w),
                                           const(name + "_b", (0.1 * rng.standard_normal(cout)).astype(np.float32))],
                                  [name], strides=[stride, stride]))
        return name

    def norm_relu(x, c, name, relu=True):
        nodes.append(oh.make_node("InstanceNormalization", [
            x, const(name + "_s", (1 + 0.1 * rng.standard_normal(c)).astype(np.float32)),
            const(name + "_bb", (0.1 * rng.standard_normal(c)).astype(np.float32))], [name + "_n"]))
        if not relu:
            return name + "_n"
        nodes.append(oh.make_node("Relu", [name + "_n"], [name + "_r"]))
        return name + "_r"

    def up(x, name):
        nodes.append(oh.make_node("Resize", [x, "", const(name + "_sc", np.array([1, 1, 2, 2], np.float32))], [name],
                                  mode="nearest"))
        return name

    c1, c2, c3 = width, 2 * width, 4 * width
    y = norm_relu(conv("x", 3, c1, 9, "c1"), c1, "n1")
    y = norm_relu(conv(y, c1, c2, 3, "c2", 2), c2, "n2")
    y = norm_relu(conv(y, c2, c3, 3, "c3", 2), c3, "n3")
    for i in range(2):
        t = norm_relu(conv(y, c3, c3, 3, f"r{i}a"), c3, f"rn{i}a")
        t = norm_relu(conv(t, c3, c3, 3, f"r{i}b"), c3, f"rn{i}b", relu=False)
        nodes.append(oh.make_node("Add", [y, t], [f"res{i}"]))
        y = f"res{i}"
    y = norm_relu(conv(up(y, "u1"), c3, c2, 3, "c4"), c2, "n4")
    y = norm_relu(conv(up(y, "u2"), c2, c1, 3, "c5"), c1, "n5")
    conv(y, c1, 3, 9, "y")
    save_image_model(path, nodes, inits, [1, 3, size, size], "y", [1, 3, size, size])


def normal_feeds(path: str, seed: int) -> dict[str, np.ndarray]:
    """Seeded standard normal floats for every input of the model."""
    rng = np.random.default_rng(seed)
    return {n: rng.standard_normal(s).astype(np.float32) for n, s in input_signature(onnx.load(path))}


def quantized_model(factory, name: str, make_float) -> str:
    """The int8 QDQ version (quantize_qdq) of the float model `make_float(path)` writes,
    in a fresh directory of the pytest `factory`: its path."""
    d = factory.mktemp(name)
    make_float(str(d / "float.onnx"))
    quantize_qdq(str(d / "float.onnx"), str(d / "int8.onnx"))
    return str(d / "int8.onnx")


def image_feeds(path: str, seed: int) -> dict[str, np.ndarray]:
    """Seeded normal values for the model's input `x`."""
    shape = [d.dim_value for d in onnx.load(path, load_external_data=False).graph.input[0].type.tensor_type.shape.dim]
    return {"x": np.random.default_rng(seed).standard_normal(shape).astype(np.float32)}


def assert_matches_onnxruntime(directory: str, path: str, output: str, step: float | None = None,
                               seeds: int = 2, relative: float = 1e-5) -> None:
    """The compiled model in `directory` against onnxruntime on seeded inputs: float within
    `relative` (1e-5) of the output's largest magnitude; with a quantization `step` (int8),
    within one step of onnxruntime's QDQ arithmetic (graph optimizations off: they fuse it
    otherwise)."""
    for seed in range(seeds):
        feeds = image_feeds(path, seed)
        want = ort_run(path, feeds, optimize=step is None)[output]
        got, _ = run_directory(directory, feeds)
        err = float(np.max(np.abs(got[output] - want)))
        bound = relative * float(np.max(np.abs(want))) if step is None else step * 1.001
        assert err <= bound, (path, seed, err, bound)


def assert_pass_keeps_results(pass_, module: ModuleOp, inputs: Mapping[str, np.ndarray], target: str = "npu") -> None:
    """`pass_` applied to `module` (for `target`): the module verifies and the reference
    interpreter's results on `inputs` are unchanged, bit for bit (types and values)."""
    want = relay_interpreter.run_function(module, inputs)
    pass_.apply(make_context(target), module)
    module.verify()
    got = relay_interpreter.run_function(module, inputs)
    for name, value in want.items():
        assert got[name].dtype == value.dtype and np.array_equal(got[name], value), name


def assert_int8_matches_references(directory: str, path: str, seeds: int = 1) -> None:
    """The compiled int8 QDQ model in `directory` against onnxruntime (its QDQ arithmetic:
    graph optimizations off) and the reference interpreter, on seeded normal inputs: every
    output within one quantization step (`output_step`) of each."""
    model = onnx.load(path)
    module = load_model(path, make_context())
    for seed in range(seeds):
        rng = np.random.default_rng(seed)
        feeds = {n: rng.standard_normal(s).astype(np.float32) for n, s in input_signature(model)}
        got, _ = run_directory(directory, feeds)
        for reference in (ort_run(path, feeds, optimize=False), relay_interpreter.run_function(module, feeds)):
            for name, want in reference.items():
                err = float(np.max(np.abs(got[name] - want)))
                assert err <= output_step(model, name) * 1.001, (path, seed, name, err)


MLP_SHAPE = (8, 512)
MLP_HIDDEN = 1024


def mlp_model(seed: int = 0) -> onnx.ModelProto:
    """x[8, 512] -> Gemm(512 -> 1024) -> Relu -> Gemm(1024 -> 16): a 2 MiB dense layer,
    worth offloading to the matrix DSP (and larger than either scratchpad, so it is tiled)."""
    rng = np.random.default_rng(seed)
    b, k = MLP_SHAPE
    h, n = MLP_HIDDEN, 16
    inits = [
        nh.from_array((rng.standard_normal((h, k)) / np.sqrt(k)).astype(np.float32), "fc1.weight"),
        nh.from_array((rng.standard_normal(h) * 0.05).astype(np.float32), "fc1.bias"),
        nh.from_array((rng.standard_normal((n, h)) / np.sqrt(h)).astype(np.float32), "fc2.weight"),
        nh.from_array((rng.standard_normal(n) * 0.05).astype(np.float32), "fc2.bias"),
    ]
    nodes = [
        oh.make_node("Gemm", ["x", "fc1.weight", "fc1.bias"], ["fc1.out"], name="/fc1/Gemm", transB=1),
        oh.make_node("Relu", ["fc1.out"], ["relu.out"], name="/relu/Relu"),
        oh.make_node("Gemm", ["relu.out", "fc2.weight", "fc2.bias"], ["logits"], name="/fc2/Gemm", transB=1),
    ]
    return _finish(nodes, "mlp", [oh.make_tensor_value_info("x", TensorProto.FLOAT, list(MLP_SHAPE))],
                   [oh.make_tensor_value_info("logits", TensorProto.FLOAT, [b, n])], inits)


def keras_mlp_model(seed: int = 0, batch: int = 4, sizes: tuple[int, ...] = (64, 128, 10)) -> onnx.ModelProto:
    """Keras-style MLP: MatMul with [in, out] weights + Add of the bias + Relu (none after
    the last layer)."""
    rng = np.random.default_rng(seed)
    inits, nodes, x = [], [], "x"
    for i, (k, n) in enumerate(zip(sizes, sizes[1:])):
        inits += [nh.from_array((rng.standard_normal((k, n)) / np.sqrt(k)).astype(np.float32), f"dense_{i}/kernel"),
                  nh.from_array((rng.standard_normal(n) * 0.1).astype(np.float32), f"dense_{i}/bias")]
        nodes += [oh.make_node("MatMul", [x, f"dense_{i}/kernel"], [f"mm{i}"], name=f"dense_{i}/MatMul"),
                  oh.make_node("Add", [f"mm{i}", f"dense_{i}/bias"], [f"add{i}"], name=f"dense_{i}/BiasAdd")]
        x = f"add{i}"
        if i < len(sizes) - 2:
            nodes.append(oh.make_node("Relu", [x], [f"relu{i}"], name=f"dense_{i}/Relu"))
            x = f"relu{i}"
    nodes[-1].output[0] = "y"
    return _finish(nodes, "keras_mlp", [oh.make_tensor_value_info("x", TensorProto.FLOAT, [batch, sizes[0]])],
                   [oh.make_tensor_value_info("y", TensorProto.FLOAT, [batch, sizes[-1]])], inits)


def encoder_model(seed: int = 0, layers: int = 1, seq: int = 16, dim: int = 32, heads: int = 2, ffn: int = 128,
                  causal: bool = True, decomposed: bool = False) -> onnx.ModelProto:
    """Transformer encoder blocks as torch exports them (post-norm): x [1, seq, dim] ->
    QKV MatMul+Add -> Reshape/Transpose into heads -> MatMul(q, Transpose(k)) -> Mul by
    1/sqrt(d) -> [Add a causal mask] -> Softmax -> MatMul(p, v) -> heads merged -> output
    MatMul+Add -> residual Add -> LayerNormalization -> FFN MatMul+Add -> GELU (erf form,
    as opset-17 exporters write it) -> MatMul+Add -> residual Add -> LayerNormalization.
    `decomposed`: the layer norms as torch's exporter writes them below opset 17
    (ReduceMean, Sub, Pow, ReduceMean, Add, Sqrt, Div, Mul, Add) and the softmax as
    jax2tf does (ReduceMax, Max with -inf, Sub, Exp, ReduceSum, Div, reductions without
    their axis and reshaped back)."""
    rng = np.random.default_rng(seed)
    dh = dim // heads
    inits: list = []
    nodes: list = []

    def const(name: str, value: np.ndarray) -> str:
        inits.append(nh.from_array(np.asarray(value), name))
        return name

    def node(op: str, ins: list[str], out: str, **attrs) -> str:
        nodes.append(oh.make_node(op, ins, [out], name=f"/{out}/{op}", **attrs))
        return out

    def linear(x: str, name: str, k: int, n: int) -> str:
        w = const(f"{name}.weight", (rng.standard_normal((k, n)) / np.sqrt(k)).astype(np.float32))
        b = const(f"{name}.bias", (rng.standard_normal(n) * 0.1).astype(np.float32))
        return node("Add", [node("MatMul", [x, w], f"{name}.mm"), b], f"{name}.out")

    split = const("split_shape", np.array([1, seq, heads, dh], np.int64))
    merged = const("merged_shape", np.array([1, seq, dim], np.int64))
    scale = const("scale", np.array(1 / np.sqrt(dh), np.float32))
    mask = const("mask", np.triu(np.full((seq, seq), -1e4, np.float32), 1)) if causal else None
    half, one, rsqrt2 = (const(n, np.array(v, np.float32)) for n, v in
                         (("half", 0.5), ("one", 1.0), ("rsqrt2", 1 / np.sqrt(2))))
    if decomposed:
        two, eps, ninf = (const(n, np.array(v, np.float32)) for n, v in (("two", 2.0), ("eps", 1e-5),
                                                                          ("ninf", -np.inf)))
        rows = const("rows_kept", np.array([1, heads, seq, 1], np.int64))

    def layer_norm(x: str, w: str, b: str, out: str) -> str:
        if not decomposed:
            return node("LayerNormalization", [x, w, b], out, axis=-1)
        d = node("Sub", [x, node("ReduceMean", [x], f"{out}.mean", axes=[-1])], f"{out}.centered")
        var = node("ReduceMean", [node("Pow", [d, two], f"{out}.sq")], f"{out}.var", axes=[-1])
        n = node("Div", [d, node("Sqrt", [node("Add", [var, eps], f"{out}.var_eps")], f"{out}.std")], f"{out}.norm")
        return node("Add", [node("Mul", [n, w], f"{out}.scaled"), b], out)

    def softmax(x: str, out: str) -> str:
        if not decomposed:
            return node("Softmax", [x], out, axis=-1)
        peak = node("Max", [ninf, node("ReduceMax", [x], f"{out}.max", axes=[-1], keepdims=0)], f"{out}.peak")
        e = node("Exp", [node("Sub", [x, node("Reshape", [peak, rows], f"{out}.peak_kept")], f"{out}.shifted")],
                 f"{out}.exp")
        total = node("Reshape", [node("ReduceSum", [e, const(f"{out}.axes", np.array([-1], np.int64))],
                                      f"{out}.sum", keepdims=0), rows], f"{out}.sum_kept")
        return node("Div", [e, total], out)

    x = "x"
    for i in range(layers):
        p = f"layer{i}"
        heads_of = {}
        for part in ("q", "k", "v"):
            y = linear(x, f"{p}.{part}", dim, dim)
            y = node("Reshape", [y, split], f"{p}.{part}.split")
            heads_of[part] = node("Transpose", [y], f"{p}.{part}.heads", perm=[0, 2, 1, 3])
        kt = node("Transpose", [heads_of["k"]], f"{p}.kT", perm=[0, 1, 3, 2])
        s = node("Mul", [node("MatMul", [heads_of["q"], kt], f"{p}.qk"), scale], f"{p}.scaled")
        if mask is not None:
            s = node("Add", [s, mask], f"{p}.masked")
        a = softmax(s, f"{p}.probs")
        o = node("MatMul", [a, heads_of["v"]], f"{p}.pv")
        o = node("Reshape", [node("Transpose", [o], f"{p}.pvT", perm=[0, 2, 1, 3]), merged], f"{p}.merged")
        o = linear(o, f"{p}.proj", dim, dim)
        ln_w = [const(f"{p}.ln{j}.{w}", (1 + 0.1 * rng.standard_normal(dim) if w == "weight" else
                                         0.1 * rng.standard_normal(dim)).astype(np.float32))
                for j in (1, 2) for w in ("weight", "bias")]
        h = layer_norm(node("Add", [x, o], f"{p}.res1"), ln_w[0], ln_w[1], f"{p}.ln1")
        f = linear(h, f"{p}.ffn1", dim, ffn)
        erf = node("Erf", [node("Mul", [f, rsqrt2], f"{p}.gelu.scaled")], f"{p}.gelu.erf")
        f = node("Mul", [node("Mul", [f, half], f"{p}.gelu.half"), node("Add", [erf, one], f"{p}.gelu.one")],
                 f"{p}.gelu")
        f = linear(f, f"{p}.ffn2", ffn, dim)
        out = "y" if i == layers - 1 else f"{p}.ln2"
        x = layer_norm(node("Add", [h, f], f"{p}.res2"), ln_w[2], ln_w[3], out)
    return _finish(nodes, "encoder", [oh.make_tensor_value_info("x", TensorProto.FLOAT, [1, seq, dim])],
                   [oh.make_tensor_value_info("y", TensorProto.FLOAT, [1, seq, dim])], inits)


HOSTILE_INPUT = 'in"put\\ */ /* ??= ??/ %s%n\nnaïve ∑ 名前'
"""Quotes, a backslash, comment delimiters, trigraphs, printf conversions, a newline and
non-ASCII text in one input name."""
HOSTILE_KEYWORD = "int"
"""A C keyword as the second input's name."""
HOSTILE_OUTPUTS = ("out-1", "out_1")
"""Two output names that differ only in punctuation (one identifier if sanitized naively)."""
HOSTILE_INTERNAL = ('s*/um\n', 'c\\onv', 'relu%d', 'w"*/eight\n', "bias ??= 'b'",
                    'add "node" /* ?? */', "conv\\\n*/ int main(){}", "relu ñ")
"""Names of intermediate tensors, weights and nodes."""
HOSTILE_SHAPE = (1, 3, 8, 8)


def hostile_model(seed: int = 0) -> onnx.ModelProto:
    """Add -> Conv(3 -> 8, bias) -> Relu -> MaxPool -> GlobalAveragePool, two inputs
    and two outputs (the pool and the global average), every name hostile to C."""
    rng = np.random.default_rng(seed)
    s_sum, s_conv, s_relu, w_name, b_name, n_add, n_conv, n_relu = HOSTILE_INTERNAL
    o_gap, o_pool = HOSTILE_OUTPUTS
    inits = [nh.from_array((rng.standard_normal((8, 3, 3, 3)) * 0.3).astype(np.float32), w_name),
             nh.from_array((rng.standard_normal(8) * 0.1).astype(np.float32), b_name)]
    nodes = [
        oh.make_node("Add", [HOSTILE_INPUT, HOSTILE_KEYWORD], [s_sum], name=n_add),
        oh.make_node("Conv", [s_sum, w_name, b_name], [s_conv], name=n_conv, pads=[1, 1, 1, 1], kernel_shape=[3, 3]),
        oh.make_node("Relu", [s_conv], [s_relu], name=n_relu),
        oh.make_node("MaxPool", [s_relu], [o_pool], name="pool */", kernel_shape=[2, 2], strides=[2, 2]),
        oh.make_node("GlobalAveragePool", [o_pool], [o_gap], name="gap\n"),
    ]
    ins = [oh.make_tensor_value_info(n, TensorProto.FLOAT, list(HOSTILE_SHAPE)) for n in (HOSTILE_INPUT, HOSTILE_KEYWORD)]
    outs = [oh.make_tensor_value_info(o_gap, TensorProto.FLOAT, [1, 8, 1, 1]),
            oh.make_tensor_value_info(o_pool, TensorProto.FLOAT, [1, 8, 4, 4])]
    return _finish(nodes, "hostile */ graph", ins, outs, inits)


# --------------------------------------------------------------------------------------
# Sharing work between pytest-xdist workers
# --------------------------------------------------------------------------------------


def session_dir(tmp_path_factory) -> str:
    """A directory shared by all workers of this pytest session (and only this one)."""
    base = tmp_path_factory.getbasetemp()
    root = base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base
    path = os.path.join(str(root), "e2e-shared")
    os.makedirs(path, exist_ok=True)
    return path


@contextlib.contextmanager
def locked(path: str) -> Iterator[None]:
    """An exclusive lock on `path` + '.lock' (so two workers never build the same thing)."""
    with open(path + ".lock", "w") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)


# --------------------------------------------------------------------------------------
# The interpreter with the memory plan honoured
# --------------------------------------------------------------------------------------


def _view(memory: bytearray, offset: int, t: MemRefType, what: str) -> np.ndarray:
    dt = numpy_dtype(t.element_type)
    shape = tuple(t.get_shape())
    nbytes = int(np.prod(shape, dtype=np.int64)) * dt.itemsize
    if offset < 0 or offset + nbytes > len(memory):
        raise AssertionError(f"{what}: buffer {t} at offset {offset} ({nbytes} bytes) exceeds its {len(memory)} bytes")
    return np.frombuffer(memory, dtype=dt, count=nbytes // dt.itemsize, offset=offset).reshape(shape)


def enclosing_function(op: Operation) -> func.FuncOp:
    parent = op.parent_op()
    while not isinstance(parent, func.FuncOp):
        assert parent is not None, f"{op.name} is not inside a function"
        parent = parent.parent_op()
    return parent


def function_target(fn: func.FuncOp) -> str | None:
    t = fn.attributes.get(TARGET_ATTR)
    return t.data if isinstance(t, StringAttr) and t.data != "host" else None


@register_impls
class PlannedBufferFunctions(BufferFunctions):
    """BufferFunctions whose planned buffers live at their planned offsets."""

    def __init__(self, arena: bytearray, scratchpads: dict[str, bytearray]):
        self.arena = arena
        self.scratchpads = scratchpads

    @impl(memref.AllocOp)
    def run_alloc(self, interpreter: Interpreter, op: memref.AllocOp, args):
        offset = op.attributes.get(OFFSET_ATTR)
        if not isinstance(offset, IntegerAttr):
            return (fresh_buffer(op.memref.type),)
        return (_view(self.arena, offset.value.data, op.memref.type, "host arena"),)

    @impl(accel.AllocOp)
    def run_accel_alloc(self, interpreter: Interpreter, op: accel.AllocOp, args):
        if op.offset is None or accel.memory_space(op.result.type) != "spm":
            return (fresh_buffer(op.result.type),)
        target = _alloc_target(op)
        assert target is not None, "a scratchpad buffer outside an accelerator function names no target"
        assert target in self.scratchpads, f"no scratchpad size known for target '{target}'"
        return (_view(self.scratchpads[target], op.offset.value.data, op.result.type, f"{target} scratchpad"),)


def run_planned(module: ModuleOp, inputs: Mapping[str, Any], scratchpad_bytes: Mapping[str, int]) -> dict[str, np.ndarray]:
    """Run a bufferized `@main` (any level after `bufferize`) with planned buffers at their
    offsets; `scratchpad_bytes` gives each target's scratchpad size."""
    fn = relay_interpreter.find_function(module, "main")
    n_args = len(fn.body.block.args)
    n_out = sum(is_output_arg(fn, i) for i in range(n_args))
    assert n_out, "run_planned needs bufferized IR (outputs as accel.output arguments)"
    names = io_names(fn)[0]
    in_names, out_names = names[:-n_out], names[-n_out:]
    arrays = [np.array(inputs[n]) for n in in_names]
    outs = [fresh_buffer(t) for t in fn.function_type.inputs.data[len(in_names):]]
    arena_attr = module.attributes.get(ARENA_ATTR)
    arena = bytearray(b"\xff" * (arena_attr.value.data if isinstance(arena_attr, IntegerAttr) else 0))
    scratchpads = {t: bytearray(b"\xff" * n) for t, n in scratchpad_bytes.items()}
    interpreter = Interpreter(module)
    for impls in (FuncFunctions(), relay_interpreter.RelayFunctions(), PlannedBufferFunctions(arena, scratchpads),
                  ScfFunctions(), ArithFunctions()):
        interpreter.register_implementations(impls)
    try:
        with np.errstate(all="ignore"):
            interpreter.call_op(fn, (*arrays, *outs))
    except relay_interpreter._OpFailed as e:
        raise e.error from None
    return dict(zip(out_names, outs))


# --------------------------------------------------------------------------------------
# The scratchpad plan, structurally
# --------------------------------------------------------------------------------------


@dataclass
class SpmBuffer:
    name: str
    offset: int
    nbytes: int
    first: int
    last: int

    def describe(self) -> str:
        return f"{self.name} at [{self.offset}, {self.offset + self.nbytes}) live over ops {self.first}..{self.last}"


class _Liveness:
    """Live ranges of buffers in one function, in a pre-order numbering of its ops.

    A buffer is live from the first op touching it (or a view of it) to the last, in
    program order: that is the order in which the device's effects happen (the simulator
    is sequential; its timeline delays a write to scratchpad bytes until earlier
    transfers have read them, and reading bytes of a transfer not yet waited for is its
    error), so a `dma_wait` extends nothing. A use inside a loop (or by a loop) that does
    not contain the buffer's definition counts as the whole loop."""

    def __init__(self, fn: func.FuncOp):
        self.fn = fn
        self.position: dict[Operation, int] = {}
        self.end: dict[Operation, int] = {}
        for i, op in enumerate(fn.walk()):
            self.position[op] = i
        for op in reversed(list(self.position)):
            last = self.position[op]
            for region in op.regions:
                for block in region.blocks:
                    for inner in block.ops:
                        last = max(last, self.end[inner])
            self.end[op] = last

    def span(self, use: Operation, block) -> tuple[int, int]:
        top = use
        while top.parent_block() is not block:
            top = top.parent_op()
            assert top is not None, "a use outside the definition's region"
        if top is use and not use.regions:
            return self.position[use], self.position[use]
        return self.position[top], self.end[top]

    def users(self, value: SSAValue) -> list[Operation]:
        """Ops using `value` or a view of it (views followed)."""
        out, work = [], [value]
        while work:
            v = work.pop()
            for use in v.uses:
                if isinstance(use.operation, memref.SubviewOp):
                    work.append(use.operation.result)
                else:
                    out.append(use.operation)
        return out

    def live_range(self, value: SSAValue, block) -> tuple[int, int] | None:
        spans = []
        for user in self.users(value):
            spans.append(self.span(user, block))
            if isinstance(user, accel.DmaStartOp):
                # A transfer whose token a loop carries to its next iteration: the data
                # crosses the back edge, so the buffer is live through the whole body.
                for use in user.token.uses:
                    if isinstance(use.operation, scf.YieldOp):
                        body = use.operation.parent_block()
                        spans += [self.span(body.first_op, block), self.span(body.last_op, block)]
        if not spans:
            return None
        return min(s for s, _ in spans), max(e for _, e in spans)


def _spm_allocs(fn: func.FuncOp) -> list[accel.AllocOp]:
    allocs = [op for op in fn.walk() if isinstance(op, accel.AllocOp) and accel.memory_space(op.result.type) == "spm"]
    for op in allocs:
        assert op.offset is not None, f"scratchpad buffer {op.result.type} in @{fn.sym_name.data} has no offset"
    return allocs


def scratchpad_buffers(fn: func.FuncOp) -> list[SpmBuffer]:
    """The scratchpad buffers a function allocates, with their live ranges (unused ones
    left out)."""
    live = _Liveness(fn)
    return [SpmBuffer(f"@{fn.sym_name.data} {op.result.type}", op.offset.value.data, buffer_bytes(op.result.type), *r)
            for op in _spm_allocs(fn) if (r := live.live_range(op.result, op.parent_block())) is not None]


def _alloc_target(op: accel.AllocOp) -> str | None:
    t = op.attributes.get(TARGET_ATTR)
    return t.data if isinstance(t, StringAttr) else function_target(enclosing_function(op))


def _overlaps(buffers: list[SpmBuffer], where: str) -> list[str]:
    problems = []
    by_first = sorted(buffers, key=lambda b: b.first)
    for i, a in enumerate(by_first):
        for b in by_first[i + 1:]:
            if b.first > a.last:
                break
            if a.offset < b.offset + b.nbytes and b.offset < a.offset + a.nbytes:
                problems.append(f"{where}: {a.describe()} overlaps {b.describe()}")
    return problems


def scratchpad_conflicts(module: ModuleOp, descs: Mapping[str, Any]) -> list[str]:
    """Every violation of the scratchpad plan: two simultaneously live buffers sharing a
    byte (within a region, among buffers kept on the device across regions in `@main`,
    and between those and the buffers of the regions called while they are live), a
    buffer past the end of its scratchpad, an offset not aligned to the target's
    alignment."""
    problems: list[str] = []
    functions = {fn.sym_name.data: fn for fn in module.body.block.ops
                 if isinstance(fn, func.FuncOp) and not fn.is_declaration}
    main = functions.get("main")

    def buffer(name: str, op: accel.AllocOp, live: tuple[int, int]) -> SpmBuffer:
        return SpmBuffer(name, op.offset.value.data, buffer_bytes(op.result.type), *live)

    # Buffers of @main (kept on the device across regions), per target.
    resident: dict[str, list[tuple[accel.AllocOp, SpmBuffer]]] = {}
    main_live = _Liveness(main) if main is not None else None
    if main is not None:
        for op in _spm_allocs(main):
            target = _alloc_target(op)
            assert target is not None, f"a scratchpad buffer {op.result.type} in @main names no target"
            live = main_live.live_range(op.result, op.parent_block())
            if live is not None:
                resident.setdefault(target, []).append((op, buffer(f"@main {op.result.type}", op, live)))
        for target, items in resident.items():
            problems += _overlaps([b for _, b in items], f"@main ({target})")

    for name, fn in functions.items():
        target = function_target(fn)
        allocs = _spm_allocs(fn)
        if target is None:
            allocs = [op for op in allocs if _alloc_target(op) is not None]
        for op in allocs:
            t = _alloc_target(op)
            desc = descs[t]
            size = buffer_bytes(op.result.type)
            if op.offset.value.data + size > desc.memory.scratchpad_bytes:
                problems.append(f"@{name}: {op.result.type} at {op.offset.value.data} exceeds the "
                                f"{desc.memory.scratchpad_bytes}-byte scratchpad of {t}")
            if op.offset.value.data % desc.memory.alignment:
                problems.append(f"@{name}: {op.result.type} at {op.offset.value.data} is not aligned to "
                                f"{desc.memory.alignment}")
        if target is None:
            continue
        live = _Liveness(fn)
        own = [buffer(f"@{name} {op.result.type}", op, r) for op in allocs
               if (r := live.live_range(op.result, op.parent_block())) is not None]
        problems += _overlaps(own, f"@{name} ({target})")
        # Device-resident buffers of @main live while this region runs.
        if main is None:
            continue
        for call in main.walk():
            if not isinstance(call, func.CallOp) or call.callee.root_reference.data != name:
                continue
            at = main_live.position[call]
            outside = []
            for op, res in resident.get(target, []):
                if not res.first <= at <= res.last:
                    continue
                args = [i for i, a in enumerate(call.arguments) if a is op.result]
                if not args:  # live across the call without being an operand
                    outside.append(SpmBuffer(res.name, res.offset, res.nbytes, 0, live.end[fn]))
                    continue
                inside = [r for i in args if (r := live.live_range(fn.body.block.args[i], fn.body.block)) is not None]
                first = 0 if res.first < at else min((s for s, _ in inside), default=0)
                last = live.end[fn] if res.last > at else max((e for _, e in inside), default=live.end[fn])
                outside.append(SpmBuffer(res.name + " (argument)", res.offset, res.nbytes, first, last))
            problems += [p for p in _overlaps(own + outside, f"@{name} ({target}) called while resident")
                         if "@main" in p and p.count("@main") == 1]
    return problems


def compute_op_count(module: ModuleOp) -> int:
    """Accelerator compute ops executed by one run (each region is called once)."""
    calls: dict[str, int] = {}
    main = relay_interpreter.find_function(module, "main")
    for op in main.body.block.ops:
        if isinstance(op, func.CallOp):
            name = op.callee.root_reference.data
            calls[name] = calls.get(name, 0) + 1
    total = 0
    for fn in module.body.block.ops:
        if isinstance(fn, func.FuncOp) and function_target(fn) is not None:
            per_call = sum(multiplicity(op) for op in fn.walk() if isinstance(op, accel.ComputeOp))
            total += per_call * calls.get(fn.sym_name.data, 0)
    return total


# --------------------------------------------------------------------------------------
# C text
# --------------------------------------------------------------------------------------


@dataclass
class CText:
    code: str
    """The text with every comment replaced by a space and every literal by `""` / `''`."""
    comments: list[str]
    strings: list[str]
    """String literals as written (with quotes and escapes)."""


def c_lex(text: str) -> CText:
    """Split C text the way the compiler's translation phases 1-3 do (trigraphs first,
    then line splices, then comments and literals)."""
    trigraphs = {"??=": "#", "??/": "\\", "??'": "^", "??(": "[", "??)": "]", "??!": "|", "??<": "{", "??>": "}", "??-": "~"}
    for k, v in trigraphs.items():
        text = text.replace(k, v)
    text = text.replace("\\\n", "")
    code, comments, strings = [], [], []
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if text.startswith("/*", i):
            j = text.find("*/", i + 2)
            assert j >= 0, "unterminated comment"
            comments.append(text[i + 2:j])
            code.append(" ")
            i = j + 2
        elif text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            comments.append(text[i + 2:j])
            i = j
        elif ch in "\"'":
            j = i + 1
            while j < n and text[j] != ch:
                assert text[j] != "\n", f"newline inside a literal at offset {j}"
                j += 2 if text[j] == "\\" else 1
            assert j < n, "unterminated literal"
            if ch == '"':
                strings.append(text[i:j + 1])
            code.append(ch + ch)
            i = j + 1
        else:
            code.append(ch)
            i += 1
    return CText("".join(code), comments, strings)


def c_string_value(literal: str) -> bytes:
    """The bytes a C string literal (as written, simple and octal/hex escapes) denotes."""
    body = literal[1:-1]
    simple = {"n": 10, "t": 9, "r": 13, "0": 0, "\\": 92, '"': 34, "'": 39, "?": 63, "a": 7, "b": 8, "f": 12, "v": 11}
    out = bytearray()
    i = 0
    while i < len(body):
        ch = body[i]
        if ch != "\\":
            out += ch.encode("utf-8")
            i += 1
            continue
        nxt = body[i + 1]
        if nxt in "01234567":
            j = i + 1
            while j < min(i + 4, len(body)) and body[j] in "01234567":
                j += 1
            out.append(int(body[i + 1:j], 8))
            i = j
        elif nxt == "x":
            j = i + 2
            while j < len(body) and body[j] in "0123456789abcdefABCDEF":
                j += 1
            out.append(int(body[i + 2:j], 16) & 0xFF)
            i = j
        else:
            out.append(simple[nxt])
            i += 2
    return bytes(out)


def run_tool(tool: str, *args: str) -> subprocess.CompletedProcess:
    """One of accel's command lines of this interpreter's environment."""
    return subprocess.run([os.path.join(os.path.dirname(sys.executable), tool), *args],
                          capture_output=True, text=True, timeout=600)


def one_error_line(proc: subprocess.CompletedProcess) -> str:
    """The one line a failing tool prints (and no traceback)."""
    assert proc.returncode != 0
    lines = [ln for ln in proc.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1, proc.stderr
    assert "Traceback" not in proc.stderr
    return lines[0]


def sigint_as_on_a_terminal() -> None:
    """`preexec_fn` for a child that a test interrupts with SIGINT: its default action, as
    a terminal's foreground job has it. A suite started in the background (`nohup`, `&`
    without job control, some CI runners) passes SIGINT on ignored, and Python then keeps
    ignoring it, so the Ctrl-C under test would never arrive."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
