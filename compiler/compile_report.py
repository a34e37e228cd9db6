"""The compiler's figures for report.json: planned DMA traffic, its compulsory lower bound,
memory, and cycles, computed statically from the final IR.

- `dma.bytes_to_device`, `dma.bytes_to_host`, `dma.transfers`: every `accel.dma_start` of
  every accelerator function, times the trip counts of its enclosing loops. These are
  exactly what the simulator counts when the model runs.
- `dma.lower_bound_bytes`: the compulsory traffic of the chosen partition: every value
  crossing the host/accelerator boundary once (to a target from the host or from another
  target; back to the host when the host or the model's outputs need it) and every weight
  of an offloaded op once. Targets that share memory with the host need none.
- `cycles.estimate`: the simulator's two-engine timeline (DMA engine, compute engine,
  host issuing in program order and waiting only at `dma_wait`) replayed on the IR.
- `cycles.lower_bound`: max(total compute cycles, compulsory DMA cycles).
"""

from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import dataclass, field

import numpy as np
from xdsl.dialects import arith, func, memref, scf
from xdsl.dialects.builtin import DictionaryAttr, IntegerAttr, MemRefType, ModuleOp, StringAttr
from xdsl.ir import Operation, SSAValue
from xdsl.traits import SymbolTable

from compiler.tensors import numpy_dtype
from dialects import accel

OUTPUT_ATTR = "accel.output"


def nbytes(t: MemRefType) -> int:
    return int(math.prod(t.get_shape())) * numpy_dtype(t.element_type).itemsize


def _const_int(v: SSAValue) -> int | None:
    owner = v.owner
    if isinstance(owner, arith.ConstantOp) and isinstance(owner.value, IntegerAttr):
        return owner.value.value.data
    return None


def trip_count(loop: scf.ForOp) -> int:
    lb, ub, st = _const_int(loop.lb), _const_int(loop.ub), _const_int(loop.step)
    if lb is None or ub is None or st is None or st <= 0:
        raise ValueError("loops with dynamic bounds have no static trip count")
    return max(0, -(-(ub - lb) // st))


def multiplicity(op: Operation) -> int:
    n = 1
    parent = op.parent_op()
    while parent is not None and not isinstance(parent, func.FuncOp):
        if isinstance(parent, scf.ForOp):
            n *= trip_count(parent)
        parent = parent.parent_op()
    return n


def accelerator_functions(module: ModuleOp) -> list[tuple[func.FuncOp, str]]:
    out = []
    for fn in module.body.block.ops:
        if isinstance(fn, func.FuncOp) and not fn.is_declaration:
            t = fn.attributes.get("accel.target")
            if isinstance(t, StringAttr) and t.data != "host":
                out.append((fn, t.data))
    return out


# --------------------------------------------------------------------------------------
# Compute cost (shared with the simulator's model; see compiler/runtime/c/sim)
# --------------------------------------------------------------------------------------


def compute_cycles(op: accel.ComputeOp, desc) -> float:
    c = desc.compute
    if isinstance(op, accel.Conv2DOp):
        n, oc, oh, ow = op.output.type.get_shape()
        _, cg, kh, kw = op.inputs[1].type.get_shape()
        macs = n * oc * oh * ow * cg * kh * kw
        return macs / (c.macs_per_cycle_int8 if op.is_quantized else c.macs_per_cycle_f32)
    if isinstance(op, accel.MatmulOp):
        m, n = op.output.type.get_shape()
        a = op.inputs[0].type.get_shape()
        k = a[0] if op.prop("transpose_a") else a[1]
        return m * n * k / (c.macs_per_cycle_int8 if op.is_quantized else c.macs_per_cycle_f32)
    if isinstance(op, accel.PoolOp):
        kh, kw = op.prop("pool_size")
        return math.prod(op.output.type.get_shape()) * kh * kw / c.elementwise_per_cycle
    return math.prod(op.output.type.get_shape()) / c.elementwise_per_cycle


def dma_cycles(nbytes_: int, desc) -> float:
    return desc.dma.setup_cycles + nbytes_ / desc.dma.bytes_per_cycle


# --------------------------------------------------------------------------------------
# DMA counts and the lower bound
# --------------------------------------------------------------------------------------


def planned_dma(module: ModuleOp) -> dict[str, int]:
    to_dev = to_host = transfers = 0
    for fn, _ in accelerator_functions(module):
        for op in fn.walk():
            if isinstance(op, accel.DmaStartOp):
                k = multiplicity(op)
                b = nbytes(op.source.type) * k
                transfers += k
                if op.to_device:
                    to_dev += b
                else:
                    to_host += b
    return {"bytes_to_device": to_dev, "bytes_to_host": to_host, "transfers": transfers}


def _is_output_arg(fn: func.FuncOp, i: int) -> bool:
    if fn.arg_attrs is None or i >= len(fn.arg_attrs.data):
        return False
    d = fn.arg_attrs.data[i]
    return isinstance(d, DictionaryAttr) and OUTPUT_ATTR in d.data


def lower_bound_bytes(module: ModuleOp, descs: dict) -> int:
    """Compulsory traffic of the partition (see the module docstring)."""
    main = SymbolTable.lookup_symbol(module, "main")
    if not isinstance(main, func.FuncOp):
        return 0
    targets = dict((fn.sym_name.data, (fn, t)) for fn, t in accelerator_functions(module))

    def shared(t: str) -> bool:
        d = descs.get(t)
        return d is not None and d.memory.shared_with_host

    # Who writes and who reads each host buffer of @main, as "host" or a target name.
    writers: dict[SSAValue, set[str]] = defaultdict(set)
    readers: dict[SSAValue, set[str]] = defaultdict(set)
    for i, arg in enumerate(main.body.block.args):
        if _is_output_arg(main, i):
            readers[arg].add("host")  # the model's caller reads it
        else:
            writers[arg].add("host")
    for op in main.body.block.ops:
        if isinstance(op, func.CallOp) and op.callee.root_reference.data in targets:
            fn, t = targets[op.callee.root_reference.data]
            for i, a in enumerate(op.arguments):
                (writers if _is_output_arg(fn, i) else readers)[a].add(t)
        elif isinstance(op, accel.KernelOp):
            for a in op.ins:
                readers[a].add("host")
            for a in op.outs:
                writers[a].add("host")
        elif isinstance(op, memref.CopyOp):
            readers[op.source].add("host")
            writers[op.destination].add("host")
    total = 0
    for buf in set(writers) | set(readers):
        b = nbytes(buf.type)
        for w in writers[buf]:
            for r in readers[buf]:
                if w == r:
                    continue
                # One crossing per (producer side, consumer side); host <-> shared targets are free.
                if (w == "host" and shared(r)) or (r == "host" and shared(w)):
                    continue
                total += b if "host" in (w, r) else 2 * b
    # Weights of offloaded ops, once each.
    seen: set = set()
    for fn, t in accelerator_functions(module):
        if shared(t):
            continue
        for op in fn.walk():
            if isinstance(op, accel.WeightOp):
                key = (t, op.external.data if op.external is not None else id(op), op.result.type)
                if key not in seen:
                    seen.add(key)
                    total += nbytes(op.result.type)
    return total


# --------------------------------------------------------------------------------------
# Cycles: the two-engine timeline replayed statically
# --------------------------------------------------------------------------------------


def _root(v: SSAValue) -> SSAValue:
    while isinstance(v.owner, memref.SubviewOp):
        v = v.owner.source
    return v


@dataclass
class Timeline:
    desc: object
    host: float = 0.0
    dma_free: float = 0.0
    compute_free: float = 0.0
    ready: dict = field(default_factory=dict)  # spm buffer -> time its data is complete
    reads_end: dict = field(default_factory=dict)  # spm buffer -> end of pending reads
    tokens: dict = field(default_factory=dict)
    end: float = 0.0
    compute_total: float = 0.0

    def run_block(self, block) -> None:
        for op in block.ops:
            if isinstance(op, scf.ForOp):
                for _ in range(trip_count(op)):
                    self.run_block(op.body.block)
            elif isinstance(op, accel.DmaStartOp):
                src, dst = _root(op.source), _root(op.dest)
                start = max(self.host, self.dma_free, self.ready.get(src, 0.0), self.reads_end.get(dst, 0.0))
                done = start + dma_cycles(nbytes(op.source.type), self.desc)
                self.dma_free = done
                self.ready[dst] = done
                self.reads_end[src] = max(self.reads_end.get(src, 0.0), done)
                self.tokens[op.token] = done
                self.end = max(self.end, done)
            elif isinstance(op, accel.DmaWaitOp):
                for t in op.tokens:
                    self.host = max(self.host, self.tokens.get(t, 0.0))
            elif isinstance(op, accel.ComputeOp):
                ins = [_root(v) for v in op.inputs]
                out = _root(op.output)
                start = max([self.host, self.compute_free, self.reads_end.get(out, 0.0)] +
                            [self.ready.get(v, 0.0) for v in ins])
                cost = compute_cycles(op, self.desc)
                done = start + cost
                self.compute_total += cost
                self.compute_free = done
                self.ready[out] = done
                for v in ins:
                    self.reads_end[v] = max(self.reads_end.get(v, 0.0), done)
                self.end = max(self.end, done)

    def sync(self) -> None:
        self.host = max(self.host, self.end)


def cycles(module: ModuleOp, descs: dict) -> tuple[float, float]:
    """(estimate, total compute cycles) over all regions in call order."""
    main = SymbolTable.lookup_symbol(module, "main")
    if not isinstance(main, func.FuncOp):
        return 0.0, 0.0
    fns = dict((fn.sym_name.data, (fn, t)) for fn, t in accelerator_functions(module))
    timelines: dict[str, Timeline] = {}
    for op in main.body.block.ops:
        if isinstance(op, func.CallOp) and op.callee.root_reference.data in fns:
            fn, t = fns[op.callee.root_reference.data]
            desc = descs.get(t)
            if desc is None:
                continue
            tl = timelines.setdefault(t, Timeline(desc))
            tl.run_block(fn.body.block)
            tl.sync()
    estimate = sum(tl.end for tl in timelines.values())
    compute = sum(tl.compute_total for tl in timelines.values())
    return estimate, compute


def build_report(module: ModuleOp, descs, partition: dict | None, timing: dict[str, float]) -> dict:
    by_name = {d.name: d for d in descs}
    report: dict = dict(partition or {})
    dma = planned_dma(module)
    lb = lower_bound_bytes(module, by_name)
    dma["lower_bound_bytes"] = lb
    report["dma"] = dma
    estimate, compute = cycles(module, by_name)
    bpc = min((d.dma.bytes_per_cycle for d in descs), default=1.0)
    report["cycles"] = {"estimate": int(round(estimate)), "lower_bound": int(round(max(compute, lb / bpc)))}
    arena = module.attributes.get("accel.arena_bytes")
    peak = 0
    for fn, _ in accelerator_functions(module):
        for op in fn.walk():
            if isinstance(op, accel.AllocOp) and op.offset is not None:
                peak = max(peak, op.offset.value.data + nbytes(op.result.type))
    report["memory"] = {
        "host_arena_bytes": arena.value.data if isinstance(arena, IntegerAttr) else 0,
        "scratchpad_peak_bytes": peak,
    }
    report["timing"] = {k: round(v, 6) for k, v in timing.items()}
    return report
