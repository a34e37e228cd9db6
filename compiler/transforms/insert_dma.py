"""insert-dma: explicit transfers between host memory and the scratchpad.

Runs after `lower-to-accel` (and `tile-for-scratchpad`). In every accelerator function
each compute op gets its own scratchpad buffers: every input is copied in (`dma_start`,
then one `dma_wait` for all of them before the op) and the output is copied out after the
op. This is the naive, always-correct placement, as a TVM-style BYOC wrapper does with one
copy in and out per operation; `optimize-dma` then removes what is redundant. Scratchpad
buffers get static offsets by liveness (`accel.alloc {offset = N}`); a function whose peak
exceeds the target's scratchpad fails with a clear message.

On a target whose memory is shared with the host (`shared_with_host = true`, and the
option `zero-copy`, on by default) nothing is copied: the function is marked `accel.placement = "zero-copy"` and computes on host
buffers. Otherwise it is marked `accel.placement = "dma"` and the verifier then rejects
any compute op touching host memory.

Before:

    accel.eltwise ins(%x : memref<64xf32>) outs(%y : memref<64xf32>) {kind = "relu"}

After:

    %0 = accel.alloc {offset = 0} : memref<64xf32, #accel.mem<"spm">>
    %1 = accel.dma_start %x, %0 : memref<64xf32>, memref<64xf32, #accel.mem<"spm">>
    accel.dma_wait %1
    %2 = accel.alloc {offset = 256} : memref<64xf32, #accel.mem<"spm">>
    accel.eltwise ins(%0 : ...) outs(%2 : ...) {kind = "relu"}
    %3 = accel.dma_start %2, %y : memref<64xf32, #accel.mem<"spm">>, memref<64xf32>
    accel.dma_wait %3
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import memref
from xdsl.dialects.builtin import MemRefType, ModuleOp, StringAttr
from xdsl.ir import SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from accel.compiler.diagnostics import CompileError
from accel.compiler.ir_build import TypeTest
from accel.compiler.targets.context import target_context
from accel.compiler.memory_plan import plan_scratchpad
from accel.dialects import accel
from accel.dialects.conventions import PLACEMENT_ATTR, accelerator_functions
from accel.dialects.memo import by_identity


@by_identity
def spm_type(t: MemRefType) -> MemRefType:
    """A contiguous scratchpad buffer with the shape of `t` (once per type object: every
    staged operand asks, and operands share a few type objects)."""
    return accel.memref_type(t.element_type, t.get_shape(), space=accel.SPM)


_is_compute = TypeTest(accel.ComputeOp)


def stage(op: accel.ComputeOp) -> None:
    """Copy the operands of `op` into fresh scratchpad buffers and its result back."""
    tokens: list[SSAValue] = []
    new_inputs: list[SSAValue] = []
    staged: dict[SSAValue, SSAValue] = {}
    for v in op.inputs:
        if accel.memory_space(v.type) == "spm":
            new_inputs.append(v)
            continue
        if v not in staged:
            alloc = accel.AllocOp(spm_type(v.type))
            dma = accel.DmaStartOp(v, alloc.result)
            Rewriter.insert_op([alloc, dma], InsertPoint.before(op))
            staged[v] = alloc.result
            tokens.append(dma.token)
        new_inputs.append(staged[v])
    if tokens:
        Rewriter.insert_op(accel.DmaWaitOp(*tokens), InsertPoint.before(op))
    out = op.output
    if accel.memory_space(out.type) != "spm":
        alloc = accel.AllocOp(spm_type(out.type))
        Rewriter.insert_op(alloc, InsertPoint.before(op))
        if op.reads_output:  # its partial sums come in first (optimize-dma keeps them on the device)
            load = accel.DmaStartOp(out, alloc.result)
            Rewriter.insert_op([load, accel.DmaWaitOp(load.token)], InsertPoint.before(op))
        dma = accel.DmaStartOp(alloc.result, out)
        Rewriter.insert_op([dma, accel.DmaWaitOp(dma.token)], InsertPoint.after(op))
        op.operands = [*new_inputs, alloc.result]
    else:
        op.operands = [*new_inputs, out]


def stage_copy(op: memref.CopyOp) -> None:
    """A copy between host buffers (an input of a concatenation into its slice) through
    the scratchpad: in, then out (assemble-on-device keeps the output on the device)."""
    tile = accel.AllocOp(spm_type(op.source.type))
    load = accel.DmaStartOp(op.source, tile.result)
    store = accel.DmaStartOp(tile.result, op.destination)
    Rewriter.replace_op(op, [tile, load, accel.DmaWaitOp(load.token), store, accel.DmaWaitOp(store.token)],
                        new_results=[])


@dataclass(frozen=True)
class InsertDma(ModulePass):
    """Explicit host <-> scratchpad transfers for every operand of every accelerator op."""

    name = "insert-dma"

    target: tuple[str, ...] = ()
    """Descriptions (names or .toml paths) to load for the regions' `accel.target` names;
    by default the compile's targets, then built-ins by name."""

    zero_copy: bool = True
    """On targets sharing host memory, compute in place instead of copying."""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        known = target_context(ctx)
        known.load(self.target)
        for fn, name in list(accelerator_functions(op)):
            if PLACEMENT_ATTR in fn.attributes:
                continue
            desc = known.named(name, fn)
            if not desc.lowers_to_accel:
                continue  # api.lowering = "none": host memory, no placement
            computes: list[accel.ComputeOp] = []
            copies: list[memref.CopyOp] = []
            kernel: accel.KernelOp | None = None
            for o in fn.walk():
                if _is_compute(o):
                    computes.append(o)
                elif type(o) is memref.CopyOp:
                    copies.append(o)
                elif type(o) is accel.KernelOp and kernel is None:
                    kernel = o
            if desc.memory.shared_with_host and self.zero_copy:
                if copies:
                    raise CompileError(f"insert-dma: '{desc.name}' shares host memory: its concatenations have no "
                                       "copy on the device to run on", copies[0])
                fn.attributes[PLACEMENT_ATTR] = StringAttr("zero-copy")
                continue
            for c in computes:
                stage(c)
            for c in copies:
                stage_copy(c)
            fn.attributes[PLACEMENT_ATTR] = StringAttr("dma")
            plan_scratchpad(fn, desc.memory.scratchpad_bytes, desc.memory.alignment)
            if kernel is not None:
                raise CompileError(f"insert-dma: @{fn.sym_name.data} still has an accel.kernel "
                                   "(run lower-to-accel first)", kernel)
