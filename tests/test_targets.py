"""Accelerator descriptions: loader, registry, limits, predicates, patterns, cost model."""

from __future__ import annotations

import dataclasses
import os
import textwrap

import numpy as np
import pytest

from accel.compiler.diagnostics import CompileError
from accel.compiler.frontend.builder import GraphBuilder
from accel.compiler.targets import (
    AccelContext,
    TargetContext,
    builtin_target_names,
    dtype_name,
    load_target,
    select,
    target_names,
)
from accel.compiler.targets import registry
from accel.compiler.targets.cost import region_cost
from accel.compiler.targets.patterns import build_pattern, parse_pattern_source
from accel.compiler.targets.schema import COPIED_OPS, OpSpec, PatternSpec, TargetDescription
from accel.compiler.transforms.merge_regions import region_boundary
from accel.dialects import relay

HERE = os.path.dirname(os.path.abspath(__file__))
INPUTS = os.path.join(HERE, "lit", "targets", "Inputs")

MINIMAL = """\
name = "mini"
description = "minimal"
dtypes = ["f32"]
[api]
prefix = "mini_"
header = "mini.h"
[memory]
scratchpad_bytes = 1024
alignment = 8
shared_with_host = true
[dma]
bytes_per_cycle = 4
setup_cycles = 0
[compute]
macs_per_cycle_f32 = 1
macs_per_cycle_int8 = 1
elementwise_per_cycle = 1
[[ops]]
op = "relay.nn.relu"
c_function = "mini_relu"
"""


def write(tmp_path, text: str, name: str = "t.toml") -> str:
    path = tmp_path / name
    path.write_text(textwrap.dedent(text))
    return str(path)


# --------------------------------------------------------------------------------------
# Built-in targets
# --------------------------------------------------------------------------------------


def test_builtin_targets_load_and_are_cached():
    assert {"npu", "npu-shared", "dsp"} <= set(builtin_target_names())
    npu = load_target("npu")
    assert load_target("npu") is npu
    assert isinstance(npu, TargetDescription)
    assert npu.memory.scratchpad_bytes == 256 * 1024 and not npu.memory.shared_with_host
    assert npu.api.prefix == "npu_" and npu.api.header == "npu.h" and npu.api.codegen is None
    assert dataclasses.is_dataclass(npu) and npu.__dataclass_params__.frozen
    with pytest.raises(dataclasses.FrozenInstanceError):
        npu.name = "x"  # type: ignore[misc]


def test_parsed_user_files_are_cached_up_to_a_bound(tmp_path):
    """The built-ins stay; of user files, the most recently used `FILE_CACHE_SIZE` (a
    process that reads a description per case would otherwise keep them all); a file
    changed since it was parsed is parsed again and replaces its entry."""
    load_target("npu")
    text = open(os.path.join(os.path.dirname(registry.__file__), "npu.toml")).read()
    text = text.replace('file = "patterns.mlir"', f'file = "{os.path.join(os.path.dirname(registry.__file__), "patterns.mlir")}"')
    paths = []
    for i in range(registry.FILE_CACHE_SIZE + 5):
        paths.append(str(tmp_path / f"t{i}.toml"))
        with open(paths[-1], "w") as f:
            f.write(text.replace('name = "npu"', f'name = "npu_{i}"', 1))
    first = load_target(paths[0])
    for p in paths[1:]:
        load_target(p)
        assert load_target(paths[0]) is first  # used again: kept
    users = [k for k in registry._CACHE if os.path.dirname(k[0]) == str(tmp_path)]
    assert len(users) == registry.FILE_CACHE_SIZE and (paths[0], os.stat(paths[0]).st_mtime_ns) in registry._CACHE
    assert any(os.path.basename(k[0]) == "npu.toml" for k in registry._CACHE)
    os.utime(paths[0], ns=(0, os.stat(paths[0]).st_mtime_ns + 10**9))
    again = load_target(paths[0])
    assert again is not first and sum(k[0] == paths[0] for k in registry._CACHE) == 1


def test_npu_shared_is_the_npu_with_shared_memory():
    npu, shared = load_target("npu"), load_target("npu-shared")
    assert shared.memory.shared_with_host and not npu.memory.shared_with_host
    # Concatenations, transposes, reshapes and slices run on the npu's copy on the device,
    # which npu-shared (computing in host memory) does not declare.
    assert [o for o in npu.ops if o.op not in COPIED_OPS] == list(shared.ops)
    assert npu.copies_on_device and not shared.copies_on_device
    assert [(p.name, p.c_function, p.limits) for p in npu.patterns] == [
        (p.name, p.c_function, p.limits) for p in shared.patterns
    ]
    assert shared.patterns[0].composite.startswith("npu-shared.")


def test_builtin_coverage():
    npu, dsp = load_target("npu"), load_target("dsp")
    npu_ops = {o.op for o in npu.ops}
    assert {"relay.nn.conv2d", "relay.nn.dense", "relay.nn.max_pool2d", "relay.nn.avg_pool2d", "relay.add",
            "relay.multiply", "relay.nn.relu", "relay.clip"} <= npu_ops
    names = [p.name for p in npu.patterns]
    for required in ("conv2d_bias_relu", "conv2d_bias_clip", "dense_bias_relu", "qconv2d_bias", "qdense_bias", "qadd",
                     "qmaxpool"):
        assert required in names
    assert {o.op for o in dsp.ops} == {"relay.nn.dense", "relay.nn.matmul", "relay.qnn.dense"}
    assert dsp.compute != npu.compute and dsp.memory.scratchpad_bytes != npu.memory.scratchpad_bytes
    # Longer patterns are listed first (the first listed wins).
    assert names.index("qconv2d_bias_relu") < names.index("qconv2d_bias") < names.index("qconv2d")
    assert names.index("conv2d_bias_relu") < names.index("conv2d_bias")


def test_target_names_and_duplicates():
    assert target_names("npu,dsp") == ("npu", "dsp")
    assert target_names(("npu", "dsp")) == ("npu", "dsp")
    assert target_names(("npu,dsp",)) == ("npu", "dsp")
    assert [t.name for t in TargetContext().load("dsp,npu")] == ["dsp", "npu"]
    with pytest.raises(CompileError, match="listed twice"):
        TargetContext().load("npu,npu")
    with pytest.raises(CompileError, match="unknown target 'nope'"):
        load_target("nope")


# --------------------------------------------------------------------------------------
# The strict loader
# --------------------------------------------------------------------------------------


def test_user_file_by_path_is_then_known_by_name_in_its_context(tmp_path):
    path = write(tmp_path, MINIMAL)
    known = TargetContext()
    (t,) = known.load(path)
    assert t.name == "mini" and t.path == path
    assert known.named("mini") is t and known.load("mini") == (t,)
    with pytest.raises(CompileError, match="unknown target 'mini'"):
        TargetContext().named("mini")  # another compile does not know it
    assert t.host == load_target("npu").host.__class__(4, 8, 4)  # the default host model


@pytest.mark.parametrize(
    "change, message",
    [
        (("scratchpad_bytes = 1024", "scratchpad_bytes = 0"),
         "key 'memory.scratchpad_bytes': expected a positive integer, got 0"),
        (("alignment = 8", "alignment = 12"), "key 'memory.alignment': expected a power of two, got 12"),
        (("shared_with_host = true", 'shared_with_host = "yes"'),
         "key 'memory.shared_with_host': expected true or false, got \"yes\""),
        (('dtypes = ["f32"]', 'dtypes = ["float32"]'), "key 'dtypes': expected a non-empty list of element types"),
        (('name = "mini"', 'name = "host"'), "key 'name': 'host' is reserved"),
        (('prefix = "mini_"', 'prefix = "mini-"'), "key 'api.prefix': expected a C identifier prefix"),
        (('header = "mini.h"', 'header = "mini.h"\ncodegen = "nocolon"'), "key 'api.codegen': expected \"module:function\""),
        (("macs_per_cycle_int8 = 1", "macs_per_cycle_int8 = true"),
         "key 'compute.macs_per_cycle_int8': expected a positive number, got true"),
        (('op = "relay.nn.relu"', 'op = "relay.nn.relu"\nstrides = [[1, 1]]'),
         "key 'ops[0].strides': does not apply to relay.nn.relu"),
        (('op = "relay.nn.relu"', 'op = "relay.constant"'), "key 'ops[0].op': 'relay.constant' is not a relay graph op"),
        (("[[ops]]", "[tuning]\nx = 1\n[[ops]]"), "key 'tuning.version': missing"),
    ],
)
def test_malformed_descriptions_fail_with_one_line(tmp_path, change, message):
    path = write(tmp_path, MINIMAL.replace(*change))
    with pytest.raises(CompileError) as e:
        load_target(path)
    text = str(e.value)
    assert "\n" not in text
    assert text.startswith(f"{path}: error: ")
    assert message in text


def test_no_ops_and_no_patterns(tmp_path):
    path = write(tmp_path, MINIMAL.split("[[ops]]")[0])
    with pytest.raises(CompileError, match="at least one"):
        load_target(path)


def test_inline_pattern_and_predicate_next_to_the_file(tmp_path):
    (tmp_path / "checks.py").write_text("def no_big(op, target):\n    return 'big' if op.results[0].type.get_shape()[0] > 8 else None\n")
    text = MINIMAL + textwrap.dedent('''
        [[ops]]
        op = "relay.add"
        c_function = "mini_add"
        predicate = "checks:no_big"

        [[patterns]]
        name = "add_relu"
        c_function = "mini_add_relu"
        ir = """
        func.func @p(%a: tensor<*xf32>, %b: tensor<*xf32> {accel.constant}) -> tensor<*xf32> {
          %0 = relay.add %a, %b : tensor<*xf32>
          %1 = relay.nn.relu %0 : tensor<*xf32>
          func.return %1 : tensor<*xf32>
        }
        """
        ''')
    t = load_target(write(tmp_path, text))
    spec = t.pattern("add_relu")
    assert isinstance(spec, PatternSpec) and spec.composite == "mini.add_relu"
    assert spec.pattern.constant_args == frozenset({1}) and len(spec.pattern) == 2
    b = GraphBuilder()
    small, big = b.input("s", (8,)), b.input("b", (16,))
    ok = b.add(small, small)
    rejected = b.add(big, big)
    b.build([ok, rejected])
    assert isinstance(select(ok.owner, t), OpSpec)
    assert select(rejected.owner, t) == "big"


def test_a_failing_predicate_is_a_reason_not_a_crash(tmp_path):
    (tmp_path / "bad.py").write_text("def check(op, target):\n    raise ValueError('oops')\n")
    t = load_target(write(tmp_path, MINIMAL + 'predicate = "bad:check"\n'))
    b = GraphBuilder()
    y = b.relu(b.input("x", (4,)))
    b.build([y])
    assert select(y.owner, t) == "predicate bad:check failed: ValueError: oops"


# --------------------------------------------------------------------------------------
# Limits and selection
# --------------------------------------------------------------------------------------


def _conv(shape_w, **props):
    b = GraphBuilder()
    x = b.input("x", (1, 8, 16, 16))
    y = b.conv2d(x, b.const(np.zeros(shape_w, np.float32)), **props)
    b.build([y])
    return y.owner


@pytest.mark.parametrize(
    "weight, props, verdict",
    [
        ((8, 8, 3, 3), {}, "npu_conv2d_f32"),
        ((8, 1, 3, 3), {"groups": 8}, "npu_conv2d_f32"),
        ((8, 8, 7, 7), {}, "npu_conv2d_f32"),
        ((8, 8, 7, 9), {}, "kernel 7x9 exceeds 7x7"),
        ((8, 8, 3, 3), {"strides": (1, 3)}, "strides 1x3 not supported (supported: 1x1, 2x2)"),
        ((8, 8, 3, 3), {"dilation": (2, 2)}, "dilation 2x2 not supported (supported: 1x1)"),
        ((8, 2, 3, 3), {"groups": 4}, "grouped convolution (groups=4) not supported (supported: one, depthwise)"),
        ((2048, 8, 1, 1), {}, "2048 channels exceed 1024"),
    ],
)
def test_conv_limits(weight, props, verdict):
    got = select(_conv(weight, **props), load_target("npu"))
    assert (got.c_function if isinstance(got, OpSpec) else got) == verdict


def test_select_a_composite_and_a_foreign_one():
    from accel.compiler.transforms.merge_composite import MergeComposite

    b = GraphBuilder()
    x = b.input("x", (4, 16))
    y = b.relu(b.bias_add(b.dense(x, b.const(np.ones((16, 16), np.float32))), b.const(np.ones(16, np.float32))))
    module = b.build([y])
    MergeComposite(target=("npu",)).apply(AccelContext(), module)
    composite = next(op for op in module.walk() if isinstance(op, relay.CompositeOp))
    npu = load_target("npu")
    spec = select(composite, npu)
    index = [p.composite for p in npu.patterns].index("npu.dense_bias_relu")
    assert isinstance(spec, PatternSpec) and spec.key == f"patterns[{index}]" and spec.c_function == "npu_matmul_f32"
    assert select(composite, load_target("dsp")) == "composite npu.dense_bias_relu does not belong to dsp"


def test_dtype_names():
    from xdsl.dialects.builtin import IntegerType, Signedness, f16, f32

    assert dtype_name(f32) == "f32" and dtype_name(f16) == "f16"
    assert dtype_name(IntegerType(8)) == "i8"
    assert dtype_name(IntegerType(8, Signedness.SIGNED)) == "i8"
    assert dtype_name(IntegerType(8, Signedness.UNSIGNED)) == "ui8"


# --------------------------------------------------------------------------------------
# Patterns
# --------------------------------------------------------------------------------------


def _pattern(text: str):
    functions, written = parse_pattern_source(text, "p.mlir")
    (name, fn), = functions.items()
    return build_pattern(name, fn, written, "p.mlir")


def test_written_properties_constrain_and_defaults_do_not():
    only_groups_1 = _pattern("""
      func.func @c(%x: tensor<*xf32>, %w: tensor<*xf32>) -> tensor<*xf32> {
        %0 = relay.nn.conv2d %x, %w {groups = 1} : (tensor<*xf32>, tensor<*xf32>) -> tensor<*xf32>
        func.return %0 : tensor<*xf32>
      }""")
    any_conv = _pattern("""
      func.func @c(%x: tensor<*xf32>, %w: tensor<*xf32>) -> tensor<*xf32> {
        %0 = relay.nn.conv2d %x, %w : (tensor<*xf32>, tensor<*xf32>) -> tensor<*xf32>
        func.return %0 : tensor<*xf32>
      }""")
    assert only_groups_1.nodes[0].props == {"groups": 1} and any_conv.nodes[0].props == {}
    depthwise = _conv((8, 1, 3, 3), groups=8)
    plain = _conv((8, 8, 3, 3), strides=(2, 2))
    usable = lambda op: True  # noqa: E731
    assert only_groups_1.match(depthwise, usable=usable) is None
    assert only_groups_1.match(plain, usable=usable) is not None
    assert any_conv.match(depthwise, usable=usable) is not None


def test_an_argument_used_twice_binds_one_value():
    square = _pattern("""
      func.func @sq(%a: tensor<*xf32>) -> tensor<*xf32> {
        %0 = relay.multiply %a, %a : tensor<*xf32>
        func.return %0 : tensor<*xf32>
      }""")
    b = GraphBuilder()
    x, y = b.input("x", (4,)), b.input("y", (4,))
    same, different = b.multiply(x, x), b.multiply(x, y)
    b.build([same, different])
    usable = lambda op: True  # noqa: E731
    m = square.match(same.owner, usable=usable)
    assert m is not None and m.inputs == [x]
    assert square.match(different.owner, usable=usable) is None


def test_operand_order_matters():
    relu_first = _pattern("""
      func.func @p(%a: tensor<*xf32>, %b: tensor<*xf32>) -> tensor<*xf32> {
        %0 = relay.nn.relu %a : tensor<*xf32>
        %1 = relay.add %0, %b : tensor<*xf32>
        func.return %1 : tensor<*xf32>
      }""")
    b = GraphBuilder()
    x, y = b.input("x", (4,)), b.input("y", (4,))
    left, right = b.add(b.relu(x), y), b.add(y, b.relu(x))
    b.build([left, right])
    usable = lambda op: True  # noqa: E731
    assert relu_first.match(left.owner, usable=usable) is not None
    assert relu_first.match(right.owner, usable=usable) is None


# --------------------------------------------------------------------------------------
# Cost model
# --------------------------------------------------------------------------------------


def test_cost_rule_keeps_a_lone_relu_and_offloads_a_conv():
    npu, shared = load_target("npu"), load_target("npu-shared")
    b = GraphBuilder()
    x = b.input("x", (1, 16, 32, 32))
    r = b.relu(x)
    c = b.conv2d(x, b.const(np.zeros((16, 16, 3, 3), np.float32)), padding=(1, 1, 1, 1))
    b.build([r, c])
    relu = region_cost([r.owner], [x, r], npu)
    assert not relu.profitable and relu.dma_cycles > relu.compute_cycles
    # 16 KiB... in and out at 16 bytes per cycle, plus setup: the formula in cost.py.
    assert relu.dma_cycles == 2 * (npu.dma.setup_cycles + 16 * 32 * 32 * 4 / npu.dma.bytes_per_cycle)
    assert relu.host_cycles == 16 * 32 * 32 / npu.host.elementwise_per_cycle
    ins, outs = region_boundary([c.owner])
    conv = region_cost([c.owner], [*ins, *outs], npu)
    assert conv.profitable and conv.host_cycles == 16 * 32 * 32 * 16 * 9 / npu.host.macs_per_cycle_f32
    # Shared memory: no copies, only synchronisation per tensor.
    assert region_cost([r.owner], [x, r], shared).dma_cycles == 2 * shared.dma.setup_cycles


def test_malformed_lit_inputs_all_fail(tmp_path):
    """Every malformed file of the lit tests fails to load (and the good one loads)."""
    for name in sorted(os.listdir(INPUTS)):
        if not name.endswith(".toml"):
            continue
        path = os.path.join(INPUTS, name)
        if name == "user.toml":
            assert load_target(path).name == "acc"
            continue
        with pytest.raises(CompileError):
            load_target(path)


# --------------------------------------------------------------------------------------
# The target context: one compile's descriptions
# --------------------------------------------------------------------------------------


def test_context_loads_each_description_once_and_selects_the_default():
    known = TargetContext()
    selected = known.select("npu,dsp")
    assert [t.name for t in selected] == ["npu", "dsp"]
    assert known.resolve((), "annotate-target") == selected  # an empty option: --target
    assert known.resolve(("dsp",), "annotate-target") == (selected[1],)
    assert known.named("npu") is selected[0]
    with pytest.raises(CompileError, match=r"merge-composite needs a target \(e.g. merge-composite\{target=npu\}"):
        TargetContext().resolve((), "merge-composite")


def test_context_rejects_two_targets_sharing_a_c_prefix():
    # npu and npu-shared both use `npu_`: one program cannot link two such APIs.
    with pytest.raises(CompileError, match="targets 'npu' and 'npu-shared' share the C prefix 'npu_'"):
        TargetContext().load("npu,npu-shared")


def test_context_rejects_one_name_from_two_files(tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    a, b = write(tmp_path / "a", MINIMAL), write(tmp_path / "b", MINIMAL)
    known = TargetContext()
    known.load(a)
    with pytest.raises(CompileError, match="two descriptions are named 'mini'"):
        known.load(b)
