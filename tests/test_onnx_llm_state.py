"""The ONNX ops of compiler/frontend/onnx/ops_llm_state.py (SwiGLU, TensorScatter,
CausalConvWithState, LinearAttention) on random shapes and attributes, through the
reference interpreter and through compiled C, against onnxruntime 1.32.

onnxruntime has no kernel for SwiGLU (opset 28: it expands the function into Swish-24,
which it does not implement) nor for ai.onnx.preview's FlexAttention, so these two are
compared with `onnx.reference.ReferenceEvaluator`.

Tolerances: floats within `RTOL` of the reference output's largest magnitude (the
products and sums run in another order than onnxruntime's), 4e-3 for f16 results
(two steps of the type); TensorScatter moves values only, so it is exact.
"""

from __future__ import annotations

import json

import numpy as np
import onnx
import pytest
from onnx import TensorProto as T
from onnx import helper as h
from onnx.reference import ReferenceEvaluator

from accel.compiler.driver import compile_to_directory
from accel.compiler.frontend.onnx import SUPPORTED_OPS, import_onnx_model
from accel.compiler.runtime.interpreter import run_function
from accel.compiler.runtime.run_compiled import run_directory
from e2e_util import import_error
from test_onnx_import import make, ops, vi

ort = pytest.importorskip("onnxruntime")

RTOL = 1e-5
RTOL_F16 = 4e-3
OPSET = 28
PREVIEW = "ai.onnx.preview"

rng = np.random.default_rng(0)


@pytest.fixture(autouse=True)
def _seeded():
    """Every test sees the same random numbers, whatever runs before it (xdist)."""
    global rng
    rng = np.random.default_rng(0)


def f32(*shape) -> np.ndarray:
    return rng.standard_normal(shape).astype(np.float32)


def model_of(nodes, inputs, outputs, inits=()):
    preview = [h.make_opsetid(PREVIEW, 1)] if any(nd.domain == PREVIEW for nd in nodes) else []
    return make(nodes, inputs, [vi(o, None, t) for o, t in outputs], inits, opset=OPSET, extra_opsets=preview)


def reference(model: onnx.ModelProto, feeds: dict) -> dict[str, np.ndarray]:
    """onnxruntime's outputs, or ONNX's reference evaluator's for a model with SwiGLU or
    FlexAttention."""
    names = [o.name for o in model.graph.output]
    if any(nd.op_type in ("SwiGLU", "FlexAttention") for nd in model.graph.node):
        return dict(zip(names, ReferenceEvaluator(model).run(None, feeds)))
    so = ort.SessionOptions()
    so.intra_op_num_threads = 1
    return dict(zip(names, ort.InferenceSession(model.SerializeToString(), so).run(None, feeds)))


def assert_close(got: dict, want: dict, exact: bool = False) -> None:
    assert set(got) >= set(want)
    for k, w in want.items():
        g = got[k]
        assert g.shape == w.shape and g.dtype == w.dtype, (k, g.shape, g.dtype, w.shape, w.dtype)
        if exact or w.dtype.kind != "f":
            np.testing.assert_array_equal(g, w, err_msg=k)
            continue
        rtol = RTOL_F16 if w.dtype == np.float16 else RTOL
        scale = float(np.abs(w.astype(np.float64)).max(initial=1.0))
        np.testing.assert_allclose(g.astype(np.float64), w.astype(np.float64), rtol=0, atol=rtol * scale, err_msg=k)


def check_interpreter(model, feeds, exact=False) -> None:
    assert_close(run_function(import_onnx_model(model), feeds), reference(model, feeds), exact)


def test_ops_are_supported():
    assert {"SwiGLU", "TensorScatter", "CausalConvWithState", "LinearAttention", "FlexAttention"} <= SUPPORTED_OPS


# --------------------------------------------------------------------------------------
# SwiGLU
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize("seed", range(6))
def test_swiglu_random(seed):
    r = np.random.default_rng(seed)
    shape = tuple(int(d) for d in r.integers(1, 6, r.integers(1, 4)))
    alpha = [1.0, 0.5, 1.702][seed % 3]
    dt, np_dt = (T.FLOAT16, np.float16) if seed == 5 else (T.FLOAT, np.float32)
    attrs = {} if alpha == 1.0 else {"alpha": alpha}
    model = model_of([h.make_node("SwiGLU", ["a", "b"], ["y"], **attrs)], [vi("a", shape, dt), vi("b", shape, dt)],
                     [("y", dt)])
    feeds = {"a": (3 * r.standard_normal(shape)).astype(np_dt), "b": r.standard_normal(shape).astype(np_dt)}
    check_interpreter(model, feeds)
    expected = ["relay.nn.silu", "relay.multiply"] if alpha == 1.0 else \
        ["relay.constant", "relay.multiply", "relay.sigmoid", "relay.multiply", "relay.multiply"]
    assert ops(import_onnx_model(model)) == expected


def test_swiglu_after_a_dense_offloads_the_dense(tmp_path):
    """Llama's MLP: gate and up projections (MatMul on constant weights), SwiGLU, down
    projection. The products are dense layers on the npu; the result matches."""
    wg, wu, wd = f32(16, 32), f32(16, 32), f32(32, 16)
    model = model_of([h.make_node("MatMul", ["x", "wg"], ["g"]), h.make_node("MatMul", ["x", "wu"], ["u"]),
                      h.make_node("SwiGLU", ["g", "u"], ["a"]), h.make_node("MatMul", ["a", "wd"], ["y"])],
                     [vi("x", (4, 16))], [("y", T.FLOAT)], [("wg", wg), ("wu", wu), ("wd", wd)])
    path = str(tmp_path / "mlp.onnx")
    onnx.save(model, path)
    out = str(tmp_path / "out")
    report = compile_to_directory(path, "npu", out)
    assert not any("dense" in r["op"] or "matmul" in r["op"] for r in report["rejected"]), report["rejected"]
    assert report["macs"]["offloaded"] == report["macs"]["total"] > 0, report["macs"]
    x = f32(4, 16)
    got, _ = run_directory(out, {"x": x})
    assert_close(got, reference(model, {"x": x}))


# --------------------------------------------------------------------------------------
# TensorScatter
# --------------------------------------------------------------------------------------


def scatter_model(cache, upd, axis, mode, indices: str):
    """indices: "none" (absent), "input" (a graph input) or "const" (an initializer)."""
    names = ["cache", "upd"] + ([] if indices == "none" else ["w"])
    node = h.make_node("TensorScatter", names, ["y"], axis=axis, mode=mode)
    inputs = [vi("cache", cache), vi("upd", upd)] + ([vi("w", (cache[0],), T.INT64)] if indices == "input" else [])
    return node, inputs


@pytest.mark.parametrize("seed", range(12))
@pytest.mark.parametrize("indices", ["input", "const", "none"])
def test_tensor_scatter_random(seed, indices):
    r = np.random.default_rng(seed)
    rank = int(r.integers(2, 5))
    cache = [int(d) for d in r.integers(1, 5, rank)]
    axis = int(r.integers(1, rank))
    cache[axis] = int(r.integers(2, 7))
    m = cache[axis]
    length = int(r.integers(1, m + 1))
    upd = list(cache)
    upd[axis] = length
    mode = "circular" if seed % 2 else "linear"
    w = (r.integers(0, m, cache[0]) if mode == "circular" else r.integers(0, m - length + 1, cache[0])).astype(np.int64)
    if seed % 3 == 0:
        w[:] = w[0]  # one index for every batch: the slices-and-concatenation form
    node, inputs = scatter_model(cache, upd, axis - rank if seed % 4 == 1 else axis, mode, indices)
    model = model_of([node], inputs, [("y", T.FLOAT)], [("w", w)] if indices == "const" else ())
    feeds = {"cache": f32(*cache), "upd": f32(*upd)}
    if indices == "input":
        feeds["w"] = w
    check_interpreter(model, feeds, exact=True)
    relay_ops = set(ops(import_onnx_model(model)))
    if indices == "none" or (indices == "const" and (w == w[0]).all()):
        assert not relay_ops & {"relay.gather", "relay.where"}, relay_ops
    else:
        assert {"relay.gather", "relay.where"} <= relay_ops


@pytest.mark.parametrize("dtype,np_dtype", [(T.INT64, np.int64), (T.INT8, np.int8), (T.DOUBLE, np.float64),
                                            (T.FLOAT16, np.float16), (T.BOOL, np.bool_)])
def test_tensor_scatter_element_types(dtype, np_dtype):
    node, inputs = scatter_model([2, 5, 3], [2, 2, 3], 1, "circular", "input")
    inputs = [vi("cache", [2, 5, 3], dtype), vi("upd", [2, 2, 3], dtype), inputs[2]]
    model = model_of([node], inputs, [("y", dtype)])
    feeds = {"cache": rng.integers(-50, 50, (2, 5, 3)).astype(np_dtype),
             "upd": rng.integers(-50, 50, (2, 2, 3)).astype(np_dtype), "w": np.array([4, 1], np.int64)}
    check_interpreter(model, feeds, exact=True)


# --------------------------------------------------------------------------------------
# CausalConvWithState
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize("seed", range(10))
def test_causal_conv_random(seed):
    r = np.random.default_rng(seed)
    b, c, length, k = (int(v) for v in (r.integers(1, 3), r.integers(1, 6), r.integers(1, 9), r.integers(1, 6)))
    with_bias, with_past = bool(seed % 2), bool(seed % 3)
    activation = ["none", "silu", "swish"][seed % 3]
    names = ["x", "w", "bias" if with_bias else "", "past" if with_past else ""]
    while names[-1] == "":
        names.pop()
    node = h.make_node("CausalConvWithState", names, ["y", "state"], activation=activation)
    inputs = [vi("x", (b, c, length))] + ([vi("past", (b, c, k - 1))] if with_past else [])
    inits = [("w", f32(c, 1, k))] + ([("bias", f32(c))] if with_bias else [])
    model = model_of([node], inputs, [("y", T.FLOAT), ("state", T.FLOAT)], inits)
    feeds = {"x": f32(b, c, length)} | ({"past": f32(b, c, k - 1)} if with_past else {})
    check_interpreter(model, feeds)


@pytest.mark.parametrize("length,k", [(2, 5), (1, 1), (3, 4), (1, 2)])
def test_causal_conv_without_state(length, k):
    """No past state: the state is the input's tail behind zeros when the input is
    shorter than k - 1, and empty ([B, C, 0]) for k = 1."""
    node = h.make_node("CausalConvWithState", ["x", "w"], ["y", "state"])
    model = model_of([node], [vi("x", (2, 3, length))], [("y", T.FLOAT), ("state", T.FLOAT)], [("w", f32(3, 1, k))])
    check_interpreter(model, {"x": f32(2, 3, length)})


def test_causal_conv_weight_at_run_time_and_f16():
    node = h.make_node("CausalConvWithState", ["x", "w", "bias", "past"], ["y", "state"], activation="silu")
    model = model_of([node], [vi("x", (2, 3, 4), T.FLOAT16), vi("w", (3, 1, 3), T.FLOAT16),
                              vi("bias", (3,), T.FLOAT16), vi("past", (2, 3, 2), T.FLOAT16)],
                     [("y", T.FLOAT16), ("state", T.FLOAT16)])
    feeds = {"x": f32(2, 3, 4).astype(np.float16), "w": f32(3, 1, 3).astype(np.float16),
             "bias": f32(3).astype(np.float16), "past": f32(2, 3, 2).astype(np.float16)}
    check_interpreter(model, feeds)


# --------------------------------------------------------------------------------------
# LinearAttention
# --------------------------------------------------------------------------------------


def linear_attention_case(r, rule, hq, hkv, t, dk, dv, past, per_key_decay, beta_heads, dtype=T.FLOAT):
    np_dt = onnx.helper.tensor_dtype_to_np_dtype(dtype)
    b = 2
    names = ["q", "k", "v", "past" if past else "", "", ""]
    inputs = [vi("q", (b, t, hq * dk), dtype), vi("k", (b, t, hkv * dk), dtype), vi("v", (b, t, hkv * dv), dtype)]
    feeds = {"q": r.standard_normal((b, t, hq * dk)), "k": r.standard_normal((b, t, hkv * dk)),
             "v": r.standard_normal((b, t, hkv * dv))}
    if rule in ("delta", "gated_delta"):  # the delta rule wants L2-normalized keys
        kk = feeds["k"].reshape(b, t, hkv, dk)
        feeds["k"] = (kk / np.linalg.norm(kk, axis=-1, keepdims=True)).reshape(b, t, hkv * dk)
    if past:
        inputs.append(vi("past", (b, hkv, dk, dv), dtype))
        feeds["past"] = r.standard_normal((b, hkv, dk, dv))
    if rule in ("gated", "gated_delta"):
        names[4] = "decay"
        width = hkv * dk if per_key_decay else hkv
        inputs.append(vi("decay", (b, t, width), dtype))
        feeds["decay"] = -np.abs(r.standard_normal((b, t, width))) * 0.5
    if rule in ("delta", "gated_delta"):
        names[5] = "beta"
        width = hkv if beta_heads else 1
        inputs.append(vi("beta", (b, t, width), dtype))
        feeds["beta"] = 1 / (1 + np.exp(-r.standard_normal((b, t, width))))
    while names[-1] == "":
        names.pop()
    attrs = {"q_num_heads": hq, "kv_num_heads": hkv, "update_rule": rule}
    if r.integers(0, 2):
        attrs["scale"] = 0.3
    node = h.make_node("LinearAttention", names, ["y", "state"], **attrs)
    model = model_of([node], inputs, [("y", dtype), ("state", dtype)])
    return model, {k: v.astype(np_dt) for k, v in feeds.items()}


@pytest.mark.parametrize("seed", range(12))
@pytest.mark.parametrize("rule", ["linear", "gated", "delta", "gated_delta"])
def test_linear_attention_random(seed, rule):
    r = np.random.default_rng(seed)
    hkv = int(r.integers(1, 3))
    hq = hkv * int(r.integers(1, 4))
    model, feeds = linear_attention_case(r, rule, hq, hkv, int(r.integers(1, 5)), int(r.integers(1, 6)),
                                         int(r.integers(1, 6)), bool(seed % 2), bool(seed % 3), bool(seed % 4 > 1))
    check_interpreter(model, feeds)


def test_linear_attention_f16_computes_in_f32():
    r = np.random.default_rng(3)
    model, feeds = linear_attention_case(r, "gated_delta", 4, 2, 3, 4, 4, True, False, True, dtype=T.FLOAT16)
    check_interpreter(model, feeds)
    assert "relay.cast" in ops(import_onnx_model(model))


def test_linear_attention_is_unrolled_per_token():
    """Linear rule, T tokens and no past: T outer products, T reads (batch_matmul),
    T - 1 state additions."""
    r = np.random.default_rng(0)
    model, _ = linear_attention_case(r, "linear", 2, 2, 5, 4, 3, False, False, False)
    names = ops(import_onnx_model(model))
    assert names.count("relay.nn.batch_matmul") == 5
    assert names.count("relay.add") == 4


# --------------------------------------------------------------------------------------
# FlexAttention (ai.onnx.preview)
# --------------------------------------------------------------------------------------


def causal_mask_graph(dtype=T.FLOAT):
    """score_mod: where(q_idx >= k_idx, scores, -inf), its indices from the scores' shape."""
    nodes = [h.make_node("Shape", ["scores"], ["shape"]),
             h.make_node("Gather", ["shape", "i2"], ["l"], axis=0), h.make_node("Gather", ["shape", "i3"], ["s"], axis=0),
             h.make_node("Range", ["zero", "l", "one"], ["qr"]), h.make_node("Range", ["zero", "s", "one"], ["kr"]),
             h.make_node("Unsqueeze", ["qr", "ax1"], ["qi"]), h.make_node("Unsqueeze", ["kr", "ax0"], ["ki"]),
             h.make_node("GreaterOrEqual", ["qi", "ki"], ["keep"]),
             h.make_node("Where", ["keep", "scores", "ninf"], ["out"])]
    inits = [h.make_tensor("i2", T.INT64, [], [2]), h.make_tensor("i3", T.INT64, [], [3]),
             h.make_tensor("zero", T.INT64, [], [0]), h.make_tensor("one", T.INT64, [], [1]),
             h.make_tensor("ax0", T.INT64, [1], [0]), h.make_tensor("ax1", T.INT64, [1], [1]),
             h.make_tensor("ninf", dtype, [], [-np.inf])]
    return h.make_graph(nodes, "causal", [vi("scores", None, dtype)], [vi("out", None, dtype)], inits)


def softcap_graph(cap: float, dtype=T.FLOAT):
    nodes = [h.make_node("Div", ["scores", "cap"], ["d"]), h.make_node("Tanh", ["d"], ["t"]),
             h.make_node("Mul", ["t", "cap"], ["out"])]
    return h.make_graph(nodes, "softcap", [vi("scores", None, dtype)], [vi("out", None, dtype)],
                        [h.make_tensor("cap", dtype, [], [cap])])


def prob_scale_graph(factor: float, dtype=T.FLOAT):
    return h.make_graph([h.make_node("Mul", ["probs", "f"], ["out"])], "scale", [vi("probs", None, dtype)],
                        [vi("out", None, dtype)], [h.make_tensor("f", dtype, [], [factor])])


def flex_case(r, hq, hkv, length, s, e, ev, dtype=T.FLOAT, **attrs):
    np_dt = onnx.helper.tensor_dtype_to_np_dtype(dtype)
    b = 2
    node = h.make_node("FlexAttention", ["Q", "K", "V"], ["Y"], domain=PREVIEW, **attrs)
    model = model_of([node], [vi("Q", (b, hq, length, e), dtype), vi("K", (b, hkv, s, e), dtype),
                              vi("V", (b, hkv, s, ev), dtype)], [("Y", dtype)])
    feeds = {"Q": r.standard_normal((b, hq, length, e)).astype(np_dt),
             "K": r.standard_normal((b, hkv, s, e)).astype(np_dt), "V": r.standard_normal((b, hkv, s, ev)).astype(np_dt)}
    return model, feeds


@pytest.mark.parametrize("seed", range(10))
def test_flex_attention_random(seed):
    r = np.random.default_rng(seed)
    hkv = int(r.integers(1, 3))
    hq = hkv * int(r.integers(1, 4))
    length = int(r.integers(1, 6))
    attrs = {}
    if seed % 4 == 1:
        attrs["score_mod"] = causal_mask_graph()
        s = length  # every query keeps key 0
    else:
        s = int(r.integers(1, 7))
    if seed % 4 == 2:
        attrs["score_mod"] = softcap_graph(2.0)
    if seed % 3 == 0:
        attrs["prob_mod"] = prob_scale_graph(0.5)
    if seed % 5 == 4:
        attrs["scale"] = 0.2
    model, feeds = flex_case(r, hq, hkv, length, s, int(r.integers(1, 9)), int(r.integers(1, 9)), **attrs)
    check_interpreter(model, feeds)


@pytest.mark.parametrize("dtype", [T.FLOAT16, T.DOUBLE])
def test_flex_attention_f16_and_f64(dtype):
    model, feeds = flex_case(np.random.default_rng(1), 4, 2, 3, 5, 8, 4, dtype=dtype,
                             score_mod=causal_mask_graph(T.FLOAT if dtype == T.FLOAT16 else dtype))
    check_interpreter(model, feeds)


def test_flex_attention_modifier_is_inlined_and_its_names_do_not_leak():
    """The causal mask folds to one constant where; the subgraph's name 'scores' is
    also a graph output's name (a name of the outer graph), which keeps its value."""
    r = np.random.default_rng(2)
    node = h.make_node("FlexAttention", ["Q", "K", "V"], ["Y"], domain=PREVIEW, score_mod=causal_mask_graph())
    add = h.make_node("Add", ["Y", "Y"], ["scores"])
    model = model_of([node, add], [vi("Q", (1, 2, 4, 8)), vi("K", (1, 2, 4, 8)), vi("V", (1, 2, 4, 8))],
                     [("scores", T.FLOAT)])
    names = ops(import_onnx_model(model))
    assert names.count("relay.where") == 1 and "relay.greater_equal" not in names, names
    feeds = {k: r.standard_normal((1, 2, 4, 8)).astype(np.float32) for k in ("Q", "K", "V")}
    check_interpreter(model, feeds)


# --------------------------------------------------------------------------------------
# Through C
# --------------------------------------------------------------------------------------


def every_op_model():
    """One model with every op of the module (run-time and constant TensorScatter
    indices, a causal convolution with a state, two LinearAttention rules)."""
    r = np.random.default_rng(7)
    la1, f1 = linear_attention_case(r, "gated_delta", 4, 2, 3, 4, 3, True, True, True)
    la2, f2 = linear_attention_case(r, "linear", 2, 1, 2, 3, 4, False, False, False)
    for m, tag in ((la1, "1"), (la2, "2")):
        nd = m.graph.node[0]
        nd.input[:] = [f"{x}{tag}" if x else "" for x in nd.input]
        nd.output[:] = [f"{x}{tag}" for x in nd.output]
    nodes = [h.make_node("SwiGLU", ["a", "b"], ["glu"], alpha=0.75),
             h.make_node("TensorScatter", ["cache", "upd", "w"], ["kv"], mode="circular"),
             h.make_node("TensorScatter", ["cache", "upd", "wc"], ["kv_const"], axis=1),
             h.make_node("TensorScatter", ["cache", "upd"], ["kv_prefill"]),
             h.make_node("CausalConvWithState", ["x", "cw", "cb", "past"], ["conv", "conv_state"], activation="silu"),
             la1.graph.node[0], la2.graph.node[0],
             h.make_node("FlexAttention", ["fq", "fk", "fv"], ["flex"], domain=PREVIEW, score_mod=causal_mask_graph())]
    inputs = [vi("a", (3, 8)), vi("b", (3, 8)), vi("cache", (2, 6, 4)), vi("upd", (2, 3, 4)), vi("w", (2,), T.INT64),
              vi("x", (2, 8, 5)), vi("past", (2, 8, 3)), vi("fq", (1, 4, 3, 8)), vi("fk", (1, 2, 3, 8)),
              vi("fv", (1, 2, 3, 5))]
    for m, tag in ((la1, "1"), (la2, "2")):
        for i in m.graph.input:
            inputs.append(vi(i.name + tag, [d.dim_value for d in i.type.tensor_type.shape.dim]))
    outputs = [(o, T.FLOAT) for o in ("glu", "kv", "kv_const", "kv_prefill", "conv", "conv_state", "y1", "state1",
                                      "y2", "state2", "flex")]
    model = model_of(nodes, inputs, outputs, [("wc", np.array([1, 3], np.int64)), ("cw", f32(8, 1, 4)), ("cb", f32(8))])
    feeds = {"a": f32(3, 8), "b": f32(3, 8), "cache": f32(2, 6, 4), "upd": f32(2, 3, 4), "w": np.array([5, 2], np.int64),
             "x": f32(2, 8, 5), "past": f32(2, 8, 3), "fq": f32(1, 4, 3, 8), "fk": f32(1, 2, 3, 8), "fv": f32(1, 2, 3, 5)}
    feeds |= {k + "1": v for k, v in f1.items()} | {k + "2": v for k, v in f2.items()}
    return model, feeds


def _reference_split(model, feeds):
    """SwiGLU's and FlexAttention's outputs from the reference evaluator, the rest from
    onnxruntime."""
    out = {}
    rest = onnx.ModelProto()
    rest.CopyFrom(model)
    for op in ("SwiGLU", "FlexAttention"):
        node = next(nd for nd in rest.graph.node if nd.op_type == op)
        ins = [i for i in rest.graph.input if i.name in node.input]
        one = model_of([node], ins, [(node.output[0], T.FLOAT)])
        out |= reference(one, {i.name: feeds[i.name] for i in ins})
        rest.graph.node.remove(node)
        for i in ins:
            rest.graph.input.remove(i)
        rest.graph.output.remove(next(o for o in rest.graph.output if o.name == node.output[0]))
    names = {i.name for i in rest.graph.input}
    return out | reference(rest, {k: v for k, v in feeds.items() if k in names})


@pytest.mark.parametrize("target", ["", "npu"])
def test_every_op_runs_in_c(tmp_path, target):
    model, feeds = every_op_model()
    path = str(tmp_path / "llm_state.onnx")
    onnx.save(model, path)
    kw = {"pipeline": "canonicalize,bufferize,plan-memory"} if not target else {}
    report = compile_to_directory(path, target, str(tmp_path / "out"), **kw)
    got, _ = run_directory(str(tmp_path / "out"), feeds)
    want = _reference_split(model, feeds)
    for k in ("kv", "kv_const", "kv_prefill"):
        np.testing.assert_array_equal(got[k], want.pop(k), err_msg=k)
    assert_close(got, want)
    with open(tmp_path / "out" / "report.json") as f:
        assert json.load(f)["ops"] == report["ops"]


def test_causal_conv_offloads_to_the_npu(tmp_path):
    """A Mamba-sized causal convolution with its state (64 channels, 256 tokens, k = 4,
    constant weight): the concatenation, the grouped conv2d with its bias, the silu and
    the state's slice all run on the npu, and match onnxruntime."""
    c, length, k = 64, 256, 4
    node = h.make_node("CausalConvWithState", ["x", "w", "bias", "past"], ["y", "state"], activation="silu")
    model = model_of([node], [vi("x", (1, c, length)), vi("past", (1, c, k - 1))], [("y", T.FLOAT), ("state", T.FLOAT)],
                     [("w", f32(c, 1, k)), ("bias", f32(c))])
    path = str(tmp_path / "conv.onnx")
    onnx.save(model, path)
    out = str(tmp_path / "out")
    report = compile_to_directory(path, "npu", out)
    assert report["ops"]["host"] == 0 and not report["rejected"], report["rejected"]
    assert report["macs"]["offloaded"] == report["macs"]["total"] == c * length * k, report["macs"]
    feeds = {"x": f32(1, c, length), "past": f32(1, c, k - 1)}
    got, _ = run_directory(out, feeds)
    assert_close(got, reference(model, feeds))


def test_tensor_scatter_indices_out_of_range_in_c(tmp_path):
    """Linear mode with write indices past the end or negative (ONNX leaves them
    undefined): the positions that fall outside the cache are not written; the C gather
    reads only inside the update (the indices are clamped first)."""
    node, inputs = scatter_model([3, 5, 2], [3, 3, 2], 1, "linear", "input")
    model = model_of([node], inputs, [("y", T.FLOAT)])
    path = str(tmp_path / "scatter.onnx")
    onnx.save(model, path)
    compile_to_directory(path, "", str(tmp_path / "out"), pipeline="canonicalize,bufferize,plan-memory")
    cache, upd = f32(3, 5, 2), f32(3, 3, 2)
    w = np.array([4, -2, 1000], np.int64)
    want = cache.copy()
    for bi in range(3):
        for j in range(3):
            s = w[bi] + j
            if 0 <= s < 5:
                want[bi, s] = upd[bi, j]
    feeds = {"cache": cache, "upd": upd, "w": w}
    got, _ = run_directory(str(tmp_path / "out"), feeds)
    np.testing.assert_array_equal(got["y"], want)
    np.testing.assert_array_equal(run_function(import_onnx_model(model), feeds)["y"], want)


# --------------------------------------------------------------------------------------
# Refusals: one line naming the node
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize("node,inputs,expected", [
    (h.make_node("SwiGLU", ["a", "b"], ["y"], name="n"), [vi("a", (2, 4)), vi("b", (1, 4))],
     "node 'n' (SwiGLU): inputs A [2, 4] float32 and B [1, 4] float32 must have the same shape and type"),
    (h.make_node("TensorScatter", ["c", "u"], ["y"], name="n", mode="ring"), [vi("c", (2, 4, 3)), vi("u", (2, 1, 3))],
     "node 'n' (TensorScatter): mode 'ring' is not one of linear, circular"),
    (h.make_node("TensorScatter", ["c", "u"], ["y"], name="n", axis=0), [vi("c", (2, 4, 3)), vi("u", (2, 1, 3))],
     "node 'n' (TensorScatter): axis must not be 0 (the batch axis)"),
    (h.make_node("TensorScatter", ["c", "u"], ["y"], name="n"), [vi("c", (2, 4, 3)), vi("u", (2, 5, 3))],
     "node 'n' (TensorScatter): update [2, 5, 3] must have past_cache's shape [2, 4, 3] except along axis 1"),
    (h.make_node("TensorScatter", ["c", "u", "w"], ["y"], name="n"),
     [vi("c", (2, 4, 3)), vi("u", (2, 1, 3)), vi("w", (3,), T.INT64)],
     "node 'n' (TensorScatter): write_indices [3] must be [2] (one per batch)"),
    (h.make_node("CausalConvWithState", ["x", "w"], ["y", "s"], name="n", activation="gelu"),
     [vi("x", (1, 2, 4)), vi("w", (2, 1, 3))], "node 'n' (CausalConvWithState): activation 'gelu' is not one of"),
    (h.make_node("CausalConvWithState", ["x", "w", "", "p"], ["y", "s"], name="n"),
     [vi("x", (1, 2, 4)), vi("w", (2, 1, 3)), vi("p", (1, 2, 3))],
     "node 'n' (CausalConvWithState): past_state [1, 2, 3] must be [1, 2, 2]"),
    (h.make_node("CausalConvWithState", ["x", "w"], ["y", "s"], name="n"), [vi("x", (2, 4)), vi("w", (2, 1, 3))],
     "node 'n' (CausalConvWithState): input [2, 4] must be [batch, channels, length]"),
    (h.make_node("LinearAttention", ["q", "k", "v"], ["y", "s"], name="n", q_num_heads=2, kv_num_heads=2,
                 update_rule="softmax"), [vi("q", (1, 2, 8)), vi("k", (1, 2, 8)), vi("v", (1, 2, 8))],
     "node 'n' (LinearAttention): update_rule 'softmax' is not one of linear, gated, delta, gated_delta"),
    (h.make_node("LinearAttention", ["q", "k", "v"], ["y", "s"], name="n", q_num_heads=2, kv_num_heads=2),
     [vi("q", (1, 2, 8)), vi("k", (1, 2, 8)), vi("v", (1, 2, 8))],
     "node 'n' (LinearAttention): update_rule 'gated_delta' needs the decay input"),
    (h.make_node("LinearAttention", ["q", "k", "v", "", "g"], ["y", "s"], name="n", q_num_heads=2, kv_num_heads=2,
                 update_rule="linear"), [vi("q", (1, 2, 8)), vi("k", (1, 2, 8)), vi("v", (1, 2, 8)), vi("g", (1, 2, 2))],
     "node 'n' (LinearAttention): update_rule 'linear' takes no decay input"),
    (h.make_node("LinearAttention", ["q", "k", "v", "", "g"], ["y", "s"], name="n", q_num_heads=2, kv_num_heads=2,
                 update_rule="gated"), [vi("q", (1, 2, 8)), vi("k", (1, 2, 8)), vi("v", (1, 2, 8)), vi("g", (1, 2, 3))],
     "node 'n' (LinearAttention): decay [1, 2, 3] must be [1, 2, 2] or [1, 2, 8]"),
    (h.make_node("LinearAttention", ["q", "k", "v"], ["y", "s"], name="n", q_num_heads=2, kv_num_heads=2,
                 update_rule="linear"), [vi("q", (1, 2, 8)), vi("k", (1, 2, 6)), vi("v", (1, 2, 8))],
     "node 'n' (LinearAttention): key's last dim 6 must be kv_num_heads * head size = 8"),
    (h.make_node("LinearAttention", ["q", "k", "v"], ["y", "s"], name="n", kv_num_heads=2, update_rule="linear"),
     [vi("q", (1, 2, 8)), vi("k", (1, 2, 8)), vi("v", (1, 2, 8))],
     "node 'n' (LinearAttention): attributes q_num_heads and kv_num_heads are required"),
    (h.make_node("FlexAttention", ["q", "k", "v"], ["y"], name="n", domain=PREVIEW),
     [vi("q", (1, 3, 4, 8)), vi("k", (1, 2, 4, 8)), vi("v", (1, 2, 4, 8))],
     "node 'n' (FlexAttention): Q's 3 heads are not a multiple of K's and V's 2"),
    (h.make_node("FlexAttention", ["q", "k", "v"], ["y"], name="n", domain=PREVIEW),
     [vi("q", (1, 2, 4, 8)), vi("k", (1, 2, 4, 8)), vi("v", (1, 2, 5, 8))],
     "node 'n' (FlexAttention): Q [1, 2, 4, 8], K [1, 2, 4, 8] and V [1, 2, 5, 8] must share"),
    (h.make_node("FlexAttention", ["q", "k", "v"], ["y"], name="n", domain=PREVIEW,
                 score_mod=h.make_graph([h.make_node("ReduceSum", ["x"], ["o"], keepdims=1)], "m", [vi("x", None)],
                                        [vi("o", None)])),
     [vi("q", (1, 2, 4, 8)), vi("k", (1, 2, 4, 8)), vi("v", (1, 2, 4, 8))],
     "node 'n' (FlexAttention): score_mod returns tensor<1x1x1x1xf32>, not its input's type tensor<1x2x4x4xf32>"),
    (h.make_node("FlexAttention", ["q", "k", "v"], ["y"], name="n", domain=PREVIEW,
                 prob_mod=h.make_graph([h.make_node("Add", ["x", "x2"], ["o"])], "m", [vi("x", None), vi("x2", None)],
                                       [vi("o", None)])),
     [vi("q", (1, 2, 4, 8)), vi("k", (1, 2, 4, 8)), vi("v", (1, 2, 4, 8))],
     "node 'n' (FlexAttention): prob_mod must have one input and one output, it has 2 and 1"),
    (h.make_node("FlexAttention", ["q", "k", "v"], ["y"], name="n", domain=PREVIEW, softmax_precision=6),
     [vi("q", (1, 2, 4, 8)), vi("k", (1, 2, 4, 8)), vi("v", (1, 2, 4, 8))],
     "node 'n' (FlexAttention): softmax_precision 6 is not float, float16, bfloat16 or double"),
])
def test_refusals_are_one_line(node, inputs, expected):
    model = model_of([node], inputs, [(o, T.FLOAT) for o in node.output])
    assert expected in import_error(model)
