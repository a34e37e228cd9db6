"""Exports the CNNs with layers far larger than the 256 KiB npu scratchpad, used by
tests/test_data_movement.py and bench/dma.py (run once; the .onnx files are committed,
so neither the tests nor the bench need torch).

    .venv/bin/pip install torch==2.13.0 onnxscript      # into a dev venv, never a test dependency
    .venv/bin/python tests/models/export_cnn_large.py

- `cnn_large_resnet.onnx`: a ResNet-style network on a 1x3x128x128 input: a 3x3 stem
  with 32 channels at full resolution (a 2 MiB activation), a 3x3/2 max pool, three
  basic blocks (32 -> 32 at 64x64, 32 -> 64 strided with a 1x1 projection, 64 -> 64 at
  32x32), global average pool, linear head.
- `cnn_large_mobilenet.onnx`: a MobileNetV2-style network on 1x3x128x128: a strided
  3x3 stem (32 channels), three inverted-residual blocks (1x1 expand, 3x3 depthwise,
  1x1 project, ReLU6; residual where the shape allows) with 64-96 expanded channels,
  a 1x1 tail to 64 channels, global average pool, linear head.
- `cnn_large_resnet_int8.onnx`: the ResNet quantized by onnxruntime's `quantize_static`
  (QDQ, int8 activations per tensor, int8 weights per channel), calibrated on 8 seeded
  random inputs.

Weights are seeded random numbers (BatchNorm statistics randomized, so that folding
them is not a no-op). Export: the legacy TorchScript exporter (`dynamo=False`, opset
17, constant folding on, so BatchNorm is folded into the convolutions), node metadata
and doc strings stripped.
"""

from __future__ import annotations

import os
import sys
import warnings

import numpy as np
import onnx

HERE = os.path.dirname(os.path.abspath(__file__))
INPUT_SHAPE = (1, 3, 128, 128)
RESNET = os.path.join(HERE, "cnn_large_resnet.onnx")
MOBILENET = os.path.join(HERE, "cnn_large_mobilenet.onnx")
RESNET_INT8 = os.path.join(HERE, "cnn_large_resnet_int8.onnx")


def build_models():
    import torch
    from torch import nn

    class BasicBlock(nn.Module):
        def __init__(self, cin: int, cout: int, stride: int):
            super().__init__()
            self.conv1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False)
            self.bn1 = nn.BatchNorm2d(cout)
            self.conv2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False)
            self.bn2 = nn.BatchNorm2d(cout)
            self.shortcut = nn.Identity()
            if stride != 1 or cin != cout:
                self.shortcut = nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False), nn.BatchNorm2d(cout))

        def forward(self, x):
            y = torch.relu(self.bn1(self.conv1(x)))
            return torch.relu(self.bn2(self.conv2(y)) + self.shortcut(x))

    class LargeResNet(nn.Module):
        def __init__(self, classes: int = 10):
            super().__init__()
            self.stem = nn.Sequential(nn.Conv2d(3, 32, 3, 1, 1, bias=False), nn.BatchNorm2d(32), nn.ReLU())
            self.pool = nn.MaxPool2d(3, 2, 1)
            self.layers = nn.Sequential(BasicBlock(32, 32, 1), BasicBlock(32, 64, 2), BasicBlock(64, 64, 1))
            self.head = nn.Linear(64, classes)

        def forward(self, x):
            y = self.layers(self.pool(self.stem(x)))
            return self.head(torch.flatten(nn.functional.adaptive_avg_pool2d(y, 1), 1))

    class InvertedResidual(nn.Module):
        def __init__(self, cin: int, cout: int, stride: int, expand: int):
            super().__init__()
            mid = cin * expand
            self.body = nn.Sequential(
                nn.Conv2d(cin, mid, 1, bias=False), nn.BatchNorm2d(mid), nn.ReLU6(),
                nn.Conv2d(mid, mid, 3, stride, 1, groups=mid, bias=False), nn.BatchNorm2d(mid), nn.ReLU6(),
                nn.Conv2d(mid, cout, 1, bias=False), nn.BatchNorm2d(cout))
            self.residual = stride == 1 and cin == cout

        def forward(self, x):
            y = self.body(x)
            return x + y if self.residual else y

    class LargeMobileNet(nn.Module):
        def __init__(self, classes: int = 10):
            super().__init__()
            self.stem = nn.Sequential(nn.Conv2d(3, 32, 3, 2, 1, bias=False), nn.BatchNorm2d(32), nn.ReLU6())
            self.blocks = nn.Sequential(InvertedResidual(32, 32, 1, 2), InvertedResidual(32, 48, 2, 2),
                                        InvertedResidual(48, 48, 1, 2))
            self.tail = nn.Sequential(nn.Conv2d(48, 64, 1, bias=False), nn.BatchNorm2d(64), nn.ReLU6())
            self.head = nn.Linear(64, classes)

        def forward(self, x):
            y = self.tail(self.blocks(self.stem(x)))
            return self.head(torch.flatten(nn.functional.adaptive_avg_pool2d(y, 1), 1))

    def randomize(model: nn.Module) -> nn.Module:
        for m in model.modules():
            if isinstance(m, nn.BatchNorm2d):
                with torch.no_grad():
                    m.weight.uniform_(0.5, 1.5)
                    m.bias.uniform_(-0.2, 0.2)
                    m.running_mean.uniform_(-0.2, 0.2)
                    m.running_var.uniform_(0.5, 1.5)
        return model.eval()

    torch.manual_seed(0)
    return torch, randomize(LargeResNet()), randomize(LargeMobileNet())


def strip(path: str) -> None:
    m = onnx.load(path)
    m.doc_string = ""
    del m.metadata_props[:]
    m.graph.doc_string = ""
    for n in m.graph.node:
        n.doc_string = ""
        del n.metadata_props[:]
    onnx.checker.check_model(m, full_check=True)
    onnx.save(m, path)


def export(torch, model, path: str) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(model, (torch.randn(*INPUT_SHAPE),), path, dynamo=False, opset_version=17,
                          input_names=["input"], output_names=["output"], do_constant_folding=True)
    strip(path)


def quantize(src: str, dst: str, seed: int = 1) -> None:
    from onnxruntime.quantization import CalibrationDataReader, QuantFormat, QuantType, quantize_static

    class RandomReader(CalibrationDataReader):
        def __init__(self) -> None:
            rng = np.random.default_rng(seed)
            self.feeds = iter([{"input": rng.standard_normal(INPUT_SHAPE).astype(np.float32)} for _ in range(8)])

        def get_next(self):
            return next(self.feeds, None)

    quantize_static(src, dst, RandomReader(), quant_format=QuantFormat.QDQ, per_channel=True,
                    activation_type=QuantType.QInt8, weight_type=QuantType.QInt8)
    strip(dst)


def main() -> None:
    torch, resnet, mobilenet = build_models()
    export(torch, resnet, RESNET)
    export(torch, mobilenet, MOBILENET)
    quantize(RESNET, RESNET_INT8)
    for path in (RESNET, MOBILENET, RESNET_INT8):
        size = os.path.getsize(path)
        print(f"{path}: {size} bytes")
        if size >= 1 << 20:
            sys.exit(f"{path} is larger than 1 MiB")


if __name__ == "__main__":
    main()
