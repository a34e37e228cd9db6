/* The narrow element types in C: see host_narrow.h. */
#include "host_narrow.h"

#include <math.h>

/* How a float format spends its top codes. */
typedef enum narrow_kind {
    KIND_IEEE, /* inf = all-ones exponent, zero mantissa; NaN: all-ones exponent (f16, bf16, f8E5M2) */
    KIND_FN,   /* no inf; NaN = all-ones exponent and mantissa, either sign (f8E4M3FN) */
    KIND_FNUZ, /* no inf, no -0; the one NaN is 0x80 (f8E4M3FNUZ, f8E5M2FNUZ) */
    KIND_FINITE /* no inf, no NaN (f4E2M1FN) */
} narrow_kind;

typedef struct narrow_format {
    int ebits, mbits, bias;
    narrow_kind kind;
    int float8; /* `saturate` applies (ONNX: the float8 types) */
} narrow_format;

static int format_of(acc_dtype t, narrow_format *f) {
    switch (t) {
    case ACC_F16: *f = (narrow_format){5, 10, 15, KIND_IEEE, 0}; return 1;
    case ACC_BF16: *f = (narrow_format){8, 7, 127, KIND_IEEE, 0}; return 1;
    case ACC_F8E4M3FN: *f = (narrow_format){4, 3, 7, KIND_FN, 1}; return 1;
    case ACC_F8E4M3FNUZ: *f = (narrow_format){4, 3, 8, KIND_FNUZ, 1}; return 1;
    case ACC_F8E5M2: *f = (narrow_format){5, 2, 15, KIND_IEEE, 1}; return 1;
    case ACC_F8E5M2FNUZ: *f = (narrow_format){5, 2, 16, KIND_FNUZ, 1}; return 1;
    case ACC_F4E2M1: *f = (narrow_format){2, 1, 1, KIND_FINITE, 0}; return 1;
    default: return 0;
    }
}

static int is_narrow_int(acc_dtype t) { return t == ACC_I4 || t == ACC_U4 || t == ACC_I2 || t == ACC_U2; }

/* Largest finite exponent field and mantissa of a format. */
static void top_code(const narrow_format *f, uint32_t *expf, uint32_t *mant) {
    uint32_t all_e = (1u << f->ebits) - 1, all_m = (1u << f->mbits) - 1;
    switch (f->kind) {
    case KIND_IEEE: *expf = all_e - 1; *mant = all_m; return;
    case KIND_FN: *expf = all_e; *mant = all_m - 1; return;
    default: *expf = all_e; *mant = all_m; return;
    }
}

static double max_finite(const narrow_format *f) {
    uint32_t e, m;
    top_code(f, &e, &m);
    return ldexp((double)(m + (1u << f->mbits)), (int)e - f->bias - f->mbits);
}

double acc_narrow_decode(acc_dtype t, uint32_t bits) {
    if (t == ACC_F8E8M0) return bits == 0xFF ? NAN : ldexp(1.0, (int)bits - 127);
    narrow_format f;
    if (!format_of(t, &f)) return NAN;
    int width = 1 + f.ebits + f.mbits;
    uint32_t sign = (bits >> (width - 1)) & 1u, all_e = (1u << f.ebits) - 1, all_m = (1u << f.mbits) - 1;
    uint32_t expf = (bits >> f.mbits) & all_e, mant = bits & all_m;
    double nan = sign ? -NAN : NAN; /* the sign survives, as in ml_dtypes' float32 */
    if (f.kind == KIND_IEEE && expf == all_e) return mant ? nan : (sign ? -INFINITY : INFINITY);
    if (f.kind == KIND_FN && expf == all_e && mant == all_m) return nan;
    if (f.kind == KIND_FNUZ && sign && !expf && !mant) return nan;
    double v = expf ? ldexp((double)(mant + (1u << f.mbits)), (int)expf - f.bias - f.mbits)
                    : ldexp((double)mant, 1 - f.bias - f.mbits);
    return sign ? -v : v;
}

/* ONNX's float32 -> f8E8M0FNU (onnx.numpy_helper.to_float8e8m0): the exponent field,
 * incremented by the rounding of the mantissa; NaN and inf -> 0xFF; the sign is dropped. */
static uint32_t encode_e8m0(float x, int saturate, acc_round_mode mode) {
    union {
        float f;
        uint32_t u;
    } v = {x};
    uint32_t e = (v.u >> 23) & 0xFFu, inc = 0;
    if (e == 0xFF) return 0xFF;
    if (mode == ACC_ROUND_UP)
        inc = (v.u & 0x7FFFFFu) != 0;
    else if (mode == ACC_ROUND_NEAREST)
        inc = (v.u & 0x400000u) && ((v.u & 0x200000u) || (v.u & 0x1FFFFFu) || e > 0);
    if (saturate && e == 0xFE) inc = 0;
    return (e + inc) & 0xFFu;
}

uint32_t acc_narrow_encode(acc_dtype t, double x, int saturate, acc_round_mode round_mode) {
    if (t == ACC_F8E8M0) return encode_e8m0((float)x, saturate, round_mode);
    narrow_format f;
    if (!format_of(t, &f)) return 0;
    int width = 1 + f.ebits + f.mbits;
    uint32_t all_e = (1u << f.ebits) - 1, all_m = (1u << f.mbits) - 1;
    uint32_t sign = signbit(x) ? 1u << (width - 1) : 0u;
    uint32_t top_e, top_m;
    top_code(&f, &top_e, &top_m);
    uint32_t nan_bits = f.kind == KIND_FNUZ ? 0x80u : sign | (all_e << f.mbits) | all_m;
    if (f.kind == KIND_IEEE) nan_bits = sign | (all_e << f.mbits) | (1u << (f.mbits - 1)); /* quiet NaN */
    if (f.kind == KIND_FINITE) nan_bits = sign ? 0u : 1u << (width - 1); /* ml_dtypes: NaN -> a zero of the other sign */
    uint32_t inf_bits = f.kind == KIND_IEEE ? sign | (all_e << f.mbits) : nan_bits;
    if (f.kind == KIND_FINITE) inf_bits = sign | (top_e << f.mbits) | top_m;
    if (isnan(x)) return nan_bits;
    double a = fabs(x), top = max_finite(&f);
    if ((f.float8 && saturate) || f.kind == KIND_FINITE) {
        if (a > top) a = top;
    }
    if (isinf(a)) return inf_bits;
    int e2;
    int emin = 1 - f.bias;
    (void)frexp(a, &e2);
    int exp = a == 0.0 ? emin : e2 - 1;
    int qexp = (exp < emin ? emin : exp) - f.mbits;
    double r = rint(ldexp(a, -qexp)); /* the default rounding mode: to nearest, ties to even */
    if (r == 0.0) return f.kind == KIND_FNUZ ? 0u : sign;
    double v = ldexp(r, qexp);
    if (v > top) return inf_bits;
    (void)frexp(v, &e2);
    int ev = e2 - 1;
    if (ev < emin) return sign | (uint32_t)r; /* subnormal: exponent field 0 */
    uint32_t mant = (uint32_t)ldexp(v, f.mbits - ev) - (1u << f.mbits);
    return sign | ((uint32_t)(ev + f.bias) << f.mbits) | mant;
}

static int narrow_int_bits(acc_dtype t) { return (t == ACC_I4 || t == ACC_U4) ? 4 : 2; }

/* The value of a stored narrow integer (the low bits; int4/int2 sign-extended). */
static int64_t load_narrow_int(acc_dtype t, uint8_t stored) {
    int bits = narrow_int_bits(t);
    int64_t low = stored & ((1u << bits) - 1);
    if ((t == ACC_I4 || t == ACC_I2) && low >= (1 << (bits - 1))) low -= 1 << bits;
    return low;
}

static uint32_t load_bits(acc_dtype t, const void *x, int64_t i) {
    return t == ACC_F16 || t == ACC_BF16 ? ((const uint16_t *)x)[i] : ((const uint8_t *)x)[i];
}

int acc_cast_narrow(acc_dtype from, const void *x, acc_dtype to, void *y, int64_t count, int saturate,
                    acc_round_mode round_mode) {
    size_t fs = acc_dtype_size(from), ts = acc_dtype_size(to);
    if (!x || !y || count < 0 || !fs || !ts) return ACC_EINVAL;
    if (!acc_is_narrow(from) && !acc_is_narrow(to)) return acc_cast_wide(from, x, to, y, count);
    int from_float = from == ACC_F32 || from == ACC_F64 || (acc_is_narrow(from) && !is_narrow_int(from));
    for (int64_t i = 0; i < count; i++) {
        double d = 0.0;
        int64_t v = 0;
        if (acc_is_narrow(from) && from_float)
            d = acc_narrow_decode(from, load_bits(from, x, i));
        else if (is_narrow_int(from))
            v = load_narrow_int(from, ((const uint8_t *)x)[i]);
        else if (from_float)
            acc_cast_wide(from, (const char *)x + i * (int64_t)fs, ACC_F64, &d, 1);
        else
            acc_cast_wide(from, (const char *)x + i * (int64_t)fs, ACC_I64, &v, 1);
        void *out = (char *)y + i * (int64_t)ts;
        if (acc_is_narrow(to) && !is_narrow_int(to)) {
            uint32_t bits = acc_narrow_encode(to, from_float ? d : (double)v, saturate, round_mode);
            if (ts == 2)
                *(uint16_t *)out = (uint16_t)bits;
            else
                *(uint8_t *)out = (uint8_t)bits;
        } else if (is_narrow_int(to)) {
            if (from_float) /* truncate toward zero, NaN -> 0; only the low bits matter */
                v = isnan(d) ? 0 : (int64_t)fmax(-0x1p62, fmin(0x1p62, trunc(d)));
            *(uint8_t *)out = (uint8_t)((uint64_t)v & ((1u << narrow_int_bits(to)) - 1)); /* wraps around */
        } else if (from_float) {
            acc_cast_wide(ACC_F64, &d, to, out, 1);
        } else {
            acc_cast_wide(ACC_I64, &v, to, out, 1);
        }
    }
    return ACC_OK;
}

int acc_cast(acc_dtype from, const void *x, acc_dtype to, void *y, int64_t count) {
    if (acc_is_narrow(from) || acc_is_narrow(to)) return acc_cast_narrow(from, x, to, y, count, 1, ACC_ROUND_UP);
    return acc_cast_wide(from, x, to, y, count);
}
