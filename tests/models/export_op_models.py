"""Exports the real-architecture models of tests/test_op_models.py: one per ONNX op the
importer gained for them (Resize, LSTM/GRU, DepthToSpace, ConvTranspose), as users'
models contain them. Run once; the .onnx files are committed.

    .venv/bin/pip install torch==2.13.0 onnxscript      # into a dev venv, never a test dependency
    .venv/bin/python tests/models/export_op_models.py [ARCH ...]

Written by hand with seeded random weights and exported in eval mode by both exporters
(see export_models.py, whose helpers this uses).
"""

from __future__ import annotations

import os
import sys

import torch
from torch import nn
from torch.nn import functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from export_models import export, randomize  # noqa: E402


def conv_bn(cin: int, cout: int, k: int = 3, s: int = 1, act: nn.Module | None = None) -> nn.Sequential:
    return nn.Sequential(nn.Conv2d(cin, cout, k, s, k // 2, bias=False), nn.BatchNorm2d(cout),
                         act if act is not None else nn.SiLU())


class YoloStyle(nn.Module):
    """A YOLOv5-style detector: strided SiLU conv backbone, an FPN neck that upsamples
    (nearest, Resize) and concatenates, and two 1x1 detection heads."""

    def __init__(self, w: int = 8, outputs: int = 3 * 7):
        super().__init__()
        self.stem = conv_bn(3, w, 3, 2)
        self.c2 = conv_bn(w, 2 * w, 3, 2)
        self.c3 = conv_bn(2 * w, 4 * w, 3, 2)
        self.c4 = conv_bn(4 * w, 4 * w, 3, 2)
        self.lateral = conv_bn(4 * w, 2 * w, 1)
        self.fuse = conv_bn(6 * w, 4 * w, 3)
        self.head_small = nn.Conv2d(4 * w, outputs, 1)
        self.head_large = nn.Conv2d(4 * w, outputs, 1)
        self.up = nn.Upsample(scale_factor=2, mode="nearest")

    def forward(self, x):
        p3 = self.c3(self.c2(self.stem(x)))
        p4 = self.c4(p3)
        up = self.up(self.lateral(p4))
        fused = self.fuse(torch.cat([up, p3], 1))
        return self.head_large(fused), self.head_small(p4)


class SegmentationHead(nn.Module):
    """An FCN-style segmenter: a strided backbone, then a bilinear resize back to the input
    size (align_corners=False: half_pixel)."""

    def __init__(self, w: int = 8, classes: int = 5):
        super().__init__()
        self.body = nn.Sequential(conv_bn(3, w, 3, 2, nn.ReLU()), conv_bn(w, 2 * w, 3, 2, nn.ReLU()),
                                  nn.Conv2d(2 * w, classes, 1))

    def forward(self, x):
        return F.interpolate(self.body(x), size=x.shape[-2:], mode="bilinear", align_corners=False)


class CRNN(nn.Module):
    """A text recognizer: conv features of a 32x64 line image, columns as time steps
    through a bidirectional LSTM, a per-step classifier with log-softmax."""

    def __init__(self, w: int = 8, hidden: int = 16, classes: int = 11, rnn: str = "lstm"):
        super().__init__()
        self.cnn = nn.Sequential(conv_bn(1, w, 3, 1, nn.ReLU()), nn.MaxPool2d(2), conv_bn(w, 2 * w, 3, 1, nn.ReLU()),
                                 nn.MaxPool2d(2), conv_bn(2 * w, 2 * w, 3, 1, nn.ReLU()), nn.MaxPool2d((2, 1)))
        cls = nn.LSTM if rnn == "lstm" else nn.GRU
        self.rnn = cls(2 * w * 4, hidden, bidirectional=True)
        self.fc = nn.Linear(2 * hidden, classes)

    def forward(self, x):
        f = self.cnn(x)  # [1, C, 4, T]
        b, c, h, t = f.shape
        seq = f.reshape(b, c * h, t).permute(2, 0, 1)  # [T, 1, C*H]
        y, _ = self.rnn(seq)
        return F.log_softmax(self.fc(y), dim=-1)


class ESPCN(nn.Module):
    """Sub-pixel super-resolution (Shi et al. 2016): tanh convolutions then PixelShuffle
    (DepthToSpace) by 3."""

    def __init__(self, scale: int = 3):
        super().__init__()
        self.body = nn.Sequential(nn.Conv2d(1, 16, 5, 1, 2), nn.Tanh(), nn.Conv2d(16, 8, 3, 1, 1), nn.Tanh(),
                                  nn.Conv2d(8, scale * scale, 3, 1, 1))
        self.shuffle = nn.PixelShuffle(scale)

    def forward(self, x):
        return self.shuffle(self.body(x))


class ConvDecoder(nn.Module):
    """A convolutional autoencoder: strided conv encoder, ConvTranspose2d decoder
    (kernel 4, stride 2, padding 1, as DCGAN), sigmoid output."""

    def __init__(self, w: int = 8):
        super().__init__()
        self.enc = nn.Sequential(conv_bn(3, w, 3, 2, nn.ReLU()), conv_bn(w, 2 * w, 3, 2, nn.ReLU()))
        self.dec = nn.Sequential(nn.ConvTranspose2d(2 * w, w, 4, 2, 1, bias=False), nn.BatchNorm2d(w), nn.ReLU(),
                                 nn.ConvTranspose2d(w, 3, 4, 2, 1), nn.Sigmoid())

    def forward(self, x):
        return self.dec(self.enc(x))


ARCHS = {
    "yolo": lambda: (YoloStyle(), torch.randn(1, 3, 64, 64)),
    "segment": lambda: (SegmentationHead(), torch.randn(1, 3, 32, 32)),
    "crnn": lambda: (CRNN(), torch.randn(1, 1, 32, 64)),
    "crnn_gru": lambda: (CRNN(rnn="gru"), torch.randn(1, 1, 32, 64)),
    "espcn": lambda: (ESPCN(), torch.randn(1, 1, 24, 24)),
    "decoder": lambda: (ConvDecoder(), torch.randn(1, 3, 32, 32)),
}


def main(only: set[str]) -> None:
    for name, build in ARCHS.items():
        if only and name not in only:
            continue
        torch.manual_seed(0)
        model, example = build()
        export(randomize(model).eval(), example, name)


if __name__ == "__main__":
    main(set(sys.argv[1:]))
