"""Lookups (int8 activations as 256-entry tables: tabulate-activations) on command-stream
targets: the `eltwise_q8` command's optional `table` and `table_len` fields (a data
array of the stream, as per-channel scales are).

- a QDQ model whose activations are tables (hard-swish and leaky ReLU between a
  dequantize and a quantize, after reflection pads: copies on the device) compiled for
  `npu-cmd` gives the C-API npu's outputs bit for bit with the same counters; its stream
  holds the lookups (`eltwise_kind=lut`, a 256-entry table) and disassembles (its copies
  on the device count as transfers, as the simulator counts them);
- `stripe`, whose `eltwise_q8` command has no table, gets no lookup: its activations run
  in float between its conversion commands, within one quantization step of the npu's
  lookups;
- an instruction set with `table` but not `table_len` is one line naming the key;
- the simulator refuses a lookup whose table is not 256 entries (it would read past it).
"""

from __future__ import annotations

import json
import os
import struct

import numpy as np
import pytest
import onnx
from e2e_util import (normal_feeds, one_error_line, output_step, quantized_model, run_tool, run_with_stream,
                      save_image_model)
from onnx import helper as oh
from onnx import numpy_helper as nh

from accel.compiler import api
from accel.compiler.backend.stream_format import decode, disassemble, layout
from accel.compiler.targets.registry import load_target

HERE = os.path.dirname(os.path.abspath(__file__))
STRIPE = os.path.join(os.path.dirname(HERE), "examples", "targets", "stripe", "stripe.toml")


def _model(path: str) -> None:
    """reflection pad, conv 3x3, hard-swish, reflection pad, conv 3x3, leaky ReLU (1x4x12x12)."""
    rng = np.random.default_rng(5)
    inits = [nh.from_array(np.array([0, 0, 1, 1, 0, 0, 1, 1], np.int64), "pads"),
             nh.from_array((0.3 * rng.standard_normal((8, 4, 3, 3))).astype(np.float32), "w0"),
             nh.from_array((0.1 * rng.standard_normal(8)).astype(np.float32), "b0"),
             nh.from_array((0.2 * rng.standard_normal((4, 8, 3, 3))).astype(np.float32), "w1"),
             nh.from_array((0.1 * rng.standard_normal(4)).astype(np.float32), "b1")]
    nodes = [oh.make_node("Pad", ["x", "pads"], ["p0"], mode="reflect"), oh.make_node("Conv", ["p0", "w0", "b0"], ["c0"]),
             oh.make_node("HardSwish", ["c0"], ["h0"]), oh.make_node("Pad", ["h0", "pads"], ["p1"], mode="reflect"),
             oh.make_node("Conv", ["p1", "w1", "b1"], ["c1"]), oh.make_node("LeakyRelu", ["c1"], ["y"], alpha=0.1)]
    save_image_model(path, nodes, inits, [1, 4, 12, 12], "y", [1, 4, 12, 12])


@pytest.fixture(scope="module")
def model(tmp_path_factory) -> str:
    return quantized_model(tmp_path_factory, "lookups", _model)


def _feeds(path: str) -> dict[str, np.ndarray]:
    return normal_feeds(path, 3)


def _compile_run(path: str, target: str, out: str) -> tuple[dict, dict, api.Compiled]:
    compiled = api.compile(path, target=target, out_dir=out)
    outputs = compiled.run(_feeds(path))
    with open(os.path.join(out, "counters.json")) as f:
        return outputs, json.load(f), compiled


@pytest.fixture(scope="module")
def runs(model, tmp_path_factory) -> dict[str, tuple[dict, dict, api.Compiled, str]]:
    out = {}
    for target in ("npu", "npu-cmd", STRIPE):
        d = str(tmp_path_factory.mktemp(os.path.basename(target).replace(".", "_")))
        out[target] = (*_compile_run(model, target, d), d)
    return out


def test_npu_cmd_runs_the_lookups_as_the_npu(runs):
    want, want_counters, npu, _ = runs["npu"]
    got, counters, cmd, out = runs["npu-cmd"]
    assert len(npu.report["regions"]) == 1 and len(cmd.report["regions"]) == 1, cmd.report["rejected"]
    assert counters == want_counters
    for k in want:
        assert got[k].dtype == want[k].dtype and np.array_equal(got[k], want[k]), k
    isa = load_target("npu-cmd").isa
    with open(os.path.join(out, "npu_cmd_0.bin"), "rb") as f:
        blob = f.read()
    stream = decode(isa, blob)
    lookups = [i for i in stream.instrs if i.values.get("eltwise_kind") == "lut"]
    assert len(lookups) >= 2 and all(i.values["table_len"] == 256 for i in lookups)
    # The pads are copies on the device, waited for by token: the disassembler counts them
    # as transfers, as the simulator does (it refused such streams before).
    assert any(i.command.op == "dma_on_device" for i in stream.instrs)
    assert "eltwise_kind=lut" in disassemble(isa, blob, "npu_cmd_0.bin")


def test_an_instruction_set_without_tables_runs_no_lookup(model, runs):
    """stripe's eltwise_q8 has no table: tabulate-activations makes no lookup for it (no
    target would run one); the activations stay float ops between a dequantize and a
    quantize, which stripe runs in float between its conversion commands (one region)."""
    want, _, npu, _ = runs["npu"]
    got, _, stripe, out = runs[STRIPE]
    assert len(stripe.report["regions"]) == len(npu.report["regions"]) == 1, stripe.report["rejected"]
    isa = load_target(STRIPE).isa
    ops = []
    for name in sorted(os.listdir(out)):
        if name.endswith(".bin") and name != "weights.bin":
            with open(os.path.join(out, name), "rb") as f:
                instrs = decode(isa, f.read()).instrs
            assert not [i for i in instrs if i.values.get("eltwise_kind") == "lut"]
            ops += [i.command.op for i in instrs]
    assert ops.count("dequantize") >= 2 and ops.count("quantize") >= 2, ops
    step = output_step(onnx.load(model), "y")
    for k in want:
        assert np.max(np.abs(got[k] - want[k])) <= step * 1.001, k


def test_a_table_without_its_length_is_one_line(tmp_path):
    text = open(os.path.join(os.path.dirname(HERE), "compiler", "targets", "npu-cmd.toml")).read()
    bad = text.replace(", table_len = [15, 0, 32] }", " }")
    assert bad != text
    path = tmp_path / "npu-cmd-bad.toml"
    path.write_text(bad.replace('name = "npu-cmd"', 'name = "npu-cmd-bad"'))
    line = one_error_line(run_tool("accel-opt", os.path.join(HERE, "..", "examples", "tiny_resnet.onnx"),
                                   "--target", str(path), "-p", "byoc"))
    assert line.endswith("key 'isa.commands.qeltwise.fields': 'eltwise_q8' has 'table' without 'table_len'"), line


def test_the_simulator_refuses_a_short_table(model, runs, tmp_path):
    out = runs["npu-cmd"][3]
    isa = load_target("npu-cmd").isa
    with open(os.path.join(out, "npu_cmd_0.bin"), "rb") as f:
        blob = bytearray(f.read())
    stream = decode(isa, bytes(blob))
    header = dict(zip(isa.header, struct.unpack_from(f"<{len(isa.header)}I", blob)))
    at = layout(isa, header["commands_bytes"], header["data_bytes"], header["relocs"])[0]
    lookup = next(i for i in stream.instrs if i.values.get("eltwise_kind") == "lut")
    for instr in stream.instrs[:stream.instrs.index(lookup)]:
        at += 4 * instr.command.words
    struct.pack_into("<I", blob, at + 4 * lookup.command.fields["table_len"].word, 3)
    line = run_with_stream(out, bytes(blob), _feeds(model), tmp_path)
    assert "a lookup needs a table of 256 entries, got 3" in line and "(exit 3)" in line, line
