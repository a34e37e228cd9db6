"""Hand-checked values for the tricky corners of the reference semantics
(`compiler/runtime/reference.py`, summarised in docs/semantics.md)."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from accel.compiler.runtime import reference as ref
from accel.dialects import relay

F32 = np.float32


def a(values, dtype=F32):
    return np.array(values, dtype=dtype)


# --------------------------------------------------------------------------------------
# Quantization: rounding, saturation, per-axis parameters
# --------------------------------------------------------------------------------------


def test_quantize_rounds_half_to_even():
    x = a([0.5, 1.5, 2.5, 3.5, -0.5, -1.5, -2.5, 0.49, 0.51])
    q = ref.qnn_quantize(x, a(1.0), np.array(0, np.int8))
    assert q.tolist() == [0, 2, 2, 4, 0, -2, -2, 0, 1]
    assert q.dtype == np.int8


def test_quantize_divides_in_float32():
    # f32(0.35) / f32(0.1) is exactly 3.5 in float32 (a tie -> 4) but 3.4999... in float64;
    # f32(1.55) / f32(0.1) is 15.499999 (-> 15), while multiplying by f32(1 / 0.1) gives 15.5.
    q = ref.qnn_quantize(a([0.35, 1.55]), a(0.1), np.array(0, np.int8))
    assert q.tolist() == [4, 15]


def test_quantize_adds_zero_point_after_rounding_and_saturates():
    x = a([2.5, 1000.0, -1000.0, np.inf, -np.inf, np.nan])
    assert ref.qnn_quantize(x, a(1.0), np.array(10, np.int8)).tolist() == [12, 127, -128, 127, -128, 10]
    assert ref.qnn_quantize(x, a(1.0), np.array(128, np.uint8)).tolist() == [130, 255, 0, 255, 0, 128]
    # saturation happens after the zero point: -200 + 128 = -72 -> 0, 100 + 128 = 228
    assert ref.qnn_quantize(a([-200.0, 100.0]), a(1.0), np.array(128, np.uint8)).tolist() == [0, 228]


def test_quantize_per_axis():
    x = a([[1.0, 1.0, 1.0], [-0.75, 0.75, 2.0]])
    scale = a([1.0, 0.5, 0.25])
    zp = np.array([0, 1, -2], np.int8)
    q = ref.qnn_quantize(x, scale, zp, axis=1)
    # column 0: x/1, column 1: x/0.5 + 1, column 2: x/0.25 - 2;  -0.75/1 = -0.75 -> -1
    assert q.tolist() == [[1, 3, 2], [-1, 3, 6]]
    # the same parameters along axis 0 need one entry per row
    q0 = ref.qnn_quantize(x, a([1.0, 0.5]), np.array([0, 1], np.int8), axis=0)
    assert q0.tolist() == [[1, 1, 1], [-1, 3, 5]]  # -1.5 -> -2 + 1 = -1; 1.5 -> 2 + 1; 4 + 1


def test_dequantize_is_exact_difference_times_scale():
    q = np.array([-128, 0, 127], np.int8)
    assert ref.qnn_dequantize(q, a(0.5), np.array(-128, np.int8)).tolist() == [0.0, 64.0, 127.5]
    big = np.array([2**31 - 1, -(2**31)], np.int32)  # (q - zp) does not wrap
    got = ref.qnn_dequantize(big, a(1.0), np.array(-1, np.int32))
    assert got.dtype == F32 and got.tolist() == [float(F32(2**31)), float(F32(-(2**31) + 1))]
    per_axis = ref.qnn_dequantize(np.array([[10, 10], [10, 10]], np.uint8), a([0.5, 2.0]), np.array([0, 8], np.uint8), axis=1)
    assert per_axis.tolist() == [[5.0, 4.0], [5.0, 4.0]]


def test_requantize_is_dequantize_then_quantize():
    q = np.array([9, 10, 11, 13, 1000, -1000], np.int32)
    out = ref.qnn_requantize(q, a(0.5), np.array(0, np.int32), a(1.0), np.array(0, np.int8))
    # 4.5 -> 4, 5 -> 5, 5.5 -> 6, 6.5 -> 6 (half to even), then saturation
    assert out.tolist() == [4, 5, 6, 6, 127, -128]
    assert out.dtype == np.int8
    x = np.arange(-300, 300, 7).astype(np.int32)
    chained = ref.qnn_quantize(ref.qnn_dequantize(x, a(0.0123), np.array(3, np.int32)), a(0.07), np.array(-3, np.int8))
    np.testing.assert_array_equal(ref.qnn_requantize(x, a(0.0123), np.array(3, np.int32), a(0.07), np.array(-3, np.int8)), chained)


def test_qnn_add_dequantizes_adds_and_quantizes_in_float32():
    lhs = np.array([10, -128, 127], np.int8)
    rhs = np.array([3], np.int8)
    out = ref.qnn_add(lhs, rhs, a(0.5), np.array(0, np.int8), a(0.25), np.array(1, np.int8), a(1.0), np.array(0, np.int8))
    # 5 + 0.5 = 5.5 -> 6;  -64 + 0.5 = -63.5 -> -64;  63.5 + 0.5 = 64
    assert out.tolist() == [6, -64, 64]


# --------------------------------------------------------------------------------------
# Quantized convolution and dense: exact integer arithmetic
# --------------------------------------------------------------------------------------


def naive_conv2d(x, w, strides, padding, dilation, groups, pad_value=0):
    """The textbook loop (int64 or float64), for comparison."""
    n, c, h, wd = x.shape
    o, cg, kh, kw = w.shape
    top, left, bottom, right = padding
    xp = np.full((n, c, h + top + bottom, wd + left + right), pad_value, dtype=x.dtype)
    xp[:, :, top : top + h, left : left + wd] = x
    oh = (h + top + bottom - dilation[0] * (kh - 1) - 1) // strides[0] + 1
    ow = (wd + left + right - dilation[1] * (kw - 1) - 1) // strides[1] + 1
    acc_type = np.int64 if x.dtype.kind in "iu" else np.float64
    out = np.zeros((n, o, oh, ow), acc_type)
    og = o // groups
    for b, oc, y, xx in itertools.product(range(n), range(o), range(oh), range(ow)):
        g = oc // og
        total = acc_type(0)
        for ic, i, j in itertools.product(range(cg), range(kh), range(kw)):
            total += acc_type(xp[b, g * cg + ic, y * strides[0] + i * dilation[0], xx * strides[1] + j * dilation[1]]) * acc_type(
                w[oc, ic, i, j]
            )
        out[b, oc, y, xx] = total
    return out


@pytest.mark.parametrize(
    "strides,padding,dilation,multiplier",
    [((1, 1), (1, 1, 1, 1), (1, 1), 1), ((2, 2), (0, 1, 2, 0), (1, 1), 1), ((1, 2), (2, 2, 2, 2), (2, 1), 2)],
    ids=["s1-p1", "s2-asym", "dilated-mult2"],
)
def test_depthwise_conv_matches_naive_loop(strides, padding, dilation, multiplier):
    rng = np.random.default_rng(1)
    c = 3
    x = rng.standard_normal((2, c, 7, 6)).astype(F32)
    w = rng.standard_normal((c * multiplier, 1, 3, 3)).astype(F32)
    got = ref.conv2d(x, w, strides, padding, dilation, groups=c)
    want = naive_conv2d(x.astype(np.float64), w.astype(np.float64), strides, padding, dilation, c)
    assert got.dtype == F32
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


def test_grouped_conv_matches_naive_loop():
    rng = np.random.default_rng(2)
    x = rng.standard_normal((1, 4, 5, 5)).astype(F32)
    w = rng.standard_normal((6, 2, 2, 3)).astype(F32)
    got = ref.conv2d(x, w, (1, 2), (1, 0, 0, 1), (1, 1), groups=2)
    np.testing.assert_allclose(got, naive_conv2d(x.astype(np.float64), w.astype(np.float64), (1, 2), (1, 0, 0, 1), (1, 1), 2), rtol=1e-5, atol=1e-5)


def test_qnn_conv2d_depthwise_per_channel_zero_point_is_exact():
    rng = np.random.default_rng(3)
    x = rng.integers(0, 256, (1, 4, 6, 6)).astype(np.uint8)
    w = rng.integers(-128, 128, (4, 1, 3, 3)).astype(np.int8)
    x_zp, w_zp = np.array(128, np.uint8), np.array([0, -3, 5, 127], np.int8)
    got = ref.qnn_conv2d(x, w, x_zp, w_zp, (2, 2), (1, 1, 1, 1), (1, 1), groups=4)
    xs = x.astype(np.int64) - 128
    ws = w.astype(np.int64) - w_zp.astype(np.int64)[:, None, None, None]
    assert got.dtype == np.int32
    np.testing.assert_array_equal(got, naive_conv2d(xs, ws, (2, 2), (1, 1, 1, 1), (1, 1), 4))


def test_qnn_conv2d_padding_holds_the_input_zero_point():
    x = np.full((1, 1, 3, 3), 7, np.int8)
    w = np.ones((1, 1, 3, 3), np.int8)
    out = ref.qnn_conv2d(x, w, np.array(7, np.int8), np.array(0, np.int8), padding=(1, 1, 1, 1))
    assert out.tolist() == [[[[0, 0, 0], [0, 0, 0], [0, 0, 0]]]]  # x - zp is 0 everywhere, padding too


def test_qnn_conv2d_rejects_int32_overflow():
    k = 33100  # 33100 * 255 * 255 > 2**31 - 1
    x = np.full((1, k, 1, 1), 255, np.uint8)
    w = np.full((1, k, 1, 1), 255, np.uint8)
    with pytest.raises(ValueError, match="overflows the int32 accumulator"):
        ref.qnn_conv2d(x, w, np.array(0, np.uint8), np.array(0, np.uint8))


def test_qnn_dense_per_row_zero_point():
    x = np.array([[1, 2, 3]], np.int8)
    w = np.array([[1, 1, 1], [2, 0, -1]], np.int8)
    out = ref.qnn_dense(x, w, np.array(1, np.int8), np.array([1, -1], np.int8))
    # (x - 1) = [0, 1, 2];  row 0: (w - 1) = [0, 0, 0] -> 0;  row 1: (w + 1) = [3, 1, 0] -> 1
    assert out.tolist() == [[0, 1]] and out.dtype == np.int32


# --------------------------------------------------------------------------------------
# Integer arithmetic and cast
# --------------------------------------------------------------------------------------


def test_integer_divide_truncates_toward_zero():
    lhs = np.array([-7, 7, -7, 7, 6, -6, 0], np.int32)
    rhs = np.array([2, -2, -2, 2, 3, 3, -5], np.int32)
    assert ref.divide(lhs, rhs).tolist() == [-3, -3, 3, 3, 2, -2, 0]
    assert ref.divide(np.array([-128], np.int8), np.array([3], np.int8)).tolist() == [-42]
    assert ref.divide(np.array([255, 7], np.uint8), np.array([2, 8], np.uint8)).tolist() == [127, 0]


def test_integer_divide_by_zero_is_an_error():
    with pytest.raises(ValueError, match="integer division by zero"):
        ref.divide(np.array([1, 2], np.int32), np.array([1, 0], np.int32))


def test_float_divide_follows_ieee():
    out = ref.divide(a([1.0, -1.0, 0.0]), a([0.0, 0.0, 0.0]))
    assert out[0] == np.inf and out[1] == -np.inf and np.isnan(out[2]) and out.dtype == F32


def test_integer_add_wraps():
    assert ref.add(np.array([127, -128], np.int8), np.array([1, -1], np.int8)).tolist() == [-128, 127]


def test_cast_float_to_int_truncates_and_saturates():
    x = a([-1.7, 1.7, -0.5, 0.5, 126.9, 300.0, -300.0, np.inf, -np.inf, np.nan])
    assert ref.cast(x, np.int8).tolist() == [-1, 1, 0, 0, 126, 127, -128, 127, -128, 0]
    assert ref.cast(x, np.uint8).tolist() == [0, 1, 0, 0, 126, 255, 0, 255, 0, 0]
    big = a([3e9, -3e9, 2147483520.0])  # the last is the largest float32 below 2**31
    assert ref.cast(big, np.int32).tolist() == [2**31 - 1, -(2**31), 2147483520]
    assert ref.cast(np.array([1e19, -1e19]), np.int64).tolist() == [2**63 - 1, -(2**63)]


def test_cast_int_to_int_wraps_and_to_bool_tests_nonzero():
    assert ref.cast(np.array([300, -200, 127], np.int32), np.int8).tolist() == [44, 56, 127]
    assert ref.cast(a([0.0, -0.0, 0.1, np.nan]), np.bool_).tolist() == [False, False, True, True]
    assert ref.cast(np.array(2.9, F32), np.int32).tolist() == 2  # rank 0


def test_clip_integer_bounds_round_inward():
    x = np.array([-5, -1, 0, 2, 3], np.int8)
    assert ref.clip(x, -1.5, 2.5).tolist() == [-1, -1, 0, 2, 2]
    assert ref.clip(x, -math.inf, 1000.0).tolist() == [-5, -1, 0, 2, 3]


# --------------------------------------------------------------------------------------
# Pooling edge cases
# --------------------------------------------------------------------------------------


def test_ceil_mode_drops_a_window_that_would_start_in_trailing_padding():
    # H = 6, k = 2, s = 2, bottom pad 1: ceil((6 + 1 - 2) / 2) + 1 = 4, but the 4th window
    # would start at padded row 6 = the padding row, so there are 3 outputs.
    assert ref.pool_out_dim(6, 2, 2, 1, 0, 1, True) == 3
    assert ref.pool_out_dim(6, 2, 2, 1, 0, 1, False) == 3
    assert ref.pool_out_dim(5, 2, 2, 1, 0, 0, True) == 3  # ceil adds one output here
    assert ref.pool_out_dim(5, 2, 2, 1, 0, 0, False) == 2
    x = np.arange(36, dtype=F32).reshape(1, 1, 6, 6)
    out = ref.max_pool2d(x, (2, 2), (2, 2), padding=(0, 0, 1, 1), ceil_mode=True)
    assert out.shape == (1, 1, 3, 3)
    assert out[0, 0].tolist() == [[7, 9, 11], [19, 21, 23], [31, 33, 35]]


def test_pool_out_dim_agrees_with_the_dialect():
    for size, k, s, d, lo, hi, ceil in itertools.product(range(1, 9), (1, 2, 3), (1, 2, 3), (1, 2), (0, 1), (0, 1, 2), (False, True)):
        if lo >= k * d or hi >= k * d or size + lo + hi < d * (k - 1) + 1:
            continue
        assert ref.pool_out_dim(size, k, s, d, lo, hi, ceil) == relay.pool_out_dim(size, k, s, d, lo, hi, ceil)


def test_avg_pool_count_include_pad():
    x = np.arange(1, 10, dtype=F32).reshape(1, 1, 3, 3)  # [[1,2,3],[4,5,6],[7,8,9]]
    excl = ref.avg_pool2d(x, (3, 3), padding=(1, 1, 1, 1), count_include_pad=False)
    incl = ref.avg_pool2d(x, (3, 3), padding=(1, 1, 1, 1), count_include_pad=True)
    # top-left window: cells 1, 2, 4, 5 (sum 12) of 4 input cells / 9 cells with padding
    assert excl[0, 0, 0, 0] == F32(12 / 4) and incl[0, 0, 0, 0] == F32(12 / 9)
    assert excl[0, 0, 1, 1] == incl[0, 0, 1, 1] == F32(5)
    assert excl[0, 0, 0, 1] == F32(21 / 6) and incl[0, 0, 0, 1] == F32(21 / 9)


def test_avg_pool_never_counts_ceil_mode_extra_cells():
    x = np.arange(25, dtype=F32).reshape(1, 1, 5, 5)
    for include in (False, True):
        out = ref.avg_pool2d(x, (2, 2), (2, 2), ceil_mode=True, count_include_pad=include)
        assert out.shape == (1, 1, 3, 3)
        assert out[0, 0, 2, 2] == 24  # the window holds x[4, 4] and three extra cells
        assert out[0, 0, 0, 2] == F32((4 + 9) / 2)
    # With explicit padding too (k = 3, s = 2, top/left pad 1; ceil adds a 3rd window that
    # reaches one cell past the input): padding cells count, the extra cells never do.
    x = np.arange(1, 26, dtype=F32).reshape(1, 1, 5, 5)
    incl = ref.avg_pool2d(x, (3, 3), (2, 2), padding=(1, 1, 0, 0), ceil_mode=True, count_include_pad=True)
    excl = ref.avg_pool2d(x, (3, 3), (2, 2), padding=(1, 1, 0, 0), ceil_mode=True, count_include_pad=False)
    assert incl.shape == excl.shape == (1, 1, 3, 3)
    assert incl[0, 0, 0, 0] == F32(16 / 9) and excl[0, 0, 0, 0] == F32(16 / 4)  # 1 + 2 + 6 + 7
    assert incl[0, 0, 0, 2] == F32(28 / 6) and excl[0, 0, 0, 2] == F32(28 / 4)  # 4 + 5 + 9 + 10
    assert incl[0, 0, 2, 2] == excl[0, 0, 2, 2] == F32(88 / 4)  # 19 + 20 + 24 + 25


def test_max_pool_ignores_padding_even_for_negative_inputs():
    x = -np.arange(1, 10, dtype=F32).reshape(1, 1, 3, 3)
    out = ref.max_pool2d(x, (3, 3), padding=(1, 1, 1, 1))
    assert out[0, 0].tolist() == [[-1, -1, -2], [-1, -1, -2], [-4, -4, -5]]
    xi = np.full((1, 1, 2, 2), -128, np.int8)
    assert ref.max_pool2d(xi, (2, 2), padding=(1, 1, 1, 1)).tolist() == [[[[-128] * 3] * 3]]


# --------------------------------------------------------------------------------------
# Float functions: accuracy, stability, dtype
# --------------------------------------------------------------------------------------


def test_erf_is_correctly_rounded_float32():
    x = np.linspace(-5, 5, 2001, dtype=F32)
    want = np.array([math.erf(float(v)) for v in x]).astype(F32)
    got = ref.erf(x)
    assert got.dtype == F32
    np.testing.assert_array_equal(got, want)


def test_gelu_exact_and_tanh_forms():
    x = a([-1.0, 0.0, 1.0, 3.0])
    exact = ref.gelu(x)
    assert exact.dtype == F32
    np.testing.assert_allclose(exact, [-0.15865526, 0.0, 0.8413447, 2.9959502], rtol=1e-6)
    approx = ref.gelu(x, approximate="tanh")
    np.testing.assert_allclose(approx, [-0.15880801, 0.0, 0.841192, 2.9963627], rtol=1e-6)


def test_softmax_is_stable():
    out = ref.softmax(a([[1000.0, 1000.0], [-np.inf, 0.0], [-1000.0, 0.0]]), axis=-1)
    assert out.tolist() == [[0.5, 0.5], [0.0, 1.0], [0.0, 1.0]]
    assert out.dtype == F32


def test_sigmoid_saturates_without_overflow():
    out = ref.sigmoid(a([-200.0, -100.0, 0.0, 100.0]))
    assert out.dtype == F32 and not np.isnan(out).any()
    assert out[0] == 0 and 0 < out[1] < 1e-40 and out[2] == 0.5 and out[3] == 1.0


@pytest.mark.parametrize(
    "fn",
    [
        lambda x: ref.conv2d(x, np.ones((2, 3, 1, 1), F32)),
        lambda x: ref.dense(x.reshape(2, 48), np.ones((5, 48), F32)),
        lambda x: ref.erf(x),
        lambda x: ref.gelu(x),
        lambda x: ref.gelu(x, "tanh"),
        lambda x: ref.sigmoid(x),
        lambda x: ref.leaky_relu(x, 0.2),
        lambda x: ref.softmax(x, 1),
        lambda x: ref.avg_pool2d(x, (2, 2), count_include_pad=True, padding=(1, 1, 1, 1)),
        lambda x: ref.global_avg_pool2d(x),
        lambda x: ref.batch_norm(x, *(np.ones(3, F32),) * 4),
        lambda x: ref.layer_norm(x, np.ones((4, 4), F32), np.zeros((4, 4), F32), axis=2),
        lambda x: ref.mean(x, (0, 1, 2, 3)),
        lambda x: ref.clip(x, -0.5, 0.5),
        lambda x: ref.pad(x, (0, 0, 0, 0, 1, 1, 1, 1), 2.0),
        lambda x: ref.qnn_dequantize(ref.qnn_quantize(x, a(0.1), np.array(0, np.int8)), a(0.1), np.array(0, np.int8)),
    ],
    ids=["conv2d", "dense", "erf", "gelu", "gelu-tanh", "sigmoid", "leaky_relu", "softmax", "avg_pool2d",
         "global_avg_pool2d", "batch_norm", "layer_norm", "mean-all", "clip", "pad", "dequantize"],
)  # fmt: skip
def test_float_ops_keep_float32(fn):
    x = np.random.default_rng(4).standard_normal((2, 3, 4, 4)).astype(F32)
    out = fn(x)
    assert isinstance(out, np.ndarray) and out.dtype == F32


def test_layer_norm_over_trailing_axes():
    x = a([[[1.0, 3.0], [5.0, 7.0]]])  # normalise over the last two axes: mean 4, var 5
    out = ref.layer_norm(x, np.ones((2, 2), F32), np.zeros((2, 2), F32), axis=1, epsilon=0.0)
    np.testing.assert_allclose(out, np.array([[[-3, -1], [1, 3]]]) / math.sqrt(5), rtol=1e-6)


# --------------------------------------------------------------------------------------
# Shapes and indexing
# --------------------------------------------------------------------------------------


def test_pad_modes():
    x = a([1.0, 2.0, 3.0])
    assert ref.pad(x, (2, 2), pad_mode="reflect").tolist() == [3, 2, 1, 2, 3, 2, 1]
    assert ref.pad(x, (2, 1), pad_mode="edge").tolist() == [1, 1, 1, 2, 3, 3]
    assert ref.pad(x, (1, 0), pad_value=-4.5).tolist() == [-4.5, 1, 2, 3]
    assert ref.pad(np.array([1, 2], np.int8), (1, 1), pad_value=-300.7).tolist() == [-128, 1, 2, -128]


def test_take_wraps_negative_indices_once_and_rejects_out_of_range():
    x = a([[10.0, 11.0, 12.0], [20.0, 21.0, 22.0]])
    assert ref.take(x, np.array([-1, 0, 2], np.int64), axis=1).tolist() == [[12, 10, 12], [22, 20, 22]]
    assert ref.take(x, np.array([[-2]], np.int32), axis=0).tolist() == [[[10, 11, 12]]]
    with pytest.raises(ValueError, match="index 3 is out of range for axis 1 of size 3"):
        ref.take(x, np.array([0, 3]), axis=1)
    with pytest.raises(ValueError, match="index -4 is out of range"):
        ref.take(x, np.array([-4]), axis=1)


def test_batch_matmul_defaults_to_transposed_rhs():
    lhs = np.arange(6, dtype=F32).reshape(1, 2, 3)
    rhs = np.arange(12, dtype=F32).reshape(1, 4, 3)  # [B, N, K]
    np.testing.assert_array_equal(ref.batch_matmul(lhs, rhs), lhs @ np.swapaxes(rhs, 1, 2))
    broadcast = ref.batch_matmul(np.ones((3, 1, 2, 5), F32), np.ones((4, 5, 6), F32), transpose_b=False)
    assert broadcast.shape == (3, 4, 2, 6) and broadcast.dtype == F32


def test_dense_is_x_times_w_transposed():
    x = a([[1.0, 2.0]])
    w = a([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])  # [N=3, K=2]
    assert ref.dense(x, w).tolist() == [[1.0, 2.0, 3.0]]


# --------------------------------------------------------------------------------------
# Run-time math
# --------------------------------------------------------------------------------------


def test_integer_negative_and_abs_wrap():
    x = np.array([-128, -1, 0, 127], np.int8)
    assert ref.negative(x).tolist() == [-128, 1, 0, -127]
    assert ref.absolute(x).tolist() == [-128, 1, 0, 127]
    assert ref.negative(np.array([1, 0], np.uint8)).tolist() == [255, 0]


def test_maximum_minimum_nan_wins_and_comparisons_with_nan_are_false():
    x, y = a([1.0, np.nan, 3.0]), a([np.nan, 2.0, 1.0])
    assert np.isnan(ref.maximum(x, y)[:2]).all() and ref.maximum(x, y)[2] == 3.0
    assert np.isnan(ref.minimum(x, y)[:2]).all() and ref.minimum(x, y)[2] == 1.0
    assert ref.compare("less", x, y).tolist() == [False, False, False]
    assert ref.compare("not_equal", x, y).tolist() == [True, True, True]
    assert ref.compare("equal", x, y).dtype == np.bool_


def test_reductions_wrap_and_empty_max_min_give_the_extremes():
    x = np.array([[100, 100, 100]], np.int8)
    assert ref.reduce_sum(x, (1,)).tolist() == [44]  # 300 wraps
    assert ref.reduce_prod(np.array([16, 16], np.int8), (0,)).tolist() == 0  # 256 wraps
    empty = np.zeros((2, 0), F32)
    assert ref.reduce_max(empty, (1,)).tolist() == [-math.inf, -math.inf]
    assert ref.reduce_min(np.zeros((0,), np.int8), (0,)).tolist() == 127
    assert ref.reduce_sum(empty, (1,)).tolist() == [0.0, 0.0]


def test_strided_slice_negative_steps_and_clamping():
    x = np.arange(9, dtype=np.int32)
    r = relay.StridedSliceOp.ranges((9,), {"begin": (7,), "end": (0,), "strides": (-2,), "axes": None})
    assert ref.strided_slice(x, r).tolist() == [7, 5, 3, 1]
    r = relay.StridedSliceOp.ranges((9,), {"begin": (-1,), "end": (-100,), "strides": (-3,), "axes": None})
    assert ref.strided_slice(x, r).tolist() == [8, 5, 2]  # down to index 0 and past it
    r = relay.StridedSliceOp.ranges((9,), {"begin": (-3,), "end": (100,), "strides": None, "axes": None})
    assert ref.strided_slice(x, r).tolist() == [6, 7, 8]


def test_where_broadcasts_all_three():
    c = np.array([[True], [False]])
    assert ref.where(c, a([1.0, 2.0]), a(0.0)).tolist() == [[1.0, 2.0], [0.0, 0.0]]
    assert ref.broadcast_to(a([1.0, 2.0]), (2, 1)).tolist() == [[1.0, 2.0], [1.0, 2.0]]
