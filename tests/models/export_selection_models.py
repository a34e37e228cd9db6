"""Exports the torch models of the selection, indexing and sequence tests (run once; the
.onnx files are committed, torch is never a test dependency):

- `moe_lm_{dynamo,legacy}` (tests/test_selection_models.py): a tiny mixture-of-experts
  language model whose graph holds the selection and scan ops users' exports contain —
  position ids as a CumSum of the attention mask (Hugging Face's GPT-2 and OPT compute them
  so), a top-2 router (TopK, then the gates scattered into a dense row: ScatterElements),
  the experts as einsums, greedy decoding (ArgMax) and the top-3 logits (TopK);
- `index_put_legacy` (tests/test_onnx_index.py): `y[:, idx] = v` (ScatterND), scatter_add
  (ScatterElements, reduction add), cross_entropy with ignore_index
  (SoftmaxCrossEntropyLoss);
- `embedding_bag_{sum,mean}_legacy` (tests/test_onnx_sequence.py): nn.EmbeddingBag, which
  the legacy exporter writes as a Loop over the bags.

    .venv/bin/pip install torch==2.13.0 onnxscript      # into a dev venv, never a test dependency
    .venv/bin/python tests/models/export_selection_models.py
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


class MoE(nn.Module):
    """Top-k routed experts (every expert computed, the gates zero outside the top k: the
    dense formulation small MoE exports use)."""

    def __init__(self, d: int = 32, experts: int = 4, hidden: int = 64, k: int = 2):
        super().__init__()
        self.k = k
        self.router = nn.Linear(d, experts)
        self.w1 = nn.Parameter(torch.randn(experts, d, hidden) * 0.1)
        self.w2 = nn.Parameter(torch.randn(experts, hidden, d) * 0.1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:  # x [T, d]
        logits = self.router(x)
        top, idx = torch.topk(logits, self.k, dim=-1)
        gates = torch.zeros_like(logits).scatter(-1, idx, F.softmax(top, -1))
        h = torch.einsum("td,edf->etf", x, self.w1).relu()
        return torch.einsum("te,etd->td", gates, torch.einsum("etf,efd->etd", h, self.w2))


class TinyMoELM(nn.Module):
    def __init__(self, vocab: int = 50, d: int = 32, positions: int = 16):
        super().__init__()
        self.emb = nn.Embedding(vocab, d)
        self.pos = nn.Embedding(positions, d)
        self.ln = nn.LayerNorm(d)
        self.moe = MoE(d)
        self.head = nn.Linear(d, vocab)

    def forward(self, ids: torch.Tensor, mask: torch.Tensor):  # [1, T] each
        pos = (mask.cumsum(-1) - 1).clamp(min=0)  # left padding: the first real token is position 0
        x = self.emb(ids) + self.pos(pos)
        x = x + self.moe(self.ln(x)[0])[None]
        logits = self.head(x)
        return logits.argmax(-1), torch.topk(logits, 3, dim=-1).values


class IndexPut(nn.Module):
    def forward(self, x, idx, v, logits, labels):
        y = x.clone()
        y[:, idx] = v
        z = torch.zeros_like(x).scatter_add(1, idx.unsqueeze(0).expand(x.shape[0], -1), v)
        return y, z, F.cross_entropy(logits, labels, ignore_index=2)


class Bags(nn.Module):
    def __init__(self, mode: str):
        super().__init__()
        self.bag = nn.EmbeddingBag(20, 6, mode=mode)
        self.proj = nn.Linear(6, 3)

    def forward(self, ids, offsets):
        return self.proj(self.bag(ids, offsets))


def export_legacy(model: nn.Module, args: tuple, name: str, **kw) -> None:
    path = os.path.join(HERE, f"{name}_legacy.onnx")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(model, args, path, dynamo=False, opset_version=17, **kw)
    strip(path)
    print(f"{path}: {os.path.getsize(path)} bytes")


def main() -> None:
    g = torch.Generator().manual_seed(0)
    export_legacy(IndexPut(), (torch.randn(3, 5, generator=g), torch.tensor([4, 0]), torch.randn(3, 2, generator=g),
                               torch.randn(4, 6, 3, generator=g), torch.randint(0, 6, (4, 3), generator=g)),
                  "index_put")
    for mode in ("sum", "mean"):
        torch.manual_seed(0)
        export_legacy(Bags(mode).eval(), (torch.tensor([3, 1, 4, 1, 5, 9, 2, 6, 5, 3]), torch.tensor([0, 2, 7])),
                      f"embedding_bag_{mode}", input_names=["ids", "offsets"], output_names=["y"])
    torch.manual_seed(0)
    model = randomize(TinyMoELM())
    ids = torch.randint(0, 50, (1, 12))
    mask = torch.ones(1, 12, dtype=torch.long)
    mask[0, :3] = 0
    for kind in ("dynamo", "legacy"):
        path = os.path.join(HERE, f"moe_lm_{kind}.onnx")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            torch.onnx.export(model, (ids, mask), path, dynamo=kind == "dynamo", opset_version=18,
                              input_names=["ids", "mask"], output_names=["next", "top3"],
                              **({"external_data": False} if kind == "dynamo" else {}))
        strip(path)
        print(f"{path}: {os.path.getsize(path)} bytes")


if __name__ == "__main__":
    main()
