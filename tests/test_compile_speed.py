"""Compile-speed changes that must not change results: the cheap builders of
`accel.compiler.ir_build` and the ops' constructors that skip IRDL's builder make the ops
xDSL's builders make, property attributes are shared per value (floats by their bits),
and accel-opt's start-up does not import what a plain .mlir run does not use."""

import glob
import io
import os
import subprocess
import sys

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from xdsl.dialects import arith, memref
from xdsl.dialects.builtin import IndexType, IntegerAttr, MemRefType, StridedLayoutAttr, f32
from xdsl.ir import Block, Region
from xdsl.printer import Printer
from xdsl.rewriter import Rewriter

from accel.compiler.diagnostics import verify_op
from accel.compiler.ir_build import index_constant, strided_layout, subview, subview_type


def generic(op) -> str:
    out = io.StringIO()
    Printer(out, print_generic_format=True).print_op(op)
    return out.getvalue()


@pytest.mark.parametrize("offsets, sizes", [([0, "iv", 2], [1, 4, 4]), ([1, 2, 3], [1, 4, 4]),
                                            (["iv", 0, 0], [2, "iv", 8]), ([0, 0, 0], [4, 8, 8])])
def test_subview_as_xdsl_builds_it(offsets, sizes):
    block = Block(arg_types=[MemRefType(f32, [4, 8, 8]), IndexType()])
    src, iv = block.args
    offsets = [iv if o == "iv" else o for o in offsets]
    sizes = [iv if s == "iv" else s for s in sizes]
    strides = [1, 1, 1]
    expected_type = memref.SubviewOp.infer_result_type(src.type, offsets, sizes, strides)
    assert subview_type(src.type, offsets, sizes, strides) == expected_type
    expected = memref.SubviewOp.get(src, offsets, sizes, strides, expected_type)
    built = subview(src, offsets, sizes, strides, expected_type)
    built.verify()
    assert generic(built) == generic(expected)
    assert str(built) == str(expected)


def test_index_constant_and_layout_as_xdsl_builds_them():
    assert generic(index_constant(7)) == generic(arith.ConstantOp(IntegerAttr(7, IndexType())))
    assert strided_layout((8, 1), None) == StridedLayoutAttr([8, 1], None)
    assert strided_layout((8, 1), 16) is strided_layout((8, 1), 16)  # built once


def modules_loaded_by(code: str, modules: tuple[str, ...]) -> list[str]:
    """Which of `modules` a fresh interpreter has imported after running `code`."""
    probe = f"import sys; {code}; print(','.join(m for m in {modules!r} if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    return [m for m in out.stdout.strip().split(",") if m]


def test_accel_opt_start_up_imports_no_numpy_or_frontend():
    assert modules_loaded_by("import accel.tools.accel_opt", (
        "numpy", "onnx", "hypothesis", "accel.compiler.partition_report", "accel.compiler.frontend.onnx")) == []


def test_partitioning_imports_no_xdsl_interpreters():
    # Constant folding evaluates ops with the reference interpreter's kernels; the
    # package `xdsl.interpreters` (every xDSL interpreter, 0.15 s) is for running @main.
    assert modules_loaded_by("from accel.compiler.driver import build_passes, make_context; "
                             "build_passes('canonicalize,byoc'); make_context('npu')", ("xdsl.interpreters",)) == []


DEFERRED = """
func.func @npu_0(%a: memref<64xf32>, %b: memref<64xf32>, %out0: memref<64xf32> {accel.output},
                 %out1: memref<64xf32> {accel.output}) attributes {accel.target = "npu"} {
  accel.eltwise ins(%a, %b : memref<64xf32>, memref<64xf32>) outs(%out0 : memref<64xf32>) {kind = "add"}
  accel.eltwise ins(%out0 : memref<64xf32>) outs(%out1 : memref<64xf32>) {kind = "relu"}
  func.return
}
"""


def test_deferred_waits_undo_restores_the_function_exactly():
    from accel.compiler.driver import build_passes, make_context
    from accel.compiler.diagnostics import LocatingParser
    from accel.compiler.transforms.optimize_dma import defer_writebacks
    from accel.dialects import accel

    ctx = make_context("npu")
    module = LocatingParser(ctx, DEFERRED, "t.mlir").parse_module()
    for p in build_passes("insert-dma"):
        p.apply(ctx, module)
    fn = next(op for op in module.body.block.ops)
    # The first write-back's wait joins the next load's: `dma_wait %store, %load`.
    first_store, second_load = [op for op in fn.walk() if isinstance(op, accel.DmaStartOp)][2:4]
    (store_wait,) = [u.operation for u in first_store.token.uses]
    (load_wait,) = [u.operation for u in second_load.token.uses]
    Rewriter.replace_op(load_wait, accel.DmaWaitOp(first_store.token, second_load.token))
    Rewriter.erase_op(store_wait)
    before = str(module)
    deferred = defer_writebacks(fn)
    # Both write-backs' waits: one replaced by a wait for the load alone, one dropped.
    assert [r is None for _, _, r, _ in deferred.taken] == [False, True]
    deferred_text = str(module)
    assert deferred_text != before
    deferred.undo()
    module.verify()
    assert str(module) == before
    # Out of the IR, a taken wait does not count as a use of its tokens.
    assert all(isinstance(u.operation, accel.DmaWaitOp) and u.operation.parent is not None
               for op in fn.walk() if isinstance(op, accel.DmaStartOp) for u in op.token.uses)
    again = defer_writebacks(fn)
    again.keep()
    module.verify()
    assert str(module) == deferred_text


def _irdl_built(cls, **kwargs):
    """`cls` built by IRDL's own builder (`irdl_op_init`), which the ops' constructors skip."""
    from xdsl.irdl import IRDLOperation

    op = cls.__new__(cls)
    IRDLOperation.__init__(op, **kwargs)
    return op


def test_fast_constructors_make_what_irdl_builds():
    from xdsl.dialects.builtin import StringAttr, TensorType
    from xdsl.ir import Region

    from accel.compiler.ir_build import memref_alloc
    from accel.dialects import accel, relay

    host = MemRefType(f32, [64])
    spm = accel.memref_type(f32, [64], space=accel.SPM)
    block = Block(arg_types=[host, host, spm, TensorType(f32, [64]), IndexType(), IndexType()])
    x, y, s, t, i, n = block.args
    pairs = [
        (memref_alloc(host), _irdl_built(memref.AllocOp, operands=[[], []], result_types=[host])),
        (accel.AllocOp(spm), _irdl_built(accel.AllocOp, result_types=[spm])),
        (accel.DmaStartOp(x, s), _irdl_built(accel.DmaStartOp, operands=[x, s, []], result_types=[accel.TokenType()])),
        (accel.DmaStartOp(x, s, (i, n)),
         _irdl_built(accel.DmaStartOp, operands=[x, s, [i, n]], result_types=[accel.TokenType()])),
        (accel.EltwiseOp([x, y], s, kind="add"),
         _irdl_built(accel.EltwiseOp, operands=[[x, y], s], properties=accel.EltwiseOp([x, y], s, kind="add").properties)),
        (relay.AddOp(t, t), _irdl_built(relay.AddOp, operands=[t, t], result_types=[t.type])),
        (relay.YieldOp(t, t), _irdl_built(relay.YieldOp, operands=[[t, t]])),
    ]
    start = pairs[2][0]
    assert not start.guarded and pairs[3][0].guarded
    pairs.append((accel.DmaWaitOp(start.token), _irdl_built(accel.DmaWaitOp, operands=[[start.token]])))
    def body(yield_op):
        b = Block(arg_types=[t.type])
        b.add_op(yield_op(b.args[0]))
        return Region(b)

    pairs.append((accel.KernelOp([x], [y], body(accel.YieldOp)),
                  _irdl_built(accel.KernelOp, operands=[[x], [y]], regions=[body(accel.YieldOp)])))
    pairs.append((relay.CompositeOp("npu.relu", [t], [t.type], body(relay.YieldOp)),
                  _irdl_built(relay.CompositeOp, operands=[[t]], result_types=[[t.type]],
                              properties={"pattern": StringAttr("npu.relu")}, regions=[body(relay.YieldOp)])))
    for fast, built in pairs:
        assert generic(fast) == generic(built), fast.name


def test_property_attributes_are_shared_and_keep_float_signs():
    from accel.dialects.relay import Float, Floats, Ints

    assert Ints("x").to_attr([1, 2]) is Ints("y").to_attr((1, 2))
    assert Float("x").to_attr(1.5) is Float("x").to_attr(1.5)
    assert str(Float("x").to_attr(-0.0)) != str(Float("x").to_attr(0.0))
    assert str(Floats("x").to_attr([-0.0])) != str(Floats("x").to_attr([0.0]))


def test_type_test_is_isinstance():
    from accel.compiler.ir_build import TypeTest
    from accel.dialects import accel

    is_compute = TypeTest(accel.ComputeOp)
    block = Block(arg_types=[MemRefType(f32, [4]), MemRefType(f32, [4])])
    relu = accel.EltwiseOp([block.args[0]], block.args[1], kind="relu")
    assert is_compute(relu) and is_compute(relu)
    assert not is_compute(accel.AllocOp(MemRefType(f32, [4])))


def test_scaling_bench_runs_every_stage_of_the_pipeline():
    """bench/scaling.py on a tiny graph: its stage table follows the pipeline (a pass added
    to `full` without a column broke the bench once)."""
    bench = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "bench", "scaling.py")
    proc = subprocess.run([sys.executable, bench, "--sizes", "40", "--models", "cnn", "--targets", "npu"],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    rows = [line for line in proc.stdout.splitlines() if line.startswith("cnn ")]
    assert len(rows) == 1 and "error" not in rows[0], proc.stdout



def test_scaling_bench_repeats_interleaved_and_shows_medians(monkeypatch):
    """`bench/scaling.py --repeat N`: N compiles per target, the targets taken in turn (a
    slow spell of the machine falls on all), shown as the medians of each figure; a run
    that failed is shown as its error."""
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "bench"))
    import scaling  # noqa: E402 - the bench, a script beside the tests

    calls = []

    def worker(path, target, profile, timeout):
        calls.append(target)
        k = float(len(calls))
        return {"timing": {"import": k, "emit": 2 * k}, "whole": k, "sys": 0.5, "peak_mb": k, "regions": 1,
                "transfers": 0}

    monkeypatch.setattr(scaling, "run_worker", worker)
    args = type("Args", (), {"repeat": 3, "profile": None, "timeout": 1.0})()
    out = scaling.run_repeated("model.onnx", ["npu", "npu-shared"], args)
    assert calls == ["npu", "npu-shared"] * 3
    assert out["npu"]["whole"] == 3.0 and out["npu-shared"]["whole"] == 4.0  # of 1, 3, 5 and of 2, 4, 6
    assert out["npu"]["timing"] == {"import": 3.0, "emit": 6.0} and out["npu-shared"]["sys"] == 0.5
    assert scaling.median_result([{"error": "timeout after 1 s"}, worker("m", "npu", None, 1)]) == \
        {"error": "timeout after 1 s"}
    # The ratio line: of the medians, of the runs side by side (pairs 1/2, 3/4, 5/6), of user time.
    line = scaling.ratio_line("m", "npu", out["npu"], out["npu-shared"], 3)
    assert "= 3.000 / 4.000 s = 0.75x (medians of 3)" in line
    assert "side by side 0.75x (0.50-0.83x)" in line and "user time 2.500 / 3.500 s = 0.71x" in line
    assert scaling.ratio_line("m", "npu", out["npu"], out["npu-shared"], 1).endswith("= 0.75x")

# -- verification: the fast path decides exactly as xDSL's verifier ---------------------

INVALID_LIT = sorted(glob.glob(os.path.join(os.path.dirname(os.path.abspath(__file__)), "lit", "*", "*invalid*.mlir")))


def test_fast_verification_agrees_with_xdsl():
    """Every op of every chunk of the lit suite's invalid inputs (and of their valid
    neighbours) that parses: `verify_op` accepts exactly what `Operation.verify` accepts,
    and rejects with the same message."""
    from accel.compiler.diagnostics import LocatingParser
    from accel.compiler.driver import make_context

    ctx = make_context()
    checked = rejected = 0
    for path in INVALID_LIT:
        with open(path) as f:
            chunks = f.read().split("// -----")
        for i, chunk in enumerate(chunks):
            try:
                module = LocatingParser(ctx, chunk, "chunk.mlir").parse_module()
            except Exception:  # noqa: BLE001 - a syntax error: the parser's test, no op to verify
                continue
            for op in module.walk():
                if type(op).__name__ == "CallOp":
                    continue
                outcomes = _verdicts(op)
                assert outcomes[0] == outcomes[1], f"{os.path.basename(path)} chunk {i}: {op.name}"
                checked += 1
                rejected += outcomes[0] is not None
    assert checked > 500 and rejected > 100, (checked, rejected)


def _isolation_cases():
    """Functions whose ops use values from inside them (valid), from another function, or
    from a detached op (invalid), directly in the body or nested in an `scf.if`."""
    from xdsl.dialects import func, scf
    from xdsl.dialects.builtin import i1, i32

    def function(name, body_uses=None, nested_uses=None):
        block = Block(arg_types=[i32, i1])
        x, flag = block.args
        ops = [arith.AddiOp(body_uses or x, x)]
        inner = Block()
        inner.add_ops([arith.AddiOp(nested_uses or x, ops[0].result), scf.YieldOp()])
        ops += [scf.IfOp(flag, [], Region(inner), Region(Block([scf.YieldOp()]))), func.ReturnOp()]
        block.add_ops(ops)
        return func.FuncOp(name, ((i32, i1), ()), Region(block))

    other = function("other")
    loose = arith.ConstantOp(IntegerAttr(1, 32))  # in no block
    outside = other.body.block.args[0]
    return [function("ok"), function("direct", body_uses=outside), function("nested", nested_uses=outside),
            function("loose", body_uses=loose.result), function("loose_nested", nested_uses=loose.result)]


def test_fast_isolation_check_agrees_with_xdsl():
    """`IsolatedFromAbove` through the fast path: a function using a value of another
    function or of a detached op, in its body or in a nested region, is rejected with
    xDSL's message; one using its own values is accepted."""
    outcomes = []
    for fn in _isolation_cases():
        pair = _verdicts(fn)
        assert pair[0] == pair[1], fn.sym_name.data
        outcomes.append(pair[0] is None)
    assert outcomes == [True, False, False, False, False]


def test_fast_verification_of_a_blocks_last_op():
    """The last op of a block through the fast path: accepted where xDSL's terminator rule
    accepts it (a terminator; any op in a region of a `NoTerminator` op or of no op, or
    in a block of no region), rejected with xDSL's message where it does not."""
    from xdsl.dialects import func
    from xdsl.dialects.builtin import ModuleOp, i32

    def last_of(block_count=1, terminator=False, holder="func"):
        blocks = [Block(arg_types=[i32]) for _ in range(block_count)]
        x = blocks[0].args[0]
        for block in blocks:
            block.add_op(func.ReturnOp() if terminator else arith.AddiOp(x, x))
        if holder == "func":
            func.FuncOp("f", ((i32,), ()), Region(blocks))
        elif holder == "module":
            ModuleOp(Region(blocks))
        elif holder == "region":
            Region(blocks)
        return blocks[0].last_op

    cases = {"func, not a terminator": (last_of(), False), "func, a terminator": (last_of(terminator=True), True),
             "two blocks, not a terminator": (last_of(2), False),
             "module (no terminator needed)": (last_of(holder="module"), True),
             "a region of no op": (last_of(holder="region"), True), "a block of no region": (last_of(holder=None), True)}
    for name, (op, valid) in cases.items():
        fast, theirs = _verdicts(op)
        assert fast == theirs and (fast is None) == valid, name


def _verdicts(op) -> list[tuple[str, str] | None]:
    """What `verify_op` and xDSL's verifier say of `op`: None (accepted) or the error's
    kind and message."""
    outcomes = []
    for verify in (verify_op, lambda o: o.verify(verify_nested_ops=False)):
        try:
            verify(op)
            outcomes.append(None)
        except Exception as e:  # noqa: BLE001
            outcomes.append((type(e).__name__, str(e)))
    return outcomes


def test_fast_verification_covers_the_dialects():
    """The fast path applies to the ops the compiler builds by the thousand."""
    from accel.compiler.diagnostics import FastCheck
    from accel.dialects import accel, relay

    for cls in (relay.Conv2DOp, relay.AddOp, relay.ConstantOp, accel.DmaStartOp, accel.DmaWaitOp, accel.AllocOp,
                accel.Conv2DOp, accel.EltwiseOp, memref.SubviewOp, arith.ConstantOp):
        assert FastCheck.of(cls) is not None, cls.__name__


@pytest.mark.parametrize("segments", [None, [1, 1, 0, 0], [1, 0, 0, 0], [1, 2, 0, 0], [1, -1, 1, 0], [2, 0, 0, 0]])
def test_fast_verification_of_operand_segments(segments):
    """A subview (operand lists sized by `operandSegmentSizes`) with its sizes intact,
    missing or wrong: the fast path and xDSL decide alike."""
    from xdsl.dialects.builtin import DenseArrayBase, i32

    block = Block(arg_types=[MemRefType(f32, [4, 8, 8]), IndexType()])
    op = subview(block.args[0], [block.args[1], 0, 0], [1, 4, 4], [1, 1, 1],
                 subview_type(block.args[0].type, [block.args[1], 0, 0], [1, 4, 4], [1, 1, 1]))
    block.add_op(op)
    block.add_op(memref.DeallocOp.get(block.args[0]))  # so that the subview is not the block's last op
    if segments is None:
        del op.properties["operandSegmentSizes"]
    else:
        op.properties["operandSegmentSizes"] = DenseArrayBase.from_list(i32, segments)
    outcomes = _verdicts(op)
    assert outcomes[0] == outcomes[1]
    assert (outcomes[0] is None) == (segments == [1, 1, 0, 0])


def test_verification_by_signature_accepts_only_what_was_accepted():
    """`verify_located` accepts a view, transfer or buffer whose signature (properties,
    operand and result types) an accepted one had, without its checks; an op of another
    signature (a property under another name, another type, another operand count) is
    still checked, and rejected where invalid: the same property object under an unknown
    name, a transfer between two host buffers after a valid one of the same shapes."""
    from xdsl.dialects import func
    from xdsl.dialects.builtin import ModuleOp

    from accel.compiler.diagnostics import CompileError, verify_located
    from accel.dialects import accel

    def module_of(*build):
        block = Block(arg_types=[MemRefType(f32, [4]), MemRefType(f32, [4])])
        for make in build:
            block.add_op(make(block))
        block.add_op(func.ReturnOp())
        return ModuleOp([func.FuncOp("f", ((MemRefType(f32, [4]), MemRefType(f32, [4])), ()), Region(block))])

    spm = accel.memref_type(f32, (4,), space=accel.SPM)
    offset = IntegerAttr(64, 64)

    def alloc(block, name="offset"):
        op = accel.AllocOp(spm)
        op.properties[name] = offset
        return op

    verify_located(module_of(alloc, alloc))  # the second one by its signature
    with pytest.raises(CompileError, match="accel.alloc"):
        verify_located(module_of(alloc, lambda b: alloc(b, "bogus")))

    def load(block):
        return accel.DmaStartOp(block.args[0], block.ops.first.results[0])

    def host_to_host(block):
        return accel.DmaStartOp(block.args[0], block.args[1])

    verify_located(module_of(alloc, load, load))
    with pytest.raises(CompileError, match="accel.dma_start"):
        verify_located(module_of(alloc, load, host_to_host))


def test_compute_op_signature_includes_its_placement_and_attributes():
    """A compute op's verdict by signature is its function's: the same op (properties,
    types, attributes) on host memory is valid in a function without a placement and
    rejected in one placed on the DMA (after insert-dma compute ops read the scratchpad),
    whichever comes first; one with an attribute of another object is checked again."""
    from xdsl.dialects import func
    from xdsl.dialects.builtin import ModuleOp, StringAttr

    from accel.compiler.diagnostics import CompileError, verify_located
    from accel.dialects import accel
    from accel.dialects.conventions import PLACEMENT_ATTR

    t = MemRefType(f32, [4])
    entry = StringAttr("npu_relu")

    def function(name, placed, attr=entry):
        block = Block(arg_types=[t, t])
        op = accel.EltwiseOp([block.args[0]], block.args[1], kind="relu")
        op.attributes["accel.entry"] = attr
        block.add_ops([op, func.ReturnOp()])
        fn = func.FuncOp(name, ((t, t), ()), Region(block))
        if placed:
            fn.attributes[PLACEMENT_ATTR] = StringAttr("dma")
        return fn

    verify_located(ModuleOp([function("a", False), function("b", False, StringAttr("npu_relu"))]))
    for order in ((False, True), (True, False)):
        with pytest.raises(CompileError, match="host memory; after insert-dma"):
            verify_located(ModuleOp([function(f"f{i}", placed) for i, placed in enumerate(order)]))


@pytest.mark.parametrize("offsets, sizes", [([0, "iv", 2], [1, 4, 4]), (["iv", 0, 0], [2, "iv", 8]),
                                            ([0, 0, 0], [4, 8, 8])])
def test_operand_segments_are_what_the_irdl_accessors_give(offsets, sizes):
    """`ir_build.operand_segments` (the sizes unpacked once) gives a subview's and a
    kernel's operand groups as their IRDL accessors do."""
    from accel.compiler.ir_build import operand_segments
    from accel.dialects import accel

    block = Block(arg_types=[MemRefType(f32, [4, 8, 8]), IndexType(), MemRefType(f32, [4, 8, 8])])
    src, iv, out = block.args
    offsets = [iv if o == "iv" else o for o in offsets]
    sizes = [iv if s == "iv" else s for s in sizes]
    view = subview(src, offsets, sizes, [1, 1, 1], subview_type(src.type, offsets, sizes, [1, 1, 1]))
    source, dyn_offsets, dyn_sizes, dyn_strides = operand_segments(view)
    assert (source, dyn_offsets, dyn_sizes, dyn_strides) == ((view.source,), tuple(view.offsets), tuple(view.sizes),
                                                             tuple(view.strides))
    kernel = accel.KernelOp([src, iv], [out], Region(Block()))
    assert operand_segments(kernel) == [tuple(kernel.ins), tuple(kernel.outs)] == [(src, iv), (out,)]


def test_identity_memo_keys_by_identity_and_keeps_its_objects():
    """An equal but distinct object misses; an entry keeps its objects alive, so a new
    object cannot take a stored one's id (CPython reuses a freed object's id at once)."""
    from accel.compiler.ir_build import IdentityMemo

    class Thing:
        def __eq__(self, other):
            return isinstance(other, Thing)

        def __hash__(self):
            return 0

    memo = IdentityMemo()
    a, b = Thing(), Thing()
    memo.put((a, b), "ab")
    assert memo.get((a, b)) == "ab"
    assert memo.get((Thing(), b)) is None and memo.get((b, a)) is None
    ids = (id(a), id(b))
    del a, b
    fresh = [Thing() for _ in range(100)]
    assert all(id(t) not in ids for t in fresh)
    small = IdentityMemo(limit=2)
    keys = [(Thing(),) for _ in range(3)]
    for i, k in enumerate(keys):
        small.put(k, i)
    assert small.get(keys[2]) == 2 and small.get(keys[0]) is None  # emptied past the limit


def test_per_description_memos_do_not_keep_every_description():
    """A function memoized per target description keeps at most `PER_DESCRIPTION` of
    them alive (each holds its pattern modules' IR: a fuzz worker loads one per case)."""
    import gc
    import weakref

    from accel.compiler.ir_build import PER_DESCRIPTION, by_identity

    class Description:
        pass

    calls = [0]

    def count(d):
        calls[0] += 1
        return calls[0]

    templates = by_identity(limit=PER_DESCRIPTION)(count)
    first = Description()
    assert templates(first) == templates(first) == 1  # computed once
    alive = [weakref.ref(first)]
    del first
    for _ in range(3 * PER_DESCRIPTION):
        d = Description()
        templates(d)
        alive.append(weakref.ref(d))
    gc.collect()
    assert sum(r() is not None for r in alive) <= PER_DESCRIPTION


@pytest.mark.parametrize("model, target", [("cnn_large_mobilenet", "npu-64k"), ("zoo_dscnn_kws", "npu-64k"),
                                           ("mlp_dynamo", "npu"), ("yolo_dynamo", "npu-64k")])
def test_optimize_dma_simplify_is_cse(model, target):
    # optimize-dma skips CSE on regions where it cannot change anything (no op declares
    # its memory effects, or none is pure, read-only or unused): each region comes out
    # as CSE leaves it, those with index arithmetic and views (tiled) among them.
    from xdsl.transforms.common_subexpression_elimination import cse

    from accel.compiler.transforms.optimize_dma import simplify
    from accel.dialects.conventions import accelerator_functions
    from e2e_util import after_passes

    pipeline = "canonicalize,byoc,bufferize,plan-memory,lower-to-accel,fuse-layers,tile-for-scratchpad,insert-dma"
    module = after_passes(os.path.join(os.path.dirname(__file__), "models", f"{model}.onnx"), target, pipeline)
    changed = 0
    for fn, _ in accelerator_functions(module):
        expected = fn.clone()
        cse(expected)
        before = str(fn)
        simplify(fn)
        assert str(fn) == str(expected)
        changed += str(fn) != before
    # The tiled models' regions but YOLO's do change (its views are all distinct once
    # tile-for-scratchpad has merged the tiles' equal constants).
    assert changed or model in ("mlp_dynamo", "yolo_dynamo")


@pytest.mark.parametrize("flags, verifications", [((), 2), (("--verify-each",), 4), (("--disable-verify",), 0)])
def test_accel_opt_verifies_input_and_output_unless_asked_for_every_pass(monkeypatch, tmp_path, capsys, flags,
                                                                          verifications):
    # Verification is not free (half of `accel-opt -p full` on a 10k-node model when it
    # ran after every pass): by default the input and the output, as accel-compile does.
    from accel.tools import accel_opt

    source = tmp_path / "m.mlir"
    source.write_text(DEFERRED)
    seen = []
    monkeypatch.setattr(accel_opt, "verify_located", lambda module: seen.append(module))
    accel_opt.main([str(source), "-p", "canonicalize,canonicalize,canonicalize", *flags])
    assert "accel.eltwise" in capsys.readouterr().out
    assert len(seen) == verifications


def test_verification_memo_never_passes_what_xdsl_rejects():
    """`verify_located` remembers the (constraint, attribute) pairs that passed without
    binding a variable: a type object that passed one op's constraint still fails
    another's, operands that bind a shared type variable are compared op by op, and
    nothing is held once verification ends."""
    from xdsl.dialects import func
    from xdsl.dialects.builtin import ModuleOp, i32, i64

    from accel.compiler import diagnostics
    from accel.compiler.diagnostics import CompileError, verify_located

    def module_with(*make_ops):
        block = Block(arg_types=[f32, i32, i64])
        for make in make_ops:
            for op in make(block.args):
                block.add_op(op)
        block.add_op(func.ReturnOp())
        return ModuleOp([func.FuncOp("f", ((f32, i32, i64), ()), Region(block))])

    addf = lambda a: [arith.AddfOp(a[0], a[0])]  # noqa: E731
    addi_f32 = lambda a: [arith.AddiOp(a[0], a[0])]  # noqa: E731 - f32 passed addf's constraint, not addi's
    addi = lambda a: [arith.AddiOp(a[1], a[1])]  # noqa: E731
    addi_mixed = lambda a: [arith.AddiOp(a[1], a[2], result_type=i32)]  # noqa: E731 - i32 and i64 each pass alone

    verify_located(module_with(addf, addi))
    assert not diagnostics._passed
    for bad in ((addf, addi_f32), (addi, addi_mixed), (addf, addf, addi, addi_mixed)):
        module = module_with(*bad)
        with pytest.raises(CompileError):
            verify_located(module)
        assert not diagnostics._passed
        offender = list(module.walk())[-2]
        with pytest.raises(Exception):
            offender.verify(verify_nested_ops=False)  # xDSL rejects it too


def test_subview_verifier_memo_still_counts_the_dynamic_operands():
    """memref.subview's own verifier is remembered per (property objects, operand list
    sizes): a view sharing a valid view's static offsets, sizes and strides (as the clones
    of a tile's views do) but with another number of dynamic offsets still fails, and
    nothing is held once verification ends."""
    from xdsl.dialects import func, memref
    from xdsl.dialects.builtin import DYNAMIC_INDEX, IndexType, MemRefType, ModuleOp, StridedLayoutAttr

    from accel.compiler import diagnostics
    from accel.compiler.diagnostics import CompileError, verify_located

    source = MemRefType(f32, [8, 8])
    view = MemRefType(f32, [4, 8], StridedLayoutAttr([8, 1], None))

    def module_with(dynamic_counts):
        block = Block(arg_types=[source, IndexType(), IndexType()])
        first = None
        for n in dynamic_counts:
            if first is None:
                op = memref.SubviewOp(block.args[0], [block.args[1]], [], [], [DYNAMIC_INDEX, 0], [4, 8], [1, 1], view)
                first = op
            else:  # the first view's property objects, as a clone has them
                op = memref.SubviewOp(block.args[0], list(block.args[1:1 + n]), [], [],
                                      first.static_offsets, first.static_sizes, first.static_strides, view)
            block.add_op(op)
        block.add_op(func.ReturnOp())
        return ModuleOp([func.FuncOp("f", ((source, IndexType(), IndexType()), ()), Region(block))])

    verify_located(module_with([1, 1, 1]))
    assert not diagnostics._verified
    for counts in ([1, 0], [1, 2], [1, 1, 2]):
        module = module_with(counts)
        with pytest.raises(CompileError, match="dynamic positions"):
            verify_located(module)
        assert not diagnostics._verified


@settings(max_examples=80, deadline=None)
@given(st.lists(st.tuples(st.lists(st.sampled_from([0, 1, 2, "dyn"]), min_size=2, max_size=2),
                          st.integers(0, 2), st.booleans()), min_size=1, max_size=6))
@example([(["dyn", 0], 1, True), ([0, 0], 1, True)])  # one marker, then none: one operand too many
@example([([0, 0], 0, True), ([1, 1], 0, False)])  # i32 static sizes after a valid view
def test_views_verified_by_markers_as_xdsl_verifies_them(views):
    """Views verified by a signature of their static lists' dynamic markers and their
    types' classes: a module of views at any offsets, with as many dynamic offsets as
    markers or not, and i64 or i32 static sizes, is rejected exactly where xDSL rejects
    one of its views, in any order."""
    from xdsl.dialects import func, memref
    from xdsl.dialects.builtin import DYNAMIC_INDEX, DenseArrayBase, IndexType, ModuleOp, i32
    from xdsl.utils.exceptions import VerifyException

    from accel.compiler.diagnostics import CompileError, verify_located

    source = MemRefType(f32, [8, 8])
    view = MemRefType(f32, [2, 2], StridedLayoutAttr([8, 1], None))
    block = Block(arg_types=[source, IndexType(), IndexType()])
    valid = True
    segments = {}  # one segment sizes attribute per operand count, shared as ir_build shares them
    for offsets, dynamic, wide in views:
        static = [DYNAMIC_INDEX if o == "dyn" else o for o in offsets]
        op = memref.SubviewOp(block.args[0], list(block.args[1:1 + dynamic]), [], [], static, [2, 2], [1, 1], view)
        op.properties["operandSegmentSizes"] = segments.setdefault(dynamic, op.properties["operandSegmentSizes"])
        if not wide:
            op.properties["static_sizes"] = DenseArrayBase.from_list(i32, [2, 2])
        block.add_op(op)
        try:
            op.verify()
        except VerifyException:
            valid = False
    block.add_op(func.ReturnOp())
    module = ModuleOp([func.FuncOp("f", ((source, IndexType(), IndexType()), ()), Region(block))])
    if valid:
        verify_located(module)
    else:
        with pytest.raises(CompileError, match="memref.subview"):
            verify_located(module)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.booleans(), st.integers(0, 3), st.integers(0, 99), st.integers(0, 99)),
                min_size=1, max_size=24),
       st.integers(0, 24), st.integers(0, 24))
def test_hoisting_index_constants_keeps_every_value(items, split, nested_at):
    """`hoist_index_constants`: one index constant per value, all leading the function's
    entry block in the order first met, the others (in loops, after them, in a loop
    nested in a loop) replaced by it; every use sees the value it saw, the IR verifies."""
    from xdsl.dialects import func, scf
    from xdsl.dialects.builtin import ModuleOp

    from accel.compiler.diagnostics import verify_located
    from accel.compiler.index_arith import hoist_index_constants

    def fill(block, items, outer):
        values = list(outer)
        for is_const, k, a, b in items:
            if is_const or not values:
                op = arith.ConstantOp(IntegerAttr(k, IndexType()))
            else:
                op = arith.AddiOp(values[a % len(values)], values[b % len(values)])
            block.add_op(op)
            values.append(op.result)
        return values

    def loop(block, items, outer, nest=True):
        lb = arith.ConstantOp(IntegerAttr(0, IndexType()))
        ub = arith.ConstantOp(IntegerAttr(2, IndexType()))
        block.add_ops([lb, ub])
        body = Block(arg_types=[IndexType()])
        values = fill(body, items[:nested_at] if nest else items, [*outer, body.args[0]])
        if nest:  # a loop nested in the loop
            loop(body, items[nested_at:], values, False)
        body.add_op(scf.YieldOp())
        block.add_op(scf.ForOp(lb.result, ub.result, ub.result, [], Region(body)))

    def evaluate(module):
        env, sums = {}, []
        for op in module.walk():
            if isinstance(op, arith.ConstantOp):
                env[op.result] = op.value.value.data
            elif isinstance(op, scf.ForOp):
                env[op.body.block.args[0]] = 1
            elif isinstance(op, arith.AddiOp):
                env[op.result] = env[op.lhs] + env[op.rhs]
                sums.append(env[op.result])
        return sums

    top = Block()
    outer = fill(top, items[:split], [])
    loop(top, items[split:], outer)
    fill(top, items, [])
    top.add_op(func.ReturnOp())
    module = ModuleOp([func.FuncOp("f", ((), ()), Region(top))])
    fn = module.ops.first
    before = evaluate(module)
    met = list(dict.fromkeys(o.value.value.data for o in fn.walk() if isinstance(o, arith.ConstantOp)))
    hoist_index_constants(fn)
    verify_located(module)
    assert evaluate(module) == before
    leading = []
    for op in top.ops:
        if not isinstance(op, arith.ConstantOp):
            break
        leading.append(op.value.value.data)
    assert leading == met
    assert sum(isinstance(o, arith.ConstantOp) for o in fn.walk()) == len(met)


@settings(max_examples=150, deadline=None)
@given(st.data())
def test_scoped_cse_is_xdsls_cse(data):
    """`scoped_cse` (optimize-dma's CSE) leaves random IR as xDSL's `cse` does: pure index
    arithmetic and constants (merged within and across nested loops), loads (read-only:
    merged unless a store comes between), stores, dead ops, loops with their own scopes,
    ops without declared memory effects (accel's: unknown effects, and so are a loop's
    holding one)."""
    from xdsl.dialects import func, scf, test
    from xdsl.dialects.builtin import ModuleOp
    from xdsl.transforms.common_subexpression_elimination import cse

    from accel.compiler.scoped_cse import scoped_cse

    ref_type = MemRefType(IndexType(), [4])

    def fill(block: Block, values: list, depth: int) -> None:
        made = []
        for _ in range(data.draw(st.integers(1, 8))):
            kind = data.draw(st.sampled_from(["const", "const", "add", "mul", "load", "store", "loop", "opaque"]))
            pick = lambda: values[data.draw(st.integers(0, len(values) - 1))]  # noqa: E731
            if kind == "const" or len(values) < 2:
                op = arith.ConstantOp(IntegerAttr(data.draw(st.integers(0, 2)), IndexType()))
            elif kind == "add":
                op = arith.AddiOp(pick(), pick())
            elif kind == "mul":
                op = arith.MuliOp(pick(), pick())
            elif kind == "load":
                op = memref.LoadOp.get(ref, [pick()])
            elif kind == "store":
                op = memref.StoreOp.get(pick(), ref, [pick()])
            elif kind == "opaque":
                op = test.TestOp.create(operands=[pick()], result_types=[IndexType()] * data.draw(st.integers(0, 1)))
            elif depth < 2:
                body = Block(arg_types=[IndexType()])
                fill(body, [*values, body.args[0]], depth + 1)
                body.add_op(scf.YieldOp())
                op = scf.ForOp(pick(), pick(), pick(), [], Region(body))
            else:
                continue
            block.add_op(op)
            new = [r for r in op.results if isinstance(r.type, IndexType)]
            made += new
            values += new
        for v in made:  # most values stored at the end of their block: live; the others dead
            if data.draw(st.integers(0, 3)):
                block.add_op(memref.StoreOp.get(v, ref, [v]))

    top = Block(arg_types=[ref_type, IndexType()])
    ref = top.args[0]
    fill(top, [top.args[1]], 0)
    top.add_op(func.ReturnOp())
    module = ModuleOp([func.FuncOp("f", ((ref_type, IndexType()), ()), Region(top))])
    expected, got = module.clone(), module.clone()
    cse(expected)
    scoped_cse(got)
    assert str(got) == str(expected)


def test_a_function_using_an_outside_value_is_rejected_by_dominance():
    """`verify_located` leaves a module function's isolation to the dominance check: a
    function using another function's value, or a value of an op in the module's block,
    is still rejected at the use."""
    from xdsl.dialects import func
    from xdsl.dialects.builtin import ModuleOp, i32

    from accel.compiler.diagnostics import CompileError, verify_located

    def function(name, uses=None):
        block = Block(arg_types=[i32])
        add = arith.AddiOp(uses or block.args[0], block.args[0])
        block.add_ops([add, func.ReturnOp(add.result)])
        return func.FuncOp(name, ((i32,), (i32,)), Region(block))

    verify_located(ModuleOp([function("a"), function("b")]))
    a = function("a")
    with pytest.raises(CompileError, match="does not dominate|IsolatedFromAbove"):
        verify_located(ModuleOp([a, function("b", uses=a.body.block.args[0])]))
    outside = arith.ConstantOp(IntegerAttr(1, i32))
    with pytest.raises(CompileError, match="IsolatedFromAbove|does not dominate"):
        verify_located(ModuleOp([outside, function("c", uses=outside.result)]))


# -- parsing: repeated shaped types are taken again, as xDSL would parse them ------------

PATTERN_FILES = [os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "compiler", "targets", f)
                 for f in ("patterns.mlir", "dnnl_patterns.mlir")]


@pytest.mark.parametrize("path", PATTERN_FILES + INVALID_LIT[:40], ids=os.path.basename)
def test_type_memo_parses_as_xdsl_does(path):
    """`LocatingParser` takes a shaped type whose text it parsed before from its memo: every
    chunk gives the same module (text and locations) or the same error as xDSL's own
    parsing of each type, and the pattern files' repeated types do come from the memo."""
    from xdsl.parser import Parser as XdslParser

    from accel.compiler.diagnostics import LocatingParser
    from accel.compiler.driver import make_context

    class EachTypeParsed(LocatingParser):
        def parse_optional_type(self):
            return XdslParser.parse_optional_type(self)

    ctx = make_context()
    with open(path) as f:
        chunks = f.read().split("// -----")
    for chunk in chunks:
        results = []
        for cls in (LocatingParser, EachTypeParsed):
            parser = cls(ctx, chunk, "chunk.mlir")
            try:
                module = parser.parse_module()
                results.append((str(module), [op.location for op in module.walk()]))
            except Exception as e:  # noqa: BLE001 - the same error either way
                results.append(("error", str(e)))
        assert results[0] == results[1]
    if path in PATTERN_FILES:
        text = "".join(chunks)
        parser = LocatingParser(ctx, text, "p.mlir")
        parser.parse_module()
        assert 0 < len(parser._types) and text.count("tensor<") > 20 * len(parser._types)  # noqa: SLF001 - repeats


@pytest.mark.parametrize("model, target", [("cnn_large_mobilenet", "npu-64k"), ("mlp_dynamo", "npu")])
def test_a_compile_leaves_no_closure_cycles(model, target, tmp_path):
    # A compile runs with the cycle collector off (`accel.tools.one_shot`): a recursive
    # closure is a reference cycle, and what it captured (a scratchpad plan and its labels,
    # a function's positions, a body's values) would stay in memory until the process ends.
    import gc
    import types

    from accel.compiler.driver import compile_to_directory

    gc.collect()
    gc.disable()
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        compile_to_directory(os.path.join(os.path.dirname(__file__), "models", f"{model}.onnx"), target,
                             str(tmp_path / "out"))
        gc.collect()
        leaked = sorted({o.__qualname__ for o in gc.garbage
                         if type(o) is types.FunctionType and o.__module__.startswith("accel.")})
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
        gc.enable()
    assert not leaked
