"""Exports the small real-architecture models of tests/test_onnx_models.py (run once; the
.onnx files are committed, so the tests need neither torch nor this script).

    .venv/bin/pip install torch==2.13.0 onnxscript networkx  # into a dev venv, never a test dependency
                                                            # (the dynamo exporter needs networkx)
    .venv/bin/python tests/models/export_models.py [ARCH ...]    # e.g. gpt2 llama (default: all)

Each architecture is written by hand (torchvision cannot be used) with seeded random
weights (BatchNorm statistics randomized too, so that folding them is not a no-op), and
exported in eval mode by both exporters where they work:
  - the dynamo exporter (`dynamo=True`, opset 20, one file: `external_data=False`);
  - the legacy TorchScript exporter (`dynamo=False`, opset 17).
Node metadata (FX stack traces with absolute paths) and doc strings are stripped.
"""

from __future__ import annotations

import math
import os
import sys
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


# --------------------------------------------------------------------------------------
# Transformers and an MLP of our own (tests/test_transformer_models.py)
# --------------------------------------------------------------------------------------


class CausalSelfAttention(nn.Module):
    """GPT-2 attention: one fused qkv projection, a causal mask filled with -inf."""

    def __init__(self, d: int, heads: int, seq: int):
        super().__init__()
        self.heads, self.dh = heads, d // heads
        self.qkv, self.proj = nn.Linear(d, 3 * d), nn.Linear(d, d)
        self.register_buffer("mask", torch.tril(torch.ones(seq, seq)).view(1, 1, seq, seq))

    def forward(self, x):
        b, s, d = x.shape
        q, k, v = self.qkv(x).split(d, dim=2)
        q, k, v = (t.view(b, s, self.heads, self.dh).transpose(1, 2) for t in (q, k, v))
        att = (q @ k.transpose(-2, -1)) * (1.0 / self.dh ** 0.5)
        att = att.masked_fill(self.mask[:, :, :s, :s] == 0, float("-inf"))
        y = torch.softmax(att, dim=-1) @ v
        return self.proj(y.transpose(1, 2).reshape(b, s, d))


class GPT2Block(nn.Module):
    def __init__(self, d: int, heads: int, seq: int):
        super().__init__()
        self.ln1, self.ln2 = nn.LayerNorm(d), nn.LayerNorm(d)
        self.attn = CausalSelfAttention(d, heads, seq)
        self.fc, self.out = nn.Linear(d, 4 * d), nn.Linear(4 * d, d)

    def forward(self, x):
        x = x + self.attn(self.ln1(x))
        return x + self.out(nn.functional.gelu(self.fc(self.ln2(x)), approximate="tanh"))


class TinyGPT2(nn.Module):
    """A GPT-2-style decoder: token and position embeddings, 2 pre-LN blocks with a causal
    mask and tanh-GELU, final LayerNorm, LM head. Input: token ids [1, seq] (int64)."""

    def __init__(self, vocab: int = 64, d: int = 32, heads: int = 4, seq: int = 16, layers: int = 2):
        super().__init__()
        self.wte, self.wpe = nn.Embedding(vocab, d), nn.Embedding(seq, d)
        self.blocks = nn.Sequential(*(GPT2Block(d, heads, seq) for _ in range(layers)))
        self.ln_f, self.head = nn.LayerNorm(d), nn.Linear(d, vocab, bias=False)

    def forward(self, ids):
        pos = torch.arange(ids.shape[1], dtype=torch.long).unsqueeze(0)
        return self.head(self.ln_f(self.blocks(self.wte(ids) + self.wpe(pos))))


class RMSNorm(nn.Module):
    def __init__(self, d: int, eps: float = 1e-6):
        super().__init__()
        self.eps, self.weight = eps, nn.Parameter(torch.ones(d))

    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * self.weight


def rotate_half(x):
    half = x.shape[-1] // 2
    return torch.cat((-x[..., half:], x[..., :half]), dim=-1)


class LlamaBlock(nn.Module):
    """A LLaMA-style block: RMSNorm, rotary position embeddings on q and k, causal
    attention, SwiGLU feed-forward (silu(x W1) * x W3) W2, no biases. Input [1, seq, d]."""

    def __init__(self, d: int = 32, heads: int = 4, seq: int = 16, ff: int = 64):
        super().__init__()
        self.heads, self.dh = heads, d // heads
        self.norm1, self.norm2 = RMSNorm(d), RMSNorm(d)
        self.q, self.k, self.v, self.o = (nn.Linear(d, d, bias=False) for _ in range(4))
        self.w1, self.w3 = nn.Linear(d, ff, bias=False), nn.Linear(d, ff, bias=False)
        self.w2 = nn.Linear(ff, d, bias=False)
        inv = 1.0 / (10000 ** (torch.arange(0, self.dh, 2).float() / self.dh))
        freqs = torch.outer(torch.arange(seq).float(), inv)
        emb = torch.cat((freqs, freqs), dim=-1)
        self.register_buffer("cos", emb.cos()[None, None])
        self.register_buffer("sin", emb.sin()[None, None])
        self.register_buffer("mask", torch.triu(torch.full((seq, seq), float("-inf")), diagonal=1))

    def forward(self, x):
        b, s, d = x.shape
        h = self.norm1(x)
        q, k, v = (p(h).view(b, s, self.heads, self.dh).transpose(1, 2) for p in (self.q, self.k, self.v))
        q = q * self.cos + rotate_half(q) * self.sin
        k = k * self.cos + rotate_half(k) * self.sin
        att = torch.softmax(q @ k.transpose(-2, -1) / self.dh ** 0.5 + self.mask, dim=-1)
        x = x + self.o((att @ v).transpose(1, 2).reshape(b, s, d))
        h = self.norm2(x)
        return x + self.w2(nn.functional.silu(self.w1(h)) * self.w3(h))


class TinyViT(nn.Module):
    """A ViT: 4x4 patch convolution, class token, position embeddings, 2 encoder blocks
    (EncoderBlock), final LayerNorm, classifier on the class token. Input [1, 3, 16, 16]."""

    def __init__(self, d: int = 32, patch: int = 4, image: int = 16, classes: int = 10, layers: int = 2):
        super().__init__()
        n = (image // patch) ** 2
        self.patch = nn.Conv2d(3, d, patch, patch)
        self.cls = nn.Parameter(torch.randn(1, 1, d) * 0.02)
        self.pos = nn.Parameter(torch.randn(1, n + 1, d) * 0.02)
        self.blocks = nn.Sequential(*(EncoderBlock(d, 4, 2 * d) for _ in range(layers)))
        self.norm, self.head = nn.LayerNorm(d), nn.Linear(d, classes)

    def forward(self, x):
        t = self.patch(x).flatten(2).transpose(1, 2)
        t = torch.cat((self.cls.expand(t.shape[0], -1, -1), t), dim=1) + self.pos
        return self.head(self.norm(self.blocks(t))[:, 0])


class KerasMLP(nn.Module):
    """A Keras-style MLP: weights stored [in, out] (x @ W + b), ReLU between layers."""

    def __init__(self, sizes=(32, 64, 64, 10)):
        super().__init__()
        self.ws = nn.ParameterList(nn.Parameter(torch.randn(a, b) / a ** 0.5) for a, b in zip(sizes, sizes[1:]))
        self.bs = nn.ParameterList(nn.Parameter(torch.randn(b) * 0.1) for b in sizes[1:])

    def forward(self, x):
        for i, (w, b) in enumerate(zip(self.ws, self.bs)):
            x = torch.matmul(x, w) + b
            if i < len(self.ws) - 1:
                x = torch.relu(x)
        return x


class EagerCausalAttention(nn.Module):
    """Hugging Face's eager GPT-2 attention: the causal mask a boolean buffer selecting
    `finfo.min` (not -inf), the padding mask added after it, then softmax."""

    def __init__(self, d: int, heads: int, seq: int):
        super().__init__()
        self.heads, self.dh = heads, d // heads
        self.c_attn, self.c_proj = nn.Linear(d, 3 * d), nn.Linear(d, d)
        self.register_buffer("bias", torch.tril(torch.ones(seq, seq, dtype=torch.bool)).view(1, 1, seq, seq))

    def forward(self, x, additive_mask):
        b, s, d = x.shape
        q, k, v = self.c_attn(x).split(d, dim=2)
        q, k, v = (t.view(b, s, self.heads, self.dh).transpose(1, 2) for t in (q, k, v))
        w = torch.matmul(q, k.transpose(-1, -2)) / self.dh ** 0.5
        lowest = torch.full([], torch.finfo(w.dtype).min, dtype=w.dtype)
        w = torch.where(self.bias[:, :, :s, :s], w, lowest) + additive_mask
        y = torch.matmul(torch.softmax(w, dim=-1), v)
        return self.c_proj(y.transpose(1, 2).reshape(b, s, d))


class EagerGPT2Block(nn.Module):
    def __init__(self, d: int, heads: int, seq: int):
        super().__init__()
        self.ln_1, self.ln_2 = nn.LayerNorm(d), nn.LayerNorm(d)
        self.attn = EagerCausalAttention(d, heads, seq)
        self.c_fc, self.c_proj = nn.Linear(d, 4 * d), nn.Linear(4 * d, d)

    def forward(self, x, additive_mask):
        x = x + self.attn(self.ln_1(x), additive_mask)
        return x + self.c_proj(nn.functional.gelu(self.c_fc(self.ln_2(x)), approximate="tanh"))


class EagerGPT2(nn.Module):
    """GPT-2 as Hugging Face's eager attention writes it (`transformers` exports through
    the TorchScript exporter): inputs input_ids and attention_mask [1, seq] (int64, 0 for
    padding); the padding mask becomes `(1 - mask) * finfo.min`, added to the scores."""

    def __init__(self, vocab: int = 64, d: int = 32, heads: int = 4, seq: int = 16, layers: int = 2):
        super().__init__()
        self.wte, self.wpe = nn.Embedding(vocab, d), nn.Embedding(seq, d)
        self.h = nn.ModuleList([EagerGPT2Block(d, heads, seq) for _ in range(layers)])
        self.ln_f, self.lm_head = nn.LayerNorm(d), nn.Linear(d, vocab, bias=False)

    def forward(self, ids, mask):
        pos = torch.arange(ids.shape[1], dtype=torch.long).unsqueeze(0)
        additive = (1.0 - mask[:, None, None, :].to(torch.float32)) * torch.finfo(torch.float32).min
        x = self.wte(ids) + self.wpe(pos)
        for block in self.h:
            x = block(x, additive)
        return self.lm_head(self.ln_f(x))


def export_with_inputs(model: nn.Module, example: tuple, name: str, input_names: list[str], output: str) -> None:
    """Both exporters, several inputs: the dynamo one (torch's default now) at opset 20 and
    the TorchScript one at opset 17 (`transformers` exports GPT-2 through it)."""
    names = {"input_names": input_names, "output_names": [output]}
    for kind in ("dynamo", "legacy"):
        path = os.path.join(HERE, f"{name}_{kind}.onnx")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            if kind == "dynamo":
                torch.onnx.export(model, example, path, dynamo=True, external_data=False, opset_version=20, **names)
            else:
                torch.onnx.export(model, example, path, dynamo=False, opset_version=17, **names)
        strip(path)
        print(f"{path}: {os.path.getsize(path)} bytes")


class SdpaBlock(nn.Module):
    """Attention as Hugging Face's `sdpa` implementation calls torch: a boolean mask (causal
    and padding) handed to `scaled_dot_product_attention`, whose export guards the
    softmax against rows the mask hides whole. Inputs x [1, 16, 32], attention_mask [1,
    16] (int64, 0 for padding)."""

    def __init__(self, d: int = 32, heads: int = 4, seq: int = 16):
        super().__init__()
        self.heads, self.dh = heads, d // heads
        self.ln, self.qkv, self.proj = nn.LayerNorm(d), nn.Linear(d, 3 * d), nn.Linear(d, d)
        self.register_buffer("causal", torch.tril(torch.ones(seq, seq, dtype=torch.bool))[None, None])

    def forward(self, x, mask):
        b, s, d = x.shape
        q, k, v = self.qkv(self.ln(x)).split(d, dim=2)
        q, k, v = (t.view(b, s, self.heads, self.dh).transpose(1, 2) for t in (q, k, v))
        keep = self.causal[:, :, :s, :s] & mask[:, None, None, :].bool()
        y = nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=keep)
        return x + self.proj(y.transpose(1, 2).reshape(b, s, d))


def randomize(model: nn.Module) -> nn.Module:
    for m in model.modules():
        if isinstance(m, RMSNorm):
            with torch.no_grad():
                m.weight.uniform_(0.5, 1.5)
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


class BertEmbeddings(nn.Module):
    """BERT's embeddings as Hugging Face writes them: word + token type + position (a
    registered buffer of position ids, sliced), LayerNorm."""

    def __init__(self, vocab: int = 64, d: int = 32, positions: int = 16, types: int = 2):
        super().__init__()
        self.word, self.position, self.token_type = nn.Embedding(vocab, d), nn.Embedding(positions, d), \
            nn.Embedding(types, d)
        self.norm = nn.LayerNorm(d, eps=1e-12)
        self.register_buffer("position_ids", torch.arange(positions).expand((1, -1)))

    def forward(self, ids, token_types):
        positions = self.position_ids[:, : ids.size(1)]
        return self.norm(self.word(ids) + self.token_type(token_types) + self.position(positions))


class BertLayer(nn.Module):
    """A post-norm encoder layer with an additive attention mask, as Hugging Face's BERT."""

    def __init__(self, d: int = 32, heads: int = 4, ff: int = 64):
        super().__init__()
        self.heads, self.head_size = heads, d // heads
        self.q, self.k, self.v, self.out = nn.Linear(d, d), nn.Linear(d, d), nn.Linear(d, d), nn.Linear(d, d)
        self.norm1, self.norm2 = nn.LayerNorm(d, eps=1e-12), nn.LayerNorm(d, eps=1e-12)
        self.ff1, self.ff2 = nn.Linear(d, ff), nn.Linear(ff, d)

    def split(self, t):
        b, s, _ = t.size()
        return t.view(b, s, self.heads, self.head_size).permute(0, 2, 1, 3)

    def forward(self, x, additive_mask):
        q, k, v = self.split(self.q(x)), self.split(self.k(x)), self.split(self.v(x))
        scores = torch.matmul(q, k.transpose(-1, -2)) / math.sqrt(self.head_size) + additive_mask
        context = torch.matmul(torch.softmax(scores, dim=-1), v).permute(0, 2, 1, 3).contiguous()
        x = self.norm1(self.out(context.view(context.size(0), context.size(1), -1)) + x)
        return self.norm2(self.ff2(nn.functional.gelu(self.ff1(x))) + x)


class TinyBert(nn.Module):
    """BERT for sequence classification: embeddings, 2 layers, a classifier on the first
    token. Inputs input_ids, attention_mask, token_type_ids [1-2, 8] (int64)."""

    def __init__(self, classes: int = 3):
        super().__init__()
        self.embeddings, self.layers = BertEmbeddings(), nn.ModuleList([BertLayer(), BertLayer()])
        self.classifier = nn.Linear(32, classes)

    def forward(self, ids, mask, token_types):
        additive = (1.0 - mask[:, None, None, :].to(torch.float32)) * -10000.0
        x = self.embeddings(ids, token_types)
        for layer in self.layers:
            x = layer(x, additive)
        return self.classifier(x[:, 0])


def export_bert(model: nn.Module) -> None:
    """The legacy exporter at opset 14, as Hugging Face's BERT exports were made (the form
    onnxruntime's transformers optimizer fuses: tests/test_ort_optimized_models.py)."""
    path = os.path.join(HERE, "bert_legacy.onnx")
    example = (torch.randint(0, 64, (2, 8)), torch.ones(2, 8, dtype=torch.int64), torch.zeros(2, 8, dtype=torch.int64))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(model, example, path, dynamo=False, opset_version=14,
                          input_names=["input_ids", "attention_mask", "token_type_ids"], output_names=["logits"])
    strip(path)
    print(f"{path}: {os.path.getsize(path)} bytes")


def export(model: nn.Module, example: torch.Tensor, name: str, input_name: str = "input", **legacy_kw) -> None:
    for kind in ("dynamo", "legacy"):
        path = os.path.join(HERE, f"{name}_{kind}.onnx")
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                if kind == "dynamo":
                    torch.onnx.export(model, (example,), path, dynamo=True, external_data=False,
                                      input_names=[input_name], output_names=["output"], opset_version=20)
                else:
                    torch.onnx.export(model, (example,), path, dynamo=False, opset_version=17,
                                      input_names=[input_name], output_names=["output"], **legacy_kw)
        except Exception as e:  # report and go on: not every exporter handles every model
            print(f"{name} ({kind}): export failed: {type(e).__name__}: {str(e).splitlines()[0]}")
            continue
        strip(path)
        print(f"{path}: {os.path.getsize(path)} bytes")


def main(only: set[str]) -> None:
    """Exports every architecture, or those named in `only`; the models are built (and
    their random weights drawn) in the same order either way, so the files match."""
    torch.manual_seed(0)
    runs = [
        (randomize(TinyResNet()), torch.randn(1, 3, 32, 32), "resnet", {}),
        # The legacy exporter keeps BatchNormalization nodes without constant folding.
        (randomize(TinyMobileNet()), torch.randn(1, 3, 32, 32), "mobilenet", {"do_constant_folding": False}),
        (randomize(EncoderBlock()), torch.randn(1, 8, 32), "encoder", {}),
        (randomize(TinyGPT2()), torch.randint(0, 64, (1, 16)), "gpt2", {"input_name": "input_ids"}),
        (randomize(LlamaBlock()), torch.randn(1, 16, 32), "llama", {}),
        (randomize(TinyViT()), torch.randn(1, 3, 16, 16), "vit", {}),
        (randomize(KerasMLP()), torch.randn(4, 32), "mlp", {}),
    ]
    for model, example, name, kw in runs:
        if not only or name in only:
            export(model, example, name, **kw)
    # The models below are built before any of them is exported: an export draws its
    # example inputs from the same generator.
    bert = randomize(TinyBert())  # after the others: their weights are drawn as before
    gpt2_eager = randomize(EagerGPT2())  # after BERT, for the same reason
    sdpa = randomize(SdpaBlock())
    if not only or "bert" in only:
        export_bert(bert)
    if not only or "gpt2_eager" in only:
        export_with_inputs(gpt2_eager, (torch.randint(0, 64, (1, 16)), torch.ones(1, 16, dtype=torch.int64)),
                           "gpt2_eager", ["input_ids", "attention_mask"], "logits")
    if not only or "sdpa" in only:
        export_with_inputs(sdpa, (torch.randn(1, 16, 32), torch.ones(1, 16, dtype=torch.int64)), "sdpa",
                           ["x", "attention_mask"], "y")


if __name__ == "__main__":
    main(set(sys.argv[1:]))
