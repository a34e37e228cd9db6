/* npu.h: the vendor C API of accel's built-in `npu` target (and `npu-shared`, the same
 * device configured with shared_with_host = 1), implemented by the simulator npu.c.
 *
 * Model of the device:
 * - The NPU computes only on its scratchpad (npu_spm(), npu_config.spm_bytes bytes),
 *   unless the configuration shares host memory: then compute commands may also use
 *   host memory declared with npu_register_host (zero-copy).
 * - A DMA engine moves strided N-D boxes between registered host memory and the
 *   scratchpad. Transfers are asynchronous: each returns a token, and the host must
 *   npu_dma_wait(token) (or npu_sync()) before a compute command uses the data.
 * - Every command is checked before it touches memory. A transfer or operand outside
 *   its memory, an output overlapping an input, or a compute command using scratchpad
 *   bytes of a transfer never waited for prints ONE line
 *   `npu: error: <what> (dma #N | op #N, <offsets and bytes>)` to stderr and exits
 *   with status 3. Inconsistent parameters print one line and return NPU_EINVAL.
 * - Counters and a two-engine timeline (DMA engine, compute engine; see sim_core.h)
 *   give bytes moved, transfers, compute commands and simulated cycles.
 *
 * Conventions: tensors are dense row-major, images NCHW, conv weights OIHW
 * ([oc][c / groups][kh][kw]). `_f32` commands take float data; `_s8` commands take
 * 8-bit quantized data (int8 or uint8 as the params' *_dtype fields say; zero means
 * int8), int32 bias, and compute like the reference's QDQ semantics:
 *     acc  = sum (x - input_zero_point) * (w - weight_zero_point[c])   (exact int32)
 *            + bias[c]
 *     real = act(f32(acc) * in_scale[c])          (in_scale[c] = s_x * s_w[c])
 *     y    = saturate(round_half_even(real / out_scale) + out_zero_point)
 * i.e. exactly relay.qnn.requantize of the accumulator with the fused activation
 * applied to the real value before the output quantization (relu = max(q, zp)).
 * Per-channel arrays (weight_zero_point, in_scale) are descriptor data: they may live
 * in host memory and are not checked.
 */
#ifndef ACC_NPU_H
#define ACC_NPU_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define NPU_OK 0
#define NPU_EINVAL 1    /* inconsistent command parameters (one line on stderr) */
#define NPU_EOVERFLOW 2 /* an int32 accumulator overflowed (one line on stderr) */

/* Device configuration (zero-initialize, then set every field you need). */
typedef struct npu_config {
    size_t spm_bytes;             /* scratchpad size in bytes, e.g. 262144 */
    size_t alignment;             /* power of two (0 = 64): the scratchpad's base alignment and
                                     the granularity (capped at 64 bytes) of hazard tracking */
    int shared_with_host;         /* 1: compute commands may also use registered host memory */
    double dma_bytes_per_cycle;   /* > 0 */
    double dma_setup_cycles;      /* >= 0, per transfer */
    double macs_per_cycle_f32;    /* > 0, conv / matmul on float */
    double macs_per_cycle_int8;   /* > 0, conv / matmul on 8-bit data */
    double elementwise_per_cycle; /* > 0, pools (window cells) and eltwise (elements) */
    double launch_cycles;         /* >= 0, fixed cost of every compute command (0 = none) */
    double device_bytes_per_cycle; /* >= 0, npu_dma_on_device copies (0 = dma_bytes_per_cycle) */
} npu_config;

/* A transfer's token: its number, 1 for the first transfer after npu_init. */
typedef int64_t npu_token;

typedef struct npu_counters {
    uint64_t bytes_to_device; /* bytes moved host -> scratchpad */
    uint64_t bytes_to_host;   /* bytes moved scratchpad -> host */
    uint64_t transfers;       /* DMA commands */
    uint64_t accel_ops;       /* compute commands */
    uint64_t cycles;          /* simulated completion time of everything issued, rounded */
    uint64_t bytes_on_device; /* bytes copied scratchpad -> scratchpad (npu_dma_on_device) */
} npu_counters;

/* ---- device ---------------------------------------------------------------------- */

/* (Re)initializes the device: allocates the scratchpad (filled with 0xFF bytes, NaN
 * as float), forgets registered memory, resets counters and the timeline. Returns 0,
 * or non-zero after one line on stderr when the configuration is invalid. */
int npu_init(const npu_config *cfg);

/* The configuration of the last successful npu_init (zeros before): what a command
 * stream (npu_cmd.h) checks its header's configuration words against. */
const npu_config *npu_get_config(void);

/* Base address of the scratchpad (aligned to cfg.alignment, at least 64). */
void *npu_spm(void);

/* Declares [p, p + bytes) as host memory the DMA engine (and, when shared, the compute
 * engine) may touch. Registering the same base again keeps the larger size. */
void npu_register_host(const void *p, size_t bytes);

/* Frees the scratchpad; the device must be initialized again before use. */
void npu_shutdown(void);

/* ---- transfers ------------------------------------------------------------------- */

/* Starts a strided copy host -> scratchpad of a box of `rank` (1..4) dims `shape`;
 * element (i0, i1, ...) goes from src_host + sum(i_k * src_strides[k]) * elem_bytes to
 * dst_spm + sum(i_k * dst_strides[k]) * elem_bytes (strides in ELEMENTS), so tiles of
 * NCHW tensors move without repacking. Takes dma_setup_cycles + bytes /
 * dma_bytes_per_cycle on the DMA engine. */
npu_token npu_dma_to_device(void *dst_spm, const void *src_host, size_t elem_bytes, int rank, const int64_t *shape,
                            const int64_t *dst_strides, const int64_t *src_strides);

/* The same, scratchpad -> host. */
npu_token npu_dma_to_host(void *dst_host, const void *src_spm, size_t elem_bytes, int rank, const int64_t *shape,
                          const int64_t *dst_strides, const int64_t *src_strides);

/* The same within the scratchpad: a strided copy dst_spm <- src_spm (the two boxes must
 * not overlap), so that tiles computed into one buffer are assembled into another (a
 * tiled output, a concatenation) without a round trip through host memory. It runs on
 * the DMA engine in order with the transfers, takes dma_setup_cycles + bytes /
 * device_bytes_per_cycle, waits for the compute that writes its source and for the
 * reads of its destination, and must be waited for before a compute command uses its
 * destination. Counted in `transfers` and `bytes_on_device`. */
npu_token npu_dma_on_device(void *dst_spm, const void *src_spm, size_t elem_bytes, int rank, const int64_t *shape,
                            const int64_t *dst_strides, const int64_t *src_strides);

/* Waits until transfer t (and every earlier one) has completed. */
void npu_dma_wait(npu_token t);

/* Waits until every transfer and compute command has completed. */
void npu_sync(void);

/* ---- counters -------------------------------------------------------------------- */

/* The counters so far (cycles: completion time of everything issued). */
npu_counters npu_get_counters(void);

/* Writes {"bytes_to_device": .., "bytes_to_host": .., "transfers": .., "accel_ops": ..,
 * "cycles": .., "bytes_on_device": ..} to `path`. Returns 0, or non-zero (one line on stderr). */
int npu_write_counters_json(const char *path);

/* ---- compute --------------------------------------------------------------------- */

/* Fused activation, on real values: relu = max(v, 0); clip = min(max(v, act_min),
 * act_max) (NaN stays NaN). */
typedef enum npu_act { NPU_ACT_NONE = 0, NPU_ACT_RELU = 1, NPU_ACT_CLIP = 2 } npu_act;

/* Element type of an 8-bit quantized operand. */
typedef enum npu_qtype { NPU_I8 = 0, NPU_U8 = 1 } npu_qtype;

/* Convolution: x [n][c][h][w], w [oc][c / groups][kh][kw], bias [oc] or NULL,
 * y [n][oc][oh][ow]; oh = (h + pad_top + pad_bottom - dil_h * (kh - 1) - 1) / stride_h + 1
 * (likewise ow). groups divides c and oc (depthwise: groups == c). */
typedef struct npu_conv2d_params {
    int64_t n, c, h, w;
    int64_t oc, kh, kw;
    int64_t oh, ow;
    int64_t stride_h, stride_w;
    int64_t pad_top, pad_left, pad_bottom, pad_right;
    int64_t dil_h, dil_w;
    int64_t groups;
    npu_act act;
    float act_min, act_max;
    /* _s8 only */
    npu_qtype x_dtype, w_dtype, y_dtype;
    int32_t input_zero_point;
    const int32_t *weight_zero_point; /* 1 or oc entries; NULL = 0 */
    int64_t weight_zero_point_len;
    const float *in_scale; /* s_x * s_w[c]: 1 or oc entries */
    int64_t in_scale_len;
    float out_scale;
    int32_t out_zero_point;
} npu_conv2d_params;

/* y = act(conv(x, w) + bias). Cost: n*oc*oh*ow*(c/groups)*kh*kw MACs. */
int npu_conv2d_f32(const float *x, const float *w, const float *bias, float *y, const npu_conv2d_params *p);

/* The quantized convolution (see the header comment); bias is int32. */
int npu_conv2d_s8(const void *x, const void *w, const int32_t *bias, void *y, const npu_conv2d_params *p);

/* Matrix product y [m][n] = op(a) · op(b) (+ bias [n]): a is stored [m][k] ([k][m] with
 * transpose_a), b is stored [k][n] ([n][k] with transpose_b: the dense form, weight
 * [n][k]). Per-channel quantization parameters run along n. With batch > 1, a, b and y
 * hold `batch` such matrices one after the other (attention's QK^T and PV per head). */
typedef struct npu_matmul_params {
    int64_t m, k, n;
    int transpose_a, transpose_b;
    npu_act act;
    float act_min, act_max;
    /* _s8 only */
    npu_qtype x_dtype, w_dtype, y_dtype; /* x: a, w: b */
    int32_t input_zero_point;
    const int32_t *weight_zero_point; /* 1 or n entries; NULL = 0 */
    int64_t weight_zero_point_len;
    const float *in_scale; /* 1 or n entries */
    int64_t in_scale_len;
    float out_scale;
    int32_t out_zero_point;
    int64_t batch; /* matrices per operand; 0 = 1 */
    int accumulate; /* _f32 only: add the product to what y holds (a K tile of a longer product) */
} npu_matmul_params;

/* y = act(op(a) · op(b) + bias), with `accumulate` y = act(y + op(a) · op(b) + bias).
 * Cost: batch*m*n*k MACs (+ batch*m*n elementwise reads of y when accumulating). */
int npu_matmul_f32(const float *a, const float *b, const float *bias, float *y, const npu_matmul_params *p);
int npu_matmul_s8(const void *a, const void *b, const int32_t *bias, void *y, const npu_matmul_params *p);

/* Dense (relay.nn.dense): x [m][k], weight [n][k]: npu_matmul with transpose_a = 0 and
 * transpose_b = 1 (the params' transpose fields are ignored). */
int npu_dense_f32(const float *x, const float *weight, const float *bias, float *y, const npu_matmul_params *p);
int npu_dense_s8(const void *x, const void *weight, const int32_t *bias, void *y, const npu_matmul_params *p);

typedef enum npu_pool_kind { NPU_POOL_MAX = 0, NPU_POOL_AVG = 1 } npu_pool_kind;

/* 2-D pooling with the reference's semantics (relay.nn.max_pool2d / avg_pool2d): x
 * [n][c][h][w] -> y [n][c][oh][ow], the output size explicit (ceil_mode decided by the
 * caller); padded cells never win a max; count_include_pad counts the explicit padding
 * only (never cells past it); 0 <= pad < k * dil. */
typedef struct npu_pool2d_params {
    npu_pool_kind kind;
    int64_t n, c, h, w;
    int64_t oh, ow;
    int64_t kh, kw;
    int64_t stride_h, stride_w;
    int64_t dil_h, dil_w;
    int64_t pad_top, pad_left, pad_bottom, pad_right;
    int count_include_pad;
    /* _s8 only: y = quantize(pool(dequantize(x))) */
    npu_qtype x_dtype, y_dtype;
    float in_scale;
    int32_t in_zero_point;
    float out_scale;
    int32_t out_zero_point;
} npu_pool2d_params;

/* Cost: n*c*oh*ow*kh*kw elementwise units. */
int npu_pool2d_f32(const float *x, float *y, const npu_pool2d_params *p);
int npu_pool2d_s8(const void *x, void *y, const npu_pool2d_params *p);

typedef enum npu_eltwise_kind {
    NPU_ELTWISE_ADD = 0,  /* lhs + rhs */
    NPU_ELTWISE_MUL = 1,  /* lhs * rhs */
    NPU_ELTWISE_RELU = 2, /* max(lhs, 0); rhs unused (NULL) */
    NPU_ELTWISE_CLIP = 3, /* min(max(lhs, act_min), act_max); rhs unused (NULL) */
    NPU_ELTWISE_SUB = 4,  /* lhs - rhs */
    NPU_ELTWISE_DIV = 5,  /* lhs / rhs */
    NPU_ELTWISE_SIGMOID = 6, /* unary from here on: rhs unused (NULL) */
    NPU_ELTWISE_TANH = 7,
    NPU_ELTWISE_GELU = 8, /* lhs/2 (1 + erf(lhs / sqrt 2)) */
    NPU_ELTWISE_SILU = 9, /* lhs * sigmoid(lhs) */
    NPU_ELTWISE_GELU_TANH = 10, /* lhs/2 (1 + tanh(sqrt(2/pi) (lhs + 0.044715 lhs^3))) */
    NPU_ELTWISE_LUT = 11, /* _s8 only: table[the byte of lhs] (an int8 -1 reads entry 255); rhs unused */
    NPU_ELTWISE_SQRT = 12, /* sqrt(lhs), correctly rounded; rhs unused */
    NPU_ELTWISE_EXP = 13,  /* e^lhs; rhs unused */
    NPU_ELTWISE_LOG = 14   /* ln(lhs); rhs unused */
} npu_eltwise_kind;

/* Elementwise op over `count` elements, then the fused activation. rhs holds rhs_count
 * elements (0: count): 1 is a scalar, fewer than count are the trailing dims of lhs,
 * repeated (a row broadcast). y may be exactly lhs or rhs (in place). _s8: each input is
 * dequantized with its scale and zero point, the op and the activation run in float, the
 * result is quantized with out_scale / out_zero_point (relay.qnn.add for ADD); LUT looks
 * each element up in `table` instead (256 values of the output's type). */
typedef struct npu_eltwise_params {
    npu_eltwise_kind kind;
    int64_t count;
    int64_t rhs_count;
    npu_act act;
    float act_min, act_max;
    /* _s8 only */
    npu_qtype lhs_dtype, rhs_dtype, out_dtype;
    float lhs_scale;
    int32_t lhs_zero_point;
    float rhs_scale;
    int32_t rhs_zero_point;
    float out_scale;
    int32_t out_zero_point;
    const int32_t *table; /* LUT: 256 entries */
} npu_eltwise_params;

/* Cost: count elementwise units. */
int npu_eltwise_f32(const float *lhs, const float *rhs, float *y, const npu_eltwise_params *p);
int npu_eltwise_s8(const void *lhs, const void *rhs, void *y, const npu_eltwise_params *p);

typedef enum npu_row_kind {
    NPU_ROW_SOFTMAX = 0,    /* exp(x - max) / sum(exp(x - max)) along each row */
    NPU_ROW_LAYER_NORM = 1, /* (x - mean) / sqrt(var + epsilon) * gamma + beta along each row */
    NPU_ROW_RMS_NORM = 2    /* x / sqrt(mean(x * x) + epsilon) * gamma along each row (no beta) */
} npu_row_kind;

/* Row ops over the last axis of `count` elements in rows of `row_length`. The 8-bit
 * form (npu_rows_s8) reads x as (q - x_zero_point) * x_scale and writes y quantized by
 * out_scale and out_zero_point; the float form ignores those fields. */
typedef struct npu_rows_params {
    npu_row_kind kind;
    int64_t count, row_length;
    float epsilon;
    npu_qtype x_dtype, y_dtype;
    float x_scale, out_scale;
    int32_t x_zero_point, out_zero_point;
} npu_rows_params;

/* gamma, beta: [row_length] (NULL: 1 and 0; softmax takes neither, an RMS norm no beta).
 * y may be exactly x. Cost: 3 * count elementwise units (three passes over each row; an
 * RMS norm 2 * count). */
int npu_rows_f32(const float *x, const float *gamma, const float *beta, float *y, const npu_rows_params *p);
/* The same on 8-bit data: each row dequantized, computed in float, quantized (round half
 * to even, saturated); gamma and beta stay float. Same cost. */
int npu_rows_s8(const void *x, const float *gamma, const float *beta, void *y, const npu_rows_params *p);

/* Conversions between f32 and 8-bit data (relay.qnn.quantize and dequantize, one scale
 * and zero point): the float islands of a quantized model (a batch norm, a mask, an
 * activation feeding a pool) run on the npu between them. QUANTIZE: y (8-bit, dtype) =
 * saturate(round_half_even(x / scale) + zero_point); DEQUANTIZE: y (f32) = (x -
 * zero_point) * scale, x 8-bit. y may not overlap x (the element sizes differ). Cost:
 * count elementwise units. */
typedef enum npu_convert_kind { NPU_QUANTIZE = 0, NPU_DEQUANTIZE = 1 } npu_convert_kind;

typedef struct npu_convert_params {
    npu_convert_kind kind;
    int64_t count;
    npu_qtype dtype; /* of the 8-bit side */
    float scale;
    int32_t zero_point;
} npu_convert_params;

int npu_convert(const void *x, void *y, const npu_convert_params *p);

#ifdef __cplusplus
}
#endif

#endif /* ACC_NPU_H */
