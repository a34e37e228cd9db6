"""The reference interpreter against onnxruntime, one ONNX op (or a short Q/DQ chain) at a time.

Each case builds the same computation twice: an ONNX model with `onnx.helper` and a relay
graph with `GraphBuilder` (never through the ONNX importer), runs both on the same seeded
random inputs and compares:

- float results: |interp - ort| <= 1e-5 * max|ort| + 1e-6 (elementwise, absolute);
- integer results: exactly equal;
- QLinearConv / QLinearMatMul only: within one quantization step, on at most 2% of the
  elements. onnxruntime folds the three scales into one multiplier
  x_scale * w_scale / y_scale before rounding, while relay's requantize rounds
  f32(acc * (x_scale * w_scale)) / y_scale (DequantizeLinear then QuantizeLinear); the two
  float orders can fall on opposite sides of a .5 tie. The exact semantics are checked
  bit for bit by the ConvInteger/MatMulInteger -> DequantizeLinear -> QuantizeLinear cases.

onnxruntime runs single-threaded; integer models run with graph optimizations off, so
that a Q/DQ chain is not fused into onnxruntime's own int8 kernels.
"""

from __future__ import annotations

import zlib
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import onnxruntime as ort
import pytest
from onnx import ModelProto, helper, numpy_helper

from accel.compiler.frontend.builder import GraphBuilder
from accel.compiler.diagnostics import CompileError
from accel.compiler.runtime.interpreter import interpret, run_function
from accel.dialects import relay

OPSET = 21
F32 = np.float32


# --------------------------------------------------------------------------------------
# Harness
# --------------------------------------------------------------------------------------


@dataclass
class Case:
    model: ModelProto
    module: object  # relay ModuleOp with the same input/output names
    feeds: dict[str, np.ndarray]
    compare: str = "auto"  # "auto" (float tolerance / exact integers) or "one_step"
    onnx_feeds: dict[str, np.ndarray] | None = None  # when ONNX wants another layout


def rng_for(name: str) -> np.random.Generator:
    return np.random.default_rng(zlib.crc32(name.encode()))


def onnx_model(nodes, inputs: dict[str, np.ndarray], outputs: dict[str, np.dtype], inits=None, opset=OPSET):
    graph = helper.make_graph(
        nodes,
        "case",
        [helper.make_tensor_value_info(n, helper.np_dtype_to_tensor_dtype(a.dtype), a.shape) for n, a in inputs.items()],
        [helper.make_tensor_value_info(n, helper.np_dtype_to_tensor_dtype(np.dtype(d)), None) for n, d in outputs.items()],
        [numpy_helper.from_array(np.asarray(a), n) for n, a in (inits or {}).items()],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)], ir_version=10)


def run_ort(model: ModelProto, feeds: dict[str, np.ndarray], integer: bool) -> list[np.ndarray]:
    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    options.inter_op_num_threads = 1
    if integer:
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    session = ort.InferenceSession(model.SerializeToString(), options, providers=["CPUExecutionProvider"])
    return session.run(None, feeds)


def assert_matches(got: np.ndarray, want: np.ndarray, compare: str) -> None:
    assert got.shape == want.shape, f"shape {got.shape} != onnxruntime's {want.shape}"
    assert got.dtype == want.dtype, f"dtype {got.dtype} != onnxruntime's {want.dtype}"
    if compare == "one_step":
        diff = np.abs(got.astype(np.int64) - want.astype(np.int64))
        assert diff.max(initial=0) <= 1, f"max difference {diff.max()} quantization steps"
        assert np.count_nonzero(diff) <= 0.02 * diff.size, f"{np.count_nonzero(diff)} of {diff.size} differ"
    elif want.dtype.kind == "f":
        tol = 1e-5 * float(np.max(np.abs(want), initial=0)) + 1e-6
        err = float(np.max(np.abs(got.astype(np.float64) - want.astype(np.float64)), initial=0))
        assert err <= tol, f"max error {err:.3g} > tolerance {tol:.3g}"
    else:
        np.testing.assert_array_equal(got, want)


def check(case: Case) -> None:
    names = [o.name for o in case.model.graph.output]
    results = run_function(case.module, case.feeds)
    assert list(results) == names
    integer = any(a.dtype.kind != "f" for a in case.feeds.values()) or case.compare == "one_step"
    expected = run_ort(case.model, case.onnx_feeds or case.feeds, integer)
    for name, want in zip(names, expected):
        assert_matches(results[name], want, case.compare)


CASES: list = []


def case(name: str):
    """Register a zero-argument case factory under a readable test id."""

    def register(factory: Callable[[], Case]):
        CASES.append(pytest.param(factory, id=name))
        return factory

    return register


def cases(prefix: str, variants: dict[str, dict]):
    """Register one case per variant: `factory(name, **variant)`."""

    def register(factory):
        for vname, kwargs in variants.items():
            name = f"{prefix}-{vname}"
            CASES.append(pytest.param(lambda f=factory, n=name, k=kwargs: f(n, **k), id=name))
        return factory

    return register


def randn(rng, shape, scale=1.0, dtype=F32):
    return np.asarray(rng.standard_normal(shape) * scale).astype(dtype)


def randint(rng, shape, dtype, lo=None, hi=None):
    info = np.iinfo(dtype)
    lo = info.min if lo is None else lo
    hi = info.max if hi is None else hi
    return np.asarray(rng.integers(lo, hi + 1, size=shape)).astype(dtype)


def single(op_type: str, feeds: dict[str, np.ndarray], out_dtype, inits=None, inputs=None, **attrs) -> ModelProto:
    """A one-node model `y = op_type(inputs...)`; `inputs` defaults to the feeds then the
    initializers, in order ("" for an omitted optional input)."""
    inits = inits or {}
    names = inputs if inputs is not None else [*feeds, *inits]
    node = helper.make_node(op_type, names, ["y"], **attrs)
    return onnx_model([node], feeds, {"y": out_dtype}, inits)


def unary_relay(name: str, x: np.ndarray, **props):
    b = GraphBuilder()
    v = b.input("x", x.shape, x.dtype)
    return b.build([getattr(b, name)(v, **props)], ["y"])


# --------------------------------------------------------------------------------------
# Convolution, dense, matmul
# --------------------------------------------------------------------------------------

CONV_VARIANTS = {
    "3x3": dict(x=(1, 3, 8, 8), w=(4, 3, 3, 3)),
    "stride2-pad1": dict(x=(1, 3, 9, 9), w=(5, 3, 3, 3), strides=(2, 2), pads=(1, 1, 1, 1)),
    "asym-pads": dict(x=(2, 2, 7, 6), w=(3, 2, 3, 2), strides=(2, 1), pads=(0, 1, 2, 0)),
    "dilation2": dict(x=(1, 2, 10, 9), w=(3, 2, 3, 3), dilations=(2, 3), pads=(2, 1, 1, 2)),
    "groups2": dict(x=(1, 4, 6, 6), w=(6, 2, 3, 3), group=2, pads=(1, 1, 1, 1)),
    "depthwise": dict(x=(1, 4, 8, 8), w=(4, 1, 3, 3), group=4, strides=(2, 2), pads=(1, 1, 1, 1)),
    "depthwise-mult2": dict(x=(2, 3, 7, 7), w=(6, 1, 5, 5), group=3, pads=(2, 2, 2, 2)),
    "1x1": dict(x=(1, 8, 5, 5), w=(16, 8, 1, 1)),
    "1x3-stride12": dict(x=(1, 2, 5, 11), w=(3, 2, 1, 3), strides=(1, 2)),
}


def _conv_attrs(w, strides=(1, 1), pads=(0, 0, 0, 0), dilations=(1, 1), group=1):
    onnx_attrs = dict(kernel_shape=list(w[2:]), strides=list(strides), pads=list(pads), dilations=list(dilations), group=group)
    relay_props = dict(strides=strides, padding=pads, dilation=dilations, groups=group)
    return onnx_attrs, relay_props


@cases("conv2d", CONV_VARIANTS)
def conv2d_case(name, x, w, **attrs):
    rng = rng_for(name)
    xv, wv = randn(rng, x), randn(rng, w)
    onnx_attrs, props = _conv_attrs(w, **attrs)
    model = single("Conv", {"x": xv}, F32, {"w": wv}, **onnx_attrs)
    b = GraphBuilder()
    y = b.conv2d(b.input("x", x), b.const(wv), **props)
    return Case(model, b.build([y], ["y"]), {"x": xv})


@case("conv2d-bias")
def conv2d_bias_case():
    rng = rng_for("conv2d-bias")
    xv, wv, bv = randn(rng, (1, 3, 6, 6)), randn(rng, (4, 3, 3, 3)), randn(rng, (4,))
    model = single("Conv", {"x": xv}, F32, {"w": wv, "b": bv}, kernel_shape=[3, 3], pads=[1, 1, 1, 1])
    b = GraphBuilder()
    y = b.bias_add(b.conv2d(b.input("x", xv.shape), b.const(wv), padding=(1, 1, 1, 1)), b.const(bv))
    return Case(model, b.build([y], ["y"]), {"x": xv})


@cases("dense-gemm", {"bias": dict(bias=True), "nobias": dict(bias=False)})
def dense_gemm_case(name, bias):
    rng = rng_for(name)
    xv, wv, bv = randn(rng, (3, 16)), randn(rng, (5, 16)), randn(rng, (5,))
    inits = {"w": wv, "b": bv} if bias else {"w": wv}
    model = single("Gemm", {"x": xv}, F32, inits, transB=1)
    b = GraphBuilder()
    y = b.dense(b.input("x", xv.shape), b.const(wv))
    if bias:
        y = b.bias_add(y, b.const(bv), axis=-1)
    return Case(model, b.build([y], ["y"]), {"x": xv})


@case("dense-3d-matmul")
def dense_3d_case():
    rng = rng_for("dense-3d")
    xv, wv = randn(rng, (2, 3, 8)), randn(rng, (6, 8))
    model = single("MatMul", {"x": xv}, F32, {"wt": np.ascontiguousarray(wv.T)})
    b = GraphBuilder()
    y = b.dense(b.input("x", xv.shape), b.const(wv))
    return Case(model, b.build([y], ["y"]), {"x": xv})


@cases("matmul", {"nn": dict(ta=False, tb=False), "tn": dict(ta=True, tb=False),
                  "nt": dict(ta=False, tb=True), "tt": dict(ta=True, tb=True)})  # fmt: skip
def matmul_case(name, ta, tb):
    rng = rng_for(name)
    m, k, n = 3, 7, 5
    a = randn(rng, (k, m) if ta else (m, k))
    bm = randn(rng, (n, k) if tb else (k, n))
    model = single("Gemm", {"a": a, "b": bm}, F32, transA=int(ta), transB=int(tb))
    b = GraphBuilder()
    y = b.matmul(b.input("a", a.shape), b.input("b", bm.shape), transpose_a=ta, transpose_b=tb)
    return Case(model, b.build([y], ["y"]), {"a": a, "b": bm})


@cases("batch_matmul", {
    "same-batch": dict(a=(2, 3, 4), b=(2, 4, 5), ta=False, tb=False),
    "broadcast": dict(a=(2, 1, 3, 4), b=(3, 4, 5), ta=False, tb=False),
    "transpose-b": dict(a=(2, 3, 4), b=(2, 5, 4), ta=False, tb=True),
    "transpose-a": dict(a=(3, 4, 2), b=(1, 4, 6), ta=True, tb=False),
})  # fmt: skip
def batch_matmul_case(name, a, b, ta, tb):
    rng = rng_for(name)
    av, bv = randn(rng, a), randn(rng, b)
    # ONNX MatMul has no transposes: feed it the transposed operands.
    oa = np.ascontiguousarray(np.swapaxes(av, -1, -2)) if ta else av
    ob = np.ascontiguousarray(np.swapaxes(bv, -1, -2)) if tb else bv
    model = onnx_model([helper.make_node("MatMul", ["oa", "ob"], ["y"])], {"oa": oa, "ob": ob}, {"y": F32})
    bld = GraphBuilder()
    y = bld.batch_matmul(bld.input("oa", a), bld.input("ob", b), transpose_a=ta, transpose_b=tb)
    return Case(model, bld.build([y], ["y"]), {"oa": av, "ob": bv}, onnx_feeds={"oa": oa, "ob": ob})


@cases("bias_add", {"nchw-axis1": dict(x=(2, 3, 4, 4), axis=1), "2d-axis-1": dict(x=(4, 6), axis=-1),
                    "3d-axis2": dict(x=(2, 3, 5), axis=2)})  # fmt: skip
def bias_add_case(name, x, axis):
    rng = rng_for(name)
    xv = randn(rng, x)
    ax = axis % len(x)
    bv = randn(rng, (x[ax],))
    shaped = bv.reshape((x[ax],) + (1,) * (len(x) - 1 - ax))  # numpy broadcasting along `axis`
    model = single("Add", {"x": xv}, F32, {"b": shaped})
    b = GraphBuilder()
    y = b.bias_add(b.input("x", x), b.const(bv), axis=axis)
    return Case(model, b.build([y], ["y"]), {"x": xv})


# --------------------------------------------------------------------------------------
# Elementwise
# --------------------------------------------------------------------------------------

BINARY_SHAPES = {
    "same": ((2, 3, 4), (2, 3, 4)),
    "row": ((2, 3, 4), (4,)),
    "both": ((2, 1, 4), (3, 1)),
    "scalar": ((3, 5), ()),
}


def _binary(name, onnx_op, relay_op, a_shape, b_shape, dtype):
    rng = rng_for(name)
    if np.dtype(dtype).kind == "f":
        av, bv = randn(rng, a_shape, dtype=dtype), randn(rng, b_shape, dtype=dtype)
        if onnx_op == "Div":
            bv = np.where(np.abs(bv) < 0.1, 0.5, bv).astype(dtype)
    else:
        av, bv = randint(rng, a_shape, dtype, -50, 50), randint(rng, b_shape, dtype, -9, 9)
        if onnx_op == "Div":
            bv[bv == 0] = 3
    model = single(onnx_op, {"a": av, "b": bv}, dtype)
    b = GraphBuilder()
    y = getattr(b, relay_op)(b.input("a", a_shape, dtype), b.input("b", b_shape, dtype))
    return Case(model, b.build([y], ["y"]), {"a": av, "b": bv})


for _onnx, _relay in (("Add", "add"), ("Sub", "subtract"), ("Mul", "multiply"), ("Div", "divide")):
    for _sname, (_sa, _sb) in BINARY_SHAPES.items():
        cases(_relay, {f"{_sname}-f32": dict(onnx_op=_onnx, relay_op=_relay, a_shape=_sa, b_shape=_sb, dtype=F32)})(_binary)
    cases(_relay, {"both-i32": dict(onnx_op=_onnx, relay_op=_relay, a_shape=(2, 1, 4), b_shape=(3, 1), dtype=np.int32)})(
        _binary
    )


@case("add-i8-wraps")
def int8_add_wrap_case():
    rng = rng_for("add-i8-wraps")
    av, bv = randint(rng, (64,), np.int8), randint(rng, (64,), np.int8)
    model = single("Add", {"a": av, "b": bv}, np.int8)
    b = GraphBuilder()
    y = b.add(b.input("a", av.shape, np.int8), b.input("b", bv.shape, np.int8))
    return Case(model, b.build([y], ["y"]), {"a": av, "b": bv})


UNARY = {
    "relu": ("Relu", "relu", {}, {}),
    "sigmoid": ("Sigmoid", "sigmoid", {}, {}),
    "tanh": ("Tanh", "tanh", {}, {}),
    "erf": ("Erf", "erf", {}, {}),
    "gelu": ("Gelu", "gelu", {}, {}),
    "gelu-tanh": ("Gelu", "gelu", {"approximate": "tanh"}, {"approximate": "tanh"}),
    "leaky_relu": ("LeakyRelu", "leaky_relu", {"alpha": 0.1}, {"alpha": 0.1}),
    "leaky_relu-default": ("LeakyRelu", "leaky_relu", {"alpha": 0.01}, {}),
    "hardsigmoid": ("HardSigmoid", "hardsigmoid", {"alpha": 0.3, "beta": 0.4}, {"alpha": 0.3, "beta": 0.4}),
    "hardsigmoid-default": ("HardSigmoid", "hardsigmoid", {}, {}),
    "hardswish": ("HardSwish", "hardswish", {}, {}),
    "softmax-last": ("Softmax", "softmax", {"axis": -1}, {"axis": -1}),
    "softmax-axis1": ("Softmax", "softmax", {"axis": 1}, {"axis": 1}),
}


@cases("unary", {k: dict(spec=v) for k, v in UNARY.items()})
def unary_case(name, spec):
    onnx_op, relay_op, onnx_attrs, props = spec
    rng = rng_for(name)
    xv = randn(rng, (2, 5, 7), scale=4.0)
    return Case(single(onnx_op, {"x": xv}, F32, **onnx_attrs), unary_relay(relay_op, xv, **props), {"x": xv})


@case("silu")
def silu_case():
    """ONNX has no SiLU before opset 24's Swish: x * Sigmoid(x) on the ONNX side."""
    xv = randn(rng_for("silu"), (2, 5, 7), scale=4.0)
    nodes = [helper.make_node("Sigmoid", ["x"], ["s"]), helper.make_node("Mul", ["x", "s"], ["y"])]
    return Case(onnx_model(nodes, {"x": xv}, {"y": F32}), unary_relay("silu", xv), {"x": xv})


@cases("relu", {"i8": dict(dtype=np.int8), "i32": dict(dtype=np.int32)})
def relu_int_case(name, dtype):
    xv = randint(rng_for(name), (3, 9), dtype)
    return Case(single("Relu", {"x": xv}, dtype), unary_relay("relu", xv), {"x": xv})


@cases("clip", {"f32": dict(lo=-0.5, hi=1.25), "f32-relu6": dict(lo=0.0, hi=6.0)})
def clip_case(name, lo, hi):
    xv = randn(rng_for(name), (4, 6), scale=3.0)
    model = single("Clip", {"x": xv}, F32, {"lo": np.array(lo, F32), "hi": np.array(hi, F32)})
    return Case(model, unary_relay("clip", xv, a_min=lo, a_max=hi), {"x": xv})


@case("clip-i8")
def clip_int_case():
    xv = randint(rng_for("clip-i8"), (40,), np.int8)
    model = single("Clip", {"x": xv}, np.int8, {"lo": np.array(-20, np.int8), "hi": np.array(30, np.int8)})
    return Case(model, unary_relay("clip", xv, a_min=-20.0, a_max=30.0), {"x": xv})


# --------------------------------------------------------------------------------------
# Pooling and normalization
# --------------------------------------------------------------------------------------

POOL_VARIANTS = {
    "k2s2": dict(x=(1, 3, 8, 8), k=(2, 2), s=(2, 2)),
    "k3s2p1": dict(x=(1, 2, 9, 9), k=(3, 3), s=(2, 2), p=(1, 1, 1, 1)),
    "k3s1-asym-pads": dict(x=(2, 2, 6, 7), k=(3, 2), s=(1, 1), p=(0, 1, 2, 0)),
    "ceil": dict(x=(1, 2, 8, 8), k=(3, 3), s=(2, 2), ceil=True),
    "ceil-pads": dict(x=(1, 2, 7, 7), k=(3, 3), s=(2, 2), p=(1, 1, 1, 1), ceil=True),
    # out = ceil((6 + 1 - 2) / 2) + 1 = 4 would start in the trailing padding: 3 outputs.
    "ceil-reduce-by-one": dict(x=(1, 1, 6, 6), k=(2, 2), s=(2, 2), p=(0, 0, 1, 1), ceil=True),
    "ceil-extra-cells": dict(x=(1, 2, 6, 6), k=(3, 3), s=(2, 2), p=(1, 1, 0, 0), ceil=True),
    "dilation2": dict(x=(1, 2, 9, 9), k=(2, 2), s=(1, 2), d=(2, 2), p=(1, 1, 1, 1)),
    "dilation-ceil": dict(x=(1, 1, 8, 8), k=(2, 3), s=(2, 2), d=(2, 1), p=(1, 1, 0, 1), ceil=True),
}


def _pool(name, onnx_op, relay_op, x, k, s, p=(0, 0, 0, 0), d=(1, 1), ceil=False, count_include_pad=None, dtype=F32):
    rng = rng_for(name)
    xv = randn(rng, x, dtype=dtype) if np.dtype(dtype).kind == "f" else randint(rng, x, dtype)
    attrs = dict(kernel_shape=list(k), strides=list(s), pads=list(p), dilations=list(d), ceil_mode=int(ceil))
    props = dict(pool_size=k, strides=s, padding=p, dilation=d, ceil_mode=ceil)
    if count_include_pad is not None:
        attrs["count_include_pad"] = int(count_include_pad)
        props["count_include_pad"] = count_include_pad
    return Case(single(onnx_op, {"x": xv}, dtype, **attrs), unary_relay(relay_op, xv, **props), {"x": xv})


@cases("max_pool2d", POOL_VARIANTS)
def max_pool_case(name, **kw):
    return _pool(name, "MaxPool", "max_pool2d", **kw)


@cases("max_pool2d-i8", {"k3s2p1": POOL_VARIANTS["k3s2p1"], "ceil-pads": POOL_VARIANTS["ceil-pads"]})
def max_pool_int8_case(name, **kw):
    return _pool(name, "MaxPool", "max_pool2d", dtype=np.int8, **kw)


@cases("avg_pool2d", {f"{k}-{'incl' if inc else 'excl'}": dict(v, count_include_pad=inc)
                      for k, v in POOL_VARIANTS.items() for inc in (False, True)})  # fmt: skip
def avg_pool_case(name, **kw):
    return _pool(name, "AveragePool", "avg_pool2d", **kw)


@case("global_avg_pool2d")
def global_avg_pool_case():
    xv = randn(rng_for("gap"), (2, 3, 5, 7))
    return Case(single("GlobalAveragePool", {"x": xv}, F32), unary_relay("global_avg_pool2d", xv), {"x": xv})


@cases("batch_norm", {"nchw": dict(x=(2, 3, 4, 5), eps=1e-5), "2d-eps1e-3": dict(x=(4, 6), eps=1e-3)})
def batch_norm_case(name, x, eps):
    rng = rng_for(name)
    xv = randn(rng, x)
    c = x[1]
    gamma, beta, mean = randn(rng, (c,)), randn(rng, (c,)), randn(rng, (c,))
    var = (rng.random(c) + 0.1).astype(F32)
    inits = {"g": gamma, "bt": beta, "m": mean, "v": var}
    model = single("BatchNormalization", {"x": xv}, F32, inits, epsilon=eps)
    b = GraphBuilder()
    y = b.batch_norm(b.input("x", x), *(b.const(a) for a in inits.values()), epsilon=eps)
    return Case(model, b.build([y], ["y"]), {"x": xv})


@cases("layer_norm", {"last": dict(x=(2, 3, 8), axis=-1, eps=1e-5), "axis1": dict(x=(2, 3, 4), axis=1, eps=1e-3)})
def layer_norm_case(name, x, axis, eps):
    rng = rng_for(name)
    xv = randn(rng, x, scale=2.0)
    norm_shape = x[axis % len(x):]
    gamma, beta = randn(rng, norm_shape), randn(rng, norm_shape)
    model = single("LayerNormalization", {"x": xv}, F32, {"g": gamma, "bt": beta}, axis=axis, epsilon=eps)
    b = GraphBuilder()
    y = b.layer_norm(b.input("x", x), b.const(gamma), b.const(beta), axis=axis, epsilon=eps)
    return Case(model, b.build([y], ["y"]), {"x": xv})


@cases("rms_norm", {"last": dict(x=(2, 3, 8), axis=-1, eps=1e-5), "axis1": dict(x=(2, 3, 4), axis=1, eps=1e-3)})
def rms_norm_case(name, x, axis, eps):
    rng = rng_for(name)
    xv = randn(rng, x, scale=2.0)
    gamma = randn(rng, x[axis % len(x):])
    node = helper.make_node("RMSNormalization", ["x", "g"], ["y"], axis=axis, epsilon=eps)
    model = onnx_model([node], {"x": xv}, {"y": F32}, {"g": gamma}, opset=23)  # RMSNormalization: opset 23
    b = GraphBuilder()
    y = b.rms_norm(b.input("x", x), b.const(gamma), axis=axis, epsilon=eps)
    return Case(model, b.build([y], ["y"]), {"x": xv})


@cases("mean", {
    "axis1": dict(axis=(1,), keepdims=False, exclude=False, onnx_axes=(1,)),
    "axes-keepdims": dict(axis=(0, 2), keepdims=True, exclude=False, onnx_axes=(0, 2)),
    "negative-axis": dict(axis=(-1,), keepdims=False, exclude=False, onnx_axes=(-1,)),
    "exclude": dict(axis=(1,), keepdims=False, exclude=True, onnx_axes=(0, 2)),
    "all": dict(axis=None, keepdims=False, exclude=False, onnx_axes=None),
})  # fmt: skip
def mean_case(name, axis, keepdims, exclude, onnx_axes):
    xv = randn(rng_for(name), (3, 4, 5))
    inits = {} if onnx_axes is None else {"axes": np.array(onnx_axes, np.int64)}
    model = single("ReduceMean", {"x": xv}, F32, inits, keepdims=int(keepdims))
    return Case(model, unary_relay("mean", xv, axis=axis, keepdims=keepdims, exclude=exclude), {"x": xv})


# --------------------------------------------------------------------------------------
# Shape manipulation
# --------------------------------------------------------------------------------------


@cases("reshape", {"codes": dict(x=(2, 3, 4), shape=(0, -1)), "plain": dict(x=(2, 3, 4), shape=(4, 6)),
                   "infer-middle": dict(x=(2, 3, 4), shape=(2, -1, 2))})  # fmt: skip
def reshape_case(name, x, shape):
    xv = randn(rng_for(name), x)
    model = single("Reshape", {"x": xv}, F32, {"shape": np.array(shape, np.int64)})
    return Case(model, unary_relay("reshape", xv, newshape=shape), {"x": xv})


@cases("transpose", {"perm": dict(perm=(0, 2, 3, 1)), "reverse": dict(perm=None)})
def transpose_case(name, perm):
    xv = randn(rng_for(name), (2, 3, 4, 5))
    attrs = {} if perm is None else {"perm": list(perm)}
    return Case(single("Transpose", {"x": xv}, F32, **attrs), unary_relay("transpose", xv, axes=perm), {"x": xv})


@cases("concatenate", {"axis1": dict(axis=1), "axis-neg": dict(axis=-1)})
def concatenate_case(name, axis):
    rng = rng_for(name)
    shapes = [(2, 3, 4), (2, 1, 4), (2, 2, 4)] if axis == 1 else [(2, 3, 1), (2, 3, 4), (2, 3, 2)]
    feeds = {f"x{i}": randn(rng, s) for i, s in enumerate(shapes)}
    model = single("Concat", feeds, F32, axis=axis)
    b = GraphBuilder()
    y = b.concatenate(*(b.input(n, a.shape) for n, a in feeds.items()), axis=axis)
    return Case(model, b.build([y], ["y"]), feeds)


@cases("pad", {"constant": dict(mode="constant", value=1.5), "edge": dict(mode="edge", value=0.0),
               "reflect": dict(mode="reflect", value=0.0)})  # fmt: skip
def pad_case(name, mode, value):
    xv = randn(rng_for(name), (2, 3, 4, 5))
    pad_width = (0, 0, 1, 0, 2, 1, 0, 3)  # [b0, a0, b1, a1, ...]
    onnx_pads = np.array(pad_width[0::2] + pad_width[1::2], np.int64)  # [b0, b1, ..., a0, a1, ...]
    inits = {"pads": onnx_pads, "value": np.array(value, F32)} if mode == "constant" else {"pads": onnx_pads}
    model = single("Pad", {"x": xv}, F32, inits, mode=mode)
    return Case(model, unary_relay("pad", xv, pad_width=pad_width, pad_value=value, pad_mode=mode), {"x": xv})


@case("batch_flatten")
def batch_flatten_case():
    xv = randn(rng_for("flatten"), (2, 3, 4, 5))
    return Case(single("Flatten", {"x": xv}, F32, axis=1), unary_relay("batch_flatten", xv), {"x": xv})


@cases("take", {"axis0": dict(axis=0, idx_shape=(4,)), "axis1-2d-indices": dict(axis=1, idx_shape=(2, 3)),
                "axis-neg": dict(axis=-1, idx_shape=(5,))})  # fmt: skip
def take_case(name, axis, idx_shape):
    rng = rng_for(name)
    xv = randn(rng, (4, 5, 6))
    n = xv.shape[axis]
    idx = rng.integers(-n, n, size=idx_shape).astype(np.int64)
    model = single("Gather", {"x": xv, "i": idx}, F32, axis=axis)
    b = GraphBuilder()
    y = b.take(b.input("x", xv.shape), b.input("i", idx.shape, np.int64), axis=axis)
    return Case(model, b.build([y], ["y"]), {"x": xv, "i": idx})


@cases("cast", {
    "f32-i32": dict(src=F32, dst=np.int32),
    "f32-i8": dict(src=F32, dst=np.int8),
    "f32-u8": dict(src=F32, dst=np.uint8),
    "i32-f32": dict(src=np.int32, dst=F32),
    "i32-i8-wraps": dict(src=np.int32, dst=np.int8),
    "f32-f16": dict(src=F32, dst=np.float16),
    "i8-i32": dict(src=np.int8, dst=np.int32),
})  # fmt: skip
def cast_case(name, src, dst):
    rng = rng_for(name)
    if np.dtype(src).kind == "f":
        # In range of the target: ONNX leaves out-of-range float -> int undefined.
        lo, hi = (0, 255) if dst == np.uint8 else (-120, 120)
        xv = rng.uniform(lo, hi, size=(50,)).astype(src)
    else:
        xv = randint(rng, (50,), src, -1000 if src == np.int32 else None, 1000 if src == np.int32 else None)
    model = single("Cast", {"x": xv}, dst, to=helper.np_dtype_to_tensor_dtype(np.dtype(dst)))
    b = GraphBuilder()
    y = b.cast(b.input("x", xv.shape, src), dst)
    return Case(model, b.build([y], ["y"]), {"x": xv})


# --------------------------------------------------------------------------------------
# Quantization
# --------------------------------------------------------------------------------------


def _ties(rng, shape, scale):
    """Values at exact .5 ties of x/scale (scale a power of two); about 10% saturate."""
    k = rng.integers(-150, 150, size=shape)
    return ((k + 0.5) * scale).astype(F32)


@cases("quantize", {
    "i8-tensor": dict(dtype=np.int8, per_axis=False),
    "u8-tensor": dict(dtype=np.uint8, per_axis=False),
    "i8-axis1": dict(dtype=np.int8, per_axis=True),
    "u8-axis1": dict(dtype=np.uint8, per_axis=True),
})  # fmt: skip
def quantize_case(name, dtype, per_axis):
    rng = rng_for(name)
    c = 3
    if per_axis:
        scale = np.array([0.25, 0.5, 0.125], F32)
        zp = np.array([-3, 0, 7] if dtype == np.int8 else [128, 100, 3], dtype)
        xv = np.concatenate([_ties(rng, (2, 1, 4), float(s)) for s in scale], axis=1)
    else:
        scale, zp = np.array(0.25, F32), np.array(-5 if dtype == np.int8 else 120, dtype)
        xv = _ties(rng, (2, c, 4), 0.25)
    xv[0, 0, :2] = (xv[0, 0, :2] + randn(rng, (2,), 0.1)).astype(F32)  # a few non-ties
    attrs = {"axis": 1} if per_axis else {}
    model = single("QuantizeLinear", {"x": xv}, dtype, {"s": scale, "zp": zp}, **attrs)
    b = GraphBuilder()
    y = b.qnn_quantize(b.input("x", xv.shape), b.const(scale), b.const(zp), axis=1 if per_axis else -1)
    return Case(model, b.build([y], ["y"]), {"x": xv})


@case("quantize-random-i8")
def quantize_random_case():
    rng = rng_for("quantize-random")
    xv = randn(rng, (4, 64))
    scale, zp = np.array(0.0173, F32), np.array(3, np.int8)
    model = single("QuantizeLinear", {"x": xv}, np.int8, {"s": scale, "zp": zp})
    b = GraphBuilder()
    y = b.qnn_quantize(b.input("x", xv.shape), b.const(scale), b.const(zp))
    return Case(model, b.build([y], ["y"]), {"x": xv})


@case("quantize-f32-division")
def quantize_division_case():
    """x / scale is a float32 division: 0.35f / 0.1f is a tie (3.5 -> 4) that float64 would
    not see, and 1.55f / 0.1f is 15.499999 (-> 15) where x * (1 / scale) gives 15.5."""
    xv = np.array([0.35, 1.55, 0.75, 2.35], F32)
    scale, zp = np.array(0.1, F32), np.array(0, np.int8)
    model = single("QuantizeLinear", {"x": xv}, np.int8, {"s": scale, "zp": zp})
    b = GraphBuilder()
    y = b.qnn_quantize(b.input("x", xv.shape), b.const(scale), b.const(zp))
    return Case(model, b.build([y], ["y"]), {"x": xv})


@cases("dequantize", {
    "i8-tensor": dict(dtype=np.int8, per_axis=False),
    "u8-axis0": dict(dtype=np.uint8, per_axis=True),
    "i32-bias": dict(dtype=np.int32, per_axis=False),
})  # fmt: skip
def dequantize_case(name, dtype, per_axis):
    rng = rng_for(name)
    lo, hi = (-100000, 100000) if dtype == np.int32 else (None, None)
    qv = randint(rng, (3, 10), dtype, lo, hi)
    if per_axis:
        scale, zp = np.array([0.1, 0.02, 1.5], F32), np.array([0, 128, 17], dtype)
    else:
        scale, zp = np.array(0.037, F32), np.array(0 if dtype == np.int32 else -4, dtype)
    attrs = {"axis": 0} if per_axis else {}
    model = single("DequantizeLinear", {"q": qv}, F32, {"s": scale, "zp": zp}, **attrs)
    b = GraphBuilder()
    y = b.qnn_dequantize(b.input("q", qv.shape, dtype), b.const(scale), b.const(zp), axis=0 if per_axis else -1)
    return Case(model, b.build([y], ["y"]), {"q": qv})


@cases("requantize", {
    "i32-i8-tensor": dict(src=np.int32, dst=np.int8, per_axis=False),
    "i32-i8-axis1": dict(src=np.int32, dst=np.int8, per_axis=True),
    "u8-i8": dict(src=np.uint8, dst=np.int8, per_axis=False),
})  # fmt: skip
def requantize_case(name, src, dst, per_axis):
    """relay.qnn.requantize against DequantizeLinear -> QuantizeLinear (bit exact)."""
    rng = rng_for(name)
    lo, hi = (-600, 600) if src == np.int32 else (None, None)
    qv = randint(rng, (2, 3, 4), src, lo, hi)
    if per_axis:
        in_s, in_zp = np.array([0.01, 0.003, 0.02], F32), np.zeros(3, src)
        out_s, out_zp = np.array([0.1, 0.05, 0.2], F32), np.array([1, -2, 0], dst)
    else:
        in_s, in_zp = np.array(0.0123, F32), np.array(0 if src == np.int32 else 131, src)
        out_s, out_zp = np.array(0.07, F32), np.array(-3, dst)
    attrs = {"axis": 1} if per_axis else {}
    nodes = [
        helper.make_node("DequantizeLinear", ["q", "in_s", "in_zp"], ["r"], **attrs),
        helper.make_node("QuantizeLinear", ["r", "out_s", "out_zp"], ["y"], **attrs),
    ]
    model = onnx_model(nodes, {"q": qv}, {"y": dst}, {"in_s": in_s, "in_zp": in_zp, "out_s": out_s, "out_zp": out_zp})
    b = GraphBuilder()
    y = b.qnn_requantize(b.input("q", qv.shape, src), *(b.const(a) for a in (in_s, in_zp, out_s, out_zp)),
                         axis=1 if per_axis else -1)  # fmt: skip
    return Case(model, b.build([y], ["y"]), {"q": qv})


QCONV_VARIANTS = {
    "u8-3x3": dict(x=(1, 3, 8, 8), w=(4, 3, 3, 3), xdt=np.uint8, wdt=np.uint8),
    "u8s8-stride2-pad1": dict(x=(1, 4, 9, 9), w=(6, 4, 3, 3), xdt=np.uint8, wdt=np.int8, strides=(2, 2), pads=(1, 1, 1, 1)),
    "u8-depthwise": dict(x=(1, 4, 7, 7), w=(4, 1, 3, 3), xdt=np.uint8, wdt=np.uint8, group=4, pads=(1, 1, 1, 1)),
    "u8-dilation-asym": dict(x=(1, 2, 9, 8), w=(3, 2, 3, 2), xdt=np.uint8, wdt=np.uint8, dilations=(2, 1), pads=(0, 1, 2, 0)),
}


def _qconv_inputs(rng, x, w, xdt, wdt):
    # Operands kept to 7 bits: onnxruntime's u8s8 AVX2 kernels pair products in int16
    # and saturate (vpmaddubsw) for full-range values, which is not ONNX's semantics.
    xv = randint(rng, x, xdt, 0 if xdt == np.uint8 else -64, 127 if xdt == np.uint8 else 63)
    wv = randint(rng, w, wdt, 0 if wdt == np.uint8 else -64, 127 if wdt == np.uint8 else 63)
    x_zp = np.array(60 if xdt == np.uint8 else -3, xdt)
    w_zp = np.array(64 if wdt == np.uint8 else 0, wdt)
    return xv, wv, x_zp, w_zp


@cases("qnn.conv2d-exact", QCONV_VARIANTS)
def qnn_conv2d_exact_case(name, x, w, xdt, wdt, **attrs):
    """qnn.conv2d -> requantize against ConvInteger -> DequantizeLinear -> QuantizeLinear:
    the i32 accumulator and the requantization are both bit exact."""
    rng = rng_for(name)
    xv, wv, x_zp, w_zp = _qconv_inputs(rng, x, w, xdt, wdt)
    x_s, w_s, y_s, y_zp = np.array(0.02, F32), np.array(0.013, F32), np.array(0.05, F32), np.array(-4, np.int8)
    acc_s = np.array(x_s * w_s, F32)
    onnx_attrs, props = _conv_attrs(w, **attrs)
    nodes = [
        helper.make_node("ConvInteger", ["x", "w", "x_zp", "w_zp"], ["acc"], **onnx_attrs),
        helper.make_node("DequantizeLinear", ["acc", "acc_s"], ["r"]),
        helper.make_node("QuantizeLinear", ["r", "y_s", "y_zp"], ["y"]),
    ]
    inits = {"w": wv, "x_zp": x_zp, "w_zp": w_zp, "acc_s": acc_s, "y_s": y_s, "y_zp": y_zp}
    model = onnx_model(nodes, {"x": xv}, {"y": np.int8}, inits)
    b = GraphBuilder()
    acc = b.qnn_conv2d(b.input("x", x, xdt), b.const(wv), b.const(x_zp), b.const(w_zp), b.const(x_s), b.const(w_s),
                       **props)  # fmt: skip
    y = b.qnn_requantize(acc, b.const(acc_s), b.const(np.array(0, np.int32)), b.const(y_s), b.const(y_zp))
    return Case(model, b.build([y], ["y"]), {"x": xv})


@cases("qnn.conv2d-i32", {"u8s8": QCONV_VARIANTS["u8s8-stride2-pad1"], "u8-depthwise": QCONV_VARIANTS["u8-depthwise"]})
def qnn_conv2d_acc_case(name, x, w, xdt, wdt, **attrs):
    """The raw i32 accumulator against ConvInteger."""
    rng = rng_for(name)
    xv, wv, x_zp, w_zp = _qconv_inputs(rng, x, w, xdt, wdt)
    onnx_attrs, props = _conv_attrs(w, **attrs)
    model = single("ConvInteger", {"x": xv}, np.int32, {"w": wv, "x_zp": x_zp, "w_zp": w_zp}, **onnx_attrs)
    b = GraphBuilder()
    one = b.const(np.array(1.0, F32))
    y = b.qnn_conv2d(b.input("x", x, xdt), b.const(wv), b.const(x_zp), b.const(w_zp), one, one, **props)
    return Case(model, b.build([y], ["y"]), {"x": xv})


@cases("qlinearconv", {
    "i8-tensor": dict(xdt=np.int8, per_channel=False, bias=False),
    "i8-per-channel-bias": dict(xdt=np.int8, per_channel=True, bias=True),
    "u8-tensor-bias": dict(xdt=np.uint8, per_channel=False, bias=True),
    "i8-depthwise-per-channel": dict(xdt=np.int8, per_channel=True, bias=False, group=4),
})  # fmt: skip
def qlinearconv_case(name, xdt, per_channel, bias, group=1):
    """QLinearConv as qnn.conv2d (+ i32 bias_add) + requantize: within one step (see top)."""
    rng = rng_for(name)
    c, o = 4, 4 if group > 1 else 6
    xv = randint(rng, (1, c, 8, 8), xdt, 0 if xdt == np.uint8 else -64, 127 if xdt == np.uint8 else 63)
    wv = randint(rng, (o, c // group, 3, 3), np.int8, -64, 63)
    x_s, x_zp = np.array(0.05, F32), np.array(70 if xdt == np.uint8 else -2, xdt)
    w_s = (rng.uniform(0.005, 0.02, o) if per_channel else rng.uniform(0.005, 0.02, ())).astype(F32)
    w_zp = np.zeros(o, np.int8) if per_channel else np.array(0, np.int8)
    y_s, y_zp = np.array(0.7, F32), np.array(5 if xdt == np.uint8 else -1, xdt)
    bv = randint(rng, (o,), np.int32, -2000, 2000)
    inits = {"x_s": x_s, "x_zp": x_zp, "w": wv, "w_s": w_s, "w_zp": w_zp, "y_s": y_s, "y_zp": y_zp}
    if bias:
        inits["bias"] = bv
    node = helper.make_node("QLinearConv", ["x", *inits], ["y"], kernel_shape=[3, 3], pads=[1, 1, 1, 1], group=group)
    model = onnx_model([node], {"x": xv}, {"y": xdt}, inits)
    b = GraphBuilder()
    acc = b.qnn_conv2d(b.input("x", xv.shape, xdt), b.const(wv), b.const(x_zp), b.const(w_zp), b.const(x_s),
                       b.const(w_s), padding=(1, 1, 1, 1), groups=group)  # fmt: skip
    if bias:
        acc = b.bias_add(acc, b.const(bv))
    acc_s = (x_s * w_s).astype(F32)
    y = b.qnn_requantize(acc, b.const(acc_s), b.const(np.array(0, np.int32)), b.const(y_s), b.const(y_zp), axis=1)
    return Case(model, b.build([y], ["y"]), {"x": xv}, compare="one_step")


@cases("qnn.dense", {"i8": dict(dt=np.int8, per_row=False), "u8-per-row-zp": dict(dt=np.uint8, per_row=True)})
def qnn_dense_case(name, dt, per_row):
    """qnn.dense's i32 result against MatMulInteger (relay's weight is [N, K], ONNX's B is [K, N])."""
    rng = rng_for(name)
    xv, wv = randint(rng, (3, 20), dt), randint(rng, (7, 20), dt)
    a_zp = np.array(5 if dt == np.int8 else 130, dt)
    b_zp = randint(rng, (7,), dt, 0, 20) if per_row else np.array(-7 if dt == np.int8 else 120, dt)
    model = single("MatMulInteger", {"x": xv}, np.int32, {"bt": np.ascontiguousarray(wv.T), "a_zp": a_zp, "b_zp": b_zp})
    b = GraphBuilder()
    one = b.const(np.array(1.0, F32))
    y = b.qnn_dense(b.input("x", xv.shape, dt), b.const(wv), b.const(a_zp), b.const(b_zp), one, one)
    return Case(model, b.build([y], ["y"]), {"x": xv})


@cases("qlinearmatmul", {"i8": dict(dt=np.int8), "u8": dict(dt=np.uint8)})
def qlinearmatmul_case(name, dt):
    """QLinearMatMul as qnn.dense + requantize: within one step (see top)."""
    rng = rng_for(name)
    xv, wv = randint(rng, (4, 32), dt), randint(rng, (9, 32), dt)
    a_s, a_zp = np.array(0.03, F32), np.array(3 if dt == np.int8 else 128, dt)
    b_s, b_zp = np.array(0.011, F32), np.array(-2 if dt == np.int8 else 125, dt)
    y_s, y_zp = np.array(0.4, F32), np.array(1 if dt == np.int8 else 127, dt)
    inits = {"a_s": a_s, "a_zp": a_zp, "bt": np.ascontiguousarray(wv.T), "b_s": b_s, "b_zp": b_zp, "y_s": y_s, "y_zp": y_zp}
    model = onnx_model([helper.make_node("QLinearMatMul", ["x", *inits], ["y"])], {"x": xv}, {"y": dt}, inits)
    b = GraphBuilder()
    acc = b.qnn_dense(b.input("x", xv.shape, dt), b.const(wv), b.const(a_zp), b.const(b_zp), b.const(a_s), b.const(b_s))
    y = b.qnn_requantize(acc, b.const(np.array(a_s * b_s, F32)), b.const(np.array(0, np.int32)), b.const(y_s),
                         b.const(y_zp))  # fmt: skip
    return Case(model, b.build([y], ["y"]), {"x": xv}, compare="one_step")


@cases("qnn.dense-exact", {"i8": dict(dt=np.int8)})
def qnn_dense_exact_case(name, dt):
    """qnn.dense -> requantize against MatMulInteger -> DequantizeLinear -> QuantizeLinear (bit exact)."""
    rng = rng_for(name)
    xv, wv = randint(rng, (4, 32), dt), randint(rng, (9, 32), dt)
    a_zp, b_zp = np.array(3, dt), np.array(-2, dt)
    acc_s, y_s, y_zp = np.array(0.03 * 0.011, F32), np.array(0.4, F32), np.array(1, dt)
    nodes = [
        helper.make_node("MatMulInteger", ["x", "bt", "a_zp", "b_zp"], ["acc"]),
        helper.make_node("DequantizeLinear", ["acc", "acc_s"], ["r"]),
        helper.make_node("QuantizeLinear", ["r", "y_s", "y_zp"], ["y"]),
    ]
    inits = {"bt": np.ascontiguousarray(wv.T), "a_zp": a_zp, "b_zp": b_zp, "acc_s": acc_s, "y_s": y_s, "y_zp": y_zp}
    model = onnx_model(nodes, {"x": xv}, {"y": dt}, inits)
    b = GraphBuilder()
    one = b.const(np.array(1.0, F32))
    acc = b.qnn_dense(b.input("x", xv.shape, dt), b.const(wv), b.const(a_zp), b.const(b_zp), one, one)
    y = b.qnn_requantize(acc, b.const(acc_s), b.const(np.array(0, np.int32)), b.const(y_s), b.const(y_zp))
    return Case(model, b.build([y], ["y"]), {"x": xv})


@cases("qnn.add", {"i8-same": dict(dt=np.int8, b_shape=(2, 3, 4)), "i8-broadcast": dict(dt=np.int8, b_shape=(4,)),
                   "u8": dict(dt=np.uint8, b_shape=(2, 3, 4))})  # fmt: skip
def qnn_add_case(name, dt, b_shape):
    """qnn.add against DequantizeLinear x2 -> Add -> QuantizeLinear (bit exact)."""
    rng = rng_for(name)
    av, bv = randint(rng, (2, 3, 4), dt), randint(rng, b_shape, dt)
    params = {
        "a_s": np.array(0.05, F32), "a_zp": np.array(-3 if dt == np.int8 else 120, dt),
        "b_s": np.array(0.125, F32), "b_zp": np.array(4 if dt == np.int8 else 131, dt),
        "y_s": np.array(0.1, F32), "y_zp": np.array(0 if dt == np.int8 else 128, dt),
    }  # fmt: skip
    nodes = [
        helper.make_node("DequantizeLinear", ["a", "a_s", "a_zp"], ["fa"]),
        helper.make_node("DequantizeLinear", ["b", "b_s", "b_zp"], ["fb"]),
        helper.make_node("Add", ["fa", "fb"], ["s"]),
        helper.make_node("QuantizeLinear", ["s", "y_s", "y_zp"], ["y"]),
    ]
    model = onnx_model(nodes, {"a": av, "b": bv}, {"y": dt}, params)
    b = GraphBuilder()
    y = b.qnn_add(b.input("a", av.shape, dt), b.input("b", b_shape, dt), *(b.const(v) for v in params.values()))
    return Case(model, b.build([y], ["y"]), {"a": av, "b": bv})


# --------------------------------------------------------------------------------------
# Run-time math
# --------------------------------------------------------------------------------------


@cases("math-unary", {
    "sqrt": dict(op="Sqrt", relay_name="sqrt", dt=F32), "exp": dict(op="Exp", relay_name="exp", dt=F32),
    "log": dict(op="Log", relay_name="log", dt=F32), "neg": dict(op="Neg", relay_name="negative", dt=F32),
    "neg-i8": dict(op="Neg", relay_name="negative", dt=np.int8), "abs": dict(op="Abs", relay_name="abs", dt=F32),
    "abs-i32": dict(op="Abs", relay_name="abs", dt=np.int32), "floor": dict(op="Floor", relay_name="floor", dt=F32),
    "ceil": dict(op="Ceil", relay_name="ceil", dt=F32), "round": dict(op="Round", relay_name="round", dt=F32),
    **{t.lower(): dict(op=t, relay_name=t.lower(), dt=F32)
       for t in ("Sin", "Cos", "Tan", "Asin", "Acos", "Atan", "Sinh", "Cosh", "Asinh", "Acosh", "Atanh")},
})  # fmt: skip
def math_unary_case(name, op, relay_name, dt):
    rng = rng_for(name)
    xv = np.abs(randn(rng, (2, 3, 4), 2.0)) if op in ("Sqrt", "Log") else randn(rng, (2, 3, 4), 2.0)
    if op in ("Floor", "Ceil", "Round"):  # halves (to even), fractions of either sign, -0.0
        xv.flat[:8] = [0.5, 1.5, 2.5, -0.5, -1.5, -2.5, -0.25, -0.0]
    if op in ("Asin", "Acos"):  # [-1, 1], its ends included
        xv = np.clip(xv / 2, -1, 1)
        xv.flat[:2] = [-1.0, 1.0]
    if op == "Atanh":  # (-1, 1)
        xv = np.clip(xv / 2, -0.99, 0.99)
    if op == "Acosh":  # [1, inf)
        xv = np.abs(xv) + F32(1.0)
    if dt != F32:
        xv = randint(rng, (2, 3, 4), dt, -100, 100)
    return Case(single(op, {"x": xv}, dt), unary_relay(relay_name, xv), {"x": xv})


@cases("math-binary", {
    "pow": dict(op="Pow", relay_name="power", dt=F32, b_shape=(4,)),
    "max": dict(op="Max", relay_name="maximum", dt=F32, b_shape=(3, 1)),
    "min-i64": dict(op="Min", relay_name="minimum", dt=np.int64, b_shape=(1, 4)),
})  # fmt: skip
def math_binary_case(name, op, relay_name, dt, b_shape):
    rng = rng_for(name)
    if dt == F32:
        av, bv = randn(rng, (2, 3, 4)), randn(rng, b_shape)
        if op == "Pow":
            av = np.abs(av) + F32(0.1)
    else:
        av, bv = randint(rng, (2, 3, 4), dt, -50, 50), randint(rng, b_shape, dt, -50, 50)
    b = GraphBuilder()
    y = getattr(b, relay_name)(b.input("a", av.shape, dt), b.input("b", bv.shape, dt))
    return Case(single(op, {"a": av, "b": bv}, dt), b.build([y], ["y"]), {"a": av, "b": bv})


@cases("compare", {
    "equal": dict(op="Equal", relay_name="equal"), "less": dict(op="Less", relay_name="less"),
    "less_equal": dict(op="LessOrEqual", relay_name="less_equal"), "greater": dict(op="Greater", relay_name="greater"),
    "greater_equal": dict(op="GreaterOrEqual", relay_name="greater_equal"),
    "not_equal": dict(op="NotEqual", relay_name="not_equal"),
})  # fmt: skip
def compare_case(name, op, relay_name):
    """Integer operands (some equal pairs) broadcast; the result is bool. ONNX has no
    NotEqual: it is Not(Equal) there."""
    rng = rng_for(name)
    av, bv = randint(rng, (3, 4), np.int32, -3, 3), randint(rng, (4,), np.int32, -3, 3)
    if op == "NotEqual":
        nodes = [helper.make_node("Equal", ["a", "b"], ["e"]), helper.make_node("Not", ["e"], ["y"])]
        model = onnx_model(nodes, {"a": av, "b": bv}, {"y": np.bool_})
    else:
        model = single(op, {"a": av, "b": bv}, np.bool_)
    b = GraphBuilder()
    y = getattr(b, relay_name)(b.input("a", av.shape, np.int32), b.input("b", bv.shape, np.int32))
    return Case(model, b.build([y], ["y"]), {"a": av, "b": bv})


@cases("logical", {"and": dict(op="And", relay_name="logical_and"), "or": dict(op="Or", relay_name="logical_or"),
                   "xor": dict(op="Xor", relay_name="logical_xor")})
def logical_case(name, op, relay_name):
    rng = rng_for(name)
    av, bv = rng.integers(0, 2, (3, 4)).astype(bool), rng.integers(0, 2, (4,)).astype(bool)
    b = GraphBuilder()
    y = getattr(b, relay_name)(b.input("a", av.shape, np.bool_), b.input("b", bv.shape, np.bool_))
    return Case(single(op, {"a": av, "b": bv}, np.bool_), b.build([y], ["y"]), {"a": av, "b": bv})


@case("where-logical_not")
def where_case():
    """Where(Not(x < 0), x, fill) with a broadcast condition and a scalar fill."""
    rng = rng_for("where")
    xv = randn(rng, (2, 3, 4))
    fill = np.array(-1e9, F32)
    nodes = [helper.make_node("Less", ["x", "zero"], ["neg"]), helper.make_node("Not", ["neg"], ["pos"]),
             helper.make_node("Where", ["pos", "x", "fill"], ["y"])]
    zero = np.zeros((3, 1), F32)
    model = onnx_model(nodes, {"x": xv}, {"y": F32}, {"zero": zero, "fill": fill})
    b = GraphBuilder()
    x = b.input("x", xv.shape)
    y = b.where(b.logical_not(b.less(x, b.const(zero))), x, b.const(fill))
    return Case(model, b.build([y], ["y"]), {"x": xv})


@cases("reduce", {
    "sum-last-keep": dict(op="ReduceSum", relay_name="sum", axes=[-1], keep=1, dt=F32),
    "sum-i32-all": dict(op="ReduceSum", relay_name="sum", axes=None, keep=0, dt=np.int32),
    "max-01": dict(op="ReduceMax", relay_name="max", axes=[0, 1], keep=0, dt=F32),
    "min-i8": dict(op="ReduceMin", relay_name="min", axes=[1], keep=1, dt=np.int8),
    "prod-2": dict(op="ReduceProd", relay_name="prod", axes=[2], keep=0, dt=F32),
})  # fmt: skip
def reduce_case(name, op, relay_name, axes, keep, dt):
    rng = rng_for(name)
    xv = randn(rng, (2, 3, 4)) if dt == F32 else randint(rng, (2, 3, 4), dt, -20, 20)
    inits = {} if axes is None else {"axes": np.array(axes, np.int64)}
    model = single(op, {"x": xv}, dt, inits, keepdims=keep)
    return Case(model, unary_relay(relay_name, xv, axis=axes, keepdims=bool(keep)), {"x": xv})


@cases("strided_slice", {
    "steps": dict(starts=[1, -1], ends=[8, -100], axes=[1, 2], steps=[2, -2]),
    "default-axes": dict(starts=[1], ends=[2], axes=None, steps=None),
})  # fmt: skip
def strided_slice_case(name, starts, ends, axes, steps):
    rng = rng_for(name)
    xv = randn(rng, (2, 9, 4))
    inits = {"starts": np.array(starts, np.int64), "ends": np.array(ends, np.int64)}
    if axes is not None:
        inits.update(axes=np.array(axes, np.int64), steps=np.array(steps, np.int64))
    model = single("Slice", {"x": xv}, F32, inits)
    b = GraphBuilder()
    y = b.strided_slice(b.input("x", xv.shape), begin=starts, end=ends, strides=steps, axes=axes)
    return Case(model, b.build([y], ["y"]), {"x": xv})


@cases("broadcast_to", {"f32": dict(dt=F32, x=(3, 1), shape=(2, 1, 4)), "i64": dict(dt=np.int64, x=(4,), shape=(3, 1))})
def broadcast_to_case(name, dt, x, shape):
    rng = rng_for(name)
    xv = randn(rng, x) if dt == F32 else randint(rng, x, dt, -9, 9)
    model = single("Expand", {"x": xv}, dt, {"shape": np.array(shape, np.int64)})
    return Case(model, unary_relay("broadcast_to", xv, shape=shape), {"x": xv})


# --------------------------------------------------------------------------------------
# Ops of issue 11: resize, conv2d_transpose, depth/space, gather, max-pool indices,
# dyn.clip, dynamic quantization parameters
# --------------------------------------------------------------------------------------


@cases("resize", {
    "nearest-asymmetric-floor": dict(method="nearest", coord="asymmetric", nearest="floor", out=(8, 9)),
    "nearest-half-pixel": dict(method="nearest", coord="half_pixel", nearest="round_prefer_ceil", out=(3, 7)),
    "linear-half-pixel": dict(method="linear", coord="half_pixel", nearest="round_prefer_floor", out=(7, 4)),
    "linear-align-corners": dict(method="linear", coord="align_corners", nearest="round_prefer_floor", out=(9, 9)),
})
def resize_case(name, method, coord, nearest, out):
    xv = randn(rng_for(name), (1, 2, 4, 5))
    model = single("Resize", {"x": xv}, F32, {"sizes": np.array([1, 2, *out], np.int64)}, inputs=["x", "", "", "sizes"],
                   mode=method, coordinate_transformation_mode=coord, nearest_mode=nearest)
    module = unary_relay("resize2d", xv, size=out, method=method, coordinate_transformation_mode=coord,
                         nearest_mode=nearest)
    return Case(model, module, {"x": xv})


@case("conv_transpose")
def conv_transpose_case():
    rng = rng_for("conv_transpose")
    xv, wv = randn(rng, (1, 4, 5, 4)), randn(rng, (4, 3, 3, 3))
    model = single("ConvTranspose", {"x": xv}, F32, {"w": wv}, group=2, strides=[2, 2], pads=[1, 0, 0, 1],
                   output_padding=[1, 1], dilations=[1, 2])
    b = GraphBuilder()
    y = b.conv2d_transpose(b.input("x", xv.shape), b.const(wv), groups=2, strides=(2, 2), padding=(1, 0, 0, 1),
                           output_padding=(1, 1), dilation=(1, 2))
    return Case(model, b.build([y], ["y"]), {"x": xv})


@cases("depth_space", {"d2s-dcr": dict(op="DepthToSpace", mode="DCR"), "d2s-crd": dict(op="DepthToSpace", mode="CRD"),
                       "s2d": dict(op="SpaceToDepth", mode=None)})
def depth_space_case(name, op, mode):
    xv = randn(rng_for(name), (1, 8, 4, 6) if op == "DepthToSpace" else (1, 2, 4, 6))
    attrs = {"mode": mode} if mode else {}
    model = single(op, {"x": xv}, F32, blocksize=2, **attrs)
    relay_name = "depth_to_space" if op == "DepthToSpace" else "space_to_depth"
    return Case(model, unary_relay(relay_name, xv, block_size=2, **attrs), {"x": xv})


@case("gather_elements")
def gather_elements_case():
    rng = rng_for("gather_elements")
    xv, iv = randn(rng, (3, 5)), rng.integers(-3, 3, (2, 4)).astype(np.int64)
    model = single("GatherElements", {"x": xv}, F32, {"i": iv}, axis=0)
    b = GraphBuilder()
    y = b.gather(b.input("x", xv.shape), b.const(iv), axis=0)
    return Case(model, b.build([y], ["y"]), {"x": xv})


@case("gather_nd")
def gather_nd_case():
    rng = rng_for("gather_nd")
    xv, iv = randn(rng, (2, 3, 4)), np.stack([rng.integers(-3, 3, (2, 5)), rng.integers(-4, 4, (2, 5))], -1)
    model = single("GatherND", {"x": xv}, F32, {"i": iv.astype(np.int64)}, batch_dims=1)
    b = GraphBuilder()
    y = b.gather_nd(b.input("x", xv.shape), b.const(iv.astype(np.int64)), batch_dims=1)
    return Case(model, b.build([y], ["y"]), {"x": xv})


@cases("scatter", {"elements-add": dict(op="ScatterElements", reduction="add"),
                   "nd-max": dict(op="ScatterND", reduction="max")})
def scatter_case(name, op, reduction):
    rng = rng_for(name)
    xv = randn(rng, (4, 3))
    if op == "ScatterElements":  # distinct rows per column (onnxruntime's order of duplicates is open)
        iv = np.stack([rng.permutation(4)[:2] - 2 for _ in range(3)], -1).astype(np.int64)
        uv, props, relay_name = randn(rng, (2, 3)), {"axis": 0}, "scatter_elements"
    else:
        iv, uv, props, relay_name = np.array([[3], [-4]], np.int64), randn(rng, (2, 3)), {}, "scatter_nd"
    model = single(op, {"x": xv, "u": uv}, F32, {"i": iv}, inputs=["x", "i", "u"], reduction=reduction, **props)
    b = GraphBuilder()
    y = getattr(b, relay_name)(b.input("x", xv.shape), b.const(iv), b.input("u", uv.shape), reduction=reduction,
                               **props)
    return Case(model, b.build([y], ["y"]), {"x": xv, "u": uv})


@case("max_pool_indices")
def max_pool_indices_case():
    xv = rng_for("max_pool_indices").permutation(2 * 3 * 7 * 7).reshape(2, 3, 7, 7).astype(F32)
    node = helper.make_node("MaxPool", ["x"], ["y", "i"], kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1])
    model = onnx_model([node], {"x": xv}, {"y": F32, "i": np.int64})
    b = GraphBuilder()
    x = b.input("x", xv.shape)
    props = dict(pool_size=(3, 3), strides=(2, 2), padding=(1, 1, 1, 1))
    return Case(model, b.build([b.max_pool2d(x, **props), b.max_pool2d_indices(x, **props)], ["y", "i"]), {"x": xv})


@case("dyn_clip")
def dyn_clip_case():
    rng = rng_for("dyn_clip")
    xv, lo, hi = randn(rng, (3, 4), scale=2.0), np.array(-0.5, F32), np.array(1.0, F32)
    model = single("Clip", {"x": xv, "lo": lo, "hi": hi}, F32)
    b = GraphBuilder()
    y = b.dyn_clip(b.input("x", xv.shape), b.input("lo", ()), b.input("hi", ()))
    return Case(model, b.build([y], ["y"]), {"x": xv, "lo": lo, "hi": hi})


@case("dynamic_quantize")
def dynamic_quantize_case():
    xv = randn(rng_for("dynamic_quantize"), (4, 6), scale=3.0)
    node = helper.make_node("DynamicQuantizeLinear", ["x"], ["y", "s", "z"])
    model = onnx_model([node], {"x": xv}, {"y": np.uint8, "s": F32, "z": np.uint8})
    b = GraphBuilder()
    x = b.input("x", xv.shape)
    scale, zero_point = b.qnn_dynamic_scale(x), b.qnn_dynamic_zero_point(x)
    return Case(model, b.build([b.qnn_quantize(x, scale, zero_point), scale, zero_point], ["y", "s", "z"]), {"x": xv})


@case("scans_topk")
def scans_topk_case():
    """CumSum, CumProd (opset 26), TopK: ties by the lower index (few distinct values)."""
    rng = rng_for("scans_topk")
    xv, iv = randn(rng, (3, 6)), rng.integers(-2, 3, (3, 6)).astype(np.int64)
    nodes = [helper.make_node("CumSum", ["x", "one"], ["cs"], exclusive=1, reverse=1),
             helper.make_node("CumProd", ["i", "zero"], ["cp"]),
             helper.make_node("TopK", ["i", "k"], ["tv", "ti"], axis=1),
             helper.make_node("TopK", ["x", "k"], ["sv", "si"], axis=1, largest=0)]
    model = onnx_model(nodes, {"x": xv, "i": iv}, {"cs": F32, "cp": np.int64, "tv": np.int64, "ti": np.int64,
                                                   "sv": F32, "si": np.int64},
                       {"one": np.array(1), "zero": np.array(0), "k": np.array([4])}, opset=26)
    b = GraphBuilder()
    x, i = b.input("x", xv.shape), b.input("i", iv.shape, np.int64)
    ti = b.topk(i, k=4, axis=1)
    outs = [b.cumsum(x, axis=1, exclusive=True, reverse=True), b.cumprod(i, axis=0), b.gather(i, ti, axis=1), ti,
            b.topk(x, k=4, axis=1, is_ascend=True, ret_type="values"), b.topk(x, k=4, axis=1, is_ascend=True)]
    return Case(model, b.build(outs, ["cs", "cp", "tv", "ti", "sv", "si"]), {"x": xv, "i": iv})


@case("bit_ops")
def bit_ops_case():
    """BitwiseAnd/Or/Xor/Not, BitShift (unsigned: onnxruntime's), BitCast (opset 26)."""
    rng = rng_for("bit_ops")
    av = rng.integers(-2**31, 2**31, (2, 5), dtype=np.int64).astype(np.int32)
    bv = rng.integers(-2**31, 2**31, (5,), dtype=np.int64).astype(np.int32)
    uv = rng.integers(0, 2**16, (2, 5)).astype(np.uint16)
    sv = rng.integers(0, 16, (2, 5)).astype(np.uint16)
    xv = randn(rng, (2, 5))
    nodes = [helper.make_node("BitwiseAnd", ["a", "b"], ["and"]), helper.make_node("BitwiseOr", ["a", "b"], ["or"]),
             helper.make_node("BitwiseXor", ["b", "a"], ["xor"]), helper.make_node("BitwiseNot", ["a"], ["not"]),
             helper.make_node("BitShift", ["u", "s"], ["shl"], direction="LEFT"),
             helper.make_node("BitShift", ["u", "s"], ["shr"], direction="RIGHT"),
             helper.make_node("BitCast", ["x"], ["bits"], to=helper.np_dtype_to_tensor_dtype(np.dtype(np.int32)))]
    model = onnx_model(nodes, {"a": av, "b": bv, "u": uv, "s": sv, "x": xv},
                       {"and": np.int32, "or": np.int32, "xor": np.int32, "not": np.int32, "shl": np.uint16,
                        "shr": np.uint16, "bits": np.int32}, opset=26)
    g = GraphBuilder()
    a, b, u, s = g.input("a", av.shape, np.int32), g.input("b", bv.shape, np.int32), g.input("u", uv.shape, np.uint16), \
        g.input("s", sv.shape, np.uint16)
    x = g.input("x", xv.shape)
    outs = [g.bitwise_and(a, b), g.bitwise_or(a, b), g.bitwise_xor(b, a), g.bitwise_not(a), g.left_shift(u, s),
            g.right_shift(u, s), g.reinterpret(x, np.int32)]
    return Case(model, g.build(outs, ["and", "or", "xor", "not", "shl", "shr", "bits"]),
                {"a": av, "b": bv, "u": uv, "s": sv, "x": xv})


@case("det")
def det_case():
    xv = randn(rng_for("det"), (2, 3, 4, 4))
    model = onnx_model([helper.make_node("Det", ["x"], ["y"])], {"x": xv}, {"y": F32}, opset=22)
    b = GraphBuilder()
    return Case(model, b.build([b.det(b.input("x", xv.shape))], ["y"]), {"x": xv})

@cases("grid_sample", {
    "linear-zeros": dict(mode="linear", padding="zeros", align=0),
    "nearest-border": dict(mode="nearest", padding="border", align=1),
    "cubic-reflection": dict(mode="cubic", padding="reflection", align=0),
})
def grid_sample_case(name, mode, padding, align):
    rng = rng_for(name)
    xv, gv = randn(rng, (2, 3, 5, 6)), (rng.uniform(-1.3, 1.3, (2, 4, 7, 2))).astype(F32)
    model = single("GridSample", {"x": xv, "g": gv}, F32, mode=mode, padding_mode=padding, align_corners=align)
    b = GraphBuilder()
    y = b.grid_sample(b.input("x", xv.shape), b.input("g", gv.shape), method=mode, padding_mode=padding,
                      align_corners=bool(align))
    return Case(model, b.build([y], ["y"]), {"x": xv, "g": gv})


@cases("roi_align", {"avg": dict(mode="avg"), "max": dict(mode="max")})
def roi_align_case(name, mode):
    rng = rng_for(name)
    xv = randn(rng, (2, 3, 9, 11))
    lo = rng.uniform(0, 6, (4, 2))
    rois = np.concatenate([lo, lo + rng.uniform(1, 8, (4, 2))], axis=1).astype(F32)
    bi = np.array([0, 1, 1, 0], np.int64)
    model = single("RoiAlign", {"x": xv, "r": rois}, F32, {"b": bi}, mode=mode, output_height=3, output_width=2,
                   sampling_ratio=0, spatial_scale=0.8)
    b = GraphBuilder()
    y = b.roi_align(b.input("x", xv.shape), b.input("r", rois.shape), b.const(bi), mode=mode, output_height=3,
                    output_width=2, spatial_scale=0.8)
    return Case(model, b.build([y], ["y"]), {"x": xv, "r": rois})


@cases("roi_pool", {"1x1": dict(pooled=(1, 1), scale=1.0), "3x2": dict(pooled=(3, 2), scale=0.5)})
def roi_pool_case(name, pooled, scale):
    """MaxRoiPool (onnxruntime has MaxRoiPool-1 only: an opset-13 model)."""
    rng = rng_for(name)
    xv = randn(rng, (2, 3, 9, 11))
    lo = rng.uniform(-2, 10, (5, 2)) / scale
    rois = np.concatenate([np.array([[0], [1], [1.7], [0.2], [1]]), lo, lo + rng.uniform(-1, 9, (5, 2)) / scale],
                          axis=1).astype(F32)
    node = helper.make_node("MaxRoiPool", ["x", "r"], ["y"], pooled_shape=list(pooled), spatial_scale=scale)
    model = onnx_model([node], {"x": xv, "r": rois}, {"y": F32}, opset=13)
    b = GraphBuilder()
    y = b.roi_pool(b.input("x", xv.shape), b.input("r", rois.shape), pooled_shape=pooled, spatial_scale=scale)
    return Case(model, b.build([y], ["y"]), {"x": xv, "r": rois})


@case("max_unpool")
def max_unpool_case():
    rng = rng_for("max_unpool")
    xv = randn(rng, (2, 3, 2, 3))
    # MaxPool's indices of a 2x2/2 pool over [2, 3, 4, 6]: one cell of each window.
    plane = (np.arange(2)[:, None, None, None] * 3 + np.arange(3)[None, :, None, None]) * 24
    rows = np.arange(2)[None, None, :, None] * 2 + rng.integers(0, 2, (2, 3, 2, 3))
    cols = np.arange(3)[None, None, None, :] * 2 + rng.integers(0, 2, (2, 3, 2, 3))
    iv = (plane + rows * 6 + cols).astype(np.int64)
    model = single("MaxUnpool", {"x": xv}, F32, {"i": iv}, kernel_shape=[2, 2], strides=[2, 2])
    b = GraphBuilder()
    y = b.max_unpool(b.input("x", xv.shape), b.const(iv), shape=(2, 3, 4, 6))
    return Case(model, b.build([y], ["y"]), {"x": xv})


# --------------------------------------------------------------------------------------


@pytest.mark.parametrize("factory", CASES)
def test_matches_onnxruntime(factory):
    check(factory())


def test_every_relay_op_is_compared():
    """Every relay graph op (all have an ONNX counterpart) appears in some case."""
    seen = set()
    for param in CASES:
        seen.update(op.name for op in param.values[0]().module.walk())
    missing = {cls.name for cls in relay.GRAPH_OPS} - seen
    assert not missing, f"no onnxruntime comparison for {sorted(missing)}"


# --------------------------------------------------------------------------------------
# Interpreter entry points (no onnxruntime involved)
# --------------------------------------------------------------------------------------


def _two_input_module():
    b = GraphBuilder()
    x, w = b.input("x", (2, 3)), b.input("w", (3,))
    y = b.bias_add(b.relu(x), w, axis=1)
    return b.build([y, b.mean(y)], ["y", "m"])


def test_run_function_by_name_and_by_position():
    module = _two_input_module()
    x = np.array([[1, -1, 2], [-3, 4, 0]], F32)
    w = np.array([0.5, 1, -1], F32)
    by_name = run_function(module, {"w": w, "x": x})
    assert list(by_name) == ["y", "m"]
    assert by_name["y"].tolist() == [[1.5, 1, 1], [0.5, 5, -1]] and by_name["m"].dtype == F32
    np.testing.assert_array_equal(run_function(module, [x, w])["y"], by_name["y"])
    y, m = interpret(module, x, w)
    np.testing.assert_array_equal(y, by_name["y"])
    assert m.shape == () and m == F32(8 / 6)


@pytest.mark.parametrize(
    "inputs,message",
    [
        ({"x": np.zeros((2, 3), F32)}, "missing input 'w' (the inputs are: x, w)"),
        ({"x": np.zeros((2, 3), F32), "w": np.zeros(3, F32), "v": 1}, "unexpected input 'v'"),
        ([np.zeros((2, 3), F32)], "expected 2 inputs (x, w), got 1"),
        ({"x": np.zeros((3, 2), F32), "w": np.zeros(3, F32)},
         "input 'x': expected shape [2, 3] and dtype float32, got shape [3, 2] and dtype float32"),
        ({"x": np.zeros((2, 3), np.float64), "w": np.zeros(3, F32)},
         "input 'x': expected shape [2, 3] and dtype float32, got shape [2, 3] and dtype float64"),
    ],
    ids=["missing", "extra", "count", "shape", "dtype"],
)  # fmt: skip
def test_run_function_rejects_bad_inputs(inputs, message):
    with pytest.raises(CompileError) as err:
        run_function(_two_input_module(), inputs)
    assert message in str(err.value) and "\n" not in str(err.value)


def test_runtime_error_is_located_at_the_op():
    b = GraphBuilder()
    x, i = b.input("x", (4,)), b.input("i", (1,), np.int32)
    module = b.build([b.take(x, i)], ["y"])
    take = next(op for op in module.walk() if op.name == "relay.take")
    with pytest.raises(CompileError) as err:
        run_function(module, {"x": np.zeros(4, F32), "i": np.array([4], np.int32)})
    assert err.value.op is take
    assert "'relay.take' op index 4 is out of range for axis 0 of size 4" in str(err.value)


def test_unknown_function_and_unsupported_op():
    with pytest.raises(CompileError, match="no function @nope"):
        run_function(_two_input_module(), {}, name="nope")
    from xdsl.dialects import arith, func
    from xdsl.dialects.builtin import FloatAttr, ModuleOp, f32
    from xdsl.ir import Block, Region

    body = Block()
    body.add_ops([c := arith.ConstantOp(FloatAttr(1.0, f32)), func.ReturnOp(c)])
    module = ModuleOp([func.FuncOp("main", ([], [f32]), Region(body))])
    with pytest.raises(CompileError, match="Could not find interpretation function for op arith.constant"):
        run_function(module, {})


def test_ten_thousand_tiny_ops_run_in_seconds():
    import time

    b = GraphBuilder()
    x = b.input("x", (2, 2))
    v = x
    for i in range(10_000):
        v = b.relu(v) if i % 2 else b.add(v, x)
    module = b.build([v], ["y"])
    start = time.perf_counter()
    (y,) = interpret(module, np.ones((2, 2), F32))
    elapsed = time.perf_counter() - start
    assert y.tolist() == [[5001.0, 5001.0], [5001.0, 5001.0]]
    assert elapsed < 5.0, f"{elapsed:.2f} s for 10k ops"
