"""The ONNX Attention op (opset 23; `compiler/frontend/onnx/ops_attention.py`) against
onnxruntime: 3-D inputs with grouped-query heads and a KV cache, 4-D inputs with bool and
float masks (shorter than the keys: padded as masked), causal masking offset by the cache,
softcap, and the qk_matmul_output modes (a mask shorter than the keys, which onnxruntime
rejects, against ONNX's reference); interpreted (float within 1e-5 of the output's
max |value|) and compiled to C for the npu (within 1e-4 of the max), where the products
and the softmax offload. The ONNX node tests of Attention run in
tests/test_onnx_conformance.py.
"""

from __future__ import annotations

import numpy as np
import onnx
import pytest
from onnx import TensorProto as T
from onnx import helper as h
from onnx.reference import ReferenceEvaluator

from accel.compiler.diagnostics import CompileError
from accel.compiler.driver import compile_to_directory
from accel.compiler.frontend.onnx import import_onnx_model
from accel.compiler.runtime.interpreter import run_function
from accel.compiler.runtime.run_compiled import run_directory

ort = pytest.importorskip("onnxruntime")

rng = np.random.default_rng(0)
B, S, L, PAST = 2, 3, 3, 2


def vi(name, shape, t=T.FLOAT):
    return h.make_tensor_value_info(name, t, shape)


def attention_model(rank: int, q_heads: int, kv_heads: int, d: int = 4, *, mask: str | None = None,
                    mask_len: int | None = None, past: bool = False, qk_mode: int | None = None,
                    **attrs) -> tuple[onnx.ModelProto, dict[str, np.ndarray]]:
    total = L + (PAST if past else 0)
    if rank == 3:
        shapes = {"Q": [B, S, q_heads * d], "K": [B, L, kv_heads * d], "V": [B, L, kv_heads * d]}
        attrs.update(q_num_heads=q_heads, kv_num_heads=kv_heads)
        y_shape = [B, S, q_heads * d]
    else:
        shapes = {"Q": [B, q_heads, S, d], "K": [B, kv_heads, L, d], "V": [B, kv_heads, L, d]}
        y_shape = [B, q_heads, S, d]
    inputs = ["Q", "K", "V"]
    feeds = {k: rng.standard_normal(s).astype(np.float32) for k, s in shapes.items()}
    ins = [vi(k, s) for k, s in shapes.items()]
    if mask or past:
        inputs.append("mask" if mask else "")
    if mask:
        m_shape = [S, mask_len or total]
        if mask == "bool":
            feeds["mask"] = rng.random(m_shape) > 0.3
            feeds["mask"][:, 0] = True
            ins.append(vi("mask", m_shape, T.BOOL))
        else:
            feeds["mask"] = rng.standard_normal(m_shape).astype(np.float32)
            ins.append(vi("mask", m_shape))
    if past:
        inputs += ["past_k", "past_v"]
        for nm in ("past_k", "past_v"):
            feeds[nm] = rng.standard_normal([B, kv_heads, PAST, d]).astype(np.float32)
            ins.append(vi(nm, [B, kv_heads, PAST, d]))
    outputs = ["Y", "present_k", "present_v"]
    outs = [vi("Y", y_shape), vi("present_k", [B, kv_heads, total, d]), vi("present_v", [B, kv_heads, total, d])]
    if qk_mode is not None:
        attrs["qk_matmul_output_mode"] = qk_mode
        outputs.append("qk")
        outs.append(vi("qk", [B, q_heads, S, total]))
    node = h.make_node("Attention", inputs, outputs, **attrs)
    graph = h.make_graph([node], "g", ins, outs)
    model = h.make_model(graph, opset_imports=[h.make_opsetid("", 23)])
    onnx.checker.check_model(model, full_check=True)
    return model, feeds


def ort_outputs(model, feeds) -> dict[str, np.ndarray]:
    so = ort.SessionOptions()
    so.intra_op_num_threads = 1
    sess = ort.InferenceSession(model.SerializeToString(), so, providers=["CPUExecutionProvider"])
    return dict(zip([o.name for o in sess.get_outputs()], sess.run(None, feeds)))


def assert_close(got, want, rel):
    assert set(got) == set(want)
    for k, w in want.items():
        g = np.asarray(got[k])
        assert g.shape == w.shape and g.dtype == w.dtype, k
        np.testing.assert_allclose(g, w, rtol=0, atol=rel * max(float(np.abs(w).max()), 1.0), err_msg=k)


CONFIGS = {
    "3d_gqa_causal_past": dict(rank=3, q_heads=4, kv_heads=2, past=True, is_causal=1),
    "4d_bool_mask": dict(rank=4, q_heads=2, kv_heads=2, mask="bool"),
    "4d_scale_softcap_qk3": dict(rank=4, q_heads=2, kv_heads=1, scale=0.3, softcap=2.0, qk_mode=3),
    "4d_causal_mask_qk0": dict(rank=4, q_heads=2, kv_heads=2, mask="bool", is_causal=1, qk_mode=0),
}


@pytest.mark.parametrize("name", sorted(CONFIGS))
def test_attention_matches_onnxruntime(name):
    model, feeds = attention_model(**CONFIGS[name])
    assert_close(run_function(import_onnx_model(model), feeds), ort_outputs(model, feeds), 1e-5)


def test_a_mask_shorter_than_the_keys_masks_the_rest_as_onnx_reference_does():
    """onnxruntime 1.32 rejects such masks; ONNX's reference pads them with -inf."""
    model, feeds = attention_model(4, 2, 2, mask="float", mask_len=2)
    want = dict(zip(["Y", "present_k", "present_v"], ReferenceEvaluator(model).run(None, feeds)))
    assert_close(run_function(import_onnx_model(model), feeds), want, 1e-5)


def test_attention_compiles_for_the_npu_and_matches_onnxruntime(tmp_path):
    model, feeds = attention_model(3, 4, 2, d=8, past=True, is_causal=1)
    path = str(tmp_path / "attention.onnx")
    onnx.save(model, path)
    report = compile_to_directory(path, "npu", str(tmp_path / "out"))
    assert report["macs"]["offloaded"] == report["macs"]["total"] > 0, report["macs"]
    got, _ = run_directory(str(tmp_path / "out"), feeds)
    assert_close(got, ort_outputs(model, feeds), 1e-4)


def test_attention_errors_are_one_line_naming_the_node():
    model, _ = attention_model(3, 4, 2)
    del model.graph.node[0].attribute[:]  # no head counts
    model.graph.node[0].name = "attn"
    with pytest.raises(CompileError) as info:
        import_onnx_model(model)
    text = str(info.value)
    assert "\n" not in text
    assert text.endswith("node 'attn' (Attention): 3-D inputs need the q_num_heads and kv_num_heads attributes"), text
