"""Writes small ONNX models with narrow element types for tests/lit/onnx/narrow-types.mlir.

    %python %S/Inputs/make_narrow_model.py NAME OUT.onnx
"""

import sys

import ml_dtypes
import numpy as np
import onnx
from onnx import TensorProto as T
from onnx import helper as h
from onnx import numpy_helper as nh


def model(nodes, inputs, outputs, inits=(), opset=25):
    graph = h.make_graph(nodes, "g", inputs, outputs, [nh.from_array(a, n) for n, a in inits])
    return h.make_model(graph, opset_imports=[h.make_opsetid("", opset)])


def vi(name, shape, t):
    return h.make_tensor_value_info(name, t, shape)


def casts():
    """bf16 in, casts to float8 (saturate = 0), f8E8M0 (round_mode), and an int4 weight
    (packed two to a byte in the TensorProto) dequantized."""
    w = np.array([-8, -1, 0, 7, 3], dtype=ml_dtypes.int4)
    return model(
        [h.make_node("Cast", ["x"], ["f"], name="to_f32", to=T.FLOAT),
         h.make_node("Cast", ["f"], ["q"], name="to_e4m3", to=T.FLOAT8E4M3FN, saturate=0),
         h.make_node("Cast", ["f"], ["e"], name="to_e8m0", to=T.FLOAT8E8M0, round_mode="nearest"),
         h.make_node("DequantizeLinear", ["w", "s"], ["dw"], name="dq"),
         h.make_node("Add", ["f", "dw"], ["y"], name="add")],
        [vi("x", [5], T.BFLOAT16)],
        [vi("y", [5], T.FLOAT), vi("q", [5], T.FLOAT8E4M3FN), vi("e", [5], T.FLOAT8E8M0)],
        [("w", w), ("s", np.array(0.5, np.float32))])


def bad_round_mode():
    return model([h.make_node("Cast", ["x"], ["y"], name="cast_bad", to=T.FLOAT8E8M0, round_mode="sideways")],
                 [vi("x", [2], T.FLOAT)], [vi("y", [2], T.FLOAT8E8M0)])


def f8_relu():
    return model([h.make_node("Relu", ["x"], ["y"], name="relu_f8")],
                 [vi("x", [2], T.FLOAT8E4M3FN)], [vi("y", [2], T.FLOAT8E4M3FN)])


MODELS = {f.__name__: f for f in (casts, bad_round_mode, f8_relu)}

if __name__ == "__main__":
    name, out = sys.argv[1], sys.argv[2]
    onnx.save(MODELS[name](), out)
