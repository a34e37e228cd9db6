"""partial-residency peels the leading iterations of tile loops so that their transfers
become static and can be split against a resident part; where no resident part is kept
(it did not fit, or the peeled transfers miss it) the peeled iterations go back into their
loops (`Peeled.roll_back`): the function is as it was. `room_for` bounds the peeling by
the room a resident part could have, and skips the peeling when even the smallest
resident part could not fit beside the buffers live at the time; `may_find_slab` skips it
where no slab could come of it (`candidates` would find none after the peels).

The loops here take their views of a view of the host buffer: guards split only a loop's
transfers of one subview of it (`in_loop`, tested in test_partial_residency_guards.py),
the others are peeled."""

from __future__ import annotations

from xdsl.dialects import memref, scf

from accel.compiler.driver import make_context, print_ir
from accel.compiler.diagnostics import LocatingParser
from accel.compiler.memory_plan import LiveBytes, ScratchpadPlan
from accel.compiler.transforms.assemble_on_device import host_transfers
from accel.compiler.transforms.partial_residency import (_told_of_peels, candidates, may_find_slab, peel_towards,
                                                          room_for)
from accel.dialects import accel

LOOP_FROM_ROW_0 = """
func.func @npu_64k_0(%y: memref<1x2x64x128xf32> {accel.output}) attributes {accel.target = "npu-64k", accel.placement = "dma"} {
  %h = memref.alloc() {accel.offset = 0 : i64} : memref<1x2x64x128xf32>
  %t = accel.alloc {offset = 0} : memref<1x2x8x128xf32, #accel.mem<"spm">>
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %c64 = arith.constant 64 : index
  %hv = memref.subview %h[0, 0, 0, 0] [1, 2, 64, 128] [1, 1, 1, 1] : memref<1x2x64x128xf32> to memref<1x2x64x128xf32, strided<[16384, 8192, 128, 1]>>
  scf.for %i = %c0 to %c64 step %c8 {
    %hi = memref.subview %hv[0, 0, %i, 0] [1, 2, 8, 128] [1, 1, 1, 1] : memref<1x2x64x128xf32, strided<[16384, 8192, 128, 1]>> to memref<1x2x8x128xf32, strided<[16384, 8192, 128, 1], offset: ?>>
    %wi = accel.dma_start %t, %hi : memref<1x2x8x128xf32, #accel.mem<"spm">>, memref<1x2x8x128xf32, strided<[16384, 8192, 128, 1], offset: ?>>
    accel.dma_wait %wi
  }
  %d = accel.alloc {offset = 8192} : memref<1x2x%ROWSx128xf32, #accel.mem<"spm">>
  %r = memref.subview %h[0, 0, 0, 0] [1, 2, %ROWS, 128] [1, 1, 1, 1] : memref<1x2x64x128xf32> to memref<1x2x%ROWSx128xf32, strided<[16384, 8192, 128, 1]>>
  %l = accel.dma_start %r, %d : memref<1x2x%ROWSx128xf32, strided<[16384, 8192, 128, 1]>>, memref<1x2x%ROWSx128xf32, #accel.mem<"spm">>
  accel.dma_wait %l
  func.return
}
"""


def _function(rows: int):
    text = LOOP_FROM_ROW_0.replace("%ROWS", str(rows))
    module = LocatingParser(make_context(), text, "peel.mlir").parse_module()
    fn = next(iter(module.body.block.ops))
    host = next(op for op in fn.body.block.ops if isinstance(op, memref.AllocOp)).memref
    return module, fn, host


def test_peeled_iterations_go_back_into_their_loop():
    module, fn, host = _function(8)
    before = print_ir(module)
    peeled = {}
    assert peel_towards(host, host_transfers(host), fn.body.block, 65536, peeled)
    loop = next(op for op in fn.body.block.ops if isinstance(op, scf.ForOp))
    assert print_ir(module) != before and loop in peeled
    assert peeled[loop].roll_back(set())
    module.verify()
    assert print_ir(module) == before


def test_no_roll_back_when_a_transfer_before_the_loop_changed():
    """The loop's old operands must still be defined: here its lower bound is replaced
    (as a split transfer before a loop is), so the peeled iterations stay."""
    module, fn, host = _function(8)
    peeled = {}
    peel_towards(host, host_transfers(host), fn.body.block, 65536, peeled)
    (record,) = peeled.values()
    record.operands[0].op.detach()
    assert not record.roll_back(set())


def test_a_plan_is_told_of_a_loop_peeled_whole():
    """Every iteration of the loop peeled (the goal is past its end): the loop is gone, and
    the plan made before the peeling is brought up to date by one check (its ops in the
    loop's place, its buffers gone) instead of a plan from scratch; the plan is valid for
    the IR after."""
    # The tile buffer inside the loop: each peeled iteration has one of its own.
    text = LOOP_FROM_ROW_0.replace("%ROWS", "64")
    tile = '  %t = accel.alloc {offset = 0} : memref<1x2x8x128xf32, #accel.mem<"spm">>\n'
    assert tile in text
    text = text.replace(tile, "").replace("  scf.for %i = %c0 to %c64 step %c8 {\n", "  scf.for %i = %c0 to %c64 step %c8 {\n  " + tile)
    module = LocatingParser(make_context(), text, "peel.mlir").parse_module()
    fn = next(iter(module.body.block.ops))
    host = next(op for op in fn.body.block.ops if isinstance(op, memref.AllocOp)).memref
    plan = ScratchpadPlan(fn, 70 * 1024, 64)  # numbered: 8 + 64 KiB do not fit side by side
    assert plan.numbered and plan.valid
    loop = next(op for op in fn.body.block.ops if isinstance(op, scf.ForOp))
    gone = next(op for op in loop.body.block.ops if isinstance(op, accel.AllocOp))
    assert id(gone) in plan.buffers
    peeled = {}
    assert peel_towards(host, host_transfers(host), fn.body.block, 1 << 20, peeled)
    (record,) = peeled.values()
    assert record.loop.parent is None and not any(isinstance(op, scf.ForOp) for op in fn.body.block.ops)
    assert record.peeled_ops() is None and len(record.all_peeled_ops()) > 8
    assert sum(isinstance(op, accel.AllocOp) for op in fn.body.block.ops) == 9  # the tiles' and %d
    assert _told_of_peels(plan, peeled.values())
    assert id(gone) not in plan.buffers  # the erased loop's buffer no longer takes room
    plan.verify()
    module.verify()


LOOP_HOLDING_A_LOOP = """
func.func @npu_64k_0(%y: memref<1x2x64x128xf32> {accel.output}) attributes {accel.target = "npu-64k", accel.placement = "dma"} {
  %h = memref.alloc() {accel.offset = 0 : i64} : memref<1x2x64x128xf32>
  %t = accel.alloc {offset = 0} : memref<1x2x8x128xf32, #accel.mem<"spm">>
  %u = accel.alloc {offset = 8192} : memref<1x2x8x128xf32, #accel.mem<"spm">>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c8 = arith.constant 8 : index
  %c64 = arith.constant 64 : index
  %hv = memref.subview %h[0, 0, 0, 0] [1, 2, 64, 128] [1, 1, 1, 1] : memref<1x2x64x128xf32> to memref<1x2x64x128xf32, strided<[16384, 8192, 128, 1]>>
  scf.for %i = %c0 to %c64 step %c8 {
    %hi = memref.subview %hv[0, 0, %i, 0] [1, 2, 8, 128] [1, 1, 1, 1] : memref<1x2x64x128xf32, strided<[16384, 8192, 128, 1]>> to memref<1x2x8x128xf32, strided<[16384, 8192, 128, 1], offset: ?>>
    %wi = accel.dma_start %t, %hi : memref<1x2x8x128xf32, #accel.mem<"spm">>, memref<1x2x8x128xf32, strided<[16384, 8192, 128, 1], offset: ?>>
    accel.dma_wait %wi
    scf.for %j = %c0 to %c2 step %c1 {
      %ri = accel.dma_start %hi, %u : memref<1x2x8x128xf32, strided<[16384, 8192, 128, 1], offset: ?>>, memref<1x2x8x128xf32, #accel.mem<"spm">>
      accel.dma_wait %ri
    }
  }
  func.return
}
"""


def test_peeled_iterations_holding_loops_go_back_too():
    """A peeled iteration whose loop reads a view the iteration made (a channel tile's
    row loops) goes back as a whole; not when one of its transfers was split (an op of a
    kept resident part among them, nested ones included)."""
    module = LocatingParser(make_context(), LOOP_HOLDING_A_LOOP, "peel.mlir").parse_module()
    fn = next(iter(module.body.block.ops))
    host = next(op for op in fn.body.block.ops if isinstance(op, memref.AllocOp)).memref
    before = print_ir(module)
    peeled = {}
    assert peel_towards(host, host_transfers(host), fn.body.block, 65536, peeled)
    (record,) = peeled.values()
    nested_read = next(op for op in fn.walk() if isinstance(op, accel.DmaStartOp) and op.to_device)
    assert not record.roll_back({nested_read})
    assert record.roll_back(set())
    module.verify()
    assert print_ir(module) == before


def test_room_counts_the_buffers_live_meanwhile():
    """The smallest resident part of %h (one of its 128 columns: 512 bytes) fits in
    64 KiB beside the 8 KiB tile and a reader's buffer of 8 rows (8 KiB), not beside a
    reader's buffer of all 64 rows (64 KiB)."""
    for rows, room in ((8, True), (64, False)):
        module, fn, host = _function(rows)
        assert bool(room_for(host, host_transfers(host), LiveBytes(fn, 64), 65536, 64)) is room, rows


WRITER_AND_READER = """
func.func @npu_64k_0(%y: memref<1x2x64x128xf32> {accel.output}) attributes {accel.target = "npu-64k", accel.placement = "dma"} {
  %h = memref.alloc() {accel.offset = 0 : i64} : memref<1x2x64x128xf32>
  %t = accel.alloc {offset = 0} : memref<1x2x{W}x128xf32, #accel.mem<"spm">>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %cw = arith.constant {W} : index
  %cr = arith.constant {R} : index
  %cs = arith.constant {S} : index
  %ce = arith.constant {E} : index
  %cn = arith.constant {N} : index
  %c64 = arith.constant 64 : index
  %hv = memref.subview %h[0, 0, 0, 0] [1, 2, 64, 128] [1, 1, 1, 1] : memref<1x2x64x128xf32> to memref<1x2x64x128xf32, strided<[16384, 8192, 128, 1]>>
  scf.for %i = %c0 to %c64 step %cw {
    %hi = memref.subview %hv[0, 0, %i, 0] [1, 2, {W}, 128] [1, 1, 1, 1] : memref<1x2x64x128xf32, strided<[16384, 8192, 128, 1]>> to memref<1x2x{W}x128xf32, strided<[16384, 8192, 128, 1], offset: ?>>
    %wi = accel.dma_start %t, %hi : memref<1x2x{W}x128xf32, #accel.mem<"spm">>, memref<1x2x{W}x128xf32, strided<[16384, 8192, 128, 1], offset: ?>>
    accel.dma_wait %wi
  }
  %d = accel.alloc {offset = 32768} : memref<1x2x{R}x128xf32, #accel.mem<"spm">>
{READER}
  func.return
}
"""

READ = """    %r = memref.subview %h[0, 0, {AT}, 0] [1, 2, {R}, 128] [1, 1, 1, 1] : memref<1x2x64x128xf32> to memref<1x2x{R}x128xf32, strided<[16384, 8192, 128, 1], offset: ?>>
    %l = accel.dma_start %r, %d : memref<1x2x{R}x128xf32, strided<[16384, 8192, 128, 1], offset: ?>>, memref<1x2x{R}x128xf32, #accel.mem<"spm">>
    accel.dma_wait %l
"""

READERS = {
    "static": READ.replace("{AT}", "{S}"),
    "loop": "  scf.for %j = %cs to %ce step %cr {\n" + READ.replace("{AT}", "%j") + "  }",
    "nested": "  scf.for %k = %c0 to %cn step %c1 {\n  scf.for %j = %cs to %ce step %cr {\n"
              + READ.replace("{AT}", "%j") + "  }\n  }",
}


def test_no_slab_predicted_means_none_found_after_peeling():
    """Over writers of 1..16 rows per tile and readers (static, in a loop, in a loop nested
    in another of 2 or 12 iterations) of 1..8 rows from row 0..40: where `may_find_slab`
    says no, peeling as the pass does leaves `candidates` nothing; and it says no for
    some (a reader that starts at row 0 in every iteration of a loop longer than `PEEL`)."""
    predicted = {True: 0, False: 0}
    for writer in (1, 2, 4, 8, 16):
        for rows in (1, 2, 4, 8):
            for start in (0, 4, 16, 40):
                for kind, reader in READERS.items():
                    for outer in ((2, 12) if kind == "nested" else (2,)):
                        text = WRITER_AND_READER.replace("{READER}", reader)
                        for name, value in (("W", writer), ("R", rows), ("S", start), ("E", 64 - rows + 1),
                                            ("N", outer)):
                            text = text.replace("{" + name + "}", str(value))
                        module = LocatingParser(make_context(), text, "slab.mlir").parse_module()
                        fn = next(iter(module.body.block.ops))
                        alloc = next(op for op in fn.body.block.ops if isinstance(op, memref.AllocOp))
                        block, host = fn.body.block, alloc.memref
                        may = may_find_slab(host, host_transfers(host), block, 65536)
                        predicted[may] += 1
                        if not may:
                            peel_towards(host, host_transfers(host), block, 65536, {})
                            pos = {op: i for i, op in enumerate(block.ops)}
                            found = candidates(alloc, host_transfers(host), block, pos, 65536, {})
                            assert not found, (writer, rows, start, kind, outer)
    assert predicted[False] >= 20 and predicted[True] >= 20, predicted
