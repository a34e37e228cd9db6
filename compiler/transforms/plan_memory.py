"""plan-memory: a static plan of every host buffer in one arena, reusing memory by liveness.

Runs on bufferized IR. Each `memref.alloc` (in `@main` and in the functions it calls)
gets a byte offset `accel.offset` in one host arena; two buffers share bytes only when
their lifetimes (from the allocation to the last op that touches the buffer, a call
counting as all the ops of its callee) do not overlap. `@main`'s arguments are the
caller's buffers and weights live in their own read-only area (`accel.weight`,
constants inside kernels), so neither is planned here. The module records the arena
size as `accel.arena_bytes`.

Buffers must be addressable: a buffer of `@main` (input, output or intermediate) larger
than `MAX_BUFFER_BYTES` (2^40 bytes, 1 TiB), or an arena larger than that, is refused with
one line naming the tensor (a declared 2^20 x 2^20 float input, 4 TiB, cannot be run).

Allocation is a linear scan in schedule order with a first-fit free list (offsets
aligned to `alignment` bytes): O(n log n) in the number of buffers.

Before:

    %0 = memref.alloc() : memref<1x8x8x8xf32>
    ...
    %1 = memref.alloc() : memref<1x8x8x8xf32>

After (the first buffer is dead when the third is allocated, so they share offset 0):

    %0 = memref.alloc() {accel.offset = 0 : i64} : memref<1x8x8x8xf32>
    %1 = memref.alloc() {accel.offset = 2048 : i64} : memref<1x8x8x8xf32>
    %2 = memref.alloc() {accel.offset = 0 : i64} : memref<1x8x8x8xf32>
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import func, memref
from xdsl.dialects.builtin import IntegerAttr, MemRefType, ModuleOp, i64
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass

from accel.compiler.diagnostics import CompileError
from accel.compiler.ir_build import i64_attr
from accel.compiler.memory_plan import align, linear_scan, schedule
from accel.compiler.tensors import buffer_bytes
from accel.dialects.conventions import ARENA_ATTR, OFFSET_ATTR, io_names

MAX_BUFFER_BYTES = 1 << 40
"""The largest buffer or host arena accel plans (1 TiB: far beyond any device's memory,
and every byte offset and size stays exact in the C code's 64-bit arithmetic)."""



def _too_large(what: str, t: MemRefType, size: int) -> str:
    return (f"plan-memory: {what} ({t}) needs {size} bytes, more than the {MAX_BUFFER_BYTES} bytes "
            "(1 TiB) a buffer may have")


def check_main_buffers(module: ModuleOp) -> None:
    """@main's inputs and outputs are the caller's buffers: refuse those too large to exist."""
    main = next((f for f in module.body.block.ops if isinstance(f, func.FuncOp) and f.sym_name.data == "main"), None)
    if main is None or main.is_declaration:
        return
    for arg, name in zip(main.body.block.args, io_names(main)[0]):
        if isinstance(arg.type, MemRefType) and buffer_bytes(arg.type) > MAX_BUFFER_BYTES:
            raise CompileError(_too_large(f"tensor '{name}' of @main", arg.type, buffer_bytes(arg.type)), main)


def _last_use(buf: SSAValue, position: dict[Operation, int], end: dict[Operation, int]) -> int:
    last = position[buf.owner]  # type: ignore[index]
    stack = [buf]
    while stack:
        v = stack.pop()
        for use in v.uses:
            user = use.operation
            # Views (subviews, casts) extend the lifetime of the buffer they alias.
            if user.results and isinstance(user, (memref.SubviewOp, memref.CastOp, memref.ReinterpretCastOp)):
                stack.extend(user.results)
            top = user
            while top.parent_op() is not None and top not in end:
                top = top.parent_op()
            last = max(last, end.get(top, position.get(user, last)))
    return last


@dataclass(frozen=True)
class PlanMemory(ModulePass):
    """Static host arena: liveness-based offsets for every memref.alloc."""

    name = "plan-memory"

    alignment: int = 64

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        if self.alignment < 1:
            raise CompileError(f"plan-memory: alignment must be positive, got {self.alignment}")
        position, end = schedule(op)
        check_main_buffers(op)
        allocs = [o for o in position if isinstance(o, memref.AllocOp)]
        intervals = []
        for alloc in allocs:
            t = alloc.memref.type
            assert isinstance(t, MemRefType)
            if buffer_bytes(t) > MAX_BUFFER_BYTES:
                raise CompileError(_too_large("an intermediate tensor", t, buffer_bytes(t)), alloc)
            size = align(max(buffer_bytes(t), 1), self.alignment)
            intervals.append((position[alloc], _last_use(alloc.memref, position, end), size, alloc))
        offsets, top = linear_scan([(start, last, size) for start, last, size, _ in intervals])
        if top > MAX_BUFFER_BYTES:
            raise CompileError(f"plan-memory: the host arena needs {top} bytes, more than the {MAX_BUFFER_BYTES} "
                               "bytes (1 TiB) it may have")
        for (_, _, _, alloc), offset in zip(intervals, offsets):
            alloc.attributes[OFFSET_ATTR] = i64_attr(offset)
        op.attributes[ARENA_ATTR] = IntegerAttr(top, i64)
