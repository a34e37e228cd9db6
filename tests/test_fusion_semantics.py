"""Semantic properties of layer fusion (fuse-layers) on random chains.

Random chains of convolutions (dense and depthwise, kernels 1-5, strides 1-2, asymmetric
padding), pools (max and average, ceil mode, count_include_pad), relus, adds of a second
input and residual blocks (a value read by a conv and by the add after it), on 1 x C x H x W f32 activations larger than a 16 KiB scratchpad, so that
fuse-layers computes them in stripes:

- after every pass of the pipeline, the reference interpreter gives what it gave before
  (float outputs within 1e-5 x max|ref| + 1e-6: numpy sums a stripe's windows in another
  order than the whole tensor's);
- fusion fires on most examples (a test that never fuses would prove nothing);
- a few examples go to C on the simulator: the fused build gives the same bits as
  `full-nofuse`'s (the same arithmetic per output element), matches the interpreter, and
  the report's transfers and cycles equal the simulator's counters.

The semantic tests of the other data-movement passes (random graphs, 2 KiB scratchpad)
run fuse-layers too: tests/test_dma_semantics.py.
"""

from __future__ import annotations

import os
import re

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from xdsl.dialects import scf

from accel.compiler.driver import build_passes, load_model, make_context, print_ir
from accel.compiler.frontend.builder import GraphBuilder
from accel.compiler.fuzz.graphs import RelayGraph
from accel.compiler.runtime.buffer_interpreter import run_module
from accel.dialects import accel
from accel.dialects.relay import conv_out_dim, pool_out_dim

from test_dma_semantics import assert_same

TARGETS_DIR = os.path.join(os.path.dirname(__file__), "..", "compiler", "targets")
SCRATCHPAD = 16384

PIPELINE = "byoc{cost-model=false},bufferize,plan-memory,lower-to-accel,fuse-layers,tile-for-scratchpad,insert-dma," \
           "optimize-dma,partial-residency,plan-memory"
UNFUSED = PIPELINE.replace("fuse-layers,", "")


@pytest.fixture(scope="module")
def target16k(tmp_path_factory) -> str:
    """npu.toml with a 16 KiB scratchpad, as a user's file (patterns next to it)."""
    d = tmp_path_factory.mktemp("npu16k")
    text = open(os.path.join(TARGETS_DIR, "npu.toml")).read()
    text = re.sub(r'^name = "npu"', 'name = "npu16k"', text, flags=re.M)
    text = re.sub(r"^scratchpad_bytes = \d+.*$", f"scratchpad_bytes = {SCRATCHPAD}", text, flags=re.M)
    (d / "npu16k.toml").write_text(text)
    (d / "patterns.mlir").write_text(open(os.path.join(TARGETS_DIR, "patterns.mlir")).read())
    return str(d / "npu16k.toml")


def residual_block(draw, rng, b: GraphBuilder, v):
    """v -> conv k x k (-> conv) -> add v (either operand order): v has two readers."""
    c = v.type.get_shape()[1]
    u = v
    for k in [draw(st.sampled_from([1, 3, 5]))] + ([draw(st.sampled_from([1, 3]))] if draw(st.booleans()) else []):
        scale = 1.0 / np.sqrt(k * k * c)
        wt = rng.uniform(-scale, scale, (c, c, k, k)).astype(np.float32)
        u = b.relu(b.conv2d(u, b.const(wt), padding=(k // 2,) * 4))
    return b.add(u, v) if draw(st.booleans()) else b.add(v, u)


@st.composite
def residual_chains(draw) -> RelayGraph:
    """A conv, one or two residual blocks, maybe a pool: the blocks' inputs are made inside
    the chain, so a fused segment holds both readers of a value."""
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    b = GraphBuilder()
    c, h, w = draw(st.integers(3, 6)), draw(st.integers(24, 48)), draw(st.integers(24, 40))
    inputs = {"x": rng.standard_normal((1, c, h, w)).astype(np.float32)}
    k = draw(st.sampled_from([1, 3]))
    wt = rng.uniform(-0.5, 0.5, (c, c, k, k)).astype(np.float32)
    v = b.conv2d(b.input("x", (1, c, h, w)), b.const(wt), padding=(k // 2,) * 4)
    for _ in range(draw(st.integers(1, 2))):
        v = residual_block(draw, rng, b, v)
    if draw(st.booleans()):
        v = b.max_pool2d(v, pool_size=(2, 2), strides=(2, 2), padding=(0, 0, 0, 0))
    module = b.build([v], ["y"])
    module.verify()
    return RelayGraph(module, inputs, ["residual"])


@st.composite
def chains(draw) -> RelayGraph:
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    b = GraphBuilder()
    c, h, w = draw(st.integers(3, 6)), draw(st.integers(24, 48)), draw(st.integers(24, 40))
    inputs = {"x": rng.standard_normal((1, c, h, w)).astype(np.float32)}
    v = b.input("x", (1, c, h, w))
    kinds = []
    for i in range(draw(st.integers(2, 5))):
        _, c, h, w = v.type.get_shape()
        kind = draw(st.sampled_from(["conv2d", "depthwise", "max_pool2d", "avg_pool2d", "relu", "add", "residual"]))
        if kind == "residual":
            v = residual_block(draw, rng, b, v)
        elif kind in ("conv2d", "depthwise"):
            k = draw(st.sampled_from([1, 3, 5]))
            pt, pb = draw(st.integers(0, k // 2)), draw(st.integers(0, k // 2))
            s = draw(st.integers(1, 2))
            oc, groups = (c, c) if kind == "depthwise" else (draw(st.integers(3, 6)), 1)
            scale = 1.0 / np.sqrt(k * k * (c // groups))
            wt = rng.uniform(-scale, scale, (oc, c // groups, k, k)).astype(np.float32)
            side = 1 if k > 1 else 0
            # (After downsampling the image can be smaller than the kernel: the chain ends.)
            if min(conv_out_dim(h, k, s, 1, pt, pb), conv_out_dim(w, k, s, 1, side, side)) < 2:
                break
            v = b.conv2d(v, b.const(wt), strides=(s, s), padding=(pt, side, pb, side), groups=groups)
            if draw(st.booleans()):
                v = b.relu(b.bias_add(v, b.const(rng.uniform(-0.5, 0.5, (oc,)).astype(np.float32))))
        elif kind in ("max_pool2d", "avg_pool2d"):
            k = draw(st.integers(2, 3))
            p = draw(st.integers(0, (k - 1) // 2))
            props = dict(pool_size=(k, k), strides=(draw(st.integers(1, 2)),) * 2, padding=(p, p, p, p),
                         ceil_mode=draw(st.booleans()))
            if kind == "avg_pool2d":
                props["count_include_pad"] = draw(st.booleans())
            if min(pool_out_dim(n, k, props["strides"][0], 1, p, p, props["ceil_mode"]) for n in (h, w)) < 2:
                break  # (both sides: a 4x2 image has no 3x3 window)
            v = getattr(b, kind)(v, **props)
        elif kind == "relu":
            v = b.relu(v)
        else:
            name = f"s{i}"
            inputs[name] = rng.standard_normal((1, c, h, w)).astype(np.float32)
            v = b.add(v, b.input(name, (1, c, h, w)))
        kinds.append(kind)
        if min(v.type.get_shape()[2:]) < 4:
            break
    module = b.build([v], ["y"])
    module.verify()
    return RelayGraph(module, inputs, kinds)


def compile_ir(graph: RelayGraph, target: str, spec: str, check_each: bool = False):
    ctx = make_context(target)
    module = graph.module.clone()
    before = run_module(module, graph.inputs) if check_each else None
    for p in build_passes(spec):
        p.apply(ctx, module)
        module.verify()
        if check_each:
            assert_same(before, run_module(module, graph.inputs), p.name)
    return module


def fused_ops(module) -> list:
    """Compute ops fuse-layers put in a stripe loop next to another op of their chain."""
    return [o for o in module.walk() if isinstance(o, accel.ComputeOp) and isinstance(o.parent_op(), scf.ForOp)
            and sum(isinstance(p, accel.ComputeOp) for p in o.parent_op().body.block.ops) > 1]


def shared_reads(module) -> list:
    """Elementwise ops reading a shared value's rows from a stripe buffer of their segment
    (a view of an `accel.alloc`: right after fuse-layers nothing else makes one)."""
    from xdsl.dialects import memref

    return [o for o in module.walk() if isinstance(o, accel.EltwiseOp)
            and any(isinstance(v.owner, memref.SubviewOp) and isinstance(v.owner.source.owner, accel.AllocOp)
                    for v in o.inputs)]


def share_where(strategy, target: str, predicate, examples: int) -> tuple[int, int]:
    """Of `examples` graphs drawn from `strategy` (the same ones every run: hypothesis
    derandomized), how many satisfy `predicate` after fuse-layers."""
    seen: list[bool] = []

    @settings(max_examples=examples, derandomize=True, database=None, deadline=None,
              suppress_health_check=[HealthCheck.too_slow])
    @given(graph=strategy)
    def collect(graph):
        module = compile_ir(graph, target, "byoc{cost-model=false},bufferize,plan-memory,lower-to-accel,fuse-layers")
        seen.append(bool(predicate(module)))

    collect()
    return sum(seen), len(seen)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(graph=chains())
def test_each_pass_preserves_results_with_fusion(graph, target16k):
    compile_ir(graph, target16k, PIPELINE, check_each=True)


def test_fusion_fires_on_most_chains(target16k):
    """The property test above proves something only if fuse-layers fuses: it does on at
    least a third of such chains."""
    fused, n = share_where(chains(), target16k, fused_ops, 30)
    print(f"fused {fused} of {n} chains")
    assert fused >= n // 3, f"fused {fused} of {n} chains"


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(graph=residual_chains())
def test_each_pass_preserves_results_with_residual_blocks(graph, target16k):
    compile_ir(graph, target16k, PIPELINE, check_each=True)


def test_residual_blocks_fuse_on_most_chains(target16k):
    """A residual block's input is kept in its segment's stripe buffer for both readers
    on at least a third of such chains (else the property test above proves nothing)."""
    shared, n = share_where(residual_chains(), target16k, shared_reads, 20)
    print(f"a shared value inside a segment in {shared} of {n} chains")
    assert shared >= n // 3, f"{shared} of {n}"


@pytest.mark.slow
@settings(max_examples=4, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(graph=chains())
def test_fused_c_is_bit_identical_to_unfused(graph, target16k, tmp_path_factory):
    assume(fused_ops(compile_ir(graph, target16k, "byoc{cost-model=false},bufferize,plan-memory,lower-to-accel,"
                                                "fuse-layers")))
    check_c_bit_identical(graph, target16k, tmp_path_factory)


@pytest.mark.slow
@settings(max_examples=3, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(graph=residual_chains())
def test_fused_residual_c_is_bit_identical_to_unfused(graph, target16k, tmp_path_factory):
    assume(shared_reads(compile_ir(graph, target16k, "byoc{cost-model=false},bufferize,plan-memory,lower-to-accel,"
                                                   "fuse-layers")))
    check_c_bit_identical(graph, target16k, tmp_path_factory)


DEPTHWISE_THEN_1X1 = """func.func @main(%x: tensor<1x3x27x28xf32>) -> tensor<1x3x27x28xf32> {
  %0 = relay.constant dense<[[[[-0.869055569]]], [[[0.234971195]]], [[[0.628971279]]]]> : tensor<3x1x1x1xf32>
  %1 = relay.nn.conv2d %x, %0 {groups = 3} : (tensor<1x3x27x28xf32>, tensor<3x1x1x1xf32>) -> tensor<1x3x27x28xf32>
  %2 = relay.constant dense<[[[[-0.158]], [[-0.057]], [[-0.228]]], [[[-0.051]], [[0.182]], [[-0.577]]], [[[-0.529]], [[0.026]], [[-0.348]]]]> : tensor<3x3x1x1xf32>
  %3 = relay.nn.conv2d %1, %2 : (tensor<1x3x27x28xf32>, tensor<3x3x1x1xf32>) -> tensor<1x3x27x28xf32>
  func.return %3 : tensor<1x3x27x28xf32>
}
"""


def test_partial_residency_slab_of_columns_keeps_estimate_equal_to_counters(target16k, tmp_path_factory):
    """Unfused on 16 KiB, partial-residency keeps the first 12 columns of the depthwise
    conv's output: the row tiles' transfers split into strided copies into that slab, which
    the report's timeline must walk row by row as the simulator does (its estimate was 35
    cycles short when it took a strided view for the span of its bytes)."""
    d = tmp_path_factory.mktemp("slab")
    (d / "g.mlir").write_text(DEPTHWISE_THEN_1X1)
    graph = RelayGraph(inputs={"x": np.random.default_rng(5).standard_normal((1, 3, 27, 28)).astype(np.float32)},
                       kinds=["depthwise", "conv2d"],
                       module=load_model(str(d / "g.mlir"), make_context("npu")))
    check_c_bit_identical(graph, target16k, tmp_path_factory)


def check_c_bit_identical(graph, target16k, tmp_path_factory) -> None:
    from accel.compiler.driver import compile_to_directory
    from accel.compiler.runtime.run_compiled import run_directory

    d = tmp_path_factory.mktemp("chain")
    src = d / "chain.mlir"
    src.write_text(print_ir(graph.module))
    got = {}
    for name, spec in (("fused", PIPELINE), ("unfused", UNFUSED)):
        report = compile_to_directory(str(src), target16k, str(d / name), pipeline=spec)
        got[name], counters = run_directory(str(d / name), graph.inputs)
        for key in ("bytes_to_device", "bytes_to_host", "transfers"):
            assert report["dma"][key] == counters[key], (name, key)
        assert report["cycles"]["estimate"] == counters["cycles"], name
    assert_same(run_module(graph.module, graph.inputs), got["fused"], "compiled C (fused)")
    for out, ref in got["unfused"].items():
        # (the simulator's float products are shape-independent: acc_gemm_shape_independent)
        assert np.array_equal(got["fused"][out], ref), out


# A chain whose 1x4x64x64 f32 activations (64 KiB) exceed a 32 KiB scratchpad: conv 3x3 ->
# relu -> conv 1x1 -> add (of the input) -> max pool 3x3/2. fuse-layers computes it in
# stripes (a fixed example next to the random chains above).
FUSABLE_CHAIN = """
func.func @main(%x: tensor<1x4x64x64xf32>) -> tensor<1x4x32x32xf32> {
  %w0 = relay.constant dense<[[[[0.5, -0.25, 0.125], [0.25, 1.0, -0.5], [0.75, -0.125, 0.25]]], [[[-0.5, 0.25, 0.5], [0.125, -1.0, 0.25], [0.5, 0.5, -0.25]]], [[[0.25, 0.75, -0.5], [1.0, 0.125, 0.25], [-0.25, 0.5, 0.125]]], [[[0.125, -0.5, 0.75], [0.5, 0.25, -0.125], [0.25, -0.75, 1.0]]]]> : tensor<4x1x3x3xf32>
  %w1 = relay.constant dense<[[[[0.5]], [[-0.25]], [[1.0]], [[0.125]]], [[[-1.0]], [[0.75]], [[0.5]], [[-0.5]]], [[[0.25]], [[0.5]], [[-0.75]], [[1.0]]], [[[0.125]], [[-0.125]], [[0.25]], [[0.5]]]]> : tensor<4x4x1x1xf32>
  %a = relay.nn.conv2d %x, %w0 {padding = [1, 1, 1, 1], groups = 4} : (tensor<1x4x64x64xf32>, tensor<4x1x3x3xf32>) -> tensor<1x4x64x64xf32>
  %r = relay.nn.relu %a : (tensor<1x4x64x64xf32>) -> tensor<1x4x64x64xf32>
  %b = relay.nn.conv2d %r, %w1 : (tensor<1x4x64x64xf32>, tensor<4x4x1x1xf32>) -> tensor<1x4x64x64xf32>
  %c = relay.add %b, %x : (tensor<1x4x64x64xf32>, tensor<1x4x64x64xf32>) -> tensor<1x4x64x64xf32>
  %p = relay.nn.max_pool2d %c {pool_size = [3, 3], strides = [2, 2], padding = [1, 1, 1, 1]} : (tensor<1x4x64x64xf32>) -> tensor<1x4x32x32xf32>
  func.return %p : tensor<1x4x32x32xf32>
}
"""


@pytest.fixture(scope="module")
def small_target(tmp_path_factory) -> str:
    """npu.toml with a 32 KiB scratchpad."""
    d = tmp_path_factory.mktemp("small-target")
    text = open(os.path.join(TARGETS_DIR, "npu.toml")).read()
    text = re.sub(r'^name = "npu"', 'name = "npu32k"', text, flags=re.M)
    text = re.sub(r"^scratchpad_bytes = \d+.*$", "scratchpad_bytes = 32768", text, flags=re.M)
    (d / "npu32k.toml").write_text(text)
    (d / "patterns.mlir").write_text(open(os.path.join(TARGETS_DIR, "patterns.mlir")).read())
    return str(d / "npu32k.toml")


def test_fused_chain_c_is_bit_identical_to_unfused(small_target, tmp_path):
    """The fused schedule on the simulator: the same bits as the unfused pipeline's C, the
    interpreter's results, the report's transfers equal to the counters, and fewer bytes."""
    from accel.compiler.driver import compile_to_directory, load_model
    from accel.compiler.runtime.run_compiled import run_directory
    from accel.dialects import accel

    src = tmp_path / "chain.mlir"
    src.write_text(FUSABLE_CHAIN)
    ctx = make_context(small_target)
    module = load_model(str(src), ctx)
    for p in build_passes("byoc{cost-model=false},bufferize,plan-memory,lower-to-accel,fuse-layers"):
        p.apply(ctx, module)
    fused = [op for op in module.walk() if isinstance(op, accel.ComputeOp) and isinstance(op.parent_op(), scf.ForOp)]
    assert {op.name for op in fused} >= {"accel.conv2d", "accel.pool"}, print_ir(module)

    x = np.random.default_rng(5).standard_normal((1, 4, 64, 64)).astype(np.float32)
    ref = run_module(load_model(str(src), make_context(small_target)), {"x": x})
    got, moved = {}, {}
    for pipeline in ("full", "full-nofuse"):
        out = tmp_path / pipeline
        report = compile_to_directory(str(src), small_target, str(out), pipeline=pipeline)
        got[pipeline], counters = run_directory(str(out), {"x": x})
        for key in ("bytes_to_device", "bytes_to_host", "transfers"):
            assert report["dma"][key] == counters[key], (pipeline, key)
        assert report["cycles"]["estimate"] == counters["cycles"]
        moved[pipeline] = counters["bytes_to_device"] + counters["bytes_to_host"]
        assert_same(ref, got[pipeline], f"compiled C ({pipeline})")
    for name in ref:
        assert np.array_equal(got["full"][name], got["full-nofuse"][name]), name
    assert moved["full"] < moved["full-nofuse"]
