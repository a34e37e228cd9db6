"""The cost model that decides whether offloading a region pays off.

Work of an op: multiply-accumulates for convolutions and matrix products, elements
otherwise (pools: output elements x window). A composite's work is its body's; it counts
as int8 when one of its non-constant inputs is an 8-bit integer (a QDQ composite runs in
integers on the accelerator).

    host cycles  = sum(work / host throughput)
    accel cycles = launch_cycles + sum(work / accelerator throughput)
                   + sum over tensors crossing the region boundary (inputs, weights and
                     outputs) of dma.setup_cycles + bytes / dma.bytes_per_cycle

With `memory.shared_with_host` nothing is copied, but each boundary tensor still costs
`dma.setup_cycles` (synchronisation). All numbers are in accelerator cycles.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

from xdsl.dialects.builtin import IntegerType, TensorType
from xdsl.ir import Operation, SSAValue

from accel.compiler.targets.schema import TargetDescription, Throughput
from accel.compiler.targets.support import is_constant
from accel.dialects.relay import CompositeOp, ConstantOp, RelayOp, YieldOp

_MAC_OPS = {"relay.nn.conv2d", "relay.qnn.conv2d", "relay.nn.conv2d_transpose", "relay.nn.dense", "relay.qnn.dense",
            "relay.nn.matmul", "relay.nn.batch_matmul"}  # fmt: skip


def _shape(v: SSAValue) -> tuple[int, ...]:
    t = v.type
    return tuple(t.get_shape()) if isinstance(t, TensorType) else ()


def value_bytes(v: SSAValue) -> int:
    t = v.type
    if not isinstance(t, TensorType):
        return 0
    bits = t.element_type.bitwidth  # type: ignore[attr-defined]
    return math.prod(t.get_shape()) * max(1, (bits + 7) // 8)


@dataclass(frozen=True)
class Work:
    macs: int = 0
    elements: int = 0
    int8: bool = False

    def __add__(self, other: Work) -> Work:
        return Work(self.macs + other.macs, self.elements + other.elements, self.int8 or other.int8)

    def cycles(self, t: Throughput) -> float:
        rate = t.macs_per_cycle_int8 if self.int8 else t.macs_per_cycle_f32
        return self.macs / rate + self.elements / t.elementwise_per_cycle


def op_work(op: Operation) -> Work:
    if isinstance(op, (ConstantOp, YieldOp)):
        return Work()
    if isinstance(op, CompositeOp):
        total = Work()
        for inner in op.body.block.ops:
            total = total + op_work(inner)
        int8 = any(_is_int8(v) for v in op.inputs if not is_constant(v))
        return Work(total.macs, total.elements, int8)
    name = op.name
    out = math.prod(_shape(op.results[0])) if op.results else 0
    if name in _MAC_OPS:
        int8 = name.startswith("relay.qnn.")
        if name in ("relay.nn.conv2d", "relay.qnn.conv2d"):
            w = _shape(op.operands[1])
            return Work(macs=out * w[1] * w[2] * w[3], int8=int8)
        if name == "relay.nn.conv2d_transpose":  # every input element meets Cout/groups x kh x kw weights
            w = _shape(op.operands[1])
            return Work(macs=math.prod(_shape(op.operands[0])) * w[1] * w[2] * w[3])
        a = _shape(op.operands[0])
        transposed = isinstance(op, RelayOp) and op.prop_kind("transpose_a") is not None and op.prop("transpose_a")
        k = (a[-2] if transposed else a[-1]) if a else 1
        return Work(macs=out * k, int8=int8)
    if name in ("relay.nn.max_pool2d", "relay.nn.avg_pool2d") and isinstance(op, RelayOp):
        k = op.prop("pool_size") or (1, 1)
        return Work(elements=out * k[0] * k[1])
    largest = max([out, *(math.prod(_shape(v)) for v in op.operands)], default=0)
    return Work(elements=largest, int8=name.startswith("relay.qnn."))


def _is_int8(v: SSAValue) -> bool:
    t = v.type
    return isinstance(t, TensorType) and isinstance(t.element_type, IntegerType) and t.element_type.width.data == 8


def transfer_cycles(nbytes: int, target: TargetDescription) -> float:
    if target.memory.shared_with_host:
        return target.dma.setup_cycles
    return target.dma.setup_cycles + nbytes / target.dma.bytes_per_cycle


@dataclass(frozen=True)
class RegionCost:
    host_cycles: float
    compute_cycles: float
    dma_cycles: float
    launch_cycles: float

    @property
    def accel_cycles(self) -> float:
        return self.launch_cycles + self.compute_cycles + self.dma_cycles

    @property
    def profitable(self) -> bool:
        return self.accel_cycles <= self.host_cycles


def region_cost(
    ops: Iterable[Operation], boundary: Iterable[SSAValue], target: TargetDescription
) -> RegionCost:
    """Cost of running `ops` on `target`; `boundary` are the tensors crossing in or out
    (inputs, constants used, and results used outside)."""
    host = 0.0
    compute = 0.0
    for op in ops:
        w = op_work(op)
        host += w.cycles(target.host)
        compute += w.cycles(target.compute)
    dma = sum(transfer_cycles(value_bytes(v), target) for v in boundary)
    return RegionCost(host, compute, dma, target.compute.launch_cycles)
