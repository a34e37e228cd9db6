/* The narrow element types of accel in C: f16, bf16, the float8 family, float4 and the
 * sub-byte integers (see compiler/narrow_types.py, which states the same semantics for
 * the reference interpreter).
 *
 * Storage: f16 and bf16 are their IEEE-style bit patterns in a uint16_t; a float8 or
 * float4 value is its bit pattern in a uint8_t (float4 in the low four bits); int4/int2
 * and uint4/uint2 are their two's-complement bits in the low bits of a uint8_t (upper
 * bits zero): one element per byte, as ml_dtypes holds them in numpy arrays.
 *
 * Conversions are exact bit-level code (no FPU format support needed): decoding is
 * exact; encoding rounds the exact (double) value to nearest, ties to even, then
 * applies ONNX Cast's overflow rules (acc_narrow_encode). Plain C99 and libm. */
#ifndef ACC_HOST_NARROW_H
#define ACC_HOST_NARROW_H

#include <stdint.h>

#include "host_kernels.h"

#ifdef __cplusplus
extern "C" {
#endif

/* f8E8M0FNU's rounding of the float32 mantissa (ONNX Cast's round_mode). */
typedef enum acc_round_mode { ACC_ROUND_UP = 0, ACC_ROUND_DOWN = 1, ACC_ROUND_NEAREST = 2 } acc_round_mode;

/* The value of the bit pattern `bits` of the narrow float type t (exact). */
double acc_narrow_decode(acc_dtype t, uint32_t bits);

/* The bit pattern of x in the narrow float type t: round to nearest even; with
 * `saturate` (float8 only) ±inf and overflowing values become ±max, without it inf
 * (f8E5M2, f16, bf16) or NaN; FNUZ types have one NaN (0x80) and no -0; float4 always
 * saturates and maps NaN to a zero; f8E8M0FNU rounds by `round_mode`. */
uint32_t acc_narrow_encode(acc_dtype t, double x, int saturate, acc_round_mode round_mode);

/* relay.cast of `count` elements where `from` or `to` (or both) is narrow; any other
 * pair goes to acc_cast_wide. Narrow integers: float sources truncate toward zero (NaN -> 0),
 * then every source wraps around into the target's bits. */
int acc_cast_narrow(acc_dtype from, const void *x, acc_dtype to, void *y, int64_t count, int saturate,
                    acc_round_mode round_mode);

#ifdef __cplusplus
}
#endif

#endif
