"""assemble-on-device: the tiles of an output that fits the scratchpad are put together there.

Runs after `insert-dma` (before `optimize-dma`, so that the assembled buffers have the
scratchpad before prefetching takes it), on targets that declare a copy on the device
(`dma.device_bytes_per_cycle` with `api.runtime.dma_on_device`, or an [isa] command running
`dma_on_device`). A tiled producer writes each tile back through a `memref.subview` of a
region-local host buffer, and its consumers read that buffer back, whole or tile by tile.
When the buffer fits beside the rest of the region's scratchpad plan it gets a scratchpad
buffer of its own instead (the *assembled* buffer), and the host buffer disappears:

- every transfer into or out of a view of the host buffer becomes a copy on the device
  into or out of the same view of the assembled buffer (the DMA engine runs copies in
  order with the transfers, so a read issued after the tiles' copies sees them);
- `in-place`: a tile computed into a buffer of its own that only its copy reads, whose
  view is contiguous (a channel tile of an NCHW image of batch 1, a row tile of a
  matrix), is computed straight into the view: no copy at all;
- a load of the whole host buffer in the function's block, after the last tile copy of
  that block, is dropped: its readers read the assembled buffer and wait for that copy
  instead (waiting for a transfer waits for every earlier one).

Results are bit-identical (the same bytes move, within the scratchpad); the report's
`dma.bytes_on_device` and the simulator's `bytes_on_device` count the copies. Each
assembly is kept only where the scratchpad plan still fits.

Before (the ffn on npu: its hidden activation in four column tiles, then read whole):

    %h = memref.alloc() : memref<64x384xf32>
    accel.matmul ins(...) outs(%t0 : memref<64x96xf32, #accel.mem<"spm">>)
    %v0 = memref.subview %h[0, 0] [64, 96] [1, 1] : memref<64x384xf32> to memref<64x96xf32, strided<[384, 1]>>
    %w0 = accel.dma_start %t0, %v0 : ...
    ... three more tiles ...
    %s = accel.alloc : memref<64x384xf32, #accel.mem<"spm">>
    %l = accel.dma_start %h, %s : memref<64x384xf32>, memref<64x384xf32, #accel.mem<"spm">>
    accel.dma_wait %l
    accel.matmul ins(%s, ...) outs(...)

After:

    %a = accel.alloc : memref<64x384xf32, #accel.mem<"spm">>
    accel.matmul ins(...) outs(%t0 : memref<64x96xf32, #accel.mem<"spm">>)
    %v0 = memref.subview %a[0, 0] [64, 96] [1, 1] : ... to memref<64x96xf32, strided<[384, 1]>, #accel.mem<"spm">>
    %w0 = accel.dma_start %t0, %v0 : ...                      // a copy on the device
    ... three more tiles ...
    accel.dma_wait %w3
    accel.matmul ins(%a, ...) outs(...)
"""

from __future__ import annotations

from dataclasses import dataclass, field

from xdsl.context import Context
from xdsl.dialects import func, memref
from xdsl.dialects.builtin import MemRefType, ModuleOp, StridedLayoutAttr
from xdsl.ir import Block, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from accel.compiler.ir_build import VIEWS
from accel.compiler.memory_plan import Footprint, ScratchpadPlan, merged, plan_scratchpad
from accel.compiler.targets.context import target_context
from accel.compiler.tensors import buffer_bytes
from accel.compiler.transforms.insert_dma import spm_type
from accel.compiler.transforms.optimize_dma import clone_view, erase_if_unused, erase_transfer, keep_fitting, view_ops
from accel.dialects import accel
from accel.dialects.conventions import accelerator_functions, placement_of

# --------------------------------------------------------------------------------------
# Helpers
# --------------------------------------------------------------------------------------


def host_transfers(buf: SSAValue, guarded: bool = False) -> list[tuple[accel.DmaStartOp, int]] | None:
    """Every transfer of `buf` through views of it, as (transfer, operand index); None
    when anything but views and transfers uses it, or (unless `guarded`: a caller that
    keeps a guard with what it makes of a transfer) a guarded transfer, which may not be
    issued."""
    found = []
    stack = [buf]
    while stack:
        v = stack.pop()
        for use in v.uses:
            user = use.operation
            if isinstance(user, VIEWS) and use.index == 0:  # tiles; layout ops' views
                stack.append(user.results[0])
            elif isinstance(user, accel.DmaStartOp) and (guarded or not user.guarded):
                found.append((user, use.index))
            else:
                return None
    return found


def ancestor_in(op: Operation, block: Block) -> Operation:
    """The op of `block` that is `op` or holds it."""
    while op.parent is not block:
        op = op.parent_op()
    return op


def device_view(v: SSAValue, host: SSAValue, device: SSAValue, point: InsertPoint, made: list) -> SSAValue:
    """The view of `device` that `v` is of `host` (its subviews cloned at `point`)."""
    if v is host:
        return device
    sv = v.owner
    assert isinstance(sv, VIEWS)
    src = device_view(sv.source, host, device, point, made)
    view = clone_view(sv, src)
    Rewriter.insert_op(view, point)
    made.append(view)
    return view.results[0]


def is_contiguous(t: MemRefType) -> bool:
    """Whether a view's elements are dense in row-major order (dims of size 1 aside)."""
    if not isinstance(t.layout, StridedLayoutAttr):
        return True
    strides = [s.data for s in t.layout.strides.data]
    dense = 1
    for size, stride in reversed(list(zip(t.get_shape(), strides))):
        if size != 1 and stride != dense:
            return False
        dense *= size
    return True


def view_chain(v: SSAValue) -> list[memref.SubviewOp]:
    """The subviews making `v`, outermost first."""
    chain = []
    while isinstance(v.owner, memref.SubviewOp):
        chain.append(v.owner)
        v = v.owner.source
    return chain[::-1]


# --------------------------------------------------------------------------------------
# The rewrites (tentative: apply / undo, kept where the plan fits)
# --------------------------------------------------------------------------------------


@dataclass
class Forward:
    """A load of the whole host buffer, dropped: its readers read the assembled buffer and
    wait for the last copy into it before them (`last`; None: no copy is left to wait for)."""

    load: accel.DmaStartOp
    last: accel.DmaStartOp | None
    readers: list[tuple[Operation, int]] = field(default_factory=list)
    waits: list[tuple[accel.DmaWaitOp, list[SSAValue]]] = field(default_factory=list)
    detached: list[tuple[Operation, Operation | None]] = field(default_factory=list)

    def apply(self, device: SSAValue) -> None:
        dest = self.load.dest
        self.readers = [(u.operation, u.index) for u in dest.uses if u.operation is not self.load]
        for user, index in self.readers:
            user.operands[index] = device
        self.waits = []
        for use in list(self.load.token.uses):
            wait = use.operation
            old = list(wait.operands)
            rest = [t for t in old if t is not self.load.token]
            if self.last is not None and self.last.token not in rest:
                rest.append(self.last.token)
            wait.operands = rest
            self.waits.append((wait, old))
        self.detached = []
        for op in (self.load, dest.owner):
            self.detached.append((op, op.next_op))
            op.detach()

    def undo(self) -> None:
        for op, successor in reversed(self.detached):
            Rewriter.insert_op(op, InsertPoint.before(successor))
        for wait, old in self.waits:
            wait.operands = old
        for user, index in self.readers:
            user.operands[index] = self.load.dest

    def commit(self) -> None:
        for op, _ in self.detached:
            op.erase()
        for wait, _ in self.waits:
            if not wait.operands and wait.parent is not None:
                Rewriter.erase_op(wait)


@dataclass
class Assembly:
    """A region-local host buffer replaced by a scratchpad buffer: its transfers become
    copies on the device (and loads of all of it after its last copy are dropped)."""

    host: memref.AllocOp
    transfers: list[tuple[accel.DmaStartOp, int]]
    first: Operation
    """The op of the function's block before which the assembled buffer is allocated."""
    forwards: list[Forward]
    device: accel.AllocOp | None = None
    views: list[Operation] = field(default_factory=list)
    originals: list[SSAValue] = field(default_factory=list)
    waits: list[tuple[accel.DmaWaitOp, list[SSAValue]]] = field(default_factory=list)

    def apply(self) -> None:
        self.device = accel.AllocOp(spm_type(self.host.memref.type))
        Rewriter.insert_op(self.device, InsertPoint.before(self.first))
        self.originals = [dma.operands[index] for dma, index in self.transfers]
        for dma, index in self.transfers:
            dma.operands[index] = device_view(dma.operands[index], self.host.memref, self.device.result,
                                              InsertPoint.before(dma), self.views)
        # Nobody waits for the copies into the assembled buffer: the DMA engine runs the
        # copies out of it after them, and the readers the forwards leave wait for the last.
        self.waits = []
        for dma, index in self.transfers:
            if index != 1:
                continue
            for use in list(dma.token.uses):
                wait = use.operation
                if isinstance(wait, accel.DmaWaitOp):
                    self.waits.append((wait, list(wait.operands)))
                    wait.operands = [t for t in wait.operands if t is not dma.token]
        for f in self.forwards:
            f.apply(self.device.result)

    def footprint(self) -> Footprint:
        # Transfers and readers trade the host buffer for the assembled one; a forwarded
        # load and its buffer leave the IR (and come back where they were); its readers
        # wait for the last copy into the assembled buffer instead.
        moved = [self.device, *self.views, *(op for f in self.forwards for op, _ in f.detached)]
        return Footprint(moved, [wait for f in self.forwards for wait, _ in f.waits], [self.device])

    def undo(self) -> None:
        for f in reversed(self.forwards):
            f.undo()
        for wait, old in reversed(self.waits):
            wait.operands = old
        self.waits = []
        for (dma, index), original in zip(self.transfers, self.originals):
            dma.operands[index] = original
        for view in reversed(self.views):
            Rewriter.erase_op(view)
        self.views = []
        Rewriter.erase_op(self.device)
        self.device = None

    def commit(self) -> None:
        """Drop the forwarded loads, the host buffer and the views of it that nothing uses
        any more."""
        for f in self.forwards:
            f.commit()
        for wait, _ in self.waits:
            if not wait.operands and wait.parent is not None:
                Rewriter.erase_op(wait)
        for view in dict.fromkeys(v.owner for v in self.originals if isinstance(v.owner, VIEWS)):
            if view.parent is not None:
                erase_if_unused(view)
        if self.host.parent is not None and not self.host.memref.uses:
            Rewriter.erase_op(self.host)


def forwardable(host: SSAValue, transfers: list[tuple[accel.DmaStartOp, int]], block: Block,
                pos: dict) -> list[Forward]:
    """The loads of all of `host` in `block` that come after every write of it, when the
    last write is an op of `block` (its token is at hand to wait for) and the loaded
    buffer is only read."""
    writes = [d for d, i in transfers if i == 1]
    last = max(writes, key=lambda d: pos[ancestor_in(d, block)])
    if last.parent is not block:
        return []
    found = []
    for load, index in transfers:
        dest = load.dest
        if index != 0 or load.parent is not block or load.source is not host or pos[load] <= pos[last]:
            continue
        if not isinstance(dest.owner, accel.AllocOp) or dest.owner.parent is not block or \
                dest.type != spm_type(dest.type):
            continue
        readers = [u.operation for u in dest.uses if u.operation is not load]
        if all((isinstance(r, accel.ComputeOp) and r.output is not dest) or
               (isinstance(r, accel.DmaStartOp) and r.source is dest) for r in readers):
            found.append(Forward(load, last))
    return found


@dataclass
class InPlace:
    """A tile computed straight into its (contiguous) view of the assembled buffer, instead
    of into a buffer of its own followed by a copy."""

    copy: accel.DmaStartOp
    compute: accel.ComputeOp
    tile: accel.AllocOp
    device: accel.AllocOp
    device_home: Operation
    """The compute's op in the function's block: the assembled buffer is allocated before
    it when it comes later."""
    home_at: int
    """Its position in the function's block (before any of these rewrites)."""
    device_at: list[int]
    """Where the assembled buffer is allocated now (shared by the assembly's tiles)."""
    earlier: list[accel.DmaStartOp]
    """The copies into the assembled buffer before this one, in program order (all ops of
    the function's block when this copy is waited for: the last before its readers)."""
    moved: list[tuple[Operation, Operation | None]] = field(default_factory=list)
    was_at: int = 0

    def apply(self) -> None:
        point = InsertPoint.before(self.compute)
        self.moved = []
        self.was_at = self.device_at[0]
        if self.home_at < self.device_at[0]:
            self.moved.append((self.device, self.device.next_op))
            self.device.detach()
            Rewriter.insert_op(self.device, InsertPoint.before(self.device_home))
            self.device_at[0] = self.home_at
        for view in view_chain(self.copy.dest):
            self.moved.append((view, view.next_op))
            view.detach()
            Rewriter.insert_op(view, point)
        self.compute.operands[len(self.compute.operands) - 1] = self.copy.dest

    def undo(self) -> None:
        self.compute.operands[len(self.compute.operands) - 1] = self.tile.result
        for op, successor in reversed(self.moved):
            op.detach()
            Rewriter.insert_op(op, InsertPoint.before(successor))
        self.moved = []
        self.device_at[0] = self.was_at

    def footprint(self) -> Footprint:
        # The waits for the copy wait for an earlier copy once committed (see `commit`).
        return Footprint([op for op, _ in self.moved], [u.operation for u in self.copy.token.uses], [self.tile, self.device])

    def commit(self) -> None:
        if self.copy.token.uses:
            # Readers waited for this copy to cover the ones before it: now they wait for
            # the last of those still there (or for none).
            left = [w for w in self.earlier if w.parent is not None]
            last = left[-1] if left else None
            for use in list(self.copy.token.uses):
                wait = use.operation
                rest = [t for t in wait.operands if t is not self.copy.token]
                if last is not None and last.token not in rest:
                    rest.append(last.token)
                if rest:
                    wait.operands = rest
                else:
                    Rewriter.erase_op(wait)
        erase_transfer(self.copy)
        Rewriter.erase_op(self.tile)


def _in_place_candidates(assemblies: list[Assembly], block: Block) -> list[InPlace]:
    found = []
    orders: dict[Block, dict[Operation, int]] = {}

    def at(op: Operation) -> int:
        """`op`'s position in its block (each block numbered once)."""
        order = orders.get(op.parent)
        if order is None:
            order = orders[op.parent] = {o: n for n, o in enumerate(op.parent.ops)}
        return order[op]

    for a in assemblies:
        assert a.device is not None
        writes = [d for d, i in a.transfers if i == 1]  # in program order (uses are not: sort)
        writes.sort(key=lambda d: at(ancestor_in(d, block)))
        flat = all(w.parent is block for w in writes)
        device_at = [at(a.device)]
        for dma, index in a.transfers:
            if index != 1 or dma.parent is None or not is_contiguous(dma.dest.type) or (dma.token.uses and not flat):
                continue  # waited for and copies in loops before it: its token covers them
            tile = dma.source.owner
            if not isinstance(tile, accel.AllocOp) or tile.parent is not dma.parent:
                continue
            users = [u.operation for u in tile.result.uses]
            computes = [u for u in users if isinstance(u, accel.ComputeOp)]
            if len(users) != 2 or len(computes) != 1 or dma not in users:
                continue
            compute = computes[0]
            if compute.output is not tile.result or compute.reads_output or compute.parent is not dma.parent:
                continue
            if any(isinstance(v, memref.ReinterpretCastOp) for v in view_ops(dma.dest)):
                continue  # a layout op's copy: not a tile the compute could write
            # The view's index operands must be there before the compute.
            chain = view_chain(dma.dest)
            if any(isinstance(o.owner, Operation) and o.owner.parent is dma.parent and
                   o.owner not in chain and at(o.owner) > at(compute)
                   for sv in chain for o in sv.operands[1:]):
                continue
            home = ancestor_in(compute, block)
            found.append(InPlace(dma, compute, tile, a.device, home, at(home), device_at,
                                 writes[:writes.index(dma)]))
    return found


def assemble_function(fn: func.FuncOp, capacity: int, alignment: int, in_place: bool) -> bool:
    block = fn.body.block
    pos = {op: i for i, op in enumerate(block.ops)}
    assemblies = []
    for op in list(block.ops):
        if not isinstance(op, memref.AllocOp) or buffer_bytes(op.memref.type) > capacity:
            continue
        transfers = host_transfers(op.memref)
        if not transfers or not any(i == 0 for _, i in transfers) or \
                not any(i == 1 and d.dest is not op.memref for d, i in transfers):
            continue  # not tiled (optimize-dma forwards a whole write-back), or never read back
        first = min((ancestor_in(d, block) for d, _ in transfers), key=lambda o: pos[o])
        assemblies.append(Assembly(op, transfers, first, forwardable(op.memref, transfers, block, pos)))
    if not assemblies:
        return False

    plan = ScratchpadPlan(fn, capacity, alignment)
    for a in assemblies:
        a.apply()
    kept = keep_fitting(assemblies, plan)
    for a in kept:
        a.commit()
    if not kept:
        return False
    if in_place:
        changes = _in_place_candidates(kept, block)
        for c in changes:
            c.apply()
        committed = keep_fitting(changes, plan)
        prints = [c.footprint() for c in committed]
        for c in committed:
            c.commit()
        # Readers that waited for a copy computed in place wait for an earlier one.
        plan.settle(*merged(prints))
    return True


# --------------------------------------------------------------------------------------
# The pass
# --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class AssembleOnDevice(ModulePass):
    """Tiles of a region-local value that fits the scratchpad are assembled there (copies
    on the device) instead of going through host memory."""

    name = "assemble-on-device"

    target: tuple[str, ...] = ()
    """Descriptions (names or .toml paths) to load for the regions' `accel.target` names;
    by default the compile's targets, then built-ins by name."""

    in_place: bool = True
    """Compute a tile whose view of the assembled buffer is contiguous straight into it."""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        known = target_context(ctx)
        known.load(self.target)
        for fn, name in list(accelerator_functions(op)):
            if placement_of(fn) != "dma":
                continue
            desc = known.named(name, fn)
            if not desc.lowers_to_accel or not desc.copies_on_device:
                continue
            if assemble_function(fn, desc.memory.scratchpad_bytes, desc.memory.alignment, self.in_place):
                plan_scratchpad(fn, desc.memory.scratchpad_bytes, desc.memory.alignment)
