"""int8 row ops and int8 head splits on the npu (a QDQ transformer in one region).

onnxruntime's quantizer leaves a transformer's softmax and layer norms in float between
a dequantize and a quantize, and wraps the head split's reshape and transpose in QDQ
pairs of their own. The npu runs the first as int8 row commands (`qsoftmax`,
`qlayer_norm`, `qrms_norm`: `npu_rows_s8`, each row dequantized, computed in float,
quantized; the command-stream targets' `rows_q8`), and propagate-qdq turns the second
into layout ops on the int8 data, so nothing between the model's first quantize and
last dequantize is left to the host.

- each row kind, int8 and uint8, through C on npu (rows in one command) and npu-64k
  (rows tiled): one region, within one quantization step of the interpreter;
- an attention-style block quantized by onnxruntime's quantize_static is one npu
  region whose only host ops are the model's input quantize and output dequantize,
  within one output step of onnxruntime; npu-cmd and stripe (command streams) give the
  C-API npu's outputs bit for bit with the same counters, their streams holding
  `rows_q8` commands.
"""

from __future__ import annotations

import json
import os

import numpy as np
import onnx
import pytest
from e2e_util import normal_feeds, ort_run, output_step, quantized_model
from onnx import helper as oh
from onnx import numpy_helper as nh

from accel.compiler import api
from accel.compiler.backend.stream_format import decode
from accel.compiler.driver import compile_to_directory, print_ir
from accel.compiler.frontend.builder import GraphBuilder
from accel.compiler.runtime.interpreter import run_function
from accel.compiler.runtime.run_compiled import run_directory
from accel.compiler.targets.registry import load_target

HERE = os.path.dirname(os.path.abspath(__file__))
STRIPE = os.path.join(os.path.dirname(HERE), "examples", "targets", "stripe", "stripe.toml")


# --------------------------------------------------------------------------------------
# One row op through C
# --------------------------------------------------------------------------------------


def _row_graph(kind: str, dtype, shape: tuple[int, int]):
    rng = np.random.default_rng(7)
    b = GraphBuilder()
    zero_in = 3 if dtype == np.int8 else 130
    zero_out = -5 if dtype == np.int8 else 120
    x = b.input("x", shape, dtype)
    d = b.qnn_dequantize(x, b.const(np.float32(0.05)), b.const(np.array(zero_in, dtype)))
    n = shape[-1]
    if kind == "softmax":
        y = b.softmax(d, axis=-1)
        out_scale = 1.0 / 250
    elif kind == "layer_norm":
        y = b.layer_norm(d, b.const(rng.uniform(0.5, 1.5, n).astype(np.float32)),
                         b.const(rng.uniform(-0.5, 0.5, n).astype(np.float32)), axis=-1, epsilon=1e-5)
        out_scale = 0.03
    else:
        y = b.rms_norm(d, b.const(rng.uniform(0.5, 1.5, n).astype(np.float32)), axis=-1, epsilon=1e-5)
        out_scale = 0.03
    q = b.qnn_quantize(y, b.const(np.float32(out_scale)), b.const(np.array(zero_out, dtype)))
    info = np.iinfo(dtype)
    return b.build([q]), {"x": rng.integers(info.min, info.max + 1, shape).astype(dtype)}


@pytest.mark.parametrize("target, shape", [("npu", (6, 40)), ("npu-64k", (160, 700))], ids=["npu", "npu-64k-tiled"])
@pytest.mark.parametrize("dtype", [np.int8, np.uint8], ids=["i8", "u8"])
@pytest.mark.parametrize("kind", ["softmax", "layer_norm", "rms_norm"])
def test_int8_row_ops_run_on_the_npu(kind, dtype, target, shape, tmp_path):
    module, inputs = _row_graph(kind, dtype, shape)
    want = run_function(module, inputs)
    path = tmp_path / "rows.mlir"
    path.write_text(print_ir(module))
    # (one small op alone is not worth a region by the cost rule: asked to offload anyway)
    report = compile_to_directory(str(path), target, str(tmp_path / "out"), pipeline="byoc{cost-model=false},lower")
    assert len(report["regions"]) == 1 and report["ops"]["host"] == 0, report["rejected"]
    c = "".join((tmp_path / "out" / n).read_text() for n in os.listdir(tmp_path / "out") if n.endswith(".c"))
    assert "npu_rows_s8(" in c
    got, counters = run_directory(str(tmp_path / "out"), inputs)
    for k, w in want.items():
        assert got[k].dtype == w.dtype
        assert int(np.max(np.abs(got[k].astype(np.int64) - w.astype(np.int64)))) <= 1, k
    if target == "npu-64k":  # 224 KB in and out: tiled in rows, one load and store per tile
        assert counters["transfers"] > 2, counters


# --------------------------------------------------------------------------------------
# A QDQ attention block
# --------------------------------------------------------------------------------------


def _attention_block(path: str) -> None:
    """x [1, 8, 32]: layer norm, q/k/v projections, heads (reshape, transpose), scores,
    softmax, context, heads merged, output projection, residual add."""
    rng = np.random.default_rng(11)
    d, h, t = 32, 4, 8

    def w(name, shape, s=0.2):
        return nh.from_array((s * rng.standard_normal(shape)).astype(np.float32), name)

    inits = [w("g", (d,), 0.1), w("beta", (d,), 0.1), w("wq", (d, d)), w("wk", (d, d)), w("wv", (d, d)),
             w("wo", (d, d)), nh.from_array(np.array([1, t, h, d // h], np.int64), "heads"),
             nh.from_array(np.array([1, t, d], np.int64), "merged"),
             nh.from_array(np.array(1.0 / np.sqrt(d // h), np.float32), "scale")]
    inits[0] = nh.from_array((1 + 0.1 * rng.standard_normal(d)).astype(np.float32), "g")
    nodes = [oh.make_node("LayerNormalization", ["x", "g", "beta"], ["ln"], axis=-1, epsilon=1e-5)]
    for p in "qkv":
        nodes += [oh.make_node("MatMul", ["ln", f"w{p}"], [f"{p}0"]),
                  oh.make_node("Reshape", [f"{p}0", "heads"], [f"{p}1"]),
                  oh.make_node("Transpose", [f"{p}1"], [f"{p}2"], perm=[0, 2, 3, 1] if p == "k" else [0, 2, 1, 3])]
    nodes += [oh.make_node("MatMul", ["q2", "k2"], ["s0"]), oh.make_node("Mul", ["s0", "scale"], ["s1"]),
              oh.make_node("Softmax", ["s1"], ["p"], axis=-1), oh.make_node("MatMul", ["p", "v2"], ["c0"]),
              oh.make_node("Transpose", ["c0"], ["c1"], perm=[0, 2, 1, 3]),
              oh.make_node("Reshape", ["c1", "merged"], ["c2"]), oh.make_node("MatMul", ["c2", "wo"], ["o"]),
              oh.make_node("Add", ["o", "x"], ["y"])]
    graph = oh.make_graph(nodes, "attention", [oh.make_tensor_value_info("x", onnx.TensorProto.FLOAT, [1, t, d])],
                          [oh.make_tensor_value_info("y", onnx.TensorProto.FLOAT, [1, t, d])], inits)
    model = oh.make_model(graph, opset_imports=[oh.make_opsetid("", 17)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    onnx.save(model, path)


@pytest.fixture(scope="module")
def attention(tmp_path_factory) -> str:
    return quantized_model(tmp_path_factory, "attention", _attention_block)


def _feeds(path: str) -> dict[str, np.ndarray]:
    return normal_feeds(path, 3)


@pytest.fixture(scope="module")
def runs(attention, tmp_path_factory) -> dict:
    out = {}
    for target in ("npu", "npu-cmd", STRIPE):
        d = str(tmp_path_factory.mktemp(os.path.basename(target).replace(".", "_")))
        compiled = api.compile(attention, target=target, out_dir=d)
        outputs = compiled.run(_feeds(attention))
        with open(os.path.join(d, "counters.json")) as f:
            out[target] = (outputs, json.load(f), compiled.report, d)
    return out


def test_a_qdq_attention_block_is_one_npu_region(attention, runs):
    got, _, report, _ = runs["npu"]
    assert len(report["regions"]) == 1, report["rejected"]
    host = sorted(r["op"] for r in report["rejected"])
    assert host == ["relay.qnn.dequantize", "relay.qnn.quantize"], report["rejected"]
    want = ort_run(attention, _feeds(attention), optimize=False)
    step = output_step(onnx.load(attention), "y")
    for k in want:
        assert np.max(np.abs(got[k] - want[k])) <= step * 1.001, k


@pytest.mark.parametrize("target", ["npu-cmd", STRIPE], ids=["npu-cmd", "stripe"])
def test_command_streams_run_int8_rows_as_the_npu(runs, target):
    want, want_counters, _, _ = runs["npu"]
    got, counters, report, out = runs[target]
    assert len(report["regions"]) == 1, report["rejected"]
    assert counters == want_counters
    for k in want:
        assert got[k].dtype == want[k].dtype and np.array_equal(got[k], want[k]), k
    isa = load_target(target).isa
    streams = [n for n in os.listdir(out) if n.endswith(".bin") and n != "weights.bin"]
    ops = []
    for name in streams:
        with open(os.path.join(out, name), "rb") as f:
            ops += [i.command.op for i in decode(isa, f.read()).instrs]
    assert ops.count("rows_q8") >= 2, ops  # the layer norm and the softmax
