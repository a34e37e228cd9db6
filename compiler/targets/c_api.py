"""The vendor's C API as a description declares it: compute calls, params structs and
runtime functions, in a documented vocabulary (docs/targets.md, "The C API").

A compute entry names the function its wrapper calls and that function's arguments:

    [[ops]]
    op = "relay.nn.dense"
    c_function = "npu_dense_f32"
    args = ["input0", "weight", "bias", "output", "&matmul"]   # &matmul: api.structs.matmul

    [api.structs.matmul]
    type = "npu_matmul_params"
    fields = { m = "m", k = "k", n = "n", act = { value = "activation", enum = { none = "NPU_ACT_NONE", ... } } }

Every word is a `Word`: what it evaluates to on an accel compute op (`evaluate`), its kind
(buffer, scalar, array) and the compute ops it applies to. The reader (`parse_api`)
rejects an unknown word, a word of the wrong kind at its place, an enum that does not
cover its word's values and a word that does not apply to the entry's op, with one line
naming the file and key. The emitter derives every call from the result alone.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from xdsl.dialects.builtin import Float16Type, Float32Type, Float64Type, IntegerType, Signedness, TensorType
from xdsl.ir import Attribute

from accel.compiler.tensors import numpy_dtype
from accel.dialects import accel

# --------------------------------------------------------------------------------------
# The declared API
# --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Value:
    """One argument or struct field: a vocabulary word (`word`, with an enum mapping its
    values to the vendor's identifiers), or a literal number."""

    word: str | None = None
    enum: tuple[tuple[str, str], ...] | None = None
    literal: int | float | None = None

    def enum_value(self, value: Any) -> str | None:
        for k, ident in self.enum or ():
            if k == value:
                return ident
        return None


@dataclass(frozen=True)
class Arg:
    """An argument of a call: a value, or `&<struct>` (a pointer to a static const
    instance of a declared struct)."""

    value: Value | None = None
    struct: str | None = None


@dataclass(frozen=True)
class Struct:
    """A params struct of the vendor's header: type name and field -> value."""

    name: str
    type: str
    fields: tuple[tuple[str, Value], ...]


@dataclass(frozen=True)
class Call:
    function: str
    args: tuple[Arg, ...]


@dataclass(frozen=True)
class Runtime:
    """The target's runtime functions (None: the API has no such function)."""

    config: Struct
    token_type: str
    init: Call
    spm: Call
    register_host: Call | None
    dma_to_device: Call
    dma_to_host: Call
    dma_wait: Call
    dma_on_device: Call | None
    sync: Call
    write_counters: Call | None
    shutdown: Call | None


# --------------------------------------------------------------------------------------
# The compute vocabulary
# --------------------------------------------------------------------------------------

COMPUTE_KINDS = ("conv2d", "matmul", "pool", "eltwise")
"""The accel compute ops (`accel.<kind>`) an entry can lower to."""

COMMANDS: dict[str, tuple[str, str | None]] = {
    "relay.nn.conv2d": ("conv2d", None), "relay.qnn.conv2d": ("conv2d", None),
    "relay.nn.dense": ("matmul", None), "relay.nn.matmul": ("matmul", None), "relay.qnn.dense": ("matmul", None),
    "relay.nn.batch_matmul": ("matmul", None),
    "relay.nn.max_pool2d": ("pool", "max"), "relay.nn.avg_pool2d": ("pool", "avg"),
    "relay.nn.global_avg_pool2d": ("pool", "avg"),
    "relay.add": ("eltwise", "add"), "relay.qnn.add": ("eltwise", "add"), "relay.multiply": ("eltwise", "mul"),
    "relay.nn.relu": ("eltwise", "relu"), "relay.clip": ("eltwise", "clip"),
    "relay.qnn.requantize": ("eltwise", "clip"),  # of 8-bit data: an unbounded clip between two quantizations
    "relay.take": ("eltwise", "lut"),  # from a constant table of 256 by 8-bit indices (tabulate-activations)
    "relay.subtract": ("eltwise", "sub"), "relay.divide": ("eltwise", "div"),
    "relay.sigmoid": ("eltwise", "sigmoid"), "relay.tanh": ("eltwise", "tanh"), "relay.nn.gelu": ("eltwise", "gelu"),
    "relay.nn.silu": ("eltwise", "silu"), "relay.nn.softmax": ("eltwise", "softmax"),
    "relay.sqrt": ("eltwise", "sqrt"), "relay.exp": ("eltwise", "exp"), "relay.log": ("eltwise", "log"),
    "relay.nn.layer_norm": ("eltwise", "layer_norm"), "relay.nn.rms_norm": ("eltwise", "rms_norm"),
    # conversions alone (a dequantize folds into the form that reads it, a quantize ends
    # the form before it, where they can): a float island of a quantized model between them
    "relay.qnn.quantize": ("eltwise", "quantize"), "relay.qnn.dequantize": ("eltwise", "dequantize"),
}  # fmt: skip
"""The one table of which relay op becomes which accel command (`accel.<kind>` and its
`kind` property): the anchors of lower-to-accel's fused forms (`fused_forms.ANCHORS`),
the words that apply to an entry, and the entry that runs a command (`support.op_entry_for`)."""

KIND_VARIANTS: dict[str, str] = {"gelu_tanh": "gelu"}
"""Kinds an op's properties choose over its entry's (COMMANDS'): relay.nn.gelu with
`approximate = "tanh"` runs `gelu_tanh` (on an entry whose API encodes it)."""


def command_of(op) -> tuple[str, str | None] | None:
    """The accel command `op` (a relay op) becomes, its kind chosen by the op's properties
    (`KIND_VARIANTS`); None if COMMANDS has no entry."""
    command = COMMANDS.get(op.name)
    if command == ("eltwise", "gelu") and op.prop("approximate") == "tanh":
        return "eltwise", "gelu_tanh"
    return command


def call_values(call: Call, struct: Callable[[str], Struct]) -> list[Value]:
    """The values of a call's arguments and of the fields of the structs it passes
    (`struct(name)` resolves a struct)."""
    values = [a.value for a in call.args if a.value is not None]
    for a in call.args:
        if a.struct is not None:
            values += [v for _, v in struct(a.struct).fields]
    return values


def encodes_kind(call: Call | None, struct: Callable[[str], Struct], kind: str) -> bool:
    """Whether a call can pass `kind` (its `kind` word's enum maps it, or it has none)."""
    if call is None:
        return True
    return all(v.enum_value(kind) is not None for v in call_values(call, struct) if v.word == "kind" and v.enum)


RELAY_TO_COMPUTE: dict[str, str] = {op: kind for op, (kind, _) in COMMANDS.items()}
"""The compute op (`accel.<kind>`) each anchor op becomes."""

ALL = frozenset(COMPUTE_KINDS)
CONV_MM = frozenset({"conv2d", "matmul"})
QUANT_KINDS = frozenset({"conv2d", "matmul", "pool"})

BUFFER, SCALAR, ARRAY = "buffer", "scalar", "array"


@dataclass(frozen=True)
class Word:
    kind: str
    """buffer (a typed pointer), scalar (a C number) or array (a static const array)."""
    applies_to: frozenset[str]
    evaluate: Callable[[Any], Any]
    """accel compute op -> the operand's position among the op's operands, or None for
    NULL (buffer), number or str (scalar), list (array). A function of the op's name,
    properties and operand types only (a buffer: a position, never the value, so that
    `x + x` and `x + y` name their operands alike): the emitters evaluate it once per
    alike ops (`ir_build.op_signature`)."""
    ctype: str = "int64_t"
    """The C element type of a scalar or array."""
    domain: tuple[str, ...] | None = None
    """The values of an enumerated word (its enum must cover them all); for dtype words
    the element types."""


def _shape(v) -> tuple[int, ...]:
    return tuple(v.type.get_shape())


def _input(i: int) -> Callable[[Any], Any]:
    return lambda op: op.inputs[i] if len(op.inputs) > i else None


def _input_position(i: int) -> Callable[[Any], int | None]:
    return lambda op: i if len(op.inputs) > i else None  # the inputs are the first operands


def matmul_dims(op) -> tuple[int, int, int, int]:
    """(batch, m, k, n) of an accel.matmul: `batch` products of [m, k] x [k, n]."""
    a, b = _shape(op.inputs[0])[-2:], _shape(op.inputs[1])[-2:]
    a = (1, a[0]) if len(a) == 1 else a
    m, k = (a[1], a[0]) if op.prop("transpose_a") else a
    n = b[0] if op.prop("transpose_b") else b[1]
    return math.prod(_shape(op.output)[:-2]), m, k, n


def _prop(name: str) -> Callable[[Any], Any]:
    return lambda op: op.prop(name)


def dtype_name(t: Attribute) -> str:
    """The description's spelling of an element type: f32, i8 (signless or signed), ui8."""
    if isinstance(t, TensorType):
        t = t.element_type
    if isinstance(t, Float16Type):
        return "f16"
    if isinstance(t, Float32Type):
        return "f32"
    if isinstance(t, Float64Type):
        return "f64"
    if isinstance(t, IntegerType):
        prefix = "ui" if t.signedness.data == Signedness.UNSIGNED else "i"
        return f"{prefix}{t.width.data}"
    return str(t)


def _dtype_name(v) -> str:
    return dtype_name(v.type.element_type)


BUFFERS: dict[str, tuple[frozenset[str], Callable[[Any], Any]]] = {
    "input0": (ALL, _input(0)),
    "input1": (frozenset({"eltwise"}), _input(1)),  # NULL for a unary op
    "input2": (frozenset({"eltwise"}), _input(2)),  # layer norm's beta (NULL without)
    "weight": (CONV_MM, _input(1)),
    "bias": (CONV_MM, _input(2)),  # NULL without bias
    "output": (ALL, lambda op: op.output),
}
"""Buffers by word: which ops have them, and the operand (None: passed as NULL)."""

BUFFER_POSITIONS: dict[str, Callable[[Any], int | None]] = {
    "input0": _input_position(0), "input1": _input_position(1), "input2": _input_position(2),
    "weight": _input_position(1), "bias": _input_position(2),
    "output": lambda op: len(op.operands) - 1,  # the output is the last operand
}
"""The positions among the op's operands of `BUFFERS` (what a buffer word evaluates to)."""

_DTYPES = ("f16", "f32", "f64", "i1", "i8", "i16", "i32", "i64", "ui8", "ui16", "ui32", "ui64")

WORDS: dict[str, Word] = {
    # attributes
    "groups": Word(SCALAR, frozenset({"conv2d"}), _prop("groups")),
    "kind": Word(SCALAR, frozenset({"pool", "eltwise"}), _prop("kind"),
                 domain=("max", "avg", "add", "mul", "relu", "clip", "sub", "div", "sigmoid", "tanh", "gelu", "silu",
                         "gelu_tanh", "sqrt", "exp", "log", "softmax", "layer_norm", "rms_norm", "lut", "quantize",
                         "dequantize")),
    "table": Word(ARRAY, frozenset({"eltwise"}), lambda op: list(op.prop("table")) or None, "int32_t"),
    "table.len": Word(SCALAR, frozenset({"eltwise"}), lambda op: len(op.prop("table"))),
    "epsilon": Word(SCALAR, frozenset({"eltwise"}), _prop("epsilon"), "float"),
    "row_length": Word(SCALAR, frozenset({"eltwise"}), lambda op: (_shape(op.output) or (1,))[-1]),
    "activation": Word(SCALAR, frozenset({"conv2d", "matmul", "eltwise"}), _prop("activation"),
                       domain=("none", "relu", "clip")),
    "clip_min": Word(SCALAR, frozenset({"conv2d", "matmul", "eltwise"}), _prop("clip_min"), "float"),
    "clip_max": Word(SCALAR, frozenset({"conv2d", "matmul", "eltwise"}), _prop("clip_max"), "float"),
    "transpose_a": Word(SCALAR, frozenset({"matmul"}), lambda op: int(op.prop("transpose_a")), "int"),
    "transpose_b": Word(SCALAR, frozenset({"matmul"}), lambda op: int(op.prop("transpose_b")), "int"),
    "accumulate": Word(SCALAR, frozenset({"matmul"}), lambda op: int(op.prop("accumulate")), "int"),
    "count_include_pad": Word(SCALAR, frozenset({"pool"}), lambda op: int(op.prop("count_include_pad")), "int"),
    "input_zero_point": Word(SCALAR, QUANT_KINDS, _prop("input_zero_point"), "int32_t"),
    "weight_zero_point": Word(ARRAY, CONV_MM, lambda op: list(op.prop("weight_zero_point")) or [0], "int32_t"),
    "weight_zero_point.len": Word(SCALAR, CONV_MM, lambda op: len(op.prop("weight_zero_point")) or 1),
    "in_scale": Word(ARRAY, QUANT_KINDS, lambda op: list(op.prop("in_scale")) or [1.0], "float"),
    "in_scale[0]": Word(SCALAR, QUANT_KINDS, lambda op: (list(op.prop("in_scale")) or [1.0])[0], "float"),
    "in_scale.len": Word(SCALAR, QUANT_KINDS, lambda op: len(op.prop("in_scale")) or 1),
    "out_scale": Word(SCALAR, ALL, _prop("out_scale"), "float"),
    "output_zero_point": Word(SCALAR, ALL, _prop("output_zero_point"), "int32_t"),
    "lhs_scale": Word(SCALAR, frozenset({"eltwise"}), _prop("lhs_scale"), "float"),
    "lhs_zero_point": Word(SCALAR, frozenset({"eltwise"}), _prop("lhs_zero_point"), "int32_t"),
    "rhs_scale": Word(SCALAR, frozenset({"eltwise"}), _prop("rhs_scale"), "float"),
    "rhs_zero_point": Word(SCALAR, frozenset({"eltwise"}), _prop("rhs_zero_point"), "int32_t"),
    # shape values of a matrix product
    "batch": Word(SCALAR, frozenset({"matmul"}), lambda op: matmul_dims(op)[0]),
    "m": Word(SCALAR, frozenset({"matmul"}), lambda op: matmul_dims(op)[1]),
    "k": Word(SCALAR, frozenset({"matmul"}), lambda op: matmul_dims(op)[2]),
    "n": Word(SCALAR, frozenset({"matmul"}), lambda op: matmul_dims(op)[3]),
}  # fmt: skip

_INDEXED = {  # attribute arrays: `<name>` (a static array) or `<name>[i]` (a scalar)
    "strides": (frozenset({"conv2d", "pool"}), 2),
    "padding": (frozenset({"conv2d", "pool"}), 4),
    "dilation": (frozenset({"conv2d", "pool"}), 2),
    "pool_size": (frozenset({"pool"}), 2),
}
for _name, (_ops, _n) in _INDEXED.items():
    WORDS[_name] = Word(ARRAY, _ops, _prop(_name))
    for _i in range(_n):
        WORDS[f"{_name}[{_i}]"] = Word(SCALAR, _ops, lambda op, n=_name, i=_i: op.prop(n)[i])

_BUFFER_FIELD = re.compile(r"^(input0|input1|input2|weight|bias|output)\.(shape\[(\d)\]|shape|rank|numel|elem_bytes|dtype)$")


def compute_word(text: str) -> Word | None:
    """The word `text` of the compute vocabulary, or None."""
    if text in WORDS:
        return WORDS[text]
    if text in BUFFERS:
        return Word(BUFFER, BUFFERS[text][0], BUFFER_POSITIONS[text])
    m = _BUFFER_FIELD.match(text)
    if m is None:
        return None
    ops, get = BUFFERS[m.group(1)]
    if m.group(1) == "input1":  # a unary op's missing rhs reads as its lhs
        get = lambda op: op.inputs[1] if len(op.inputs) > 1 else op.inputs[0]  # noqa: E731
    field = m.group(2)
    if m.group(3) is not None:
        i = int(m.group(3))
        return Word(SCALAR, ops, lambda op: _shape(get(op))[i])
    if field == "shape":
        return Word(ARRAY, ops, lambda op: list(_shape(get(op))) or [1])
    if field == "rank":
        return Word(SCALAR, ops, lambda op: len(_shape(get(op))), "int")
    if field == "numel":
        return Word(SCALAR, ops, lambda op: math.prod(_shape(get(op))))
    if field == "elem_bytes":
        return Word(SCALAR, ops, lambda op: numpy_dtype(get(op).type.element_type).itemsize, "size_t")
    return Word(SCALAR, ops, lambda op: _dtype_name(get(op)), domain=_DTYPES)


def compute_kind(op: accel.ComputeOp) -> str:
    return op.name.removeprefix("accel.")


# --------------------------------------------------------------------------------------
# The runtime vocabulary
# --------------------------------------------------------------------------------------

RUNTIME_FUNCTIONS: dict[str, tuple[tuple[str, ...], bool]] = {
    "init": (("&config",), True),
    "spm": ((), True),
    "register_host": (("ptr", "bytes"), False),
    "dma_to_device": (("dst", "src", "elem_bytes", "rank", "shape", "dst_strides", "src_strides"), True),
    "dma_to_host": (("dst", "src", "elem_bytes", "rank", "shape", "dst_strides", "src_strides"), True),
    "dma_wait": (("token",), True),
    "dma_on_device": (("dst", "src", "elem_bytes", "rank", "shape", "dst_strides", "src_strides"), False),
    "sync": ((), True),
    "write_counters": (("path",), False),
    "shutdown": ((), False),
}
"""Runtime functions: the words their arguments may use, and whether a target must have
one. `init` gets the config struct, `spm` returns the scratchpad's base address, the DMA
functions return a token (`token_type`)."""

CONFIG_WORDS: dict[str, Callable[[Any], Any]] = {
    "memory.scratchpad_bytes": lambda d: d.memory.scratchpad_bytes,
    "memory.alignment": lambda d: d.memory.alignment,
    "memory.shared_with_host": lambda d: int(d.memory.shared_with_host),
    "dma.bytes_per_cycle": lambda d: float(d.dma.bytes_per_cycle),
    "dma.setup_cycles": lambda d: float(d.dma.setup_cycles),
    "compute.macs_per_cycle_f32": lambda d: float(d.compute.macs_per_cycle_f32),
    "compute.macs_per_cycle_int8": lambda d: float(d.compute.macs_per_cycle_int8),
    "compute.elementwise_per_cycle": lambda d: float(d.compute.elementwise_per_cycle),
    "compute.launch_cycles": lambda d: float(d.compute.launch_cycles),
    "dma.device_bytes_per_cycle": lambda d: float(d.dma.device_bytes_per_cycle or 0.0),
}
"""Values of the config struct's fields: the description's own numbers."""
