"""The fuzzers (accel.compiler.fuzz, accel-fuzz), and what they found.

- the fast profile: a few dozen random graph x target x pipeline cases through C against
  the reference interpreter, and a few hundred malformed parser inputs; any failure
  fails the test (with the case's replay command);
- the machinery: cases are deterministic by seed, derived targets are valid descriptions
  that keep what they say, the comparison catches a wrong result, the minimiser shrinks
  a failing case to a small one of the same failure, a failure becomes a regression
  directory whose command reproduces it;
- the command line: accel-fuzz's summary and exit code; accel-opt on a sample of
  malformed inputs: one line, exit 1, no traceback;
- regressions: an unterminated string literal lexed in linear time (it hung accel-opt).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from random import Random

import numpy as np
import onnx
import pytest
from hypothesis import given, settings
from e2e_util import sigint_as_on_a_terminal

from accel.compiler.fuzz import differential, parsers
from accel.compiler.fuzz.differential import (Failure, FuzzCase, case_random, compare, draw_from, fuzz_one, minimise,
                                              rounds_to_half)
from accel.compiler.fuzz.graphs import relay_graphs
from accel.compiler.fuzz.targets import BASES, base_text, split_blocks
from accel.compiler.targets.registry import load_target_file

FAST_SEED = 20261201
FAST_CASES = 24
"""The fast profile: FAST_CASES graphs in 4 slices (pytest-xdist spreads them)."""


@pytest.mark.parametrize("slice_", range(4))
def test_fast_differential_profile(slice_):
    per = FAST_CASES // 4
    failures = []
    for i in range(slice_ * per, (slice_ + 1) * per):
        outcome = fuzz_one(FAST_SEED, i, 8, None, 0)
        if outcome.status == "failed":
            failures.append(f"case {i} (accel-fuzz --seed {FAST_SEED} --start {i} -n 1): {outcome.summary}")
    assert not failures, "\n".join(failures)


def test_fast_profile_of_the_newer_kinds():
    """Cases of the newer kinds alone (`accel-fuzz --kinds new`): scans, top k, bit ops,
    det, gathers and scatters, the image and vision ops meet each other through C."""
    failures = []
    for i in range(6):
        outcome = fuzz_one(FAST_SEED, i, 8, None, 0, kinds="new")
        if outcome.status == "failed":
            failures.append(f"case {i} (accel-fuzz --kinds new --seed {FAST_SEED} --start {i} -n 1): {outcome.summary}")
    assert not failures, "\n".join(failures)


def test_the_kind_sets_draw_what_they_name():
    """`all` (the default) draws the newer kinds too, `classic` never does (the cases the
    seeds drew before the newer kinds came), `new` only those."""
    from accel.compiler.fuzz.graphs import NEW_OP_KINDS, OP_KINDS

    kinds = {name: set() for name in ("all", "classic", "new")}
    for i in range(30):
        for name, seen in kinds.items():
            seen.update(draw_from(case_random(5, i), 8, name)[0].graph.kinds)
    assert kinds["classic"] <= set(OP_KINDS) and kinds["new"] <= set(NEW_OP_KINDS)
    assert kinds["all"] & set(NEW_OP_KINDS) and kinds["all"] & set(OP_KINDS)
    assert draw_from(case_random(5, 3), 8)[0].describe() == draw_from(case_random(5, 3), 8, "all")[0].describe()


def test_fast_parser_profile():
    failures = [o.summary for o in (parsers.fuzz_parser_one(FAST_SEED, i) for i in range(240)) if o.status == "failed"]
    assert not failures, "\n".join(failures)


# --------------------------------------------------------------------------------------
# The machinery
# --------------------------------------------------------------------------------------


def test_cases_are_deterministic_by_seed():
    a, choices_a = draw_from(case_random(7, 3), 8)
    b, choices_b = draw_from(case_random(7, 3), 8)
    c, _ = draw_from(case_random(7, 4), 8)
    assert choices_a == choices_b
    assert a.graph.text() == b.graph.text() and [t.text for t in a.targets] == [t.text for t in b.targets]
    assert a.describe() == b.describe()
    assert c.graph.text() != a.graph.text()
    assert all(len(draw_from(case_random(7, i), 2)[0].graph.kinds) <= 2 for i in range(10))  # --max-ops
    # the choice sequence replays the case (what the minimiser shrinks)
    assert differential.replay(choices_a, 8).graph.text() == a.graph.text()


_DRAW_CASES = """
import hashlib, sys
{imports}
from accel.compiler.fuzz.differential import case_random, draw_from
digest = hashlib.sha256()
for i in range(40):
    case, _ = draw_from(case_random(3, i), 8)
    digest.update((case.graph.text() + case.describe()).encode())
print(digest.hexdigest())
"""


def test_a_seed_draws_the_same_cases_whatever_the_process_imported():
    """Hypothesis takes some numbers from the literals of the loaded local modules: before
    `seed_alone`, the test suite (which imports the interpreters) and accel-fuzz drew
    different cases of one seed, and a literal anywhere in the compiler moved them."""
    digests = set()
    for imports in ("", "import accel.compiler.runtime.buffer_interpreter, accel.compiler.compile_report"):
        proc = subprocess.run([sys.executable, "-c", _DRAW_CASES.format(imports=imports)], capture_output=True,
                              text=True, timeout=300)
        assert proc.returncode == 0, proc.stderr
        digests.add(proc.stdout.strip())
    assert len(digests) == 1


def test_derived_targets_load_and_keep_what_they_say(tmp_path):
    seen = set()
    for i in range(12):
        case, _ = draw_from(Random(i), 8)
        for t in case.targets:
            desc = load_target_file(t.write(str(tmp_path)))
            assert desc.memory.scratchpad_bytes == t.scratchpad_bytes
            assert 512 <= t.scratchpad_bytes <= 256 * 1024
            assert len(desc.ops) == t.ops and len(desc.patterns) == t.patterns
            seen.add(t.base)
    assert seen == set(BASES)


def test_split_blocks_gives_the_text_back():
    for base in BASES:
        text = base_text(base)
        blocks = split_blocks(text)
        assert "".join(blocks) == text
        assert sum(b.startswith("[[ops]]") for b in blocks) == text.count("\n[[ops]]")


def test_compare_catches_wrong_results():
    want = {"y0": np.array([1.0, 2.0, 4.0], np.float32), "y1": np.array([3, -2], np.int8)}
    assert compare(dict(want), want, False, 0.0) is None
    near = {"y0": want["y0"] + 3e-4, "y1": want["y1"]}  # within 1e-4 * 4 + 1e-5
    assert compare(near, want, False, 0.0) is None
    assert "max error" in compare({"y0": want["y0"] + 1e-3, "y1": want["y1"]}, want, False, 0.0)
    off_by_one = {"y0": want["y0"], "y1": want["y1"] + np.int8(1)}
    assert "differs by 1 steps" in compare(off_by_one, want, False, 0.0)
    assert compare(off_by_one, want, True, 0.1) is None  # quantized: one step allowed
    assert "NaNs" in compare({"y0": np.array([1.0, np.nan, 4.0], np.float32), "y1": want["y1"]}, want, False, 0.0)
    assert "outputs" in compare({"y0": want["y0"]}, want, False, 0.0)


def test_a_value_rounded_to_float16_may_round_to_the_neighbouring_half():
    """Seed 12, case 1312: matmul -> cast to f16 -> cast back; the C's float32 sum is one
    ulp from numpy's next to a float16 rounding boundary, and -0.45654297 became
    -0.45629883 (one float16 step). One step of the output's largest magnitude is
    allowed where the graph rounds to float16, not two."""
    want = {"y1": np.array([[-2.2714844, -1.5361328], [-1.1982422, -0.45654297]], np.float32)}
    got = {"y1": np.array([[-2.2714844, -1.5361328], [-1.1982422, -0.45629883]], np.float32)}
    assert "max error" in compare(got, want, False, 0.0)
    assert compare(got, want, False, 0.0, half=True) is None
    two_steps = {"y1": want["y1"] + np.float32(2 * 2.0 ** -10 * 2.2714844)}
    assert "max error" in compare(two_steps, want, False, 0.0, half=True)


@settings(max_examples=10, deadline=None)
@given(graph=relay_graphs(max_ops=2, ops=["cast", "add"], min_ops=2))
def test_graphs_with_a_cast_round_to_float16(graph):
    assert rounds_to_half(graph) == ("cast" in graph.kinds)


def test_the_minimiser_shrinks_to_a_small_case_of_the_same_failure(monkeypatch, tmp_path):
    """A pretend bug: any graph with a convolution 'fails'. The minimiser must keep a
    convolution and drop nearly everything else."""

    def check(case: FuzzCase, workdir: str) -> str:
        if any(op.name == "relay.nn.conv2d" for op in case.graph.module.walk()):
            raise Failure("mismatch", "conv", "mismatch")
        return "passed"

    monkeypatch.setattr(differential, "check_case", check)
    # Drawn from the classic kinds, whose draws stay as they are when newer kinds are added
    # (a case of "all" changes with every new kind, and with it the shrinker's path).
    for i in range(200):
        case, choices = draw_from(case_random(1, i), 8, "classic")
        if len(case.graph.kinds) >= 5 and "conv2d" in case.graph.kinds:
            break
    else:
        pytest.fail("no big case with a convolution drawn")
    # The budget is far above what shrinking takes: it ends by converging, not by the clock
    # (a time bound made the result depend on how loaded the machine is).
    result = minimise(choices, Failure("mismatch", "conv", "mismatch"), 8, str(tmp_path), 600, "classic")
    assert result.seconds < 600
    assert result.failure.origin == "mismatch"
    assert any(op.name == "relay.nn.conv2d" for op in result.case.graph.module.walk())
    assert len(result.case.graph.kinds) < len(case.graph.kinds)
    # At most two kinds beside the convolution: the draws after a dropped op change with it,
    # so a choice sequence does not always shrink to the convolution alone.
    assert len(result.case.graph.kinds) <= 3, result.case.describe()
    assert max(v.size for v in result.case.graph.inputs.values()) <= max(v.size for v in case.graph.inputs.values())


def test_a_failure_becomes_a_regression_directory_that_reproduces_it(monkeypatch, tmp_path):
    """A pretend bug in the comparison: every output 'differs'. The case is written with
    its files and command; running the command's compile and run gives the outputs."""
    monkeypatch.setattr(differential, "compare", lambda got, want, quantized, step, half: "y0: pretend")
    outcome = fuzz_one(3, 0, 4, str(tmp_path), 0)  # no shrinking: the first check only
    assert outcome.status == "failed" and "pretend" in outcome.summary
    files = sorted(os.listdir(outcome.regression))
    assert {"graph.mlir", "inputs.npz", "command.sh", "failure.json"} <= set(files)
    assert any(f.endswith(".toml") for f in files)
    bin_dir = os.path.dirname(sys.executable)
    env = dict(os.environ, PATH=bin_dir + os.pathsep + os.environ["PATH"])
    proc = subprocess.run(["sh", "command.sh"], cwd=outcome.regression, capture_output=True, text=True, env=env)
    if proc.returncode != 0:  # a documented refusal of the minimised case is no reproduction
        assert any(p.search(proc.stderr) for p in differential.REFUSALS.values()), proc.stderr
        return
    got, want = np.load(os.path.join(outcome.regression, "got.npz")), np.load(os.path.join(outcome.regression, "want.npz"))
    assert sorted(got.files) == sorted(want.files)


# --------------------------------------------------------------------------------------
# Command lines
# --------------------------------------------------------------------------------------


def _tool(name: str) -> str:
    return os.path.join(os.path.dirname(sys.executable), name)


def test_accel_fuzz_summary_and_exit_code(tmp_path):
    proc = subprocess.run([_tool("accel-fuzz"), "-n", "3", "-j", "1", "--seed", "4", "-o", str(tmp_path)],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("accel-fuzz: 3 graphs (seed 4, cases 0..2): ")
    assert proc.stdout.rstrip().endswith("0 failures")
    # --minutes bounds the run (at most 2 cases per worker were in flight: 1 or 2 ran, however
    # loaded the machine), --start picks the case
    timed = subprocess.run([_tool("accel-fuzz"), "-n", "1000", "--minutes", "0.001", "-j", "1", "--start", "5",
                            "--max-ops", "2", "-o", str(tmp_path)], capture_output=True, text=True)
    assert timed.returncode == 0, timed.stderr
    assert re.match(r"accel-fuzz: (1 graphs \(seed 0, cases 5\.\.5\)|2 graphs \(seed 0, cases 5\.\.6\)): ",
                    timed.stdout), timed.stdout
    bad = subprocess.run([_tool("accel-fuzz"), "-j", "0"], capture_output=True, text=True)
    assert bad.returncode == 1 and bad.stderr.count("\n") == 1 and "Traceback" not in bad.stderr


def test_accel_opt_on_a_sample_of_malformed_inputs(tmp_path):
    """What the in-process fuzzing checks holds for the command line too."""
    rng = Random(5)
    rejected = 0
    for i in range(6):
        kind = parsers.KINDS[i % 3]
        if kind == "ir":
            case, _ = draw_from(rng, 4)
            path = tmp_path / f"m{i}.mlir"
            path.write_text(parsers.mutate_text(rng, case.graph.text(), parsers.IR_TOKENS, parsers.EDGE_NUMBERS))
            cmd = [_tool("accel-opt"), str(path)]
        elif kind == "onnx":
            path = tmp_path / f"m{i}.onnx"
            path.write_bytes(parsers.mutate_model(rng, rng.choice(parsers.seed_models())))
            cmd = [_tool("accel-opt"), str(path)]
        else:
            path = tmp_path / f"npu{i}.toml"
            path.write_text(parsers.mutate_text(rng, base_text("npu"), parsers.TOML_VALUES, parsers.EDGE_NUMBERS))
            graph = tmp_path / "g.mlir"
            graph.write_text(parsers.small_graph_text())
            cmd = [_tool("accel-opt"), str(graph), "--target", str(path), "-p", "full", "-t", "c"]
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
        assert "Traceback" not in proc.stderr and "internal error" not in proc.stderr, proc.stderr
        if proc.returncode != 0:
            rejected += 1
            assert proc.returncode == 1 and proc.stderr.count("\n") == 1, proc.stderr
    assert rejected >= 3


# --------------------------------------------------------------------------------------
# Regressions found by the fuzzers
# --------------------------------------------------------------------------------------


def test_an_unterminated_string_literal_fails_at_once(tmp_path):
    # xDSL's string-literal regex backtracked exponentially: this never returned.
    path = tmp_path / "unterminated.mlir"
    path.write_text('func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {\n'
                    '  %c = relay.constant dense<[0.0106092794, "0.0598829612, 0.15069218, 0.177211136]> : tensor<2xf32>\n'
                    '  func.return %x : tensor<2xf32>\n}\n')
    proc = subprocess.run([_tool("accel-opt"), str(path)], capture_output=True, text=True, timeout=20)
    assert proc.returncode == 1
    assert proc.stderr.strip().endswith("unterminated.mlir:2:44: error: End of file reached before closing string literal.")


@pytest.mark.parametrize("name", [b"xq", b"qconv"])
def test_a_name_that_is_not_utf8_is_a_corrupt_model(name, tmp_path):
    # protobuf hands invalid UTF-8 in a proto2 string over as bytes: it was a TypeError
    # deep in the import ("'<' not supported between instances of 'str' and 'bytes'").
    data = parsers.seed_models()[1].SerializeToString()
    field = bytes([len(name)]) + name
    assert field in data
    bad = name[:-1] + b"\xe2"
    broken = data.replace(field, bytes([len(name)]) + bad)
    path = tmp_path / "broken.onnx"
    path.write_bytes(broken)
    proc = subprocess.run([_tool("accel-opt"), str(path)], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 1
    assert proc.stderr == f"accel-opt: {path}: error: not a valid ONNX model (a name is not UTF-8 text: {bad!r}; corrupt file?)\n"


def test_an_attribute_without_a_type_is_one_line(tmp_path):
    # Found by `accel-fuzz --parsers --seed 45`: onnx reads None from an attribute whose
    # type field is gone, and Flatten compared its axis None with the rank (a TypeError).
    model = parsers.seed_models()[0]
    flatten = next(n for n in model.graph.node if n.op_type == "Flatten")
    flatten.attribute[0].type = onnx.AttributeProto.UNDEFINED
    path = tmp_path / "untyped.onnx"
    path.write_bytes(model.SerializeToString())
    proc = subprocess.run([_tool("accel-opt"), str(path)], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 1
    assert proc.stderr == f"accel-opt: {path}: error: node 'flat' (Flatten): attribute 'axis' has no type\n"


def test_accel_fuzz_ctrl_c_reports_what_ran(tmp_path):
    """Ctrl-C stops the workers and prints the summary: one line, exit 130, no traceback."""
    import signal
    import time

    proc = subprocess.Popen([_tool("accel-fuzz"), "-n", "1000", "-j", "1", "-o", str(tmp_path)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=sigint_as_on_a_terminal)
    time.sleep(3)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, (out, err)
    assert "Traceback" not in err and "Traceback" not in out
    assert re.match(r"accel-fuzz: \d+ graphs \(seed 0, cases [^)]*\): .*\(interrupted\)\n$", out), out
