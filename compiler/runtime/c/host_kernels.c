/* Host kernels of accel: see host_kernels.h for the contract of every function.
 *
 * The file reads top to bottom: helpers (shapes, broadcasting, quantization of one
 * value), convolution and matrix products, elementwise ops, pooling and
 * normalization, data movement, cast, quantized ops. Hot loops (conv, matmul) keep
 * the innermost loop contiguous over the output so the compiler can vectorize it.
 */
#include "host_kernels.h"
#include "host_gemm.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* -------------------------------------------------------------------------------
 * Helpers
 * ------------------------------------------------------------------------------- */

size_t acc_dtype_size(acc_dtype t) {
    switch (t) {
    case ACC_F32: return 4;
    case ACC_F64: return 8;
    case ACC_I8: return 1;
    case ACC_U8: return 1;
    case ACC_I16: return 2;
    case ACC_I32: return 4;
    case ACC_I64: return 8;
    case ACC_BOOL: return 1;
    case ACC_U16: return 2;
    case ACC_U32: return 4;
    case ACC_U64: return 8;
    case ACC_F16: return 2;
    case ACC_BF16: return 2;
    case ACC_F8E4M3FN: case ACC_F8E4M3FNUZ: case ACC_F8E5M2: case ACC_F8E5M2FNUZ: case ACC_F8E8M0: case ACC_F4E2M1:
    case ACC_I4: case ACC_U4: case ACC_I2: case ACC_U2: return 1;
    }
    return 0;
}

const char *acc_status_string(int status) {
    switch (status) {
    case ACC_OK: return "ok";
    case ACC_EINVAL: return "invalid parameters";
    case ACC_ERANGE: return "index out of range";
    case ACC_EDIVZERO: return "integer division by zero";
    case ACC_EOVERFLOW: return "int32 accumulator overflow";
    case ACC_ENOMEM: return "out of memory";
    }
    return "unknown status";
}

static int is_numeric(acc_dtype t) { return acc_dtype_size(t) != 0 && t != ACC_BOOL && !acc_is_narrow(t); }

static int is_float_type(acc_dtype t) { return t == ACC_F32 || t == ACC_F64; }

static int is_int_type(acc_dtype t) {
    return t == ACC_I8 || t == ACC_U8 || t == ACC_I16 || t == ACC_I32 || t == ACC_I64 || t == ACC_U16 ||
           t == ACC_U32 || t == ACC_U64;
}

/* Range of an integer type (ACC_BOOL: 0..1). */
static void int_range(acc_dtype t, int64_t *lo, int64_t *hi) {
    switch (t) {
    case ACC_I8: *lo = INT8_MIN; *hi = INT8_MAX; return;
    case ACC_U8: *lo = 0; *hi = UINT8_MAX; return;
    case ACC_I16: *lo = INT16_MIN; *hi = INT16_MAX; return;
    case ACC_I32: *lo = INT32_MIN; *hi = INT32_MAX; return;
    case ACC_I64: *lo = INT64_MIN; *hi = INT64_MAX; return;
    case ACC_U16: *lo = 0; *hi = UINT16_MAX; return;
    case ACC_U32: *lo = 0; *hi = UINT32_MAX; return;
    case ACC_U64: *lo = 0; *hi = INT64_MAX; return; /* as far as int64 reaches */
    case ACC_I4: *lo = -8; *hi = 7; return;
    case ACC_U4: *lo = 0; *hi = 15; return;
    case ACC_I2: *lo = -2; *hi = 1; return;
    case ACC_U2: *lo = 0; *hi = 3; return;
    default: *lo = 0; *hi = 1; return;
    }
}

static int valid_shape(int rank, const int64_t *shape) {
    if (rank < 0 || rank > ACC_MAX_RANK || (rank > 0 && !shape)) return 0;
    for (int i = 0; i < rank; i++)
        if (shape[i] < 0) return 0;
    return 1;
}

static int64_t numel(int rank, const int64_t *shape) {
    int64_t n = 1;
    for (int i = 0; i < rank; i++) n *= shape[i];
    return n;
}

/* Normalizes a possibly negative axis; -1 when out of range. */
static int norm_axis(int axis, int rank) {
    if (axis < -rank || axis >= rank) return -1;
    return axis < 0 ? axis + rank : axis;
}

/* Splits a shape around `axis` into outer * shape[axis] * inner. */
static void split_at(int rank, const int64_t *shape, int axis, int64_t *outer, int64_t *mid, int64_t *inner) {
    *outer = numel(axis, shape);
    *mid = shape[axis];
    *inner = numel(rank - axis - 1, shape + axis + 1);
}

/* Reads element i of an integer array of type t, widened. */
static int64_t load_int(acc_dtype t, const void *p, int64_t i) {
    switch (t) {
    case ACC_I8: return ((const int8_t *)p)[i];
    case ACC_U8: return ((const uint8_t *)p)[i];
    case ACC_I16: return ((const int16_t *)p)[i];
    case ACC_I32: return ((const int32_t *)p)[i];
    case ACC_I64: return ((const int64_t *)p)[i];
    case ACC_BOOL: return ((const uint8_t *)p)[i] != 0;
    case ACC_U16: return ((const uint16_t *)p)[i];
    case ACC_U32: return ((const uint32_t *)p)[i];
    case ACC_U64: return (int64_t)((const uint64_t *)p)[i];
    case ACC_I4: return (int64_t)(((const uint8_t *)p)[i] & 0xF) - ((((const uint8_t *)p)[i] & 0x8) ? 16 : 0);
    case ACC_U4: return ((const uint8_t *)p)[i] & 0xF;
    case ACC_I2: return (int64_t)(((const uint8_t *)p)[i] & 0x3) - ((((const uint8_t *)p)[i] & 0x2) ? 4 : 0);
    case ACC_U2: return ((const uint8_t *)p)[i] & 0x3;
    default: return 0;
    }
}

/* Stores an in-range value into element i of an integer array of type t. */
static void store_int(acc_dtype t, void *p, int64_t i, int64_t v) {
    switch (t) {
    case ACC_I8: ((int8_t *)p)[i] = (int8_t)v; return;
    case ACC_U8: ((uint8_t *)p)[i] = (uint8_t)v; return;
    case ACC_I16: ((int16_t *)p)[i] = (int16_t)v; return;
    case ACC_I32: ((int32_t *)p)[i] = (int32_t)v; return;
    case ACC_I64: ((int64_t *)p)[i] = v; return;
    case ACC_BOOL: ((uint8_t *)p)[i] = (uint8_t)(v != 0); return;
    case ACC_U16: ((uint16_t *)p)[i] = (uint16_t)v; return;
    case ACC_U32: ((uint32_t *)p)[i] = (uint32_t)v; return;
    case ACC_U64: ((uint64_t *)p)[i] = (uint64_t)v; return;
    case ACC_I4: case ACC_U4: ((uint8_t *)p)[i] = (uint8_t)((uint64_t)v & 0xF); return; /* the low bits */
    case ACC_I2: case ACC_U2: ((uint8_t *)p)[i] = (uint8_t)((uint64_t)v & 0x3); return;
    default: return;
    }
}

/* Quantizes one float: saturate(round_half_even(x / scale) + zero_point), NaN -> zp.
 * nearbyintf rounds half to even under the default FE_TONEAREST mode. */
static int64_t quantize_value(float x, float scale, int32_t zero_point, int64_t lo, int64_t hi) {
    float r = nearbyintf(x / scale);
    if (r != r) r = 0.0f;
    double q = (double)r + (double)zero_point;
    if (q < (double)lo) return lo;
    if (q > (double)hi) return hi;
    return (int64_t)q;
}

/* quantize_value in float for a small zero point and an 8-bit range [lo, hi], without
 * branches (vectorizable); NaN gives the zero point. */
static inline float quantize_clamped(float x, float scale, float zero_point, float lo, float hi) {
    float r = nearbyintf(x / scale);
    float q = (r == r ? r : 0.0f) + zero_point;
    q = q < lo ? lo : q;
    return q > hi ? hi : q;
}

/* Dequantizes one integer: float(q - zero_point) * scale, the difference exact. */
static float dequantize_value(int64_t q, float scale, int32_t zero_point) {
    return (float)(q - (int64_t)zero_point) * scale;
}

/* ---- numpy broadcasting of two operands ---- */

typedef struct bcast {
    int rank;                    /* after merging contiguous dims; >= 1 */
    int64_t shape[ACC_MAX_RANK]; /* output shape */
    int64_t sa[ACC_MAX_RANK];    /* element strides of a (0 where broadcast) */
    int64_t sb[ACC_MAX_RANK];
} bcast;

static int bcast_setup(int a_rank, const int64_t *a_shape, int b_rank, const int64_t *b_shape, bcast *bc) {
    if (!valid_shape(a_rank, a_shape) || !valid_shape(b_rank, b_shape)) return ACC_EINVAL;
    int rank = a_rank > b_rank ? a_rank : b_rank;
    int64_t shape[ACC_MAX_RANK], sa[ACC_MAX_RANK], sb[ACC_MAX_RANK];
    int64_t ka = 1, kb = 1;
    for (int i = rank - 1; i >= 0; i--) {
        int ia = i - (rank - a_rank), ib = i - (rank - b_rank);
        int64_t da = ia >= 0 ? a_shape[ia] : 1, db = ib >= 0 ? b_shape[ib] : 1;
        if (da != db && da != 1 && db != 1) return ACC_EINVAL;
        shape[i] = da == 1 ? db : da;
        sa[i] = da == 1 ? 0 : ka;
        sb[i] = db == 1 ? 0 : kb;
        ka *= da;
        kb *= db;
    }
    /* Merge dim i into dim i+1 when both operands step through them contiguously. */
    int r = 0;
    for (int i = 0; i < rank; i++) {
        if (r > 0 && bc->sa[r - 1] == sa[i] * shape[i] && bc->sb[r - 1] == sb[i] * shape[i]) {
            bc->shape[r - 1] *= shape[i];
            bc->sa[r - 1] = sa[i];
            bc->sb[r - 1] = sb[i];
            continue;
        }
        bc->shape[r] = shape[i];
        bc->sa[r] = sa[i];
        bc->sb[r] = sb[i];
        r++;
    }
    if (r == 0) { /* two scalars */
        bc->shape[0] = 1;
        bc->sa[0] = bc->sb[0] = 0;
        r = 1;
    }
    bc->rank = r;
    return ACC_OK;
}

/* One row of a broadcast binary op: n outputs, operand strides in elements. */
typedef void (*bcast_row_fn)(const void *ctx, const void *a, int64_t sa, const void *b, int64_t sb, void *y,
                             int64_t n);

/* Calls `row` for every innermost row of the broadcast output (dense, row-major). */
static void bcast_run(const bcast *bc, bcast_row_fn row, const void *ctx, const char *a, size_t a_size,
                      const char *b, size_t b_size, char *y, size_t y_size) {
    int r = bc->rank;
    int64_t n = bc->shape[r - 1];
    int64_t rows = 1;
    for (int i = 0; i < r - 1; i++) rows *= bc->shape[i];
    if (n == 0 || rows == 0) return;
    int64_t idx[ACC_MAX_RANK] = {0};
    int64_t oa = 0, ob = 0;
    for (int64_t k = 0; k < rows; k++) {
        row(ctx, a + oa * (int64_t)a_size, bc->sa[r - 1], b + ob * (int64_t)b_size, bc->sb[r - 1],
            y + k * n * (int64_t)y_size, n);
        for (int d = r - 2; d >= 0; d--) { /* odometer over the outer dims */
            idx[d]++;
            oa += bc->sa[d];
            ob += bc->sb[d];
            if (idx[d] < bc->shape[d]) break;
            oa -= bc->sa[d] * idx[d];
            ob -= bc->sb[d] * idx[d];
            idx[d] = 0;
        }
    }
}

/* -------------------------------------------------------------------------------
 * Convolution, dense, matmul
 * ------------------------------------------------------------------------------- */

static int conv_check(const acc_conv2d_params *p) {
    if (!p) return ACC_EINVAL;
    if (p->n < 1 || p->c < 1 || p->h < 1 || p->w < 1 || p->oc < 1 || p->kh < 1 || p->kw < 1) return ACC_EINVAL;
    if (p->stride_h < 1 || p->stride_w < 1 || p->dil_h < 1 || p->dil_w < 1 || p->groups < 1) return ACC_EINVAL;
    if (p->pad_top < 0 || p->pad_left < 0 || p->pad_bottom < 0 || p->pad_right < 0) return ACC_EINVAL;
    if (p->c % p->groups || p->oc % p->groups) return ACC_EINVAL;
    int64_t span_h = p->h + p->pad_top + p->pad_bottom - p->dil_h * (p->kh - 1) - 1;
    int64_t span_w = p->w + p->pad_left + p->pad_right - p->dil_w * (p->kw - 1) - 1;
    if (span_h < 0 || span_w < 0) return ACC_EINVAL;
    if (p->oh != span_h / p->stride_h + 1 || p->ow != span_w / p->stride_w + 1) return ACC_EINVAL;
    return ACC_OK;
}

/* Output columns [*lo, *hi) whose input column j * stride - pad + off lies in [0, size). */
static void valid_cols(int64_t out, int64_t size, int64_t stride, int64_t pad, int64_t off, int64_t *lo,
                       int64_t *hi) {
    int64_t first = pad - off; /* smallest j * stride that is valid */
    int64_t l = first <= 0 ? 0 : (first + stride - 1) / stride;
    int64_t last = size - 1 + pad - off; /* largest valid j * stride */
    int64_t h = last < 0 ? 0 : last / stride + 1;
    if (h > out) h = out;
    if (l > h) l = h;
    *lo = l;
    *hi = h;
}

/* The convolution loop nest shared by the float and integer kernels: for every output
 * plane, accumulate one (input channel, kernel tap) at a time over the whole plane, so
 * the innermost loop runs along an output row (contiguous) and the input row. The
 * output plane must be initialized by the caller. TX/TW/TY: element types of input,
 * weight and accumulator. */
#define CONV_NEST(TX, TW, TY, X, W, Y, P)                                                          \
    do {                                                                                             \
        const acc_conv2d_params *cp_ = (P);                                                          \
        int64_t cg_ = cp_->c / cp_->groups, og_ = cp_->oc / cp_->groups;                             \
        int64_t plane_ = cp_->oh * cp_->ow;                                                          \
        for (int64_t b_ = 0; b_ < cp_->n; b_++)                                                      \
            for (int64_t o_ = 0; o_ < cp_->oc; o_++) {                                               \
                int64_t g_ = o_ / og_;                                                               \
                TY *yp_ = (Y) + (b_ * cp_->oc + o_) * plane_;                                        \
                for (int64_t ci_ = 0; ci_ < cg_; ci_++) {                                            \
                    const TX *xp_ = (X) + (b_ * cp_->c + g_ * cg_ + ci_) * cp_->h * cp_->w;          \
                    const TW *wp_ = (W) + (o_ * cg_ + ci_) * cp_->kh * cp_->kw;                      \
                    for (int64_t r_ = 0; r_ < cp_->kh; r_++)                                         \
                        for (int64_t s_ = 0; s_ < cp_->kw; s_++) {                                   \
                            TY wv_ = (TY)wp_[r_ * cp_->kw + s_];                                     \
                            int64_t off_ = s_ * cp_->dil_w, jlo_, jhi_;                              \
                            valid_cols(cp_->ow, cp_->w, cp_->stride_w, cp_->pad_left, off_, &jlo_, &jhi_); \
                            if (jlo_ >= jhi_) continue;                                              \
                            for (int64_t i_ = 0; i_ < cp_->oh; i_++) {                               \
                                int64_t row_ = i_ * cp_->stride_h - cp_->pad_top + r_ * cp_->dil_h;  \
                                if (row_ < 0 || row_ >= cp_->h) continue;                            \
                                const TX *xr_ = xp_ + row_ * cp_->w + jlo_ * cp_->stride_w - cp_->pad_left + off_; \
                                TY *yr_ = yp_ + i_ * cp_->ow;                                        \
                                int64_t cnt_ = jhi_ - jlo_;                                          \
                                if (cp_->stride_w == 1) {                                            \
                                    for (int64_t j_ = 0; j_ < cnt_; j_++) yr_[jlo_ + j_] += wv_ * (TY)xr_[j_]; \
                                } else {                                                             \
                                    int64_t sw_ = cp_->stride_w;                                     \
                                    for (int64_t j_ = 0; j_ < cnt_; j_++)                            \
                                        yr_[jlo_ + j_] += wv_ * (TY)xr_[j_ * sw_];                   \
                                }                                                                    \
                            }                                                                        \
                        }                                                                            \
                }                                                                                    \
            }                                                                                        \
    } while (0)

/* A depthwise-like convolution (one input and one output channel per group): a matrix
 * product of one row, so the direct loop nest is faster. */
static int conv_is_per_channel(const acc_conv2d_params *p) {
    return p->c == p->groups && p->oc == p->groups;
}

/* A 1x1 convolution whose input plane is its im2col matrix (stride 1, no padding). */
static int conv_is_pointwise(const acc_conv2d_params *p) {
    return p->kh == 1 && p->kw == 1 && p->stride_h == 1 && p->stride_w == 1 && p->pad_top == 0 &&
           p->pad_left == 0 && p->pad_bottom == 0 && p->pad_right == 0;
}

/* im2col of one group: col[(ci * kh + r) * kw + s][i * ow + j] = the input at output
 * (i, j) under tap (r, s) of channel ci, or `zero` in the padding; x points at the
 * group's first channel. One template for float and the int16 offsets; TRANSPOSED
 * stores col[i * ow + j][(ci * kh + r) * kw + s] (rows of taps, for dot products). */
#define IM2COL(T, X, COL, P, ZERO, TRANSPOSED)                                                     \
    do {                                                                                             \
        const acc_conv2d_params *ip_ = (P);                                                          \
        int64_t cg_ = ip_->c / ip_->groups, npix_ = ip_->oh * ip_->ow;                               \
        int64_t taps_ = cg_ * ip_->kh * ip_->kw;                                                     \
        for (int64_t ci_ = 0; ci_ < cg_; ci_++)                                                      \
            for (int64_t r_ = 0; r_ < ip_->kh; r_++)                                                 \
                for (int64_t s_ = 0; s_ < ip_->kw; s_++) {                                           \
                    int64_t t_ = (ci_ * ip_->kh + r_) * ip_->kw + s_;                                \
                    int64_t off_ = s_ * ip_->dil_w, jlo_, jhi_;                                      \
                    valid_cols(ip_->ow, ip_->w, ip_->stride_w, ip_->pad_left, off_, &jlo_, &jhi_);   \
                    const T *xc_ = (X) + ci_ * ip_->h * ip_->w;                                      \
                    for (int64_t i_ = 0; i_ < ip_->oh; i_++) {                                       \
                        int64_t row_ = i_ * ip_->stride_h - ip_->pad_top + r_ * ip_->dil_h;          \
                        int64_t lo_ = jlo_, hi_ = jhi_;                                              \
                        if (row_ < 0 || row_ >= ip_->h) lo_ = hi_ = 0;                               \
                        int64_t base_ = row_ * ip_->w - ip_->pad_left + off_;                        \
                        int64_t q_ = TRANSPOSED ? i_ * ip_->ow * taps_ + t_ : t_ * npix_ + i_ * ip_->ow; \
                        int64_t step_ = TRANSPOSED ? taps_ : 1;                                      \
                        for (int64_t j_ = 0; j_ < lo_; j_++) (COL)[q_ + j_ * step_] = (ZERO);        \
                        for (int64_t j_ = lo_; j_ < hi_; j_++)                                       \
                            (COL)[q_ + j_ * step_] = xc_[base_ + j_ * ip_->stride_w];                \
                        for (int64_t j_ = hi_; j_ < ip_->ow; j_++) (COL)[q_ + j_ * step_] = (ZERO);  \
                    }                                                                                \
                }                                                                                    \
    } while (0)

/* -------------------------------------------------------------------------------
 * Elementwise binary ops
 * ------------------------------------------------------------------------------- */

enum { OP_ADD, OP_SUB, OP_MUL, OP_DIV, N_BINOPS };

/* Float rows. */
#define FLOAT_ROW(NAME, T, EXPR)                                                                    \
    static void NAME(const void *ctx, const void *pa, int64_t sa, const void *pb, int64_t sb, void *py, \
                     int64_t n) {                                                                    \
        (void)ctx;                                                                                   \
        const T *a = (const T *)pa;                                                                  \
        const T *b = (const T *)pb;                                                                  \
        T *y = (T *)py;                                                                              \
        /* The common strides get loops of their own, which the compiler vectorizes. */          \
        if (sa == 1 && sb == 1) {                                                                    \
            for (int64_t i = 0; i < n; i++) {                                                        \
                T u = a[i], v = b[i];                                                                \
                y[i] = EXPR;                                                                         \
            }                                                                                        \
        } else if (sa == 1 && sb == 0) {                                                             \
            T v = b[0];                                                                              \
            for (int64_t i = 0; i < n; i++) {                                                        \
                T u = a[i];                                                                          \
                y[i] = EXPR;                                                                         \
            }                                                                                        \
        } else if (sa == 0 && sb == 1) {                                                             \
            T u = a[0];                                                                              \
            for (int64_t i = 0; i < n; i++) {                                                        \
                T v = b[i];                                                                          \
                y[i] = EXPR;                                                                         \
            }                                                                                        \
        } else {                                                                                     \
            for (int64_t i = 0; i < n; i++) {                                                        \
                T u = a[i * sa], v = b[i * sb];                                                      \
                y[i] = EXPR;                                                                         \
            }                                                                                        \
        }                                                                                            \
    }

/* Integer rows wrap through the unsigned type UT (at least 32 bits, so no promotion
 * to a signed int can overflow). Division truncates; the caller has checked b != 0;
 * x / -1 is computed as 0 - x to avoid INT_MIN / -1. */
#define INT_ROWS(SUFFIX, T, UT)                                                                     \
    FLOAT_ROW(add_##SUFFIX, T, (T)((UT)u + (UT)v))                                                  \
    FLOAT_ROW(sub_##SUFFIX, T, (T)((UT)u - (UT)v))                                                  \
    FLOAT_ROW(mul_##SUFFIX, T, (T)((UT)u * (UT)v))                                                  \
    FLOAT_ROW(div_##SUFFIX, T, (T)(v == (T)-1 ? (T)((UT)0 - (UT)u) : (T)(u / v)))

FLOAT_ROW(add_f32, float, u + v)
FLOAT_ROW(sub_f32, float, u - v)
FLOAT_ROW(mul_f32, float, u * v)
FLOAT_ROW(div_f32, float, u / v)
FLOAT_ROW(add_f64, double, u + v)
FLOAT_ROW(sub_f64, double, u - v)
FLOAT_ROW(mul_f64, double, u * v)
FLOAT_ROW(div_f64, double, u / v)
INT_ROWS(i8, int8_t, uint32_t)
INT_ROWS(i16, int16_t, uint32_t)
INT_ROWS(i32, int32_t, uint32_t)
INT_ROWS(i64, int64_t, uint64_t)

/* Unsigned types: u / -1 does not arise, plain C division; wrap through a type of at
 * least 32 bits (no promotion to a signed int can overflow). */
#define UINT_ROWS(SUFFIX, T, UT)                                                                    \
    FLOAT_ROW(add_##SUFFIX, T, (T)((UT)u + (UT)v))                                                  \
    FLOAT_ROW(sub_##SUFFIX, T, (T)((UT)u - (UT)v))                                                  \
    FLOAT_ROW(mul_##SUFFIX, T, (T)((UT)u * (UT)v))                                                  \
    FLOAT_ROW(div_##SUFFIX, T, (T)(u / v))

UINT_ROWS(u8, uint8_t, uint32_t)
UINT_ROWS(u16, uint16_t, uint32_t)
UINT_ROWS(u32, uint32_t, uint32_t)
UINT_ROWS(u64, uint64_t, uint64_t)

static bcast_row_fn binary_row(int op, acc_dtype t) {
    /* Indexed by acc_dtype; ACC_BOOL (7) has no arithmetic. */
    static const bcast_row_fn table[N_BINOPS][11] = {
        {add_f32, add_f64, add_i8, add_u8, add_i16, add_i32, add_i64, NULL, add_u16, add_u32, add_u64},
        {sub_f32, sub_f64, sub_i8, sub_u8, sub_i16, sub_i32, sub_i64, NULL, sub_u16, sub_u32, sub_u64},
        {mul_f32, mul_f64, mul_i8, mul_u8, mul_i16, mul_i32, mul_i64, NULL, mul_u16, mul_u32, mul_u64},
        {div_f32, div_f64, div_i8, div_u8, div_i16, div_i32, div_i64, NULL, div_u16, div_u32, div_u64},
    };
    if (!is_numeric(t)) return NULL;
    return table[op][t];
}

static int binary(int op, acc_dtype t, const void *a, int a_rank, const int64_t *a_shape, const void *b, int b_rank,
                  const int64_t *b_shape, void *y) {
    bcast_row_fn row = binary_row(op, t);
    if (!row || !a || !b || !y) return ACC_EINVAL;
    bcast bc;
    int st = bcast_setup(a_rank, a_shape, b_rank, b_shape, &bc);
    if (st) return st;
    if (op == OP_DIV && is_int_type(t)) {
        int64_t nb = numel(b_rank, b_shape);
        for (int64_t i = 0; i < nb; i++)
            if (load_int(t, b, i) == 0) return ACC_EDIVZERO;
    }
    size_t es = acc_dtype_size(t);
    bcast_run(&bc, row, NULL, (const char *)a, es, (const char *)b, es, (char *)y, es);
    return ACC_OK;
}

int acc_add(acc_dtype t, const void *a, int a_rank, const int64_t *a_shape, const void *b, int b_rank,
            const int64_t *b_shape, void *y) {
    return binary(OP_ADD, t, a, a_rank, a_shape, b, b_rank, b_shape, y);
}

int acc_subtract(acc_dtype t, const void *a, int a_rank, const int64_t *a_shape, const void *b, int b_rank,
                 const int64_t *b_shape, void *y) {
    return binary(OP_SUB, t, a, a_rank, a_shape, b, b_rank, b_shape, y);
}

int acc_multiply(acc_dtype t, const void *a, int a_rank, const int64_t *a_shape, const void *b, int b_rank,
                 const int64_t *b_shape, void *y) {
    return binary(OP_MUL, t, a, a_rank, a_shape, b, b_rank, b_shape, y);
}

int acc_divide(acc_dtype t, const void *a, int a_rank, const int64_t *a_shape, const void *b, int b_rank,
               const int64_t *b_shape, void *y) {
    return binary(OP_DIV, t, a, a_rank, a_shape, b, b_rank, b_shape, y);
}

int acc_bias_add(acc_dtype t, const void *x, const void *bias, void *y, int rank, const int64_t *shape, int axis) {
    if (!x || !bias || !y || !valid_shape(rank, shape)) return ACC_EINVAL;
    int ax = norm_axis(axis, rank);
    if (ax < 0) return ACC_EINVAL;
    /* bias as a tensor of shape [shape[ax], 1, ..., 1] broadcast against x */
    int64_t bshape[ACC_MAX_RANK];
    int brank = rank - ax;
    bshape[0] = shape[ax];
    for (int i = 1; i < brank; i++) bshape[i] = 1;
    return binary(OP_ADD, t, x, rank, shape, bias, brank, bshape, y);
}

/* -------------------------------------------------------------------------------
 * Elementwise unary ops
 * ------------------------------------------------------------------------------- */

/* `x < lo ? lo : x` keeps NaN (like np.maximum) and -0.0 (np.maximum(-0.0, 0) is -0.0). */
#define CLAMP_LOOP(T, X, Y, N, LO, HI)                                                              \
    do {                                                                                             \
        const T *x_ = (const T *)(X);                                                                \
        T *y_ = (T *)(Y);                                                                            \
        T lo_ = (LO), hi_ = (HI);                                                                    \
        for (int64_t i_ = 0; i_ < (N); i_++) {                                                       \
            T v_ = x_[i_];                                                                           \
            v_ = v_ < lo_ ? lo_ : v_;                                                                \
            y_[i_] = v_ > hi_ ? hi_ : v_;                                                            \
        }                                                                                            \
    } while (0)

int acc_relu(acc_dtype t, const void *x, void *y, int64_t count) {
    if (!x || !y || count < 0 || !is_numeric(t)) return ACC_EINVAL;
    switch (t) {
    case ACC_F32: CLAMP_LOOP(float, x, y, count, 0.0f, INFINITY); break;
    case ACC_F64: CLAMP_LOOP(double, x, y, count, 0.0, INFINITY); break;
    case ACC_I8: CLAMP_LOOP(int8_t, x, y, count, 0, INT8_MAX); break;
    case ACC_U8: CLAMP_LOOP(uint8_t, x, y, count, 0, UINT8_MAX); break;
    case ACC_I16: CLAMP_LOOP(int16_t, x, y, count, 0, INT16_MAX); break;
    case ACC_I32: CLAMP_LOOP(int32_t, x, y, count, 0, INT32_MAX); break;
    case ACC_I64: CLAMP_LOOP(int64_t, x, y, count, 0, INT64_MAX); break;
    default: return ACC_EINVAL;
    }
    return ACC_OK;
}

/* An integer clip bound: rounded inward (ceil for the lower, floor for the upper
 * bound), then limited to [lo, hi]. */
static int64_t int_bound(double v, int upper, int64_t lo, int64_t hi) {
    if (v != v) return upper ? hi : lo;
    double r = isfinite(v) ? (upper ? floor(v) : ceil(v)) : v;
    if (r <= (double)lo) return lo;
    if (r >= (double)hi) return hi;
    return (int64_t)r;
}

int acc_clip(acc_dtype t, const void *x, void *y, int64_t count, double a_min, double a_max) {
    if (!x || !y || count < 0 || !is_numeric(t)) return ACC_EINVAL;
    int64_t lo, hi;
    int_range(t, &lo, &hi);
    int64_t il = int_bound(a_min, 0, lo, hi), ih = int_bound(a_max, 1, lo, hi);
    switch (t) {
    case ACC_F32: CLAMP_LOOP(float, x, y, count, (float)a_min, (float)a_max); break;
    case ACC_F64: CLAMP_LOOP(double, x, y, count, a_min, a_max); break;
    case ACC_I8: CLAMP_LOOP(int8_t, x, y, count, (int8_t)il, (int8_t)ih); break;
    case ACC_U8: CLAMP_LOOP(uint8_t, x, y, count, (uint8_t)il, (uint8_t)ih); break;
    case ACC_I16: CLAMP_LOOP(int16_t, x, y, count, (int16_t)il, (int16_t)ih); break;
    case ACC_I32: CLAMP_LOOP(int32_t, x, y, count, (int32_t)il, (int32_t)ih); break;
    case ACC_I64: CLAMP_LOOP(int64_t, x, y, count, il, ih); break;
    default: return ACC_EINVAL;
    }
    return ACC_OK;
}

/* -------------------------------------------------------------------------------
 * Pooling and normalization
 * ------------------------------------------------------------------------------- */

static int pool_check(const acc_pool2d_params *p) {
    if (!p) return ACC_EINVAL;
    if (p->n < 0 || p->c < 0 || p->h < 1 || p->w < 1 || p->oh < 1 || p->ow < 1 || p->kh < 1 || p->kw < 1)
        return ACC_EINVAL;
    if (p->stride_h < 1 || p->stride_w < 1 || p->dil_h < 1 || p->dil_w < 1) return ACC_EINVAL;
    if (p->pad_top < 0 || p->pad_left < 0 || p->pad_bottom < 0 || p->pad_right < 0) return ACC_EINVAL;
    if (p->pad_top >= p->kh * p->dil_h || p->pad_bottom >= p->kh * p->dil_h || p->pad_left >= p->kw * p->dil_w ||
        p->pad_right >= p->kw * p->dil_w)
        return ACC_EINVAL;
    return ACC_OK;
}

/* Taps [*lo, *hi) of a window starting at `start` (step dil, k taps) that land in
 * [from, to). */
static void window_taps(int64_t start, int64_t k, int64_t dil, int64_t from, int64_t to, int64_t *lo,
                        int64_t *hi) {
    int64_t l = start >= from ? 0 : (from - start + dil - 1) / dil;
    int64_t h = start >= to ? 0 : (to - 1 - start) / dil + 1;
    if (h > k) h = k;
    if (l > h) l = h;
    *lo = l;
    *hi = h;
}

/* Per output row: the row starts at LOWEST and each valid tap (r, s) takes the maximum
 * with the input row under it, over the output columns where that tap lands (one
 * contiguous range, so the loop over columns vectorizes). Taps go in the order of the
 * window, so a NaN sticks like np.max. */
#define MAX_POOL_LOOP(T, LOWEST)                                                                    \
    do {                                                                                             \
        const T *x_ = (const T *)x;                                                                  \
        T *y_ = (T *)y;                                                                              \
        for (int64_t nc_ = 0; nc_ < p->n * p->c; nc_++) {                                            \
            const T *xp_ = x_ + nc_ * p->h * p->w;                                                   \
            T *yp_ = y_ + nc_ * p->oh * p->ow;                                                       \
            for (int64_t i_ = 0; i_ < p->oh; i_++) {                                                 \
                int64_t r0_ = i_ * p->stride_h - p->pad_top, rlo_, rhi_;                             \
                window_taps(r0_, p->kh, p->dil_h, 0, p->h, &rlo_, &rhi_);                            \
                T *yr_ = yp_ + i_ * p->ow;                                                           \
                for (int64_t j_ = 0; j_ < p->ow; j_++) yr_[j_] = (LOWEST);                           \
                for (int64_t r_ = rlo_; r_ < rhi_; r_++) {                                           \
                    const T *xr_ = xp_ + (r0_ + r_ * p->dil_h) * p->w;                               \
                    for (int64_t s_ = 0; s_ < p->kw; s_++) {                                         \
                        int64_t off_ = s_ * p->dil_w, jlo_, jhi_;                                    \
                        valid_cols(p->ow, p->w, p->stride_w, p->pad_left, off_, &jlo_, &jhi_);       \
                        int64_t sw_ = p->stride_w, base_ = off_ - p->pad_left;                       \
                        for (int64_t j_ = jlo_; j_ < jhi_; j_++) {                                   \
                            T v_ = xr_[base_ + j_ * sw_], m_ = yr_[j_];                              \
                            yr_[j_] = v_ > m_ || v_ != v_ ? v_ : m_;                                 \
                        }                                                                            \
                    }                                                                                \
                }                                                                                    \
            }                                                                                        \
        }                                                                                            \
    } while (0)

int acc_max_pool2d(acc_dtype t, const void *x, void *y, const acc_pool2d_params *p) {
    int st = pool_check(p);
    if (st) return st;
    if (!x || !y) return ACC_EINVAL;
    switch (t) {
    case ACC_F32: MAX_POOL_LOOP(float, -INFINITY); break;
    case ACC_F64: MAX_POOL_LOOP(double, -INFINITY); break;
    case ACC_I8: MAX_POOL_LOOP(int8_t, INT8_MIN); break;
    case ACC_U8: MAX_POOL_LOOP(uint8_t, 0); break;
    case ACC_I16: MAX_POOL_LOOP(int16_t, INT16_MIN); break;
    case ACC_I32: MAX_POOL_LOOP(int32_t, INT32_MIN); break;
    case ACC_I64: MAX_POOL_LOOP(int64_t, INT64_MIN); break;
    default: return ACC_EINVAL;
    }
    return ACC_OK;
}

/* Output strides of a reduction over `axes` (0 along reduced axes), and the output and
 * reduced element counts; ACC_EINVAL for an axis out of range or given twice. */
static int reduce_layout(int rank, const int64_t *shape, const int *axes, int n_axes, int64_t *ostride,
                         int64_t *out_n, int64_t *red_n) {
    int reduced[ACC_MAX_RANK] = {0};
    for (int i = 0; i < n_axes; i++) {
        int ax = norm_axis(axes[i], rank);
        if (ax < 0 || reduced[ax]) return ACC_EINVAL;
        reduced[ax] = 1;
    }
    *out_n = 1;
    *red_n = 1;
    for (int i = rank - 1; i >= 0; i--) {
        ostride[i] = reduced[i] ? 0 : *out_n;
        if (reduced[i])
            *red_n *= shape[i];
        else
            *out_n *= shape[i];
    }
    return ACC_OK;
}

/* -------------------------------------------------------------------------------
 * Data movement
 * ------------------------------------------------------------------------------- */

int acc_copy(const void *x, void *y, size_t bytes) {
    if (bytes && (!x || !y)) return ACC_EINVAL;
    if (bytes) memmove(y, x, bytes);
    return ACC_OK;
}

#define TRANSPOSE_ROW(T)                                                                            \
    do {                                                                                             \
        const T *s_ = (const T *)src;                                                                \
        T *d_ = (T *)dst;                                                                            \
        for (int64_t j_ = 0; j_ < n; j_++) d_[j_] = s_[j_ * step];                                   \
    } while (0)

int acc_transpose(size_t elem_size, const void *x, void *y, int rank, const int64_t *shape, const int *perm) {
    if (!x || !y || elem_size == 0 || !valid_shape(rank, shape) || (rank && !perm)) return ACC_EINVAL;
    int seen[ACC_MAX_RANK] = {0}, pm[ACC_MAX_RANK];
    for (int i = 0; i < rank; i++) {
        int a = norm_axis(perm[i], rank);
        if (a < 0 || seen[a]) return ACC_EINVAL;
        seen[a] = 1;
        pm[i] = a;
    }
    int64_t total = numel(rank, shape);
    if (total == 0) return ACC_OK;
    if (rank == 0) {
        memcpy(y, x, elem_size);
        return ACC_OK;
    }
    int64_t istride[ACC_MAX_RANK] = {0}, oshape[ACC_MAX_RANK] = {0}, s[ACC_MAX_RANK] = {0};
    int64_t k = 1;
    for (int i = rank - 1; i >= 0; i--) {
        istride[i] = k;
        k *= shape[i];
    }
    for (int i = 0; i < rank; i++) {
        oshape[i] = shape[pm[i]];
        s[i] = istride[pm[i]];
    }
    int64_t n = oshape[rank - 1], step = s[rank - 1];
    int64_t idx[ACC_MAX_RANK] = {0}, off = 0;
    const char *xb = (const char *)x;
    char *yb = (char *)y;
    for (int64_t base = 0; base < total; base += n) {
        const char *src = xb + off * (int64_t)elem_size;
        char *dst = yb + base * (int64_t)elem_size;
        switch (elem_size) {
        case 1: TRANSPOSE_ROW(uint8_t); break;
        case 2: TRANSPOSE_ROW(uint16_t); break;
        case 4: TRANSPOSE_ROW(uint32_t); break;
        case 8: TRANSPOSE_ROW(uint64_t); break;
        default:
            for (int64_t j = 0; j < n; j++)
                memcpy(dst + j * (int64_t)elem_size, src + j * step * (int64_t)elem_size, elem_size);
        }
        for (int d = rank - 2; d >= 0; d--) {
            idx[d]++;
            off += s[d];
            if (idx[d] < oshape[d]) break;
            off -= s[d] * idx[d];
            idx[d] = 0;
        }
    }
    return ACC_OK;
}

int acc_concatenate(size_t elem_size, int n_inputs, const void *const *inputs, const int64_t *axis_sizes, void *y,
                    int rank, const int64_t *shape, int axis) {
    if (!y || elem_size == 0 || n_inputs < 1 || !inputs || !axis_sizes || rank < 1 || !valid_shape(rank, shape))
        return ACC_EINVAL;
    int ax = norm_axis(axis, rank);
    if (ax < 0) return ACC_EINVAL;
    int64_t total = 0;
    for (int i = 0; i < n_inputs; i++) {
        if (axis_sizes[i] < 0 || (axis_sizes[i] > 0 && !inputs[i])) return ACC_EINVAL;
        total += axis_sizes[i];
    }
    if (total != shape[ax]) return ACC_EINVAL;
    int64_t outer, mid, inner;
    split_at(rank, shape, ax, &outer, &mid, &inner);
    int64_t row = inner * (int64_t)elem_size; /* bytes per index along axis */
    char *dst = (char *)y;
    for (int64_t o = 0; o < outer; o++)
        for (int i = 0; i < n_inputs; i++) {
            int64_t bytes = axis_sizes[i] * row;
            if (bytes == 0) continue;
            memcpy(dst, (const char *)inputs[i] + o * bytes, (size_t)bytes);
            dst += bytes;
        }
    return ACC_OK;
}

/* Source index of output index i along a padded axis (-1: constant padding). */
static int64_t pad_source(int64_t i, int64_t before, int64_t size, acc_pad_mode mode) {
    int64_t j = i - before;
    if (j >= 0 && j < size) return j;
    switch (mode) {
    case ACC_PAD_EDGE: return j < 0 ? 0 : size - 1;
    case ACC_PAD_REFLECT: return j < 0 ? -j : 2 * (size - 1) - j;
    case ACC_PAD_WRAP: return ((j % size) + size) % size;
    default: return -1;
    }
}

int acc_pad(size_t elem_size, const void *x, void *y, int rank, const int64_t *shape, const int64_t *pad_width,
            acc_pad_mode mode, const void *pad_value) {
    if (!x || !y || elem_size == 0 || !valid_shape(rank, shape) || (rank && !pad_width)) return ACC_EINVAL;
    if (mode != ACC_PAD_CONSTANT && mode != ACC_PAD_EDGE && mode != ACC_PAD_REFLECT && mode != ACC_PAD_WRAP)
        return ACC_EINVAL;
    if (mode == ACC_PAD_CONSTANT && !pad_value) return ACC_EINVAL;
    int64_t oshape[ACC_MAX_RANK] = {0};
    for (int i = 0; i < rank; i++) {
        int64_t b = pad_width[2 * i], a = pad_width[2 * i + 1];
        if (b < 0 || a < 0) return ACC_EINVAL;
        if ((mode == ACC_PAD_EDGE || mode == ACC_PAD_WRAP) && shape[i] == 0 && b + a > 0) return ACC_EINVAL;
        if (mode == ACC_PAD_REFLECT && (b >= shape[i] || a >= shape[i]) && b + a > 0) return ACC_EINVAL;
        oshape[i] = shape[i] + b + a;
    }
    const char *xb = (const char *)x;
    char *yb = (char *)y;
    int64_t es = (int64_t)elem_size;
    int64_t total = numel(rank, oshape);
    if (total == 0) return ACC_OK;
    if (rank == 0) {
        memcpy(y, x, elem_size);
        return ACC_OK;
    }
    int64_t istride[ACC_MAX_RANK] = {0}, k = 1;
    for (int i = rank - 1; i >= 0; i--) {
        istride[i] = k;
        k *= shape[i];
    }
    int64_t n = oshape[rank - 1], before = pad_width[2 * (rank - 1)], size = shape[rank - 1];
    int64_t idx[ACC_MAX_RANK] = {0};
    for (int64_t base = 0; base < total; base += n) {
        char *dst = yb + base * es;
        /* Source row of this output row, or none (constant padding). */
        int64_t src_off = 0;
        int constant_row = 0;
        for (int d = 0; d < rank - 1; d++) {
            int64_t s = pad_source(idx[d], pad_width[2 * d], shape[d], mode);
            if (s < 0) {
                constant_row = 1;
                break;
            }
            src_off += s * istride[d];
        }
        if (constant_row || size == 0) {
            for (int64_t j = 0; j < n; j++) memcpy(dst + j * es, pad_value, elem_size);
        } else {
            const char *src = xb + src_off * es;
            for (int64_t j = 0; j < before; j++) {
                int64_t s = pad_source(j, before, size, mode);
                memcpy(dst + j * es, s < 0 ? pad_value : src + s * es, elem_size);
            }
            memcpy(dst + before * es, src, (size_t)(size * es));
            for (int64_t j = before + size; j < n; j++) {
                int64_t s = pad_source(j, before, size, mode);
                memcpy(dst + j * es, s < 0 ? pad_value : src + s * es, elem_size);
            }
        }
        for (int d = rank - 2; d >= 0; d--) {
            if (++idx[d] < oshape[d]) break;
            idx[d] = 0;
        }
    }
    return ACC_OK;
}

int acc_take(size_t elem_size, const void *x, int rank, const int64_t *shape, int axis, acc_dtype index_type,
             const void *indices, int64_t n_indices, void *y) {
    if (!x || !y || elem_size == 0 || rank < 1 || !valid_shape(rank, shape) || n_indices < 0) return ACC_EINVAL;
    if (!is_int_type(index_type) || (n_indices && !indices)) return ACC_EINVAL;
    int ax = norm_axis(axis, rank);
    if (ax < 0) return ACC_EINVAL;
    int64_t outer, size, inner;
    split_at(rank, shape, ax, &outer, &size, &inner);
    for (int64_t i = 0; i < n_indices; i++) {
        int64_t v = load_int(index_type, indices, i);
        if (v < -size || v >= size) return ACC_ERANGE;
    }
    int64_t chunk = inner * (int64_t)elem_size;
    const char *xb = (const char *)x;
    char *dst = (char *)y;
    for (int64_t o = 0; o < outer; o++)
        for (int64_t i = 0; i < n_indices; i++) {
            int64_t v = load_int(index_type, indices, i);
            if (v < 0) v += size;
            memcpy(dst, xb + (o * size + v) * chunk, (size_t)chunk);
            dst += chunk;
        }
    return ACC_OK;
}

/* -------------------------------------------------------------------------------
 * Cast
 * ------------------------------------------------------------------------------- */

/* float -> integer of range [lo, hi]: truncate toward zero, saturate, NaN -> 0.
 * -(double)lo is the first value past hi for the signed types (2^7, ..., 2^63). */
static int64_t float_to_int(double d, int64_t lo, int64_t hi) {
    if (d != d) return 0;
    double t = trunc(d);
    if (t < (double)lo) return lo;
    double past = lo < 0 ? -(double)lo : (double)hi + 1.0;
    if (t >= past) return hi;
    return (int64_t)t;
}

/* Two's-complement wrap of v into the integer type t. */
static int64_t wrap_int(acc_dtype t, int64_t v) {
    uint64_t u = (uint64_t)v;
    switch (t) {
    case ACC_I8: return (int8_t)(uint8_t)u;
    case ACC_U8: return (uint8_t)u;
    case ACC_I16: return (int16_t)(uint16_t)u;
    case ACC_I32: return (int32_t)(uint32_t)u;
    case ACC_U16: return (uint16_t)u;
    case ACC_U32: return (uint32_t)u;
    default: return v;
    }
}

int acc_cast_wide(acc_dtype from, const void *x, acc_dtype to, void *y, int64_t count) {
    if (!x || !y || count < 0 || !acc_dtype_size(from) || !acc_dtype_size(to)) return ACC_EINVAL;
    if (acc_is_narrow(from) || acc_is_narrow(to)) return ACC_EINVAL;
    int64_t lo = 0, hi = 1;
    int_range(to, &lo, &hi);
    for (int64_t i = 0; i < count; i++) {
        if (is_float_type(from)) {
            double d = from == ACC_F32 ? (double)((const float *)x)[i] : ((const double *)x)[i];
            switch (to) {
            case ACC_F32: ((float *)y)[i] = (float)d; break;
            case ACC_F64: ((double *)y)[i] = d; break;
            case ACC_BOOL: ((uint8_t *)y)[i] = d != 0.0; break;
            default: store_int(to, y, i, float_to_int(d, lo, hi));
            }
        } else if (from == ACC_U64 && is_float_type(to)) { /* values above INT64_MAX */
            uint64_t v = ((const uint64_t *)x)[i];
            if (to == ACC_F32)
                ((float *)y)[i] = (float)v;
            else
                ((double *)y)[i] = (double)v;
        } else {
            int64_t v = load_int(from, x, i);
            switch (to) {
            case ACC_F32: ((float *)y)[i] = (float)v; break; /* int64 -> float directly: one rounding */
            case ACC_F64: ((double *)y)[i] = (double)v; break;
            case ACC_BOOL: ((uint8_t *)y)[i] = v != 0; break;
            default: store_int(to, y, i, wrap_int(to, v));
            }
        }
    }
    return ACC_OK;
}

/* -------------------------------------------------------------------------------
 * Quantization
 * ------------------------------------------------------------------------------- */

static int is_qint(acc_dtype t) {
    return t == ACC_I8 || t == ACC_U8 || t == ACC_I16 || t == ACC_U16 || t == ACC_I32 || t == ACC_I4 || t == ACC_U4 ||
           t == ACC_I2 || t == ACC_U2;
}

static int is_int8(acc_dtype t) { return t == ACC_I8 || t == ACC_U8; }

static int per_axis(const acc_qparams *q) { return q->scale_len > 1 || (q->zero_point && q->zero_point_len > 1); }

/* Checks q against data of the given shape; *ch is the size of the parameter axis (1
 * when both arrays are per tensor) and *inner the elements after it. */
static int qparams_layout(const acc_qparams *q, int rank, const int64_t *shape, int axis, int64_t *outer,
                          int64_t *ch, int64_t *inner) {
    if (!q || !q->scale || q->scale_len < 1 || (q->zero_point && q->zero_point_len < 1)) return ACC_EINVAL;
    if (!per_axis(q)) { /* one row of every element: the inner loops vectorize */
        *outer = 1;
        *ch = 1;
        *inner = numel(rank, shape);
        return ACC_OK;
    }
    int ax = norm_axis(axis, rank);
    if (ax < 0) return ACC_EINVAL;
    split_at(rank, shape, ax, outer, ch, inner);
    if (q->scale_len != 1 && q->scale_len != *ch) return ACC_EINVAL;
    if (q->zero_point && q->zero_point_len != 1 && q->zero_point_len != *ch) return ACC_EINVAL;
    return ACC_OK;
}

static float q_scale(const acc_qparams *q, int64_t c) { return q->scale[q->scale_len == 1 ? 0 : c]; }

static int32_t q_zp(const acc_qparams *q, int64_t c) {
    return q->zero_point ? q->zero_point[q->zero_point_len == 1 ? 0 : c] : 0;
}

int acc_quantize(const float *x, acc_dtype y_type, void *y, int rank, const int64_t *shape, int axis,
                 const acc_qparams *q) {
    if (!x || !y || !is_qint(y_type) || !valid_shape(rank, shape)) return ACC_EINVAL;
    int64_t outer, ch, inner, lo, hi;
    int st = qparams_layout(q, rank, shape, axis, &outer, &ch, &inner);
    if (st) return st;
    int_range(y_type, &lo, &hi);
    for (int64_t o = 0; o < outer; o++)
        for (int64_t c = 0; c < ch; c++) {
            float s = q_scale(q, c);
            int32_t zp = q_zp(q, c);
            int64_t base = (o * ch + c) * inner;
            /* 8-bit rows typed and branch-free (the hot case of QDQ models): in float,
             * r + zp is exact wherever the clamp does not decide the result. */
            if ((y_type == ACC_I8 || y_type == ACC_U8) && zp >= INT16_MIN && zp <= INT16_MAX) {
                const float *xr = x + base;
                float fz = (float)zp, flo = (float)lo, fhi = (float)hi;
                if (y_type == ACC_I8) {
                    int8_t *yr = (int8_t *)y + base;
                    for (int64_t i = 0; i < inner; i++) yr[i] = (int8_t)(int)quantize_clamped(xr[i], s, fz, flo, fhi);
                } else {
                    uint8_t *yr = (uint8_t *)y + base;
                    for (int64_t i = 0; i < inner; i++) yr[i] = (uint8_t)(int)quantize_clamped(xr[i], s, fz, flo, fhi);
                }
            } else {
                for (int64_t i = 0; i < inner; i++)
                    store_int(y_type, y, base + i, quantize_value(x[base + i], s, zp, lo, hi));
            }
        }
    return ACC_OK;
}

int acc_dequantize(acc_dtype x_type, const void *x, float *y, int rank, const int64_t *shape, int axis,
                   const acc_qparams *q) {
    if (!x || !y || !is_qint(x_type) || !valid_shape(rank, shape)) return ACC_EINVAL;
    int64_t outer, ch, inner;
    int st = qparams_layout(q, rank, shape, axis, &outer, &ch, &inner);
    if (st) return st;
    for (int64_t o = 0; o < outer; o++)
        for (int64_t c = 0; c < ch; c++) {
            float s = q_scale(q, c);
            int32_t zp = q_zp(q, c);
            int64_t base = (o * ch + c) * inner;
            int small_zp = zp >= INT16_MIN && zp <= INT16_MAX; /* x - zp fits int32 */
            if (x_type == ACC_I8 && small_zp) {
                const int8_t *xr = (const int8_t *)x + base;
                for (int64_t i = 0; i < inner; i++) y[base + i] = (float)((int32_t)xr[i] - zp) * s;
            } else if (x_type == ACC_U8 && small_zp) {
                const uint8_t *xr = (const uint8_t *)x + base;
                for (int64_t i = 0; i < inner; i++) y[base + i] = (float)((int32_t)xr[i] - zp) * s;
            } else {
                for (int64_t i = 0; i < inner; i++)
                    y[base + i] = dequantize_value(load_int(x_type, x, base + i), s, zp);
            }
        }
    return ACC_OK;
}

int acc_requantize(acc_dtype x_type, const void *x, acc_dtype y_type, void *y, int rank, const int64_t *shape,
                   int axis, const acc_qparams *in, const acc_qparams *out) {
    if (!x || !y || !is_qint(x_type) || !is_qint(y_type) || !valid_shape(rank, shape)) return ACC_EINVAL;
    int64_t outer, ch, inner, o2, c2, i2, lo, hi;
    int st = qparams_layout(in, rank, shape, axis, &outer, &ch, &inner);
    if (!st) st = qparams_layout(out, rank, shape, axis, &o2, &c2, &i2);
    if (st) return st;
    if (per_axis(out)) { /* a per-tensor side reads its single entry for every channel */
        outer = o2;
        ch = c2;
        inner = i2;
    }
    int_range(y_type, &lo, &hi);
    for (int64_t o = 0; o < outer; o++)
        for (int64_t c = 0; c < ch; c++) {
            float si = q_scale(in, c), so = q_scale(out, c);
            int32_t zi = q_zp(in, c), zo = q_zp(out, c);
            int64_t base = (o * ch + c) * inner;
            for (int64_t i = 0; i < inner; i++) {
                float r = dequantize_value(load_int(x_type, x, base + i), si, zi);
                store_int(y_type, y, base + i, quantize_value(r, so, zo, lo, hi));
            }
        }
    return ACC_OK;
}

/* Largest |v - zp| over the values of the 8-bit type t. */
static int64_t max_offset(acc_dtype t, int64_t zp) {
    int64_t lo, hi;
    int_range(t, &lo, &hi);
    int64_t a = zp - lo, b = hi - zp;
    return a > b ? a : b;
}

/* Widens n 8-bit values minus a zero point to int16 (|v - zp| <= 255 by the callers'
 * zero point checks). */
static void offset_to_i16(acc_dtype t, const void *src, int64_t n, int32_t zp, int16_t *dst) {
    if (t == ACC_I8) {
        const int8_t *s = (const int8_t *)src;
        for (int64_t i = 0; i < n; i++) dst[i] = (int16_t)(s[i] - zp);
    } else {
        const uint8_t *s = (const uint8_t *)src;
        for (int64_t i = 0; i < n; i++) dst[i] = (int16_t)(s[i] - zp);
    }
}

static int zp_in_range(acc_dtype t, int64_t zp) {
    int64_t lo, hi;
    int_range(t, &lo, &hi);
    return zp >= lo && zp <= hi;
}

/* Offsets x and w by their zero points into int16 copies (w's per output channel o:
 * rows of `row` elements). Sets *exact32 when no int32 partial sum of `k` products
 * can overflow. */
static int quant_operands(acc_dtype xt, const void *x, int64_t nx, int32_t xzp, acc_dtype wt, const void *w,
                          int64_t rows, int64_t row, const int32_t *wzp, int64_t wzp_len, int64_t k, int16_t **xo,
                          int16_t **wo, int *exact32) {
    if (!is_int8(xt) || !is_int8(wt) || !x || !w) return ACC_EINVAL;
    if (wzp && wzp_len != 1 && wzp_len != rows) return ACC_EINVAL;
    if (!zp_in_range(xt, xzp)) return ACC_EINVAL;
    int64_t mw = 0;
    for (int64_t o = 0; o < (wzp ? wzp_len : 1); o++) {
        int64_t z = wzp ? wzp[o] : 0;
        if (!zp_in_range(wt, z)) return ACC_EINVAL;
        int64_t m = max_offset(wt, z);
        if (m > mw) mw = m;
    }
    int64_t mx = max_offset(xt, xzp);
    *exact32 = k == 0 || mx * mw <= INT32_MAX / k;
    *xo = malloc((size_t)(nx > 0 ? nx : 1) * sizeof(int16_t));
    *wo = malloc((size_t)(rows * row > 0 ? rows * row : 1) * sizeof(int16_t));
    if (!*xo || !*wo) {
        free(*xo);
        free(*wo);
        return ACC_ENOMEM;
    }
    offset_to_i16(xt, x, nx, xzp, *xo);
    for (int64_t o = 0; o < rows; o++) {
        int32_t z = wzp ? wzp[wzp_len == 1 ? 0 : o] : 0;
        offset_to_i16(wt, (const char *)w + o * row, row, z, *wo + o * row);
    }
    return ACC_OK;
}

/* Copies exact int64 sums to int32, adding bias[c] (wrapping) for channel c = (i / plane)
 * % channels; ACC_EOVERFLOW when a sum leaves int32. */
static int finish_wide(const int64_t *acc, int32_t *y, int64_t count, const int32_t *bias, int64_t channels,
                       int64_t plane) {
    for (int64_t i = 0; i < count; i++)
        if (acc[i] < INT32_MIN || acc[i] > INT32_MAX) return ACC_EOVERFLOW;
    for (int64_t i = 0; i < count; i++) {
        uint32_t v = (uint32_t)(int32_t)acc[i];
        if (bias) v += (uint32_t)bias[(i / plane) % channels];
        y[i] = (int32_t)v;
    }
    return ACC_OK;
}

int acc_qnn_conv2d(acc_dtype x_type, const void *x, acc_dtype w_type, const void *w, const int32_t *bias,
                   int32_t *y, const acc_conv2d_params *p, int32_t x_zero_point, const int32_t *w_zero_point,
                   int64_t w_zero_point_len) {
    int st = conv_check(p);
    if (st) return st;
    if (!y) return ACC_EINVAL;
    int64_t cg = p->c / p->groups, row = cg * p->kh * p->kw;
    int64_t nx = p->n * p->c * p->h * p->w, ny = p->n * p->oc * p->oh * p->ow, plane = p->oh * p->ow;
    int16_t *xo, *wo;
    int exact32;
    st = quant_operands(x_type, x, nx, x_zero_point, w_type, w, p->oc, row, w_zero_point, w_zero_point_len, row,
                        &xo, &wo, &exact32);
    if (st) return st;
    if (exact32 && !conv_is_per_channel(p)) {
        /* Per image and group: y[o][pixel] = dot(w offsets[o], taps of the pixel), the
         * taps gathered pixel-major (transposed im2col; padding is offset 0). */
        int64_t og = p->oc / p->groups;
        int16_t *col = malloc((size_t)(row * plane > 0 ? row * plane : 1) * sizeof(int16_t));
        if (!col) {
            st = ACC_ENOMEM;
        } else {
            for (int64_t b = 0; b < p->n; b++)
                for (int64_t g = 0; g < p->groups; g++) {
                    const int16_t *xg = xo + (b * p->c + g * cg) * p->h * p->w;
                    IM2COL(int16_t, xg, col, p, 0, 1);
                    acc_igemm_s16(og, plane, row, wo + g * og * row, row, col, row, y + (b * p->oc + g * og) * plane,
                                  plane);
                }
            free(col);
            if (bias)
                for (int64_t i = 0; i < ny; i++) y[i] = (int32_t)((uint32_t)y[i] + (uint32_t)bias[(i / plane) % p->oc]);
        }
    } else if (exact32) {
        memset(y, 0, (size_t)ny * sizeof(int32_t));
        CONV_NEST(int16_t, int16_t, int32_t, xo, wo, y, p);
        if (bias)
            for (int64_t i = 0; i < ny; i++) y[i] = (int32_t)((uint32_t)y[i] + (uint32_t)bias[(i / plane) % p->oc]);
    } else {
        int64_t *acc = calloc((size_t)ny, sizeof(int64_t));
        if (!acc) {
            st = ACC_ENOMEM;
        } else {
            CONV_NEST(int16_t, int16_t, int64_t, xo, wo, acc, p);
            st = finish_wide(acc, y, ny, bias, p->oc, plane);
            free(acc);
        }
    }
    free(xo);
    free(wo);
    return st;
}

int acc_qnn_dense(acc_dtype x_type, const void *x, acc_dtype w_type, const void *w, const int32_t *bias,
                  int32_t *y, int64_t m, int64_t k, int64_t n, int32_t x_zero_point, const int32_t *w_zero_point,
                  int64_t w_zero_point_len) {
    if (!y || m < 0 || k < 0 || n < 0) return ACC_EINVAL;
    int16_t *xo, *wo;
    int exact32;
    int st = quant_operands(x_type, x, m * k, x_zero_point, w_type, w, n, k, w_zero_point, w_zero_point_len, k, &xo,
                            &wo, &exact32);
    if (st) return st;
    int64_t *wide = NULL;
    if (!exact32) {
        wide = malloc((size_t)(m * n > 0 ? m * n : 1) * sizeof(int64_t));
        if (!wide) {
            free(xo);
            free(wo);
            return ACC_ENOMEM;
        }
    }
    if (exact32) {
        acc_igemm_s16(m, n, k, xo, k, wo, k, y, n);
        if (bias)
            for (int64_t i = 0; i < m; i++)
                for (int64_t j = 0; j < n; j++) y[i * n + j] = (int32_t)((uint32_t)y[i * n + j] + (uint32_t)bias[j]);
    } else {
        for (int64_t i = 0; i < m; i++)
            for (int64_t j = 0; j < n; j++) {
                const int16_t *xr = xo + i * k, *wr = wo + j * k;
                int64_t s = 0;
                for (int64_t p = 0; p < k; p++) s += (int64_t)xr[p] * wr[p];
                wide[i * n + j] = s;
            }
        st = finish_wide(wide, y, m * n, bias, n, 1);
    }
    free(wide);
    free(xo);
    free(wo);
    return st;
}

/* qnn.add row: dequantized values come from 256-entry tables indexed by the byte. */
typedef struct qadd_ctx {
    float ta[256], tb[256];
    int a_signed, b_signed;
    acc_dtype y_type;
    float y_scale;
    int32_t y_zp;
    int64_t lo, hi;
} qadd_ctx;

static void qadd_row(const void *ctx, const void *pa, int64_t sa, const void *pb, int64_t sb, void *py, int64_t n) {
    const qadd_ctx *c = (const qadd_ctx *)ctx;
    const uint8_t *a = (const uint8_t *)pa, *b = (const uint8_t *)pb;
    for (int64_t i = 0; i < n; i++) {
        float v = c->ta[a[i * sa]] + c->tb[b[i * sb]];
        store_int(c->y_type, py, i, quantize_value(v, c->y_scale, c->y_zp, c->lo, c->hi));
    }
}

static void dq_table(acc_dtype t, float scale, int32_t zp, float *table) {
    for (int v = 0; v < 256; v++) {
        int64_t q = t == ACC_I8 ? (int64_t)(int8_t)(uint8_t)v : (int64_t)v;
        table[v] = dequantize_value(q, scale, zp);
    }
}

int acc_qnn_add(acc_dtype a_type, const void *a, int a_rank, const int64_t *a_shape, float a_scale,
                int32_t a_zero_point, acc_dtype b_type, const void *b, int b_rank, const int64_t *b_shape,
                float b_scale, int32_t b_zero_point, acc_dtype y_type, void *y, float y_scale,
                int32_t y_zero_point) {
    if (!a || !b || !y || !is_int8(a_type) || !is_int8(b_type) || !is_qint(y_type)) return ACC_EINVAL;
    bcast bc;
    int st = bcast_setup(a_rank, a_shape, b_rank, b_shape, &bc);
    if (st) return st;
    qadd_ctx *c = malloc(sizeof(qadd_ctx));
    if (!c) return ACC_ENOMEM;
    dq_table(a_type, a_scale, a_zero_point, c->ta);
    dq_table(b_type, b_scale, b_zero_point, c->tb);
    c->y_type = y_type;
    c->y_scale = y_scale;
    c->y_zp = y_zero_point;
    int_range(y_type, &c->lo, &c->hi);
    bcast_run(&bc, qadd_row, c, (const char *)a, 1, (const char *)b, 1, (char *)y, acc_dtype_size(y_type));
    free(c);
    return ACC_OK;
}

/* -------------------------------------------------------------------------------
 * Run-time math: elementwise functions, comparisons, selection, reductions
 * ------------------------------------------------------------------------------- */

/* Integer negation and abs wrap through the unsigned type of the same width. */
#define SIGN_LOOP(T, UT, X, Y, N, NEG_ONLY)                                 \
    do {                                                                    \
        const T *x_ = (const T *)(X);                                       \
        T *y_ = (T *)(Y);                                                   \
        for (int64_t i_ = 0; i_ < (N); i_++) {                              \
            T v_ = x_[i_];                                                  \
            y_[i_] = ((NEG_ONLY) || v_ < 0) ? (T)((UT)0 - (UT)v_) : v_;     \
        }                                                                   \
    } while (0)

static int sign_op(acc_dtype t, const void *x, void *y, int64_t count, int neg_only) {
    if (!x || !y || count < 0 || !is_numeric(t)) return ACC_EINVAL;
    switch (t) {
    case ACC_F32: {
        const float *a = (const float *)x;
        float *b = (float *)y;
        for (int64_t i = 0; i < count; i++) b[i] = neg_only ? -a[i] : fabsf(a[i]);
        break;
    }
    case ACC_F64: {
        const double *a = (const double *)x;
        double *b = (double *)y;
        for (int64_t i = 0; i < count; i++) b[i] = neg_only ? -a[i] : fabs(a[i]);
        break;
    }
    case ACC_I8: SIGN_LOOP(int8_t, uint8_t, x, y, count, neg_only); break;
    case ACC_U8: { /* |x| == x */
        const uint8_t *a = (const uint8_t *)x;
        uint8_t *b = (uint8_t *)y;
        for (int64_t i = 0; i < count; i++) b[i] = neg_only ? (uint8_t)(0u - a[i]) : a[i];
        break;
    }
    case ACC_I16: SIGN_LOOP(int16_t, uint16_t, x, y, count, neg_only); break;
    case ACC_I32: SIGN_LOOP(int32_t, uint32_t, x, y, count, neg_only); break;
    case ACC_I64: SIGN_LOOP(int64_t, uint64_t, x, y, count, neg_only); break;
    default: return ACC_EINVAL;
    }
    return ACC_OK;
}

int acc_negative(acc_dtype t, const void *x, void *y, int64_t count) { return sign_op(t, x, y, count, 1); }

int acc_abs(acc_dtype t, const void *x, void *y, int64_t count) { return sign_op(t, x, y, count, 0); }

/* Broadcast binary rows of maximum, minimum (nan wins, like np.maximum) and power. */
#define MAX_EXPR(u, v) ((u) != (u) || (u) > (v) ? (u) : (v))
#define MIN_EXPR(u, v) ((u) != (u) || (u) < (v) ? (u) : (v))
#define MINMAX_ROWS(SUFFIX, T)                                  \
    FLOAT_ROW(max_##SUFFIX, T, ((v) != (v) ? (v) : MAX_EXPR(u, v))) \
    FLOAT_ROW(min_##SUFFIX, T, ((v) != (v) ? (v) : MIN_EXPR(u, v)))

MINMAX_ROWS(f32, float)
MINMAX_ROWS(f64, double)
MINMAX_ROWS(i8, int8_t)
MINMAX_ROWS(u8, uint8_t)
MINMAX_ROWS(i16, int16_t)
MINMAX_ROWS(i32, int32_t)
MINMAX_ROWS(i64, int64_t)
MINMAX_ROWS(u16, uint16_t)
MINMAX_ROWS(u32, uint32_t)
MINMAX_ROWS(u64, uint64_t)
FLOAT_ROW(pow_f32, float, powf(u, v))
FLOAT_ROW(pow_f64, double, pow(u, v))

static int math_binary(bcast_row_fn row, acc_dtype t, const void *a, int a_rank, const int64_t *a_shape,
                       const void *b, int b_rank, const int64_t *b_shape, void *y) {
    if (!row || !a || !b || !y) return ACC_EINVAL;
    bcast bc;
    int st = bcast_setup(a_rank, a_shape, b_rank, b_shape, &bc);
    if (st) return st;
    size_t es = acc_dtype_size(t);
    bcast_run(&bc, row, NULL, (const char *)a, es, (const char *)b, es, (char *)y, es);
    return ACC_OK;
}

static bcast_row_fn minmax_row(int is_max, acc_dtype t) {
    /* Indexed by acc_dtype; ACC_BOOL (7) has none. */
    static const bcast_row_fn table[2][11] = {
        {min_f32, min_f64, min_i8, min_u8, min_i16, min_i32, min_i64, NULL, min_u16, min_u32, min_u64},
        {max_f32, max_f64, max_i8, max_u8, max_i16, max_i32, max_i64, NULL, max_u16, max_u32, max_u64},
    };
    return is_numeric(t) ? table[is_max][t] : NULL;
}

int acc_maximum(acc_dtype t, const void *a, int a_rank, const int64_t *a_shape, const void *b, int b_rank,
                const int64_t *b_shape, void *y) {
    return math_binary(minmax_row(1, t), t, a, a_rank, a_shape, b, b_rank, b_shape, y);
}

int acc_minimum(acc_dtype t, const void *a, int a_rank, const int64_t *a_shape, const void *b, int b_rank,
                const int64_t *b_shape, void *y) {
    return math_binary(minmax_row(0, t), t, a, a_rank, a_shape, b, b_rank, b_shape, y);
}

int acc_power(acc_dtype t, const void *a, int a_rank, const int64_t *a_shape, const void *b, int b_rank,
              const int64_t *b_shape, void *y) {
    bcast_row_fn row = t == ACC_F32 ? pow_f32 : t == ACC_F64 ? pow_f64 : NULL;
    return math_binary(row, t, a, a_rank, a_shape, b, b_rank, b_shape, y);
}

/* Comparison rows: operands of type T, one byte (0/1) per output. */
#define CMP_ROW(NAME, T, OP)                                                                        \
    static void NAME(const void *ctx, const void *pa, int64_t sa, const void *pb, int64_t sb, void *py, \
                     int64_t n) {                                                                    \
        (void)ctx;                                                                                   \
        const T *a = (const T *)pa;                                                                  \
        const T *b = (const T *)pb;                                                                  \
        uint8_t *y = (uint8_t *)py;                                                                  \
        for (int64_t i = 0; i < n; i++) y[i] = (uint8_t)(a[i * sa] OP b[i * sb]);                    \
    }
#define CMP_ROWS(SUFFIX, T)               \
    CMP_ROW(eq_##SUFFIX, T, ==)           \
    CMP_ROW(ne_##SUFFIX, T, !=)           \
    CMP_ROW(lt_##SUFFIX, T, <)            \
    CMP_ROW(le_##SUFFIX, T, <=)           \
    CMP_ROW(gt_##SUFFIX, T, >)            \
    CMP_ROW(ge_##SUFFIX, T, >=)

CMP_ROWS(f32, float)
CMP_ROWS(f64, double)
CMP_ROWS(i8, int8_t)
CMP_ROWS(u8, uint8_t)
CMP_ROWS(i16, int16_t)
CMP_ROWS(i32, int32_t)
CMP_ROWS(i64, int64_t)
CMP_ROWS(u16, uint16_t)
CMP_ROWS(u32, uint32_t)
CMP_ROWS(u64, uint64_t)

/* Indexed by acc_dtype; ACC_BOOL (7) compares its bytes. */
#define CMP_TABLE_ROW(P) {P##_f32, P##_f64, P##_i8, P##_u8, P##_i16, P##_i32, P##_i64, P##_u8, P##_u16, P##_u32, P##_u64}

int acc_compare(acc_compare_op op, acc_dtype t, const void *a, int a_rank, const int64_t *a_shape, const void *b,
                int b_rank, const int64_t *b_shape, uint8_t *y) {
    static const bcast_row_fn table[6][11] = {CMP_TABLE_ROW(eq), CMP_TABLE_ROW(ne), CMP_TABLE_ROW(lt),
                                             CMP_TABLE_ROW(le), CMP_TABLE_ROW(gt), CMP_TABLE_ROW(ge)};
    if ((int)op < 0 || (int)op > 5 || (int)t < 0 || (int)t > ACC_U64 || acc_dtype_size(t) == 0 || !a || !b || !y)
        return ACC_EINVAL;
    bcast bc;
    int st = bcast_setup(a_rank, a_shape, b_rank, b_shape, &bc);
    if (st) return st;
    size_t es = acc_dtype_size(t);
    bcast_run(&bc, table[op][t], NULL, (const char *)a, es, (const char *)b, es, (char *)y, 1);
    return ACC_OK;
}

/* Boolean rows: any nonzero byte is true; the result is 0 or 1. */
FLOAT_ROW(and_b, uint8_t, (uint8_t)((u != 0) & (v != 0)))
FLOAT_ROW(or_b, uint8_t, (uint8_t)((u != 0) | (v != 0)))
FLOAT_ROW(xor_b, uint8_t, (uint8_t)((u != 0) ^ (v != 0)))

int acc_logical(acc_logical_op op, const uint8_t *a, int a_rank, const int64_t *a_shape, const uint8_t *b,
                int b_rank, const int64_t *b_shape, uint8_t *y) {
    static const bcast_row_fn rows[3] = {and_b, or_b, xor_b};
    if ((int)op < 0 || (int)op > 2) return ACC_EINVAL;
    return math_binary(rows[op], ACC_BOOL, a, a_rank, a_shape, b, b_rank, b_shape, y);
}

int acc_logical_not(const uint8_t *x, uint8_t *y, int64_t count) {
    if (!x || !y || count < 0) return ACC_EINVAL;
    for (int64_t i = 0; i < count; i++) y[i] = (uint8_t)(x[i] == 0);
    return ACC_OK;
}

/* Element strides of an operand right-aligned against an output of rank `rank`
 * (0 where the operand broadcasts); ACC_EINVAL when it does not broadcast to `shape`. */
static int bcast_strides(int rank, const int64_t *shape, int x_rank, const int64_t *x_shape, int64_t *strides) {
    if (!valid_shape(x_rank, x_shape) || x_rank > rank) return ACC_EINVAL;
    int64_t k = 1;
    for (int i = rank - 1; i >= 0; i--) {
        int ix = i - (rank - x_rank);
        int64_t d = ix >= 0 ? x_shape[ix] : 1;
        if (d != shape[i] && d != 1) return ACC_EINVAL;
        strides[i] = d == 1 ? 0 : k;
        k *= d;
    }
    return ACC_OK;
}

int acc_where(size_t elem_size, const uint8_t *cond, int c_rank, const int64_t *c_shape, const void *x, int x_rank,
              const int64_t *x_shape, const void *y, int y_rank, const int64_t *y_shape, void *out, int rank,
              const int64_t *shape) {
    if (!cond || !x || !y || !out || elem_size == 0 || !valid_shape(rank, shape)) return ACC_EINVAL;
    int64_t sc[ACC_MAX_RANK], sx[ACC_MAX_RANK], sy[ACC_MAX_RANK];
    if (bcast_strides(rank, shape, c_rank, c_shape, sc) || bcast_strides(rank, shape, x_rank, x_shape, sx) ||
        bcast_strides(rank, shape, y_rank, y_shape, sy))
        return ACC_EINVAL;
    int64_t total = numel(rank, shape);
    int64_t idx[ACC_MAX_RANK] = {0}, oc = 0, ox = 0, oy = 0;
    const char *px = (const char *)x, *py = (const char *)y;
    char *po = (char *)out;
    for (int64_t k = 0; k < total; k++) {
        const char *src = cond[oc] ? px + ox * (int64_t)elem_size : py + oy * (int64_t)elem_size;
        memcpy(po + k * (int64_t)elem_size, src, elem_size);
        for (int d = rank - 1; d >= 0; d--) { /* odometer */
            idx[d]++;
            oc += sc[d];
            ox += sx[d];
            oy += sy[d];
            if (idx[d] < shape[d]) break;
            oc -= sc[d] * idx[d];
            ox -= sx[d] * idx[d];
            oy -= sy[d] * idx[d];
            idx[d] = 0;
        }
    }
    return ACC_OK;
}

/* One reduction step. Floats accumulate in double (sum, prod) or exactly (max, min: nan
 * sticks); integers in 64-bit unsigned arithmetic, wrapped to the type at the end. */
static double reduce_f(acc_reduce_op op, double acc, double v) {
    switch (op) {
    case ACC_REDUCE_SUM: return acc + v;
    case ACC_REDUCE_PROD: return acc * v;
    case ACC_REDUCE_MAX: return acc != acc ? acc : MAX_EXPR(v, acc);
    default: return acc != acc ? acc : MIN_EXPR(v, acc);
    }
}

static int64_t reduce_i(acc_reduce_op op, int64_t acc, int64_t v) {
    switch (op) {
    case ACC_REDUCE_SUM: return (int64_t)((uint64_t)acc + (uint64_t)v);
    case ACC_REDUCE_PROD: return (int64_t)((uint64_t)acc * (uint64_t)v);
    case ACC_REDUCE_MAX: return v > acc ? v : acc;
    default: return v < acc ? v : acc;
    }
}

int acc_reduce(acc_reduce_op op, acc_dtype t, const void *x, void *y, int rank, const int64_t *shape,
               const int *axes, int n_axes) {
    if (!x || !y || !is_numeric(t) || (int)op < 0 || (int)op > 3 || !valid_shape(rank, shape) || n_axes < 0 ||
        n_axes > rank || (n_axes && !axes))
        return ACC_EINVAL;
    int64_t ostride[ACC_MAX_RANK];
    int64_t out_n, red_n;
    if (reduce_layout(rank, shape, axes, n_axes, ostride, &out_n, &red_n)) return ACC_EINVAL;
    int is_f = is_float_type(t);
    double *fa = is_f ? malloc((size_t)(out_n > 0 ? out_n : 1) * sizeof(double)) : NULL;
    int64_t *ia = is_f ? NULL : malloc((size_t)(out_n > 0 ? out_n : 1) * sizeof(int64_t));
    if (is_f ? !fa : !ia) return ACC_ENOMEM;
    int64_t lo, hi;
    int_range(t, &lo, &hi);
    for (int64_t i = 0; i < out_n; i++) {
        if (is_f)
            fa[i] = op == ACC_REDUCE_SUM ? 0.0 : op == ACC_REDUCE_PROD ? 1.0 : op == ACC_REDUCE_MAX ? -INFINITY : INFINITY;
        else
            ia[i] = op == ACC_REDUCE_SUM ? 0 : op == ACC_REDUCE_PROD ? 1 : op == ACC_REDUCE_MAX ? lo : hi;
    }
    int64_t total = numel(rank, shape);
    int64_t idx[ACC_MAX_RANK] = {0}, off = 0;
    for (int64_t k = 0; k < total; k++) {
        if (t == ACC_F32)
            fa[off] = reduce_f(op, fa[off], (double)((const float *)x)[k]);
        else if (t == ACC_F64)
            fa[off] = reduce_f(op, fa[off], ((const double *)x)[k]);
        else
            ia[off] = reduce_i(op, ia[off], load_int(t, x, k));
        for (int d = rank - 1; d >= 0; d--) {
            idx[d]++;
            off += ostride[d];
            if (idx[d] < shape[d]) break;
            off -= ostride[d] * idx[d];
            idx[d] = 0;
        }
    }
    for (int64_t i = 0; i < out_n; i++) {
        if (t == ACC_F32)
            ((float *)y)[i] = (float)fa[i];
        else if (t == ACC_F64)
            ((double *)y)[i] = fa[i];
        else
            store_int(t, y, i, ia[i]); /* the narrowing cast wraps */
    }
    free(fa);
    free(ia);
    return ACC_OK;
}

/* y[i] = x[off + sum_d idx_d(i) * stride[d]] over the row-major indices of `shape`: the gather
 * of a strided view (a slice, a broadcast: stride 0 on broadcast axes). */
static void gather_strided(size_t elem_size, const void *x, int64_t off, int rank, const int64_t *shape,
                           const int64_t *stride, void *y) {
    int64_t total = numel(rank, shape), idx[ACC_MAX_RANK] = {0};
    const char *px = (const char *)x;
    char *py = (char *)y;
    for (int64_t i = 0; i < total; i++) {
        memcpy(py + i * (int64_t)elem_size, px + off * (int64_t)elem_size, elem_size);
        for (int d = rank - 1; d >= 0; d--) {
            idx[d]++;
            off += stride[d];
            if (idx[d] < shape[d]) break;
            off -= stride[d] * idx[d];
            idx[d] = 0;
        }
    }
}

int acc_strided_slice(size_t elem_size, const void *x, int rank, const int64_t *shape, const int64_t *begin,
                      const int64_t *step, void *y, const int64_t *out_shape) {
    if (!x || !y || elem_size == 0 || !valid_shape(rank, shape) || (rank > 0 && (!begin || !step || !out_shape)))
        return ACC_EINVAL;
    int64_t stride[ACC_MAX_RANK]; /* input elements per output step along each axis */
    int64_t k = 1, off = 0;
    for (int d = rank - 1; d >= 0; d--) {
        int64_t last = begin[d] + (out_shape[d] - 1) * step[d];
        if (out_shape[d] < 1 || step[d] == 0 || begin[d] < 0 || begin[d] >= shape[d] || last < 0 || last >= shape[d])
            return ACC_EINVAL;
        off += begin[d] * k;
        stride[d] = step[d] * k;
        k *= shape[d];
    }
    gather_strided(elem_size, x, off, rank, out_shape, stride, y);
    return ACC_OK;
}

int acc_broadcast_to(size_t elem_size, const void *x, int x_rank, const int64_t *x_shape, void *y, int rank,
                     const int64_t *shape) {
    if (!x || !y || elem_size == 0 || !valid_shape(rank, shape)) return ACC_EINVAL;
    int64_t sx[ACC_MAX_RANK];
    if (bcast_strides(rank, shape, x_rank, x_shape, sx)) return ACC_EINVAL;
    gather_strided(elem_size, x, 0, rank, shape, sx, y);
    return ACC_OK;
}

/* -------------------------------------------------------------------------------
 * Image and layout ops (issue 11)
 * ------------------------------------------------------------------------------- */

/* Input coordinate of output coordinate `x` (reference.resize_source_coordinate). */
static double resize_source(int64_t x, double scale, int64_t in_len, int64_t out_len, acc_resize_coord mode) {
    double xd = (double)x, out_f = scale * (double)in_len;
    switch (mode) {
    case ACC_RESIZE_HALF_PIXEL: return (xd + 0.5) / scale - 0.5;
    case ACC_RESIZE_HALF_PIXEL_SYMMETRIC:
        return (double)in_len / 2 * (1 - (double)out_len / out_f) + ((xd + 0.5) / scale - 0.5);
    case ACC_RESIZE_PYTORCH_HALF_PIXEL: return out_f != 1 ? (xd + 0.5) / scale - 0.5 : -0.5;
    case ACC_RESIZE_ALIGN_CORNERS: return out_f != 1 ? xd * (double)(in_len - 1) / (out_f - 1) : 0.0;
    case ACC_RESIZE_ASYMMETRIC: return xd / scale;
    case ACC_RESIZE_TF_HALF_PIXEL_FOR_NN: return (xd + 0.5) / scale;
    }
    return 0.0;
}

static int64_t clamp_index(double v, int64_t len) {
    if (!(v > 0)) return 0; /* also NaN */
    if (v > (double)(len - 1)) return len - 1;
    return (int64_t)v;
}

static int64_t resize_nearest(double v, int64_t len, acc_resize_nearest mode) {
    double f = floor(v), r;
    switch (mode) {
    case ACC_NEAREST_ROUND_PREFER_FLOOR: r = v - f == 0.5 ? f : rint(v); break;
    case ACC_NEAREST_ROUND_PREFER_CEIL: r = v - f == 0.5 ? ceil(v) : rint(v); break;
    case ACC_NEAREST_FLOOR: r = f; break;
    default: r = ceil(v); break;
    }
    return clamp_index(r, len);
}

static int resize_check(int64_t n, int64_t c, int64_t h, int64_t w, int64_t oh, int64_t ow, double sh, double sw) {
    if (n < 0 || c < 0 || h < 1 || w < 1 || oh < 1 || ow < 1) return ACC_EINVAL;
    if (!(sh > 0) || !(sw > 0)) return ACC_EINVAL;
    return ACC_OK;
}

int acc_resize2d_nearest(size_t elem_size, const void *x, void *y, int64_t n, int64_t c, int64_t h, int64_t w,
                         int64_t oh, int64_t ow, double scale_h, double scale_w, acc_resize_coord coord,
                         acc_resize_nearest nearest) {
    int st = resize_check(n, c, h, w, oh, ow, scale_h, scale_w);
    if (st) return st;
    if (!x || !y || elem_size == 0) return ACC_EINVAL;
    int64_t *cols = malloc((size_t)ow * sizeof *cols);
    if (!cols) return ACC_ENOMEM;
    for (int64_t j = 0; j < ow; j++) cols[j] = resize_nearest(resize_source(j, scale_w, w, ow, coord), w, nearest);
    const char *xb = (const char *)x;
    char *dst = (char *)y;
    for (int64_t p = 0; p < n * c; p++)
        for (int64_t i = 0; i < oh; i++) {
            int64_t r = resize_nearest(resize_source(i, scale_h, h, oh, coord), h, nearest);
            const char *row = xb + ((p * h + r) * w) * (int64_t)elem_size;
            for (int64_t j = 0; j < ow; j++) {
                memcpy(dst, row + cols[j] * (int64_t)elem_size, elem_size);
                dst += elem_size;
            }
        }
    free(cols);
    return ACC_OK;
}

int acc_depth_space(size_t elem_size, const void *x, void *y, int64_t n, int64_t c, int64_t h, int64_t w,
                    int64_t block, int crd, int to_space) {
    if (!x || !y || elem_size == 0 || n < 0 || c < 1 || h < 1 || w < 1 || block < 1 || c % (block * block))
        return ACC_EINVAL;
    int64_t cs = c / (block * block), es = (int64_t)elem_size;
    const char *src = (const char *)x;
    char *dst = (char *)y;
    /* Depth element (b, ch, i, j) with ch = DCR (by, bx, k) or CRD (k, by, bx) is space
     * element (b, k, i * block + by, j * block + bx). */
    for (int64_t b = 0; b < n; b++)
        for (int64_t ch = 0; ch < c; ch++) {
            int64_t k, by, bx;
            if (crd) {
                k = ch / (block * block);
                by = ch / block % block;
                bx = ch % block;
            } else {
                by = ch / (block * cs);
                bx = ch / cs % block;
                k = ch % cs;
            }
            for (int64_t i = 0; i < h; i++)
                for (int64_t j = 0; j < w; j++) {
                    int64_t depth = ((b * c + ch) * h + i) * w + j;
                    int64_t space = ((b * cs + k) * h * block + i * block + by) * w * block + j * block + bx;
                    if (to_space)
                        memcpy(dst + space * es, src + depth * es, elem_size);
                    else
                        memcpy(dst + depth * es, src + space * es, elem_size);
                }
        }
    return ACC_OK;
}

int acc_gather_elements(size_t elem_size, const void *x, int rank, const int64_t *shape, int axis,
                        acc_dtype index_type, const void *indices, const int64_t *idx_shape, void *y) {
    if (!x || !y || elem_size == 0 || rank < 1 || !valid_shape(rank, shape) || !valid_shape(rank, idx_shape))
        return ACC_EINVAL;
    if (!is_int_type(index_type)) return ACC_EINVAL;
    int ax = norm_axis(axis, rank);
    if (ax < 0) return ACC_EINVAL;
    for (int d = 0; d < rank; d++)
        if (d != ax && idx_shape[d] > shape[d]) return ACC_EINVAL;
    int64_t count = numel(rank, idx_shape), size = shape[ax];
    if (count && !indices) return ACC_EINVAL;
    for (int64_t i = 0; i < count; i++) {
        int64_t v = load_int(index_type, indices, i);
        if (v < -size || v >= size) return ACC_ERANGE;
    }
    int64_t strides[ACC_MAX_RANK], idx[ACC_MAX_RANK] = {0};
    int64_t s = 1;
    for (int d = rank - 1; d >= 0; d--) {
        strides[d] = s;
        s *= shape[d];
    }
    const char *src = (const char *)x;
    char *dst = (char *)y;
    for (int64_t i = 0; i < count; i++) {
        int64_t v = load_int(index_type, indices, i), off = 0;
        if (v < 0) v += size;
        for (int d = 0; d < rank; d++) off += (d == ax ? v : idx[d]) * strides[d];
        memcpy(dst + i * (int64_t)elem_size, src + off * (int64_t)elem_size, elem_size);
        for (int d = rank - 1; d >= 0; d--) {
            if (++idx[d] < idx_shape[d]) break;
            idx[d] = 0;
        }
    }
    return ACC_OK;
}

/* -------------------------------------------------------------------------------
 * Index ops: gather_nd, scatter_elements, scatter_nd
 * ------------------------------------------------------------------------------- */

/* Flat offsets (in elements of the k axes' block, row-major over shape[0:k]) of the
 * n_tuples index tuples of k integers each; ACC_ERANGE when one lies outside its axis. */
static int nd_offsets(acc_dtype index_type, const void *indices, int64_t n_tuples, int k, const int64_t *shape,
                      int64_t *off) {
    for (int64_t i = 0; i < n_tuples; i++) {
        int64_t o = 0;
        for (int j = 0; j < k; j++) {
            int64_t v = load_int(index_type, indices, i * k + j), n = shape[j];
            if (v < -n || v >= n) return ACC_ERANGE;
            o = o * n + (v < 0 ? v + n : v);
        }
        off[i] = o;
    }
    return ACC_OK;
}

int acc_gather_nd(size_t elem_size, const void *x, int rank, const int64_t *shape, int batch_dims,
                  acc_dtype index_type, const void *indices, int idx_rank, const int64_t *idx_shape, void *y) {
    if (!x || !y || elem_size == 0 || rank < 1 || idx_rank < 1 || !valid_shape(rank, shape) ||
        !valid_shape(idx_rank, idx_shape) || !is_int_type(index_type) || batch_dims < 0 || batch_dims >= rank ||
        batch_dims >= idx_rank)
        return ACC_EINVAL;
    int64_t k = idx_shape[idx_rank - 1];
    if (k < 1 || k > rank - batch_dims) return ACC_EINVAL;
    for (int d = 0; d < batch_dims; d++)
        if (idx_shape[d] != shape[d]) return ACC_EINVAL;
    int64_t batch = numel(batch_dims, shape);
    int64_t tuples = numel(idx_rank - 1, idx_shape);
    int64_t per_batch = batch ? tuples / batch : 0;
    int64_t slice = numel(rank - batch_dims - (int)k, shape + batch_dims + k);
    int64_t block = numel((int)k, shape + batch_dims) * slice; /* elements of one batch of x */
    if (tuples && !indices) return ACC_EINVAL;
    int64_t *off = malloc((size_t)(tuples > 0 ? tuples : 1) * sizeof(int64_t));
    if (!off) return ACC_ENOMEM;
    int rc = nd_offsets(index_type, indices, tuples, (int)k, shape + batch_dims, off);
    if (rc != ACC_OK) {
        free(off);
        return rc;
    }
    const char *src = (const char *)x;
    char *dst = (char *)y;
    size_t bytes = (size_t)slice * elem_size;
    for (int64_t i = 0; i < tuples; i++) {
        int64_t b = per_batch ? i / per_batch : 0;
        memcpy(dst + i * (int64_t)bytes, src + (b * block + off[i] * slice) * (int64_t)elem_size, bytes);
    }
    free(off);
    return ACC_OK;
}

#define SCATTER_COMBINE(T)                                                                                         \
    do {                                                                                                           \
        T *a = (T *)dst;                                                                                           \
        T b = *(const T *)src;                                                                                     \
        switch (reduction) {                                                                                       \
        case ACC_SCATTER_MAX: if (!(*a != *a) && (b != b || b > *a)) *a = b; break;                               \
        case ACC_SCATTER_MIN: if (!(*a != *a) && (b != b || b < *a)) *a = b; break;                               \
        default: break;                                                                                            \
        }                                                                                                          \
    } while (0)

/* Integers add and multiply with two's-complement wrap (in uint64_t, no signed overflow). */
#define SCATTER_INT(T)                                                                                             \
    do {                                                                                                           \
        if (reduction == ACC_SCATTER_ADD)                                                                          \
            *(T *)dst = (T)((uint64_t)*(T *)dst + (uint64_t)*(const T *)src);                                      \
        else if (reduction == ACC_SCATTER_MUL)                                                                     \
            *(T *)dst = (T)((uint64_t)*(T *)dst * (uint64_t)*(const T *)src);                                      \
        else                                                                                                       \
            SCATTER_COMBINE(T);                                                                                    \
    } while (0)

#define SCATTER_REAL(T)                                                                                            \
    do {                                                                                                           \
        if (reduction == ACC_SCATTER_ADD)                                                                          \
            *(T *)dst = *(T *)dst + *(const T *)src;                                                               \
        else if (reduction == ACC_SCATTER_MUL)                                                                     \
            *(T *)dst = *(T *)dst * *(const T *)src;                                                               \
        else                                                                                                       \
            SCATTER_COMBINE(T);                                                                                    \
    } while (0)

/* *dst = combine(*dst, *src) for one element of type t. */
static void scatter_one(acc_dtype t, acc_scatter_reduction reduction, char *dst, const char *src, size_t es) {
    if (reduction == ACC_SCATTER_NONE) {
        memcpy(dst, src, es);
        return;
    }
    switch (t) {
    case ACC_F32: SCATTER_REAL(float); return;
    case ACC_F64: SCATTER_REAL(double); return;
    case ACC_I8: SCATTER_INT(int8_t); return;
    case ACC_U8: SCATTER_INT(uint8_t); return;
    case ACC_I16: SCATTER_INT(int16_t); return;
    case ACC_I32: SCATTER_INT(int32_t); return;
    case ACC_I64: SCATTER_INT(int64_t); return;
    case ACC_U16: SCATTER_INT(uint16_t); return;
    case ACC_U32: SCATTER_INT(uint32_t); return;
    case ACC_U64: SCATTER_INT(uint64_t); return;
    default: return;
    }
}

#undef SCATTER_REAL
#undef SCATTER_INT
#undef SCATTER_COMBINE

static int scatter_args_ok(acc_dtype t, acc_scatter_reduction reduction) {
    if ((int)reduction < 0 || (int)reduction > 4 || acc_dtype_size(t) == 0) return 0;
    return reduction == ACC_SCATTER_NONE || ((is_float_type(t) || is_int_type(t)));
}

int acc_scatter_elements(acc_dtype t, const void *x, int rank, const int64_t *shape, int axis, acc_dtype index_type,
                         const void *indices, const int64_t *idx_shape, const void *updates,
                         acc_scatter_reduction reduction, void *y) {
    if (!x || !y || rank < 1 || !valid_shape(rank, shape) || !valid_shape(rank, idx_shape) ||
        !is_int_type(index_type) || !scatter_args_ok(t, reduction))
        return ACC_EINVAL;
    int ax = norm_axis(axis, rank);
    if (ax < 0) return ACC_EINVAL;
    for (int d = 0; d < rank; d++)
        if (d != ax && idx_shape[d] > shape[d]) return ACC_EINVAL;
    int64_t count = numel(rank, idx_shape), size = shape[ax];
    if (count && (!indices || !updates)) return ACC_EINVAL;
    for (int64_t i = 0; i < count; i++) {
        int64_t v = load_int(index_type, indices, i);
        if (v < -size || v >= size) return ACC_ERANGE;
    }
    size_t es = acc_dtype_size(t);
    if (y != x) memcpy(y, x, (size_t)numel(rank, shape) * es);
    int64_t strides[ACC_MAX_RANK], idx[ACC_MAX_RANK] = {0};
    int64_t s = 1;
    for (int d = rank - 1; d >= 0; d--) {
        strides[d] = s;
        s *= shape[d];
    }
    char *dst = (char *)y;
    const char *src = (const char *)updates;
    for (int64_t i = 0; i < count; i++) {
        int64_t v = load_int(index_type, indices, i), off = 0;
        if (v < 0) v += size;
        for (int d = 0; d < rank; d++) off += (d == ax ? v : idx[d]) * strides[d];
        scatter_one(t, reduction, dst + off * (int64_t)es, src + i * (int64_t)es, es);
        for (int d = rank - 1; d >= 0; d--) {
            if (++idx[d] < idx_shape[d]) break;
            idx[d] = 0;
        }
    }
    return ACC_OK;
}

int acc_scatter_nd(acc_dtype t, const void *x, int rank, const int64_t *shape, acc_dtype index_type,
                   const void *indices, int idx_rank, const int64_t *idx_shape, const void *updates,
                   acc_scatter_reduction reduction, void *y) {
    if (!x || !y || rank < 1 || idx_rank < 1 || !valid_shape(rank, shape) || !valid_shape(idx_rank, idx_shape) ||
        !is_int_type(index_type) || !scatter_args_ok(t, reduction))
        return ACC_EINVAL;
    int64_t k = idx_shape[idx_rank - 1];
    if (k < 1 || k > rank) return ACC_EINVAL;
    int64_t tuples = numel(idx_rank - 1, idx_shape);
    int64_t slice = numel(rank - (int)k, shape + k);
    if (tuples && (!indices || (slice && !updates))) return ACC_EINVAL;
    int64_t *off = malloc((size_t)(tuples > 0 ? tuples : 1) * sizeof(int64_t));
    if (!off) return ACC_ENOMEM;
    int rc = nd_offsets(index_type, indices, tuples, (int)k, shape, off);
    if (rc != ACC_OK) {
        free(off);
        return rc;
    }
    size_t es = acc_dtype_size(t);
    if (y != x) memcpy(y, x, (size_t)numel(rank, shape) * es);
    char *dst = (char *)y;
    const char *src = (const char *)updates;
    for (int64_t i = 0; i < tuples; i++) {
        char *row = dst + off[i] * slice * (int64_t)es;
        const char *u = src + i * slice * (int64_t)es;
        if (reduction == ACC_SCATTER_NONE) {
            memcpy(row, u, (size_t)slice * es);
            continue;
        }
        for (int64_t j = 0; j < slice; j++) scatter_one(t, reduction, row + j * (int64_t)es, u + j * (int64_t)es, es);
    }
    free(off);
    return ACC_OK;
}

int acc_max_unpool(size_t elem_size, const void *x, acc_dtype index_type, const void *indices, int64_t count,
                   void *y, int64_t out_count) {
    if (!y || elem_size == 0 || count < 0 || out_count < 0 || (count && (!x || !indices))) return ACC_EINVAL;
    if (!is_int_type(index_type)) return ACC_EINVAL;
    /* Every index is checked before anything is written. */
    for (int64_t i = 0; i < count; i++) {
        int64_t v = load_int(index_type, indices, i);
        if (v < 0 || v >= out_count) return ACC_ERANGE;
    }
    char *dst = (char *)y;
    const char *src = (const char *)x;
    memset(dst, 0, (size_t)out_count * elem_size);
    for (int64_t i = 0; i < count; i++)
        memcpy(dst + load_int(index_type, indices, i) * (int64_t)elem_size, src + i * (int64_t)elem_size, elem_size);
    return ACC_OK;
}

/* x mirrored at lo and hi until inside [lo, hi] (ONNX GridSample's reflection; an empty
 * range gives lo). */
static double gs_reflect(double x, double lo, double hi) {
    if (!(x < lo) && !(x > hi)) return x;
    double rng = hi - lo;
    if (!(rng > 0)) return lo;
    double dx = x < lo ? lo - x : x - hi;
    double k = floor(dx / rng), r = dx - k * rng;
    int even = fmod(k, 2.0) == 0.0;
    if (x < lo) return even ? lo + r : hi - r;
    return even ? hi - r : lo + r;
}

/* A sample coordinate clamped to [-1e9, 1e9] (NaN: -1e9) before it becomes an index. */
static double gs_safe(double v) {
    if (!(v >= -1e9)) return -1e9;
    return v > 1e9 ? 1e9 : v;
}

/* The cell that integer position i reads along an axis of `size` cells: padding 0
 * (zeros) -1 outside, 1 (border) clamped, 2 (reflection) mirrored; always in range. */
static int64_t gs_index(int64_t i, int64_t size, int padding, double lo, double hi) {
    if (padding == 0) return i >= 0 && i < size ? i : -1;
    if (padding == 2) i = (int64_t)gs_reflect((double)i, lo, hi);
    return i < 0 ? 0 : i >= size ? size - 1 : i;
}

/* The four corners of a RoiAlign sample at (y, x) in an h x w image and their weights
 * (ONNX's pre_calc): all weights 0 outside [-1, h] x [-1, w] or at a non-finite point. */
static void roi_bilinear(double y, double x, int64_t h, int64_t w, int64_t pos[4], double wt[4]) {
    for (int i = 0; i < 4; i++) pos[i] = 0, wt[i] = 0.0;
    if (!(y >= -1.0 && y <= (double)h && x >= -1.0 && x <= (double)w)) return;
    if (y < 0) y = 0;
    if (x < 0) x = 0;
    int64_t yl = (int64_t)y, xl = (int64_t)x, yh, xh;
    if (yl >= h - 1) {
        yh = yl = h - 1;
        y = (double)yl;
    } else {
        yh = yl + 1;
    }
    if (xl >= w - 1) {
        xh = xl = w - 1;
        x = (double)xl;
    } else {
        xh = xl + 1;
    }
    double ly = y - (double)yl, lx = x - (double)xl, hy = 1.0 - ly, hx = 1.0 - lx;
    pos[0] = yl * w + xl, pos[1] = yl * w + xh, pos[2] = yh * w + xl, pos[3] = yh * w + xh;
    wt[0] = hy * hx, wt[1] = hy * lx, wt[2] = ly * hx, wt[3] = ly * lx;
}

/* RoiAlign's adaptive samples per bin, ceil(v) (0 for an empty box); -1 for a NaN or a
 * count past 2^20 (a box of non-finite or absurd size). */
static int64_t roi_grid(double v) {
    if (!(v < (double)(1 << 20))) return -1;
    double c = ceil(v);
    return c > 0 ? (int64_t)c : 0;
}

/* Element i of x as a double for comparisons (integers up to 2^53 exactly; larger
 * int64 pooled values may tie where they differ). */
static double load_number(acc_dtype t, const void *p, int64_t i) {
    switch (t) {
    case ACC_F32: return ((const float *)p)[i];
    case ACC_F64: return ((const double *)p)[i];
    default: return (double)load_int(t, p, i);
    }
}

int acc_max_pool2d_indices(acc_dtype t, const void *x, int64_t *y, const acc_pool2d_params *p, int storage_order) {
    int st = pool_check(p);
    if (st) return st;
    if (!x || !y || !is_numeric(t) || (storage_order != 0 && storage_order != 1)) return ACC_EINVAL;
    for (int64_t nc = 0; nc < p->n * p->c; nc++) {
        int64_t plane = nc * p->h * p->w;
        for (int64_t i = 0; i < p->oh; i++) {
            int64_t r0 = i * p->stride_h - p->pad_top, rlo, rhi;
            window_taps(r0, p->kh, p->dil_h, 0, p->h, &rlo, &rhi);
            for (int64_t j = 0; j < p->ow; j++) {
                int64_t c0 = j * p->stride_w - p->pad_left, clo, chi, best_r = -1, best_c = -1;
                window_taps(c0, p->kw, p->dil_w, 0, p->w, &clo, &chi);
                double m = 0;
                for (int64_t r = rlo; r < rhi; r++)
                    for (int64_t s = clo; s < chi; s++) {
                        int64_t row = r0 + r * p->dil_h, col = c0 + s * p->dil_w;
                        double v = load_number(t, x, plane + row * p->w + col);
                        if (best_r < 0 || (m == m && (v > m || v != v))) {
                            m = v;
                            best_r = row;
                            best_c = col;
                        }
                    }
                if (best_r < 0) return ACC_EINVAL; /* a window of padding only */
                *y++ = plane + (storage_order ? best_c * p->h + best_r : best_r * p->w + best_c);
            }
        }
    }
    return ACC_OK;
}

int acc_dyn_clip(acc_dtype t, const void *x, const void *a_min, const void *a_max, void *y, int64_t count) {
    if (!a_min || !a_max || !is_numeric(t)) return ACC_EINVAL;
    return acc_clip(t, x, y, count, load_number(t, a_min, 0), load_number(t, a_max, 0));
}

static void dynamic_range(const float *x, int64_t count, float *scale, float *zero_point) {
    float lo = 0.0f, hi = 0.0f;
    for (int64_t i = 0; i < count; i++) {
        if (x[i] < lo) lo = x[i];
        if (x[i] > hi) hi = x[i];
    }
    *scale = (hi == lo ? 1.0f : hi - lo) / 255.0f;
    *zero_point = 0.0f - lo / *scale;
}

int acc_dynamic_scale_f32(const float *x, float *scale, int64_t count) {
    if (!x || !scale || count < 0) return ACC_EINVAL;
    float zp;
    dynamic_range(x, count, scale, &zp);
    return ACC_OK;
}

int acc_dynamic_zero_point_f32(const float *x, uint8_t *zero_point, int64_t count) {
    if (!x || !zero_point || count < 0) return ACC_EINVAL;
    float scale, zp;
    dynamic_range(x, count, &scale, &zp);
    zp = zp < 0.0f ? 0.0f : zp > 255.0f ? 255.0f : zp;
    *zero_point = (uint8_t)nearbyintf(zp);
    return ACC_OK;
}

#include "host_kernels_scan_bits.inc"

/* -------------------------------------------------------------------------------
 * The float kernels, once per C float type (host_kernels_real.inc)
 * ------------------------------------------------------------------------------- */

#define R float
#define ACC_REAL_FN(name) name##_f32
#define ACC_REAL_MAX FLT_MAX
#define ACC_EXP expf
#define ACC_LOG logf
#define ACC_SQRT sqrtf
#define ACC_TANH tanhf
#define ACC_FABS fabsf
#define ACC_FLOOR floorf
#define ACC_CEIL ceilf
#define ACC_NEARBYINT nearbyintf
#define ACC_F(fn) fn##f
#define ACC_GEMM acc_sgemm
#include "host_kernels_real.inc"
#undef R
#undef ACC_REAL_FN
#undef ACC_REAL_MAX
#undef ACC_EXP
#undef ACC_LOG
#undef ACC_SQRT
#undef ACC_TANH
#undef ACC_FABS
#undef ACC_FLOOR
#undef ACC_CEIL
#undef ACC_NEARBYINT
#undef ACC_F
#undef ACC_GEMM

#define R double
#define ACC_REAL_FN(name) name##_f64
#define ACC_REAL_MAX DBL_MAX
#define ACC_EXP exp
#define ACC_LOG log
#define ACC_SQRT sqrt
#define ACC_TANH tanh
#define ACC_FABS fabs
#define ACC_FLOOR floor
#define ACC_CEIL ceil
#define ACC_NEARBYINT nearbyint
#define ACC_F(fn) fn
#define ACC_GEMM acc_dgemm
#include "host_kernels_real.inc"
#undef R
#undef ACC_REAL_FN
#undef ACC_REAL_MAX
#undef ACC_EXP
#undef ACC_LOG
#undef ACC_SQRT
#undef ACC_TANH
#undef ACC_FABS
#undef ACC_FLOOR
#undef ACC_CEIL
#undef ACC_NEARBYINT
#undef ACC_F
#undef ACC_GEMM
