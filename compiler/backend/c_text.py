"""Small helpers for writing C text: escaping model-provided strings, literals, types.

Names from a model (ONNX node and tensor names) only ever appear in C through
`c_string` (a string literal) or `c_comment` (comment text); identifiers are always
generated (`in0`, `v12`, ...).
"""

from __future__ import annotations

import math

import numpy as np

from accel.compiler.narrow_types import NARROW_ACC_DTYPES, NARROW_C_TYPES

C_TYPES = {
    np.dtype(np.float32): "float",
    np.dtype(np.float64): "double",
    np.dtype(np.int8): "int8_t",
    np.dtype(np.uint8): "uint8_t",
    np.dtype(np.int16): "int16_t",
    np.dtype(np.uint16): "uint16_t",
    np.dtype(np.int32): "int32_t",
    np.dtype(np.uint32): "uint32_t",
    np.dtype(np.int64): "int64_t",
    np.dtype(np.uint64): "uint64_t",
    np.dtype(np.bool_): "uint8_t",
    **NARROW_C_TYPES,
}

ACC_DTYPES = {
    np.dtype(np.float32): "ACC_F32",
    np.dtype(np.float64): "ACC_F64",
    np.dtype(np.int8): "ACC_I8",
    np.dtype(np.uint8): "ACC_U8",
    np.dtype(np.int16): "ACC_I16",
    np.dtype(np.int32): "ACC_I32",
    np.dtype(np.int64): "ACC_I64",
    np.dtype(np.bool_): "ACC_BOOL",
    np.dtype(np.uint16): "ACC_U16",
    np.dtype(np.uint32): "ACC_U32",
    np.dtype(np.uint64): "ACC_U64",
    **NARROW_ACC_DTYPES,
}


def c_string(text: str) -> str:
    """A C string literal for any text: ASCII printable characters stay, everything else
    (quotes, backslashes, newlines, non-ASCII bytes) becomes an octal escape; `?` is
    escaped so no trigraph can form."""
    out = ['"']
    for b in text.encode("utf-8"):
        ch = chr(b)
        if ch in '"\\?' or b < 0x20 or b >= 0x7F:
            out.append(f"\\{b:03o}")
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


def c_comment(text: str) -> str:
    """Text safe inside a /* */ comment: printable ASCII only, no comment delimiters,
    no line splicing."""
    safe = []
    for ch in text:
        b = ord(ch)
        safe.append(ch if 0x20 <= b < 0x7F and ch != "\\" else f"\\x{b:02x}" if b < 0x100 else f"\\u{b:04x}")
    s = "".join(safe)
    return s.replace("*/", "* /").replace("/*", "/ *")


def c_float(v: float) -> str:
    """A float32 literal that reads back exactly."""
    v = float(np.float32(v))
    if math.isnan(v):
        return "NAN"
    if math.isinf(v):
        return "INFINITY" if v > 0 else "(-INFINITY)"
    text = f"{v:.9g}"
    if "." not in text and "e" not in text and "n" not in text:
        text += ".0"
    return text + "f"


def c_double(v: float) -> str:
    if math.isnan(v):
        return "NAN"
    if math.isinf(v):
        return "INFINITY" if v > 0 else "(-INFINITY)"
    text = repr(float(v))
    if "." not in text and "e" not in text:
        text += ".0"
    return text


def c_int(v: int) -> str:
    v = int(v)
    if v == -(2**63):
        return "INT64_MIN"
    if abs(v) >= 2**31:
        return f"INT64_C({v})"
    return str(v)


def c_array_init(values, ctype: str) -> str:
    if ctype == "float":
        items = [c_float(v) for v in values]
    elif ctype == "double":
        items = [c_double(v) for v in values]
    else:
        items = [c_int(v) for v in values]
    return "{" + ", ".join(items or ["0"]) + "}"
