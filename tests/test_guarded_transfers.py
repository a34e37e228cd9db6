"""Guarded transfers (`accel.dma_start %s, %d if %a < %b`): issued only where a < b, the
token of one not issued complete.

A double-buffered relu loop written with the prefetch of the next tile guarded (the loop
keeps all its iterations; the last one prefetches nothing) runs through every consumer of
transfers: the C emitter (an issued flag beside each token that may be of a transfer not
issued, loop-carried ones too), the simulator, the buffer interpreter, the report's counts
and timeline (which must equal the simulator's counters exactly, also where the timeline
jumps over repeating iterations up to where the guard changes), and the command stream.
The passes that move transfers leave guarded ones alone."""

from __future__ import annotations

import numpy as np
import pytest

from accel.compiler.compile_report import issued_count
from accel.compiler.driver import compile_to_directory, make_context
from accel.compiler.diagnostics import LocatingParser
from accel.compiler.runtime.buffer_interpreter import run_module
from accel.compiler.runtime.run_compiled import run_directory
from accel.compiler.transforms.assemble_on_device import host_transfers
from accel.compiler.transforms.optimize_dma import double_buffer_loop, find_forwardings, hoist_invariant_loads
from accel.dialects import accel
from xdsl.dialects import func, scf

TILE = 64 * 64  # one channel of 64x64 floats: a tile of the loop


def relu_loop(channels: int, target: str = "npu-64k", guard_first: str = "%next", guard_bound: str = "%cn") -> str:
    """@main calling a region that runs relu over `channels` 64x64 channels, one per
    iteration, the next channel's load issued one iteration ahead under a guard."""
    fn = target.replace("-", "_") + "_0"
    shape = f"1x{channels}x64x64xf32"
    host = "memref<1x1x64x64xf32, strided<[%d, 4096, 64, 1], offset: ?>>" % (channels * TILE)
    slot = 'memref<1x1x64x64xf32, strided<[4096, 4096, 64, 1], offset: ?>, #accel.mem<"spm">>'
    two = 'memref<2x1x1x64x64xf32, #accel.mem<"spm">>'
    return f"""
func.func @main(%a: memref<{shape}> {{accel.name = "x"}}, %b: memref<{shape}> {{accel.name = "y", accel.output}}) {{
  func.call @{fn}(%a, %b) : (memref<{shape}>, memref<{shape}>) -> ()
  func.return
}}
func.func private @{fn}(%a: memref<{shape}>, %b: memref<{shape}> {{accel.output}}) attributes {{accel.target = "{target}", accel.placement = "dma"}} {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %cn = arith.constant {channels} : index
  %clast = arith.constant {channels - 1} : index
  %in = accel.alloc {{offset = 0}} : {two}
  %out = accel.alloc {{offset = 32768}} : {two}
  %a0 = memref.subview %a[0, %c0, 0, 0] [1, 1, 64, 64] [1, 1, 1, 1] : memref<{shape}> to {host}
  %s0 = memref.subview %in[%c0, 0, 0, 0, 0] [1, 1, 1, 64, 64] [1, 1, 1, 1, 1] : {two} to {slot}
  %t0 = accel.dma_start %a0, %s0 : {host}, {slot}
  %slot, %tok = scf.for %i = %c0 to %cn step %c1 iter_args(%cur = %c0, %pending = %t0) -> (index, !accel.token) {{
    %other = arith.subi %c1, %cur : index
    %next = arith.addi %i, %c1 : index
    %at = arith.minsi %next, %clast : index
    %an = memref.subview %a[0, %at, 0, 0] [1, 1, 64, 64] [1, 1, 1, 1] : memref<{shape}> to {host}
    %sn = memref.subview %in[%other, 0, 0, 0, 0] [1, 1, 1, 64, 64] [1, 1, 1, 1, 1] : {two} to {slot}
    %tn = accel.dma_start %an, %sn if {guard_first} < {guard_bound} : {host}, {slot}
    %x = memref.subview %in[%cur, 0, 0, 0, 0] [1, 1, 1, 64, 64] [1, 1, 1, 1, 1] : {two} to {slot}
    %y = memref.subview %out[%cur, 0, 0, 0, 0] [1, 1, 1, 64, 64] [1, 1, 1, 1, 1] : {two} to {slot}
    %bi = memref.subview %b[0, %i, 0, 0] [1, 1, 64, 64] [1, 1, 1, 1] : memref<{shape}> to {host}
    accel.dma_wait %pending
    accel.eltwise ins(%x : {slot}) outs(%y : {slot}) {{kind = "relu"}} attributes {{accel.entry = "ops[13]"}}
    %w = accel.dma_start %y, %bi : {slot}, {host}
    scf.yield %other, %tn : index, !accel.token
  }}
  func.return
}}
"""


def parse(text: str, target: str = "npu-64k"):
    return LocatingParser(make_context(target), text, "guarded.mlir").parse_module()


def region(module) -> func.FuncOp:
    return next(op for op in module.ops if isinstance(op, func.FuncOp) and op.sym_name.data != "main")


def the_loop(module) -> scf.ForOp:
    return next(op for op in region(module).walk() if isinstance(op, scf.ForOp))


def guarded(module) -> accel.DmaStartOp:
    return next(op for op in region(module).walk() if isinstance(op, accel.DmaStartOp) and op.guarded)


def run_relu(tmp_path, text: str, channels: int, target: str = "npu-64k") -> tuple[dict, np.ndarray, dict]:
    """Compile `text` (a region already lowered and planned) to C and run it on the
    simulator: the report's transfers, bytes and cycles must be the simulator's counters
    exactly. Returns the report, the input and the outputs."""
    src = tmp_path / "guarded.mlir"
    src.write_text(text)
    out = str(tmp_path / "out")
    report = compile_to_directory(str(src), target, out, "plan-memory")
    x = np.random.default_rng(channels).standard_normal((1, channels, 64, 64)).astype(np.float32)
    outputs, counters = run_directory(out, {"x": x})
    for key in ("transfers", "bytes_to_device", "bytes_to_host"):
        assert report["dma"][key] == counters[key], key
    assert report["cycles"]["estimate"] == counters["cycles"]
    return report, x, outputs


@pytest.mark.parametrize("channels", [4, 64])
def test_guarded_prefetch_runs_in_c_as_in_the_interpreter(tmp_path, channels):
    # 64 channels: the timeline jumps over repeating iterations, up to the last one,
    # whose prefetch is not issued.
    report, x, outputs = run_relu(tmp_path, relu_loop(channels), channels)
    np.testing.assert_array_equal(outputs["y"], np.maximum(x, 0))
    np.testing.assert_array_equal(run_module(parse(relu_loop(channels)), {"x": x})["y"], np.maximum(x, 0))
    # One load per channel (the prologue's and channels - 1 prefetches), one write-back
    # per channel: the last iteration's prefetch is not issued.
    assert report["dma"]["transfers"] == 2 * channels
    assert report["dma"]["bytes_to_device"] == channels * TILE * 4
    wrappers = (tmp_path / "out" / "npu_64k_wrappers.c").read_text()
    assert "< " in wrappers and "npu_dma_wait" in wrappers


def test_a_guard_that_never_holds_issues_nothing(tmp_path):
    # The guard `cn < cn`: no prefetch at all, so only channel 0 is loaded; the loop's
    # later iterations read the other slot, never written (left as the scratchpad had it).
    report, _, _ = run_relu(tmp_path, relu_loop(4, guard_first="%cn"), 4)
    assert report["dma"]["transfers"] == 1 + 4


def test_a_wait_for_a_transfer_not_issued_returns_at_once(tmp_path):
    # The loop's last token is its last iteration's prefetch, not issued (carried out
    # through the loop with its flag); another transfer's guard never holds. Waiting for
    # both returns at once: the simulator refuses a wait for a transfer never issued.
    text = relu_loop(4).replace("""    scf.yield %other, %tn : index, !accel.token
  }
  func.return""", """    scf.yield %other, %tn : index, !accel.token
  }
  %g = accel.dma_start %a0, %s0 if %cn < %c0 : memref<1x1x64x64xf32, strided<[16384, 4096, 64, 1], offset: ?>>, memref<1x1x64x64xf32, strided<[4096, 4096, 64, 1], offset: ?>, #accel.mem<"spm">>
  accel.dma_wait %tok, %g
  func.return""")
    assert "accel.dma_wait %tok, %g" in text
    report, x, outputs = run_relu(tmp_path, text, 4)
    np.testing.assert_array_equal(outputs["y"], np.maximum(x, 0))
    assert report["dma"]["transfers"] == 8


def test_issued_count_runs_the_guard_per_iteration():
    module = parse(relu_loop(7))
    assert issued_count(guarded(module)) == 6
    assert issued_count(guarded(parse(relu_loop(7, guard_first="%i", guard_bound="%c1")))) == 1
    # Not of the form `iv + c < bound`: the loop's index arithmetic is run per iteration.
    assert issued_count(guarded(parse(relu_loop(7, guard_first="%at")))) == 7
    assert issued_count(guarded(parse(relu_loop(7, guard_first="%at", guard_bound="%clast")))) == 5


def test_the_command_stream_holds_only_the_issued_loads(tmp_path):
    # npu-cmd runs the loop unrolled into a stream: the guard is evaluated at compile time.
    report, x, outputs = run_relu(tmp_path, relu_loop(4, target="npu-cmd"), 4, "npu-cmd")
    np.testing.assert_array_equal(outputs["y"], np.maximum(x, 0))
    assert report["dma"]["transfers"] == 8


def test_passes_leave_guarded_transfers_alone():
    module = parse(relu_loop(4))
    loop, dma = the_loop(module), guarded(module)
    assert not hoist_invariant_loads(loop)
    assert double_buffer_loop(loop) is False  # (a loop holding a guarded transfer)
    assert find_forwardings(region(module).body.block) == []
    host = region(module).body.block.args[0]
    assert host_transfers(host) is None  # assemble-on-device skips the value
    assert [i for _, i in host_transfers(host, guarded=True)] == [0, 0]  # partial-residency keeps guards
    assert dma.parent is loop.body.block
