"""expand-pads and collapse-norm-axes: the layers of image-to-image generators (reflection
pads, instance norms) on the npu.

- expand-pads on random pads (hypothesis: ranks 1-4, widths 0-3 per side, every mode,
  float and QDQ int8): the interpreter's result is unchanged, bit for bit; a pad is
  rewritten exactly when the npu runs the slices and concatenations (rank <= 4) and the
  QDQ ones move int8 data;
- the rows each border copies, against numpy.pad's own on an index vector;
- pads of every mode (repeated slices, constant blocks, int8 moved) after a conv through
  C on npu and npu-64k, against the interpreter;
- collapse-norm-axes on random layer and RMS norms over 1-3 trailing axes: the result is
  unchanged, bit for bit, and only norms over more than the last axis change;
- a fast style transfer generator (9x9 convs too) is one npu region, its C against
  onnxruntime;
- a CycleGAN-style generator (reflection pad, 7x7 conv, instance norm, ReLU; two residual
  blocks of pad, conv, instance norm; reflection pad, 7x7 conv, tanh; 1x3x24x24), float
  and int8 (QDQ; without the norms and the tanh, see `e2e_util.generator_model`), compiled for
  the npu against onnxruntime: float within 3e-5 of the output's largest magnitude (five
  float norms), int8 within one quantization step of onnxruntime and the interpreter;
  the float model is one npu region (without the two passes: 11 regions, its pads and
  norms on the host).
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from accel.compiler.driver import compile_to_directory, make_context
from accel.compiler.frontend.builder import GraphBuilder
from accel.compiler.transforms.collapse_norm_axes import CollapseNormAxes
from accel.compiler.transforms.expand_pads import ExpandPads, source_row
from accel.dialects import relay
from e2e_util import (assert_int8_matches_references, assert_matches_onnxruntime, assert_pass_keeps_results,
                      build_and_run, compiled_with_and_without, full_without, generator_model, quantize_qdq,
                      relay_interpreter, style_transfer_model)

MODES = ["constant", "reflect", "edge", "wrap"]


@pytest.mark.parametrize("mode", ["reflect", "edge", "wrap"])
@pytest.mark.parametrize("n", [1, 2, 5])
def test_border_rows_are_numpys(mode, n):
    pad = min(n - 1, 3) if mode == "reflect" else 7
    index = np.arange(n)
    want = np.pad(index, (pad, pad), mode={"edge": "edge", "wrap": "wrap", "reflect": "reflect"}[mode])
    got = [source_row(i, n, mode) if not 0 <= i < n else i for i in range(-pad, n + pad)]
    assert list(want) == got


@st.composite
def pads(draw):
    rank = draw(st.integers(1, 5))
    shape = draw(st.lists(st.integers(1, 4), min_size=rank, max_size=rank))
    mode = draw(st.sampled_from(MODES))
    widths = []
    for s in shape:
        top = s - 1 if mode == "reflect" else 3
        widths += [draw(st.integers(0, top)), draw(st.integers(0, top))]
    value = draw(st.sampled_from([0.0, 0.0, -1.5]))
    return shape, mode, widths, value


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=pads(), qdq=st.booleans(), seed=st.integers(0, 2**16))
def test_pads_keep_their_result(case, qdq, seed):
    shape, mode, widths, value = case
    b = GraphBuilder()
    rng = np.random.default_rng(seed)
    props = dict(pad_width=widths, pad_mode=mode, pad_value=value)
    if qdq:
        x = b.input("x", shape, np.int8)
        s, z = b.const(np.array(0.1, np.float32)), b.const(np.array(-3, np.int8))
        y = b.qnn_quantize(b.pad(b.qnn_dequantize(x, s, z), **props), s, z)
        inputs = {"x": rng.integers(-128, 128, shape).astype(np.int8)}
    else:
        x = b.input("x", shape)
        y = b.pad(x, **props)
        inputs = {"x": rng.standard_normal(shape).astype(np.float32)}
    module = b.build([y])
    assert_pass_keeps_results(ExpandPads(), module, inputs)
    ops = [op for op in module.walk() if isinstance(op, relay.RelayOp)]
    rewritten = not any(isinstance(op, relay.PadOp) for op in ops)
    assert rewritten == (any(widths) and len(shape) <= 4)
    if rewritten and qdq and (mode != "constant" or value == 0.0):  # the int8 data moves
        assert not any(isinstance(op, (relay.QuantizeOp, relay.DequantizeOp)) for op in ops)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(lead=st.lists(st.integers(1, 3), min_size=1, max_size=2), normed=st.lists(st.integers(1, 6), min_size=1, max_size=3),
       rms=st.booleans(), negative=st.booleans(), seed=st.integers(0, 2**16))
def test_norms_keep_their_result(lead, normed, rms, negative, seed):
    shape = [*lead, *normed]
    rng = np.random.default_rng(seed)
    b = GraphBuilder()
    x = b.input("x", shape)
    gamma = b.const((1 + 0.1 * rng.standard_normal(normed)).astype(np.float32))
    axis = -len(normed) if negative else len(lead)
    if rms:
        y = b.rms_norm(x, gamma, axis=axis, epsilon=1e-5)
    else:
        y = b.layer_norm(x, gamma, b.const((0.1 * rng.standard_normal(normed)).astype(np.float32)), axis=axis,
                         epsilon=1e-5)
    module = b.build([y])
    assert_pass_keeps_results(CollapseNormAxes(), module, {"x": rng.standard_normal(shape).astype(np.float32)})
    norms = [op for op in module.walk() if isinstance(op, (relay.LayerNormOp, relay.RMSNormOp))]
    assert len(norms) == 1
    rank = len(relay.shape_of(norms[0].results[0].type))
    assert norms[0].prop("axis") % rank == rank - 1  # along the last axis, merged or not
    assert (rank == len(shape)) == (len(normed) == 1)  # merged exactly when it was over several


def test_a_norm_the_npu_runs_is_kept():
    b = GraphBuilder()
    x = b.input("x", (2, 8))
    y = b.layer_norm(x, b.const(np.ones(8, np.float32)), b.const(np.zeros(8, np.float32)), axis=-1)
    module = b.build([y])
    before = str(module)
    CollapseNormAxes().apply(make_context("npu"), module)
    assert str(module) == before


@pytest.mark.parametrize("target", ["npu", "npu-64k"])
def test_every_mode_through_c(tmp_path, target):
    """Pads of each mode after a conv, float and int8 data moved by QDQ, through C and the
    simulator against the interpreter: float within 1e-5 of the output's largest magnitude
    (the conv sums in another order), int8 within one quantization step (a quantize of
    that conv's result may round the other way); the pads are copies on the npu."""
    rng = np.random.default_rng(3)
    b = GraphBuilder()
    x = b.input("x", (1, 4, 6, 6))
    w = b.const((0.3 * rng.standard_normal((4, 4, 3, 3))).astype(np.float32))
    y = b.conv2d(x, w, padding=[1, 1, 1, 1])
    outputs = []
    for mode, widths in (("reflect", [0, 0, 0, 0, 2, 1, 3, 0]), ("edge", [0, 0, 0, 0, 2, 2, 0, 1]),
                         ("wrap", [0, 0, 0, 0, 0, 0, 4, 2]), ("constant", [0, 0, 1, 0, 1, 1, 0, 0])):
        outputs.append(b.relu(b.pad(y, pad_width=widths, pad_mode=mode, pad_value=0.5)))
    s, z = b.const(np.array(0.05, np.float32)), b.const(np.array(3, np.int8))
    q = b.qnn_quantize(y, s, z)
    outputs.append(b.qnn_quantize(b.pad(b.qnn_dequantize(q, s, z), pad_width=[0, 0, 0, 0, 1, 1, 1, 1],
                                        pad_mode="reflect"), s, z))
    module = b.build(outputs)
    src = tmp_path / "pads.mlir"
    src.write_text(str(module))
    inputs = {"x": rng.standard_normal((1, 4, 6, 6)).astype(np.float32)}
    want = relay_interpreter.run_function(module, inputs)
    got, _, report = build_and_run(str(src), target, str(tmp_path / "out"), inputs)
    assert not [r for r in report["rejected"] if r["op"] == "relay.nn.pad"], report["rejected"]
    for name, value in want.items():
        assert got[name].dtype == value.dtype, name
        err = np.max(np.abs(got[name].astype(np.float64) - value))
        assert err <= (1 if value.dtype == np.int8 else 1e-5 * np.max(np.abs(value))), (name, err)


# --------------------------------------------------------------------------------------
# A CycleGAN-style generator through C
# --------------------------------------------------------------------------------------

OUTPUT = "y"  # (generator_model's output)


@pytest.fixture(scope="module")
def compiled(tmp_path_factory) -> dict[tuple[str, str], tuple[str, dict, str]]:
    d = tmp_path_factory.mktemp("generator")
    paths = {"float": str(d / "generator.onnx"), "int8": str(d / "generator_int8.onnx")}
    generator_model(paths["float"])
    generator_model(str(d / "generator_int8_float.onnx"), int8=True)
    quantize_qdq(str(d / "generator_int8_float.onnx"), paths["int8"])
    out = compiled_with_and_without(tmp_path_factory, paths, "expand-pads", plain=("float",))
    # (and without either pass: the pads and the norms each cut the region)
    none = str(tmp_path_factory.mktemp("neither"))
    compile_to_directory(paths["float"], "npu", none,
                         pipeline=full_without("expand-pads", "collapse-norm-axes"))
    with open(f"{none}/report.json") as f:
        out[("float", "neither")] = (none, json.load(f), paths["float"])
    return out


def test_generator_is_one_region(compiled):
    _, neither, _ = compiled[("float", "neither")]
    _, without_pads, _ = compiled[("float", "plain")]
    _, both, _ = compiled[("float", "pass")]
    assert {r["op"] for r in neither["rejected"]} == {"relay.nn.pad", "relay.nn.layer_norm"}, neither["rejected"]
    assert {r["op"] for r in without_pads["rejected"]} == {"relay.nn.pad"}, without_pads["rejected"]
    assert both["ops"]["host"] == 0 and len(both["regions"]) == 1, both["rejected"]
    assert len(neither["regions"]) > len(without_pads["regions"]) > 1


def test_float_generator_matches_onnxruntime(compiled):
    # 3e-5 of the output's largest magnitude: five instance norms each divide by a standard
    # deviation taken in float, in another order than onnxruntime's (the host-only C of
    # this model is 0.9e-5 off, the npu's 1.0e-5).
    d, _, path = compiled[("float", "pass")]
    assert_matches_onnxruntime(d, path, OUTPUT, relative=3e-5)


def test_int8_generator_matches_onnxruntime_within_one_step(compiled):
    d, report, path = compiled[("int8", "pass")]
    # one region: the host only quantizes the input and dequantizes the output
    assert len(report["regions"]) == 1, report["rejected"]
    assert {r["op"] for r in report["rejected"]} == {"relay.qnn.quantize", "relay.qnn.dequantize"}, report["rejected"]
    assert_int8_matches_references(d, path, seeds=2)


def test_style_transfer_is_one_npu_region(tmp_path):
    """A fast style transfer generator (e2e_util.style_transfer_model: reflection pads,
    9x9 and 3x3 convs, instance norms, residual blocks, nearest upsampling) compiles to
    one npu region with nothing on the host (before expand-pads, collapse-norm-axes and
    the wide kernels of split-tall-kernels: 17 regions, 57 % of the MACs offloaded), and
    its C is within 1e-5 of onnxruntime's largest magnitude."""
    path = str(tmp_path / "style.onnx")
    style_transfer_model(path)
    out = str(tmp_path / "out")
    report = compile_to_directory(path, "npu", out)
    assert len(report["regions"]) == 1 and report["ops"]["host"] == 0, report["rejected"]
    assert_matches_onnxruntime(out, path, "y")
