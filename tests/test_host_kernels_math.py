"""The run-time math host kernels (sqrt/exp/log, floor/ceil/round, negative/abs, maximum/minimum/power,
compare, logical_not, where, reduce, strided_slice, broadcast_to) against the numpy
reference, through ctypes.

Exact where one IEEE operation per element gives the result (sqrt, floor, ceil, round,
negative, abs,
maximum, minimum, comparisons, where, integer reductions, float max/min); libm's expf,
logf and powf may differ from numpy's float32 versions in the last bit (rtol 1e-6);
float sums and products accumulate in double (rtol 1e-5 of the output's magnitude).
"""

from __future__ import annotations

import ctypes as C

import numpy as np
import pytest

from accel.compiler.runtime import cbuild
from accel.compiler.runtime import reference as ref

I64P = C.POINTER(C.c_int64)
VP = C.c_void_p
i, i64, sz = C.c_int, C.c_int64, C.c_size_t
DT = {np.dtype(t): k for k, t in enumerate([np.float32, np.float64, np.int8, np.uint8, np.int16, np.int32,
                                             np.int64, np.bool_, np.uint16, np.uint32, np.uint64])}
OK, EINVAL = 0, 1
BIN = [i, VP, i, I64P, VP, i, I64P, VP]
SIGNATURES = {
    "acc_sqrt_f32": [VP, VP, i64], "acc_exp_f32": [VP, VP, i64], "acc_log_f32": [VP, VP, i64],
    **{f"acc_{f}_{t}": [VP, VP, i64] for f in ("floor", "ceil", "round") for t in ("f32", "f64")},
    "acc_negative": [i, VP, VP, i64], "acc_abs": [i, VP, VP, i64],
    "acc_maximum": BIN, "acc_minimum": BIN, "acc_power": BIN,
    "acc_compare": [i, *BIN], "acc_logical_not": [VP, VP, i64], "acc_logical": [i, VP, i, I64P, VP, i, I64P, VP],
    "acc_where": [sz, VP, i, I64P, VP, i, I64P, VP, i, I64P, VP, i, I64P],
    "acc_reduce": [i, i, VP, VP, i, I64P, VP, i],
    "acc_strided_slice": [sz, VP, i, I64P, I64P, I64P, VP, I64P],
    "acc_broadcast_to": [sz, VP, i, I64P, VP, i, I64P],
}  # fmt: skip
CMP = ["equal", "not_equal", "less", "less_equal", "greater", "greater_equal"]
REDUCE = {"sum": ref.reduce_sum, "prod": ref.reduce_prod, "max": ref.reduce_max, "min": ref.reduce_min}
INTS = [np.int8, np.uint8, np.int16, np.int32, np.int64]

rng = np.random.default_rng(0)


@pytest.fixture(scope="module")
def lib():
    dll = C.CDLL(str(cbuild.build(cbuild.host_kernel_sources(), kind="shared", name="host_kernels")))
    for name, args in SIGNATURES.items():
        getattr(dll, name).argtypes = args
        getattr(dll, name).restype = C.c_int
    return dll


def ptr(a):
    return a.ctypes.data_as(VP)


def sp(shape):
    arr = np.array(list(shape) or [0], np.int64)
    sp.keep.append(arr)  # alive until the call returns
    return arr.ctypes.data_as(I64P)


sp.keep = []


def rand(shape, dtype=np.float32):
    if np.dtype(dtype).kind == "f":
        return rng.uniform(-3, 3, size=shape).astype(dtype)
    info = np.iinfo(dtype)
    return rng.integers(info.min, int(info.max) + 1, size=shape, dtype=dtype)


SPECIAL = np.array([0.0, -0.0, 1.0, 4.0, 2.5, -2.5, 1e-30, 80.0, -80.0, np.inf, -np.inf, np.nan], np.float32)


@pytest.mark.parametrize("name", ["sqrt", "exp", "log"])
def test_float_unary(lib, name):
    x = np.concatenate([rng.uniform(0, 10, 200).astype(np.float32), SPECIAL])
    y = np.zeros_like(x)
    assert getattr(lib, f"acc_{name}_f32")(ptr(x), ptr(y), x.size) == OK
    want = getattr(ref, name)(x)
    if name == "sqrt":
        np.testing.assert_array_equal(y, want)  # correctly rounded on both sides
    else:
        np.testing.assert_allclose(y, want, rtol=1e-6)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("name, want", [("floor", ref.floor), ("ceil", ref.ceil), ("round", ref.round_half_even)])
def test_rounding_is_exact(lib, name, want, dtype):
    """Bit for bit, the sign of zero included: halves go to the even integer (round), a
    negative fraction rounds to -0.0 (ceil, round), values past 2^52 are integers already."""
    halves = np.arange(-4.5, 5.0, 1.0)
    x = np.concatenate([rand((200,), np.float64) * 1e3, halves, [-0.4, 0.4, -0.0, 2.0 ** 53 + 2, -(2.0 ** 60)],
                        SPECIAL]).astype(dtype)
    y = np.zeros_like(x)
    assert getattr(lib, f"acc_{name}_{'f32' if dtype == np.float32 else 'f64'}")(ptr(x), ptr(y), x.size) == OK
    expected = want(x)
    np.testing.assert_array_equal(y, expected)
    np.testing.assert_array_equal(np.signbit(y), np.signbit(expected))
    if name == "round":
        assert list(ref.round_half_even(np.array([0.5, 1.5, 2.5, -2.5], dtype))) == [0.0, 2.0, 2.0, -2.0]


@pytest.mark.parametrize("dtype", [np.float32, np.float64, *INTS])
@pytest.mark.parametrize("name", ["negative", "abs"])
def test_sign_ops_wrap(lib, name, dtype):
    x = np.concatenate([rand((100,), dtype), SPECIAL.astype(dtype) if np.dtype(dtype).kind == "f" else
                        np.array([np.iinfo(dtype).min, np.iinfo(dtype).max, 0], dtype)])
    y = np.zeros_like(x)
    assert getattr(lib, f"acc_{name}")(DT[x.dtype], ptr(x), ptr(y), x.size) == OK
    np.testing.assert_array_equal(y, ref.negative(x) if name == "negative" else ref.absolute(x))
    assert lib.acc_negative(DT[np.dtype(np.bool_)], ptr(x), ptr(y), 1) == EINVAL


SHAPES = [((2, 3, 4), (2, 3, 4)), ((2, 3, 4), (3, 1)), ((), (4, 5)), ((2, 1, 3, 1, 2, 1), (1, 4, 1, 5, 1, 3))]


@pytest.mark.parametrize("shapes", SHAPES, ids=str)
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int8, np.uint8, np.int64, np.uint16, np.uint32,
                                   np.uint64])  # the unsigned wide types once indexed past the kernel table
@pytest.mark.parametrize("name", ["maximum", "minimum"])
def test_minmax_broadcast_nan_wins(lib, name, dtype, shapes):
    a, b = rand(shapes[0], dtype), rand(shapes[1], dtype)
    if np.dtype(dtype).kind == "f" and a.size > 3 and b.size > 3:
        a.flat[0], b.flat[1] = np.nan, np.nan
    want = getattr(ref, name)(a, b)
    y = np.zeros(want.shape, dtype)
    st = getattr(lib, f"acc_{name}")(DT[a.dtype], ptr(a), a.ndim, sp(a.shape), ptr(b), b.ndim, sp(b.shape), ptr(y))
    assert st == OK
    np.testing.assert_array_equal(y, want)


@pytest.mark.parametrize("shapes", SHAPES, ids=str)
def test_power(lib, shapes):
    a, b = np.asarray(np.abs(rand(shapes[0]))), rand(shapes[1])
    a.flat[0] = 0.0
    want = ref.power(a, b)
    y = np.zeros(want.shape, np.float32)
    assert lib.acc_power(0, ptr(a), a.ndim, sp(a.shape), ptr(b), b.ndim, sp(b.shape), ptr(y)) == OK
    np.testing.assert_allclose(y, want, rtol=1e-6)
    n = np.zeros(3, np.int32)
    assert lib.acc_power(DT[n.dtype], ptr(n), 1, sp(n.shape), ptr(n), 1, sp(n.shape), ptr(n)) == EINVAL


@pytest.mark.parametrize("dtype", [np.float32, np.int8, np.uint8, np.int32, np.int64, np.bool_, np.uint16,
                                   np.uint32, np.uint64])
@pytest.mark.parametrize("op", range(len(CMP)), ids=CMP)
def test_compare_broadcast(lib, op, dtype):
    if dtype == np.bool_:
        a, b = rng.integers(0, 2, (3, 4)).astype(bool), rng.integers(0, 2, (4,)).astype(bool)
    else:
        a, b = rand((3, 4), dtype), rand((4,), dtype)
        b[:2] = a[0, :2]  # some equal pairs
    if dtype == np.float32:
        a[1, 1] = np.nan
    want = ref.compare(CMP[op], a, b)
    y = np.full(want.shape, 7, np.uint8)
    assert lib.acc_compare(op, DT[a.dtype], ptr(a), 2, sp(a.shape), ptr(b), 1, sp(b.shape), ptr(y)) == OK
    np.testing.assert_array_equal(y.astype(bool), want)
    assert set(np.unique(y)) <= {0, 1}


@pytest.mark.parametrize("op", range(3), ids=["and", "or", "xor"])
def test_logical_binary_broadcast(lib, op):
    a, b = rng.integers(0, 2, (3, 4)).astype(bool), rng.integers(0, 2, (4,)).astype(bool)
    want = [ref.logical_and, ref.logical_or, ref.logical_xor][op](a, b)
    y = np.full(want.shape, 7, np.uint8)
    assert lib.acc_logical(op, ptr(a), 2, sp(a.shape), ptr(b), 1, sp(b.shape), ptr(y)) == OK
    np.testing.assert_array_equal(y, want.astype(np.uint8))
    assert lib.acc_logical(3, ptr(a), 2, sp(a.shape), ptr(b), 1, sp(b.shape), ptr(y)) == EINVAL


def test_logical_not(lib):
    x = rng.integers(0, 2, 50).astype(bool)
    y = np.zeros(50, np.uint8)
    assert lib.acc_logical_not(ptr(x), ptr(y), x.size) == OK
    np.testing.assert_array_equal(y.astype(bool), ref.logical_not(x))


@pytest.mark.parametrize("shapes", [((1, 1, 4, 4), (2, 3, 4, 4), ()), ((4,), (3, 1), (2, 1, 1)),
                                    ((2, 3), (2, 3), (2, 3))], ids=str)
@pytest.mark.parametrize("dtype", [np.float32, np.int8, np.int64])
def test_where_broadcasts_three_operands(lib, shapes, dtype):
    c = rng.integers(0, 2, shapes[0]).astype(bool)
    x, y = rand(shapes[1], dtype), rand(shapes[2], dtype)
    want = ref.where(c, x, y)
    out = np.zeros(want.shape, dtype)
    st = lib.acc_where(want.itemsize, ptr(c), c.ndim, sp(c.shape), ptr(x), x.ndim, sp(x.shape), ptr(y), y.ndim,
                       sp(y.shape), ptr(out), out.ndim, sp(out.shape))
    assert st == OK
    np.testing.assert_array_equal(out, want)
    bad = lib.acc_where(want.itemsize, ptr(c), c.ndim, sp(c.shape), ptr(x), x.ndim, sp(x.shape), ptr(y), y.ndim,
                        sp(y.shape), ptr(out), 1, sp((out.size + 1,)))
    assert bad == EINVAL


@pytest.mark.parametrize("axes", [(0,), (1, 2), (0, 2), (2,), (0, 1, 2), ()], ids=str)
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int8, np.uint8, np.int32])
@pytest.mark.parametrize("op", range(len(REDUCE)), ids=list(REDUCE))
def test_reduce(lib, op, dtype, axes):
    name = list(REDUCE)[op]
    x = rand((3, 4, 5), dtype)
    if name == "prod" and x.dtype.kind == "f":
        x = (x / 3 + 1).astype(dtype)  # keeps the product in range
    want = REDUCE[name](x, axes)
    y = np.zeros(want.shape, dtype)
    ax = np.array(list(axes) or [0], np.intc)
    assert lib.acc_reduce(op, DT[x.dtype], ptr(x), ptr(y), 3, sp(x.shape), ptr(ax), len(axes)) == OK
    if x.dtype.kind == "f" and name in ("sum", "prod"):
        scale = float(np.max(np.abs(want)))
        np.testing.assert_allclose(y, want, rtol=1e-5, atol=1e-5 * scale)
    else:
        np.testing.assert_array_equal(y, want)  # exact: integers wrap alike, max/min pick an element


def test_reduce_nan_wins_empty_gives_the_identity_and_bad_axes_fail(lib):
    x = rand((2, 3))
    x[1, 2] = np.nan
    for op, name in ((2, "max"), (3, "min")):
        y = np.zeros(2, np.float32)
        ax = np.array([1], np.intc)
        assert lib.acc_reduce(op, 0, ptr(x), ptr(y), 2, sp(x.shape), ptr(ax), 1) == OK
        np.testing.assert_array_equal(y, REDUCE[name](x, (1,)))
    twice = np.array([1, -1], np.intc)
    assert lib.acc_reduce(0, 0, ptr(x), ptr(y), 2, sp(x.shape), ptr(twice), 2) == EINVAL
    empty = np.zeros((2, 0), np.int8)
    ax = np.array([1], np.intc)
    for op, name in enumerate(REDUCE):
        y = np.full(2, 5, np.int8)
        assert lib.acc_reduce(op, DT[empty.dtype], ptr(empty), ptr(y), 2, sp(empty.shape), ptr(ax), 1) == OK
        np.testing.assert_array_equal(y, REDUCE[name](empty, (1,)))  # 0, 1, -128, 127


@pytest.mark.parametrize("props", [
    dict(begin=[7, -1], end=[0, -100], strides=[-2, -2], axes=[1, 2]),
    dict(begin=[1], end=[2]),
    dict(begin=[0, 3], end=[2, 4], strides=[1, 1], axes=[2, 1]),
], ids=str)  # fmt: skip
@pytest.mark.parametrize("dtype", [np.float32, np.int8, np.int64, np.bool_])
def test_strided_slice(lib, props, dtype):
    from accel.dialects.relay import StridedSliceOp

    x = rng.integers(0, 2, (2, 9, 4)).astype(dtype) if dtype == np.bool_ else rand((2, 9, 4), dtype)
    full = {"strides": None, "axes": None, **props}
    ranges = StridedSliceOp.ranges(x.shape, full)
    want = ref.strided_slice(x, ranges)
    y = np.zeros(want.shape, dtype)
    begin, step = np.array([r.start for r in ranges], np.int64), np.array([r.step for r in ranges], np.int64)
    st = lib.acc_strided_slice(x.itemsize, ptr(x), 3, sp(x.shape), begin.ctypes.data_as(I64P),
                               step.ctypes.data_as(I64P), ptr(y), sp(want.shape))
    assert st == OK
    np.testing.assert_array_equal(y, want)
    begin[1] = 9  # out of range
    assert lib.acc_strided_slice(x.itemsize, ptr(x), 3, sp(x.shape), begin.ctypes.data_as(I64P),
                                 step.ctypes.data_as(I64P), ptr(y), sp(want.shape)) == EINVAL


@pytest.mark.parametrize("x_shape, shape", [((3, 1), (2, 1, 4)), ((), (2, 3)), ((4,), (3, 1)), ((2, 3), (2, 3))],
                         ids=str)
@pytest.mark.parametrize("dtype", [np.float32, np.int16, np.bool_])
def test_broadcast_to(lib, x_shape, shape, dtype):
    x = np.asarray(rand(x_shape, np.float32) > 0).astype(dtype) if dtype == np.bool_ else np.asarray(rand(x_shape, dtype))
    want = ref.broadcast_to(x, shape)
    y = np.zeros(want.shape, dtype)
    assert lib.acc_broadcast_to(x.itemsize, ptr(x), x.ndim, sp(x.shape), ptr(y), y.ndim, sp(y.shape)) == OK
    np.testing.assert_array_equal(y, want)
    if x.ndim:  # (a scalar broadcasts to anything)
        assert lib.acc_broadcast_to(x.itemsize, ptr(x), x.ndim, sp(x.shape), ptr(y), 1, sp((y.size + 1,))) == EINVAL
