"""Blocked QuantizeLinear / DequantizeLinear (opset 21, block_size > 0) with run-time
scales and zero points: imported as per-element Q/DQ on the flattened tensor
(ops_quant._blocked_param), run by the reference interpreter and by the compiled C;
both must equal onnx's reference evaluator exactly (int8 results and their float
dequantization: the same float32 operations)."""

from __future__ import annotations

import numpy as np
import onnx
import pytest
from onnx import TensorProto as T
from onnx import helper as oh
from onnx.reference import ReferenceEvaluator

from accel.compiler.driver import compile_to_directory
from accel.compiler.frontend.onnx import import_onnx_model
from accel.compiler.runtime.interpreter import run_function
from accel.compiler.runtime.run_compiled import run_directory

rng = np.random.default_rng(21)


def blocked_model(x_shape, axis, block) -> tuple[onnx.ModelProto, dict]:
    blocks = -(-x_shape[axis] // block)
    p_shape = list(x_shape)
    p_shape[axis] = blocks
    nodes = [oh.make_node("QuantizeLinear", ["x", "s", "z"], ["q"], axis=axis, block_size=block),
             oh.make_node("DequantizeLinear", ["q", "s", "z"], ["y"], axis=axis, block_size=block)]
    vi = oh.make_tensor_value_info
    graph = oh.make_graph(nodes, "blocked", [vi("x", T.FLOAT, x_shape), vi("s", T.FLOAT, p_shape),
                                             vi("z", T.INT8, p_shape)],
                          [vi("q", T.INT8, x_shape), vi("y", T.FLOAT, x_shape)])
    model = oh.make_model(graph, opset_imports=[oh.make_opsetid("", 21)])
    feeds = {"x": (rng.standard_normal(x_shape) * 4).astype(np.float32),
             "s": (rng.random(p_shape) * 0.05 + 0.01).astype(np.float32),
             "z": rng.integers(-20, 20, p_shape).astype(np.int8)}
    return model, feeds


@pytest.mark.parametrize("x_shape, axis, block", [((3, 8), 1, 4), ((2, 5, 3), 1, 2), ((7, 2, 2), 0, 3)])
def test_blocked_qdq_matches_the_onnx_reference(tmp_path, x_shape, axis, block):
    model, feeds = blocked_model(list(x_shape), axis, block)
    want = dict(zip(["q", "y"], ReferenceEvaluator(model).run(None, feeds)))
    got = run_function(import_onnx_model(model), feeds)
    path = str(tmp_path / "blocked.onnx")
    onnx.save(model, path)
    compile_to_directory(path, "", str(tmp_path / "out"), pipeline="canonicalize,bufferize,plan-memory")
    compiled, _ = run_directory(str(tmp_path / "out"), feeds)
    for k, w in want.items():
        np.testing.assert_array_equal(np.asarray(got[k]), w, err_msg=f"interpreter {k}")
        np.testing.assert_array_equal(compiled[k], w, err_msg=f"C {k}")
