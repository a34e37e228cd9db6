"""Writes the README demo's models (committed; rerun to regenerate them byte for byte):

    .venv/bin/python examples/make_models.py

- `tiny_resnet.onnx`: a small residual CNN (input "input" [1, 3, 32, 32] float, output
  "logits" [1, 10]), built with onnx.helper in the style of a Keras/TF export:
  conv+bias+ReLU stem, two residual blocks (the second downsampling with a strided 1x1
  projection), max pool, global average pool, flatten, dense. Weights are seeded
  He-initialized random numbers.
- `tiny_resnet_int8.onnx`: the same model quantized by onnxruntime's `quantize_static`
  (QDQ format, int8 activations and per-channel int8 weights, calibrated on 16 seeded
  random inputs).
"""

from __future__ import annotations

import os

import numpy as np
import onnx
from onnx import TensorProto
from onnx import helper as h
from onnx import numpy_helper as nh

HERE = os.path.dirname(os.path.abspath(__file__))
FLOAT_PATH = os.path.join(HERE, "tiny_resnet.onnx")
INT8_PATH = os.path.join(HERE, "tiny_resnet_int8.onnx")
INPUT_SHAPE = (1, 3, 32, 32)


class Graph:
    def __init__(self, seed: int = 0):
        self.rng = np.random.default_rng(seed)
        self.nodes: list[onnx.NodeProto] = []
        self.inits: list[onnx.TensorProto] = []

    def weight(self, name: str, shape: tuple[int, ...], fan_in: int) -> str:
        w = self.rng.standard_normal(shape) * np.sqrt(2.0 / fan_in)
        self.inits.append(nh.from_array(w.astype(np.float32), name))
        return name

    def bias(self, name: str, n: int) -> str:
        self.inits.append(nh.from_array((self.rng.standard_normal(n) * 0.05).astype(np.float32), name))
        return name

    def node(self, op: str, inputs: list[str], name: str, **attrs) -> str:
        self.nodes.append(h.make_node(op, inputs, [name], name=name, **attrs))
        return name

    def conv(self, x: str, name: str, cin: int, cout: int, k: int, stride: int = 1, relu: bool = True) -> str:
        w = self.weight(f"{name}/kernel", (cout, cin, k, k), cin * k * k)
        b = self.bias(f"{name}/bias", cout)
        y = self.node("Conv", [x, w, b], name, kernel_shape=[k, k], strides=[stride, stride],
                      pads=[k // 2] * 4)
        return self.node("Relu", [y], f"{name}/relu") if relu else y

    def block(self, x: str, name: str, cin: int, cout: int, stride: int) -> str:
        y = self.conv(x, f"{name}/conv1", cin, cout, 3, stride)
        y = self.conv(y, f"{name}/conv2", cout, cout, 3, relu=False)
        shortcut = x if stride == 1 and cin == cout else self.conv(x, f"{name}/proj", cin, cout, 1, stride, relu=False)
        return self.node("Relu", [self.node("Add", [y, shortcut], f"{name}/add")], f"{name}/out")


def tiny_resnet() -> onnx.ModelProto:
    g = Graph()
    x = g.conv("input", "stem", 3, 16, 3)
    x = g.node("MaxPool", [x], "pool", kernel_shape=[2, 2], strides=[2, 2])
    x = g.block(x, "block1", 16, 16, 1)
    x = g.block(x, "block2", 16, 32, 2)
    x = g.node("GlobalAveragePool", [x], "gap")
    x = g.node("Flatten", [x], "flatten", axis=1)
    w = g.weight("dense/kernel", (10, 32), 32)
    b = g.bias("dense/bias", 10)
    g.nodes.append(h.make_node("Gemm", [x, w, b], ["logits"], name="dense", transB=1))
    graph = h.make_graph(g.nodes, "tiny_resnet", [h.make_tensor_value_info("input", TensorProto.FLOAT, INPUT_SHAPE)],
                         [h.make_tensor_value_info("logits", TensorProto.FLOAT, [1, 10])], g.inits)
    model = h.make_model(graph, opset_imports=[h.make_opsetid("", 17)], producer_name="accel examples/make_models.py")
    model.ir_version = 8
    onnx.checker.check_model(model, full_check=True)
    return model


def quantize(src: str, dst: str) -> None:
    from onnxruntime.quantization import CalibrationDataReader, QuantFormat, QuantType, quantize_static

    class RandomReader(CalibrationDataReader):
        def __init__(self):
            rng = np.random.default_rng(1)
            self.feeds = iter([{"input": rng.standard_normal(INPUT_SHAPE).astype(np.float32)} for _ in range(16)])

        def get_next(self):
            return next(self.feeds, None)

    quantize_static(src, dst, RandomReader(), quant_format=QuantFormat.QDQ, per_channel=True,
                    activation_type=QuantType.QInt8, weight_type=QuantType.QInt8)
    model = onnx.load(dst)
    model.producer_name = "accel examples/make_models.py (onnxruntime.quantization)"
    onnx.save(model, dst)


def main() -> None:
    onnx.save(tiny_resnet(), FLOAT_PATH)
    quantize(FLOAT_PATH, INT8_PATH)
    for p in (FLOAT_PATH, INT8_PATH):
        print(f"{os.path.relpath(p)}: {os.path.getsize(p)} bytes")


if __name__ == "__main__":
    main()
