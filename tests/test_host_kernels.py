"""The C host kernels (`compiler/runtime/c/host_kernels.c`) against the numpy reference.

The library is built once per session with `cbuild` (cached by content) and called
through ctypes. Float results may differ from the reference in summation order only
(relative 1e-5 of the output's magnitude); integer and quantized results are exact.
"""

from __future__ import annotations

import ctypes as C
import math
import subprocess

import numpy as np
import pytest

from accel.compiler.diagnostics import CompileError
from accel.compiler.runtime import cbuild
from accel.compiler.runtime import reference as ref

I64P = C.POINTER(C.c_int64)
VP = C.c_void_p

# acc_dtype tags (the ABI numbering of host_kernels.h)
DT = {
    np.dtype(np.float32): 0,
    np.dtype(np.float64): 1,
    np.dtype(np.int8): 2,
    np.dtype(np.uint8): 3,
    np.dtype(np.int16): 4,
    np.dtype(np.int32): 5,
    np.dtype(np.int64): 6,
    np.dtype(np.bool_): 7,
}
OK, EINVAL, ERANGE, EDIVZERO, EOVERFLOW = 0, 1, 2, 3, 4


class Conv2DParams(C.Structure):
    _fields_ = [(f, C.c_int64) for f in (
        "n", "c", "h", "w", "oc", "kh", "kw", "oh", "ow", "stride_h", "stride_w",
        "pad_top", "pad_left", "pad_bottom", "pad_right", "dil_h", "dil_w", "groups")]  # fmt: skip


class Pool2DParams(C.Structure):
    _fields_ = [(f, C.c_int64) for f in (
        "n", "c", "h", "w", "oh", "ow", "kh", "kw", "stride_h", "stride_w", "dil_h", "dil_w",
        "pad_top", "pad_left", "pad_bottom", "pad_right")] + [("count_include_pad", C.c_int)]  # fmt: skip


class QParams(C.Structure):
    _fields_ = [("scale", C.POINTER(C.c_float)), ("scale_len", C.c_int64),
                ("zero_point", C.POINTER(C.c_int32)), ("zero_point_len", C.c_int64)]  # fmt: skip


i, i64, d, sz, f = C.c_int, C.c_int64, C.c_double, C.c_size_t, C.c_float
SIGNATURES = {
    "acc_conv2d_f32": [VP, VP, VP, VP, C.POINTER(Conv2DParams)],
    "acc_dense_f32": [VP, VP, VP, VP, i64, i64, i64],
    "acc_matmul_f32": [VP, VP, VP, i64, i64, i64, i, i],
    "acc_batch_matmul_f32": [VP, i, I64P, VP, i, I64P, VP, i, i],
    "acc_bias_add": [i, VP, VP, VP, i, I64P, i],
    "acc_add": [i, VP, i, I64P, VP, i, I64P, VP],
    "acc_subtract": [i, VP, i, I64P, VP, i, I64P, VP],
    "acc_multiply": [i, VP, i, I64P, VP, i, I64P, VP],
    "acc_divide": [i, VP, i, I64P, VP, i, I64P, VP],
    "acc_relu": [i, VP, VP, i64],
    "acc_clip": [i, VP, VP, i64, d, d],
    "acc_sigmoid_f32": [VP, VP, i64],
    "acc_tanh_f32": [VP, VP, i64],
    "acc_erf_f32": [VP, VP, i64],
    "acc_gelu_f32": [VP, VP, i64, i],
    "acc_leaky_relu_f32": [VP, VP, i64, d],
    "acc_hardsigmoid_f32": [VP, VP, i64, d, d],
    "acc_hardswish_f32": [VP, VP, i64],
    "acc_silu_f32": [VP, VP, i64],
    "acc_softmax_f32": [VP, VP, i, I64P, i],
    "acc_max_pool2d": [i, VP, VP, C.POINTER(Pool2DParams)],
    "acc_avg_pool2d_f32": [VP, VP, C.POINTER(Pool2DParams)],
    "acc_global_avg_pool2d_f32": [VP, VP, i64, i64, i64, i64],
    "acc_batch_norm_f32": [VP, VP, VP, VP, VP, VP, i, I64P, i, d],
    "acc_layer_norm_f32": [VP, VP, VP, VP, i, I64P, i, d],
    "acc_mean_f32": [VP, VP, i, I64P, C.POINTER(C.c_int), i],
    "acc_copy": [VP, VP, sz],
    "acc_transpose": [sz, VP, VP, i, I64P, C.POINTER(C.c_int)],
    "acc_concatenate": [sz, i, C.POINTER(VP), I64P, VP, i, I64P, i],
    "acc_pad": [sz, VP, VP, i, I64P, I64P, i, VP],
    "acc_take": [sz, VP, i, I64P, i, i, VP, i64, VP],
    "acc_cast": [i, VP, i, VP, i64],
    "acc_quantize": [VP, i, VP, i, I64P, i, C.POINTER(QParams)],
    "acc_dequantize": [i, VP, VP, i, I64P, i, C.POINTER(QParams)],
    "acc_requantize": [i, VP, i, VP, i, I64P, i, C.POINTER(QParams), C.POINTER(QParams)],
    "acc_qnn_conv2d": [i, VP, i, VP, VP, VP, C.POINTER(Conv2DParams), C.c_int32, VP, i64],
    "acc_qnn_dense": [i, VP, i, VP, VP, VP, i64, i64, i64, C.c_int32, VP, i64],
    "acc_qnn_add": [i, VP, i, I64P, f, C.c_int32, i, VP, i, I64P, f, C.c_int32, i, VP, f, C.c_int32],
}


@pytest.fixture(scope="session")
def lib():
    so = cbuild.build(cbuild.host_kernel_sources(), kind="shared", name="host_kernels")
    dll = C.CDLL(str(so))
    for name, args in SIGNATURES.items():
        fn = getattr(dll, name)
        fn.argtypes = args
        fn.restype = C.c_int
    dll.acc_dtype_size.argtypes = [i]
    dll.acc_dtype_size.restype = C.c_size_t
    dll.acc_status_string.argtypes = [i]
    dll.acc_status_string.restype = C.c_char_p
    return dll


# ---------------------------------------------------------------------------------------
# helpers
# ---------------------------------------------------------------------------------------

rng = np.random.default_rng(0)


def ptr(a: np.ndarray | None):
    return None if a is None else a.ctypes.data_as(VP)


def shape_arr(shape) -> np.ndarray:
    return np.array(list(shape) or [0], np.int64)


def sp(a: np.ndarray):
    return a.ctypes.data_as(I64P)


def cint(values) -> np.ndarray:
    return np.array(list(values) or [0], np.intc)


def close(got: np.ndarray, want: np.ndarray, rtol: float = 1e-5):
    """Equal up to float summation order: relative to the output's magnitude."""
    assert got.shape == want.shape and got.dtype == want.dtype
    scale = float(np.max(np.abs(want))) if want.size else 0.0
    np.testing.assert_allclose(got, want, rtol=rtol, atol=rtol * max(scale, 1e-30))


def rand(shape, dtype=np.float32, lo=-1.0, hi=1.0) -> np.ndarray:
    if np.dtype(dtype).kind == "f":
        return rng.uniform(lo, hi, size=shape).astype(dtype)
    info = np.iinfo(dtype)
    return rng.integers(info.min, int(info.max) + 1, size=shape, dtype=dtype)


def conv_params(x_shape, w_shape, strides, padding, dilation, groups) -> Conv2DParams:
    n, c, h, w = x_shape
    oc, _, kh, kw = w_shape
    oh = (h + padding[0] + padding[2] - dilation[0] * (kh - 1) - 1) // strides[0] + 1
    ow = (w + padding[1] + padding[3] - dilation[1] * (kw - 1) - 1) // strides[1] + 1
    return Conv2DParams(n, c, h, w, oc, kh, kw, oh, ow, strides[0], strides[1], *padding, *dilation, groups)


CONV_CASES = [
    # x shape, w shape, strides, padding (t, l, b, r), dilation, groups
    ((1, 3, 8, 8), (4, 3, 3, 3), (1, 1), (1, 1, 1, 1), (1, 1), 1),
    ((2, 4, 9, 7), (6, 4, 3, 2), (2, 2), (0, 1, 2, 0), (1, 1), 1),  # stride 2, asymmetric padding
    ((1, 2, 10, 10), (3, 2, 3, 3), (1, 1), (2, 2, 2, 2), (2, 2), 1),  # dilation
    ((1, 4, 6, 6), (6, 2, 3, 3), (1, 2), (1, 0, 1, 0), (1, 1), 2),  # groups
    ((1, 8, 7, 7), (8, 1, 3, 3), (1, 1), (1, 1, 1, 1), (1, 1), 8),  # depthwise
    ((1, 6, 5, 5), (12, 1, 5, 5), (2, 1), (2, 2, 2, 2), (1, 1), 6),  # depthwise, multiplier 2
    ((2, 5, 4, 4), (7, 5, 1, 1), (1, 1), (0, 0, 0, 0), (1, 1), 1),  # 1x1
    ((1, 1, 3, 3), (1, 1, 3, 3), (3, 3), (4, 4, 4, 4), (1, 1), 1),  # padding larger than the input
]


# ---------------------------------------------------------------------------------------
# build helper
# ---------------------------------------------------------------------------------------


def test_cbuild_caches_and_reports_the_first_error(tmp_path, monkeypatch):
    monkeypatch.setenv("ACCEL_CACHE_DIR", str(tmp_path / "cache"))
    src = tmp_path / "ok.c"
    src.write_text("int answer(void) { return 42; }\n")
    first = cbuild.build([src], kind="shared")
    assert first.exists() and cbuild.build([src], kind="shared") == first
    assert C.CDLL(str(first)).answer() == 42
    src.write_text("int answer(void) { return 43; }\n")
    assert cbuild.build([src], kind="shared") != first  # content keyed

    bad = tmp_path / "bad.c"
    bad.write_text("int f(void) {\n  int unused;\n  return 0;\n}\n")  # -Werror: unused variable
    with pytest.raises(CompileError) as e:
        cbuild.build([bad], kind="object")
    msg = str(e.value)
    assert "\n" not in msg and "bad.c:2" in msg and "unused" in msg


def test_cbuild_cache_is_bounded_least_recently_used_first(tmp_path, monkeypatch):
    """Past its bound the cache drops the files unused longest (never one used in the
    last EVICT_AFTER_S: a build in flight), down to three quarters of the bound; a hit
    counts as a use."""
    import os
    import time

    monkeypatch.setenv("ACCEL_CACHE_DIR", str(tmp_path / "cache"))
    libs = []
    for i in range(4):
        src = tmp_path / f"f{i}.c"
        src.write_text(f"int f{i}(void) {{ return {i}; }}\n")
        libs.append((src, cbuild.build([src], kind="shared")))
    files = [p for p in cbuild.cache_dir().iterdir() if p.name != ".pruned"]
    total = sum(p.stat().st_size for p in files)
    now = time.time()
    for age, p in enumerate(sorted(files)):  # all old, in a known order
        os.utime(p, (now - 3600 - age, now - 3600 - age))
    cbuild.build([libs[0][0]], kind="shared")  # a hit: its library is recent again
    assert cbuild.prune_cache(limit_mb=total / 2**20 * 10, now=now) == 0  # under the bound
    removed = cbuild.prune_cache(limit_mb=total / 2 / 2**20, now=now)
    left = [p for p in cbuild.cache_dir().iterdir() if p.name != ".pruned"]
    assert removed > 0 and sum(p.stat().st_size for p in left) <= 0.75 * total / 2
    assert libs[0][1].exists()  # used a moment ago: kept whatever the size
    again = cbuild.build([libs[3][0]], kind="shared")  # an evicted build is built again
    assert C.CDLL(str(again)).f3() == 3


def test_dtype_sizes_and_status_strings(lib):
    sizes = {dt: lib.acc_dtype_size(tag) for dt, tag in DT.items()}
    assert sizes == {dt: dt.itemsize for dt in DT}
    assert lib.acc_dtype_size(99) == 0
    assert lib.acc_status_string(ERANGE) == b"index out of range"


# ---------------------------------------------------------------------------------------
# convolution, dense, matmul
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("xs, ws, strides, padding, dilation, groups", CONV_CASES)
@pytest.mark.parametrize("with_bias", [False, True])
def test_conv2d_f32(lib, xs, ws, strides, padding, dilation, groups, with_bias):
    x, w = rand(xs), rand(ws)
    bias = rand((ws[0],)) if with_bias else None
    want = ref.conv2d(x, w, strides, padding, dilation, groups)
    if with_bias:
        want = ref.bias_add(want, bias, 1)
    y = np.full(want.shape, np.nan, np.float32)
    p = conv_params(xs, ws, strides, padding, dilation, groups)
    assert lib.acc_conv2d_f32(ptr(x), ptr(w), ptr(bias), ptr(y), C.byref(p)) == OK
    close(y, want)


def test_conv2d_rejects_inconsistent_geometry(lib):
    x, w = rand((1, 4, 5, 5)), rand((4, 4, 3, 3))
    y = np.zeros((1, 4, 3, 3), np.float32)
    p = conv_params(x.shape, w.shape, (1, 1), (0, 0, 0, 0), (1, 1), 1)
    p.oh = 4  # should be 3
    assert lib.acc_conv2d_f32(ptr(x), ptr(w), None, ptr(y), C.byref(p)) == EINVAL
    p = conv_params(x.shape, w.shape, (1, 1), (0, 0, 0, 0), (1, 1), 3)  # 3 does not divide 4
    assert lib.acc_conv2d_f32(ptr(x), ptr(w), None, ptr(y), C.byref(p)) == EINVAL
    assert not y.any()


@pytest.mark.parametrize("m, k, n", [(1, 16, 10), (5, 7, 3), (8, 33, 17)])
def test_dense_f32(lib, m, k, n):
    x, w, b = rand((m, k)), rand((n, k)), rand((n,))
    y = np.zeros((m, n), np.float32)
    assert lib.acc_dense_f32(ptr(x), ptr(w), None, ptr(y), m, k, n) == OK
    close(y, ref.dense(x, w))
    assert lib.acc_dense_f32(ptr(x), ptr(w), ptr(b), ptr(y), m, k, n) == OK
    close(y, ref.dense(x, w) + b)


@pytest.mark.parametrize("ta", [0, 1])
@pytest.mark.parametrize("tb", [0, 1])
def test_matmul_f32_transposes(lib, ta, tb):
    m, k, n = 5, 9, 6
    a = rand((k, m) if ta else (m, k))
    b = rand((n, k) if tb else (k, n))
    y = np.zeros((m, n), np.float32)
    assert lib.acc_matmul_f32(ptr(a), ptr(b), ptr(y), m, k, n, ta, tb) == OK
    close(y, ref.matmul(a, b, bool(ta), bool(tb)))


@pytest.mark.parametrize("a_shape, b_shape, ta, tb", [
    ((3, 4, 5), (3, 6, 5), 0, 1),
    ((2, 1, 4, 5), (3, 5, 6), 0, 0),  # leading dims broadcast: (2, 1) with (3,)
    ((1, 5, 4), (4, 6, 5), 1, 1),
    ((4, 5), (2, 3, 5, 6), 0, 0),
])  # fmt: skip
def test_batch_matmul_f32_broadcasts(lib, a_shape, b_shape, ta, tb):
    a, b = rand(a_shape), rand(b_shape)
    want = ref.batch_matmul(a, b, bool(ta), bool(tb))
    y = np.zeros(want.shape, np.float32)
    sa, sb = shape_arr(a_shape), shape_arr(b_shape)
    assert lib.acc_batch_matmul_f32(ptr(a), len(a_shape), sp(sa), ptr(b), len(b_shape), sp(sb), ptr(y), ta, tb) == OK
    close(y, want)


def test_batch_matmul_rejects_mismatched_k(lib):
    a, b = rand((2, 3, 4)), rand((2, 5, 6))
    y = np.zeros((2, 3, 6), np.float32)
    sa, sb = shape_arr(a.shape), shape_arr(b.shape)
    assert lib.acc_batch_matmul_f32(ptr(a), 3, sp(sa), ptr(b), 3, sp(sb), ptr(y), 0, 0) == EINVAL


@pytest.mark.parametrize("dtype, shape, axis", [
    (np.float32, (2, 3, 4, 5), 1), (np.float32, (4, 6), -1), (np.int32, (2, 3, 4), 1), (np.int8, (3, 5), 0),
])  # fmt: skip
def test_bias_add(lib, dtype, shape, axis):
    x = rand(shape, dtype)
    b = rand((shape[axis],), dtype)
    y = np.zeros_like(x)
    s = shape_arr(shape)
    assert lib.acc_bias_add(DT[np.dtype(dtype)], ptr(x), ptr(b), ptr(y), len(shape), sp(s), axis) == OK
    np.testing.assert_array_equal(y, ref.bias_add(x, b, axis))


# ---------------------------------------------------------------------------------------
# elementwise binary ops
# ---------------------------------------------------------------------------------------

BINARY = {"add": ref.add, "subtract": ref.subtract, "multiply": ref.multiply, "divide": ref.divide}
SHAPES = [
    ((2, 3, 4), (2, 3, 4)),
    ((2, 3, 4), (3, 1)),
    ((1,), (2, 3)),
    ((), (4, 5)),
    ((4, 1, 3), ()),
    ((2, 1, 3, 1, 2, 1), (1, 4, 1, 5, 1, 3)),  # rank 6 both ways
    ((0, 3), (1, 3)),  # empty
]


def run_binary(lib, op, a, b, want_shape):
    y = np.zeros(want_shape, a.dtype)
    sa, sb = shape_arr(a.shape), shape_arr(b.shape)
    st = getattr(lib, f"acc_{op}")(DT[a.dtype], ptr(a), a.ndim, sp(sa), ptr(b), b.ndim, sp(sb), ptr(y))
    return st, y


@pytest.mark.parametrize("op", list(BINARY))
@pytest.mark.parametrize("shapes", SHAPES, ids=str)
def test_binary_f32_broadcasting(lib, op, shapes):
    a, b = rand(shapes[0]), rand(shapes[1], lo=0.5, hi=2.0)
    want = BINARY[op](a, b)
    st, y = run_binary(lib, op, a, b, want.shape)
    assert st == OK
    np.testing.assert_array_equal(y, want)  # one IEEE operation per element: exact


@pytest.mark.parametrize("op", list(BINARY))
@pytest.mark.parametrize("dtype", [np.int8, np.uint8, np.int16, np.int32, np.int64, np.float64])
def test_binary_other_dtypes_wrap(lib, op, dtype):
    a, b = rand((3, 4, 5), dtype), rand((4, 1), dtype)
    if op == "divide" and np.dtype(dtype).kind != "f":
        b[b == 0] = 3
    with np.errstate(over="ignore"):
        want = BINARY[op](a, b)
    st, y = run_binary(lib, op, a, b, want.shape)
    assert st == OK
    np.testing.assert_array_equal(y, want)


def test_integer_divide_truncates_and_rejects_zero(lib):
    a = np.array([7, -7, 7, -7, -128, 0, 5], np.int8)
    b = np.array([2, 2, -2, -2, -1, 3, 7], np.int8)
    st, y = run_binary(lib, "divide", a, b, a.shape)
    assert st == OK
    np.testing.assert_array_equal(y, np.array([3, -3, -3, 3, -128, 0, 0], np.int8))
    with np.errstate(over="ignore"):  # -128 / -1 wraps
        np.testing.assert_array_equal(y, ref.divide(a, b))
    b[3] = 0
    y = np.full(a.shape, 9, np.int8)
    sa = shape_arr(a.shape)
    assert lib.acc_divide(DT[a.dtype], ptr(a), 1, sp(sa), ptr(b), 1, sp(sa), ptr(y)) == EDIVZERO
    assert (y == 9).all()  # nothing written


def test_binary_rejects_bad_shapes_and_bool(lib):
    a, b = rand((2, 3)), rand((4,))
    assert run_binary(lib, "add", a, b, (2, 3))[0] == EINVAL
    t = np.zeros(3, np.bool_)
    assert run_binary(lib, "add", t, t, (3,))[0] == EINVAL


# ---------------------------------------------------------------------------------------
# elementwise unary ops
# ---------------------------------------------------------------------------------------

SPECIAL = np.array([0.0, -0.0, 1.5, -2.5, 1e-8, -1e-8, 30.0, -30.0, 100.0, -100.0, np.inf, -np.inf, np.nan],
                   np.float32)  # fmt: skip


def floats(n=200):
    return np.concatenate([rand((n,), lo=-6, hi=6), SPECIAL])


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int8, np.uint8, np.int16, np.int32, np.int64])
def test_relu(lib, dtype):
    x = floats().astype(dtype) if np.dtype(dtype).kind == "f" else rand((100,), dtype)
    y = np.zeros_like(x)
    assert lib.acc_relu(DT[x.dtype], ptr(x), ptr(y), x.size) == OK
    np.testing.assert_array_equal(y, ref.relu(x))
    if x.dtype.kind == "f":
        minus_zero = x.size - len(SPECIAL) + 1
        assert x[minus_zero] == 0 and np.signbit(y[minus_zero])  # relu(-0.0) is -0.0, as np.maximum


@pytest.mark.parametrize("dtype, lo, hi", [
    (np.float32, -0.5, 0.25), (np.float32, -np.inf, 1.0), (np.float64, 0.0, 6.0),
    (np.int8, -1.5, 2.5), (np.int8, -300.0, 300.0), (np.int8, -2.5, -1.5), (np.uint8, -5.0, 100.7),
    (np.int32, 0.0, np.inf), (np.int16, -np.inf, -3.2), (np.int64, -1e30, 7.0),
])  # fmt: skip
def test_clip(lib, dtype, lo, hi):
    x = floats().astype(dtype) if np.dtype(dtype).kind == "f" else rand((200,), dtype)
    y = np.zeros_like(x)
    assert lib.acc_clip(DT[x.dtype], ptr(x), ptr(y), x.size, lo, hi) == OK
    np.testing.assert_array_equal(y, ref.clip(x, lo, hi))


@pytest.mark.parametrize("name, fn", [
    ("sigmoid", ref.sigmoid), ("tanh", ref.tanh), ("erf", ref.erf),
    ("gelu", lambda x: ref.gelu(x, "none")), ("gelu_tanh", lambda x: ref.gelu(x, "tanh")),
    ("leaky_relu", lambda x: ref.leaky_relu(x, 0.1)),
    ("hardsigmoid", lambda x: ref.hardsigmoid(x, 0.3, 0.4)), ("hardswish", ref.hardswish), ("silu", ref.silu),
])  # fmt: skip
def test_float_unary(lib, name, fn):
    x = floats()
    y = np.zeros_like(x)
    if name.startswith("gelu"):
        st = lib.acc_gelu_f32(ptr(x), ptr(y), x.size, int(name == "gelu_tanh"))
    elif name == "leaky_relu":
        st = lib.acc_leaky_relu_f32(ptr(x), ptr(y), x.size, 0.1)
    elif name == "hardsigmoid":
        st = lib.acc_hardsigmoid_f32(ptr(x), ptr(y), x.size, 0.3, 0.4)
    else:
        st = getattr(lib, f"acc_{name}_f32")(ptr(x), ptr(y), x.size)
    assert st == OK
    with np.errstate(all="ignore"):
        want = fn(x)
    # libm and numpy's float32 transcendentals differ in the last bit; gelu's tanh form
    # cancels (1 + tanh(u) for u << 0), so the bound is absolute there.
    np.testing.assert_allclose(y, want, rtol=1e-5, atol=1e-6)


def test_unary_in_place(lib):
    x = floats()
    want = ref.sigmoid(x)
    assert lib.acc_sigmoid_f32(ptr(x), ptr(x), x.size) == OK
    np.testing.assert_allclose(x, want, rtol=2e-6, atol=1e-7)


@pytest.mark.parametrize("shape, axis", [((4, 10), -1), ((2, 5, 3), 1), ((6, 2), 0), ((7,), 0)])
def test_softmax(lib, shape, axis):
    x = rand(shape, lo=-20, hi=20)
    y = np.zeros_like(x)
    s = shape_arr(shape)
    assert lib.acc_softmax_f32(ptr(x), ptr(y), len(shape), sp(s), axis) == OK
    close(y, ref.softmax(x, axis))
    assert lib.acc_softmax_f32(ptr(x), ptr(y), len(shape), sp(s), len(shape)) == EINVAL


# ---------------------------------------------------------------------------------------
# pooling and normalization
# ---------------------------------------------------------------------------------------

POOL_CASES = [
    # shape, pool_size, strides, dilation, padding, ceil_mode
    ((1, 2, 8, 8), (2, 2), (2, 2), (1, 1), (0, 0, 0, 0), False),
    ((2, 3, 7, 7), (3, 3), (2, 2), (1, 1), (1, 1, 1, 1), False),
    ((1, 2, 7, 7), (3, 3), (2, 2), (1, 1), (0, 0, 0, 0), True),  # ceil_mode adds a partial window
    ((1, 2, 6, 9), (3, 2), (2, 3), (1, 1), (1, 0, 2, 1), True),  # asymmetric padding + ceil
    ((1, 1, 9, 9), (2, 3), (1, 2), (2, 2), (1, 2, 1, 0), False),  # dilation
    ((1, 1, 5, 5), (2, 2), (3, 3), (2, 1), (3, 1, 3, 1), False),  # windows entirely in the padding
    ((1, 2, 5, 5), (5, 5), (1, 1), (1, 1), (0, 0, 0, 0), False),
]


def pool_params(shape, k, s, dil, pad, ceil_mode, count_include_pad=False):
    n, c, h, w = shape
    oh = ref.pool_out_dim(h, k[0], s[0], dil[0], pad[0], pad[2], ceil_mode)
    ow = ref.pool_out_dim(w, k[1], s[1], dil[1], pad[1], pad[3], ceil_mode)
    return Pool2DParams(n, c, h, w, oh, ow, *k, *s, *dil, *pad, int(count_include_pad))


@pytest.mark.parametrize("shape, k, s, dil, pad, ceil_mode", POOL_CASES)
@pytest.mark.parametrize("dtype", [np.float32, np.int8, np.uint8, np.int32])
def test_max_pool2d(lib, shape, k, s, dil, pad, ceil_mode, dtype):
    x = rand(shape, dtype)
    want = ref.max_pool2d(x, k, s, dil, pad, ceil_mode)
    y = np.zeros(want.shape, x.dtype)
    p = pool_params(shape, k, s, dil, pad, ceil_mode)
    assert lib.acc_max_pool2d(DT[x.dtype], ptr(x), ptr(y), C.byref(p)) == OK
    np.testing.assert_array_equal(y, want)


@pytest.mark.parametrize("shape, k, s, dil, pad, ceil_mode", POOL_CASES)
@pytest.mark.parametrize("include_pad", [False, True])
def test_avg_pool2d(lib, shape, k, s, dil, pad, ceil_mode, include_pad):
    x = rand(shape)
    want = ref.avg_pool2d(x, k, s, dil, pad, ceil_mode, include_pad)
    y = np.zeros(want.shape, np.float32)
    p = pool_params(shape, k, s, dil, pad, ceil_mode, include_pad)
    assert lib.acc_avg_pool2d_f32(ptr(x), ptr(y), C.byref(p)) == OK
    close(y, want)


def test_max_pool_nan_propagates(lib):
    x = rand((1, 1, 4, 4))
    x[0, 0, 1, 2] = np.nan
    p = pool_params(x.shape, (2, 2), (2, 2), (1, 1), (0, 0, 0, 0), False)
    y = np.zeros((1, 1, 2, 2), np.float32)
    assert lib.acc_max_pool2d(0, ptr(x), ptr(y), C.byref(p)) == OK
    np.testing.assert_array_equal(y, ref.max_pool2d(x, (2, 2), (2, 2)))
    assert np.isnan(y[0, 0, 0, 1]) and not np.isnan(y[0, 0, 1]).any()


def test_pool_rejects_padding_as_large_as_the_window(lib):
    x = rand((1, 1, 4, 4))
    y = np.zeros((1, 1, 4, 4), np.float32)
    p = pool_params(x.shape, (2, 2), (1, 1), (1, 1), (0, 0, 0, 0), False)
    p.pad_top = 2
    assert lib.acc_avg_pool2d_f32(ptr(x), ptr(y), C.byref(p)) == EINVAL


def test_global_avg_pool2d(lib):
    x = rand((2, 3, 7, 5))
    y = np.zeros((2, 3, 1, 1), np.float32)
    assert lib.acc_global_avg_pool2d_f32(ptr(x), ptr(y), 2, 3, 7, 5) == OK
    close(y, ref.global_avg_pool2d(x))


@pytest.mark.parametrize("shape, axis", [((2, 3, 4, 4), 1), ((5, 6), -1), ((3, 4, 2), 0)])
def test_batch_norm(lib, shape, axis):
    x = rand(shape)
    c = shape[axis]
    gamma, beta, mean = rand((c,)), rand((c,)), rand((c,))
    var = rand((c,), lo=0.1, hi=2.0)
    y = np.zeros_like(x)
    s = shape_arr(shape)
    assert lib.acc_batch_norm_f32(ptr(x), ptr(gamma), ptr(beta), ptr(mean), ptr(var), ptr(y), len(shape), sp(s),
                                  axis, 1e-3) == OK  # fmt: skip
    close(y, ref.batch_norm(x, gamma, beta, mean, var, axis, 1e-3), rtol=2e-6)


@pytest.mark.parametrize("shape, axis", [((2, 3, 8), -1), ((4, 5, 6), 1), ((3, 7), 0)])
def test_layer_norm(lib, shape, axis):
    x = rand(shape, lo=-3, hi=5)
    norm_shape = shape[axis % len(shape):]
    gamma, beta = rand(norm_shape), rand(norm_shape)
    y = np.zeros_like(x)
    s = shape_arr(shape)
    assert lib.acc_layer_norm_f32(ptr(x), ptr(gamma), ptr(beta), ptr(y), len(shape), sp(s), axis, 1e-5) == OK
    close(y, ref.layer_norm(x, gamma, beta, axis, 1e-5))


@pytest.mark.parametrize("shape, axes", [
    ((2, 3, 4), (2,)), ((2, 3, 4), (0, 2)), ((2, 3, 4), (1,)), ((2, 3, 4), (0, 1, 2)), ((5, 6), ()),
    ((2, 3, 4, 5), (-1, -2)), ((1000,), (0,)),
])  # fmt: skip
def test_mean(lib, shape, axes):
    x = rand(shape)
    want = ref.mean(x, [a % len(shape) for a in axes])
    y = np.zeros(want.shape, np.float32)
    s = shape_arr(shape)
    ax = cint(axes)
    assert lib.acc_mean_f32(ptr(x), ptr(y), len(shape), sp(s), ax.ctypes.data_as(C.POINTER(C.c_int)), len(axes)) == OK
    close(y, want)


def test_mean_rejects_repeated_axes(lib):
    x = rand((2, 3))
    y = np.zeros(3, np.float32)
    s, ax = shape_arr(x.shape), cint((0, -2))
    assert lib.acc_mean_f32(ptr(x), ptr(y), 2, sp(s), ax.ctypes.data_as(C.POINTER(C.c_int)), 2) == EINVAL


# ---------------------------------------------------------------------------------------
# data movement
# ---------------------------------------------------------------------------------------


def test_copy_is_reshape(lib):
    x = rand((3, 4))
    y = np.zeros(12, np.float32)
    assert lib.acc_copy(ptr(x), ptr(y), x.nbytes) == OK
    np.testing.assert_array_equal(y, ref.reshape(x, (12,)))
    np.testing.assert_array_equal(y.reshape(3, 4), ref.batch_flatten(x.reshape(3, 2, 2)).reshape(3, 4))


@pytest.mark.parametrize("shape, perm", [
    ((2, 3), (1, 0)), ((2, 3, 4), (2, 0, 1)), ((2, 3, 4, 5), (0, 2, 3, 1)), ((1, 2, 3, 2, 2, 3), (5, 3, 1, 0, 4, 2)),
    ((4,), (0,)), ((2, 3, 4), (-1, 0, 1)),
])  # fmt: skip
@pytest.mark.parametrize("dtype", [np.float32, np.int8, np.int16, np.float64, np.dtype("V3")])
def test_transpose(lib, shape, perm, dtype):
    x = np.frombuffer(rng.bytes(math.prod(shape) * np.dtype(dtype).itemsize), dtype).reshape(shape)
    x = np.ascontiguousarray(x)
    want = np.ascontiguousarray(ref.transpose(x, perm))
    y = np.zeros_like(want)
    s, pm = shape_arr(shape), cint(perm)
    assert lib.acc_transpose(x.itemsize, ptr(x), ptr(y), len(shape), sp(s), pm.ctypes.data_as(C.POINTER(C.c_int))) == OK
    assert y.tobytes() == want.tobytes()


def test_transpose_rejects_non_permutation(lib):
    x = rand((2, 3))
    y = np.zeros_like(x)
    s, pm = shape_arr(x.shape), cint((0, 0))
    assert lib.acc_transpose(4, ptr(x), ptr(y), 2, sp(s), pm.ctypes.data_as(C.POINTER(C.c_int))) == EINVAL


@pytest.mark.parametrize("shapes, axis", [
    ([(2, 3), (2, 5), (2, 1)], 1), ([(1, 4), (3, 4)], 0), ([(2, 3, 4), (2, 3, 2)], -1), ([(2, 0, 3), (2, 2, 3)], 1),
])  # fmt: skip
def test_concatenate(lib, shapes, axis):
    xs = [rand(s, np.int16) for s in shapes]
    want = ref.concatenate(xs, axis)
    y = np.zeros(want.shape, np.int16)
    ptrs = (VP * len(xs))(*[x.ctypes.data for x in xs])
    sizes = shape_arr([x.shape[axis] for x in xs])
    s = shape_arr(want.shape)
    assert lib.acc_concatenate(2, len(xs), ptrs, sp(sizes), ptr(y), want.ndim, sp(s), axis) == OK
    np.testing.assert_array_equal(y, want)
    sizes[0] += 1  # sizes no longer add up
    assert lib.acc_concatenate(2, len(xs), ptrs, sp(sizes), ptr(y), want.ndim, sp(s), axis) == EINVAL


PAD_MODES = {"constant": 0, "edge": 1, "reflect": 2}


PAD_CASES = [
    ((3, 4), (1, 2, 0, 3)), ((2, 3, 4), (1, 1, 2, 2, 3, 1)), ((5,), (4, 4)), ((1, 2, 3, 4), (0, 0, 0, 0, 1, 1, 2, 3)),
    ((6, 5), (5, 0, 2, 4)),
]  # fmt: skip


def reflect_ok(shape, pad_width):
    """The verifier's rule: reflect padding is smaller than the dimension."""
    return all(p < shape[i // 2] for i, p in enumerate(pad_width))


@pytest.mark.parametrize("shape, pad_width, mode", [
    (s, pw, m) for s, pw in PAD_CASES for m in PAD_MODES if m != "reflect" or reflect_ok(s, pw)
])  # fmt: skip
@pytest.mark.parametrize("dtype, value", [(np.float32, 2.5), (np.int8, -300.7), (np.uint8, 3.9)])
def test_pad(lib, shape, pad_width, mode, dtype, value):
    x = rand(shape, dtype)
    want = ref.pad(x, pad_width, value, mode)
    y = np.zeros(want.shape, x.dtype)
    # the constant converted like relay: through acc_cast from f64
    pv = np.zeros(1, x.dtype)
    v64 = np.array([value], np.float64)
    assert lib.acc_cast(1, ptr(v64), DT[x.dtype], ptr(pv), 1) == OK
    s, pw = shape_arr(shape), shape_arr(pad_width)
    assert lib.acc_pad(x.itemsize, ptr(x), ptr(y), len(shape), sp(s), sp(pw), PAD_MODES[mode], ptr(pv)) == OK
    np.testing.assert_array_equal(y, want)


def test_pad_rejects_reflect_wider_than_the_input(lib):
    x = rand((3,))
    y = np.zeros(7, np.float32)
    s, pw = shape_arr((3,)), shape_arr((3, 1))
    assert lib.acc_pad(4, ptr(x), ptr(y), 1, sp(s), sp(pw), 2, None) == EINVAL


@pytest.mark.parametrize("shape, axis, idx, idx_dtype", [
    ((5, 3), 0, [0, 4, -1, -5, 2], np.int64),
    ((2, 6, 3), 1, [[1, -2], [5, 0]], np.int32),
    ((4,), 0, [], np.int64),
    ((3, 4), -1, [3, 3, -4], np.int8),
])  # fmt: skip
def test_take(lib, shape, axis, idx, idx_dtype):
    x = rand(shape)
    indices = np.array(idx, idx_dtype)
    want = ref.take(x, indices, axis)
    y = np.zeros(want.shape, np.float32)
    s = shape_arr(shape)
    assert lib.acc_take(4, ptr(x), len(shape), sp(s), axis, DT[indices.dtype], ptr(indices), indices.size, ptr(y)) == OK
    np.testing.assert_array_equal(y, want)


@pytest.mark.parametrize("bad", [5, -6, 100])
def test_take_out_of_range_is_an_error(lib, bad):
    x = rand((5, 2))
    indices = np.array([0, bad, 1], np.int64)
    with pytest.raises(ValueError):
        ref.take(x, indices, 0)
    y = np.full((3, 2), 7.0, np.float32)
    s = shape_arr(x.shape)
    assert lib.acc_take(4, ptr(x), 2, sp(s), 0, DT[indices.dtype], ptr(indices), 3, ptr(y)) == ERANGE
    assert (y == 7.0).all()


CAST_TYPES = [np.float32, np.float64, np.int8, np.uint8, np.int16, np.int32, np.int64, np.bool_]


def cast_source(dtype) -> np.ndarray:
    dtype = np.dtype(dtype)
    if dtype.kind == "f":
        vals = [0.0, -0.0, 0.5, -0.5, 1.9, -1.9, 127.5, -128.9, 255.9, 256.0, -129.0, 3e4, -4e4, 2.2e9, -2.2e9,
                9.3e18, -9.3e18, 1.7e19, np.inf, -np.inf, np.nan, 2.0**31, 2.0**63, -(2.0**63), 16777217.0]  # fmt: skip
        return np.array(vals, np.float64).astype(dtype)
    if dtype == np.bool_:
        return np.array([True, False, True])
    info = np.iinfo(dtype)
    vals = [0, 1, -1, 127, -128, 128, 255, 256, -129, 32767, -32768, 65535, 2**31 - 1, -(2**31), 2**24 + 1,
            2**53 + 1, 2**63 - 1, -(2**63)]  # fmt: skip
    return np.array([v for v in vals if info.min <= v <= info.max], dtype)


@pytest.mark.parametrize("src", CAST_TYPES, ids=lambda t: np.dtype(t).name)
@pytest.mark.parametrize("dst", CAST_TYPES, ids=lambda t: np.dtype(t).name)
def test_cast_all_pairs(lib, src, dst):
    x = cast_source(src)
    with np.errstate(all="ignore"):
        want = ref.cast(x, dst)
    y = np.zeros(x.shape, dst)
    assert lib.acc_cast(DT[x.dtype], ptr(x), DT[np.dtype(dst)], ptr(y), x.size) == OK
    np.testing.assert_array_equal(y, want)


# ---------------------------------------------------------------------------------------
# quantization
# ---------------------------------------------------------------------------------------


def qparams(scale, zp) -> tuple[QParams, list]:
    s = np.atleast_1d(np.asarray(scale, np.float32))
    z = np.atleast_1d(np.asarray(zp, np.int32))
    q = QParams(s.ctypes.data_as(C.POINTER(C.c_float)), s.size, z.ctypes.data_as(C.POINTER(C.c_int32)), z.size)
    return q, [s, z]  # keep the arrays alive


def test_quantize_rounds_half_to_even_and_saturates(lib):
    scale = np.float32(0.5)
    x = np.array([0.25, 0.75, 1.25, -0.25, -0.75, -1.25, 63.0, 64.0, -64.5, -65.0, np.inf, -np.inf, np.nan, 1e30],
                 np.float32)  # fmt: skip
    for dtype, zp in ((np.int8, 0), (np.int8, -3), (np.uint8, 128), (np.int16, 7), (np.int32, -5)):
        want = ref.qnn_quantize(x, np.array(scale), np.array(zp, dtype))
        y = np.zeros(x.shape, dtype)
        q, keep = qparams(scale, zp)
        s = shape_arr(x.shape)
        assert lib.acc_quantize(ptr(x), DT[np.dtype(dtype)], ptr(y), 1, sp(s), -1, C.byref(q)) == OK
        np.testing.assert_array_equal(y, want)
    # ties: x / s is exactly k + 0.5 -> the even neighbour
    y = np.zeros(6, np.int8)
    assert lib.acc_quantize(ptr(x), DT[np.dtype(np.int8)], ptr(y), 1, sp(shape_arr((6,))), 0, C.byref(qparams(0.5, 0)[0])) == OK
    np.testing.assert_array_equal(y, [0, 2, 2, 0, -2, -2])


@pytest.mark.parametrize("shape, axis", [((2, 4, 3, 3), 1), ((5, 6), 0), ((3, 7), -1)])
def test_quantize_dequantize_per_axis(lib, shape, axis):
    x = rand(shape, lo=-4, hi=4)
    ch = shape[axis]
    scale = rng.uniform(0.01, 0.1, ch).astype(np.float32)
    zp = rng.integers(-10, 10, ch).astype(np.int8)
    want_q = ref.qnn_quantize(x, scale, zp, axis)
    q, keep = qparams(scale, zp)
    s = shape_arr(shape)
    y = np.zeros(shape, np.int8)
    assert lib.acc_quantize(ptr(x), 2, ptr(y), len(shape), sp(s), axis, C.byref(q)) == OK
    np.testing.assert_array_equal(y, want_q)
    back = np.zeros(shape, np.float32)
    assert lib.acc_dequantize(2, ptr(y), ptr(back), len(shape), sp(s), axis, C.byref(q)) == OK
    np.testing.assert_array_equal(back, ref.qnn_dequantize(y, scale, zp, axis))
    # per-axis scale with a per-tensor zero point
    q2, keep2 = qparams(scale, 3)
    assert lib.acc_quantize(ptr(x), 2, ptr(y), len(shape), sp(s), axis, C.byref(q2)) == OK
    np.testing.assert_array_equal(y, ref.qnn_quantize(x, scale, np.array(3, np.int8), axis))
    # a parameter array of the wrong length
    q3, keep3 = qparams(scale[:-1], 0) if ch > 2 else qparams(np.ones(ch + 1, np.float32), 0)
    assert lib.acc_quantize(ptr(x), 2, ptr(y), len(shape), sp(s), axis, C.byref(q3)) == EINVAL


@pytest.mark.parametrize("src, dst", [(np.int32, np.int8), (np.int32, np.uint8), (np.int8, np.int8),
                                      (np.uint8, np.int32), (np.int16, np.int8)])  # fmt: skip
def test_requantize_per_tensor(lib, src, dst):
    x = rand((4, 50), src)
    in_s, in_z = np.float32(0.0123), np.array(3 if src != np.uint8 else 128, src)
    out_s, out_z = np.float32(0.37), np.array(-2 if dst != np.uint8 else 120, dst)
    want = ref.qnn_requantize(x, np.array(in_s), in_z, np.array(out_s), out_z)
    y = np.zeros(x.shape, dst)
    qi, k1 = qparams(in_s, in_z)
    qo, k2 = qparams(out_s, out_z)
    s = shape_arr(x.shape)
    assert lib.acc_requantize(DT[x.dtype], ptr(x), DT[np.dtype(dst)], ptr(y), 2, sp(s), -1, C.byref(qi), C.byref(qo)) == OK
    np.testing.assert_array_equal(y, want)


def test_requantize_per_axis_and_large_accumulators(lib):
    # accumulator-sized values (beyond 2^24, where float conversion rounds)
    x = rng.integers(-(2**30), 2**30, size=(2, 6, 5), dtype=np.int32)
    x[0, 0, :3] = [2**24 + 1, -(2**24) - 3, 2**31 - 1]
    in_s = rng.uniform(1e-6, 1e-4, 6).astype(np.float32)
    out_s = np.float32(0.05)
    want = ref.qnn_requantize(x, in_s, np.array(0, np.int32), np.array(out_s), np.array(4, np.int8), axis=1)
    y = np.zeros(x.shape, np.int8)
    qi, k1 = qparams(in_s, 0)
    qo, k2 = qparams(out_s, 4)
    s = shape_arr(x.shape)
    assert lib.acc_requantize(5, ptr(x), 2, ptr(y), 3, sp(s), 1, C.byref(qi), C.byref(qo)) == OK
    np.testing.assert_array_equal(y, want)
    # per-axis on the output side only
    out_sv = rng.uniform(0.01, 0.2, 6).astype(np.float32)
    out_zv = rng.integers(-5, 5, 6).astype(np.int8)
    want = ref.qnn_requantize(x >> 12, np.array(0.01, np.float32), np.array(0, np.int32), out_sv, out_zv, axis=1)
    x2 = np.ascontiguousarray(x >> 12)
    qi, k1 = qparams(0.01, 0)
    qo, k2 = qparams(out_sv, out_zv)
    assert lib.acc_requantize(5, ptr(x2), 2, ptr(y), 3, sp(s), 1, C.byref(qi), C.byref(qo)) == OK
    np.testing.assert_array_equal(y, want)


QCONV_CASES = [CONV_CASES[0], CONV_CASES[1], CONV_CASES[2], CONV_CASES[3], CONV_CASES[4], CONV_CASES[7]]


@pytest.mark.parametrize("xs, ws, strides, padding, dilation, groups", QCONV_CASES)
@pytest.mark.parametrize("xt, wt", [(np.int8, np.int8), (np.uint8, np.int8), (np.uint8, np.uint8)])
@pytest.mark.parametrize("per_channel", [False, True])
def test_qnn_conv2d(lib, xs, ws, strides, padding, dilation, groups, xt, wt, per_channel):
    x, w = rand(xs, xt), rand(ws, wt)
    x_zp = np.array(5 if xt == np.int8 else 131, xt)
    w_zp = (rng.integers(-3, 4, ws[0]) + (0 if wt == np.int8 else 128)).astype(wt) if per_channel else np.array(-2 if wt == np.int8 else 127, wt)
    want = ref.qnn_conv2d(x, w, x_zp, w_zp, strides, padding, dilation, groups)
    bias = rng.integers(-1000, 1000, ws[0]).astype(np.int32)
    y = np.zeros(want.shape, np.int32)
    p = conv_params(xs, ws, strides, padding, dilation, groups)
    wz = np.atleast_1d(w_zp).astype(np.int32)
    assert lib.acc_qnn_conv2d(DT[x.dtype], ptr(x), DT[w.dtype], ptr(w), None, ptr(y), C.byref(p), int(x_zp), ptr(wz), wz.size) == OK
    np.testing.assert_array_equal(y, want)
    assert lib.acc_qnn_conv2d(DT[x.dtype], ptr(x), DT[w.dtype], ptr(w), ptr(bias), ptr(y), C.byref(p), int(x_zp), ptr(wz), wz.size) == OK
    np.testing.assert_array_equal(y, ref.bias_add(want, bias, 1))


def test_qnn_conv2d_wide_accumulation_and_overflow(lib):
    # K = 512 * 9 * 9 taps of up to 255 * 255: past the bound of the exact-int32 path
    xs, ws = (1, 512, 9, 9), (2, 512, 9, 9)
    x = np.full(xs, 255, np.uint8)
    w = np.full(ws, 255, np.uint8)
    p = conv_params(xs, ws, (1, 1), (0, 0, 0, 0), (1, 1), 1)
    y = np.full((1, 2, 1, 1), 7, np.int32)
    wz = np.array([0], np.int32)
    with pytest.raises(ValueError):
        ref.qnn_conv2d(x, w, np.array(0, np.uint8), np.array(0, np.uint8))
    assert lib.acc_qnn_conv2d(3, ptr(x), 3, ptr(w), None, ptr(y), C.byref(p), 0, ptr(wz), 1) == EOVERFLOW
    assert (y == 7).all()
    # random data of the same size does not overflow: the wide path must be exact
    x, w = rand(xs, np.uint8), rand(ws, np.uint8)
    want = ref.qnn_conv2d(x, w, np.array(0, np.uint8), np.array(0, np.uint8))
    assert lib.acc_qnn_conv2d(3, ptr(x), 3, ptr(w), None, ptr(y), C.byref(p), 0, ptr(wz), 1) == OK
    np.testing.assert_array_equal(y, want)
    # the same check for dense
    x2, w2 = x.reshape(1, -1), w.reshape(2, -1)
    y2 = np.zeros((1, 2), np.int32)
    k = x2.shape[1]
    assert lib.acc_qnn_dense(3, ptr(x2), 3, ptr(w2), None, ptr(y2), 1, k, 2, 0, ptr(wz), 1) == OK
    np.testing.assert_array_equal(y2, ref.qnn_dense(x2, w2, np.array(0, np.uint8), np.array(0, np.uint8)))
    full = np.full((1, k), 255, np.uint8), np.full((2, k), 255, np.uint8)
    assert lib.acc_qnn_dense(3, ptr(full[0]), 3, ptr(full[1]), None, ptr(y2), 1, k, 2, 0, ptr(wz), 1) == EOVERFLOW


def test_qnn_rejects_zero_points_outside_the_type(lib):
    x, w = rand((1, 1, 3, 3), np.int8), rand((1, 1, 3, 3), np.int8)
    p = conv_params(x.shape, w.shape, (1, 1), (0, 0, 0, 0), (1, 1), 1)
    y = np.zeros((1, 1, 1, 1), np.int32)
    wz = np.array([0], np.int32)
    assert lib.acc_qnn_conv2d(2, ptr(x), 2, ptr(w), None, ptr(y), C.byref(p), 200, ptr(wz), 1) == EINVAL
    assert lib.acc_qnn_conv2d(1, ptr(x), 2, ptr(w), None, ptr(y), C.byref(p), 0, ptr(wz), 1) == EINVAL  # f64 data


@pytest.mark.parametrize("xt, wt", [(np.int8, np.int8), (np.uint8, np.int8)])
@pytest.mark.parametrize("per_channel", [False, True])
def test_qnn_dense(lib, xt, wt, per_channel):
    m, k, n = 6, 37, 9
    x, w = rand((m, k), xt), rand((n, k), wt)
    x_zp = np.array(-7 if xt == np.int8 else 100, xt)
    w_zp = rng.integers(-4, 4, n).astype(wt) if per_channel else np.array(1, wt)
    want = ref.qnn_dense(x, w, x_zp, w_zp)
    y = np.zeros((m, n), np.int32)
    wz = np.atleast_1d(w_zp).astype(np.int32)
    bias = rng.integers(-500, 500, n).astype(np.int32)
    assert lib.acc_qnn_dense(DT[x.dtype], ptr(x), DT[w.dtype], ptr(w), None, ptr(y), m, k, n, int(x_zp), ptr(wz), wz.size) == OK
    np.testing.assert_array_equal(y, want)
    assert lib.acc_qnn_dense(DT[x.dtype], ptr(x), DT[w.dtype], ptr(w), ptr(bias), ptr(y), m, k, n, int(x_zp), ptr(wz), wz.size) == OK
    np.testing.assert_array_equal(y, want + bias)


@pytest.mark.parametrize("a_shape, b_shape", [((2, 3, 4), (2, 3, 4)), ((2, 3, 4), (3, 1)), ((), (5,))])
@pytest.mark.parametrize("at, bt, yt", [(np.int8, np.int8, np.int8), (np.uint8, np.int8, np.uint8), (np.int8, np.uint8, np.int32)])
def test_qnn_add(lib, a_shape, b_shape, at, bt, yt):
    a, b = rand(a_shape, at), rand(b_shape, bt)
    params = dict(a_scale=np.float32(0.02), a_zp=np.array(3 if at == np.int8 else 128, at),
                  b_scale=np.float32(0.05), b_zp=np.array(-1 if bt == np.int8 else 120, bt),
                  y_scale=np.float32(0.03), y_zp=np.array(-4 if yt != np.uint8 else 130, yt))  # fmt: skip
    want = ref.qnn_add(a, b, np.array(params["a_scale"]), params["a_zp"], np.array(params["b_scale"]), params["b_zp"],
                       np.array(params["y_scale"]), params["y_zp"])  # fmt: skip
    y = np.zeros(want.shape, yt)
    sa, sb = shape_arr(a_shape), shape_arr(b_shape)
    st = lib.acc_qnn_add(DT[a.dtype], ptr(a), a.ndim, sp(sa), params["a_scale"], int(params["a_zp"]),
                         DT[b.dtype], ptr(b), b.ndim, sp(sb), params["b_scale"], int(params["b_zp"]),
                         DT[np.dtype(yt)], ptr(y), params["y_scale"], int(params["y_zp"]))  # fmt: skip
    assert st == OK
    np.testing.assert_array_equal(y, want)


# ---------------------------------------------------------------------------------------
# memory safety: a sweep over small geometries under -fsanitize=address,undefined
# ---------------------------------------------------------------------------------------

SWEEP_C = r"""
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "host_kernels.h"

/* Every buffer is malloc'ed with its exact size, so ASan flags any access past it. */
static unsigned seed = 1;
static float frand(void) { seed = seed * 1103515245u + 12345u; return (float)((seed >> 9) & 0xFFF) / 2048.0f - 1.0f; }
static float *fbuf(int64_t n) { float *p = malloc((size_t)(n > 0 ? n : 1) * sizeof(float)); for (int64_t i = 0; i < n; i++) p[i] = frand(); return p; }
static void *bbuf(int64_t n) { unsigned char *p = malloc((size_t)(n > 0 ? n : 1)); for (int64_t i = 0; i < n; i++) p[i] = (unsigned char)(int)(frand() * 127); return p; }
static long calls, failures;
#define CHECK(expr) do { calls++; if ((expr) != ACC_OK) { failures++; fprintf(stderr, "failed: %s (line %d)\n", #expr, __LINE__); } } while (0)

static void conv_sweep(void) {
    for (int h = 1; h <= 5; h++) for (int k = 1; k <= 3; k++) for (int s = 1; s <= 3; s++)
    for (int pt = 0; pt <= 3; pt++) for (int pb = 0; pb <= 2; pb++) for (int dil = 1; dil <= 2; dil++) for (int g = 1; g <= 2; g++) {
        int64_t span = h + pt + pb - dil * (k - 1) - 1;
        if (span < 0) continue;
        acc_conv2d_params p = {1, 2 * g, h, h + 1, 2 * g, k, k, span / s + 1, 0, s, s, pt, pb, pb, pt, dil, dil, g};
        int64_t span_w = h + 1 + pb + pt - dil * (k - 1) - 1;
        if (span_w < 0) continue;
        p.ow = span_w / s + 1;
        int64_t nx = p.c * p.h * p.w, nw = p.oc * 2 * k * k, ny = p.oc * p.oh * p.ow;
        float *x = fbuf(nx), *w = fbuf(nw), *b = fbuf(p.oc), *y = fbuf(ny);
        CHECK(acc_conv2d_f32(x, w, b, y, &p));
        int8_t *xq = bbuf(nx), *wq = bbuf(nw);
        int32_t *yq = malloc((size_t)ny * sizeof(int32_t)), zp[4] = {1, -2, 3, 0};
        CHECK(acc_qnn_conv2d(ACC_I8, xq, ACC_I8, wq, NULL, yq, &p, -3, zp, p.oc));
        free(x); free(w); free(b); free(y); free(xq); free(wq); free(yq);
    }
}

static void pool_sweep(void) {
    for (int h = 1; h <= 6; h++) for (int k = 1; k <= 3; k++) for (int s = 1; s <= 3; s++) for (int dil = 1; dil <= 2; dil++)
    for (int pt = 0; pt < k * dil; pt++) for (int pb = 0; pb < k * dil; pb++) for (int ceil = 0; ceil <= 1; ceil++) {
        int64_t eff = dil * (k - 1) + 1, span = h + pt + pb - eff;
        if (span < 0) continue;
        int64_t out = ceil ? (span + s - 1) / s + 1 : span / s + 1;
        if (ceil && (out - 1) * s >= h + pt) out--;
        acc_pool2d_params p = {1, 2, h, h, out, out, k, k, s, s, dil, dil, pt, pt, pb, pb, ceil};
        int64_t nx = 2 * h * h, ny = 2 * out * out;
        float *x = fbuf(nx), *y = fbuf(ny);
        int8_t *xq = bbuf(nx), *yq = bbuf(ny);
        CHECK(acc_max_pool2d(ACC_F32, x, y, &p));
        CHECK(acc_avg_pool2d_f32(x, y, &p));
        CHECK(acc_max_pool2d(ACC_I8, xq, yq, &p));
        free(x); free(y); free(xq); free(yq);
    }
}

static void movement_sweep(void) {
    for (int r = 1; r <= 4; r++) for (int trial = 0; trial < 40; trial++) {
        int64_t shape[4], pw[8], oshape[4], n = 1, on = 1;
        int perm[4], mode = trial % 3;
        for (int i = 0; i < r; i++) {
            shape[i] = 1 + (trial * (i + 3)) % 4;
            pw[2 * i] = mode == 2 ? (trial + i) % shape[i] : (trial + i) % 3;
            pw[2 * i + 1] = mode == 2 ? (trial * 7 + i) % shape[i] : (trial * 5 + i) % 3;
            oshape[i] = shape[i] + pw[2 * i] + pw[2 * i + 1];
            n *= shape[i]; on *= oshape[i];
            perm[i] = (i + trial) % r;
        }
        float *x = fbuf(n), *y = fbuf(on), pv = 1.5f;
        CHECK(acc_pad(4, x, y, r, shape, pw, (acc_pad_mode)mode, &pv));
        unsigned char *xb = bbuf(3 * n), *yb = bbuf(3 * n);
        CHECK(acc_transpose(3, xb, yb, r, shape, perm));
        int64_t idx[5] = {0, -1, shape[0] - 1, -shape[0], shape[0] / 2};
        float *t = fbuf(5 * n / shape[0]);
        CHECK(acc_take(4, x, r, shape, 0, ACC_I64, idx, 5, t));
        float *m = fbuf(n);
        int axes[2] = {r - 1, 0};
        CHECK(acc_mean_f32(x, m, r, shape, axes, r > 1 ? 2 : 1));
        CHECK(acc_softmax_f32(x, y, r, shape, trial % r));
        free(x); free(y); free(xb); free(yb); free(t); free(m);
    }
}

static void broadcast_sweep(void) {
    int64_t a6[6] = {2, 1, 3, 1, 2, 1}, b6[6] = {1, 4, 1, 5, 1, 3}, o = 2 * 4 * 3 * 5 * 2 * 3;
    float *a = fbuf(12), *b = fbuf(60), *y = fbuf(o);
    CHECK(acc_add(ACC_F32, a, 6, a6, b, 6, b6, y));
    int32_t *ai = bbuf(48), *bi = bbuf(240), *yi = bbuf(4 * o);
    for (int i = 0; i < 60; i++) bi[i] = i % 7 + 1;
    CHECK(acc_divide(ACC_I32, ai, 6, a6, bi, 6, b6, yi));
    int64_t as[4] = {2, 1, 3, 4}, bs[3] = {5, 4, 6};
    float *ma = fbuf(24), *mb = fbuf(120), *my = fbuf(2 * 5 * 3 * 6);
    CHECK(acc_batch_matmul_f32(ma, 4, as, mb, 3, bs, my, 0, 0));
    int8_t *qa = bbuf(12), *qb = bbuf(60), *qy = bbuf(o);
    CHECK(acc_qnn_add(ACC_I8, qa, 6, a6, 0.1f, 2, ACC_I8, qb, 6, b6, 0.2f, -1, ACC_I8, qy, 0.3f, 0));
    double big[6] = {1e300, -1e300, 3e9, -3e9, 0.0 / 0.0, 2.5};
    int64_t out64[6];
    uint8_t out8[6];
    CHECK(acc_cast(ACC_F64, big, ACC_I64, out64, 6));
    CHECK(acc_cast(ACC_F64, big, ACC_U8, out8, 6));
    free(a); free(b); free(y); free(ai); free(bi); free(yi); free(ma); free(mb); free(my); free(qa); free(qb); free(qy);
}

int main(void) {
    conv_sweep();
    pool_sweep();
    movement_sweep();
    broadcast_sweep();
    printf("%ld calls, %ld failures\n", calls, failures);
    return failures != 0;
}
"""


def test_kernels_are_clean_under_sanitizers(tmp_path):
    src = tmp_path / "kernel_sweep.c"
    src.write_text(SWEEP_C)
    exe = cbuild.build([src, *cbuild.host_kernel_sources()], kind="exe", sanitize=True, name="kernel_sweep")
    r = subprocess.run([str(exe)], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0 and r.stderr == "", r.stderr[-2000:]
    calls = int(r.stdout.split()[0])
    assert calls > 3000 and r.stdout.endswith(" calls, 0 failures\n"), r.stdout
