"""max-as-pools: a max over trailing axes becomes a cascade of strided max pools of the data
viewed as [1, rows, 1, row length]; the reference interpreter's result is unchanged bit for
bit (a max of maxes over windows that cover the row, padding never winning), and a 1-D
CNN ending in ONNX's GlobalMaxPool is one npu region whose C output is onnxruntime's."""

from __future__ import annotations

import json
import os

import numpy as np
import onnx
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from onnx import TensorProto
from onnx import helper as oh
from onnx import numpy_helper as nh

from accel.compiler.driver import compile_to_directory, make_context
from accel.compiler.frontend.builder import GraphBuilder
from accel.compiler.runtime.run_compiled import run_directory
from accel.compiler.transforms.max_as_pools import MaxesAsPools, row_windows
from accel.dialects import relay
from e2e_util import assert_pass_keeps_results, ort_run


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(shape=st.lists(st.integers(1, 40), min_size=1, max_size=4).filter(lambda s: np.prod(s) <= 4096),
       data=st.data(), keepdims=st.booleans(), seed=st.integers(0, 2**16),
       dtype=st.sampled_from([np.float32, np.int8]))
def test_the_result_is_unchanged(shape, data, keepdims, seed, dtype):
    rank = len(shape)
    first = data.draw(st.integers(0, rank - 1), label="first reduced axis")
    axes = list(range(first, rank))
    if data.draw(st.booleans(), label="negative axes"):
        axes = [a - rank for a in axes]
    rng = np.random.default_rng(seed)
    x = (rng.standard_normal(shape) * 8).astype(np.float32) if dtype == np.float32 else \
        rng.integers(-128, 128, shape).astype(np.int8)
    b = GraphBuilder()
    y = b.max(b.input("x", shape, dtype), axis=axes, keepdims=keepdims)
    module = b.build([y])
    assert_pass_keeps_results(MaxesAsPools(), module, {"x": x})
    scalar = first == 0 and not keepdims  # (no transfer has rank 0: left alone)
    assert any(isinstance(op, relay.MaxOp) for op in module.walk()) == scalar


@given(length=st.integers(1, 5000), window=st.integers(2, 5), stride=st.integers(1, 5))
def test_the_windows_cover_the_row_down_to_one_cell(length, window, stride):
    """Each pool's windows start every `stride` cells and the last reaches the row's end
    (padding less than a stride, so no window is padding alone): one cell is left."""
    stride = min(stride, window)
    for w, right in row_windows(length, window, stride):
        assert w <= window and 0 <= right < stride
        cells = (length + right - w) // stride + 1
        assert (cells - 1) * stride + w == length + right  # the last window ends at the padded end
        length = cells
    assert length == 1


def test_left_alone_where_no_target_pools():
    """The dsp (matmul and dense only) runs no pool: the max stays."""
    b = GraphBuilder()
    y = b.max(b.input("x", (4, 8)), axis=[-1])
    module = b.build([y])
    MaxesAsPools().apply(make_context("dsp"), module)
    assert [op.name for op in module.walk() if isinstance(op, relay.RelayOp)] == ["relay.max"]


def test_a_1d_cnn_with_a_global_max_pool_is_one_region(tmp_path):
    """Conv1d, ReLU, GlobalMaxPool (a text or audio classifier's head, ONNX on [1, C, L]),
    then a dense layer: without the pass the max stays on the host and cuts the network in
    two; with it, one npu region, and the C output within 1e-4 of onnxruntime's largest
    magnitude (the max itself is exact)."""
    rng = np.random.default_rng(3)
    inits = [nh.from_array((rng.standard_normal((48, 16, 5)) * 0.2).astype(np.float32), "w"),
             nh.from_array((rng.standard_normal(48) * 0.1).astype(np.float32), "b"),
             nh.from_array((rng.standard_normal((48, 10)) * 0.2).astype(np.float32), "fc"),
             nh.from_array(np.array([1, 48], np.int64), "flat")]
    nodes = [oh.make_node("Conv", ["x", "w", "b"], ["c"], pads=[2, 2]), oh.make_node("Relu", ["c"], ["r"]),
             oh.make_node("GlobalMaxPool", ["r"], ["g"]), oh.make_node("Reshape", ["g", "flat"], ["f"]),
             oh.make_node("MatMul", ["f", "fc"], ["y"])]
    graph = oh.make_graph(nodes, "cnn1d", [oh.make_tensor_value_info("x", TensorProto.FLOAT, (1, 16, 300))],
                          [oh.make_tensor_value_info("y", TensorProto.FLOAT, (1, 10))], inits)
    path = str(tmp_path / "cnn1d.onnx")
    onnx.save(oh.make_model(graph, opset_imports=[oh.make_opsetid("", 13)]), path)
    out = str(tmp_path / "out")
    compile_to_directory(path, "npu", out)
    with open(os.path.join(out, "report.json")) as f:
        report = json.load(f)
    assert not [r for r in report["rejected"] if r["op"] == "relay.max"], report["rejected"]
    assert len(report["regions"]) == 1, report["regions"]
    feeds = {"x": rng.standard_normal((1, 16, 300)).astype(np.float32)}
    want = ort_run(path, feeds)["y"]
    got, _ = run_directory(out, feeds)
    assert float(np.max(np.abs(got["y"] - want))) <= 1e-4 * float(np.max(np.abs(want)))
