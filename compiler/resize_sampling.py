"""ONNX Resize's sampling along one axis, written once: the input coordinate of each
output index (coordinate_transformation_mode), the nearest index (nearest_mode), and the
taps (input indices and float64 weights) of linear and cubic interpolation, antialiased or
not. The reference interpreter (runtime.reference.resize2d) applies them; the C emitter
computes them at compile time for the host kernel `acc_resize2d_taps`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np


def resize_source_coordinate(x: np.ndarray, scale: float, in_len: int, out_len: int, mode: str) -> np.ndarray:
    """Input coordinates (float64) of output coordinates `x` along one axis (ONNX Resize's
    coordinate_transformation_mode; the modes that special-case a single output cell test
    the unrounded output length `scale * in_len`, as ONNX does)."""
    out_f = scale * in_len
    if mode == "half_pixel":
        return (x + 0.5) / scale - 0.5
    if mode == "half_pixel_symmetric":
        offset = in_len / 2 * (1 - out_len / out_f)
        return offset + (x + 0.5) / scale - 0.5
    if mode == "pytorch_half_pixel":
        return (x + 0.5) / scale - 0.5 if out_f != 1 else np.full_like(x, -0.5)
    if mode == "align_corners":
        return x * (in_len - 1) / (out_f - 1) if out_f != 1 else np.zeros_like(x)
    if mode == "asymmetric":
        return x / scale
    if mode == "tf_half_pixel_for_nn":
        return (x + 0.5) / scale
    raise ValueError(f"unknown coordinate_transformation_mode '{mode}'")


def resize_nearest_index(coord: np.ndarray, in_len: int, mode: str) -> np.ndarray:
    """The nearest input index of each coordinate (ONNX nearest_mode), clamped to the input."""
    if mode == "round_prefer_floor":
        idx = np.where(coord - np.floor(coord) == 0.5, np.floor(coord), np.round(coord))
    elif mode == "round_prefer_ceil":
        idx = np.where(coord - np.floor(coord) == 0.5, np.ceil(coord), np.round(coord))
    elif mode == "floor":
        idx = np.floor(coord)
    elif mode == "ceil":
        idx = np.ceil(coord)
    else:
        raise ValueError(f"unknown nearest_mode '{mode}'")
    return np.clip(idx, 0, in_len - 1).astype(np.int64)


def _cubic_coeffs(ratio: float, a: float) -> np.ndarray:
    """Keys' cubic kernel at distances 1 + ratio, ratio, 1 - ratio, 2 - ratio."""
    r = ratio
    return np.array([((a * (r + 1) - 5 * a) * (r + 1) + 8 * a) * (r + 1) - 4 * a,
                     ((a + 2) * r - (a + 3)) * r * r + 1,
                     ((a + 2) * (1 - r) - (a + 3)) * (1 - r) * (1 - r) + 1,
                     ((a * ((1 - r) + 1) - 5 * a) * ((1 - r) + 1) + 8 * a) * ((1 - r) + 1) - 4 * a])


def _antialias_coeffs(ratio: float, scale: float, method: str, a: float) -> np.ndarray:
    """The interpolation kernel stretched by 1 / scale (downsampling only), normalized."""
    scale = min(scale, 1.0)
    start = int(np.floor(-(1 if method == "linear" else 2) / scale) + 1)
    x = np.abs((np.arange(start, 2 - start) - ratio) * scale)
    if method == "linear":
        k = np.clip(1 - x, 0, 1)
    else:
        k = np.where(x <= 1, (a + 2) * x**3 - (a + 3) * x**2 + 1,
                     np.where(x < 2, a * x**3 - 5 * a * x**2 + 8 * a * x - 4 * a, 0.0))
    return k / k.sum()


def resize_taps(in_len: int, out_len: int, scale: float, method: str, mode: str, cubic_coeff_a: float = -0.75,
                exclude_outside: bool = False, antialias: bool = False,
                roi: tuple[float, float] = (0.0, 1.0)) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """ONNX Resize (linear, cubic) along one axis as taps: for each output index, the
    input indices [out_len, K] (clamped: the edge repeats), their weights [out_len, K]
    (float64) and whether the output is the extrapolation value instead (bool
    [out_len]; only tf_crop_and_resize, outside the input). onnx.reference's separable
    interpolation; an axis the resize leaves alone is the identity."""
    if math.isclose(scale, 1.0) and out_len == in_len and (
            mode != "tf_crop_and_resize" or (math.isclose(roi[0], 0.0) and math.isclose(roi[1], 1.0))):
        return np.arange(in_len, dtype=np.int64)[:, None], np.ones((in_len, 1)), np.zeros(in_len, bool)
    x = np.arange(out_len, dtype=np.float64)
    outside = np.zeros(out_len, bool)
    if mode == "tf_crop_and_resize":
        out_f = scale * in_len
        span = (roi[1] - roi[0]) * (in_len - 1)
        coord = np.full(out_len, span / 2) if out_f == 1 else x * span / (out_f - 1)
        coord = coord + roi[0] * (in_len - 1)
        outside = (coord < 0) | (coord > in_len - 1)
    else:
        coord = resize_source_coordinate(x, scale, in_len, out_len, mode)
    rows = []
    for c in coord:
        ratio = 1.0 if float(c).is_integer() else float(c - np.floor(c))
        if antialias:
            rows.append(_antialias_coeffs(ratio, scale, method, cubic_coeff_a))
        else:
            rows.append(np.array([1 - ratio, ratio]) if method == "linear" else _cubic_coeffs(ratio, cubic_coeff_a))
    weights = np.array(rows, dtype=np.float64)
    k = weights.shape[1]
    pad = int(np.ceil(k / 2))
    padded = coord + pad
    p = np.floor(padded).astype(np.int64)
    frac = padded - p
    if k % 2 == 0:
        offset = np.where(frac == 0, -(k // 2), -(k // 2) + 1)
    else:
        offset = np.where(frac <= 0.5, -((k - 1) // 2), -((k - 1) // 2) + 1)
    idx = (p + offset)[:, None] + np.arange(k)[None, :] - pad
    if exclude_outside:
        weights = np.where((idx < 0) | (idx >= in_len), 0.0, weights)
        total = weights.sum(axis=1, keepdims=True)
        weights = weights / np.where(total == 0, 1.0, total)
    return np.clip(idx, 0, in_len - 1).astype(np.int64), weights, outside


def resize2d_taps(in_hw: Sequence[int], size: Sequence[int], scales: Sequence[float], props) -> list[tuple]:
    """resize_taps of the H and W axes of relay.image.resize2d (its properties)."""
    roi = props["roi"] or (0.0, 0.0, 1.0, 1.0)
    return [resize_taps(in_hw[a], size[a], scales[a], props["method"], props["coordinate_transformation_mode"],
                        props["cubic_coeff_a"], props["exclude_outside"], props["antialias"], (roi[a], roi[a + 2]))
            for a in (0, 1)]
