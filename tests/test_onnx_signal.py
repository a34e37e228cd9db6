"""ONNX's signal ops and the plain RNN (`compiler/frontend/onnx/ops_signal.py`, `RNN` in
`ops_recurrent.py`): DFT, STFT, the windows, MelWeightMatrix and RNN on random shapes and
attributes against onnxruntime (and ONNX's reference implementation where onnxruntime has
none), through the interpreter and through C compiled for the npu; an audio front end
(frames -> window -> DFT -> power -> mel -> log) offloaded to the npu; the one-line refusals.

Tolerances: float results within `RTOL` (1e-5) of the output's largest magnitude: the
DFT is a sum of n products in f32 (onnxruntime's FFT rounds differently), n <= 64 here.
"""

from __future__ import annotations

import math
import os

import numpy as np
import onnx
import pytest
from onnx import TensorProto as T
from onnx import helper as h
from onnx.reference import ReferenceEvaluator

from accel.compiler.driver import compile_to_directory
from accel.compiler.frontend.onnx import SUPPORTED_OPS, import_onnx_model
from accel.compiler.frontend.onnx.ops_signal import dft_matrix
from accel.compiler.runtime.interpreter import run_function
from accel.compiler.runtime.run_compiled import run_directory
from e2e_util import import_error, ort_run
from test_onnx_import import make, vi

ort = pytest.importorskip("onnxruntime")

RTOL = 1e-5
OPS = ("DFT", "STFT", "HannWindow", "HammingWindow", "BlackmanWindow", "MelWeightMatrix", "RNN")

rng = np.random.default_rng(0)


@pytest.fixture(autouse=True)
def _seeded():
    """Every test sees the same random numbers, whatever runs before it (xdist)."""
    global rng
    rng = np.random.default_rng(0)


def f32(*shape) -> np.ndarray:
    return rng.standard_normal(shape).astype(np.float32)


def close(got: np.ndarray, want: np.ndarray, rtol: float = RTOL) -> None:
    assert got.shape == want.shape and got.dtype == want.dtype, (got.shape, got.dtype, want.shape, want.dtype)
    np.testing.assert_allclose(got, want, rtol=0, atol=rtol * float(np.abs(want).max(initial=1.0)))


def interpreted(model: onnx.ModelProto, feeds: dict) -> list[np.ndarray]:
    got = run_function(import_onnx_model(model), feeds)
    return [got[o.name] for o in model.graph.output]


def ort_outputs(model: onnx.ModelProto, feeds: dict, tmp_path) -> list[np.ndarray]:
    path = os.path.join(tmp_path, "ort.onnx")
    onnx.save(model, path)
    out = ort_run(path, feeds)
    return [out[o.name] for o in model.graph.output]


def compiled(model: onnx.ModelProto, feeds: dict, tmp_path, name: str = "c") -> tuple[list[np.ndarray], dict]:
    """Outputs of `model` compiled for the npu and run on the simulator, and the report."""
    path = os.path.join(tmp_path, f"{name}.onnx")
    onnx.save(model, path)
    out = os.path.join(tmp_path, name)
    report = compile_to_directory(path, "npu", out)
    got, _ = run_directory(out, feeds)
    return [got[o.name] for o in model.graph.output], report


def test_ops_are_supported():
    assert set(OPS) <= SUPPORTED_OPS


# --------------------------------------------------------------------------------------
# DFT
# --------------------------------------------------------------------------------------


def dft_model(shape, opset: int, axis: int | None, dft_length: int | None, **attrs):
    """DFT of x [shape]; DFT-20's axis and dft_length are constant inputs."""
    inits, inputs = [], ["x"]
    if dft_length is not None:
        inits.append(("n", np.array(dft_length, np.int64)))
    inputs.append("n" if dft_length is not None else "")
    if opset >= 20:
        if axis is not None:
            inits.append(("axis", np.array(axis, np.int64)))
        inputs.append("axis" if axis is not None else "")
    elif axis is not None:
        attrs["axis"] = axis
    while inputs and inputs[-1] == "":
        inputs.pop()
    return make([h.make_node("DFT", inputs, ["y"], **attrs)], [vi("x", shape)], [vi("y", None)], inits, opset=opset)


DFT_CASES = [
    # shape, opset, axis, dft_length, attrs
    ((3, 16, 1), 20, None, None, {}),
    ((3, 16, 1), 20, 1, None, {"onesided": 1}),
    ((2, 12, 5, 2), 20, 1, None, {}),
    ((2, 12, 5, 2), 20, -3, None, {"inverse": 1}),
    ((4, 9, 1), 20, -2, 12, {}),  # zero-padded
    ((4, 9, 2), 20, 1, 5, {"inverse": 1}),  # truncated
    ((2, 3, 10, 1), 17, 2, None, {"onesided": 1}),
    ((2, 7, 3, 2), 17, 1, None, {}),
    ((5, 2), 20, 0, None, {}),  # rank 2: one row
    ((2, 64, 1), 20, 1, None, {"onesided": 1}),
]


@pytest.mark.parametrize("shape,opset,axis,dft_length,attrs", DFT_CASES)
def test_dft_matches_onnxruntime(shape, opset, axis, dft_length, attrs, tmp_path):
    model = dft_model(shape, opset, axis, dft_length, **attrs)
    feeds = {"x": f32(*shape)}
    (got,), (want,) = interpreted(model, feeds), ort_outputs(model, feeds, tmp_path)
    close(got, want)


@pytest.mark.parametrize("length,n", [(6, None), (6, 10), (5, 9), (9, 8)])
def test_irfft_matches_onnx_reference(length, n):
    """A one-sided inverse (numpy's irfft) of [2, length, 3, 2]: onnxruntime has no
    kernel for it (its shape inference refuses the op), ONNX's reference has."""
    model = dft_model((2, length, 3, 2), 20, 1, n, inverse=1, onesided=1)
    feeds = {"x": f32(2, length, 3, 2)}
    (got,), (want,) = interpreted(model, feeds), ReferenceEvaluator(model).run(None, feeds)
    close(got, want)


def test_dft_matrix_is_exact_at_quarter_turns():
    """cos and sin at multiples of π/2 are exact zeros and ones (a real signal's DC and
    Nyquist bins have exactly zero imaginary parts)."""
    m, out, c_out = dft_matrix(8, 8, c_in=1, inverse=False, onesided=True)
    assert (out, c_out) == (5, 2) and m.shape == (10, 8)
    assert np.all(m[1] == 0) and np.all(m[9] == 0)  # imaginary rows of bins 0 and 4
    assert np.array_equal(m[8], [1, -1, 1, -1, 1, -1, 1, -1])
    assert np.all(np.signbit(m) == (m < 0))  # no -0.0 entries


def test_dft_of_f64_runs_in_f64(tmp_path):
    x = rng.standard_normal((2, 32, 1))
    model = make([h.make_node("DFT", ["x"], ["y"], axis=1)], [vi("x", (2, 32, 1), T.DOUBLE)], [vi("y", None, T.DOUBLE)])
    (got,), (want,) = interpreted(model, {"x": x}), ort_outputs(model, {"x": x}, tmp_path)
    close(got, want, 1e-12)


def test_dft_of_f16_sums_in_f32():
    """An f16 signal's product runs in f32 (casts around the dense): within two f16 steps
    of the largest magnitude of ONNX's reference (which transforms in f64)."""
    x = rng.standard_normal((3, 64, 1)).astype(np.float16)
    model = make([h.make_node("DFT", ["x"], ["y"], axis=1, onesided=1)], [vi("x", (3, 64, 1), T.FLOAT16)],
                 [vi("y", None, T.FLOAT16)])
    names = [op.name for op in import_onnx_model(model).walk() if op.name.startswith("relay.")]
    assert names.count("relay.cast") == 2, names
    (got,), (want,) = interpreted(model, {"x": x}), ReferenceEvaluator(model).run(None, {"x": x})
    close(got, want, 2 ** -10)


def test_dft_through_c(tmp_path):
    """A complex DFT along an inner axis (transposes around the product) and a one-sided
    real one, compiled for the npu."""
    model = make([h.make_node("DFT", ["x", "", "a1"], ["y"]),
                  h.make_node("DFT", ["r", "", "a2"], ["z"], onesided=1)],
                 [vi("x", (2, 12, 3, 2)), vi("r", (6, 40, 1))], [vi("y", None), vi("z", None)],
                 [("a1", np.array(1, np.int64)), ("a2", np.array(-2, np.int64))], opset=20)
    feeds = {"x": f32(2, 12, 3, 2), "r": f32(6, 40, 1)}
    got, _ = compiled(model, feeds, tmp_path)
    for g, w in zip(got, ort_outputs(model, feeds, tmp_path)):
        close(g, w)


# --------------------------------------------------------------------------------------
# STFT
# --------------------------------------------------------------------------------------


def stft_model(batch, length, comps, step, frame=None, window=None, runtime_window=False, onesided=None):
    inits = [("step", np.array(step, np.int64))]
    inputs = [vi("s", (batch, length, comps))]
    names = ["s", "step", "", ""]
    if window is not None:
        names[2] = "w"
        if runtime_window:
            inputs.append(vi("w", window.shape))
        else:
            inits.append(("w", window))
    if frame is not None:
        names[3] = "len"
        inits.append(("len", np.array(frame, np.int64)))
    while names[-1] == "":
        names.pop()
    attrs = {} if onesided is None else {"onesided": onesided}
    return make([h.make_node("STFT", names, ["y"], **attrs)], inputs, [vi("y", None)], inits)


STFT_CASES = [
    # batch, length, comps, step, frame, window, runtime window, onesided
    (1, 64, 1, 8, 16, None, False, None),
    (2, 100, 1, 10, None, "hann25", False, None),  # gcd 5
    (1, 90, 1, 7, None, "hann16", True, None),  # gcd 1: 16 slices
    (2, 40, 1, 16, 16, None, False, 0),  # frames do not overlap: no slices
    (1, 50, 2, 6, 12, "ones12", True, 0),  # complex signal, two-sided
    (3, 33, 1, 4, 8, "hann8", False, 1),
]


def window_of(spec: str | None) -> np.ndarray | None:
    if spec is None:
        return None
    size = int(spec.lstrip("hanones"))
    if spec.startswith("ones"):
        return np.ones(size, np.float32)
    return (np.sin(np.pi * np.arange(size) / size) ** 2).astype(np.float32)


@pytest.mark.parametrize("batch,length,comps,step,frame,window,runtime,onesided", STFT_CASES)
def test_stft_matches_onnxruntime(batch, length, comps, step, frame, window, runtime, onesided, tmp_path):
    w = window_of(window)
    model = stft_model(batch, length, comps, step, frame, w, runtime, onesided)
    feeds = {"s": f32(batch, length, comps)}
    if runtime:
        feeds["w"] = w
    (got,), (want,) = interpreted(model, feeds), ort_outputs(model, feeds, tmp_path)
    close(got, want)


def test_stft_op_count_does_not_grow_with_the_signal():
    """Framing is a reshape and frame/gcd(step, frame) strided slices, whatever the length."""
    for length in (400, 4000):
        module = import_onnx_model(stft_model(1, length, 1, 160, window=window_of("hann400")))
        names = [op.name for op in module.walk() if op.name.startswith("relay.")]
        # 5 frame slices (gcd 80: 400 / 80), and one cutting the samples no frame reaches
        assert names.count("relay.strided_slice") == 5 + (length == 4000), names
        assert names.count("relay.nn.dense") == 1, names


def test_stft_through_c(tmp_path):
    model = stft_model(2, 120, 1, 12, None, window_of("hann32"), True)
    feeds = {"s": f32(2, 120, 1), "w": window_of("hann32")}
    (got,), _ = compiled(model, feeds, tmp_path)
    close(got, ort_outputs(model, feeds, tmp_path)[0])


# --------------------------------------------------------------------------------------
# Windows and MelWeightMatrix
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize("op", ["HannWindow", "HammingWindow", "BlackmanWindow"])
@pytest.mark.parametrize("size,periodic,dtype", [(10, 1, T.FLOAT), (10, 0, T.FLOAT), (1, 1, T.FLOAT),
                                                 (33, 0, T.DOUBLE), (400, 1, T.FLOAT)])
def test_windows_match_onnxruntime(op, size, periodic, dtype, tmp_path):
    model = make([h.make_node(op, ["size"], ["y"], periodic=periodic, output_datatype=dtype)], [],
                 [vi("y", None, dtype)], [("size", np.array(size, np.int32))])
    module = import_onnx_model(model)
    assert [o.name for o in module.walk() if o.name.startswith("relay.")] == ["relay.constant"]
    (got,) = interpreted(model, {})
    (want,) = ort_outputs(model, {}, tmp_path)
    close(got, want, 1e-6)
    close(got, ReferenceEvaluator(model).run(None, {})[0], 1e-6)


@pytest.mark.parametrize("bins,n_fft,rate,lo,hi", [(8, 16, 8192, 0.0, 4096.0), (40, 512, 16000, 20.0, 8000.0),
                                                   (80, 400, 16000, 0.0, 8000.0), (10, 64, 22050, 300.0, 5000.0)])
def test_mel_weight_matrix_matches_onnx_reference(bins, n_fft, rate, lo, hi, tmp_path):
    inits = [("bins", np.array(bins, np.int64)), ("n", np.array(n_fft, np.int64)), ("rate", np.array(rate, np.int64)),
             ("lo", np.array(lo, np.float32)), ("hi", np.array(hi, np.float32))]
    model = make([h.make_node("MelWeightMatrix", ["bins", "n", "rate", "lo", "hi"], ["y"])], [], [vi("y", None)], inits)
    (got,) = interpreted(model, {})
    want = ReferenceEvaluator(model).run(None, {})[0]
    assert got.shape == (n_fft // 2 + 1, bins)
    np.testing.assert_array_equal(got, want)
    close(got, ort_outputs(model, {}, tmp_path)[0], 1e-6)


# --------------------------------------------------------------------------------------
# RNN
# --------------------------------------------------------------------------------------


def rnn_model(steps, batch, inp, hidden, direction="forward", layout=0, bias=True, initial_h=False,
              outputs=("y", "y_h"), **attrs):
    dirs = 2 if direction == "bidirectional" else 1
    inits = [("w", f32(dirs, hidden, inp) * 0.5), ("r", f32(dirs, hidden, hidden) * 0.5)]
    names = ["x", "w", "r", "", "", ""]
    if bias:
        inits.append(("b", f32(dirs, 2 * hidden) * 0.5))
        names[3] = "b"
    xs = (steps, batch, inp) if layout == 0 else (batch, steps, inp)
    inputs = [vi("x", xs)]
    if initial_h:
        inputs.append(vi("h0", (dirs, batch, hidden) if layout == 0 else (batch, dirs, hidden)))
        names[5] = "h0"
    while names[-1] == "":
        names.pop()
    outs = [o if o in outputs else "" for o in ("y", "y_h")]
    while outs[-1] == "":
        outs.pop()
    node = h.make_node("RNN", names, outs, hidden_size=hidden, direction=direction, layout=layout, **attrs)
    return make([node], inputs, [vi(o, None) for o in outs if o], inits, opset=22)


def rnn_feeds(model) -> dict:
    return {i.name: f32(*[d.dim_value for d in i.type.tensor_type.shape.dim]) for i in model.graph.input}


RNN_CASES = [
    dict(steps=4, batch=2, inp=3, hidden=5),
    dict(steps=3, batch=1, inp=2, hidden=4, direction="reverse", initial_h=True),
    dict(steps=5, batch=3, inp=4, hidden=3, direction="bidirectional", initial_h=True),
    dict(steps=3, batch=2, inp=3, hidden=4, bias=False, outputs=("y_h",)),
    dict(steps=3, batch=2, inp=3, hidden=4, outputs=("y",), clip=0.7),
    dict(steps=3, batch=2, inp=3, hidden=4, activations=["Relu"]),
    dict(steps=3, batch=2, inp=3, hidden=4, activations=["Sigmoid"]),
    dict(steps=3, batch=2, inp=3, hidden=4, direction="bidirectional", activations=["LeakyRelu", "HardSigmoid"],
         activation_alpha=[0.2, 0.3], activation_beta=[0.4]),
    dict(steps=3, batch=2, inp=3, hidden=4, activations=["ScaledTanh"], activation_alpha=[1.5], activation_beta=[0.7]),
    dict(steps=3, batch=2, inp=3, hidden=4, activations=["Affine"], activation_alpha=[0.5], activation_beta=[0.1]),
    dict(steps=3, batch=2, inp=3, hidden=4, activations=["ThresholdedRelu"], activation_alpha=[0.1]),
    dict(steps=3, batch=2, inp=3, hidden=4, activations=["Elu"], activation_alpha=[0.6]),
    dict(steps=3, batch=2, inp=3, hidden=4, activations=["Softsign"]),
    dict(steps=3, batch=2, inp=3, hidden=4, direction="bidirectional", activations=["Softplus", "Elu"]),
]


@pytest.mark.parametrize("case", RNN_CASES, ids=lambda c: "-".join(f"{k}={v}" for k, v in c.items()))
def test_rnn_matches_onnxruntime(case, tmp_path):
    model = rnn_model(**case)
    feeds = rnn_feeds(model)
    for g, w in zip(interpreted(model, feeds), ort_outputs(model, feeds, tmp_path)):
        close(g, w)


@pytest.mark.parametrize("direction", ["forward", "bidirectional"])
def test_rnn_batchwise_matches_onnx_reference(direction):
    """layout 1 ([batch, steps, ...]): onnxruntime refuses it, ONNX's reference runs it."""
    model = rnn_model(steps=4, batch=2, inp=3, hidden=2, layout=1, direction=direction, initial_h=True)
    feeds = rnn_feeds(model)
    for g, w in zip(interpreted(model, feeds), ReferenceEvaluator(model).run(None, feeds)):
        close(g, w)


def test_rnn_activation_names_are_case_insensitive():
    """As LSTM's and GRU's: 'elu' is Elu (onnxruntime's RNN kernel wants the spec's case)."""
    model = rnn_model(steps=3, batch=2, inp=3, hidden=4, activations=["Elu"], activation_alpha=[0.6])
    feeds = rnn_feeds(model)
    upper = interpreted(model, feeds)
    acts = next(a for a in model.graph.node[0].attribute if a.name == "activations")
    acts.strings[0] = b"elu"
    for a, b in zip(upper, interpreted(model, feeds)):
        np.testing.assert_array_equal(a, b)
    acts.strings[0] = b"Relu"  # the test can fail: another name is another function
    assert not np.array_equal(upper[0], interpreted(model, feeds)[0])


def test_rnn_through_c(tmp_path):
    """A bidirectional RNN (both outputs): its input and recurrent products are dense
    layers with constant weights, run on the npu."""
    model = rnn_model(steps=6, batch=4, inp=16, hidden=24, direction="bidirectional", initial_h=True)
    feeds = rnn_feeds(model)
    got, report = compiled(model, feeds, tmp_path)
    for g, w in zip(got, ort_outputs(model, feeds, tmp_path)):
        close(g, w)
    assert report["macs"]["offloaded"] > 0, report["macs"]


# --------------------------------------------------------------------------------------
# An audio front end on the npu
# --------------------------------------------------------------------------------------


def log_mel_model(batch=1, samples=4000, n_fft=400, hop=160, mels=80, rate=16000):
    """Whisper-style log-mel: STFT (Hann window from HannWindow), power = re² + im², the
    mel filter bank (MelWeightMatrix) as a MatMul, log(max(., 1e-10))."""
    bins = n_fft // 2 + 1
    nodes = [
        h.make_node("HannWindow", ["n_fft"], ["win"]),
        h.make_node("STFT", ["audio", "hop", "win"], ["spec"]),
        h.make_node("Mul", ["spec", "spec"], ["sq"]),
        h.make_node("ReduceSum", ["sq", "last"], ["power"], keepdims=0),
        h.make_node("MelWeightMatrix", ["mels", "n_fft64", "rate", "lo", "hi"], ["mel_w"]),
        h.make_node("MatMul", ["power", "mel_w"], ["mel"]),
        h.make_node("Max", ["mel", "floor"], ["clamped"]),
        h.make_node("Log", ["clamped"], ["logmel"]),
    ]
    inits = [("n_fft", np.array(n_fft, np.int32)), ("hop", np.array(hop, np.int64)), ("last", np.array([-1], np.int64)),
             ("mels", np.array(mels, np.int64)), ("n_fft64", np.array(n_fft, np.int64)),
             ("rate", np.array(rate, np.int64)), ("lo", np.array(0.0, np.float32)),
             ("hi", np.array(rate / 2, np.float32)), ("floor", np.array(1e-10, np.float32))]
    frames = 1 + (samples - n_fft) // hop
    return make(nodes, [vi("audio", (batch, samples, 1))], [vi("logmel", (batch, frames, mels))], inits, opset=18), bins


def test_log_mel_front_end_offloads_to_the_npu(tmp_path):
    model, bins = log_mel_model()
    feeds = {"audio": (f32(1, 4000, 1) * 0.1).astype(np.float32)}
    (got,), report = compiled(model, feeds, tmp_path, "logmel")
    (want,) = ort_outputs(model, feeds, tmp_path)
    # The mel power within 1e-4 of its largest value (squares of 400-point f32 sums, then
    # 201-point sums: 2e-5 seen); its log absolutely within 1e-2 (the log of a band 1e-3
    # of the largest magnifies that error 1000 times).
    (interp,) = interpreted(model, feeds)
    for g in (got, interp):
        close(np.exp(g), np.exp(want), 1e-4)
        np.testing.assert_allclose(g, want, rtol=0, atol=1e-2)
    macs = report["macs"]
    frames = 1 + (4000 - 400) // 160
    assert macs["total"] >= frames * 400 * 2 * bins  # the DFT product
    assert macs["offloaded"] / macs["total"] > 0.95, macs


# --------------------------------------------------------------------------------------
# Refusals: one line naming the node
# --------------------------------------------------------------------------------------


def _bad_models():
    yield (make([h.make_node("DFT", ["x", "n"], ["y"], name="d", axis=1)], [vi("x", (1, 8, 1)), vi("n", (), T.INT64)],
                [vi("y", None)]), "dft_length ('n') must be a constant; it is a graph input")
    yield (dft_model((2, 8, 1), 17, 2, None), "axis 2 is the last dimension")
    yield (dft_model((2, 8, 3), 17, 1, None), "must have rank >= 2 and a last dimension of 1 (real) or 2 (complex)")
    yield (dft_model((2, 8, 2), 20, 1, None, onesided=1), "a one-sided DFT needs a real input")
    yield (dft_model((2, 8, 1), 20, 1, None, inverse=1, onesided=1), "a one-sided inverse DFT needs a complex input")
    yield (dft_model((2, 8, 1), 20, 1, 0), "dft_length 0 must be positive")
    yield (dft_model((2, 8, 1), 20, 5, None), "axis 5 is out of range for rank 3")
    m = dft_model((2, 8, 1), 20, None, None)
    m.graph.node[0].attribute.append(h.make_attribute("axis", 1))
    yield m, "attribute 'axis' is not an attribute of DFT-20"
    yield (stft_model(1, 16, 1, 2, 6, np.ones(4, np.float32)), "window of 4 samples does not match frame_length 6")
    yield (stft_model(1, 16, 1, 0, 4), "frame_step 0 must be positive")
    yield (stft_model(1, 16, 1, 2, 20), "frame_length 20 must be in 1 .. the signal's length 16")
    yield (stft_model(1, 16, 2, 2, 4), "a one-sided STFT needs a real signal")
    yield (make([h.make_node("HannWindow", ["n"], ["y"])], [vi("n", (), T.INT32)], [vi("y", None)]),
           "size ('n') must be a constant; it is a graph input")
    yield (make([h.make_node("HannWindow", ["n"], ["y"])], [], [vi("y", None)], [("n", np.array(0, np.int32))]),
           "size 0 must be positive")
    inits = [("bins", np.array(8, np.int64)), ("n", np.array(16, np.int64)), ("rate", np.array(8000, np.int64)),
             ("lo", np.array(0.0, np.float32)), ("hi", np.array(8000.0, np.float32))]
    yield (make([h.make_node("MelWeightMatrix", ["bins", "n", "rate", "lo", "hi"], ["y"])], [], [vi("y", None)], inits),
           "fall outside the 9 bins of dft_length 16")
    yield (rnn_model(2, 1, 3, 2, activations=["Gelu"]), "activation 'Gelu' is not one of Relu, Tanh")
    yield (rnn_model(2, 1, 3, 2, direction="bidirectional", activations=["Relu"]),
           "activations ['Relu'] must name 2 functions")
    m = rnn_model(2, 1, 3, 2)
    m.graph.node[0].input.append("lens")
    m.graph.initializer.append(onnx.numpy_helper.from_array(np.array([1], np.int32), "lens"))
    yield m, "sequence_lens [1] is not supported"


@pytest.mark.parametrize("model,message", list(_bad_models()), ids=lambda v: v if isinstance(v, str) else "")
def test_refusals_are_one_line(model, message):
    assert message in import_error(model)
