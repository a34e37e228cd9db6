"""The codegen hook of the built-in `dnnl` target: each region runs on oneDNN (v2 C API).

The description (`compiler/targets/dnnl.toml`) says `api.lowering = "none"`, so a region
arrives bufferized, on host memory: `accel.kernel` ops around one relay op or composite
each (docs/targets.md, "The codegen hook"). Every kernel becomes one oneDNN primitive; a
composite's epilogue (bias, activations, a residual add, the output quantization)
becomes the primitive's bias, attributes and post-ops (an int8 QDQ composite computes
on f32: its inputs dequantized by reorders, its output quantized by post-ops and a
reorder, see `_dequantized_product` and `_quantization`):

    accel.kernel ins(%x) outs(%y) {                       conv = dnnl_dilated_convolution_forward_desc_init(
      relay.composite "dnnl.conv2d_bias_add_relu"    ->           src any, weights any, bias, dst any)
        (%x, %w, %b, %r) { conv2d, bias_add, add, relu }     post-ops: binary add (%r), eltwise relu
    }

The generated C (`<region>.c`, one per region, with the shared runtime
`accel_dnnl.{c,h}`) builds everything in `model_init`: the primitive descriptors with
the layouts oneDNN prefers (format_tag any), the weights reordered once into them, and
the list of executions; each call then binds the region's host buffers and executes that
list. A value between two primitives of a region stays in the layout its producer chose
(blocked, e.g. nChw8c); reorders happen only where a consumer wants another layout and
at the region's boundary (host buffers are plain, row-major). `model_free` releases all.

`supported(op, target)` is the description's predicate: it runs the same planning as the
emitter (`plan_kernel`), so that annotate-target only sends what this hook can emit, with
the reason otherwise (e.g. an int8 add: oneDNN 2.6's binary primitive has no zero points).
"""

from __future__ import annotations

import functools
import math
import os
import shutil
import subprocess
import tempfile
from dataclasses import dataclass, field

import numpy as np
from xdsl.dialects.builtin import TensorType
from xdsl.ir import Operation, SSAValue

from accel.compiler.backend.c_text import c_comment, c_float, c_string
from accel.compiler.backend.codegen_hook import RegionCodegenInput, RegionCodegenResult
from accel.compiler.c_runtime_dir import C_DIR
from accel.compiler.diagnostics import CompileError, format_location
from accel.compiler.tensors import constant_value, row_major_strides
from accel.dialects import accel, relay

DNNL_DIR = C_DIR / "dnnl"
"""The glue between the generated C and oneDNN (`RUNTIME_FILES`), shipped with accel."""
RUNTIME_FILES = ("accel_dnnl.h", "accel_dnnl.c")
PACKAGE = "libdnnl-dev"
"""The Debian/Ubuntu package with oneDNN's headers and library."""

DATA_TYPES = {"f32": "dnnl_f32", "i8": "dnnl_s8", "ui8": "dnnl_u8", "i32": "dnnl_s32"}

ELTWISE = {
    # relay op -> (oneDNN algorithm, alpha, beta); clip's bounds come from the op
    "relay.nn.relu": ("dnnl_eltwise_relu", 0.0, 0.0),
    "relay.sigmoid": ("dnnl_eltwise_logistic", 0.0, 0.0),
    "relay.tanh": ("dnnl_eltwise_tanh", 0.0, 0.0),
    "relay.nn.silu": ("dnnl_eltwise_swish", 1.0, 0.0),
    "relay.nn.hardswish": ("dnnl_eltwise_hardswish", 0.0, 0.0),
    "relay.sqrt": ("dnnl_eltwise_sqrt", 0.0, 0.0),
    "relay.exp": ("dnnl_eltwise_exp", 0.0, 0.0),
    "relay.abs": ("dnnl_eltwise_abs", 0.0, 0.0),
    "relay.negative": ("dnnl_eltwise_linear", -1.0, 0.0),
    "relay.clip": ("dnnl_eltwise_clip", None, None),
    "relay.nn.gelu": ("dnnl_eltwise_gelu_erf", 0.0, 0.0),
    "relay.nn.leaky_relu": ("dnnl_eltwise_relu", None, 0.0),
}
BINARY = {
    "relay.add": "dnnl_binary_add",
    "relay.subtract": "dnnl_binary_sub",
    "relay.multiply": "dnnl_binary_mul",
    "relay.divide": "dnnl_binary_div",
    "relay.maximum": "dnnl_binary_max",
    "relay.minimum": "dnnl_binary_min",
}
COMMUTATIVE = {"relay.add", "relay.multiply", "relay.maximum", "relay.minimum"}
PRODUCTS = ("relay.nn.conv2d", "relay.nn.dense", "relay.nn.matmul", "relay.nn.batch_matmul")
LONG_SUM = 1024
"""A float global average over more elements than this goes in two poolings, rows then
their means (`row_means`): oneDNN sums a window in sequence."""
SMALL_WORK = 1 << 17
"""A primitive of less work (multiply-adds of a product, else elements) runs on one
thread: on two cores a parallel region's fork and join cost ~2.5 us per primitive
(bench/README.md: the small transformers ran 2.5-3x slower on 2 threads than on 1), about
what 128 Ki multiply-adds take on one core."""


class Unsupported(Exception):
    """What oneDNN (2.6, through this hook) cannot run, and why."""


# --------------------------------------------------------------------------------------
# Planning: a kernel's op or composite as one primitive (no C yet)
# --------------------------------------------------------------------------------------


@dataclass
class Quant:
    scale: np.ndarray
    zero_point: np.ndarray


@dataclass
class PostOp:
    kind: str  # "eltwise" or "binary"
    alg: str
    alpha: float = 0.0
    beta: float = 0.0
    operand: SSAValue | None = None
    """binary: the other operand (a value outside the composite), or a scalar `value`."""
    value: float | None = None
    """binary without an operand: that constant, broadcast to every element."""


@dataclass
class Step:
    """One primitive: `kind` with its data `inputs` (values outside the composite), the
    anchor op, and its fused epilogue."""

    kind: str
    anchor: Operation
    inputs: list[SSAValue]
    result: SSAValue
    bias: SSAValue | None = None
    post_ops: list[PostOp] = field(default_factory=list)
    input_quant: list[Quant | None] = field(default_factory=list)
    bias_quant: Quant | None = None
    output_quant: Quant | None = None
    eltwise: PostOp | None = None
    """eltwise: the operation of the primitive itself."""


def _shape(v: SSAValue) -> tuple[int, ...]:
    t = v.type
    return tuple(t.get_shape()) if isinstance(t, TensorType) else ()


def _dtype(v: SSAValue) -> str:
    t = v.type
    name = str(t.element_type) if isinstance(t, TensorType) else str(t)
    return {"f32": "f32", "i8": "i8", "si8": "i8", "ui8": "ui8", "i32": "i32", "si32": "i32"}.get(name, name)


def _constant(v: SSAValue) -> relay.ConstantOp | None:
    owner = v.owner
    return owner if isinstance(owner, relay.ConstantOp) else None


def _array(v: SSAValue) -> np.ndarray:
    c = _constant(v)
    if c is None:
        raise Unsupported("a quantization parameter is not a constant")
    return np.asarray(constant_value(c))


def _scalar_constant(v: SSAValue) -> float | None:
    c = _constant(v)
    if c is None or math.prod(_shape(v)) != 1:
        return None
    return float(np.asarray(constant_value(c)).reshape(-1)[0])


def _scalar_operand(op: Operation, outer: dict[SSAValue, SSAValue] | None = None) -> tuple[int, float] | None:
    """A binary op with one scalar constant operand (and the other of the result's shape):
    the constant's index and value (`outer`: a composite's arguments -> its operands)."""
    if op.name not in BINARY and op.name != "relay.power":
        return None
    for i in (1, 0):
        v = op.operands[i]
        c = _scalar_constant(outer.get(v, v) if outer else v)
        if c is not None and _shape(op.operands[1 - i]) == _shape(op.results[0]):
            return i, c
    return None


def _scalar_eltwise(op: Operation, outer: dict[SSAValue, SSAValue] | None = None) -> PostOp | None:
    """`x op c` or `c op x` as one eltwise operation: linear (alpha x + beta) or pow
    (alpha x^beta)."""
    found = _scalar_operand(op, outer)
    if found is None:
        return None
    i, c = found
    name, lhs_constant = op.name, i == 0
    if name == "relay.add":
        return PostOp("eltwise", "dnnl_eltwise_linear", 1.0, c)
    if name == "relay.subtract":
        return PostOp("eltwise", "dnnl_eltwise_linear", -1.0, c) if lhs_constant else PostOp("eltwise", "dnnl_eltwise_linear", 1.0, -c)
    if name == "relay.multiply":
        return PostOp("eltwise", "dnnl_eltwise_linear", c, 0.0)
    if name == "relay.divide":
        return PostOp("eltwise", "dnnl_eltwise_pow", c, -1.0) if lhs_constant else PostOp("eltwise", "dnnl_eltwise_linear", 1.0 / c, 0.0)
    if name == "relay.power" and not lhs_constant:
        return PostOp("eltwise", "dnnl_eltwise_pow", 1.0, c)
    return None


def _eltwise(op: Operation, outer: dict[SSAValue, SSAValue] | None = None) -> list[PostOp] | None:
    """The eltwise operations computing `op` (oneDNN 2.6 has no hardsigmoid: linear, then clip)."""
    if (scalar := _scalar_eltwise(op, outer)) is not None:
        return [scalar]
    if op.name == "relay.nn.hardsigmoid":
        return [PostOp("eltwise", "dnnl_eltwise_linear", float(op.prop("alpha")), float(op.prop("beta"))),
                PostOp("eltwise", "dnnl_eltwise_clip", 0.0, 1.0)]
    entry = ELTWISE.get(op.name)
    if entry is None:
        return None
    alg, alpha, beta = entry
    if op.name == "relay.clip":
        alpha, beta = float(op.prop("a_min")), float(op.prop("a_max"))
    elif op.name == "relay.nn.leaky_relu":
        alpha = float(op.prop("alpha"))
    elif op.name == "relay.nn.gelu" and op.prop("approximate") == "tanh":
        alg = "dnnl_eltwise_gelu_tanh"
    return [PostOp("eltwise", alg, alpha, beta)]


def _work(step: Step) -> int:
    """Multiply-adds of a convolution or matmul; else the elements of its largest tensor."""
    out = math.prod(_shape(step.result))
    if step.kind == "conv":
        w = _shape(step.inputs[1])
        return out * math.prod(w[1:])
    if step.kind == "matmul":
        lhs, op = _shape(step.inputs[0]), step.anchor
        transposed = op.name != "relay.nn.dense" and bool(op.prop("transpose_a"))
        return out * (lhs[-2] if transposed else lhs[-1])
    return max([out, *(math.prod(_shape(v)) for v in step.inputs)])


def _scalar(values) -> float:
    return float(np.asarray(values).reshape(-1)[0])


def _quantization(q: Quant) -> list[PostOp]:
    """QuantizeLinear, saturate(round_half_even(y / s) + z), as post-ops on f32 but for the
    saturation (the conversion into int8 saturates, exactly: the values are integers by
    then): the division, not a product with 1/s (1/s rounded to float32 moves y / s off
    a tie: 0.95294124 / (6/255) = 40.5, * 42.5 = 40.500004), the rounding, then the zero
    point (added before the rounding, an odd zero point sends a tie to the other side:
    round(21.5) - 3 = 19, round(21.5 - 3) = 18; on f32 the sum also rounds a value
    next to a tie onto it)."""
    ops = [PostOp("binary", "dnnl_binary_div", value=_scalar(q.scale)), PostOp("eltwise", "dnnl_eltwise_round")]
    if zero_point := _scalar(q.zero_point):
        ops.append(PostOp("eltwise", "dnnl_eltwise_linear", 1.0, zero_point))
    return ops


def _dequantized_product(step: Step) -> bool:
    """An int8 convolution or matmul, computed on f32 as its QDQ graph says (dequantize,
    the f32 product, quantize). Not oneDNN 2.6's int8 kernels: without VNNI (AVX2, the
    AVX-512 of Skylake) they multiply u8 by s8 with vpmaddubsw, whose int16 pair sums
    saturate, and for an s8 source they halve the weights first (`sa0.5` on the weights
    in ONEDNN_VERBOSE), dropping their last bit: on cnn_large_resnet_int8, 12-40 % of every
    layer's values were 2-7 quantization steps off onnxruntime's. On f32 they are exact but
    for a rounding tie the f32 sums break the other way (tests/test_dnnl.py)."""
    return step.output_quant is not None and step.kind in ("conv", "matmul")


FINITE_POST_OPS = frozenset({"dnnl_eltwise_relu", "dnnl_eltwise_clip", "dnnl_eltwise_tanh", "dnnl_eltwise_logistic",
                             "dnnl_eltwise_abs", "dnnl_eltwise_hardswish", "dnnl_eltwise_swish", "dnnl_eltwise_gelu_erf",
                             "dnnl_eltwise_gelu_tanh"})
"""Post-ops that keep a finite value finite."""

NAN_FREE_SCALE = 2.0 ** 40
"""Scales up to this keep an int8 product's f32 sum finite: |sum| <= K 2^7 2^7 s_x s_w
< 2^31 2^14 2^80 = 2^125 < 2^128 (and a dequantized int32 bias below 2^71)."""


def _nan_free(step: Step) -> bool:
    """Whether an int8 product's f32 result (before its copy into int8) holds no NaN for
    any input: every operand int8 with finite scales of at most NAN_FREE_SCALE (the sum is
    then finite), a finite bias, post-ops that keep finite values finite, and a finite
    non-zero output scale (y / s is then finite or infinite, which saturates). The copy
    of such a result needs no NaN step (`accel_dnnl_to_int8`: a pass over the result, a
    fifth of an int8 MobileNet's run time)."""
    def bounded(q: Quant | None) -> bool:
        s = None if q is None else np.asarray(q.scale, np.float64)
        return s is not None and bool(np.all(np.isfinite(s)) and np.all(np.abs(s) <= NAN_FREE_SCALE))

    if not all(bounded(q) for q in step.input_quant) or len(step.input_quant) != len(step.inputs):
        return False
    if step.bias is not None:
        if step.bias_quant is not None:
            if not bounded(step.bias_quant):
                return False
        else:
            const = _constant(step.bias)
            if const is None or not np.all(np.isfinite(np.asarray(constant_value(const), np.float64))):
                return False
    if any(p.kind != "eltwise" or p.alg not in FINITE_POST_OPS or any(v is None or v != v for v in (p.alpha, p.beta))
           for p in step.post_ops):
        return False
    out = np.asarray(step.output_quant.scale, np.float64)
    return bool(np.all(np.isfinite(out)) and np.all(out != 0))


def _broadcastable(small: tuple[int, ...], big: tuple[int, ...]) -> bool:
    if len(small) > len(big):
        return False
    padded = (1,) * (len(big) - len(small)) + small
    return all(s in (1, b) for s, b in zip(padded, big))


def _anchor_kind(op: Operation, outer: dict[SSAValue, SSAValue]) -> str:
    name = op.name
    if name == "relay.nn.conv2d":
        return "conv"
    if name in ("relay.nn.dense", "relay.nn.matmul", "relay.nn.batch_matmul"):
        rank = len(_shape(op.operands[0]))
        if name == "relay.nn.dense" and rank < 2:
            raise Unsupported("dense of a rank-1 input")
        return "matmul"
    if name in ("relay.nn.max_pool2d", "relay.nn.avg_pool2d", "relay.nn.global_avg_pool2d"):
        if name == "relay.nn.avg_pool2d" and op.prop("count_include_pad") and op.prop("ceil_mode"):
            raise Unsupported("average pooling counting padding in ceil mode: oneDNN also counts the cells ceil mode adds")
        return "pool"
    if name in ELTWISE or name == "relay.nn.hardsigmoid" or _scalar_eltwise(op, outer) is not None:
        return "eltwise"
    if name in BINARY:
        a, b = (_shape(v) for v in op.operands)
        out = _shape(op.results[0])
        if a != out and not (b == out and name in COMMUTATIVE and _broadcastable(a, out)):
            raise Unsupported(f"'{name}' broadcasts its first operand")
        if not _broadcastable(b if a == out else a, out):
            raise Unsupported(f"'{name}' operands do not broadcast")
        return "binary"
    if name == "relay.nn.bias_add":
        return "binary"
    if name == "relay.nn.softmax":
        return "softmax"
    if name == "relay.nn.layer_norm":
        if _constant(op.operands[1]) is None or _constant(op.operands[2]) is None:
            raise Unsupported("layer norm with non-constant gamma/beta")
        return "layer_norm"
    if name == "relay.nn.rms_norm":
        if _constant(op.operands[1]) is None:
            raise Unsupported("RMS norm with a non-constant gamma")
        return "rms_norm"
    if name in ("relay.reshape", "relay.nn.batch_flatten"):
        return "reshape"
    if name == "relay.transpose":
        return "transpose"
    if name == "relay.mean":
        shape = _shape(op.operands[0])
        if all(shape[a] == 1 for a in relay.MeanOp.reduced_axes(len(shape), op.py_props())):
            return "reshape"  # nothing is summed (oneDNN refuses such a reduction): the values, reshaped
        return "mean"
    if name == "relay.strided_slice":
        ranges = relay.StridedSliceOp.ranges(_shape(op.operands[0]), op.py_props())
        if any(r.step < 0 for r in ranges):
            raise Unsupported("a strided slice with a negative step")
        return "slice"
    if name == "relay.concatenate":
        return "concat"
    raise Unsupported(f"'{name}' has no oneDNN primitive here")


def _plan_body(ops: list[Operation], outer: dict[SSAValue, SSAValue]) -> Step:
    """`ops` (one op, or a composite's body in order) as one primitive; `outer` maps the
    composite's block arguments to the values outside it."""

    def out(v: SSAValue) -> SSAValue:
        return outer.get(v, v)

    if len(ops) == 1 and isinstance(ops[0], (relay.QuantizeOp, relay.DequantizeOp)):
        return _plan_requantize(ops[0], out)
    dequant: dict[SSAValue, tuple[SSAValue, Quant]] = {}
    rest: list[Operation] = []
    for op in ops:
        if isinstance(op, relay.DequantizeOp) and not rest:
            dequant[op.results[0]] = (op.data, Quant(_array(out(op.scale)), _array(out(op.zero_point))))
        else:
            rest.append(op)
    if not rest:
        raise Unsupported("nothing to compute")
    anchor, *epilogue = rest
    kind = _anchor_kind(anchor, outer)
    data_operands = list(anchor.operands)
    if kind in ("layer_norm", "rms_norm"):
        data_operands = data_operands[:1]
    elif kind == "eltwise" and (scalar := _scalar_operand(anchor, outer)) is not None:
        data_operands = [anchor.operands[1 - scalar[0]]]
    inputs, input_quant = [], []
    for v in data_operands:
        if v in dequant:
            raw, q = dequant[v]
            inputs.append(out(raw))
            input_quant.append(q)
        else:
            inputs.append(out(v))
            input_quant.append(None)
    if kind == "conv" and _constant(inputs[1]) is None:
        raise Unsupported("convolution weights computed at run time (oneDNN's are reordered once, in model_init)")
    step = Step(kind, anchor, inputs, anchor.results[0], input_quant=input_quant)
    if kind == "eltwise":  # the primitive computes the first; the rest are its post-ops
        step.eltwise, *step.post_ops = _eltwise(anchor, outer)
    if kind in ("layer_norm", "rms_norm"):
        step.inputs += [out(v) for v in anchor.operands[1:]]
    quantized = any(q is not None for q in input_quant)
    chain = anchor.results[0]
    for op in epilogue:
        if chain not in op.operands:
            raise Unsupported(f"'{op.name}' does not extend '{anchor.name}'")
        if isinstance(op, relay.QuantizeOp) and op is epilogue[-1]:
            step.output_quant = Quant(_array(out(op.scale)), _array(out(op.zero_point)))
        elif isinstance(op, relay.BiasAddOp) and kind in ("conv", "matmul") and step.bias is None and not step.post_ops:
            bias = op.operands[1]
            if bias in dequant:
                raw, step.bias_quant = dequant[bias]
                bias = raw
            if _constant(out(bias)) is None:
                raise Unsupported("a bias that is not a constant")
            step.bias = out(bias)
        elif (post := _eltwise(op, outer)) is not None and kind in ("conv", "matmul", "binary", "pool", "eltwise"):
            step.post_ops += post
        elif (scalar := _scalar_eltwise(op, outer)) is not None and kind in ("conv", "matmul", "binary", "pool", "eltwise"):
            step.post_ops.append(scalar)
        elif op.name in BINARY and kind in ("conv", "matmul", "binary") and not quantized:
            other = op.operands[1] if op.operands[0] == chain else op.operands[0]
            if op.operands[1] == chain and op.name not in COMMUTATIVE:
                raise Unsupported(f"'{op.name}' with the result as its second operand")
            if other in dequant:
                raise Unsupported("a quantized residual")
            if not _broadcastable(_shape(other), _shape(op.results[0])) or _shape(op.results[0]) != _shape(chain):
                raise Unsupported(f"'{op.name}' operands do not broadcast")
            step.post_ops.append(PostOp("binary", BINARY[op.name], operand=out(other)))
        else:
            raise Unsupported(f"'{op.name}' cannot be fused after '{anchor.name}'")
        chain = op.results[0]
    step.result = chain
    _check_quantization(step)
    return step


def _plan_requantize(op: Operation, out) -> Step:
    """A single quantize (f32 -> int8) or dequantize (int8 -> f32): a reorder with a scale
    and a zero point."""
    q = Quant(_array(out(op.scale)), _array(out(op.zero_point)))
    if q.scale.size != 1 or q.zero_point.size != 1:
        raise Unsupported("per-channel quantization of an activation")
    step = Step("requantize", op, [out(op.data)], op.results[0])
    if isinstance(op, relay.QuantizeOp):
        step.output_quant = q
    else:
        step.input_quant = [q]
    return step


def _check_quantization(step: Step) -> None:
    quantized = [q for q in step.input_quant if q is not None]
    if not quantized and step.output_quant is None:
        return
    if step.kind not in ("conv", "matmul", "pool"):
        raise Unsupported(f"int8 {step.kind}: oneDNN 2.6 has no zero points for it")
    if len(quantized) != len(step.input_quant) or step.output_quant is None:
        raise Unsupported("int8 needs quantized inputs and a quantized output")
    for i, q in enumerate(step.input_quant):
        per_channel = q.scale.size != 1 or q.zero_point.size != 1
        weight = step.kind in ("conv", "matmul") and i == 1 and _constant(step.inputs[1]) is not None
        if per_channel and not weight:
            raise Unsupported("per-channel activation quantization")
        if weight and np.any(q.zero_point != 0):
            raise Unsupported("int8 weights with a non-zero zero point: oneDNN 2.6 convolution and matmul take none")
        if weight and _dtype(step.inputs[1]) != "i8":
            raise Unsupported("u8 weights: oneDNN int8 convolution and matmul need s8 weights")
        if i == 1 and not weight and step.kind == "matmul" and _dtype(step.inputs[1]) != "i8":
            raise Unsupported("a u8 second matmul operand: oneDNN takes s8 weights")
    if step.output_quant.scale.size != 1 or step.output_quant.zero_point.size != 1:
        raise Unsupported("per-channel output quantization")
    if step.kind == "pool":
        q, o = step.input_quant[0], step.output_quant
        if not (np.allclose(q.scale, o.scale) and np.array_equal(q.zero_point, o.zero_point)):
            raise Unsupported("int8 pooling that requantizes: oneDNN 2.6 pooling has no scales")
    if any(p.kind == "binary" for p in step.post_ops):
        raise Unsupported("an int8 product with a residual add")


def kernel_ops(kernel: accel.KernelOp) -> tuple[list[Operation], dict[SSAValue, SSAValue]]:
    """The ops a kernel computes and the map from the values they read to the region's
    values (the kernel's buffers, or constants)."""
    outer: dict[SSAValue, SSAValue] = dict(zip(kernel.body.block.args, kernel.ins))
    ops = [o for o in kernel.body.block.ops if not isinstance(o, (relay.ConstantOp, accel.YieldOp))]
    return ops, outer


def plan_op(op: Operation) -> Step:
    """A relay op or a composite as one primitive (raises Unsupported)."""
    if isinstance(op, relay.CompositeOp):
        outer = dict(zip(op.body.block.args, op.inputs))
        return _plan_body([o for o in op.body.block.ops if not isinstance(o, relay.YieldOp)], outer)
    return _plan_body([op], {})


def supported(op: Operation, target=None) -> str | None:
    """The description's predicate: None when this hook runs `op`, else why not."""
    try:
        plan_op(op)
    except Unsupported as e:
        return str(e)
    return None


# --------------------------------------------------------------------------------------
# The C of a region
# --------------------------------------------------------------------------------------


def _dims(shape) -> str:
    return "(dnnl_dims_t){" + ", ".join(str(int(d)) for d in shape) + "}" if shape else "(dnnl_dims_t){1}"


def _floats(values) -> str:
    return "{" + ", ".join(c_float(v) for v in np.asarray(values, dtype=np.float64).reshape(-1)) + "}"


class RegionPrinter:
    """Prints one region's C: `<symbol>_init`, `<symbol>_free` and `<symbol>(a0, ...)`."""

    def __init__(self, region: RegionCodegenInput):
        self.region = region
        self.sym = region.symbol
        self.lines: list[str] = []
        self.statics: list[str] = []
        self.indent = 1
        self.values: dict[SSAValue, int] = {}
        """Region buffer (a memref value) -> its index in V[]."""
        self.view: dict[SSAValue, SSAValue] = {}
        """A relay value inside a kernel -> the region value it is (the kernel's buffer)."""
        self.counter = 0
        self.after_exec: list = []
        """What to print after the next execution (the quantization of a dequantized product)."""
        self.produced: set[SSAValue] = set()
        """Region-internal values a primitive writes (candidates for an in-place concatenation)."""
        self.params = {p.value for p in region.params}
        """The region's boundary values (host buffers bound at each call)."""
        self.op_functions: list[list[str]] = []
        """One static function per kernel, which `<symbol>_init` calls in order: the C
        compiler's optimizer costs more than linearly in a function's size (an unrolled
        recurrence's 560 kernels in one init function took 17 s at -O3, 8 s split)."""

    # -- text helpers --

    def line(self, text: str = "") -> None:
        self.lines.append("    " * self.indent + text if text else "")

    def fresh(self, base: str) -> str:
        self.counter += 1
        return f"{base}{self.counter}"

    def check(self, call: str) -> None:
        self.line(f"ACCEL_DNNL(r, {call});")

    def attempt(self, call: str) -> None:
        self.line(f"ACCEL_DNNL_TRY({call});")

    # -- values --

    def slot(self, buffer: SSAValue) -> str:
        if buffer not in self.values:
            self.values[buffer] = len(self.values)
        return f"V[{self.values[buffer]}]"

    def plain_md(self, shape, dtype: str, name: str | None = None) -> str:
        md = name or self.fresh("md")
        self.line(f"dnnl_memory_desc_t {md};")
        self.attempt(f"accel_dnnl_plain(r, &{md}, {max(len(shape), 1)}, {_dims(shape)}, {DATA_TYPES[dtype]})")
        return md

    def strided_md(self, shape, strides, dtype: str) -> str:
        md = self.fresh("md")
        self.line(f"dnnl_memory_desc_t {md};")
        self.check(f"dnnl_memory_desc_init_by_strides(&{md}, {len(shape)}, {_dims(shape)}, {DATA_TYPES[dtype]}, "
                   f"{_dims(strides)})")
        return md

    def any_md(self, shape, dtype: str) -> str:
        md = self.fresh("md")
        self.line(f"dnnl_memory_desc_t {md};")
        self.check(f"dnnl_memory_desc_init_by_tag(&{md}, {len(shape)}, {_dims(shape)}, {DATA_TYPES[dtype]}, "
                   "dnnl_format_tag_any)")
        return md

    def current_md(self, memory: str) -> str:
        md = self.fresh("md")
        self.line(f"const dnnl_memory_desc_t *{md}_p;")
        self.check(f"dnnl_memory_get_memory_desc({memory}, &{md}_p)")
        self.line(f"dnnl_memory_desc_t {md} = *{md}_p;")
        return md

    def region_value(self, v: SSAValue) -> SSAValue:
        return self.view.get(v, v)

    def constant_memory(self, v: SSAValue, md: str, want: str | None = None) -> str:
        """A constant (in weights.bin) as a memory; reordered into `want` once."""
        mem = self.fresh("w")
        self.line(f"dnnl_memory_t {mem};")
        self.attempt(f"accel_dnnl_weights(r, &{md}, {self.region.c_buffer(v)}, {want or '&' + md}, &{mem})")
        return mem

    def static_floats(self, values, ctype: str = "float") -> str:
        name = f"{self.sym}_k{len(self.statics)}"
        arr = np.asarray(values).reshape(-1)
        if ctype == "float":
            body = _floats(arr)
        else:
            body = "{" + ", ".join(str(int(x)) for x in arr) + "}"
        self.statics.append(f"static {'const ' if ctype == 'float' else ''}{ctype} {name}[{max(arr.size, 1)}] = {body};")
        return name

    def input(self, v: SSAValue, want: str) -> str:
        """The memory of region value `v` in the layout `want` (a pointer expression)."""
        mem = self.fresh("x")
        self.line(f"dnnl_memory_t {mem};")
        self.attempt(f"accel_dnnl_input(r, {self.slot(self.region_value(v))}, {want}, &{mem})")
        return mem

    def plain_input(self, v: SSAValue) -> tuple[str, str]:
        """`v` as a plain memory, and that descriptor."""
        md = self.plain_md(_shape(v), _dtype(v))
        return self.input(v, "&" + md), md

    def activation(self, v: SSAValue) -> tuple[str, str]:
        """`v` as it is (a constant: its plain memory), and its descriptor's name."""
        if _constant(v) is not None:
            md = self.plain_md(_shape(v), _dtype(v))
            return self.constant_memory(v, md), md
        mem = self.slot(self.region_value(v))
        return mem, self.current_md(mem)

    def broadcast_operand(self, v: SSAValue, rank: int) -> tuple[str, str]:
        """`v` with leading 1s up to `rank` (plain), or as it is at full rank."""
        shape = _shape(v)
        if len(shape) == rank:
            return self.activation(v)
        full = (1,) * (rank - len(shape)) + shape
        if _constant(v) is not None:
            md = self.plain_md(full, _dtype(v))
            return self.constant_memory(v, md), md
        mem, _ = self.plain_input(v)
        md = self.plain_md(full, _dtype(v))
        return self.alias(mem, md), md

    def scalar(self, value: float, rank: int) -> tuple[str, str]:
        """An f32 constant as a memory of `rank` dims of 1 (it broadcasts), and its descriptor."""
        md = self.plain_md((1,) * rank, "f32")
        name = self.static_floats([value])
        mem = self.fresh("c")
        self.line(f"dnnl_memory_t {mem};")
        self.attempt(f"accel_dnnl_memory(r, &{md}, (void *){name}, &{mem})")
        return mem, md

    def alias(self, mem: str, md: str) -> str:
        out = self.fresh("view")
        self.line(f"dnnl_memory_t {out};")
        self.attempt(f"accel_dnnl_view(r, {mem}, &{md}, &{out})")
        return out

    def output(self, result: SSAValue, have: str) -> str:
        if self.region_value(result) not in self.params:
            self.produced.add(self.region_value(result))
        y = self.fresh("y")
        self.line(f"dnnl_memory_t {y};")
        self.attempt(f"accel_dnnl_output(r, {have}, &{self.slot(self.region_value(result))}, &{y})")
        return y

    def plain_output(self, result: SSAValue, md_as: str | None = None) -> str:
        """The result's memory, plain (allocated if region-internal), viewed as `md_as`."""
        slot = self.slot(self.region_value(result))
        md = self.plain_md(_shape(result), _dtype(result))
        self.line(f"if (!{slot}) ACCEL_DNNL_TRY(accel_dnnl_memory(r, &{md}, NULL, &{slot}));")
        return self.alias(slot, md_as) if md_as else slot

    # -- the region --

    def print_region(self) -> str:
        region = self.region
        fn = region.function
        for p in region.params:
            self.slot(p.value)
        self.line("accel_dnnl_region_t *r = &R;")
        self.line(f"r->name = {c_string(self.sym)};")
        self.line("r->what = NULL;")
        self.attempt("accel_dnnl_begin(r)")
        for p in region.params:  # the boundary: plain, on the host buffers of each call
            md = self.plain_md(p.shape, _param_dtype(p.ctype))
            self.attempt(f"accel_dnnl_boundary(r, &{md}, &{self.slot(p.value)})")
        for kernel in fn.walk():
            if isinstance(kernel, accel.KernelOp):
                self.print_kernel(kernel)
        init_body = self.lines
        n_values = max(len(self.values), 1)
        params = ", ".join(f"{p.ctype} *{p.name}" for p in region.params) or "void"
        binds = [f"    ACCEL_DNNL_TRY(accel_dnnl_bind(&R, V[{self.values[p.value]}], {p.name}));" for p in region.params]
        text = [
            f"/* region {c_comment(region.name)}: oneDNN primitives built once by {self.sym}_init */",
            '#include "accel_dnnl.h"',
            '#include "model_internal.h"',
            "",
            "#include <math.h> /* INFINITY, NAN: c_float's non-finite constants */",
            "#include <stdint.h>",
            "",
            "static accel_dnnl_region_t R;",
            f"static dnnl_memory_t V[{n_values}];",
            *self.statics,
            "",
            *(line for function in self.op_functions for line in function),
            f"int {self.sym}_init(void) {{",
            *init_body,
            "    accel_dnnl_threads(r, 0);",
            "    r->what = NULL;",
            "    return 0;",
            "}",
            "",
            f"void {self.sym}_free(void) {{",
            "    accel_dnnl_end(&R);",
            f"    for (int i = 0; i < {n_values}; i++) V[i] = NULL;",
            "}",
            "",
            f"int {self.sym}({params}) {{",
            *binds,
            "    return accel_dnnl_run(&R);",
            "}",
            "",
        ]
        return "\n".join(text)

    def print_kernel(self, kernel: accel.KernelOp) -> None:
        ops, outer = kernel_ops(kernel)
        if len(ops) != 1:
            raise CompileError(f"dnnl: a kernel of {len(ops)} ops", kernel)
        (op,) = ops
        self.view = dict(outer)
        if isinstance(op, relay.CompositeOp):
            self.view.update({a: outer.get(v, v) for a, v in zip(op.body.block.args, op.inputs)})
        try:
            step = plan_op(op)
        except Unsupported as e:
            raise CompileError(f"dnnl cannot run this op: {e}", op) from None
        self.view[step.result] = kernel.outs[0]
        where = format_location(op.location)
        what = op.pattern.data if isinstance(op, relay.CompositeOp) else op.name
        label = f"{what} ({where})" if where else what
        function = f"{self.sym}_op{len(self.op_functions)}"
        self.line(f"ACCEL_DNNL_TRY({function}(r)); /* {c_comment(label)} */")
        init, self.lines = self.lines, []
        self.line(f"r->what = {c_string(label)};")
        self.line(f"accel_dnnl_threads(r, {1 if _work(step) < SMALL_WORK else 0});")
        getattr(self, f"print_{step.kind}")(step)
        self.line("return 0;")
        self.op_functions.append([f"/* {c_comment(label)} */", f"static int {function}(accel_dnnl_region_t *r) {{",
                                  *self.lines, "}", ""])
        self.lines = init

    # -- attributes --

    def attr(self, step: Step) -> tuple[str, list[str]]:
        """The primitive's attribute (its post-ops; a dequantized product's output
        quantization round(y / s) + z among them) and the extra exec args."""
        post_ops = list(step.post_ops)
        if _dequantized_product(step):  # on f32; the reorder into int8 saturates
            post_ops += _quantization(step.output_quant)
        rank = max(len(_shape(step.result)), 1)
        attr = self.fresh("attr")
        args: list[str] = []
        self.line(f"dnnl_primitive_attr_t {attr};")
        self.check(f"dnnl_primitive_attr_create(&{attr})")
        if post_ops:
            po = self.fresh("po")
            self.line(f"dnnl_post_ops_t {po};")
            self.check(f"dnnl_post_ops_create(&{po})")
            for i, p in enumerate(post_ops):
                if p.kind == "eltwise":
                    self.check(f"dnnl_post_ops_append_eltwise({po}, 1.0f, {p.alg}, {c_float(p.alpha)}, {c_float(p.beta)})")
                else:
                    mem, md = self.scalar(p.value, rank) if p.operand is None else self.broadcast_operand(p.operand, rank)
                    self.check(f"dnnl_post_ops_append_binary({po}, {p.alg}, &{md})")
                    args.append(f"{{DNNL_ARG_ATTR_MULTIPLE_POST_OP({i}) | DNNL_ARG_SRC_1, {mem}}}")
            self.check(f"dnnl_primitive_attr_set_post_ops({attr}, {po})")
            self.line(f"dnnl_post_ops_destroy({po});")
        return attr, args

    def finish(self, desc: str, attr: str | None, args_of_pd, create: str = "accel_dnnl_primitive_desc") -> None:
        """Create the primitive of op descriptor `desc` (by the runtime's `create`), then its
        arguments (`args_of_pd(pd)` prints them and returns the exec args), the execution and
        what `after_exec` holds."""
        pd, prim = self.fresh("pd"), self.fresh("p")
        self.line(f"dnnl_primitive_desc_t {pd};")
        self.attempt(f"{create}(r, &{desc}, {attr or 'NULL'}, &{pd})")
        self.line(f"dnnl_primitive_t {prim};")
        self.line(f"if (accel_dnnl_primitive(r, {pd}, &{prim})) {{ dnnl_primitive_desc_destroy({pd}); return 1; }}")
        args = args_of_pd(pd)
        self.line(f"dnnl_primitive_desc_destroy({pd});")
        self.line(f"const dnnl_exec_arg_t args[] = {{{', '.join(args)}}};")
        self.attempt(f"accel_dnnl_exec(r, {prim}, {len(args)}, args)")
        while self.after_exec:
            self.after_exec.pop(0)()

    def data_type(self, step: Step, i: int) -> str:
        return "f32" if _dequantized_product(step) else _dtype(step.inputs[i])

    # -- int8 products on f32 --

    def dequantized_input(self, step: Step, i: int, want: str) -> str:
        """Input `i` of an int8 product, dequantized into the layout `want` (f32)."""
        q = step.input_quant[i]
        mem = self.fresh("x")
        self.line(f"dnnl_memory_t {mem};")
        self.attempt(f"accel_dnnl_dequantize(r, {self.slot(self.region_value(step.inputs[i]))}, {want}, "
                     f"{c_float(_scalar(q.scale))}, {int(_scalar(q.zero_point))}, &{mem})")
        return mem

    def dequantized_weights(self, step: Step, plain: str, want: str, mask: int) -> str:
        """The int8 constant weights (zero point 0), dequantized once into `want` (f32) with
        their scales along the dims of `mask`."""
        w, q = step.inputs[1], step.input_quant[1]
        scales = np.asarray(q.scale, np.float32).reshape(-1)
        mem = self.fresh("w")
        self.line(f"dnnl_memory_t {mem};")
        self.attempt(f"accel_dnnl_weights_dequantized(r, &{plain}, {self.region.c_buffer(w)}, {want}, {scales.size}, "
                     f"{0 if scales.size == 1 else mask}, {self.static_floats(scales)}, &{mem})")
        return mem

    def product_output(self, step: Step, dst: str) -> str:
        """The destination of a product's primitive (descriptor expression `dst`): for a
        dequantized product an f32 memory (its post-ops leave integers), reordered into
        the int8 result (same layout, saturating; a NaN becomes the zero point, where one
        may occur: `_nan_free`) after the execution."""
        if not _dequantized_product(step):
            return self.output(step.result, dst)
        acc = self.fresh("acc")
        self.line(f"dnnl_memory_t {acc};")
        self.attempt(f"accel_dnnl_memory(r, {dst}, NULL, &{acc})")

        def quantize() -> None:
            md = self.current_md(acc)
            self.line(f"{md}.data_type = {DATA_TYPES[_dtype(step.result)]};")
            y = self.output(step.result, "&" + md)
            if _nan_free(step):
                self.attempt(f"accel_dnnl_copy(r, {acc}, {y})")
            else:
                zero_point = int(_scalar(step.output_quant.zero_point))
                self.attempt(f"accel_dnnl_to_int8(r, {acc}, {y}, {zero_point})")

        self.after_exec.append(quantize)
        return acc

    # -- primitives --

    def print_conv(self, step: Step) -> None:
        conv = step.anchor
        x, w = step.inputs
        n, c, h, wd = _shape(x)
        o, ci, kh, kw = _shape(w)
        groups = int(conv.prop("groups"))
        out = _shape(step.result)
        wshape = (groups, o // groups, ci, kh, kw) if groups > 1 else (o, ci, kh, kw)
        src = self.any_md((n, c, h, wd), self.data_type(step, 0))
        dequantized = _dequantized_product(step)
        wei = self.any_md(wshape, self.data_type(step, 1))
        wplain = self.plain_md(wshape, _dtype(w))
        dst = self.any_md(out, "f32" if dequantized else _dtype(step.result))
        bias_md = self.bias_md(step, (o,))
        sh, sw = conv.prop("strides")
        dh, dw = conv.prop("dilation")
        pt, pl, pb, pr = conv.prop("padding")
        desc = self.fresh("conv")
        self.line(f"dnnl_convolution_desc_t {desc};")
        self.check(f"dnnl_dilated_convolution_forward_desc_init(&{desc}, dnnl_forward_inference, dnnl_convolution_direct, "
                   f"&{src}, &{wei}, {'&' + bias_md if bias_md else 'NULL'}, &{dst}, (dnnl_dims_t){{{sh}, {sw}}}, "
                   f"(dnnl_dims_t){{{dh - 1}, {dw - 1}}}, (dnnl_dims_t){{{pt}, {pl}}}, (dnnl_dims_t){{{pb}, {pr}}})")
        attr, extra = self.attr(step)

        def args(pd: str) -> list[str]:
            want_x, want_w = (f"accel_dnnl_md({pd}, dnnl_query_{q}_md, 0)" for q in ("src", "weights"))
            if dequantized:  # the scales vary along the output channels: dims 0 (and 1 if grouped)
                xm = self.dequantized_input(step, 0, want_x)
                wm = self.dequantized_weights(step, wplain, want_w, 0b11 if groups > 1 else 0b1)
            else:
                xm, wm = self.input(x, want_x), self.constant_memory(w, wplain, want_w)
            out_args = [f"{{DNNL_ARG_SRC, {xm}}}", f"{{DNNL_ARG_WEIGHTS, {wm}}}"]
            if bias_md:
                out_args.append(f"{{DNNL_ARG_BIAS, {self.bias_memory(step, bias_md)}}}")
            y = self.product_output(step, f"accel_dnnl_md({pd}, dnnl_query_dst_md, 0)")
            return [*out_args, f"{{DNNL_ARG_DST, {y}}}", *extra]

        self.finish(desc, attr, args)

    def bias_md(self, step: Step, shape: tuple[int, ...]) -> str | None:
        if step.bias is None:
            return None
        return self.plain_md(shape, "f32")

    def bias_memory(self, step: Step, md: str) -> str:
        """The bias as f32: the constant itself, or an int8 product's bias dequantized as
        DequantizeLinear does (on f32: (b - z) s)."""
        if step.bias_quant is None and _dtype(step.bias) == "f32":
            return self.constant_memory(step.bias, md)
        value = np.asarray(constant_value(_constant(step.bias))).reshape(-1)
        if step.bias_quant is not None:
            q = step.bias_quant
            value = ((value.astype(np.int64) - np.asarray(q.zero_point, np.int64).reshape(-1)).astype(np.float32)
                     * np.asarray(q.scale, np.float32).reshape(-1))
        name = self.static_floats(value)
        mem = self.fresh("b")
        self.line(f"dnnl_memory_t {mem};")
        self.attempt(f"accel_dnnl_memory(r, &{md}, (void *){name}, &{mem})")
        return mem

    def print_matmul(self, step: Step) -> None:
        op = step.anchor
        a, b = step.inputs
        out = _shape(step.result)
        rank = len(out)
        sa, sb = _shape(a), _shape(b)
        if op.name == "relay.nn.dense":
            n, k = sb
            lhs_shape, lhs_strides = sa, row_major_strides(sa)
            rhs_shape = (1,) * (rank - 2) + (k, n)
            rhs_strides = (n * k,) * (rank - 2) + (1, k)
        else:
            ta = bool(op.prop("transpose_a"))
            tb = bool(op.prop("transpose_b")) if op.name == "relay.nn.batch_matmul" or op.prop("transpose_b") else False
            lhs_shape, lhs_strides = _logical(sa, rank, ta)
            rhs_shape, rhs_strides = _logical(sb, rank, tb)
        dequantized = _dequantized_product(step)
        src = self.strided_md(lhs_shape, lhs_strides, self.data_type(step, 0))
        rhs_const = _constant(b) is not None
        wplain = self.strided_md(rhs_shape, rhs_strides, _dtype(b))
        wei = self.any_md(rhs_shape, self.data_type(step, 1)) if rhs_const or dequantized else wplain
        dst = self.plain_md(out, "f32" if dequantized else _dtype(step.result))
        bias_md = self.bias_md(step, (1,) * (rank - 1) + (out[-1],))
        desc = self.fresh("mm")
        self.line(f"dnnl_matmul_desc_t {desc};")
        self.check(f"dnnl_matmul_desc_init(&{desc}, &{src}, &{wei}, {'&' + bias_md if bias_md else 'NULL'}, &{dst})")
        attr, extra = self.attr(step)

        def operand(v: SSAValue, md: str, shape, strides) -> str:
            if tuple(strides) == row_major_strides(tuple(shape)) and len(shape) == len(_shape(v)):
                return self.input(v, "&" + md)
            mem, _ = self.plain_input(v)
            return self.alias(mem, md)

        def dequantized_operand(i: int, v: SSAValue, shape, strides, want: str) -> str:
            """An int8 activation operand: its (strided) view dequantized into `want`."""
            view = operand(v, self.strided_md(shape, strides, _dtype(v)), shape, strides)
            mem = self.fresh("x")
            q = step.input_quant[i]
            self.line(f"dnnl_memory_t {mem};")
            self.attempt(f"accel_dnnl_dequantize(r, {view}, {want}, {c_float(_scalar(q.scale))}, "
                         f"{int(_scalar(q.zero_point))}, &{mem})")
            return mem

        def args(pd: str) -> list[str]:
            want_w = f"accel_dnnl_md({pd}, dnnl_query_weights_md, 0)"
            if dequantized:
                am = dequantized_operand(0, a, lhs_shape, lhs_strides, "&" + src)
                if rhs_const:  # per-channel scales vary along the output features (the last dim)
                    bm = self.dequantized_weights(step, wplain, want_w, 1 << (rank - 1))
                else:
                    bm = dequantized_operand(1, b, rhs_shape, rhs_strides, want_w)
            else:
                am = operand(a, src, lhs_shape, lhs_strides)
                bm = self.constant_memory(b, wplain, want_w) if rhs_const else operand(b, wplain, rhs_shape, rhs_strides)
            out_args = [f"{{DNNL_ARG_SRC, {am}}}", f"{{DNNL_ARG_WEIGHTS, {bm}}}"]
            if bias_md:
                out_args.append(f"{{DNNL_ARG_BIAS, {self.bias_memory(step, bias_md)}}}")
            y = self.product_output(step, "&" + dst)
            return [*out_args, f"{{DNNL_ARG_DST, {y}}}", *extra]

        self.finish(desc, attr, args)

    def print_pool(self, step: Step) -> None:
        op = step.anchor
        (x,) = step.inputs
        n, c, h, w = _shape(x)
        if op.name == "relay.nn.global_avg_pool2d":
            kernel, strides, dil, pads = (h, w), (1, 1), (1, 1), (0, 0, 0, 0)
            alg = "dnnl_pooling_avg_exclude_padding"
        else:
            kernel, strides, dil, pads = op.prop("pool_size"), op.prop("strides"), op.prop("dilation"), op.prop("padding")
            if op.name == "relay.nn.max_pool2d":
                alg = "dnnl_pooling_max"
            else:
                alg = "dnnl_pooling_avg_include_padding" if op.prop("count_include_pad") else "dnnl_pooling_avg_exclude_padding"
        self.pool(step, x, alg, kernel, strides, dil, pads)

    def pool(self, step: Step, x: SSAValue, alg: str, kernel, strides, dil, pads) -> None:
        h, w = _shape(x)[2:]
        out = _shape(step.result)
        pt, pl, pb, pr = pads
        # ceil mode: the extra output row/column reads past the end; oneDNN's padding says so
        pb = max(pb, (out[2] - 1) * strides[0] + (kernel[0] - 1) * dil[0] + 1 - h - pt)
        pr = max(pr, (out[3] - 1) * strides[1] + (kernel[1] - 1) * dil[1] + 1 - w - pl)
        if _dtype(x) in ("i8", "ui8"):  # oneDNN 2.6's int8 pooling kernels are channels-last only (else ref:any)
            src = self.fresh("md")
            self.line(f"dnnl_memory_desc_t {src};")
            self.check(f"dnnl_memory_desc_init_by_tag(&{src}, 4, {_dims(_shape(x))}, {DATA_TYPES[_dtype(x)]}, dnnl_nhwc)")
            mem = self.input(x, "&" + src)
        else:
            mem, src = self.activation(x)
            if alg != "dnnl_pooling_max" and h * w > LONG_SUM and tuple(kernel) == (h, w) and not any(pads):
                mem, src = self.row_means(mem, src, _shape(x))
                kernel, h, w = (h, 1), h, 1
        dst = self.any_md(out, _dtype(step.result))
        desc = self.fresh("pool")
        self.line(f"dnnl_pooling_v2_desc_t {desc};")
        self.check(f"dnnl_pooling_v2_forward_desc_init(&{desc}, dnnl_forward_inference, {alg}, &{src}, &{dst}, "
                   f"(dnnl_dims_t){{{strides[0]}, {strides[1]}}}, (dnnl_dims_t){{{kernel[0]}, {kernel[1]}}}, "
                   f"(dnnl_dims_t){{{dil[0] - 1}, {dil[1] - 1}}}, (dnnl_dims_t){{{pt}, {pl}}}, (dnnl_dims_t){{{pb}, {pr}}})")
        attr, extra = self.attr(step) if step.post_ops else (None, [])

        def args(pd: str) -> list[str]:
            y = self.output(step.result, f"accel_dnnl_md({pd}, dnnl_query_dst_md, 0)")
            return [f"{{DNNL_ARG_SRC, {mem}}}", f"{{DNNL_ARG_DST, {y}}}", *extra]

        self.finish(desc, attr, args, create="accel_dnnl_pooling_desc")

    def row_means(self, mem: str, src: str, shape) -> tuple[str, str]:
        """The first half of a global average (`pool`): the mean of each row into a scratch
        memory of shape (n, c, h, 1), whose column mean is then the result. oneDNN's
        pooling sums a window one element after another in f32, so a 160 x 160 window
        loses 3e-4 of the mean's magnitude; rows then their means sum at most
        max(h, w) terms each."""
        n, c, h, w = shape
        dst = self.any_md((n, c, h, 1), "f32")
        desc = self.fresh("pool")
        self.line(f"dnnl_pooling_v2_desc_t {desc};")
        self.check(f"dnnl_pooling_v2_forward_desc_init(&{desc}, dnnl_forward_inference, "
                   f"dnnl_pooling_avg_exclude_padding, &{src}, &{dst}, (dnnl_dims_t){{1, 1}}, (dnnl_dims_t){{1, {w}}}, "
                   "(dnnl_dims_t){0, 0}, (dnnl_dims_t){0, 0}, (dnnl_dims_t){0, 0})")
        rows = self.fresh("rows")
        self.line(f"dnnl_memory_t {rows};")
        self.line("{")  # the primitive's `args` in a scope of their own
        self.finish(desc, None, lambda pd: [
            f"{{DNNL_ARG_SRC, {mem}}}", f"{{DNNL_ARG_DST, {self.scratch(rows, pd)}}}"], create="accel_dnnl_pooling_desc")
        self.line("}")
        return rows, self.current_md(rows)

    def scratch(self, mem: str, pd: str) -> str:
        """`mem` (declared) allocated with the destination descriptor of `pd`."""
        self.attempt(f"accel_dnnl_memory(r, accel_dnnl_md({pd}, dnnl_query_dst_md, 0), NULL, &{mem})")
        return mem

    def print_eltwise(self, step: Step) -> None:
        (x,) = step.inputs
        mem, src = self.activation(x)
        p = step.eltwise
        desc = self.fresh("elt")
        self.line(f"dnnl_eltwise_desc_t {desc};")
        self.check(f"dnnl_eltwise_forward_desc_init(&{desc}, dnnl_forward_inference, {p.alg}, &{src}, "
                   f"{c_float(p.alpha)}, {c_float(p.beta)})")
        attr, extra = self.attr(step) if step.post_ops else (None, [])

        def args(pd: str) -> list[str]:
            y = self.output(step.result, f"accel_dnnl_md({pd}, dnnl_query_dst_md, 0)")
            return [f"{{DNNL_ARG_SRC, {mem}}}", f"{{DNNL_ARG_DST, {y}}}", *extra]

        self.finish(desc, attr, args)

    def print_binary(self, step: Step) -> None:
        op = step.anchor
        a, b = step.inputs
        out = _shape(op.results[0])
        if op.name == "relay.nn.bias_add":
            alg = "dnnl_binary_add"
            axis = int(op.prop("axis")) % len(out)
            bshape = tuple(d if i == axis else 1 for i, d in enumerate(out))
            if _constant(b) is not None:
                bmd = self.plain_md(bshape, _dtype(b))
                bm = self.constant_memory(b, bmd)
            else:
                plain, _ = self.plain_input(b)
                bmd = self.plain_md(bshape, _dtype(b))
                bm = self.alias(plain, bmd)
            am, amd = self.activation(a)
        else:
            alg = BINARY[op.name]
            if _shape(a) != out:
                a, b = b, a
            am, amd = self.activation(a)
            if _shape(b) == out and _dtype(b) == _dtype(a) and _constant(b) is None:
                # in the first operand's layout (operands of two layouts send oneDNN to ref:any)
                bm, bmd = self.input(b, "&" + amd), amd
            else:
                bm, bmd = self.broadcast_operand(b, len(out))
        dst = self.any_md(out, _dtype(step.result))
        desc = self.fresh("bin")
        self.line(f"dnnl_binary_desc_t {desc};")
        self.check(f"dnnl_binary_desc_init(&{desc}, {alg}, &{amd}, &{bmd}, &{dst})")
        attr, extra = self.attr(step) if step.post_ops else (None, [])

        def args(pd: str) -> list[str]:
            y = self.output(step.result, f"accel_dnnl_md({pd}, dnnl_query_dst_md, 0)")
            return [f"{{DNNL_ARG_SRC_0, {am}}}", f"{{DNNL_ARG_SRC_1, {bm}}}", f"{{DNNL_ARG_DST, {y}}}", *extra]

        self.finish(desc, attr, args)

    def print_softmax(self, step: Step) -> None:
        (x,) = step.inputs
        axis = int(step.anchor.prop("axis")) % len(_shape(x))
        mem, src = self.activation(x)
        desc = self.fresh("sm")
        self.line(f"dnnl_softmax_v2_desc_t {desc};")
        self.check(f"dnnl_softmax_v2_forward_desc_init(&{desc}, dnnl_forward_inference, dnnl_softmax_accurate, &{src}, "
                   f"&{src}, {axis})")

        def args(pd: str) -> list[str]:
            y = self.output(step.result, f"accel_dnnl_md({pd}, dnnl_query_dst_md, 0)")
            return [f"{{DNNL_ARG_SRC, {mem}}}", f"{{DNNL_ARG_DST, {y}}}"]

        self.finish(desc, None, args)

    def print_layer_norm(self, step: Step) -> None:
        x, gamma, beta = step.inputs
        rows, cols, md2, xm = self.normalized_rows(step, x)
        desc = self.fresh("ln")
        self.line(f"dnnl_layer_normalization_desc_t {desc};")
        self.check(f"dnnl_layer_normalization_forward_desc_init(&{desc}, dnnl_forward_inference, &{md2}, NULL, "
                   f"{c_float(float(step.anchor.prop('epsilon')))}, dnnl_use_scale | dnnl_use_shift)")
        cmd = self.plain_md((cols,), "f32")

        def args(pd: str) -> list[str]:
            g, bt = self.constant_memory(gamma, cmd), self.constant_memory(beta, cmd)
            y = self.plain_output(step.result, md2)
            return [f"{{DNNL_ARG_SRC, {xm}}}", f"{{DNNL_ARG_SCALE, {g}}}", f"{{DNNL_ARG_SHIFT, {bt}}}",
                    f"{{DNNL_ARG_DST, {y}}}"]

        self.finish(desc, None, args)

    def normalized_rows(self, step: Step, x: SSAValue) -> tuple[int, int, str, str]:
        """A norm's input as [rows, cols] (the axes from `axis` on are a row): the counts, the
        plain 2-D descriptor, and a memory of that view on the input's buffer."""
        shape = _shape(x)
        axis = int(step.anchor.prop("axis")) % len(shape)
        rows, cols = math.prod(shape[:axis]), math.prod(shape[axis:])
        plain, _ = self.plain_input(x)
        md2 = self.plain_md((rows, cols), "f32")
        return rows, cols, md2, self.alias(plain, md2)

    def print_rms_norm(self, step: Step) -> None:
        """x / sqrt(mean(x * x) + eps) * gamma; oneDNN 2.x's layer normalization has no RMS
        flag: a reduction (the sum of squares per row, a linear post-op making it their
        mean) into a scratch memory, then a layer normalization that takes it as the
        variance and zeros as the mean (`dnnl_use_global_stats`)."""
        x, gamma = step.inputs
        rows, cols, md2, xm = self.normalized_rows(step, x)
        column = self.plain_md((rows, 1), "f32")
        square_mean = self.fresh("ms")
        self.line(f"dnnl_memory_t {square_mean};")
        self.attempt(f"accel_dnnl_memory(r, &{column}, NULL, &{square_mean})")
        self.line("{")  # each primitive's `args` in a scope of its own
        red = self.fresh("red")
        self.line(f"dnnl_reduction_desc_t {red};")
        self.check(f"dnnl_reduction_desc_init(&{red}, dnnl_reduction_norm_lp_power_p_sum, &{md2}, &{column}, 2.0f, "
                   f"0.0f)")
        attr, _ = self.attr(Step("mean", step.anchor, [x], step.result,
                                 post_ops=[PostOp("eltwise", "dnnl_eltwise_linear", 1.0 / cols)]))
        self.finish(red, attr, lambda pd: [f"{{DNNL_ARG_SRC, {xm}}}", f"{{DNNL_ARG_DST, {square_mean}}}"])
        self.line("}")
        stats = self.plain_md((rows,), "f32")
        variance = self.alias(square_mean, stats)
        zeros = self.fresh("zeros")
        self.line(f"dnnl_memory_t {zeros};")
        self.attempt(f"accel_dnnl_memory(r, &{stats}, (void *){self.static_floats(np.zeros(rows))}, &{zeros})")
        desc = self.fresh("ln")
        self.line(f"dnnl_layer_normalization_desc_t {desc};")
        self.check(f"dnnl_layer_normalization_forward_desc_init(&{desc}, dnnl_forward_inference, &{md2}, &{stats}, "
                   f"{c_float(float(step.anchor.prop('epsilon')))}, dnnl_use_global_stats | dnnl_use_scale)")
        cmd = self.plain_md((cols,), "f32")

        def args(pd: str) -> list[str]:
            g = self.constant_memory(gamma, cmd)
            y = self.plain_output(step.result, md2)
            return [f"{{DNNL_ARG_SRC, {xm}}}", f"{{DNNL_ARG_MEAN, {zeros}}}", f"{{DNNL_ARG_VARIANCE, {variance}}}",
                    f"{{DNNL_ARG_SCALE, {g}}}", f"{{DNNL_ARG_DST, {y}}}"]

        self.finish(desc, None, args)

    def print_requantize(self, step: Step) -> None:
        """quantize: dst = round(src / s) + z into int8 in the layout of src (see
        `print_quantize`); dequantize: dst = s (src - z), a reorder that keeps the layout."""
        (x,) = step.inputs
        mem, src = self.activation(x)
        if step.output_quant is not None:
            self.print_quantize(step, mem, src)
            return
        attr = self.fresh("attr")
        self.line(f"dnnl_primitive_attr_t {attr};")
        self.check(f"dnnl_primitive_attr_create(&{attr})")
        scale = float(step.input_quant[0].scale.reshape(-1)[0])
        zp = int(step.input_quant[0].zero_point.reshape(-1)[0])
        self.check(f"dnnl_primitive_attr_set_output_scales({attr}, 1, 0, (const float[]){{{c_float(scale)}}})")
        extra = []
        if zp != 0:
            extra.append(self.zero_point(attr, "DNNL_ARG_SRC", zp))
        dst = self.fresh("md")
        self.line(f"dnnl_memory_desc_t {dst} = {src};")
        self.line(f"{dst}.data_type = {DATA_TYPES[_dtype(step.result)]};")
        pd, prim = self.fresh("pd"), self.fresh("p")
        self.line(f"dnnl_primitive_desc_t {pd};")
        self.line(f"dnnl_status_t {pd}_s = dnnl_reorder_primitive_desc_create(&{pd}, &{src}, accel_dnnl_engine, &{dst}, "
                  f"accel_dnnl_engine, {attr});")
        self.line(f"dnnl_primitive_attr_destroy({attr});")
        self.line(f"if ({pd}_s != dnnl_success) return accel_dnnl_fail(r, \"dnnl_reorder_primitive_desc_create\", {pd}_s);")
        self.line(f"dnnl_primitive_t {prim};")
        self.line(f"if (accel_dnnl_primitive(r, {pd}, &{prim})) {{ dnnl_primitive_desc_destroy({pd}); return 1; }}")
        self.line(f"dnnl_primitive_desc_destroy({pd});")
        y = self.output(step.result, "&" + dst)
        args = [f"{{DNNL_ARG_FROM, {mem}}}", f"{{DNNL_ARG_TO, {y}}}", *extra]
        self.line(f"const dnnl_exec_arg_t args[] = {{{', '.join(args)}}};")
        self.attempt(f"accel_dnnl_exec(r, {prim}, {len(args)}, args)")

    def print_quantize(self, step: Step, mem: str, src: str) -> None:
        """A single quantization, by the runtime's own loop (`accel_dnnl_quantize`: round(x
        / s) + z exactly as `_quantization` says, a NaN the zero point) into int8 in the
        layout of x. oneDNN has no exact primitive for it: a reorder multiplies by 1 / s
        and adds z before rounding, a binary division by a scalar runs on its reference
        kernel in blocked layouts, and its JIT binary with these post-ops writing int8
        faults when the channels do not fill nChw8c's last block (10 channels)."""
        q = step.output_quant
        dst = self.fresh("md")
        self.line(f"dnnl_memory_desc_t {dst} = {src};")
        self.line(f"{dst}.data_type = {DATA_TYPES[_dtype(step.result)]};")
        y = self.output(step.result, "&" + dst)
        self.attempt(f"accel_dnnl_quantize(r, {mem}, {y}, {c_float(_scalar(q.scale))}, {int(_scalar(q.zero_point))})")

    def zero_point(self, attr: str, arg: str, value: int) -> str:
        """A zero point given at run time (what oneDNN 2.6's int8 kernels take); its exec arg."""
        self.check(f"dnnl_primitive_attr_set_zero_points({attr}, {arg}, 1, 0, (const int32_t[]){{DNNL_RUNTIME_S32_VAL}})")
        zmd = self.plain_md((1,), "i32")
        zmem = self.fresh("zp")
        name = self.static_floats([value], "int32_t")
        self.line(f"dnnl_memory_t {zmem};")
        self.attempt(f"accel_dnnl_memory(r, &{zmd}, {name}, &{zmem})")
        return f"{{DNNL_ARG_ATTR_ZERO_POINTS | {arg}, {zmem}}}"

    def print_reshape(self, step: Step) -> None:
        (x,) = step.inputs
        plain, _ = self.plain_input(x)
        md = self.plain_md(_shape(step.result), _dtype(step.result))
        view = self.alias(plain, md)
        slot = self.slot(self.region_value(step.result))
        # region-internal: the result is the view (no copy); at the boundary: a copy
        self.line(f"if (!{slot}) {slot} = {view};")
        self.line(f"else ACCEL_DNNL_TRY(accel_dnnl_copy(r, {view}, {slot}));")

    def print_transpose(self, step: Step) -> None:
        (x,) = step.inputs
        shape = _shape(x)
        axes = step.anchor.prop("axes")
        axes = list(range(len(shape)))[::-1] if axes is None else [int(a) % len(shape) for a in axes]
        strides = row_major_strides(shape)
        plain, _ = self.plain_input(x)
        md = self.strided_md(tuple(shape[a] for a in axes), tuple(strides[a] for a in axes), _dtype(x))
        view = self.alias(plain, md)
        y = self.plain_output(step.result)
        self.attempt(f"accel_dnnl_copy(r, {view}, {y})")

    def print_slice(self, step: Step) -> None:
        """A reorder of the strided view of the picked elements into a plain result."""
        (x,) = step.inputs
        shape = _shape(x)
        ranges = relay.StridedSliceOp.ranges(shape, step.anchor.py_props())
        strides = row_major_strides(shape)
        plain, _ = self.plain_input(x)
        md = self.strided_md(tuple(len(r) for r in ranges), tuple(s * r.step for s, r in zip(strides, ranges)), _dtype(x))
        self.line(f"{md}.offset0 = {sum(r.start * s for r, s in zip(ranges, strides))};")
        view = self.alias(plain, md)
        y = self.plain_output(step.result)
        self.attempt(f"accel_dnnl_copy(r, {view}, {y})")

    def print_concat(self, step: Step) -> None:
        axis = int(step.anchor.prop("axis")) % len(_shape(step.result))
        mems, mds = zip(*(self.activation(v) for v in step.inputs))
        srcs = self.fresh("srcs")
        self.line(f"const dnnl_memory_desc_t {srcs}[] = {{{', '.join(mds)}}};")
        out = _shape(step.result)
        # 4-D: the blocked layout of the convolutions around it; else plain (oneDNN's own
        # choice for a 3-D concat, `bac`, sends the following elementwise ops to reference code)
        dst = self.any_md(out, _dtype(step.result)) if len(out) == 4 else self.plain_md(out, _dtype(step.result))
        pd, prim = self.fresh("pd"), self.fresh("p")
        self.line(f"dnnl_primitive_desc_t {pd};")
        self.check(f"dnnl_concat_primitive_desc_create(&{pd}, &{dst}, {len(mds)}, {axis}, {srcs}, NULL, accel_dnnl_engine)")
        # inputs only this concatenation may move into its result (each once, written by a primitive)
        views = [self.region_value(v) for v in step.inputs]
        movable = len(set(views)) == len(views) and all(v in self.produced for v in views)
        self.produced.difference_update(views)
        y = self.output(step.result, f"accel_dnnl_md({pd}, dnnl_query_dst_md, 0)")
        in_place = self.fresh("in_place")
        self.line(f"int {in_place} = 0;")
        if movable:
            self.attempt(f"accel_dnnl_concat_in_place(r, {y}, {axis}, {len(mems)}, (const dnnl_memory_t[]){{{', '.join(mems)}}}, "
                         f"&{in_place})")
        self.line(f"if (!{in_place}) {{")
        self.indent += 1
        self.line(f"dnnl_primitive_t {prim};")
        self.line(f"if (accel_dnnl_primitive(r, {pd}, &{prim})) {{ dnnl_primitive_desc_destroy({pd}); return 1; }}")
        args = [f"{{DNNL_ARG_MULTIPLE_SRC + {i}, {m}}}" for i, m in enumerate(mems)] + [f"{{DNNL_ARG_DST, {y}}}"]
        self.line(f"const dnnl_exec_arg_t args[] = {{{', '.join(args)}}};")
        self.attempt(f"accel_dnnl_exec(r, {prim}, {len(args)}, args)")
        self.indent -= 1
        self.line("}")
        self.line(f"dnnl_primitive_desc_destroy({pd});")

    def print_mean(self, step: Step) -> None:
        op = step.anchor
        (x,) = step.inputs
        shape = _shape(x)
        axes = op.prop("axis")
        axes = set(range(len(shape))) if not axes else {int(a) % len(shape) for a in axes}
        if op.prop("exclude"):
            axes = set(range(len(shape))) - axes
        kept = tuple(1 if i in axes else d for i, d in enumerate(shape))
        if len(shape) == 4 and axes == {2, 3} and _shape(step.result) == kept:  # global average pooling: JIT kernels
            self.pool(step, x, "dnnl_pooling_avg_exclude_padding", shape[2:], (1, 1), (1, 1), (0, 0, 0, 0))
            return
        mem, src = self.activation(x)
        dst = self.plain_md(kept, "f32")
        desc = self.fresh("red")
        self.line(f"dnnl_reduction_desc_t {desc};")
        self.check(f"dnnl_reduction_desc_init(&{desc}, dnnl_reduction_mean, &{src}, &{dst}, 0.0f, 0.0f)")

        def args(pd: str) -> list[str]:
            y = self.plain_output(step.result, dst)
            return [f"{{DNNL_ARG_SRC, {mem}}}", f"{{DNNL_ARG_DST, {y}}}"]

        self.finish(desc, None, args)


def _logical(stored: tuple[int, ...], rank: int, transposed: bool) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """A matmul operand stored row-major as `stored`, seen as (batch..., rows, cols) of
    `rank` dims (leading 1s), transposed in its last two dims when asked (by strides)."""
    strides = row_major_strides(stored)
    pad = rank - len(stored)
    shape, strides = (1,) * pad + stored, (math.prod(stored),) * pad + strides
    if transposed:
        shape = shape[:-2] + (shape[-1], shape[-2])
        strides = strides[:-2] + (strides[-1], strides[-2])
    return shape, strides


def _param_dtype(ctype: str) -> str:
    return {"float": "f32", "int8_t": "i8", "uint8_t": "ui8", "int32_t": "i32"}.get(ctype, ctype)


@functools.cache
def check_library(cc: str | None = None) -> None:
    """oneDNN's header and library must be there: one line naming the package, at
    compile time (not a wall of C compiler errors at build time)."""
    compiler = cc or os.environ.get("CC", "cc")
    if shutil.which(compiler) is None:
        return  # no C compiler: the build says so
    probe = "#include <oneapi/dnnl/dnnl.h>\nint main(void) { return dnnl_version()->major != DNNL_VERSION_MAJOR; }\n"
    with tempfile.TemporaryDirectory() as tmp:
        src = os.path.join(tmp, "probe.c")
        with open(src, "w") as f:
            f.write(probe)
        proc = subprocess.run([compiler, src, "-o", os.path.join(tmp, "probe"), "-ldnnl"], capture_output=True, text=True)
    if proc.returncode != 0:
        missing = "header <oneapi/dnnl/dnnl.h>" if "dnnl.h" in proc.stderr else "library -ldnnl"
        raise CompileError(f"target 'dnnl': oneDNN not found ({missing}): install {PACKAGE} "
                           f"(apt-get install {PACKAGE})")


def runtime_sources() -> dict[str, str]:
    out = {}
    for name in RUNTIME_FILES:
        with open(DNNL_DIR / name) as f:
            out[name] = f.read()
    return out


def codegen(region: RegionCodegenInput) -> RegionCodegenResult:
    check_library()
    text = RegionPrinter(region).print_region()
    runtime = runtime_sources()
    sym = region.symbol
    return RegionCodegenResult(
        sym,
        sources={f"{sym}.c": text, "accel_dnnl.c": runtime["accel_dnnl.c"]},
        headers={"accel_dnnl.h": runtime["accel_dnnl.h"], f"{sym}_dnnl.h": f"int {sym}_init(void);\nvoid {sym}_free(void);\n"},
        includes=(f"{sym}_dnnl.h",),
        ldflags=("-ldnnl", "-lgomp"),  # the runtime sets oneDNN's OpenMP thread count
        init=f"if ({sym}_init()) return 1;",
        free=f"{sym}_free();",
    )
