"""fuse-layers: compute chains of convolutions, pools and elementwise ops stripe by stripe.

Runs on the logical form (after `lower-to-accel`, before `tile-for-scratchpad`). A chain
is a run of ops of one region where each op's result is read by exactly one op, the next
of the chain (convolutions and pools through their data input, elementwise ops through
either input; the other input of a binary op, the weights and the first op's input come
from outside the chain). A chain is computed depth-first (Ethos-U cascading, DeFiNES):
a stripe of the last op's output rows determines the rows, with their halos, that each
earlier op computes, so the intermediates exist only as stripe buffers in the
scratchpad (`accel.alloc`, which `insert-dma` does not stage: only the first op's input
stripe, the side inputs' stripes, the weights and the last op's output stripe move).
Halo rows are recomputed by the next stripe (no rolling buffer: the compute commands
take dense operands).

Residual blocks: a value with two readers continues the chain to the first when the
second is an elementwise op further down the same chain (`Shared`). A segment holding
both computes each stripe of the value once, into the stripe buffer the first reader
needs (with its halo); the second reader's rows are a sub-range of it, which is dense
only within one channel, so that reader runs one command per channel (an `scf.for`
over channels; batch 1). A segment that holds the value's producer before its last op
holds the second reader too; otherwise the value leaves the device and costs one read
more at that cut.

Which ops to fuse and the stripe height come from a cost model (dynamic programming over
the segments of a chain, linear in its length for segments of at most `max-depth` ops):
a fused segment costs its recomputed halo rows (compute cycles), the halo rows its first
input is read again, and the setup of its per-stripe transfers; a value between two
segments costs its write and read when one side is a fused segment or an op whose working
set does not fit the scratchpad (such an op is tiled and spills its output). A segment
fits when its weights (kept on the device across stripes), its streamed stripes (twice
with double buffering) and the input and output stripe of any one op fit the scratchpad.

A tuning configuration (apply-tuning, `[tuning.fusion]` of the description) fixes where
a chain is cut and each fused segment's stripe height (`tuned_segments`); such a chain is
fused as configured, and a configuration that does not fit is an error.

Every stripe computes each output element with the same window and the same arithmetic
as the unfused op (only the padding of a stripe at the border differs, as for the row
tiles of `tile-for-scratchpad`), so results are bit-identical.

Before (two 3x3 convolutions, the intermediate larger than the scratchpad):

    accel.conv2d ins(%x, %w0 : ...) outs(%t : memref<1x32x64x64xf32>) {padding = [1, 1, 1, 1]}
    accel.conv2d ins(%t, %w1 : ...) outs(%y : memref<1x32x64x64xf32>) {padding = [1, 1, 1, 1]}

After (sketch: the first and last stripes are peeled, their padding differs):

    %s = accel.alloc : memref<1x32x10x64xf32, #accel.mem<"spm">>
    scf.for %i = %c0 to %c6 step %c1 {
      %xi = memref.subview %x[0, 0, %lo, 0] [1, 32, 12, 64] [1, 1, 1, 1] : ...
      accel.conv2d ins(%xi, %w0 : ...) outs(%s : ...) {padding = [0, 1, 0, 1]}
      %yi = memref.subview %y[0, 0, %r, 0] [1, 32, 8, 64] [1, 1, 1, 1] : ...
      accel.conv2d ins(%s, %w1 : ...) outs(%yi : ...) {padding = [0, 1, 0, 1]}
    }

With a residual add (`%z = add(%y, %t)`, %t the first conv's result) in the segment,
the add reads rows 1..8 of %s, channel by channel:

      accel.conv2d ins(%s, %w1 : ...) outs(%u : memref<1x32x8x64xf32, #accel.mem<"spm">>)
      scf.for %c = %c0 to %c32 step %c1 {
        %uc = memref.subview %u[0, %c, 0, 0] [1, 1, 8, 64] [1, 1, 1, 1] : ...
        %tc = memref.subview %s[0, %c, 1, 0] [1, 1, 8, 64] [1, 1, 1, 1] : ...
        %zc = memref.subview %z[0, %c, %r, 0] [1, 1, 8, 64] [1, 1, 1, 1] : ...
        accel.eltwise ins(%uc, %tc : ...) outs(%zc : ...) {kind = "add"}
      }
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from xdsl.context import Context
from xdsl.dialects import memref
from xdsl.dialects.builtin import IntegerAttr, ModuleOp, i64
from xdsl.ir import Block, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from accel.compiler.compile_report import compute_cycles, spill_floor_bytes
from accel.compiler.diagnostics import CompileError
from accel.compiler.memory_plan import align
from accel.compiler.targets.context import target_context
from accel.compiler.tensors import buffer_bytes
from accel.compiler.tile_plan import ComputeShape, candidates, working_set
from accel.compiler.transforms.tile_for_scratchpad import Emitter
from accel.dialects import accel
from accel.compiler.targets.tuning_space import FUSE_KNOB, STRIPE_KNOB
from accel.dialects.conventions import (FUSED_FLOOR_ATTR, PLACEMENT_ATTR, TUNING_ATTR, accelerator_functions,
                                        is_output_arg, tuning_of)

# --------------------------------------------------------------------------------------
# Row geometry of one op
# --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Window:
    """How an op's output rows read its input rows."""

    kernel: int
    stride: int
    dilation: int
    pad_top: int
    in_rows: int

    def reads(self, r0: int, r1: int) -> tuple[int, int, int, int]:
        """Input rows [start, start + rows) and the top and bottom padding of output rows [r0, r1)."""
        lo = r0 * self.stride - self.pad_top
        hi = (r1 - 1) * self.stride - self.pad_top + self.dilation * (self.kernel - 1) + 1
        start = max(lo, 0)
        return start, min(hi, self.in_rows) - start, max(0, -lo), max(0, hi - self.in_rows)


def window_of(op: accel.ComputeOp) -> Window:
    h = op.inputs[0].type.get_shape()[2]
    if isinstance(op, accel.EltwiseOp):
        return Window(1, 1, 1, 0, h)
    pad = op.prop("padding")
    kernel = op.inputs[1].type.get_shape()[2] if isinstance(op, accel.Conv2DOp) else op.prop("pool_size")[0]
    return Window(kernel, op.prop("strides")[0], op.prop("dilation")[0], pad[0], h)


def fusable(op: Operation) -> bool:
    """Ops a stripe can run through: NCHW convolutions, windowed (not global) pools, and
    elementwise kinds on rank-4 operands of the output's shape."""
    if isinstance(op, (accel.Conv2DOp, accel.PoolOp)):
        return op.inputs[0].type.get_shape()[2] > window_of(op).kernel
    if isinstance(op, accel.EltwiseOp):
        shape = op.output.type.get_shape()
        return op.prop("kind") not in accel.EltwiseOp.ROWS and len(shape) == 4 and \
            all(tuple(v.type.get_shape()) == tuple(shape) for v in op.inputs)
    return False


def chain_operand(op: accel.ComputeOp, producer_output: SSAValue) -> int | None:
    """Which input of `op` a chain can enter through (None: not through `producer_output`)."""
    entries = [i for i, v in enumerate(op.inputs) if v is producer_output]
    if len(entries) != 1:
        return None
    if isinstance(op, accel.EltwiseOp) or entries[0] == 0:
        return entries[0]
    return None


# --------------------------------------------------------------------------------------
# Stripes of a segment and their cost
# --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Step:
    """One op of a segment for one stripe: its output rows, input rows and padding."""

    out_start: int
    out_rows: int
    in_start: int
    in_rows: int
    pad_top: int
    pad_bottom: int


def stripe_steps(ops: list[accel.ComputeOp], windows: list[Window], r0: int, r1: int) -> list[Step] | None:
    """The steps of the stripe of output rows [r0, r1) of the last op, first op first;
    None when some op would read only padding."""
    steps: list[Step] = []
    for op, win in zip(reversed(ops), reversed(windows)):
        start, rows, top, bottom = win.reads(r0, r1)
        if rows <= 0:
            return None
        if isinstance(op, accel.PoolOp):
            bottom = min(bottom, op.prop("padding")[2])  # ceil mode's overhang is not padding
        steps.append(Step(r0, r1 - r0, start, rows, top, bottom))
        r0, r1 = start, start + rows
    return steps[::-1]


@dataclass
class Run:
    """Stripes with the same shapes whose rows advance by constant deltas: one loop."""

    first: list[Step]
    count: int
    deltas: list[tuple[int, int]]  # per op: (output row delta, input row delta)


def group_runs(stripes: list[list[Step]]) -> list[Run]:
    runs: list[Run] = []
    for steps in stripes:
        if runs:
            run = runs[-1]
            same = all((a.out_rows, a.in_rows, a.pad_top, a.pad_bottom) == (b.out_rows, b.in_rows, b.pad_top, b.pad_bottom)
                       for a, b in zip(run.first, steps))
            deltas = [((b.out_start - a.out_start) // run.count, (b.in_start - a.in_start) // run.count)
                      for a, b in zip(run.first, steps)]
            if same and all(b.out_start - a.out_start == d[0] * run.count and b.in_start - a.in_start == d[1] * run.count
                            for a, b, d in zip(run.first, steps, deltas)) and (run.count == 1 or deltas == run.deltas):
                run.deltas = deltas
                run.count += 1
                continue
        runs.append(Run(steps, 1, [(0, 0)] * len(steps)))
    return runs


def row_bytes(v: SSAValue) -> int:
    """Bytes of one row (all channels) of an NCHW buffer."""
    n, c, _, w = v.type.get_shape()
    return n * c * w * buffer_bytes(v.type) // max(1, math.prod(v.type.get_shape()))


def side_inputs(op: accel.ComputeOp, entry: int | None, kept: int | None = None) -> list[SSAValue]:
    """Inputs of an elementwise op that do not come through the chain (read per stripe);
    `kept`: an input that is a stripe buffer of the segment (a shared value)."""
    if not isinstance(op, accel.EltwiseOp):
        return []
    return [v for i, v in enumerate(op.inputs) if i not in (entry, kept)]


@dataclass(frozen=True)
class Shared:
    """A value of a chain with two readers: the result of op `producer` is the chain input
    of the next op and input `operand` of the elementwise op `reader` further down (a
    residual block). In a segment holding both readers the stripe of the value is computed
    once; the reader takes its rows as a sub-range of the stripe buffer."""

    producer: int
    reader: int
    operand: int

    def shifted(self, i: int) -> "Shared":
        return Shared(self.producer - i, self.reader - i, self.operand)


def resident_inputs(op: accel.ComputeOp) -> list[SSAValue]:
    """Weights and bias: kept on the device across the stripes."""
    return list(op.inputs[1:]) if isinstance(op, accel.Conv2DOp) else []


@dataclass
class SegmentPlan:
    rows: int  # stripe height (output rows of the last op)
    cost: float  # cycles beyond the unfused compulsory work: halos, recompute, setups
    stripes: list[list[Step]]


def reads_within(stripe: list[Step], link: Shared) -> bool:
    """Whether the reader of a shared value needs only rows of the producer's stripe."""
    p, r = stripe[link.producer], stripe[link.reader]
    return p.out_start <= r.out_start and r.out_start + r.out_rows <= p.out_start + p.out_rows


def plan_segment(ops: list[accel.ComputeOp], entries: list[int | None], desc, double: bool,
                 recompute_weight: float = 1.0, shared: list[Shared] = (),
                 rows: int | None = None) -> SegmentPlan | None:
    """The cheapest stripe height of a segment that fits the scratchpad, or stripes of
    `rows` (a tuned height) when given (None: none fits); `shared`: the links (indices in
    `ops`) whose two readers are both in the segment."""
    capacity, alignment = desc.memory.scratchpad_bytes, desc.memory.alignment
    bpc, setup = desc.dma.bytes_per_cycle, desc.dma.setup_cycles
    windows = [window_of(o) for o in ops]
    resident = sum(align(buffer_bytes(v.type), alignment) for o in ops for v in dict.fromkeys(resident_inputs(o)))
    if resident > capacity:  # the weights alone: no stripe height fits
        return None
    kept = {link.reader: link.operand for link in shared}
    sides = [side_inputs(o, e, kept.get(k)) for k, (o, e) in enumerate(zip(ops, entries))]
    # A shared value's reader runs one command per channel (a channel's rows of a stripe
    # buffer are dense, a row range of all channels is not); as the last op, each writes
    # its own transfer.
    channel_outputs = sum(ops[-1].output.type.get_shape()[1] - 1 for link in shared if link.reader == len(ops) - 1)
    out_rows = ops[-1].output.type.get_shape()[2]
    first_in = ops[0].inputs[0]
    out_row_bytes = [row_bytes(o.output) for o in ops]
    in_row_bytes = row_bytes(first_in)
    side_row_bytes = [[row_bytes(v) for v in vs] for vs in sides]

    def footprint(biggest: list[int], in_rows: int) -> int:
        """Scratchpad bytes of stripes whose ops compute at most `biggest` output rows,
        the first reading `in_rows` input rows. The intermediate stripe buffers are
        allocated before the loop and reused by every iteration: all of them are live
        through the whole loop."""
        out_b = [rows_i * b for rows_i, b in zip(biggest, out_row_bytes)]
        side_b = sum(align(biggest[i] * b, alignment) for i, bs in enumerate(side_row_bytes) for b in bs)
        streamed = align(in_rows * in_row_bytes, alignment) + side_b + align(out_b[-1], alignment)
        return resident + (2 if double else 1) * streamed + sum(align(b, alignment) for b in out_b[:-1])

    best: SegmentPlan | None = None
    for t in candidates(out_rows) if rows is None else [rows]:
        if t >= out_rows:
            continue  # one stripe: nothing to fuse
        # The second stripe first: if it reads only padding, or alone does not fit, the
        # height fails below too (each op's largest stripe is at least this one's), and
        # its other stripes need not be built (most heights of a tall image fail so).
        probe = stripe_steps(ops, windows, t, min(out_rows, 2 * t))
        if probe is None or footprint([s.out_rows for s in probe], probe[0].in_rows) > capacity:
            continue
        stripes = []
        for r0 in range(0, out_rows, t):
            steps = stripe_steps(ops, windows, r0, min(out_rows, r0 + t))
            if steps is None:
                break
            stripes.append(steps)
        else:
            if len(stripes) < 2 or not all(reads_within(st, link) for st in stripes for link in shared):
                continue
            # Capacity at the largest stripe of each op.
            biggest = [max(s[i].out_rows for s in stripes) for i in range(len(ops))]
            if footprint(biggest, max(s[0].in_rows for s in stripes)) > capacity:
                continue
            halo_bytes = sum(s[0].in_rows for s in stripes) * in_row_bytes - buffer_bytes(first_in.type)
            recompute = sum(compute_cycles(o, desc) * (sum(s[i].out_rows for s in stripes) / o.output.type.get_shape()[2] - 1)
                            for i, o in enumerate(ops))
            transfers = len(stripes) * (2 + sum(len(vs) for vs in sides) + channel_outputs)
            cost = max(0, halo_bytes) / bpc + recompute_weight * max(0.0, recompute) + setup * transfers
            if best is None or cost < best.cost - 1e-9:
                best = SegmentPlan(t, cost, stripes)
    return best


# --------------------------------------------------------------------------------------
# Chains and the choice of segments
# --------------------------------------------------------------------------------------


def find_chains(block: Block) -> list[tuple[list[accel.ComputeOp], list[int | None], list[Shared]]]:
    """Maximal chains of fusable ops (with the input each op reads the previous one
    through, None for the first op, and the shared values of the chain), in block order.
    A value with two readers continues the chain to the first when the second is an
    elementwise op further down the same chain (a residual block, `Shared`); otherwise
    the chain ends there. Linear in the block."""
    readers: dict[SSAValue, list[tuple[accel.ComputeOp, int]]] = {}
    ops = [o for o in block.ops if isinstance(o, accel.ComputeOp)]
    for o in ops:
        for i, v in enumerate(o.inputs):
            readers.setdefault(v, []).append((o, i))
    nxt: dict[Operation, tuple[accel.ComputeOp, int]] = {}
    second: dict[Operation, tuple[accel.ComputeOp, int]] = {}  # the other reader of a shared value
    has_prev: set[Operation] = set()
    for o in ops:
        out = o.output
        if not fusable(o) or not isinstance(out.owner, memref.AllocOp):
            continue
        rs = readers.get(out, [])
        if len(rs) not in (1, 2) or sum(1 for _ in out.uses) != len(rs) + 1:  # the writer and the readers only
            continue
        user, _ = rs[0]
        entry = chain_operand(user, out)
        if entry is None or not fusable(user) or user in has_prev:
            continue
        if len(rs) == 2:
            other, operand = rs[1]
            # A channel of a stripe buffer is dense only at batch 1 (see emit_segment).
            if other is user or not isinstance(other, accel.EltwiseOp) or not fusable(other) or \
                    chain_operand(other, out) is None or out.type.get_shape()[0] != 1:
                continue
            second[o] = (other, operand)
        nxt[o] = (user, entry)
        has_prev.add(user)
    chains = []
    for o in ops:
        if o in has_prev or o not in nxt:
            continue
        chain, entries = [o], [None]
        while chain[-1] in nxt:
            user, entry = nxt[chain[-1]]
            chain.append(user)
            entries.append(entry)
        chains.extend(close_shared(chain, entries, second))
    return chains


def close_shared(chain: list[accel.ComputeOp], entries: list[int | None],
                 second: dict[Operation, tuple[accel.ComputeOp, int]]
                 ) -> list[tuple[list[accel.ComputeOp], list[int | None], list[Shared]]]:
    """Cut `chain` after every shared value whose second reader is not an op of the same
    piece that reads it through its other input (the value then leaves the chain)."""
    pos = {o: k for k, o in enumerate(chain)}
    links = []
    for p in range(len(chain) - 1, -1, -1):  # last first: a cut only affects links before it
        if chain[p] not in second:
            continue
        reader, operand = second[chain[p]]
        q = pos.get(reader)
        links.append(Shared(p, -1 if q is None else q, operand))
    cuts: list[int] = []  # after these positions, descending
    kept: list[Shared] = []
    for link in links:
        q = link.reader
        if q <= link.producer + 1 or entries[q] == link.operand or (cuts and cuts[-1] < q):
            cuts.append(link.producer)
        else:
            kept.append(link)
    pieces = []
    bounds = [0, *(c + 1 for c in reversed(cuts)), len(chain)]
    for i, j in zip(bounds, bounds[1:]):
        if j - i >= 2:
            pieces.append((chain[i:j], [None, *entries[i + 1:j]],
                           sorted((link.shifted(i) for link in kept if i <= link.producer < j), key=lambda x: x.producer)))
    return pieces


def spills(op: accel.ComputeOp, alignment: int, capacity: int) -> bool:
    """An unfused op that does not fit is tiled, and its tiles go through host memory."""
    return working_set(ComputeShape.of_op(op), alignment) > capacity


def edge_cost(chain: list[accel.ComputeOp], i: int, fused_before: bool, fused_after: bool, desc,
              readers: int = 1) -> float:
    """What cutting the chain before op i costs: the value written once and read by each
    of its `readers` (2 for a shared value), when a side is a fused segment or an op that
    spills (otherwise it stays on the device)."""
    capacity, alignment = desc.memory.scratchpad_bytes, desc.memory.alignment
    if i > 0 and (fused_before or fused_after or spills(chain[i - 1], alignment, capacity)
                  or spills(chain[i], alignment, capacity)):
        return (1 + readers) * buffer_bytes(chain[i - 1].output.type) / desc.dma.bytes_per_cycle
    return 0.0


def tuned_segments(chain: list[accel.ComputeOp], entries: list[int | None], desc,
                   double: bool) -> list[tuple[int, int, SegmentPlan | None]] | None:
    """The segments a tuning configuration fixes (apply-tuning, compiler/tuning/fusion.py):
    every op after the first says whether it joins the previous op's segment (`fuse`),
    the last op of a fused segment may fix its stripe height (`stripe_rows`). None: the
    chain is not tuned (the cost model chooses)."""
    configs = [tuning_of(o) or {} for o in chain]
    if not any(FUSE_KNOB in c for c in configs[1:]):
        return None
    starts = [0, *(k for k in range(1, len(chain)) if not configs[k].get(FUSE_KNOB, False))]
    segments: list[tuple[int, int, SegmentPlan | None]] = []
    for i, j in zip(starts, [*starts[1:], len(chain)]):
        plan = None
        if j - i > 1:
            rows = configs[j - 1].get(STRIPE_KNOB)
            plan = plan_segment(chain[i:j], [None, *entries[i + 1:j]], desc, double, rows=rows)
            if plan is None:
                raise CompileError(f"fuse-layers: tuned segment of {j - i} ops (stripe_rows {rows}) does not fit "
                                   f"the scratchpad ({desc.memory.scratchpad_bytes} bytes)", chain[j - 1])
        segments.append((i, j, plan))
    return segments


def choose_segments(chain: list[accel.ComputeOp], entries: list[int | None], desc, double: bool,
                    max_depth: int, recompute_weight: float = 1.0,
                    shared: list[Shared] = ()) -> list[tuple[int, int, SegmentPlan | None]]:
    """Split a chain into segments [i, j) minimizing the cost (module docstring). A
    segment holding a shared value's producer before its last op holds its second
    reader too (the value never leaves the segment)."""
    capacity, alignment = desc.memory.scratchpad_bytes, desc.memory.alignment
    n = len(chain)
    by_producer = {link.producer: link for link in shared}
    if not any(spills(o, alignment, capacity) for o in chain):
        return [(i, i + 1, None) for i in range(n)]  # every value stays on the device anyway
    # best[(j, fused)]: the cheapest (cost, segments) of chain[:j] whose last segment is
    # fused or not (what the value at j costs depends on it).
    best: dict[tuple[int, bool], tuple[float, list]] = {(0, False): (0.0, [])}
    for j in range(1, n + 1):
        for i in range(max(0, j - max_depth), j):
            if i == j - 1:
                plan, cost = None, 0.0
            else:
                inside = [link for link in shared if i <= link.producer < j - 1]
                if any(link.reader >= j for link in inside):
                    continue
                plan = plan_segment(chain[i:j], [None, *entries[i + 1:j]], desc, double, recompute_weight,
                                    [link.shifted(i) for link in inside])
                if plan is None:
                    continue
                cost = plan.cost
            for prev_fused in (False, True):
                before = best.get((i, prev_fused))
                if before is None:
                    continue
                readers = 2 if i - 1 in by_producer else 1
                total = before[0] + cost + edge_cost(chain, i, prev_fused, plan is not None, desc, readers)
                key = (j, plan is not None)
                if key not in best or total < best[key][0] - 1e-9:
                    best[key] = (total, before[1] + [(i, j, plan)])
    return min((best[k] for k in ((n, False), (n, True)) if k in best), key=lambda b: b[0])[1]


# --------------------------------------------------------------------------------------
# Emitting a fused segment
# --------------------------------------------------------------------------------------


def unit_spill_floor(fn, segments: list[list[accel.ComputeOp]], capacity: int) -> int:
    """The spill floor (compile_report.spill_floor_bytes) of `fn` run one unit at a time:
    each fused segment and each other compute op is a unit; a segment's intermediates
    never leave it."""
    unit: dict[Operation, int] = {o: k for k, ops in enumerate(segments) for o in ops}
    inside = {o.output for ops in segments for o in ops[:-1]}
    readers: dict[SSAValue, set] = {}
    for o in fn.body.block.ops:
        if isinstance(o, accel.ComputeOp):
            for v in o.inputs:
                if v not in inside:
                    readers.setdefault(v, set()).add(unit.get(o, o))
    outputs = {a for i, a in enumerate(fn.body.block.args) if is_output_arg(fn, i)}
    return spill_floor_bytes({v: len(u) for v, u in readers.items()}, capacity, outputs)


def _with_padding(op: accel.ComputeOp, step: Step) -> dict[str, Any]:
    props: dict[str, Any] = {k: op.properties[k] for k in op.properties}
    if not isinstance(op, accel.EltwiseOp):
        pad = op.prop("padding")
        props["padding"] = accel.Conv2DOp.PROPS[1].to_attr((step.pad_top, pad[1], step.pad_bottom, pad[3]))
    return props


def emit_segment(ops: list[accel.ComputeOp], entries: list[int | None], plan: SegmentPlan,
                 shared: list[Shared] = ()) -> None:
    """Replace the segment's ops by loops over its stripes, before its last op."""
    last = ops[-1]
    top = Emitter(InsertPoint.before(last))
    by_reader = {link.reader: link for link in shared}
    for run in group_runs(plan.stripes):
        buffers = []
        for o, step in zip(ops[:-1], run.first[:-1]):
            n, c, _, w = o.output.type.get_shape()
            t = accel.memref_type(o.output.type.element_type, [n, c, step.out_rows, w], space=accel.SPM)
            buffers.append(top.add(accel.AllocOp(t)).result)
        iv, body = top.loop(0, run.count, 1)

        def row(delta: int, start: int) -> int | SSAValue:
            return body.affine(iv, delta, start) if iv is not None and delta else start

        chained: SSAValue | None = None
        for k, (o, step, (d_out, d_in)) in enumerate(zip(ops, run.first, run.deltas)):
            if k in by_reader:
                chained = emit_shared_reader(body, o, k, entries[k], by_reader[k], run, row, buffers, chained,
                                             k == len(ops) - 1)
                continue
            ins = []
            for i, v in enumerate(o.inputs):
                if k > 0 and i == entries[k]:
                    ins.append(chained)
                elif i == 0 or isinstance(o, accel.EltwiseOp):
                    n, c, _, w = v.type.get_shape()
                    if isinstance(o, accel.EltwiseOp):  # rows of the output's
                        start, rows = row(d_out, step.out_start), step.out_rows
                    else:
                        start, rows = row(d_in, step.in_start), step.in_rows
                    ins.append(body.subview(v, [0, 0, start, 0], [n, c, rows, w]))
                else:
                    ins.append(v)  # weights and bias, whole
            if k < len(ops) - 1:
                out = buffers[k]
            else:
                n, c, _, w = o.output.type.get_shape()
                out = body.subview(o.output, [0, 0, row(d_out, step.out_start), 0], [n, c, step.out_rows, w])
            # A fused op's stripe is its tile: its own tuning knobs do not apply.
            attrs = {k: v for k, v in o.attributes.items() if k != TUNING_ATTR}
            new = type(o)(ins, out, attrs, **_with_padding(o, step))
            new.location = o.location
            body.add(new)
            chained = out
    dead = [o.output.owner for o in ops[:-1]]
    for o in reversed(ops):
        Rewriter.erase_op(o)
    for alloc in dead:
        if isinstance(alloc, memref.AllocOp) and not alloc.memref.uses:
            Rewriter.erase_op(alloc)


def emit_shared_reader(body: Emitter, op: accel.EltwiseOp, k: int, entry: int, link: Shared, run: Run, row,
                       buffers: list[SSAValue], chained: SSAValue, is_last: bool) -> SSAValue:
    """The second reader of a shared value, one command per channel: its rows of the value
    are a sub-range of the producer's stripe buffer, dense within one channel (batch 1)."""
    step, (d_out, _) = run.first[k], run.deltas[k]
    p_step, (p_out, _) = run.first[link.producer], run.deltas[link.producer]
    _, c, _, w = op.output.type.get_shape()
    offset = row(d_out - p_out, step.out_start - p_step.out_start)  # into the producer's stripe
    out_row = row(d_out, step.out_start)
    out = op.output if is_last else buffers[k]
    civ, lane = body.loop(0, c, 1)
    ch = 0 if civ is None else civ
    ins = [None, None]
    ins[entry] = lane.subview(chained, [0, ch, 0, 0], [1, 1, step.out_rows, w])
    ins[link.operand] = lane.subview(buffers[link.producer], [0, ch, offset, 0], [1, 1, step.out_rows, w])
    dest = lane.subview(out, [0, ch, out_row if is_last else 0, 0], [1, 1, step.out_rows, w])
    new = accel.EltwiseOp(ins, dest, dict(op.attributes), **_with_padding(op, step))
    new.location = op.location
    lane.add(new)
    return out


@dataclass(frozen=True)
class FuseLayers(ModulePass):
    """Compute chains of convolutions, pools and elementwise ops stripe by stripe."""

    name = "fuse-layers"

    target: tuple[str, ...] = ()
    """Descriptions (names or .toml paths) to load for the regions' `accel.target` names;
    by default the compile's targets, then built-ins by name."""

    double_buffer: bool = True
    """Size the streamed stripes so that two of each fit (as tile-for-scratchpad does)."""

    max_depth: int = 8
    """Most ops in one fused segment (bounds the planning work per op)."""

    recompute_weight: float = 1.0
    """What a recomputed halo cycle costs against a cycle of DMA: 1 minimizes time (DMA
    overlaps compute, recomputation does not); 0 minimizes the bytes moved."""

    zero_copy: bool = True
    """Leave targets that share host memory alone: they compute in place (see insert-dma)."""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        known = target_context(ctx)
        known.load(self.target)
        for fn, name in list(accelerator_functions(op)):
            desc = known.named(name, fn)
            if not desc.lowers_to_accel or (desc.memory.shared_with_host and self.zero_copy):
                continue
            if PLACEMENT_ATTR in fn.attributes:
                raise CompileError(f"fuse-layers: @{fn.sym_name.data} is already placed (run it before insert-dma)", fn)
            # Buffers are written once before tiling, so moving a segment's work to its
            # last op reads the same data.
            segments = [(chain[i:j], [None, *entries[i + 1:j]], plan,
                         [link.shifted(i) for link in shared if i <= link.producer < j - 1])
                        for chain, entries, shared in find_chains(fn.body.block)
                        for i, j, plan in (None if shared else tuned_segments(chain, entries, desc,
                                                                              self.double_buffer)) or
                        choose_segments(chain, entries, desc, self.double_buffer, self.max_depth,
                                        self.recompute_weight, shared)
                        if plan is not None]
            floor = unit_spill_floor(fn, [ops for ops, _, _, _ in segments], desc.memory.scratchpad_bytes)
            fn.attributes[FUSED_FLOOR_ATTR] = IntegerAttr(floor, i64)
            for ops, entries, plan, shared in segments:
                emit_segment(ops, entries, plan, shared)
