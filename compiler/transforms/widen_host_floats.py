"""widen-host-floats: host ops on f16 / bf16 values compute in f32.

The host kernels compute on float32 (and wider); a half or bfloat16 value is storage.
Every relay op of a host function that reads or produces f16/bf16 values reads them
through a `relay.cast` to f32 and stores each such result back rounded (round to nearest
even), as ONNX's float16 ops do one op at a time:

    %y = relay.sigmoid %x : tensor<4xf16>

becomes

    %0 = relay.cast %x : tensor<4xf16> -> tensor<4xf32>
    %1 = relay.sigmoid %0 : tensor<4xf32>
    %y = relay.cast %1 : tensor<4xf32> -> tensor<4xf16>

Casts, reinterprets (bits, not values) and constants keep their types. The storage-only types (float8, float4, f8E8M0FNU,
int4, int2) may meet only casts, quantize / dequantize and data movement; any other
op on them is one error line (no kernel computes on them, and ONNX defines no
arithmetic there). Accelerator regions are not touched: annotate-target leaves ops on
types a target does not list on the host.
Runs after partitioning, before bufferize (in the `lower` pipelines).
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import Float32Type, ModuleOp, TensorType
from xdsl.ir import Attribute, Block, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from accel.compiler.diagnostics import CompileError
from accel.compiler.narrow_types import HOST_WIDENED, is_narrow
from accel.compiler.tensors import UnsupportedDtype, numpy_dtype
from accel.dialects import relay
from accel.dialects.conventions import host_functions

STORAGE_OPS = (
    relay.CastOp, relay.QuantizeOp, relay.DequantizeOp, relay.ReshapeOp, relay.BatchFlattenOp,
    relay.TransposeOp, relay.ConcatenateOp, relay.TakeOp, relay.StridedSliceOp, relay.BroadcastToOp,
    relay.ReinterpretOp,
)
"""Ops a storage-only narrow type may meet (their kernels move bytes or convert)."""


def _kind(t: Attribute) -> str | None:
    """'widen' for f16/bf16 tensors, 'storage' for the other narrow types, else None."""
    if not isinstance(t, TensorType):
        return None
    try:
        dt = numpy_dtype(t.element_type)
    except UnsupportedDtype:
        return None
    if dt in HOST_WIDENED:
        return "widen"
    return "storage" if is_narrow(dt) else None


def _f32(t: TensorType) -> TensorType:
    return relay.tensor(relay.shape_of(t), Float32Type())


def widen_op(op: Operation, widened: dict[tuple[SSAValue, Block | None], SSAValue]) -> None:
    """Rewrite one host op (see the module docstring); `widened` holds the f32 copy of
    each narrow value already made in a block (one cast per value, not per use)."""
    types = [v.type for v in (*op.operands, *op.results)]
    kinds = {_kind(t) for t in types}
    if "storage" in kinds and not isinstance(op, STORAGE_OPS):
        narrow = next(t for t in types if _kind(t) == "storage")
        raise CompileError(f"'{op.name}' on {narrow.element_type} values is not supported: that type is storage "
                           "only (cast it to a float type first)", op)
    if "widen" not in kinds or isinstance(op, (relay.CastOp, relay.ReinterpretOp)) or op.regions:
        return
    operands = []
    for v in op.operands:
        if _kind(v.type) == "widen":
            key = (v, op.parent_block())
            if key not in widened:
                up = relay.CastOp(v, Float32Type())
                Rewriter.insert_op(up, InsertPoint.before(op))
                widened[key] = up.result
            v = widened[key]
        operands.append(v)
    wide = type(op).create(operands=operands, result_types=[_f32(r.type) if _kind(r.type) == "widen" else r.type
                                                            for r in op.results],
                           properties=dict(op.properties), attributes=dict(op.attributes))
    Rewriter.insert_op(wide, InsertPoint.before(op))
    results = []
    for old, new in zip(op.results, wide.results):
        if _kind(old.type) == "widen":
            down = relay.CastOp(new, old.type.element_type)
            Rewriter.insert_op(down, InsertPoint.before(op))
            new = down.result
        if old.name_hint:
            new.name_hint = old.name_hint
        results.append(new)
    for old, new in zip(op.results, results):
        old.replace_all_uses_with(new)
    op.detach()
    op.erase()


@dataclass(frozen=True)
class WidenHostFloats(ModulePass):
    """Host ops on f16/bf16 compute in f32 (casts around them); storage-only narrow
    types reach only casts, quantize/dequantize and data movement."""

    name = "widen-host-floats"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for fn in host_functions(op):
            widened: dict[tuple[SSAValue, Block | None], SSAValue] = {}
            for inner in list(fn.walk()):
                if isinstance(inner, (relay.RelayOp, relay.CompositeOp)):
                    widen_op(inner, widened)
