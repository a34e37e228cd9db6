"""Exports the model of tests/test_selection_models.py: a tiny mixture-of-experts language
model whose graph holds the selection and scan ops users' exports contain — position ids
as a CumSum of the attention mask (Hugging Face's GPT-2 and OPT compute them so), a top-2
router (TopK, then the gates scattered into a dense row: ScatterElements), the experts as
einsums, greedy decoding (ArgMax) and the top-3 logits (TopK). Run once; the .onnx files
are committed.

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


def main() -> None:
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
