"""The codegen hook (issue 9, items 3 and 5b): `api.codegen` is called for every region
of its target, the built-in C-API codegen being the default of the same contract
(`accel.compiler.backend.codegen_hook`); `api.lowering = "none"` hands the hook its
regions bufferized on host memory. Proven by `examples/targets/cblas/` (a description and
a ~50-line hook calling `cblas_sgemm`), run through accel-compile + accel-run as a user
would, against the reference interpreter.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys

import numpy as np
import onnx
import pytest
from e2e_util import one_error_line, run_tool
from onnx import TensorProto
from onnx import helper as oh
from onnx import numpy_helper as nh

from accel.compiler.driver import print_ir

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BIN = os.path.dirname(sys.executable)
CBLAS = os.path.join(ROOT, "examples", "targets", "cblas", "cblas.toml")
LAYERS = ((32, 64), (64, 48), (48, 10))
TOLERANCE = 1e-4
"""Of the output's largest magnitude: float32 sums in another order (BLAS vs numpy)."""


run = run_tool


def weights(seed: int = 0):
    rng = np.random.default_rng(seed)
    return [((rng.standard_normal((n, k)) / np.sqrt(k)).astype(np.float32), (rng.standard_normal(n) * 0.1).astype(np.float32))
            for k, n in LAYERS]


def builder_mlp(path: str) -> str:
    """x[4, 32] -> 3 x (dense + bias), relu after the first two: GraphBuilder."""
    from accel.compiler.frontend.builder import GraphBuilder

    b = GraphBuilder()
    h = b.input("x", (4, LAYERS[0][0]))
    for i, (w, bias) in enumerate(weights()):
        h = b.bias_add(b.dense(h, b.const(w)), b.const(bias))
        if i < len(LAYERS) - 1:
            h = b.relu(h)
    with open(path, "w") as f:
        f.write(print_ir(b.build([h], ["y"])))
    return path


def onnx_mlp(path: str) -> str:
    """The same MLP as ONNX MatMul + Add (+ Relu): imported as relay.nn.matmul + bias_add."""
    nodes, inits, prev = [], [], "x"
    for i, (w, bias) in enumerate(weights(1)):
        inits += [nh.from_array(np.ascontiguousarray(w.T), f"w{i}"), nh.from_array(bias, f"b{i}")]
        nodes += [oh.make_node("MatMul", [prev, f"w{i}"], [f"mm{i}"]), oh.make_node("Add", [f"mm{i}", f"b{i}"], [f"a{i}"])]
        prev = f"a{i}"
        if i < len(LAYERS) - 1:
            nodes.append(oh.make_node("Relu", [prev], [f"r{i}"]))
            prev = f"r{i}"
    graph = oh.make_graph(nodes, "mlp", [oh.make_tensor_value_info("x", TensorProto.FLOAT, [4, LAYERS[0][0]])],
                          [oh.make_tensor_value_info(prev, TensorProto.FLOAT, [4, LAYERS[-1][1]])], inits)
    onnx.save(oh.make_model(graph, opset_imports=[oh.make_opsetid("", 17)]), path)
    return path


def compile_and_compare(tmp_path, model: str, composites: set[str]) -> str:
    out = tmp_path / "out"
    proc = run("accel-compile", model, "--target", CBLAS, "-o", str(out))
    assert proc.returncode == 0, proc.stderr
    import json

    report = json.loads((out / "report.json").read_text())
    assert report["ops"]["host"] == 0 and len(report["regions"]) == 1
    assert set(report["regions"][0]["composites"]) == composites
    # No accel-level lowering: no transfers, no scratchpad; cycles are 0 (no cycle model
    # of a hook's code).
    assert report["dma"]["transfers"] == 0 and report["memory"]["scratchpad_peak_bytes"] == 0
    assert report["cycles"]["estimate"] == 0
    source = (out / "cblas_0.c").read_text()
    assert source.count("cblas_sgemm(") == len(LAYERS)
    assert "-lopenblas" in (out / "Makefile").read_text()

    x = np.random.default_rng(2).standard_normal((4, LAYERS[0][0])).astype(np.float32)
    name = "x"
    np.savez(tmp_path / "in.npz", **{name: x})
    results = {}
    for what, target in (("compiled", str(out)), ("reference", model)):
        proc = run("accel-run", target, "--inputs", str(tmp_path / "in.npz"), "--outputs", str(tmp_path / f"{what}.npz"))
        assert proc.returncode == 0, proc.stderr
        with np.load(tmp_path / f"{what}.npz") as f:
            results[what] = next(iter(f.values()))
    ref = results["reference"]
    assert results["compiled"].shape == ref.shape == (4, LAYERS[-1][1])
    assert np.abs(results["compiled"] - ref).max() <= TOLERANCE * np.abs(ref).max()
    return source


def test_cblas_runs_a_builder_mlp(tmp_path):
    source = compile_and_compare(tmp_path, builder_mlp(str(tmp_path / "mlp.mlir")),
                                 {"cblas.dense_bias_relu", "cblas.dense_bias"})
    assert "CblasTrans" in source  # dense: y = x W^T


def test_cblas_runs_an_onnx_matmul_add_mlp(tmp_path):
    # canonicalize-linear makes the MatMuls with constant [in, out] weights dense layers
    # (weights transposed at compile time), so the dense patterns take them.
    source = compile_and_compare(tmp_path, onnx_mlp(str(tmp_path / "mlp.onnx")),
                                 {"cblas.dense_bias_relu", "cblas.dense_bias"})
    assert "CblasTrans" in source  # dense: y = x Wᵀ


def test_no_compiler_file_names_the_example_targets():
    """The example accelerators live outside the compiler: nothing under compiler/ knows them.
    (The host kernels' GEMM links CBLAS itself, so `cblas` counts only as the target's
    name: quoted, or its directory or description file.)"""
    cblas_target = re.compile(r"[\"']cblas[\"']|targets/cblas|cblas\.toml")
    found = []
    for d, dirs, files in os.walk(os.path.join(ROOT, "compiler")):
        dirs[:] = [x for x in dirs if x != "__pycache__"]
        for name in files:
            path = os.path.join(d, name)
            with open(path, "rb") as f:
                text = f.read().decode("utf-8", "replace").lower()
            if "mesh" in text or "mesh" in name:
                found.append(f"{os.path.relpath(path, ROOT)}: mesh")
            if cblas_target.search(text) or name.startswith("cblas"):
                found.append(f"{os.path.relpath(path, ROOT)}: cblas")
    assert not found, found


# -- the contract, with hooks written in the test ----------------------------------------------------------


def hook_target(tmp_path, hook_source: str, extra: str = "") -> str:
    """The cblas description with its hook replaced by `my_hook.py:codegen`."""
    (tmp_path / "my_hook.py").write_text(hook_source)
    text = open(CBLAS).read().replace('codegen = "cblas_codegen:codegen"', 'codegen = "my_hook:codegen"')
    text = text.replace('name = "cblas"', 'name = "myblas"').replace("cblas.", "myblas.") + extra
    path = tmp_path / "myblas.toml"
    path.write_text(text)
    return str(path)


def compile_with(tmp_path, toml: str) -> subprocess.CompletedProcess:
    return run("accel-compile", builder_mlp(str(tmp_path / "mlp.mlir")), "--target", toml, "-o", str(tmp_path / "out"))


HEADER = "from accel.compiler.backend.codegen_hook import RegionCodegenResult\n"


def test_a_hook_gets_the_region_at_relay_level_and_its_init_free_and_flags_reach_the_build(tmp_path):
    """The hook sees the relay-level clone and the final function; its init code runs in
    model_init (a flag the region checks), its free code in model_free, its cflags
    reach the Makefile and accel-run's build (an #error otherwise)."""
    hook = HEADER + '''
from accel.dialects import relay

def codegen(region):
    composites = [op.pattern.data for op in region.relay_function.walk() if isinstance(op, relay.CompositeOp)]
    assert composites == ["myblas.dense_bias_relu", "myblas.dense_bias_relu", "myblas.dense_bias"], composites
    assert region.relay_function.parent is None  # a clone, outside the module
    out = next(p for p in region.params if p.output)
    n = 1
    for d in out.shape:
        n *= d
    body = "\\n".join([
        "#ifndef MY_HOOK_FLAG", "#error the cflags of the hook did not reach the build", "#endif",
        '#include "model_internal.h"', "int my_ready;",
        region.prototype("my_region") + " {",
        "    (void)a0;", "    if (!my_ready) return 7;",
        f"    for (int i = 0; i < {n}; i++) {out.name}[i] = 42.0f;",
        "    return 0;", "}", ""])
    return RegionCodegenResult("my_region", sources={"my_region.c": body}, headers={"my_hook.h": "extern int my_ready;\\n"},
                               includes=("my_hook.h",), cflags=("-DMY_HOOK_FLAG=1",), init="my_ready = 1;",
                               free="my_ready = 0;")
'''
    proc = compile_with(tmp_path, hook_target(tmp_path, hook))
    assert proc.returncode == 0, proc.stderr
    out = tmp_path / "out"
    model_c = (out / "model.c").read_text()
    init = model_c[model_c.index("int model_init("):model_c.index("void model_free(")]
    free = model_c[model_c.index("void model_free("):model_c.index("int model_write_counters(")]
    assert "my_ready = 1;" in init and "my_ready = 0;" in free and '#include "my_hook.h"' in model_c
    assert "int my_region(float *a0, float *a1);" in (out / "model_internal.h").read_text()
    assert "-DMY_HOOK_FLAG=1" in (out / "Makefile").read_text()
    from accel.compiler.runtime.run_compiled import run_directory

    outputs, _ = run_directory(str(out), {"x": np.zeros((4, LAYERS[0][0]), np.float32)})
    assert np.all(outputs["y"] == 42.0)


@pytest.mark.parametrize("body, expected", [
    ('return RegionCodegenResult("", sources={"a.c": "int x;"})', r"returned a malformed result for @myblas_0: no function name"),
    ('return RegionCodegenResult("f", sources={"a.c": 42})', r"sources\['a\.c'\] must be C text, got int"),
    ('return RegionCodegenResult("f", sources={"model.c": ""})', r"'model\.c' is written by accel-compile itself"),
    ('return {"function": "f"}', r"expected a RegionCodegenResult, got dict"),
    ('raise KeyError("weights")', r"codegen hook 'my_hook:codegen' failed: KeyError: 'weights'$"),
], ids=["no-function", "non-string-source", "reserved-file", "not-a-result", "raises"])
def test_a_bad_hook_is_one_line_naming_target_and_hook(tmp_path, body, expected):
    line = one_error_line(compile_with(tmp_path, hook_target(tmp_path, HEADER + f"def codegen(region):\n    {body}\n")))
    assert line.startswith("accel-compile: error: target 'myblas': codegen hook 'my_hook:codegen' "), line
    assert re.search(expected, line), line


@pytest.mark.parametrize("old, new, expected", [
    ('codegen = "cblas_codegen:codegen"\n', "", r"key 'api\.lowering': \"none\" needs a codegen hook"),
    ("shared_with_host = true", "shared_with_host = false", r"key 'api\.lowering': \"none\" .* memory\.shared_with_host = true"),
    ('lowering = "none"', 'lowering = "partial"', r"key 'api\.lowering': expected \"accel\" or \"none\", got \"partial\""),
], ids=["without-hook", "not-shared", "unknown"])
def test_a_bad_lowering_key_is_one_line_at_load(tmp_path, old, new, expected):
    text = open(CBLAS).read()
    assert old in text
    (tmp_path / "cblas_codegen.py").write_text(open(os.path.join(os.path.dirname(CBLAS), "cblas_codegen.py")).read())
    (tmp_path / "cblas.toml").write_text(text.replace(old, new))
    line = one_error_line(compile_with(tmp_path, str(tmp_path / "cblas.toml")))
    assert re.search(r"cblas\.toml: error: " + expected, line), line
