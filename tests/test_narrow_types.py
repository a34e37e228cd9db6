"""The narrow element types' conversions, bit for bit: the C runtime (host_narrow.c,
through acc_cast_narrow) and the reference (`accel.compiler.tensors.cast`) against ONNX's
reference Cast (`onnx.reference.ops.op_cast.cast_to`) and ml_dtypes.

Exhaustive where the source has at most 16 bits: every 8-bit (and 4-bit) pattern of each
float8/float4 type and every 65536 pattern of f16 and bf16 decoded to f32; encoding f32
into a narrow type is checked on every value the type represents, every midpoint
between neighbours (the ties of round-to-nearest-even), their float32 neighbours, the
overflow region and the specials (±0, ±inf, NaN), with and without `saturate`.
Tolerance: none (bits; NaN against NaN by pattern where ONNX fixes it).
"""

from __future__ import annotations

import subprocess

import ml_dtypes
import numpy as np
import pytest
from onnx import TensorProto
from onnx.numpy_helper import to_float8e8m0
from onnx.reference.ops.op_cast import cast_to

from accel.compiler.backend.c_text import ACC_DTYPES
from accel.compiler.c_runtime_dir import C_DIR
from accel.compiler.tensors import cast

ONNX_TYPES = {
    np.dtype(np.float16): TensorProto.FLOAT16,
    np.dtype(ml_dtypes.bfloat16): TensorProto.BFLOAT16,
    np.dtype(ml_dtypes.float8_e4m3fn): TensorProto.FLOAT8E4M3FN,
    np.dtype(ml_dtypes.float8_e4m3fnuz): TensorProto.FLOAT8E4M3FNUZ,
    np.dtype(ml_dtypes.float8_e5m2): TensorProto.FLOAT8E5M2,
    np.dtype(ml_dtypes.float8_e5m2fnuz): TensorProto.FLOAT8E5M2FNUZ,
    np.dtype(ml_dtypes.float8_e8m0fnu): TensorProto.FLOAT8E8M0,
    np.dtype(ml_dtypes.float4_e2m1fn): TensorProto.FLOAT4E2M1,
    np.dtype(ml_dtypes.int4): TensorProto.INT4,
    np.dtype(ml_dtypes.uint4): TensorProto.UINT4,
    np.dtype(ml_dtypes.int2): TensorProto.INT2,
    np.dtype(ml_dtypes.uint2): TensorProto.UINT2,
}
FLOAT8 = [np.dtype(t) for t in (ml_dtypes.float8_e4m3fn, ml_dtypes.float8_e4m3fnuz, ml_dtypes.float8_e5m2,
                                ml_dtypes.float8_e5m2fnuz)]
FP4 = np.dtype(ml_dtypes.float4_e2m1fn)
E8M0 = np.dtype(ml_dtypes.float8_e8m0fnu)
NARROW_FLOATS = [np.dtype(np.float16), np.dtype(ml_dtypes.bfloat16), *FLOAT8, E8M0, FP4]
SUB_BYTE_INTS = [np.dtype(t) for t in (ml_dtypes.int4, ml_dtypes.uint4, ml_dtypes.int2, ml_dtypes.uint2)]
ROUND = {"up": 0, "down": 1, "nearest": 2}

_PROGRAM = r"""
#include <stdio.h>
#include <stdlib.h>
#include "host_narrow.h"
/* cast FROM TO SATURATE ROUND_MODE COUNT IN OUT: acc_cast_narrow over a file */
int main(int argc, char **argv) {
    if (argc != 8) return 2;
    acc_dtype from = (acc_dtype)atoi(argv[1]), to = (acc_dtype)atoi(argv[2]);
    long n = atol(argv[5]);
    size_t fs = acc_dtype_size(from), ts = acc_dtype_size(to);
    void *x = malloc(n * fs + 1), *y = malloc(n * ts + 1);
    FILE *f = fopen(argv[6], "rb");
    if (!f || fread(x, fs, n, f) != (size_t)n) return 3;
    fclose(f);
    int st = acc_cast_narrow(from, x, to, y, n, atoi(argv[3]), (acc_round_mode)atoi(argv[4]));
    if (st) return 10 + st;
    f = fopen(argv[7], "wb");
    if (!f || fwrite(y, ts, n, f) != (size_t)n) return 4;
    fclose(f);
    return 0;
}
"""


@pytest.fixture(scope="module")
def c_cast(tmp_path_factory):
    """acc_cast_narrow as a function of numpy arrays."""
    d = tmp_path_factory.mktemp("narrow")
    src = d / "cast.c"
    src.write_text(_PROGRAM)
    exe = d / "cast"
    sources = [str(C_DIR / f) for f in ("host_narrow.c", "host_kernels.c", "host_gemm.c")]
    subprocess.run(["cc", "-std=c99", "-O2", "-Wall", "-Wextra", "-Werror", f"-I{C_DIR}", str(src), *sources,
                    "-o", str(exe), "-lm"], check=True, capture_output=True)
    counter = iter(range(10**6))

    def run(x: np.ndarray, to: np.dtype, saturate: bool = True, round_mode: str = "up") -> np.ndarray:
        k = next(counter)
        inp, out = d / f"in{k}.bin", d / f"out{k}.bin"
        x = np.ascontiguousarray(x)
        inp.write_bytes(x.tobytes())
        tags = {name: i for i, name in enumerate(_TAG_ORDER)}
        subprocess.run([str(exe), str(tags[ACC_DTYPES[x.dtype]]), str(tags[ACC_DTYPES[np.dtype(to)]]),
                        str(int(saturate)), str(ROUND[round_mode]), str(x.size), str(inp), str(out)], check=True)
        raw = np.frombuffer(out.read_bytes(), dtype=f"u{np.dtype(to).itemsize}")
        return raw.view(to).reshape(x.shape)

    return run


_TAG_ORDER = ["ACC_F32", "ACC_F64", "ACC_I8", "ACC_U8", "ACC_I16", "ACC_I32", "ACC_I64", "ACC_BOOL", "ACC_U16",
              "ACC_U32", "ACC_U64", "ACC_F16", "ACC_BF16", "ACC_F8E4M3FN", "ACC_F8E4M3FNUZ", "ACC_F8E5M2",
              "ACC_F8E5M2FNUZ", "ACC_F8E8M0", "ACC_F4E2M1", "ACC_I4", "ACC_U4", "ACC_I2", "ACC_U2"]


def test_tag_order_matches_the_header():
    header = (C_DIR / "host_kernels.h").read_text()
    for i, name in enumerate(_TAG_ORDER):
        assert f"{name} = {i}," in header or f"{name} = {i} " in header, name


def all_patterns(dtype: np.dtype) -> np.ndarray:
    bits = 16 if dtype.itemsize == 2 else (4 if dtype in (FP4, *SUB_BYTE_INTS) else 8)
    if dtype in SUB_BYTE_INTS:
        bits = 4 if dtype.name.endswith("int4") else 2
    return np.arange(1 << bits, dtype=f"u{dtype.itemsize}").view(dtype)


def probe_values(dtype: np.dtype) -> np.ndarray:
    """f32 values that exercise encoding into `dtype` (see the module docstring)."""
    vals = np.unique(all_patterns(dtype).astype(np.float32))
    vals = vals[np.isfinite(vals)]
    mids = ((vals[:-1].astype(np.float64) + vals[1:]) / 2).astype(np.float32)
    near = np.concatenate([np.nextafter(mids, np.float32(np.inf)), np.nextafter(mids, np.float32(-np.inf))])
    top = float(np.abs(vals).max())
    extra = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, -np.nan, top * 1.5, top * 4, 1e30, -1e30, 1e-30,
                      -1e-30, 1e-45, 3.4e38], np.float32)
    return np.concatenate([vals, -vals, mids, -mids, near, -near, extra]).astype(np.float32)


def same(got: np.ndarray, want: np.ndarray) -> None:
    """Bit-equal; in numpy's own float types any NaN matches any NaN."""
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    g = got.view(f"u{got.dtype.itemsize}")
    w = want.view(f"u{want.dtype.itemsize}")
    bad = g != w
    if got.dtype.kind == "f":
        bad &= ~(np.isnan(got) & np.isnan(want))
    idx = np.flatnonzero(bad)
    assert idx.size == 0, f"{idx.size} differ, e.g. at {idx[:5]}: got {g.ravel()[idx[:5]]}, want {w.ravel()[idx[:5]]}"


# -- decoding: every pattern --------------------------------------------------------------


@pytest.mark.parametrize("dtype", NARROW_FLOATS + SUB_BYTE_INTS, ids=str)
def test_decode_every_pattern_to_f32(c_cast, dtype):
    x = all_patterns(dtype)
    want = cast_to(x, TensorProto.FLOAT, saturate=True)
    same(c_cast(x, np.float32), want)
    same(cast(x, np.float32), want)


@pytest.mark.parametrize("dtype", [*FLOAT8, FP4], ids=str)
def test_decode_every_pattern_to_f16_and_int32(c_cast, dtype):
    x = all_patterns(dtype)
    same(c_cast(x, np.float16), cast_to(x, TensorProto.FLOAT16, saturate=True))
    finite = x[np.isfinite(x.astype(np.float32))]
    same(c_cast(finite, np.int32), cast(finite, np.int32))


# -- encoding: values, ties, overflow, specials --------------------------------------------


@pytest.mark.parametrize("saturate", [True, False])
@pytest.mark.parametrize("dtype", FLOAT8, ids=str)
def test_encode_f32_to_float8(c_cast, dtype, saturate):
    x = probe_values(dtype)
    want = cast_to(x, ONNX_TYPES[dtype], saturate=saturate)
    same(c_cast(x, dtype, saturate), want)
    same(cast(x, dtype, saturate=saturate), want)


@pytest.mark.parametrize("dtype", [np.dtype(np.float16), np.dtype(ml_dtypes.bfloat16), FP4], ids=str)
def test_encode_f32_to_f16_bf16_f4(c_cast, dtype):
    x = probe_values(dtype)
    want = cast_to(x, ONNX_TYPES[dtype], saturate=True)
    same(c_cast(x, dtype), want)
    same(cast(x, dtype), want)


@pytest.mark.parametrize("saturate", [True, False])
@pytest.mark.parametrize("round_mode", ["up", "down", "nearest"])
def test_encode_f32_to_e8m0(c_cast, round_mode, saturate):
    rng = np.random.default_rng(0)
    bits = np.concatenate([rng.integers(0, 2**32, 20000, dtype=np.uint32),
                           np.array([0, 0x80000000, 0x7F800000, 0xFF800000, 0x7FC00000, 0x7F7FFFFF, 0x7F000000,
                                     0x7F000001, 0x00400000, 0x00600000, 0x00200001, 0x3FC00000, 0x3FA00000,
                                     0x3FE00000, 0x3F800001], np.uint32)])
    x = bits.view(np.float32)
    want = to_float8e8m0(x, saturate, round_mode)
    same(c_cast(x, E8M0, saturate, round_mode), want)
    same(cast(x, E8M0, saturate=saturate, round_mode=round_mode), want)


@pytest.mark.parametrize("dtype", SUB_BYTE_INTS, ids=str)
def test_encode_to_sub_byte_ints(c_cast, dtype):
    f = np.array([-9, -8.5, -8, -7.9, -3, -2.5, -1, -0.5, 0, 0.5, 1, 2.5, 3, 7, 7.9, 8, 15, 16, 17, 100, -100],
                 np.float32)
    want = cast_to(f, ONNX_TYPES[dtype], saturate=True)
    same(c_cast(f, dtype), want)
    same(cast(f, dtype), want)
    i = np.arange(-300, 300, dtype=np.int32)
    want = cast_to(i, ONNX_TYPES[dtype], saturate=True)
    same(c_cast(i, dtype), want)
    same(cast(i, dtype), want)


@pytest.mark.parametrize("src", FLOAT8, ids=str)
@pytest.mark.parametrize("dst", FLOAT8, ids=str)
def test_float8_to_float8(c_cast, src, dst):
    x = all_patterns(src)
    want = cast_to(x.astype(np.float32), ONNX_TYPES[dst], saturate=True)
    same(c_cast(x, dst), want)
    same(cast(x, dst), want)


def test_f64_source_rounds_once(c_cast):
    """f64 -> f16 rounds the double (numpy's direct conversion), not a float32 in between."""
    x = np.array([1 + 2.0**-11 + 2.0**-40, 65519.99, 65520.0, -1e-8], np.float64)
    same(c_cast(x, np.float16), x.astype(np.float16))
