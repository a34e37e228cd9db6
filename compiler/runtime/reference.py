"""Reference semantics of the relay ops, as plain numpy functions.

One function per relay op, named after it (`conv2d`, `qnn_requantize`, ...). They take
numpy arrays and the op's properties as Python values, never IR objects, so they can be
read (and tested) as the specification of what every later lowering must compute. The
interpreter (`accel.compiler.runtime.interpreter`) calls them; `docs/semantics.md` summarises
the rules.

Conventions:
- Float ops compute in the dtype of their inputs (float32 stays float32); only `erf`
  (and the exact `gelu`) evaluate the transcendental in float64 and round once.
- Integer arithmetic wraps like C's fixed-width types, except where a rule below says
  it saturates (cast, quantize) or raises (integer division by zero, i32 accumulator
  overflow, `take` index out of range).
- Data-dependent errors are `ValueError`s with a one-line message; the interpreter turns
  them into a located `CompileError`.
- Quantization follows ONNX: QuantizeLinear divides in float32 and rounds half to even,
  then adds the zero point and saturates to the integer type; DequantizeLinear computes
  `(q - zp)` exactly and multiplies by the scale in float32.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from accel.compiler.narrow_types import iinfo
from accel.compiler.resize_sampling import (resize2d_taps, resize_nearest_index,  # noqa: F401 (Resize's semantics)
                                            resize_source_coordinate, resize_taps)
from accel.compiler.tensors import cast  # noqa: F401 (the `cast` op's semantics, defined with the tensors)
from accel.dialects.relay import pool_out_dim

# --------------------------------------------------------------------------------------
# Helpers
# --------------------------------------------------------------------------------------


def _lowest(dtype: np.dtype):
    dtype = np.dtype(dtype)
    if dtype.kind == "f":
        return -np.inf
    if dtype == np.bool_:
        return False
    return np.iinfo(dtype).min


def _windows(x: np.ndarray, kernel: Sequence[int], strides: Sequence[int], dilation: Sequence[int]) -> np.ndarray:
    """Sliding windows over the last two axes of a padded NCHW array, as a view of
    shape (N, C, OH, OW, KH, KW) with OH = (H - eff_h) // stride + 1."""
    (kh, kw), (sh, sw), (dh, dw) = kernel, strides, dilation
    eff_h, eff_w = dh * (kh - 1) + 1, dw * (kw - 1) + 1
    view = sliding_window_view(x, (eff_h, eff_w), axis=(2, 3))
    return view[:, :, ::sh, ::sw, ::dh, ::dw]


def _window_sums(x: np.ndarray, kernel: Sequence[int], strides: Sequence[int], dilation: Sequence[int],
                 oh: int, ow: int) -> np.ndarray:
    """The sum of each of the first `oh` x `ow` windows over the last two axes of a padded
    NCHW array, tap by tap in row-major order: the same additions in the same order for a
    window whatever the stride (numpy's sum over a window view orders them by the view's
    strides, so a pool at stride 1 subsampled could differ in the last bit from the pool
    at its stride)."""
    (kh, kw), (sh, sw), (dh, dw) = kernel, strides, dilation
    # (numpy's sum accumulates integers in the platform's int64)
    total = np.zeros((*x.shape[:2], oh, ow), x.dtype if x.dtype.kind == "f" else np.int64)
    for i in range(kh):
        for j in range(kw):
            total += x[:, :, i * dh: i * dh + sh * (oh - 1) + 1: sh, j * dw: j * dw + sw * (ow - 1) + 1: sw][:, :, :oh, :ow]
    return total


def _pad_hw(x: np.ndarray, top: int, left: int, bottom: int, right: int, value=0) -> np.ndarray:
    if not (top or left or bottom or right):
        return x
    return np.pad(x, ((0, 0), (0, 0), (top, bottom), (left, right)), constant_values=value)


def _per_axis(param: np.ndarray, ndim: int, axis: int) -> np.ndarray:
    """A scale or zero point ready to broadcast against data of rank `ndim`:
    a scalar stays a scalar, a 1-D tensor is laid along `axis`."""
    param = np.asarray(param)
    if param.size == 1:
        return param.reshape(())
    shape = [1] * ndim
    shape[axis % ndim] = param.size
    return param.reshape(shape)


def _to_int32(acc: np.ndarray, what: str) -> np.ndarray:
    """An exact int64 accumulator as the int32 the hardware would hold; raises when
    an int32 accumulator would have overflowed."""
    info = np.iinfo(np.int32)
    if acc.size and (acc.min() < info.min or acc.max() > info.max):
        raise ValueError(f"{what} overflows the int32 accumulator (range [{acc.min()}, {acc.max()}])")
    return acc.astype(np.int32)


# --------------------------------------------------------------------------------------
# Convolution, dense, matmul
# --------------------------------------------------------------------------------------


def _conv2d_core(
    data: np.ndarray,
    weight: np.ndarray,
    strides: Sequence[int],
    padding: Sequence[int],
    dilation: Sequence[int],
    groups: int,
) -> np.ndarray:
    """im2col convolution: one batched matrix product per group (BLAS for floats)."""
    n, c, _, _ = data.shape
    o, cg, kh, kw = weight.shape
    og = o // groups
    top, left, bottom, right = padding
    windows = _windows(_pad_hw(data, top, left, bottom, right), (kh, kw), strides, dilation)
    oh, ow = windows.shape[2], windows.shape[3]
    # (N, G, Cg, OH, OW, KH, KW) -> (G, N*OH*OW, Cg*KH*KW)
    cols = windows.reshape(n, groups, cg, oh, ow, kh, kw).transpose(1, 0, 3, 4, 2, 5, 6)
    # Contiguous operands: numpy's matmul sums in an order that depends on the strides,
    # and the result must not depend on how the data happens to be laid out.
    cols = np.ascontiguousarray(cols.reshape(groups, n * oh * ow, cg * kh * kw))
    kernels = np.ascontiguousarray(weight.reshape(groups, og, cg * kh * kw).transpose(0, 2, 1))
    out = np.matmul(cols, kernels)  # (G, N*OH*OW, Og)
    return out.reshape(groups, n, oh, ow, og).transpose(1, 0, 4, 2, 3).reshape(n, o, oh, ow)


def conv2d(
    data: np.ndarray,
    weight: np.ndarray,
    strides: Sequence[int] = (1, 1),
    padding: Sequence[int] = (0, 0, 0, 0),
    dilation: Sequence[int] = (1, 1),
    groups: int = 1,
) -> np.ndarray:
    """NCHW data, OIHW weight (I = C / groups); padding is (top, left, bottom, right)
    with zeros. Depthwise is groups == C."""
    return _conv2d_core(data, weight, strides, padding, dilation, groups).astype(data.dtype, copy=False)


def _product(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """`np.matmul` of row-major copies: numpy's product sums in an order (and with fused
    multiply-adds or not) that depends on its operands' strides, so a transposed view and
    its row-major copy (what fold-constants leaves of a transpose) gave results one unit
    in the last place apart (hypothesis found it). The reference is the same for both."""
    return np.matmul(np.ascontiguousarray(a), np.ascontiguousarray(b))


def dense(data: np.ndarray, weight: np.ndarray) -> np.ndarray:
    """y = x · Wᵀ with data [..., K] and weight [N, K]."""
    return _product(data, weight.T)


def matmul(lhs: np.ndarray, rhs: np.ndarray, transpose_a: bool = False, transpose_b: bool = False) -> np.ndarray:
    return _product(lhs.T if transpose_a else lhs, rhs.T if transpose_b else rhs)


def batch_matmul(lhs: np.ndarray, rhs: np.ndarray, transpose_a: bool = False, transpose_b: bool = True) -> np.ndarray:
    """Matrix product of the last two axes; leading axes broadcast. TVM's default
    `transpose_b=True` takes rhs as [..., N, K]."""
    a = np.swapaxes(lhs, -1, -2) if transpose_a else lhs
    b = np.swapaxes(rhs, -1, -2) if transpose_b else rhs
    return _product(a, b)


def bias_add(data: np.ndarray, bias: np.ndarray, axis: int = 1) -> np.ndarray:
    shape = [1] * data.ndim
    shape[axis % data.ndim] = bias.size
    return data + bias.reshape(shape)


# --------------------------------------------------------------------------------------
# Elementwise
# --------------------------------------------------------------------------------------


def add(lhs: np.ndarray, rhs: np.ndarray) -> np.ndarray:
    return np.add(lhs, rhs)


def subtract(lhs: np.ndarray, rhs: np.ndarray) -> np.ndarray:
    return np.subtract(lhs, rhs)


def multiply(lhs: np.ndarray, rhs: np.ndarray) -> np.ndarray:
    return np.multiply(lhs, rhs)


def divide(lhs: np.ndarray, rhs: np.ndarray) -> np.ndarray:
    """Float: IEEE division (x/0 is ±inf or nan). Integer: truncates toward zero as in
    C and ONNX; division by zero raises."""
    if lhs.dtype.kind == "f":
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.divide(lhs, rhs)
    if np.any(rhs == 0):
        raise ValueError("integer division by zero")
    quotient = np.floor_divide(lhs, rhs)
    if lhs.dtype.kind == "u":
        return quotient
    # floor and truncation differ when the division is inexact and the signs differ.
    inexact = np.multiply(quotient, rhs) != lhs
    return np.where(inexact & ((lhs < 0) != (rhs < 0)), quotient + 1, quotient).astype(quotient.dtype, copy=False)


def relu(data: np.ndarray) -> np.ndarray:
    return np.maximum(data, np.zeros((), data.dtype))


def clip(data: np.ndarray, a_min: float, a_max: float) -> np.ndarray:
    """min(max(x, a_min), a_max). For integer data the bounds are rounded inward
    (ceil(a_min), floor(a_max)) and limited to the type's range."""
    if data.dtype.kind == "f":
        lo, hi = np.asarray(a_min, data.dtype), np.asarray(a_max, data.dtype)
    else:
        info = np.iinfo(data.dtype)
        lo = np.asarray(min(max(math.ceil(a_min) if math.isfinite(a_min) else a_min, info.min), info.max), data.dtype)
        hi = np.asarray(max(min(math.floor(a_max) if math.isfinite(a_max) else a_max, info.max), info.min), data.dtype)
    return np.minimum(np.maximum(data, lo), hi)


def sigmoid(data: np.ndarray) -> np.ndarray:
    """1 / (1 + exp(-x)), evaluated without overflow for large |x|."""
    e = np.exp(-np.abs(data))
    return np.where(data >= 0, 1 / (1 + e), e / (1 + e)).astype(data.dtype, copy=False)


def tanh(data: np.ndarray) -> np.ndarray:
    return np.tanh(data)


_erf64 = np.frompyfunc(math.erf, 1, 1)


def erf(data: np.ndarray) -> np.ndarray:
    """erf via math.erf in float64, rounded once to the input type (correctly rounded
    for float32)."""
    return np.asarray(_erf64(data.astype(np.float64)), dtype=np.float64).astype(data.dtype)


def gelu(data: np.ndarray, approximate: str = "none") -> np.ndarray:
    """Exact: x/2 * (1 + erf(x / sqrt 2)). "tanh": x/2 * (1 + tanh(sqrt(2/pi) * (x + 0.044715 x^3)))
    (ONNX Gelu-20)."""
    x = data
    if approximate == "tanh":
        inner = np.asarray(math.sqrt(2 / math.pi), x.dtype) * (x + np.asarray(0.044715, x.dtype) * x * x * x)
        return (np.asarray(0.5, x.dtype) * x * (1 + np.tanh(inner))).astype(x.dtype, copy=False)
    if approximate != "none":
        raise ValueError(f"unknown gelu approximation '{approximate}'")
    x64 = x.astype(np.float64)
    e = np.asarray(_erf64(x64 * math.sqrt(0.5)), dtype=np.float64)
    return (0.5 * x64 * (1 + e)).astype(x.dtype)


def hardsigmoid(data: np.ndarray, alpha: float = 0.2, beta: float = 0.5) -> np.ndarray:
    """max(0, min(1, alpha * x + beta)), alpha and beta rounded to the data type."""
    y = np.asarray(alpha, data.dtype) * data + np.asarray(beta, data.dtype)
    return np.minimum(np.maximum(y, np.zeros((), data.dtype)), np.ones((), data.dtype))


HARDSWISH_ALPHA = 1.0 / 6.0
"""HardSwish is x * hardsigmoid(x) with alpha = 1/6, beta = 1/2 (ONNX HardSwish-14)."""


def hardswish(data: np.ndarray) -> np.ndarray:
    return data * hardsigmoid(data, HARDSWISH_ALPHA, 0.5)


def silu(data: np.ndarray) -> np.ndarray:
    """x * sigmoid(x)."""
    return data * sigmoid(data)


def leaky_relu(data: np.ndarray, alpha: float = 0.01) -> np.ndarray:
    return np.where(data >= 0, data, data * np.asarray(alpha, data.dtype)).astype(data.dtype, copy=False)


def softmax(data: np.ndarray, axis: int = -1) -> np.ndarray:
    """exp(x - max) / sum(exp(x - max)) along `axis` (summed in a layout-independent order)."""
    data = np.ascontiguousarray(data)
    shifted = data - np.max(data, axis=axis, keepdims=True)
    e = np.exp(shifted)
    return e / np.sum(e, axis=axis, keepdims=True)


# --------------------------------------------------------------------------------------
# Pooling and normalization
# --------------------------------------------------------------------------------------


def _pool_geometry(shape, pool_size, strides, dilation, padding, ceil_mode):
    """Output size and the extra trailing cells ceil_mode needs, per spatial axis."""
    _, _, h, w = shape
    top, left, bottom, right = padding
    dims = []
    for size, k, s, d, lo, hi in ((h, pool_size[0], strides[0], dilation[0], top, bottom),
                                  (w, pool_size[1], strides[1], dilation[1], left, right)):  # fmt: skip
        out = pool_out_dim(size, k, s, d, lo, hi, ceil_mode)
        needed = (out - 1) * s + d * (k - 1) + 1
        dims.append((out, max(0, needed - (size + lo + hi))))
    return dims


def max_pool2d(
    data: np.ndarray,
    pool_size: Sequence[int],
    strides: Sequence[int] = (1, 1),
    dilation: Sequence[int] = (1, 1),
    padding: Sequence[int] = (0, 0, 0, 0),
    ceil_mode: bool = False,
) -> np.ndarray:
    """Max over each window; padded (and ceil_mode's extra) cells never win."""
    (oh, extra_h), (ow, extra_w) = _pool_geometry(data.shape, pool_size, strides, dilation, padding, ceil_mode)
    top, left, bottom, right = padding
    padded = _pad_hw(data, top, left, bottom + extra_h, right + extra_w, _lowest(data.dtype))
    windows = _windows(padded, pool_size, strides, dilation)[:, :, :oh, :ow]
    return windows.max(axis=(-2, -1))


def _window_counts(size, k, stride, dil, lo, hi, extra, out, include_pad) -> np.ndarray:
    """How many counted cells each of the `out` windows along one axis covers."""
    mask = np.zeros(lo + size + hi + extra, np.int64)
    if include_pad:
        mask[: lo + size + hi] = 1
    else:
        mask[lo : lo + size] = 1
    windows = sliding_window_view(mask, dil * (k - 1) + 1)[::stride, ::dil]
    return windows.sum(axis=-1)[:out]


def avg_pool2d(
    data: np.ndarray,
    pool_size: Sequence[int],
    strides: Sequence[int] = (1, 1),
    dilation: Sequence[int] = (1, 1),
    padding: Sequence[int] = (0, 0, 0, 0),
    ceil_mode: bool = False,
    count_include_pad: bool = False,
) -> np.ndarray:
    """Sum of the window's input cells divided by the number of counted cells: the
    input cells, plus the explicit padding cells when `count_include_pad`; the extra
    cells that only ceil_mode adds are never counted (onnxruntime's rule). A window
    with no counted cell averages to 0."""
    (oh, extra_h), (ow, extra_w) = _pool_geometry(data.shape, pool_size, strides, dilation, padding, ceil_mode)
    top, left, bottom, right = padding
    _, _, h, w = data.shape
    padded = _pad_hw(data, top, left, bottom + extra_h, right + extra_w, 0)
    sums = _window_sums(padded, pool_size, strides, dilation, oh, ow)
    count_h = _window_counts(h, pool_size[0], strides[0], dilation[0], top, bottom, extra_h, oh, count_include_pad)
    count_w = _window_counts(w, pool_size[1], strides[1], dilation[1], left, right, extra_w, ow, count_include_pad)
    counts = np.maximum(np.outer(count_h, count_w), 1).astype(data.dtype)
    return (sums / counts).astype(data.dtype, copy=False)


def global_avg_pool2d(data: np.ndarray) -> np.ndarray:
    # Contiguous first: numpy's summation order (so the last bit) follows the layout.
    return np.mean(np.ascontiguousarray(data), axis=(2, 3), keepdims=True)


def batch_norm(
    data: np.ndarray,
    gamma: np.ndarray,
    beta: np.ndarray,
    moving_mean: np.ndarray,
    moving_var: np.ndarray,
    axis: int = 1,
    epsilon: float = 1e-5,
) -> np.ndarray:
    """Inference: (x - mean) / sqrt(var + epsilon) * gamma + beta along `axis`."""
    shape = [1] * data.ndim
    shape[axis % data.ndim] = -1
    centred = data - moving_mean.reshape(shape)
    return centred * batch_norm_scale(gamma, moving_var, epsilon).reshape(shape) + beta.reshape(shape)


def batch_norm_scale(gamma: np.ndarray, moving_var: np.ndarray, epsilon: float) -> np.ndarray:
    """The per-channel factor of inference batch norm: gamma / sqrt(var + epsilon)."""
    inv_std = 1 / np.sqrt(moving_var + np.asarray(epsilon, moving_var.dtype))
    return inv_std * gamma


def layer_norm(data: np.ndarray, gamma: np.ndarray, beta: np.ndarray, axis: int = -1, epsilon: float = 1e-5) -> np.ndarray:
    """ONNX LayerNormalization: normalise over axes [axis, rank) with the population
    variance; float16 data is normalised in float32 (ONNX's stash_type = 1)."""
    axes = tuple(range(axis % data.ndim, data.ndim))
    x = np.ascontiguousarray(data.astype(np.float32) if data.dtype == np.float16 else data)
    mean = np.mean(x, axis=axes, keepdims=True)  # contiguous: the sum order must not depend on the layout
    centred = x - mean
    var = np.mean(centred * centred, axis=axes, keepdims=True)
    normed = centred / np.sqrt(var + np.asarray(epsilon, x.dtype))
    return (normed.astype(data.dtype, copy=False) * gamma + beta).astype(data.dtype, copy=False)


def rms_norm(data: np.ndarray, gamma: np.ndarray, axis: int = -1, epsilon: float = 1e-5) -> np.ndarray:
    """ONNX RMSNormalization: x / sqrt(mean(x * x) + epsilon) over axes [axis, rank), times
    gamma; float16 data is normalised in float32 (ONNX's stash_type = 1)."""
    axes = tuple(range(axis % data.ndim, data.ndim))
    x = np.ascontiguousarray(data.astype(np.float32) if data.dtype == np.float16 else data)
    square_mean = np.mean(x * x, axis=axes, keepdims=True)  # contiguous: a fixed sum order
    normed = x / np.sqrt(square_mean + np.asarray(epsilon, x.dtype))
    return (normed.astype(data.dtype, copy=False) * gamma).astype(data.dtype, copy=False)


def mean(data: np.ndarray, axes: Sequence[int], keepdims: bool = False) -> np.ndarray:
    """Mean over `axes` (already resolved: relay's `exclude` and "all axes" applied)."""
    return np.asarray(np.mean(np.ascontiguousarray(data), axis=tuple(axes), keepdims=keepdims), dtype=data.dtype)


# --------------------------------------------------------------------------------------
# Shape manipulation
# --------------------------------------------------------------------------------------


def reshape(data: np.ndarray, shape: Sequence[int]) -> np.ndarray:
    """Reshape to a resolved shape (relay's 0 / -1 codes already applied)."""
    return data.reshape(tuple(shape))


def transpose(data: np.ndarray, axes: Sequence[int] | None = None) -> np.ndarray:
    return np.transpose(data, None if axes is None else tuple(axes))


def concatenate(inputs: Sequence[np.ndarray], axis: int = 0) -> np.ndarray:
    return np.concatenate(list(inputs), axis=axis)


def pad(data: np.ndarray, pad_width: Sequence[int], pad_value: float = 0.0, pad_mode: str = "constant") -> np.ndarray:
    """`pad_width` is [before_0, after_0, before_1, after_1, ...]. "reflect" mirrors
    without repeating the edge (numpy/ONNX reflect); "edge" repeats it; "wrap" repeats the
    tensor periodically (numpy/ONNX wrap). For integer
    data the constant is converted like `cast` (truncated, saturated)."""
    pairs = [(pad_width[2 * i], pad_width[2 * i + 1]) for i in range(data.ndim)]
    if pad_mode == "constant":
        value = cast(np.asarray(pad_value, np.float64), data.dtype)
        return np.pad(data, pairs, mode="constant", constant_values=value)
    if pad_mode in ("edge", "reflect", "wrap"):
        return np.pad(data, pairs, mode=pad_mode)
    raise ValueError(f"unknown pad mode '{pad_mode}'")


def batch_flatten(data: np.ndarray) -> np.ndarray:
    return data.reshape(data.shape[0], math.prod(data.shape[1:]))


def take(data: np.ndarray, indices: np.ndarray, axis: int = 0) -> np.ndarray:
    """ONNX Gather: an index in [-n, n) selects along `axis` (negative ones count from
    the end); any other index is an error."""
    axis %= data.ndim
    n = data.shape[axis]
    idx = indices.astype(np.int64, copy=False)
    bad = (idx < -n) | (idx >= n)
    if np.any(bad):
        first = int(idx[bad].flat[0])
        raise ValueError(f"index {first} is out of range for axis {axis} of size {n}")
    return np.take(data, np.where(idx < 0, idx + n, idx), axis=axis)


def qnn_quantize(data: np.ndarray, scale: np.ndarray, zero_point: np.ndarray, axis: int = -1) -> np.ndarray:
    """q = saturate(round_half_even(x / scale) + zero_point), the division in the float
    type of x (float32), the result of zero_point's integer type. Per-axis scale and
    zero point lie along `axis`. NaN quantizes to the zero point; ±inf saturates."""
    dtype = zero_point.dtype
    s = _per_axis(scale, data.ndim, axis)
    zp = _per_axis(zero_point, data.ndim, axis).astype(np.float64)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        rounded = np.rint(data / s.astype(data.dtype, copy=False))
    rounded = np.where(np.isnan(rounded), 0, rounded).astype(np.float64)
    info = iinfo(dtype)
    return np.clip(rounded + zp, info.min, info.max).astype(dtype)


def qnn_dequantize(data: np.ndarray, scale: np.ndarray, zero_point: np.ndarray, axis: int = -1) -> np.ndarray:
    """x = float(q - zero_point) * scale: the difference exact, the product in the
    scale's float type."""
    s = _per_axis(scale, data.ndim, axis)
    zp = _per_axis(zero_point, data.ndim, axis).astype(np.int64)
    return (data.astype(np.int64) - zp).astype(s.dtype) * s


def qnn_requantize(
    data: np.ndarray,
    input_scale: np.ndarray,
    input_zero_point: np.ndarray,
    output_scale: np.ndarray,
    output_zero_point: np.ndarray,
    axis: int = -1,
) -> np.ndarray:
    """Exactly DequantizeLinear then QuantizeLinear in float32:
    saturate(round_half_even(f32((q - in_zp) * in_scale) / out_scale) + out_zp)."""
    real = qnn_dequantize(data, input_scale, input_zero_point, axis)
    return qnn_quantize(real, output_scale, output_zero_point, axis)


def qnn_conv2d(
    data: np.ndarray,
    weight: np.ndarray,
    input_zero_point: np.ndarray,
    kernel_zero_point: np.ndarray,
    strides: Sequence[int] = (1, 1),
    padding: Sequence[int] = (0, 0, 0, 0),
    dilation: Sequence[int] = (1, 1),
    groups: int = 1,
) -> np.ndarray:
    """int32 sum((x - input_zp) * (w - kernel_zp)); the kernel zero point may be per
    output channel. Padding holds the input zero point (it contributes nothing)."""
    x = data.astype(np.int64) - np.int64(np.asarray(input_zero_point).reshape(()))
    w = weight.astype(np.int64) - _per_axis(kernel_zero_point, 4, 0).astype(np.int64)
    return _to_int32(_conv2d_core(x, w, strides, padding, dilation, groups), "qnn.conv2d")


def qnn_dense(data: np.ndarray, weight: np.ndarray, input_zero_point: np.ndarray, kernel_zero_point: np.ndarray) -> np.ndarray:
    """int32 (x - input_zp) · (W - kernel_zp)ᵀ; the kernel zero point may be per row of W."""
    x = data.astype(np.int64) - np.int64(np.asarray(input_zero_point).reshape(()))
    w = weight.astype(np.int64) - _per_axis(kernel_zero_point, 2, 0).astype(np.int64)
    return _to_int32(np.matmul(x, w.T), "qnn.dense")


def qnn_add(
    lhs: np.ndarray,
    rhs: np.ndarray,
    lhs_scale: np.ndarray,
    lhs_zero_point: np.ndarray,
    rhs_scale: np.ndarray,
    rhs_zero_point: np.ndarray,
    output_scale: np.ndarray,
    output_zero_point: np.ndarray,
) -> np.ndarray:
    """quantize(dequantize(lhs) + dequantize(rhs)), all in float32, broadcasting."""
    a = qnn_dequantize(lhs, lhs_scale, lhs_zero_point)
    b = qnn_dequantize(rhs, rhs_scale, rhs_zero_point)
    return qnn_quantize(a + b, output_scale, output_zero_point)


# --------------------------------------------------------------------------------------
# Run-time math: elementwise functions, comparisons, selection, reductions
# --------------------------------------------------------------------------------------


def sqrt(data: np.ndarray) -> np.ndarray:
    with np.errstate(invalid="ignore"):
        return np.sqrt(data)


def floor(data: np.ndarray) -> np.ndarray:
    return np.floor(data)


def ceil(data: np.ndarray) -> np.ndarray:
    return np.ceil(data)


def round_half_even(data: np.ndarray) -> np.ndarray:
    return np.round(data)  # numpy rounds halves to even


def exp(data: np.ndarray) -> np.ndarray:
    with np.errstate(over="ignore", under="ignore"):
        return np.exp(data)


def sin(data: np.ndarray) -> np.ndarray:
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        return np.sin(data)


def cos(data: np.ndarray) -> np.ndarray:
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        return np.cos(data)


def tan(data: np.ndarray) -> np.ndarray:
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        return np.tan(data)


def asin(data: np.ndarray) -> np.ndarray:
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        return np.arcsin(data)


def acos(data: np.ndarray) -> np.ndarray:
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        return np.arccos(data)


def atan(data: np.ndarray) -> np.ndarray:
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        return np.arctan(data)


def sinh(data: np.ndarray) -> np.ndarray:
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        return np.sinh(data)


def cosh(data: np.ndarray) -> np.ndarray:
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        return np.cosh(data)


def asinh(data: np.ndarray) -> np.ndarray:
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        return np.arcsinh(data)


def acosh(data: np.ndarray) -> np.ndarray:
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        return np.arccosh(data)


def atanh(data: np.ndarray) -> np.ndarray:
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        return np.arctanh(data)


def log(data: np.ndarray) -> np.ndarray:
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.log(data)


def negative(data: np.ndarray) -> np.ndarray:
    """-x; integers wrap (unsigned: 2^n - x)."""
    with np.errstate(over="ignore"):
        return np.negative(data)


def absolute(data: np.ndarray) -> np.ndarray:
    """|x| (relay.abs); integers wrap (|INT_MIN| == INT_MIN)."""
    return np.abs(data)


def power(lhs: np.ndarray, rhs: np.ndarray) -> np.ndarray:
    with np.errstate(all="ignore"):
        return np.power(lhs, rhs)


def maximum(lhs: np.ndarray, rhs: np.ndarray) -> np.ndarray:
    return np.maximum(lhs, rhs)


def minimum(lhs: np.ndarray, rhs: np.ndarray) -> np.ndarray:
    return np.minimum(lhs, rhs)


COMPARISONS = {
    "equal": np.equal,
    "not_equal": np.not_equal,
    "less": np.less,
    "less_equal": np.less_equal,
    "greater": np.greater,
    "greater_equal": np.greater_equal,
}
"""relay comparison op (short name) -> numpy function; results are bool."""


def compare(kind: str, lhs: np.ndarray, rhs: np.ndarray) -> np.ndarray:
    return COMPARISONS[kind](lhs, rhs)


def logical_not(data: np.ndarray) -> np.ndarray:
    return np.logical_not(data)


def logical_and(lhs: np.ndarray, rhs: np.ndarray) -> np.ndarray:
    return np.logical_and(lhs, rhs)


def logical_or(lhs: np.ndarray, rhs: np.ndarray) -> np.ndarray:
    return np.logical_or(lhs, rhs)


def logical_xor(lhs: np.ndarray, rhs: np.ndarray) -> np.ndarray:
    return np.logical_xor(lhs, rhs)


def where(condition: np.ndarray, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    return np.where(condition, x, y)


def _reduce(fn, data: np.ndarray, axes: Sequence[int], keepdims: bool) -> np.ndarray:
    # Contiguous first: numpy's summation order follows the memory layout.
    out = fn(np.ascontiguousarray(data), axis=tuple(axes), keepdims=keepdims)
    return np.asarray(out).astype(data.dtype, copy=False)


def reduce_sum(data: np.ndarray, axes: Sequence[int], keepdims: bool = False) -> np.ndarray:
    """relay.sum over resolved `axes`; integers wrap in their own type."""
    return _reduce(lambda a, **kw: np.sum(a, dtype=data.dtype, **kw), data, axes, keepdims)


def reduce_prod(data: np.ndarray, axes: Sequence[int], keepdims: bool = False) -> np.ndarray:
    """relay.prod over resolved `axes`; integers wrap in their own type."""
    return _reduce(lambda a, **kw: np.prod(a, dtype=data.dtype, **kw), data, axes, keepdims)


def reduce_max(data: np.ndarray, axes: Sequence[int], keepdims: bool = False) -> np.ndarray:
    """relay.max over resolved `axes`; nan wins; an empty reduction gives the type's
    lowest value (-inf for floats), as ONNX ReduceMax."""
    return _reduce(lambda a, **kw: np.max(a, initial=_lowest(data.dtype), **kw), data, axes, keepdims)


def reduce_min(data: np.ndarray, axes: Sequence[int], keepdims: bool = False) -> np.ndarray:
    """relay.min over resolved `axes`; nan wins; an empty reduction gives the type's
    highest value (inf for floats), as ONNX ReduceMin."""
    return _reduce(lambda a, **kw: np.min(a, initial=_highest(data.dtype), **kw), data, axes, keepdims)


def _highest(dtype: np.dtype):
    dtype = np.dtype(dtype)
    return np.inf if dtype.kind == "f" else np.iinfo(dtype).max


def strided_slice(data: np.ndarray, ranges: Sequence[range]) -> np.ndarray:
    """relay.strided_slice with every axis's picked indices resolved
    (`relay.StridedSliceOp.ranges`: numpy basic slicing per axis)."""
    return data[tuple(slice(r.start, r.stop if r.stop >= 0 else None, r.step) for r in ranges)]


def broadcast_to(data: np.ndarray, shape: Sequence[int]) -> np.ndarray:
    """relay.broadcast_to: numpy broadcasting of data against `shape`."""
    return np.broadcast_to(data, np.broadcast_shapes(data.shape, tuple(shape))).copy()


# --------------------------------------------------------------------------------------
# Image and layout ops (issue 11): resize, conv2d_transpose, depth_to_space,
# space_to_depth, gather (GatherElements), max_pool2d_indices
# --------------------------------------------------------------------------------------


def resize2d(
    data: np.ndarray,
    size: Sequence[int],
    scale_h: float | None = None,
    scale_w: float | None = None,
    method: str = "nearest",
    coordinate_transformation_mode: str = "half_pixel",
    nearest_mode: str = "round_prefer_floor",
    cubic_coeff_a: float = -0.75,
    exclude_outside: bool = False,
    antialias: bool = False,
    roi: Sequence[float] | None = None,
    extrapolation_value: float = 0.0,
) -> np.ndarray:
    """ONNX Resize of the last two axes of NCHW data. Nearest picks one input cell;
    linear and cubic apply `resize_taps` to H, then to W, in float64, with one rounding
    to the data's type at the end."""
    _, _, h, w = data.shape
    oh, ow = size
    sh = scale_h if scale_h is not None else oh / h
    sw = scale_w if scale_w is not None else ow / w
    if method == "nearest":
        ys = resize_source_coordinate(np.arange(oh, dtype=np.float64), sh, h, oh, coordinate_transformation_mode)
        xs = resize_source_coordinate(np.arange(ow, dtype=np.float64), sw, w, ow, coordinate_transformation_mode)
        iy, ix = resize_nearest_index(ys, h, nearest_mode), resize_nearest_index(xs, w, nearest_mode)
        return np.ascontiguousarray(data[:, :, iy[:, None], ix[None, :]])
    props = {"method": method, "coordinate_transformation_mode": coordinate_transformation_mode,
             "cubic_coeff_a": cubic_coeff_a, "exclude_outside": exclude_outside, "antialias": antialias, "roi": roi}
    (iy, wy, oy), (ix, wx, ox) = resize2d_taps((h, w), (oh, ow), (sh, sw), props)
    d = data.astype(np.float64)
    rows = np.einsum("nchkw,hk->nchw", d[:, :, iy, :], wy)
    rows[:, :, oy, :] = extrapolation_value
    out = np.einsum("nchwk,wk->nchw", rows[:, :, :, ix], wx)
    out[:, :, :, ox] = extrapolation_value
    return out.astype(data.dtype)


def conv2d_transpose(
    data: np.ndarray,
    weight: np.ndarray,
    strides: Sequence[int] = (1, 1),
    padding: Sequence[int] = (0, 0, 0, 0),
    dilation: Sequence[int] = (1, 1),
    groups: int = 1,
    output_padding: Sequence[int] = (0, 0),
) -> np.ndarray:
    """Each input cell scatters weight[c] (IOHW) times its value into the output at
    (ih * stride + kh * dilation - top, ...); cells outside the output are dropped."""
    n, c, h, w = data.shape
    _, og, kh, kw = weight.shape
    cg = c // groups
    (sh, sw), (dh, dw) = strides, dilation
    top, left, bottom, right = padding
    full_h = (h - 1) * sh + dh * (kh - 1) + 1 + output_padding[0]
    full_w = (w - 1) * sw + dw * (kw - 1) + 1 + output_padding[1]
    full = np.zeros((n, groups, og, full_h, full_w), dtype=np.float64)
    x = data.astype(np.float64).reshape(n, groups, cg, h, w)
    wt = weight.astype(np.float64).reshape(groups, cg, og, kh, kw)
    for i in range(kh):
        for j in range(kw):
            tap = np.einsum("ngchw,gco->ngohw", x, wt[:, :, :, i, j])
            full[:, :, :, i * dh : i * dh + (h - 1) * sh + 1 : sh, j * dw : j * dw + (w - 1) * sw + 1 : sw] += tap
    out = full[:, :, :, top : full_h - bottom, left : full_w - right]
    return np.ascontiguousarray(out.reshape(n, groups * og, out.shape[3], out.shape[4])).astype(data.dtype)


def depth_to_space(data: np.ndarray, block_size: int, mode: str = "DCR") -> np.ndarray:
    n, c, h, w = data.shape
    b = block_size
    if mode == "DCR":
        t = data.reshape(n, b, b, c // (b * b), h, w).transpose(0, 3, 4, 1, 5, 2)
    else:
        t = data.reshape(n, c // (b * b), b, b, h, w).transpose(0, 1, 4, 2, 5, 3)
    return np.ascontiguousarray(t.reshape(n, c // (b * b), h * b, w * b))


def space_to_depth(data: np.ndarray, block_size: int, mode: str = "DCR") -> np.ndarray:
    n, c, h, w = data.shape
    b = block_size
    t = data.reshape(n, c, h // b, b, w // b, b)
    t = t.transpose(0, 3, 5, 1, 2, 4) if mode == "DCR" else t.transpose(0, 1, 3, 5, 2, 4)
    return np.ascontiguousarray(t.reshape(n, c * b * b, h // b, w // b))


def gather(data: np.ndarray, indices: np.ndarray, axis: int = 0) -> np.ndarray:
    """ONNX GatherElements; an index outside [-n, n) is an error."""
    ax = axis % data.ndim
    n = data.shape[ax]
    idx = indices.astype(np.int64)
    if idx.size and (idx.min() < -n or idx.max() >= n):
        bad = idx[(idx < -n) | (idx >= n)].reshape(-1)[0]
        raise ValueError(f"gather index {bad} is out of range for axis {axis} of size {n}")
    idx = np.where(idx < 0, idx + n, idx)
    # take_along_axis wants the other axes to broadcast: cut data to the indices' extent.
    cut = tuple(slice(None) if i == ax else slice(0, s) for i, s in enumerate(idx.shape))
    return np.ascontiguousarray(np.take_along_axis(data[cut], idx, axis=ax))


def max_pool2d_indices(
    data: np.ndarray,
    pool_size: Sequence[int],
    strides: Sequence[int] = (1, 1),
    dilation: Sequence[int] = (1, 1),
    padding: Sequence[int] = (0, 0, 0, 0),
    ceil_mode: bool = False,
    storage_order: int = 0,
) -> np.ndarray:
    """Flat index (int64) of the first maximum of each max_pool2d window."""
    n, c, h, w = data.shape
    (oh, extra_h), (ow, extra_w) = _pool_geometry(data.shape, pool_size, strides, dilation, padding, ceil_mode)
    top, left, bottom, right = padding
    padded = _pad_hw(data, top, left, bottom + extra_h, right + extra_w, _lowest(data.dtype))
    windows = _windows(padded, pool_size, strides, dilation)[:, :, :oh, :ow]
    kh, kw = pool_size
    first = windows.reshape(n, c, oh, ow, kh * kw).argmax(axis=-1)
    ky, kx = first // kw, first % kw
    row = np.arange(oh)[:, None] * strides[0] + ky * dilation[0] - top
    col = np.arange(ow)[None, :] * strides[1] + kx * dilation[1] - left
    plane = (np.arange(n)[:, None, None, None] * c + np.arange(c)[None, :, None, None]) * (h * w)
    within = row * w + col if storage_order == 0 else col * h + row
    return (plane + within).astype(np.int64)


def dyn_clip(data: np.ndarray, a_min: np.ndarray, a_max: np.ndarray) -> np.ndarray:
    """min(max(x, a_min), a_max) with scalar bounds of x's type (NaN stays NaN)."""
    return np.minimum(np.maximum(data, a_min.reshape(())), a_max.reshape(()))


def _dynamic_range(data: np.ndarray) -> tuple[np.float32, np.float32]:
    """scale and the unrounded zero point of DynamicQuantizeLinear (ONNX's formulas, in
    float32)."""
    hi = np.float32(max(0.0, float(np.max(data)))) if data.size else np.float32(0)
    lo = np.float32(min(0.0, float(np.min(data)))) if data.size else np.float32(0)
    scale = np.float32(np.float32(1.0) if hi == lo else hi - lo) / np.float32(255)
    return scale, np.float32(0) - lo / scale


def dynamic_scale(data: np.ndarray) -> np.ndarray:
    return np.array(_dynamic_range(data)[0], np.float32)


def dynamic_zero_point(data: np.ndarray) -> np.ndarray:
    zp = _dynamic_range(data)[1]
    return np.array(np.rint(min(max(zp, np.float32(0)), np.float32(255))), np.uint8)


# --------------------------------------------------------------------------------------
# Scans, selection and integer bit ops
# --------------------------------------------------------------------------------------


def _dense(a: np.ndarray) -> np.ndarray:
    """A C-ordered copy of any rank (np.ascontiguousarray makes a scalar 1-D)."""
    return np.array(a, order="C")


def _cumulative(ufunc: np.ufunc, identity: int, data: np.ndarray, axis: int, exclusive: bool,
                reverse: bool) -> np.ndarray:
    ax = axis % data.ndim
    x = np.flip(data, ax) if reverse else data
    if exclusive:  # shift by one along the axis, the identity first
        first = np.full_like(np.take(x, [0], axis=ax), identity)
        x = np.concatenate([first, np.take(x, np.arange(x.shape[ax] - 1), axis=ax)], axis=ax)
    with np.errstate(all="ignore"):  # integers wrap; floats accumulate in order in their type
        y = ufunc.accumulate(x, axis=ax, dtype=data.dtype)
    return _dense(np.flip(y, ax) if reverse else y)


def cumsum(data: np.ndarray, axis: int = 0, exclusive: bool = False, reverse: bool = False) -> np.ndarray:
    """Running sum along `axis` (ONNX CumSum)."""
    return _cumulative(np.add, 0, data, axis, exclusive, reverse)


def cumprod(data: np.ndarray, axis: int = 0, exclusive: bool = False, reverse: bool = False) -> np.ndarray:
    """Running product along `axis` (ONNX CumProd)."""
    return _cumulative(np.multiply, 1, data, axis, exclusive, reverse)


def topk(data: np.ndarray, k: int, axis: int = -1, is_ascend: bool = False, ret_type: str = "indices") -> np.ndarray:
    """The k largest (smallest) along `axis`, sorted; ties: lower index first; nan is
    larger than every number (a stable ascending argsort puts nan last)."""
    ax = axis % data.ndim
    n = data.shape[ax]
    if is_ascend:
        order = np.argsort(data, axis=ax, kind="stable")
    else:  # descending and stable: sort the reversed axis ascending, reverse back
        order = (n - 1) - np.flip(np.argsort(np.flip(data, ax), axis=ax, kind="stable"), ax)
    idx = np.take(order, np.arange(k), axis=ax).astype(np.int64)
    if ret_type == "indices":
        return _dense(idx)
    return _dense(np.take_along_axis(data, idx, axis=ax))


def bitwise_and(lhs: np.ndarray, rhs: np.ndarray) -> np.ndarray:
    return np.bitwise_and(lhs, rhs)


def bitwise_or(lhs: np.ndarray, rhs: np.ndarray) -> np.ndarray:
    return np.bitwise_or(lhs, rhs)


def bitwise_xor(lhs: np.ndarray, rhs: np.ndarray) -> np.ndarray:
    return np.bitwise_xor(lhs, rhs)


def bitwise_not(data: np.ndarray) -> np.ndarray:
    return np.invert(data)


def _shift(lhs: np.ndarray, rhs: np.ndarray, left: bool) -> np.ndarray:
    a, b = np.broadcast_arrays(lhs, rhs)
    bits = a.dtype.itemsize * 8
    signed = a.dtype.kind == "i"
    b64 = b.astype(np.int64) if signed or a.dtype.itemsize < 8 else b
    valid = (b64 >= 0) & (b64 < bits)
    s = np.where(valid, b64, 0).astype(np.uint64)
    u = a.view(f"u{a.dtype.itemsize}").astype(np.uint64)
    if left:
        out = (u << s).astype(f"u{a.dtype.itemsize}").view(a.dtype)
        return np.where(valid, out, 0).astype(a.dtype)
    if signed:
        out = (a.astype(np.int64) >> s.astype(np.int64)).astype(a.dtype)
        return np.where(valid, out, np.where(a < 0, -1, 0)).astype(a.dtype)
    out = (u >> s).astype(a.dtype)
    return np.where(valid, out, 0).astype(a.dtype)


def left_shift(lhs: np.ndarray, rhs: np.ndarray) -> np.ndarray:
    """lhs << rhs in the type's bits; a shift outside [0, bits) gives 0 (ONNX BitShift)."""
    return _dense(_shift(lhs, rhs, True))


def right_shift(lhs: np.ndarray, rhs: np.ndarray) -> np.ndarray:
    """lhs >> rhs (arithmetic when signed); a shift outside [0, bits) gives 0, or -1 for a
    negative signed lhs (ONNX BitShift)."""
    return _dense(_shift(lhs, rhs, False))


def reinterpret(data: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """The bits of each element as `dtype` (of the same size; ONNX BitCast)."""
    return _dense(data).view(dtype)


def det(data: np.ndarray) -> np.ndarray:
    """Determinant of each [M, M] matrix of the last two axes: Gaussian elimination with
    partial pivoting (the first row of largest |pivot|) in f64, rounded once to the type
    (the C kernel's algorithm, step for step)."""
    n = data.shape[-1]
    mats = data.astype(np.float64).reshape(-1, n, n)
    out = np.empty(mats.shape[0], np.float64)
    for b, m in enumerate(mats):
        a = m.copy()
        d = 1.0
        for k in range(n):
            p = k + int(np.argmax(np.abs(a[k:, k])))
            if a[p, k] == 0.0 or a[p, k] != a[p, k]:
                d = 0.0 if a[p, k] == 0.0 else float("nan")
                break
            if p != k:
                a[[k, p]] = a[[p, k]]
                d = -d
            d *= a[k, k]
            for i in range(k + 1, n):
                f = a[i, k] / a[k, k]
                a[i, k:] -= f * a[k, k:]
        out[b] = d
    with np.errstate(over="ignore"):
        return _dense(out.reshape(data.shape[:-2]).astype(data.dtype))


# --------------------------------------------------------------------------------------
# Index ops: gather_nd, scatter_elements, scatter_nd (ONNX GatherND, ScatterElements,
# ScatterND)
# --------------------------------------------------------------------------------------


def _wrapped_indices(idx: np.ndarray, dims, what: str) -> np.ndarray:
    """int64 indices into axes of sizes `dims` (broadcast against idx), negative ones
    counted from the end; any index outside [-n, n) is an error."""
    idx = idx.astype(np.int64)
    n = np.broadcast_to(np.asarray(dims, np.int64), idx.shape) if idx.size else np.zeros(idx.shape, np.int64)
    bad = (idx < -n) | (idx >= n)
    if np.any(bad):
        first = int(idx[bad].flat[0])
        size = int(n[bad].flat[0])
        raise ValueError(f"{what} index {first} is out of range for an axis of size {size}")
    return np.where(idx < 0, idx + n, idx)


def gather_nd(data: np.ndarray, indices: np.ndarray, batch_dims: int = 0) -> np.ndarray:
    """ONNX GatherND: slices data[b..., indices[b..., q..., :], ...] after `batch_dims`
    shared leading axes."""
    b, k = batch_dims, indices.shape[-1]
    dims = data.shape[b : b + k]
    rest = data.shape[b + k :]
    idx = _wrapped_indices(indices, dims, "gather_nd")
    batch = math.prod(data.shape[:b])
    strides = np.array([math.prod(dims[i + 1 :]) for i in range(k)], np.int64)
    lin = (idx * strides).sum(axis=-1).reshape(batch, -1)
    flat = data.reshape((batch, math.prod(dims)) + rest)
    out = flat[np.arange(batch)[:, None], lin]
    return out.reshape(indices.shape[:-1] + rest).copy()  # ascontiguousarray makes a scalar 1-D


_SCATTER_UFUNCS = {"add": np.add, "mul": np.multiply, "max": np.maximum, "min": np.minimum}


def _scatter_flat(data: np.ndarray, lin: np.ndarray, updates: np.ndarray, reduction: str) -> np.ndarray:
    """y = data (rows: axis 0 of `data`) with rows lin[i] set to / combined with
    updates[i], i in order (of duplicate rows the last update wins for "none")."""
    out = data.copy()
    if reduction == "none":
        if lin.size:
            _, last_rev = np.unique(lin[::-1], return_index=True)
            keep = lin.size - 1 - last_rev
            out[lin[keep]] = updates[keep]
        return out
    with np.errstate(all="ignore"):
        _SCATTER_UFUNCS[reduction].at(out, lin, updates)
    return out


def scatter_elements(data: np.ndarray, indices: np.ndarray, updates: np.ndarray, axis: int = 0,
                     reduction: str = "none") -> np.ndarray:
    """ONNX ScatterElements: y = data; y[i with i[axis] = indices[i]] = updates[i] (or
    combined by `reduction`), positions in row-major order."""
    ax = axis % data.ndim
    idx = _wrapped_indices(indices, data.shape[ax], "scatter_elements")
    pos = list(np.indices(indices.shape, sparse=True))
    pos[ax] = idx
    lin = np.ravel_multi_index(tuple(np.broadcast_arrays(*pos)), data.shape).reshape(-1)
    out = _scatter_flat(data.reshape(-1), lin, updates.reshape(-1), reduction)
    return out.reshape(data.shape)


def scatter_nd(data: np.ndarray, indices: np.ndarray, updates: np.ndarray, reduction: str = "none") -> np.ndarray:
    """ONNX ScatterND: y = data; y[indices[i]] (a slice of data.shape[k:]) = updates[i]
    (or combined by `reduction`), positions in row-major order."""
    k = indices.shape[-1]
    dims, rest = data.shape[:k], data.shape[k:]
    idx = _wrapped_indices(indices, dims, "scatter_nd")
    strides = np.array([math.prod(dims[i + 1 :]) for i in range(k)], np.int64)
    lin = (idx * strides).sum(axis=-1).reshape(-1)
    rows = data.reshape((math.prod(dims),) + rest)
    out = _scatter_flat(rows, lin, updates.reshape((lin.size,) + rest), reduction)
    return out.reshape(data.shape)


# Vision ops whose samples come from data: grid_sample, roi_align, roi_pool, max_unpool
# --------------------------------------------------------------------------------------

_FAR = 1e9
"""Sample coordinates are clamped to [-_FAR, _FAR] before they become indices (NaN reads
as -_FAR), so no coordinate can index outside the clamping of its padding mode."""


def _gs_reflect(x, lo: float, hi: float):
    """x mirrored at lo and hi until inside [lo, hi] (ONNX's _gs_reflect; hi == lo: lo)."""
    x = np.asarray(x, dtype=np.float64)
    rng = hi - lo
    if rng <= 0:
        return np.where((x < lo) | (x > hi), lo, x)
    below = lo - x
    above = x - hi
    dx = np.where(x < lo, below, above)
    k = np.floor(dx / rng)
    r = dx - k * rng
    even = (k % 2) == 0
    low_side = np.where(even, lo + r, hi - r)
    high_side = np.where(even, hi - r, lo + r)
    return np.where(x < lo, low_side, np.where(x > hi, high_side, x))


def _gs_cubic(t, dt):
    """Keys' cubic weights (a = -0.75) of the taps -1, 0, 1, 2 at fraction t, in dt."""
    a = dt.type(-0.75)
    one, two = dt.type(1), dt.type(2)
    x = np.abs(t)
    w0 = ((a * (x + one) - dt.type(5) * a) * (x + one) + dt.type(8) * a) * (x + one) - dt.type(4) * a
    w1 = ((a + two) * x - (a + dt.type(3))) * x * x + one
    w2 = ((a + two) * (one - x) - (a + dt.type(3))) * (one - x) * (one - x) + one
    w3 = ((a * (two - x) - dt.type(5) * a) * (two - x) + dt.type(8) * a) * (two - x) - dt.type(4) * a
    return [w0, w1, w2, w3]


def _gs_index(i: np.ndarray, size: int, padding_mode: str, lo: float, hi: float):
    """(index into [0, size), valid) of integer sample positions `i`."""
    if padding_mode == "zeros":
        return np.clip(i, 0, size - 1), (i >= 0) & (i < size)
    if padding_mode == "border":
        return np.clip(i, 0, size - 1), np.ones(i.shape, bool)
    return np.clip(np.trunc(_gs_reflect(i, lo, hi)).astype(np.int64), 0, size - 1), np.ones(i.shape, bool)


def grid_sample(data: np.ndarray, grid: np.ndarray, method: str = "linear", padding_mode: str = "zeros",
                align_corners: bool = False) -> np.ndarray:
    """ONNX GridSample (2-D and 3-D), computed in the data's type as ONNX's reference: the
    coordinate of each axis, then (nearest: rounded half to even) border/reflection
    applied to it, then the taps (floor and the next one, four for cubic) read with the
    padding mode, interpolated along the last axis first."""
    dt = data.dtype
    k = data.ndim - 2
    nb, c = data.shape[:2]
    sizes = data.shape[2:]
    out_sp = grid.shape[1:-1]
    taps_per_axis = []  # per axis: list of (index, valid, weight) over [N, *out]
    for a, size in enumerate(sizes):
        g = grid[..., k - 1 - a].astype(dt)
        if align_corners:
            x = (g + dt.type(1)) / dt.type(2) * dt.type(size - 1)
            lo, hi = 0.0, float(size - 1)
        else:
            x = ((g + dt.type(1)) * dt.type(size) - dt.type(1)) / dt.type(2)
            lo, hi = -0.5, size - 0.5
        if method == "nearest":
            x = np.rint(x)
        with np.errstate(invalid="ignore"):
            out = (x < lo) | (x > hi)
            if padding_mode == "border":
                x = np.where(out, np.clip(x, 0, size - 1), x).astype(dt)
            elif padding_mode == "reflection":
                x = np.where(out, _gs_reflect(x, lo, hi), x).astype(dt)
        safe = np.clip(np.nan_to_num(x, nan=-_FAR), -_FAR, _FAR)
        if method == "nearest":
            i, valid = _gs_index(np.trunc(safe).astype(np.int64), size, padding_mode, lo, hi)
            taps_per_axis.append([(i, valid, None)])
            continue
        x0 = np.floor(safe).astype(np.int64)
        t = (x - np.floor(x)).astype(dt)
        if method == "linear":
            offsets, weights = (0, 1), [dt.type(1) - t, t]
        else:
            offsets, weights = (-1, 0, 1, 2), _gs_cubic(t, dt)
        taps = []
        for o, w in zip(offsets, weights):
            i, valid = _gs_index(x0 + o, size, padding_mode, lo, hi)
            taps.append((i, valid, w))
        taps_per_axis.append(taps)
    bidx = np.arange(nb).reshape((nb,) + (1,) * len(out_sp))

    def interp(axis: int, prefix: list) -> np.ndarray:
        """The interpolation over axes >= axis at the fixed taps `prefix` of the earlier
        axes: [N, *out, C]."""
        if axis == k:
            idx = [p[0] for p in prefix]
            valid = np.logical_and.reduce([p[1] for p in prefix])
            vals = data.transpose(0, *range(2, 2 + k), 1)[(bidx, *idx)]  # [N, *out, C]
            return np.where(valid[..., None], vals, dt.type(0))
        acc = None
        for tap in taps_per_axis[axis]:
            v = interp(axis + 1, prefix + [tap])
            if tap[2] is not None:
                v = tap[2][..., None] * v
            acc = v if acc is None else acc + v
        return acc

    # ONNX's reference interpolates the last axis first, then the earlier ones: the
    # recursion above sums the innermost axis' taps inside the outer sums.
    y = interp(0, [])
    del interp  # (a recursive closure is a reference cycle: a compile folding constants runs without the collector)
    return np.ascontiguousarray(np.moveaxis(y, -1, 1).astype(dt))


def roi_align(data: np.ndarray, rois: np.ndarray, batch_indices: np.ndarray, output_height: int = 1,
              output_width: int = 1, sampling_ratio: int = 0, spatial_scale: float = 1.0, mode: str = "avg",
              coordinate_transformation_mode: str = "half_pixel") -> np.ndarray:
    """ONNX RoiAlign (its reference's arithmetic in f64, one rounding per output)."""
    n, c, h, w = data.shape
    r = rois.shape[0]
    oh, ow = output_height, output_width
    out = np.zeros((r, c, oh, ow), np.float64)
    half = coordinate_transformation_mode == "half_pixel"
    x = data.astype(np.float64)
    for ri in range(r):
        b = int(batch_indices[ri])
        if not 0 <= b < n:
            raise ValueError(f"roi_align batch index {b} is out of range for {n} images")
        off = 0.5 if half else 0.0
        x1, y1, x2, y2 = (float(v) * spatial_scale - off for v in rois[ri])
        rw, rh = x2 - x1, y2 - y1
        if not half:
            rw, rh = max(rw, 1.0), max(rh, 1.0)
        bh, bw = rh / oh, rw / ow
        gh = sampling_ratio if sampling_ratio > 0 else _roi_grid(rh / oh)
        gw = sampling_ratio if sampling_ratio > 0 else _roi_grid(rw / ow)
        count = max(gh * gw, 1)
        for ph in range(oh):
            for pw in range(ow):
                acc = np.zeros(c)
                first = True
                for iy in range(gh):
                    yy = y1 + ph * bh + (iy + 0.5) * bh / gh
                    for ix in range(gw):
                        xx = x1 + pw * bw + (ix + 0.5) * bw / gw
                        corners = _roi_bilinear(yy, xx, h, w)
                        if mode == "avg":
                            for (py, px), wt in corners:
                                acc = acc + wt * x[b, :, py, px]
                        else:
                            v = np.max(np.stack([wt * x[b, :, py, px] for (py, px), wt in corners]), axis=0)
                            acc = v if first else np.maximum(acc, v)
                            first = False
                # max: + 0.0 makes a zero positive (which of +-0 wins a max is the order's)
                out[ri, :, ph, pw] = acc / count if mode == "avg" else acc + 0.0
    return out.astype(data.dtype)


_ROI_GRID_LIMIT = 1 << 20


def _roi_grid(v: float) -> int:
    """ceil(v), the adaptive samples per bin (0 for an empty box); a NaN or a count past
    2^20 is an error (a box of non-finite or absurd size)."""
    if not (v < _ROI_GRID_LIMIT):
        raise ValueError(f"roi_align box spans {v} pixels per bin (non-finite or beyond 2^20)")
    return max(int(math.ceil(v)), 0)


def _roi_bilinear(y: float, x: float, h: int, w: int):
    """The four corners ((row, col), weight) of a RoiAlign sample (ONNX's pre_calc);
    all weights 0 outside [-1, h] x [-1, w]."""
    if y < -1.0 or y > h or x < -1.0 or x > w or not (math.isfinite(y) and math.isfinite(x)):
        return [((0, 0), 0.0)] * 4
    y, x = max(y, 0.0), max(x, 0.0)
    yl, xl = int(y), int(x)
    if yl >= h - 1:
        yl = yh = h - 1
        y = float(yl)
    else:
        yh = yl + 1
    if xl >= w - 1:
        xl = xh = w - 1
        x = float(xl)
    else:
        xh = xl + 1
    ly, lx = y - yl, x - xl
    hy, hx = 1.0 - ly, 1.0 - lx
    return [((yl, xl), hy * hx), ((yl, xh), hy * lx), ((yh, xl), ly * hx), ((yh, xh), ly * lx)]


_ROI_POOL_LIMIT = float(1 << 24)


def _round_half_away(v):
    """C's round() of a float scalar of numpy, exactly (fraction taken without rounding)."""
    a = abs(v)
    r = np.floor(a)
    if a - r >= 0.5:
        r = r + 1
    return -r if v < 0 else r


def roi_pool(data: np.ndarray, rois: np.ndarray, pooled_shape: Sequence[int] = (1, 1),
             spatial_scale: float = 1.0) -> np.ndarray:
    """ONNX MaxRoiPool as onnxruntime (Caffe's ROIPooling) computes it: the corners
    rounded half away from zero after the scale, the bin bounds floor/ceil of
    ph * (box / PH), all in the element type (f32 for f16 and bf16); the maximum over
    values above the type's lowest finite value, 0 for a bin clipped to nothing."""
    n, c, h, w = data.shape
    ph_, pw_ = (int(v) for v in pooled_shape)
    ct = np.float64 if data.dtype == np.float64 else np.float32
    lowest = np.finfo(ct).min
    x = data.astype(ct)
    box = rois.astype(ct)
    scale = ct(spatial_scale)
    out = np.zeros((rois.shape[0], c, ph_, pw_), ct)
    with np.errstate(all="ignore"):
        for ri in range(rois.shape[0]):
            bv = box[ri, 0]
            if not (bv > -1.0 and bv < n):
                raise ValueError(f"roi_pool batch index {bv} is out of range for {n} images")
            b = int(bv)
            corners = [box[ri, k] * scale for k in range(1, 5)]
            if not all(abs(v) <= _ROI_POOL_LIMIT for v in corners):
                raise ValueError(f"roi_pool box {box[ri, 1:].tolist()} is out of range (non-finite or past 2^24)")
            x1, y1, x2, y2 = (int(_round_half_away(v)) for v in corners)
            bh = ct(max(y2 - y1 + 1, 1)) / ct(ph_)
            bw = ct(max(x2 - x1 + 1, 1)) / ct(pw_)
            for ph in range(ph_):
                hs = min(max(int(np.floor(ct(ph) * bh)) + y1, 0), h)
                he = min(max(int(np.ceil(ct(ph + 1) * bh)) + y1, 0), h)
                for pw in range(pw_):
                    ws = min(max(int(np.floor(ct(pw) * bw)) + x1, 0), w)
                    we = min(max(int(np.ceil(ct(pw + 1) * bw)) + x1, 0), w)
                    if he <= hs or we <= ws:
                        continue
                    win = x[b, :, hs:he, ws:we].reshape(c, -1)
                    m = np.full(c, lowest, ct)
                    for v in win.T:  # row-major; a value replaces m unless it is <= m (NaN does)
                        m = np.where(v <= m, m, v)
                    out[ri, :, ph, pw] = m
    return out.astype(data.dtype)


def max_unpool(data: np.ndarray, indices: np.ndarray, shape: Sequence[int]) -> np.ndarray:
    """zeros(shape) with y.flat[indices[i]] = data[i] in order; an index outside
    [0, numel) is an error."""
    size = int(np.prod(shape))
    idx = indices.astype(np.int64).reshape(-1)
    if idx.size and (idx.min() < 0 or idx.max() >= size):
        bad = idx[(idx < 0) | (idx >= size)][0]
        raise ValueError(f"max_unpool index {bad} is out of range for {size} elements")
    y = np.zeros(size, data.dtype)
    y[idx] = data.reshape(-1)  # numpy assigns in order: a repeated index keeps the last
    return y.reshape(tuple(shape))
