"""partial-residency splits a loop's transfers of a spilled value by guards instead of
peeling the loop (`InLoop`): the iterations whose tile lies in the resident part copy on
the device (`if %iv < %limit`), the others go to host memory (`if %limit - 1 < %iv`).
Compiled to C and run on the simulator: results equal numpy's, and the report's
transfers, bytes and cycles equal the simulator's counters (the report counts and times
the reverse guard `a < iv` as the forward one)."""

from __future__ import annotations

import numpy as np
import pytest
from xdsl.dialects import scf

from accel.compiler.compile_report import issued_count
from accel.compiler.driver import compile_to_directory, make_context, print_ir
from accel.compiler.diagnostics import LocatingParser
from accel.compiler.runtime.buffer_interpreter import run_module
from accel.compiler.runtime.run_compiled import run_directory
from accel.compiler.transforms.partial_residency import InLoop, in_loop
from accel.dialects import accel

CH = 16  # channels of 64x64 floats (16 KiB each): the value (256 KiB) spills on npu-64k


def two_loops(loop_token: bool = False, channels: int = CH, h: int = 64, w: int = 64) -> str:
    """relu twice over `channels` channels of h x w, one per iteration, through a
    region-local host buffer %h: the first loop writes it back channel by channel, the
    second reads it."""
    shape = f"1x{channels}x{h}x{w}xf32"
    host = f"memref<1x1x{h}x{w}xf32, strided<[{channels * h * w}, {h * w}, {w}, 1], offset: ?>>"
    tile = f'memref<1x1x{h}x{w}xf32, #accel.mem<"spm">>'
    carried = "iter_args(%p = %t0) -> (!accel.token)" if loop_token else ""
    wait = "accel.dma_wait %p\n    scf.yield %w : !accel.token" if loop_token else "accel.dma_wait %w"
    first_view = host.replace("offset: ?", "offset: 0")
    first = (f"%x0 = memref.subview %a[0, 0, 0, 0] [1, 1, {h}, {w}] [1, 1, 1, 1] : memref<{shape}> to {first_view}\n"
             f"  %t0 = accel.dma_start %x0, %t : {first_view}, {tile}") if loop_token else ""
    results = "%r = " if loop_token else ""
    after = "accel.dma_wait %r" if loop_token else ""
    return f"""
func.func @main(%a: memref<{shape}> {{accel.name = "x"}}, %b: memref<{shape}> {{accel.name = "y", accel.output}}) {{
  func.call @npu_64k_0(%a, %b) : (memref<{shape}>, memref<{shape}>) -> ()
  func.return
}}
func.func private @npu_64k_0(%a: memref<{shape}>, %b: memref<{shape}> {{accel.output}}) attributes {{accel.target = "npu-64k", accel.placement = "dma"}} {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %cn = arith.constant {channels} : index
  %h = memref.alloc() : memref<{shape}>
  %t = accel.alloc {{offset = 0}} : {tile}
  %u = accel.alloc {{offset = {(h * w * 4 + 63) // 64 * 64}}} : {tile}
  {first}
  {results}scf.for %i = %c0 to %cn step %c1 {carried} {{
    %ai = memref.subview %a[0, %i, 0, 0] [1, 1, {h}, {w}] [1, 1, 1, 1] : memref<{shape}> to {host}
    %l = accel.dma_start %ai, %t : {host}, {tile}
    accel.dma_wait %l
    accel.eltwise ins(%t : {tile}) outs(%u : {tile}) {{kind = "relu"}} attributes {{accel.entry = "ops[13]"}}
    %hi = memref.subview %h[0, %i, 0, 0] [1, 1, {h}, {w}] [1, 1, 1, 1] : memref<{shape}> to {host}
    %w = accel.dma_start %u, %hi : {tile}, {host}
    {wait}
  }}
  {after}
  scf.for %j = %c0 to %cn step %c1 {{
    %hj = memref.subview %h[0, %j, 0, 0] [1, 1, {h}, {w}] [1, 1, 1, 1] : memref<{shape}> to {host}
    %l2 = accel.dma_start %hj, %t : {host}, {tile}
    accel.dma_wait %l2
    accel.eltwise ins(%t : {tile}) outs(%u : {tile}) {{kind = "relu"}} attributes {{accel.entry = "ops[13]"}}
    %bj = memref.subview %b[0, %j, 0, 0] [1, 1, {h}, {w}] [1, 1, 1, 1] : memref<{shape}> to {host}
    %w2 = accel.dma_start %u, %bj : {tile}, {host}
    accel.dma_wait %w2
  }}
  func.return
}}
"""


def parse(text: str):
    return LocatingParser(make_context("npu-64k"), text, "resident.mlir").parse_module()


def compile_and_run(tmp_path, text: str, pipeline: str, shape=(1, CH, 64, 64),
                    target: str = "npu-64k") -> tuple[dict, np.ndarray, dict, str]:
    src = tmp_path / "resident.mlir"
    src.write_text(text.replace("npu_64k_0", target.replace("-", "_") + "_0").replace('"npu-64k"', f'"{target}"'))
    out = tmp_path / pipeline.replace(",", "_")
    report = compile_to_directory(str(src), target, str(out), pipeline, dump_ir=True)
    x = np.random.default_rng(0).standard_normal(shape).astype(np.float32)
    outputs, counters = run_directory(str(out), {"x": x})
    for key in ("transfers", "bytes_to_device", "bytes_to_host"):
        assert report["dma"][key] == counters[key], key
    assert report["cycles"]["estimate"] == counters["cycles"]
    final = sorted((out / "ir").iterdir())[-1].read_text()
    return report, x, outputs, final


# 16 channels of 16 KiB; 600 of 84 bytes (tiles that share the timeline's 64-byte blocks:
# it cannot jump while the copies to the resident part run, and does from where they stop);
# npu-cmd's command stream evaluates the guards when it is built.
@pytest.mark.parametrize("channels, h, w, target", [(CH, 64, 64, "npu-64k"), (600, 3, 7, "npu-64k"),
                                                    (CH, 64, 64, "npu-cmd")])
def test_a_loop_split_by_guards_runs_in_c_as_numpy(tmp_path, channels, h, w, target):
    text = two_loops(channels=channels, h=h, w=w)
    without, x, plain, _ = compile_and_run(tmp_path, text, "plan-memory", (1, channels, h, w), target)
    report, _, outputs, final = compile_and_run(tmp_path, text, "partial-residency,plan-memory", (1, channels, h, w),
                                                target)
    np.testing.assert_array_equal(plain["y"], np.maximum(x, 0))
    np.testing.assert_array_equal(outputs["y"], np.maximum(x, 0))
    # Both loops are whole (no iteration peeled: two relus in the IR), their transfers of
    # %h split by guards: the resident channels' write-backs and reloads stay on the device.
    assert final.count("accel.eltwise") == 2 and final.count("scf.for") == 2
    assert final.count(" if ") == 4
    saved = without["dma"]["bytes_to_host"] - report["dma"]["bytes_to_host"]
    assert saved > 0 and saved % (h * w * 4) == 0
    assert without["dma"]["bytes_to_device"] - report["dma"]["bytes_to_device"] == saved
    # The same in the buffer interpreter, before and after the pass.
    module = parse(text)
    assert np.array_equal(run_module(module, {"x": x})["y"], np.maximum(x, 0))
    after = parse(final.replace(target.replace("-", "_") + "_0", "npu_64k_0").replace(f'"{target}"', '"npu-64k"'))
    assert np.array_equal(run_module(after, {"x": x})["y"], np.maximum(x, 0))


def test_what_guards_split():
    module = parse(two_loops())
    fn = next(op for op in module.ops if op.sym_name.data == "npu_64k_0")
    block = fn.body.block
    host = next(op for op in block.ops if op.name == "memref.alloc").memref
    write, read = (op for op in fn.walk() if isinstance(op, accel.DmaStartOp) and host in
                   (op.source.owner.source if op.source.owner.name == "memref.subview" else None,
                    op.dest.owner.source if op.dest.owner.name == "memref.subview" else None))
    split = in_loop(write, 1, host, block)
    assert isinstance(split, InLoop) and in_loop(read, 0, host, block) is not None
    assert [s[1] for s in split.starts] == list(range(CH)) and list(split.sizes) == [1, 1, 64, 64]
    assert split.inside(1, 3) == 3 and split.aligned(1, 3) == 3
    # A token handed to the next iteration: not split (the loop would carry either part's).
    carried = parse(two_loops(loop_token=True))
    fn = next(op for op in carried.ops if op.sym_name.data == "npu_64k_0")
    host = next(op for op in fn.body.block.ops if op.name == "memref.alloc").memref
    write = next(op for op in fn.walk() if isinstance(op, accel.DmaStartOp) and op.dest.owner.name == "memref.subview"
                 and op.dest.owner.source is host)
    assert in_loop(write, 1, host, fn.body.block) is None


def test_a_slab_ends_between_iterations():
    # Tiles of 16 rows, the last shifted inwards to row 40 (it overlaps the one before):
    # a slab of 40 rows would cut the third tile (rows 32..47), so it is cut to 32.
    split = InLoop.__new__(InLoop)
    split.__dict__.update(starts=[[0, 0, r, 0] for r in (0, 16, 32, 40)], sizes=[1, 2, 16, 128])
    assert split.aligned(2, 40) == 32 and split.aligned(2, 32) == 32 and split.inside(2, 32) == 2
    assert split.aligned(2, 64) == 64 and split.inside(2, 64) == 4
    assert split.aligned(1, 2) == 2 and split.inside(1, 2) == 4  # not moving along the channels


def test_tiles_read_with_a_halo_are_peeled_not_split():
    # The second loop reads channels j and j + 1: neighbouring tiles overlap, so the
    # slab's end would cut one of them wherever it fell: `in_loop` leaves it to peeling.
    two = "memref<1x2x64x64xf32, strided<[%d, 4096, 64, 1], offset: ?>>" % (CH * 4096)
    pair = 'memref<1x2x64x64xf32, #accel.mem<"spm">>'
    host = "memref<1x1x64x64xf32, strided<[%d, 4096, 64, 1], offset: ?>>" % (CH * 4096)
    tile = 'memref<1x1x64x64xf32, #accel.mem<"spm">>'
    text = two_loops().replace(
        f"%hj = memref.subview %h[0, %j, 0, 0] [1, 1, 64, 64] [1, 1, 1, 1] : memref<1x{CH}x64x64xf32> to {host}\n"
        f"    %l2 = accel.dma_start %hj, %t : {host}, {tile}",
        f"%hj = memref.subview %h[0, %j, 0, 0] [1, 2, 64, 64] [1, 1, 1, 1] : memref<1x{CH}x64x64xf32> to {two}\n"
        f"    %t2 = accel.alloc {{offset = 32768}} : {pair}\n"
        f"    %l2 = accel.dma_start %hj, %t2 : {two}, {pair}").replace(
        "scf.for %j = %c0 to %cn step %c1", "scf.for %j = %c0 to %c1 step %c1")
    assert "%t2" in text
    module = parse(text)
    fn = next(op for op in module.ops if op.sym_name.data == "npu_64k_0")
    host_buffer = next(op for op in fn.body.block.ops if op.name == "memref.alloc").memref
    read = next(op for op in fn.walk() if isinstance(op, accel.DmaStartOp) and op.source.owner.name == "memref.subview"
                and op.source.owner.source is host_buffer)
    assert in_loop(read, 0, host_buffer, fn.body.block) is not None  # (one iteration: no neighbour)
    text = text.replace("scf.for %j = %c0 to %c1 step %c1", "scf.for %j = %c0 to %c2 step %c1").replace(
        "%c1 = arith.constant 1 : index", "%c1 = arith.constant 1 : index\n  %c2 = arith.constant 2 : index")
    module = parse(text)
    fn = next(op for op in module.ops if op.sym_name.data == "npu_64k_0")
    host_buffer = next(op for op in fn.body.block.ops if op.name == "memref.alloc").memref
    read = next(op for op in fn.walk() if isinstance(op, accel.DmaStartOp) and op.source.owner.name == "memref.subview"
                and op.source.owner.source is host_buffer)
    assert in_loop(read, 0, host_buffer, fn.body.block) is None
    write = next(op for op in fn.walk() if isinstance(op, accel.DmaStartOp) and op.dest.owner.name == "memref.subview"
                 and op.dest.owner.source is host_buffer)
    assert in_loop(write, 1, host_buffer, fn.body.block) is not None


@pytest.mark.parametrize("guard, taken", [("%i < %c3", 3), ("%c2 < %i", CH - 3)])
def test_issued_count_of_either_guard(guard, taken):
    text = two_loops().replace("%w = accel.dma_start %u, %hi :", f"%c3 = arith.constant 3 : index\n    %c2 = arith.constant 2 : index\n    %w = accel.dma_start %u, %hi if {guard} :")
    module = parse(text)
    dma = next(op for op in module.walk() if isinstance(op, accel.DmaStartOp) and op.guarded)
    assert issued_count(dma) == taken
    assert isinstance(dma.parent_op(), scf.ForOp)
    assert print_ir(module).count(" if ") == 1
