"""Exports the small real-architecture models of tests/test_onnx_models.py (run once; the
.onnx files are committed, so the tests need neither torch nor this script).

    .venv/bin/pip install torch==2.13.0 onnxscript      # into a dev venv, never a test dependency
    .venv/bin/python tests/models/export_models.py

Each architecture is written by hand (torchvision cannot be used) with seeded random
weights (BatchNorm statistics randomized too, so that folding them is not a no-op), and
exported in eval mode by both exporters where they work:
  - the dynamo exporter (`dynamo=True`, opset 20, one file: `external_data=False`);
  - the legacy TorchScript exporter (`dynamo=False`, opset 17).
Node metadata (FX stack traces with absolute paths) and doc strings are stripped.
"""

from __future__ import annotations

import os
import warnings

import onnx
import torch
from torch import nn

HERE = os.path.dirname(os.path.abspath(__file__))


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


class TinyResNet(nn.Module):
    """A residual CNN: stem, max pool, three basic blocks, global pool, linear."""

    def __init__(self, width: int = 8, classes: int = 10):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, width, 3, 1, 1, bias=False), nn.BatchNorm2d(width), nn.ReLU())
        self.pool = nn.MaxPool2d(3, 2, 1)
        self.layers = nn.Sequential(BasicBlock(width, width, 1), BasicBlock(width, 2 * width, 2),
                                    BasicBlock(2 * width, 4 * width, 2))
        self.head = nn.Linear(4 * width, classes)

    def forward(self, x):
        y = self.layers(self.pool(self.stem(x)))
        return self.head(torch.flatten(nn.functional.adaptive_avg_pool2d(y, 1), 1))


class SqueezeExcite(nn.Module):
    def __init__(self, c: int, r: int = 4):
        super().__init__()
        self.fc1 = nn.Conv2d(c, c // r, 1)
        self.fc2 = nn.Conv2d(c // r, c, 1)

    def forward(self, x):
        s = nn.functional.adaptive_avg_pool2d(x, 1)
        return x * nn.functional.hardsigmoid(self.fc2(torch.relu(self.fc1(s))))


class InvertedResidual(nn.Module):
    def __init__(self, cin: int, cout: int, stride: int, expand: int, se: bool):
        super().__init__()
        mid = cin * expand
        layers = [nn.Conv2d(cin, mid, 1, bias=False), nn.BatchNorm2d(mid), nn.ReLU6(),
                  nn.Conv2d(mid, mid, 3, stride, 1, groups=mid, bias=False), nn.BatchNorm2d(mid), nn.Hardswish()]
        if se:
            layers.append(SqueezeExcite(mid))
        layers += [nn.Conv2d(mid, cout, 1, bias=False), nn.BatchNorm2d(cout)]
        self.body = nn.Sequential(*layers)
        self.residual = stride == 1 and cin == cout

    def forward(self, x):
        y = self.body(x)
        return x + y if self.residual else y


class TinyMobileNet(nn.Module):
    """A depthwise-separable CNN in the MobileNetV2/V3 style (ReLU6, hardswish, SE)."""

    def __init__(self, classes: int = 10):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 16, 3, 2, 1, bias=False), nn.BatchNorm2d(16), nn.ReLU6())
        self.blocks = nn.Sequential(InvertedResidual(16, 16, 1, 2, False), InvertedResidual(16, 24, 2, 3, True),
                                    InvertedResidual(24, 24, 1, 3, True))
        self.tail = nn.Sequential(nn.Conv2d(24, 64, 1), nn.Hardswish())
        self.head = nn.Linear(64, classes)

    def forward(self, x):
        y = self.tail(self.blocks(self.stem(x)))
        return self.head(torch.flatten(nn.functional.adaptive_avg_pool2d(y, 1), 1))


class EncoderBlock(nn.Module):
    """A pre-LN transformer encoder block with separate q/k/v projections and GELU."""

    def __init__(self, d: int = 32, heads: int = 4, ff: int = 64):
        super().__init__()
        self.heads, self.dh = heads, d // heads
        self.ln1, self.ln2 = nn.LayerNorm(d), nn.LayerNorm(d)
        self.q, self.k, self.v, self.o = (nn.Linear(d, d) for _ in range(4))
        self.ff1, self.ff2 = nn.Linear(d, ff), nn.Linear(ff, d)

    def split(self, t):
        b, s, _ = t.shape
        return t.reshape(b, s, self.heads, self.dh).transpose(1, 2)

    def forward(self, x):
        b, s, d = x.shape
        h = self.ln1(x)
        q, k, v = self.split(self.q(h)), self.split(self.k(h)), self.split(self.v(h))
        att = torch.softmax(q @ k.transpose(-2, -1) / self.dh ** 0.5, dim=-1)
        y = (att @ v).transpose(1, 2).reshape(b, s, d)
        x = x + self.o(y)
        return x + self.ff2(nn.functional.gelu(self.ff1(self.ln2(x))))


def randomize(model: nn.Module) -> nn.Module:
    for m in model.modules():
        if isinstance(m, (nn.BatchNorm2d, nn.LayerNorm)):
            with torch.no_grad():
                m.weight.uniform_(0.5, 1.5)
                m.bias.uniform_(-0.2, 0.2)
                if isinstance(m, nn.BatchNorm2d):
                    m.running_mean.uniform_(-0.2, 0.2)
                    m.running_var.uniform_(0.5, 1.5)
    return model.eval()


def strip(path: str) -> None:
    m = onnx.load(path)
    m.doc_string = ""
    del m.metadata_props[:]
    m.graph.doc_string = ""
    for n in m.graph.node:
        n.doc_string = ""
        del n.metadata_props[:]
    for f in m.functions:
        for n in f.node:
            n.doc_string = ""
            del n.metadata_props[:]
    onnx.checker.check_model(m, full_check=True)
    onnx.save(m, path)


def export(model: nn.Module, example: torch.Tensor, name: str, **legacy_kw) -> None:
    for kind in ("dynamo", "legacy"):
        path = os.path.join(HERE, f"{name}_{kind}.onnx")
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                if kind == "dynamo":
                    torch.onnx.export(model, (example,), path, dynamo=True, external_data=False,
                                      input_names=["input"], output_names=["output"], opset_version=20)
                else:
                    torch.onnx.export(model, (example,), path, dynamo=False, opset_version=17,
                                      input_names=["input"], output_names=["output"], **legacy_kw)
        except Exception as e:  # report and go on: not every exporter handles every model
            print(f"{name} ({kind}): export failed: {type(e).__name__}: {str(e).splitlines()[0]}")
            continue
        strip(path)
        print(f"{path}: {os.path.getsize(path)} bytes")


def main() -> None:
    torch.manual_seed(0)
    export(randomize(TinyResNet()), torch.randn(1, 3, 32, 32), "resnet")
    # The legacy exporter keeps BatchNormalization nodes without constant folding.
    export(randomize(TinyMobileNet()), torch.randn(1, 3, 32, 32), "mobilenet", do_constant_folding=False)
    export(randomize(EncoderBlock()), torch.randn(1, 8, 32), "encoder")


if __name__ == "__main__":
    main()
