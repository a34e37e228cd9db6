/* dsp.h: the vendor C API of accel's built-in `dsp` target (a matrix DSP: dense and
 * matmul, float and 8-bit quantized), implemented by the simulator dsp.c.
 *
 * The device model, the transfer commands, the error behaviour (one line
 * `dsp: error: ...` on stderr, exit status 3, nothing touched), the counters and the
 * quantized arithmetic are those of npu.h, with the prefix `dsp_`:
 * - the DSP computes only on its scratchpad (dsp_spm()), unless shared_with_host;
 * - transfers are strided N-D boxes (rank 1..4, strides in ELEMENTS) between registered
 *   host memory and the scratchpad; the host must dsp_dma_wait(token) or dsp_sync()
 *   before a compute command uses transferred data;
 * - `_s8` commands: acc = sum (x - input_zero_point) * (w - weight_zero_point[c]) + bias[c]
 *   in exact int32; y = saturate(round_half_even(act(f32(acc) * in_scale[c]) / out_scale)
 *   + out_zero_point), 8-bit types per the *_dtype fields (zero = int8).
 */
#ifndef ACC_DSP_H
#define ACC_DSP_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define DSP_OK 0
#define DSP_EINVAL 1    /* inconsistent command parameters (one line on stderr) */
#define DSP_EOVERFLOW 2 /* an int32 accumulator overflowed (one line on stderr) */

/* Device configuration; fields as npu_config (npu.h). */
typedef struct dsp_config {
    size_t spm_bytes;             /* scratchpad size in bytes, e.g. 131072 */
    size_t alignment;             /* power of two (0 = 64) */
    int shared_with_host;         /* 1: compute commands may also use registered host memory */
    double dma_bytes_per_cycle;   /* > 0 */
    double dma_setup_cycles;      /* >= 0, per transfer */
    double macs_per_cycle_f32;    /* > 0 */
    double macs_per_cycle_int8;   /* > 0 */
    double elementwise_per_cycle; /* > 0 */
    double launch_cycles;         /* >= 0, fixed cost of every compute command */
} dsp_config;

/* A transfer's token: its number, 1 for the first transfer after dsp_init. */
typedef int64_t dsp_token;

typedef struct dsp_counters {
    uint64_t bytes_to_device, bytes_to_host, transfers, accel_ops, cycles;
} dsp_counters;

/* ---- device, transfers, counters (as npu_*) --------------------------------------- */

/* (Re)initializes the device; 0, or non-zero after one line on stderr. */
int dsp_init(const dsp_config *cfg);

/* Base address of the scratchpad. */
void *dsp_spm(void);

/* Declares host memory the DMA engine (and, when shared, the compute engine) may touch. */
void dsp_register_host(const void *p, size_t bytes);

/* Frees the scratchpad. */
void dsp_shutdown(void);

/* Strided copies host -> scratchpad and back; see npu_dma_to_device. */
dsp_token dsp_dma_to_device(void *dst_spm, const void *src_host, size_t elem_bytes, int rank, const int64_t *shape,
                            const int64_t *dst_strides, const int64_t *src_strides);
dsp_token dsp_dma_to_host(void *dst_host, const void *src_spm, size_t elem_bytes, int rank, const int64_t *shape,
                          const int64_t *dst_strides, const int64_t *src_strides);

/* Waits for transfer t (and every earlier one). */
void dsp_dma_wait(dsp_token t);

/* Waits for everything issued. */
void dsp_sync(void);

/* The counters so far (cycles: completion time of everything issued). */
dsp_counters dsp_get_counters(void);

/* Writes the counters as JSON (keys as npu_write_counters_json); 0 on success. */
int dsp_write_counters_json(const char *path);

/* ---- compute --------------------------------------------------------------------- */

/* Fused activation on real values (see npu_act). */
typedef enum dsp_act { DSP_ACT_NONE = 0, DSP_ACT_RELU = 1, DSP_ACT_CLIP = 2 } dsp_act;

typedef enum dsp_qtype { DSP_I8 = 0, DSP_U8 = 1 } dsp_qtype;

/* y [m][n] = act(op(a) · op(b) + bias [n]); a stored [m][k] ([k][m] with transpose_a),
 * b stored [k][n] ([n][k] with transpose_b). Per-channel parameters along n. */
typedef struct dsp_matmul_params {
    int64_t m, k, n;
    int transpose_a, transpose_b;
    dsp_act act;
    float act_min, act_max;
    /* _s8 only */
    dsp_qtype x_dtype, w_dtype, y_dtype; /* x: a, w: b */
    int32_t input_zero_point;
    const int32_t *weight_zero_point; /* 1 or n entries; NULL = 0 */
    int64_t weight_zero_point_len;
    const float *in_scale; /* s_x * s_w[c]: 1 or n entries */
    int64_t in_scale_len;
    float out_scale;
    int32_t out_zero_point;
} dsp_matmul_params;

/* Cost: m*n*k MACs at macs_per_cycle_f32 / macs_per_cycle_int8. */
int dsp_matmul_f32(const float *a, const float *b, const float *bias, float *y, const dsp_matmul_params *p);
int dsp_matmul_s8(const void *a, const void *b, const int32_t *bias, void *y, const dsp_matmul_params *p);

/* Dense: x [m][k], weight [n][k] (matmul with transpose_a = 0, transpose_b = 1; the
 * params' transpose fields are ignored). */
int dsp_dense_f32(const float *x, const float *weight, const float *bias, float *y, const dsp_matmul_params *p);
int dsp_dense_s8(const void *x, const void *weight, const int32_t *bias, void *y, const dsp_matmul_params *p);

#ifdef __cplusplus
}
#endif

#endif /* ACC_DSP_H */
