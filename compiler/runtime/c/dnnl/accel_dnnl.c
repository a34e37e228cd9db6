/* accel's runtime for the `dnnl` target (see accel_dnnl.h). */
#include "accel_dnnl.h"

#include <math.h>
#include <oneapi/dnnl/dnnl_debug.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

dnnl_engine_t accel_dnnl_engine = NULL;
dnnl_stream_t accel_dnnl_stream = NULL;
static int accel_dnnl_users = 0;

/* oneDNN's OpenMP runtime (libdnnl links GNU OpenMP; the Makefile links -lgomp). */
extern void omp_set_num_threads(int threads);
extern int omp_get_max_threads(void);

int accel_dnnl_fail(accel_dnnl_region_t *r, const char *call, dnnl_status_t status) {
    fprintf(stderr, "dnnl: region %s, %s: %.*s failed: %s\n", r->name, r->what ? r->what : "setup",
            (int)strcspn(call, "("), call, dnnl_status2str(status));
    return 1;
}

static int grow(void **items, int *cap, int n, size_t size) {
    if (n < *cap) return 0;
    int next = *cap ? 2 * *cap : 16;
    void *p = realloc(*items, (size_t)next * size);
    if (!p) return 1;
    *items = p;
    *cap = next;
    return 0;
}

static int out_of_memory(accel_dnnl_region_t *r) {
    fprintf(stderr, "dnnl: region %s, %s: out of memory\n", r->name, r->what ? r->what : "setup");
    return 1;
}

int accel_dnnl_begin(accel_dnnl_region_t *r) {
    const dnnl_version_t *v = dnnl_version();
    if (v->major != DNNL_VERSION_MAJOR || v->minor < DNNL_VERSION_MINOR) {
        fprintf(stderr, "dnnl: region %s: built for oneDNN %d.%d, the loaded library is %d.%d.%d (install libdnnl-dev %d.%d)\n",
                r->name, DNNL_VERSION_MAJOR, DNNL_VERSION_MINOR, v->major, v->minor, v->patch, DNNL_VERSION_MAJOR,
                DNNL_VERSION_MINOR);
        return 1;
    }
    if (accel_dnnl_users == 0) {
        ACCEL_DNNL(r, dnnl_engine_create(&accel_dnnl_engine, dnnl_cpu, 0));
        ACCEL_DNNL(r, dnnl_stream_create(&accel_dnnl_stream, accel_dnnl_engine, dnnl_stream_default_flags));
    }
    accel_dnnl_users++;
    r->acquired = 1;
    r->threads = r->all_threads = omp_get_max_threads();
    return 0;
}

void accel_dnnl_end(accel_dnnl_region_t *r) {
    for (int i = 0; i < r->n_primitives; i++) dnnl_primitive_destroy(r->primitives[i]);
    for (int i = 0; i < r->n_memories; i++) dnnl_memory_destroy(r->memories[i]);
    for (int i = 0; i < r->n_execs; i++) free(r->execs[i].args);
    free(r->execs);
    free(r->primitives);
    free(r->memories);
    free(r->aliases);
    r->execs = NULL;
    r->primitives = NULL;
    r->memories = NULL;
    r->aliases = NULL;
    r->n_execs = r->cap_execs = r->n_primitives = r->cap_primitives = 0;
    r->n_memories = r->cap_memories = r->n_aliases = r->cap_aliases = r->pending = 0;
    if (r->acquired && --accel_dnnl_users == 0) {
        dnnl_stream_destroy(accel_dnnl_stream);
        dnnl_engine_destroy(accel_dnnl_engine);
        accel_dnnl_stream = NULL;
        accel_dnnl_engine = NULL;
    }
    r->acquired = 0;
}

int accel_dnnl_plain(accel_dnnl_region_t *r, dnnl_memory_desc_t *md, int ndims, const dnnl_dim_t *dims,
                     dnnl_data_type_t dt) {
    dnnl_dims_t strides;
    dnnl_dim_t stride = 1;
    for (int i = ndims - 1; i >= 0; i--) {
        strides[i] = stride;
        stride *= dims[i];
    }
    ACCEL_DNNL(r, dnnl_memory_desc_init_by_strides(md, ndims, dims, dt, strides));
    return 0;
}

int accel_dnnl_memory(accel_dnnl_region_t *r, const dnnl_memory_desc_t *md, void *handle, dnnl_memory_t *out) {
    if (grow((void **)&r->memories, &r->cap_memories, r->n_memories, sizeof *r->memories)) return out_of_memory(r);
    ACCEL_DNNL(r, dnnl_memory_create(out, md, accel_dnnl_engine, handle ? handle : DNNL_MEMORY_ALLOCATE));
    r->memories[r->n_memories++] = *out;
    return 0;
}

int accel_dnnl_boundary(accel_dnnl_region_t *r, const dnnl_memory_desc_t *md, dnnl_memory_t *out) {
    if (grow((void **)&r->memories, &r->cap_memories, r->n_memories, sizeof *r->memories)) return out_of_memory(r);
    ACCEL_DNNL(r, dnnl_memory_create(out, md, accel_dnnl_engine, DNNL_MEMORY_NONE));
    r->memories[r->n_memories++] = *out;
    return 0;
}

int accel_dnnl_view(accel_dnnl_region_t *r, dnnl_memory_t source, const dnnl_memory_desc_t *md, dnnl_memory_t *out) {
    void *handle = NULL;
    ACCEL_DNNL(r, dnnl_memory_get_data_handle(source, &handle));
    if (grow((void **)&r->memories, &r->cap_memories, r->n_memories, sizeof *r->memories)) return out_of_memory(r);
    ACCEL_DNNL(r, dnnl_memory_create(out, md, accel_dnnl_engine, DNNL_MEMORY_NONE));
    r->memories[r->n_memories++] = *out;
    if (handle) ACCEL_DNNL(r, dnnl_memory_set_data_handle(*out, handle));
    if (grow((void **)&r->aliases, &r->cap_aliases, r->n_aliases, sizeof *r->aliases)) return out_of_memory(r);
    r->aliases[r->n_aliases].memory = *out;
    r->aliases[r->n_aliases].source = source;
    r->n_aliases++;
    return 0;
}

int accel_dnnl_primitive_desc(accel_dnnl_region_t *r, const void *op_desc, dnnl_primitive_attr_t attr,
                              dnnl_primitive_desc_t *pd) {
    dnnl_status_t s = dnnl_primitive_desc_create(pd, op_desc, attr, accel_dnnl_engine, NULL);
    if (attr) dnnl_primitive_attr_destroy(attr);
    if (s != dnnl_success) return accel_dnnl_fail(r, "dnnl_primitive_desc_create", s);
    return 0;
}

/* oneDNN 2.6's AVX/AVX2 pooling kernels are slow on AMD CPUs (measured on an EPYC, max
 * pooling 3x3 of 1x64x16x16 in nChw8c: jit:avx2 53 us, jit:sse41 14 us; a 1x1 "pooling"
 * costs the same 50 us, so it is the kernel's loads and stores, not its arithmetic). */
static int prefer_sse41_pooling(void) {
#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
    return __builtin_cpu_is("amd");
#else
    return 0;
#endif
}

int accel_dnnl_pooling_desc(accel_dnnl_region_t *r, const void *op_desc, dnnl_primitive_attr_t attr,
                            dnnl_primitive_desc_t *pd) {
    dnnl_primitive_desc_iterator_t it;
    if (prefer_sse41_pooling() &&
        dnnl_primitive_desc_iterator_create(&it, op_desc, attr, accel_dnnl_engine, NULL) == dnnl_success) {
        *pd = NULL;
        do {
            dnnl_primitive_desc_t candidate = dnnl_primitive_desc_iterator_fetch(it);
            const char *impl = NULL;
            if (candidate && dnnl_primitive_desc_query(candidate, dnnl_query_impl_info_str, 0, &impl) == dnnl_success &&
                impl && strcmp(impl, "jit:sse41") == 0) {
                *pd = candidate;
                break;
            }
            if (candidate) dnnl_primitive_desc_destroy(candidate);
        } while (dnnl_primitive_desc_iterator_next(it) == dnnl_success);
        dnnl_primitive_desc_iterator_destroy(it);
        if (*pd) {
            if (attr) dnnl_primitive_attr_destroy(attr);
            return 0;
        }
    }
    return accel_dnnl_primitive_desc(r, op_desc, attr, pd); /* oneDNN's first choice */
}

int accel_dnnl_primitive(accel_dnnl_region_t *r, dnnl_primitive_desc_t pd, dnnl_primitive_t *out) {
    if (grow((void **)&r->primitives, &r->cap_primitives, r->n_primitives, sizeof *r->primitives))
        return out_of_memory(r);
    dnnl_status_t s = dnnl_primitive_create(out, pd);
    if (s != dnnl_success) return accel_dnnl_fail(r, "dnnl_primitive_create", s);
    r->primitives[r->n_primitives++] = *out;
    return 0;
}

const dnnl_memory_desc_t *accel_dnnl_md(dnnl_primitive_desc_t pd, dnnl_query_t what, int index) {
    return dnnl_primitive_desc_query_md(pd, what, index);
}

static int reorder_with(accel_dnnl_region_t *r, dnnl_memory_t src, dnnl_memory_t dst, const_dnnl_primitive_attr_t attr,
                        dnnl_primitive_t *out) {
    const dnnl_memory_desc_t *src_md, *dst_md;
    ACCEL_DNNL(r, dnnl_memory_get_memory_desc(src, &src_md));
    ACCEL_DNNL(r, dnnl_memory_get_memory_desc(dst, &dst_md));
    dnnl_primitive_desc_t pd;
    ACCEL_DNNL(r, dnnl_reorder_primitive_desc_create(&pd, src_md, accel_dnnl_engine, dst_md, accel_dnnl_engine, attr));
    int failed = accel_dnnl_primitive(r, pd, out);
    dnnl_primitive_desc_destroy(pd);
    return failed;
}

static int reorder(accel_dnnl_region_t *r, dnnl_memory_t src, dnnl_memory_t dst, dnnl_primitive_t *out) {
    return reorder_with(r, src, dst, NULL, out);
}

static int add_exec(accel_dnnl_region_t *r, dnnl_primitive_t p, int nargs, const dnnl_exec_arg_t *args) {
    if (grow((void **)&r->execs, &r->cap_execs, r->n_execs, sizeof *r->execs)) return out_of_memory(r);
    dnnl_exec_arg_t *copy = (dnnl_exec_arg_t *)malloc((size_t)(nargs > 0 ? nargs : 1) * sizeof *args);
    if (!copy) return out_of_memory(r);
    memcpy(copy, args, (size_t)nargs * sizeof *args);
    accel_dnnl_exec_t *e = &r->execs[r->n_execs++];
    e->primitive = p;
    e->nargs = nargs;
    e->args = copy;
    e->what = r->what;
    e->threads = r->threads;
    e->own = ACCEL_DNNL_PRIMITIVE;
    e->scale = 1.0f;
    e->zero_point = 0;
    return 0;
}

static int add_reorder(accel_dnnl_region_t *r, dnnl_memory_t src, dnnl_memory_t dst) {
    dnnl_primitive_t p;
    ACCEL_DNNL_TRY(reorder(r, src, dst, &p));
    dnnl_exec_arg_t args[2] = {{DNNL_ARG_FROM, src}, {DNNL_ARG_TO, dst}};
    return add_exec(r, p, 2, args);
}

int accel_dnnl_input(accel_dnnl_region_t *r, dnnl_memory_t value, const dnnl_memory_desc_t *want, dnnl_memory_t *out) {
    const dnnl_memory_desc_t *have;
    ACCEL_DNNL(r, dnnl_memory_get_memory_desc(value, &have));
    if (dnnl_memory_desc_equal(have, want)) {
        *out = value;
        return 0;
    }
    ACCEL_DNNL_TRY(accel_dnnl_memory(r, want, NULL, out));
    return add_reorder(r, value, *out);
}

int accel_dnnl_output(accel_dnnl_region_t *r, const dnnl_memory_desc_t *have, dnnl_memory_t *value, dnnl_memory_t *out) {
    if (*value == NULL) {
        ACCEL_DNNL_TRY(accel_dnnl_memory(r, have, NULL, value));
        *out = *value;
        return 0;
    }
    const dnnl_memory_desc_t *boundary;
    ACCEL_DNNL(r, dnnl_memory_get_memory_desc(*value, &boundary));
    if (dnnl_memory_desc_equal(have, boundary)) {
        *out = *value;
        return 0;
    }
    if (r->pending == 4) return accel_dnnl_fail(r, "accel_dnnl_output", dnnl_unimplemented);
    ACCEL_DNNL_TRY(accel_dnnl_memory(r, have, NULL, out));
    r->pending_src[r->pending] = *out;
    r->pending_dst[r->pending] = *value;
    r->pending++;
    return 0;
}

int accel_dnnl_weights(accel_dnnl_region_t *r, const dnnl_memory_desc_t *md, const void *data,
                       const dnnl_memory_desc_t *want, dnnl_memory_t *out) {
    dnnl_memory_t plain;
    ACCEL_DNNL(r, dnnl_memory_create(&plain, md, accel_dnnl_engine, (void *)data));
    if (dnnl_memory_desc_equal(md, want)) { /* used in place, in weights.bin */
        if (grow((void **)&r->memories, &r->cap_memories, r->n_memories, sizeof *r->memories)) {
            dnnl_memory_destroy(plain);
            return out_of_memory(r);
        }
        r->memories[r->n_memories++] = plain;
        *out = plain;
        return 0;
    }
    int failed = accel_dnnl_memory(r, want, NULL, out);
    dnnl_primitive_t p = NULL;
    if (!failed) failed = reorder(r, plain, *out, &p);
    if (!failed) {
        dnnl_exec_arg_t args[2] = {{DNNL_ARG_FROM, plain}, {DNNL_ARG_TO, *out}};
        dnnl_status_t s = dnnl_primitive_execute(p, accel_dnnl_stream, 2, args);
        if (s == dnnl_success) s = dnnl_stream_wait(accel_dnnl_stream);
        if (s != dnnl_success) failed = accel_dnnl_fail(r, "dnnl_primitive_execute (weights reorder)", s);
        /* the reorder primitive is not needed again */
        r->n_primitives--;
        dnnl_primitive_destroy(p);
    }
    dnnl_memory_destroy(plain);
    return failed;
}

static int flush_pending(accel_dnnl_region_t *r) {
    int pending = r->pending;
    r->pending = 0;
    for (int i = 0; i < pending; i++) ACCEL_DNNL_TRY(add_reorder(r, r->pending_src[i], r->pending_dst[i]));
    return 0;
}

int accel_dnnl_copy(accel_dnnl_region_t *r, dnnl_memory_t src, dnnl_memory_t dst) {
    ACCEL_DNNL_TRY(add_reorder(r, src, dst));
    return flush_pending(r);
}

/* Whether `src` (f32) and `dst` (s8 or u8) hold their elements at the same indices: one
 * layout, dense (the padding included), no offset. */
static int same_elements(accel_dnnl_region_t *r, dnnl_memory_t src, dnnl_memory_t dst, const char *who) {
    const dnnl_memory_desc_t *from, *to;
    ACCEL_DNNL(r, dnnl_memory_get_memory_desc(src, &from));
    ACCEL_DNNL(r, dnnl_memory_get_memory_desc(dst, &to));
    size_t n = 1;
    for (int d = 0; d < from->ndims; d++) n *= (size_t)from->padded_dims[d];
    if (from->data_type != dnnl_f32 || (to->data_type != dnnl_s8 && to->data_type != dnnl_u8) ||
        dnnl_memory_desc_get_size(from) != 4 * n || dnnl_memory_desc_get_size(to) != n || from->offset0 != 0 ||
        to->offset0 != 0)
        return accel_dnnl_fail(r, who, dnnl_invalid_arguments);
    return 0;
}

static int add_own(accel_dnnl_region_t *r, int own, dnnl_memory_t src, dnnl_memory_t dst, float scale,
                   int32_t zero_point) {
    dnnl_exec_arg_t args[2] = {{DNNL_ARG_FROM, src}, {DNNL_ARG_TO, dst}};
    ACCEL_DNNL_TRY(add_exec(r, NULL, 2, args));
    accel_dnnl_exec_t *e = &r->execs[r->n_execs - 1];
    e->own = own;
    e->scale = scale;
    e->zero_point = zero_point;
    return 0;
}

int accel_dnnl_to_int8(accel_dnnl_region_t *r, dnnl_memory_t src, dnnl_memory_t dst, int32_t zero_point) {
    ACCEL_DNNL_TRY(same_elements(r, src, dst, "accel_dnnl_to_int8 (f32 and int8 of one dense layout)"));
    ACCEL_DNNL_TRY(add_reorder(r, src, dst));
    ACCEL_DNNL_TRY(add_own(r, ACCEL_DNNL_NAN_STEP, src, dst, 1.0f, zero_point));
    return flush_pending(r);
}

int accel_dnnl_quantize(accel_dnnl_region_t *r, dnnl_memory_t src, dnnl_memory_t dst, float scale, int32_t zero_point) {
    ACCEL_DNNL_TRY(same_elements(r, src, dst, "accel_dnnl_quantize (f32 and int8 of one dense layout)"));
    ACCEL_DNNL_TRY(add_own(r, ACCEL_DNNL_QUANTIZE, src, dst, scale, zero_point));
    return flush_pending(r);
}

/* The steps of our own, element by element over the buffers (same_elements): the padding
 * of a blocked layout gets the zero point (what 0.0 quantizes to), which the dequantizing
 * reorders after it make 0 again. */
static int run_own(accel_dnnl_region_t *r, const accel_dnnl_exec_t *e) {
    const float *from = NULL;
    unsigned char *to = NULL;
    const dnnl_memory_desc_t *md;
    ACCEL_DNNL(r, dnnl_memory_get_data_handle(e->args[0].memory, (void **)&from));
    ACCEL_DNNL(r, dnnl_memory_get_data_handle(e->args[1].memory, (void **)&to));
    ACCEL_DNNL(r, dnnl_memory_get_memory_desc(e->args[1].memory, &md));
    size_t n = dnnl_memory_desc_get_size(md);
    float zero_point = (float)e->zero_point;
    if (e->own == ACCEL_DNNL_QUANTIZE) {
        float lo = md->data_type == dnnl_u8 ? 0.0f : -128.0f, hi = md->data_type == dnnl_u8 ? 255.0f : 127.0f;
        float scale = e->scale;
        if (md->data_type == dnnl_u8) {
            for (size_t i = 0; i < n; i++) {
                float v = nearbyintf(from[i] / scale) + zero_point;
                v = v != v ? zero_point : (v < lo ? lo : (v > hi ? hi : v));
                to[i] = (unsigned char)(int)v;
            }
        } else {
            signed char *s8 = (signed char *)to;
            for (size_t i = 0; i < n; i++) {
                float v = nearbyintf(from[i] / scale) + zero_point;
                v = v != v ? zero_point : (v < lo ? lo : (v > hi ? hi : v));
                s8[i] = (signed char)(int)v;
            }
        }
        return 0;
    }
    /* ACCEL_DNNL_NAN_STEP, after the reorder: NaNs are rare, look for one first (a loop
     * the compiler vectorizes), write only then */
    int any = 0;
    for (size_t i = 0; i < n; i++) any |= from[i] != from[i];
    if (!any) return 0;
    unsigned char zp = (unsigned char)e->zero_point;
    for (size_t i = 0; i < n; i++)
        if (isnan(from[i])) to[i] = zp;
    return 0;
}

/* The reorder dst = scales[i] * (src - zero_point) with its zero point given at run time
 * (what oneDNN 2.6's reorders take): the primitive and the exec args. */
static int dequantize_reorder(accel_dnnl_region_t *r, dnnl_memory_t src, dnnl_memory_t dst, int count, int mask,
                              const float *scales, int32_t zero_point, dnnl_primitive_t *p, dnnl_exec_arg_t args[3]) {
    dnnl_primitive_attr_t attr;
    ACCEL_DNNL(r, dnnl_primitive_attr_create(&attr));
    dnnl_status_t s = dnnl_primitive_attr_set_output_scales(attr, count, mask, scales);
    static const int32_t runtime_zero_point[1] = {DNNL_RUNTIME_S32_VAL};
    if (s == dnnl_success && zero_point != 0)
        s = dnnl_primitive_attr_set_zero_points(attr, DNNL_ARG_SRC, 1, 0, runtime_zero_point);
    int failed = s != dnnl_success ? accel_dnnl_fail(r, "dnnl_primitive_attr_set (dequantize)", s)
                                   : reorder_with(r, src, dst, attr, p);
    dnnl_primitive_attr_destroy(attr);
    if (failed) return 1;
    int n = 0;
    args[n++] = (dnnl_exec_arg_t){DNNL_ARG_FROM, src};
    args[n++] = (dnnl_exec_arg_t){DNNL_ARG_TO, dst};
    if (zero_point != 0) {
        dnnl_memory_desc_t zmd;
        const dnnl_dims_t one = {1};
        dnnl_memory_t zmem;
        void *handle = NULL;
        ACCEL_DNNL_TRY(accel_dnnl_plain(r, &zmd, 1, one, dnnl_s32));
        ACCEL_DNNL_TRY(accel_dnnl_memory(r, &zmd, NULL, &zmem));
        ACCEL_DNNL(r, dnnl_memory_get_data_handle(zmem, &handle));
        *(int32_t *)handle = zero_point;
        args[n++] = (dnnl_exec_arg_t){DNNL_ARG_ATTR_ZERO_POINTS | DNNL_ARG_SRC, zmem};
    }
    return add_exec(r, *p, n, args) ? 1 : 0;
}

int accel_dnnl_dequantize(accel_dnnl_region_t *r, dnnl_memory_t value, const dnnl_memory_desc_t *want, float scale,
                          int32_t zero_point, dnnl_memory_t *out) {
    ACCEL_DNNL_TRY(accel_dnnl_memory(r, want, NULL, out));
    dnnl_primitive_t p;
    dnnl_exec_arg_t args[3];
    return dequantize_reorder(r, value, *out, 1, 0, &scale, zero_point, &p, args);
}

int accel_dnnl_weights_dequantized(accel_dnnl_region_t *r, const dnnl_memory_desc_t *md, const void *data,
                                   const dnnl_memory_desc_t *want, int count, int mask, const float *scales,
                                   dnnl_memory_t *out) {
    dnnl_memory_t plain;
    ACCEL_DNNL(r, dnnl_memory_create(&plain, md, accel_dnnl_engine, (void *)data));
    dnnl_primitive_t p = NULL;
    dnnl_exec_arg_t args[3];
    int failed = accel_dnnl_memory(r, want, NULL, out);
    if (!failed) failed = dequantize_reorder(r, plain, *out, count, mask, scales, 0, &p, args);
    if (!failed) { /* run once now; neither the execution nor the primitive is needed again */
        free(r->execs[--r->n_execs].args);
        dnnl_status_t s = dnnl_primitive_execute(p, accel_dnnl_stream, 2, args);
        if (s == dnnl_success) s = dnnl_stream_wait(accel_dnnl_stream);
        if (s != dnnl_success) failed = accel_dnnl_fail(r, "dnnl_primitive_execute (weights dequantize)", s);
        r->n_primitives--;
        dnnl_primitive_destroy(p);
    }
    dnnl_memory_destroy(plain);
    return failed;
}

int accel_dnnl_exec(accel_dnnl_region_t *r, dnnl_primitive_t p, int nargs, const dnnl_exec_arg_t *args) {
    ACCEL_DNNL_TRY(add_exec(r, p, nargs, args));
    return flush_pending(r);
}

/* Whether `part` (dense) has the layout of `sub`, a view into a larger memory: the same
 * blocking and, along every dim longer than 1, the same strides. */
static int same_layout(const dnnl_memory_desc_t *part, const dnnl_memory_desc_t *sub) {
    if (part->format_kind != dnnl_blocked || sub->format_kind != dnnl_blocked || part->ndims != sub->ndims ||
        part->data_type != sub->data_type || part->extra.flags != 0)
        return 0;
    const dnnl_blocking_desc_t *a = &part->format_desc.blocking, *b = &sub->format_desc.blocking;
    if (a->inner_nblks != b->inner_nblks) return 0;
    for (int i = 0; i < a->inner_nblks; i++)
        if (a->inner_blks[i] != b->inner_blks[i] || a->inner_idxs[i] != b->inner_idxs[i]) return 0;
    for (int d = 0; d < part->ndims; d++) {
        if (part->padded_dims[d] != part->dims[d] || sub->padded_dims[d] != part->dims[d]) return 0;
        if (part->dims[d] > 1 && a->strides[d] != b->strides[d]) return 0;
    }
    return 1;
}

int accel_dnnl_concat_in_place(accel_dnnl_region_t *r, dnnl_memory_t dst, int axis, int n, const dnnl_memory_t *srcs,
                               int *in_place) {
    const dnnl_memory_desc_t *dst_md;
    char *base = NULL;
    *in_place = 0;
    ACCEL_DNNL(r, dnnl_memory_get_memory_desc(dst, &dst_md));
    ACCEL_DNNL(r, dnnl_memory_get_data_handle(dst, (void **)&base));
    if (!base || n > 16) return 0;
    size_t offsets[16];
    dnnl_dims_t at = {0};
    for (int i = 0; i < n; i++) {
        const dnnl_memory_desc_t *md;
        dnnl_memory_desc_t sub;
        ACCEL_DNNL(r, dnnl_memory_get_memory_desc(srcs[i], &md));
        /* not a submemory (an offset inside a block): the concat primitive copies */
        if (dnnl_memory_desc_init_submemory(&sub, dst_md, md->dims, at) != dnnl_success) return 0;
        if (!same_layout(md, &sub)) return 0;
        offsets[i] = (size_t)sub.offset0 * dnnl_data_type_size(md->data_type);
        at[axis] += md->dims[axis];
    }
    for (int i = 0; i < n; i++) ACCEL_DNNL(r, dnnl_memory_set_data_handle(srcs[i], base + offsets[i]));
    *in_place = 1;
    return flush_pending(r);
}

void accel_dnnl_threads(accel_dnnl_region_t *r, int threads) {
    r->threads = threads > 0 ? threads : r->all_threads;
    omp_set_num_threads(r->threads);
}

int accel_dnnl_bind(accel_dnnl_region_t *r, dnnl_memory_t m, void *handle) {
    ACCEL_DNNL(r, dnnl_memory_set_data_handle(m, handle));
    return 0;
}

int accel_dnnl_run(accel_dnnl_region_t *r) {
    for (int i = 0; i < r->n_aliases; i++) { /* views follow the buffers of this call */
        void *handle = NULL;
        r->what = "view";
        ACCEL_DNNL(r, dnnl_memory_get_data_handle(r->aliases[i].source, &handle));
        ACCEL_DNNL(r, dnnl_memory_set_data_handle(r->aliases[i].memory, handle));
    }
    int threads = r->all_threads;
    for (int i = 0; i < r->n_execs; i++) {
        accel_dnnl_exec_t *e = &r->execs[i];
        r->what = e->what;
        if (e->threads != threads) omp_set_num_threads(threads = e->threads);
        if (!e->primitive) {
            ACCEL_DNNL(r, dnnl_stream_wait(accel_dnnl_stream));
            ACCEL_DNNL_TRY(run_own(r, e));
            continue;
        }
        dnnl_status_t s = dnnl_primitive_execute(e->primitive, accel_dnnl_stream, e->nargs, e->args);
        if (s != dnnl_success) {
            omp_set_num_threads(r->all_threads);
            return accel_dnnl_fail(r, "dnnl_primitive_execute", s);
        }
    }
    if (threads != r->all_threads) omp_set_num_threads(r->all_threads);
    r->what = "run";
    ACCEL_DNNL(r, dnnl_stream_wait(accel_dnnl_stream));
    return 0;
}
