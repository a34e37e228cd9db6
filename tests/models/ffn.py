"""The two-layer FFN that the dsp's data-movement figures use, built with onnx.helper (no
torch): x[m, d] -> Gemm(d -> h) -> Relu -> Gemm(h -> d), as the legacy exporter writes
nn.Linear (Gemm with transB=1). At the default 64 x 192 x 384 its weight matrices (295 KB)
are larger than the dsp's 128 KiB scratchpad. Used by tests/test_data_movement.py,
tests/test_device_assembly.py, bench/dma.py and bench/tuning.py."""

from __future__ import annotations

import numpy as np
import onnx
from onnx import TensorProto
from onnx import helper as oh
from onnx import numpy_helper as nh


def ffn_model(m: int = 64, d: int = 192, h: int = 384, seed: int = 0, name: str = "ffn",
              producer: str = "tests/models/ffn.py") -> onnx.ModelProto:
    rng = np.random.default_rng(seed)
    inits = [
        nh.from_array((rng.standard_normal((h, d)) / np.sqrt(d)).astype(np.float32), "fc1.weight"),
        nh.from_array((rng.standard_normal(h) * 0.05).astype(np.float32), "fc1.bias"),
        nh.from_array((rng.standard_normal((d, h)) / np.sqrt(h)).astype(np.float32), "fc2.weight"),
        nh.from_array((rng.standard_normal(d) * 0.05).astype(np.float32), "fc2.bias"),
    ]
    nodes = [
        oh.make_node("Gemm", ["input", "fc1.weight", "fc1.bias"], ["/fc1/Gemm_output_0"], name="/fc1/Gemm", transB=1),
        oh.make_node("Relu", ["/fc1/Gemm_output_0"], ["/relu/Relu_output_0"], name="/relu/Relu"),
        oh.make_node("Gemm", ["/relu/Relu_output_0", "fc2.weight", "fc2.bias"], ["output"], name="/fc2/Gemm", transB=1),
    ]
    graph = oh.make_graph(nodes, name, [oh.make_tensor_value_info("input", TensorProto.FLOAT, [m, d])],
                          [oh.make_tensor_value_info("output", TensorProto.FLOAT, [m, d])], inits)
    model = oh.make_model(graph, opset_imports=[oh.make_opsetid("", 17)], producer_name=producer)
    model.ir_version = 8
    onnx.checker.check_model(model, full_check=True)
    return model
