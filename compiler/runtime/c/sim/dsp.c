/* dsp.c: the simulator behind dsp.h, a thin API layer over sim_core (one device). */
#include "dsp.h"

#include <stdio.h>
#include <stdlib.h>

#include "sim_core.h"

static sim_device *dsp_device;

/* The device, or a fatal error when dsp_init has not run. */
static sim_device *dev(const char *fn) {
    if (!dsp_device) {
        fprintf(stderr, "dsp: error: %s called before dsp_init\n", fn);
        exit(SIM_EXIT_STATUS);
    }
    return dsp_device;
}

int dsp_init(const dsp_config *cfg) {
    sim_destroy(dsp_device);
    dsp_device = NULL;
    if (!cfg) {
        fprintf(stderr, "dsp: error: dsp_init needs a configuration\n");
        return 1;
    }
    sim_config c = {cfg->spm_bytes, cfg->alignment, cfg->shared_with_host, cfg->dma_bytes_per_cycle,
                    cfg->dma_setup_cycles, cfg->macs_per_cycle_f32, cfg->macs_per_cycle_int8,
                    cfg->elementwise_per_cycle, cfg->launch_cycles};
    dsp_device = sim_create("dsp", &c);
    return dsp_device ? 0 : 1;
}

void *dsp_spm(void) { return sim_spm(dev("dsp_spm")); }

void dsp_register_host(const void *p, size_t bytes) { sim_register_host(dev("dsp_register_host"), p, bytes); }

void dsp_shutdown(void) {
    sim_destroy(dsp_device);
    dsp_device = NULL;
}

dsp_token dsp_dma_to_device(void *dst_spm, const void *src_host, size_t elem_bytes, int rank, const int64_t *shape,
                            const int64_t *dst_strides, const int64_t *src_strides) {
    return sim_dma(dev("dsp_dma_to_device"), SIM_TO_DEVICE, dst_spm, src_host, elem_bytes, rank, shape, dst_strides,
                   src_strides);
}

dsp_token dsp_dma_to_host(void *dst_host, const void *src_spm, size_t elem_bytes, int rank, const int64_t *shape,
                          const int64_t *dst_strides, const int64_t *src_strides) {
    return sim_dma(dev("dsp_dma_to_host"), SIM_TO_HOST, dst_host, src_spm, elem_bytes, rank, shape, dst_strides,
                   src_strides);
}

void dsp_dma_wait(dsp_token t) { sim_dma_wait(dev("dsp_dma_wait"), t); }

void dsp_sync(void) { sim_sync(dev("dsp_sync")); }

dsp_counters dsp_get_counters(void) {
    sim_counters c = sim_get_counters(dev("dsp_get_counters"));
    dsp_counters r = {c.bytes_to_device, c.bytes_to_host, c.transfers, c.accel_ops, c.cycles};
    return r;
}

int dsp_write_counters_json(const char *path) { return sim_write_counters_json(dev("dsp_write_counters_json"), path); }

/* ---- compute --------------------------------------------------------------------- */

static sim_act act_of(const dsp_matmul_params *p) {
    sim_act a = {p->act == DSP_ACT_RELU ? SIM_ACT_RELU : p->act == DSP_ACT_CLIP ? SIM_ACT_CLIP : SIM_ACT_NONE,
                 p->act_min, p->act_max};
    return a;
}

static sim_quant quant_of(const dsp_matmul_params *p) {
    sim_quant q = {p->x_dtype == DSP_U8, p->w_dtype == DSP_U8, p->y_dtype == DSP_U8, p->input_zero_point,
                   p->weight_zero_point, p->weight_zero_point_len, p->in_scale, p->in_scale_len, p->out_scale,
                   p->out_zero_point};
    return q;
}

static int no_params(const char *fn) {
    fprintf(stderr, "dsp: error: %s: no parameters\n", fn);
    return DSP_EINVAL;
}

/* A matmul command; dense forces the dense layout. */
static int matmul(const char *fn, int quantized, int dense, const void *a, const void *b, const void *bias, void *y,
                  const dsp_matmul_params *p) {
    sim_device *d = dev(fn);
    if (!p) return no_params(fn);
    sim_act act = act_of(p);
    int ta = dense ? 0 : p->transpose_a, tb = dense ? 1 : p->transpose_b;
    if (!quantized) return sim_matmul_f32(d, fn, a, b, bias, y, p->m, p->k, p->n, ta, tb, &act);
    sim_quant q = quant_of(p);
    return sim_matmul_q8(d, fn, a, b, bias, y, p->m, p->k, p->n, ta, tb, &q, &act);
}

int dsp_matmul_f32(const float *a, const float *b, const float *bias, float *y, const dsp_matmul_params *p) {
    return matmul("dsp_matmul_f32", 0, 0, a, b, bias, y, p);
}

int dsp_matmul_s8(const void *a, const void *b, const int32_t *bias, void *y, const dsp_matmul_params *p) {
    return matmul("dsp_matmul_s8", 1, 0, a, b, bias, y, p);
}

int dsp_dense_f32(const float *x, const float *weight, const float *bias, float *y, const dsp_matmul_params *p) {
    return matmul("dsp_dense_f32", 0, 1, x, weight, bias, y, p);
}

int dsp_dense_s8(const void *x, const void *weight, const int32_t *bias, void *y, const dsp_matmul_params *p) {
    return matmul("dsp_dense_s8", 1, 1, x, weight, bias, y, p);
}
