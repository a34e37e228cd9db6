"""Tuning (issue 16): the space in the target description, accel-tune, its executors and
log, and `--tuning-log` applied by the compile.

Numerics: a compile with tuned configurations is compared with the reference
interpreter at 1e-4 of the output's max (float; the tiles change only the order of
summation along K, none along the reduction of a convolution window)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import numpy as np
import pytest
from e2e_util import sigint_as_on_a_terminal
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from accel.compiler import api
from accel.compiler.compile_report import build_report
from accel.compiler.diagnostics import CompileError, LocatingParser
from accel.compiler.driver import compile_module, make_context
from accel.compiler.runtime.run_compiled import model_signature
from accel.compiler.targets import load_target
from accel.compiler.tuning.executors import LocalExecutor, RayExecutor, make_executor
from accel.compiler.tuning.log import LogWriter, Record, fingerprint, read_log
from accel.compiler.transforms.fuse_layers import find_chains
from accel.compiler.tuning.fusion import check_fusion, fusion_space, set_fusion
from accel.compiler.tuning.measure import FUSION_TASK_PIPELINE, TASK_PIPELINE, Request, Result, measure
from accel.compiler.tuning.search import TaskSearch, propose
from accel.compiler.tuning.space import analytic_cycles, check_config, extents, space_of
from accel.compiler.tuning.tuner import extract_tasks, task_space, tune
from accel.dialects import accel
from accel.dialects.conventions import accelerator_functions, set_tuning

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
TINY = os.path.join(ROOT, "examples", "tiny_resnet.onnx")
BIN = os.path.dirname(sys.executable)
RTOL = 1e-4


def _random_inputs(out_dir: str) -> dict[str, np.ndarray]:
    ins, _ = model_signature(out_dir)
    rng = np.random.default_rng(0)
    return {n: rng.random(s).astype(d) for n, s, d in ins}


def _close(got: dict, ref: dict) -> None:
    for k, r in ref.items():
        assert np.abs(got[k] - r).max() <= RTOL * np.abs(r).max() + 1e-6, k


# --------------------------------------------------------------------------------------
# The space
# --------------------------------------------------------------------------------------

CONV_MODULE = """\
func.func @main(%x: memref<1x{c}x{h}x{h}xf32> {{accel.name = "x"}}, %y: memref<1x{oc}x{oh}x{oh}xf32> {{accel.name = "y", accel.output}}) {{
  func.call @npu_0(%x, %y) : (memref<1x{c}x{h}x{h}xf32>, memref<1x{oc}x{oh}x{oh}xf32>) -> ()
  func.return
}}
func.func private @npu_0(%x: memref<1x{c}x{h}x{h}xf32>, %y: memref<1x{oc}x{oh}x{oh}xf32> {{accel.output}}) attributes {{accel.target = "npu"}} {{
  %w = accel.weight dense<0.01> : tensor<{oc}x{cg}x{k}x{k}xf32> : memref<{oc}x{cg}x{k}x{k}xf32>
  accel.conv2d ins(%x, %w : memref<1x{c}x{h}x{h}xf32>, memref<{oc}x{cg}x{k}x{k}xf32>) outs(%y : memref<1x{oc}x{oh}x{oh}xf32>) {{strides = [{s}, {s}], padding = [{p}, {p}, {p}, {p}], groups = {g}}}
  func.return
}}
"""

DENSE_MODULE = """\
func.func @main(%x: memref<{m}x{k}xf32> {{accel.name = "x"}}, %y: memref<{m}x{n}xf32> {{accel.name = "y", accel.output}}) {{
  func.call @npu_0(%x, %y) : (memref<{m}x{k}xf32>, memref<{m}x{n}xf32>) -> ()
  func.return
}}
func.func private @npu_0(%x: memref<{m}x{k}xf32>, %y: memref<{m}x{n}xf32> {{accel.output}}) attributes {{accel.target = "npu"}} {{
  %w = accel.weight dense<0.5> : tensor<{n}x{k}xf32> : memref<{n}x{k}xf32>
  accel.matmul ins(%x, %w : memref<{m}x{k}xf32>, memref<{n}x{k}xf32>) outs(%y : memref<{m}x{n}xf32>) {{transpose_b = true}}
  func.return
}}
"""


CHAIN_MODULE = """\
func.func @main(%x: memref<1x{c}x{h}x{h}xf32> {{accel.name = "x"}}, %y: memref<1x{oc}x{oh}x{oh}xf32> {{accel.name = "y", accel.output}}) {{
  func.call @npu_0(%x, %y) : (memref<1x{c}x{h}x{h}xf32>, memref<1x{oc}x{oh}x{oh}xf32>) -> ()
  func.return
}}
func.func private @npu_0(%x: memref<1x{c}x{h}x{h}xf32>, %y: memref<1x{oc}x{oh}x{oh}xf32> {{accel.output}}) attributes {{accel.target = "npu"}} {{
  %w0 = accel.weight dense<0.01> : tensor<{c}x{c}x3x3xf32> : memref<{c}x{c}x3x3xf32>
  %w1 = accel.weight dense<0.02> : tensor<{oc}x{c}x1x1xf32> : memref<{oc}x{c}x1x1xf32>
  %t0 = memref.alloc() : memref<1x{c}x{h}x{h}xf32>
  accel.conv2d ins(%x, %w0 : memref<1x{c}x{h}x{h}xf32>, memref<{c}x{c}x3x3xf32>) outs(%t0 : memref<1x{c}x{h}x{h}xf32>) {{padding = [1, 1, 1, 1]}}
  %t1 = memref.alloc() : memref<1x{c}x{h}x{h}xf32>
  accel.eltwise ins(%t0 : memref<1x{c}x{h}x{h}xf32>) outs(%t1 : memref<1x{c}x{h}x{h}xf32>) {{kind = "sigmoid"}}
  accel.conv2d ins(%t1, %w1 : memref<1x{c}x{h}x{h}xf32>, memref<{oc}x{c}x1x1xf32>) outs(%y : memref<1x{oc}x{oh}x{oh}xf32>) {{strides = [{s}, {s}]}}
  func.return
}}
"""


@st.composite
def chain_cases(draw):
    c, oc, h, s = (draw(st.sampled_from(v)) for v in ([8, 16, 32], [8, 24, 64], [8, 20, 48, 64], [1, 2]))
    return CHAIN_MODULE.format(c=c, oc=oc, h=h, oh=(h - 1) // s + 1, s=s)


@st.composite
def eltwise_cases(draw):
    kind = draw(st.sampled_from(["sigmoid", "softmax"]))
    shape = draw(st.sampled_from([[1, 12, 17, 17], [4, 64, 64], [256, 128], [1, 128, 32, 32]]))
    t = "memref<" + "x".join(map(str, shape)) + "xf32>"
    return (f'func.func @main(%x: {t} {{accel.name = "x"}}, %y: {t} {{accel.name = "y", accel.output}}) {{\n'
            f'  func.call @npu_0(%x, %y) : ({t}, {t}) -> ()\n  func.return\n}}\n'
            f'func.func private @npu_0(%x: {t}, %y: {t} {{accel.output}}) attributes {{accel.target = "npu"}} {{\n'
            f'  accel.eltwise ins(%x : {t}) outs(%y : {t}) {{kind = "{kind}"}}\n  func.return\n}}\n')


def _parse(text: str):
    ctx = make_context("npu")
    module = LocatingParser(ctx, text, "case.mlir").parse_module()
    op = next(o for fn, _ in accelerator_functions(module) for o in fn.body.block.ops if isinstance(o, accel.ComputeOp))
    return ctx, module, op


@st.composite
def conv_cases(draw):
    c = draw(st.sampled_from([8, 16, 32, 64]))
    depthwise = draw(st.booleans())
    oc = c if depthwise else draw(st.sampled_from([8, 16, 48, 64]))
    k = draw(st.sampled_from([1, 3]))
    s = draw(st.sampled_from([1, 2]))
    h = draw(st.sampled_from([8, 20, 40, 64]))
    p = k // 2
    oh = (h + 2 * p - k) // s + 1
    return CONV_MODULE.format(c=c, h=h, oc=oc, oh=oh, cg=1 if depthwise else c, k=k, s=s, p=p,
                              g=c if depthwise else 1)


@st.composite
def dense_cases(draw):
    return DENSE_MODULE.format(m=draw(st.sampled_from([1, 4, 17, 64])), k=draw(st.sampled_from([32, 256, 2048])),
                               n=draw(st.sampled_from([16, 96, 512])))


@settings(max_examples=12, deadline=None, suppress_health_check=list(HealthCheck))
@given(case=st.one_of(conv_cases(), dense_cases(), eltwise_cases()), pick=st.randoms(use_true_random=False))
def test_no_configuration_of_the_space_overflows_the_scratchpad(case, pick):
    ctx, _, op = _parse(case)
    desc = load_target("npu")
    configs = space_of(op, desc)
    assert configs[0] == {} and len(configs) > 1
    # a product's rows-outside-features order (resident = "input") fits by its own check
    rows_outer = [c for c in configs if isinstance(op, accel.MatmulOp) and c.get("resident") == "input"]
    for config in pick.sample(configs, min(3, len(configs))) + pick.sample(rows_outer, min(1, len(rows_outer))):
        assert check_config(op, config, desc) is None
        ctx, module, op2 = _parse(case)
        if config:
            set_tuning(op2, config)
        compile_module(module, ctx, TASK_PIPELINE)
        report = build_report(module, ctx.targets.descriptions, None, {})
        assert 0 < report["memory"]["scratchpad_peak_bytes"] <= desc.memory.scratchpad_bytes, config


@settings(max_examples=8, deadline=None, suppress_health_check=list(HealthCheck))
@given(case=chain_cases(), pick=st.randoms(use_true_random=False))
def test_no_fusion_configuration_overflows_the_scratchpad(case, pick):
    """Where a chain is cut and its stripe heights: every configuration of the space is
    admitted, compiles (fuse-layers as configured), and stays within the scratchpad."""
    ctx, module, _ = _parse(case)
    desc = load_target("npu")
    fn = next(fn for fn, _ in accelerator_functions(module))
    (chain, entries, _), = find_chains(fn.body.block)
    configs = [c for c, _ in fusion_space(chain, entries, desc)]
    assert configs[0] == {} and len(configs) > 1
    for config in [configs[0], *pick.sample(configs[1:], min(3, len(configs) - 1))]:
        assert check_fusion(chain, entries, config, desc) is None
        ctx, module, _ = _parse(case)
        fn = next(fn for fn, _ in accelerator_functions(module))
        (chain2, _, _), = find_chains(fn.body.block)
        set_fusion(chain2, config)
        fuse, rest = FUSION_TASK_PIPELINE.split("fuse-layers,")
        compile_module(module, ctx, fuse + "fuse-layers")
        if config:  # every configuration but the default fuses a segment: its stripe buffers
            assert any(isinstance(o, accel.AllocOp) for o in module.walk()), config
        compile_module(module, ctx, rest)
        report = build_report(module, ctx.targets.descriptions, None, {})
        assert 0 < report["memory"]["scratchpad_peak_bytes"] <= desc.memory.scratchpad_bytes, config


def test_fusion_space_respects_declared_constraints(tmp_path):
    _, module, _ = _parse(CHAIN_MODULE.format(c=16, oc=24, h=48, oh=48, s=1))
    desc = load_target("npu")
    fn = next(fn for fn, _ in accelerator_functions(module))
    (chain, entries, _), = find_chains(fn.body.block)
    configs = [c["segments"] for c, _ in fusion_space(chain, entries, desc)[1:]]
    assert "3x8" in configs and "1,2x8" in configs and "1,1,1" not in configs  # something is fused
    assert check_fusion(chain, entries, {"segments": "3x7"}, desc) is None
    assert check_fusion(chain, entries, {"segments": "2x8"}, desc) == \
        "'2x8' does not describe the segments of a chain of 3 ops"
    assert check_fusion(chain, entries, {"segments": "3x48"}, desc) == "it does not fit the scratchpad"
    assert check_fusion(chain, entries, {"segments": "3x8", "prefetch": 1}, desc).startswith(
        "a fusion configuration is one string knob 'segments'")
    # the declared depth bounds the segments
    shallow = tmp_path / "npu-shallow.toml"
    shallow.write_text('extends = "npu"\nname = "npu-shallow"\n\n[tuning.fusion]\ndepth = { max = 2 }\n')
    deep = load_target(str(shallow))
    assert check_fusion(chain, entries, {"segments": "3x8"}, deep) == "a segment of 3 ops is not an admitted depth"
    assert all(max(int(p.split("x")[0]) for p in c["segments"].split(",")) <= 2
               for c, _ in fusion_space(chain, entries, deep)[1:])


def test_space_respects_declared_constraints():
    _, _, op = _parse(CONV_MODULE.format(c=32, h=40, oc=48, oh=40, cg=32, k=3, s=1, p=1, g=1))
    desc = load_target("npu")
    configs = space_of(op, desc)
    # channel tiles: multiples of 8 (npu.toml) or the whole 48; resident and prefetch as declared
    assert {c["channel_tile"] for c in configs[1:]} <= {8, 16, 24, 48}
    assert {c["resident"] for c in configs[1:]} == {"weights", "input"}
    assert {c["prefetch"] for c in configs[1:]} == {0, 1, 2, 3}
    assert check_config(op, {"channel_tile": 12}, desc) == "channel_tile = 12 is not an admitted value"
    assert check_config(op, {"loop_order": 1}, desc).startswith("knob 'loop_order' is not in the space")
    # one row tile of the whole output, single-buffered, does not fit 256 KiB (40x40x(32+48) floats)
    assert check_config(op, {"row_tile": 40, "channel_tile": 48, "double_buffer": False}, desc) == \
        "it does not fit the scratchpad"
    # the dsp cannot accumulate: K is never split
    _, _, mm = _parse(DENSE_MODULE.format(m=4, k=256, n=16))
    assert all(c.get("k_tile", 256) == 256 for c in space_of(mm, load_target("dsp")))
    assert analytic_cycles(op, {}, desc) > 0


def test_tuning_tables_are_read_strictly(tmp_path):
    targets = os.path.join(ROOT, "compiler", "targets")
    base = open(os.path.join(targets, "dsp.toml")).read()
    (tmp_path / "patterns.mlir").write_text(open(os.path.join(targets, "patterns.mlir")).read())
    cases = [
        ("[tuning.matmul]\n", "[tuning.matmul]\nloop_order = 1\n", "key 'tuning.matmul.loop_order': unknown key"),
        ("version = 1\n\n[tuning.matmul]", "\n[tuning.matmul]", "key 'tuning.version': missing"),
        ("feature_tile = { multiple_of = 4 }", "feature_tile = { multiple_of = 0 }",
         "key 'tuning.matmul.feature_tile.multiple_of': expected a positive integer, got 0"),
        ("prefetch = [0, 1, 2, 3]", "prefetch = [0, 9]", "key 'tuning.matmul.prefetch': expected a non-empty list"),
        ("[tuning.matmul]", "[tuning.loops]\nx=1\n[tuning.matmul]", "key 'tuning.loops': unknown table"),
        ("[tuning.matmul]", "[tuning.fusion]\nx=1\n[tuning.matmul]", "key 'tuning.fusion.x': unknown key"),
        ("[tuning.matmul]", "[tuning.fusion]\nstripe_rows = {}\n[tuning.matmul]",
         "key 'tuning.fusion.depth.max': missing"),
    ]
    for old, new, message in cases:
        assert old in base
        path = tmp_path / "dsp.toml"
        path.write_text(base.replace(old, new, 1))
        with pytest.raises(CompileError) as e:
            load_target(str(path))
        assert "\n" not in str(e.value) and message in str(e.value), str(e.value)


# --------------------------------------------------------------------------------------
# The log
# --------------------------------------------------------------------------------------


def test_log_round_trip_and_a_torn_last_line(tmp_path):
    path = str(tmp_path / "log.json")
    targets = {"npu": fingerprint(load_target("npu"))}
    w = LogWriter(path, targets)
    recs = [Record("k1", "npu", "conv2d", 2, {}, 100), Record("k1", "npu", "conv2d", 2, {"row_tile": 4}, 80),
            Record("k1", "npu", "conv2d", 2, {"row_tile": 1}, None, "does not fit"),
            Record("k2", "npu", "matmul", 1, {}, 50)]
    for r in recs:
        w.append(r)
    w.close()
    log = read_log(path)
    assert log.targets == targets and log.records == recs
    best, default = log.best("k1")
    assert best.config == {"row_tile": 4} and default.cycles == 100
    assert log.best("k2")[0].config == {} and log.best("missing") == (None, None)
    # an interrupted write: the cut line is ignored, and the next writer drops it
    with open(path, "a") as f:
        f.write('{"task": "k2", "target": "npu", "con')
    assert read_log(path).records == recs
    w = LogWriter(path, targets)
    w.append(Record("k2", "npu", "matmul", 1, {"row_tile": 1}, 40))
    w.close()
    assert read_log(path).best("k2")[0].cycles == 40


@pytest.mark.parametrize("text, message", [
    ("", "empty tuning log"),
    ('{"format": "other"}\n', ":1: not an accel tuning log"),
    ('{"format": "accel-tuning-log", "version": 9, "targets": {}}\n', ":1: tuning log version 9"),
    ('{"format": "accel-tuning-log", "version": 1, "targets": {}}\nnot json\n{}\n', ":2: not a tuning log line"),
    ('{"format": "accel-tuning-log", "version": 1, "targets": {}}\n{"task": "k", "target": "npu", "config": {}, "cycles": -1}\n',
     ":2: 'cycles' must be a non-negative integer or null"),
])
def test_malformed_logs_fail_with_one_line(tmp_path, text, message):
    path = tmp_path / "log.json"
    path.write_text(text)
    with pytest.raises(CompileError) as e:
        read_log(str(path))
    assert message in str(e.value) and "\n" not in str(e.value)


def _tiny_tasks():
    tasks, ops, ctx, _ = extract_tasks(TINY, "npu")
    return tasks, ops, ctx.targets.named("npu")


def _forced_log(path: str, pick) -> dict:
    """A log giving every task of the tiny model a non-default configuration (`pick`
    chooses it from the space) as its best."""
    tasks, ops, desc = _tiny_tasks()
    w = LogWriter(path, {"npu": fingerprint(desc)})
    chosen = {}
    for t in tasks:
        configs = task_space(t, ops[t.key], desc)[0][1:]
        config = pick(configs)
        chosen[t.key] = config
        w.append(Record(t.key, t.target, t.summary, t.instances, {}, 1000))
        w.append(Record(t.key, t.target, t.summary, t.instances, config, 10))
    w.close()
    return chosen


@pytest.mark.parametrize("seed", [0, 1])
def test_tuned_compile_equals_the_reference(tmp_path, seed):
    rng = np.random.default_rng(seed)
    log = str(tmp_path / "log.json")
    chosen = _forced_log(log, lambda cs: cs[int(rng.integers(len(cs)))])
    compiled = api.compile(TINY, "npu", str(tmp_path / "out"), tuning_log=log)
    tuning = compiled.report["tuning"]
    assert {t["task"] for t in tuning["tasks"]} == set(chosen)
    assert all(t["config"] == chosen[t["task"]] for t in tuning["tasks"])
    assert tuning["tuned_ops"] == len(chosen) and tuning["predicted_gain_cycles"] == 990 * len(chosen)
    x = _random_inputs(compiled.dir)
    _close(compiled.run(x), api.reference(TINY, x))
    # the configurations were honoured: the estimate differs from the untuned compile's
    default = api.compile(TINY, "npu", str(tmp_path / "default"))
    assert "tuning" not in default.report
    assert default.report["cycles"]["estimate"] != compiled.report["cycles"]["estimate"]


def _ffn(path: str, m: int, d: int, h: int) -> str:
    """x[m, d] -> Gemm(d -> h) -> Relu -> Gemm(h -> d), as bench/tuning.py's dense models."""
    from onnx import TensorProto, helper as oh, numpy_helper as nh, save

    rng = np.random.default_rng(3)
    inits = [nh.from_array(rng.standard_normal(s).astype(np.float32), n)
             for n, s in (("w1", (h, d)), ("b1", (h,)), ("w2", (d, h)), ("b2", (d,)))]
    nodes = [oh.make_node("Gemm", ["x", "w1", "b1"], ["h"], transB=1), oh.make_node("Relu", ["h"], ["r"]),
             oh.make_node("Gemm", ["r", "w2", "b2"], ["y"], transB=1)]
    graph = oh.make_graph(nodes, "ffn", [oh.make_tensor_value_info("x", TensorProto.FLOAT, [m, d])],
                          [oh.make_tensor_value_info("y", TensorProto.FLOAT, [m, d])], inits)
    model = oh.make_model(graph, opset_imports=[oh.make_opsetid("", 17)])
    model.ir_version = 8
    save(model, path)
    return path


@pytest.mark.parametrize("target", ["dsp", "npu"])
def test_tuned_loop_order_of_a_product_equals_the_reference(tmp_path, target):
    """resident = "input": row tiles outside feature tiles (the data's row tile stays, the
    weights stream), with several row and feature tiles; numerically the reference's."""
    model = _ffn(str(tmp_path / "ffn.onnx"), 24, 64, 96)
    tasks, ops, ctx, _ = extract_tasks(model, target)
    desc = ctx.targets.named(target)
    log = str(tmp_path / "log.json")
    w = LogWriter(log, {target: fingerprint(desc)})
    chosen = {}
    for t in tasks:
        configs = [c for c in task_space(t, ops[t.key], desc)[0] if c.get("resident") == "input"
                   and c["row_tile"] < 24 and c["feature_tile"] < extents(ops[t.key])["feature_tile"]]
        assert configs, t.summary
        chosen[t.key] = configs[len(configs) // 2]
        w.append(Record(t.key, t.target, t.summary, t.instances, {}, 1000))
        w.append(Record(t.key, t.target, t.summary, t.instances, chosen[t.key], 10))
    w.close()
    compiled = api.compile(model, target, str(tmp_path / "out"), tuning_log=log)
    assert {t["task"]: t["config"] for t in compiled.report["tuning"]["tasks"]} == chosen
    x = _random_inputs(compiled.dir)
    _close(compiled.run(x), api.reference(model, x))


def test_a_derived_target_goes_stale_with_its_base(tmp_path):
    """npu-cmd (`extends = "npu"`) tunes the npu's space: its fingerprint covers the base."""
    assert load_target("npu-cmd").tuning == load_target("npu").tuning
    base, derived = tmp_path / "base.toml", tmp_path / "derived.toml"
    base.write_text('extends = "npu"\nname = "npu-base"\n')
    derived.write_text('extends = "base.toml"\nname = "npu-derived"\n')
    before = fingerprint(load_target(str(derived)))
    base.write_text('extends = "npu"\nname = "npu-base"\n\n[tuning.fusion]\ndepth = { max = 2 }\n')
    after = fingerprint(load_target(str(derived)))
    assert before["fingerprint"] != after["fingerprint"] and before["tuning_version"] == after["tuning_version"]


def test_stale_and_invalid_logs_are_refused(tmp_path):
    log = str(tmp_path / "log.json")
    _forced_log(log, lambda cs: cs[0])
    lines = open(log).read().splitlines()
    header = json.loads(lines[0])

    def compile_with(text: str) -> subprocess.CompletedProcess:
        path = tmp_path / "bad.json"
        path.write_text(text)
        return subprocess.run([os.path.join(BIN, "accel-compile"), TINY, "--target", "npu", "-o",
                               str(tmp_path / "o"), "--tuning-log", str(path)], capture_output=True, text=True)

    header["targets"]["npu"]["fingerprint"] = "0000000000000000"
    proc = compile_with("\n".join([json.dumps(header), *lines[1:]]) + "\n")
    assert proc.returncode == 1 and len(proc.stderr.splitlines()) == 1, proc.stderr
    assert "stale tuning log: tuned for target 'npu' with description fingerprint 0000000000000000" in proc.stderr
    # a configuration that no longer fits (or is no longer admitted) is refused, naming the task
    rec = json.loads(lines[2])
    rec["config"] = {"row_tile": 32, "channel_tile": 16, "double_buffer": False, "prefetch": 7}
    proc = compile_with("\n".join([lines[0], lines[1], json.dumps(rec)]) + "\n")
    assert proc.returncode == 1 and len(proc.stderr.splitlines()) == 1, proc.stderr
    assert f"task {rec['task']}" in proc.stderr and "rejected: prefetch = 7 is not an admitted value" in proc.stderr
    assert "Traceback" not in proc.stderr
    # missing tasks fall back to the default
    proc = compile_with(lines[0] + "\n")
    assert proc.returncode == 0, proc.stderr
    assert "tuning" not in json.load(open(tmp_path / "o" / "report.json"))


# --------------------------------------------------------------------------------------
# Measuring, executors, the tune
# --------------------------------------------------------------------------------------


def slow_or_crashing(request: Request) -> Result:
    """A measurement that hangs or kills its worker when the configuration asks."""
    if request.config.get("hang"):
        time.sleep(120)
    if request.config.get("crash"):
        os._exit(3)
    return Result(cycles=len(request.config) + 1)


def test_local_executor_retries_hung_and_dead_workers():
    requests = [Request("", (), "npu", {"hang": 1}), Request("", (), "npu", {"crash": 1}), Request("", (), "npu", {})]
    start = time.monotonic()
    with LocalExecutor(jobs=2, timeout=3, retries=1, fn=slow_or_crashing) as ex:
        results = {json.dumps(r.config): res for r, res in ex.run(requests)}
    # the hung measurement sleeps 120 s per attempt: it was abandoned (the bound leaves room
    # for respawned workers importing accel on a loaded machine)
    assert time.monotonic() - start < 100
    assert results['{}'].cycles == 1
    assert "after 2 attempts: no answer within 3 s" in results['{"hang": 1}'].error
    assert "after 2 attempts: the worker process died" in results['{"crash": 1}'].error


def test_measurement_reads_the_simulator_cycles():
    tasks, ops, desc = _tiny_tasks()
    t = tasks[0]
    result = measure(Request(t.text, tuple(t.weights), "npu", {}, t.centre))
    assert result.error is None and result.cycles > 0 and result.cycles == result.estimate
    bad = measure(Request(t.text, tuple(t.weights), "npu", {"row_tile": 10 ** 6}, t.centre))
    assert bad.cycles is None and "does not fit the scratchpad" in bad.error


def test_strategies_propose_unmeasured_configurations():
    _, _, op = _parse(CONV_MODULE.format(c=16, h=20, oc=16, oh=20, cg=16, k=3, s=1, p=1, g=1))
    desc = load_target("npu")
    configs = space_of(op, desc)
    est = [analytic_cycles(op, c, desc) for c in configs]
    for strategy in ("grid", "random", "anneal"):
        s = TaskSearch(configs, est, [[e] for e in est], 0)
        s.record({}, 100)
        seen = set()
        for _ in range(3):
            batch = propose(strategy, s, 4)
            assert len(batch) == 4
            for c in batch:
                key = json.dumps(c, sort_keys=True)
                assert key not in seen and c != {}
                seen.add(key)
                s.record(c, 50)


def test_fast_tune_then_compile_and_resume(tmp_path):
    """accel-tune on the tiny CNN (few trials), applied by accel-compile; a rerun resumes."""
    log = str(tmp_path / "log.json")
    cmd = [os.path.join(BIN, "accel-tune"), TINY, "--target", "npu", "-o", log, "--trials", "4", "-j", "2",
           "--strategy", "model"]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    # 12 tasks: 10 ops and 2 chains (chains with a residual value inside are not tuned)
    assert "accel-tune: 12 tasks, 16 measurements (0 failed)" in proc.stdout
    def measured() -> list[Record]:
        return [r for r in read_log(log).records if not r.selected]

    records = measured()
    assert len(records) == 16 and sum(1 for r in records if not r.config) == 12
    assert any(r.op.startswith("fusion of") for r in records) and any(r.op.startswith("eltwise") for r in records)
    # resume: nothing measured twice; a larger budget measures only the new trials
    again = subprocess.run(cmd, capture_output=True, text=True)
    assert "0 measurements" in again.stdout and len(measured()) == 16
    with LocalExecutor(jobs=2) as ex:
        summary = tune(TINY, "npu", log, ex, trials=6, strategy="grid")
    records = measured()
    # the budget is split per task: the log's trials count against their task's share
    assert summary.measurements >= 2 and len(records) == 16 + summary.measurements
    # the whole model with the log is never slower than without
    assert summary.model_tuned <= summary.model_default
    assert sum(1 for r in records if r.config) <= 4 + 6
    assert len({(r.task, json.dumps(r.config, sort_keys=True)) for r in records}) == len(records)
    out = tmp_path / "out"
    proc = subprocess.run([os.path.join(BIN, "accel-compile"), TINY, "--target", "npu", "-o", str(out), "-q",
                           "--tuning-log", log], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    report = json.load(open(out / "report.json"))
    assert len(report["tuning"]["tasks"]) == 12 and report["tuning"]["predicted_speedup"] >= 1.0


def test_ctrl_c_keeps_the_measurements_and_a_rerun_resumes(tmp_path):
    """Ctrl-C (SIGINT to the whole process group, as a terminal sends it) during a tune:
    the log keeps every measurement made, the tool exits 130 with one line and no
    traceback (the workers' neither), and the same command resumes."""
    log = tmp_path / "log.json"
    cmd = [os.path.join(BIN, "accel-tune"), TINY, "--target", "npu", "-o", str(log), "--trials", "3", "-j", "1",
           "--strategy", "grid"]

    def measured() -> list[Record]:
        return [r for r in read_log(str(log)).records if not r.selected] if log.exists() else []

    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True,
                            preexec_fn=sigint_as_on_a_terminal)
    try:
        deadline = time.monotonic() + 600
        while len(measured()) < 2:
            assert proc.poll() is None, proc.communicate()
            assert time.monotonic() < deadline, "no measurement within 600 s"
            time.sleep(0.2)
        os.killpg(proc.pid, signal.SIGINT)
        out, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    assert proc.returncode == 130, (out, err)
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1, err
    assert f"interrupted; the measurements so far are in {log}" in err
    kept = measured()
    assert 2 <= len(kept) < 12 + 3  # stopped before the end, nothing lost
    again = subprocess.run(cmd, capture_output=True, text=True)
    assert again.returncode == 0, again.stderr
    records = measured()
    assert records[:len(kept)] == kept  # appended after what was kept
    assert len(records) == 12 + 3 and f"{12 + 3 - len(kept)} measurements" in again.stdout
    assert len({(r.task, json.dumps(r.config, sort_keys=True)) for r in records}) == len(records)


def test_accel_tune_errors_are_one_line(tmp_path):
    for args, message in [
        (["--executor", "mpi"], "unknown executor 'mpi'"),
        (["--trials", "-1"], "--trials and --retries must be >= 0"),
    ]:
        proc = subprocess.run([os.path.join(BIN, "accel-tune"), TINY, "--target", "npu", "-o",
                               str(tmp_path / "l.json"), *args], capture_output=True, text=True)
        assert proc.returncode == 1 and len(proc.stderr.splitlines()) == 1 and message in proc.stderr, proc.stderr


@pytest.mark.slow
def test_ray_executor_on_a_local_cluster():
    """A real local Ray cluster (2 CPUs): real measurements equal the local ones; a hung
    measurement is cancelled and retried, then reported failed."""
    tasks, ops, desc = _tiny_tasks()
    reqs = [Request(t.text, tuple(t.weights), "npu", {}, t.centre) for t in tasks[:3]]
    local = {r.text: measure(r).cycles for r in reqs}
    ex = make_executor("ray", jobs=2, timeout=30, retries=1)
    try:
        assert isinstance(ex, RayExecutor) and ex.jobs == 2
        got = {r.text: res.cycles for r, res in ex.run(reqs)}
        assert got == local
        ex.timeout, ex.retries = 3, 0
        ex.ray.cloudpickle.register_pickle_by_value(sys.modules[__name__])  # the workers cannot import tests/
        ex._remote = ex.ray.remote(num_cpus=1, max_retries=0)(slow_or_crashing)
        (_, res), = list(ex.run([Request("", (), "npu", {"hang": 1})]))
        assert "no answer within 3 s" in res.error
    finally:
        ex.close()


def test_tasks_of_a_model_with_dynamic_axes_take_its_input_shapes():
    """accel-tune's `--input-shapes` reaches the import: PaddleOCR's classifier (exported
    with dynamic axes) has tasks once its input is sized, and says what to give otherwise."""
    from accel.compiler.frontend.graph_inputs import GraphInputs
    from accel.compiler.tuning.tuner import model_estimate

    path = os.path.join(ROOT, "tests", "models", "ppocr_cls", "model.onnx")
    with pytest.raises(CompileError, match="give its size with --input-shapes x="):
        extract_tasks(path, "npu")
    inputs = GraphInputs.of(None, "x=1x3x48x192")
    tasks, ops, _, _ = extract_tasks(path, "npu", inputs)
    assert tasks and all(ops[t.key] for t in tasks)
    assert model_estimate(path, "npu", None, inputs) > 0
