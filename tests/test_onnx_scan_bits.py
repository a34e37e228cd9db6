"""ONNX scans, selection and integer bit ops (`compiler/frontend/onnx/ops_scan_bits.py`):
CumSum, CumProd, TopK, ReverseSequence, Compress, BitwiseAnd/Or/Xor/Not, BitShift,
BitCast, Det, and NonZero/Unique on constants.

- Import: each op becomes its relay op(s); the refusals are one line naming the node.
- Random graphs (shapes, axes, exclusive/reverse, K, largest, batch/time axes, conditions,
  broadcasting, integer types drawn per seed) through the reference interpreter and
  through compiled C (host kernels, built with -Werror), compared with onnxruntime:
  integers, indices and booleans exactly; floats within 1e-5 of the output's largest
  magnitude (CumSum/CumProd accumulate in order in the type, as onnxruntime; the bound
  leaves room for a different order of a sum).
- BitShift of signed types (onnxruntime has unsigned ones only) against ONNX's reference
  evaluator, counts outside [0, bits) included.
- Data-dependent indices in C: a ReverseSequence length beyond the time axis is an error
  status of the gather, not a read outside the data.
"""

from __future__ import annotations

import numpy as np
import onnx
import pytest
from onnx import TensorProto as T
from onnx import helper as h

from accel.compiler.diagnostics import CompileError
from accel.compiler.driver import compile_to_directory
from accel.compiler.frontend.onnx import SUPPORTED_OPS, import_onnx_model
from accel.compiler.runtime.interpreter import run_function
from accel.compiler.runtime.run_compiled import run_directory
from e2e_util import import_error, ort_run
from test_onnx_import import make, ops, vi

pytest.importorskip("onnxruntime")

FLOAT_RTOL = 1e-5
"""Float outputs: |got - want| <= FLOAT_RTOL * max |want| (and rtol FLOAT_RTOL)."""

INT_TYPES = {np.int8: T.INT8, np.uint8: T.UINT8, np.int16: T.INT16, np.uint16: T.UINT16, np.int32: T.INT32,
             np.uint32: T.UINT32, np.int64: T.INT64, np.uint64: T.UINT64}


def assert_same(got: dict, want: dict, what: str) -> None:
    for k, w in want.items():
        g = got[k]
        assert g.shape == w.shape and g.dtype == w.dtype, (what, k, g.dtype, g.shape, w.dtype, w.shape)
        if w.dtype.kind == "f":
            np.testing.assert_allclose(g, w, rtol=FLOAT_RTOL, atol=FLOAT_RTOL * float(np.abs(w).max(initial=1.0)),
                                       err_msg=f"{what}: {k}")
        else:
            np.testing.assert_array_equal(g, w, err_msg=f"{what}: {k}")


def run_c(model: onnx.ModelProto, feeds: dict, tmp_path, name: str = "m") -> dict:
    path = str(tmp_path / f"{name}.onnx")
    onnx.save(model, path)
    out = str(tmp_path / name)
    compile_to_directory(path, "", out, pipeline="canonicalize,bufferize,plan-memory")
    got, _ = run_directory(out, feeds)
    return got


def check(model: onnx.ModelProto, feeds: dict, tmp_path, want: dict | None = None, name: str = "m") -> None:
    """Interpreter and C against `want` (default: onnxruntime)."""
    if want is None:
        path = str(tmp_path / f"{name}_ort.onnx")
        onnx.save(model, path)
        want = ort_run(path, feeds)
    assert_same(run_function(import_onnx_model(model), feeds), want, "interpreter")
    assert_same(run_c(model, feeds, tmp_path, name), want, "C")


def test_ops_are_supported():
    for op in ("CumSum", "CumProd", "TopK", "ReverseSequence", "Compress", "BitwiseAnd", "BitwiseOr", "BitwiseXor",
               "BitwiseNot", "BitShift", "BitCast", "Det"):
        assert op in SUPPORTED_OPS, op


# --------------------------------------------------------------------------------------
# Import: the relay ops
# --------------------------------------------------------------------------------------


def one_node(op, inputs, out_type=T.FLOAT, inits=(), opset=18, n_out=1, **attrs):
    node = h.make_node(op, [n for n, _, _ in inputs] + [n for n, _ in inits], [f"y{i}" for i in range(n_out)],
                       **attrs)
    # a second output is TopK's indices or Unique's
    out_types = [out_type] + [T.INT64] * (n_out - 1)
    return make([node], [vi(n, s, t) for n, s, t in inputs], [vi(f"y{i}", None, t) for i, t in enumerate(out_types)],
                 inits, opset=opset)


@pytest.mark.parametrize("model, relay_ops", [
    (one_node("CumSum", [("x", [2, 3], T.FLOAT)], inits=[("a", np.array(1))], exclusive=1), ["relay.cumsum"]),
    (one_node("CumProd", [("x", [2, 3], T.FLOAT)], inits=[("a", np.array(-1))], opset=26), ["relay.cumprod"]),
    (one_node("TopK", [("x", [2, 5], T.FLOAT)], inits=[("k", np.array([2]))], n_out=2), ["relay.topk", "relay.gather"]),
    (one_node("BitwiseAnd", [("x", [2, 3], T.INT32), ("z", [3], T.INT32)], T.INT32), ["relay.bitwise_and"]),
    (one_node("BitwiseOr", [("x", [2, 3], T.UINT8), ("z", [3], T.UINT8)], T.UINT8), ["relay.bitwise_or"]),
    (one_node("BitwiseXor", [("x", [2, 3], T.INT64), ("z", [3], T.INT64)], T.INT64), ["relay.bitwise_xor"]),
    (one_node("BitwiseNot", [("x", [2, 3], T.INT16)], T.INT16), ["relay.bitwise_not"]),
    (one_node("BitShift", [("x", [3], T.UINT32), ("z", [3], T.UINT32)], T.UINT32, direction="LEFT"),
     ["relay.left_shift"]),
    (one_node("BitShift", [("x", [3], T.UINT32), ("z", [3], T.UINT32)], T.UINT32, direction="RIGHT"),
     ["relay.right_shift"]),
    (one_node("BitCast", [("x", [3], T.FLOAT)], T.INT32, opset=26, to=T.INT32), ["relay.reinterpret"]),
    (one_node("Det", [("x", [2, 3, 3], T.FLOAT)], opset=22), ["relay.det"]),
    # a constant condition in steps is a strided slice, otherwise a take of the kept indices
    (one_node("Compress", [("x", [3, 6], T.FLOAT)], inits=[("c", np.array([0, 1, 0, 1, 0, 1], bool))], axis=1),
     ["relay.strided_slice"]),
    (one_node("Compress", [("x", [3, 6], T.FLOAT)], inits=[("c", np.array([1, 1, 0, 1], bool))], axis=1),
     ["relay.take"]),
    (one_node("ReverseSequence", [("x", [4, 2], T.FLOAT), ("l", [2], T.INT64)], batch_axis=1, time_axis=0),
     ["relay.reshape", "relay.subtract", "relay.subtract", "relay.less", "relay.where", "relay.gather"]),
    (one_node("ReverseSequence", [("x", [2, 4, 3], T.FLOAT), ("l", [2], T.INT64)], batch_axis=0, time_axis=1),
     ["relay.reshape", "relay.subtract", "relay.subtract", "relay.less", "relay.where", "relay.broadcast_to",
      "relay.gather"]),
    (one_node("ReverseSequence", [("x", [4, 2], T.FLOAT)], inits=[("l", np.array([3, 1]))], batch_axis=1,
              time_axis=0), ["relay.gather"]),
])  # fmt: skip
def test_import_to_relay_ops(model, relay_ops):
    module = import_onnx_model(model)
    assert [o for o in ops(module) if o != "relay.constant"] == relay_ops


def test_top_k_values_alone_are_one_topk():
    m = one_node("TopK", [("x", [2, 5], T.FLOAT)], inits=[("k", np.array([3]))], largest=0)
    module = import_onnx_model(m)
    assert [o for o in ops(module) if o != "relay.constant"] == ["relay.topk"]
    x = np.random.default_rng(1).standard_normal((2, 5)).astype(np.float32)
    np.testing.assert_array_equal(run_function(module, {"x": x})["y0"], np.sort(x, axis=1)[:, :3])


# --------------------------------------------------------------------------------------
# Random graphs against onnxruntime, interpreter and C
# --------------------------------------------------------------------------------------


def random_model(seed: int) -> tuple[onnx.ModelProto, dict[str, np.ndarray]]:
    """One graph of every op on drawn shapes and attributes; feeds."""
    rng = np.random.default_rng(seed)
    rank = int(rng.integers(2, 5))
    shape = [int(s) for s in rng.integers(1, 6, rank)]
    shape[0] = max(shape[0], 2)
    shape[1] = max(shape[1], 2)
    int_type = list(INT_TYPES)[int(rng.integers(len(INT_TYPES)))]
    uint_type = [np.uint8, np.uint16, np.uint32, np.uint64][int(rng.integers(4))]
    info = np.iinfo(int_type)
    # onnxruntime's CumSum/CumProd and TopK take int32 and int64 (the node tests and the
    # C kernels' own tests cover the other integer types)
    cum_type = [np.int32, np.int64][int(rng.integers(2))]
    top_type = [np.int32, np.int64][int(rng.integers(2))]
    feeds = {
        "x": rng.standard_normal(shape).astype(np.float32),
        "d": rng.standard_normal(shape),  # float64
        # few distinct values: ties for TopK
        "i": rng.integers(max(info.min, -3), min(info.max, 4), shape, endpoint=True).astype(int_type),
        "c": rng.integers(-2, 3, shape).astype(cum_type),
        "q": rng.integers(-3, 4, shape).astype(top_type),
        "j": rng.integers(info.min, info.max, shape[-1:], endpoint=True, dtype=int_type),
        "u": rng.integers(0, np.iinfo(uint_type).max, shape, endpoint=True, dtype=uint_type),
        "s": rng.integers(0, np.iinfo(uint_type).bits, shape[-1:]).astype(uint_type),
    }
    ax = int(rng.integers(-rank, rank))
    ax2 = int(rng.integers(-rank, rank))
    k = int(rng.integers(1, shape[ax] + 1))
    k2 = int(rng.integers(1, shape[ax2] + 1))
    t_ax, b_ax = [(0, 1), (1, 0)][int(rng.integers(2))]
    feeds["len"] = rng.integers(1, shape[t_ax] + 1, shape[b_ax]).astype(np.int64)
    cond_axis = int(rng.integers(rank))
    cond = rng.random(shape[cond_axis] + int(rng.integers(0, 2))) < 0.6
    cond[0] = True  # never empty
    cond[shape[cond_axis]:] = False
    flat_cond = rng.random(int(np.prod(shape))) < 0.5
    flat_cond[-1] = True
    n = h.make_node
    nodes = [
        n("CumSum", ["x", "ax"], ["cumsum_f"], exclusive=int(rng.integers(2)), reverse=int(rng.integers(2))),
        n("CumSum", ["c", "ax2"], ["cumsum_i"], exclusive=int(rng.integers(2)), reverse=int(rng.integers(2))),
        n("CumProd", ["d", "ax"], ["cumprod_d"], exclusive=int(rng.integers(2)), reverse=int(rng.integers(2))),
        n("CumProd", ["c", "ax2"], ["cumprod_i"], exclusive=int(rng.integers(2)), reverse=int(rng.integers(2))),
        n("TopK", ["x", "k"], ["topk_v", "topk_i"], axis=ax, largest=int(rng.integers(2))),
        n("TopK", ["q", "k2"], ["topk_iv", "topk_ii"], axis=ax2, largest=int(rng.integers(2))),
        n("ReverseSequence", ["x", "len"], ["revseq"], time_axis=t_ax, batch_axis=b_ax),
        n("Compress", ["x", "cond"], ["compress"], axis=cond_axis),
        n("Compress", ["i", "flat_cond"], ["compress_flat"]),
        n("BitwiseAnd", ["i", "j"], ["and"]),
        n("BitwiseOr", ["i", "j"], ["or"]),
        n("BitwiseXor", ["j", "i"], ["xor"]),
        n("BitwiseNot", ["i"], ["not"]),
        n("BitShift", ["u", "s"], ["shl"], direction="LEFT"),
        n("BitShift", ["u", "s"], ["shr"], direction="RIGHT"),
        n("BitCast", ["x"], ["bits"], to=T.INT32),
        n("BitCast", ["d"], ["bits_d"], to=T.UINT64),
    ]
    it, ut, ct, qt = INT_TYPES[int_type], INT_TYPES[uint_type], INT_TYPES[cum_type], INT_TYPES[top_type]
    inputs = [vi("x", shape), vi("d", shape, T.DOUBLE), vi("i", shape, it), vi("c", shape, ct), vi("q", shape, qt),
              vi("j", shape[-1:], it),
              vi("u", shape, ut), vi("s", shape[-1:], ut), vi("len", [shape[b_ax]], T.INT64)]
    out_types = {"cumsum_f": T.FLOAT, "cumsum_i": ct, "cumprod_d": T.DOUBLE, "cumprod_i": ct, "topk_v": T.FLOAT,
                 "topk_i": T.INT64, "topk_iv": qt, "topk_ii": T.INT64, "revseq": T.FLOAT, "compress": T.FLOAT,
                 "compress_flat": it, "and": it, "or": it, "xor": it, "not": it, "shl": ut, "shr": ut,
                 "bits": T.INT32, "bits_d": T.UINT64}
    inits = [("ax", np.array(ax)), ("ax2", np.array(ax2, np.int32)), ("k", np.array([k])), ("k2", np.array([k2])),
             ("cond", cond), ("flat_cond", flat_cond)]
    m = make(nodes, inputs, [vi(name, None, t) for name, t in out_types.items()], inits, opset=26)
    return m, feeds


@pytest.mark.parametrize("seed", range(4))
def test_random_graph_matches_onnxruntime(seed, tmp_path):
    model, feeds = random_model(seed)
    check(model, feeds, tmp_path)


@pytest.mark.parametrize("dtype", list(INT_TYPES))
def test_scans_and_top_k_of_every_integer_type_in_c_match_the_interpreter(dtype, tmp_path):
    """The integer types onnxruntime's kernels lack: C against the reference semantics
    (wrapping sums and products; TopK ties by the lower index)."""
    rng = np.random.default_rng(np.dtype(dtype).itemsize * 2 + (np.dtype(dtype).kind == "u"))
    info = np.iinfo(dtype)
    t = INT_TYPES[dtype]
    feeds = {"i": rng.integers(info.min, info.max, (3, 7), endpoint=True, dtype=dtype),
             "q": rng.integers(0, 3, (3, 7)).astype(dtype)}
    nodes = [h.make_node("CumSum", ["i", "one"], ["sum"], reverse=1),
             h.make_node("CumProd", ["i", "zero"], ["prod"], exclusive=1),
             h.make_node("TopK", ["q", "k"], ["tv", "ti"], largest=1),
             h.make_node("TopK", ["i", "k"], ["sv", "si"], largest=0)]
    m = make(nodes, [vi("i", [3, 7], t), vi("q", [3, 7], t)],
             [vi("sum", [3, 7], t), vi("prod", [3, 7], t), vi("tv", [3, 4], t), vi("ti", [3, 4], T.INT64),
              vi("sv", [3, 4], t), vi("si", [3, 4], T.INT64)],
             [("one", np.array(1)), ("zero", np.array(0)), ("k", np.array([4]))], opset=26)
    want = run_function(import_onnx_model(m), feeds)
    wide = feeds["i"].astype(object)  # the wrapped sum, computed exactly
    np.testing.assert_array_equal(want["sum"], (np.cumsum(wide[:, ::-1], axis=1)[:, ::-1] % 2**info.bits)
                                  .astype(np.uint64).astype(dtype))
    order = np.argsort(-feeds["q"].astype(np.int64), axis=1, kind="stable")[:, :4]
    np.testing.assert_array_equal(want["ti"], order)
    assert_same(run_c(m, feeds, tmp_path), want, "C")


@pytest.mark.parametrize("seed", range(3))
def test_det_matches_onnxruntime(seed, tmp_path):
    """Batches of drawn sizes; a singular matrix (a repeated row) and one whose first pivot
    is 0 (a row swap) among them. float32 against onnxruntime; float64 (onnxruntime has
    no kernel) against numpy's LAPACK determinant."""
    rng = np.random.default_rng(seed)
    m = int(rng.integers(1, 6))
    batch = [int(b) for b in rng.integers(1, 4, int(rng.integers(0, 3)))]
    x = rng.standard_normal((*batch, 4, m, m))
    x[..., 0, -1, :] = x[..., 0, 0, :]  # singular (for m > 1)
    x[..., 1, 0, 0] = 0.0
    for dtype, t in ((np.float32, T.FLOAT), (np.float64, T.DOUBLE)):
        model = make([h.make_node("Det", ["x"], ["y"])], [vi("x", list(x.shape), t)], [vi("y", None, t)], opset=22)
        feeds = {"x": x.astype(dtype)}
        want = None if dtype == np.float32 else {"y": np.linalg.det(x)}
        check(model, feeds, tmp_path, want, name=np.dtype(dtype).name)
    if m > 1:  # exactly singular up to the rounding of the eliminated row
        got = run_function(import_onnx_model(model), feeds)["y"][..., 0]
        assert np.all(np.abs(got) <= 1e-12 * max(1.0, float(np.abs(x).max())) ** m), got


def onnx_reference(model: onnx.ModelProto, feeds: dict) -> dict:
    from onnx.reference import ReferenceEvaluator

    names = [o.name for o in model.graph.output]
    return dict(zip(names, ReferenceEvaluator(model).run(None, feeds)))


@pytest.mark.parametrize("dtype", [np.int8, np.int16, np.int32, np.int64])
def test_signed_bit_shift_matches_the_onnx_reference(dtype, tmp_path):
    """onnxruntime has no signed BitShift; ONNX's reference evaluator defines it (opset
    28): counts outside [0, bits) give 0, or -1 for a right shift of a negative value."""
    rng = np.random.default_rng(int(np.dtype(dtype).itemsize))
    bits = np.iinfo(dtype).bits
    info = np.iinfo(dtype)
    x = rng.integers(info.min, info.max, (4, 16), endpoint=True, dtype=dtype)
    x[0, :4] = [info.min, info.max, -1, 0]
    s = rng.integers(max(info.min, -2 * bits), min(info.max, 2 * bits), (16,), endpoint=True).astype(dtype)
    s[:6] = [0, 1, bits - 1, bits, -1, min(info.max, bits + 3)]
    t = INT_TYPES[dtype]
    nodes = [h.make_node("BitShift", ["x", "s"], ["l"], direction="LEFT"),
             h.make_node("BitShift", ["x", "s"], ["r"], direction="RIGHT")]
    m = make(nodes, [vi("x", [4, 16], t), vi("s", [16], t)], [vi("l", [4, 16], t), vi("r", [4, 16], t)], opset=28)
    feeds = {"x": x, "s": s}
    check(m, feeds, tmp_path, want=onnx_reference(m, feeds))


def test_bit_cast_of_16_bit_floats_keeps_the_bits(tmp_path):
    """bf16 / f16 values are not widened to f32 around a reinterpret (widen-host-floats,
    the interpreter): the npu pipeline's C and the interpreter give the input's bits."""
    import ml_dtypes

    nodes = [h.make_node("BitCast", ["x"], ["y"], to=T.UINT16), h.make_node("BitCast", ["i"], ["z"], to=T.FLOAT16)]
    m = make(nodes, [vi("x", [5], T.BFLOAT16), vi("i", [5], T.INT16)], [vi("y", [5], T.UINT16), vi("z", [5], T.FLOAT16)],
             opset=26)
    x = np.array([1.5, -2, 0.1, 3e38, -0.0], np.float32).astype(ml_dtypes.bfloat16)
    i = np.array([15360, -1, 1, 31744, -32768], np.int16)  # 1.0, a nan, a subnormal, inf, -0.0
    feeds = {"x": x, "i": i}
    path = str(tmp_path / "bits.onnx")
    onnx.save(m, path)
    compile_to_directory(path, "npu", str(tmp_path / "npu"))
    for got in (run_function(import_onnx_model(m), feeds), run_directory(str(tmp_path / "npu"), feeds)[0]):
        np.testing.assert_array_equal(np.asarray(got["y"]), x.view(np.uint16))
        np.testing.assert_array_equal(np.asarray(got["z"]).view(np.int16), i)


def test_reverse_sequence_length_beyond_the_time_axis_is_an_error(tmp_path):
    m = one_node("ReverseSequence", [("x", [3, 2], T.FLOAT), ("l", [2], T.INT64)], batch_axis=1, time_axis=0)
    feeds = {"x": np.ones((3, 2), np.float32), "l": np.array([1, 7])}
    with pytest.raises(CompileError, match="out of range"):
        run_function(import_onnx_model(m), feeds)
    with pytest.raises(CompileError, match="index out of range"):
        run_c(m, feeds, tmp_path)


# --------------------------------------------------------------------------------------
# NonZero and Unique: folded on constants
# --------------------------------------------------------------------------------------


def test_nonzero_and_unique_of_constants_fold(tmp_path):
    c = np.array([[0, 2, 2], [1, 0, 3]], np.int64)
    nodes = [h.make_node("NonZero", ["c"], ["nz"]),
             h.make_node("Unique", ["c"], ["uy", "ui", "uinv", "ucount"], sorted=1),
             h.make_node("Cast", ["nz"], ["nzf"], to=T.FLOAT),
             h.make_node("ReduceSum", ["nzf"], ["total"], keepdims=0),
             h.make_node("Add", ["x", "total"], ["y"])]
    m = make(nodes, [vi("x", [2])], [vi("y", [2]), vi("uy", None, T.INT64), vi("uinv", None, T.INT64)],
             [("c", c)], opset=18)
    module = import_onnx_model(m)
    assert [o for o in ops(module) if o != "relay.constant"] == ["relay.add"]
    check(m, {"x": np.array([1.0, -2.0], np.float32)}, tmp_path)


# --------------------------------------------------------------------------------------
# Refusals: one line naming the node
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize("model, message", [
    (one_node("CumSum", [("x", [2, 3], T.FLOAT), ("a", [], T.INT64)]),
     "the axis input ('a') must be a constant; it is a graph input"),
    (one_node("TopK", [("x", [2, 3], T.FLOAT), ("k", [1], T.INT64)], n_out=2),
     "K ('k') must be a constant; it is a graph input"),
    (one_node("TopK", [("x", [2, 3], T.FLOAT)], inits=[("k", np.array([4]))], n_out=2),
     "K = 4 is out of range for axis 1 of size 3"),
    (one_node("Compress", [("x", [2, 3], T.FLOAT), ("c", [3], T.BOOL)], axis=1),
     "the condition must be a constant: on a value computed at run time the output shape depends on the data"),
    (one_node("Compress", [("x", [2, 3], T.FLOAT)], inits=[("c", np.array([0, 0], bool))], axis=1),
     "the condition selects nothing"),
    (one_node("Compress", [("x", [2, 3], T.FLOAT)], inits=[("c", np.array([0, 0, 0, 1], bool))], axis=1),
     "the condition selects index 3, beyond axis 1 of size 3"),
    (one_node("NonZero", [("x", [2, 3], T.FLOAT)], T.INT64),
     "the output shape depends on the input's values: NonZero is supported only on a constant input"),
    (one_node("Unique", [("x", [6], T.FLOAT)], n_out=4),
     "the output shape depends on the input's values: Unique is supported only on a constant input"),
    (one_node("BitCast", [("x", [3], T.UINT8)], T.BOOL, opset=26, to=T.BOOL), "a bit cast to bool is not supported"),
    (one_node("BitCast", [("x", [3], T.FLOAT)], T.INT16, opset=26, to=T.INT16), "BitCast needs types of one size"),
    (one_node("BitwiseAnd", [("x", [3], T.FLOAT), ("z", [3], T.FLOAT)]), "input 0 must be an integer tensor"),
    (one_node("Det", [("x", [2, 3, 2], T.FLOAT)], opset=22), "the input must be square matrices [..., M, M]"),
    (one_node("ReverseSequence", [("x", [4, 2], T.FLOAT)], inits=[("l", np.array([5, 1]))], batch_axis=1,
              time_axis=0), "sequence_lens [5, 1] must lie in [0, 4]"),
    (one_node("ReverseSequence", [("x", [4, 2], T.FLOAT), ("l", [2], T.INT64)], batch_axis=1, time_axis=1),
     "time_axis and batch_axis must differ"),
])  # fmt: skip
def test_refusals_are_one_line(model, message):
    text = import_error(model)
    assert message in text, text
    assert f"({model.graph.node[0].op_type})" in text, text
