"""Composites of any body: patterns longer than one fused form partition, lower to
several consecutive compute ops and run; partitioning and lowering agree on what an
accelerator can run.

- A small CNN compiled for a user's target (`tests/lit/lower-to-accel/Inputs/cnn.toml`:
  conv2d -> bias -> relu -> max_pool2d patterns, and op entries the lowering cannot run)
  runs on the simulator and matches the reference interpreter within 1e-4 of the output's
  largest magnitude; each composite became two compute ops, and the intermediate never
  left the scratchpad.
- Property: random graphs partitioned with a target whose patterns are random chains of
  ops (some with no compute form) never fail after annotation (whatever annotate-target
  accepts lowers) and keep the interpreter's results after every lowering pass
  (`check_lowering` of test_lowering_semantics: float outputs within
  1e-5 * max|reference| + 1e-6).
"""

from __future__ import annotations

import os

import numpy as np
from hypothesis import HealthCheck, assume, event, given, settings
from hypothesis import strategies as st
from accel.compiler.fuzz.graphs import RelayGraph
from test_lowering_semantics import check_lowering, descriptions

from accel.compiler.diagnostics import CompileError
from accel.compiler.driver import compile_module, compile_to_directory, make_context, print_ir
from accel.compiler.frontend.builder import GraphBuilder
from accel.compiler.runtime.interpreter import run_function
from accel.compiler.runtime.run_compiled import run_directory
from accel.compiler.targets.fused_forms import Body, lowerable, split_forms
from accel.compiler.transforms.annotate_target import AnnotateTarget
from accel.compiler.transforms.merge_composite import MergeComposite
from accel.dialects import accel, relay
from accel.dialects.conventions import target_of

HERE = os.path.dirname(os.path.abspath(__file__))
CNN_TARGET = os.path.join(HERE, "lit", "lower-to-accel", "Inputs", "cnn.toml")


def small_cnn() -> tuple:
    """Two conv -> bias -> relu -> max_pool blocks, then flatten, dense and an erf."""
    rng = np.random.default_rng(7)
    b = GraphBuilder()
    x = b.input("image", (1, 3, 16, 16))
    v = x
    for c_in, c_out in ((3, 8), (8, 8)):
        w = b.const((rng.standard_normal((c_out, c_in, 3, 3)) / np.sqrt(9 * c_in)).astype(np.float32))
        bias = b.const(rng.uniform(-0.1, 0.1, c_out).astype(np.float32))
        v = b.relu(b.bias_add(b.conv2d(v, w, padding=(1, 1, 1, 1)), bias))
        v = b.max_pool2d(v, pool_size=(2, 2), strides=(2, 2))
    flat = b.batch_flatten(v)
    logits = b.dense(flat, b.const((rng.standard_normal((10, 8 * 4 * 4)) / 12).astype(np.float32)))
    return b.build([b.erf(logits)], ["probs"]), {"image": rng.standard_normal((1, 3, 16, 16)).astype(np.float32)}


def test_small_cnn_with_multi_op_patterns_runs_on_the_simulator(tmp_path):
    module, inputs = small_cnn()
    path = str(tmp_path / "cnn.mlir")
    with open(path, "w") as f:
        f.write(print_ir(module))
    expected = run_function(module, inputs)
    report = compile_to_directory(path, CNN_TARGET, str(tmp_path / "out"), pipeline="byoc{cost-model=false},lower")
    outputs, counters = run_directory(str(tmp_path / "out"), inputs)
    got, want = outputs["probs"], expected["probs"]
    assert got.shape == want.shape
    err = float(np.max(np.abs(got - want)))
    assert err <= 1e-4 * float(np.max(np.abs(want))), err
    # Each block is one composite of two fused forms; the dense runs alone.
    assert counters["accel_ops"] == 5, counters
    rejected = {r["op"]: r["reason"] for r in report["rejected"]}
    assert rejected.get("relay.erf") == "cnn: 'relay.erf' has no accelerator form", rejected
    for k in ("bytes_to_device", "bytes_to_host", "transfers"):
        assert report["dma"][k] == counters[k], k


def small_qdq_cnn() -> tuple:
    """The QDQ form (onnxruntime quantize_static) of conv -> bias -> relu -> max_pool, twice."""
    rng = np.random.default_rng(11)
    b = GraphBuilder()
    x = b.input("image", (1, 4, 8, 8))
    f32 = lambda v: b.const(np.array(v, np.float32))  # noqa: E731
    i8 = lambda v: b.const(np.array(v, np.int8))  # noqa: E731
    s_x, z_x = f32(0.05), i8(2)
    q = b.qnn_quantize(x, s_x, z_x)
    for _ in range(2):
        w = b.const(rng.integers(-60, 60, (4, 4, 3, 3)).astype(np.int8))
        s_w = 0.004
        bias = b.const(rng.integers(-200, 200, 4).astype(np.int32))
        xf = b.qnn_dequantize(q, s_x, z_x)
        wf = b.qnn_dequantize(w, f32(s_w), i8(0))
        bf = b.qnn_dequantize(bias, f32(float(np.float32(0.05) * np.float32(s_w))), b.const(np.array(0, np.int32)))
        y = b.relu(b.bias_add(b.conv2d(xf, wf, padding=(1, 1, 1, 1)), bf))
        s_y, z_y = f32(0.03), i8(-4)
        yq = b.qnn_quantize(y, s_y, z_y)
        p = b.max_pool2d(b.qnn_dequantize(yq, s_y, z_y), pool_size=(2, 2), strides=(1, 1), padding=(0, 1, 0, 1))
        q = b.qnn_quantize(p, s_x, z_x)
    out = b.qnn_dequantize(q, s_x, z_x)
    return b.build([out], ["features"]), {"image": rng.standard_normal((1, 4, 8, 8)).astype(np.float32)}


def test_small_int8_cnn_with_multi_op_patterns_runs_on_the_simulator(tmp_path):
    """Each int8 block splits at quantize -> dequantize into an int8 conv and an int8
    pool. Tolerance: one quantization step of the output (0.05): the accelerator
    accumulates in exact integers where the float QDQ reference rounds."""
    module, inputs = small_qdq_cnn()
    path = str(tmp_path / "qcnn.mlir")
    with open(path, "w") as f:
        f.write(print_ir(module))
    expected = run_function(module, inputs)
    compile_to_directory(path, CNN_TARGET, str(tmp_path / "out"), pipeline="byoc{cost-model=false},lower")
    outputs, counters = run_directory(str(tmp_path / "out"), inputs)
    assert counters["accel_ops"] == 4, counters
    err = float(np.max(np.abs(outputs["features"] - expected["features"])))
    assert err <= 0.05 + 1e-6, err
    assert float(np.max(np.abs(expected["features"]))) > 0.1  # not all zero


def test_intermediates_of_a_composite_stay_in_the_scratchpad():
    """Transfers of the lowered CNN: each block's conv output (the value between its two
    compute ops) is never copied to the host."""
    module, _ = small_cnn()
    ctx = make_context(CNN_TARGET)

    module, _ = compile_module(module, ctx, "byoc{cost-model=false},lower")
    computes = [op for op in module.walk() if isinstance(op, accel.ComputeOp)]
    assert [op.name for op in computes] == ["accel.conv2d", "accel.pool", "accel.conv2d", "accel.pool", "accel.matmul"]
    for conv in (computes[0], computes[2]):
        out = conv.output
        users = {u.operation.name for u in out.uses}
        assert "accel.pool" in users and "accel.dma_start" not in users, users


def test_lowerable_is_the_lowering_s_answer():
    b = GraphBuilder()
    x = b.input("x", (2, 4, 8))
    y = b.batch_matmul(x, x)
    s = b.erf(x)
    r = b.relu(x)
    w = b.batch_matmul(x, b.input("w", (1, 4, 8)))
    b.build([y, s, r, w])
    assert lowerable(y.owner) is None
    assert lowerable(s.owner) == "'relay.erf' has no accelerator form"
    assert lowerable(r.owner) is None
    assert lowerable(w.owner) == "batched products on the accelerator need equal batch dims, got [2, 4, 8] x [1, 4, 8]"


# --------------------------------------------------------------------------------------
# Random patterns on random graphs
# --------------------------------------------------------------------------------------

CHAIN_OPS = {
    "conv2d": ("%w: tensor<*xf32> {accel.constant}", "relay.nn.conv2d {v}, %w : (tensor<*xf32>, tensor<*xf32>) -> tensor<*xf32>"),
    "bias_add": ("%b: tensor<*xf32> {accel.constant}", "relay.nn.bias_add {v}, %b : (tensor<*xf32>, tensor<*xf32>) -> tensor<*xf32>"),
    "relu": (None, "relay.nn.relu {v} : tensor<*xf32>"),
    "clip": (None, "relay.clip {v} : tensor<*xf32>"),
    "max_pool2d": (None, "relay.nn.max_pool2d {v} : tensor<*xf32>"),
    "avg_pool2d": (None, "relay.nn.avg_pool2d {v} : tensor<*xf32>"),
    "erf": (None, "relay.erf {v} : tensor<*xf32>"),  # no compute form
}
SINGLE_OPS = ("relay.nn.conv2d", "relay.nn.relu", "relay.clip", "relay.nn.max_pool2d", "relay.nn.avg_pool2d",
              "relay.add", "relay.erf", "relay.nn.leaky_relu")


def pattern_function(name: str, chain: tuple[str, ...]) -> str:
    args = ["%x: tensor<*xf32>"]
    lines = []
    v = "%x"
    for i, op in enumerate(chain):
        arg, body = CHAIN_OPS[op]
        if arg is not None:
            arg = arg.replace("%w", f"%w{i}").replace("%b", f"%b{i}")
            args.append(arg)
            body = body.replace("%w", f"%w{i}").replace("%b", f"%b{i}")
        lines.append(f"  %{i} = {body.format(v=v)}")
        v = f"%{i}"
    return (f"func.func @{name}({', '.join(args)}) -> tensor<*xf32> {{\n" + "\n".join(lines)
            + f"\n  func.return {v} : tensor<*xf32>\n}}\n")


def write_target(directory: str, chains: list[tuple[str, ...]]) -> str:
    text = (open(CNN_TARGET).read().split("[[ops]]")[0].replace('name = "cnn"', 'name = "rnd"'))
    for op in SINGLE_OPS:
        text += f'[[ops]]\nop = "{op}"\ndtypes = ["f32"]\nc_function = "npu_x"\n\n'
    patterns = ""
    for i, chain in enumerate(chains):
        patterns += pattern_function(f"p{i}", chain)
        text += f'[[patterns]]\nname = "p{i}"\nfile = "rnd_patterns.mlir"\ndtypes = ["f32"]\nc_function = "npu_p{i}"\n\n'
    with open(os.path.join(directory, "rnd_patterns.mlir"), "w") as f:
        f.write(patterns)
    path = os.path.join(directory, "rnd.toml")
    with open(path, "w") as f:
        f.write(text)
    return path


@st.composite
def chain_graphs(draw):
    """A random CNN-like DAG of the ops of CHAIN_OPS (plus adds joining two values), and
    target patterns: slices of the graph's own op sequence (so they match) and random
    chains, longest first."""
    rng = np.random.default_rng(draw(st.integers(0, 2**16)))
    c, h = draw(st.sampled_from([2, 4])), draw(st.integers(3, 6))
    b = GraphBuilder()
    values = [b.input("x", (1, c, h, h))]
    kinds = draw(st.lists(st.sampled_from(sorted(CHAIN_OPS) + ["add"]), min_size=2, max_size=8))
    for kind in kinds:
        # mostly the latest value (chains), sometimes an earlier one (values with several users)
        v = values[-1] if draw(st.integers(0, 3)) else values[draw(st.integers(0, len(values) - 1))]
        if kind == "conv2d":
            k = draw(st.sampled_from([1, 3]))
            w = b.const((rng.standard_normal((c, c, k, k)) / (k * np.sqrt(c))).astype(np.float32))
            v = b.conv2d(v, w, padding=(k // 2,) * 4)
        elif kind == "bias_add":
            v = b.bias_add(v, b.const(rng.uniform(-0.5, 0.5, c).astype(np.float32)))
        elif kind == "clip":
            v = b.clip(v, a_min=-0.5, a_max=0.5)
        elif kind in ("max_pool2d", "avg_pool2d"):
            v = getattr(b, kind)(v, pool_size=(3, 3), strides=(1, 1), padding=(1, 1, 1, 1))
        elif kind == "add":
            v = b.add(v, values[draw(st.integers(0, len(values) - 1))])
        else:
            v = getattr(b, kind)(v)
        values.append(v)
    outputs = [v for v in values[1:] if not v.uses]
    module = b.build(outputs, [f"y{i}" for i in range(len(outputs))])
    graph = RelayGraph(module, {"x": rng.standard_normal((1, c, h, h)).astype(np.float32)}, kinds)

    ops = [k for k in kinds if k != "add"]
    patterns: set[tuple[str, ...]] = set()
    for _ in range(draw(st.integers(1, 3))):
        if len(ops) >= 2:
            start = draw(st.integers(0, len(ops) - 2))
            stop = draw(st.integers(start + 2, min(len(ops), start + 5)))
            patterns.add(tuple(ops[start:stop]))
    patterns.update(draw(st.lists(st.lists(st.sampled_from(sorted(CHAIN_OPS)), min_size=2, max_size=4).map(tuple),
                                  max_size=2)))
    assume(patterns)
    return graph, sorted(patterns, key=len, reverse=True)


@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
@given(case=chain_graphs())
def test_whatever_annotation_accepts_lowers(case, tmp_path_factory):
    graph, patterns = case
    path = write_target(str(tmp_path_factory.mktemp("rnd")), patterns)
    try:
        descs = descriptions(path)
    except CompileError as e:  # e.g. an earlier pattern always shadows a later one
        assert "shadow" in str(e), str(e)
        assume(False)
    composites = offloaded_composites(graph.module, path)
    event(f"offloaded composites of several fused forms: {'some' if composites else 'none'}")
    check_lowering(graph, path, descs)


def offloaded_composites(module, path: str) -> int:
    """How many composites of more than one fused form annotate-target offloads (on a copy)."""
    copy = module.clone()
    ctx = make_context(path)
    MergeComposite().apply(ctx, copy)
    AnnotateTarget().apply(ctx, copy)
    return sum(1 for op in copy.walk() if isinstance(op, relay.CompositeOp) and target_of(op) == "rnd"
               and len(split_forms(Body.of_op(op))) > 1)
