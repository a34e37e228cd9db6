"""Binary command streams of an instruction set (`accel.compiler.targets.isa`): encoding,
decoding, the text form, and the C tables the simulator decodes with.

    stream   = header words, then (each at a multiple of isa.alignment, zero padded)
               commands | data | relocations
    command  = `words` 32-bit little-endian words; word 0 holds opcode and length
    reloc    = [index of a command's first word in the commands section,
                base | (index of the field in the command's fields) << 16]
    bases    = the region's parameters a0..aN-1, then the model's arena, then weights

`encode` checks that every value fits its field (one line naming the key); `decode`
rejects a malformed stream with one line (what, and at which byte). `disassemble`
prints one command a line, `name field=value ...`, fields in the vocabulary's order, so
two encodings of the same program print the same fields.
"""

from __future__ import annotations

import math
import struct
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from accel.compiler.diagnostics import CompileError
from accel.compiler.targets import isa as V
from accel.compiler.targets.c_api import CONFIG_WORDS
from accel.compiler.targets.isa import Command, InstructionSet

# --------------------------------------------------------------------------------------
# A stream as values
# --------------------------------------------------------------------------------------


@dataclass
class Instr:
    """One command with its field values: numbers, float, enum value names, scratchpad
    offsets (None: absent), data byte offsets; relocated addresses (host, and scratchpad
    buffers that are region parameters) as (base, byte offset)."""

    command: Command
    values: dict[str, Any]


@dataclass
class Stream:
    header: dict[str, int]
    instrs: list[Instr]
    data: bytes = b""
    bases: int = 0
    """Relocation bases: the parameters, then arena and weights."""
    relocs: list[tuple[int, int]] = field(default_factory=list)
    """The relocation entries as stored."""


def base_name(base: int, bases: int) -> str:
    params = bases - 2
    return f"arg{base}" if base < params else "arena" if base == params else "weights"


# --------------------------------------------------------------------------------------
# Encoding
# --------------------------------------------------------------------------------------


class FieldError(Exception):
    """A value that does not fit its field (the encoder's caller adds where)."""


def field_code(isa: InstructionSet, cmd: Command, name: str, value: Any) -> int:
    kind, extra = V.FIELDS[name]
    f = cmd.fields[name]
    if kind == V.F32:
        return V.f32_bits(float(value))
    if kind == V.ENUM:
        code = isa.enums[extra].get(value)
        if code is None:
            raise FieldError(f"'{value}' is not a value of enum '{extra}'")
        return code
    if kind == V.SPM and value is None:
        return V.absent(f.width)
    if isinstance(value, tuple):  # (base, offset): relocated, the offset is encoded
        value = value[1]
    if isinstance(value, bool) or not isinstance(value, int):
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        else:
            raise FieldError(f"expected an integer, got {value!r}")
    if not V.fits(kind, value, f.width):
        raise FieldError(f"{value} does not fit {f.width} bits" + (" (all ones means absent)" if kind == V.SPM else ""))
    return value


def encode_command(isa: InstructionSet, instr: Instr) -> list[int]:
    cmd = instr.command
    words = [0] * cmd.words
    V.put(words, isa.opcode, cmd.opcode)
    V.put(words, isa.length, cmd.words)
    for name, f in cmd.fields.items():
        V.put(words, f, field_code(isa, cmd, name, instr.values[name]))
    return words


def header_values(isa: InstructionSet, desc, commands_bytes: int, data_bytes: int, relocs: int,
                  bases: int) -> dict[str, int]:
    own = {"magic": isa.magic, "version": isa.version, "commands_bytes": commands_bytes, "data_bytes": data_bytes,
           "relocs": relocs, "bases": bases}
    out = {}
    for word in isa.header:
        out[word] = own[word] if word in own else V.integral(CONFIG_WORDS[word.removeprefix("config.")](desc))
    return out


def layout(isa: InstructionSet, commands_bytes: int, data_bytes: int, relocs: int) -> tuple[int, int, int, int]:
    """Byte offsets of the commands, data and relocation sections, and the total size."""
    a = isa.alignment
    commands = V.aligned(4 * len(isa.header), a)
    data = V.aligned(commands + commands_bytes, a)
    reloc = V.aligned(data + data_bytes, a)
    return commands, data, reloc, V.aligned(reloc + 8 * relocs, a)


def encode(isa: InstructionSet, desc, stream: Stream, where: Sequence[Any] = ()) -> bytes:
    """The binary stream. `where[i]` (an op) locates errors of command i."""
    words: list[int] = []
    relocs: list[tuple[int, int]] = []
    for i, instr in enumerate(stream.instrs):
        try:
            encoded = encode_command(isa, instr)
        except FieldError as e:
            name = next(n for n in instr.command.fields if _fails(isa, instr, n))
            op = where[i] if i < len(where) else None
            raise CompileError(f"target '{desc.name}': key '{instr.command.key}.fields.{name}': {e}", op) from None
        for k, name in enumerate(instr.command.fields):
            base = relocated(name, instr.values[name])
            if base is not None:
                relocs.append((len(words), base | k << 16))
        words += encoded
    commands_bytes, data_bytes = 4 * len(words), len(stream.data)
    header = header_values(isa, desc, commands_bytes, data_bytes, len(relocs), stream.bases)
    c_off, d_off, r_off, total = layout(isa, commands_bytes, data_bytes, len(relocs))
    out = bytearray(total)
    struct.pack_into(f"<{len(isa.header)}I", out, 0, *(header[w] for w in isa.header))
    struct.pack_into(f"<{len(words)}I", out, c_off, *words)
    out[d_off:d_off + data_bytes] = stream.data
    for i, (word, entry) in enumerate(relocs):
        struct.pack_into("<2I", out, r_off + 8 * i, word, entry)
    return bytes(out)


def relocated(name: str, value: Any) -> int | None:
    """The base a field's value is relative to: always for a host address, for a
    scratchpad offset when the buffer is a region parameter (kept on the device)."""
    kind = V.FIELDS[name][0]
    if kind == V.HOST or (kind == V.SPM and isinstance(value, tuple)):
        return value[0]
    return None


def _fails(isa: InstructionSet, instr: Instr, name: str) -> bool:
    try:
        field_code(isa, instr.command, name, instr.values[name])
        return False
    except FieldError:
        return True


# --------------------------------------------------------------------------------------
# Decoding
# --------------------------------------------------------------------------------------


def decode(isa: InstructionSet, blob: bytes, what: str = "stream", spm_bytes: int | None = None) -> Stream:
    """The stream's values; a malformed stream raises CompileError (one line): the checks
    of the simulator's npu_cmd_submit (scratchpad offsets against `spm_bytes` if given)."""

    def fail(message: str, at: int) -> None:
        raise CompileError(f"{what}: {message} (at byte {at})")

    n_header = len(isa.header)
    if len(blob) < 4 * n_header:
        fail(f"truncated: {len(blob)} bytes, the header alone has {4 * n_header}", len(blob))
    values = struct.unpack_from(f"<{n_header}I", blob, 0)
    header = dict(zip(isa.header, values))
    if header["magic"] != isa.magic:
        fail(f"bad magic {header['magic']:#010x} (expected {isa.magic:#010x})", 0)
    if header["version"] != isa.version:
        fail(f"version {header['version']} (the instruction set is version {isa.version})",
             4 * isa.header.index("version"))
    cb, db, nr = header["commands_bytes"], header["data_bytes"], header["relocs"]
    if cb % 4:
        fail(f"commands_bytes {cb} is not a multiple of 4", 4 * isa.header.index("commands_bytes"))
    c_off, d_off, r_off, total = layout(isa, cb, db, nr)
    if total > len(blob):
        fail(f"truncated: the header announces {total} bytes, the stream has {len(blob)}", len(blob))
    words = struct.unpack_from(f"<{cb // 4}I", blob, c_off)
    instrs: list[Instr] = []
    starts: dict[int, int] = {}
    i = 0
    ended = False
    transfers = 0
    offsets: list[int] = []
    while i < len(words):
        at = c_off + 4 * i
        if ended:
            fail("command after 'end'", at)
        code = V.get((words[i],), isa.opcode)
        cmd = isa.by_opcode(code)
        if cmd is None:
            fail(f"reserved opcode {code:#x}", at)
        length = V.get((words[i],), isa.length)
        if length != cmd.words:
            fail(f"'{cmd.name}' has length {length}, expected {cmd.words}", at)
        if i + length > len(words):
            fail(f"truncated '{cmd.name}': {length} words, {len(words) - i} left", at)
        own = words[i:i + length]
        vals: dict[str, Any] = {}
        for name, f in cmd.fields.items():
            kind, extra = V.FIELDS[name]
            raw = V.get(own, f, kind)
            if kind == V.F32:
                vals[name] = V.bits_f32(raw)
            elif kind == V.ENUM:
                value = isa.enum_name(extra, raw)
                if value is None:
                    fail(f"'{cmd.name}': code {raw} is no value of enum '{extra}' ({name})", at)
                vals[name] = value
            elif kind == V.SPM:
                vals[name] = None if raw == V.absent(f.width) else raw
            else:
                vals[name] = raw
        if cmd.op in ("dma_to_device", "dma_to_host", "dma_on_device"):  # (as the simulator counts them)
            transfers += 1
        if cmd.op == "dma_wait" and not 1 <= vals["token"] <= transfers:
            fail(f"wait for transfer {vals['token']}, but {transfers} were issued", at)
        starts[i] = len(instrs)
        offsets.append(at)
        instrs.append(Instr(cmd, vals))
        ended = cmd.op == "end"
        i += length
    if not ended:
        fail("no 'end' command", c_off + cb)
    relocs = []
    for k in range(nr):
        at = r_off + 8 * k
        word, entry = struct.unpack_from("<2I", blob, at)
        base, index = entry & 0xFFFF, entry >> 16
        if word not in starts:
            fail(f"relocation {k} points at word {word}, where no command starts", at)
        instr = instrs[starts[word]]
        names = list(instr.command.fields)
        if index >= len(names) or V.FIELDS[names[index]][0] not in (V.HOST, V.SPM) or isinstance(
                instr.values[names[index]], tuple) or instr.values[names[index]] is None:
            fail(f"relocation {k}: field {index} of '{instr.command.name}' is no address to relocate", at)
        if base >= header["bases"]:
            fail(f"relocation {k}: base {base} of {header['bases']}", at)
        instr.values[names[index]] = (base, instr.values[names[index]])
        relocs.append((word, entry))
    for instr, at in zip(instrs, offsets):
        for name in instr.command.fields:
            kind = V.FIELDS[name][0]
            value = instr.values[name]
            if kind == V.SPM and isinstance(value, int) and spm_bytes is not None and value >= spm_bytes:
                fail(f"'{instr.command.name}': scratchpad offset {value} is outside the {spm_bytes}-byte scratchpad", at)
            if kind == V.HOST and not isinstance(instr.values[name], tuple):
                fail(f"the host address of '{instr.command.name}' has no relocation", at)
            if kind == V.DATA:
                n = instr.values.get(f"{name}_len", 0)
                if instr.values[name] % 4 or instr.values[name] + 4 * n > db:
                    fail(f"'{instr.command.name}': data [{instr.values[name]}, +{4 * n}) is outside the "
                         f"{db}-byte data section", at)
    return Stream(header, instrs, bytes(blob[d_off:d_off + db]), header["bases"], relocs)


# --------------------------------------------------------------------------------------
# Text
# --------------------------------------------------------------------------------------


def show(name: str, value: Any, bases: int) -> str:
    kind = V.FIELDS[name][0]
    if kind == V.F32:
        return _float(value)
    if kind == V.SPM and value is None:
        return "none"
    if isinstance(value, tuple):
        return f"{base_name(value[0], bases)}+{value[1]}"
    if kind == V.DATA:
        return f"data+{value}"
    return str(value)


def _float(x: float) -> str:
    if math.isnan(x):
        return "nan"
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    return f"{x:.9g}"


def disassemble(isa: InstructionSet, blob: bytes, what: str = "stream", spm_bytes: int | None = None) -> str:
    s = decode(isa, blob, what, spm_bytes)
    lines = [f"header {' '.join(f'{k}={v:#010x}' if k == 'magic' else f'{k}={v}' for k, v in s.header.items())}"]
    for i, instr in enumerate(s.instrs):
        fields = " ".join(f"{n}={show(n, instr.values[n], s.bases)}" for n in instr.command.fields)
        lines.append(f"{i:4d}: {instr.command.name}" + (f" {fields}" if fields else ""))
    if s.data:
        n = len(s.data) // 4
        lines.append(f"data {len(s.data)} bytes: " + " ".join(f"{w:#010x}" for w in struct.unpack(f"<{n}I", s.data)))
    return "\n".join(lines) + "\n"


# --------------------------------------------------------------------------------------
# The simulator's tables (a generated header, npu_cmd.h's types)
# --------------------------------------------------------------------------------------


def c_name(prefix: str, name: str) -> str:
    return f"{prefix}{''.join(c if c.isalnum() else '_' for c in name).upper()}"


def isa_table_c(isa: InstructionSet, target: str, symbol: str) -> str:
    """C for the decoding tables of `isa` (types of npu_cmd.h): `static const
    npu_cmd_isa <symbol>`."""
    lines = [f"/* Generated by accel-compile: the instruction set of target {target} (decoding tables). */",
             f"#ifndef {symbol.upper()}_H", f"#define {symbol.upper()}_H", "", '#include "npu_cmd.h"', ""]
    for c in isa.commands:
        if not c.fields:
            continue
        rows = []
        for name, f in c.fields.items():
            kind, extra = V.FIELDS[name]
            enum = c_name("NPU_CMD_E_", extra) if kind == V.ENUM else "0"
            rows.append(f"    {{{c_name('NPU_CMD_F_', name)}, {c_name('NPU_CMD_K_', kind)}, {enum}, "
                        f"{{{f.word}, {f.bit}, {f.width}}}}},")
        lines += [f"static const npu_cmd_field {symbol}_{c.name}_fields[] = {{", *rows, "};"]
    lines.append(f"static const npu_cmd_command {symbol}_commands[] = {{")
    for c in isa.commands:
        fields = f"{symbol}_{c.name}_fields" if c.fields else "NULL"
        lines.append(f'    {{"{c.name}", {c.opcode}u, {c_name("NPU_CMD_OP_", c.op)}, {c.words}, {len(c.fields)}, '
                     f"{fields}}},")
    lines.append("};")
    lines.append(f"static const npu_cmd_enum {symbol}_enums[] = {{")
    for enum, codes in isa.enums.items():
        for value, code in codes.items():
            lines.append(f"    {{{c_name('NPU_CMD_E_', enum)}, {V.ENUMS[enum].index(value)}, {code}u}}, /* {value} */")
    lines.append("};")
    header = ", ".join(c_name("NPU_CMD_H_", w) for w in isa.header)
    lines.append(f"static const uint16_t {symbol}_header[] = {{{header}}};")
    op, ln = isa.opcode, isa.length
    lines += [f"static const npu_cmd_isa {symbol} = {{",
              f'    "{target}", {isa.magic}u, {isa.version}u, {isa.alignment}u,',
              f"    {{{op.word}, {op.bit}, {op.width}}}, {{{ln.word}, {ln.bit}, {ln.width}}},",
              f"    {symbol}_header, {len(isa.header)},",
              f"    {symbol}_commands, {len(isa.commands)},",
              f"    {symbol}_enums, {sum(len(c) for c in isa.enums.values())},",
              "};", "", "#endif", ""]
    return "\n".join(lines)
