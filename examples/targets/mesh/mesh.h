/* mesh.h: the driver API of the Mesh NPU, a vendor accelerator written outside the accel
 * compiler. Its conventions differ from accel's built-in npu on purpose: descriptors come
 * first, the DMA takes (source, destination) and pitches in that order with the element size
 * last, the activation and padding fields have their own names and order, and int8 commands
 * take the quantization in a second descriptor. The accel description (mesh.toml) declares
 * all of it; nothing in the compiler knows this header.
 *
 * The library behind it (mesh.c) simulates the device on accel's simulator core: it computes
 * only on its tightly coupled memory (TCM), rejects out-of-range transfers, and counts bytes,
 * transfers, commands and cycles. */
#ifndef MESH_H
#define MESH_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct mesh_setup {
    uint32_t tcm_bytes;        /* TCM size */
    uint32_t tcm_align;        /* power of two */
    float link_bytes_per_cycle; /* DMA bandwidth */
    float link_latency;        /* cycles per transfer */
    float fp_macs_per_cycle;
    float q8_macs_per_cycle;
    float vector_lanes;        /* elementwise work per cycle */
} mesh_setup;

typedef int32_t mesh_ticket;

int mesh_open(const mesh_setup *setup);
void mesh_close(void);
void *mesh_tcm_base(void);
/* Pins host memory for the DMA link; transfers outside pinned memory are faults. */
void mesh_pin(const void *host, size_t bytes);

/* Strided copies between DDR and the TCM; pitches in elements, outermost first. */
mesh_ticket mesh_load(const void *ddr_src, void *tcm_dst, int32_t rank, const int64_t *dims,
                      const int64_t *src_pitch, const int64_t *dst_pitch, uint32_t elem_size);
mesh_ticket mesh_store(const void *tcm_src, void *ddr_dst, int32_t rank, const int64_t *dims,
                       const int64_t *src_pitch, const int64_t *dst_pitch, uint32_t elem_size);
void mesh_await(mesh_ticket t);
void mesh_fence(void);
int mesh_dump_stats(const char *json_path);

typedef enum mesh_act_mode { MESH_LINEAR = 0, MESH_RECTIFY = 1, MESH_CLAMP = 2 } mesh_act_mode;
typedef enum mesh_elem { MESH_S8 = 0, MESH_U8 = 1 } mesh_elem;

typedef struct mesh_conv_desc {
    int32_t batch, in_ch, in_h, in_w;
    int32_t out_ch, out_h, out_w;
    int32_t k_h, k_w, step_h, step_w, dil_h, dil_w;
    int32_t pad_t, pad_b, pad_l, pad_r; /* top, bottom, left, right */
    int32_t groups;
    mesh_act_mode mode;
    float lo, hi;
} mesh_conv_desc;

typedef struct mesh_quant {
    mesh_elem in_elem, w_elem, out_elem;
    int32_t in_zp;
    const int32_t *w_zp; /* 1 or out_ch entries */
    int32_t w_zp_count;
    const float *acc_scale; /* in_scale * w_scale[c]: 1 or out_ch entries */
    int32_t acc_scale_count;
    float out_scale;
    int32_t out_zp;
} mesh_quant;

int mesh_conv(const mesh_conv_desc *d, const float *ifm, const float *filter, const float *bias, float *ofm);
int mesh_conv_q(const mesh_conv_desc *d, const mesh_quant *q, const void *ifm, const void *filter,
                const int32_t *bias, void *ofm);

typedef struct mesh_fc_desc {
    int32_t rows, depth, cols; /* out[rows, cols] = in[rows, depth] x weight[cols, depth]^T */
    mesh_act_mode mode;
    float lo, hi;
} mesh_fc_desc;

int mesh_fc(const mesh_fc_desc *d, const float *in, const float *weight, const float *bias, float *out);
int mesh_fc_q(const mesh_fc_desc *d, const mesh_quant *q, const void *in, const void *weight, const int32_t *bias,
              void *out);

typedef enum mesh_pool_mode { MESH_MAX = 0, MESH_AVG = 1 } mesh_pool_mode;

typedef struct mesh_pool_desc {
    mesh_pool_mode kind;
    int32_t batch, ch, in_h, in_w, out_h, out_w;
    int32_t k_h, k_w, step_h, step_w, dil_h, dil_w;
    int32_t pad_t, pad_b, pad_l, pad_r;
    int32_t count_pad;
} mesh_pool_desc;

int mesh_pool(const mesh_pool_desc *d, const float *ifm, float *ofm);

typedef struct mesh_pool_quant {
    mesh_elem in_elem, out_elem;
    float in_scale, out_scale;
    int32_t in_zp, out_zp;
} mesh_pool_quant;

int mesh_pool_q(const mesh_pool_desc *d, const mesh_pool_quant *q, const void *ifm, void *ofm);

typedef enum mesh_vop { MESH_VADD = 0, MESH_VMUL = 1, MESH_VMAX0 = 2, MESH_VCLAMP = 3 } mesh_vop;

typedef struct mesh_vec_desc {
    mesh_vop op;
    int64_t length;
    mesh_act_mode mode; /* applied after op */
    float lo, hi;
} mesh_vec_desc;

int mesh_vec(const mesh_vec_desc *d, const float *a, const float *b, float *out);

typedef struct mesh_vec_quant {
    mesh_elem a_elem, b_elem, out_elem;
    float a_scale, b_scale, out_scale;
    int32_t a_zp, b_zp, out_zp;
} mesh_vec_quant;

int mesh_vec_q(const mesh_vec_desc *d, const mesh_vec_quant *q, const void *a, const void *b, void *out);

#ifdef __cplusplus
}
#endif

#endif /* MESH_H */
