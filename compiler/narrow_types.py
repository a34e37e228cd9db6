"""The narrow element types: f16 and bf16, the float8 family, float4 and the sub-byte
integers, as IR types, numpy dtypes (`ml_dtypes`) and their conversion semantics.

| IR type      | numpy (ml_dtypes) | ONNX            | C storage | acc_dtype       |
|--------------|-------------------|-----------------|-----------|-----------------|
| f16          | float16           | FLOAT16         | uint16_t  | ACC_F16         |
| bf16         | bfloat16          | BFLOAT16        | uint16_t  | ACC_BF16        |
| f8E4M3FN     | float8_e4m3fn     | FLOAT8E4M3FN    | uint8_t   | ACC_F8E4M3FN    |
| f8E4M3FNUZ   | float8_e4m3fnuz   | FLOAT8E4M3FNUZ  | uint8_t   | ACC_F8E4M3FNUZ  |
| f8E5M2       | float8_e5m2       | FLOAT8E5M2      | uint8_t   | ACC_F8E5M2      |
| f8E5M2FNUZ   | float8_e5m2fnuz   | FLOAT8E5M2FNUZ  | uint8_t   | ACC_F8E5M2FNUZ  |
| f8E8M0FNU    | float8_e8m0fnu    | FLOAT8E8M0      | uint8_t   | ACC_F8E8M0      |
| f4E2M1FN     | float4_e2m1fn     | FLOAT4E2M1      | uint8_t   | ACC_F4E2M1      |
| i4 / ui4     | int4 / uint4      | INT4 / UINT4    | uint8_t   | ACC_I4 / ACC_U4 |
| i2 / ui2     | int2 / uint2      | INT2 / UINT2    | uint8_t   | ACC_I2 / ACC_U2 |

In memory (arrays, io.json buffers, the C arena, weights.bin) a sub-byte value takes one
byte, as ml_dtypes holds it: its bit pattern (two's complement for int4/int2) in the low
bits, the upper bits zero. Only ONNX's TensorProto packs two (four) per byte;
`onnx.numpy_helper.to_array` unpacks them.

Conversion (`convert`), ONNX's Cast (`onnx.reference.ops.op_cast`):
- to a float type: round to nearest even from the exact source value. float8 with
  `saturate` (the default): ±inf and values beyond the largest finite value become
  ±max, NaN stays NaN; without it they overflow to inf (f8E5M2) or NaN (the others).
  FNUZ types have no -0 (it becomes +0) and one NaN (0x80). float4 has no inf or NaN:
  it saturates, and NaN becomes a zero (ml_dtypes' choice, which ONNX's reference uses).
- to f8E8M0FNU (2^(e-127), no sign, no zero): the exponent of the float32 value, rounded
  `up` (default), `down` or to `nearest` by the mantissa; NaN and inf become NaN (0xFF);
  `saturate` keeps values above the largest one at it instead of NaN.
- to i4/ui4/i2/ui2: truncate toward zero, then wrap around (two's complement), NaN -> 0.
"""

from __future__ import annotations

import ml_dtypes
import numpy as np
from xdsl.dialects.builtin import (
    BFloat16Type,
    Float4E2M1FNType,
    Float8E4M3FNType,
    Float8E4M3FNUZType,
    Float8E5M2FNUZType,
    Float8E5M2Type,
    Float8E8M0FNUType,
    IntegerType,
    Signedness,
)
from xdsl.ir import Attribute

from accel.dialects.relay import CAST_ROUND_MODES

FLOAT8 = tuple(np.dtype(t) for t in (ml_dtypes.float8_e4m3fn, ml_dtypes.float8_e4m3fnuz, ml_dtypes.float8_e5m2,
                                     ml_dtypes.float8_e5m2fnuz))
E8M0 = np.dtype(ml_dtypes.float8_e8m0fnu)
FLOAT4 = np.dtype(ml_dtypes.float4_e2m1fn)
BF16 = np.dtype(ml_dtypes.bfloat16)
NARROW_FLOATS = (BF16, *FLOAT8, E8M0, FLOAT4)
"""The float types numpy itself lacks (numpy has float16)."""
SUB_BYTE_INTS = {
    np.dtype(ml_dtypes.int4): (4, True),
    np.dtype(ml_dtypes.uint4): (4, False),
    np.dtype(ml_dtypes.int2): (2, True),
    np.dtype(ml_dtypes.uint2): (2, False),
}
"""Sub-byte integer dtype -> (bits, signed)."""

_F16 = np.dtype(np.float16)
NARROW_C_TYPES: dict[np.dtype, str] = {
    _F16: "uint16_t",
    BF16: "uint16_t",
    **{dt: "uint8_t" for dt in (*FLOAT8, E8M0, FLOAT4)},
    **{dt: "uint8_t" for dt in SUB_BYTE_INTS},
}
"""C storage type of each narrow dtype (host_narrow.h)."""
NARROW_ACC_DTYPES: dict[np.dtype, str] = {
    _F16: "ACC_F16",
    BF16: "ACC_BF16",
    FLOAT8[0]: "ACC_F8E4M3FN",
    FLOAT8[1]: "ACC_F8E4M3FNUZ",
    FLOAT8[2]: "ACC_F8E5M2",
    FLOAT8[3]: "ACC_F8E5M2FNUZ",
    E8M0: "ACC_F8E8M0",
    FLOAT4: "ACC_F4E2M1",
    np.dtype(ml_dtypes.int4): "ACC_I4",
    np.dtype(ml_dtypes.uint4): "ACC_U4",
    np.dtype(ml_dtypes.int2): "ACC_I2",
    np.dtype(ml_dtypes.uint2): "ACC_U2",
}
"""acc_dtype tag of each narrow dtype (host_kernels.h)."""
HOST_WIDENED = (_F16, BF16)
"""Types the host schedule computes on in float32 (widen-host-floats): elsewhere a narrow
type only meets casts, quantize/dequantize and data movement."""

ROUND_MODES = CAST_ROUND_MODES

_FLOAT_TYPES: dict[type[Attribute], np.dtype] = {
    BFloat16Type: BF16,
    Float8E4M3FNType: FLOAT8[0],
    Float8E4M3FNUZType: FLOAT8[1],
    Float8E5M2Type: FLOAT8[2],
    Float8E5M2FNUZType: FLOAT8[3],
    Float8E8M0FNUType: E8M0,
    Float4E2M1FNType: FLOAT4,
}
_TYPES_OF_DTYPE = {dt: cls for cls, dt in _FLOAT_TYPES.items()}


def narrow_dtype(t: Attribute) -> np.dtype | None:
    """The ml_dtypes dtype of a narrow IR element type (None for any other type)."""
    dt = _FLOAT_TYPES.get(type(t))
    if dt is not None:
        return dt
    if isinstance(t, IntegerType) and t.width.data in (2, 4):
        signed = t.signedness.data != Signedness.UNSIGNED
        return np.dtype({(4, True): ml_dtypes.int4, (4, False): ml_dtypes.uint4, (2, True): ml_dtypes.int2,
                         (2, False): ml_dtypes.uint2}[(t.width.data, signed)])
    return None


def narrow_element_type(dtype: np.dtype) -> Attribute | None:
    """The IR element type of an ml_dtypes dtype (None for any other dtype)."""
    cls = _TYPES_OF_DTYPE.get(dtype)
    if cls is not None:
        return cls()
    if dtype in SUB_BYTE_INTS:
        bits, signed = SUB_BYTE_INTS[dtype]
        return IntegerType(bits, Signedness.SIGNLESS if signed else Signedness.UNSIGNED)
    return None


def from_archive(arr: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """`arr` as `dtype` when it is a narrow array read back from an .npz archive (numpy
    stores ml_dtypes arrays as raw bytes: dtype V1 / V2); any other array as it is."""
    if arr.dtype.kind == "V" and arr.dtype.names is None and is_narrow(dtype) and arr.dtype.itemsize == dtype.itemsize:
        return arr.view(dtype)
    return arr


def iinfo(dtype: np.dtype):
    """numpy's iinfo, also of int4/uint4/int2/uint2."""
    return ml_dtypes.iinfo(dtype) if dtype in SUB_BYTE_INTS else np.iinfo(dtype)


def is_narrow(dtype: np.dtype) -> bool:
    return dtype in NARROW_FLOATS or dtype in SUB_BYTE_INTS


def is_compute_float(dtype: np.dtype) -> bool:
    """A float type that ops compute on: numpy's floats and bfloat16 (the other narrow
    floats are storage only)."""
    return dtype.kind == "f" or dtype == BF16


def is_float_dtype(dtype: np.dtype) -> bool:
    """numpy's floats and ml_dtypes' (whose dtype kind is 'V')."""
    return dtype.kind == "f" or dtype in NARROW_FLOATS


def _to_e8m0(x: np.ndarray, saturate: bool, round_mode: str) -> np.ndarray:
    bits = np.ascontiguousarray(x, dtype=np.float32).view(np.uint32)
    exponent = ((bits >> 23) & 0xFF).astype(np.uint16)
    special = exponent == 0xFF
    mantissa = bits & 0x7FFFFF
    if round_mode == "up":
        inc = mantissa > 0
    elif round_mode == "nearest":
        # guard bit set, and round, sticky or "lsb" (a non-zero exponent) set: ONNX's rule
        inc = ((bits & 0x400000) > 0) & (((bits & 0x200000) > 0) | ((bits & 0x1FFFFF) > 0) | (exponent > 0))
    elif round_mode == "down":
        inc = np.zeros(bits.shape, bool)
    else:
        raise ValueError(f"unknown round_mode '{round_mode}' (expected one of {', '.join(ROUND_MODES)})")
    if saturate:
        inc &= exponent != 0xFE
    out = np.where(special, 0xFF, exponent + inc.astype(np.uint16)).astype(np.uint8)
    return out.view(E8M0)


def widen(data: np.ndarray) -> np.ndarray:
    """A narrow array in a numpy type holding every value exactly (float32, int8, uint8);
    any other array as it is."""
    if data.dtype in NARROW_FLOATS:
        return data.astype(np.float32)
    if data.dtype in SUB_BYTE_INTS:
        return data.astype(np.int8 if SUB_BYTE_INTS[data.dtype][1] else np.uint8)
    return data


def convert(data: np.ndarray, dtype: np.dtype, saturate: bool = True, round_mode: str = "up") -> np.ndarray:
    """ONNX Cast of a numpy array (no narrow type: see `widen`) to the narrow `dtype`
    (see the module docstring)."""
    assert is_narrow(dtype), dtype
    with np.errstate(all="ignore"):
        if data.dtype == np.bool_:
            data = data.astype(np.uint8)
        if dtype == E8M0:
            return _to_e8m0(data.astype(np.float32), saturate, round_mode)
        if dtype in FLOAT8 and saturate:
            top = float(ml_dtypes.finfo(dtype).max)
            return np.clip(data.astype(np.float64), -top, top).astype(dtype)
        if dtype in SUB_BYTE_INTS:
            bits, signed = SUB_BYTE_INTS[dtype]
            if data.dtype.kind == "f":
                data = np.where(np.isnan(data), 0, np.trunc(np.clip(data.astype(np.float64), -2.0**62, 2.0**62)))
            low = data.astype(np.int64) & ((1 << bits) - 1)
            if signed:
                low = np.where(low >= 1 << (bits - 1), low - (1 << bits), low)
            return low.astype(dtype)
        return data.astype(dtype)
