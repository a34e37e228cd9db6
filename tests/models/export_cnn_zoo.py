"""Exports the CNN zoo: networks of the kinds users deploy on small NPUs, with seeded random
weights, used by tests/test_cnn_zoo.py and bench/dma.py (run once; the .onnx files are
committed, so neither the tests nor the bench need torch). int8 versions are made at use
time by tests/e2e_util.quantize_qdq (not committed).

    python3 -m venv /tmp/torch-venv && /tmp/torch-venv/bin/pip install torch==2.13.0 onnx onnxscript numpy
    /tmp/torch-venv/bin/python tests/models/export_cnn_zoo.py

MLPerf Tiny's four (their reference architectures, at full width):

- `zoo_dscnn_kws`: DS-CNN keyword spotting on 1x1x49x10 MFCCs: a 10x4/2 convolution to 64
  channels (padding 5x1: 25x5 out, as the reference's 'same' padding gives), four depthwise-separable
  blocks (3x3 depthwise + 1x1 pointwise, 64 channels, BatchNorm + ReLU each), global
  average pool, 12 classes.
- `zoo_resnet8`: ResNet-8 image classification on 1x3x32x32: a 3x3 stem to 16 channels and
  three residual stacks (16, 32/2, 64/2; 1x1 projections where the shape changes), global
  average pool, 10 classes.
- `zoo_mobilenetv1_vww`: MobileNetV1 with width 0.25 for visual wake words on 1x3x96x96:
  a 3x3/2 stem to 8 channels, 13 depthwise-separable blocks to 256 channels, global average
  pool, 2 classes.
- `zoo_autoencoder`: the anomaly-detection FC autoencoder on 1x640: 640 -> 128 x 4 -> 8 ->
  128 x 4 -> 640, each hidden layer Linear + BatchNorm1d + ReLU.

Others:

- `zoo_mobilenetv2_96`: MobileNetV2 (torchvision's layout: 17 inverted residuals, ReLU6)
  at width 0.35 on 1x3x96x96, last 1x1 at 448 channels (not 1280: the full head alone
  would be 2.3 MB of weights), 10 classes.
- `zoo_mobilenetv2_224`: the same network on 1x3x224x224 at width 0.25 (last 1x1 at 320),
  10 classes.
- `zoo_squeezenet`: SqueezeNet 1.1 (torchvision's layout, ceil-mode max pools, eight fire
  modules, dropout dropped in eval) on 1x3x224x224 at full width, 10 classes (1000 classes
  would put 2 MB into the final 1x1 convolution and the file over 3 MB).
- `zoo_inception`: an Inception-v1-style CNN with BatchNorm after every convolution on
  1x3x64x64: a 3x3/2 stem to 32 channels, a 3x3/2 max pool, three inception blocks
  (1x1; 1x1 -> 3x3; 1x1 -> 5x5; 3x3 max pool -> 1x1; concatenated) with a 3x3/2 max pool
  after the second, global average pool, 10 classes.

Weights are seeded random numbers (BatchNorm statistics randomized, so that folding them
is not a no-op). Export: the legacy TorchScript exporter (`dynamo=False`, opset 17,
constant folding on, so BatchNorm after a convolution is folded into it; a BatchNorm1d
after a Linear stays a BatchNormalization node), eval mode, node metadata and doc strings
stripped. Each file stays under 3 MB.
"""

from __future__ import annotations

import os
import sys
import warnings

import onnx

HERE = os.path.dirname(os.path.abspath(__file__))

INPUT_SHAPES: dict[str, tuple[int, ...]] = {
    "zoo_dscnn_kws": (1, 1, 49, 10),
    "zoo_resnet8": (1, 3, 32, 32),
    "zoo_mobilenetv1_vww": (1, 3, 96, 96),
    "zoo_autoencoder": (1, 640),
    "zoo_mobilenetv2_96": (1, 3, 96, 96),
    "zoo_mobilenetv2_224": (1, 3, 224, 224),
    "zoo_squeezenet": (1, 3, 224, 224),
    "zoo_inception": (1, 3, 64, 64),
}
MAX_BYTES = 3_000_000

INT8_DRIFT_STEPS: dict[str, dict[str, int]] = {
    "npu": {
        "zoo_mobilenetv1_vww": 16,  # 27 requantized layers: 1 step off from the 5th (a tie), 13 at the output
        "zoo_mobilenetv2_96": 10,  # 52 layers and 10 residual adds: 8 at the output
        "zoo_mobilenetv2_224": 4,  # 3 at the output
    },
    "dnnl": {
        "zoo_mobilenetv1_vww": 16,  # 0 at the output (no tie breaks the other way); the npu's bound
        "zoo_mobilenetv2_96": 10,  # one tie of 0.56 M values (the 6th layer), 8 at the output
        "zoo_mobilenetv2_224": 6,  # four ties of 2.5 M values, 4 at the output
    },
}
"""How far (in quantization steps of the output) the int8 builds of these models are from
the Q/DQ reference, per target (measured; every other model stays within one step). The
reference convolves dequantized values in float32 and rounds each layer's result once:
where that sum falls within a float32 rounding error of a tie (k + 1/2 steps), another
exact or float32 sum may round it to the other side, a step off, and through the
MobileNets' deep chains (a depthwise 3x3 then a 1x1 projection per block, requantized
after each) such a step grows: one flipped value of 0.56 M becomes 8 steps of
zoo_mobilenetv2_96's output, one of 0.26 M 13 of zoo_mobilenetv1_vww's (npu).
- npu: sums a quantized convolution exactly in int32 and requantizes once.
- dnnl: computes in float32 like the reference (tests/test_dnnl.py), in oneDNN's
  summation order (its kernels' blocking, so it depends on the CPU's ISA: measured with
  the AVX2 kernels of oneDNN 2.6.3); each layer recomputed by onnxruntime from the dnnl
  build's own int8 inputs differs only at such ties (tests/test_cnn_zoo.py). Where
  nothing flipped here (vww) the bound is the npu's, what the network makes of a flip."""


def path_of(name: str) -> str:
    return os.path.join(HERE, f"{name}.onnx")


def build_models():
    import torch
    from torch import nn

    def conv_bn(cin: int, cout: int, k, stride=1, padding=0, groups: int = 1, act=nn.ReLU):
        return nn.Sequential(nn.Conv2d(cin, cout, k, stride, padding, groups=groups, bias=False),
                             nn.BatchNorm2d(cout), act())

    def separable(cin: int, cout: int, stride: int):
        return nn.Sequential(conv_bn(cin, cin, 3, stride, 1, groups=cin), conv_bn(cin, cout, 1))

    class Head(nn.Module):
        def __init__(self, features: nn.Module, channels: int, classes: int):
            super().__init__()
            self.features = features
            self.fc = nn.Linear(channels, classes)

        def forward(self, x):
            return self.fc(torch.flatten(nn.functional.adaptive_avg_pool2d(self.features(x), 1), 1))

    # -- MLPerf Tiny ------------------------------------------------------------------

    def dscnn():
        layers = [conv_bn(1, 64, (10, 4), 2, (5, 1))]
        layers += [separable(64, 64, 1) for _ in range(4)]
        return Head(nn.Sequential(*layers), 64, 12)

    class ResidualStack(nn.Module):
        def __init__(self, cin: int, cout: int, stride: int):
            super().__init__()
            self.conv1 = conv_bn(cin, cout, 3, stride, 1)
            self.conv2 = nn.Sequential(nn.Conv2d(cout, cout, 3, 1, 1, bias=False), nn.BatchNorm2d(cout))
            self.shortcut = nn.Identity()
            if stride != 1 or cin != cout:
                self.shortcut = nn.Conv2d(cin, cout, 1, stride)

        def forward(self, x):
            return torch.relu(self.conv2(self.conv1(x)) + self.shortcut(x))

    def resnet8():
        return Head(nn.Sequential(conv_bn(3, 16, 3, 1, 1), ResidualStack(16, 16, 1), ResidualStack(16, 32, 2),
                                  ResidualStack(32, 64, 2)), 64, 10)

    def mobilenet_v1(width: float = 0.25, classes: int = 2):
        def c(n: int) -> int:
            return int(n * width)

        plan = [(64, 1), (128, 2), (128, 1), (256, 2), (256, 1), (512, 2), *[(512, 1)] * 5, (1024, 2), (1024, 1)]
        layers = [conv_bn(3, c(32), 3, 2, 1)]
        cin = c(32)
        for cout, stride in plan:
            layers.append(separable(cin, c(cout), stride))
            cin = c(cout)
        return Head(nn.Sequential(*layers), cin, classes)

    class AutoEncoder(nn.Module):
        def __init__(self):
            super().__init__()
            sizes = [640, 128, 128, 128, 128, 8, 128, 128, 128, 128]
            self.hidden = nn.Sequential(*[nn.Sequential(nn.Linear(a, b), nn.BatchNorm1d(b), nn.ReLU())
                                          for a, b in zip(sizes, sizes[1:])])
            self.out = nn.Linear(128, 640)

        def forward(self, x):
            return self.out(self.hidden(x))

    # -- MobileNetV2, SqueezeNet 1.1, Inception -----------------------------------------

    class InvertedResidual(nn.Module):
        def __init__(self, cin: int, cout: int, stride: int, expand: int):
            super().__init__()
            mid = cin * expand
            layers = [conv_bn(cin, mid, 1, act=nn.ReLU6)] if expand != 1 else []
            layers += [conv_bn(mid, mid, 3, stride, 1, groups=mid, act=nn.ReLU6),
                       nn.Conv2d(mid, cout, 1, bias=False), nn.BatchNorm2d(cout)]
            self.body = nn.Sequential(*layers)
            self.residual = stride == 1 and cin == cout

        def forward(self, x):
            return x + self.body(x) if self.residual else self.body(x)

    def divisible(v: float, d: int = 8) -> int:
        new = max(d, int(v + d / 2) // d * d)
        return new + d if new < 0.9 * v else new

    def mobilenet_v2(width: float, last: int, classes: int = 10):
        settings = [(1, 16, 1, 1), (6, 24, 2, 2), (6, 32, 3, 2), (6, 64, 4, 2), (6, 96, 3, 1), (6, 160, 3, 2),
                    (6, 320, 1, 1)]
        cin = divisible(32 * width)
        layers = [conv_bn(3, cin, 3, 2, 1, act=nn.ReLU6)]
        for t, c, n, s in settings:
            cout = divisible(c * width)
            for i in range(n):
                layers.append(InvertedResidual(cin, cout, s if i == 0 else 1, t))
                cin = cout
        layers.append(conv_bn(cin, last, 1, act=nn.ReLU6))
        return Head(nn.Sequential(*layers), last, classes)

    class Fire(nn.Module):
        def __init__(self, cin: int, squeeze: int, expand: int):
            super().__init__()
            self.squeeze = nn.Conv2d(cin, squeeze, 1)
            self.expand1 = nn.Conv2d(squeeze, expand, 1)
            self.expand3 = nn.Conv2d(squeeze, expand, 3, padding=1)

        def forward(self, x):
            s = torch.relu(self.squeeze(x))
            return torch.cat([torch.relu(self.expand1(s)), torch.relu(self.expand3(s))], 1)

    class SqueezeNet11(nn.Module):
        def __init__(self, classes: int = 10):
            super().__init__()

            def pool():
                return nn.MaxPool2d(3, 2, ceil_mode=True)

            self.features = nn.Sequential(
                nn.Conv2d(3, 64, 3, 2), nn.ReLU(), pool(), Fire(64, 16, 64), Fire(128, 16, 64), pool(),
                Fire(128, 32, 128), Fire(256, 32, 128), pool(), Fire(256, 48, 192), Fire(384, 48, 192),
                Fire(384, 64, 256), Fire(512, 64, 256))
            self.classifier = nn.Sequential(nn.Dropout(0.5), nn.Conv2d(512, classes, 1), nn.ReLU())

        def forward(self, x):
            y = self.classifier(self.features(x))
            return torch.flatten(nn.functional.adaptive_avg_pool2d(y, 1), 1)

    class InceptionBlock(nn.Module):
        def __init__(self, cin: int, c1: int, r3: int, c3: int, r5: int, c5: int, pp: int):
            super().__init__()
            self.b1 = conv_bn(cin, c1, 1)
            self.b3 = nn.Sequential(conv_bn(cin, r3, 1), conv_bn(r3, c3, 3, 1, 1))
            self.b5 = nn.Sequential(conv_bn(cin, r5, 1), conv_bn(r5, c5, 5, 1, 2))
            self.bp = nn.Sequential(nn.MaxPool2d(3, 1, 1), conv_bn(cin, pp, 1))

        def forward(self, x):
            return torch.cat([self.b1(x), self.b3(x), self.b5(x), self.bp(x)], 1)

    def inception():
        features = nn.Sequential(
            conv_bn(3, 32, 3, 2, 1), nn.MaxPool2d(3, 2, 1),
            InceptionBlock(32, 16, 24, 32, 4, 8, 8),   # -> 64 channels, 16x16
            InceptionBlock(64, 32, 32, 48, 8, 24, 16),  # -> 120
            nn.MaxPool2d(3, 2, 1),
            InceptionBlock(120, 48, 24, 52, 4, 12, 16))  # -> 128, 8x8
        return Head(features, 128, 10)

    return {
        "zoo_dscnn_kws": dscnn(),
        "zoo_resnet8": resnet8(),
        "zoo_mobilenetv1_vww": mobilenet_v1(),
        "zoo_autoencoder": AutoEncoder(),
        "zoo_mobilenetv2_96": mobilenet_v2(0.35, 448),
        "zoo_mobilenetv2_224": mobilenet_v2(0.25, 320),
        "zoo_squeezenet": SqueezeNet11(),
        "zoo_inception": inception(),
    }


def randomize(model, seed: int) -> None:
    """Seeded weights scaled to keep activations O(1); BatchNorm statistics and affine
    parameters random so that folding them changes the weights."""
    import torch
    from torch import nn

    g = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for m in model.modules():
            if isinstance(m, (nn.Conv2d, nn.Linear)):
                fan_in = m.weight[0].numel()
                m.weight.copy_(torch.randn(m.weight.shape, generator=g) * (2.0 / fan_in) ** 0.5)
                if m.bias is not None:
                    m.bias.copy_(torch.randn(m.bias.shape, generator=g) * 0.1)
            elif isinstance(m, (nn.BatchNorm1d, nn.BatchNorm2d)):
                n = m.num_features
                m.running_mean.copy_(torch.randn(n, generator=g) * 0.1)
                m.running_var.copy_(torch.rand(n, generator=g) * 0.5 + 0.75)
                m.weight.copy_(torch.rand(n, generator=g) * 0.5 + 0.75)
                m.bias.copy_(torch.randn(n, generator=g) * 0.1)
    model.eval()


def strip(path: str) -> None:
    m = onnx.load(path)
    m.doc_string = ""
    m.graph.doc_string = ""
    for n in m.graph.node:
        n.doc_string = ""
        del n.metadata_props[:]
    del m.metadata_props[:]
    onnx.checker.check_model(m, full_check=True)
    onnx.save(m, path)


def export(name: str, model, path: str) -> None:
    import torch

    x = torch.randn(INPUT_SHAPES[name], generator=torch.Generator().manual_seed(1))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(model, (x,), path, dynamo=False, opset_version=17, do_constant_folding=True,
                          input_names=["input"], output_names=["output"])
    strip(path)
    size = os.path.getsize(path)
    if size >= MAX_BYTES:
        raise SystemExit(f"{path}: {size} bytes, over the {MAX_BYTES} limit: reduce the width")


def main(argv: list[str]) -> int:
    only = set(argv[1:])
    models = build_models()
    for seed, (name, model) in enumerate(models.items()):
        if only and name not in only:
            continue
        randomize(model, seed)
        export(name, model, path_of(name))
        print(f"{name}: {os.path.getsize(path_of(name))} bytes, input {INPUT_SHAPES[name]}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
