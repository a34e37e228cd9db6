/* Host kernel library of accel: every relay op that can run on the host CPU, on
 * host memory, with the semantics of `compiler/runtime/reference.py`.
 *
 * Plain C99, libc + libm only; the matrix products go through host_gemm.h, which uses
 * CBLAS when built with -DACC_HAVE_CBLAS. Thread-compatible (no global state except
 * OpenBLAS's thread count, set to one on first use).
 *
 * Conventions (the contract the C emitter relies on):
 * - Naming: `acc_<op>_<dtype>` for kernels of one fixed element type (`_f32` = float);
 *   kernels that work for several element types have no suffix and take an
 *   `acc_dtype` tag (`acc_add(ACC_I32, ...)`); pure data movement (transpose, pad,
 *   concatenate, take) takes the element size in bytes and works for any dtype.
 * - Argument order: inputs, outputs, then shapes/parameters.
 * - Layouts: every tensor is dense row-major (C order). Images are NCHW, conv weights
 *   OIHW ([O][C / groups][KH][KW]), dense weights [N][K].
 * - Shapes are `int64_t` arrays with an `int rank` (0 <= rank <= ACC_MAX_RANK; a rank-0
 *   tensor has one element). Axes are `int` and may be negative (counted from the end).
 * - Every kernel returns an `int` status: ACC_OK (0) or a positive ACC_E* code. On a
 *   non-zero status nothing has been written to the outputs unless stated otherwise.
 * - Outputs must not overlap inputs, except for elementwise kernels with identical
 *   input and output shape (there y may equal x exactly: in place).
 * - Float kernels compute in their type (`_f32` float, `_f64` double: one source,
 *   host_kernels_real.inc) like the reference; long reductions (mean,
 *   softmax, layer_norm and pool sums) accumulate in double, which is at least as
 *   accurate as numpy's float32 pairwise sums. Results may differ from the reference
 *   in the last bits where the summation order differs (conv, dense, matmul: blocked
 *   or BLAS GEMM).
 * - Integer kernels are exact: add/subtract/multiply wrap like C's fixed-width
 *   unsigned arithmetic (two's complement), quantized accumulation is exact int32.
 */
#ifndef ACC_HOST_KERNELS_H
#define ACC_HOST_KERNELS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Largest tensor rank the N-D kernels accept (the C emitter refuses more: HOST_MAX_RANK). */
#define ACC_MAX_RANK 8

/* Status codes. */
#define ACC_OK 0
#define ACC_EINVAL 1    /* bad parameters: shapes, ranks, axes, dtypes, sizes */
#define ACC_ERANGE 2    /* take: an index outside [-n, n) */
#define ACC_EDIVZERO 3  /* integer division by zero */
#define ACC_EOVERFLOW 4 /* qnn conv/dense: the int32 accumulator would overflow */
#define ACC_ENOMEM 5    /* a temporary buffer could not be allocated */

/* Element types. The numbering is part of the ABI. */
typedef enum acc_dtype {
    ACC_F32 = 0,  /* float */
    ACC_F64 = 1,  /* double */
    ACC_I8 = 2,   /* int8_t */
    ACC_U8 = 3,   /* uint8_t */
    ACC_I16 = 4,  /* int16_t */
    ACC_I32 = 5,  /* int32_t */
    ACC_I64 = 6,  /* int64_t */
    ACC_BOOL = 7, /* one byte, 0 or 1 (i1 tensors) */
    /* The wide unsigned types: elementwise arithmetic (add, subtract, multiply, divide),
     * cast and data movement; uint64 values above INT64_MAX only in add/subtract/
     * multiply/divide and moves (other kernels widen to int64). */
    ACC_U16 = 8,  /* uint16_t */
    ACC_U32 = 9,  /* uint32_t */
    ACC_U64 = 10, /* uint64_t */
    /* The narrow types (host_narrow.h): cast (acc_cast, acc_cast_narrow), data movement,
     * and for the sub-byte integers quantize / dequantize / requantize; no arithmetic
     * kernel takes them (the host schedule computes on f16/bf16 values in float32). */
    ACC_F16 = 11,        /* IEEE half, bits in a uint16_t */
    ACC_BF16 = 12,       /* bfloat16, bits in a uint16_t */
    ACC_F8E4M3FN = 13,   /* bits in a uint8_t, likewise the other float8 and float4 */
    ACC_F8E4M3FNUZ = 14,
    ACC_F8E5M2 = 15,
    ACC_F8E5M2FNUZ = 16,
    ACC_F8E8M0 = 17,     /* f8E8M0FNU: 2^(bits - 127), 0xFF = NaN */
    ACC_F4E2M1 = 18,     /* f4E2M1FN in the low four bits */
    ACC_I4 = 19,         /* int4: its bits in the low four bits of a uint8_t */
    ACC_U4 = 20,         /* uint4: likewise */
    ACC_I2 = 21,         /* int2: its bits in the low two bits of a uint8_t */
    ACC_U2 = 22          /* uint2: likewise */
} acc_dtype;

/* Size in bytes of one element of `t`; 0 for an unknown tag. */
size_t acc_dtype_size(acc_dtype t);

/* 1 for the narrow tags (ACC_F16 .. ACC_U2, host_narrow.h), else 0. */
static inline int acc_is_narrow(acc_dtype t) { return t >= ACC_F16 && t <= ACC_U2; }

/* Short text of a status code ("ok", "invalid parameters", ...), for messages. */
const char *acc_status_string(int status);

/* ---------------------------------------------------------------------------------
 * Convolution, dense, matmul
 * --------------------------------------------------------------------------------- */

/* Geometry of a 2-D convolution (relay.nn.conv2d / relay.qnn.conv2d).
 * Input x: [n][c][h][w]; weight: [oc][c / groups][kh][kw]; output y: [n][oc][oh][ow].
 * Padding is top/left/bottom/right (zeros; for the quantized form: the input zero
 * point). oh/ow must equal (h + pad_top + pad_bottom - dil_h * (kh - 1) - 1) / stride_h + 1
 * (likewise for w); groups must divide c and oc (depthwise: groups == c). */
typedef struct acc_conv2d_params {
    int64_t n, c, h, w;
    int64_t oc, kh, kw;
    int64_t oh, ow;
    int64_t stride_h, stride_w;
    int64_t pad_top, pad_left, pad_bottom, pad_right;
    int64_t dil_h, dil_w;
    int64_t groups;
} acc_conv2d_params;

/* relay.nn.conv2d on float32, plus an optional bias (NULL or [oc]) added to every
 * output of channel o (a fused relay.nn.bias_add with axis 1).
 * Returns ACC_EINVAL when the geometry is inconsistent. */
int acc_conv2d_f32(const float *x, const float *w, const float *bias, float *y, const acc_conv2d_params *p);

/* relay.nn.dense on float32: y[m][n] = sum_k x[m][k] * w[n][k] (+ bias[n] when bias is
 * not NULL). x is [m][k] (leading dims of a [..., K] tensor flattened into m),
 * w is [n][k], y is [m][n]. */
int acc_dense_f32(const float *x, const float *w, const float *bias, float *y, int64_t m, int64_t k, int64_t n);

/* relay.nn.matmul on float32: y[m][n] = op(a) · op(b), where a is stored [m][k]
 * ([k][m] when transpose_a != 0) and b is stored [k][n] ([n][k] when transpose_b != 0). */
int acc_matmul_f32(const float *a, const float *b, float *y, int64_t m, int64_t k, int64_t n, int transpose_a,
                   int transpose_b);

/* relay.nn.batch_matmul on float32: matrix products over the last two axes; the leading
 * (batch) axes broadcast like numpy. a has a_rank >= 2 dims ([..., M, K], or [..., K, M]
 * with transpose_a), b has b_rank >= 2 dims ([..., K, N], or [..., N, K] with
 * transpose_b: TVM's default is transpose_b = 1). y has the broadcast batch shape
 * followed by [M, N]. Ranks up to ACC_MAX_RANK. */
int acc_batch_matmul_f32(const float *a, int a_rank, const int64_t *a_shape, const float *b, int b_rank,
                         const int64_t *b_shape, float *y, int transpose_a, int transpose_b);

/* relay.nn.bias_add: y = x + bias laid along `axis` (bias has shape[axis] elements).
 * Numeric dtypes (not ACC_BOOL); integers wrap. */
int acc_bias_add(acc_dtype t, const void *x, const void *bias, void *y, int rank, const int64_t *shape, int axis);

/* ---------------------------------------------------------------------------------
 * Elementwise binary ops with numpy broadcasting
 * ---------------------------------------------------------------------------------
 * a and b have their own ranks and shapes (right-aligned, a dim of 1 broadcasts); y
 * has the broadcast shape (rank max(a_rank, b_rank) <= ACC_MAX_RANK). Numeric dtypes
 * only (ACC_BOOL gives ACC_EINVAL). Integer add/subtract/multiply wrap; integer divide
 * truncates toward zero (INT_MIN / -1 wraps to INT_MIN) and returns ACC_EDIVZERO,
 * writing nothing, when any divisor element is 0. Float divide is IEEE (x/0 = ±inf/nan).
 * Returns ACC_EINVAL for shapes that do not broadcast. */
int acc_add(acc_dtype t, const void *a, int a_rank, const int64_t *a_shape, const void *b, int b_rank,
            const int64_t *b_shape, void *y);
int acc_subtract(acc_dtype t, const void *a, int a_rank, const int64_t *a_shape, const void *b, int b_rank,
                 const int64_t *b_shape, void *y);
int acc_multiply(acc_dtype t, const void *a, int a_rank, const int64_t *a_shape, const void *b, int b_rank,
                 const int64_t *b_shape, void *y);
int acc_divide(acc_dtype t, const void *a, int a_rank, const int64_t *a_shape, const void *b, int b_rank,
               const int64_t *b_shape, void *y);

/* ---------------------------------------------------------------------------------
 * Elementwise unary ops over `count` elements (y may equal x)
 * --------------------------------------------------------------------------------- */

/* relay.nn.relu: y = max(x, 0); NaN stays NaN. Numeric dtypes. */
int acc_relu(acc_dtype t, const void *x, void *y, int64_t count);

/* relay.clip: y = min(max(x, a_min), a_max). Float: the bounds are rounded to the
 * type, NaN stays NaN. Integer: the bounds are rounded inward (ceil(a_min),
 * floor(a_max)) and limited to the type's range (±inf allowed). Numeric dtypes. */
int acc_clip(acc_dtype t, const void *x, void *y, int64_t count, double a_min, double a_max);

/* relay.sigmoid: 1 / (1 + exp(-x)), evaluated without overflow for large |x|. */
int acc_sigmoid_f32(const float *x, float *y, int64_t count);

/* relay.tanh. */
int acc_tanh_f32(const float *x, float *y, int64_t count);

/* relay.erf, evaluated in double and rounded once to float. */
int acc_erf_f32(const float *x, float *y, int64_t count);

/* relay.nn.gelu. tanh_approx == 0: x/2 * (1 + erf(x / sqrt 2)) evaluated in double;
 * tanh_approx != 0: x/2 * (1 + tanh(sqrt(2/pi) * (x + 0.044715 x^3))) in float. */
int acc_gelu_f32(const float *x, float *y, int64_t count, int tanh_approx);

/* relay.nn.hardsigmoid: max(0, min(1, alpha * x + beta)) (alpha, beta rounded to float). */
int acc_hardsigmoid_f32(const float *x, float *y, int64_t count, double alpha, double beta);

/* relay.nn.hardswish: x * max(0, min(1, x * (float)(1/6) + 0.5)). */
int acc_hardswish_f32(const float *x, float *y, int64_t count);

/* relay.nn.silu: x * sigmoid(x), the sigmoid as acc_sigmoid_f32's. */
int acc_silu_f32(const float *x, float *y, int64_t count);

/* relay.nn.leaky_relu: x >= 0 ? x : x * alpha (alpha rounded to float). */
int acc_leaky_relu_f32(const float *x, float *y, int64_t count, double alpha);

/* relay.nn.softmax along `axis`: exp(x - max) / sum(exp(x - max)). */
int acc_softmax_f32(const float *x, float *y, int rank, const int64_t *shape, int axis);

/* ---------------------------------------------------------------------------------
 * Pooling and normalization
 * --------------------------------------------------------------------------------- */

/* Geometry of a 2-D pool: x [n][c][h][w] -> y [n][c][oh][ow]. The output size is
 * given explicitly (the compiler computes it with or without ceil_mode); output
 * (i, j) covers rows i * stride_h - pad_top + r * dil_h (r < kh) and likewise columns.
 * Requires 0 <= pad < k * dil on every side. count_include_pad (avg only): the divisor
 * counts the window's cells inside [-pad_top, h + pad_bottom) x [-pad_left, w + pad_right)
 * (the explicit padding, never the cells past it that ceil_mode adds); otherwise only
 * the cells inside the input. A window with nothing to count averages to 0. */
typedef struct acc_pool2d_params {
    int64_t n, c, h, w;
    int64_t oh, ow;
    int64_t kh, kw;
    int64_t stride_h, stride_w;
    int64_t dil_h, dil_w;
    int64_t pad_top, pad_left, pad_bottom, pad_right;
    int count_include_pad;
} acc_pool2d_params;

/* relay.nn.max_pool2d: padded cells never win; a window with no input cell gives the
 * type's lowest value (-inf for floats). Numeric dtypes. */
int acc_max_pool2d(acc_dtype t, const void *x, void *y, const acc_pool2d_params *p);

/* relay.nn.avg_pool2d on float32 (see acc_pool2d_params for the divisor). */
int acc_avg_pool2d_f32(const float *x, float *y, const acc_pool2d_params *p);

/* relay.nn.global_avg_pool2d: x [n][c][h][w] -> y [n][c] (= [n][c][1][1]). */
int acc_global_avg_pool2d_f32(const float *x, float *y, int64_t n, int64_t c, int64_t h, int64_t w);

/* relay.nn.batch_norm (inference) along `axis`; gamma, beta, mean, var have
 * shape[axis] elements: y = (x - mean) * ((1 / sqrt(var + epsilon)) * gamma) + beta,
 * all in float (epsilon rounded to float). */
int acc_batch_norm_f32(const float *x, const float *gamma, const float *beta, const float *mean, const float *var,
                       float *y, int rank, const int64_t *shape, int axis, double epsilon);

/* relay.nn.layer_norm over the trailing axes [axis, rank): population variance;
 * gamma and beta have the normalized shape (prod(shape[axis:]) elements). */
int acc_layer_norm_f32(const float *x, const float *gamma, const float *beta, float *y, int rank,
                       const int64_t *shape, int axis, double epsilon);

/* relay.nn.rms_norm over the trailing axes [axis, rank): x / sqrt(mean(x * x) + epsilon)
 * times gamma (prod(shape[axis:]) elements); the mean of squares accumulates in double. */
int acc_rms_norm_f32(const float *x, const float *gamma, float *y, int rank, const int64_t *shape, int axis,
                     double epsilon);

/* relay.mean over the `n_axes` distinct axes in `axes` (already resolved: relay's
 * `exclude` and "all axes" applied by the caller). y holds the remaining axes in
 * order (keepdims does not change the layout). n_axes == 0 copies x. */
int acc_mean_f32(const float *x, float *y, int rank, const int64_t *shape, const int *axes, int n_axes);

/* ---------------------------------------------------------------------------------
 * Run-time math: elementwise functions, comparisons, selection, reductions
 * --------------------------------------------------------------------------------- */

/* relay.sqrt, relay.exp, relay.log on float32 (sqrtf, expf, logf; y may equal x);
 * relay.floor, relay.ceil, relay.round (floorf, ceilf, nearbyintf: halves to even under
 * the default rounding mode). */
int acc_sqrt_f32(const float *x, float *y, int64_t count);
int acc_exp_f32(const float *x, float *y, int64_t count);
int acc_log_f32(const float *x, float *y, int64_t count);
int acc_floor_f32(const float *x, float *y, int64_t count);
int acc_ceil_f32(const float *x, float *y, int64_t count);
int acc_round_f32(const float *x, float *y, int64_t count);

/* relay.sin ... relay.atanh (sinf ... atanhf): NaN outside a function's domain. */
int acc_sin_f32(const float *x, float *y, int64_t count);
int acc_cos_f32(const float *x, float *y, int64_t count);
int acc_tan_f32(const float *x, float *y, int64_t count);
int acc_asin_f32(const float *x, float *y, int64_t count);
int acc_acos_f32(const float *x, float *y, int64_t count);
int acc_atan_f32(const float *x, float *y, int64_t count);
int acc_sinh_f32(const float *x, float *y, int64_t count);
int acc_cosh_f32(const float *x, float *y, int64_t count);
int acc_asinh_f32(const float *x, float *y, int64_t count);
int acc_acosh_f32(const float *x, float *y, int64_t count);
int acc_atanh_f32(const float *x, float *y, int64_t count);

/* relay.negative and relay.abs: numeric dtypes; integers wrap (-INT_MIN == INT_MIN,
 * |INT_MIN| == INT_MIN, unsigned negation is 2^n - x). y may equal x. */
int acc_negative(acc_dtype t, const void *x, void *y, int64_t count);
int acc_abs(acc_dtype t, const void *x, void *y, int64_t count);

/* relay.maximum / relay.minimum (numeric dtypes; nan wins, like np.maximum) and
 * relay.power (ACC_F32, ACC_F64: powf/pow), broadcasting as acc_add. */
int acc_maximum(acc_dtype t, const void *a, int a_rank, const int64_t *a_shape, const void *b, int b_rank,
                const int64_t *b_shape, void *y);
int acc_minimum(acc_dtype t, const void *a, int a_rank, const int64_t *a_shape, const void *b, int b_rank,
                const int64_t *b_shape, void *y);
int acc_power(acc_dtype t, const void *a, int a_rank, const int64_t *a_shape, const void *b, int b_rank,
              const int64_t *b_shape, void *y);

/* Comparisons (relay.equal, ...). The numbering is part of the ABI. */
typedef enum acc_compare_op {
    ACC_CMP_EQ = 0,
    ACC_CMP_NE = 1,
    ACC_CMP_LT = 2,
    ACC_CMP_LE = 3,
    ACC_CMP_GT = 4,
    ACC_CMP_GE = 5
} acc_compare_op;

/* y (bool: one byte, 0 or 1) = a OP b with numpy broadcasting (as acc_add); operands of
 * any dtype t, ACC_BOOL included. Comparisons with nan are false except ACC_CMP_NE. */
int acc_compare(acc_compare_op op, acc_dtype t, const void *a, int a_rank, const int64_t *a_shape, const void *b,
                int b_rank, const int64_t *b_shape, uint8_t *y);

/* relay.logical_not of `count` bool bytes. */
int acc_logical_not(const uint8_t *x, uint8_t *y, int64_t count);

/* relay.logical_and / logical_or / logical_xor of bool bytes, broadcasting as acc_add.
 * The numbering is part of the ABI. */
typedef enum acc_logical_op { ACC_LOGICAL_AND = 0, ACC_LOGICAL_OR = 1, ACC_LOGICAL_XOR = 2 } acc_logical_op;
int acc_logical(acc_logical_op op, const uint8_t *a, int a_rank, const int64_t *a_shape, const uint8_t *b,
                int b_rank, const int64_t *b_shape, uint8_t *y);

/* relay.where: out = cond ? x : y elementwise; cond (bool bytes), x and y (elements of
 * elem_size bytes) each broadcast (numpy, right-aligned) to the output `shape`. */
int acc_where(size_t elem_size, const uint8_t *cond, int c_rank, const int64_t *c_shape, const void *x, int x_rank,
              const int64_t *x_shape, const void *y, int y_rank, const int64_t *y_shape, void *out, int rank,
              const int64_t *shape);

/* Reductions (relay.sum, relay.prod, relay.max, relay.min). The numbering is part of the ABI. */
typedef enum acc_reduce_op {
    ACC_REDUCE_SUM = 0,
    ACC_REDUCE_PROD = 1,
    ACC_REDUCE_MAX = 2,
    ACC_REDUCE_MIN = 3
} acc_reduce_op;

/* Reduces x over the `n_axes` distinct `axes` (resolved as for acc_mean_f32; y holds the
 * remaining axes in order). Numeric dtypes: floats accumulate sum/prod in double (nan
 * wins max/min), integers wrap in their own type. Over no element: sum 0, prod 1, max the
 * type's lowest value (-inf), min its highest (inf). */
int acc_reduce(acc_reduce_op op, acc_dtype t, const void *x, void *y, int rank, const int64_t *shape,
               const int *axes, int n_axes);

/* relay.strided_slice: y[i_0, ...] = x[begin_0 + i_0 * step_0, ...] for every output
 * index (any element type: elem_size bytes). begin, step and out_shape have `rank`
 * entries, resolved for every axis (a kept axis: begin 0, step 1, its full size); steps
 * may be negative. Every picked index must lie inside `shape`, else ACC_EINVAL. */
int acc_strided_slice(size_t elem_size, const void *x, int rank, const int64_t *shape, const int64_t *begin,
                      const int64_t *step, void *y, const int64_t *out_shape);

/* relay.broadcast_to: y (shape, rank) = x broadcast like numpy (right-aligned, dims of 1
 * repeat); any element type. ACC_EINVAL when x does not broadcast to `shape`. */
int acc_broadcast_to(size_t elem_size, const void *x, int x_rank, const int64_t *x_shape, void *y, int rank,
                     const int64_t *shape);

/* ---------------------------------------------------------------------------------
 * Data movement (any element type: elem_size in bytes)
 * --------------------------------------------------------------------------------- */

/* relay.reshape / relay.nn.batch_flatten: a plain copy of `bytes` bytes (memmove). */
int acc_copy(const void *x, void *y, size_t bytes);

/* relay.transpose: y has shape[perm[i]] as its dim i; y[i_0..] = x[i at perm]. `perm`
 * is a permutation of 0..rank-1 (negative entries count from the end). */
int acc_transpose(size_t elem_size, const void *x, void *y, int rank, const int64_t *shape, const int *perm);

/* relay.concatenate of n_inputs tensors along `axis`. `shape` is the OUTPUT shape;
 * input i has the same shape except axis_sizes[i] along `axis`, and the sizes must
 * add up to shape[axis]. */
int acc_concatenate(size_t elem_size, int n_inputs, const void *const *inputs, const int64_t *axis_sizes, void *y,
                    int rank, const int64_t *shape, int axis);

typedef enum acc_pad_mode {
    ACC_PAD_CONSTANT = 0, /* fill with *pad_value */
    ACC_PAD_EDGE = 1,     /* repeat the edge element */
    ACC_PAD_REFLECT = 2,  /* mirror without repeating the edge (numpy/ONNX reflect) */
    ACC_PAD_WRAP = 3      /* repeat the tensor periodically (numpy/ONNX wrap) */
} acc_pad_mode;

/* relay.nn.pad: `shape` is x's shape, pad_width is [before_0, after_0, before_1, ...]
 * (2 * rank non-negative entries); y has shape[i] + before_i + after_i. pad_value
 * points to one element of x's type (convert relay's float pad_value with acc_cast
 * from ACC_F64 for the reference's truncate-and-saturate rule); ignored unless
 * constant. Reflect needs before_i, after_i < shape[i]; edge and wrap need shape[i] > 0. */
int acc_pad(size_t elem_size, const void *x, void *y, int rank, const int64_t *shape, const int64_t *pad_width,
            acc_pad_mode mode, const void *pad_value);

/* relay.take (ONNX Gather) along `axis`: y has shape[:axis] + indices' shape +
 * shape[axis+1:]. indices (n_indices elements of an integer type index_type) must lie
 * in [-shape[axis], shape[axis]); negative ones count from the end. Any other index
 * returns ACC_ERANGE before anything is written. */
int acc_take(size_t elem_size, const void *x, int rank, const int64_t *shape, int axis, acc_dtype index_type,
             const void *indices, int64_t n_indices, void *y);

/* relay.cast of `count` elements between any two acc_dtypes:
 * to bool: x != 0 (NaN -> 1); float -> integer: truncate toward zero, saturate,
 * NaN -> 0; integer -> integer: two's-complement wrap; -> float: round to nearest even. */
int acc_cast(acc_dtype from, const void *x, acc_dtype to, void *y, int64_t count);
/* (acc_cast is defined in host_narrow.c, which converts the pairs with a narrow type and
 * leaves the others to acc_cast_wide: the narrow types build on the kernels, not back.) */

/* acc_cast of two types that are not narrow; ACC_EINVAL for a narrow one. */
int acc_cast_wide(acc_dtype from, const void *x, acc_dtype to, void *y, int64_t count);

/* ---------------------------------------------------------------------------------
 * Quantization (ONNX rules; per-tensor or per-axis)
 * --------------------------------------------------------------------------------- */

/* Scale and zero point of a quantized tensor: each has 1 element (per tensor) or
 * shape[axis] elements (per axis). zero_point may be NULL (all zero). Zero points are
 * given widened to int32 whatever the tensor's integer type. */
typedef struct acc_qparams {
    const float *scale;
    int64_t scale_len;
    const int32_t *zero_point;
    int64_t zero_point_len;
} acc_qparams;

/* relay.qnn.quantize: y = saturate(round_half_even(x / scale) + zero_point), the
 * division in float; NaN quantizes to the zero point, ±inf saturates. y_type is
 * ACC_I8, ACC_U8, ACC_I16, ACC_U16, ACC_I32, ACC_I4, ACC_U4, ACC_I2 or ACC_U2. */
int acc_quantize(const float *x, acc_dtype y_type, void *y, int rank, const int64_t *shape, int axis,
                 const acc_qparams *q);

/* relay.qnn.dequantize: y = float(x - zero_point) * scale (difference exact, product in
 * float). x_type is one of acc_quantize's y_types. */
int acc_dequantize(acc_dtype x_type, const void *x, float *y, int rank, const int64_t *shape, int axis,
                   const acc_qparams *q);

/* relay.qnn.requantize: exactly dequantize with `in` then quantize with `out` (both in
 * float, both per tensor or per `axis`). x_type and y_type: ACC_I8, ACC_U8, ACC_I16,
 * ACC_I32. */
int acc_requantize(acc_dtype x_type, const void *x, acc_dtype y_type, void *y, int rank, const int64_t *shape,
                   int axis, const acc_qparams *in, const acc_qparams *out);

/* relay.qnn.conv2d: y (int32) = sum (x - x_zero_point) * (w - w_zero_point[o]), exact.
 * x_type and w_type are ACC_I8 or ACC_U8 (independently). Padding contributes nothing.
 * w_zero_point has 1 or oc elements (NULL: 0). bias (NULL or [oc] int32) is added with
 * wrap-around. Returns ACC_EOVERFLOW (nothing written) when the exact sum leaves int32,
 * as the reference does. */
int acc_qnn_conv2d(acc_dtype x_type, const void *x, acc_dtype w_type, const void *w, const int32_t *bias,
                   int32_t *y, const acc_conv2d_params *p, int32_t x_zero_point, const int32_t *w_zero_point,
                   int64_t w_zero_point_len);

/* relay.qnn.dense: y[m][n] (int32) = sum_k (x[m][k] - x_zero_point) * (w[n][k] - w_zero_point[n]).
 * Types and zero points as acc_qnn_conv2d (w_zero_point: 1 or n elements). */
int acc_qnn_dense(acc_dtype x_type, const void *x, acc_dtype w_type, const void *w, const int32_t *bias,
                  int32_t *y, int64_t m, int64_t k, int64_t n, int32_t x_zero_point, const int32_t *w_zero_point,
                  int64_t w_zero_point_len);

/* relay.qnn.add: quantize(dequantize(a) + dequantize(b)) in float with numpy
 * broadcasting, per-tensor parameters. a_type, b_type: ACC_I8 or ACC_U8; y_type:
 * ACC_I8, ACC_U8, ACC_I16 or ACC_I32. */
int acc_qnn_add(acc_dtype a_type, const void *a, int a_rank, const int64_t *a_shape, float a_scale,
                int32_t a_zero_point, acc_dtype b_type, const void *b, int b_rank, const int64_t *b_shape,
                float b_scale, int32_t b_zero_point, acc_dtype y_type, void *y, float y_scale,
                int32_t y_zero_point);

/* ---------------------------------------------------------------------------------
 * Ops exporters emit (issue 11): resize, transposed convolution, depth/space
 * rearrangement, element gather, max-pool indices, clip with run-time bounds
 * --------------------------------------------------------------------------------- */

/* ONNX Resize's coordinate_transformation_mode (output -> input coordinate). */
typedef enum acc_resize_coord {
    ACC_RESIZE_HALF_PIXEL = 0,
    ACC_RESIZE_HALF_PIXEL_SYMMETRIC = 1,
    ACC_RESIZE_PYTORCH_HALF_PIXEL = 2,
    ACC_RESIZE_ALIGN_CORNERS = 3,
    ACC_RESIZE_ASYMMETRIC = 4,
    ACC_RESIZE_TF_HALF_PIXEL_FOR_NN = 5
} acc_resize_coord;

/* ONNX Resize's nearest_mode. */
typedef enum acc_resize_nearest {
    ACC_NEAREST_ROUND_PREFER_FLOOR = 0,
    ACC_NEAREST_ROUND_PREFER_CEIL = 1,
    ACC_NEAREST_FLOOR = 2,
    ACC_NEAREST_CEIL = 3
} acc_resize_nearest;

/* relay.image.resize2d: x [n][c][h][w] -> y [n][c][oh][ow]. scale_h/scale_w map output
 * to input coordinates (in double, as the reference). Nearest works on any element
 * type (elem_size bytes); the index is clamped to the input. */
int acc_resize2d_nearest(size_t elem_size, const void *x, void *y, int64_t n, int64_t c, int64_t h, int64_t w,
                         int64_t oh, int64_t ow, double scale_h, double scale_w, acc_resize_coord coord,
                         acc_resize_nearest nearest);

/* Interpolation taps of one axis of relay.image.resize2d (linear, cubic, antialias,
 * tf_crop_and_resize: reference.resize_taps, computed by the compiler): output index i
 * is sum_t weight[i * k + t] * input[index[i * k + t]] (indices inside the input), or the
 * extrapolation value where outside (NULL: nowhere) is non-zero. */
typedef struct acc_resize_taps {
    int64_t k;
    const int64_t *index;
    const double *weight;
    const uint8_t *outside;
} acc_resize_taps;

/* relay.image.resize2d by taps on float32: x [n][c][h][w] -> y [n][c][oh][ow], H first
 * (rows of the output in double), then W, one rounding at the end. */
int acc_resize2d_taps_f32(const float *x, float *y, int64_t n, int64_t c, int64_t h, int64_t w, int64_t oh,
                          int64_t ow, const acc_resize_taps *th, const acc_resize_taps *tw,
                          double extrapolation_value);

/* relay.nn.conv2d_transpose on float32: weight [c][oc / groups][kh][kw] (IOHW); p->h,
 * p->w are the input's size, p->oh, p->ow the output's, padding removes output cells
 * at the start (top, left) and end; p->oc is the number of output channels. Sums in
 * double. */
int acc_conv2d_transpose_f32(const float *x, const float *w, float *y, const acc_conv2d_params *p);

/* relay.nn.depth_to_space (to_space = 1: [n][c][h][w] -> [n][c / b²][h·b][w·b]) and
 * relay.nn.space_to_depth (to_space = 0: [n][c][h][w] -> [n][c·b²][h / b][w / b]); `crd`
 * selects the CRD channel order, else DCR. Any element type. n, c, h, w describe the
 * tensor in depth form ([n][c][h][w] with c = channels·b²) for both directions. */
int acc_depth_space(size_t elem_size, const void *x, void *y, int64_t n, int64_t c, int64_t h, int64_t w,
                    int64_t block, int crd, int to_space);

/* relay.gather (ONNX GatherElements): indices has x's rank and shape idx_shape; y has
 * idx_shape. An index outside [-shape[axis], shape[axis]) returns ACC_ERANGE before
 * anything is written. */
/* relay.nn.max_unpool: y (out_count elements of elem_size) zeroed, then
 * y[indices[i]] = x[i] for i in [0, count) in order. An index outside [0, out_count)
 * returns ACC_ERANGE before anything is written. */
int acc_max_unpool(size_t elem_size, const void *x, acc_dtype index_type, const void *indices, int64_t count,
                   void *y, int64_t out_count);

/* relay.image.grid_sample (f32; _f64 below): x [N, C, (D,) H, W] (`shape`, k = 2 or 3
 * spatial axes) sampled at grid [N, (OD,) OH, OW, k] into y [N, C, (OD,) OH, OW] (`out`
 * the k output extents). method 0 linear, 1 nearest, 2 cubic (k = 2); padding 0 zeros,
 * 1 border, 2 reflection. Every coordinate is clamped before it indexes: any grid
 * (NaN, inf) reads inside x. */
int acc_grid_sample_f32(const float *x, const float *grid, float *y, int k, const int64_t *shape, const int64_t *out,
                        int method, int padding, int align_corners);

/* relay.vision.roi_align (f32; _f64 below): x [n, c, h, w], rois [r, 4], batch_indices
 * [r] of index_type, y [r, c, oh, ow]. A batch index outside [0, n) or a box whose
 * adaptive sample count is NaN or past 2^20 returns ACC_ERANGE. */
int acc_roi_align_f32(const float *x, const float *rois, acc_dtype index_type, const void *batch_indices, float *y,
                      int64_t n, int64_t c, int64_t h, int64_t w, int64_t r, int64_t oh, int64_t ow,
                      int64_t sampling_ratio, double spatial_scale, int max_mode, int half_pixel);

/* relay.vision.roi_pool (f32; _f64 below): x [n, c, h, w], rois [r, 5] (batch index,
 * x1, y1, x2, y2), y [r, c, ph_count, pw_count]: ONNX MaxRoiPool as onnxruntime computes
 * it (corners rounded half away from zero, bin bounds in R). A batch index whose
 * truncation is outside [0, n), or a scaled corner that is non-finite or past 2^24,
 * returns ACC_ERANGE before anything is written. */
int acc_roi_pool_f32(const float *x, const float *rois, float *y, int64_t n, int64_t c, int64_t h, int64_t w,
                     int64_t r, int64_t ph_count, int64_t pw_count, double spatial_scale);

int acc_gather_elements(size_t elem_size, const void *x, int rank, const int64_t *shape, int axis,
                        acc_dtype index_type, const void *indices, const int64_t *idx_shape, void *y);

/* The combination of relay.scatter_elements / scatter_nd (`reduction`). The numbering is
 * part of the ABI. */
typedef enum acc_scatter_reduction {
    ACC_SCATTER_NONE = 0, /* the update replaces the element */
    ACC_SCATTER_ADD = 1,
    ACC_SCATTER_MUL = 2,
    ACC_SCATTER_MAX = 3, /* NaN wins (numpy's maximum) */
    ACC_SCATTER_MIN = 4
} acc_scatter_reduction;

/* relay.gather_nd (ONNX GatherND): x [b...][d...] (rank, shape), indices of rank idx_rank
 * [b...][q...][k] with the first batch_dims dimensions x's; y [b...][q...] + shape[batch_dims
 * + k:]. Any element type (elem_size bytes). An index outside [-n, n) of its axis returns
 * ACC_ERANGE before anything is written. */
int acc_gather_nd(size_t elem_size, const void *x, int rank, const int64_t *shape, int batch_dims,
                  acc_dtype index_type, const void *indices, int idx_rank, const int64_t *idx_shape, void *y);

/* relay.scatter_elements (ONNX ScatterElements): y = x (shape, rank), then for each
 * position i of indices (x's rank, shape idx_shape, at most shape[d] along d != axis) in
 * row-major order, y[i with i[axis] = indices[i]] = updates[i] (or combined by
 * `reduction`; the last of duplicate indices wins for ACC_SCATTER_NONE). t: x's dtype
 * (numeric for a reduction, any for ACC_SCATTER_NONE). An index outside [-n, n) returns
 * ACC_ERANGE before anything is written. y may be x. */
int acc_scatter_elements(acc_dtype t, const void *x, int rank, const int64_t *shape, int axis, acc_dtype index_type,
                         const void *indices, const int64_t *idx_shape, const void *updates,
                         acc_scatter_reduction reduction, void *y);

/* relay.scatter_nd (ONNX ScatterND): y = x, then for each position i of indices [q...][k]
 * (idx_rank, idx_shape) in row-major order, the slice y[indices[i]] of shape[k:] =
 * updates[i] (or combined by `reduction`, as acc_scatter_elements). An index outside
 * [-n, n) of its axis returns ACC_ERANGE before anything is written. y may be x. */
int acc_scatter_nd(acc_dtype t, const void *x, int rank, const int64_t *shape, acc_dtype index_type,
                   const void *indices, int idx_rank, const int64_t *idx_shape, const void *updates,
                   acc_scatter_reduction reduction, void *y);

/* relay.nn.max_pool2d_indices: int64 flat index into x [n][c][h][w] of the first
 * maximum of each window (storage_order 1: c-plane offset + col * h + row). Numeric
 * dtypes; NaN wins like numpy's argmax. */
int acc_max_pool2d_indices(acc_dtype t, const void *x, int64_t *y, const acc_pool2d_params *p, int storage_order);

/* relay.dyn.clip: acc_clip with the bounds read at run time from one element of x's
 * type each (int64 bounds beyond 2^53 are rounded to double first). */
int acc_dyn_clip(acc_dtype t, const void *x, const void *a_min, const void *a_max, void *y, int64_t count);

/* relay.qnn.dynamic_scale / dynamic_zero_point (ONNX DynamicQuantizeLinear's uint8
 * parameters of x): lo = min(0, min x), hi = max(0, max x), scale = (hi - lo) / 255
 * (1 / 255 when hi == lo), zero point = round_half_even(clamp(0 - lo / scale, 0, 255)),
 * all in float. */
int acc_dynamic_scale_f32(const float *x, float *scale, int64_t count);
int acc_dynamic_zero_point_f32(const float *x, uint8_t *zero_point, int64_t count);

/* ---------------------------------------------------------------------------------
 * The float kernels on double: `acc_<op>_f64` computes what `acc_<op>_f32` does with
 * double for float (one source, host_kernels_real.inc); conv2d, dense, matmul and
 * batch_matmul on acc_dgemm.
 * --------------------------------------------------------------------------------- */

int acc_conv2d_f64(const double *x, const double *w, const double *bias, double *y, const acc_conv2d_params *p);
int acc_dense_f64(const double *x, const double *w, const double *bias, double *y, int64_t m, int64_t k, int64_t n);
int acc_matmul_f64(const double *a, const double *b, double *y, int64_t m, int64_t k, int64_t n, int transpose_a,
                   int transpose_b);
int acc_batch_matmul_f64(const double *a, int a_rank, const int64_t *a_shape, const double *b, int b_rank,
                         const int64_t *b_shape, double *y, int transpose_a, int transpose_b);
int acc_sigmoid_f64(const double *x, double *y, int64_t count);
int acc_tanh_f64(const double *x, double *y, int64_t count);
int acc_erf_f64(const double *x, double *y, int64_t count);
int acc_gelu_f64(const double *x, double *y, int64_t count, int tanh_approx);
int acc_hardsigmoid_f64(const double *x, double *y, int64_t count, double alpha, double beta);
int acc_hardswish_f64(const double *x, double *y, int64_t count);
int acc_silu_f64(const double *x, double *y, int64_t count);
int acc_leaky_relu_f64(const double *x, double *y, int64_t count, double alpha);
int acc_softmax_f64(const double *x, double *y, int rank, const int64_t *shape, int axis);
int acc_avg_pool2d_f64(const double *x, double *y, const acc_pool2d_params *p);
int acc_global_avg_pool2d_f64(const double *x, double *y, int64_t n, int64_t c, int64_t h, int64_t w);
int acc_batch_norm_f64(const double *x, const double *gamma, const double *beta, const double *mean,
                       const double *var, double *y, int rank, const int64_t *shape, int axis, double epsilon);
int acc_layer_norm_f64(const double *x, const double *gamma, const double *beta, double *y, int rank,
                       const int64_t *shape, int axis, double epsilon);
int acc_rms_norm_f64(const double *x, const double *gamma, double *y, int rank, const int64_t *shape, int axis,
                     double epsilon);
int acc_mean_f64(const double *x, double *y, int rank, const int64_t *shape, const int *axes, int n_axes);
int acc_sqrt_f64(const double *x, double *y, int64_t count);
int acc_exp_f64(const double *x, double *y, int64_t count);
int acc_log_f64(const double *x, double *y, int64_t count);
int acc_floor_f64(const double *x, double *y, int64_t count);
int acc_ceil_f64(const double *x, double *y, int64_t count);
int acc_round_f64(const double *x, double *y, int64_t count);
int acc_sin_f64(const double *x, double *y, int64_t count);
int acc_cos_f64(const double *x, double *y, int64_t count);
int acc_tan_f64(const double *x, double *y, int64_t count);
int acc_asin_f64(const double *x, double *y, int64_t count);
int acc_acos_f64(const double *x, double *y, int64_t count);
int acc_atan_f64(const double *x, double *y, int64_t count);
int acc_sinh_f64(const double *x, double *y, int64_t count);
int acc_cosh_f64(const double *x, double *y, int64_t count);
int acc_asinh_f64(const double *x, double *y, int64_t count);
int acc_acosh_f64(const double *x, double *y, int64_t count);
int acc_atanh_f64(const double *x, double *y, int64_t count);
int acc_grid_sample_f64(const double *x, const double *grid, double *y, int k, const int64_t *shape,
                        const int64_t *out, int method, int padding, int align_corners);
int acc_roi_align_f64(const double *x, const double *rois, acc_dtype index_type, const void *batch_indices,
                      double *y, int64_t n, int64_t c, int64_t h, int64_t w, int64_t r, int64_t oh, int64_t ow,
                      int64_t sampling_ratio, double spatial_scale, int max_mode, int half_pixel);
int acc_roi_pool_f64(const double *x, const double *rois, double *y, int64_t n, int64_t c, int64_t h,
                     int64_t w, int64_t r, int64_t ph_count, int64_t pw_count, double spatial_scale);
int acc_resize2d_taps_f64(const double *x, double *y, int64_t n, int64_t c, int64_t h, int64_t w, int64_t oh,
                          int64_t ow, const acc_resize_taps *th, const acc_resize_taps *tw,
                          double extrapolation_value);
int acc_conv2d_transpose_f64(const double *x, const double *w, double *y, const acc_conv2d_params *p);

/* ---- scans, selection and integer bit ops (host_kernels_scan_bits.inc) ---- */

/* relay.bitwise_and / _or / _xor, relay.left_shift / right_shift: integer types, numpy
 * broadcasting. A shift count outside [0, bits) gives 0 (right shift of a negative
 * signed value: -1); right shifts of signed values are arithmetic (ONNX BitShift). */
typedef enum acc_bit_op {
    ACC_BIT_AND = 0,
    ACC_BIT_OR = 1,
    ACC_BIT_XOR = 2,
    ACC_BIT_SHL = 3,
    ACC_BIT_SHR = 4
} acc_bit_op;
int acc_bitwise(acc_bit_op op, acc_dtype t, const void *a, int a_rank, const int64_t *a_shape, const void *b,
                int b_rank, const int64_t *b_shape, void *y);
/* relay.bitwise_not: ~x of an integer type; y may equal x. */
int acc_bitwise_not(acc_dtype t, const void *x, void *y, int64_t count);

/* relay.cumsum / relay.cumprod along `axis`: float32/float64 accumulate in their type in
 * order, integers wrap; `exclusive` starts from 0 (1), `reverse` runs from the end. */
typedef enum acc_cumulative_op { ACC_CUMSUM = 0, ACC_CUMPROD = 1 } acc_cumulative_op;
int acc_cumulative(acc_cumulative_op op, acc_dtype t, const void *x, void *y, int rank, const int64_t *shape,
                   int axis, int exclusive, int reverse);

/* relay.topk: the k largest (is_ascend: smallest) along `axis`, sorted, ties by the lower
 * index, nan above every number; y holds their int64 positions (ret_indices) or the
 * elements, of x's shape with k at `axis`. ACC_ENOMEM when the sort buffer fails. */
int acc_topk(acc_dtype t, const void *x, int rank, const int64_t *shape, int axis, int64_t k, int is_ascend,
             int ret_indices, void *y);

/* relay.det: the determinant of `batch` [n, n] matrices of float32/float64 (ACC_F32,
 * ACC_F64), LU elimination with partial pivoting in double, rounded once; ACC_ENOMEM
 * when the scratch matrix fails. */
int acc_det(acc_dtype t, const void *x, void *y, int64_t batch, int64_t n);

#ifdef __cplusplus
}
#endif

#endif /* ACC_HOST_KERNELS_H */
