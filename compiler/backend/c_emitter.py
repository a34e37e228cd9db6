"""The C emitter: final (bufferized, lowered, planned) IR to C sources.

Produces, as a dict of file name to text:

- `model.h`: the API (`model_init`, `model_run`, `model_free`), input/output sizes;
- `model.c`: the host schedule: host kernel calls (`host_kernels.h`) and calls of the
  region wrappers, on one statically planned arena (`accel.offset`), with weights read
  from `weights.bin` (a raw blob; large models build fast);
- `<target>_wrappers.c`: one C function per outlined region calling the target's vendor
  API (DMA and compute), from the region's accel IR;
- `model_internal.h`: what model.c and the wrappers share.

Every host kernel call is checked; a failing status makes `model_run` return a non-zero
code after printing which op failed. The output is deterministic: the same module gives
byte-identical files.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from xdsl.dialects import arith, func, memref, scf
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    IntegerAttr,
    MemRefType,
    ModuleOp,
    StridedLayoutAttr,
    StringAttr,
    TensorType,
)
from xdsl.ir import BlockArgument, Operation, SSAValue

from accel.compiler.backend.codegen_hook import (
    MergedCodegen, RegionCodegenInput, RegionCodegenResult, RegionParam, call_hook,
)
from accel.compiler.backend.c_text import ACC_DTYPES, C_TYPES, c_array_init, c_comment, c_double, c_float, c_int, c_string
from accel.compiler.diagnostics import CompileError, format_location
from accel.compiler.index_arith import constant_index, offset_from
from accel.compiler.ir_build import PER_DESCRIPTION, IdentityMemo, dense_values, op_signature, operand_segments
from accel.compiler.memory_plan import align
from accel.compiler.narrow_types import NARROW_C_TYPES, is_float_dtype
from accel.compiler.resize_sampling import resize2d_taps
from accel.compiler.tensors import ModuleWeights, StoredBytes, cast, constant_value, module_weights, numpy_dtype, row_major_strides
from accel.dialects import accel, relay
from accel.compiler.targets.c_api import ARRAY, BUFFER, CONFIG_WORDS, RUNTIME_FUNCTIONS, Arg, Call, Value, compute_word
from accel.compiler.targets.fused_forms import COPY_MAX_RANK, merged_dims
from accel.dialects.conventions import ARENA_ATTR, ENTRY_ATTR, OFFSET_ATTR, TARGET_ATTR, entry_of, io_names, is_output_arg
from accel.dialects.memo import by_identity

WEIGHT_ALIGN = 64
HOST_MAX_RANK = 8
"""`ACC_MAX_RANK` of host_kernels.h: the most dimensions a shape passed to a host kernel may
have (tests/test_host_kernels.py checks that the two agree)."""

REAL_SUFFIXES = {np.dtype(np.float32): "f32", np.dtype(np.float64): "f64"}
"""The C float types of the float host kernels (`acc_<op>_<suffix>`)."""


@by_identity  # per type object: the emitter asks per op
def dtype_of(t) -> np.dtype:
    return numpy_dtype(t.element_type)


def check_c_types(module: ModuleOp) -> None:
    """Every buffer's element type has a C type (numpy's f16 has none in C99): one line
    naming the first op that makes such a value, instead of a failure deep in emission."""
    for op in module.walk():
        for v in op.results:
            if lacks_c_type(v.type):
                raise no_c_type(v.type, op)
        for r in op.regions:
            for b in r.blocks:
                for a in b.args:
                    if lacks_c_type(a.type):
                        raise no_c_type(a.type, op)


@by_identity  # per type object: a module has a few
def lacks_c_type(t) -> bool:
    return isinstance(t, MemRefType) and dtype_of(t) not in C_TYPES


def no_c_type(t: MemRefType, op: Operation) -> CompileError:
    message = f"the C backend has no type for {t.element_type} values (keep the model in f32 or integer types)"
    return CompileError(message, op)


@by_identity  # per type object: the emitter asks per op
def shape_of(t) -> tuple[int, ...]:
    return tuple(t.get_shape())


def numel(shape: Sequence[int]) -> int:
    return int(math.prod(shape))


@by_identity  # per type object: the emitter asks per op
def strides_of(t: MemRefType) -> tuple[tuple[int, ...], int | None]:
    """Element strides and static offset of a memref (identity layout: row-major, 0)."""
    shape = shape_of(t)
    if isinstance(t.layout, StridedLayoutAttr):
        strides = []
        for s in t.layout.strides.data:
            if not hasattr(s, "data"):
                raise CompileError(f"the C emitter needs static strides, got {t}")
            strides.append(s.data)
        off = t.layout.offset
        return tuple(strides), (off.data if hasattr(off, "data") else None)
    return row_major_strides(shape), 0


def transfer_geometry(source: MemRefType, dest: MemRefType) -> tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]:
    """(shape, destination strides, source strides) of a copy between views of these
    types; above the DMA's rank (a layout op's copy of rank 5 or more) the dims contiguous
    on both sides merged (`fused_forms.merged_dims`; `layout_view` checked it fits)."""
    shape, dst, src = shape_of(source), strides_of(dest)[0], strides_of(source)[0]
    if len(shape) <= COPY_MAX_RANK:
        return shape, dst, src
    dims, (dst_m, src_m) = merged_dims(shape, [dst, src])
    return tuple(dims), tuple(dst_m), tuple(src_m)


def dense_source(op: memref.ReinterpretCastOp) -> None:
    """A layout op's view is of a dense buffer with static offset, sizes and strides (its
    offset counts from the buffer's first element): anything else is refused."""
    t = op.source.type
    if isinstance(t, MemRefType) and isinstance(t.layout, StridedLayoutAttr) or op.offsets or op.sizes or op.strides:
        raise CompileError("memref.reinterpret_cast: the emitter takes static views of a dense buffer only", op)


class CWriter:
    """Lines with indentation (cf. xDSL's CSL printer context)."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.depth = 0

    def line(self, text: str = "") -> None:
        self.lines.append(("    " * self.depth + text) if text else "")

    def text(self) -> str:
        return "\n".join(self.lines) + "\n"


# --------------------------------------------------------------------------------------
# Weights
# --------------------------------------------------------------------------------------


@dataclass
class WeightBlob:
    """All constants of the model in one read-only blob (`weights.bin`), held as its
    pieces (views of the constants' arrays where they are laid out as stored), written
    piece by piece: a model's weights are not copied to be emitted."""

    chunks: list[bytes | np.ndarray] = field(default_factory=list)
    size: int = 0
    by_key: dict[Any, int] = field(default_factory=dict)
    """("ext", name, dtype, shape) of an external tensor, ("val", dtype, shape, StoredBytes)
    of an inline value -> its offset: each is stored once."""

    def add(self, op: relay.ConstantOp | accel.WeightOp, arr: np.ndarray) -> int:
        """The offset of `op`'s value `arr`."""
        if op.external is not None:
            key = ("ext", op.external.data, arr.dtype.str, arr.shape)
            if key in self.by_key:
                return self.by_key[key]
            data = StoredBytes(arr)
        else:
            data = StoredBytes(arr)
            key = ("val", arr.dtype.str, arr.shape, data)
            if key in self.by_key:
                return self.by_key[key]
        offset = align(self.size, WEIGHT_ALIGN)
        if offset > self.size:
            self.chunks.append(b"\0" * (offset - self.size))
        self.chunks.append(data.data)
        self.size = offset + len(data)
        self.by_key[key] = offset
        return offset


# --------------------------------------------------------------------------------------
# The emitter
# --------------------------------------------------------------------------------------


@dataclass
class Emitted:
    files: dict[str, str]
    weights: WeightBlob
    targets: list[str]
    inputs: list[tuple[str, tuple[int, ...], np.dtype]]
    outputs: list[tuple[str, tuple[int, ...], np.dtype]]
    arena_bytes: int
    include_dirs: list[str] = field(default_factory=list)
    cflags: list[str] = field(default_factory=list)
    ldflags: list[str] = field(default_factory=list)
    """What the regions' codegen hooks ask the build for."""
    data: dict[str, bytes] = field(default_factory=dict)
    """The hooks' binary files (RegionCodegenResult.data)."""
    codegen_report: dict[str, dict[str, Any]] = field(default_factory=dict)
    """Region -> its hook's report (RegionCodegenResult.report)."""


class ModelEmitter:
    def __init__(self, module: ModuleOp, targets: dict[str, Any], context: Any = None):
        self.module = module
        self.targets = targets  # name -> TargetDescription
        self.context = context
        """The compile's TargetContext (the hooks get it, with its region clones)."""
        self.codegen = MergedCodegen()
        self.blob = WeightBlob()
        self.globals: list[str] = []  # file-scope static data of the file being written
        self.global_names: dict[str, str] = {}
        self.counter = 0
        self.op_descriptions: list[str] = []
        self.weights: ModuleWeights | None = None
        """The module's external tensors, once a weight needs them (`constant`)."""
        self.array_inits: dict[tuple, str] = {}
        """(C type, integer values) -> the array's initializer (`array_init`)."""
        self.transfers = IdentityMemo()
        """(source type, dest type) -> the transfer's words (`transfer`)."""
        self.call_pieces = IdentityMemo()
        """(call, op signature) -> the call's arguments (`ComputeCallEmitter.pieces`)."""
        self.subview_terms = IdentityMemo()
        """(static offsets, source type, result type) -> a subview's cast and terms."""

    # -- naming ------------------------------------------------------------------------

    def fresh(self, prefix: str) -> str:
        self.counter += 1
        return f"{prefix}{self.counter}"

    def static_array(self, ctype: str, values: Sequence[Any], prefix: str = "k") -> str:
        init = self.array_init(ctype, values)
        key = f"{ctype}:{init}"
        if key not in self.global_names:
            name = self.fresh(prefix)
            self.globals.append(f"static const {ctype} {name}[] = {init};")
            self.global_names[key] = name
        return self.global_names[key]

    def array_init(self, ctype: str, values: Sequence[Any]) -> str:
        """`c_array_init`, once per integer array (equal integers are written alike; equal
        floats are not: -0.0 == 0.0)."""
        if ctype in ("float", "double"):
            return c_array_init(values, ctype)
        key = (ctype, tuple(values))
        init = self.array_inits.get(key)
        if init is None:
            init = self.array_inits[key] = c_array_init(values, ctype)
        return init

    def shape_array(self, shape: Sequence[int]) -> str:
        if len(shape) > HOST_MAX_RANK:
            raise CompileError(f"a rank-{len(shape)} tensor: the host kernels take at most {HOST_MAX_RANK} dimensions")
        return self.static_array("int64_t", list(shape) or [1], "shape")

    def describe(self, op: Operation) -> int:
        loc = format_location(op.location)
        text = f"{op.name}" + (f" at {loc}" if loc else "")
        self.op_descriptions.append(text)
        return len(self.op_descriptions) - 1

    def transfer(self, source: MemRefType, dest: MemRefType) -> Transfer:
        """A DMA call's words between views of these types, once per pair of type objects
        (types are interned: a region's transfers share a few)."""
        hit = self.transfers.get((source, dest))
        if hit is not None:
            return hit
        to_spm, from_spm = accel.memory_space(dest) == "spm", accel.memory_space(source) == "spm"
        function = "dma_to_host" if not to_spm else "dma_on_device" if from_spm else "dma_to_device"
        shape, dest_strides, source_strides = transfer_geometry(source, dest)
        t = Transfer(function, str(dtype_of(source).itemsize), str(len(shape)), shape, dest_strides, source_strides)
        self.transfers.put((source, dest), t)
        return t

    # -- weights -----------------------------------------------------------------------

    def constant(self, op: relay.ConstantOp | accel.WeightOp) -> np.ndarray:
        """`constant_value`, the module's weights file looked up once."""
        if op.external is not None and self.weights is None:
            self.weights = module_weights(self.module)
        return constant_value(op, self.weights)

    def weight_ptr(self, op: relay.ConstantOp | accel.WeightOp) -> str:
        arr = self.constant(op)
        offset = self.blob.add(op, arr)
        return f"(({C_TYPES[arr.dtype]} *)(model_weights + {offset}))"

    # -- entry -------------------------------------------------------------------------

    def emit(self) -> Emitted:
        check_c_types(self.module)
        main = None
        for op in self.module.body.block.ops:
            if isinstance(op, func.FuncOp) and op.sym_name.data == "main":
                main = op
        if main is None:
            raise CompileError("the module has no @main function")
        regions_by_target: dict[str, list[func.FuncOp]] = {}
        for op in self.module.body.block.ops:
            if isinstance(op, func.FuncOp) and op is not main and not op.is_declaration:
                t = op.attributes.get(TARGET_ATTR)
                if not isinstance(t, StringAttr) or t.data == "host":
                    raise CompileError(f"function @{op.sym_name.data} is neither @main nor an accelerator region", op)
                regions_by_target.setdefault(t.data, []).append(op)

        # Every region through the codegen hook of its target (the built-in one by default).
        merged = MergedCodegen()
        builtin = CApiCodegen(self)
        for target_name in sorted(regions_by_target):
            desc = self.targets.get(target_name)
            if desc is None:
                raise CompileError(f"no description of target '{target_name}' was given")
            hook, hook_name = (desc.api.codegen_fn, desc.api.codegen) if desc.api.codegen else (builtin, BUILTIN_HOOK)
            for fn in regions_by_target[target_name]:
                region = self.region_input(fn, desc)
                merged.add(region, call_hook(hook, hook_name, region), hook_name)
        self.codegen = merged

        self.globals, self.global_names = [], {}
        model_c, inputs, outputs = self.model_file(main, sorted(regions_by_target))
        files: dict[str, str] = {}
        files["model.h"] = self.model_header(inputs, outputs)
        files["model_internal.h"] = self.internal_header(regions_by_target)
        files["model.c"] = model_c
        files.update(merged.files)
        arena = self.module.attributes.get(ARENA_ATTR)
        return Emitted(files, self.blob, sorted(regions_by_target), inputs, outputs,
                       arena.value.data if isinstance(arena, IntegerAttr) else 0,
                       merged.include_dirs, merged.cflags, merged.ldflags, merged.data, merged.reports)

    def region_input(self, fn: func.FuncOp, desc) -> RegionCodegenInput:
        """The hook's input for region `fn` (see codegen_hook.py)."""
        params = []
        ptr: dict[SSAValue, str] = {}
        for i, arg in enumerate(fn.body.block.args):
            if not isinstance(arg.type, (MemRefType, TensorType)):
                raise CompileError(f"argument #{i} of region @{fn.sym_name.data} has type {arg.type}: a region's "
                                   "arguments are buffers (the C of a region takes pointers only)", fn)
            ptr[arg] = f"a{i}"
            params.append(RegionParam(f"a{i}", C_TYPES[dtype_of(arg.type)], shape_of(arg.type), is_output_arg(fn, i), arg))
        name = fn.sym_name.data
        relay_fn = self.context.region_clone(name) if self.context is not None else None
        return RegionCodegenInput(name, desc, self.context, relay_fn, fn, tuple(params),
                                  lambda v: self.region_buffer(v, ptr), lambda v: self.host_location(v, fn))

    def host_location(self, v: SSAValue, fn: func.FuncOp) -> tuple[str, int]:
        """RegionCodegenInput.host_location: a parameter, arena or weights offset."""
        if isinstance(v, BlockArgument) and v.owner is fn.body.block:
            return "param", v.index
        owner = v.owner
        if isinstance(owner, memref.AllocOp):
            off = owner.attributes.get(OFFSET_ATTR)
            if not isinstance(off, IntegerAttr):
                raise CompileError("a host buffer has no planned offset (run plan-memory)", owner)
            return "arena", off.value.data
        if isinstance(owner, (accel.WeightOp, relay.ConstantOp)):
            arr = self.constant(owner)
            return "weights", self.blob.add(owner, arr)
        raise CompileError(f"{v.type} is not a host buffer", owner if isinstance(owner, Operation) else None)

    def region_buffer(self, v: SSAValue, ptr: dict[SSAValue, str]) -> str:
        """A buffer of a region function as C (RegionCodegenInput.c_buffer)."""
        if isinstance(v.owner, relay.ConstantOp):  # a weight inside an accel.kernel
            return self.weight_ptr(v.owner)
        return self.buffer_ptr(v, ptr)

    # -- model.h / model_internal.h ----------------------------------------------------

    def model_header(self, inputs, outputs) -> str:
        w = CWriter()
        w.line("/* Generated by accel-compile: the model's C API. */")
        w.line("#ifndef ACCEL_MODEL_H")
        w.line("#define ACCEL_MODEL_H")
        w.line("")
        w.line("#include <stddef.h>")
        w.line("#include <stdint.h>")
        w.line("")
        w.line(f"#define MODEL_NUM_INPUTS {len(inputs)}")
        w.line(f"#define MODEL_NUM_OUTPUTS {len(outputs)}")
        for kind, items in (("INPUT", inputs), ("OUTPUT", outputs)):
            for i, (name, shape, dt) in enumerate(items):
                w.line(f"/* {kind.lower()} {i}: {c_comment(name)}, {C_TYPES[dt]}{list(shape)} */")
                w.line(f"#define MODEL_{kind}{i}_ELEMENTS {numel(shape)}")
                w.line(f"#define MODEL_{kind}{i}_BYTES {numel(shape) * dt.itemsize}")
        w.line("")
        w.line("/* Names of the inputs and outputs as given by the model (escaped). */")
        w.line("extern const char *const model_input_names[];")
        w.line("extern const char *const model_output_names[];")
        w.line("")
        w.line("/* Loads the weights (the file weights.bin written next to this header) and")
        w.line(" * initialises the accelerators. Returns 0 on success. */")
        w.line("int model_init(const char *weights_path);")
        params = [f"const {C_TYPES[dt]} *in{i}" for i, (_, _, dt) in enumerate(inputs)]
        params += [f"{C_TYPES[dt]} *out{i}" for i, (_, _, dt) in enumerate(outputs)]
        w.line("/* Runs the model once. Returns 0 on success, non-zero after printing the failing op. */")
        w.line(f"int model_run({', '.join(params) or 'void'});")
        w.line("/* Releases what model_init acquired. */")
        w.line("void model_free(void);")
        w.line("/* Writes the accelerators' counters (JSON) to `path`; 0 on success. */")
        w.line("int model_write_counters(const char *path);")
        w.line("")
        w.line("#endif")
        return w.text()

    def internal_header(self, regions_by_target: dict[str, list[func.FuncOp]]) -> str:
        w = CWriter()
        w.line("/* Generated by accel-compile: shared by model.c and the region wrappers. */")
        w.line("#ifndef ACCEL_MODEL_INTERNAL_H")
        w.line("#define ACCEL_MODEL_INTERNAL_H")
        w.line("")
        w.line("#include <stdint.h>")
        w.line("")
        w.line("extern unsigned char *model_arena;")
        w.line("extern const unsigned char *model_weights;")
        w.line("")
        for target in sorted(regions_by_target):
            for fn in regions_by_target[target]:
                w.line(f"int {self.codegen.functions[fn.sym_name.data]}({self.region_params(fn)});")
        w.line("")
        w.line("#endif")
        return w.text()

    def region_params(self, fn: func.FuncOp) -> str:
        params = []
        for i, arg in enumerate(fn.body.block.args):
            t = arg.type
            params.append(f"{C_TYPES[dtype_of(t)]} *a{i}")
        return ", ".join(params) or "void"

    # -- model.c -----------------------------------------------------------------------

    def model_file(self, main: func.FuncOp, targets: list[str]):
        names = io_names(main)[0]
        args = list(main.body.block.args)
        is_out = [is_output_arg(main, i) for i in range(len(args))]
        inputs, outputs = [], []
        ptr: dict[SSAValue, str] = {}
        for i, arg in enumerate(args):
            dt = dtype_of(arg.type)
            item = (names[i], shape_of(arg.type), dt)
            if is_out[i]:
                ptr[arg] = f"out{len(outputs)}"
                outputs.append(item)
            else:
                ptr[arg] = f"(({C_TYPES[dt]} *)in{len(inputs)})"
                inputs.append(item)

        body = CWriter()
        body.depth = 1
        for op in main.body.block.ops:
            self.emit_host_op(op, ptr, body)

        w = CWriter()
        w.line("/* Generated by accel-compile: the host schedule. */")
        w.line("#include <math.h>")
        w.line("#include <stdio.h>")
        w.line("#include <stdlib.h>")
        w.line("#include <string.h>")
        w.line("")
        w.line('#include "host_kernels.h"')
        w.line('#include "host_narrow.h"')
        w.line('#include "model.h"')
        w.line('#include "model_internal.h"')
        for header in self.model_includes(targets):
            w.line(f"#include {header if header.startswith('<') else c_string(header)}")
        w.line("")
        arena = self.module.attributes.get(ARENA_ATTR)
        arena_bytes = arena.value.data if isinstance(arena, IntegerAttr) else 0
        w.line(f"#define MODEL_ARENA_BYTES {arena_bytes}")
        w.line(f"#define MODEL_WEIGHTS_BYTES {self.blob.size}")
        w.line("")
        w.line("unsigned char *model_arena;")
        w.line("const unsigned char *model_weights;")
        w.line("static unsigned char *weights_storage;")
        w.line("")
        w.line("const char *const model_input_names[] = {" + ", ".join(c_string(n) for n, _, _ in inputs) + (", " if inputs else "") + "0};")
        w.line("const char *const model_output_names[] = {" + ", ".join(c_string(n) for n, _, _ in outputs) + (", " if outputs else "") + "0};")
        w.line("")
        # A model without a single op (an Identity, a folded Shape) calls no kernel: no
        # `fail` then, which -Werror would reject as unused.
        if self.op_descriptions:
            w.line("static const char *const op_descriptions[] = {")
            for d in self.op_descriptions:
                w.line(f"    {c_string(d)},")
            w.line("    0};")
            w.line("")
        for g in self.globals:
            w.line(g)
        w.line("")
        if self.op_descriptions:
            w.line("static int fail(int status, int op) {")
            w.line('    fprintf(stderr, "model: error: %s failed: %s\\n", op_descriptions[op], acc_status_string(status));')
            w.line("    return status;")
            w.line("}")
            w.line("")
        self.emit_init(w, inputs, outputs, targets)
        params = [f"const {C_TYPES[dt]} *in{i}" for i, (_, _, dt) in enumerate(inputs)]
        params += [f"{C_TYPES[dt]} *out{i}" for i, (_, _, dt) in enumerate(outputs)]
        w.line(f"int model_run({', '.join(params) or 'void'}) {{")
        w.line("    int status = 0;")
        for i in range(len(inputs)):
            w.line(f"    (void)in{i};  /* an input the model does not read is still part of the API */")
        for i in range(len(outputs)):
            w.line(f"    (void)out{i};")
        for t in targets:
            desc = self.targets[t]
            if not has_runtime(desc, "register_host"):
                continue
            for i, (_, shape, dt) in enumerate(inputs):
                w.line(f"    {runtime_call(desc, 'register_host', ptr=f'in{i}', bytes=str(numel(shape) * dt.itemsize))};")
            for i, (_, shape, dt) in enumerate(outputs):
                w.line(f"    {runtime_call(desc, 'register_host', ptr=f'out{i}', bytes=str(numel(shape) * dt.itemsize))};")
        w.lines.extend(body.lines)
        w.line("    return status;")
        w.line("}")
        return w.text(), inputs, outputs

    def emit_init(self, w: CWriter, inputs, outputs, targets: list[str]) -> None:
        w.line("int model_init(const char *weights_path) {")
        w.line("    model_arena = (unsigned char *)calloc(MODEL_ARENA_BYTES ? MODEL_ARENA_BYTES : 1, 1);")
        w.line("    weights_storage = (unsigned char *)malloc(MODEL_WEIGHTS_BYTES ? MODEL_WEIGHTS_BYTES : 1);")
        w.line("    if (!model_arena || !weights_storage) {")
        w.line('        fprintf(stderr, "model: error: out of memory\\n");')
        w.line("        return 1;")
        w.line("    }")
        w.line("    if (MODEL_WEIGHTS_BYTES) {")
        w.line('        FILE *f = fopen(weights_path, "rb");')
        w.line("        size_t got = 0;")
        w.line("        if (f) {")
        w.line("            got = fread(weights_storage, 1, MODEL_WEIGHTS_BYTES, f);")
        w.line("            fclose(f);")
        w.line("        }")
        w.line("        if (got != MODEL_WEIGHTS_BYTES) {")
        w.line('            fprintf(stderr, "model: error: cannot read %d bytes of weights from %s\\n", MODEL_WEIGHTS_BYTES, weights_path);')
        w.line("            return 1;")
        w.line("        }")
        w.line("    }")
        w.line("    model_weights = weights_storage;")
        for snippet in self.codegen.init:
            w.lines.extend("    " + ln if ln else "" for ln in snippet.rstrip("\n").split("\n"))
        w.line("    return 0;")
        w.line("}")
        w.line("")
        w.line("void model_free(void) {")
        for snippet in self.codegen.free:
            w.lines.extend("    " + ln if ln else "" for ln in snippet.rstrip("\n").split("\n"))
        w.line("    free(model_arena);")
        w.line("    free(weights_storage);")
        w.line("    model_arena = 0;")
        w.line("    model_weights = 0;")
        w.line("    weights_storage = 0;")
        w.line("}")
        w.line("")
        w.line("int model_write_counters(const char *path) {")
        counting = [t for t in targets if has_runtime(self.targets[t], "write_counters")]
        if counting:
            # One JSON object per target would need merging; the counters of the first
            # target are written, the others to <path>.<target>.json.
            w.line(f"    int status = {runtime_call(self.targets[counting[0]], 'write_counters', path='path')};")
            for t in counting[1:]:
                w.line("    {")
                w.line("        char other[4096];")
                w.line(f'        snprintf(other, sizeof other, "%s.{_file_stem(t)}.json", path);')
                w.line(f"        status |= {runtime_call(self.targets[t], 'write_counters', path='other')};")
                w.line("    }")
            w.line("    return status;")
        else:
            w.line('    FILE *f = fopen(path, "w");')
            w.line("    if (!f) return 1;")
            # The simulator's keys (sim_core.h), all 0: the report's dma and cycles read alike.
            w.line('    fputs("{\\"bytes_to_device\\": 0, \\"bytes_to_host\\": 0, \\"transfers\\": 0, \\"accel_ops\\": 0, '
                   '\\"cycles\\": 0, \\"bytes_on_device\\": 0}\\n", f);')
            w.line("    return fclose(f) != 0;")
        w.line("}")
        w.line("")

    def model_includes(self, targets: list[str]) -> list[str]:
        """The headers model.c includes: what the hooks' init/free code needs, and the
        header of every target whose runtime functions model.c calls (register_host,
        write_counters)."""
        out = list(self.codegen.includes)
        for t in targets:
            header = self.targets[t].api.header
            if self.targets[t].api.runtime is not None and header not in out:
                out.append(header)
        return out

    # -- host ops ----------------------------------------------------------------------

    def buffer_ptr(self, v: SSAValue, ptr: dict[SSAValue, str]) -> str:
        if v in ptr:
            return ptr[v]
        owner = v.owner
        t = v.type
        ctype = C_TYPES[dtype_of(t)]
        if isinstance(owner, memref.AllocOp):
            off = owner.attributes.get(OFFSET_ATTR)
            if not isinstance(off, IntegerAttr):
                raise CompileError("a host buffer has no planned offset (run plan-memory)", owner)
            ptr[v] = f"(({ctype} *)(model_arena + {off.value.data}))"
            return ptr[v]
        if isinstance(owner, accel.WeightOp):
            ptr[v] = self.weight_ptr(owner)
            return ptr[v]
        if isinstance(owner, accel.AllocOp) and owner.offset is not None:
            target = owner.attributes.get(TARGET_ATTR)
            if not isinstance(target, StringAttr) or target.data not in self.targets:
                raise CompileError("a scratchpad buffer in @main needs the 'accel.target' it belongs to", owner)
            spm = runtime_call(self.targets[target.data], "spm")
            ptr[v] = f"(({ctype} *)((unsigned char *){spm} + {owner.offset.value.data}))"
            return ptr[v]
        raise CompileError(f"the C emitter cannot address {v.type} here", owner if isinstance(owner, Operation) else None)

    def emit_host_op(self, op: Operation, ptr: dict[SSAValue, str], w: CWriter) -> None:
        emit = self.HOST_EMITTERS.get(type(op))
        if emit is None:  # a subclass of an op @main may hold
            emit = next((self.HOST_EMITTERS[c] for c in type(op).__mro__ if c in self.HOST_EMITTERS), None)
        if emit is not None:
            emit(self, op, ptr, w)
            return
        if isinstance(op, (relay.RelayOp, relay.CompositeOp, relay.ConstantOp)):
            raise CompileError(f"C is emitted from lowered IR, but '{op.name}' still works on tensors "
                               "(run the 'full' pipeline first)", op)
        raise CompileError(f"the C emitter cannot run '{op.name}' on the host", op)

    def emit_host_buffer(self, op: memref.AllocOp | accel.WeightOp | accel.AllocOp, ptr: dict[SSAValue, str],
                         w: CWriter) -> None:
        self.buffer_ptr(op.results[0], ptr)

    def emit_host_return(self, op: func.ReturnOp, ptr: dict[SSAValue, str], w: CWriter) -> None:
        """Nothing: the outputs are written in place, model_run returns its status."""

    def emit_copy(self, op: memref.CopyOp, ptr: dict[SSAValue, str], w: CWriter) -> None:
        t = op.source.type
        n = numel(shape_of(t)) * dtype_of(t).itemsize
        w.line(f"memcpy({self.buffer_ptr(op.destination, ptr)}, {self.buffer_ptr(op.source, ptr)}, {n});")

    def emit_call(self, op: func.CallOp, ptr: dict[SSAValue, str], w: CWriter) -> None:
        args = ", ".join(self.buffer_ptr(a, ptr) for a in op.arguments)
        idx = self.describe(op)
        callee = self.codegen.functions.get(op.callee.root_reference.data)
        if callee is None:
            raise CompileError(f"'{op.callee.root_reference.data}' is not an accelerator region of this module", op)
        w.line(f"if ((status = {callee}({args})) != 0) return fail(status, {idx});")

    def emit_kernel(self, op: accel.KernelOp, ptr: dict[SSAValue, str], w: CWriter) -> None:
        HostKernelEmitter(self, op, ptr).emit(w)

    HOST_EMITTERS = {
        memref.AllocOp: emit_host_buffer, accel.WeightOp: emit_host_buffer, accel.AllocOp: emit_host_buffer,
        func.ReturnOp: emit_host_return, memref.CopyOp: emit_copy, func.CallOp: emit_call, accel.KernelOp: emit_kernel,
    }  # fmt: skip
    """The ops of @main, by class: the emitter of each."""


def _file_stem(target: str) -> str:
    return "".join(c if c.isalnum() or c == "_" else "_" for c in target)


def _symbol(name: str) -> str:
    return "".join(c if c.isalnum() or c == "_" else "_" for c in name)


def region_symbol(fn: func.FuncOp) -> str:
    return _symbol(fn.sym_name.data)


def config_fields(desc) -> dict[str, str]:
    """The vendor config struct of a target: its declared fields ([api.runtime.config])."""
    out = {}
    for f, v in desc.api.runtime.config.fields:
        x = v.literal if v.word is None else CONFIG_WORDS[v.word](desc)
        out[f] = c_number(x, "double")
    return out


def runtime_call(desc, name: str, **words: str) -> str:
    """The C call of runtime function `name` ([api.runtime]) with its declared arguments;
    `words` gives each argument word's C expression."""
    return runtime_templates(desc)[name].format_map(words)


@by_identity(limit=PER_DESCRIPTION)  # a call is written per transfer
def runtime_templates(desc) -> dict[str, str]:
    """Each declared runtime function's C call as a `str.format` template: its argument
    words in braces (`{dst}`, a struct `{config}`), its literals written."""
    out = {}
    for name in RUNTIME_FUNCTIONS:
        call: Call | None = getattr(desc.api.runtime, name)
        if call is None:
            continue
        args = []
        for a in call.args:
            if a.struct is not None:
                args.append(f"{{{a.struct}}}")
            elif a.value.word is None:
                args.append(c_number(a.value.literal, "double" if isinstance(a.value.literal, float) else "int64_t"))
            else:
                args.append(f"{{{a.value.word}}}")
        out[name] = f"{call.function}({', '.join(args)})"
    return out


def has_runtime(desc, name: str) -> bool:
    return desc.api.runtime is not None and getattr(desc.api.runtime, name) is not None


# --------------------------------------------------------------------------------------
# Host kernels
# --------------------------------------------------------------------------------------


class HostKernelEmitter:
    """One bufferized relay op (an accel.kernel of @main) as a host kernel call."""

    def __init__(self, model: ModelEmitter, kernel: accel.KernelOp, ptr: dict[SSAValue, str]):
        self.model = model
        self.kernel = kernel
        self.vals: dict[SSAValue, str] = {}
        ins, outs = operand_segments(kernel)
        for arg, buf in zip(kernel.body.block.args, ins):
            self.vals[arg] = model.buffer_ptr(buf, ptr)
        ops = [o for o in kernel.body.block.ops if not isinstance(o, (relay.ConstantOp, accel.YieldOp))]
        for o in kernel.body.block.ops:
            if isinstance(o, relay.ConstantOp):
                self.vals[o.result] = model.weight_ptr(o)
        if len(ops) != 1:
            raise CompileError(f"the C emitter expects one relay op per host kernel, got {len(ops)}", kernel)
        self.op = ops[0]
        y = kernel.body.block.last_op
        assert isinstance(y, accel.YieldOp)
        self.out = model.buffer_ptr(outs[0], ptr)
        if len(outs) != 1 or y.values[0] is not self.op.results[0]:
            raise CompileError("a host kernel must yield its op's single result", kernel)

    def p(self, v: SSAValue) -> str:
        return self.vals[v]

    def const(self, v: SSAValue) -> np.ndarray:
        owner = v.owner
        if not isinstance(owner, relay.ConstantOp):
            raise CompileError(f"'{self.op.name}' needs a constant here for the host C code", self.op)
        return self.model.constant(owner)

    def emit(self, w: CWriter) -> None:
        op = self.op
        idx = self.model.describe(op)
        loc = format_location(op.location)
        w.line(f"/* {c_comment(op.name)}{' ' + c_comment(loc) if loc else ''} */")
        try:
            calls = self.calls(op)
        except CompileError as e:
            if e.op is not None or e.location is not None:
                raise
            raise CompileError(f"'{op.name}': {e.message}", op) from None
        for call in calls:
            w.line(f"if ((status = {call}) != 0) return fail(status, {idx});")

    def calls(self, op: Operation) -> list[str]:
        m = self.model
        y = self.out
        if isinstance(op, (relay.Conv2DOp, relay.QnnConv2DOp)):
            cp = self.conv_params(op)
            if isinstance(op, relay.Conv2DOp):
                r = self.real_suffix(op)
                return [f"acc_conv2d_{r}({self.p(op.data)}, {self.p(op.weight)}, NULL, {y}, &{cp})"]
            xzp = self.zero_point_value(op.input_zero_point)
            wz, wz_len = self.zero_point_array(op.kernel_zero_point), numel(shape_of(op.kernel_zero_point.type))
            return [f"acc_qnn_conv2d({ACC_DTYPES[dtype_of(op.data.type)]}, {self.p(op.data)}, "
                    f"{ACC_DTYPES[dtype_of(op.weight.type)]}, {self.p(op.weight)}, NULL, {y}, &{cp}, {xzp}, {wz}, {wz_len})"]
        if isinstance(op, relay.DenseOp):
            ds = shape_of(op.data.type)
            n, k = shape_of(op.weight.type)
            r = self.real_suffix(op)
            return [f"acc_dense_{r}({self.p(op.data)}, {self.p(op.weight)}, NULL, {y}, {numel(ds[:-1])}, {k}, {n})"]
        if isinstance(op, relay.QnnDenseOp):
            ds = shape_of(op.data.type)
            n, k = shape_of(op.weight.type)
            xzp = self.zero_point_value(op.input_zero_point)
            wz, wz_len = self.zero_point_array(op.kernel_zero_point), numel(shape_of(op.kernel_zero_point.type))
            return [f"acc_qnn_dense({ACC_DTYPES[dtype_of(op.data.type)]}, {self.p(op.data)}, "
                    f"{ACC_DTYPES[dtype_of(op.weight.type)]}, {self.p(op.weight)}, NULL, {y}, "
                    f"{numel(ds[:-1])}, {k}, {n}, {xzp}, {wz}, {wz_len})"]
        if isinstance(op, relay.MatmulOp):
            r = self.real_suffix(op)
            m_, n_ = shape_of(op.result.type)
            a = shape_of(op.lhs.type)
            k = a[0] if op.prop("transpose_a") else a[1]
            return [f"acc_matmul_{r}({self.p(op.lhs)}, {self.p(op.rhs)}, {y}, {m_}, {k}, {n_}, "
                    f"{int(op.prop('transpose_a'))}, {int(op.prop('transpose_b'))})"]
        if isinstance(op, relay.BatchMatmulOp):
            r = self.real_suffix(op)
            sa, sb = shape_of(op.lhs.type), shape_of(op.rhs.type)
            return [f"acc_batch_matmul_{r}({self.p(op.lhs)}, {len(sa)}, {m.shape_array(sa)}, {self.p(op.rhs)}, "
                    f"{len(sb)}, {m.shape_array(sb)}, {y}, {int(op.prop('transpose_a'))}, {int(op.prop('transpose_b'))})"]
        if isinstance(op, relay.BiasAddOp):
            s = shape_of(op.data.type)
            return [f"acc_bias_add({self.tag(op.data)}, {self.p(op.data)}, {self.p(op.bias)}, {y}, {len(s)}, "
                    f"{m.shape_array(s)}, {op.prop('axis')})"]
        binary = {relay.AddOp: "acc_add", relay.SubtractOp: "acc_subtract", relay.MultiplyOp: "acc_multiply",
                  relay.DivideOp: "acc_divide"}
        if type(op) in binary:
            sa, sb = shape_of(op.lhs.type), shape_of(op.rhs.type)
            return [f"{binary[type(op)]}({self.tag(op.lhs)}, {self.p(op.lhs)}, {len(sa)}, {m.shape_array(sa)}, "
                    f"{self.p(op.rhs)}, {len(sb)}, {m.shape_array(sb)}, {y})"]
        count = numel(shape_of(op.results[0].type))
        if isinstance(op, relay.ReluOp):
            return [f"acc_relu({self.tag(op.data)}, {self.p(op.data)}, {y}, {count})"]
        if isinstance(op, relay.ClipOp):
            return [f"acc_clip({self.tag(op.data)}, {self.p(op.data)}, {y}, {count}, "
                    f"{c_double(op.prop('a_min'))}, {c_double(op.prop('a_max'))})"]
        unary = {relay.SigmoidOp: "acc_sigmoid", relay.TanhOp: "acc_tanh", relay.ErfOp: "acc_erf",
                 relay.HardSwishOp: "acc_hardswish", relay.SiluOp: "acc_silu"}
        if type(op) in unary:
            r = self.real_suffix(op)
            return [f"{unary[type(op)]}_{r}({self.p(op.data)}, {y}, {count})"]
        if isinstance(op, relay.GeluOp):
            r = self.real_suffix(op)
            return [f"acc_gelu_{r}({self.p(op.data)}, {y}, {count}, {int(op.prop('approximate') == 'tanh')})"]
        if isinstance(op, relay.HardSigmoidOp):
            r = self.real_suffix(op)
            return [f"acc_hardsigmoid_{r}({self.p(op.data)}, {y}, {count}, "
                    f"{c_double(op.prop('alpha'))}, {c_double(op.prop('beta'))})"]
        if isinstance(op, relay.LeakyReluOp):
            r = self.real_suffix(op)
            return [f"acc_leaky_relu_{r}({self.p(op.data)}, {y}, {count}, {c_double(op.prop('alpha'))})"]
        if isinstance(op, relay.SoftmaxOp):
            r = self.real_suffix(op)
            s = shape_of(op.data.type)
            return [f"acc_softmax_{r}({self.p(op.data)}, {y}, {len(s)}, {m.shape_array(s)}, {op.prop('axis')})"]
        if isinstance(op, (relay.MaxPool2DOp, relay.AvgPool2DOp)):
            pp = self.pool_params(op)
            if isinstance(op, relay.MaxPool2DOp):
                return [f"acc_max_pool2d({self.tag(op.data)}, {self.p(op.data)}, {y}, &{pp})"]
            r = self.real_suffix(op)
            return [f"acc_avg_pool2d_{r}({self.p(op.data)}, {y}, &{pp})"]
        if isinstance(op, relay.GlobalAvgPool2DOp):
            r = self.real_suffix(op)
            n, c, h, w_ = shape_of(op.data.type)
            return [f"acc_global_avg_pool2d_{r}({self.p(op.data)}, {y}, {n}, {c}, {h}, {w_})"]
        if isinstance(op, relay.BatchNormOp):
            r = self.real_suffix(op)
            s = shape_of(op.data.type)
            return [f"acc_batch_norm_{r}({self.p(op.data)}, {self.p(op.gamma)}, {self.p(op.beta)}, "
                    f"{self.p(op.moving_mean)}, {self.p(op.moving_var)}, {y}, {len(s)}, {m.shape_array(s)}, "
                    f"{op.prop('axis')}, {c_double(op.prop('epsilon'))})"]
        if isinstance(op, relay.LayerNormOp):
            r = self.real_suffix(op)
            s = shape_of(op.data.type)
            return [f"acc_layer_norm_{r}({self.p(op.data)}, {self.p(op.gamma)}, {self.p(op.beta)}, {y}, {len(s)}, "
                    f"{m.shape_array(s)}, {op.prop('axis')}, {c_double(op.prop('epsilon'))})"]
        if isinstance(op, relay.RMSNormOp):
            r = self.real_suffix(op)
            s = shape_of(op.data.type)
            return [f"acc_rms_norm_{r}({self.p(op.data)}, {self.p(op.gamma)}, {y}, {len(s)}, {m.shape_array(s)}, "
                    f"{op.prop('axis')}, {c_double(op.prop('epsilon'))})"]
        if isinstance(op, relay.MeanOp):
            r = self.real_suffix(op)
            s = shape_of(op.data.type)
            axes = relay.MeanOp.reduced_axes(len(s), op.py_props())
            ax = m.static_array("int", list(axes) or [0], "axes")
            return [f"acc_mean_{r}({self.p(op.data)}, {y}, {len(s)}, {m.shape_array(s)}, {ax}, {len(axes)})"]
        if isinstance(op, (relay.ReshapeOp, relay.BatchFlattenOp)):
            nbytes = count * dtype_of(op.results[0].type).itemsize
            return [f"acc_copy({self.p(op.data)}, {y}, {nbytes})"]
        es = dtype_of(op.results[0].type).itemsize
        if isinstance(op, relay.TransposeOp):
            s = shape_of(op.data.type)
            perm = relay.TransposeOp.perm(len(s), op.prop("axes"))
            pa = m.static_array("int", list(perm) or [0], "perm")
            return [f"acc_transpose({es}, {self.p(op.data)}, {y}, {len(s)}, {m.shape_array(s)}, {pa})"]
        if isinstance(op, relay.ConcatenateOp):
            out_shape = shape_of(op.result.type)
            axis = relay.normalize_axis(op.prop("axis"), len(out_shape))
            sizes = [shape_of(v.type)[axis] for v in op.inputs]
            inputs = ", ".join(f"(const void *){self.p(v)}" for v in op.inputs)
            return [f"acc_concatenate({es}, {len(sizes)}, (const void *const[]){{{inputs}}}, "
                    f"{m.static_array('int64_t', sizes, 'sizes')}, {y}, {len(out_shape)}, {m.shape_array(out_shape)}, {axis})"]
        if isinstance(op, relay.PadOp):
            s = shape_of(op.data.type)
            dt = dtype_of(op.data.type)
            pv = cast(np.asarray([op.prop("pad_value")], np.float64), dt)
            if dt in NARROW_C_TYPES:  # the stored bits (sub-byte integers: the value)
                pv = pv.view(f"u{dt.itemsize}") if is_float_dtype(dt) else pv.astype(np.int64)
            pva = m.static_array(C_TYPES[dt], list(pv.astype(np.float64) if dt.kind == "f" else pv.astype(np.int64)), "padv")
            mode = {"constant": "ACC_PAD_CONSTANT", "edge": "ACC_PAD_EDGE", "reflect": "ACC_PAD_REFLECT",
                    "wrap": "ACC_PAD_WRAP"}[op.prop("pad_mode")]
            pw = m.static_array("int64_t", list(op.prop("pad_width")), "padw")
            return [f"acc_pad({es}, {self.p(op.data)}, {y}, {len(s)}, {m.shape_array(s)}, {pw}, {mode}, {pva})"]
        if isinstance(op, relay.TakeOp):
            s = shape_of(op.data.type)
            n_idx = numel(shape_of(op.indices.type))
            return [f"acc_take({es}, {self.p(op.data)}, {len(s)}, {m.shape_array(s)}, {op.prop('axis')}, "
                    f"{self.tag(op.indices)}, {self.p(op.indices)}, {n_idx}, {y})"]
        if isinstance(op, relay.CastOp):
            if dtype_of(op.data.type) in NARROW_C_TYPES or dtype_of(op.result.type) in NARROW_C_TYPES:
                rounding = {"up": "ACC_ROUND_UP", "down": "ACC_ROUND_DOWN", "nearest": "ACC_ROUND_NEAREST"}
                return [f"acc_cast_narrow({self.tag(op.data)}, {self.p(op.data)}, {self.tag(op.result)}, {y}, "
                        f"{count}, {int(op.prop('saturate'))}, {rounding[op.prop('round_mode')]})"]
            return [f"acc_cast({self.tag(op.data)}, {self.p(op.data)}, {self.tag(op.result)}, {y}, {count})"]
        if isinstance(op, relay.QuantizeOp):
            s = shape_of(op.data.type)
            q = self.qparams(op.scale, op.zero_point)
            return [f"acc_quantize({self.p(op.data)}, {self.tag(op.result)}, {y}, {len(s)}, {m.shape_array(s)}, "
                    f"{op.prop('axis')}, {q})"]
        if isinstance(op, relay.DequantizeOp):
            s = shape_of(op.data.type)
            q = self.qparams(op.scale, op.zero_point)
            return [f"acc_dequantize({self.tag(op.data)}, {self.p(op.data)}, {y}, {len(s)}, {m.shape_array(s)}, "
                    f"{op.prop('axis')}, {q})"]
        if isinstance(op, relay.RequantizeOp):
            s = shape_of(op.data.type)
            qi = self.qparams(op.input_scale, op.input_zero_point)
            qo = self.qparams(op.output_scale, op.output_zero_point)
            return [f"acc_requantize({self.tag(op.data)}, {self.p(op.data)}, {self.tag(op.result)}, {y}, {len(s)}, "
                    f"{m.shape_array(s)}, {op.prop('axis')}, {qi}, {qo})"]
        if isinstance(op, relay.QnnAddOp):
            sa, sb = shape_of(op.lhs.type), shape_of(op.rhs.type)
            f = lambda v: c_float(self.const(v).reshape(-1)[0])  # noqa: E731
            z = lambda v: int(self.const(v).reshape(-1)[0])  # noqa: E731
            return [f"acc_qnn_add({self.tag(op.lhs)}, {self.p(op.lhs)}, {len(sa)}, {m.shape_array(sa)}, "
                    f"{f(op.lhs_scale)}, {z(op.lhs_zero_point)}, {self.tag(op.rhs)}, {self.p(op.rhs)}, {len(sb)}, "
                    f"{m.shape_array(sb)}, {f(op.rhs_scale)}, {z(op.rhs_zero_point)}, {self.tag(op.result)}, {y}, "
                    f"{f(op.output_scale)}, {z(op.output_zero_point)})"]
        if isinstance(op, relay.MATH_OPS):
            return self.math_calls(op, count)
        if isinstance(op, relay.IMAGE_OPS):
            return self.image_op_calls(op, es)
        if isinstance(op, relay.VISION_OPS):
            return self.vision_op_calls(op, es)
        if isinstance(op, relay.INDEX_OPS):
            return self.index_op_calls(op, es)
        if isinstance(op, relay.SCAN_BIT_OPS):
            return self.scan_bit_calls(op, count)
        raise CompileError(f"the host C library has no kernel for '{op.name}'", op)

    BIT_OPS = {relay.BitwiseAndOp: "ACC_BIT_AND", relay.BitwiseOrOp: "ACC_BIT_OR", relay.BitwiseXorOp: "ACC_BIT_XOR",
               relay.LeftShiftOp: "ACC_BIT_SHL", relay.RightShiftOp: "ACC_BIT_SHR"}

    def scan_bit_calls(self, op: Operation, count: int) -> list[str]:
        """Calls of the scans, top k and integer bit ops (host_kernels_scan_bits.inc)."""
        m = self.model
        y = self.out
        if type(op) in self.BIT_OPS:
            sa, sb = shape_of(op.lhs.type), shape_of(op.rhs.type)
            return [f"acc_bitwise({self.BIT_OPS[type(op)]}, {self.tag(op.lhs)}, {self.p(op.lhs)}, {len(sa)}, "
                    f"{m.shape_array(sa)}, {self.p(op.rhs)}, {len(sb)}, {m.shape_array(sb)}, {y})"]
        if isinstance(op, relay.BitwiseNotOp):
            return [f"acc_bitwise_not({self.tag(op.data)}, {self.p(op.data)}, {y}, {count})"]
        if isinstance(op, relay.ReinterpretOp):
            return [f"acc_copy({self.p(op.data)}, {y}, {count * dtype_of(op.result.type).itemsize})"]
        s = shape_of(op.data.type)
        if isinstance(op, relay.DetOp):
            return [f"acc_det({self.tag(op.data)}, {self.p(op.data)}, {y}, {numel(s[:-2])}, {s[-1]})"]
        if isinstance(op, relay.CumulativeOp):
            kind = "ACC_CUMSUM" if isinstance(op, relay.CumsumOp) else "ACC_CUMPROD"
            return [f"acc_cumulative({kind}, {self.tag(op.data)}, {self.p(op.data)}, {y}, {len(s)}, "
                    f"{m.shape_array(s)}, {op.prop('axis')}, {int(op.prop('exclusive'))}, {int(op.prop('reverse'))})"]
        assert isinstance(op, relay.TopKOp)
        return [f"acc_topk({self.tag(op.data)}, {self.p(op.data)}, {len(s)}, {m.shape_array(s)}, {op.prop('axis')}, "
                f"{op.prop('k')}, {int(op.prop('is_ascend'))}, {int(op.prop('ret_type') == 'indices')}, {y})"]

    GRID_METHODS = {"linear": 0, "nearest": 1, "cubic": 2}
    GRID_PADDING = {"zeros": 0, "border": 1, "reflection": 2}

    def vision_op_calls(self, op: Operation, es: int) -> list[str]:
        """Calls of grid_sample, roi_align, roi_pool and max_unpool (samples and indices from data,
        clamped or range-checked in C)."""
        m = self.model
        y = self.out
        if isinstance(op, relay.GridSampleOp):
            sfx = self.real_suffix(op)
            s, so = shape_of(op.data.type), shape_of(op.result.type)
            return [f"acc_grid_sample_{sfx}({self.p(op.data)}, {self.p(op.grid)}, {y}, {len(s) - 2}, "
                    f"{m.shape_array(s)}, {m.shape_array(so[2:])}, {self.GRID_METHODS[op.prop('method')]}, "
                    f"{self.GRID_PADDING[op.prop('padding_mode')]}, {int(op.prop('align_corners'))})"]
        if isinstance(op, relay.RoiAlignOp):
            sfx = self.real_suffix(op)
            n, c, h, w_ = shape_of(op.data.type)
            r = shape_of(op.rois.type)[0]
            half = int(op.prop("coordinate_transformation_mode") == "half_pixel")
            return [f"acc_roi_align_{sfx}({self.p(op.data)}, {self.p(op.rois)}, {self.tag(op.batch_indices)}, "
                    f"{self.p(op.batch_indices)}, {y}, {n}, {c}, {h}, {w_}, {r}, {op.prop('output_height')}, "
                    f"{op.prop('output_width')}, {op.prop('sampling_ratio')}, {c_double(op.prop('spatial_scale'))}, "
                    f"{int(op.prop('mode') == 'max')}, {half})"]
        if isinstance(op, relay.RoiPoolOp):
            sfx = self.real_suffix(op)
            n, c, h, w_ = shape_of(op.data.type)
            r = shape_of(op.rois.type)[0]
            ph, pw = op.prop("pooled_shape")
            return [f"acc_roi_pool_{sfx}({self.p(op.data)}, {self.p(op.rois)}, {y}, {n}, {c}, {h}, {w_}, {r}, {ph}, "
                    f"{pw}, {c_double(op.prop('spatial_scale'))})"]
        if isinstance(op, relay.MaxUnpoolOp):
            count = int(np.prod(shape_of(op.data.type)))
            out = int(np.prod(shape_of(op.result.type)))
            return [f"acc_max_unpool({es}, {self.p(op.data)}, {self.tag(op.indices)}, {self.p(op.indices)}, "
                    f"{count}, {y}, {out})"]
        raise CompileError(f"the host C library has no kernel for '{op.name}'", op)

    SCATTER_REDUCTIONS = {"none": "ACC_SCATTER_NONE", "add": "ACC_SCATTER_ADD", "mul": "ACC_SCATTER_MUL",
                          "max": "ACC_SCATTER_MAX", "min": "ACC_SCATTER_MIN"}

    def index_op_calls(self, op: Operation, es: int) -> list[str]:
        """Calls of gather_nd, scatter_elements, scatter_nd (indices bounds-checked by the
        kernels: ACC_ERANGE)."""
        m = self.model
        y = self.out
        s, si = shape_of(op.data.type), shape_of(op.indices.type)
        data = f"{self.p(op.data)}, {len(s)}, {m.shape_array(s)}"
        if isinstance(op, relay.GatherNDOp):
            return [f"acc_gather_nd({es}, {data}, {op.prop('batch_dims')}, {self.tag(op.indices)}, "
                    f"{self.p(op.indices)}, {len(si)}, {m.shape_array(si)}, {y})"]
        reduction = self.SCATTER_REDUCTIONS[op.prop("reduction")]
        if isinstance(op, relay.ScatterElementsOp):
            return [f"acc_scatter_elements({self.tag(op.data)}, {data}, {op.prop('axis')}, {self.tag(op.indices)}, "
                    f"{self.p(op.indices)}, {m.shape_array(si)}, {self.p(op.updates)}, {reduction}, {y})"]
        if isinstance(op, relay.ScatterNDOp):
            return [f"acc_scatter_nd({self.tag(op.data)}, {data}, {self.tag(op.indices)}, {self.p(op.indices)}, "
                    f"{len(si)}, {m.shape_array(si)}, {self.p(op.updates)}, {reduction}, {y})"]
        raise CompileError(f"the host C library has no kernel for '{op.name}'", op)

    def image_op_calls(self, op: Operation, es: int) -> list[str]:
        """Calls of the ops of issue 11: resize, conv2d_transpose, depth/space, gather,
        max-pool indices, dyn.clip, the dynamic quantization parameters."""
        m = self.model
        y = self.out
        if isinstance(op, relay.Resize2DOp):
            n, c, h, w_ = shape_of(op.data.type)
            oh, ow = op.prop("size")
            sh, sw = relay.Resize2DOp.scales((h, w_), op.py_props())
            coord = "ACC_RESIZE_" + op.prop("coordinate_transformation_mode").upper()
            geometry = f"{n}, {c}, {h}, {w_}, {oh}, {ow}, {c_double(sh)}, {c_double(sw)}, {coord}"
            if op.prop("method") != "nearest":
                r = self.real_suffix(op)
                taps = [self.resize_taps(t) for t in resize2d_taps((h, w_), (oh, ow), (sh, sw), op.py_props())]
                return [f"acc_resize2d_taps_{r}({self.p(op.data)}, {y}, {n}, {c}, {h}, {w_}, {oh}, {ow}, "
                        f"&{taps[0]}, &{taps[1]}, {c_double(op.prop('extrapolation_value'))})"]
            nearest = "ACC_NEAREST_" + op.prop("nearest_mode").upper()
            return [f"acc_resize2d_nearest({es}, {self.p(op.data)}, {y}, {geometry}, {nearest})"]
        if isinstance(op, relay.Conv2DTransposeOp):
            r = self.real_suffix(op)
            n, c, h, w_ = shape_of(op.data.type)
            _, oc, oh, ow = shape_of(op.result.type)
            _, _, kh, kw = shape_of(op.weight.type)
            s, p, d = op.prop("strides"), op.prop("padding"), op.prop("dilation")
            name = m.fresh("deconv")
            m.globals.append(
                f"static const acc_conv2d_params {name} = {{{n}, {c}, {h}, {w_}, {oc}, {kh}, {kw}, {oh}, {ow}, "
                f"{s[0]}, {s[1]}, {p[0]}, {p[1]}, {p[2]}, {p[3]}, {d[0]}, {d[1]}, {op.prop('groups')}}};")
            return [f"acc_conv2d_transpose_{r}({self.p(op.data)}, {self.p(op.weight)}, {y}, &{name})"]
        if isinstance(op, (relay.DepthToSpaceOp, relay.SpaceToDepthOp)):
            to_space = isinstance(op, relay.DepthToSpaceOp)
            n, c, h, w_ = shape_of((op.data if to_space else op.result).type)
            crd = int(op.prop("mode") == "CRD")
            return [f"acc_depth_space({es}, {self.p(op.data)}, {y}, {n}, {c}, {h}, {w_}, {op.prop('block_size')}, "
                    f"{crd}, {int(to_space)})"]
        if isinstance(op, relay.GatherOp):
            s, si = shape_of(op.data.type), shape_of(op.indices.type)
            return [f"acc_gather_elements({es}, {self.p(op.data)}, {len(s)}, {m.shape_array(s)}, {op.prop('axis')}, "
                    f"{self.tag(op.indices)}, {self.p(op.indices)}, {m.shape_array(si)}, {y})"]
        if isinstance(op, relay.MaxPool2DIndicesOp):
            pp = self.pool_params(op)
            return [f"acc_max_pool2d_indices({self.tag(op.data)}, {self.p(op.data)}, {y}, &{pp}, "
                    f"{op.prop('storage_order')})"]
        if isinstance(op, relay.DynClipOp):
            count = numel(shape_of(op.result.type))
            return [f"acc_dyn_clip({self.tag(op.data)}, {self.p(op.data)}, {self.p(op.a_min)}, {self.p(op.a_max)}, "
                    f"{y}, {count})"]
        if isinstance(op, (relay.DynamicScaleOp, relay.DynamicZeroPointOp)):
            kind = "scale" if isinstance(op, relay.DynamicScaleOp) else "zero_point"
            return [f"acc_dynamic_{kind}_f32({self.p(op.data)}, {y}, {numel(shape_of(op.data.type))})"]
        raise CompileError(f"the host C library has no kernel for '{op.name}'", op)

    # -- run-time math -----------------------------------------------------------------

    MATH_UNARY = {relay.SqrtOp: "acc_sqrt", relay.ExpOp: "acc_exp", relay.LogOp: "acc_log", relay.FloorOp: "acc_floor",
                  relay.CeilOp: "acc_ceil", relay.RoundOp: "acc_round",
                  **{cls: f"acc_{cls.name.removeprefix('relay.')}" for cls in relay.TRIG_OPS}}
    MATH_BINARY = {relay.PowerOp: "acc_power", relay.MaximumOp: "acc_maximum", relay.MinimumOp: "acc_minimum"}
    COMPARE = {relay.EqualOp: "ACC_CMP_EQ", relay.NotEqualOp: "ACC_CMP_NE", relay.LessOp: "ACC_CMP_LT",
               relay.LessEqualOp: "ACC_CMP_LE", relay.GreaterOp: "ACC_CMP_GT", relay.GreaterEqualOp: "ACC_CMP_GE"}
    LOGICAL = {relay.LogicalAndOp: "ACC_LOGICAL_AND", relay.LogicalOrOp: "ACC_LOGICAL_OR",
               relay.LogicalXorOp: "ACC_LOGICAL_XOR"}
    REDUCE = {relay.SumOp: "ACC_REDUCE_SUM", relay.ProdOp: "ACC_REDUCE_PROD", relay.MaxOp: "ACC_REDUCE_MAX",
              relay.MinOp: "ACC_REDUCE_MIN"}

    def math_calls(self, op: Operation, count: int) -> list[str]:
        m = self.model
        y = self.out
        if type(op) in self.MATH_UNARY:
            r = self.real_suffix(op)
            return [f"{self.MATH_UNARY[type(op)]}_{r}({self.p(op.data)}, {y}, {count})"]
        if isinstance(op, (relay.NegativeOp, relay.AbsOp)):
            fn = "acc_negative" if isinstance(op, relay.NegativeOp) else "acc_abs"
            return [f"{fn}({self.tag(op.data)}, {self.p(op.data)}, {y}, {count})"]
        if isinstance(op, relay.LogicalNotOp):
            return [f"acc_logical_not({self.p(op.data)}, {y}, {count})"]
        if isinstance(op, relay.LogicalBinaryOp):
            sa, sb = shape_of(op.lhs.type), shape_of(op.rhs.type)
            return [f"acc_logical({self.LOGICAL[type(op)]}, {self.p(op.lhs)}, {len(sa)}, {m.shape_array(sa)}, "
                    f"{self.p(op.rhs)}, {len(sb)}, {m.shape_array(sb)}, {y})"]
        if type(op) in self.MATH_BINARY or type(op) in self.COMPARE:
            sa, sb = shape_of(op.lhs.type), shape_of(op.rhs.type)
            operands = (f"{self.tag(op.lhs)}, {self.p(op.lhs)}, {len(sa)}, {m.shape_array(sa)}, "
                        f"{self.p(op.rhs)}, {len(sb)}, {m.shape_array(sb)}, {y}")
            if type(op) in self.COMPARE:
                return [f"acc_compare({self.COMPARE[type(op)]}, {operands})"]
            return [f"{self.MATH_BINARY[type(op)]}({operands})"]
        if isinstance(op, relay.WhereOp):
            es = dtype_of(op.result.type).itemsize
            sc, sx, sy, so = (shape_of(v.type) for v in (op.condition, op.x, op.y, op.result))
            return [f"acc_where({es}, {self.p(op.condition)}, {len(sc)}, {m.shape_array(sc)}, {self.p(op.x)}, "
                    f"{len(sx)}, {m.shape_array(sx)}, {self.p(op.y)}, {len(sy)}, {m.shape_array(sy)}, {y}, "
                    f"{len(so)}, {m.shape_array(so)})"]
        if isinstance(op, relay.StridedSliceOp):
            es = dtype_of(op.result.type).itemsize
            s = shape_of(op.data.type)
            ranges = op.ranges(s, op.py_props())
            begin = m.static_array("int64_t", [r.start for r in ranges] or [0], "begin")
            step = m.static_array("int64_t", [r.step for r in ranges] or [1], "step")
            return [f"acc_strided_slice({es}, {self.p(op.data)}, {len(s)}, {m.shape_array(s)}, {begin}, {step}, {y}, "
                    f"{m.shape_array([len(r) for r in ranges])})"]
        if isinstance(op, relay.BroadcastToOp):
            es = dtype_of(op.result.type).itemsize
            sx, so = shape_of(op.data.type), shape_of(op.result.type)
            return [f"acc_broadcast_to({es}, {self.p(op.data)}, {len(sx)}, {m.shape_array(sx)}, {y}, {len(so)}, "
                    f"{m.shape_array(so)})"]
        assert isinstance(op, relay.ReduceOp)
        s = shape_of(op.data.type)
        axes = op.reduced_axes(len(s), op.py_props())
        ax = m.static_array("int", list(axes) or [0], "axes")
        return [f"acc_reduce({self.REDUCE[type(op)]}, {self.tag(op.data)}, {self.p(op.data)}, {y}, {len(s)}, "
                f"{m.shape_array(s)}, {ax}, {len(axes)})"]

    def tag(self, v: SSAValue) -> str:
        dt = dtype_of(v.type)
        if dt not in ACC_DTYPES:
            raise CompileError(f"'{self.op.name}': element type {v.type} is not supported by the host kernels", self.op)
        return ACC_DTYPES[dt]

    def real_suffix(self, op: Operation) -> str:
        """The suffix of the float kernel for the op's result type (`f32`, `f64`: one
        source, host_kernels_real.inc)."""
        dt = dtype_of(op.results[0].type)
        if dt not in REAL_SUFFIXES:
            raise CompileError(f"the host kernel of '{op.name}' is float32 or float64 only, got {op.results[0].type}",
                               op)
        return REAL_SUFFIXES[dt]

    def conv_params(self, op) -> str:
        n, c, h, w_ = shape_of(op.data.type)
        oc, _, kh, kw = shape_of(op.weight.type)
        _, _, oh, ow = shape_of(op.result.type)
        s, p, d = op.prop("strides"), op.prop("padding"), op.prop("dilation")
        name = self.model.fresh("conv")
        self.model.globals.append(
            f"static const acc_conv2d_params {name} = {{{n}, {c}, {h}, {w_}, {oc}, {kh}, {kw}, {oh}, {ow}, "
            f"{s[0]}, {s[1]}, {p[0]}, {p[1]}, {p[2]}, {p[3]}, {d[0]}, {d[1]}, {op.prop('groups')}}};")
        return name

    def resize_taps(self, taps: tuple[np.ndarray, np.ndarray, np.ndarray]) -> str:
        """A static acc_resize_taps of one axis (reference.resize_taps)."""
        index, weight, outside = taps
        m = self.model
        ia = m.static_array("int64_t", list(index.reshape(-1)), "taps")
        wa = m.static_array("double", list(weight.reshape(-1)), "weights")
        oa = m.static_array("uint8_t", [int(v) for v in outside], "outside") if outside.any() else "NULL"
        name = m.fresh("resize")
        m.globals.append(f"static const acc_resize_taps {name} = {{{index.shape[1]}, {ia}, {wa}, {oa}}};")
        return name

    def pool_params(self, op) -> str:
        n, c, h, w_ = shape_of(op.data.type)
        _, _, oh, ow = shape_of(op.result.type)
        k, s, d, p = op.prop("pool_size"), op.prop("strides"), op.prop("dilation"), op.prop("padding")
        include = int(op.prop("count_include_pad")) if isinstance(op, relay.AvgPool2DOp) else 0
        name = self.model.fresh("pool")
        self.model.globals.append(
            f"static const acc_pool2d_params {name} = {{{n}, {c}, {h}, {w_}, {oh}, {ow}, {k[0]}, {k[1]}, "
            f"{s[0]}, {s[1]}, {d[0]}, {d[1]}, {p[0]}, {p[1]}, {p[2]}, {p[3]}, {include}}};")
        return name

    def qparams(self, scale: SSAValue, zero_point: SSAValue) -> str:
        """A pointer to the acc_qparams of (scale, zero_point): a static struct when both
        are constants, else a compound literal reading the run-time values (the zero
        points widened to int32)."""
        if isinstance(scale.owner, relay.ConstantOp) and isinstance(zero_point.owner, relay.ConstantOp):
            s = self.const(scale).reshape(-1).astype(np.float32)
            z = self.const(zero_point).reshape(-1).astype(np.int64)
            sa = self.model.static_array("float", list(s), "scale")
            za = self.model.static_array("int32_t", list(z), "zp")
            name = self.model.fresh("q")
            self.model.globals.append(f"static const acc_qparams {name} = {{{sa}, {s.size}, {za}, {z.size}}};")
            return f"&{name}"
        s_len, z_len = numel(shape_of(scale.type)), numel(shape_of(zero_point.type))
        return f"&(acc_qparams){{{self.scale_array(scale)}, {s_len}, {self.zero_point_array(zero_point)}, {z_len}}}"

    def scale_array(self, scale: SSAValue) -> str:
        if isinstance(scale.owner, relay.ConstantOp):
            return self.model.static_array("float", list(self.const(scale).reshape(-1).astype(np.float32)), "scale")
        if dtype_of(scale.type) != np.float32:
            raise CompileError(f"'{self.op.name}': a run-time scale must be float32, got {scale.type}", self.op)
        return f"(const float *){self.p(scale)}"

    def zero_point_array(self, zero_point: SSAValue) -> str:
        """The zero points as int32: a static array, or a compound literal widening the
        run-time values."""
        if isinstance(zero_point.owner, relay.ConstantOp):
            z = self.const(zero_point).reshape(-1).astype(np.int64)
            return self.model.static_array("int32_t", list(z), "zp")
        n = numel(shape_of(zero_point.type))
        return "(const int32_t[]){" + ", ".join(self.zero_point_value(zero_point, i) for i in range(n)) + "}"

    def zero_point_value(self, zero_point: SSAValue, i: int = 0) -> str:
        """Element `i` of a zero point as an int32 C expression (a literal when constant)."""
        if isinstance(zero_point.owner, relay.ConstantOp):
            return str(int(self.const(zero_point).reshape(-1)[i]))
        return f"(int32_t){self.p(zero_point)}[{i}]"


# --------------------------------------------------------------------------------------
# Accelerator region wrappers
# --------------------------------------------------------------------------------------


BUILTIN_HOOK = "accel.compiler.backend.c_emitter:CApiCodegen"
"""The name of the built-in codegen in messages."""


class CApiCodegen:
    """The built-in codegen hook: a lowered region as a C function calling the target's
    declared C API ([api.runtime], entries' calls), in `<target>_wrappers.c` (one fragment
    per region: the merge joins them); the target's init (config struct, `init`, host
    memory registration) and shutdown go to model_init / model_free."""

    def __init__(self, model: ModelEmitter):
        self.model = model

    def __call__(self, region: RegionCodegenInput) -> RegionCodegenResult:
        desc, m = region.target, self.model
        if desc.api.runtime is None:
            raise CompileError(f"target '{desc.name}' declares no runtime functions ([api.runtime] in "
                               f"{desc.path}): the built-in C codegen cannot drive it")
        m.globals, m.global_names = [], {}
        body = CWriter()
        AccelFunctionEmitter(m, region.function, desc).emit(body)
        w = CWriter()
        w.line(f"/* Generated by accel-compile: region @{c_comment(region.name)} on target {c_comment(desc.name)}. */")
        w.line("#include <math.h>")
        w.line("#include <stdint.h>")
        w.line("")
        w.line(f'#include "{desc.api.header}"')
        w.line('#include "model_internal.h"')
        w.line("")
        for g in m.globals:
            w.line(g)
        w.line("")
        w.lines.extend(body.lines)
        shutdown = f"{runtime_call(desc, 'shutdown')};" if has_runtime(desc, "shutdown") else ""
        return RegionCodegenResult(region_symbol(region.function), sources={f"{_file_stem(desc.name)}_wrappers.c": w.text()},
                                   includes=(desc.api.header,), init=self.init_code(desc), free=shutdown)

    @staticmethod
    @by_identity(limit=PER_DESCRIPTION)  # every region of the target has it
    def init_code(desc) -> str:
        w = CWriter()
        w.line("{")
        w.depth += 1
        w.line(f"{desc.api.runtime.config.type} cfg;")
        w.line("memset(&cfg, 0, sizeof cfg);")
        for fld, val in config_fields(desc).items():
            w.line(f"cfg.{fld} = {val};")
        w.line(f"if ({runtime_call(desc, 'init', config='&cfg')} != 0) return 1;")
        if has_runtime(desc, "register_host"):
            w.line(f"{runtime_call(desc, 'register_host', ptr='model_arena', bytes='MODEL_ARENA_BYTES')};")
            w.line(f"{runtime_call(desc, 'register_host', ptr='model_weights', bytes='MODEL_WEIGHTS_BYTES')};")
        w.depth -= 1
        w.line("}")
        return w.text()


def _subview_terms(op: memref.SubviewOp) -> tuple[str, tuple]:
    """A subview's pointer cast and the terms of its element offset: strings for static
    offsets, the stride (an int) for each dynamic one, in order (`emit_subview`)."""
    strides, _ = strides_of(op.source.type)
    terms: list = []
    for o, st in zip(dense_values(op.static_offsets), strides):
        if o == DYNAMIC_INDEX:
            terms.append(st)
        elif o:
            terms.append(str(o * st))
    return f"({C_TYPES[dtype_of(op.results[0].type)]} *)", tuple(terms)


class AccelFunctionEmitter:
    """One outlined, lowered region as a C function calling the target's vendor API."""

    def __init__(self, model: ModelEmitter, fn: func.FuncOp, desc):
        self.model = model
        self.fn = fn
        self.desc = desc
        self.ptr: dict[SSAValue, str] = {}
        self.index: dict[SSAValue, str] = {}
        self.issued: dict[SSAValue, str] = {}
        """The tokens that may be of a guarded transfer not issued and are waited for: the
        C flag saying whether it was (a wait skips a transfer that was not: its token is
        complete). See `flagged_tokens`."""
        self.flagged: set[SSAValue] = set()

    def emit(self, w: CWriter) -> None:
        fn = self.fn
        self.flagged = flagged_tokens(fn)
        w.line(f"/* region @{c_comment(fn.sym_name.data)} on {c_comment(self.desc.name)} */")
        w.line(f"int {region_symbol(fn)}({self.model.region_params(fn)}) {{")
        w.depth += 1
        for i, arg in enumerate(fn.body.block.args):
            self.ptr[arg] = f"a{i}"
        w.line(f"unsigned char *spm = (unsigned char *){runtime_call(self.desc, 'spm')};")
        w.line("(void)spm;")
        self.emit_block(fn.body.block, w)
        w.depth -= 1
        w.line("}")
        w.line("")

    def emit_block(self, block, w: CWriter) -> None:
        for op in block.ops:
            self.emit_op(op, w)

    def value(self, v: SSAValue) -> str:
        c = self.ptr.get(v)
        if c is None:
            c = self.index.get(v)
        if c is not None:
            return c
        raise CompileError(f"the C emitter has no value for {v.type}", v.owner if isinstance(v.owner, Operation) else None)

    def emit_op(self, op: Operation, w: CWriter) -> None:
        emit = self.EMITTERS.get(type(op))
        if emit is None:  # a subclass of an op the region may hold (a compute op)
            emit = next((self.EMITTERS[c] for c in type(op).__mro__ if c in self.EMITTERS), None)
            if emit is None:
                raise CompileError(f"the C emitter cannot emit '{op.name}' in an accelerator region", op)
        emit(self, op, w)

    def emit_return(self, op: func.ReturnOp, w: CWriter) -> None:
        w.line(f"{runtime_call(self.desc, 'sync')};")
        w.line("return 0;")

    def emit_weight(self, op: accel.WeightOp, w: CWriter) -> None:
        self.ptr[op.result] = self.model.weight_ptr(op)

    def emit_host_alloc(self, op: memref.AllocOp, w: CWriter) -> None:
        self.ptr[op.memref] = self.model.buffer_ptr(op.memref, {})

    def emit_spm_alloc(self, op: accel.AllocOp, w: CWriter) -> None:
        result, offset = op.results[0], op.offset
        if accel.memory_space(result.type) != "spm" or offset is None:
            raise CompileError("scratchpad buffers need a planned offset (run insert-dma)", op)
        self.ptr[result] = f"(({C_TYPES[dtype_of(result.type)]} *)(spm + {offset.value.data}))"

    def emit_wait(self, op: accel.DmaWaitOp, w: CWriter) -> None:
        for t in op.operands:
            wait = f"{runtime_call(self.desc, 'dma_wait', token=self.value(t))};"
            flag = self.issued.get(t)
            w.line(wait if flag is None else f"if ({flag}) {wait}")

    def emit_index_constant(self, op: arith.ConstantOp, w: CWriter) -> None:
        self.index[op.result] = str(op.value.value.data)

    INDEX_OPERATORS = {arith.AddiOp: "+", arith.MuliOp: "*", arith.SubiOp: "-"}

    def emit_index_arith(self, op: arith.SignlessIntegerBinaryOperation, w: CWriter) -> None:
        self.index[op.result] = f"({self.value(op.lhs)} {self.INDEX_OPERATORS[type(op)]} {self.value(op.rhs)})"

    def emit_index_min_max(self, op: arith.MinSIOp | arith.MaxSIOp, w: CWriter) -> None:
        a, b = self.value(op.lhs), self.value(op.rhs)
        cmp = "<" if isinstance(op, arith.MinSIOp) else ">"
        self.index[op.result] = f"(({a}) {cmp} ({b}) ? ({a}) : ({b}))"

    def emit_for(self, op: scf.ForOp, w: CWriter) -> None:
        iv = self.model.fresh("i")
        args = op.body.block.args
        self.index[args[0]] = iv
        # Loop-carried values (a slot index, pending tokens) live in variables.
        carried = []  # (C type, variable, the yield's operand index) of each carried value
        for k, (arg, init, res) in enumerate(zip(args[1:], op.iter_args, op.results)):
            var = self.model.fresh("c")
            ctype = self.c_scalar_type(arg.type)
            w.line(f"{ctype} {var} = {self.value(init)};")
            self.index[arg] = var
            self.index[res] = var
            carried.append((ctype, var, k, False))
            if arg in self.flagged or res in self.flagged:  # a token that may not be issued: its flag too
                flag = self.model.fresh("c")
                w.line(f"int {flag} = {self.issued.get(init, '1')};")
                self.issued[arg] = self.issued[res] = flag
                carried.append(("int", flag, k, True))
        lb, ub, st = self.value(op.lb), self.value(op.ub), self.value(op.step)
        w.line(f"for (int64_t {iv} = {lb}; {iv} < {ub}; {iv} += {st}) {{")
        w.depth += 1
        for inner in op.body.block.ops:
            if isinstance(inner, scf.YieldOp):
                temps = []
                for ctype, var, k, is_flag in carried:
                    v = inner.operands[k]
                    tmp = self.model.fresh("n")
                    w.line(f"{ctype} {tmp} = {self.issued.get(v, '1') if is_flag else self.value(v)};")
                    temps.append((var, tmp))
                for var, tmp in temps:
                    w.line(f"{var} = {tmp};")
            else:
                self.emit_op(inner, w)
        w.depth -= 1
        w.line("}")

    def emit_compute(self, op: accel.ComputeOp, w: CWriter) -> None:
        ComputeCallEmitter(self, op).emit(w)

    def c_scalar_type(self, t) -> str:
        if isinstance(t, accel.TokenType):
            return self.desc.api.runtime.token_type
        return "int64_t"

    def emit_subview(self, op: memref.SubviewOp, w: CWriter) -> None:
        operands, result = op._operands, op.results[0]  # noqa: SLF001 - (the tuple: indexed below)
        source = operands[0]
        key = (op.static_offsets, source.type, result.type)
        known = self.model.subview_terms.get(key)
        if known is None:
            known = _subview_terms(op)
            self.model.subview_terms.put(key, known)
        cast, terms = known
        src = self.value(source)
        if not terms:
            self.ptr[result] = src
            return
        # Each term a static offset's, or the stride of the dynamic offset after the source
        # (xDSL's operand order: source, offsets, sizes, strides).
        dyn = 1
        parts = []
        for term in terms:
            if term.__class__ is int:
                parts.append(f"{self.value(operands[dyn])} * {term}")
                dyn += 1
            else:
                parts.append(term)
        self.ptr[result] = f"({cast}{src} + {' + '.join(parts)})"

    def emit_strided_view(self, op: memref.ReinterpretCastOp, w: CWriter) -> None:
        """A layout op's view of a dense buffer: its first element; the strides are the type's."""
        dense_source(op)
        (offset,) = dense_values(op.static_offsets)
        src, result = self.value(op.source), op.results[0]
        self.ptr[result] = f"(({C_TYPES[dtype_of(result.type)]} *){src} + {offset})" if offset else src

    def emit_dma(self, op: accel.DmaStartOp, w: CWriter) -> None:
        m = self.model
        source, dest = op.source, op.dest
        t = m.transfer(source.type, dest.type)
        if getattr(self.desc.api.runtime, t.function) is None:
            raise CompileError(f"target '{self.desc.name}' has no copy on the device (api.runtime.{t.function})", op)
        call = runtime_call(self.desc, t.function, dst=self.value(dest), src=self.value(source),
                            elem_bytes=t.elem_bytes, rank=t.rank, shape=m.shape_array(t.shape),
                            dst_strides=m.static_array("int64_t", t.dest_strides, "strides"),
                            src_strides=m.static_array("int64_t", t.source_strides, "strides"))
        token = op.results[0]
        if op.guarded:
            a, b = op.guard_pair
            cond = f"{self.value(a)} < {self.value(b)}"
            if token.first_use is None:
                w.line(f"if ({cond}) (void){call};")
                return
            tok = m.fresh("t")
            self.ptr[token] = tok
            w.line(f"{self.desc.api.runtime.token_type} {tok} = {{0}};")  # (never waited for unless issued)
            if token not in self.flagged:
                w.line(f"if ({cond}) {tok} = {call};")
                return
            flag = self.issued[token] = m.fresh("f")
            w.line(f"int {flag} = 0;")
            w.line(f"if ({cond}) {{ {tok} = {call}; {flag} = 1; }}")
            return
        if token.first_use is None:  # completed by the region's final sync
            w.line(f"(void){call};")
            return
        tok = m.fresh("t")
        self.ptr[token] = tok
        w.line(f"{self.desc.api.runtime.token_type} {tok} = {call};")

    EMITTERS = {
        func.ReturnOp: emit_return, accel.WeightOp: emit_weight, memref.AllocOp: emit_host_alloc,
        accel.AllocOp: emit_spm_alloc, accel.DmaStartOp: emit_dma, accel.DmaWaitOp: emit_wait,
        memref.SubviewOp: emit_subview, memref.ReinterpretCastOp: emit_strided_view,
        arith.ConstantOp: emit_index_constant,
        arith.AddiOp: emit_index_arith, arith.MuliOp: emit_index_arith, arith.SubiOp: emit_index_arith,
        arith.MinSIOp: emit_index_min_max, arith.MaxSIOp: emit_index_min_max, scf.ForOp: emit_for,
        accel.ComputeOp: emit_compute,
    }  # fmt: skip
    """The ops of a lowered region, by class: the emitter of each."""


def flagged_tokens(fn: func.FuncOp) -> set[SSAValue]:
    """The tokens of `fn` that need an issued flag in C: those that may be of a guarded
    transfer not issued (its own token, and loop-carried values and loop results that
    may hold one) and that a wait reads, directly or through loop-carried values.

    A guarded transfer of a loop's body that prefetches for the next iteration (guard
    `iv + step < ub`, the loop's own step and bound) is issued in every iteration that
    has a next: the iteration that reads its token through the loop-carried value waits
    for an issued transfer, and only the loop's result (after the last) may not be."""
    unsure: set[SSAValue] = set()
    loops = []
    next_only: set[SSAValue] = set()  # tokens of prefetches for the next iteration
    for op in fn.walk():
        if type(op) is accel.DmaStartOp and op.guarded:
            unsure.add(op.token)
            if _for_next_iteration(op):
                next_only.add(op.token)
        elif type(op) is scf.ForOp and op.iter_args:
            loops.append(op)
    if not unsure:
        return unsure
    changed = True
    while changed:  # (a carried token reaches the loops around it: as deep as they nest)
        changed = False
        for loop in loops:
            args, yielded = loop.body.block.args[1:], loop.body.block.last_op.operands
            for arg, init, out, res in zip(args, loop.iter_args, yielded, loop.results):
                if arg not in unsure and (init in unsure or (out in unsure and out not in next_only)):
                    unsure.add(arg)
                    changed = True
                if res not in unsure and (init in unsure or out in unsure):
                    unsure.add(res)
                    changed = True
    # The flags read: from the waits back through the carried values.
    flagged = {t for t in unsure if any(type(u.operation) is accel.DmaWaitOp for u in t.uses)}
    changed = True
    while changed:
        changed = False
        for loop in loops:
            args, yielded = loop.body.block.args[1:], loop.body.block.last_op.operands
            for arg, init, out, res in zip(args, loop.iter_args, yielded, loop.results):
                if arg in flagged or res in flagged:
                    for v in (init, out, arg, res):
                        if v in unsure and v not in flagged:
                            flagged.add(v)
                            changed = True
    return flagged


def _for_next_iteration(op: accel.DmaStartOp) -> bool:
    """Whether guarded transfer `op`, in a loop's body, is guarded by `iv + step < ub` of
    that loop (a prefetch for the next iteration, issued in every iteration but the last)."""
    loop = op.parent_op()
    if type(loop) is not scf.ForOp:
        return False
    x, bound = op.guard_pair
    form = offset_from(x, loop.body.block.args[0])
    return form is not None and form[0] is not None and _same_index(form[0], loop.step) and \
        _same_index(bound, loop.ub)


def _same_index(a: SSAValue, b: SSAValue) -> bool:
    """Whether two index values are the same value or equal constants."""
    return a is b or (constant_index(a) is not None and constant_index(a) == constant_index(b))


@dataclass(frozen=True)
class Transfer:
    """What a DMA call says of its two views apart from the buffers (`ModelEmitter.transfer`)."""

    function: str
    """The runtime function: dma_to_device, dma_to_host or dma_on_device."""
    elem_bytes: str
    rank: str
    shape: tuple[int, ...]
    dest_strides: tuple[int, ...]
    source_strides: tuple[int, ...]


@dataclass(frozen=True)
class StaticArray:
    """An array argument or struct field of a compute call: a static const array of the
    file being written (`ModelEmitter.static_array`)."""

    ctype: str
    values: tuple


@dataclass(frozen=True)
class StructInit:
    """A `&<struct>` argument: a static const instance of a declared struct, its fields
    as C (a literal, an enum identifier) or arrays."""

    type: str
    fields: tuple[tuple[str, str | StaticArray], ...]

    @functools.cached_property
    def init(self) -> str | None:
        """The initializer when no field is an array (written once per alike ops)."""
        if any(isinstance(v, StaticArray) for _, v in self.fields):
            return None
        return ", ".join(f".{f} = {v}" for f, v in self.fields)


@dataclass(frozen=True)
class Operand:
    """A buffer argument of a compute call: the op's operand at `index`."""

    index: int


CallPiece = str | StaticArray | StructInit | Operand
"""An argument of a compute call before it is written: C text (NULL for a missing buffer),
an array, a struct, or an operand of the op (the buffers are each op's own)."""


class ComputeCallEmitter:
    """An accel compute op as the call its description entry declares (`accel.entry`:
    `c_function` and `args`, words of `accel.compiler.targets.c_api`). Nothing of the
    vendor API is assumed here: names, argument order, structs and enum identifiers all
    come from the description.

    A word is a function of the op's signature (name, properties and operand types:
    `Word.evaluate`), and those are interned: alike ops share one evaluation of their
    call's words (`ModelEmitter.call_pieces`)."""

    def __init__(self, region: AccelFunctionEmitter, op: accel.ComputeOp):
        self.region = region
        self.op = op
        self.model = region.model
        self.desc = region.desc

    def emit(self, w: CWriter) -> None:
        op, desc = self.op, self.desc
        key = entry_of(op)
        if key is None:
            raise CompileError(f"'{op.name}' does not say which entry of target '{desc.name}' runs it "
                               f"(no '{ENTRY_ATTR}': lower it with lower-to-accel)", op)
        spec = desc.entry(key)
        if spec is None:
            raise CompileError(f"'{op.name}': target '{desc.name}' has no entry '{key}'", op)
        if spec.call is None:
            raise CompileError(f"'{op.name}': {key} of target '{desc.name}' declares no 'args' for its C call", op)
        operands = op.operands
        args = [self.render(p, operands) for p in self.pieces(spec.call, f"{desc.path}: {key}")]
        w.line(f"if ({spec.call.function}({', '.join(args)}) != 0) return 1;")

    def pieces(self, call: Call, where: str) -> tuple[CallPiece, ...]:
        """The call's arguments for this op, evaluated once per alike ops."""
        key = (call, *op_signature(self.op))
        pieces = self.model.call_pieces.get(key)
        if pieces is None:
            pieces = tuple(self.piece(a, where) for a in call.args)
            self.model.call_pieces.put(key, pieces)
        return pieces

    def piece(self, a: Arg, where: str) -> CallPiece:
        if a.struct is not None:
            st = self.desc.struct(a.struct)
            return StructInit(st.type, tuple((f, self.value(v, f"{where}: api.structs.{st.name}.fields.{f}"))
                                             for f, v in st.fields))
        assert a.value is not None
        return self.value(a.value, where)

    def value(self, v: Value, where: str) -> CallPiece:
        if v.word is None:
            return c_number(v.literal, "int64_t" if isinstance(v.literal, int) else "double")
        word = compute_word(v.word)
        assert word is not None
        x = word.evaluate(self.op)
        if word.kind == BUFFER:  # the operand's position
            return "NULL" if x is None else Operand(x)
        if word.kind == ARRAY:  # None: an array the op has not (a lookup's table on another kind)
            return "NULL" if x is None else StaticArray(word.ctype, tuple(x))
        if v.enum is not None:
            ident = v.enum_value(x)
            if ident is None:
                raise CompileError(f"{where}: the enum of '{v.word}' has no value for '{x}'", self.op)
            return ident
        return c_number(x, word.ctype)

    def render(self, piece: CallPiece, operands: Sequence[SSAValue]) -> str:
        """An argument as C; a struct or an array becomes a static const of the file."""
        if isinstance(piece, str):
            return piece
        if isinstance(piece, Operand):
            return self.region.value(operands[piece.index])
        if isinstance(piece, StaticArray):
            return self.model.static_array(piece.ctype, list(piece.values), "k")
        name = self.model.fresh("p")
        init = piece.init
        if init is None:
            init = ", ".join(f".{f} = {self.render(v, operands)}" for f, v in piece.fields)
        self.model.globals.append(f"static const {piece.type} {name} = {{{init}}};")
        return f"&{name}"


def c_number(x: Any, ctype: str) -> str:
    """A C literal of a declared value: float32 for `float`, else double or integer."""
    if isinstance(x, float):
        return c_float(x) if ctype == "float" else c_double(x)
    if ctype == "float":
        return c_float(float(x))
    return c_int(x)
