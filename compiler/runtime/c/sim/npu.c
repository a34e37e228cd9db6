/* npu.c: the simulator behind npu.h, a thin API layer over sim_core (one device). */
#include "npu.h"

#include <stdio.h>
#include <stdlib.h>

#include "sim_core.h"

static sim_device *npu_device;
static npu_config npu_cfg;

/* The device, or a fatal error when npu_init has not run. */
static sim_device *dev(const char *fn) {
    if (!npu_device) {
        fprintf(stderr, "npu: error: %s called before npu_init\n", fn);
        exit(SIM_EXIT_STATUS);
    }
    return npu_device;
}

int npu_init(const npu_config *cfg) {
    sim_destroy(npu_device);
    npu_device = NULL;
    if (!cfg) {
        fprintf(stderr, "npu: error: npu_init needs a configuration\n");
        return 1;
    }
    sim_config c = {cfg->spm_bytes, cfg->alignment, cfg->shared_with_host, cfg->dma_bytes_per_cycle,
                    cfg->dma_setup_cycles, cfg->macs_per_cycle_f32, cfg->macs_per_cycle_int8,
                    cfg->elementwise_per_cycle, cfg->launch_cycles};
    npu_device = sim_create("npu", &c);
    if (npu_device && sim_set_device_bytes_per_cycle(npu_device, cfg->device_bytes_per_cycle) != 0) {
        sim_destroy(npu_device);
        npu_device = NULL;
    }
    if (npu_device) npu_cfg = *cfg;
    return npu_device ? 0 : 1;
}

const npu_config *npu_get_config(void) { return &npu_cfg; }

void *npu_spm(void) { return sim_spm(dev("npu_spm")); }

void npu_register_host(const void *p, size_t bytes) { sim_register_host(dev("npu_register_host"), p, bytes); }

void npu_shutdown(void) {
    sim_destroy(npu_device);
    npu_device = NULL;
}

npu_token npu_dma_to_device(void *dst_spm, const void *src_host, size_t elem_bytes, int rank, const int64_t *shape,
                            const int64_t *dst_strides, const int64_t *src_strides) {
    return sim_dma(dev("npu_dma_to_device"), SIM_TO_DEVICE, dst_spm, src_host, elem_bytes, rank, shape, dst_strides,
                   src_strides);
}

npu_token npu_dma_to_host(void *dst_host, const void *src_spm, size_t elem_bytes, int rank, const int64_t *shape,
                          const int64_t *dst_strides, const int64_t *src_strides) {
    return sim_dma(dev("npu_dma_to_host"), SIM_TO_HOST, dst_host, src_spm, elem_bytes, rank, shape, dst_strides,
                   src_strides);
}

npu_token npu_dma_on_device(void *dst_spm, const void *src_spm, size_t elem_bytes, int rank, const int64_t *shape,
                            const int64_t *dst_strides, const int64_t *src_strides) {
    return sim_dma(dev("npu_dma_on_device"), SIM_ON_DEVICE, dst_spm, src_spm, elem_bytes, rank, shape, dst_strides,
                   src_strides);
}

void npu_dma_wait(npu_token t) { sim_dma_wait(dev("npu_dma_wait"), t); }

void npu_sync(void) { sim_sync(dev("npu_sync")); }

npu_counters npu_get_counters(void) {
    sim_counters c = sim_get_counters(dev("npu_get_counters"));
    npu_counters r = {c.bytes_to_device, c.bytes_to_host, c.transfers, c.accel_ops, c.cycles, c.bytes_on_device};
    return r;
}

int npu_write_counters_json(const char *path) { return sim_write_counters_json(dev("npu_write_counters_json"), path); }

/* ---- parameter translation ------------------------------------------------------ */

static sim_act act_of(npu_act kind, float lo, float hi) {
    sim_act a = {kind == NPU_ACT_RELU ? SIM_ACT_RELU : kind == NPU_ACT_CLIP ? SIM_ACT_CLIP : SIM_ACT_NONE, lo, hi};
    return a;
}

static acc_conv2d_params conv_of(const npu_conv2d_params *p) {
    acc_conv2d_params c = {p->n, p->c, p->h, p->w, p->oc, p->kh, p->kw, p->oh, p->ow, p->stride_h, p->stride_w,
                           p->pad_top, p->pad_left, p->pad_bottom, p->pad_right, p->dil_h, p->dil_w, p->groups};
    return c;
}

#define QUANT_OF(P)                                                                                      \
    {(P)->x_dtype == NPU_U8, (P)->w_dtype == NPU_U8, (P)->y_dtype == NPU_U8, (P)->input_zero_point,       \
     (P)->weight_zero_point, (P)->weight_zero_point_len, (P)->in_scale, (P)->in_scale_len, (P)->out_scale, \
     (P)->out_zero_point}

static acc_pool2d_params pool_of(const npu_pool2d_params *p) {
    acc_pool2d_params c = {p->n, p->c, p->h, p->w, p->oh, p->ow, p->kh, p->kw, p->stride_h, p->stride_w,
                           p->dil_h, p->dil_w, p->pad_top, p->pad_left, p->pad_bottom, p->pad_right,
                           p->count_include_pad};
    return c;
}

/* A batched product's matrix count; 0 (a description that sets no batch) is one. */
static int64_t batch_of(const npu_matmul_params *p) { return p->batch ? p->batch : 1; }

static int no_params(const char *fn) {
    fprintf(stderr, "npu: error: %s: no parameters\n", fn);
    return NPU_EINVAL;
}

/* ---- compute --------------------------------------------------------------------- */

int npu_conv2d_f32(const float *x, const float *w, const float *bias, float *y, const npu_conv2d_params *p) {
    sim_device *d = dev("npu_conv2d_f32");
    if (!p) return no_params("npu_conv2d_f32");
    acc_conv2d_params c = conv_of(p);
    sim_act a = act_of(p->act, p->act_min, p->act_max);
    return sim_conv2d_f32(d, "npu_conv2d_f32", x, w, bias, y, &c, &a);
}

int npu_conv2d_s8(const void *x, const void *w, const int32_t *bias, void *y, const npu_conv2d_params *p) {
    sim_device *d = dev("npu_conv2d_s8");
    if (!p) return no_params("npu_conv2d_s8");
    acc_conv2d_params c = conv_of(p);
    sim_quant q = QUANT_OF(p);
    sim_act a = act_of(p->act, p->act_min, p->act_max);
    return sim_conv2d_q8(d, "npu_conv2d_s8", x, w, bias, y, &c, &q, &a);
}

int npu_matmul_f32(const float *a, const float *b, const float *bias, float *y, const npu_matmul_params *p) {
    sim_device *d = dev("npu_matmul_f32");
    if (!p) return no_params("npu_matmul_f32");
    sim_act act = act_of(p->act, p->act_min, p->act_max);
    return sim_batch_matmul_acc_f32(d, "npu_matmul_f32", a, b, bias, y, batch_of(p), p->m, p->k, p->n, p->transpose_a,
                                    p->transpose_b, p->accumulate, &act);
}

int npu_matmul_s8(const void *a, const void *b, const int32_t *bias, void *y, const npu_matmul_params *p) {
    sim_device *d = dev("npu_matmul_s8");
    if (!p) return no_params("npu_matmul_s8");
    if (p->accumulate) {
        fprintf(stderr, "npu: error: npu_matmul_s8: int8 products do not accumulate\n");
        return NPU_EINVAL;
    }
    sim_quant q = QUANT_OF(p);
    sim_act act = act_of(p->act, p->act_min, p->act_max);
    return sim_batch_matmul_q8(d, "npu_matmul_s8", a, b, bias, y, batch_of(p), p->m, p->k, p->n, p->transpose_a, p->transpose_b, &q,
                         &act);
}

int npu_dense_f32(const float *x, const float *weight, const float *bias, float *y, const npu_matmul_params *p) {
    sim_device *d = dev("npu_dense_f32");
    if (!p) return no_params("npu_dense_f32");
    sim_act act = act_of(p->act, p->act_min, p->act_max);
    return sim_matmul_f32(d, "npu_dense_f32", x, weight, bias, y, p->m, p->k, p->n, 0, 1, &act);
}

int npu_dense_s8(const void *x, const void *weight, const int32_t *bias, void *y, const npu_matmul_params *p) {
    sim_device *d = dev("npu_dense_s8");
    if (!p) return no_params("npu_dense_s8");
    sim_quant q = QUANT_OF(p);
    sim_act act = act_of(p->act, p->act_min, p->act_max);
    return sim_matmul_q8(d, "npu_dense_s8", x, weight, bias, y, p->m, p->k, p->n, 0, 1, &q, &act);
}

int npu_pool2d_f32(const float *x, float *y, const npu_pool2d_params *p) {
    sim_device *d = dev("npu_pool2d_f32");
    if (!p) return no_params("npu_pool2d_f32");
    acc_pool2d_params c = pool_of(p);
    return sim_pool2d_f32(d, "npu_pool2d_f32", x, y, p->kind == NPU_POOL_MAX, &c);
}

int npu_pool2d_s8(const void *x, void *y, const npu_pool2d_params *p) {
    sim_device *d = dev("npu_pool2d_s8");
    if (!p) return no_params("npu_pool2d_s8");
    acc_pool2d_params c = pool_of(p);
    return sim_pool2d_q8(d, "npu_pool2d_s8", x, y, p->kind == NPU_POOL_MAX, &c, p->x_dtype == NPU_U8, p->in_scale,
                         p->in_zero_point, p->y_dtype == NPU_U8, p->out_scale, p->out_zero_point);
}

static sim_eltwise_kind eltwise_of(npu_eltwise_kind k) {
    switch (k) {
    case NPU_ELTWISE_ADD: return SIM_ADD;
    case NPU_ELTWISE_MUL: return SIM_MUL;
    case NPU_ELTWISE_RELU: return SIM_RELU;
    case NPU_ELTWISE_CLIP: return SIM_CLIP;
    case NPU_ELTWISE_SUB: return SIM_SUB;
    case NPU_ELTWISE_DIV: return SIM_DIV;
    case NPU_ELTWISE_SIGMOID: return SIM_SIGMOID;
    case NPU_ELTWISE_TANH: return SIM_TANH;
    case NPU_ELTWISE_GELU: return SIM_GELU;
    case NPU_ELTWISE_SILU: return SIM_SILU;
    case NPU_ELTWISE_GELU_TANH: return SIM_GELU_TANH;
    case NPU_ELTWISE_SQRT: return SIM_SQRT;
    case NPU_ELTWISE_EXP: return SIM_EXP;
    case NPU_ELTWISE_LOG: return SIM_LOG;
    case NPU_ELTWISE_LUT: break; /* npu_eltwise_s8 looks up; no float kind computes it */
    }
    return (sim_eltwise_kind)-1;
}

int npu_eltwise_f32(const float *lhs, const float *rhs, float *y, const npu_eltwise_params *p) {
    sim_device *d = dev("npu_eltwise_f32");
    if (!p) return no_params("npu_eltwise_f32");
    sim_act act = act_of(p->act, p->act_min, p->act_max);
    int64_t rhs_count = p->rhs_count ? p->rhs_count : (p->count > 0 ? p->count : 1);
    return sim_eltwise_bcast_f32(d, "npu_eltwise_f32", eltwise_of(p->kind), lhs, rhs, y, p->count, rhs_count,
                                 p->act_min, p->act_max, &act);
}

int npu_eltwise_s8(const void *lhs, const void *rhs, void *y, const npu_eltwise_params *p) {
    sim_device *d = dev("npu_eltwise_s8");
    if (!p) return no_params("npu_eltwise_s8");
    if (p->kind == NPU_ELTWISE_LUT)
        return sim_lookup_q8(d, "npu_eltwise_s8", lhs, y, p->count, p->table, p->out_dtype == NPU_U8);
    sim_act act = act_of(p->act, p->act_min, p->act_max);
    sim_qeltwise q = {p->lhs_dtype == NPU_U8, p->rhs_dtype == NPU_U8, p->out_dtype == NPU_U8,
                      p->lhs_scale, p->rhs_scale, p->out_scale,
                      p->lhs_zero_point, p->rhs_zero_point, p->out_zero_point};
    int64_t rhs_count = p->rhs_count ? p->rhs_count : (p->count > 0 ? p->count : 1);
    return sim_eltwise_bcast_q8(d, "npu_eltwise_s8", eltwise_of(p->kind), lhs, rhs, y, p->count, rhs_count,
                                p->act_min, p->act_max, &q, &act);
}

static sim_row_kind row_kind_of(npu_row_kind k) {
    return k == NPU_ROW_SOFTMAX      ? SIM_SOFTMAX
           : k == NPU_ROW_LAYER_NORM ? SIM_LAYER_NORM
           : k == NPU_ROW_RMS_NORM   ? SIM_RMS_NORM
                                     : (sim_row_kind)-1;
}

int npu_rows_f32(const float *x, const float *gamma, const float *beta, float *y, const npu_rows_params *p) {
    sim_device *d = dev("npu_rows_f32");
    if (!p) return no_params("npu_rows_f32");
    int64_t rows = p->row_length > 0 ? p->count / p->row_length : -1;
    return sim_rows_f32(d, "npu_rows_f32", row_kind_of(p->kind), x, gamma, beta, y, rows, p->row_length, p->epsilon);
}

int npu_rows_s8(const void *x, const float *gamma, const float *beta, void *y, const npu_rows_params *p) {
    sim_device *d = dev("npu_rows_s8");
    if (!p) return no_params("npu_rows_s8");
    int64_t rows = p->row_length > 0 ? p->count / p->row_length : -1;
    sim_qeltwise q = {p->x_dtype == NPU_U8, 0, p->y_dtype == NPU_U8, p->x_scale, 1.0f, p->out_scale,
                      p->x_zero_point, 0, p->out_zero_point};
    return sim_rows_q8(d, "npu_rows_s8", row_kind_of(p->kind), x, gamma, beta, y, rows, p->row_length, p->epsilon, &q);
}

int npu_convert(const void *x, void *y, const npu_convert_params *p) {
    sim_device *d = dev("npu_convert");
    if (!p) return no_params("npu_convert");
    if (p->kind != NPU_QUANTIZE && p->kind != NPU_DEQUANTIZE) {
        sim_report(d, "npu_convert: unknown kind %d", (int)p->kind);
        return 1;
    }
    return sim_convert(d, "npu_convert", p->kind == NPU_QUANTIZE, x, y, p->count, p->dtype == NPU_U8, p->scale,
                       p->zero_point);
}
