"""Exports the models of the convolution rewrites' tests (run once; the .onnx files are
committed, torch is never a test dependency):

- `deeplab_mini_{dynamo,legacy}`: a strided stem, two dilated bottleneck blocks (3x3
  convolutions with dilation 2 and 4, BatchNorm folded by the exporters), an ASPP head
  (1x1, and 3x3 with dilation 3 and 6, a depthwise 3x3 with dilation 2, a 3x3 with
  dilation 5 and padding 1 whose output is smaller and resized back), a 1x1 projection of
  the concatenation and a bilinear upsampling; input [1, 3, 46, 46], so the 23x23
  feature maps are not whole phases of any of the dilations (tests/test_undilate_convs.py);
- `resnext_mini_legacy`: ResNeXt-style bottlenecks whose 3x3 convolutions are grouped (8,
  4 with stride 2, and 2 groups; BatchNorm folded), an AlexNet-style grouped 3x3 (2
  groups, 32 -> 48 channels), global average pooling and a linear head; input
  [1, 3, 32, 32] (tests/test_split_grouped_convs.py).

    .venv/bin/pip install torch==2.13.0 onnxscript      # into a dev venv, never a test dependency
    .venv/bin/python tests/models/export_dilated_models.py
"""

from __future__ import annotations

import os
import sys
import warnings

import torch
from torch import nn
from torch.nn import functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from export_models import HERE, randomize, strip  # noqa: E402


class DilatedBottleneck(nn.Module):
    def __init__(self, c: int, d: int):
        super().__init__()
        self.reduce = nn.Conv2d(c, c // 2, 1)
        self.dilated = nn.Conv2d(c // 2, c // 2, 3, padding=d, dilation=d, bias=False)
        self.bn = nn.BatchNorm2d(c // 2)
        self.expand = nn.Conv2d(c // 2, c, 1)

    def forward(self, x):
        y = F.relu(self.reduce(x))
        y = F.relu(self.bn(self.dilated(y)))
        return F.relu(x + self.expand(y))


class DeepLabMini(nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = nn.Conv2d(3, 32, 3, stride=2, padding=1)
        self.blocks = nn.Sequential(DilatedBottleneck(32, 2), DilatedBottleneck(32, 4))
        self.aspp = nn.ModuleList([
            nn.Conv2d(32, 16, 1),
            nn.Conv2d(32, 16, 3, padding=3, dilation=3),
            nn.Conv2d(32, 16, 3, padding=6, dilation=6),
            nn.Conv2d(32, 32, 3, padding=2, dilation=2, groups=32),
            nn.Conv2d(32, 16, 3, padding=1, dilation=5),
        ])
        self.project = nn.Conv2d(16 * 4 + 32, 8, 1)

    def forward(self, x):
        x = self.blocks(F.relu(self.stem(x)))
        branches = [F.relu(m(x)) for m in self.aspp]
        branches[-1] = F.interpolate(branches[-1], size=x.shape[2:], mode="nearest")
        y = self.project(torch.cat(branches, 1))
        return F.interpolate(y, scale_factor=2, mode="bilinear", align_corners=False)


class GroupedBottleneck(nn.Module):
    def __init__(self, c: int, groups: int, stride: int = 1):
        super().__init__()
        self.reduce = nn.Conv2d(c, c, 1)
        self.bn1 = nn.BatchNorm2d(c)
        self.grouped = nn.Conv2d(c, c, 3, stride=stride, padding=1, groups=groups, bias=False)
        self.bn2 = nn.BatchNorm2d(c)
        self.expand = nn.Conv2d(c, c, 1)

    def forward(self, x):
        y = F.relu(self.bn1(self.reduce(x)))
        y = self.expand(F.relu(self.bn2(self.grouped(y))))
        return F.relu(x + y) if y.shape == x.shape else F.relu(y)


class ResNeXtMini(nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = nn.Conv2d(3, 32, 3, stride=2, padding=1)
        self.blocks = nn.Sequential(GroupedBottleneck(32, 8), GroupedBottleneck(32, 4, stride=2),
                                    GroupedBottleneck(32, 2))
        self.alex = nn.Conv2d(32, 48, 3, padding=1, groups=2)
        self.head = nn.Linear(48, 10)

    def forward(self, x):
        x = F.relu(self.alex(self.blocks(F.relu(self.stem(x)))))
        return self.head(x.mean((2, 3)))


def main() -> None:
    torch.manual_seed(0)
    model = randomize(DeepLabMini()).eval()
    x = torch.randn(1, 3, 46, 46)
    for kind in ("dynamo", "legacy"):
        path = os.path.join(HERE, f"deeplab_mini_{kind}.onnx")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            torch.onnx.export(model, (x,), path, dynamo=kind == "dynamo", opset_version=18,
                              input_names=["x"], output_names=["out"],
                              **({"external_data": False} if kind == "dynamo" else {}))
        strip(path)
        print(f"{path}: {os.path.getsize(path)} bytes")
    torch.manual_seed(0)
    model = randomize(ResNeXtMini()).eval()
    path = os.path.join(HERE, "resnext_mini_legacy.onnx")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(model, (torch.randn(1, 3, 32, 32),), path, dynamo=False, opset_version=17,
                          input_names=["x"], output_names=["out"])
    strip(path)
    print(f"{path}: {os.path.getsize(path)} bytes")


if __name__ == "__main__":
    main()
