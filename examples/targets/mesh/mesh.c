/* mesh.c: the Mesh NPU simulated on accel's simulator core (sim_core.h): one device, its
 * TCM as the scratchpad, commands translated into the core's operations. */
#include "mesh.h"

#include <stdio.h>
#include <stdlib.h>

#include "sim_core.h"

static sim_device *mesh_device;

static sim_device *dev(const char *fn) {
    if (!mesh_device) {
        fprintf(stderr, "mesh: error: %s called before mesh_open\n", fn);
        exit(SIM_EXIT_STATUS);
    }
    return mesh_device;
}

int mesh_open(const mesh_setup *s) {
    sim_destroy(mesh_device);
    mesh_device = NULL;
    if (!s) {
        fprintf(stderr, "mesh: error: mesh_open needs a setup\n");
        return 1;
    }
    sim_config c = {s->tcm_bytes, s->tcm_align, 0, s->link_bytes_per_cycle, s->link_latency,
                    s->fp_macs_per_cycle, s->q8_macs_per_cycle, s->vector_lanes, 0.0};
    mesh_device = sim_create("mesh", &c);
    return mesh_device ? 0 : 1;
}

void mesh_close(void) {
    sim_destroy(mesh_device);
    mesh_device = NULL;
}

void *mesh_tcm_base(void) { return sim_spm(dev("mesh_tcm_base")); }

void mesh_pin(const void *host, size_t bytes) { sim_register_host(dev("mesh_pin"), host, bytes); }

mesh_ticket mesh_load(const void *ddr_src, void *tcm_dst, int32_t rank, const int64_t *dims, const int64_t *src_pitch,
                      const int64_t *dst_pitch, uint32_t elem_size) {
    return (mesh_ticket)sim_dma(dev("mesh_load"), SIM_TO_DEVICE, tcm_dst, ddr_src, elem_size, rank, dims, dst_pitch,
                                src_pitch);
}

mesh_ticket mesh_store(const void *tcm_src, void *ddr_dst, int32_t rank, const int64_t *dims, const int64_t *src_pitch,
                       const int64_t *dst_pitch, uint32_t elem_size) {
    return (mesh_ticket)sim_dma(dev("mesh_store"), SIM_TO_HOST, ddr_dst, tcm_src, elem_size, rank, dims, dst_pitch,
                                src_pitch);
}

void mesh_await(mesh_ticket t) { sim_dma_wait(dev("mesh_await"), t); }

void mesh_fence(void) { sim_sync(dev("mesh_fence")); }

int mesh_dump_stats(const char *json_path) { return sim_write_counters_json(dev("mesh_dump_stats"), json_path); }

/* ---- descriptor translation ------------------------------------------------------ */

static sim_act act_of(mesh_act_mode mode, float lo, float hi) {
    sim_act a = {mode == MESH_RECTIFY ? SIM_ACT_RELU : mode == MESH_CLAMP ? SIM_ACT_CLIP : SIM_ACT_NONE, lo, hi};
    return a;
}

static acc_conv2d_params conv_of(const mesh_conv_desc *d) {
    acc_conv2d_params c = {d->batch, d->in_ch, d->in_h, d->in_w, d->out_ch, d->k_h, d->k_w, d->out_h, d->out_w,
                           d->step_h, d->step_w, d->pad_t, d->pad_l, d->pad_b, d->pad_r, d->dil_h, d->dil_w,
                           d->groups};
    return c;
}

static sim_quant quant_of(const mesh_quant *q) {
    sim_quant s = {q->in_elem == MESH_U8, q->w_elem == MESH_U8, q->out_elem == MESH_U8, q->in_zp, q->w_zp,
                   q->w_zp_count, q->acc_scale, q->acc_scale_count, q->out_scale, q->out_zp};
    return s;
}

static acc_pool2d_params pool_of(const mesh_pool_desc *d) {
    acc_pool2d_params c = {d->batch, d->ch, d->in_h, d->in_w, d->out_h, d->out_w, d->k_h, d->k_w, d->step_h,
                           d->step_w, d->dil_h, d->dil_w, d->pad_t, d->pad_l, d->pad_b, d->pad_r, d->count_pad};
    return c;
}

static int missing(const char *fn) {
    fprintf(stderr, "mesh: error: %s: missing descriptor\n", fn);
    return 1;
}

static sim_eltwise_kind vop_of(mesh_vop op) {
    switch (op) {
    case MESH_VADD: return SIM_ADD;
    case MESH_VMUL: return SIM_MUL;
    case MESH_VMAX0: return SIM_RELU;
    case MESH_VCLAMP: return SIM_CLIP;
    }
    return (sim_eltwise_kind)-1;
}

/* ---- commands ---------------------------------------------------------------------- */

int mesh_conv(const mesh_conv_desc *d, const float *ifm, const float *filter, const float *bias, float *ofm) {
    sim_device *s = dev("mesh_conv");
    if (!d) return missing("mesh_conv");
    acc_conv2d_params c = conv_of(d);
    sim_act a = act_of(d->mode, d->lo, d->hi);
    return sim_conv2d_f32(s, "mesh_conv", ifm, filter, bias, ofm, &c, &a);
}

int mesh_conv_q(const mesh_conv_desc *d, const mesh_quant *q, const void *ifm, const void *filter,
                const int32_t *bias, void *ofm) {
    sim_device *s = dev("mesh_conv_q");
    if (!d || !q) return missing("mesh_conv_q");
    acc_conv2d_params c = conv_of(d);
    sim_quant sq = quant_of(q);
    sim_act a = act_of(d->mode, d->lo, d->hi);
    return sim_conv2d_q8(s, "mesh_conv_q", ifm, filter, bias, ofm, &c, &sq, &a);
}

int mesh_fc(const mesh_fc_desc *d, const float *in, const float *weight, const float *bias, float *out) {
    sim_device *s = dev("mesh_fc");
    if (!d) return missing("mesh_fc");
    sim_act a = act_of(d->mode, d->lo, d->hi);
    return sim_matmul_f32(s, "mesh_fc", in, weight, bias, out, d->rows, d->depth, d->cols, 0, 1, &a);
}

int mesh_fc_q(const mesh_fc_desc *d, const mesh_quant *q, const void *in, const void *weight, const int32_t *bias,
              void *out) {
    sim_device *s = dev("mesh_fc_q");
    if (!d || !q) return missing("mesh_fc_q");
    sim_quant sq = quant_of(q);
    sim_act a = act_of(d->mode, d->lo, d->hi);
    return sim_matmul_q8(s, "mesh_fc_q", in, weight, bias, out, d->rows, d->depth, d->cols, 0, 1, &sq, &a);
}

int mesh_pool(const mesh_pool_desc *d, const float *ifm, float *ofm) {
    sim_device *s = dev("mesh_pool");
    if (!d) return missing("mesh_pool");
    acc_pool2d_params c = pool_of(d);
    return sim_pool2d_f32(s, "mesh_pool", ifm, ofm, d->kind == MESH_MAX, &c);
}

int mesh_pool_q(const mesh_pool_desc *d, const mesh_pool_quant *q, const void *ifm, void *ofm) {
    sim_device *s = dev("mesh_pool_q");
    if (!d || !q) return missing("mesh_pool_q");
    acc_pool2d_params c = pool_of(d);
    return sim_pool2d_q8(s, "mesh_pool_q", ifm, ofm, d->kind == MESH_MAX, &c, q->in_elem == MESH_U8, q->in_scale, q->in_zp,
                         q->out_elem == MESH_U8, q->out_scale, q->out_zp);
}

int mesh_vec(const mesh_vec_desc *d, const float *a, const float *b, float *out) {
    sim_device *s = dev("mesh_vec");
    if (!d) return missing("mesh_vec");
    sim_act act = act_of(d->mode, d->lo, d->hi);
    return sim_eltwise_f32(s, "mesh_vec", vop_of(d->op), a, b, out, d->length, d->lo, d->hi, &act);
}

int mesh_vec_q(const mesh_vec_desc *d, const mesh_vec_quant *q, const void *a, const void *b, void *out) {
    sim_device *s = dev("mesh_vec_q");
    if (!d || !q) return missing("mesh_vec_q");
    sim_act act = act_of(d->mode, d->lo, d->hi);
    sim_qeltwise sq = {q->a_elem == MESH_U8, q->b_elem == MESH_U8, q->out_elem == MESH_U8,
                       q->a_scale, q->b_scale, q->out_scale, q->a_zp, q->b_zp, q->out_zp};
    return sim_eltwise_q8(s, "mesh_vec_q", vop_of(d->op), a, b, out, d->length, d->lo, d->hi, &sq, &act);
}
