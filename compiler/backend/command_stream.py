"""The command-stream codegen hook: a lowered region as one static binary stream of its
target's instruction set (`[isa]`), submitted by a tiny host function.

The region function (lowered, tiled, with DMA and tokens) is evaluated at compile time:
loops unrolled, index arithmetic folded, every buffer resolved to a scratchpad offset or
a host location (parameter, arena, weights). Each op becomes commands:

    accel.dma_start  ->  dma_to_device / dma_to_host    (host address relocated)
    accel.dma_wait   ->  dma_wait token=<the stream's n-th transfer>, per token
    accel.<compute>  ->  conv2d_f32 | conv2d_q8 | matmul_* | pool_* | eltwise_* | rows_f32
    func.return      ->  barrier, end

so the waits are exactly the accel dialect's (the engines overlap as with the C-API npu,
whose calls the simulator's commands are). The result:

    static const uint8_t npu_cmd_0_stream[] = {...};          (<target>_wrappers.c)
    int npu_cmd_0(float *a0, float *a1) {
        const void *bases[] = {a0, a1, model_arena, model_weights};
        return npu_cmd_wait(npu_cmd_submit(&npu_cmd_isa_table, "npu_cmd_0", npu_cmd_0_stream, ..., bases, 4));
    }

plus `<target>_isa_table.h` (the decoding tables, from the description), `<region>.bin` (the
stream, for accel-disasm) and report `{"stream_bytes", "commands", "relocs"}`.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from typing import Any

import numpy as np
from xdsl.dialects import arith, func, memref, scf
from xdsl.dialects.builtin import DYNAMIC_INDEX
from xdsl.ir import Operation, SSAValue

from accel.compiler.backend.c_emitter import (CApiCodegen, CWriter, dense_source, dtype_of, has_runtime, runtime_call,
                                             strides_of, transfer_geometry)
from accel.compiler.backend.c_text import c_comment
from accel.compiler.backend.codegen_hook import RegionCodegenInput, RegionCodegenResult
from accel.compiler.backend.stream_format import Instr, Stream, encode, isa_table_c
from accel.compiler.diagnostics import CompileError
from accel.compiler.index_arith import INDEX_ARITH
from accel.compiler.ir_build import PER_DESCRIPTION, IdentityMemo, dense_values, op_signature, operand_segments
from accel.compiler.targets import isa as V
from accel.compiler.targets.c_api import BUFFER, compute_kind, compute_word, dtype_name
from accel.dialects import accel
from accel.dialects.memo import by_identity

COMPUTE_FIELDS = IdentityMemo()
"""Op signature -> `StreamBuilder.compute_fields` (of every region: a command depends on
the vocabulary only, not on the target)."""

BASES = ("arena", "weights")
"""The relocation bases after the region's parameters."""


@dataclass(frozen=True)
class Spm:
    """A scratchpad byte offset, relative to the scratchpad or (a parameter kept on the
    device) to parameter `param`."""

    offset: int
    param: int | None = None

    def field(self) -> int | tuple[int, int]:
        return self.offset if self.param is None else (self.param, self.offset)


class StreamBuilder:
    """Evaluates one region function into the commands of `desc.isa`."""

    def __init__(self, region: RegionCodegenInput):
        self.region = region
        self.desc = region.target
        self.isa = region.target.isa
        self.params = len(region.params)
        self.env: dict[SSAValue, Any] = {}
        self.instrs: list[Instr] = []
        self.where: list[Operation | None] = []
        self.data = bytearray()
        self.data_at: dict[bytes, int] = {}
        self.transfers = 0

    def build(self) -> Stream:
        fn = self.region.function
        for i, arg in enumerate(fn.body.block.args):
            self.env[arg] = Spm(0, i) if accel.memory_space(arg.type) == "spm" else (i, 0)
        self.block(fn.body.block.ops)
        return Stream({}, self.instrs, bytes(self.data), self.params + len(BASES))

    # -- commands ----------------------------------------------------------------------

    def emit(self, op_name: str, values: dict[str, Any], where: Operation | None) -> None:
        cmd = self.isa.command(op_name)
        if cmd is None:
            raise CompileError(f"target '{self.desc.name}': no command of its instruction set runs '{op_name}'", where)
        self.instrs.append(Instr(cmd, {f: values[f] for f in cmd.fields}))
        self.where.append(where)

    def array(self, values: list[Any], ctype: str) -> int:
        blob = np.asarray(values, dtype=np.int32 if ctype == "int32" else np.float32).astype("<" + (
            "i4" if ctype == "int32" else "f4")).tobytes()
        if blob not in self.data_at:
            self.data_at[blob] = len(self.data)
            self.data += blob
        return self.data_at[blob]

    # -- evaluation --------------------------------------------------------------------

    def block(self, ops) -> None:
        for op in ops:
            self.op(op)

    def value(self, v: SSAValue) -> Any:
        if v not in self.env:
            raise CompileError(f"the command-stream emitter has no value for {v.type}",
                               v.owner if isinstance(v.owner, Operation) else None)
        return self.env[v]

    def op(self, op: Operation) -> None:
        run = self.RUNS.get(type(op))
        if run is None:  # a subclass of an op the region may hold (a compute op)
            run = next((self.RUNS[c] for c in type(op).__mro__ if c in self.RUNS), None)
            if run is None:
                raise CompileError(f"the command-stream emitter cannot run '{op.name}' in an accelerator region", op)
        run(self, op)

    def end(self, op: func.ReturnOp) -> None:
        self.emit("barrier", {}, op)
        self.emit("end", {}, op)

    def host_buffer(self, op: accel.WeightOp | memref.AllocOp) -> None:
        kind, off = self.region.host_location(op.results[0])
        self.env[op.results[0]] = (self.params + BASES.index(kind), off)

    def spm_buffer(self, op: accel.AllocOp) -> None:
        result, offset = op.results[0], op.offset
        if accel.memory_space(result.type) != "spm" or offset is None:
            raise CompileError("scratchpad buffers need a planned offset (run insert-dma)", op)
        self.env[result] = Spm(offset.value.data)

    def constant(self, op: arith.ConstantOp) -> None:
        self.env[op.result] = op.value.value.data

    def index_arith(self, op: arith.SignlessIntegerBinaryOperation) -> None:
        self.env[op.result] = INDEX_ARITH[type(op)](self.value(op.lhs), self.value(op.rhs))

    def wait(self, op: accel.DmaWaitOp) -> None:
        for t in op.operands:
            token = self.value(t)
            if token is not None:  # (None: a guarded transfer not issued, complete)
                self.emit("dma_wait", {"token": token}, op)

    def loop(self, op: scf.ForOp) -> None:
        lb, ub, step = self.value(op.lb), self.value(op.ub), self.value(op.step)
        args = op.body.block.args
        carried = [self.value(v) for v in op.iter_args]
        for i in range(lb, ub, step):
            self.env[args[0]] = i
            for arg, v in zip(args[1:], carried):
                self.env[arg] = v
            for inner in op.body.block.ops:
                if isinstance(inner, scf.YieldOp):
                    carried = [self.value(v) for v in inner.operands]
                else:
                    self.op(inner)
        for res, v in zip(op.results, carried):
            self.env[res] = v

    def subview(self, op: memref.SubviewOp) -> None:
        (source,), offsets, _, _ = operand_segments(op)
        dyn = iter(offsets)
        src = self.value(source)
        strides, _ = strides_of(source.type)
        elems = 0
        for o, st in zip(dense_values(op.static_offsets), strides):
            elems += (self.value(next(dyn)) if o == DYNAMIC_INDEX else o) * st
        delta = elems * dtype_of(source.type).itemsize
        at = Spm(src.offset + delta, src.param) if isinstance(src, Spm) else (src[0], src[1] + delta)
        self.env[op.results[0]] = at

    def strided_view(self, op: memref.ReinterpretCastOp) -> None:
        """A layout op's view of a dense buffer: its first element (the strides are the type's)."""
        dense_source(op)
        src = self.value(op.source)
        (first,) = dense_values(op.static_offsets)
        delta = first * dtype_of(op.source.type).itemsize
        self.env[op.results[0]] = Spm(src.offset + delta, src.param) if isinstance(src, Spm) else (src[0], src[1] + delta)

    def dma(self, op: accel.DmaStartOp) -> None:
        guard = op.guard_pair
        if guard is not None and not self.value(guard[0]) < self.value(guard[1]):
            self.env[op.token] = None  # not issued: the stream holds no command for it
            return
        source, dest = op.source, op.dest
        to_spm, from_spm = accel.memory_space(dest.type) == "spm", accel.memory_space(source.type) == "spm"
        if to_spm and from_spm:
            self.device_copy(op)
            return
        to_device = to_spm
        spm_v, host_v = (dest, source) if to_device else (source, dest)
        spm, host = self.value(spm_v), self.value(host_v)
        if not isinstance(spm, Spm) or isinstance(host, Spm):
            raise CompileError("a transfer of a command-stream target moves between host memory and the scratchpad", op)
        shape, dest_strides, source_strides = transfer_geometry(source.type, dest.type)
        if not 1 <= len(shape) <= 4:
            raise CompileError(f"a transfer has rank 1..4, got {len(shape)}", op)
        pad = [0] * (4 - len(shape))
        spm_strides = list(dest_strides if to_device else source_strides) + pad
        host_strides = list(source_strides if to_device else dest_strides) + pad
        values = {"elem_bytes": dtype_of(source.type).itemsize, "rank": len(shape), "spm": spm.field(), "host": host,
                  **{f"shape{i}": d for i, d in enumerate(list(shape) + pad)},
                  **{f"spm_stride{i}": s for i, s in enumerate(spm_strides)},
                  **{f"host_stride{i}": s for i, s in enumerate(host_strides)}}
        self.emit("dma_to_device" if to_device else "dma_to_host", values, op)
        self.transfers += 1
        self.env[op.results[0]] = self.transfers

    def device_copy(self, op: accel.DmaStartOp) -> None:
        dst, src = self.value(op.dest), self.value(op.source)
        if not isinstance(dst, Spm) or not isinstance(src, Spm):
            raise CompileError("a copy on the device moves within the scratchpad", op)
        shape, dest_strides, source_strides = transfer_geometry(op.source.type, op.dest.type)
        if not 1 <= len(shape) <= 4:
            raise CompileError(f"a copy on the device has rank 1..4, got {len(shape)}", op)
        pad = [0] * (4 - len(shape))
        values = {"elem_bytes": dtype_of(op.source.type).itemsize, "rank": len(shape), "spm": dst.field(),
                  "src_spm": src.field(), **{f"shape{i}": d for i, d in enumerate(list(shape) + pad)},
                  **{f"spm_stride{i}": s for i, s in enumerate(list(dest_strides) + pad)},
                  **{f"src_stride{i}": s for i, s in enumerate(list(source_strides) + pad)}}
        self.emit("dma_on_device", values, op)
        self.transfers += 1
        self.env[op.token] = self.transfers

    def compute(self, op: accel.ComputeOp) -> None:
        name, fields = self.compute_fields(op)
        operands = op.operands
        values: dict[str, Any] = {}
        for fld, kind, x in fields:
            if kind == BUFFER:
                if x is None:
                    values[fld] = None
                    continue
                at = self.value(operands[x])
                if not isinstance(at, Spm):
                    raise CompileError(f"target '{self.desc.name}' computes on its scratchpad only", op)
                values[fld] = at.field()
            elif kind == V.DATA:
                values[fld] = self.array(x[1], x[0])
            else:
                values[fld] = x
        self.emit(name, values, op)

    def compute_fields(self, op: accel.ComputeOp) -> tuple[str, tuple[tuple[str, str, Any], ...]]:
        """The command of a compute op and its fields' values: (field, BUFFER, operand index
        or None), (field, DATA, (ctype, values)) or (field, kind, value). A word is a
        function of the op's signature (name, properties, operand types: `c_api.Word`),
        and those are interned: alike ops share one evaluation (`COMPUTE_FIELDS`)."""
        key = op_signature(op)
        hit = COMPUTE_FIELDS.get(key)
        if hit is not None:
            return hit
        kind = compute_kind(op)
        dtype = dtype_name(op.output.type.element_type)
        name = V.op_for(kind, dtype, op.prop("kind") if kind in ("pool", "eltwise") else None)
        if name is None:
            raise CompileError(f"target '{self.desc.name}': no command runs accel.{kind} on {dtype}", op)
        fields = []
        for fld, word_name in V.COMPUTE_OPS[name].items():
            word = compute_word(word_name)
            assert word is not None
            x = word.evaluate(op)
            fkind, extra = V.FIELDS[fld]
            if word.kind == BUFFER:  # the operand's position
                fields.append((fld, BUFFER, x))
            elif fkind == V.DATA:  # (an absent array, a table of no lookup: none)
                fields.append((fld, V.DATA, (extra, list(x) if x is not None else [])))
            else:
                fields.append((fld, fkind, x))
        plan = (name, tuple(fields))
        COMPUTE_FIELDS.put(key, plan)
        return plan

    RUNS = {
        func.ReturnOp: end, accel.WeightOp: host_buffer, memref.AllocOp: host_buffer, accel.AllocOp: spm_buffer,
        arith.ConstantOp: constant, arith.AddiOp: index_arith, arith.MuliOp: index_arith, arith.SubiOp: index_arith,
        arith.MinSIOp: index_arith, arith.MaxSIOp: index_arith, memref.SubviewOp: subview, memref.ReinterpretCastOp: strided_view, scf.ForOp: loop,
        accel.DmaStartOp: dma, accel.DmaWaitOp: wait, accel.ComputeOp: compute,
    }  # fmt: skip
    """The ops of a lowered region, by class: how each runs at compile time."""


def isa_symbol(desc) -> str:
    return f"{desc.symbol_base}_isa_table"


@by_identity(limit=PER_DESCRIPTION)  # every region of the target returns it
def isa_header(desc) -> str:
    """`<target>_isa_table.h`: the decoding tables of the target's instruction set."""
    return isa_table_c(desc.isa, desc.name, isa_symbol(desc))


def codegen(region: RegionCodegenInput) -> RegionCodegenResult:
    desc = region.target
    if desc.isa is None:
        raise CompileError(f"target '{desc.name}' declares no instruction set ([isa] in {desc.path}): "
                           "the command-stream codegen cannot drive it")
    if desc.api.runtime is None:
        raise CompileError(f"target '{desc.name}' declares no runtime functions ([api.runtime] in {desc.path})")
    builder = StreamBuilder(region)
    stream = builder.build()
    blob = encode(desc.isa, desc, stream, builder.where)
    sym, table = region.symbol, isa_symbol(desc)
    header = f"{table}.h"
    w = CWriter()
    w.line(f"/* Generated by accel-compile: region @{c_comment(region.name)} on target {c_comment(desc.name)}, "
           f"a {len(blob)}-byte command stream ({sym}.bin). */")
    w.line("#include <stdint.h>")
    w.line("")
    w.line(f'#include "{header}"')
    w.line('#include "model_internal.h"')
    w.line("")
    w.line(f"static const uint8_t {sym}_stream[{len(blob)}] = {{")
    for i in range(0, len(blob), 16):
        w.line("    0x" + blob[i:i + 16].hex(",").replace(",", ", 0x") + ",")
    w.line("};")
    w.line("")
    w.line(f"{region.prototype(sym)} {{")
    w.depth += 1
    bases = [p.name for p in region.params] + ["model_arena", "model_weights"]
    w.line(f"const void *bases[{len(bases)}] = {{{', '.join(bases)}}};")
    w.line(f'return npu_cmd_wait(npu_cmd_submit(&{table}, "{sym}", {sym}_stream, sizeof {sym}_stream, bases, '
           f"{len(bases)}));")
    w.depth -= 1
    w.line("}")
    w.line("")
    shutdown = f"{runtime_call(desc, 'shutdown')};" if has_runtime(desc, "shutdown") else ""
    commands = len(stream.instrs)
    relocs = struct.unpack_from("<I", blob, 4 * desc.isa.header.index("relocs"))[0]
    return RegionCodegenResult(
        sym, sources={f"{desc.symbol_base}_wrappers.c": w.text()}, headers={header: isa_header(desc)},
        includes=(desc.api.header,), init=CApiCodegen.init_code(desc), free=shutdown, data={f"{sym}.bin": blob},
        report={"stream_bytes": len(blob), "commands": commands, "relocs": relocs},
    )
