"""Tiles assembled on the device and concatenations on the npu, end to end (C on the simulator).

Each model is built twice: for `npu` (copies on the device: `npu_dma_on_device`,
`assemble-on-device`, `relay.concatenate` on the npu) and for `npu-today`, the same
description without them (tests/e2e_util.npu_without_device_copies). The copies only move
bytes within the scratchpad, so the two builds must compute the same outputs bit for bit;
the optimized one must move fewer host bytes; the report must predict the simulator's
counters exactly (`bytes_on_device` and cycles included); `npu-cmd` (command streams) must
count what `npu` counts.
"""

from __future__ import annotations


import numpy as np
import onnx
import pytest

from e2e_util import DMA_COUNTERS as KEYS, build_and_run, write_npu_today
from test_data_movement import ffn_model

from accel.compiler.driver import compile_to_directory, load_model, make_context
from accel.compiler.runtime.buffer_interpreter import run_module
from accel.compiler.runtime.run_compiled import run_directory



@pytest.fixture(scope="module")
def today(tmp_path_factory) -> str:
    return write_npu_today(tmp_path_factory.mktemp("npu-today"))


def test_ffn_hidden_activation_is_assembled_on_the_device(tmp_path, today):
    """The ffn's 98 KiB hidden activation, computed in four column tiles, stays in the
    scratchpad: it neither goes out nor comes back; the bytes reach the partition bound."""
    src = str(tmp_path / "ffn.onnx")
    onnx.save(ffn_model(), src)
    x = {"input": np.random.default_rng(0).standard_normal((64, 192)).astype(np.float32)}
    got, counters, report = build_and_run(src, "npu", str(tmp_path / "npu"), x)
    want, before, _ = build_and_run(src, today, str(tmp_path / "today"), x)
    cmd, cmd_counters, _ = build_and_run(src, "npu-cmd", str(tmp_path / "cmd"), x)
    for name in want:
        assert np.array_equal(got[name], want[name]) and np.array_equal(cmd[name], want[name]), name
    hidden = 64 * 384 * 4
    assert counters["bytes_on_device"] == hidden and before["bytes_on_device"] == 0
    assert before["bytes_to_host"] - counters["bytes_to_host"] == hidden
    assert before["bytes_to_device"] - counters["bytes_to_device"] >= hidden
    assert counters["bytes_to_device"] + counters["bytes_to_host"] == report["dma"]["lower_bound_bytes"]
    assert {k: cmd_counters[k] for k in (*KEYS, "cycles")} == {k: counters[k] for k in (*KEYS, "cycles")}


def conv_text(name: str, x: str, w: np.ndarray, padding: int) -> str:
    lit = np.array2string(w, separator=", ", threshold=10**6, floatmode="unique").replace("\n", "")
    oc, c, kh, kw = w.shape
    return (f"  %{name}w = relay.constant dense<{lit}> : tensor<{oc}x{c}x{kh}x{kw}xf32>\n"
            f"  %{name}c = relay.nn.conv2d %{x}, %{name}w {{padding = [{padding}, {padding}, {padding}, {padding}]}} : "
            f"(tensor<1x{c}x16x16xf32>, tensor<{oc}x{c}x{kh}x{kw}xf32>) -> tensor<1x{oc}x16x16xf32>\n"
            f"  %{name} = relay.nn.relu %{name}c : tensor<1x{oc}x16x16xf32>\n")


def test_concatenation_runs_on_the_npu_and_merges_the_regions(tmp_path, today):
    """A fire module (SqueezeNet): squeeze 1x1, two expand branches (1x1, 3x3) concatenated
    along channels, a consumer. On the npu the branches write into their channel slices of
    one scratchpad buffer: one region, no copy, nothing through the host; without the copy
    on the device the concatenation is a host op between two regions."""
    rng = np.random.default_rng(1)
    text = ("func.func @main(%x: tensor<1x8x16x16xf32>) -> tensor<1x8x16x16xf32> {\n"
            + conv_text("s", "x", rng.standard_normal((4, 8, 1, 1)).astype(np.float32), 0)
            + conv_text("e1", "s", rng.standard_normal((6, 4, 1, 1)).astype(np.float32), 0)
            + conv_text("e3", "s", rng.standard_normal((6, 4, 3, 3)).astype(np.float32), 1)
            + "  %cat = relay.concatenate %e1, %e3 {axis = 1} : (tensor<1x6x16x16xf32>, tensor<1x6x16x16xf32>) -> "
              "tensor<1x12x16x16xf32>\n"
            + conv_text("y", "cat", rng.standard_normal((8, 12, 1, 1)).astype(np.float32), 0)
            + "  func.return %y : tensor<1x8x16x16xf32>\n}\n")
    src = tmp_path / "fire.mlir"
    src.write_text(text)
    x = {"x": rng.standard_normal((1, 8, 16, 16)).astype(np.float32)}
    got, counters, report = build_and_run(str(src), "npu", str(tmp_path / "npu"), x)
    want, before, report_today = build_and_run(str(src), today, str(tmp_path / "today"), x)
    assert len(report["regions"]) == 1 and len(report_today["regions"]) == 2
    assert report["ops"]["host"] == 0
    reference = run_module(load_model(str(src), make_context("npu")), x)
    for name in want:
        assert np.array_equal(got[name], want[name]), name
        ref = reference[name]
        assert np.abs(got[name] - ref).max() <= 1e-5 * np.abs(ref).max()
    assert counters["bytes_on_device"] == 0  # the branches computed in place
    assert counters["bytes_to_host"] == 8 * 16 * 16 * 4  # the model's output only
    assert counters["bytes_to_device"] + counters["bytes_to_host"] == report["dma"]["lower_bound_bytes"]
    assert counters["bytes_to_device"] + counters["bytes_to_host"] < before["bytes_to_device"] + before["bytes_to_host"]


def test_a_concatenation_inside_a_concatenation_writes_its_slices_with_the_outer_strides(tmp_path):
    """The inner concatenation's output is a slice of the outer one's (strides of the outer
    buffer); its own slices must address rows with those strides (seed-7 fuzz case 7047:
    rows 1.. of every inner slice landed in the wrong place)."""
    src = tmp_path / "nested.mlir"
    src.write_text(
        "func.func @main(%x: tensor<3x13xf32>) -> (tensor<3x13xf32>, tensor<9x26xf32>) {\n"
        "  %r = relay.nn.relu %x : tensor<3x13xf32>\n"
        "  %i = relay.concatenate %r, %r, %r {axis = -2} : (tensor<3x13xf32>, tensor<3x13xf32>, tensor<3x13xf32>)"
        " -> tensor<9x13xf32>\n"
        "  %o = relay.concatenate %i, %i {axis = 1} : (tensor<9x13xf32>, tensor<9x13xf32>) -> tensor<9x26xf32>\n"
        "  func.return %r, %o : tensor<3x13xf32>, tensor<9x26xf32>\n}\n")
    x = {"x": np.random.default_rng(3).standard_normal((3, 13)).astype(np.float32)}
    want = run_module(load_model(str(src), make_context("npu")), x)
    for pipeline in ("canonicalize,byoc{cost-model=false},lower", "full"):
        out = str(tmp_path / str(len(pipeline)))
        compile_to_directory(str(src), "npu", out, pipeline=pipeline)
        got, _ = run_directory(out, x)
        for name in want:
            assert np.array_equal(got[name], want[name]), (pipeline, name)
