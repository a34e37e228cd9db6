"""Descriptions derived from another (`extends`): the built-in npu-64k and user files."""

from __future__ import annotations

import dataclasses
import os
import subprocess
import sys
import textwrap

import pytest

from accel.compiler.diagnostics import CompileError
from accel.compiler.targets import load_target
from accel.compiler.targets.registry import builtin_target_names

HERE = os.path.dirname(os.path.abspath(__file__))


def write(tmp_path, text: str, name: str = "t.toml") -> str:
    path = tmp_path / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text))
    return str(path)


def differing_fields(a, b) -> set[str]:
    return {f.name for f in dataclasses.fields(a) if getattr(a, f.name) != getattr(b, f.name)}


def test_npu_64k_is_the_npu_with_a_64k_scratchpad():
    npu, small = load_target("npu"), load_target("npu-64k")
    assert "npu-64k" in builtin_target_names()
    assert small.memory == dataclasses.replace(npu.memory, scratchpad_bytes=64 * 1024)
    # Patterns carry their target's name (`npu-64k.qconv2d`), so compare them by content.
    assert [(p.name, p.c_function, p.limits, p.call, p.predicate) for p in small.patterns] == \
        [(p.name, p.c_function, p.limits, p.call, p.predicate) for p in npu.patterns]
    assert differing_fields(npu, small) <= {"name", "description", "memory", "patterns", "path"}
    assert small.ops == npu.ops and small.library == npu.library and small.api == npu.api
    assert small.tuning == npu.tuning is not None  # accel-tune --target npu-64k searches the npu's space


def test_a_user_file_elsewhere_extends_a_builtin(tmp_path):
    # The base's relative files (patterns.mlir, the library) still resolve next to the base.
    path = write(tmp_path, """\
        extends = "npu"
        name = "my-npu"
        description = "faster DMA"
        [dma]
        bytes_per_cycle = 64
    """, "sub/my.toml")
    mine, npu = load_target(path), load_target("npu")
    assert mine.name == "my-npu" and mine.dma.bytes_per_cycle == 64 and mine.dma.setup_cycles == npu.dma.setup_cycles
    assert mine.memory == npu.memory and len(mine.patterns) == len(npu.patterns)


def test_extends_a_path_and_chains(tmp_path):
    write(tmp_path, """\
        extends = "npu"
        name = "mid"
        description = "mid"
        [memory]
        scratchpad_bytes = 4096
    """, "mid.toml")
    leaf = load_target(write(tmp_path, """\
        extends = "mid.toml"
        name = "leaf"
        description = "leaf"
        [memory]
        alignment = 16
    """, "leaf.toml"))
    assert (leaf.memory.scratchpad_bytes, leaf.memory.alignment) == (4096, 16)


def test_lists_replace_rather_than_merge(tmp_path):
    t = load_target(write(tmp_path, """\
        extends = "npu"
        name = "relu-only"
        description = "one op"
        patterns = []
        [[ops]]
        op = "relay.nn.relu"
        dtypes = ["f32"]
        c_function = "npu_eltwise_f32"
        args = ["input0", "input1", "output", "&eltwise"]
    """))
    assert [o.op for o in t.ops] == ["relay.nn.relu"] and t.patterns == ()


@pytest.mark.parametrize("text, message", [
    ('extends = "nope"\nname = "x"\n', "key 'extends': unknown target 'nope'"),
    ('extends = 3\nname = "x"\n', "key 'extends': expected a built-in target name or a .toml path, got 3"),
    ('extends = "missing.toml"\nname = "x"\n', "key 'extends': cannot read"),
    ('extends = "npu"\n', "key 'name': a description that extends another needs a name of its own"),
    ('extends = "t.toml"\nname = "x"\n', "key 'extends': 't.toml' extends this description again (a cycle)"),
    ('extends = "npu"\nname = "x"\ndescription = "x"\n[memory]\nscratchpad = 1\n', "key 'memory.scratchpad': unknown key"),
])
def test_bad_extends_is_one_line(tmp_path, text, message):
    path = write(tmp_path, text)
    with pytest.raises(CompileError) as e:
        load_target(path)
    assert message in str(e.value) and "\n" not in str(e.value)


def test_bad_extends_from_the_command_line(tmp_path):
    path = write(tmp_path, 'extends = "nope"\nname = "x"\n')
    proc = subprocess.run([sys.executable, "-m", "accel.tools.accel_compile", os.path.join(HERE, "models", "mnist", "model.onnx"),
                           "--target", path, "-o", str(tmp_path / "out")], capture_output=True, text=True)
    assert proc.returncode != 0
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "t.toml" in lines[0] and "unknown target 'nope'" in lines[0], proc.stderr
