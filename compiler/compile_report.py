"""The compiler's figures for report.json: planned DMA traffic, its compulsory lower bound,
memory, and cycles, computed statically from the final IR.

- `dma.bytes_to_device`, `dma.bytes_to_host`, `dma.transfers`: every `accel.dma_start` of
  every accelerator function, times the trip counts of its enclosing loops (a guarded one:
  the iterations where its guard holds, `issued_count`). These are exactly what the
  simulator counts when the model runs.
- `dma.lower_bound_bytes`: the compulsory traffic of the chosen partition: every value
  crossing the host/accelerator boundary once (to a target from the host or from another
  target; back to the host when the host or the model's outputs need it) and every weight
  of an offloaded op once. Targets that share memory with the host need none.
- `cycles.estimate`: the simulator's two-engine timeline (DMA engine, compute engine,
  host issuing in program order and waiting only at `dma_wait`) replayed on the IR.
- `dma.fused_lower_bound_bytes`: `lower_bound_bytes` plus, per region, the spill floor of
  its schedule units (`spill_floor_bytes`: the fused segments of fuse-layers and the ops
  left alone), recorded by fuse-layers as `accel.fused_spill_floor`; a region without
  that record (a pipeline without fuse-layers, a target sharing host memory) adds
  nothing, which leaves the partition bound: weaker, still true.
- `cycles.lower_bound`: max(total compute cycles, compulsory DMA cycles).
- `cycles.region_lower_bound`: a tighter bound, from what no schedule can overlap
  (`region_cycle_bound`): per target, the region calls run one after another (each ends
  with a sync before `@main` goes on), so the target's time is at least the sum over its
  calls of max(the call's compute + what cannot overlap it, the call's forced transfers;
  a transfer takes `setup + bytes / rate` on the one DMA engine, each value at least one
  transfer, whole as in `lower_bound_bytes`), and all targets' times together are at
  least all compulsory transfers at that rate, setups included. A call's
  forced transfers are the loads of inputs that the host (or another target) writes after
  the target's previous call and the write-backs of outputs the host reads before its next
  call: no other call can issue them. What cannot overlap a call's compute: the first
  call of a target waits for at least one transfer (`setup_cycles`: nothing is on the
  device yet), and a call whose outputs all go to the host ends with at least one
  write-back after its last compute. Never below `cycles.lower_bound`.
- `cycles.exposed_dma`: simulated cycles the compute engine waits for transfers
  (`estimate` minus the total compute cycles): the DMA time not overlapped.
"""

from __future__ import annotations

import itertools
import json
import math
from collections import defaultdict
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
from xdsl.dialects import arith, func, memref, scf
from xdsl.dialects.builtin import DYNAMIC_INDEX, ArrayAttr, IntegerAttr, MemRefType, ModuleOp, StridedLayoutAttr, StringAttr
from xdsl.ir import BlockArgument, Operation, SSAValue
from xdsl.traits import SymbolTable

from accel.compiler.diagnostics import CompileError
from accel.compiler.index_arith import INDEX_ARITH, constant_index, offset_from
from accel.compiler.ir_build import defined_outside, dense_values
from accel.compiler.targets.c_api import matmul_dims
from accel.compiler.tensors import buffer_bytes, numpy_dtype, row_major_strides
from accel.dialects import accel
from accel.dialects.conventions import ARENA_ATTR, FUSED_FLOOR_ATTR, TUNED_ATTR, accelerator_functions, is_output_arg


def trip_count(loop: scf.ForOp) -> int:
    lb, ub, st = constant_index(loop.lb), constant_index(loop.ub), constant_index(loop.step)
    if lb is None or ub is None or st is None or st <= 0:
        raise ValueError("loops with dynamic bounds have no static trip count")
    return max(0, -(-(ub - lb) // st))


def multiplicity(op: Operation, memo: dict | None = None) -> int:
    """How many times `op` runs per call of its function: the trip counts of the loops
    around it. `memo`: each op holding others, with its own, when the caller asks for
    many ops (nested ops share their loops')."""
    parent = op.parent_op()
    if parent is None or isinstance(parent, func.FuncOp):
        return 1
    n = None if memo is None else memo.get(parent)
    if n is None:
        n = (trip_count(parent) if isinstance(parent, scf.ForOp) else 1) * multiplicity(parent, memo)
        if memo is not None:
            memo[parent] = n
    return n


def issued_count(op: accel.DmaStartOp, memo: dict | None = None) -> int:
    """How many times transfer `op` is issued per call of its function: its
    `multiplicity`, and for a guarded one the iterations of the loops around it where
    the guard holds, counted by running their index arithmetic (all of them where a
    value is not known statically)."""
    if not op.guarded:
        return multiplicity(op, memo)
    parent = op.parent_op()
    if isinstance(parent, scf.ForOp):  # `iv + c < b` or `a < iv + c` (constants): counted, not run
        bounds = [constant_index(v) for v in (parent.lb, parent.ub, parent.step)]
        form = _guard_limit(op.guard_pair, {parent.body.block.args[0]}, parent.body.block.args[0])
        known = form is not None and all(constant_index(v) is not None for v in form[:2] if v is not None)
        if None not in bounds and bounds[2] > 0 and known:
            lb, ub, st = bounds
            below = max(0, -(-(min(ub, form.change(constant_index)) - lb) // st))  # iterations below the change
            taken = below if form.below else max(0, -(-(ub - lb) // st)) - below
            return taken * multiplicity(parent, memo)
    loops = []
    while isinstance(parent, scf.ForOp):
        loops.append(parent)
        parent = parent.parent_op()
    loops.reverse()
    env: dict = {}

    def value(v: SSAValue) -> int | None:
        if v in env:
            return env[v]
        c = constant_index(v)
        if c is None and type(v.owner) in INDEX_ARITH:
            a, b = value(v.owner.lhs), value(v.owner.rhs)
            c = None if a is None or b is None else INDEX_ARITH[type(v.owner)](a, b)
        return c

    def count(depth: int) -> int | None:
        if depth == len(loops):
            a, b = (value(v) for v in op.guard_pair)
            return None if a is None or b is None else int(a < b)
        loop = loops[depth]
        lb, ub, st = value(loop.lb), value(loop.ub), value(loop.step)
        if lb is None or ub is None or st is None or st <= 0:
            return None
        n = 0
        for i in range(lb, ub, st):
            env[loop.body.block.args[0]] = i
            k = count(depth + 1)
            if k is None:
                return None
            n += k
        return n

    n = count(0)
    del value, count  # (recursive closures are reference cycles: the compile runs without the collector)
    return multiplicity(op, memo) if n is None else n


class RegionOps(NamedTuple):
    """The ops of one accelerator function that the report counts, each with how many
    times it runs (`multiplicity`), gathered in one walk: the report's figures would
    otherwise walk every region once each."""

    transfers: list[tuple[accel.DmaStartOp, int]]
    computes: list[tuple[accel.ComputeOp, int]]
    weights: list[accel.WeightOp]
    allocs: list[accel.AllocOp]


def region_ops(fn: func.FuncOp) -> RegionOps:
    ops = RegionOps([], [], [], [])
    body = fn.body.block
    loops: dict = {}
    for op in fn.walk():
        kind = _KINDS.get(type(op))
        if kind is None:
            kind = _KINDS[type(op)] = _kind_of(op)
        if kind == "dma":
            ops.transfers.append((op, issued_count(op, loops) if op.guarded else
                                  1 if op.parent is body else multiplicity(op, loops)))
        elif kind == "compute":
            ops.computes.append((op, 1 if op.parent is body else multiplicity(op, loops)))
        elif kind == "weight":
            ops.weights.append(op)
        elif kind == "alloc":
            ops.allocs.append(op)
    return ops


def inventory(module: ModuleOp) -> dict[str, tuple[func.FuncOp, str, RegionOps]]:
    """Each accelerator function by name: (function, target, its counted ops)."""
    return {fn.sym_name.data: (fn, t, region_ops(fn)) for fn, t in accelerator_functions(module)}


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
        macs = math.prod(matmul_dims(op)) / (c.macs_per_cycle_int8 if op.is_quantized else c.macs_per_cycle_f32)
        # An accumulating K tile also reads its partial sums.
        reads = math.prod(op.output.type.get_shape()) / c.elementwise_per_cycle if op.reads_output else 0.0
        return macs + reads
    if isinstance(op, accel.PoolOp):
        kh, kw = op.prop("pool_size")
        return math.prod(op.output.type.get_shape()) * kh * kw / c.elementwise_per_cycle
    passes = accel.EltwiseOp.PASSES.get(op.prop("kind"), 1) if isinstance(op, accel.EltwiseOp) else 1
    return passes * math.prod(op.output.type.get_shape()) / c.elementwise_per_cycle


def cost_of(op: accel.ComputeOp, desc, costs: dict[Operation, float]) -> float:
    """`compute_cycles(op, desc)`, once per op in `costs` (the timeline and the region
    bound both ask it of every compute op; an op runs on one target, so on one `desc`)."""
    cost = costs.get(op)
    if cost is None:
        cost = costs[op] = compute_cycles(op, desc)
    return cost


def dma_cycles(nbytes_: int, desc, on_device: bool = False) -> float:
    """A transfer's time on the DMA engine (a copy on the device at its own rate)."""
    rate = desc.dma.device_bytes_per_cycle if on_device else desc.dma.bytes_per_cycle
    return desc.dma.setup_cycles + nbytes_ / rate


# --------------------------------------------------------------------------------------
# DMA counts and the lower bound
# --------------------------------------------------------------------------------------


def planned_dma(module: ModuleOp, regions: dict | None = None) -> dict[str, int]:
    """`regions`: `inventory(module)` when the caller has it."""
    to_dev = to_host = on_dev = transfers = 0
    for _, _, ops in (regions if regions is not None else inventory(module)).values():
        for op, k in ops.transfers:
            b = buffer_bytes(op.source.type) * k
            transfers += k
            if op.to_device:
                to_dev += b
            elif op.on_device:
                on_dev += b
            else:
                to_host += b
    return {"bytes_to_device": to_dev, "bytes_to_host": to_host, "transfers": transfers, "bytes_on_device": on_dev}


def spill_floor_bytes(readers: dict[SSAValue, int], capacity: int, outputs: set[SSAValue]) -> int:
    """Bytes beyond the partition bound that any schedule running its units (ops, or fused
    segments) one at a time and recomputing nothing across them must move, given how many
    units read each value: a value of S bytes larger than the scratchpad C leaves at most
    C bytes on the device when its producer ends, so at least S - C go out, and each reader
    finds at most C of it there, so at least S - C come in per reader (the first read of a
    region input and the write of a region output are the partition bound's own)."""
    extra = 0
    for v, n_read in readers.items():
        s = buffer_bytes(v.type)
        if s <= capacity:
            continue
        if v in outputs:  # a region output also read inside the region
            extra += (s - capacity) * n_read
        elif isinstance(v, BlockArgument):  # a region input
            extra += (s - capacity) * (n_read - 1)
        elif isinstance(v.owner, memref.AllocOp):  # a region-local intermediate
            extra += (s - capacity) * (1 + n_read)
    return extra


def fused_floor_bytes(module: ModuleOp) -> int:
    return sum(fn.attributes[FUSED_FLOOR_ATTR].value.data for fn, _ in accelerator_functions(module)
               if FUSED_FLOOR_ATTR in fn.attributes)


def lower_bound_bytes(module: ModuleOp, descs: dict, compulsory: list[tuple[int, str]] | None = None) -> int:
    """Compulsory traffic of the partition (see the module docstring); `compulsory`:
    `compulsory_transfers(module, descs)` when the caller has it."""
    return sum(b for b, _ in (compulsory if compulsory is not None else compulsory_transfers(module, descs)))


def compulsory_transfers(module: ModuleOp, descs: dict, regions: dict | None = None) -> list[tuple[int, str]]:
    """The transfers no schedule of the partition avoids, as (bytes, target whose DMA
    engine runs it): each crossing of a value between the host and a target (a value
    between two targets crosses twice, once on each), each weight of an offloaded op once
    per target. `regions`: `inventory(module)` when the caller has it."""
    main = SymbolTable.lookup_symbol(module, "main")
    if not isinstance(main, func.FuncOp):
        return []
    if regions is None:
        regions = inventory(module)
    targets = {name: (fn, t) for name, (fn, t, _) in regions.items()}

    def shared(t: str) -> bool:
        d = descs.get(t)
        return d is not None and d.memory.shared_with_host

    # Who writes and who reads each host buffer of @main, as "host" or a target name.
    writers: dict[SSAValue, set[str]] = defaultdict(set)
    readers: dict[SSAValue, set[str]] = defaultdict(set)
    for i, arg in enumerate(main.body.block.args):
        if is_output_arg(main, i):
            readers[arg].add("host")  # the model's caller reads it
        else:
            writers[arg].add("host")
    for op in main.body.block.ops:
        if isinstance(op, func.CallOp) and op.callee.root_reference.data in targets:
            fn, t = targets[op.callee.root_reference.data]
            for i, a in enumerate(op.arguments):
                (writers if is_output_arg(fn, i) else readers)[a].add(t)
        elif isinstance(op, accel.KernelOp):
            for a in op.ins:
                readers[a].add("host")
            for a in op.outs:
                writers[a].add("host")
        elif isinstance(op, memref.CopyOp):
            readers[op.source].add("host")
            writers[op.destination].add("host")
    found: list[tuple[int, str]] = []
    for buf in set(writers) | set(readers):
        b = buffer_bytes(buf.type)
        for w in writers[buf]:
            for r in readers[buf]:
                if w == r:
                    continue
                # One crossing per (producer side, consumer side); host <-> shared targets are free.
                if (w == "host" and shared(r)) or (r == "host" and shared(w)):
                    continue
                found += [(b, side) for side in (w, r) if side != "host"]
    # Weights of offloaded ops, once each.
    seen: set = set()
    for _, t, ops in regions.values():
        if shared(t):
            continue
        for op in ops.weights:
            key = (t, op.external.data if op.external is not None else id(op), op.result.type)
            if key not in seen:
                seen.add(key)
                found.append((buffer_bytes(op.result.type), t))
    return found


# --------------------------------------------------------------------------------------
# Cycles: the two-engine timeline replayed statically
# --------------------------------------------------------------------------------------


class _View(NamedTuple):
    """How a scratchpad view's address is computed: `base` (the buffer's planned offset;
    None: a buffer passed from @main, `root`, whose address the call gives) plus `offset`
    bytes plus each dynamic offset value times its byte stride; `rows`: the (offset, bytes)
    of each row of a strided view (None: contiguous). `value`: the view (for diagnostics)."""

    base: int | None
    root: SSAValue
    offset: int
    terms: tuple[tuple[SSAValue, int], ...]
    nbytes: int
    rows: list[tuple[int, int]] | None
    value: SSAValue


REPEAT_WINDOW = 16
"""A loop whose iterations have not repeated after this many is replayed to its end."""


@dataclass(slots=True)
class _Boundary:
    """The timeline's state after a loop iteration, relative to `m` (the earliest engine
    or host time: a time below it can no longer delay anything), with what the iteration
    touched and computed."""

    m: float
    scalars: tuple
    carried: tuple
    outer: tuple
    ready: np.ndarray
    reads_end: np.ndarray
    trace: list
    compute: float
    _touched: np.ndarray | None = None

    def touched(self, n_blocks: int) -> np.ndarray:
        """Which blocks the iteration touched (a mask over the blocks, taken once)."""
        if self._touched is None:
            trace = self.trace
            if len(trace) <= SHORT_TRACE:  # a slice each (an iteration of a loop body)
                touched = np.zeros(n_blocks, bool)
                for b0, b1 in trace:
                    touched[b0:b1] = True
                self._touched = touched
                return touched
            spans = np.array([s for s in trace if s[1] > s[0]], np.int64).reshape(-1, 2)
            # +1 where a span starts, -1 where it ends: a block is covered where the sum
            # of what came before it is positive (spans may overlap).
            delta = np.bincount(spans[:, 0], minlength=n_blocks + 1) - np.bincount(spans[:, 1], minlength=n_blocks + 1)
            self._touched = np.cumsum(delta[:n_blocks]) > 0
        return self._touched


SHORT_TRACE = 48
"""Up to this many spans `_Boundary.touched` marks them one slice at a time (an iteration
of a loop body: a few per step); more (the iterations of a loop nested in it) are
counted with numpy at once."""


class _Moves:
    """The blocks a loop's moving views touch (`Timeline._moves`): per iteration, per
    moving step (its position among the body's transfers and compute ops, whose end
    times an iteration's log holds in order), the spans of each of its moving views and
    whether it writes them; `mask`: all of them."""

    def __init__(self, per_iteration: list, mask: np.ndarray) -> None:
        self.per_iteration = per_iteration
        self.mask = mask

    def apart(self, after: _Boundary, k: int) -> bool:
        """Whether iteration `k` (its state `after`) touched no block of another
        iteration's moving views: its other views keep off them."""
        own = np.zeros_like(self.mask)
        for _, spans in self.per_iteration[k]:
            for _, blocks in spans:
                for b0, b1 in blocks:
                    own[b0:b1] = True
        return not np.any(after.touched(len(self.mask)) & self.mask & ~own)

    def skip(self, tl: Timeline, first: int, count: int, logs: list[list[float]], delta: float,
             enclosing: list | None) -> None:
        """Write the times of `count` skipped iterations from `first` on their moving views'
        blocks: those of the iteration a whole number of periods (`len(logs)` iterations,
        `delta` cycles) before, whose end times `logs` holds, moved on by those periods."""
        p = len(logs)
        for q in range(count):
            log, later = logs[q % p], (q // p + 1) * delta
            for at, spans in self.per_iteration[first + q]:
                t = log[at] + later
                for writes, blocks in spans:
                    if writes:
                        tl._set(tl.ready, blocks, t)
                    else:
                        tl._raise(tl.reads_end, blocks, t)
                    if enclosing is not None:
                        enclosing += blocks


class _Overlay(dict):
    """Values of one iteration over the timeline's (`Timeline._moves`)."""

    def __init__(self, under: dict) -> None:
        super().__init__()
        self.under = under

    def __missing__(self, key):
        return self.under[key]

    def get(self, key, default=None):
        return self[key] if key in self or key in self.under else default


# What the replay does with an op (`Timeline.block_ops`): one small int per entry, the
# entry a tuple of what the step needs, taken from the IR once (loop bodies run many times).
_CONST, _ARITH_OP, _FOR, _DMA, _WAIT, _COMPUTE, _RETURN, _OPAQUE = range(8)

_MAX = np.maximum.reduce


def _row_runs(shape: list[int], strides: list[int], es: int, run: int) -> list[tuple[int, int]]:
    """The byte runs (offset, bytes) of a strided view's rows, each `run` bytes at its
    offset, in row-major order, with each run that starts where the one before it ends
    joined to it: the same bytes, so the same blocks (a slab of whole rows of a wider
    buffer is one run per channel, not per row). On arrays: such a slab has a row per
    channel and row."""
    offsets = np.zeros(1, np.int64)
    for n, st in zip(shape[:-1], strides[:-1]):
        offsets = (offsets[:, None] + np.arange(n, dtype=np.int64) * (st * es)).reshape(-1)
    # A row joins the run before it where it starts at that run's end.
    starts = np.flatnonzero(np.diff(offsets) != run) + 1
    first = np.concatenate(([0], starts))
    counts = np.diff(np.concatenate((first, [offsets.size])))
    return list(zip(offsets[first].tolist(), (counts * run).tolist()))


def _guard_limit(guard: tuple[SSAValue, SSAValue], varying: set, iv: SSAValue) -> GuardLimit | None:
    """Where a guard that varies with a loop's induction variable changes: `iv + c < b`
    holds below `b - c`, `a < iv + c` from `a - c + 1` on (`c` None: `iv` alone; `a`,
    `b` and `c` the same in every iteration); None for any other guard that varies."""
    x, y = guard
    form = offset_from(x, iv)
    if form is not None:
        if y in varying or form[0] in varying:
            return None
        return GuardLimit(form[0], y, True)
    form = offset_from(y, iv)
    if form is None or x in varying or form[0] in varying:
        return None
    return GuardLimit(form[0], x, False)


class GuardLimit(NamedTuple):
    """A guard of a loop's induction variable `iv`: `iv + offset < bound` (`below`) or
    `bound < iv + offset` (offset None: 0)."""

    offset: SSAValue | None
    bound: SSAValue
    below: bool

    def change(self, value) -> int:
        """The first `iv` where the guard's value differs from its value below it, by
        `value` (an index value's int)."""
        c = 0 if self.offset is None else value(self.offset)
        return value(self.bound) - c if self.below else value(self.bound) - c + 1


def _guarded_periods(guards: list[GuardLimit], env: dict, i: int, ub: int, st: int, p: int) -> int:
    """How many periods of `p` iterations a loop may jump over from iteration `i`, the `p`
    before it having repeated: all that are left, but that a guard that changes between
    iterations (`guards`) must take the same value in the iterations jumped over as in
    those `p` (so none across the iteration where it changes)."""
    periods = (-(-(ub - i) // st)) // p
    for guard in guards:
        limit = guard.change(env.__getitem__)  # the guard's value differs from `limit` on
        if i - st < limit:  # all p compared are below it: only up to it
            periods = min(periods, (-(-(limit - i) // st)) // p)
        elif i - p * st < limit:  # it changed within them
            periods = 0
    return periods


class Timeline:
    """The simulator's timing model (compiler/runtime/c/sim/sim_core.c) replayed on the
    IR: the host issues commands in program order and advances only at waits; a transfer
    starts when the DMA engine is free, its scratchpad source is ready and pending reads
    of its destination are over; a compute op likewise on the compute engine. Readiness
    is tracked per scratchpad block (the target's alignment, at most 64 bytes), from the
    buffers' planned offsets and the views' offsets evaluated iteration by iteration."""

    def __init__(self, desc, costs: dict[Operation, float] | None = None):
        self.desc = desc
        self.costs = {} if costs is None else costs  # compute ops' cycles (see `cycles`)
        self.block = desc.memory.ready_block
        self.capacity = desc.memory.scratchpad_bytes
        n_blocks = self.capacity // self.block + 1
        self.ready = np.zeros(n_blocks)
        self.reads_end = np.zeros(n_blocks)
        self.host = self.dma_free = self.compute_free = self.end = 0.0
        self.compute_total = 0.0
        self.blocks_ops: dict = {}
        self.loops: dict[scf.ForOp, list[SSAValue] | None] = {}
        self.moving: dict[scf.ForOp, list[tuple]] = {}
        """Per loop that `repeats`, its steps whose scratchpad views move with the induction
        variable: (step, [(recipe, a transfer's rows?, writes it?), ...]) (see `_moves`)."""
        self.guards: dict[scf.ForOp, list[tuple]] = {}
        """Per loop that `repeats`, the guards that change with its iterations (see `_steady`)."""
        self.trace: list | None = None  # the block spans an iteration touches, while one is watched
        self.moving_log: list | None = None  # the moving steps' end times, while an iteration is watched
        self.views: dict[SSAValue, _View | None] = {}
        self._layouts: dict[int, tuple] = {}
        self.exact_costs = True
        """Whether every cost taken so far is a multiple of 1/1024 cycle: then so is every
        time (sums and maxima of them, below 2**40), and a jump need not check the blocks'."""

    # -- addresses ---------------------------------------------------------------------

    def view(self, v: SSAValue) -> _View | None:
        """The address recipe of a view (None: host memory, or a buffer without an offset),
        built on its source's (a chain of views is walked once)."""
        views = self.views
        if v in views:
            return views[v]
        recipe = None
        t = v.type
        if accel.memory_space(t) == "spm":
            owner = v.owner
            if type(owner) is memref.SubviewOp:
                parent = self.view(owner.source)
                if parent is not None:
                    es, strides = self._layout(owner.source.type)[:2]
                    offset, terms = parent.offset, list(parent.terms)
                    # The dynamic offsets come first after the source (xDSL's `offsets`
                    # decodes the segment sizes per access): as many as the markers.
                    dyn = itertools.islice(owner.operands, 1, None)
                    for o, st in zip(dense_values(owner.static_offsets), strides):
                        if o == DYNAMIC_INDEX:
                            terms.append((next(dyn), st * es))
                        else:
                            offset += o * st * es
                    recipe = _View(parent.base, parent.root, offset, tuple(terms), buffer_bytes(t),
                                   self._layout(t)[2], v)
            elif type(owner) is memref.ReinterpretCastOp:  # a layout op's view of a dense buffer
                parent = self.view(owner.source)
                if parent is not None:
                    es = self._layout(t)[0]
                    (first,) = dense_values(owner.static_offsets)
                    recipe = _View(parent.base, parent.root, parent.offset + first * es, parent.terms,
                                   buffer_bytes(t), self._layout(t)[2], v)
            else:
                base = owner.offset.value.data if isinstance(owner, accel.AllocOp) and owner.offset is not None else None
                if base is not None or isinstance(v, BlockArgument):
                    recipe = _View(base, v, 0, (), buffer_bytes(t), self._layout(t)[2], v)
        views[v] = recipe
        return recipe

    def _layout(self, t: MemRefType) -> tuple:
        """(element bytes, strides, rows) of a memref type, once per type object; rows: the
        (offset, bytes) of each row of a strided layout, as the simulator walks a strided
        view (None: row-major, contiguous)."""
        facts = self._layouts.get(id(t))
        if facts is None:
            es = numpy_dtype(t.element_type).itemsize
            strides = _strides(t)
            rows = None
            if isinstance(t.layout, StridedLayoutAttr):
                shape = list(t.get_shape())
                if shape and all(n for n in shape) and strides != row_major_strides(shape):
                    run = (shape[-1] - 1) * strides[-1] * es + es
                    rows = _row_runs(shape, strides, es, run)
            facts = self._layouts[id(t)] = (es, strides, rows, t)  # the type held: its id stays its own
        return facts

    def spm_range(self, r: _View, env: dict) -> tuple[int, int] | None:
        """Byte range [lo, hi) of a scratchpad view's recipe, or None when its buffer's
        address is not known (a buffer passed from @main without one)."""
        base = r.base
        if base is None:  # a buffer passed from @main: its address is the call's
            base = env.get(("addr", r.root))
            if base is None:
                return None
        lo = base + r.offset
        for value, stride in r.terms:
            lo += env[value] * stride
        hi = lo + r.nbytes
        if lo < 0 or hi > self.capacity:
            raise CompileError(f"a scratchpad view of {r.nbytes} bytes at offset {lo} runs past the end of "
                               f"the scratchpad of '{self.desc.name}' ({self.capacity} bytes)", r.value.owner)
        return lo, hi

    def blocks(self, r: _View, env: dict) -> list[tuple[int, int]] | None:
        """The blocks [first, end) a view touches, as one span (None: host memory)."""
        span = self.spm_range(r, env)
        if span is None:
            return None
        return [(span[0] // self.block, (span[1] - 1) // self.block + 1)]

    def dma_blocks(self, r: _View, env: dict) -> list[tuple[int, int]] | None:
        """The block spans a transfer touches on a scratchpad side (None: host memory), row
        by row as the simulator walks them: a strided view of a scratchpad buffer (a slab
        of a resident value) covers its rows, not the span from its first to its last byte."""
        span = self.spm_range(r, env)
        if span is None:
            return None
        b = self.block
        if r.rows is None:
            return [(span[0] // b, (span[1] - 1) // b + 1)]
        lo = span[0]
        return [((lo + o) // b, (lo + o + run - 1) // b + 1) for o, run in r.rows]

    # -- execution ---------------------------------------------------------------------
    # Block times are float64 arrays updated a span at a time (a transfer touches up to
    # scratchpad/alignment blocks, and the timeline replays every loop iteration).

    @staticmethod
    def _latest(times: np.ndarray, spans: list[tuple[int, int]], start: float) -> float:
        for b0, b1 in spans:
            if b1 > b0:
                t = times[b0] if b1 - b0 == 1 else _MAX(times[b0:b1])
                if t > start:
                    start = float(t)
        return start

    @staticmethod
    def _set(times: np.ndarray, spans: list[tuple[int, int]], t: float) -> None:
        for b0, b1 in spans:
            times[b0:b1] = t

    @staticmethod
    def _raise(times: np.ndarray, spans: list[tuple[int, int]], t: float) -> None:
        for b0, b1 in spans:
            if b1 > b0:
                s = times[b0:b1]
                np.maximum(s, t, out=s)

    def block_ops(self, block) -> list[tuple]:
        """The steps of `block` (see `_CONST`...), taken once (loop bodies run many times);
        ops the timing does not depend on are left out."""
        ops = self.blocks_ops.get(block)
        if ops is not None:
            return ops
        ops = []
        for op in block.ops:
            kind = _KINDS.get(type(op))
            if kind is None:
                kind = _KINDS[type(op)] = _kind_of(op)
            if kind == "dma":
                cost = dma_cycles(buffer_bytes(op.source.type), self.desc, op.on_device)
                guard = op.guard_pair
                ops.append((_DMA, self.view(op.source), self.view(op.dest), op.token, cost, guard))
                self.exact_costs = self.exact_costs and _exact(cost)
            elif kind == "compute":
                read = [*op.inputs, op.output] if op.reads_output else op.inputs
                views = [self.view(v) for v in dict.fromkeys(read)]
                cost = cost_of(op, self.desc, self.costs)
                ops.append((_COMPUTE, tuple(r for r in views if r is not None), self.view(op.output), cost))
                self.exact_costs = self.exact_costs and _exact(cost)
            elif kind == "arith":
                ops.append((_ARITH_OP, op.result, INDEX_ARITH[type(op)], op.lhs, op.rhs))
            elif kind == "wait":
                ops.append((_WAIT, tuple(op.tokens)))
            elif kind == "const":
                if isinstance(op.value, IntegerAttr):
                    ops.append((_CONST, op.result, op.value.value.data))
            elif kind == "for":
                ops.append((_FOR, op))
            elif kind == "return":
                ops.append((_RETURN,))
            elif op.regions:
                ops.append((_OPAQUE, op))  # not replayed; a loop holding it does not jump
        self.blocks_ops[block] = ops
        return ops

    def run_block(self, block, env: dict) -> None:
        for step in self.block_ops(block):
            kind = step[0]
            if kind == _DMA:
                _, source, dest, token, cost, guard = step
                if guard is not None and not env[guard[0]] < env[guard[1]]:
                    env[token] = 0.0  # not issued: complete
                    if self.moving_log is not None:
                        self.moving_log.append(0.0)  # (its place in the iteration's log)
                    continue
                src = self.dma_blocks(source, env) if source is not None else None
                dst = self.dma_blocks(dest, env) if dest is not None else None
                if self.trace is not None:
                    self.trace += (src or []) + (dst or [])
                start = max(self.host, self.dma_free)
                if src is not None:
                    start = self._latest(self.ready, src, start)
                if dst is not None:
                    start = self._latest(self.reads_end, dst, start)
                done = start + cost
                self.dma_free = done
                if dst is not None:
                    self._set(self.ready, dst, done)
                if src is not None:
                    self._raise(self.reads_end, src, done)
                env[token] = done
                if self.moving_log is not None:
                    self.moving_log.append(done)
                if done > self.end:
                    self.end = done
            elif kind == _ARITH_OP:
                env[step[1]] = step[2](env[step[3]], env[step[4]])
            elif kind == _WAIT:
                for t in step[1]:
                    self.host = max(self.host, env.get(t, 0.0))
            elif kind == _COMPUTE:
                _, read, output, cost = step
                ins = [spans for spans in (self.blocks(r, env) for r in read) if spans is not None]
                out_blocks = self.blocks(output, env) if output is not None else None
                if self.trace is not None:
                    for spans in ins:
                        self.trace += spans
                    self.trace += out_blocks or ()
                start = max(self.host, self.compute_free)
                for spans in ins:
                    start = self._latest(self.ready, spans, start)
                if out_blocks is not None:
                    start = self._latest(self.reads_end, out_blocks, start)
                done = start + cost
                self.compute_total += cost
                self.compute_free = done
                for spans in ins:
                    self._raise(self.reads_end, spans, done)
                if out_blocks is not None:
                    self._set(self.ready, out_blocks, done)
                if self.moving_log is not None:
                    self.moving_log.append(done)
                if done > self.end:
                    self.end = done
            elif kind == _CONST:
                env[step[1]] = step[2]
            elif kind == _FOR:
                self.run_loop(step[1], env)
            elif kind == _RETURN:
                self.host = max(self.host, self.end)  # the wrapper ends with a sync

    # -- loops ---------------------------------------------------------------------------

    def run_loop(self, op: scf.ForOp, env: dict) -> None:
        """Replay a loop iteration by iteration. A loop that `repeats` (see there) jumps over
        whole periods once the state after an iteration equals, relative to the engines'
        time, the state one or two iterations before: from equal states the same ops touch
        the same blocks at the same relative times, so each period adds the same time.
        Views that move with the induction variable (a tile written into its place in a
        buffer that stays on the device) touch other blocks each iteration: where each
        iteration's are its own and untouched before it (`_moves`), they take no part in
        the comparison, and a jump writes the times of the iterations it skips on them."""
        lb, ub, st = env[op.lb], env[op.ub], env[op.step]
        carried = [env.get(v) for v in op.iter_args]
        body = op.body.block
        outer = self.repeats(op)
        moves = None
        quiet = lb  # the first iteration whose state is compared
        if outer is not None and self.moving[op]:
            moves = self._moves(op, env, lb, ub, st)
            if moves is None:
                quiet = self._quiet_from(op, env)
                if quiet is None:
                    outer = None
        history: list[_Boundary] = []
        logs: list[list[float]] = []  # with moves: each iteration's transfer and compute end times
        # The blocks an enclosing loop's iteration touched so far (None: not traced): this
        # loop's iterations add theirs.
        enclosing = self.trace
        i = lb
        while i < ub:
            env[body.args[0]] = i
            for arg, val in zip(body.args[1:], carried):
                env[arg] = val
            watched = outer is not None and i >= quiet
            if watched:
                self.trace, compute_before = [], self.compute_total
                if moves is not None:
                    self.moving_log = []
            self.run_block(body, env)
            y = body.last_op
            carried = [env.get(v) for v in y.operands] if isinstance(y, scf.YieldOp) else []
            i += st
            if not watched:
                continue
            history.append(self._boundary(carried, [env.get(t) for t in outer], self.trace,
                                          self.compute_total - compute_before))
            if enclosing is not None:
                enclosing += self.trace
            self.trace = enclosing
            if moves is not None:
                logs.append(self.moving_log)
                self.moving_log = None
                if not moves.apart(history[-1], len(history) - 1):
                    outer = moves = None
                    continue
            jump = self._period(history, moves.mask if moves is not None else None)
            if jump is not None:
                p, delta = jump
                periods = _guarded_periods(self.guards[op], env, i, ub, st, p)
                if periods and self._shift(history[-1], carried, periods * delta,
                                           moves.mask if moves is not None else None):
                    carried = [v + periods * delta if isinstance(v, float) and v > history[-1].m else v
                               for v in carried]
                    self.compute_total += periods * sum(b.compute for b in history[-p:])
                    if moves is not None:
                        moves.skip(self, len(history), periods * p, logs[-p:], delta, enclosing)
                    i += periods * p * st
                outer = None  # the rest (less than a period) replays
            elif len(history) > REPEAT_WINDOW:
                outer = None
        self.trace = enclosing
        self.moving_log = None
        for res, val in zip(op.results, carried):
            env[res] = val

    def _quiet_from(self, op: scf.ForOp, env: dict) -> int | None:
        """Where every moving step of `op` (see `repeats`) is a transfer no longer issued
        (a guard `iv + c < b`, as partial-residency's copies to or from the resident part
        of a value): from that iteration on the loop has no moving views, and may jump
        as any other; None when some moving step is issued to the end."""
        iv = op.body.block.args[0]
        quiet = None
        for step, _ in self.moving[op]:
            limit = _guard_limit(step[5], set(), iv) if step[0] == _DMA and step[5] is not None else None
            if limit is None or not limit.below or any(v is not None and not defined_outside(v, op) for v in limit[:2]):
                return None  # (a bound the loop computes is not known before it runs)
            at = limit.change(env.__getitem__)
            quiet = at if quiet is None else max(quiet, at)
        return quiet

    def repeats(self, op: scf.ForOp) -> list[SSAValue] | None:
        """Whether `op` may jump over repeating iterations: no scratchpad address in it
        (in loops nested in it too) depends on its induction variable (only on loop-carried
        values, compared between iterations, and values from outside), but for views of
        steps directly in a loop that holds no loop (`moving`, see `_moves`), nested loops
        have bounds and initial values that do not either (each iteration runs them alike),
        and every cost in it is a multiple of 1/1024 cycle (sums of such are exact in
        floats: a jump adds the same times the replay would). Returns the tokens from
        outside the loop that it waits for (compared too), or None."""
        if op in self.loops:
            return self.loops[op]
        body = op.body.block
        outer: list[SSAValue] = []
        moving: list[tuple] = []
        guards: list[tuple] = []
        ok = self._steady(body, {body.args[0]}, outer, op, moving, guards)
        self.loops[op] = result = outer if ok else None
        self.moving[op] = moving
        self.guards[op] = guards
        return result

    def _steady(self, block, varying: set, outer: list, loop: scf.ForOp, moving: list | None = None,
                guards: list | None = None) -> bool:
        """`repeats`' check of `block` (the loop's body or a block nested in it), adding
        the values that vary with the loop's induction variable to `varying` and the
        tokens from outside `loop` its waits read to `outer`; with `moving` (the loop's
        own body), a transfer or compute op whose views vary is added to it as
        (step, [(view, a transfer's?, written?), ...]) instead of failing the check, and
        a transfer whose guard varies as `iv + c < b` or `a < iv + c` (`a`, `b`, `c` the
        same in every iteration) adds its `GuardLimit` to `guards`: a jump stops where it
        changes."""
        nested = False
        for step in self.block_ops(block):
            kind = step[0]
            if kind == _ARITH_OP:
                if step[3] in varying or step[4] in varying:
                    varying.add(step[1])
            elif kind == _OPAQUE:
                return False
            elif kind == _FOR:
                nested = True
                inner = step[1]
                if any(v in varying for v in inner.operands):  # bounds, initial values
                    return False
                if not self._steady(inner.body.block, varying, outer, loop):
                    return False
                y = inner.body.block.last_op
                if isinstance(y, scf.YieldOp) and any(v in varying for v in y.operands):
                    return False
            elif kind == _WAIT:
                outer += [t for t in step[1] if defined_outside(t, loop)]
            elif kind in (_DMA, _COMPUTE):
                if kind == _DMA:
                    roles, cost = ((step[1], True, False), (step[2], True, True)), step[4]
                else:
                    roles, cost = (*((r, False, False) for r in step[1]), (step[2], False, True)), step[3]
                if not _exact(cost):
                    return False
                varies = [role for role in roles
                          if role[0] is not None and any(t in varying for t, _ in role[0].terms)]
                if kind == _DMA and step[5] is not None:
                    # (`_moves` evaluates the guard of a transfer whose views move: an
                    # iteration that does not issue it touches nothing.)
                    if any(v in varying for v in step[5]):
                        limit = _guard_limit(step[5], varying, loop.body.block.args[0])
                        if limit is None or guards is None:
                            return False
                        guards.append(limit)
                if varies:
                    if moving is None:
                        return False
                    moving.append((step, varies))
        return not (nested and moving)

    def _moves(self, loop: scf.ForOp, env: dict, lb: int, ub: int, st: int) -> _Moves | None:
        """The blocks each iteration's moving views touch (see `repeats`), when a jump can
        account for them: every iteration's are its own (those of different ops of one
        iteration apart too: no op waits on another through them), and none was written
        (where read) or read (where written) at a time that could still delay anything
        (`_Moves.apart` checks, iteration by iteration, that the loop's other views keep
        off them). None otherwise, or when an address depends on a value defined in the
        loop other than its induction variable and the index arithmetic before it."""
        body = loop.body.block
        steps = self.block_ops(body)
        known = {body.args[0]} | {s[1] for s in steps if s[0] in (_CONST, _ARITH_OP)}
        needed = [v for s in steps if s[0] == _ARITH_OP for v in (s[3], s[4])]
        needed += [t for _, roles in self.moving[loop] for r, _, _ in roles for t, _ in r.terms]
        needed += [v for s, _ in self.moving[loop] if s[0] == _DMA and s[5] is not None for v in s[5]]
        if any(v not in known and not defined_outside(v, loop) for v in needed):
            return None
        timed = [s for s in steps if s[0] in (_DMA, _COMPUTE)]
        position = {id(s): k for k, s in enumerate(timed)}
        which = [(position[id(s)], roles, s[5] if s[0] == _DMA else None) for s, roles in self.moving[loop]]
        local = _Overlay(env)
        per_iteration: list[list[tuple[int, list[tuple[bool, list]]]]] = []
        runs: list[tuple[int, int, int, bool]] = []  # (first block, end, op of an iteration, written)
        key = 0
        for i in range(lb, ub, st):
            local.clear()
            local[body.args[0]] = i
            for s in steps:
                if s[0] == _ARITH_OP:
                    local[s[1]] = s[2](local[s[3]], local[s[4]])
                elif s[0] == _CONST:
                    local[s[1]] = s[2]
            touches = []
            for at, roles, guard in which:
                if guard is not None and not local[guard[0]] < local[guard[1]]:
                    touches.append((at, []))  # not issued in this iteration: touches nothing
                    continue
                spans = [(writes, self.dma_blocks(r, local) if rows else self.blocks(r, local))
                         for r, rows, writes in roles]
                if any(b is None for _, b in spans):
                    return None
                touches.append((at, spans))
                runs += [(b0, b1, key, writes) for writes, b in spans for b0, b1 in b if b1 > b0]
                key += 1
            per_iteration.append(touches)
        # Apart: sorted by start, a run overlapping an earlier one of another op is refused
        # (runs of one op in one iteration may overlap: it reads them before it writes).
        runs.sort()
        end, owner = -1, -1
        for b0, b1, k, _ in runs:
            if b0 < end and k != owner:
                return None
            if b1 > end:
                end, owner = b1, k
        # Untouched since a time that can no longer delay anything: a view read waits for
        # its blocks' writes, a view written for their reads (its write replaces the time
        # of the last one).
        read, written = np.zeros(len(self.ready), bool), np.zeros(len(self.ready), bool)
        for b0, b1, _, writes in runs:
            (written if writes else read)[b0:b1] = True
        m = min(self.host, self.dma_free, self.compute_free)
        if np.any(self.ready[read] > m) or np.any(self.reads_end[written] > m):
            return None
        return _Moves(per_iteration, read | written)

    def _period(self, history: list[_Boundary], moving: np.ndarray | None = None) -> tuple[int, float] | None:
        """(p, time per period) when the state after the last iteration equals the state p
        iterations before (p = 1 or 2) on what the next p iterations can see: the engines,
        the loop-carried values, the outer tokens, and the blocks the last p iterations
        touched (the next p touch the same, from an equal state), but for `moving`'s (each
        iteration's own: see `_moves`)."""
        now = history[-1]
        n = len(now.ready)
        for p in (1, 2):
            if len(history) <= p:
                return None
            then = history[-1 - p]
            if now.scalars != then.scalars or now.carried != then.carried or now.outer != then.outer:
                continue
            touched = now.touched(n)
            if p == 2:
                touched = touched | history[-2].touched(n)
            if moving is not None:
                touched = touched & ~moving
            blocks = np.flatnonzero(touched)
            if all(np.array_equal(np.maximum(a[blocks] - now.m, 0.0), np.maximum(c[blocks] - then.m, 0.0))
                   for a, c in ((now.ready, then.ready), (now.reads_end, then.reads_end))):
                return p, now.m - then.m
        return None

    def _shift(self, now: _Boundary, carried: list, by: float, keep: np.ndarray | None = None) -> bool:
        """Move the state on by `by` cycles: the engines, and every value that still matters
        (above the engines' time `now.m`; the others never will), but for the blocks of
        `keep` (moving views' blocks: no later iteration touches those the last ones did).
        False, unchanged, where a value is not a multiple of 1/1024 (the replay's sums
        might round differently)."""
        m = now.m
        kept = None if keep is None else (self.ready[keep], self.reads_end[keep])
        values = [self.host, self.dma_free, self.compute_free, self.end, by,
                  *(v for v in carried if isinstance(v, float) and v > m)]
        # (The blocks' times are at most `end`, among `values`.)
        exact = all(_exact(v) and abs(v) < 2 ** 40 for v in values) and (self.exact_costs or all(
            not np.any(np.mod(arr[arr > m] * 1024, 1)) for arr in (self.ready, self.reads_end)))
        if not exact:
            return False
        self.host += by
        self.dma_free += by
        self.compute_free += by
        self.end += by
        for arr in (self.ready, self.reads_end):
            np.add(arr, by, out=arr, where=arr > m)
        if kept is not None:
            self.ready[keep], self.reads_end[keep] = kept
        return True

    def _boundary(self, carried: list, outer: list, trace: list, compute: float) -> _Boundary:
        m = min(self.host, self.dma_free, self.compute_free)
        return _Boundary(m, (self.host - m, self.dma_free - m, self.compute_free - m, self.end - m),
                         tuple(max(v - m, 0.0) if isinstance(v, float) else v for v in carried),
                         tuple(max(v - m, 0.0) if isinstance(v, float) else v for v in outer),
                         self.ready.copy(), self.reads_end.copy(), trace, compute)

    def sync(self) -> None:
        self.host = max(self.host, self.end)


def _exact(cycles: float) -> bool:
    """Whether `cycles` is a multiple of 1/1024 cycle (the timeline's times are sums of
    such, exact in floats, where a loop may jump; see `Timeline.repeats`)."""
    return (cycles * 1024) % 1 == 0


_KINDS: dict[type, str] = {}
"""What the timeline and `region_ops` do with an op, by the op's class (see `_kind_of`)."""


def _kind_of(op: Operation) -> str:
    if isinstance(op, arith.ConstantOp):
        return "const"
    if type(op) in INDEX_ARITH:
        return "arith"
    if isinstance(op, scf.ForOp):
        return "for"
    if isinstance(op, accel.DmaStartOp):
        return "dma"
    if isinstance(op, accel.DmaWaitOp):
        return "wait"
    if isinstance(op, accel.ComputeOp):
        return "compute"
    if isinstance(op, func.ReturnOp):
        return "return"
    if isinstance(op, accel.WeightOp):
        return "weight"
    if isinstance(op, accel.AllocOp):
        return "alloc"
    return "other"


def _strides(t: MemRefType) -> tuple[int, ...]:
    if isinstance(t.layout, StridedLayoutAttr):
        return tuple(s.data for s in t.layout.strides.data)
    return row_major_strides(t.get_shape())


def cycles(module: ModuleOp, descs: dict, regions: dict | None = None,
           costs: dict[Operation, float] | None = None) -> tuple[float, float]:
    """(estimate, total compute cycles) over all regions in call order. `regions`:
    `inventory(module)` when the caller has it; `costs`: compute ops' cycles known so far
    (see `cost_of`), filled in."""
    costs = {} if costs is None else costs
    main = SymbolTable.lookup_symbol(module, "main")
    if not isinstance(main, func.FuncOp):
        return 0.0, 0.0
    fns = {name: (fn, t) for name, (fn, t, _) in (regions if regions is not None else inventory(module)).items()}
    timelines: dict[str, Timeline] = {}
    for op in main.body.block.ops:
        if isinstance(op, func.CallOp) and op.callee.root_reference.data in fns:
            fn, t = fns[op.callee.root_reference.data]
            desc = descs.get(t)
            if desc is None:
                continue
            tl = timelines.get(t)
            if tl is None:
                tl = timelines[t] = Timeline(desc, costs)
            env: dict = {}
            # Scratchpad buffers passed from @main (values resident across regions).
            for arg, value in zip(fn.body.block.args, op.arguments):
                owner = value.owner
                if isinstance(owner, accel.AllocOp) and owner.offset is not None:
                    env[("addr", arg)] = owner.offset.value.data
            tl.run_block(fn.body.block, env)
            tl.sync()
    estimate = sum(tl.end for tl in timelines.values())
    compute = sum(tl.compute_total for tl in timelines.values())
    return estimate, compute


def region_cycle_bound(module: ModuleOp, descs: dict, compulsory: list[tuple[int, str]] | None = None,
                       regions: dict | None = None, costs: dict[Operation, float] | None = None) -> float:
    """`cycles.region_lower_bound` without the max with `cycles.lower_bound` (see the module
    docstring). Every term is a lower bound for any schedule of the final partition: loop
    order, tile sizes, fusion, prefetching and residency only move work within a call's
    window or into an earlier call's (the forced transfers cannot be moved: the host
    writes their source after the earlier call, or reads their destination before the
    later one)."""
    main = SymbolTable.lookup_symbol(module, "main")
    if not isinstance(main, func.FuncOp):
        return 0.0
    if regions is None:
        regions = inventory(module)
    fns = {name: (fn, t) for name, (fn, t, _) in regions.items()}
    ops = list(main.body.block.ops)
    # Where each buffer of @main is written and read by anything but the call looked at.
    writes: dict[SSAValue, list[int]] = defaultdict(list)
    reads: dict[SSAValue, list[int]] = defaultdict(list)
    calls: dict[str, list[int]] = defaultdict(list)
    for i, op in enumerate(ops):
        if isinstance(op, func.CallOp) and op.callee.root_reference.data in fns:
            fn, t = fns[op.callee.root_reference.data]
            calls[t].append(i)
            for k, a in enumerate(op.arguments):
                (writes if is_output_arg(fn, k) else reads)[a].append(i)
        elif isinstance(op, accel.KernelOp):
            for a in op.ins:
                reads[a].append(i)
            for a in op.outs:
                writes[a].append(i)
        elif isinstance(op, memref.CopyOp):
            reads[op.source].append(i)
            writes[op.destination].append(i)
    compute_of: dict[str, float] = {}
    costs = {} if costs is None else costs
    total = 0.0
    for t, at in calls.items():
        desc = descs.get(t)
        if desc is None:
            continue
        shared = desc.memory.shared_with_host
        per_calls = 0.0
        for n, i in enumerate(at):
            call = ops[i]
            name = call.callee.root_reference.data
            fn, _ = fns[name]
            if name not in compute_of:
                compute_of[name] = sum(cost_of(c, desc, costs) * k for c, k in regions[name][2].computes)
            busy = compute_of[name]
            prev = at[n - 1] if n else -1
            nxt = at[n + 1] if n + 1 < len(at) else len(ops)
            forced = 0.0
            outs = [a for k, a in enumerate(call.arguments) if is_output_arg(fn, k)]
            ins = [a for k, a in enumerate(call.arguments) if not is_output_arg(fn, k)]
            if not shared:
                for a in dict.fromkeys(ins):
                    if any(prev < j < i for j in writes[a]):
                        forced += dma_cycles(buffer_bytes(a.type), desc)
                to_host = [a for a in dict.fromkeys(outs) if any(i < j < nxt for j in reads[a])]
                for a in to_host:
                    forced += dma_cycles(buffer_bytes(a.type), desc)
                if n == 0:
                    busy += desc.dma.setup_cycles
                if outs and len(to_host) == len(dict.fromkeys(outs)):
                    busy += desc.dma.setup_cycles
            per_calls += max(busy, forced)
        total += per_calls
    if compulsory is None:
        compulsory = compulsory_transfers(module, descs, regions)
    dma_total = sum(dma_cycles(b, descs[t]) for b, t in compulsory if t in descs)
    return max(total, dma_total)


def build_report(module: ModuleOp, descs, partition: dict | None, timing: dict[str, float]) -> dict:
    by_name = {d.name: d for d in descs}
    report: dict = dict(partition or {})
    regions = inventory(module)
    dma = planned_dma(module, regions)
    compulsory = compulsory_transfers(module, by_name, regions)
    lb = lower_bound_bytes(module, by_name, compulsory)
    dma["lower_bound_bytes"] = lb
    dma["fused_lower_bound_bytes"] = lb + fused_floor_bytes(module)
    report["dma"] = dma
    costs: dict[Operation, float] = {}
    estimate, compute = cycles(module, by_name, regions, costs)
    bpc = min((d.dma.bytes_per_cycle for d in descs), default=1.0)
    bound = max(compute, lb / bpc)
    report["cycles"] = {"estimate": round(estimate), "lower_bound": int(round(bound)),
                        "region_lower_bound": int(math.floor(max(bound, region_cycle_bound(module, by_name, compulsory, regions, costs)))),
                        "exposed_dma": max(0, round(estimate - compute))}
    arena = module.attributes.get(ARENA_ATTR)
    peak = 0
    for _, _, ops in regions.values():
        for op in ops.allocs:
            if op.offset is not None:
                peak = max(peak, op.offset.value.data + buffer_bytes(op.result.type))
    report["memory"] = {
        "host_arena_bytes": arena.value.data if isinstance(arena, IntegerAttr) else 0,
        "scratchpad_peak_bytes": peak,
    }
    report["timing"] = {k: round(v, 6) for k, v in timing.items()}
    tuned = tuning_section(module)
    if tuned is not None:
        report["tuning"] = tuned
    return report


def tuning_section(module: ModuleOp) -> dict | None:
    """What apply-tuning configured (`accel.tuned`): each tuned task with its measured
    default and tuned cycles, and the predicted gain over all instances (measured in
    isolation: in the model a task's neighbours may keep its operands on the device)."""
    attr = module.attributes.get(TUNED_ATTR)
    if not isinstance(attr, ArrayAttr):
        return None
    tasks = []
    for d in attr.data:
        e = {k: (v.data if isinstance(v, StringAttr) else v.value.data) for k, v in d.data.items()}
        e["config"] = json.loads(e["config"])
        tasks.append(e)
    default = sum(t["default_cycles"] * t["instances"] for t in tasks)
    tuned = sum(t["tuned_cycles"] * t["instances"] for t in tasks)
    return {"tasks": tasks, "tuned_ops": sum(t["instances"] for t in tasks if t["config"]),
            "predicted_gain_cycles": default - tuned,
            "predicted_speedup": round(default / tuned, 4) if tuned else 1.0}
