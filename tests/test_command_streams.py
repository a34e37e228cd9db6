"""Command-stream targets (`npu-cmd`, and `examples/targets/stripe`, another encoding of
the same operations written only as a description).

- real CNNs (float, and their int8 QDQ versions) compiled for `npu-cmd` give the C-API
  npu's outputs bit for bit, with the same DMA bytes, transfers, compute commands and
  cycles (the stream runs the same kernels on the same timeline; the waits are the accel
  dialect's tokens); so does `stripe`;
- encode -> decode is the identity over random commands of both instruction sets, and
  re-encoding gives the same bytes;
- a malformed instruction set in a description is one line naming file and key;
- the simulator rejects a corrupted or truncated stream with one line (and the Python
  decoder, accel-disasm, with the same finding);
- report.json has each region's stream size; `accel-opt -t commands` is accel-disasm's text.
"""

from __future__ import annotations

import json
import os
import re
import struct

import numpy as np
import onnx
import pytest
from e2e_util import input_signature, locked, one_error_line, quantize_qdq, run_tool, run_with_stream, session_dir
from hypothesis import given, settings
from hypothesis import strategies as st

from accel.compiler import api
from accel.compiler.pipeline import PIPELINES
from accel.compiler.backend.stream_format import Instr, Stream, c_name, decode, disassemble, encode, layout
from accel.compiler.diagnostics import CompileError
from accel.compiler.targets import isa as V
from accel.compiler.targets.registry import load_target

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
TINY = os.path.join(ROOT, "examples", "tiny_resnet.onnx")
STRIPE = os.path.join(ROOT, "examples", "targets", "stripe", "stripe.toml")
MODELS = ("resnet_dynamo", "mobilenet_dynamo", "cnn_large_resnet")


@pytest.fixture(scope="session")
def shared(tmp_path_factory) -> str:
    return session_dir(tmp_path_factory)


def model_path(shared: str, name: str, int8: bool) -> str:
    src = TINY if name == "tiny_resnet" else os.path.join(HERE, "models", f"{name}.onnx")
    if not int8:
        return src
    dst = os.path.join(shared, f"cmd-{name}-int8.onnx")
    with locked(dst):
        if not os.path.exists(dst):
            quantize_qdq(src, dst)
    return dst


def feeds_of(path: str) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(7)
    return {n: rng.standard_normal(s).astype(np.float32) for n, s in input_signature(onnx.load(path, load_external_data=False))}


SAME_OPS = PIPELINES["full"]
"""The pipeline the C-API npu and a stream target are compared with (npu-cmd's
`eltwise_q8` carries a lookup's table: both offload the same ops)."""


def compile_run(shared: str, path: str, target: str) -> tuple[dict[str, np.ndarray], dict, api.Compiled, str]:
    out = os.path.join(shared, "cmd-" + re.sub(r"[^A-Za-z0-9]+", "_", f"{os.path.basename(path)}-{target}"))
    with locked(out):
        compiled = api.compile(path, target=target, out_dir=out, pipeline=SAME_OPS)
        outputs = compiled.run(feeds_of(path))
    with open(os.path.join(out, "counters.json")) as f:
        return outputs, json.load(f), compiled, out


def assert_same_run(shared: str, path: str, target: str) -> None:
    want, want_counters, _, _ = compile_run(shared, path, "npu")
    got, counters, compiled, out = compile_run(shared, path, target)
    assert want_counters["accel_ops"] > 0 and want_counters["transfers"] > 0
    assert counters == want_counters
    assert set(got) == set(want)
    for k in want:
        assert got[k].dtype == want[k].dtype and np.array_equal(got[k], want[k]), k
    streams = compiled.report["codegen"]
    assert streams, "no region on the command-stream target"
    for region, facts in streams.items():
        assert facts["stream_bytes"] == os.path.getsize(os.path.join(out, f"{region}.bin"))


@pytest.mark.parametrize("int8", [False, True], ids=["f32", "int8"])
@pytest.mark.parametrize("name", MODELS)
def test_npu_cmd_matches_the_c_api_npu(shared, name, int8):
    assert_same_run(shared, model_path(shared, name, int8), "npu-cmd")


@pytest.mark.parametrize("name,int8", [("tiny_resnet", False), ("resnet_dynamo", True)])
def test_a_second_instruction_set_runs_a_model(shared, name, int8):
    assert_same_run(shared, model_path(shared, name, int8), STRIPE)


def test_a_stream_runs_clean_under_the_sanitizers(shared):
    want, _, compiled, out = compile_run(shared, TINY, "npu-cmd")
    with locked(out):
        got = compiled.run(feeds_of(TINY), sanitize=True)
    assert all(np.array_equal(got[k], want[k]) for k in want)


def test_npu_cmd_shares_the_npu_entries():
    npu, cmd, stripe = load_target("npu"), load_target("npu-cmd"), load_target(STRIPE)
    for other in (cmd, stripe):
        assert [(o.op, o.limits) for o in other.ops] == [(o.op, o.limits) for o in npu.ops]
        assert [(p.name, p.limits) for p in other.patterns] == [(p.name, p.limits) for p in npu.patterns]
        assert other.memory == npu.memory and other.compute == npu.compute and other.dma == npu.dma
    assert npu.isa is None and cmd.isa is not None


# --------------------------------------------------------------------------------------
# Encode -> decode
# --------------------------------------------------------------------------------------

ISAS = {"npu-cmd": load_target("npu-cmd"), "stripe": load_target(STRIPE)}
BASES = 5


@st.composite
def instructions(draw, which: str):
    isa = ISAS[which].isa
    cmd = draw(st.sampled_from(isa.commands))
    values = {}
    for name, f in cmd.fields.items():
        kind, extra = V.FIELDS[name]
        if kind == V.UINT and name.removesuffix("_len") in cmd.fields and name.endswith("_len"):
            values[name] = draw(st.integers(0, 16))  # a data array's length: the section holds it
        elif kind == V.UINT:
            values[name] = draw(st.integers(0, (1 << f.width) - 1))
        elif kind == V.INT:
            values[name] = draw(st.integers(-(1 << (f.width - 1)), (1 << (f.width - 1)) - 1))
        elif kind == V.F32:
            values[name] = draw(st.floats(width=32, allow_nan=False))
        elif kind == V.ENUM:
            values[name] = draw(st.sampled_from(sorted(isa.enums[extra])))  # (the values it has codes for)
        elif kind == V.SPM:
            offset = st.integers(0, (1 << f.width) - 2)
            values[name] = draw(st.none() | offset | st.tuples(st.integers(0, BASES - 1), offset))
        elif kind == V.HOST:
            values[name] = draw(st.tuples(st.integers(0, BASES - 1), st.integers(0, (1 << 64) - 1)))
        else:  # DATA: an offset into the data section, which we size to hold the array
            values[name] = 4 * draw(st.integers(0, 64))
    return Instr(cmd, values)


def data_bytes(instrs: list[Instr]) -> bytes:
    need = 0
    for instr in instrs:
        for name in instr.command.fields:
            if V.FIELDS[name][0] == V.DATA:
                need = max(need, instr.values[name] + 4 * instr.values.get(f"{name}_len", 0))
    return bytes(need)


@settings(max_examples=150, deadline=None)
@given(data=st.data(), which=st.sampled_from(sorted(ISAS)))
def test_encode_decode_round_trip(data, which):
    desc = ISAS[which]
    instrs = data.draw(st.lists(instructions(which), min_size=0, max_size=6))
    instrs = [i for i in instrs if i.command.op != "end"]
    transfers, kept = 0, []
    for i in instrs:  # a wait names a transfer issued before it
        transfers += i.command.op in ("dma_to_device", "dma_to_host")
        if i.command.op == "dma_wait":
            if not transfers:
                continue
            i.values["token"] = 1 + i.values["token"] % transfers
        kept.append(i)
    instrs = kept
    instrs.append(Instr(desc.isa.command("end"), {}))
    blob = encode(desc.isa, desc, Stream({}, instrs, data_bytes(instrs), BASES))
    assert len(blob) % desc.isa.alignment == 0
    back = decode(desc.isa, blob)
    assert [i.command for i in back.instrs] == [i.command for i in instrs]
    for got, want in zip(back.instrs, instrs):
        assert got.values == want.values
    assert encode(desc.isa, desc, back) == blob


def test_a_value_too_wide_for_its_field_names_the_key():
    desc = ISAS["stripe"]  # 16-bit geometry
    conv = desc.isa.command("conv2d_f32")
    values = {f: 0 for f in conv.fields} | {"act": "none", "oc": 1 << 16}
    with pytest.raises(CompileError, match=r"key 'isa\.commands\.CONV_F\.fields\.oc': 65536 does not fit 16 bits"):
        encode(desc.isa, desc, Stream({}, [Instr(conv, values), Instr(desc.isa.command("end"), {})], b"", BASES))


# --------------------------------------------------------------------------------------
# Malformed instruction sets
# --------------------------------------------------------------------------------------

BAD_ISAS = [
    ('[isa.commands.conv]\nfields = { groups = [1, 0, 8] }',
     r"key 'isa\.commands\.conv\.fields\.groups': overlaps 'x' \(word 1, bits 0\.\.31\)"),
    ('[isa.commands.conv]\nopcode = 300', r"key 'isa\.commands\.conv\.opcode': 300 cannot fit the 8-bit opcode field"),
    ('[isa.commands.conv]\nopcode = 0x20', r"key 'isa\.commands\.matmul\.opcode': 32 is also the opcode of 'conv'"),
    ('[isa.commands.conv]\nwords = 5', r"key 'isa\.commands\.conv\.fields\.n': lies past the command's 5 words"),
    ('[isa.commands.conv]\nfields = { act = [0, 0, 1] }', r"key 'isa\.commands\.conv\.fields\.act': code 2 of enum "
                                                          r"'activation' cannot fit 1 bits"),
    ('[isa.commands.conv]\nfields = { bogus = [30, 0, 8] }', r"key 'isa\.commands\.conv\.fields\.bogus': "
                                                             r"'conv2d_f32' has no field 'bogus'"),
    ('[isa.commands.conv]\nop = "conv3d"', r"key 'isa\.commands\.conv\.op': expected one of dma_to_device"),
    ('[isa.enums]\nactivation = { none = 0, relu = 1, clip = 2, gelu = 3 }',
     r"key 'isa\.enums\.activation\.gelu': unknown value 'gelu' of enum 'activation'"),
    ('[isa.enums]\ncolour = { red = 0 }', r"key 'isa\.enums\.colour': unknown enum 'colour'"),
    ('[isa.enums]\ndtype = { i8 = 0, ui8 = 0 }', r"key 'isa\.enums\.dtype': two values share a code"),
    ('[isa]\nmagic = 0x100000000', r"key 'isa\.magic': expected a 32-bit unsigned integer"),
    ('[isa]\nheader = ["magic", "version"]', r"key 'isa\.header': missing 'commands_bytes'"),
    ('[isa]\nheader = ["magic", "version", "commands_bytes", "data_bytes", "relocs", "bases", "config.compute.launch_cycles"]',
     r"key 'isa\.header\[6\]': unknown config word 'config\.compute\.launch_cycles'"),
    ('[isa]\nlength = [0, 20, 8]', r"key 'isa\.length': overlaps 'opcode'"),
    ('[isa]\nalignment = 12', r"key 'isa\.alignment': expected a power of two"),
    ('[isa.commands.dma_load]\nfields = { host = [1, 0, 32] }',
     r"key 'isa\.commands\.dma_load\.fields\.host': a host address is 64 bits at bit 0"),
]


def test_a_kind_the_target_offloads_needs_a_code(tmp_path):
    # An engine encodes the kinds it has; stripe offloads the npu's ops, RMS norm among them.
    path = tmp_path / "stripe.toml"
    with open(STRIPE) as f:
        path.write_text(f.read().replace(", rms_norm = 3 }", " }"))
    with pytest.raises(CompileError) as e:
        load_target(str(path))
    assert re.search(r"key 'isa\.enums\.rows_kind': no code for 'rms_norm': ops\[\d+\] \(relay\.nn\.rms_norm\) "
                     r"is unmapped", e.value.message), e.value.message


def test_a_kind_chosen_by_properties_runs_only_where_the_engine_has_a_code(tmp_path):
    # The tanh form of GELU is a kind of its own (gelu_tanh): an engine without a code
    # for it still runs the erf form, and leaves the tanh form on the host, saying why.
    path = tmp_path / "stripe.toml"
    with open(STRIPE) as f:
        path.write_text(f.read().replace(", gelu_tanh = 10,", ","))
    ir = tmp_path / "gelu.mlir"
    ir.write_text("""func.func @main(%x: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  %0 = relay.nn.gelu %x : tensor<4x8xf32>
  %1 = relay.nn.gelu %x {approximate = "tanh"} : tensor<4x8xf32>
  func.return %0, %1 : tensor<4x8xf32>, tensor<4x8xf32>
}
""")
    for target, tanh in ((str(path), r'accel.target = "host", accel.reason = "stripe: no command of its instruction '
                                      r'set runs \'gelu_tanh\'"'), (STRIPE, 'accel.target = "stripe"')):
        out = run_tool("accel-opt", str(ir), "--target", target, "-p", "annotate-target")
        assert out.returncode == 0, out.stderr
        assert 'relay.nn.gelu %x {accel.target = "stripe"}' in out.stdout
        assert re.search(r'relay\.nn\.gelu %x \{approximate = "tanh", ' + tanh + "}", out.stdout), out.stdout


def test_an_instruction_set_without_conversions_leaves_them_on_the_host(tmp_path):
    # Conversion commands are optional: without them the description loads, the int8
    # patterns (whose conversions fold into their commands) still run, and a conversion
    # alone stays on the host, saying why.
    import re as regex

    text = open(STRIPE).read()
    bare = regex.sub(r"\[isa\.commands\.(QNT|DQNT)\]\n(?:[a-z_]+ = .*\n)*", "", text)
    assert bare != text and "op = \"quantize\"" not in bare
    path = tmp_path / "stripe.toml"
    path.write_text(bare)
    ir = tmp_path / "island.mlir"
    ir.write_text("""func.func @main(%q: tensor<4x8xi8>) -> tensor<4x8xi8> {
  %s = relay.constant dense<0.05> : tensor<f32>
  %z = relay.constant dense<0> : tensor<i8>
  %d = relay.qnn.dequantize %q, %s, %z : (tensor<4x8xi8>, tensor<f32>, tensor<i8>) -> tensor<4x8xf32>
  %r = relay.subtract %d, %d : tensor<4x8xf32>
  %y = relay.qnn.quantize %r, %s, %z : (tensor<4x8xf32>, tensor<f32>, tensor<i8>) -> tensor<4x8xi8>
  func.return %y : tensor<4x8xi8>
}
""")
    out = run_tool("accel-opt", str(ir), "--target", str(path), "-p", "annotate-target")
    assert out.returncode == 0, out.stderr
    assert "relay.qnn.dequantize %q, %s, %z {accel.target = \"host\", accel.reason = \"stripe: no command of its " \
           "instruction set runs 'dequantize'\"}" in out.stdout, out.stdout
    assert 'relay.subtract %d, %d {accel.target = "stripe"}' in out.stdout, out.stdout
    out = run_tool("accel-opt", str(ir), "--target", STRIPE, "-p", "annotate-target")
    assert 'relay.qnn.dequantize %q, %s, %z {accel.target = "stripe"}' in out.stdout, out.stdout


@pytest.mark.parametrize("text,message", BAD_ISAS, ids=[m[:40] for _, m in BAD_ISAS])
def test_malformed_instruction_sets_give_one_line(tmp_path, text, message):
    path = tmp_path / "bad.toml"
    path.write_text(f'extends = "npu-cmd"\nname = "bad"\n{text}\n')
    with pytest.raises(CompileError) as e:
        load_target(str(path))
    assert e.value.location == str(path)
    assert re.search(message, e.value.message), e.value.message


def test_an_unmapped_op_is_an_error(tmp_path):
    """An instruction set without a command for something the target offloads."""
    lines = open(os.path.join(ROOT, "compiler", "targets", "npu-cmd.toml")).read()
    start = lines.index("[isa.commands.rows]")
    path = tmp_path / "norows.toml"
    text = lines[:start].replace('extends = "npu"', f'extends = "{ROOT}/compiler/targets/npu.toml"')
    path.write_text(text.replace('name = "npu-cmd"', 'name = "norows"'))
    with pytest.raises(CompileError, match=r"key 'isa\.commands': no command runs 'rows_f32': ops\[\d+\] "
                                           r"\(relay\.nn\.softmax on f32\) is unmapped"):
        load_target(str(path))


def test_a_malformed_instruction_set_on_the_command_line(tmp_path):
    path = tmp_path / "bad.toml"
    path.write_text('extends = "npu-cmd"\nname = "bad"\n[isa.commands.conv]\nopcode = 300\n')
    line = one_error_line(run_tool("accel-opt", TINY, "--target", str(path), "-p", "byoc"))
    assert line == (f"accel-opt: {path}: error: key 'isa.commands.conv.opcode': 300 cannot fit the 8-bit "
                    "opcode field (isa.opcode)")


# --------------------------------------------------------------------------------------
# Corrupted streams
# --------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def tiny_stream(shared):
    _, _, _, out = compile_run(shared, TINY, "npu-cmd")
    with open(os.path.join(out, "npu_cmd_0.bin"), "rb") as f:
        return out, f.read()


def _poke(blob: bytes, at: int, word: int) -> bytes:
    out = bytearray(blob)
    struct.pack_into("<I", out, at, word)
    return bytes(out)


def corruptions(isa, blob: bytes) -> dict[str, tuple[bytes, str]]:
    header = dict(zip(isa.header, struct.unpack_from(f"<{len(isa.header)}I", blob)))
    c_off, _, r_off, _ = layout(isa, header["commands_bytes"], header["data_bytes"], header["relocs"])
    first = struct.unpack_from("<I", blob, c_off)[0]
    end = c_off + header["commands_bytes"] - 4  # the last command: end (one word)
    wait_at = next(c_off + 4 * i for i, instr in enumerate(_word_starts(isa, blob, c_off, header["commands_bytes"]))
                   if instr == "wait")
    return {
        "truncated": (blob[: len(blob) // 2], r"truncated: the header announces \d+ bytes, the stream has \d+"),
        "header only": (blob[:8], r"truncated: 8 bytes, the header alone has 44"),
        "magic": (_poke(blob, 0, 0xDEADBEEF), r"bad magic 0xdeadbeef \(expected 0x31444d43\) \(at byte 0\)"),
        "reserved opcode": (_poke(blob, c_off, (first & 0x00FFFFFF) | 0x7F << 24), rf"reserved opcode 0x7f \(at byte {c_off}\)"),
        "length": (_poke(blob, c_off, (first & 0xFF00FFFF) | 3 << 16), r"'dma_load' has length 3, expected 16"),
        "address": (_poke(blob, c_off + 12, 0x00100000), r"'dma_load': scratchpad offset 1048576 is outside the "
                                                         r"262144-byte scratchpad"),
        "no end": (_poke(blob, end, 0x04 << 24 | 1 << 16), r"no 'end' command"),
        "relocation": (_poke(blob, r_off, 1), r"relocation 0 points at word 1, where no command starts"),
        "wait": (_poke(blob, wait_at + 4, 999), r"wait for transfer 999, but \d+ were issued"),
    }


def _word_starts(isa, blob, c_off, size):
    """The command at each word of the commands section (its name where one starts)."""
    words = struct.unpack_from(f"<{size // 4}I", blob, c_off)
    out, i = [None] * len(words), 0
    while i < len(words):
        cmd = isa.by_opcode(V.get((words[i],), isa.opcode))
        out[i] = cmd.name
        i += cmd.words
    return out


CASES = ("truncated", "header only", "magic", "reserved opcode", "length", "address", "no end", "relocation", "wait")


@pytest.mark.parametrize("case", CASES)
def test_the_decoder_rejects_a_corrupted_stream(tiny_stream, tmp_path, case):
    out, blob = tiny_stream
    bad, message = corruptions(ISAS["npu-cmd"].isa, blob)[case]
    path = tmp_path / "bad.bin"
    path.write_bytes(bad)
    line = one_error_line(run_tool("accel-disasm", str(path)))
    assert re.search(message, line), line
    assert line.startswith(f"accel-disasm: error: {path}: ")


def device_corruptions(isa, blob: bytes) -> dict[str, tuple[bytes, str]]:
    """What only the device can tell: a stream compiled for another configuration."""
    at = 4 * isa.header.index("config.compute.macs_per_cycle_f32")
    return {**corruptions(isa, blob), "config": (_poke(blob, at, 999), r"compiled for compute\.macs_per_cycle_f32 = 999, "
                                                                       rf"the device has 64 \(at byte {at}\)")}


@pytest.mark.parametrize("case", (*CASES, "config"))
def test_the_simulator_rejects_a_corrupted_stream(tiny_stream, tmp_path, case):
    out, blob = tiny_stream
    bad, message = device_corruptions(ISAS["npu-cmd"].isa, blob)[case]
    line = run_with_stream(out, bad, feeds_of(TINY), tmp_path)
    assert "npu-cmd: error: stream npu_cmd_0: " in line and "(exit 3)" in line, line
    assert re.search(message, line), line


def test_a_valid_stream_disassembles_as_accel_opt_prints_it(tiny_stream):
    out, blob = tiny_stream
    text = disassemble(ISAS["npu-cmd"].isa, blob, "npu_cmd_0.bin")
    proc = run_tool("accel-disasm", os.path.join(out, "npu_cmd_0.bin"))
    assert proc.returncode == 0 and proc.stdout == text
    opt = run_tool("accel-opt", TINY, "--target", "npu-cmd", "-p", "full", "-t", "commands")
    assert opt.returncode == 0, opt.stderr
    assert opt.stdout == "// ===== npu_cmd_0.bin (npu-cmd) =====\n" + text
    lines = text.splitlines()
    assert lines[0].startswith("header magic=0x31444d43 version=1 ")
    assert re.match(r"\s+0: dma_load elem_bytes=4 rank=4 spm=0 host=arg0\+0 shape0=1 shape1=3 shape2=32 shape3=32 ", lines[1])
    assert lines[-2:] == [f"{len(lines) - 3:4d}: barrier", f"{len(lines) - 2:4d}: end"]


def test_the_simulator_header_names_the_whole_vocabulary():
    """The generated tables name operations, fields, kinds, enums and header words by the
    C identifiers of npu_cmd.h: every one of the Python vocabulary must exist there."""
    header = open(os.path.join(ROOT, "compiler", "runtime", "c", "sim", "npu_cmd.h")).read()
    names = set(re.findall(r"\bNPU_CMD_[A-Z0-9_]+\b", header))
    want = {c_name("NPU_CMD_OP_", o) for o in V.OPS} | {c_name("NPU_CMD_F_", f) for f in V.FIELDS}
    want |= {c_name("NPU_CMD_K_", k) for k in (V.UINT, V.INT, V.F32, V.SPM, V.HOST, V.DATA, V.ENUM)}
    want |= {c_name("NPU_CMD_E_", e) for e in V.ENUMS} | {c_name("NPU_CMD_H_", w) for w in V.HEADER_WORDS}
    want |= {c_name("NPU_CMD_H_", f"config.{w}") for w in V.HEADER_CONFIG}
    assert want - names == set()
