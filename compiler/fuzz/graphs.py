"""Hypothesis strategies for random valid relay graphs.

    from accel.compiler.fuzz.graphs import relay_graphs, FLOAT_OPS

    @given(relay_graphs(max_ops=12))
    def test_pass_preserves_semantics(graph):
        before = run_function(graph.module, graph.inputs)
        MyPass().apply(ctx, graph.module)
        after = run_function(graph.module, graph.inputs)
        ...

`relay_graphs(max_ops=..., ops=...)` draws a `RelayGraph`: a verified module whose
`@main` is a DAG of relay ops built through `GraphBuilder`, plus random numpy inputs
keyed by input name (`run_function`'s convention). Graphs mix convolutions, dense
layers, elementwise ops with numpy broadcasting, activations, pools, shape ops,
constants and quantize/dequantize chains; values often have several consumers and
`@main` returns every value nobody consumes (so nothing is dead), sometimes plus an
inner value (a value that is both an output and an operand).

`ops` restricts the op kinds (names from `OP_KINDS`, the `GraphBuilder` method names,
e.g. `{"conv2d", "add", "relu"}`). Tensors stay small (at most a few thousand
elements) so interpreting a graph takes milliseconds. Data is well conditioned: divisors
are bounded away from zero, quantization scales are positive, gather indices are in
range, so results are finite unless an op makes them infinite by itself.

The tests and the differential fuzzer (`accel.compiler.fuzz.differential`, `accel-fuzz`)
share this generator; it needs hypothesis (the `test` extra).
"""

from __future__ import annotations

import io
import math
from collections.abc import Callable, Collection
from dataclasses import dataclass, field

import numpy as np
from hypothesis import strategies as st
from xdsl.dialects.builtin import ModuleOp, TensorType
from xdsl.ir import BlockArgument, SSAValue
from xdsl.printer import Printer

from accel.compiler.frontend.builder import GraphBuilder
from accel.compiler.tensors import numpy_dtype

MAX_ELEMENTS = 4096
"""No drawn value has more elements than this."""

# --------------------------------------------------------------------------------------
# The drawn graph
# --------------------------------------------------------------------------------------


@dataclass
class RelayGraph:
    module: ModuleOp
    inputs: dict[str, np.ndarray]
    kinds: list[str] = field(default_factory=list)
    """The op kinds used, in build order (constants not counted)."""

    def text(self) -> str:
        out = io.StringIO()
        Printer(stream=out).print_op(self.module)
        return out.getvalue()

    def __repr__(self) -> str:  # hypothesis shows this for a failing example
        shapes = {k: f"{v.dtype}{list(v.shape)}" for k, v in self.inputs.items()}
        # Long lines are constants: keep their start (the IR stays readable).
        lines = [line if len(line) <= 240 else line[:200] + " ..." for line in self.text().splitlines()]
        return f"RelayGraph(inputs={shapes}, kinds={self.kinds})\n" + "\n".join(lines)

    def _repr_pretty_(self, printer, cycle) -> None:  # hypothesis' pretty printer
        printer.text(repr(self))


# --------------------------------------------------------------------------------------
# Generator state
# --------------------------------------------------------------------------------------

FLOAT = np.dtype(np.float32)
QUANT_DTYPES = (np.dtype(np.int8), np.dtype(np.uint8))


class _Gen:
    """The values built so far and helpers to draw operands and constants."""

    def __init__(self, draw: Callable, rng: np.random.Generator):
        self.draw = draw
        self.rng = rng
        self.b = GraphBuilder()
        self.pool: list[SSAValue] = []
        """Values that later ops may consume (inputs and op results, not constants)."""
        self.outputs_only: set[SSAValue] = set()
        """Values of the pool no later op consumes (see `_qdq_layer`)."""

    # -- values ------------------------------------------------------------------------

    def pick(self, accept: Callable[[SSAValue], bool]) -> SSAValue | None:
        candidates = [v for v in self.pool if v not in self.outputs_only and accept(v)]
        if not candidates:
            return None
        # Prefer recent values (deeper graphs) but reach back too (several consumers).
        i = self.draw(st.integers(0, len(candidates) - 1))
        return candidates[len(candidates) - 1 - i]

    def const(self, array: np.ndarray) -> SSAValue:
        return self.b.const(array)

    def floats(self, shape, low=-1.0, high=1.0) -> np.ndarray:
        return self.rng.uniform(low, high, size=shape).astype(np.float32)

    def nonzero(self, shape) -> np.ndarray:
        """Values in ±[0.5, 2]: safe divisors."""
        magnitude = self.rng.uniform(0.5, 2.0, size=shape)
        sign = self.rng.choice([-1.0, 1.0], size=shape)
        return (magnitude * sign).astype(np.float32)

    def scalar_scale(self) -> SSAValue:
        return self.const(np.array(self.draw(st.sampled_from([0.02, 0.05, 0.1, 0.25])), np.float32))

    def scalar_zero_point(self, dtype: np.dtype) -> SSAValue:
        lo, hi = (-8, 8) if dtype == np.int8 else (120, 136)
        return self.const(np.array(self.draw(st.integers(lo, hi)), dtype))


def shape(v: SSAValue) -> tuple[int, ...]:
    assert isinstance(v.type, TensorType)
    return tuple(v.type.get_shape())


def dtype(v: SSAValue) -> np.dtype:
    return numpy_dtype(v.type)


def is_float(v: SSAValue) -> bool:
    return dtype(v) == FLOAT


def is_quant(v: SSAValue) -> bool:
    return dtype(v) in QUANT_DTYPES


def is_image(v: SSAValue) -> bool:
    return len(shape(v)) == 4


def small(*shapes) -> bool:
    return all(math.prod(s) <= MAX_ELEMENTS for s in shapes)


# --------------------------------------------------------------------------------------
# Op kinds: each draws its operands and properties and returns the new value, or None
# when nothing in the pool suits it.
# --------------------------------------------------------------------------------------

Kind = Callable[[_Gen], SSAValue | None]
KINDS: dict[str, Kind] = {}


def kind(name: str):
    def register(fn: Kind) -> Kind:
        KINDS[name] = fn
        return fn

    return register


def _window(g: _Gen, size: int, max_k: int = 3) -> tuple[int, int, tuple[int, int], int]:
    """(kernel, dilation, (pad_lo, pad_hi), stride) that fit `size`."""
    pad = (g.draw(st.integers(0, 1)), g.draw(st.integers(0, 1)))
    k = g.draw(st.integers(1, min(max_k, size + sum(pad))))
    max_d = 2 if 2 * (k - 1) + 1 <= size + sum(pad) else 1
    d = g.draw(st.integers(1, max_d)) if k > 1 else 1
    s = g.draw(st.integers(1, 2))
    return k, d, pad, s


def _conv_params(g: _Gen, x: SSAValue):
    _, c, h, w = shape(x)
    kh, dh, (pt, pb), sh = _window(g, h)
    kw, dw, (pl, pr), sw = _window(g, w)
    groups = g.draw(st.sampled_from([d for d in range(1, c + 1) if c % d == 0]))
    out_channels = groups * g.draw(st.integers(1, max(1, 4 // groups)))
    props = dict(strides=(sh, sw), padding=(pt, pl, pb, pr), dilation=(dh, dw), groups=groups)
    return (out_channels, c // groups, kh, kw), props


@kind("conv2d")
def _conv2d(g: _Gen):
    x = g.pick(lambda v: is_float(v) and is_image(v))
    if x is None:
        return None
    wshape, props = _conv_params(g, x)
    scale = 1.0 / math.sqrt(math.prod(wshape[1:]))
    y = g.b.conv2d(x, g.const(g.floats(wshape, -scale, scale)), **props)
    if g.draw(st.booleans()):
        y = g.b.bias_add(y, g.const(g.floats((wshape[0],))))
    return y


@kind("conv2d_bias_relu")
def _conv2d_bias_relu(g: _Gen):
    """The chain most accelerator patterns match (TVM's conv2d_bias_relu composite)."""
    x = g.pick(lambda v: is_float(v) and is_image(v))
    if x is None:
        return None
    wshape, props = _conv_params(g, x)
    y = g.b.conv2d(x, g.const(g.floats(wshape, -0.3, 0.3)), **props)
    return g.b.relu(g.b.bias_add(y, g.const(g.floats((wshape[0],)))))


@kind("dense")
def _dense(g: _Gen):
    x = g.pick(lambda v: is_float(v) and 1 <= len(shape(v)) <= 3 and shape(v)[-1] <= 64)
    if x is None:
        return None
    k = shape(x)[-1]
    n = g.draw(st.integers(1, 8))
    if not small(shape(x)[:-1] + (n,)):
        return None
    return g.b.dense(x, g.const(g.floats((n, k), -1 / math.sqrt(k), 1 / math.sqrt(k))))


@kind("batch_matmul")
def _batch_matmul(g: _Gen):
    x = g.pick(lambda v: is_float(v) and 2 <= len(shape(v)) <= 3 and shape(v)[-1] <= 64)
    if x is None:
        return None
    k = shape(x)[-1]
    n = g.draw(st.integers(1, 6))
    # rhs batch dims broadcast against lhs's ([N, K] is rhs transposed, TVM's default)
    rhs_batch = g.draw(st.sampled_from([(), (1,), shape(x)[:-2] or (2,)]))
    return g.b.batch_matmul(x, g.const(g.floats(rhs_batch + (n, k))))


@kind("matmul")
def _matmul(g: _Gen):
    """x [M, K] times a constant [K, N] (Keras, Gemm transB = 0) or [N, K] (transB = 1)."""
    x = g.pick(lambda v: is_float(v) and len(shape(v)) == 2 and shape(v)[-1] <= 64)
    if x is None:
        return None
    k, n = shape(x)[-1], g.draw(st.integers(1, 6))
    transpose_b = g.draw(st.booleans())
    return g.b.matmul(x, g.const(g.floats((n, k) if transpose_b else (k, n))), transpose_b=transpose_b)


def _broadcast_partner(g: _Gen, s: tuple[int, ...]) -> tuple[int, ...]:
    """A shape that broadcasts with `s` to `s`: some dims set to 1, leading dims dropped."""
    dims = [d if g.draw(st.booleans()) else 1 for d in s]
    drop = g.draw(st.integers(0, len(dims)))
    return tuple(dims[drop:])


def _binary(name: str):
    @kind(name)
    def make(g: _Gen):
        x = g.pick(is_float)
        if x is None:
            return None
        s = shape(x)
        other = None
        if name != "divide" and g.draw(st.booleans()):
            # A second graph value that broadcasts with x (x itself included).
            other = g.pick(lambda v: is_float(v) and _broadcasts_to(shape(v), s))
        if other is None:
            partner = _broadcast_partner(g, s)
            data = g.nonzero(partner) if name == "divide" else g.floats(partner)
            other = g.const(data)
        lhs, rhs = (other, x) if name != "divide" and g.draw(st.booleans()) else (x, other)
        return getattr(g.b, name)(lhs, rhs)

    return make


def _broadcasts_to(a: tuple[int, ...], target: tuple[int, ...]) -> bool:
    if len(a) > len(target):
        return False
    return all(d in (1, t) for d, t in zip(a[::-1], target[::-1]))


for _name in ("add", "subtract", "multiply", "divide"):
    _binary(_name)


def _unary(name: str, accept=is_float, props: Callable[[_Gen, SSAValue], dict] | None = None):
    @kind(name)
    def make(g: _Gen):
        x = g.pick(accept)
        if x is None:
            return None
        return getattr(g.b, name)(x, **(props(g, x) if props else {}))

    return make


_unary("relu", accept=lambda v: is_float(v) or is_quant(v))
_unary("sigmoid")
_unary("tanh")
_unary("erf")
_unary("gelu", props=lambda g, x: dict(approximate=g.draw(st.sampled_from(["none", "tanh"]))))
_unary("leaky_relu", props=lambda g, x: dict(alpha=g.draw(st.floats(0.0, 0.5))))
_unary(
    "softmax",
    accept=lambda v: is_float(v) and len(shape(v)) >= 1,
    props=lambda g, x: dict(axis=g.draw(st.integers(-len(shape(x)), len(shape(x)) - 1))),
)


@kind("clip")
def _clip(g: _Gen):
    x = g.pick(is_float)
    if x is None:
        return None
    a_min = g.draw(st.one_of(st.just(-math.inf), st.just(0.0), st.floats(-1.0, 0.0)))
    a_max = g.draw(st.one_of(st.just(math.inf), st.just(6.0), st.floats(0.0, 1.0)))
    return g.b.clip(x, a_min=a_min, a_max=a_max)


def _pool(name: str):
    @kind(name)
    def make(g: _Gen):
        accept = (lambda v: is_image(v) and (is_float(v) or is_quant(v))) if name == "max_pool2d" else (
            lambda v: is_image(v) and is_float(v)
        )
        x = g.pick(accept)
        if x is None:
            return None
        _, _, h, w = shape(x)
        kh, kw = g.draw(st.integers(1, min(3, h))), g.draw(st.integers(1, min(3, w)))
        ph = g.draw(st.integers(0, (kh - 1) // 2))
        pw = g.draw(st.integers(0, (kw - 1) // 2))
        props = dict(
            pool_size=(kh, kw),
            strides=(g.draw(st.integers(1, 2)), g.draw(st.integers(1, 2))),
            padding=(ph, pw, ph, pw),
            ceil_mode=g.draw(st.booleans()),
        )
        if name == "avg_pool2d":
            props["count_include_pad"] = g.draw(st.booleans())
        return getattr(g.b, name)(x, **props)

    return make


_pool("max_pool2d")
_pool("avg_pool2d")
_unary("global_avg_pool2d", accept=lambda v: is_float(v) and is_image(v))


@kind("batch_norm")
def _batch_norm(g: _Gen):
    x = g.pick(lambda v: is_float(v) and len(shape(v)) >= 2)
    if x is None:
        return None
    c = shape(x)[1]
    var = g.rng.uniform(0.5, 2.0, size=(c,)).astype(np.float32)
    params = [g.floats((c,), 0.5, 1.5), g.floats((c,)), g.floats((c,)), var]
    return g.b.batch_norm(x, *[g.const(p) for p in params], epsilon=g.draw(st.floats(1e-6, 1e-2)))


@kind("layer_norm")
def _layer_norm(g: _Gen):
    x = g.pick(lambda v: is_float(v) and len(shape(v)) >= 1)
    if x is None:
        return None
    rank = len(shape(x))
    axis = g.draw(st.integers(-rank, rank - 1))
    normalized = shape(x)[axis % rank :]
    gamma, beta = g.const(g.floats(normalized, 0.5, 1.5)), g.const(g.floats(normalized))
    return g.b.layer_norm(x, gamma, beta, axis=axis, epsilon=g.draw(st.floats(1e-6, 1e-2)))


@kind("rms_norm")
def _rms_norm(g: _Gen):
    x = g.pick(lambda v: is_float(v) and len(shape(v)) >= 1)
    if x is None:
        return None
    rank = len(shape(x))
    axis = g.draw(st.integers(-rank, rank - 1))
    gamma = g.const(g.floats(shape(x)[axis % rank :], 0.5, 1.5))
    return g.b.rms_norm(x, gamma, axis=axis, epsilon=g.draw(st.floats(1e-6, 1e-2)))


@kind("mean")
def _mean(g: _Gen):
    x = g.pick(lambda v: is_float(v) and len(shape(v)) >= 1)
    if x is None:
        return None
    rank = len(shape(x))
    axes = g.draw(st.lists(st.integers(0, rank - 1), min_size=1, max_size=rank, unique=True))
    axes = [a - rank if g.draw(st.booleans()) else a for a in axes]
    return g.b.mean(x, axis=axes, keepdims=g.draw(st.booleans()), exclude=g.draw(st.booleans()))


@kind("reshape")
def _reshape(g: _Gen):
    x = g.pick(lambda v: len(shape(v)) >= 1)
    if x is None:
        return None
    s = shape(x)
    total = math.prod(s)
    # Split the element count into up to 4 factors, then maybe use the 0 / -1 codes.
    factors: list[int] = []
    rest = total
    for _ in range(g.draw(st.integers(0, 3))):
        divisors = [d for d in range(1, rest + 1) if rest % d == 0]
        d = g.draw(st.sampled_from(divisors))
        factors.append(d)
        rest //= d
    newshape = factors + [rest]
    if g.draw(st.booleans()) and total > 0:
        newshape[g.draw(st.integers(0, len(newshape) - 1))] = -1
    for i, d in enumerate(newshape):
        if i < len(s) and d == s[i] and g.draw(st.booleans()):
            newshape[i] = 0
    return g.b.reshape(x, newshape=newshape)


@kind("transpose")
def _transpose(g: _Gen):
    x = g.pick(lambda v: len(shape(v)) >= 2)
    if x is None:
        return None
    rank = len(shape(x))
    if g.draw(st.booleans()):
        return g.b.transpose(x)
    return g.b.transpose(x, axes=g.draw(st.permutations(range(rank))))


@kind("strided_slice")
def _strided_slice(g: _Gen):
    x = g.pick(lambda v: len(shape(v)) >= 1 and math.prod(shape(v)) > 1)
    if x is None:
        return None
    s = shape(x)
    axes = g.draw(st.lists(st.integers(0, len(s) - 1), min_size=1, max_size=len(s), unique=True))
    begin, end, steps = [], [], []
    for a in axes:
        step = g.draw(st.sampled_from([1, 1, 2, 3, -1]))
        lo = g.draw(st.integers(0, s[a] - 1))
        if step > 0:
            begin.append(lo)
            end.append(g.draw(st.integers(lo + 1, s[a])))
        else:  # backwards from `lo` (the npu leaves these on the host: a reason to cover)
            begin.append(lo)
            end.append(g.draw(st.sampled_from([*range(lo), -s[a] - 1])))  # -s-1: through index 0
        steps.append(step)
    return g.b.strided_slice(x, begin=begin, end=end, strides=steps, axes=axes)


@kind("concatenate")
def _concatenate(g: _Gen):
    x = g.pick(lambda v: len(shape(v)) >= 1)
    if x is None:
        return None
    s = shape(x)
    axis = g.draw(st.integers(0, len(s) - 1))

    def fits(v: SSAValue) -> bool:
        t = shape(v)
        return dtype(v) == dtype(x) and len(t) == len(s) and all(a == b for i, (a, b) in enumerate(zip(t, s)) if i != axis)

    parts = [x]
    for _ in range(g.draw(st.integers(1, 2))):
        other = g.pick(fits)  # x itself fits: the same value twice
        if other is not None:
            parts.append(other)
    if not small(s[:axis] + (sum(shape(p)[axis] for p in parts),) + s[axis + 1 :]):
        return None
    return g.b.concatenate(*parts, axis=axis - len(s) if g.draw(st.booleans()) else axis)


@kind("pad")
def _pad(g: _Gen):
    x = g.pick(lambda v: is_float(v) and len(shape(v)) >= 1)
    if x is None:
        return None
    s = shape(x)
    mode = g.draw(st.sampled_from(["constant", "edge", "reflect"]))
    widths = []
    for d in s:
        limit = min(2, d - 1) if mode == "reflect" else 2
        widths += [g.draw(st.integers(0, max(limit, 0))), g.draw(st.integers(0, max(limit, 0)))]
    if not small(tuple(d + widths[2 * i] + widths[2 * i + 1] for i, d in enumerate(s))):
        return None
    return g.b.pad(x, pad_width=widths, pad_value=g.draw(st.floats(-2.0, 2.0)), pad_mode=mode)


_unary("batch_flatten", accept=lambda v: len(shape(v)) >= 2)


@kind("take")
def _take(g: _Gen):
    x = g.pick(lambda v: len(shape(v)) >= 1 and min(shape(v)) >= 1)
    if x is None:
        return None
    s = shape(x)
    axis = g.draw(st.integers(-len(s), len(s) - 1))
    n = s[axis]
    index_shape = tuple(g.draw(st.lists(st.integers(1, 3), max_size=2)))
    if not small(s[: axis % len(s)] + index_shape + s[axis % len(s) + 1 :]):
        return None
    indices = g.rng.integers(-n, n, size=index_shape).astype(g.draw(st.sampled_from([np.int32, np.int64])))
    return g.b.take(x, g.const(indices), axis=axis)


@kind("cast")
def _cast(g: _Gen):
    x = g.pick(is_float)
    if x is None:
        return None
    # f32 -> f16 -> f32 keeps the graph in f32 for the ops that follow.
    return g.b.cast(g.b.cast(x, np.float16), np.float32)


@kind("quantize")
def _quantize(g: _Gen):
    """quantize, and often dequantize right after (the QDQ pattern of ONNX models)."""
    x = g.pick(is_float)
    if x is None:
        return None
    qdtype = g.draw(st.sampled_from(QUANT_DTYPES))
    rank = len(shape(x))
    if rank >= 1 and g.draw(st.booleans()):
        axis = g.draw(st.integers(-rank, rank - 1))
        n = shape(x)[axis]
        scale = g.const(g.rng.uniform(0.01, 0.1, size=(n,)).astype(np.float32))
        lo, hi = (-8, 8) if qdtype == np.int8 else (120, 136)
        zero_point = g.const(g.rng.integers(lo, hi, size=(n,)).astype(qdtype))
    else:
        axis = -1
        scale, zero_point = g.scalar_scale(), g.scalar_zero_point(qdtype)
    q = g.b.qnn_quantize(x, scale, zero_point, axis=axis)
    if g.draw(st.booleans()):
        return g.b.qnn_dequantize(q, scale, zero_point, axis=axis)
    return q


def _quantized(g: _Gen, accept: Callable[[SSAValue], bool]) -> SSAValue | None:
    """An 8-bit value that `accept`s: one from the pool, else a float value quantized."""
    q = g.pick(lambda v: is_quant(v) and accept(v))
    if q is not None:
        return q
    x = g.pick(lambda v: is_float(v) and accept(v))
    if x is None:
        return None
    qdtype = g.draw(st.sampled_from(QUANT_DTYPES))
    return g.b.qnn_quantize(x, g.scalar_scale(), g.scalar_zero_point(qdtype))


@kind("dequantize")
def _dequantize(g: _Gen):
    q = _quantized(g, lambda v: True)
    if q is None:
        return None
    return g.b.qnn_dequantize(q, g.scalar_scale(), g.scalar_zero_point(dtype(q)))


@kind("qnn_conv2d")
def _qnn_conv2d(g: _Gen):
    """qnn.conv2d then requantize back to 8 bits."""
    x = _quantized(g, is_image)
    if x is None:
        return None
    wshape, props = _conv_params(g, x)
    weight = g.const(g.rng.integers(-4, 5, size=wshape).astype(np.int8))
    acc = g.b.qnn_conv2d(
        x, weight, g.scalar_zero_point(dtype(x)), g.const(np.array(0, np.int8)), g.scalar_scale(), g.scalar_scale(), **props
    )
    return _requantize(g, acc)


@kind("qnn_dense")
def _qnn_dense(g: _Gen):
    x = _quantized(g, lambda v: 1 <= len(shape(v)) <= 3 and shape(v)[-1] <= 64)
    if x is None:
        return None
    k = shape(x)[-1]
    n = g.draw(st.integers(1, 8))
    weight = g.const(g.rng.integers(-4, 5, size=(n, k)).astype(np.int8))
    acc = g.b.qnn_dense(
        x, weight, g.scalar_zero_point(dtype(x)), g.const(np.array(0, np.int8)), g.scalar_scale(), g.scalar_scale()
    )
    return _requantize(g, acc)


def _requantize(g: _Gen, acc: SSAValue) -> SSAValue:
    out_dtype = g.draw(st.sampled_from(QUANT_DTYPES))
    return g.b.qnn_requantize(
        acc, g.scalar_scale(), g.const(np.array(0, np.int32)), g.scalar_scale(), g.scalar_zero_point(out_dtype)
    )


@kind("qnn_add")
def _qnn_add(g: _Gen):
    a = _quantized(g, lambda v: True)
    if a is None:
        return None
    b = g.pick(lambda v: dtype(v) == dtype(a) and _broadcasts_to(shape(v), shape(a)))
    if b is None:
        b = g.const(g.rng.integers(-20, 20, size=_broadcast_partner(g, shape(a))).astype(dtype(a)))
    za, zb = g.scalar_zero_point(dtype(a)), g.scalar_zero_point(dtype(a))
    zo = g.scalar_zero_point(g.draw(st.sampled_from(QUANT_DTYPES)))
    return g.b.qnn_add(a, b, g.scalar_scale(), za, g.scalar_scale(), zb, g.scalar_scale(), zo)


@kind("masked_softmax")
def _masked_softmax(g: _Gen):
    """A softmax over the last axis of masked scores, as exporters write attention: a
    constant mask selecting -inf or the lowest float (additive-masks makes it an add), or
    a run-time mask (here: which scores exceed a threshold) added as a select of 0 and the
    fill, the softmax guarded against rows the mask hides whole (torch's export of
    scaled_dot_product_attention; additive-masks drops the guard or makes it a product)."""
    x = g.pick(lambda v: is_float(v) and len(shape(v)) >= 2)
    if x is None:
        return None
    s = shape(x)
    fill = g.const(np.array(g.draw(st.sampled_from([-np.inf, np.finfo(np.float32).min])), np.float32))
    if g.draw(st.booleans()):  # a constant mask of the scores' trailing dims (a causal mask)
        hides = g.rng.integers(0, 2, s[g.draw(st.integers(1, len(s) - 1)):]).astype(bool)
        # Every row keeps a key, as a causal mask does: a row hidden whole by -inf is NaN,
        # and masks assume finite scores (additive-masks: the fill is absorbed).
        hides[..., g.draw(st.integers(0, s[-1] - 1))] = False
        if g.draw(st.booleans()):
            return g.b.softmax(g.b.where(g.const(hides), fill, x), axis=-1)
        return g.b.softmax(g.b.where(g.const(~hides), x, fill), axis=-1)
    zero = g.const(np.array(0.0, np.float32))
    keep = g.b.greater(x, g.const(np.array(g.draw(st.sampled_from([-0.5, 0.0, 0.5])), np.float32)))
    added = g.b.where(keep, zero, fill) if g.draw(st.booleans()) else g.b.where(g.b.logical_not(keep), fill, zero)
    p = g.b.softmax(g.b.add(x, added), axis=-1)
    return g.b.where(g.b.not_equal(p, p), zero, p)


OP_KINDS: tuple[str, ...] = tuple(KINDS)
"""The classic op kinds: what `relay_graphs` draws when the caller names none (its draws,
and so every earlier seed's graphs, are as before the newer kinds below were added)."""

# --------------------------------------------------------------------------------------
# Newer kinds (scans, top k, integer bit ops, determinant, gathers and scatters, the
# image and vision ops): drawn when the caller's `ops` names them (`NEW_OP_KINDS`,
# `ALL_OP_KINDS`; the differential fuzzer draws from ALL_OP_KINDS). Indices are in range
# and scatters of reduction "none" write each position once, so every graph is valid and
# its result defined; integer values are int32 or int64 (8-bit ones would count as
# quantized values).
# --------------------------------------------------------------------------------------

INT_DTYPES = (np.dtype(np.int32), np.dtype(np.int64))


def is_int(v: SSAValue) -> bool:
    return dtype(v) in INT_DTYPES


def _ints(g: _Gen, accept: Callable[[SSAValue], bool] = lambda v: True) -> SSAValue | None:
    """An int32/int64 value that `accept`s: one from the pool, else a float value scaled
    and cast (small integers)."""
    v = g.pick(lambda v: is_int(v) and accept(v))
    if v is not None:
        return v
    x = g.pick(lambda v: is_float(v) and accept(v))
    if x is None:
        return None
    scale = g.const(np.array(g.draw(st.sampled_from([1.0, 4.0, 100.0])), np.float32))
    return g.b.cast(g.b.multiply(x, scale), g.draw(st.sampled_from(INT_DTYPES)))


def _numeric(g: _Gen, accept: Callable[[SSAValue], bool] = lambda v: True) -> SSAValue | None:
    """A float value, or (one time in four) an integer one."""
    if g.draw(st.integers(0, 3)) == 0:
        return _ints(g, lambda v: len(shape(v)) >= 1 and accept(v))
    return g.pick(lambda v: is_float(v) and accept(v))


def _new_kind(name: str):
    def register(fn: Kind) -> Kind:
        KINDS[name] = fn
        _NEW.append(name)
        return fn

    return register


_NEW: list[str] = []


def _scan(name: str):
    @_new_kind(name)
    def make(g: _Gen):
        x = _numeric(g, lambda v: len(shape(v)) >= 1)
        if x is None:
            return None
        rank = len(shape(x))
        return getattr(g.b, name)(x, axis=g.draw(st.integers(-rank, rank - 1)), exclusive=g.draw(st.booleans()),
                                  reverse=g.draw(st.booleans()))

    return make


_scan("cumsum")
_scan("cumprod")


@_new_kind("topk")
def _topk(g: _Gen):
    x = _numeric(g, lambda v: len(shape(v)) >= 1)
    if x is None:
        return None
    s = shape(x)
    axis = g.draw(st.integers(-len(s), len(s) - 1))
    return g.b.topk(x, k=g.draw(st.integers(1, s[axis])), axis=axis, is_ascend=g.draw(st.booleans()),
                    ret_type=g.draw(st.sampled_from(["values", "indices"])))


def _bit_binary(name: str):
    @_new_kind(name)
    def make(g: _Gen):
        x = _ints(g)
        if x is None:
            return None
        s, dt = shape(x), dtype(x)
        other = g.pick(lambda v: dtype(v) == dt and _broadcasts_to(shape(v), s)) if g.draw(st.booleans()) else None
        if other is None:
            partner = _broadcast_partner(g, s)
            if name.endswith("shift"):  # counts outside [0, bits) too (ONNX: 0, or -1)
                data = g.rng.integers(-2, 8 * dt.itemsize + 2, size=partner)
            else:
                data = g.rng.integers(-(2**20), 2**20, size=partner)
            other = g.const(data.astype(dt))
        lhs, rhs = (other, x) if g.draw(st.booleans()) else (x, other)
        return getattr(g.b, name)(lhs, rhs)

    return make


for _name in ("bitwise_and", "bitwise_or", "bitwise_xor", "left_shift", "right_shift"):
    _bit_binary(_name)


@_new_kind("bitwise_not")
def _bitwise_not(g: _Gen):
    x = _ints(g)
    return None if x is None else g.b.bitwise_not(x)


@_new_kind("reinterpret")
def _reinterpret(g: _Gen):
    """The bits of f32 values as i32 (and back: the same floats), or i64 as f64 as i64.
    Bits leave as integers only for graph inputs: a computed float (a sigmoid's) may differ
    from the interpreter's within the float tolerance, which its bits as an integer would
    turn into a mismatch."""
    if g.draw(st.booleans()):
        back = g.draw(st.booleans())
        x = g.pick(lambda v: is_float(v) and (back or isinstance(v, BlockArgument)))
        if x is None:
            return None
        y = g.b.reinterpret(x, np.int32)
        return g.b.reinterpret(y, np.float32) if back else y
    x = _ints(g)
    if x is None:
        return None
    wide = g.b.cast(x, np.int64) if dtype(x) != np.int64 else x
    return g.b.reinterpret(g.b.reinterpret(wide, np.float64), np.int64)


@_new_kind("det")
def _det(g: _Gen):
    """The determinants of the leading square blocks of a value's last two axes."""
    x = g.pick(lambda v: is_float(v) and len(shape(v)) >= 2)
    if x is None:
        return None
    s = shape(x)
    m = g.draw(st.integers(1, min(s[-1], s[-2], 4)))
    r = len(s)
    if s[-2:] != (m, m):
        x = g.b.strided_slice(x, begin=[0, 0], end=[m, m], strides=[1, 1], axes=[r - 2, r - 1])
    return g.b.det(x)


def _index_dtype(g: _Gen) -> np.dtype:
    return g.draw(st.sampled_from([np.dtype(np.int32), np.dtype(np.int64)]))


def _some_negative(g: _Gen, idx: np.ndarray, n) -> np.ndarray:
    """Indices in [0, n) with some written as their negative form (index - n)."""
    flip = g.rng.integers(0, 2, size=idx.shape).astype(bool)
    return np.where(flip, idx - n, idx)


@_new_kind("gather")
def _gather(g: _Gen):
    """GatherElements: indices of data's rank, at most data's extent off the axis."""
    x = _numeric(g, lambda v: len(shape(v)) >= 1 and min(shape(v)) >= 1)
    if x is None:
        return None
    s = shape(x)
    axis = g.draw(st.integers(0, len(s) - 1))
    ishape = tuple(g.draw(st.integers(1, 4)) if i == axis else g.draw(st.integers(1, d)) for i, d in enumerate(s))
    idx = _some_negative(g, g.rng.integers(0, s[axis], size=ishape), s[axis]).astype(_index_dtype(g))
    return g.b.gather(x, g.const(idx), axis=axis - len(s) if g.draw(st.booleans()) else axis)


@_new_kind("gather_nd")
def _gather_nd(g: _Gen):
    x = _numeric(g, lambda v: len(shape(v)) >= 1 and min(shape(v)) >= 1)
    if x is None:
        return None
    s = shape(x)
    b = g.draw(st.integers(0, len(s) - 1))
    k = g.draw(st.integers(1, len(s) - b))
    q = tuple(g.draw(st.lists(st.integers(1, 3), max_size=2)))
    out = s[:b] + q + s[b + k :]
    if not small(out):
        return None
    cols = [_some_negative(g, g.rng.integers(0, d, size=s[:b] + q + (1,)), d) for d in s[b : b + k]]
    idx = np.concatenate(cols, axis=-1).astype(_index_dtype(g))
    return g.b.gather_nd(x, g.const(idx), batch_dims=b)


def _reduction(g: _Gen) -> str:
    return g.draw(st.sampled_from(["none", "add", "mul", "max", "min"]))


@_new_kind("scatter_elements")
def _scatter_elements(g: _Gen):
    """Updates of a graph value or constants; reduction "none" writes each place once
    (duplicates combine in order for the others)."""
    x = _numeric(g, lambda v: len(shape(v)) >= 1 and min(shape(v)) >= 1)
    if x is None:
        return None
    s = shape(x)
    axis = g.draw(st.integers(0, len(s) - 1))
    red = _reduction(g)
    ishape = tuple(g.draw(st.integers(1, d)) for d in s)
    n = s[axis]
    if red == "none":  # distinct places along the axis: a permutation's head per line
        lines = np.moveaxis(np.zeros(ishape, np.int64), axis, -1)
        perm = np.argsort(g.rng.random(lines.shape[:-1] + (n,)), axis=-1)[..., : ishape[axis]]
        idx = np.moveaxis(perm, -1, axis)
    else:
        idx = g.rng.integers(0, n, size=ishape)
    idx = _some_negative(g, idx, n).astype(_index_dtype(g))
    upd = g.pick(lambda v: dtype(v) == dtype(x) and shape(v) == ishape)
    if upd is None:
        data = g.floats(ishape) if is_float(x) else g.rng.integers(-50, 50, size=ishape)
        upd = g.const(data.astype(dtype(x)))
    return g.b.scatter_elements(x, g.const(idx), upd, axis=axis, reduction=red)


@_new_kind("scatter_nd")
def _scatter_nd(g: _Gen):
    x = _numeric(g, lambda v: len(shape(v)) >= 1 and min(shape(v)) >= 1)
    if x is None:
        return None
    s = shape(x)
    k = g.draw(st.integers(1, len(s)))
    places = math.prod(s[:k])
    red = _reduction(g)
    count = g.draw(st.integers(1, min(places, 6)))
    flat = g.rng.choice(places, size=count, replace=red != "none")
    idx = np.stack(np.unravel_index(flat, s[:k]), axis=-1)
    idx = _some_negative(g, idx, np.array(s[:k])).astype(_index_dtype(g))
    if count > 1 and g.draw(st.booleans()):  # indices [a, b, k]
        if count % 2 == 0:
            idx = idx.reshape(2, count // 2, k)
    ushape = idx.shape[:-1] + s[k:]
    data = g.floats(ushape) if is_float(x) else g.rng.integers(-50, 50, size=ushape)
    return g.b.scatter_nd(x, g.const(idx), g.const(data.astype(dtype(x))), reduction=red)


def _block(g: _Gen, accept) -> tuple[SSAValue, int] | None:
    for b in g.draw(st.permutations([2, 3])):
        x = g.pick(lambda v: is_image(v) and accept(v, b))
        if x is not None:
            return x, b
    return None


@_new_kind("depth_to_space")
def _depth_to_space(g: _Gen):
    found = _block(g, lambda v, b: (is_float(v) or is_int(v)) and shape(v)[1] % (b * b) == 0)
    if found is None:
        return None
    x, b = found
    return g.b.depth_to_space(x, block_size=b, mode=g.draw(st.sampled_from(["DCR", "CRD"])))


@_new_kind("space_to_depth")
def _space_to_depth(g: _Gen):
    found = _block(g, lambda v, b: (is_float(v) or is_int(v)) and shape(v)[2] % b == 0 and shape(v)[3] % b == 0)
    if found is None:
        return None
    x, b = found
    return g.b.space_to_depth(x, block_size=b, mode=g.draw(st.sampled_from(["DCR", "CRD"])))


_RESIZE_MODES = ("half_pixel", "half_pixel_symmetric", "pytorch_half_pixel", "align_corners", "asymmetric",
                 "tf_half_pixel_for_nn", "tf_crop_and_resize")


@_new_kind("resize2d")
def _resize2d(g: _Gen):
    x = g.pick(lambda v: is_float(v) and is_image(v))
    if x is None:
        return None
    n, c, h, w = shape(x)
    size = (g.draw(st.integers(1, 2 * h)), g.draw(st.integers(1, 2 * w)))
    if not small((n, c) + size):
        return None
    method = g.draw(st.sampled_from(["nearest", "linear", "cubic"]))
    modes = _RESIZE_MODES if method != "nearest" else _RESIZE_MODES[:-1]
    props = dict(size=size, method=method, coordinate_transformation_mode=g.draw(st.sampled_from(modes)))
    if method == "nearest":
        props["nearest_mode"] = g.draw(st.sampled_from(["round_prefer_floor", "round_prefer_ceil", "floor", "ceil"]))
    else:
        props["antialias"] = g.draw(st.booleans())
    if method == "cubic":
        props["cubic_coeff_a"] = g.draw(st.sampled_from([-0.75, -0.5]))
        props["exclude_outside"] = g.draw(st.booleans())
    if props["coordinate_transformation_mode"] == "tf_crop_and_resize":
        lo, hi = g.rng.uniform(-0.2, 0.5, 2), g.rng.uniform(0.5, 1.2, 2)
        props["roi"] = [float(lo[0]), float(lo[1]), float(hi[0]), float(hi[1])]
        props["extrapolation_value"] = g.draw(st.sampled_from([0.0, -1.0]))
    return g.b.resize2d(x, **props)


@_new_kind("conv2d_transpose")
def _conv2d_transpose(g: _Gen):
    x = g.pick(lambda v: is_float(v) and is_image(v))
    if x is None:
        return None
    n, c, h, w = shape(x)
    groups = g.draw(st.sampled_from([d for d in range(1, c + 1) if c % d == 0]))
    og = g.draw(st.integers(1, 2))
    kh, kw = g.draw(st.integers(1, 3)), g.draw(st.integers(1, 3))
    strides = (g.draw(st.integers(1, 2)), g.draw(st.integers(1, 2)))
    dil = (g.draw(st.integers(1, 2)), g.draw(st.integers(1, 2)))
    pads = tuple(g.draw(st.integers(0, 1)) for _ in range(4))
    out_pad = tuple(g.draw(st.integers(0, max(s, d) - 1)) for s, d in zip(strides, dil))
    oh = (h - 1) * strides[0] - pads[0] - pads[2] + dil[0] * (kh - 1) + 1 + out_pad[0]
    ow = (w - 1) * strides[1] - pads[1] - pads[3] + dil[1] * (kw - 1) + 1 + out_pad[1]
    if oh < 1 or ow < 1 or not small((n, og * groups, oh, ow)):
        return None
    weight = g.const(g.floats((c, og, kh, kw), -0.5, 0.5))
    return g.b.conv2d_transpose(x, weight, strides=strides, padding=pads, dilation=dil, groups=groups,
                                output_padding=out_pad)


@_new_kind("grid_sample")
def _grid_sample(g: _Gen):
    """A constant grid a little past [-1, 1] (the padding modes matter)."""
    x = g.pick(lambda v: is_float(v) and is_image(v))
    if x is None:
        return None
    n, c = shape(x)[:2]
    oh, ow = g.draw(st.integers(1, 6)), g.draw(st.integers(1, 6))
    grid = g.const(g.floats((n, oh, ow, 2), -1.3, 1.3))
    return g.b.grid_sample(x, grid, method=g.draw(st.sampled_from(["linear", "nearest", "cubic"])),
                           padding_mode=g.draw(st.sampled_from(["zeros", "border", "reflection"])),
                           align_corners=g.draw(st.booleans()))


def _boxes(g: _Gen, r: int, h: int, w: int, scale: float) -> np.ndarray:
    """r boxes (x1, y1, x2, y2) in unscaled pixels, some past the image, some inverted."""
    lo = g.rng.uniform(-2, max(h, w), (r, 2)) / scale
    return np.concatenate([lo, lo + g.rng.uniform(-1, 8, (r, 2)) / scale], axis=1)


@_new_kind("roi_align")
def _roi_align(g: _Gen):
    x = g.pick(lambda v: is_float(v) and is_image(v))
    if x is None:
        return None
    n, c, h, w = shape(x)
    r = g.draw(st.integers(1, 4))
    scale = g.draw(st.sampled_from([1.0, 0.5, 0.25]))
    half = g.draw(st.booleans())
    boxes = _boxes(g, r, h, w, scale)
    if half:  # half_pixel boxes keep their size: no inverted ones (ONNX leaves them undefined)
        boxes[:, 2:] = np.maximum(boxes[:, 2:], boxes[:, :2])
    batch = g.rng.integers(0, n, r).astype(_index_dtype(g))
    return g.b.roi_align(x, g.const(boxes.astype(np.float32)), g.const(batch),
                         output_height=g.draw(st.integers(1, 3)), output_width=g.draw(st.integers(1, 3)),
                         sampling_ratio=g.draw(st.integers(0, 2)), spatial_scale=scale,
                         mode=g.draw(st.sampled_from(["avg", "max"])),
                         coordinate_transformation_mode="half_pixel" if half else "output_half_pixel")


@_new_kind("roi_pool")
def _roi_pool(g: _Gen):
    x = g.pick(lambda v: is_float(v) and is_image(v))
    if x is None:
        return None
    n, c, h, w = shape(x)
    r = g.draw(st.integers(1, 4))
    scale = g.draw(st.sampled_from([1.0, 0.5, 0.25]))
    batch = g.rng.integers(0, n, (r, 1)) + g.rng.uniform(0, 0.9, (r, 1))  # truncated to the image
    rois = np.concatenate([batch, _boxes(g, r, h, w, scale)], axis=1).astype(np.float32)
    return g.b.roi_pool(x, g.const(rois), pooled_shape=(g.draw(st.integers(1, 3)), g.draw(st.integers(1, 3))),
                        spatial_scale=scale)


@_new_kind("max_unpool")
def _max_unpool(g: _Gen):
    """Values scattered to distinct places of a larger shape (MaxUnpool's indices)."""
    x = _numeric(g, lambda v: len(shape(v)) >= 1)
    if x is None:
        return None
    s = shape(x)
    out = tuple(d * g.draw(st.integers(1, 2)) for d in s)
    if not small(out) or math.prod(s) == 0:
        return None
    idx = g.rng.choice(math.prod(out), size=math.prod(s), replace=False).reshape(s).astype(_index_dtype(g))
    return g.b.max_unpool(x, g.const(idx), shape=out)


@_new_kind("qdq_activation")
def _qdq_activation(g: _Gen):
    """onnxruntime's QDQ form of an activation, or of a sum or product of two activations
    (the second may broadcast: a gate): dequantize, sigmoid / tanh / silu / relu /
    hard-swish / hard-sigmoid / leaky ReLU / GELU / add / multiply, quantize (int8
    elementwise commands or lookups on a target)."""
    a = _quantized(g, lambda v: True)
    if a is None:
        return None
    x = g.b.qnn_dequantize(a, g.scalar_scale(), g.scalar_zero_point(dtype(a)))
    op = g.draw(st.sampled_from(["sigmoid", "tanh", "silu", "relu", "hardswish", "hardsigmoid", "leaky_relu", "gelu",
                                 "add", "multiply"]))
    if op in ("add", "multiply"):
        b = g.pick(lambda v: is_quant(v) and _broadcasts_to(shape(v), shape(a)))
        rhs = x if b is None else g.b.qnn_dequantize(b, g.scalar_scale(), g.scalar_zero_point(dtype(b)))
        y = getattr(g.b, op)(x, rhs)
    else:
        y = getattr(g.b, op)(x)
    return g.b.qnn_quantize(y, g.scalar_scale(), g.scalar_zero_point(g.draw(st.sampled_from(QUANT_DTYPES))))


@_new_kind("qdq_layer")
def _qdq_layer(g: _Gen):
    """onnxruntime's QDQ form of a conv2d or dense layer: dequantize, the layer on the
    dequantize of int8 weights (one scale, or one per output channel), a bias (the
    dequantize of int32 on the accumulator grid, as the quantizer writes it, or a float
    constant, as it leaves some), an optional ReLU, quantize (the targets' int8 layer
    patterns; a float bias through quantize-layer-biases). An int8 layer accumulates in
    int32 and requantizes, so its result may be one step off the reference's float
    arithmetic where a value lies at a rounding boundary (the comparison allows that); a
    later op dequantizing it with another scale would magnify the step past what the
    comparison can tell from a bug, so it is an output only."""
    dense = g.draw(st.booleans())
    a = _quantized(g, (lambda v: len(shape(v)) == 2 and shape(v)[-1] <= 64) if dense else is_image)
    if a is None:
        return None
    sx = np.float32(g.draw(st.sampled_from([0.02, 0.05, 0.1, 0.25])))
    x = g.b.qnn_dequantize(a, g.const(np.array(sx)), g.scalar_zero_point(dtype(a)))
    if dense:
        wshape, props = (g.draw(st.integers(1, 8)), shape(a)[-1]), {}
    else:
        wshape, props = _conv_params(g, x)
    out = wshape[0]
    per_channel = g.draw(st.booleans())
    sw = g.rng.choice(np.array([0.01, 0.02, 0.05], np.float32), size=(out,) if per_channel else ())
    zw = np.zeros(np.shape(sw), np.int8)
    w = g.b.qnn_dequantize(g.const(g.rng.integers(-4, 5, size=wshape).astype(np.int8)), g.const(np.asarray(sw)),
                           g.const(zw), **({"axis": 0} if per_channel else {}))
    y = g.b.dense(x, w) if dense else g.b.conv2d(x, w, **props)
    bias = g.floats((out,), -0.5, 0.5)
    if g.draw(st.booleans()):  # on the accumulator grid, as the quantizer writes it
        step = (sx * np.asarray(sw)).astype(np.float32)
        b = g.b.qnn_dequantize(g.const(np.round(bias / step).astype(np.int32)), g.const(step),
                               g.const(np.zeros(np.shape(step), np.int32)), **({"axis": 0} if per_channel else {}))
    else:
        b = g.const(bias)
    y = g.b.bias_add(y, b, axis=1)
    if g.draw(st.booleans()):
        y = g.b.relu(y)
    y = g.b.qnn_quantize(y, g.scalar_scale(), g.scalar_zero_point(g.draw(st.sampled_from(QUANT_DTYPES))))
    g.outputs_only.add(y)
    return y


@_new_kind("qdq_concatenate")
def _qdq_concatenate(g: _Gen):
    """onnxruntime's QDQ form of a concatenation: each input dequantized with its own scale,
    the result quantized with another."""
    a = _quantized(g, lambda v: len(shape(v)) >= 1)
    if a is None:
        return None
    s = shape(a)
    axis = g.draw(st.integers(0, len(s) - 1))
    parts = [a]
    other = g.pick(lambda v: is_quant(v) and len(shape(v)) == len(s) and
                   all(x == y for i, (x, y) in enumerate(zip(shape(v), s)) if i != axis))
    parts.append(other if other is not None else a)
    if not small(s[:axis] + (sum(shape(p)[axis] for p in parts),) + s[axis + 1:]):
        return None
    joined = g.b.concatenate(*[g.b.qnn_dequantize(p, g.scalar_scale(), g.scalar_zero_point(dtype(p))) for p in parts],
                             axis=axis)
    return g.b.qnn_quantize(joined, g.scalar_scale(), g.scalar_zero_point(g.draw(st.sampled_from(QUANT_DTYPES))))


@_new_kind("qdq_rows")
def _qdq_rows(g: _Gen):
    """onnxruntime's QDQ form of a softmax, layer norm or RMS norm along the last axis:
    dequantize, the row op (float gamma and beta), quantize (int8 row commands on the npu)."""
    a = _quantized(g, lambda v: len(shape(v)) >= 1)
    if a is None:
        return None
    x = g.b.qnn_dequantize(a, g.scalar_scale(), g.scalar_zero_point(dtype(a)))
    n = shape(a)[-1]
    op = g.draw(st.sampled_from(["softmax", "layer_norm", "rms_norm"]))
    epsilon = g.draw(st.floats(1e-6, 1e-2))
    if op == "softmax":
        y = g.b.softmax(x, axis=-1)
    elif op == "layer_norm":
        y = g.b.layer_norm(x, g.const(g.floats((n,), 0.5, 1.5)), g.const(g.floats((n,))), axis=-1, epsilon=epsilon)
    else:
        y = g.b.rms_norm(x, g.const(g.floats((n,), 0.5, 1.5)), axis=-1, epsilon=epsilon)
    return g.b.qnn_quantize(y, g.scalar_scale(), g.scalar_zero_point(g.draw(st.sampled_from(QUANT_DTYPES))))


@_new_kind("qdq_layout")
def _qdq_layout(g: _Gen):
    """onnxruntime's QDQ form of a reshape, transpose or slice: dequantize, the layout op,
    quantize, often with the dequantize's own scale and zero point (a head split's pairs,
    which propagate-qdq removes)."""
    a = _quantized(g, lambda v: len(shape(v)) >= 2)
    if a is None:
        return None
    scale, zero = g.scalar_scale(), g.scalar_zero_point(dtype(a))
    x = g.b.qnn_dequantize(a, scale, zero)
    s = shape(a)
    op = g.draw(st.sampled_from(["transpose", "reshape", "strided_slice"]))
    if op == "transpose":
        y = g.b.transpose(x, axes=g.draw(st.permutations(range(len(s)))))
    elif op == "reshape":
        y = g.b.reshape(x, newshape=[s[0], math.prod(s[1:])])
    else:
        axis = g.draw(st.integers(0, len(s) - 1))
        lo = g.draw(st.integers(0, s[axis] - 1))
        y = g.b.strided_slice(x, begin=[lo], end=[g.draw(st.integers(lo + 1, s[axis]))], axes=[axis])
    if g.draw(st.booleans()):
        return g.b.qnn_quantize(y, scale, zero)
    return g.b.qnn_quantize(y, g.scalar_scale(), g.scalar_zero_point(g.draw(st.sampled_from(QUANT_DTYPES))))


@_new_kind("max")
def _max(g: _Gen):
    """A max reduction (a 1-D CNN's global max pool, a log-softmax's shift): over trailing
    axes, max-as-pools makes it pools on the npu."""
    x = g.pick(lambda v: is_float(v) and len(shape(v)) >= 1)
    if x is None:
        return None
    rank = len(shape(x))
    if g.draw(st.booleans()):  # trailing axes: the form max-as-pools takes
        first = g.draw(st.integers(0, rank - 1))
        axes = list(range(first, rank))
    else:
        axes = g.draw(st.lists(st.integers(0, rank - 1), min_size=1, max_size=rank, unique=True))
    axes = [a - rank if g.draw(st.booleans()) else a for a in axes]
    return g.b.max(x, axis=axes, keepdims=g.draw(st.booleans()))


NEW_OP_KINDS: tuple[str, ...] = tuple(_NEW)
"""The newer kinds (drawn only when named; host C kernels on the targets, but for the QDQ
forms of activations, concatenations, row ops and layout ops, which the npu runs)."""
ALL_OP_KINDS: tuple[str, ...] = OP_KINDS + NEW_OP_KINDS

QUANTIZED_OPS: frozenset[str] = frozenset({"quantize", "dequantize", "qnn_conv2d", "qnn_dense", "qnn_add", "qdq_activation",
                                           "qdq_layer", "qdq_concatenate", "qdq_rows", "qdq_layout"})
BOOLEAN_OPS: frozenset[str] = frozenset({"masked_softmax"})
"""Kinds with boolean values inside (masks), their results f32."""
FLOAT_OPS: frozenset[str] = frozenset(OP_KINDS) - QUANTIZED_OPS - BOOLEAN_OPS
_IMAGE_KINDS = ("depth_to_space", "space_to_depth", "resize2d", "conv2d_transpose", "grid_sample", "roi_align",
                "roi_pool")
"""Kinds whose values are all f32 (no integer tensors appear)."""

# --------------------------------------------------------------------------------------
# The strategy
# --------------------------------------------------------------------------------------


def _input_shapes(draw, kinds: Collection[str]) -> list[tuple[int, ...]]:
    image = (draw(st.integers(1, 2)), draw(st.integers(1, 4)), draw(st.integers(3, 8)), draw(st.integers(3, 8)))
    matrix = (draw(st.integers(1, 4)), draw(st.integers(1, 16)))
    shapes = [image, matrix]
    if draw(st.booleans()):
        shapes.append(tuple(draw(st.lists(st.integers(1, 5), min_size=1, max_size=3))))
    order = draw(st.permutations(range(len(shapes))))
    count = draw(st.integers(1, len(shapes)))
    chosen = [shapes[i] for i in order[:count]]
    # Always offer an image and a matrix to kinds that need one.
    if any(k in kinds for k in ("conv2d", "conv2d_bias_relu", "max_pool2d", "avg_pool2d", "global_avg_pool2d",
                                "qnn_conv2d", "qdq_layer", *_IMAGE_KINDS)):
        if image not in chosen:
            chosen.append(image)
    if matrix not in chosen and not any(len(s) == 2 for s in chosen):
        chosen.append(matrix)
    return chosen


@st.composite
def _one_op(draw, g: _Gen, kinds: tuple[str, ...], optional: bool) -> tuple[str, SSAValue | None] | None:
    """One op kind and what it builds, or None (no more ops; one in five when `optional`).
    Like an element of `st.lists`, the decision and the op are one hypothesis span, so the
    shrinker deletes an op as a whole (the fuzzer's minimisation drops ops this way)."""
    if optional and draw(st.integers(0, 4)) == 0:
        return None
    name = draw(st.sampled_from(kinds))
    return name, KINDS[name](g)


@st.composite
def relay_graphs(draw, max_ops: int = 12, ops: Collection[str] | None = None, min_ops: int = 1) -> RelayGraph:
    """A random valid relay graph with `min_ops`..`max_ops` op kinds drawn from `ops`
    (default: every classic kind, OP_KINDS; ALL_OP_KINDS adds the newer ones; one kind
    may build a short chain, e.g. quantize +
    dequantize, conv2d + bias_add; after `min_ops`, each further op with probability
    4/5), and random inputs for it."""
    kinds = tuple(OP_KINDS if ops is None else ops)
    unknown = sorted(set(kinds) - set(KINDS))
    if unknown:
        raise ValueError(f"unknown op kinds {unknown}; choose from {', '.join(OP_KINDS)}")
    if not kinds or not 1 <= min_ops <= max_ops:
        raise ValueError("relay_graphs needs at least one op kind and 1 <= min_ops <= max_ops")

    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    g = _Gen(draw, rng)
    inputs: dict[str, np.ndarray] = {}
    for i, s in enumerate(_input_shapes(draw, kinds)):
        name = f"x{i}"
        g.pool.append(g.b.input(name, s))
        inputs[name] = rng.standard_normal(s).astype(np.float32)

    used: list[str] = []
    attempts = 0
    while len(used) < max_ops and attempts < 4 * max_ops:
        attempts += 1
        step = draw(_one_op(g, kinds, optional=len(used) >= min_ops))
        if step is None:
            break
        name, value = step
        if value is None:
            continue
        used.append(name)
        g.pool.append(value)
    if len(used) < min_ops:
        raise ValueError(f"none of the op kinds {list(kinds)} applies to the drawn inputs")

    args = set(g.b.block.args)
    results = [v for v in g.pool if v not in args]
    outputs = [v for v in results if not v.uses]
    inner = [v for v in results if v.uses]
    if inner and draw(st.booleans()):
        outputs.append(inner[draw(st.integers(0, len(inner) - 1))])
    module = g.b.build(outputs, [f"y{i}" for i in range(len(outputs))])
    module.verify()
    return RelayGraph(module, inputs, used)
