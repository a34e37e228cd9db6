"""Models as onnxruntime's graph optimizer saves them (`optimized_model_filepath` at the
extended level, as optimum's ORTOptimizer does) and as its transformers optimizer writes
them: their com.microsoft fused ops (FusedConv, FusedGemm, FusedMatMul, Gelu, BiasGelu,
FastGelu, QuickGelu, SkipLayerNormalization, Attention, EmbedLayerNormalization, and
SimplifiedLayerNormalization and LayerNormalization, which it writes in the ONNX domain;
for quantized models DynamicQuantizeMatMul, MatMulIntegerToFloat, QLinearSoftmax) import
as the relay ops they fused (frontend/onnx/ops_ort_fused.py, ops_dynamic_quant.py,
ops_qoperator.py). The saved models of tests/models compile for
the npu and match onnxruntime running the same saved model; each op alone, with its
attributes and optional inputs, matches onnxruntime's kernel; what is not supported is
one line."""

from __future__ import annotations

import os
import zlib

import numpy as np
import onnx
import pytest
from e2e_util import MODELS, input_signature, ort_run
from onnx import TensorProto
from onnx import helper as oh
from onnx import numpy_helper as nh

from accel.compiler import api
from accel.compiler.diagnostics import CompileError
from accel.compiler.frontend.onnx import import_onnx_model
from accel.compiler.runtime.interpreter import run_function

FLOAT_TOL = 1e-5
"""|C - onnxruntime| relative to the output's largest magnitude."""

SAVED = {
    "cnn_large_resnet": {"FusedConv"},
    "mlp_dynamo": {"FusedGemm"},
    "vit_legacy": {"FusedMatMul", "Gelu", "SkipLayerNormalization"},
    "gpt2_dynamo": {"FusedMatMul", "SkipLayerNormalization"},
    "yolo_dynamo": {"QuickGelu"},
    "llama_legacy": {"FusedMatMul", "QuickGelu", "SimplifiedLayerNormalization"},
}
"""Test models and the fused ops onnxruntime 1.32's extended level writes into them."""


def saved_by_onnxruntime(src: str, dst: str) -> onnx.ModelProto:
    import onnxruntime as ort

    so = ort.SessionOptions()
    so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_EXTENDED
    so.optimized_model_filepath = dst
    so.log_severity_level = 3
    ort.InferenceSession(src, so, providers=["CPUExecutionProvider"])
    return onnx.load(dst)


def feeds_of(model: onnx.ModelProto) -> dict[str, np.ndarray]:
    """Random inputs; token ids below 64; BERT's attention mask pads the second sequence
    after 5 tokens, its token types switch at the middle."""
    rng = np.random.default_rng(0)
    types = {vi.name: vi.type.tensor_type.elem_type for vi in model.graph.input}
    feeds = {name: rng.integers(0, 64, shape).astype(np.int64) if types[name] == TensorProto.INT64
             else rng.standard_normal(shape).astype(np.float32) for name, shape in input_signature(model)}
    if "attention_mask" in feeds:
        feeds["attention_mask"] = np.ones_like(feeds["attention_mask"])
        feeds["attention_mask"][1:, 5:] = 0
        feeds["token_type_ids"] = (np.arange(feeds["token_type_ids"].shape[1]) >= 4).astype(np.int64) \
            * np.ones_like(feeds["token_type_ids"])
    return feeds


def close(got: dict, want: dict) -> None:
    for k, w in want.items():
        assert np.abs(got[k] - w).max() <= FLOAT_TOL * np.abs(w).max(), k


TRANSFORMERS = {"bert_legacy": ("bert", {"Attention", "SkipLayerNormalization", "BiasGelu"}),
                "encoder_legacy": ("bert", {"Attention", "SkipLayerNormalization", "BiasGelu"}),
                "vit_legacy": ("vit", {"Attention", "SkipLayerNormalization", "BiasGelu"}),
                "gpt2_legacy": ("gpt2", {"SkipLayerNormalization", "FastGelu"})}
"""Test models, the model type `onnxruntime.transformers.optimizer` is told, and the fused
ops it writes."""


@pytest.mark.parametrize("name", sorted(TRANSFORMERS))
def test_models_of_the_transformers_optimizer_compile_and_match_onnxruntime(tmp_path, name):
    from onnxruntime.transformers.optimizer import optimize_model

    model_type, ops = TRANSFORMERS[name]
    path = str(tmp_path / f"{name}.onnx")
    optimize_model(os.path.join(MODELS, f"{name}.onnx"), model_type=model_type, num_heads=0, hidden_size=0,
                   opt_level=0).save_model_to_file(path)
    model = onnx.load(path)
    assert {n.op_type for n in model.graph.node if n.domain == "com.microsoft"} == ops
    if name == "bert_legacy":  # onnxruntime's LayerNormalization in the ONNX domain of an opset-14 model
        assert "LayerNormalization" in {n.op_type for n in model.graph.node if not n.domain}
        assert model.opset_import[0].version == 14
    feeds = feeds_of(model)
    want = ort_run(path, feeds)
    compiled = api.compile(path, "npu", str(tmp_path / "out"))
    assert compiled.report["ops"]["offloaded"] > 0
    close(compiled.run(feeds), want)


@pytest.mark.parametrize("name", sorted(SAVED))
def test_models_saved_by_onnxruntime_compile_and_match_it(tmp_path, name):
    path = str(tmp_path / f"{name}.onnx")
    model = saved_by_onnxruntime(os.path.join(MODELS, f"{name}.onnx"), path)
    fused = {n.op_type for n in model.graph.node if n.op_type in SAVED[name]}
    assert fused == SAVED[name]  # the saved model holds them (else the test proves nothing)
    feeds = feeds_of(model)
    want = ort_run(path, feeds)
    compiled = api.compile(path, "npu", str(tmp_path / "out"))
    assert compiled.report["ops"]["offloaded"] > 0
    close(compiled.run(feeds), want)


# --------------------------------------------------------------------------------------
# Each op alone against onnxruntime's kernel
# --------------------------------------------------------------------------------------


def one_node(op: str, inputs: list[tuple[str, list[int]]], inits: dict[str, np.ndarray], outputs: list[str],
             domain: str = "com.microsoft", **attrs) -> onnx.ModelProto:
    names = [name for name, _ in inputs] + list(inits)
    return one_node_named(op, inputs, inits, outputs, names, domain, **attrs)


def one_node_named(op, inputs, inits, outputs, names, domain="com.microsoft", **attrs) -> onnx.ModelProto:
    node = oh.make_node(op, names, outputs, domain=domain, **attrs)
    graph = oh.make_graph([node], op.lower(), [oh.make_tensor_value_info(n, TYPES.get(n, TensorProto.FLOAT), s)
                                               for n, s in inputs],
                          [oh.make_tensor_value_info(o, TYPES.get(o, TensorProto.FLOAT), None) for o in outputs if o],
                          [nh.from_array(v, k) for k, v in inits.items()])
    opsets = [oh.make_opsetid("", 17), oh.make_opsetid("com.microsoft", 1)]
    return oh.make_model(graph, opset_imports=opsets)


RNG = np.random.default_rng(3)
TYPES = {"mask": TensorProto.INT32, "lengths": TensorProto.INT32, "ids": TensorProto.INT32,
         "segments": TensorProto.INT32, "mask_index": TensorProto.INT32, "qa": TensorProto.UINT8}
"""Inputs and outputs of another element type than float (inputs: integers drawn in
`RANGE`; no sequence is masked whole: there the -10000 of the mask leaves the scores a
float32 step of 1/1024, and onnxruntime and the C round differently)."""
RANGE = {"mask": (0, 2), "lengths": (1, 6), "ids": (0, 30), "segments": (0, 2), "qa": (0, 256)}


def _f(*shape: int, scale: float = 1.0) -> np.ndarray:
    return (RNG.standard_normal(shape) * scale).astype(np.float32)


CONV_IN = [("x", [1, 4, 6, 6])]
CONV_W = {"w": _f(8, 4, 3, 3, scale=0.3), "b": _f(8)}
ATTN_IN = [("x", [2, 5, 16])]
QKV = {"w": _f(16, 48, scale=0.3), "b": _f(48, scale=0.1)}
CASES = {
    "Attention": one_node("Attention", ATTN_IN, QKV, ["y"], num_heads=4),
    "Attention_causal_scaled": one_node("Attention", ATTN_IN, QKV, ["y"], num_heads=2, unidirectional=1, scale=0.3),
    "Attention_raw_mask": one_node_named("Attention", [*ATTN_IN, ("mask", [2, 5])], QKV, ["y"], ["x", "w", "b", "mask"],
                                         num_heads=4),
    "Attention_mask_3d_bias": one_node_named("Attention", [*ATTN_IN, ("mask", [2, 5, 5]), ("bias", [2, 4, 5, 5])], QKV,
                                             ["y"], ["x", "w", "b", "mask", "", "bias"], num_heads=4,
                                             mask_filter_value=-500.0),
    "Attention_qkv_sizes": one_node("Attention", ATTN_IN, {"w": _f(16, 40, scale=0.3), "b": _f(40)}, ["y"],
                                    num_heads=4, qkv_hidden_sizes=[12, 12, 16]),
    "Attention_ends_and_starts": one_node_named("Attention", ATTN_IN, {**QKV, "bounds": np.array([5, 4, 0, 2], np.int32)},
                                                ["y"], ["x", "w", "b", "bounds"], num_heads=4),
    "Attention_lengths": one_node_named("Attention", [*ATTN_IN, ("lengths", [2])], QKV, ["y"],
                                        ["x", "w", "b", "lengths"], num_heads=4),
    "EmbedLayerNormalization": one_node_named(
        "EmbedLayerNormalization", [("ids", [2, 5]), ("segments", [2, 5]), ("mask", [2, 5])],
        {"word": _f(30, 16), "position": _f(8, 16), "segment": _f(2, 16), "gamma": _f(16), "beta": _f(16)},
        ["y", "mask_index", "sum"], ["ids", "segments", "word", "position", "segment", "gamma", "beta", "mask"],
        epsilon=1e-5),
    "EmbedLayerNormalization_distilbert": one_node_named(
        "EmbedLayerNormalization", [("ids", [2, 5])],
        {"word": _f(30, 16), "position": _f(8, 16), "gamma": _f(16), "beta": _f(16),
         "pos": np.array([[4, 3, 2, 1, 0]], np.int32)},
        ["y", "mask_index"], ["ids", "", "word", "position", "", "gamma", "beta", "", "pos"]),
    "DynamicQuantizeMatMul": one_node("DynamicQuantizeMatMul", [("a", [2, 3, 8])],
                                      {"b": RNG.integers(-128, 128, (8, 6)).astype(np.int8),
                                       "scale": np.abs(_f(6)) / 64, "zero": np.zeros(6, np.int8), "bias": _f(6)}, ["y"]),
    "MatMulIntegerToFloat": one_node("MatMulIntegerToFloat", [("qa", [4, 8])],
                                     {"b": RNG.integers(0, 256, (8, 6)).astype(np.uint8),
                                      "a_scale": np.array(0.02, np.float32), "b_scale": np.array(0.01, np.float32),
                                      "a_zero": np.array(130, np.uint8), "b_zero": np.array(120, np.uint8),
                                      "bias": _f(6)}, ["y"]),
    "MultiHeadAttention": one_node("MultiHeadAttention", [("q", [2, 5, 16]), ("k", [2, 5, 16]), ("v", [2, 5, 8])],
                                   {"b": _f(40)}, ["y"], num_heads=4),
    "MultiHeadAttention_cross_mask": one_node_named(
        "MultiHeadAttention", [("q", [2, 3, 16]), ("k", [2, 6, 16]), ("v", [2, 6, 16]), ("mask", [2, 6])], {}, ["y"],
        ["q", "k", "v", "", "mask"], num_heads=2, scale=0.2),
    "MultiHeadAttention_lengths_bias_causal": one_node_named(
        "MultiHeadAttention", [("q", [2, 5, 16]), ("k", [2, 5, 16]), ("v", [2, 5, 16]), ("lengths", [2]),
                               ("bias", [1, 4, 5, 5])], {}, ["y"], ["q", "k", "v", "", "lengths", "bias"],
        num_heads=4, unidirectional=1),
    # KV caches: a decode step (one token after 4 cached) and a prompt after a cached prefix.
    "Attention_past_decode": one_node_named("Attention", [("x", [2, 1, 16]), ("past", [2, 2, 4, 4, 4]),
                                                          ("mask", [2, 5])], QKV, ["y", "present"],
                                            ["x", "w", "b", "mask", "past"], num_heads=4, unidirectional=1),
    "Attention_present": one_node("Attention", ATTN_IN, QKV, ["y", "present"], num_heads=4),
    "Attention_past_prompt": one_node_named("Attention", [("x", [2, 3, 16]), ("past", [2, 2, 2, 2, 8])], QKV,
                                            ["y", "present"], ["x", "w", "b", "", "past"], num_heads=2,
                                            unidirectional=1),
    "MultiHeadAttention_kv_cache": one_node_named(
        "MultiHeadAttention", [("q", [2, 1, 16]), ("k", [2, 1, 16]), ("v", [2, 1, 16]), ("past_key", [2, 4, 3, 4]),
                               ("past_value", [2, 4, 3, 4])], {"b": _f(48)}, ["y", "present_key", "present_value"],
        ["q", "k", "v", "b", "", "", "past_key", "past_value"], num_heads=4),
    "MultiHeadAttention_kv_cache_causal_mask": one_node_named(
        "MultiHeadAttention", [("q", [2, 3, 16]), ("k", [2, 3, 16]), ("v", [2, 3, 16]), ("mask", [2, 5]),
                               ("past_key", [2, 2, 2, 8]), ("past_value", [2, 2, 2, 8])], {},
        ["y", "present_key", "present_value"], ["q", "k", "v", "", "mask", "", "past_key", "past_value"],
        num_heads=2, unidirectional=1),
    "MultiHeadAttention_heads_first_kv": one_node_named(
        "MultiHeadAttention", [("q", [2, 3, 16]), ("k", [2, 4, 6, 4]), ("v", [2, 4, 6, 4]), ("mask", [2, 6])], {},
        ["y"], ["q", "k", "v", "", "mask"], num_heads=4),
    "Attention_runtime_weights": one_node_named("Attention", [*ATTN_IN, ("w", [16, 48])], {}, ["y"], ["x", "w"],
                                                num_heads=4),
    "FusedConv_relu_sum": one_node_named("FusedConv", [*CONV_IN, ("z", [1, 8, 6, 6])], CONV_W, ["y"],
                                         ["x", "w", "b", "z"], activation="Relu", pads=[1, 1, 1, 1]),
    "FusedConv_leaky": one_node("FusedConv", CONV_IN, CONV_W, ["y"], activation="LeakyRelu",
                                activation_params=[0.2], strides=[2, 2]),
    "FusedConv_clip": one_node("FusedConv", CONV_IN, CONV_W, ["y"], activation="Clip", activation_params=[-0.5, 0.5]),
    "FusedConv_hardsigmoid": one_node("FusedConv", CONV_IN, CONV_W, ["y"], activation="HardSigmoid",
                                      activation_params=[0.3, 0.4]),
    "FusedConv_tanh": one_node("FusedConv", CONV_IN, CONV_W, ["y"], activation="Tanh"),
    "FusedConv_sigmoid": one_node("FusedConv", CONV_IN, CONV_W, ["y"], activation="Sigmoid"),
    "FusedGemm_leaky": one_node("FusedGemm", [("a", [4, 8])], {"b": _f(16, 8), "c": _f(16)}, ["y"], transB=1,
                                alpha=0.5, beta=2.0, activation="LeakyRelu", activation_alpha=0.1),
    "FusedGemm_hardsigmoid": one_node("FusedGemm", [("a", [4, 8])], {"b": _f(8, 16)}, ["y"], activation="HardSigmoid",
                                      activation_alpha=0.3, activation_beta=0.4),
    "FusedGemm_relu": one_node("FusedGemm", [("a", [8, 4])], {"b": _f(8, 16), "c": _f(16)}, ["y"], transA=1,
                               activation="Relu"),
    "FusedMatMul_transB": one_node("FusedMatMul", [("a", [2, 3, 4, 8])], {"b": _f(5, 8)}, ["y"], transB=1, alpha=0.25),
    "FusedMatMul_transA": one_node("FusedMatMul", [("a", [2, 8, 4]), ("b", [2, 8, 5])], {}, ["y"], transA=1),
    "Gelu": one_node("Gelu", [("x", [3, 16])], {}, ["y"]),
    "BiasGelu": one_node("BiasGelu", [("x", [3, 16])], {"bias": _f(16)}, ["y"]),
    "FastGelu": one_node("FastGelu", [("x", [3, 16])], {}, ["y"]),
    "FastGelu_bias": one_node("FastGelu", [("x", [3, 16])], {"bias": _f(16)}, ["y"]),
    "QuickGelu": one_node("QuickGelu", [("x", [3, 16])], {}, ["y"], alpha=1.5),
    "SkipLayerNormalization": one_node("SkipLayerNormalization", [("x", [2, 5, 16]), ("skip", [2, 5, 16])],
                                       {"gamma": _f(16), "beta": _f(16), "bias": _f(16)}, ["y", "", "", "sum"],
                                       epsilon=1e-5),
    "SkipLayerNormalization_no_beta": one_node("SkipLayerNormalization", [("x", [2, 5, 16]), ("skip", [2, 5, 16])],
                                               {"gamma": _f(16)}, ["y"]),
    "SkipSimplifiedLayerNormalization": one_node("SkipSimplifiedLayerNormalization",
                                                 [("x", [2, 5, 16]), ("skip", [2, 5, 16])],
                                                 {"gamma": _f(16), "bias": _f(16)}, ["y", "", "", "sum"], epsilon=1e-5),
    "SimplifiedLayerNormalization": one_node("SimplifiedLayerNormalization", [("x", [2, 5, 16])], {"scale": _f(16)},
                                             ["y"], domain="", axis=-1, epsilon=1e-5),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_each_fused_op_matches_onnxruntime(tmp_path, case):
    model = CASES[case]
    path = str(tmp_path / f"{case}.onnx")
    onnx.save(model, path)
    rng = np.random.default_rng(zlib.crc32(case.encode()))  # the same inputs whichever tests run
    feeds = {vi.name: (rng.integers(*RANGE[vi.name], shape).astype(onnx.helper.tensor_dtype_to_np_dtype(TYPES[vi.name]))
                       if vi.name in TYPES
                       else rng.standard_normal(shape).astype(np.float32))
             for vi in model.graph.input for shape in [[d.dim_value for d in vi.type.tensor_type.shape.dim]]}
    if "mask" in feeds:
        feeds["mask"][..., 0] = 1  # no sequence masked whole (see RANGE)
    want = ort_run(path, feeds)
    close(run_function(import_onnx_model(model), feeds), want)
    close(api.compile(path, "npu", str(tmp_path / "out")).run(feeds), want)


def test_a_model_saved_at_the_cpu_specific_level_says_which_level_to_use(tmp_path):
    import onnxruntime as ort

    path = str(tmp_path / "all.onnx")
    so = ort.SessionOptions()
    so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    so.optimized_model_filepath = path
    so.log_severity_level = 3
    ort.InferenceSession(os.path.join(MODELS, "resnet_dynamo.onnx"), so, providers=["CPUExecutionProvider"])
    model = onnx.load(path)
    if not any(n.domain == "com.microsoft.nchwc" for n in model.graph.node):
        pytest.skip("onnxruntime wrote no blocked-layout ops on this CPU")
    with pytest.raises(CompileError) as e:
        import_onnx_model(model)
    assert "ops of domain 'com.microsoft.nchwc' are not supported" in str(e.value)
    assert "save the model at ORT_ENABLE_EXTENDED" in str(e.value) and "\n" not in str(e.value)


def test_what_is_not_supported_is_one_line():
    def error(model: onnx.ModelProto) -> str:
        with pytest.raises(CompileError) as e:
            import_onnx_model(model)
        assert "\n" not in str(e.value)
        return str(e.value)

    assert "activation 'Elu' is not supported" in error(one_node("FusedConv", CONV_IN, CONV_W, ["y"], activation="Elu"))
    assert "transBatchA and transBatchB are not supported" in error(
        one_node("FusedMatMul", [("a", [2, 3, 4])], {"b": _f(2, 4, 5)}, ["y"], transBatchA=1))
    assert "a KV cache shared with present (past_present_share_buffer, past_sequence_length) is not supported" in error(
        one_node("Attention", ATTN_IN, QKV, ["y", "present"], num_heads=4, past_present_share_buffer=1))
    assert "past_sequence_length, cache_indirection and the qk output are not supported" in error(one_node(
        "MultiHeadAttention", [("q", [2, 5, 16]), ("k", [2, 5, 16]), ("v", [2, 5, 8])], {}, ["y", "", "", "qk"],
        num_heads=4))
    assert "past_key [2, 4, 3, 4] and past_value [2, 4, 2, 4] must hold as many positions" in error(one_node_named(
        "MultiHeadAttention", [("q", [2, 1, 16]), ("k", [2, 1, 16]), ("v", [2, 1, 16]), ("past_key", [2, 4, 3, 4]),
                               ("past_value", [2, 4, 2, 4])], {}, ["y"],
        ["q", "k", "v", "", "", "", "past_key", "past_value"], num_heads=4))
    assert "past_key and past_value must be given together" in error(one_node_named(
        "MultiHeadAttention", [("q", [2, 1, 16]), ("k", [2, 1, 16]), ("v", [2, 1, 16]), ("past_key", [2, 4, 3, 4])],
        {}, ["y"], ["q", "k", "v", "", "", "", "past_key"], num_heads=4))
    assert "past [2, 2, 2, 3, 4] must be [2, 2, 4, past length, 4]" in error(one_node_named(
        "Attention", [*ATTN_IN, ("past", [2, 2, 2, 3, 4])], QKV, ["y"], ["x", "w", "b", "", "past"], num_heads=4))
    assert "unidirectional with keys given heads first needs a query of 1 or 6 positions (the keys'), not 3" in error(
        one_node("MultiHeadAttention", [("q", [2, 3, 16]), ("k", [2, 4, 6, 4]), ("v", [2, 4, 6, 4])], {}, ["y"],
                 num_heads=4, unidirectional=1))
    assert "mask [3] is not supported" in error(
        one_node_named("Attention", [*ATTN_IN, ("mask", [3])], QKV, ["y"], ["x", "w", "b", "mask"], num_heads=4))
    assert "B [2, 8, 6] must be 2-D (a batched B is not supported)" in error(
        one_node("DynamicQuantizeMatMul", [("a", [2, 3, 8])],
                 {"b": np.zeros((2, 8, 6), np.int8), "scale": np.array(0.1, np.float32)}, ["y"]))
    assert "input 2 is missing" in error(one_node_named("DynamicQuantizeMatMul", [("a", [2, 8])],
                                                        {"b": np.zeros((8, 6), np.int8)}, ["y"], ["a", "b"]))
    assert "the mean and inverse standard deviation outputs are not supported" in error(
        one_node("SkipLayerNormalization", [("x", [2, 16]), ("skip", [2, 16])], {"gamma": _f(16)}, ["y", "mean"]))


# --------------------------------------------------------------------------------------
# Quantized models, then saved by onnxruntime
# --------------------------------------------------------------------------------------

QUANTIZED = {("encoder_dynamo", "dynamic"): {"DynamicQuantizeMatMul", "MatMulIntegerToFloat", "FusedMatMul"},
             ("encoder_dynamo", "qdq"): {"QLinearSoftmax"},
             ("vit_dynamo", "qoperator"): {"QLinearAdd", "QLinearConcat", "QLinearSoftmax", "QGemm"}}
"""Test models, how they are quantized, and the com.microsoft ops onnxruntime's extended
level writes into the quantized model it saves."""


@pytest.mark.parametrize("name,how", sorted(QUANTIZED), ids=[f"{m}-{h}" for m, h in sorted(QUANTIZED)])
def test_quantized_models_saved_by_onnxruntime_compute_their_graph(tmp_path, name, how):
    """The saved model compiled for the npu computes what the quantized graph before
    onnxruntime fused it computes (onnxruntime without graph optimizations, the ONNX
    semantics; its own QLinearSoftmax is a table and may differ from them by steps)."""
    from onnxruntime.quantization import CalibrationDataReader, QuantFormat, QuantType, quantize_dynamic, \
        quantize_static

    src = os.path.join(MODELS, f"{name}.onnx")
    quantized, saved = str(tmp_path / "quantized.onnx"), str(tmp_path / "saved.onnx")
    feeds = feeds_of(onnx.load(src))
    if how == "dynamic":
        quantize_dynamic(src, quantized, weight_type=QuantType.QInt8)
    else:
        class Calibration(CalibrationDataReader):
            def __init__(self) -> None:
                rng = np.random.default_rng(1)
                self.batches = iter([{k: rng.standard_normal(v.shape).astype(np.float32) for k, v in feeds.items()}
                                     for _ in range(4)])

            def get_next(self):
                return next(self.batches, None)

        quantize_static(src, quantized, Calibration(),
                        quant_format=QuantFormat.QDQ if how == "qdq" else QuantFormat.QOperator)
    model = saved_by_onnxruntime(quantized, saved)
    assert {n.op_type for n in model.graph.node if n.domain == "com.microsoft"} == QUANTIZED[name, how]
    want = ort_run(quantized, feeds, optimize=False)
    close(api.compile(saved, "npu", str(tmp_path / "out")).run(feeds), want)
