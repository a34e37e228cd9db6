"""optimize-dma: remove redundant transfers and overlap the rest with compute.

Runs after `insert-dma`, whose placement copies every operand of every op in and out.
Each part can be switched off:

- `hoist`: a transfer inside a loop whose source does not change across iterations (a
  weight tile, an input that all row tiles share) is issued once, before the loop;
- `forward`: data already on the device is reused instead of transferred again, within a
  region: a value written back to host memory and read again by the next op stays in
  the scratchpad (store-to-load forwarding), a layout op's view of such a value (a
  transpose, slice or reshape: `memref.reinterpret_cast`) is copied on the device out of
  the same view of it, or read as that view when it is dense (a reshape), a copy on the
  device of such a value (into a concatenation) reads its device copy, a slice copied on
  the device into a buffer of its own and from there into its place (a pad's border row)
  is one copy, a value read by several ops moves once,
  a write-back of a region-local intermediate that nobody reads any more is dropped, and
  the partial sums of a product split along K, written back and loaded again for the
  next K tile, stay in the first tile's buffer (the later tiles accumulate into it);
- `cross-region`: a value that regions of one target pass among themselves (one writes
  it, or the first one loads it, later ones read it) gets a scratchpad buffer of its own,
  allocated in `@main` and passed to those regions: later regions do not transfer it, and
  it goes back to the host only if the host needs it;
- `double-buffer`: in a tiled loop, the transfer of the next tile is issued before the
  compute of the current one, into the other half of a two-slot scratchpad buffer (the
  slot and the pending token are loop-carried), so the DMA engine works while the
  compute engine does; that prefetch is guarded (`if %next < %ub`: the last iteration has
  no next tile, and the loop keeps all its iterations); computed tiles get two slots too and
  their write-backs are not waited for in the loop. Outside loops, each load is issued
  one compute op earlier (the next op's operands arrive while the current one computes; in
  the first round a loop that does not write its source counts as one op: the load goes
  before it, and the loop's last iteration overlaps it),
  no write-back is waited for (transfers run in order; the region ends with a sync), and
  a copy on the device (a layout op's) is waited for just before the first op that reads
  its destination, copies issued together going in the order they are needed.

A tuned op (`accel.tuning`) may ask for single buffering (`double_buffer = false`: its
loops are not double-buffered) or a prefetch distance of its own (`prefetch = N`: its
loads move at most N compute ops earlier, instead of `prefetch-depth`).

- `prefetch-regions`: the loads that a region's first compute waits for, whose sources
  are ready when the region of the same target before it is called (weights; inputs
  that nothing writes in between), are issued by that earlier region before its last
  compute, into scratchpad buffers allocated in `@main` (as for `cross-region`): they
  overlap its compute instead of stalling the next region's start. The earlier region's
  final sync completes them.

Every step is kept only if the scratchpad plan (by liveness, across regions) still fits;
otherwise that step is undone. (Zero-copy for targets sharing host memory is decided by
`insert-dma`: such regions have no transfers to optimize.)

Before (two ops of one region, after insert-dma):

    %t1 = accel.dma_start %s1, %tmp : ...spm..., memref<64xf32>
    accel.dma_wait %t1
    %s2 = accel.alloc : memref<64xf32, #accel.mem<"spm">>
    %t2 = accel.dma_start %tmp, %s2 : memref<64xf32>, ...spm...
    accel.dma_wait %t2
    accel.eltwise ins(%s2 : ...) outs(%s3 : ...) {kind = "relu"}

After (`%tmp` is local to the region and read by nobody else):

    accel.eltwise ins(%s1 : ...) outs(%s3 : ...) {kind = "relu"}
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field

from xdsl.context import Context
from xdsl.dialects import arith, func, memref, scf
from xdsl.dialects.builtin import (ArrayAttr, DictionaryAttr, FunctionType, IndexType, MemRefType, ModuleOp, StringAttr,
                                   StridedLayoutAttr, UnitAttr)
from xdsl.ir import Block, BlockArgument, Operation, Region, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter
from xdsl.traits import MemoryEffect, MemoryEffectKind, SymbolTable, is_side_effect_free, only_has_effect

from accel.compiler.diagnostics import CompileError
from accel.compiler.scoped_cse import scoped_cse
from accel.compiler.targets.context import target_context
from accel.compiler.targets.schema import READY_BLOCK_MAX
from accel.compiler.tensors import numpy_dtype, row_major_strides
from accel.compiler.index_arith import INDEX_ARITH, IndexConstants, constant_index, hoist_index_constants
from accel.compiler.ir_journal import IMMEDIATE, Journal
from accel.compiler.ir_build import (VIEWS, defined_outside, dense_values, index_op, ops_between, root, strided_layout,
                                     subview, view_of)
from accel.compiler.memory_plan import Footprint, ModuleLiveBytes, ScratchpadPlan, merged, plan_scratchpad_module
from accel.dialects import accel
from accel.dialects.conventions import (RESIDENT_ATTR, TARGET_ATTR, TUNING_ATTR, accelerator_functions, is_output_arg,
                                        placement_of, target_of, tuning_of)


# --------------------------------------------------------------------------------------
# Small IR utilities
# --------------------------------------------------------------------------------------


def host_key(v: SSAValue):
    """What host memory a view denotes: the value itself for whole buffers and dynamic
    views (same iteration), (root, offsets, sizes) for static views."""
    op = v.owner
    if isinstance(op, memref.SubviewOp) and len(op.operands) == 1:  # (its source only: all static)
        return (root(v), dense_values(op.static_offsets), dense_values(op.static_sizes))
    return v


def drop_token(token: SSAValue, journal: Journal = IMMEDIATE) -> None:
    """Remove a transfer's token from the waits that name it (erasing empty waits)."""
    for use in list(token.uses):
        wait = use.operation
        if not isinstance(wait, accel.DmaWaitOp):
            continue
        rest = tuple(t for t in wait.tokens if t is not token)
        if rest:
            journal.set_operands(wait, rest)
        else:
            journal.erase(wait)


def erase_transfer(dma: accel.DmaStartOp, journal: Journal = IMMEDIATE) -> None:
    drop_token(dma.token, journal)
    journal.erase(dma)


def erase_if_unused(op: Operation | None, journal: Journal = IMMEDIATE) -> None:
    while op is not None and isinstance(op, (accel.AllocOp, *VIEWS, memref.AllocOp)) and \
            not op.results[0].uses:
        source = op.source if isinstance(op, VIEWS) else None
        journal.erase(op)
        op = source.owner if source is not None and isinstance(source.owner, Operation) else None


def writes(op: Operation) -> list[SSAValue]:
    if isinstance(op, accel.ComputeOp):
        return [op.output]
    if isinstance(op, accel.DmaStartOp):
        return [op.dest]
    return []


# --------------------------------------------------------------------------------------
# Hoisting loop-invariant transfers
# --------------------------------------------------------------------------------------


def hoist_invariant_loads(loop: scf.ForOp, journal: Journal = IMMEDIATE) -> bool:
    """Move the loop-invariant transfers of `loop` (with their buffers and views) before it,
    each change through `journal` (to be undone or kept, see `_per_loop`)."""
    changed = False
    body = loop.body.block
    # How many ops of the loop write each buffer (a transfer into it counts).
    writers: dict[SSAValue, int] = {}
    for op in loop.walk():
        for v in writes(op):
            writers[root(v)] = writers.get(root(v), 0) + 1
    for dma in [op for op in body.ops if isinstance(op, accel.DmaStartOp) and op.to_device and not op.guarded]:
        src, dst = dma.source, dma.dest
        chain = []
        v = src
        ok = True
        while isinstance(v.owner, memref.SubviewOp) and not defined_outside(v, loop):
            sv = v.owner
            if any(not defined_outside(o, loop) for o in sv.operands[1:]):  # offsets, sizes, strides
                ok = False
                break
            chain.append(sv)
            v = sv.source
        if not ok or not defined_outside(v, loop) or root(src) in writers:
            continue
        if any(len(list(sv.result.uses)) != 1 for sv in chain):
            continue
        alloc = dst.owner
        if not isinstance(alloc, accel.AllocOp) or alloc.parent is not body:
            continue
        if writers.get(dst, 0) > 1:  # written by something besides this transfer
            continue
        # Move the view chain, the buffer and the transfer before the loop; wait there.
        point = InsertPoint.before(loop)
        for sv in reversed(chain):
            journal.move(sv, point)
        journal.move(alloc, point)
        drop_token(dma.token, journal)
        journal.move(dma, point)
        journal.insert(accel.DmaWaitOp(dma.token), point)
        changed = True
    return changed


# --------------------------------------------------------------------------------------
# Forwarding and dead write-backs
# --------------------------------------------------------------------------------------


@dataclass
class Forwarding:
    """A load whose readers now use a copy already on the device (tentatively: the load
    stays until the plan says the longer life of that copy fits)."""

    load: accel.DmaStartOp
    uses: list[tuple[Operation, int]]
    have: SSAValue
    detached: list[Operation] = field(default_factory=list)
    """The load and its buffer while the reuse is tentative (out of the IR, so that the
    plan does not count a buffer nothing reads), put back before `anchor` to undo."""
    anchor: Operation | None = None
    needs: list = field(default_factory=list)
    """Changes this one is void without (the one making `have`), for `keep_fitting`."""

    def apply(self) -> None:
        for user, index in self.uses:
            user.operands[index] = self.have
        load, alloc = self.load, self.load.dest.owner
        waits = [u.operation for u in load.token.uses if u.operation.parent is load.parent]
        if waits and isinstance(alloc, accel.AllocOp) and alloc.parent is load.parent and \
                all(u.operation is load for u in alloc.result.uses):
            self.anchor = waits[0]
            self.detached = [alloc, load]
            for op in self.detached:
                op.detach()

    def undo(self) -> None:
        self._reattach()
        for user, index in self.uses:
            user.operands[index] = self.load.dest

    def _reattach(self) -> None:
        for op in self.detached:
            Rewriter.insert_op(op, InsertPoint.before(self.anchor))
        self.detached = []

    def no_room(self, plan: ScratchpadPlan) -> bool:
        """Whether the plan says the reuse cannot fit, before it is made: the copy now
        lives on up to the load's buffer (which its readers trade for it)."""
        have, dest = root(self.have).owner, self.load.dest.owner
        return isinstance(have, accel.AllocOp) and isinstance(dest, accel.AllocOp) and \
            plan.no_room_to_extend(have, dest)

    def footprint(self) -> Footprint:
        # The load and its buffer leave the IR (and come back before `anchor` on undo);
        # the readers trade one buffer for the other.
        return Footprint(list(self.detached), [], [*_alloc_of(self.have), *_alloc_of(self.load.dest)])

    def commit(self) -> None:
        if self.detached:  # out of the IR already: drop it (the waits forget its token)
            source = self.load.source
            drop_token(self.load.token)
            for op in reversed(self.detached):
                op.erase()
            self.detached = []
            erase_if_unused(source.owner if isinstance(source.owner, Operation) else None)
            return
        alloc, source = self.load.dest.owner, self.load.source
        erase_transfer(self.load)
        erase_if_unused(alloc)
        erase_if_unused(source.owner if isinstance(source.owner, Operation) else None)


def _alloc_of(v: SSAValue) -> list[Operation]:
    owner = root(v).owner
    return [owner] if isinstance(owner, accel.AllocOp) else []


def keep_fitting(changes: list, plan: ScratchpadPlan) -> list:
    """Of tentatively applied `changes` (with apply, undo and footprint), keep a subset
    under which the scratchpad plan fits: all if they fit together, else each in turn
    where it fits beside those kept before it (a change with `no_room(plan)` that says
    it cannot is passed over without being made). Each check costs what its change touches
    (see `ScratchpadPlan`), so trying them all costs their sizes, not the region's. A
    change not kept that holds ops out of the IR for a retry (`discard`) lets them go."""
    if not changes:
        return changes
    kept = _keep_fitting(changes, plan)
    if len(kept) < len(changes):
        kept_ids = {id(c) for c in kept}
        for c in changes:
            discard = getattr(c, "discard", None)
            if id(c) not in kept_ids and discard is not None:
                discard()
    return kept


def _keep_fitting(changes: list, plan: ScratchpadPlan) -> list:
    prints = [c.footprint() for c in changes]
    # Where the plan refuses one change before any is made (its screen), it refuses
    # them all together: the check of all, which would cost as much as checking each in
    # turn, and undoing it, are spared.
    if not any(_screened(c, plan) for c in changes) and plan.check(*merged(prints), batch=True):
        return changes
    # Undone in reverse, but moves of loads (one round's, in block order) in their order:
    # each goes back before the first op after it that stays put, so loads sharing that op
    # would swap.
    for c in (changes if all(type(c) is Prefetch for c in changes) else reversed(changes)):
        c.undo()
    plan.settle(*merged(prints))
    kept = []
    kept_ids: set[int] = set()
    for c in changes:
        if any(id(n) not in kept_ids for n in getattr(c, "needs", ())):
            continue  # what it reuses was not kept
        if _screened(c, plan):
            continue  # the check would refuse it: neither made nor checked
        c.apply()
        footprint = c.footprint()
        if plan.check(*footprint):
            kept.append(c)
            kept_ids.add(id(c))
            continue
        c.undo()
        plan.settle(*footprint)
    return kept


def _screened(change, plan: ScratchpadPlan) -> bool:
    """Whether the plan refuses `change` before it is checked (its `no_room`, if any)."""
    screen = getattr(change, "no_room", None)
    return screen is not None and screen(plan)


def reuses_copy(user: Operation, dest: SSAValue, readers) -> bool:
    """Whether `user` of a loaded buffer `dest` can use a device copy instead: an op
    reading it, a copy on the device reading it (into a concatenation), or one
    accumulating into it (partial sums of a K tile stay on the device) together with the
    write-back of its result."""
    if isinstance(user, accel.ComputeOp):
        return user.output is not dest or user.reads_output
    if not (isinstance(user, accel.DmaStartOp) and user.source is dest):
        return False
    return user.on_device or any(isinstance(u.operation, accel.ComputeOp) and u.operation.output is dest and
                                 u.operation.reads_output for u in readers)


def view_ops(v: SSAValue) -> list[Operation]:
    """The views making `v` from its root buffer, innermost (on the root) first."""
    chain = []
    while isinstance(v.owner, VIEWS):
        chain.append(v.owner)
        v = v.owner.source
    return chain[::-1]


def clone_view(view: Operation, source: SSAValue) -> Operation:
    """`view` taken of `source` (a scratchpad buffer standing for its host buffer)."""
    assert isinstance(view, (memref.SubviewOp, memref.ReinterpretCastOp))
    return view_of(view, source, accel.in_space(view.results[0].type, source.type.memory_space))


def _erase_detached(ops: list[Operation]) -> None:
    """Erase the ops of `ops` held out of the IR (last first: each uses the one before)."""
    for op in reversed(ops):
        if op.parent is None:
            op.erase(safe_erase=False)


def cloned_views(host_view: SSAValue, device: SSAValue) -> list[Operation]:
    """The views making `host_view` of its root, taken of `device` instead (not inserted)."""
    made: list[Operation] = []
    v = device
    for view in view_ops(host_view):
        made.append(clone_view(view, v))
        v = made[-1].results[0]
    return made


@dataclass
class ViewForwarding:
    """A load of a view of a host buffer whose whole data has a copy on the device: the
    load becomes a copy on the device out of the same view of that copy (a layout op's
    transpose or slice of a value the region computed stays on the device)."""

    load: accel.DmaStartOp
    have: SSAValue
    host_view: SSAValue
    made: list[Operation] = field(default_factory=list)
    needs: list = field(default_factory=list)

    def apply(self) -> None:
        if not self.made:  # made once: a later forwarding may name the view (kept across undo)
            self.made = cloned_views(self.host_view, self.have)
        Rewriter.insert_op(self.made, InsertPoint.before(self.load))
        self.load.operands[0] = self.made[-1].results[0]

    def undo(self) -> None:
        self.load.operands[0] = self.host_view
        for op in reversed(self.made):
            op.detach()

    def discard(self) -> None:
        """Not kept: the views held for a retry are erased (they still use the copy)."""
        _erase_detached(self.made)

    def footprint(self) -> Footprint:
        return Footprint(list(self.made), [self.load], [*_alloc_of(self.have)])

    def commit(self) -> None:
        erase_if_unused(self.host_view.owner if isinstance(self.host_view.owner, Operation) else None)


@dataclass
class AliasForwarding(Forwarding):
    """A load of a dense view of a host buffer (a reshape) whose whole data is on the
    device: its readers read the same view of that copy, nothing moves. `have` is the
    copy until `apply` takes the view of it."""

    whole: SSAValue | None = None
    made: list[Operation] = field(default_factory=list)

    def apply(self) -> None:
        if self.whole is None:  # the view is made once: a later forwarding may name it
            self.whole = self.have
            self.made = cloned_views(self.load.source, self.whole)
            self.have = self.made[-1].results[0]
        Rewriter.insert_op(self.made, InsertPoint.before(self.load))
        super().apply()

    def undo(self) -> None:
        super().undo()
        for op in reversed(self.made):
            op.detach()

    def discard(self) -> None:
        """Not kept: the views held for a retry are erased (they still use the copy)."""
        _erase_detached(self.made)

    def footprint(self) -> Footprint:
        moved, touched, buffers = super().footprint()
        return Footprint([*moved, *self.made], touched, [*buffers, *_alloc_of(self.whole)])


class DeviceCopies:
    """Which host data has a copy on the device: host key -> scratchpad value, indexed by
    the root buffer on either side so that a write invalidates in time proportional to
    what it invalidates (a region's walk stays linear in its ops). Changes are logged, so
    that what a loop's body learns is forgotten after it in time proportional to that
    (not to all that is known: a copy per loop would make the walk quadratic)."""

    def __init__(self) -> None:
        self.copies: dict = {}
        self.by_host: dict[SSAValue, set] = {}
        self.by_device: dict[SSAValue, set] = {}
        self.log: list[tuple] = []  # (key, its value before the change, None if it had none)
        self.made_by: dict[SSAValue, AliasForwarding] = {}
        """Device views a tentative alias made: what reuses one needs that alias kept."""

    @staticmethod
    def host_root(k) -> SSAValue:
        return k[0] if isinstance(k, tuple) else root(k)

    def get(self, k) -> SSAValue | None:
        return self.copies.get(k)

    def set(self, k, v: SSAValue) -> None:
        self.log.append((k, self.copies.get(k)))
        self._remove(k)
        self._put(k, v)

    def drop(self, k) -> None:
        if k in self.copies:
            self.log.append((k, self.copies[k]))
            self._remove(k)

    def invalidate_host(self, r: SSAValue) -> None:
        for k in list(self.by_host.get(r, ())):
            self.drop(k)

    def invalidate_device(self, r: SSAValue) -> None:
        for k in list(self.by_device.get(r, ())):
            self.drop(k)

    def mark(self) -> int:
        return len(self.log)

    def restore(self, mark: int) -> None:
        """Undo the changes since `mark`."""
        while len(self.log) > mark:
            k, old = self.log.pop()
            self._remove(k)
            if old is not None:
                self._put(k, old)

    def _put(self, k, v: SSAValue) -> None:
        self.copies[k] = v
        self.by_host.setdefault(self.host_root(k), set()).add(k)
        self.by_device.setdefault(root(v), set()).add(k)

    def _remove(self, k) -> None:
        v = self.copies.pop(k, None)
        if v is not None:
            self.by_host[self.host_root(k)].discard(k)
            self.by_device[root(v)].discard(k)


def _made_by(on_device: DeviceCopies, v: SSAValue) -> list:
    made = on_device.made_by.get(v)
    return [made] if made is not None else []


def _stores(user: Operation, v: SSAValue) -> bool:
    """Whether `user` writes `v` back to host memory."""
    return isinstance(user, accel.DmaStartOp) and user.source is v and user.to_host


def _whole_copy(on_device: DeviceCopies, source: SSAValue) -> SSAValue | None:
    """A dense scratchpad copy of the whole buffer `source` is a layout op's view of (a
    tile of one included), if known. (Tiles alone are left to assemble-on-device, whose
    plan weighs them: holding a whole buffer for its tiles can cost more than it saves.)"""
    if not any(isinstance(v, memref.ReinterpretCastOp) for v in view_ops(source)):
        return None
    host = root(source)
    have = on_device.get(host)
    if have is None or have.type.get_shape() != host.type.get_shape() or \
            isinstance(have.type.layout, StridedLayoutAttr) or accel.memory_space(have.type) != "spm":
        return None
    return have


def find_forwardings(block: Block, on_device: DeviceCopies | None = None,
                     found: list | None = None, views: bool = False) -> list[Forwarding | ViewForwarding]:
    """Walk `block` (and its loops) tracking which host data has a copy on the device,
    and apply every reuse tentatively. A loop inherits what it does not overwrite, and
    that stays known past its end. With `views` (a target with a copy on the device), a
    load of a view of a buffer whose whole data is on the device copies that view of it
    on the device instead."""
    on_device = DeviceCopies() if on_device is None else on_device
    found = [] if found is None else found

    for op in list(block.ops):
        if isinstance(op, accel.DmaStartOp):
            if op.guarded:  # it may not be issued: what its destination holds is unknown
                (on_device.invalidate_host if op.to_host else on_device.invalidate_device)(root(op.dest))
            elif op.to_device:
                key = host_key(op.source)
                have = on_device.get(key)
                readers = [u for u in op.dest.uses if u.operation is not op]
                if have is not None and isinstance(op.dest.owner, accel.AllocOp) and \
                        tuple(have.type.get_shape()) == tuple(op.dest.type.get_shape()) and \
                        all(reuses_copy(u.operation, op.dest, readers) for u in readers):
                    fwd = Forwarding(op, [(u.operation, u.index) for u in readers], have)
                    fwd.needs = _made_by(on_device, have)
                    fwd.apply()
                    found.append(fwd)
                    continue
                whole = _whole_copy(on_device, op.source) if views and have is None else None
                if whole is not None:
                    dense = not isinstance(op.source.type.layout, StridedLayoutAttr)
                    if dense and isinstance(op.dest.owner, accel.AllocOp) and \
                            all(reuses_copy(u.operation, op.dest, readers) or _stores(u.operation, op.dest)
                                for u in readers):
                        fwd = AliasForwarding(op, [(u.operation, u.index) for u in readers], whole)
                    else:
                        fwd = ViewForwarding(op, whole, op.source)
                    fwd.needs = _made_by(on_device, whole)
                    fwd.apply()
                    found.append(fwd)
                    if isinstance(fwd, AliasForwarding):
                        on_device.made_by[fwd.have] = fwd
                        continue
                on_device.invalidate_device(root(op.dest))
                on_device.set(key, op.dest)
            elif op.on_device:  # a copy on the device overwrites what its destination held
                on_device.invalidate_device(root(op.dest))
            else:
                on_device.invalidate_host(root(op.dest))
                on_device.set(host_key(op.dest), op.source)
        elif isinstance(op, accel.ComputeOp):
            on_device.invalidate_device(root(op.output))
        elif op.regions:
            # What the loop writes (host or device) is unknown inside it and after it.
            for r in {root(v) for inner in op.walk() for v in writes(inner)}:
                on_device.invalidate_host(r)
                on_device.invalidate_device(r)
            for region in op.regions:
                for b in region.blocks:
                    mark = on_device.mark()
                    find_forwardings(b, on_device, found, views)
                    on_device.restore(mark)
    return found


COPY_FORWARD_REACH = 64
"""How many ops apart (nested ones counted) a copy on the device and the copy reading its
result may be for `find_copy_forwardings` to check what lies between (a bound per pair:
the pass stays linear)."""


def _written_between(first: Operation, last: Operation, r: SSAValue) -> bool | None:
    """Whether an op between `first` and `last` of one block writes buffer `r`; None when
    `last` is not after `first` within `COPY_FORWARD_REACH` ops."""
    seen = 0
    op = first.next_op
    while op is not None and op is not last:
        for inner in op.walk():
            seen += 1
            if seen > COPY_FORWARD_REACH:
                return None
            if any(root(v) is r for v in writes(inner)):
                return True
        op = op.next_op
    return None if op is None else False


def find_copy_forwardings(fn: func.FuncOp) -> list[Forwarding]:
    """Copies on the device through a buffer of their own: `A -> T` then `T -> B`, where
    nothing else reads T (a slice copied out, then into its place in a concatenation: a
    pad's border rows, a split feeding a concat) become one copy `A -> B` when nothing
    writes A in between (applied tentatively, as `Forwarding`s of the first copy to the
    second: T leaves the IR, A lives until the second copy)."""
    found = []
    involved: set[Operation] = set()  # a copy in one pair is not in another (no chains)
    for second in [op for op in fn.walk() if isinstance(op, accel.DmaStartOp) and op.on_device]:
        tmp = second.source
        first = next((u.operation for u in tmp.uses if u.operation is not second), None)
        if not (isinstance(tmp.owner, accel.AllocOp) and sum(1 for _ in tmp.uses) == 2 and isinstance(first, accel.DmaStartOp)
                and first.on_device and first.dest is tmp and first.parent is second.parent
                and tmp.owner.parent is first.parent and root(first.source) is not root(second.dest)
                and first not in involved and second not in involved):
            continue
        if _written_between(first, second, root(first.source)) is not False:
            continue
        involved.update((first, second))
        fwd = Forwarding(first, [(second, 0)], first.source)
        fwd.apply()
        found.append(fwd)
    return found


def forward_block(block: Block, plan: ScratchpadPlan, views: bool = False) -> bool:
    """Reuse device copies of host data in `block` (see the module docstring), keeping
    the reuses under which the scratchpad plan fits (`views`: see `find_forwardings`)."""
    kept = keep_fitting(find_forwardings(block, views=views), plan)
    for fwd in kept:
        fwd.commit()
    return bool(kept)


def drop_dead_writebacks(fn: func.FuncOp) -> bool:
    """Write-backs into a region-local host buffer that nothing reads any more."""
    changed = False
    for alloc in [op for op in fn.walk() if isinstance(op, memref.AllocOp)]:
        readers = []
        stack = [alloc.memref]
        dmas_into = []
        while stack:
            v = stack.pop()
            for use in v.uses:
                user = use.operation
                if isinstance(user, memref.SubviewOp):
                    stack.append(user.result)
                elif isinstance(user, accel.DmaStartOp) and user.dest is v:
                    dmas_into.append(user)
                else:
                    readers.append(user)
        if readers:
            continue
        for dma in dmas_into:
            src = dma.source
            erase_transfer(dma)
            if isinstance(src.owner, memref.SubviewOp):
                erase_if_unused(src.owner)
        _erase_dead_views(alloc.memref)
        if not alloc.memref.uses:
            Rewriter.erase_op(alloc)
        changed = True
    return changed


def _erase_dead_views(v: SSAValue) -> None:
    for use in list(v.uses):
        if isinstance(use.operation, memref.SubviewOp):
            _erase_dead_views(use.operation.result)
            if not use.operation.result.uses:
                Rewriter.erase_op(use.operation)


# --------------------------------------------------------------------------------------
# Double buffering
# --------------------------------------------------------------------------------------


SLOT_PAD_LIMIT = 8 * READY_BLOCK_MAX
"""At most this many bytes are added to a slot of a two-slot buffer (see `two_slots`)."""


def two_slots(t: MemRefType) -> MemRefType:
    """The two-slot buffer of tile type `t`: [2, *shape], the leading dimension padded so
    that a slot is whole readiness blocks when that costs at most `SLOT_PAD_LIMIT` bytes
    (small tiles: a bias, a weight tile of a few channels). Otherwise the slot being
    loaded and the one being read would share a block of the scratchpad, and each would
    wait for the other (see `Memory.ready_block`): a larger tile that is not whole
    blocks still shares its boundary block (padding it could cost up to 63 rows), so its
    next load waits for the compute reading the current one."""
    shape = list(t.get_shape())
    row = math.prod(shape[1:]) * numpy_dtype(t.element_type).itemsize
    if shape and row:
        rows_per_block = READY_BLOCK_MAX // math.gcd(row, READY_BLOCK_MAX)
        padded = -(-shape[0] // rows_per_block) * rows_per_block
        if (padded - shape[0]) * row <= SLOT_PAD_LIMIT:
            shape[0] = padded
    return accel.memref_type(t.element_type, [2, *shape], space=accel.SPM)


def _slot_type(two: MemRefType, shape: tuple[int, ...], slot: int | None) -> MemRefType:
    """The type of slot `slot` (None: a slot chosen at run time) of two-slot buffer type
    `two` viewed with the tile's `shape`: taken once per (type object, shape, slot), as a
    pipelined loop views each slot from its prologue and body."""
    key = (id(two), shape, slot)
    found = _SLOT_TYPES.get(key)
    if found is None:
        offset = None if slot is None else slot * math.prod(two.get_shape()[1:])
        layout = strided_layout(tuple(row_major_strides(list(shape))), offset)
        found = _SLOT_TYPES[key] = (two, accel.memref_type(two.element_type, shape, layout, accel.SPM))
    return found[1]


_SLOT_TYPES: dict[tuple, tuple[MemRefType, MemRefType]] = {}
"""`_slot_type`'s answers, with the two-slot type held (its id stays its own)."""


def double_buffer_loop(loop: scf.ForOp, write_backs: bool = True, journal: Journal = IMMEDIATE,
                       plan: ScratchpadPlan | None = None, constants: IndexConstants | None = None) -> bool | None:
    """Pipeline the streamed transfers of `loop` by one iteration (see the docstring);
    with `write_backs`, the computed tiles get two slots as well and their write-backs
    are not waited for inside the loop. The old loop leaves the IR through `journal`
    (unchanged: the new ops are clones), which can put it back (see `_per_loop`) or, kept,
    erases it. None (`NO_ROOM`), nothing built: `plan` says the second slots cannot fit
    (each adds its bytes to the most crowded point of the loop). `constants`: the
    function's index constants (see `IndexConstants`), if the caller keeps them."""
    lb, ub, step = (constant_index(v) for v in (loop.lb, loop.ub, loop.step))
    if lb is None or ub is None or step is None or loop.iter_args or (ub - lb) // step < 2:
        return False
    body = loop.body.block
    iv = body.args[0]
    ops = [op for op in body.ops if not isinstance(op, scf.YieldOp)]
    if any(op.regions for op in ops):
        return False
    loads = [op for op in ops if isinstance(op, accel.DmaStartOp) and op.to_device]
    if not loads or not any(isinstance(op, accel.ComputeOp) for op in ops) or \
            any(isinstance(op, accel.DmaStartOp) and op.guarded for op in ops):
        return False
    for d in loads:
        if not isinstance(d.dest.owner, accel.AllocOp) or d.dest.owner.parent is not body:
            return False
        waits = [u.operation for u in d.token.uses]
        if len(waits) != 1 or not isinstance(waits[0], accel.DmaWaitOp):
            return False
    # Write-backs of tiles computed in the loop: two slots too, and nobody waits for them
    # in the loop (the compute into a slot waits on the device for the write-back that
    # still reads it; the region's final sync completes them).
    stores = [op for op in ops if write_backs and isinstance(op, accel.DmaStartOp) and op.to_host
              and isinstance(op.source.owner, accel.AllocOp) and op.source.owner.parent is body
              and all(isinstance(u.operation, accel.DmaWaitOp) for u in op.token.uses)]
    if plan is not None and plan.no_room_over(loop, [*(d.dest.type for d in loads), *(st.source.type for st in stores)]):
        return NO_ROOM
    n = (ub - lb) // step
    last = lb + (n - 1) * step
    neighbours = (loop.prev_op, loop.next_op)  # what the new ops come between
    pool = IndexConstants.around(loop) if constants is None else constants

    def index(value: int) -> SSAValue:
        return pool.get(value, journal)

    # Slots: each streamed buffer becomes a [2, ...] buffer before the loop.
    before = InsertPoint.before(loop)
    slots: dict[SSAValue, SSAValue] = {}
    for buf in [*(d.dest for d in loads), *(st.source for st in stores)]:
        two = accel.AllocOp(two_slots(buf.type))
        Rewriter.insert_op(two, before)
        slots[buf] = two.result
    deferred = {st.token for st in stores}

    def slot_view(point: InsertPoint, two: SSAValue, slot: int | SSAValue, shape) -> SSAValue:
        """Slot `slot` of a two-slot buffer, as a contiguous view of the tile's shape (a
        rank-reducing subview dropping the slot dimension only)."""
        shape = list(shape)
        rtype = _slot_type(two.type, tuple(shape), slot if isinstance(slot, int) else None)
        offsets = [slot] + [0] * len(shape)
        sv = subview(two, offsets, [1, *shape], [1] * (len(shape) + 1), rtype)
        Rewriter.insert_op(sv, point)
        return sv.result

    # Prologue: the first iteration's loads into slot 0.
    mapping: dict[SSAValue, SSAValue] = {iv: index(lb)}
    first_tokens = []
    for d in loads:
        src = _clone_view(d.source, mapping, before, loop, index)
        view = slot_view(before, slots[d.dest], 0, d.dest.type.get_shape())
        dma = accel.DmaStartOp(src, view)
        Rewriter.insert_op(dma, before)
        first_tokens.append(dma.token)

    # The new loop: the same iterations, carrying (slot, tokens); the last one prefetches
    # nothing (its loads are guarded).
    new_body = Block(arg_types=[IndexType(), IndexType(), *[accel.TokenType()] * len(loads)])
    new_iv, slot, tokens = new_body.args[0], new_body.args[1], list(new_body.args[2:])
    _emit_pipelined_body(new_body, ops, loads, slots, iv, new_iv, slot, tokens, step, last, ub, slot_view, deferred,
                         index)
    new_loop = scf.ForOp(index(lb), index(ub), index(step), [index(0), *first_tokens], Region(new_body))
    Rewriter.insert_op(new_loop, before)
    change = _LoopChange(loop.parent, neighbours[0], neighbours[1], loop)
    loop.detach()
    journal.record(change.undo, change.keep)
    return True


NO_ROOM = None
"""What a step on a loop returns when it knows, before building anything, that what it
would add cannot fit: `_per_loop` then tries the lighter variant."""


def _clone_view(v: SSAValue, mapping: dict, point: InsertPoint, loop: Operation,
                index: Callable[[int], SSAValue]) -> SSAValue:
    """Clone the ops computing view `v` inside `loop` (subviews and index arithmetic) at
    `point`, with the loop's induction variable mapped."""
    if v in mapping:
        return mapping[v]
    owner = v.owner
    if not isinstance(owner, Operation) or defined_outside(v, loop):
        return v
    for operand in owner.operands:
        _clone_view(operand, mapping, point, loop, index)
    _clone_at(owner, mapping, point, index)
    return mapping[v]


def _clone_at(op: Operation, mapping: dict, point: InsertPoint, index: Callable[[int], SSAValue]) -> None:
    """Clone `op` at `point` with `mapping` (its results mapped to the clone's); index
    arithmetic on constants (an iteration's constant index: a prologue's, an epilogue's)
    is folded into the constant `index` gives instead."""
    fold = INDEX_ARITH.get(type(op))
    if fold is not None:
        lhs, rhs = (constant_index(mapping.get(o, o)) for o in op.operands)
        if lhs is not None and rhs is not None:
            mapping[op.results[0]] = index(fold(lhs, rhs))
            return
    clone = op.clone(value_mapper=mapping)
    Rewriter.insert_op(clone, point)
    for old, new in zip(op.results, clone.results):
        mapping[old] = new


def _emit_pipelined_body(block: Block, ops, loads, slots, old_iv, new_iv, slot, tokens, step, last, ub, slot_view,
                         deferred, index: Callable[[int], SSAValue]) -> None:
    """Issue the next iteration's loads into the other slot (guarded: the last iteration
    has no next; their views are taken at the next index clamped to the last, so that
    every view stays within its buffer), then run this iteration."""
    point = InsertPoint.at_end(block)
    other = index_op(arith.SubiOp, index(1), slot)
    Rewriter.insert_op(other, point)
    nxt = index_op(arith.AddiOp, new_iv, index(step))
    Rewriter.insert_op(nxt, point)
    at = index_op(arith.MinSIOp, nxt.result, index(last))
    Rewriter.insert_op(at, point)
    mapping = {old_iv: at.result}
    guard = (nxt.result, index(ub))
    next_tokens = []
    for d in loads:
        src = _clone_view(d.source, mapping, point, d.parent_op(), index)
        view = slot_view(point, slots[d.dest], other.result, d.dest.type.get_shape())
        dma = accel.DmaStartOp(src, view, guard)
        Rewriter.insert_op(dma, point)
        next_tokens.append(dma.token)
    _emit_iteration(point, ops, loads, slots, old_iv, new_iv, slot, tokens, slot_view, deferred, index)
    Rewriter.insert_op(scf.YieldOp(other.result, *next_tokens), point)


def _emit_iteration(point, ops, loads, slots, old_iv, iv, slot, tokens, slot_view, deferred,
                    index: Callable[[int], SSAValue]) -> None:
    """One iteration of the original body: its loads replaced by a wait on the carried
    tokens, slotted buffers by the views of this iteration's slot, write-backs not waited
    for; everything else cloned."""
    mapping: dict[SSAValue, SSAValue] = {old_iv: iv}
    load_set = set(loads)
    load_tokens = {d.token for d in loads}
    for buf, two in slots.items():
        mapping[buf] = slot_view(point, two, slot, buf.type.get_shape())
    waited = False
    for op in ops:
        if op in load_set or (isinstance(op, accel.AllocOp) and op.result in slots):
            continue
        if isinstance(op, memref.SubviewOp) and all(u.operation in load_set for u in op.result.uses):
            continue
        if isinstance(op, accel.DmaWaitOp):
            rest = [mapping.get(t, t) for t in op.tokens if t not in load_tokens and t not in deferred]
            if not waited and any(t in load_tokens for t in op.tokens):
                rest = [*tokens, *rest]
                waited = True
            if rest:
                Rewriter.insert_op(accel.DmaWaitOp(*rest), point)
            continue
        _clone_at(op, mapping, point, index)


# --------------------------------------------------------------------------------------
# Prefetching across ops
# --------------------------------------------------------------------------------------


class BlockOrder:
    """Positions of a block's ops, kept valid for comparisons with ops that stay put while
    others move before them (`is_before_in_block` walks the block: quadratic when asked
    per op)."""

    def __init__(self, block: Block) -> None:
        self.index: dict[Operation, float] = {op: float(i) for i, op in enumerate(block.ops)}

    def before(self, a: Operation, b: Operation) -> bool:
        return self.index[a] < self.index[b]

    def moved(self, ops: list[Operation], successor: Operation) -> None:
        # Between the op that preceded `successor` and it; ops moved before the same op
        # share a position (they are only ever compared with ops that do not move).
        for op in ops:
            self.index[op] = self.index[successor] - 0.5


def _movable_chain(v: SSAValue, block: Block, stop: Operation, order: BlockOrder) -> list[Operation] | None:
    """The ops in `block` after `stop` that compute view `v` (subviews, index
    arithmetic), in order; None if one of them needs a value defined after `stop`."""
    chain: list[Operation] = []

    def visit(val: SSAValue) -> bool:
        owner = val.owner
        if not isinstance(owner, Operation) or owner.parent is not block or order.before(owner, stop):
            return True
        if owner in chain:
            return True
        if not isinstance(owner, (memref.SubviewOp, arith.ConstantOp, *INDEX_ARITH)):
            return False
        if not all(visit(o) for o in owner.operands):
            return False
        chain.append(owner)
        return True

    found = visit(v)
    del visit  # (a recursive closure is a reference cycle: the compile runs without the collector)
    return chain if found else None


def _move_before(ops: list[Operation], successor: Operation) -> None:
    """Put `ops`, in order, just before `successor` (in its block)."""
    for op in ops:
        op.detach()
    successor.parent.insert_ops_before(ops, successor)


@dataclass
class Prefetch:
    """Ops of one load (its views, buffer and transfer) moved before a compute op or a loop."""

    ops: list[Operation]
    target: Operation  # the compute op (or loop) they now precede
    home: Operation  # the op they came before (not itself moved by any prefetch)
    views: int = 0
    """How many of `ops` lead: the ops computing the load's view (pure)."""
    views_stay: bool = False
    """Whether the last undo left the views where `apply` put them: another op (a load
    reading a view CSE merged) used one, and might sit before `home`."""

    def apply(self) -> None:
        # (Views left by an undo stay before `target`: moved again, they could pass a user.)
        _move_before(self.ops[self.views:] if self.views_stay else self.ops, self.target)

    def undo(self) -> None:
        # Views only go back with the load while nothing else uses them: behind another
        # op reading one, they would follow its use. Left earlier, they are only early.
        mine = set(self.ops)
        self.views_stay = any(use.operation not in mine for op in self.ops[:self.views]
                              for r in op.results for use in r.uses)
        _move_before(self.ops[self.views:] if self.views_stay else self.ops, self.home)

    def footprint(self) -> Footprint:
        return Footprint(list(self.ops), [], _alloc_of(self.ops[-1].dest))

    def no_room(self, plan: ScratchpadPlan) -> bool:
        """Whether the plan says the move cannot fit, before it is made: its buffer, live
        from the compute op it would precede on, adds its bytes there (when the move takes
        the buffer's alloc along: else it is live there already)."""
        alloc = self.ops[-2] if len(self.ops) > 1 else None
        return isinstance(alloc, accel.AllocOp) and plan.no_room_over(self.target, [alloc.result.type])


def prefetch_loads(block: Block, plan: ScratchpadPlan, only: set | None = None, past_loops: bool = True) -> set:
    """Issue each load (of `only`, if given) one compute op earlier (before the compute
    op, or with `past_loops` the loop, that precedes it), so the DMA engine fetches the
    next op's operands while the current one computes. Kept where the scratchpad plan
    still fits; returns the loads moved."""
    return {m.ops[-1] for m in keep_fitting(_prefetch_moves(block, only, past_loops=past_loops), plan)}


def prefetch_rounds(block: Block, plan: ScratchpadPlan, rounds: int, within) -> None:
    """`rounds` rounds of `prefetch_loads`, each moving the loads the last one moved
    (`within(loads, round)` filters them; `within(None, 0)`, the first round's). The
    first round is kept where it fits (`keep_fitting`). Where all of its loads fit, the
    later rounds are first applied under one check: where they fit together, each round
    alone would (a move only lengthens lives, so the plan of the last round holds for
    the rounds before it), and the checks of the rounds between are saved. Else (and
    where some of the first round's loads did not fit: the rounds together would not
    either) they are taken round by round, each keeping what fits."""
    if rounds < 1:
        return
    order = BlockOrder(block)  # kept valid through the moves of rounds kept whole
    first = _prefetch_moves(block, within(None, 0), order)
    kept = keep_fitting(first, plan)
    moved = within({m.ops[-1] for m in kept}, 1)
    if len(kept) < len(first):
        _rounds_in_turn(block, plan, moved, 1, rounds, within)
        return
    applied: list[list[Prefetch]] = []
    # The next round's loads are among those the last one moved, in block order (each
    # went before the compute op preceding it, in the order they were met).
    candidates = [m.ops[-1] for m in kept]
    for depth in range(1, rounds):
        if not moved:
            break
        applied.append(_prefetch_moves(block, moved, order, candidates, past_loops=False))
        candidates = [m.ops[-1] for m in applied[-1]]
        moved = within(set(candidates), depth + 1)
    prints = merged([m.footprint() for moves in applied for m in moves])
    # A move only lengthens lives: where one cannot fit alone (its screen, against the
    # plan before the moves), all cannot together, and the failing check (a whole
    # re-plan attempt) is spared.
    if not prints.moved or (not any(m.no_room(plan) for moves in applied for m in moves)
                            and plan.check(*prints, batch=True)):
        return
    # The last round first, each in block order: a round's loads go back before the ops
    # they preceded, in their order (in reverse, loads sharing one would swap).
    for moves in reversed(applied):
        for m in moves:
            m.undo()
    plan.settle(*prints)
    _rounds_in_turn(block, plan, within({m.ops[-1] for m in kept}, 1), 1, rounds, within)


def _rounds_in_turn(block: Block, plan: ScratchpadPlan, moved: set | None, depth: int, rounds: int, within) -> None:
    """Rounds `depth` .. `rounds - 1` of `prefetch_rounds`, one `prefetch_loads` each."""
    while depth < rounds and moved:
        moved = within(prefetch_loads(block, plan, moved, past_loops=False), depth + 1)
        depth += 1


def _prefetch_moves(block: Block, only: set | None, order: BlockOrder | None = None,
                    candidates: list | None = None, past_loops: bool = True) -> list[Prefetch]:
    """The moves of `prefetch_loads`, applied tentatively. `order`: the block's
    `BlockOrder` if the caller keeps one; `candidates`: the loads that may move, in block
    order, if the caller knows them (else the block's, found by a walk); `past_loops`:
    whether a load may go before a loop (the first round's: a load the loop's last
    iteration overlaps; later rounds moving it past more would hold its buffer over
    whole loops, for little, and cost checks)."""
    moves: list[Prefetch] = []
    order = order if order is not None else BlockOrder(block)
    if candidates is None:
        candidates = [op for op in block.ops if isinstance(op, accel.DmaStartOp) and op.to_device]
    for dma in candidates:
        if (only is not None and dma not in only) or dma.guarded:  # (its guard stays where it is)
            continue
        alloc = dma.dest.owner
        if not isinstance(alloc, accel.AllocOp) or alloc.parent is not block:
            continue
        # The compute op (or loop: a double-buffered one keeps its last iteration, which the
        # load overlaps from before it) before this load, nothing in between writing its source.
        prev = dma.prev_op
        src_root = root(dma.source)
        blocked = False
        while prev is not None and not isinstance(prev, accel.ComputeOp):
            if isinstance(prev, accel.DmaStartOp) and prev.to_host and root(prev.dest) is src_root:
                blocked = True
                break
            if prev.regions:
                if past_loops and type(prev) is scf.ForOp and not any(root(v) is src_root for inner in prev.walk() for v in writes(inner)):
                    break
                blocked = True
                break
            prev = prev.prev_op
        if blocked or prev is None or (not prev.regions and root(prev.output) is src_root):
            continue
        chain = _movable_chain(dma.source, block, prev, order)
        if chain is None:
            continue
        ops = [*chain, alloc, dma] if not order.before(alloc, prev) else [*chain, dma]
        # The first op after the load that stays put: where an undo puts it back.
        home = dma.next_op
        while home is not None and isinstance(home, (accel.AllocOp, accel.DmaStartOp, memref.SubviewOp,
                                                      arith.ConstantOp, *INDEX_ARITH)):
            home = home.next_op
        if home is None:
            continue
        move = Prefetch(ops, prev, home, len(chain))
        move.apply()
        order.moved(ops, prev)
        moves.append(move)
    return moves


@dataclass
class DeferredWaits:
    """The waits `defer_writebacks` took out, each with the wait that replaced it (None:
    none did) and the op it preceded, so that they can be put back without a copy of
    the function."""

    taken: list[tuple[accel.DmaWaitOp, tuple[SSAValue, ...], accel.DmaWaitOp | None, Operation]]

    def undo(self) -> None:
        # In reverse: a wait's successor may itself be a wait taken out after it.
        for wait, tokens, replacement, successor in reversed(self.taken):
            wait.operands = tokens
            Rewriter.insert_op(wait, InsertPoint.before(successor))
            if replacement is not None:
                Rewriter.erase_op(replacement)

    def keep(self) -> None:
        for wait, *_ in self.taken:
            wait.erase()

    def footprint(self) -> Footprint:
        # The waits that replace others sit where those were; what is no longer waited for
        # lives shorter.
        return Footprint([r for _, _, r, _ in self.taken if r is not None])


def defer_writebacks(fn: func.FuncOp) -> DeferredWaits:
    """Stop waiting for write-backs: the DMA engine runs transfers in order (a later load of
    the same host bytes comes after), the device orders a later write of the scratchpad
    bytes after the transfer that reads them, and the region ends with a sync; so the
    host need not stall on each result while the next op could compute."""
    taken = []
    for wait in [op for op in fn.walk() if isinstance(op, accel.DmaWaitOp)]:
        keep = [t for t in wait.tokens if not (isinstance(t.owner, accel.DmaStartOp) and t.owner.to_host)]
        if len(keep) == len(wait.tokens):
            continue
        replacement = accel.DmaWaitOp(*keep) if keep else None
        if replacement is not None:
            Rewriter.insert_op(replacement, InsertPoint.before(wait))
        successor = wait.next_op
        assert successor is not None  # a wait is never a block's terminator
        tokens = tuple(wait.tokens)
        wait.detach()
        wait.operands = ()  # out of the tokens' uses while it is out of the IR
        taken.append((wait, tokens, replacement, successor))
    return DeferredWaits(taken)


@dataclass
class DeferredCopyWaits:
    """The waits `defer_copy_waits` changed (each with its tokens before) and the waits it
    inserted, so that the step can be undone without a copy of the function."""

    changed: list[tuple[accel.DmaWaitOp, tuple[SSAValue, ...], Operation]]
    inserted: list[accel.DmaWaitOp]
    reordered: list[list[tuple[accel.DmaStartOp, Operation]]] = field(default_factory=list)
    """Runs of copies issued in another order: each copy with the op that followed it."""

    def undo(self) -> None:
        # Each run's copies back before the ops that followed them, the last first (a
        # copy's follower may be the next copy of the run), then the waits in their places.
        for run in reversed(self.reordered):
            for start, follower in reversed(run):
                start.detach()
                Rewriter.insert_op(start, InsertPoint.before(follower))
        for wait in self.inserted:
            Rewriter.erase_op(wait)
        for wait, tokens, successor in reversed(self.changed):
            wait.operands = tokens
            if wait.parent is None:
                Rewriter.insert_op(wait, InsertPoint.before(successor))

    def keep(self) -> None:
        for wait, _, _ in self.changed:
            if wait.parent is None:
                wait.erase()

    def footprint(self) -> Footprint:
        # The copies' sources are read (and their destinations written) until the new
        # waits: those lives reach further.
        return Footprint([*self.inserted, *(start for run in self.reordered for start, _ in run)],
                         [w for w, _, _ in self.changed if w.parent is not None])


def _roots_touched(op: Operation) -> set[SSAValue]:
    """The buffers `op` (nested ops included) reads or writes, by their roots."""
    if not op.regions:
        return {root(v) for v in op.operands}
    return {root(v) for o in op.walk() if not isinstance(o, VIEWS) for v in o.operands}


def defer_copy_waits(fn: func.FuncOp) -> DeferredCopyWaits:
    """A layout op's copy on the device (out of a `memref.reinterpret_cast` view) is waited
    for just before the first op of the function's block that touches its destination,
    not where it started: the DMA engine copies while the compute ops between run (the
    device orders a later write of the source's bytes after the copy that reads them, as
    for write-backs). Other copies on the device (a forwarded value moved to another
    buffer) are left alone: their sources are whole activations, whose longer lives took
    the room partial-residency keeps rows in (cnn_large_resnet_int8: 2.9 % more bytes). One
    walk of the block: the copies not yet waited for are kept by their destination's
    root until an op touches it (at the block's end, before its terminator). Copies
    issued one after another (only buffers, views and constants between) are then issued
    in the order they are waited for: the DMA engine runs them in order, so the copy the
    next op needs does not queue behind one needed later (a head split's values behind
    its keys)."""
    block = fn.body.block
    changed, inserted = [], []
    pending: dict[SSAValue, list[SSAValue]] = {}
    due: dict[accel.DmaStartOp, int] = {}
    for op in list(block.ops):
        if isinstance(op, accel.DmaWaitOp):
            copies = [t for t in op.tokens if isinstance(t.owner, accel.DmaStartOp) and t.owner.on_device
                      and isinstance(t.owner.source.owner, memref.ReinterpretCastOp)]
            if not copies:
                continue
            successor = op.next_op
            assert successor is not None  # a wait is never a block's terminator
            changed.append((op, tuple(op.tokens), successor))
            rest = tuple(t for t in op.tokens if t not in copies)
            if rest:
                op.operands = rest
            else:
                op.detach()
                op.operands = ()  # out of the tokens' uses while it is out of the IR
            for t in copies:
                pending.setdefault(root(t.owner.dest), []).append(t)
            continue
        if not pending or isinstance(op, VIEWS):
            continue
        # In the order the copies were issued (a set's order would vary from run to run).
        touched = pending.keys() if op is block.last_op else _roots_touched(op)
        ready = [t for r, tokens in pending.items() if r in touched for t in tokens]
        if not ready:
            continue
        for t in ready:
            pending.pop(root(t.owner.dest), None)
            due[t.owner] = len(inserted)
        wait = accel.DmaWaitOp(*ready)
        Rewriter.insert_op(wait, InsertPoint.before(op))
        inserted.append(wait)
    return DeferredCopyWaits(changed, inserted, _issue_by_need(block, due))


_BETWEEN_COPIES = (accel.AllocOp, arith.ConstantOp, *VIEWS)
"""Ops that may stand between copies issued in another order (no transfer, no compute)."""


def _issue_by_need(block: Block, due: dict[accel.DmaStartOp, int]) -> list[list[tuple[accel.DmaStartOp, Operation]]]:
    """Runs of copies in `block` put in the order of `due` (the ordinal of each copy's
    wait), each run's copies after its last (their operands are defined before it); the
    runs changed, each copy with the op that followed it."""
    runs, run = [], []
    for op in block.ops:
        if op in due:
            run.append(op)
        elif not isinstance(op, _BETWEEN_COPIES):
            if len(run) > 1 and any(due[a] > due[b] for a, b in zip(run, run[1:])):
                runs.append(run)
            run = []
    reordered = []
    for run in runs:
        followers = [(start, start.next_op) for start in run]
        successor = run[-1].next_op
        assert successor is not None
        for start in run:
            start.detach()
        for start in sorted(run, key=due.__getitem__):
            Rewriter.insert_op(start, InsertPoint.before(successor))
        reordered.append(followers)
    return reordered


# --------------------------------------------------------------------------------------
# Values that stay on the device between regions
# --------------------------------------------------------------------------------------


def _whole_buffer_transfers(arg: SSAValue) -> list[accel.DmaStartOp] | None:
    """The transfers of a region argument, if it is only ever moved whole."""
    dmas = []
    for use in arg.uses:
        op = use.operation
        if not isinstance(op, accel.DmaStartOp) or op.guarded:
            return None
        dmas.append(op)
    return dmas


@dataclass
class Resident:
    """A host buffer of @main that regions of one target pass among themselves."""

    buffer: SSAValue  # the host buffer (a memref.alloc or an argument of @main)
    first: tuple[func.CallOp, func.FuncOp, int]  # the region that writes it, or reads it first
    first_writes: bool
    later: list[tuple[func.CallOp, func.FuncOp, int]]  # regions that read it afterwards
    host_needs_it: bool  # read on the host, or the model's input/output


def _resident_candidates(module: ModuleOp, target_name: str) -> list[Resident]:
    """Host buffers written by one region of the target (or by the host) and read by
    later regions of it, each region moving the whole buffer."""
    main = SymbolTable.lookup_symbol(module, "main")
    if not isinstance(main, func.FuncOp):
        return []
    fns = {fn.sym_name.data: fn for fn, t in accelerator_functions(module) if t == target_name
           and placement_of(fn) == "dma"}
    calls_of: dict[str, int] = {}
    for op in main.body.block.ops:
        if isinstance(op, func.CallOp):
            calls_of[op.callee.root_reference.data] = calls_of.get(op.callee.root_reference.data, 0) + 1
    buffers = [*main.body.block.args, *(op.memref for op in main.body.block.ops if isinstance(op, memref.AllocOp))]
    order = {op: i for i, op in enumerate(main.body.block.ops)}  # (get_operation_index walks the block)
    found = []
    for buf in buffers:
        region_uses = []
        host_needs_it = not isinstance(buf.owner, memref.AllocOp)
        writers = 0
        ok = True
        for use in buf.uses:
            user = use.operation
            callee = user.callee.root_reference.data if isinstance(user, func.CallOp) else None
            if callee in fns and calls_of.get(callee) == 1:
                fn = fns[callee]
                arg = fn.body.block.args[use.index]
                dmas = _whole_buffer_transfers(arg)
                if dmas is None or len(dmas) != 1 or not isinstance(
                        (dmas[0].dest if dmas[0].to_device else dmas[0].source).owner, accel.AllocOp):
                    ok = False  # (a view of a buffer, e.g. a reshape's, cannot become the resident one)
                    break
                region_uses.append((user, fn, use.index, is_output_arg(fn, use.index)))
                writers += is_output_arg(fn, use.index)
            elif isinstance(user, func.CallOp) and callee in fns:
                ok = False
                break
            else:
                host_needs_it = True
                if isinstance(user, (accel.KernelOp, func.CallOp)) and buf in getattr(user, "outs", ()):
                    writers += 1
        if not ok or len(region_uses) < 2 or writers > 1:
            continue
        region_uses.sort(key=lambda u: order[u[0]])
        first, rest = region_uses[0], region_uses[1:]
        if any(w for *_, w in rest):  # written by a later region: not a simple hand-over
            continue
        found.append(Resident(buf, first[:3], first[3], [r[:3] for r in rest], host_needs_it))
    return found


def make_resident(target_name: str, res: Resident, journal: Journal) -> None:
    """Give the value a scratchpad buffer of its own, allocated in @main: the first region
    computes (or loads) it there, later regions read it there instead of transferring it;
    the host copy is kept only if the host needs it. (The calls are edited in place: the
    other candidates' calls stay valid.)"""
    buf = res.buffer
    dev = accel.AllocOp(accel.memref_type(buf.type.element_type, buf.type.get_shape(), space=accel.SPM))
    dev.attributes[TARGET_ATTR] = StringAttr(target_name)
    first_call = res.first[0]
    journal.insert(dev, InsertPoint.before(first_call))

    def retarget(fn: func.FuncOp, idx: int, keep_host: bool, call: func.CallOp) -> None:
        arg = fn.body.block.args[idx]
        (dma,) = _whole_buffer_transfers(arg)
        local = dma.dest if dma.to_device else dma.source
        if keep_host:
            # The host copy stays: a new argument carries the scratchpad buffer.
            new_arg = journal.insert_arg(fn.body.block, dev.result.type, len(fn.body.block.args))
            journal.replace_uses(local, new_arg)
            erase_if_unused(local.owner, journal)
            attrs = [*fn.arg_attrs.data, DictionaryAttr({RESIDENT_ATTR: UnitAttr()})]
            _set_arguments(call, [dev.result], journal)
        else:
            new_arg = journal.retype_arg(arg, dev.result.type)
            erase_transfer(dma, journal)
            journal.replace_uses(local, new_arg)
            erase_if_unused(local.owner, journal)
            attrs = list(fn.arg_attrs.data)
            attrs[idx] = DictionaryAttr({**attrs[idx].data, RESIDENT_ATTR: UnitAttr()})
            journal.set_operand(call, idx, dev.result)
        _set_signature(fn, attrs, journal)

    call, fn, idx = res.first
    # The first region keeps its transfer when the host supplies the value (it loads it)
    # or needs it (it writes it back).
    retarget(fn, idx, keep_host=not res.first_writes or res.host_needs_it, call=call)
    for call, fn, idx in res.later:
        retarget(fn, idx, keep_host=False, call=call)
    if isinstance(buf.owner, memref.AllocOp) and not buf.uses:
        journal.erase(buf.owner)


def _apply_residents(target_name: str, found: list[Resident], chosen: set, journal: Journal) -> None:
    """Make the candidates of `found` whose `_key` is in `chosen` resident, in one pass.
    A candidate's rewrite leaves the others candidates (it changes only its own buffer's
    arguments, and the calls in place)."""
    for res in found:
        if _key(res) in chosen:
            make_resident(target_name, res, journal)


def _screened_residents(module: ModuleOp, target_name: str, found: list[Resident], capacity: int,
                        alignment: int) -> list[Resident]:
    """The candidates, in order, whose scratchpad buffer keeps the live bytes of the
    target's buffers within `capacity` at every op, counted with those taken before it
    (each replaces the local buffers its regions moved the value through)."""
    live = ModuleLiveBytes(module, target_name, alignment)
    taken = []
    for res in found:
        uses = [res.first, *res.later]
        freed, buffer_type = [], None
        for _, fn, idx in uses:
            (dma,) = _whole_buffer_transfers(fn.body.block.args[idx])
            local = dma.dest if dma.to_device else dma.source
            freed.append(local.owner)
            buffer_type = local.type
        first, last = live.pos[res.first[0]], max(live.end[call] for call, _, _ in uses)
        if live.add(first, last, [buffer_type], freed, capacity):
            taken.append(res)
    return taken


def keep_on_device(module: ModuleOp, target_name: str, plan, capacity: int, alignment: int) -> bool:
    """Make values passed between regions of `target_name` scratchpad-resident where the
    scratchpad plan of the target's regions still fits: those that the live bytes leave
    room for, one after the other (`_screened_residents`), all at once; if the plan
    does not place them, halves of them (`_apply_within_plans`). (Trying them
    one by one with a plan of the module each was quadratic: 400 regions handing values
    on, 83 s.) True if the module is as `plan` left it."""
    found = _resident_candidates(module, target_name)
    if not found:
        return False
    keys = [_key(res) for res in _screened_residents(module, target_name, found, capacity, alignment)]
    return _apply_within_plans(
        module, keys, lambda chosen, journal: _apply_residents(target_name, found, chosen, journal), plan)


def _key(res: Resident):
    """A name for a candidate that survives other candidates' rewrites: the region that
    writes (or first reads) it, and which argument."""
    call, fn, idx = res.first
    return (fn.sym_name.data, idx)


MODULE_PLAN_ATTEMPTS = 8
"""How many scratchpad plans of the whole module `_apply_within_plans` may try (each costs
the module's size), so that the pass stays linear in it."""


def _apply_within_plans(module: ModuleOp, names: list, apply: Callable[[set, Journal], None], plan) -> bool:
    """Apply the rewrites `names` where the scratchpad plan (`plan`) still fits: all at
    once; if the plan does not place them, halves of them in turn, each on top of those
    kept before it, within MODULE_PLAN_ATTEMPTS plans. A try that does not fit is undone
    from its journal, in time proportional to its rewrites (restoring a copy of the
    module would cost the module per try). `apply(chosen, journal)` applies those in
    `chosen` through `journal`. True if the module is as `plan` left it."""
    if not names:
        return False
    attempts = 0

    def attempt(chosen: list) -> bool:
        nonlocal attempts
        attempts += 1
        journal = Journal()
        apply(set(chosen), journal)
        try:
            plan(module)
        except CompileError:
            journal.undo()
            return False
        journal.keep()
        return True

    if attempt(names):
        return True

    def halve(group: list) -> None:
        if not group or attempts >= MODULE_PLAN_ATTEMPTS:
            return
        if not attempt(group) and len(group) > 1:
            halve(group[: len(group) // 2])
            halve(group[len(group) // 2:])

    halve(names[: len(names) // 2])
    halve(names[len(names) // 2:])
    del halve  # (a recursive closure is a reference cycle: the compile runs without the collector)
    return False  # the last plan may be of a try that was undone


# --------------------------------------------------------------------------------------
# Prefetching across region boundaries
# --------------------------------------------------------------------------------------


@dataclass
class RegionPrefetch:
    """The loads that region `later`'s first compute waits for, whose sources are ready
    when `earlier` (the previous region of the target) is called: `earlier` issues them,
    into scratchpad buffers of @main's, before its last compute, so that they overlap it
    (the region's final sync completes them); `later` reads those buffers instead."""

    earlier: tuple[func.CallOp, func.FuncOp]
    later: tuple[func.CallOp, func.FuncOp]
    loads: list[tuple[accel.DmaStartOp, SSAValue | None]]
    """Each load of `later` with its source's buffer in @main (None: a weight)."""


def _last_compute(block: Block) -> Operation | None:
    """The last op of `block` that computes (a compute op, or a loop holding some)."""
    op = block.last_op
    while op is not None:
        if isinstance(op, accel.ComputeOp) or (op.regions and any(isinstance(o, accel.ComputeOp) for o in op.walk())):
            return op
        op = op.prev_op
    return None


def _leading_loads(fn: func.FuncOp) -> list[accel.DmaStartOp]:
    """The whole-buffer loads that the first compute of `fn` (an op, or a loop) waits for,
    into buffers of their own (the transfer is their only writer). Loads for later ops
    already overlap the first one's compute."""
    loads = []
    for op in fn.body.block.ops:
        if isinstance(op, accel.ComputeOp) or op.regions:
            first = op
            break
        if isinstance(op, accel.DmaStartOp) and op.to_device and not op.guarded:
            loads.append(op)
    else:
        return []
    reads = {v for inner in first.walk() if isinstance(inner, accel.ComputeOp) for v in inner.inputs}

    def own_buffer(load: accel.DmaStartOp) -> bool:
        dest = load.dest
        return isinstance(dest.owner, accel.AllocOp) and dest.owner.parent is fn.body.block and all(
            u.operation is load or (isinstance(u.operation, accel.ComputeOp) and u.operation.output is not dest)
            or (isinstance(u.operation, accel.DmaStartOp) and u.operation.source is dest) for u in dest.uses)

    return [load for load in loads if load.dest in reads and not isinstance(load.source.owner, memref.SubviewOp)
            and own_buffer(load)]


def _unchanged_between(buf: SSAValue, first: func.CallOp, last: func.CallOp, fns: dict) -> bool:
    """Whether no op of @main from `first` up to `last` (excluded) writes `buf`, and no
    view of it exists (a write through an alias would not show)."""
    position = {}
    op = first
    while op is not None and op is not last:
        position[op] = True
        op = op.next_op
    for use in buf.uses:
        user = use.operation
        if isinstance(user, func.CallOp):
            callee = fns.get(user.callee.root_reference.data)
            writes_it = callee is None or is_output_arg(callee, use.index)
        elif isinstance(user, accel.KernelOp):
            writes_it = buf in user.outs
        else:
            return False  # a view, a copy: not followed
        if writes_it and user in position:
            return False
    return True


def _region_prefetches(module: ModuleOp, target_name: str, later: set[str] | None = None) -> list[RegionPrefetch]:
    """The prefetches of the target's regions (of those named `later`, if given)."""
    main = SymbolTable.lookup_symbol(module, "main")
    if not isinstance(main, func.FuncOp):
        return []
    fns = {fn.sym_name.data: fn for fn in module.body.block.ops if isinstance(fn, func.FuncOp) and not fn.is_declaration}
    ours = {name for name, fn in fns.items() if target_of(fn) == target_name and placement_of(fn) == "dma"}
    calls = [op for op in main.body.block.ops if isinstance(op, func.CallOp) and op.callee.root_reference.data in ours]
    called: dict[str, int] = {}
    for call in calls:
        called[call.callee.root_reference.data] = called.get(call.callee.root_reference.data, 0) + 1
    found = []
    for a_call, b_call in zip(calls, calls[1:]):
        a, b = (fns[c.callee.root_reference.data] for c in (a_call, b_call))
        if later is not None and b.sym_name.data not in later:
            continue
        if a is b or called[a.sym_name.data] != 1 or called[b.sym_name.data] != 1 or _last_compute(a.body.block) is None:
            continue
        loads = []
        for load in _leading_loads(b):
            src = load.source
            if isinstance(src.owner, accel.WeightOp):
                loads.append((load, None))
            elif isinstance(src, BlockArgument) and src.owner is b.body.block and len(list(src.uses)) == 1 and \
                    not is_output_arg(b, src.index):
                buf = b_call.arguments[src.index]
                if accel.memory_space(buf.type) != "spm" and _unchanged_between(buf, a_call, b_call, fns):
                    loads.append((load, buf))
        if loads:
            found.append(RegionPrefetch((a_call, a), (b_call, b), loads))
    return found


def _set_signature(fn: func.FuncOp, arg_attrs: list, journal: Journal) -> None:
    """Give `fn` these argument attributes and the type of its block's arguments."""
    journal.assign(fn, "arg_attrs", ArrayAttr(arg_attrs))
    journal.assign(fn, "function_type", FunctionType.from_lists([a.type for a in fn.body.block.args], []))


class _NewArgs:
    """Arguments appended to a function's block; its signature set once, at `finish`
    (one rebuild per function, not per argument)."""

    def __init__(self, fn: func.FuncOp, journal: Journal):
        self.fn, self.journal = fn, journal
        self.attrs = list(fn.arg_attrs.data)

    def add(self, t, attrs: dict) -> SSAValue:
        block = self.fn.body.block
        self.attrs.append(DictionaryAttr(attrs))
        return self.journal.insert_arg(block, t, len(block.args))

    def finish(self, dropped: frozenset[int] = frozenset()) -> None:
        _set_signature(self.fn, [a for i, a in enumerate(self.attrs) if i not in dropped], self.journal)


def _set_arguments(call: func.CallOp, extra: list[SSAValue], journal: Journal,
                   dropped: frozenset[int] = frozenset()) -> None:
    """`call`'s arguments but those at `dropped`, then `extra` (the call edited in place:
    other rewrites' references to it stay valid)."""
    journal.set_operands(call, (*(a for i, a in enumerate(call.arguments) if i not in dropped), *extra))


def apply_region_prefetch(target_name: str, pf: RegionPrefetch, journal: Journal) -> list[Operation]:
    """Rewrite `pf` (see RegionPrefetch) through `journal`; returns what @main got: the
    scratchpad buffers. (The two calls are edited in place.)"""
    (a_call, a), (b_call, b) = pf.earlier, pf.later
    # Before its last compute: after the region's own loads for it, so that it does not
    # delay them (the DMA engine runs transfers in order), overlapping that compute.
    point = InsertPoint.before(_last_compute(a.body.block))
    a_extra, b_extra, buffers = [], [], []
    a_args, b_args = _NewArgs(a, journal), _NewArgs(b, journal)
    for load, buf in pf.loads:
        dev = accel.AllocOp(load.dest.type)
        dev.attributes[TARGET_ATTR] = StringAttr(target_name)
        journal.insert(dev, InsertPoint.before(a_call))
        buffers.append(dev)
        # The earlier region issues the transfer (its final sync completes it).
        if buf is None:
            weight = load.source.owner.clone()
            journal.insert(weight, InsertPoint.at_start(a.body.block))
            src = weight.result
        else:
            src = a_args.add(buf.type, {})
            a_extra.append(buf)
        into = a_args.add(dev.result.type, {RESIDENT_ATTR: UnitAttr()})
        a_extra.append(dev.result)
        journal.insert(accel.DmaStartOp(src, into), point)
        # The later region reads the buffer where it arrived.
        local, source_op = load.dest, load.source.owner
        arrived = b_args.add(dev.result.type, {RESIDENT_ATTR: UnitAttr()})
        b_extra.append(dev.result)
        erase_transfer(load, journal)
        journal.replace_uses(local, arrived)
        erase_if_unused(local.owner, journal)
        if isinstance(source_op, accel.WeightOp) and not source_op.result.uses:
            journal.erase(source_op)
    # Arguments of the later region that nothing reads any more (C rejects unused ones).
    dropped = frozenset(arg.index for arg in b.body.block.args[:len(b_call.arguments)] if not arg.uses)
    for index in sorted(dropped, reverse=True):
        journal.erase_arg(b.body.block.args[index])
    a_args.finish()
    b_args.finish(dropped)
    _set_arguments(a_call, a_extra, journal)
    _set_arguments(b_call, b_extra, journal, dropped)
    return buffers


def _apply_region_prefetches(target_name: str, found: list[RegionPrefetch], chosen: set[str],
                             journal: Journal) -> None:
    """Apply the prefetches of `found` into the regions named in `chosen`, in one pass
    over @main (a rewrite edits its two calls in place: the next pairs' stay valid)."""
    for pf in found:
        if pf.later[1].sym_name.data in chosen:
            apply_region_prefetch(target_name, pf, journal)


def _screened_prefetches(module: ModuleOp, target_name: str, found: list[RegionPrefetch], capacity: int,
                         alignment: int) -> list[str]:
    """The later regions of the prefetches, in order, whose buffers keep the live bytes of
    the target's buffers within `capacity` at every op, counted with those taken before
    (each buffer lives from the earlier call to the end of the later one and replaces the
    local buffer the load filled)."""
    live = ModuleLiveBytes(module, target_name, alignment)
    taken = []
    for pf in found:
        first, last = live.pos[pf.earlier[0]], live.end[pf.later[0]]
        if live.add(first, last, [load.dest.type for load, _ in pf.loads], [load.dest.owner for load, _ in pf.loads],
                    capacity):
            taken.append(pf.later[1].sym_name.data)
    return taken


def prefetch_across_regions(module: ModuleOp, target_name: str, capacity: int, alignment: int, plan) -> bool:
    """Issue each region's first loads in the region before it (see RegionPrefetch)
    where the scratchpad plan of the target's regions still fits: those that the live
    bytes leave room for, one after the other (`_screened_prefetches`), all at once; if
    the plan does not place them, halves of them (`_apply_within_plans`).
    True if the module is as `plan` left it (the screened prefetches fitted at once)."""
    found = _region_prefetches(module, target_name)
    if not found:
        return False
    names = _screened_prefetches(module, target_name, found, capacity, alignment)
    return _apply_within_plans(
        module, names, lambda chosen, journal: _apply_region_prefetches(target_name, found, chosen, journal), plan)


@dataclass(frozen=True)
class OptimizeDma(ModulePass):
    """Remove redundant host<->scratchpad transfers and overlap the rest with compute."""

    name = "optimize-dma"

    target: tuple[str, ...] = ()
    """Descriptions (names or .toml paths) to load for the regions' `accel.target` names;
    by default the compile's targets, then built-ins by name."""

    hoist: bool = True
    forward: bool = True
    cross_region: bool = True
    double_buffer: bool = True
    prefetch_regions: bool = True
    """Issue a region's first loads (weights, inputs ready before it) in the region of
    the target before it, so that they overlap its compute."""

    prefetch_depth: int = 3
    """How many compute ops ahead a load may be issued (with double-buffer)."""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        known = target_context(ctx)
        known.load(self.target)

        targets = {}
        for fn, name in accelerator_functions(op):
            if placement_of(fn) != "dma":
                continue
            desc = known.named(name, fn)
            if desc.lowers_to_accel:  # api.lowering = "none": nothing of its regions is moved
                targets[name] = desc

        def plan(module: ModuleOp) -> None:
            for name, desc in targets.items():
                plan_scratchpad_module(module, name, desc.memory.scratchpad_bytes, desc.memory.alignment)

        planned = False
        for name, desc in targets.items():
            for fn, fname in list(accelerator_functions(op)):
                if fname != name or placement_of(fn) != "dma":
                    continue
                simplify(fn)
                # Until values are kept on the device across regions, a region's plan is
                # its own: checking it alone keeps each check proportional to the region
                # (and the incremental plan, to the rewrite).
                spm = ScratchpadPlan(fn, desc.memory.scratchpad_bytes, desc.memory.alignment)
                # The loops, innermost first (see `_per_loop`), and whether a compute op is
                # tuned: one walk. (No step below makes a loop: a loop-free region skips
                # the loop steps.)
                loops, tuned = _loops_and_tuning(fn)
                if self.hoist and loops:
                    _per_loop(loops, spm, hoist_invariant_loads)
                if self.forward:
                    forward_block(fn.body.block, spm, views=desc.copies_on_device)
                    drop_dead_writebacks(fn)
                    for fwd in keep_fitting(find_copy_forwardings(fn), spm):
                        fwd.commit()
                if self.double_buffer:
                    if loops:
                        pool = IndexConstants(fn)
                        step = _tuned if tuned else (lambda f: f)
                        # (Hoisting moves ops out of the loops: they are the same loops.)
                        _per_loop(loops, spm,
                                  step(lambda lp, **kw: double_buffer_loop(lp, True, plan=spm, constants=pool, **kw)),
                                  step(lambda lp, **kw: double_buffer_loop(lp, False, plan=spm, constants=pool, **kw)))
                    # Each round issues the loads moved by the last one more op earlier (a
                    # tuned op's loads at most its `prefetch` rounds).
                    block = fn.body.block
                    prefetch_rounds(block, spm, self.prefetch_depth, _within_prefetch(block, self.prefetch_depth))
                    deferred = defer_writebacks(fn)
                    if deferred.taken and not spm.check(*deferred.footprint()):
                        deferred.undo()
                    else:
                        deferred.keep()
                    copies = defer_copy_waits(fn)
                    if copies.changed and not spm.check(*copies.footprint()):
                        copies.undo()
                    else:
                        copies.keep()
                hoist_index_constants(fn)  # the clones of other steps may have built their own
            if self.cross_region:
                keep_on_device(op, name, plan, desc.memory.scratchpad_bytes, desc.memory.alignment)
            # The module's plan is up to date after a prefetch that fitted at once (`plan`
            # plans every target): the last plan would only repeat it.
            planned = self.prefetch_regions and prefetch_across_regions(
                op, name, desc.memory.scratchpad_bytes, desc.memory.alignment, plan)
        if not planned:
            plan(op)


def _tuned(step):
    """`step` on loops whose compute ops are not tuned to single buffering."""

    def apply(loop: scf.ForOp, **kw) -> bool:
        if any(isinstance(o, accel.ComputeOp) and (tuning_of(o) or {}).get("double_buffer") is False
               for o in loop.walk()):
            return False
        return step(loop, **kw)

    return apply


def _within_prefetch(block: Block, default: int) -> Callable[[set | None, int], set | None]:
    """`within(loads, rounds)` for `prefetch_rounds` on `block`: the loads (all of the
    block's when None) that may move one more compute op earlier after `rounds` rounds,
    those whose consumers' tuned `prefetch` exceeds it (untuned: `default`, the pass
    option); None (every load) when no op of the block is tuned. (Moves do not change
    the compute ops: their limits are taken once.)"""
    tuned = [o for o in block.ops if isinstance(o, accel.ComputeOp) and "prefetch" in (tuning_of(o) or {})]
    if not tuned:
        return lambda loads, rounds: loads
    limit: dict[SSAValue, int] = {}
    for o in tuned:
        for v in o.inputs:
            limit[root(v)] = min(limit.get(root(v), default), int(tuning_of(o)["prefetch"]))

    def within(loads: set | None, rounds: int) -> set | None:
        pool = loads if loads is not None else {o for o in block.ops if isinstance(o, accel.DmaStartOp) and o.to_device}
        return {d for d in pool if limit.get(root(d.dest), default) > rounds}

    return within


def _may_simplify(op: Operation) -> bool:
    """Whether xDSL's CSE could merge or drop `op`: only an op whose class declares its
    memory effects (traits are per class), free of effects or only reading (merged with
    an equal one), or unused (dropped if dead)."""
    declares = _DECLARES_EFFECTS.get(type(op))
    if declares is None:
        declares = _DECLARES_EFFECTS[type(op)] = bool(op.get_traits_of_type(MemoryEffect))
    return declares and (all(r.first_use is None for r in op.results) or is_side_effect_free(op)
                         or only_has_effect(op, MemoryEffectKind.READ))


_DECLARES_EFFECTS: dict[type, bool] = {}


def simplify(fn: func.FuncOp) -> None:
    """Common subexpressions of `fn` merged and dead pure ops dropped (xDSL's CSE, run by
    `scoped_cse`: the constants and views of its tiles), so that equal views are one
    value. A region where CSE has nothing to look at (loop-free regions often hold only
    accel ops and the buffers they use) is left as it is without CSE's walk."""
    declares = _DECLARES_EFFECTS
    for op in fn.walk():  # (the class's answer first: most ops declare no effects)
        d = declares.get(type(op))
        if (d is None or d) and op is not fn and not op.regions and _may_simplify(op):
            scoped_cse(fn)
            return


def _stepped(block: Block, before: Operation | None, after: Operation, loop: scf.ForOp) -> list[Operation]:
    """What a step on `loop` (between `before` and `after`) moved or inserted: the ops put
    before it, and the loop itself if the step replaced it (it is out of the IR)."""
    ops = [op for op in ops_between(block, before, after) or () if op is not loop]  # (`after` stays put)
    return ops if loop.parent is block else [*ops, loop]


def _loops_and_tuning(fn: func.FuncOp) -> tuple[list[scf.ForOp], bool]:
    """The loops of `fn`, innermost first (a loop after the loops nested in it and after
    the loops that follow it: the reversed walk), and whether any compute op of `fn` has
    a tuning configuration."""
    loops: list[scf.ForOp] = []
    tuned = False
    for op in fn.walk():
        if type(op) is scf.ForOp:
            loops.append(op)
        elif not tuned and TUNING_ATTR in op.attributes and isinstance(op, accel.ComputeOp):
            tuned = True
    return loops[::-1], tuned


def _per_loop(loops: list[scf.ForOp], plan: ScratchpadPlan, step, fallback=None) -> None:
    """Apply `step` to every loop of `loops` (innermost first), keeping it where the plan
    fits, else trying `fallback` (a lighter variant; also when the step returns
    `NO_ROOM`, having built nothing). A step changes only the loop and
    puts ops just before it, so its check covers the ops between the loop's old
    neighbours; the steps take `journal=` (a `Journal` of their changes to the IR) and a
    failed attempt is undone from it: trying every loop costs the loops' sizes, not the
    function's per loop (nor a copy of each loop)."""

    # Innermost first: the reversed walk puts a loop after the loops nested in it and
    # after the loops that follow it. A step on one loop replaces it by one loop (steps
    # do not apply to loops holding others) and puts loop-free ops before it, so the
    # loops not yet visited, earlier in the walk, keep their place in the list: it is
    # taken once, not per loop (a walk of the function per loop).
    for loop in loops:
        if loop.parent is None:
            continue  # taken out by a step between (none does so far)
        for attempt in (step, fallback):
            if attempt is None:
                continue
            block, before, after = loop.parent, loop.prev_op, loop.next_op
            journal = Journal()
            applied = attempt(loop, journal=journal)
            if applied is NO_ROOM:
                continue
            if not applied:
                break
            changed = _stepped(block, before, after, loop)
            if plan.check(changed):
                journal.keep()
                break
            journal.undo()
            plan.settle([*changed, *_stepped(block, before, after, loop)])


@dataclass
class _LoopChange:
    """A loop replaced by the ops a step put between its old neighbours, the loop held out
    of the IR (unchanged: the new ops are clones): undoing puts it back in their place."""

    block: Block
    before: Operation | None
    after: Operation
    loop: scf.ForOp

    def undo(self) -> None:
        op = self.after.prev_op
        while op is not None and op is not self.before:
            prev = op.prev_op
            Rewriter.erase_op(op, safe_erase=False)
            op = prev
        Rewriter.insert_op(self.loop, InsertPoint.before(self.after))

    def keep(self) -> None:
        # The detached loop still counts as a user of the values it reads: drop it.
        self.loop.erase(safe_erase=False)
