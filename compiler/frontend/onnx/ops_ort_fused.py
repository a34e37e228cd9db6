"""Converters of the com.microsoft ops onnxruntime's graph optimizer writes into a model it
saves (`SessionOptions.optimized_model_filepath` at the extended level, optimum's
ORTOptimizer, `onnxruntime.transformers.optimizer`): each becomes the relay ops of the
ops it fused, so such a model imports, partitions and offloads as its unfused graph does.

    FusedConv(x, w, b?, z?) {activation, activation_params}  ->  act(conv(x, w) + b + z)
    FusedGemm(a, b, c?) {alpha, beta, transA, transB, activation, activation_alpha, ...}
                                                             ->  act(Gemm(a, b, c))
    FusedMatMul(a, b) {alpha, transA, transB}                ->  alpha * (a' b')
    Gelu(x), BiasGelu(x, bias)                               ->  relay.nn.gelu (x + bias)
    FastGelu(x, bias?)                                       ->  relay.nn.gelu {approximate = "tanh"}
    QuickGelu(x) {alpha = 1.702}                             ->  x * sigmoid(alpha * x)
    SkipLayerNormalization(x, skip, gamma, beta?, bias?) {epsilon}
                                                             ->  layer_norm(x + skip + bias), and x + skip + bias
    SkipSimplifiedLayerNormalization(x, skip, gamma, bias?) {epsilon}
                                                             ->  rms_norm(x + skip + bias), and x + skip + bias
    SimplifiedLayerNormalization(x, scale) {axis, epsilon}   ->  relay.nn.rms_norm (written in the ONNX domain)

Activations (onnxruntime's MLAS set): Relu, Tanh, Sigmoid, LeakyRelu (alpha), Clip (min,
max), HardSigmoid (alpha, beta). Refused with one line: other activations, FusedMatMul's
transBatchA / transBatchB, the normalizations' mean and inverse-deviation outputs.
"""

from __future__ import annotations

import numpy as np
from xdsl.ir import SSAValue

from accel.compiler.frontend.onnx.context import MICROSOFT_DOMAIN, Const, Node, converter
from accel.compiler.frontend.onnx.ops_nn import CONV_ATTRS, conv, gemm, hard_sigmoid_of, matmul_of, param_of_shape
from accel.compiler.frontend.onnx.ops_tensor import norm_axis
from accel.dialects import relay

# --------------------------------------------------------------------------------------
# Helpers
# --------------------------------------------------------------------------------------


def activation(n: Node, y: SSAValue, name: str, params: list[float]) -> SSAValue:
    """`name` (onnxruntime's fused activation) applied to `y`, with its parameters."""

    def param(i: int, default: float) -> float:
        return float(params[i]) if len(params) > i else default

    if name == "Relu":
        return n.emit(relay.ReluOp(y))
    if name == "Tanh":
        return n.emit(relay.TanhOp(y))
    if name == "Sigmoid":
        return n.emit(relay.SigmoidOp(y))
    if name == "LeakyRelu":
        return n.emit(relay.LeakyReluOp(y, alpha=param(0, 0.01)))
    if name == "Clip":
        return n.emit(relay.ClipOp(y, a_min=param(0, -np.inf), a_max=param(1, np.inf)))
    if name == "HardSigmoid":
        return hard_sigmoid_of(n, y, param(0, 0.2), param(1, 0.5))
    raise n.error(f"activation '{name}' is not supported (Relu, Tanh, Sigmoid, LeakyRelu, Clip, HardSigmoid are)")


def swap_last(n: Node, v: SSAValue) -> SSAValue:
    """`v` with its last two dims swapped."""
    rank = len(v.type.get_shape())
    return n.emit(relay.TransposeOp(v, axes=[*range(rank - 2), rank - 1, rank - 2]))


def biased(n: Node, x: SSAValue, *optional: int) -> SSAValue:
    """x plus the inputs `optional` that are given."""
    for i in optional:
        if n.has(i):
            x = n.emit(relay.AddOp(x, n.input(i)))
    return x


# --------------------------------------------------------------------------------------
# Converters
# --------------------------------------------------------------------------------------


@converter("FusedConv", attrs=(*CONV_ATTRS, "activation", "activation_params"), domain=MICROSOFT_DOMAIN)
def fused_conv(n: Node):
    y = biased(n, conv(n), 3)  # input 3: the sum (Conv + Add fused)
    name = n.string("activation", "")
    return activation(n, y, name, list(n.attr("activation_params", []))) if name else y


@converter("FusedGemm", attrs=("alpha", "beta", "transA", "transB", "activation", "activation_alpha",
                               "activation_beta", "activation_gamma"), domain=MICROSOFT_DOMAIN)
def fused_gemm(n: Node):
    y = gemm(n)
    name = n.string("activation", "")
    params = [n.attr("activation_alpha", 0.01 if name == "LeakyRelu" else 0.2), n.attr("activation_beta", 0.5)]
    return activation(n, y, name, params) if name else y


@converter("FusedMatMul", attrs=("alpha", "transA", "transB", "transBatchA", "transBatchB"), domain=MICROSOFT_DOMAIN)
def fused_matmul(n: Node):
    if n.attr("transBatchA", 0) or n.attr("transBatchB", 0):
        raise n.error("transBatchA and transBatchB are not supported")
    a, b = n.input(0), n.input(1)
    for flag, i in (("transA", 0), ("transB", 1)):
        if n.attr(flag, 0) and n.rank(i) < 2:
            raise n.error(f"{flag} needs an operand of rank 2 or more, got {list(n.shape(i))}")
    if n.attr("transA", 0):
        a = swap_last(n, a)
    if n.attr("transB", 0):
        b = swap_last(n, b)
    y = matmul_of(n, a, b, tuple(a.type.get_shape()), tuple(b.type.get_shape()))
    alpha = float(n.attr("alpha", 1.0))
    if alpha != 1.0:
        y = n.emit(relay.MultiplyOp(y, n.const_value(np.array(alpha, dtype=n.dtype(0)))))
    return y


@converter("Gelu", "BiasGelu", domain=MICROSOFT_DOMAIN)
def gelu(n: Node):
    return n.emit(relay.GeluOp(biased(n, n.input(0), 1)))


@converter("FastGelu", domain=MICROSOFT_DOMAIN)
def fast_gelu(n: Node):
    return n.emit(relay.GeluOp(biased(n, n.input(0), 1), approximate="tanh"))


@converter("QuickGelu", attrs=("alpha",), domain=MICROSOFT_DOMAIN)
def quick_gelu(n: Node):
    x = n.input(0)
    alpha = n.const_value(np.array(float(n.attr("alpha", 1.702)), dtype=n.dtype(0)))
    return n.emit(relay.MultiplyOp(x, n.emit(relay.SigmoidOp(n.emit(relay.MultiplyOp(x, alpha))))))


def _skip_sum(n: Node, bias: int) -> tuple[SSAValue, tuple[int, ...]]:
    """input + skip (+ bias), and the normalized shape (the last dim)."""
    if any(n.proto.output[1:3]):
        raise n.error("the mean and inverse standard deviation outputs are not supported")
    dims = n.shape(0)
    if not dims:
        raise n.error("the input must have rank 1 or more")
    return biased(n, n.emit(relay.AddOp(n.input(0), n.input(1))), bias), (dims[-1],)


@converter("SkipLayerNormalization", attrs=("epsilon",), domain=MICROSOFT_DOMAIN)
def skip_layer_norm(n: Node):
    s, normalized = _skip_sum(n, 4)
    gamma = param_of_shape(n, 2, normalized, "gamma")
    beta = param_of_shape(n, 3, normalized, "beta") if n.has(3) else \
        n.importer.materialize(Const(np.zeros(normalized, dtype=n.dtype(0))))
    y = n.emit(relay.LayerNormOp(s, gamma, beta, axis=-1, epsilon=float(n.attr("epsilon", 1e-12))))
    return [y, None, None, s]


@converter("SimplifiedLayerNormalization", attrs=("axis", "epsilon", "stash_type"), domain=MICROSOFT_DOMAIN)
def simplified_layer_norm(n: Node):
    """RMS norm (onnxruntime writes it in the ONNX domain: `ORT_OPS_OF_THE_ONNX_DOMAIN`)."""
    if any(n.proto.output[1:]):
        raise n.error("the inverse standard deviation output is not supported")
    if n.attr("stash_type", 1) != 1:
        raise n.error(f"stash_type {n.attr('stash_type')} is not supported (only 1: float32)")
    dims = n.shape(0)
    axis = norm_axis(n, n.attr("axis", -1), len(dims))
    gamma = param_of_shape(n, 1, tuple(dims[axis:]), "scale")
    return n.emit(relay.RMSNormOp(n.input(0), gamma, axis=axis, epsilon=float(n.attr("epsilon", 1e-5))))


@converter("SkipSimplifiedLayerNormalization", attrs=("epsilon",), domain=MICROSOFT_DOMAIN)
def skip_rms_norm(n: Node):
    s, normalized = _skip_sum(n, 3)
    gamma = param_of_shape(n, 2, normalized, "gamma")
    y = n.emit(relay.RMSNormOp(s, gamma, axis=-1, epsilon=float(n.attr("epsilon", 1e-12))))
    return [y, None, None, s]
