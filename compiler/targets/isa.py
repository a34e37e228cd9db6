"""Instruction sets of command-stream targets (`[isa]` of a description): the vocabulary
of commands and fields the simulator executes, and the declared encoding.

A command-stream accelerator (`npu-cmd`) runs no C: each region becomes one static
binary stream of commands. The *meaning* of the commands is fixed here (the operations
`npu_cmd.c` executes, one per accel op it stands for, and their fields); the *encoding*
is the description's: opcodes, every field's word, bit offset and width, enum codes,
the stream header and its alignment (docs/targets.md, "Instruction sets").

    [isa]
    magic = 0x31444D43            # the stream's first header word
    version = 1
    alignment = 16                # every section starts at a multiple of it
    header = ["magic", "version", "commands_bytes", "data_bytes", "relocs", "bases", "config.compute.macs_per_cycle_f32"]
    opcode = [0, 24, 8]           # [word, bit, width] of every command's opcode ...
    length = [0, 16, 8]           # ... and of its length in words (length-tagged)

    [isa.enums]
    activation = { none = 0, relu = 1, clip = 2 }

    [isa.commands.conv]
    op = "conv2d_f32"             # what it runs (OPS below: accel.conv2d on f32 data)
    opcode = 0x10
    words = 12
    fields = { x = [1, 0, 32], weight = [2, 0, 32], ..., act = [0, 0, 2] }

A stream is little-endian 32-bit words: the header words, then (each section starting
at a multiple of `alignment`, zero padded) the commands, the data section (per-channel
arrays of quantized commands) and the relocation table: two words per entry, the index
of a host address field's low word in the commands section and the base it is relative
to (a region parameter, then the model's arena, then its weights). `submit` patches them.
"""

from __future__ import annotations

import math
import struct
from dataclasses import dataclass, field

from accel.dialects import accel

# --------------------------------------------------------------------------------------
# Vocabulary (fixed by the simulator, compiler/runtime/c/sim/npu_cmd.{h,c})
# --------------------------------------------------------------------------------------

UINT, INT, F32, SPM, HOST, DATA, ENUM = "uint", "int", "f32", "spm", "host", "data", "enum"

ENUMS: dict[str, tuple[str, ...]] = {
    "activation": ("none", "relu", "clip"),
    "dtype": ("i8", "ui8"),
    "pool_kind": ("max", "avg"),
    "eltwise_kind": ("add", "mul", "relu", "clip", "sub", "div", "sigmoid", "tanh", "gelu", "silu", "gelu_tanh", "lut",
                     "sqrt", "exp", "log"),
    "rows_kind": ("softmax", "layer_norm", "rms_norm"),
}
"""Enumerations: their values (`isa.enums` gives the code of each value the engine has; every kind
a target offloads needs one)."""

_DMA = ("elem_bytes", "rank", "spm", "host", "shape0", "shape1", "shape2", "shape3", "spm_stride0", "spm_stride1",
        "spm_stride2", "spm_stride3", "host_stride0", "host_stride1", "host_stride2", "host_stride3")
_DEVICE_COPY = ("elem_bytes", "rank", "spm", "src_spm", "shape0", "shape1", "shape2", "shape3", "spm_stride0",
                "spm_stride1", "spm_stride2", "spm_stride3", "src_stride0", "src_stride1", "src_stride2", "src_stride3")

FIELDS: dict[str, tuple[str, str | None]] = {
    # transfers
    "elem_bytes": (UINT, None), "rank": (UINT, None), "spm": (SPM, None), "host": (HOST, None),
    **{f"shape{i}": (UINT, None) for i in range(4)},
    **{f"spm_stride{i}": (INT, None) for i in range(4)},
    **{f"host_stride{i}": (INT, None) for i in range(4)},
    "token": (UINT, None),
    # operands (scratchpad byte offsets; all ones: absent)
    "x": (SPM, None), "weight": (SPM, None), "bias": (SPM, None), "rhs": (SPM, None), "gamma": (SPM, None),
    "beta": (SPM, None), "y": (SPM, None),
    # geometry and attributes
    **{k: (UINT, None) for k in ("n", "c", "h", "w", "oc", "kh", "kw", "oh", "ow", "stride_h", "stride_w",
                                 "pad_top", "pad_left", "pad_bottom", "pad_right", "dil_h", "dil_w", "groups",
                                 "batch", "m", "k", "transpose_a", "transpose_b", "accumulate",
                                 "count_include_pad", "count", "rhs_count", "row_length",
                                 "weight_zero_point_len", "in_scale_len", "table_len")},
    "act": (ENUM, "activation"), "act_min": (F32, None), "act_max": (F32, None),
    "x_dtype": (ENUM, "dtype"), "w_dtype": (ENUM, "dtype"), "rhs_dtype": (ENUM, "dtype"), "y_dtype": (ENUM, "dtype"),
    "pool_kind": (ENUM, "pool_kind"), "eltwise_kind": (ENUM, "eltwise_kind"), "rows_kind": (ENUM, "rows_kind"),
    # quantization
    "input_zero_point": (INT, None), "rhs_zero_point": (INT, None), "out_zero_point": (INT, None),
    "x_scale": (F32, None), "rhs_scale": (F32, None), "out_scale": (F32, None), "epsilon": (F32, None),
    "weight_zero_point": (DATA, "int32"), "in_scale": (DATA, "float32"),
    "table": (DATA, "int32"),  # a lookup's 256 outputs (eltwise kind lut)
    # copies on the device: the source (the destination is `spm`, its strides `spm_stride*`)
    "src_spm": (SPM, None), **{f"src_stride{i}": (INT, None) for i in range(4)},
}  # fmt: skip
"""Every field by name: its kind (and enum, or a data array's element type). A field
means the same in every command that has it."""

_CONV = {"x": "input0", "weight": "weight", "bias": "bias", "y": "output", "n": "input0.shape[0]",
         "c": "input0.shape[1]", "h": "input0.shape[2]", "w": "input0.shape[3]", "oc": "weight.shape[0]",
         "kh": "weight.shape[2]", "kw": "weight.shape[3]", "oh": "output.shape[2]", "ow": "output.shape[3]",
         "stride_h": "strides[0]", "stride_w": "strides[1]", "pad_top": "padding[0]", "pad_left": "padding[1]",
         "pad_bottom": "padding[2]", "pad_right": "padding[3]", "dil_h": "dilation[0]", "dil_w": "dilation[1]",
         "groups": "groups", "act": "activation", "act_min": "clip_min", "act_max": "clip_max"}
_QUANT = {"x_dtype": "input0.dtype", "w_dtype": "weight.dtype", "y_dtype": "output.dtype",
          "input_zero_point": "input_zero_point", "weight_zero_point": "weight_zero_point",
          "weight_zero_point_len": "weight_zero_point.len", "in_scale": "in_scale", "in_scale_len": "in_scale.len",
          "out_scale": "out_scale", "out_zero_point": "output_zero_point"}
_MATMUL = {"x": "input0", "weight": "weight", "bias": "bias", "y": "output", "batch": "batch", "m": "m", "k": "k",
           "n": "n", "transpose_a": "transpose_a", "transpose_b": "transpose_b", "accumulate": "accumulate",
           "act": "activation", "act_min": "clip_min", "act_max": "clip_max"}
_POOL = {"pool_kind": "kind", "x": "input0", "y": "output", "n": "input0.shape[0]", "c": "input0.shape[1]",
         "h": "input0.shape[2]", "w": "input0.shape[3]", "oh": "output.shape[2]", "ow": "output.shape[3]",
         "kh": "pool_size[0]", "kw": "pool_size[1]", "stride_h": "strides[0]", "stride_w": "strides[1]",
         "dil_h": "dilation[0]", "dil_w": "dilation[1]", "pad_top": "padding[0]", "pad_left": "padding[1]",
         "pad_bottom": "padding[2]", "pad_right": "padding[3]", "count_include_pad": "count_include_pad"}
_ELTWISE = {"eltwise_kind": "kind", "x": "input0", "rhs": "input1", "y": "output", "count": "output.numel",
            "act": "activation", "act_min": "clip_min", "act_max": "clip_max"}

_ROWS = {"rows_kind": "kind", "x": "input0", "gamma": "input1", "beta": "input2", "y": "output",
         "count": "output.numel", "row_length": "row_length", "epsilon": "epsilon"}

COMPUTE_OPS: dict[str, dict[str, str]] = {
    "conv2d_f32": _CONV,
    "conv2d_q8": {**_CONV, **_QUANT},
    "matmul_f32": _MATMUL,
    "matmul_q8": {**_MATMUL, **_QUANT},
    "pool_f32": _POOL,
    "pool_q8": {**_POOL, "x_dtype": "input0.dtype", "y_dtype": "output.dtype", "x_scale": "in_scale[0]",
                "input_zero_point": "input_zero_point", "out_scale": "out_scale", "out_zero_point": "output_zero_point"},
    "eltwise_f32": {**_ELTWISE, "rhs_count": "input1.numel"},
    "eltwise_q8": {**_ELTWISE, "rhs_count": "input1.numel", "x_dtype": "input0.dtype", "rhs_dtype": "input1.dtype", "y_dtype": "output.dtype",
                   "x_scale": "lhs_scale", "input_zero_point": "lhs_zero_point", "rhs_scale": "rhs_scale",
                   "rhs_zero_point": "rhs_zero_point", "out_scale": "out_scale", "out_zero_point": "output_zero_point",
                   "table": "table", "table_len": "table.len"},
    # conversions alone (relay.qnn.quantize / dequantize: npu_convert)
    "quantize": {"x": "input0", "y": "output", "count": "output.numel", "y_dtype": "output.dtype",
                 "out_scale": "out_scale", "out_zero_point": "output_zero_point"},
    "dequantize": {"x": "input0", "y": "output", "count": "output.numel", "x_dtype": "input0.dtype",
                   "x_scale": "lhs_scale", "input_zero_point": "lhs_zero_point"},
    "rows_f32": _ROWS,
    "rows_q8": {**_ROWS, "x_dtype": "input0.dtype", "y_dtype": "output.dtype", "x_scale": "lhs_scale",
                "input_zero_point": "lhs_zero_point", "out_scale": "out_scale", "out_zero_point": "output_zero_point"},
}  # fmt: skip
"""Compute operations: each field and the compute word (accel.compiler.targets.c_api)
it takes on the accel op, exactly as the npu's params structs (npu.toml) take them, so
a stream computes what the C-API npu computes."""

OPTIONAL: dict[str, tuple[str, ...]] = {"eltwise_q8": ("table", "table_len")}
"""Fields an operation's command may leave out: then it cannot run what needs them (a
lookup, eltwise kind lut, needs the table: `support.entry_encodes`)."""

OPS: dict[str, tuple[str, ...]] = {
    "dma_to_device": _DMA,  # accel.dma_start host -> scratchpad
    "dma_to_host": _DMA,  # accel.dma_start scratchpad -> host
    "dma_wait": ("token",),  # accel.dma_wait: the host waits for the stream's token-th transfer (1, 2, ...)
    "barrier": (),  # the region's end: every engine drains (npu_sync)
    "end": (),  # the last command of a stream
    **{name: tuple(f for f in fields if f not in OPTIONAL.get(name, ())) for name, fields in COMPUTE_OPS.items()},
    "dma_on_device": _DEVICE_COPY,  # accel.dma_start scratchpad -> scratchpad (npu_dma_on_device)
}
"""Every operation a command may run, with the fields it must encode (and may: `OPTIONAL`)."""


def fields_of(op: str) -> tuple[str, ...]:
    """The fields a command running `op` may have, in their order."""
    return OPS[op] + OPTIONAL.get(op, ())

ROW_KINDS = frozenset(ENUMS["rows_kind"])
CONVERSIONS = accel.EltwiseOp.CONVERT
"""Operations (named as the accel.eltwise kinds they run) an instruction set may leave
out: a conversion alone then runs on the host."""
QUANTIZED = frozenset({"i8", "ui8"})


def op_for(kind: str, dtype: str, eltwise_kind: str | None = None) -> str | None:
    """The operation that runs `accel.<kind>` whose output has element type `dtype`
    (None: no operation does)."""
    if kind == "eltwise" and eltwise_kind in ROW_KINDS:
        return "rows_f32" if dtype == "f32" else "rows_q8" if dtype in QUANTIZED else None
    if kind == "eltwise" and eltwise_kind in CONVERSIONS:
        return eltwise_kind  # (optional: without its command, a conversion stays on the host)
    if kind == "eltwise" and eltwise_kind == "lut":
        return "eltwise_q8" if dtype in QUANTIZED else None  # (with its table: `OPTIONAL`)
    suffix = "f32" if dtype == "f32" else "q8" if dtype in QUANTIZED else None
    name = f"{kind}_{suffix}"
    return name if suffix and name in OPS else None


HEADER_WORDS = ("magic", "version", "commands_bytes", "data_bytes", "relocs", "bases")
"""Header words besides `config.<word>`; all are required."""

HEADER_CONFIG = ("memory.scratchpad_bytes", "memory.alignment", "memory.shared_with_host", "dma.bytes_per_cycle",
                 "dma.setup_cycles", "compute.macs_per_cycle_f32", "compute.macs_per_cycle_int8",
                 "compute.elementwise_per_cycle")
"""Optional `config.<word>` header words: the description's numbers
(accel.compiler.targets.c_api.CONFIG_WORDS) that the device's configuration has, which
the simulator compares with its own (`compute.launch_cycles` is the cost model's
per-region number, not the device's)."""

# --------------------------------------------------------------------------------------
# The declared encoding
# --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class BitField:
    """Bits [bit, bit + width) of word `word` of a command (64-bit host addresses span
    two words, low word first)."""

    word: int
    bit: int
    width: int

    def span(self) -> tuple[int, int]:
        start = self.word * 32 + self.bit
        return start, start + self.width


@dataclass(frozen=True)
class Command:
    name: str
    op: str
    opcode: int
    words: int
    fields: dict[str, BitField]
    key: str = ""
    """Where it is declared: "isa.commands.<name>"."""


@dataclass(frozen=True)
class InstructionSet:
    magic: int
    version: int
    alignment: int
    header: tuple[str, ...]
    opcode: BitField
    length: BitField
    enums: dict[str, dict[str, int]]
    commands: tuple[Command, ...]
    _by_op: dict[str, Command] = field(default_factory=dict, compare=False, repr=False)
    _by_opcode: dict[int, Command] = field(default_factory=dict, compare=False, repr=False)

    def __post_init__(self) -> None:
        for c in self.commands:
            self._by_op.setdefault(c.op, c)
            self._by_opcode[c.opcode] = c

    def command(self, op: str) -> Command | None:
        """The (first declared) command that runs operation `op`."""
        return self._by_op.get(op)

    def by_opcode(self, opcode: int) -> Command | None:
        return self._by_opcode.get(opcode)

    def enum_name(self, enum: str, code: int) -> str | None:
        return next((k for k, v in self.enums[enum].items() if v == code), None)


# --------------------------------------------------------------------------------------
# Words and bits
# --------------------------------------------------------------------------------------


def fits(kind: str, value: int, width: int) -> bool:
    """Whether an (unsigned, or for INT signed) value fits `width` bits; a scratchpad
    offset must leave the all-ones code free (it means "absent")."""
    if kind == INT:
        return -(1 << (width - 1)) <= value < (1 << (width - 1))
    limit = (1 << width) - 1 if kind == SPM else 1 << width
    return 0 <= value < limit


def absent(width: int) -> int:
    """The code of an absent scratchpad operand (NULL): all ones."""
    return (1 << width) - 1


def f32_bits(x: float) -> int:
    return struct.unpack("<I", struct.pack("<f", x))[0]


def bits_f32(b: int) -> float:
    return struct.unpack("<f", struct.pack("<I", b))[0]


def put(words: list[int], f: BitField, value: int) -> None:
    """Write `value` (already checked to fit, two's complement for negatives) at `f`."""
    raw = value & ((1 << f.width) - 1)
    if f.width == 64:
        words[f.word] |= raw & 0xFFFFFFFF
        words[f.word + 1] |= raw >> 32
        return
    words[f.word] |= raw << f.bit


def get(words: list[int] | tuple[int, ...], f: BitField, kind: str = UINT) -> int:
    if f.width == 64:
        return words[f.word] | (words[f.word + 1] << 32)
    raw = (words[f.word] >> f.bit) & ((1 << f.width) - 1)
    if kind == INT and raw >> (f.width - 1):
        raw -= 1 << f.width
    return raw


def aligned(n: int, alignment: int) -> int:
    return -(-n // alignment) * alignment


def integral(x: float) -> int | None:
    """A config number as a header word: an integer value, or None."""
    return int(x) if isinstance(x, (int, float)) and math.isfinite(x) and float(x).is_integer() else None
