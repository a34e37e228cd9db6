/* sim_core: the generic part of accel's accelerator simulators.
 *
 * A target's C library (npu.c, dsp.c, or a vendor's own) keeps one `sim_device` and
 * implements its vendor API on top of this core, which owns:
 *
 * - the scratchpad: the only memory the device computes on (unless the target shares
 *   host memory), allocated at init and filled with 0xFF bytes (NaN as float), so
 *   computing on data that was never transferred gives visibly wrong results;
 * - the registered host ranges the DMA engine (and, when shared, the compute engine)
 *   may touch;
 * - range checks: every byte a transfer or a compute op touches is checked BEFORE any
 *   is touched; a violation prints ONE line `<name>: error: <what> (<where>)` to stderr
 *   and exits with status 3, so a bad program never corrupts memory;
 * - the hazard check: a compute op that reads (or overwrites) scratchpad bytes written
 *   by a transfer whose token was never waited for is an error, even though the
 *   sequential simulation would show the right values (exact to the byte: tiles of one
 *   buffer may share a block);
 * - the two-engine timeline and the counters (see sim_compute / sim_dma), and their
 *   JSON form;
 * - reusable command bodies (conv2d, matmul, pool2d, eltwise; float and 8-bit
 *   quantized) computing with the host kernels, so a target library is a thin layer
 *   translating its vendor structs (see npu.c, dsp.c).
 *
 * Functional effects happen at call time in program order (the simulator is
 * sequential); only the timeline models concurrency.
 *
 * Timeline (times in cycles, as doubles; the counters report the rounded value):
 * the host issues commands in program order at its current time `host`, which only
 * advances at sim_dma_wait / sim_sync (to the awaited completion). Scratchpad
 * readiness is tracked per block (the alignment, capped at 64 bytes): `ready` = when
 * the last write of the block completes, `reads_end` = when its pending reads end.
 * - a transfer starts at max(host, DMA engine free, ready of the scratchpad blocks it
 *   reads [to host, on device], reads_end of the scratchpad blocks it writes [to device,
 *   on device: WAR]) and takes dma_setup_cycles + bytes / dma_bytes_per_cycle (a copy
 *   on the device: bytes / device_bytes_per_cycle);
 * - a compute op starts at max(host, compute engine free, ready of every block it
 *   reads, reads_end of every block it writes [WAR]) and takes the cost its library
 *   passes (sim_cost: launch_cycles + work / throughput);
 * - `cycles` is the completion time of everything issued (= host time after a sync),
 *   rounded half to even.
 * Host memory is not tracked (each engine is in order; the host synchronizes).
 */
#ifndef ACC_SIM_CORE_H
#define ACC_SIM_CORE_H

#include <stddef.h>
#include <stdint.h>

#include "../host_kernels.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Exit status of every simulator error (bad transfer, bad operand, missing wait). */
#define SIM_EXIT_STATUS 3

/* Device configuration; the field meanings are those of npu_config (npu.h). */
typedef struct sim_config {
    size_t spm_bytes;
    size_t alignment;
    int shared_with_host;
    double dma_bytes_per_cycle;
    double dma_setup_cycles;
    double macs_per_cycle_f32;
    double macs_per_cycle_int8;
    double elementwise_per_cycle;
    double launch_cycles;
} sim_config;

/* What the device did so far (see the timeline above for `cycles`). */
typedef struct sim_counters {
    uint64_t bytes_to_device; /* bytes copied host -> scratchpad */
    uint64_t bytes_to_host;   /* bytes copied scratchpad -> host */
    uint64_t transfers;       /* DMA commands issued */
    uint64_t accel_ops;       /* compute commands issued */
    uint64_t cycles;          /* rounded completion time of everything issued */
    uint64_t bytes_on_device; /* bytes copied scratchpad -> scratchpad (SIM_ON_DEVICE) */
} sim_counters;

typedef struct sim_device sim_device;

/* Creates a device called `name` (the prefix of its messages, e.g. "npu"). Returns
 * NULL after printing one line to stderr when the configuration is invalid (sizes or
 * throughputs not positive, alignment not a power of two) or memory runs out. An
 * alignment of 0 means 64. */
sim_device *sim_create(const char *name, const sim_config *cfg);

/* Sets the rate of copies within the scratchpad (SIM_ON_DEVICE), in bytes per cycle;
 * until then (or with 0) they move at dma_bytes_per_cycle. Returns 0, or non-zero after
 * one line on stderr when the rate is negative or not finite. */
int sim_set_device_bytes_per_cycle(sim_device *d, double bytes_per_cycle);

/* Frees the device and its scratchpad (NULL is ignored). */
void sim_destroy(sim_device *d);

/* Base and size of the scratchpad. */
void *sim_spm(const sim_device *d);
size_t sim_spm_bytes(const sim_device *d);

/* Declares [p, p + bytes) as host memory the device may reach. Registering the same
 * base again keeps the larger size; bytes == 0 or p == NULL is ignored. */
void sim_register_host(sim_device *d, const void *p, size_t bytes);

/* Prints `<name>: error: <formatted message>` as one line to stderr and exits with
 * SIM_EXIT_STATUS. For target libraries' own fatal checks. */
void sim_fail(const sim_device *d, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3), noreturn))
#endif
    ;

/* Prints `<name>: error: <formatted message>` as one line to stderr (not fatal). */
void sim_report(const sim_device *d, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

typedef enum sim_direction { SIM_TO_DEVICE = 0, SIM_TO_HOST = 1, SIM_ON_DEVICE = 2 } sim_direction;

/* A strided N-D copy between host memory and the scratchpad; returns its token (the
 * transfer's number, 1, 2, ...). rank is 1..4; shape[i] >= 0; strides are in
 * ELEMENTS (any sign) for each side; elem_bytes is 1..64. For SIM_TO_DEVICE dst lies
 * in the scratchpad and src in registered host memory; for SIM_TO_HOST the reverse;
 * for SIM_ON_DEVICE both lie in the scratchpad and must not overlap (a device copy: it
 * runs on the DMA engine like the others, at device_bytes_per_cycle, counted in
 * bytes_on_device; its destination must be waited for like a transfer to the device).
 * Every touched byte is checked first (fatal error otherwise: "(dma #N, ...)"). */
int64_t sim_dma(sim_device *d, sim_direction dir, void *dst, const void *src, size_t elem_bytes, int rank,
                const int64_t *shape, const int64_t *dst_strides, const int64_t *src_strides);

/* The host waits for transfer `token` (and so for every earlier one: the DMA engine
 * is in order). Waiting for a token never issued is a fatal error. */
void sim_dma_wait(sim_device *d, int64_t token);

/* The host waits for everything issued (transfers and compute). */
void sim_sync(sim_device *d);

/* One operand of a compute command: `bytes` contiguous bytes at `ptr` (NULL/0: absent). */
typedef struct sim_operand {
    const char *name; /* for messages: "x", "weight", ... */
    const void *ptr;
    size_t bytes;
} sim_operand;

/* Work units of sim_cost. */
typedef enum sim_work { SIM_MACS_F32 = 0, SIM_MACS_INT8 = 1, SIM_ELEMENTS = 2 } sim_work;

/* launch_cycles + work / (the configured throughput for `kind`). */
double sim_cost(const sim_device *d, double work, sim_work kind);

/* Admits one compute command `op` (its API name, for messages) BEFORE it touches
 * memory: every operand must lie in the scratchpad (or, with shared_with_host, in
 * registered host memory); no write may overlap a read unless `in_place` allows the
 * exact same range; no scratchpad read or write may hit bytes written by a transfer
 * that was not waited for. Any violation is fatal. Then schedules the command on the
 * compute engine for `cycles` and counts it. */
void sim_compute(sim_device *d, const char *op, const sim_operand *reads, int n_reads, const sim_operand *writes,
                 int n_writes, int in_place, double cycles);

/* The counters so far; cycles is the rounded completion time of everything issued. */
sim_counters sim_get_counters(const sim_device *d);

/* Writes the counters as one JSON object with exactly the keys bytes_to_device,
 * bytes_to_host, transfers, accel_ops, cycles, bytes_on_device. Returns 0, or non-zero (with a
 * message) when the file cannot be written. */
int sim_write_counters_json(const sim_device *d, const char *path);

/* ---------------------------------------------------------------------------------
 * Epilogues shared by target libraries (pure functions, no device state)
 * --------------------------------------------------------------------------------- */

typedef enum sim_act_kind { SIM_ACT_NONE = 0, SIM_ACT_RELU = 1, SIM_ACT_CLIP = 2 } sim_act_kind;

/* A fused activation on real (float) values: relu = max(v, 0), clip = min(max(v, lo),
 * hi); NaN stays NaN (relay.nn.relu / relay.clip on float). */
typedef struct sim_act {
    sim_act_kind kind;
    float min, max;
} sim_act;

/* Applies `act` to n floats in place. */
void sim_act_f32(float *y, int64_t n, const sim_act *act);

/* Applies `act` to one float. */
float sim_act_value(float v, const sim_act *act);

/* Quantizes one real value like relay.qnn.quantize into the 8-bit type (is_unsigned:
 * uint8, else int8): saturate(round_half_even(v / scale) + zero_point), NaN -> zp. */
int32_t sim_quantize8(float v, float scale, int32_t zero_point, int is_unsigned);

/* The int8 epilogue of conv/matmul: for int32 accumulators laid out
 * [outer][channels][inner], y = quantize8(act(f32(acc) * in_scale[c]), out_scale,
 * out_zero_point) into 8-bit outputs. in_scale has 1 or `channels` entries. */
void sim_requantize_acc(const int32_t *acc, void *y, int y_unsigned, int64_t outer, int64_t channels,
                        int64_t inner, const float *in_scale, int64_t in_scale_len, float out_scale,
                        int32_t out_zero_point, const sim_act *act);

/* ---------------------------------------------------------------------------------
 * Command bodies: a target library's compute commands in one call each. Every body
 * validates its parameters (one line + return 1 when inconsistent), admits the
 * command with sim_compute (operand checks, timeline, counters: cost = sim_cost of
 * the MACs or elements), then computes with the host kernels. `op` is the API name
 * used in messages. Return: 0, 1 (bad parameters) or 2 (int32 accumulator overflow).
 * --------------------------------------------------------------------------------- */

/* 8-bit quantization of a conv / matmul command (see npu.h for the arithmetic). */
typedef struct sim_quant {
    int x_unsigned, w_unsigned, y_unsigned; /* uint8 when set, else int8 */
    int32_t x_zero_point;
    const int32_t *w_zero_point; /* 1 or channels entries; NULL = 0 */
    int64_t w_zero_point_len;
    const float *in_scale; /* 1 or channels entries */
    int64_t in_scale_len;
    float out_scale;
    int32_t out_zero_point;
} sim_quant;

/* y = act(conv2d(x, w) + bias); bias NULL or [oc]. */
int sim_conv2d_f32(sim_device *d, const char *op, const float *x, const float *w, const float *bias, float *y,
                   const acc_conv2d_params *p, const sim_act *act);

/* The quantized convolution; bias NULL or [oc] int32. */
int sim_conv2d_q8(sim_device *d, const char *op, const void *x, const void *w, const int32_t *bias, void *y,
                  const acc_conv2d_params *p, const sim_quant *q, const sim_act *act);

/* y [m][n] = act(op(a) · op(b) + bias): a stored [m][k] ([k][m] when ta), b stored
 * [k][n] ([n][k] when tb); bias NULL or [n]. */
int sim_matmul_f32(sim_device *d, const char *op, const float *a, const float *b, const float *bias, float *y,
                   int64_t m, int64_t k, int64_t n, int ta, int tb, const sim_act *act);

/* The quantized matrix product; per-channel parameters along n. */
int sim_matmul_q8(sim_device *d, const char *op, const void *a, const void *b, const int32_t *bias, void *y,
                  int64_t m, int64_t k, int64_t n, int ta, int tb, const sim_quant *q, const sim_act *act);

/* The same for `batch` (>= 1) products of matrices stored one after the other in a, b
 * and y (the bias and quantization parameters shared). Cost: batch*m*n*k MACs, one
 * launch. */
int sim_batch_matmul_f32(sim_device *d, const char *op, const float *a, const float *b, const float *bias, float *y,
                         int64_t batch, int64_t m, int64_t k, int64_t n, int ta, int tb, const sim_act *act);
/* sim_batch_matmul_f32 that, with `accumulate`, adds the products to what y holds before
 * the bias and activation: y = act(y + op(a) · op(b) + bias); y is then read as well
 * (batch*m*n more elementwise work). */
int sim_batch_matmul_acc_f32(sim_device *d, const char *op, const float *a, const float *b, const float *bias, float *y,
                             int64_t batch, int64_t m, int64_t k, int64_t n, int ta, int tb, int accumulate,
                             const sim_act *act);
int sim_batch_matmul_q8(sim_device *d, const char *op, const void *a, const void *b, const int32_t *bias, void *y,
                        int64_t batch, int64_t m, int64_t k, int64_t n, int ta, int tb, const sim_quant *q,
                        const sim_act *act);

/* Max (is_max) or average pooling with the reference's semantics. */
int sim_pool2d_f32(sim_device *d, const char *op, const float *x, float *y, int is_max, const acc_pool2d_params *p);

/* y = quantize(pool(dequantize(x))) with per-tensor parameters. */
int sim_pool2d_q8(sim_device *d, const char *op, const void *x, void *y, int is_max, const acc_pool2d_params *p,
                  int x_unsigned, float in_scale, int32_t in_zero_point, int y_unsigned, float out_scale,
                  int32_t out_zero_point);

typedef enum sim_eltwise_kind {
    SIM_ADD = 0, SIM_MUL = 1, SIM_RELU = 2, SIM_CLIP = 3, SIM_SUB = 4, SIM_DIV = 5,
    SIM_SIGMOID = 6, SIM_TANH = 7, SIM_GELU = 8, SIM_SILU = 9, /* gelu: x/2 (1 + erf(x / sqrt 2)) */
    SIM_GELU_TANH = 10, /* x/2 (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))) */
    SIM_SQRT = 11, SIM_EXP = 12, SIM_LOG = 13
} sim_eltwise_kind;

/* y = act(a + b | a * b | relu(a) | clip(a, clip_min, clip_max) | ...) over `count` elements;
 * y may be exactly a or b. */
int sim_eltwise_f32(sim_device *d, const char *op, sim_eltwise_kind kind, const float *a, const float *b, float *y,
                    int64_t count, float clip_min, float clip_max, const sim_act *act);

/* The same with b broadcast: b holds b_count elements (1: a scalar; a divisor of count:
 * the trailing dims of a, repeated), element i reads b[i % b_count]. */
int sim_eltwise_bcast_f32(sim_device *d, const char *op, sim_eltwise_kind kind, const float *a, const float *b,
                          float *y, int64_t count, int64_t b_count, float clip_min, float clip_max, const sim_act *act);

typedef enum sim_row_kind { SIM_SOFTMAX = 0, SIM_LAYER_NORM = 1, SIM_RMS_NORM = 2 } sim_row_kind;

#define SIM_ROW_PASSES 3 /* a row op reads its row three times: max/mean, sum/variance, output */
#define SIM_RMS_PASSES 2 /* an RMS norm twice: the sum of squares, output */

/* Row ops over the last axis: x and y hold `rows` rows of `n`. Softmax: exp(x - max) /
 * sum; layer norm: (x - mean) / sqrt(var + eps) * gamma + beta (gamma, beta [n], NULL = 1
 * and 0); RMS norm: x / sqrt(mean(x * x) + eps) * gamma (beta unused). Cost:
 * SIM_ROW_PASSES (an RMS norm: SIM_RMS_PASSES) * rows * n elementwise units. */
int sim_rows_f32(sim_device *d, const char *op, sim_row_kind kind, const float *x, const float *gamma,
                 const float *beta, float *y, int64_t rows, int64_t n, float eps);

/* Parameters of a quantized elementwise command. */
typedef struct sim_qeltwise {
    int a_unsigned, b_unsigned, y_unsigned;
    float a_scale, b_scale, y_scale;
    int32_t a_zero_point, b_zero_point, y_zero_point;
} sim_qeltwise;

/* A row op on 8-bit data: each row dequantized (a_*), computed in float as sim_rows_f32
 * does, quantized (y_*); gamma and beta stay float. y may be exactly x. */
int sim_rows_q8(sim_device *d, const char *op, sim_row_kind kind, const void *x, const float *gamma,
                const float *beta, void *y, int64_t rows, int64_t n, float eps, const sim_qeltwise *q);

/* f32 -> 8-bit (`quantize`: round half to even, saturated) or 8-bit -> f32 of `count`
 * elements, one scale and zero point; x and y may not overlap. */
int sim_convert(sim_device *d, const char *op, int quantize, const void *x, void *y, int64_t count, int is_unsigned,
                float scale, int32_t zero_point);

/* The same on dequantized inputs, quantized output (SIM_ADD is relay.qnn.add). */
int sim_eltwise_q8(sim_device *d, const char *op, sim_eltwise_kind kind, const void *a, const void *b, void *y,
                   int64_t count, float clip_min, float clip_max, const sim_qeltwise *q, const sim_act *act);
/* y[i] = table[the byte of x[i]] for `count` 8-bit elements (a 256-entry table of the
   output's values: what an int8 activation is); cost: count elementwise units. */
int sim_lookup_q8(sim_device *d, const char *op, const void *x, void *y, int64_t count, const int32_t *table,
                  int y_unsigned);
/* sim_eltwise_q8 whose binary rhs has `b_count` elements, repeated along the lhs (a
   broadcast of the trailing dims, as sim_eltwise_bcast_f32). */
int sim_eltwise_bcast_q8(sim_device *d, const char *op, sim_eltwise_kind kind, const void *a, const void *b, void *y,
                         int64_t count, int64_t b_count, float clip_min, float clip_max, const sim_qeltwise *q,
                         const sim_act *act);

#ifdef __cplusplus
}
#endif

#endif /* ACC_SIM_CORE_H */
