"""The vendor's C API declared in the description (issue 9, items 2-3): the calls come
from `c_function` + `args`, the library from `[library]`, and every mistake in them is one
line — at load (file and key) or, for a function the library lacks, at the build.

Each test edits a copy of the built-in `npu.toml` (library paths made absolute) and runs
the command-line tools as a user would.
"""

from __future__ import annotations

import os
import re
import sys

import numpy as np
import pytest
from e2e_util import one_error_line, run_tool

from accel.compiler import api
from accel.compiler.driver import print_ir
from accel.compiler.frontend.builder import GraphBuilder
from accel.compiler.targets import registry

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MODEL = os.path.join(ROOT, "examples", "tiny_resnet.onnx")
BIN = os.path.dirname(sys.executable)
NPU_TOML = os.path.join(os.path.dirname(registry.__file__), "npu.toml")


def npu_variant(tmp_path, old: str, new: str, count: int = -1) -> str:
    with open(NPU_TOML) as f:
        text = f.read()
    text = text.replace('file = "patterns.mlir"', f'file = "{os.path.dirname(NPU_TOML)}/patterns.mlir"')
    assert old in text, old
    text = text.replace(old, new, count)
    path = tmp_path / "npu.toml"
    path.write_text(text)
    return str(path)


run = run_tool


def compile_error(tmp_path, toml: str) -> str:
    return one_error_line(run("accel-compile", MODEL, "--target", toml, "-o", str(tmp_path / "out")))


def test_a_copy_of_npu_builds_and_runs(tmp_path):
    """The baseline of the edits below: the unchanged description, by path, works."""
    toml = npu_variant(tmp_path, 'name = "npu"', 'name = "npu"')
    out = tmp_path / "out"
    proc = run("accel-compile", MODEL, "--target", toml, "-o", str(out))
    assert proc.returncode == 0, proc.stderr
    make = (out / "Makefile").read_text()
    assert re.search(r"^SRCS = .*runtime/sim/npu\.c", make, re.M)
    assert "npu_conv2d_f32" in (out / "npu_wrappers.c").read_text()


def test_simulator_files_named_through_a_symlink_keep_their_place_in_the_runtime(tmp_path):
    """A library naming accel's simulator files through a symlink (an install reached
    through one: `{accel_sim}` is the real path) is still accel's runtime: its files go to
    runtime/sim/, next to the host kernels they include, and the model builds and runs
    (copied to lib/npu/, `#include "../host_kernels.h"` finds nothing)."""
    from accel.compiler.c_runtime_dir import SIM_DIR

    link = tmp_path / "sim-link"
    link.symlink_to(SIM_DIR, target_is_directory=True)
    toml = npu_variant(tmp_path, "{accel_sim}/", f"{link}/")
    out = tmp_path / "out"
    proc = run("accel-compile", MODEL, "--target", toml, "-o", str(out))
    assert proc.returncode == 0, proc.stderr
    assert (out / "runtime" / "sim" / "npu.c").is_file() and not (out / "lib").exists()
    np.savez(tmp_path / "in.npz", np.zeros((1, 3, 32, 32), np.float32))
    proc = run("accel-run", str(out), "--inputs", str(tmp_path / "in.npz"), "--outputs", str(tmp_path / "o.npz"))
    assert proc.returncode == 0, proc.stderr


def test_library_paths_and_flags_with_spaces_and_dollars_build_with_make_and_accel_run(tmp_path):
    """Each [library] entry is one argument however it is spelled: an include directory
    and a source with spaces in their names, a define whose value is a C string with a
    space, a link flag with `$` (make would expand it). `make` and accel-run build the same
    program; a source with the basename of another is kept under a name of its own."""
    import shutil
    import subprocess

    vendor = tmp_path / "my vendor"
    (vendor / "my inc").mkdir(parents=True)
    (vendor / "other").mkdir()
    (vendor / "my inc" / "vendor_x.h").write_text("#define VENDOR_X 3\n")
    (vendor / "my extra.c").write_text(
        '#include "vendor_x.h"\n'
        "typedef char vendor_name_is_the_string_a_b[sizeof(VENDOR_NAME) == 4 ? 1 : -1];\n"
        "int vendor_x(void) { return VENDOR_X; }\n")
    (vendor / "other" / "my extra.c").write_text("int vendor_y(void) { return 4; }\n")
    text = open(NPU_TOML).read().replace('file = "patterns.mlir"', f'file = "{os.path.dirname(NPU_TOML)}/patterns.mlir"')
    old = 'sources = ["{accel_sim}/npu.c", "{accel_sim}/sim_core.c"]\n'
    assert old in text
    text = text.replace(old, 'sources = ["{accel_sim}/npu.c", "{accel_sim}/sim_core.c", "my extra.c", "other/my extra.c"]\n'
                             'include_dirs = ["my inc"]\ncflags = ["-DVENDOR_NAME=\\"a b\\""]\n'
                             'ldflags = ["-Wl,-rpath,$ORIGIN/lib"]\n')
    toml = vendor / "npu.toml"
    toml.write_text(text)
    out = tmp_path / "out dir"
    proc = run("accel-compile", MODEL, "--target", str(toml), "-o", str(out))
    assert proc.returncode == 0, proc.stderr
    assert (out / "lib" / "npu" / "my_extra.c").is_file() and (out / "lib" / "npu" / "my_extra_2.c").is_file()
    np.savez(tmp_path / "in.npz", np.ones((1, 3, 32, 32), np.float32))
    proc = run("accel-run", str(out), "--inputs", str(tmp_path / "in.npz"), "--outputs", str(tmp_path / "o.npz"))
    assert proc.returncode == 0, proc.stderr
    if shutil.which("make") is not None:
        proc = subprocess.run(["make", "-C", str(out)], capture_output=True, text=True)
        assert proc.returncode == 0, proc.stdout + proc.stderr
        assert "-Wl,-rpath,$ORIGIN/lib" in (out / "link-flags").read_text()


def test_two_library_headers_of_one_name_are_refused_with_one_line(tmp_path):
    """A header keeps the name it is included by: two of one name cannot both be in DIR."""
    for d in ("a", "b"):
        (tmp_path / d).mkdir()
        (tmp_path / d / "vendor.h").write_text("/* */\n")
    toml = npu_variant(tmp_path, 'headers = ["{accel_sim}/npu.h"',
                       f'headers = ["{tmp_path}/a/vendor.h", "{tmp_path}/b/vendor.h", "{{accel_sim}}/npu.h"')
    line = compile_error(tmp_path, toml)
    assert line == (f"accel-compile: error: target 'npu': library files '{tmp_path}/a/vendor.h' and "
                    f"'{tmp_path}/b/vendor.h' would both be lib/npu/vendor.h in the model directory ([library] in {toml})")


def test_a_function_the_library_lacks_fails_the_build_with_one_line(tmp_path):
    toml = npu_variant(tmp_path, '"npu_conv2d_f32"', '"npu_totally_bogus"')
    out = tmp_path / "out"
    proc = run("accel-compile", MODEL, "--target", toml, "-o", str(out))
    assert proc.returncode == 0, proc.stderr
    assert "npu_totally_bogus(" in (out / "npu_wrappers.c").read_text()  # the declared name is called
    import numpy as np

    np.savez(tmp_path / "in.npz", np.zeros((1, 3, 32, 32), np.float32))
    line = one_error_line(run("accel-run", str(out), "--inputs", str(tmp_path / "in.npz"),
                              "--outputs", str(tmp_path / "o.npz")))
    assert line == ("accel-run: error: target 'npu': the library does not define 'npu_totally_bogus' "
                    "(ops[0].c_function)")


def test_the_declared_argument_order_is_what_the_wrapper_passes(tmp_path):
    """Swapping two declared arguments swaps them in every call (nothing is assumed)."""
    declared = 'args = ["input0", "weight", "bias", "output", "&conv2d"]'
    call = re.compile(r"npu_conv2d_f32\((.*?), (.*?), (.*?), (.*?), &p\d+\)")
    found = []
    for i, args in enumerate((declared, 'args = ["weight", "input0", "bias", "output", "&conv2d"]')):
        d = tmp_path / str(i)
        d.mkdir()
        toml = npu_variant(d, declared, args)
        assert run("accel-compile", MODEL, "--target", toml, "-o", str(d / "out")).returncode == 0
        found.append(call.findall((d / "out" / "npu_wrappers.c").read_text()))
    assert found[0] and len(found[0]) == len(found[1])
    assert found[1] == [(w, x, b, y) for x, w, b, y in found[0]]


@pytest.mark.parametrize("old, new, expected", [
    ('{accel_sim}/npu.c"', '{accel_sim}/nope.c"',
     r"npu\.toml: error: key 'library\.sources\[0\]': no such file: '.*nope\.c'"),
    ('args = ["input0", "weight", "bias", "output", "&conv2d"]', 'args = ["input0", "weigth", "bias", "output", "&conv2d"]',
     r"key 'ops\[0\]\.args\[1\]': unknown word 'weigth'"),
    ('args = ["input0", "weight", "bias", "output", "&conv2d"]', 'args = ["input0", "weight", "bias", "output", "&conv"]',
     r"key 'ops\[0\]\.args\[4\]': no struct 'conv' in api.structs"),
    ('args = ["input0", "weight", "bias", "output", "&conv2d"]', 'args = "input0"',
     r"key 'ops\[0\]\.args': expected a list of arguments"),
    ('args = ["input0", "weight", "bias", "output", "&conv2d"]', 'args = ["input0", "weight", "bias", "output", "groups", "kind"]',
     r"key 'ops\[0\]\.args\[5\]': 'kind' takes names \(max, avg, add, mul, relu, clip, sub, div, sigmoid, tanh, gelu, silu, gelu_tanh, sqrt, exp, log, softmax, layer_norm, rms_norm, lut, quantize, dequantize\): map them with"),
    ('args = ["input0", "weight", "bias", "output", "&matmul"]', 'args = ["input0", "weight", "bias", "output", "groups"]',
     r"key 'ops\[1\]\.args\[4\]': 'groups' does not apply to relay\.nn\.dense \(accel\.matmul; it applies to accel\.conv2d\)"),
    ('relu = "NPU_ACT_RELU"', 'relu = "NPU_ACT_RELU", gelu = "NPU_ACT_GELU"',
     r"key 'api\.structs\.matmul\.fields\.act\.enum': 'gelu' is not a value of 'activation'"),
    ('dma_wait = { function = "npu_dma_wait", args = ["token"] }', 'dma_wait = { function = "npu_dma_wait", args = ["tok"] }',
     r"key 'api\.runtime\.dma_wait\.args\[0\]': unknown word 'tok' \(this function's arguments: token\)"),
    ('sync = { function = "npu_sync", args = [] }\n', '',
     r"key 'api\.runtime\.sync': missing"),
    ('header = "npu.h"', 'header = "npu.h"\ncodegen = "no_such_codegen_module:emit"',
     r"key 'api\.codegen': cannot import 'no_such_codegen_module'"),
], ids=["missing-library-file", "unknown-word", "unknown-struct", "args-not-a-list", "enum-word-without-enum",
        "word-not-applicable", "unknown-enum-value", "runtime-unknown-word", "runtime-missing",
        "hook-module-missing"])
def test_a_bad_declaration_is_one_line_at_load(tmp_path, old, new, expected):
    line = compile_error(tmp_path, npu_variant(tmp_path, old, new, 1))
    assert line.startswith("accel-compile: ")
    assert re.search(expected, line), line


def test_a_hook_module_without_the_function_is_one_line_at_load(tmp_path):
    (tmp_path / "my_codegen.py").write_text("def something_else(region):\n    return None\n")
    toml = npu_variant(tmp_path, 'header = "npu.h"', 'header = "npu.h"\ncodegen = "my_codegen:emit"', 1)
    line = compile_error(tmp_path, toml)
    assert re.search(r"npu\.toml: error: key 'api\.codegen': 'my_codegen' has no function 'emit'", line), line


def test_a_lowered_op_knows_its_entry():
    """lower-to-accel stamps the entry whose call runs it; tiling keeps it."""
    from accel.compiler.driver import compile_module, load_model, make_context
    from accel.dialects import accel
    from accel.dialects.conventions import entry_of

    ctx = make_context("npu")
    module, _ = compile_module(load_model(MODEL, ctx), ctx, "full")
    entries = {entry_of(op) for op in module.walk() if isinstance(op, accel.ComputeOp)}
    npu = ctx.targets.named("npu")
    assert entries and None not in entries
    assert all(npu.entry(k) is not None and npu.entry(k).call is not None for k in entries)


@pytest.mark.parametrize("target", ["npu", "npu-cmd"])
def test_alike_ops_on_the_same_or_different_operands_pass_their_own_buffers(tmp_path, target):
    """`x + x` and then `a + y` are alike ops (one signature, one evaluation of their
    words): a buffer word names an operand position, so the second still passes `a` and `y`
    (it passed `a` twice when the words evaluated to the first op's values)."""
    b = GraphBuilder()
    x, y = b.input("x", (1, 8, 16, 16)), b.input("y", (1, 8, 16, 16))
    a = b.add(x, x)
    c = b.add(b.add(b.add(a, y), b.add(a, y)), y)
    model = tmp_path / "self_add.mlir"
    model.write_text(print_ir(b.build([c], ["out"])))
    rng = np.random.default_rng(0)
    feeds = {n: rng.standard_normal((1, 8, 16, 16)).astype(np.float32) for n in ("x", "y")}
    compiled = api.compile(str(model), target=target, out_dir=str(tmp_path / "out"))
    assert compiled.report["ops"]["host"] == 0
    got, want = compiled.run(feeds)["out"], api.reference(str(model), feeds)["out"]
    assert np.array_equal(got, want)  # adds of exact float32 values: the same bits
