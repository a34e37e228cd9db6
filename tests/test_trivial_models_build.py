"""Models without a single op or without inputs still build with `-Werror` and run: an
Identity (no kernel is called, so model.c has no `fail`) and a Constant (no input, so
the runner has no `read_file`); both were 'defined but not used' errors."""

from __future__ import annotations

import os

import numpy as np
import onnx
import pytest
from onnx import TensorProto as T
from onnx import helper as oh
from onnx import numpy_helper as nh

from accel.compiler.driver import compile_to_directory
from accel.compiler.runtime.run_compiled import run_directory

VALUE = np.arange(6, dtype=np.float32).reshape(2, 3)


def _identity() -> onnx.ModelProto:
    graph = oh.make_graph([oh.make_node("Identity", ["x"], ["y"])], "g", [oh.make_tensor_value_info("x", T.FLOAT, [2, 3])],
                          [oh.make_tensor_value_info("y", T.FLOAT, [2, 3])])
    return oh.make_model(graph, opset_imports=[oh.make_opsetid("", 17)])


def _constant() -> onnx.ModelProto:
    node = oh.make_node("Constant", [], ["y"], value=nh.from_array(VALUE))
    graph = oh.make_graph([node], "g", [], [oh.make_tensor_value_info("y", T.FLOAT, [2, 3])])
    return oh.make_model(graph, opset_imports=[oh.make_opsetid("", 17)])


@pytest.mark.parametrize("name, model, feeds", [("identity", _identity(), {"x": VALUE}), ("constant", _constant(), {})])
def test_builds_with_werror_and_runs(tmp_path, name, model, feeds):
    path = os.path.join(tmp_path, f"{name}.onnx")
    onnx.save(model, path)
    out_dir = os.path.join(tmp_path, "out")
    compile_to_directory(path, "npu", out_dir)
    got, _ = run_directory(out_dir, feeds)  # builds with -Wall -Wextra -Werror
    np.testing.assert_array_equal(got["y"], VALUE)
