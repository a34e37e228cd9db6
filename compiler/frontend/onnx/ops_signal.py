"""Converters of ONNX's signal-processing ops: DFT and STFT as products with constant
cos/sin matrices (one `relay.nn.dense` with a constant weight, the form the npu runs), the
window functions and MelWeightMatrix folded to constants.

    DFT(x: [1, T, N, 1], axis = 2, onesided = 1)     (real input; dft_length n = N)
      %r = relay.reshape %x {newshape = [T, N]}
      %y = relay.nn.dense %r, %W       W [2 * (n/2 + 1), N]: rows 2k, 2k+1 = cos(2πkm/n), -sin(2πkm/n)
      %o = relay.reshape %y {newshape = [1, T, n/2 + 1, 2]}

  The input's interleaved (re, im) pairs and the output's are the dense's columns and rows:
  a complex input has a [2·out, 2·N] matrix, an inverse one the conjugate kernel over n,
  an inverse one-sided one (irfft) a real output whose bins 1 .. ⌈n/2⌉-1 count twice. An
  axis other than the one before the last is moved there by a transpose and back.
  dft_length truncates (columns left out) or zero-pads (columns absent) the signal.
  O(n²) per row rather than an FFT's O(n log n): at audio front ends' sizes (n_fft 400 to
  512) that is the matmul the npu is built for; the cos/sin entries are exact at the
  quarter turns and computed in f64 (the error stays ~1e-6 relative at n = 512 in f32).

    STFT(signal: [B, L, 1], frame_step s, window w [F] or frame_length F, onesided = 1)
      frames f = 0 .. (L - F) / s: samples f·s .. f·s + F. With g = gcd(s, F) the signal is
      [B, L/g, g] chunks (a reshape), and the frames are the concatenation along the last
      axis of F/g strided slices (chunk j, j + s/g, j + 2s/g, ...): [B, frames, F]. A
      constant window scales the DFT matrix's columns (no op); a run-time one is a multiply.
      Then the DFT product of the frames: [B, frames, bins, 2].

  The op count grows with F/g, not with the signal's length (Whisper: F 400, s 160: 5 slices).

    HannWindow / HammingWindow / BlackmanWindow (size known at import) -> a constant
    MelWeightMatrix (all inputs known at import)                        -> a constant
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
from xdsl.ir import SSAValue

from accel.compiler.frontend.onnx.context import Const, Node, converter, np_dtype_of
from accel.compiler.frontend.onnx.ops_tensor import norm_axis, reshaped
from accel.compiler.narrow_types import is_compute_float
from accel.compiler.tensors import element_type
from accel.dialects import relay

# --------------------------------------------------------------------------------------
# DFT matrices
# --------------------------------------------------------------------------------------


def unit_circle(k: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    """cos and sin of 2π k / n for integers k (f64), exact at the quarter turns."""
    r = np.mod(k, n)
    theta = 2.0 * np.pi * r / n
    c, s = np.cos(theta), np.sin(theta)
    quarter = (4 * r) % n == 0
    q = (4 * r) // n % 4
    c = np.where(quarter, np.array([1.0, 0.0, -1.0, 0.0])[q], c)
    s = np.where(quarter, np.array([0.0, 1.0, 0.0, -1.0])[q], s)
    return c, s


def dft_matrix(length: int, n: int, *, c_in: int, inverse: bool, onesided: bool) -> tuple[np.ndarray, int, int]:
    """The [out·c_out, length·c_in] f64 matrix of ONNX's DFT along an axis of `length`
    points with dft_length `n` (inputs and outputs are interleaved (re, im) pairs when
    c = 2), and (out, c_out). The transform uses the first min(length, n) points (one-sided
    inverse: n/2 + 1 bins); the others' columns are zero."""
    if not inverse:
        out, c_out = (n // 2 + 1 if onesided else n), 2
        used = min(length, n)
        cos, sin = unit_circle(np.outer(np.arange(out), np.arange(used)), n)
        m = np.zeros((out, c_out, length, c_in))
        # (a + ib)(cos - i sin) = a cos + b sin + i (b cos - a sin)
        m[:, 0, :used, 0], m[:, 1, :used, 0] = cos, -sin
        if c_in == 2:
            m[:, 0, :used, 1], m[:, 1, :used, 1] = sin, cos
    elif not onesided:
        out, c_out = n, 2
        used = min(length, n)
        cos, sin = unit_circle(np.outer(np.arange(out), np.arange(used)), n)
        m = np.zeros((out, c_out, length, c_in))
        # (a + ib)(cos + i sin) / n = (a cos - b sin + i (a sin + b cos)) / n
        m[:, 0, :used, 0], m[:, 1, :used, 0] = cos / n, sin / n
        if c_in == 2:
            m[:, 0, :used, 1], m[:, 1, :used, 1] = -sin / n, cos / n
    else:  # irfft: a one-sided spectrum to n real samples (numpy's irfft)
        out, c_out = n, 1
        used = min(length, n // 2 + 1)
        k = np.arange(used)
        twice = np.where((k == 0) | (2 * k == n), 1.0, 2.0) / n
        cos, sin = unit_circle(np.outer(np.arange(out), k), n)
        m = np.zeros((out, c_out, length, c_in))
        # Re((a + ib)(cos + i sin)) = a cos - b sin; sin is 0 at bins 0 and n/2.
        m[:, 0, :used, 0] = cos * twice
        if c_in == 2:
            m[:, 0, :used, 1] = -sin * twice
    return m.reshape(out * c_out, length * c_in) + 0.0, out, c_out  # + 0.0: no -0.0 entries


def compute_type(dt: np.dtype) -> np.dtype:
    """The type a DFT product runs in: the signal's (f32, f64), f32 for f16 and bf16 (a
    sum of n products in 8 or 11 bits of mantissa would lose the spectrum)."""
    if dt == np.float64:
        return np.dtype(np.float64)
    return np.dtype(np.float32)


def spectral_product(n: Node, x: SSAValue, dims: Sequence[int], axis: int, matrix: np.ndarray,
                     out: int, c_out: int, compute: np.dtype) -> SSAValue:
    """`matrix` applied along `axis` of `x` [..., c_in] (`axis` < rank - 1): one dense of
    the rows [prod(other dims), dims[axis] · c_in] in type `compute` (casts around it when
    the signal's type differs), transposed there and back when `axis` is not the one
    before the last. Returns [..., out, ..., c_out]."""
    rank = len(dims)
    others = [d for i, d in enumerate(dims[:-1]) if i != axis]
    perm = None
    if axis != rank - 2:
        perm = [i for i in range(rank - 1) if i != axis] + [axis, rank - 1]
        x = n.emit(relay.TransposeOp(x, axes=perm))
    rows = n.importer.materialize(reshaped(n, x, (math.prod(others), dims[axis] * dims[-1])))
    dt = n.dtype(0)
    if compute != dt:
        rows = n.emit(relay.CastOp(rows, element_type(compute)))
    weight = n.importer.materialize(Const(np.ascontiguousarray(matrix.astype(compute))))
    y = n.emit(relay.DenseOp(rows, weight))
    if compute != dt:
        y = n.emit(relay.CastOp(y, element_type(dt)))
    y = n.importer.materialize(reshaped(n, y, (*others, out, c_out)))
    if perm is not None:
        y = n.emit(relay.TransposeOp(y, axes=[int(a) for a in np.argsort(perm)]))
    return y


def _scalar_input(n: Node, i: int, what: str) -> int:
    v = n.const(i, what)
    if v.size != 1 or v.dtype.kind not in "iu":
        raise n.error(f"{what} must be one integer, got {list(v.shape)} of {v.dtype}")
    return int(v.reshape(-1)[0])


def _signal_dtype(n: Node) -> np.dtype:
    dt = n.dtype(0)
    if not is_compute_float(dt):
        raise n.error(f"input 0 must be a float tensor, got {dt}")
    return dt


# --------------------------------------------------------------------------------------
# DFT
# --------------------------------------------------------------------------------------


@converter("DFT", attrs=("axis", "inverse", "onesided"))
def dft(n: Node):
    """DFT-17 (axis an attribute, default 1) and DFT-20 (axis the third input, default -2):
    one dense with the constant matrix of `dft_matrix`."""
    _signal_dtype(n)
    dims = n.shape(0)
    rank = len(dims)
    if rank < 2 or dims[-1] not in (1, 2):
        raise n.error(f"input {list(dims)} must have rank >= 2 and a last dimension of 1 (real) or 2 (complex)")
    if n.version >= 20:
        if n.attr("axis") is not None:
            raise n.error("attribute 'axis' is not an attribute of DFT-20 (it is the third input)")
        axis = _scalar_input(n, 2, "the axis input") if n.has(2) else -2
    else:
        axis = int(n.attr("axis", 1))
    axis = norm_axis(n, axis, rank)
    if axis == rank - 1:
        raise n.error(f"axis {axis} is the last dimension (the real and imaginary parts), not a signal axis")
    inverse, onesided = bool(n.attr("inverse", 0)), bool(n.attr("onesided", 0))
    if onesided and not inverse and dims[-1] != 1:
        raise n.error(f"a one-sided DFT needs a real input ([..., 1]), not {list(dims)}")
    if onesided and inverse and dims[-1] != 2:
        raise n.error(f"a one-sided inverse DFT needs a complex input ([..., 2]), not {list(dims)}")
    length = dims[axis]
    if n.has(1):
        size = _scalar_input(n, 1, "dft_length")
        if size < 1:
            raise n.error(f"dft_length {size} must be positive")
    else:
        size = 2 * (length - 1) if inverse and onesided else length
        if size < 1:
            raise n.error(f"a one-sided inverse of {length} bins needs dft_length (the default 2 * ({length} - 1) "
                          "is not positive)")
    matrix, out, c_out = dft_matrix(length, size, c_in=dims[-1], inverse=inverse, onesided=onesided)
    return spectral_product(n, n.input(0), dims, axis, matrix, out, c_out, compute_type(n.dtype(0)))


# --------------------------------------------------------------------------------------
# STFT
# --------------------------------------------------------------------------------------


@converter("STFT", attrs=("onesided",))
def stft(n: Node):
    """Frames by a reshape into chunks and strided slices, a window (folded into the matrix
    when constant), then the DFT product (see the module docstring)."""
    dt = _signal_dtype(n)
    dims = n.shape(0)
    if len(dims) != 3 or dims[-1] not in (1, 2):
        raise n.error(f"signal {list(dims)} must be [batch, length, 1 or 2]")
    batch, length, comps = dims
    step = _scalar_input(n, 1, "frame_step")
    if step < 1:
        raise n.error(f"frame_step {step} must be positive")
    window = n.value(2) if n.has(2) else None
    if window is not None:
        if len(n.shape(2)) != 1:
            raise n.error(f"window {list(n.shape(2))} must be 1-D")
        if n.dtype(2) != dt:
            raise n.error(f"window of {n.dtype(2)} must have the signal's type {dt}")
    if n.has(3):
        frame = _scalar_input(n, 3, "frame_length")
        if window is not None and n.shape(2)[0] != frame:
            raise n.error(f"window of {n.shape(2)[0]} samples does not match frame_length {frame}")
    else:
        frame = n.shape(2)[0] if window is not None else length
    if not 1 <= frame <= length:
        raise n.error(f"frame_length {frame} must be in 1 .. the signal's length {length}")
    onesided = bool(n.attr("onesided", 1))
    if onesided and comps != 1:
        raise n.error(f"a one-sided STFT needs a real signal ([batch, length, 1]), not {list(dims)}")
    frames = 1 + (length - frame) // step
    g = math.gcd(step, frame)
    parts, stride = frame // g, step // g
    need = (frames - 1) * step + frame
    x = n.input(0)
    if need < length:
        x = n.emit(relay.StridedSliceOp(x, begin=[0], end=[need], axes=[1]))
    chunks = n.importer.materialize(reshaped(n, x, (batch, need // g, g * comps)))
    if parts == 1 and frames * stride == need // g and stride == 1:
        framed = chunks
    else:
        slices = [n.emit(relay.StridedSliceOp(chunks, begin=[j], end=[j + (frames - 1) * stride + 1],
                                              strides=[stride], axes=[1]))
                  for j in range(parts)]
        framed = slices[0] if parts == 1 else n.emit(relay.ConcatenateOp(*slices, axis=2))
    matrix, out, c_out = dft_matrix(frame, frame, c_in=comps, inverse=False, onesided=onesided)
    if isinstance(window, Const):  # scale the columns of sample m by w[m]
        matrix = matrix * np.repeat(window.value.astype(np.float64), comps)[None, :]
    elif window is not None:
        framed = n.importer.materialize(reshaped(n, framed, (batch, frames, frame, comps)))
        w = n.importer.materialize(reshaped(n, window, (frame, 1)))
        framed = n.emit(relay.MultiplyOp(framed, w))
    return spectral_product(n, framed, (batch, frames, frame, comps), 2, matrix, out, c_out, compute_type(dt))


# --------------------------------------------------------------------------------------
# Windows and the mel filter bank: constants
# --------------------------------------------------------------------------------------


def _window(n: Node, fn) -> Const:
    size = _scalar_input(n, 0, "size")
    if size < 1:
        raise n.error(f"size {size} must be positive")
    periodic = int(n.attr("periodic", 1))
    dtype = np_dtype_of(int(n.attr("output_datatype", 1)))
    span = size if periodic else size - 1
    k = np.arange(size, dtype=np.float64)
    with np.errstate(all="ignore"):  # size 1, symmetric: 0 / 0 as in ONNX's reference
        return Const(np.asarray(fn(k / span)).astype(dtype))


_WINDOW_ATTRS = ("output_datatype", "periodic")


@converter("HannWindow", attrs=_WINDOW_ATTRS)
def hann_window(n: Node):
    """sin²(π k / N'), N' = size (periodic) or size - 1."""
    return _window(n, lambda u: np.sin(np.pi * u) ** 2)


@converter("HammingWindow", attrs=_WINDOW_ATTRS)
def hamming_window(n: Node):
    """25/46 - 21/46 cos(2π k / N')."""
    return _window(n, lambda u: 25 / 46 - 21 / 46 * np.cos(2 * np.pi * u))


@converter("BlackmanWindow", attrs=_WINDOW_ATTRS)
def blackman_window(n: Node):
    """0.42 - 0.5 cos(2π k / N') + 0.08 cos(4π k / N')."""
    return _window(n, lambda u: 0.42 - 0.5 * np.cos(2 * np.pi * u) + 0.08 * np.cos(4 * np.pi * u))


@converter("MelWeightMatrix", attrs=("output_datatype",))
def mel_weight_matrix(n: Node):
    """The [dft_length / 2 + 1, num_mel_bins] triangular filters, computed as ONNX's
    reference does (the same numpy expressions on the inputs' own types, so the bin edges
    floor alike)."""
    bins = _scalar_input(n, 0, "num_mel_bins")
    length = _scalar_input(n, 1, "dft_length")
    rate = _scalar_input(n, 2, "sample_rate")
    lower, upper = n.const(3, "lower_edge_hertz"), n.const(4, "upper_edge_hertz")
    for what, v in (("lower_edge_hertz", lower), ("upper_edge_hertz", upper)):
        if v.size != 1 or v.dtype.kind != "f":
            raise n.error(f"{what} must be one float, got {list(v.shape)} of {v.dtype}")
    if bins < 1 or length < 1 or rate < 1:
        raise n.error(f"num_mel_bins {bins}, dft_length {length} and sample_rate {rate} must be positive")
    lower, upper = lower.reshape(()), upper.reshape(())
    spectrum = length // 2 + 1
    edges = np.arange(0, bins + 2)
    low_mel = 2595 * np.log1p(lower / 700) / np.log(10)
    high_mel = 2595 * np.log1p(upper / 700) / np.log(10)
    step = (high_mel - low_mel) / edges.shape[0]
    edges = edges * step + low_mel
    edges = 700 * np.expm1(edges / 2595 * np.log(10))
    edges = (((length + 1) * edges) // rate).astype(int)
    if edges.min() < 0 or edges.max() >= spectrum:
        raise n.error(f"the mel band edges {float(lower)} .. {float(upper)} Hz fall outside the {spectrum} bins of "
                      f"dft_length {length} at sample_rate {rate}")
    out = np.zeros((spectrum, bins))
    for i in range(bins):
        left, center, right = edges[i], edges[i + 1], edges[i + 2]
        if center == left:
            out[center, i] = 1
        else:
            j = np.arange(left, center + 1)
            out[j, i] = (j - left) / float(center - left)
        if right > center:
            j = np.arange(center, right)
            out[j, i] = (right - j) / float(right - center)
    return Const(out.astype(np_dtype_of(int(n.attr("output_datatype", 1)))))
