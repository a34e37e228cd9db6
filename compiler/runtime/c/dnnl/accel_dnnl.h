/* accel's runtime for the `dnnl` target: one oneDNN engine and stream for the model, and
 * a region's list of primitives built once in model_init and run by every call.
 *
 * The generated code of a region (compiler/backend/dnnl_codegen.py) creates its
 * primitive descriptors with the layouts oneDNN chooses (format_tag any), then asks this
 * runtime for the memories: accel_dnnl_input reorders a value into the layout a primitive
 * wants (once per call, only where it differs), accel_dnnl_output gives a primitive its
 * destination and, at a region boundary, reorders it back to the plain layout the host
 * reads; accel_dnnl_weights reorders a constant into the primitive's layout once, at init.
 * Threads: oneDNN's OpenMP runtime follows OMP_NUM_THREADS, except for the primitives the
 * generated code marks small (accel_dnnl_threads): they are built and run on one thread. */
#ifndef ACCEL_DNNL_H
#define ACCEL_DNNL_H

#if defined(__has_include) && !__has_include(<oneapi/dnnl/dnnl.h>)
#error "oneDNN not found: the dnnl target needs the oneDNN 2.6+ headers (Debian/Ubuntu: apt-get install libdnnl-dev)"
#else
#include <oneapi/dnnl/dnnl.h>
#if DNNL_VERSION_MAJOR != 2 || DNNL_VERSION_MINOR < 6
#error "the dnnl target needs oneDNN 2.x with x >= 6 (the v2 C API; Debian: libdnnl-dev 2.6)"
#endif
#endif
#include <stddef.h>
#include <stdint.h>

typedef struct {
    dnnl_primitive_t primitive; /* NULL: a step of our own, `own` */
    int nargs;
    dnnl_exec_arg_t *args; /* nargs of them, owned (a concatenation takes one per input) */
    const char *what;
    int threads; /* OpenMP threads it runs on */
    int own;            /* ACCEL_DNNL_NAN_STEP (accel_dnnl_to_int8) or ACCEL_DNNL_QUANTIZE */
    float scale;        /* ACCEL_DNNL_QUANTIZE's */
    int32_t zero_point; /* both: what a NaN of args[0] (f32) becomes in args[1] (int8) */
} accel_dnnl_exec_t;

enum { ACCEL_DNNL_PRIMITIVE, ACCEL_DNNL_NAN_STEP, ACCEL_DNNL_QUANTIZE };

typedef struct {
    dnnl_memory_t memory;
    dnnl_memory_t source; /* the memory whose buffer `memory` views */
} accel_dnnl_alias_t;

typedef struct {
    const char *name;  /* the region: its symbol */
    const char *what;  /* the op being built or run (for errors) */
    accel_dnnl_exec_t *execs;
    int n_execs, cap_execs;
    dnnl_primitive_t *primitives;
    int n_primitives, cap_primitives;
    dnnl_memory_t *memories;
    int n_memories, cap_memories;
    accel_dnnl_alias_t *aliases;
    int n_aliases, cap_aliases;
    int pending; /* accel_dnnl_output reorders to append after the next exec */
    dnnl_memory_t pending_src[4], pending_dst[4];
    int acquired;
    int threads, all_threads; /* of the primitive being built; OpenMP's maximum at begin */
} accel_dnnl_region_t;

extern dnnl_engine_t accel_dnnl_engine;
extern dnnl_stream_t accel_dnnl_stream;

/* One line on stderr naming the region, the op and the failing call, with oneDNN's status. */
int accel_dnnl_fail(accel_dnnl_region_t *r, const char *call, dnnl_status_t status);
#define ACCEL_DNNL(r, call)                                                     \
    do {                                                                        \
        dnnl_status_t accel_dnnl_s_ = (call);                                   \
        if (accel_dnnl_s_ != dnnl_success) return accel_dnnl_fail((r), #call, accel_dnnl_s_); \
    } while (0)
#define ACCEL_DNNL_TRY(call)            \
    do {                                \
        if ((call) != 0) return 1;      \
    } while (0)

/* Takes the model's engine and stream (created by the first region), checks the library's
 * version at run time; accel_dnnl_end releases everything of the region (and the engine
 * with the last region). */
int accel_dnnl_begin(accel_dnnl_region_t *r);
void accel_dnnl_end(accel_dnnl_region_t *r);

/* The plain (row-major) descriptor of a tensor. */
int accel_dnnl_plain(accel_dnnl_region_t *r, dnnl_memory_desc_t *md, int ndims, const dnnl_dim_t *dims,
                     dnnl_data_type_t dt);
/* A memory of the region: on `handle` (NULL: allocated by oneDNN). */
int accel_dnnl_memory(accel_dnnl_region_t *r, const dnnl_memory_desc_t *md, void *handle, dnnl_memory_t *out);
/* A boundary value: plain `md` on the host buffer accel_dnnl_bind gives each call. */
int accel_dnnl_boundary(accel_dnnl_region_t *r, const dnnl_memory_desc_t *md, dnnl_memory_t *out);
/* A memory with descriptor `md` on the buffer of `source` (a reshape or a transpose view,
 * kept pointing at `source`'s buffer by every call). */
int accel_dnnl_view(accel_dnnl_region_t *r, dnnl_memory_t source, const dnnl_memory_desc_t *md, dnnl_memory_t *out);
/* Create the primitive of `op_desc` (`attr` may be NULL; it is destroyed). */
int accel_dnnl_primitive_desc(accel_dnnl_region_t *r, const void *op_desc, dnnl_primitive_attr_t attr,
                              dnnl_primitive_desc_t *pd);
/* The same for a pooling: on AMD CPUs its SSE4.1 kernel where oneDNN has one (3-4x
 * faster there than the AVX2 kernel oneDNN picks first), else oneDNN's first choice. */
int accel_dnnl_pooling_desc(accel_dnnl_region_t *r, const void *op_desc, dnnl_primitive_attr_t attr,
                            dnnl_primitive_desc_t *pd);
int accel_dnnl_primitive(accel_dnnl_region_t *r, dnnl_primitive_desc_t pd, dnnl_primitive_t *out);
const dnnl_memory_desc_t *accel_dnnl_md(dnnl_primitive_desc_t pd, dnnl_query_t what, int index);
/* `value` in the layout `want`: `value` itself, or a memory a reorder fills at every call. */
int accel_dnnl_input(accel_dnnl_region_t *r, dnnl_memory_t value, const dnnl_memory_desc_t *want, dnnl_memory_t *out);
/* The destination of a primitive whose result is `*value`: for a region-internal value
 * (`*value` NULL) a new memory in the primitive's layout becomes the value; for a boundary
 * value (plain, on a host buffer) the primitive writes it directly when the layouts agree,
 * else into a temporary reordered to it after the primitive runs. */
int accel_dnnl_output(accel_dnnl_region_t *r, const dnnl_memory_desc_t *have, dnnl_memory_t *value, dnnl_memory_t *out);
/* A constant (plain `md` on `data`, in weights.bin) reordered into `want` once, now. */
int accel_dnnl_weights(accel_dnnl_region_t *r, const dnnl_memory_desc_t *md, const void *data,
                       const dnnl_memory_desc_t *want, dnnl_memory_t *out);
/* Append a reorder of `src` into `dst` (a copy between layouts or views; into int8 it
 * rounds half to even and saturates), then the boundary reorders accel_dnnl_output asked for. */
int accel_dnnl_copy(accel_dnnl_region_t *r, dnnl_memory_t src, dnnl_memory_t dst);
/* The f32 `src` (integers, from a quantization's post-ops) into int8 `dst` of the same
 * layout: a saturating reorder, then where `src` is NaN `dst` gets `zero_point`
 * (docs/semantics.md's qnn.quantize; oneDNN's reorder makes a NaN 0 or 127), then the
 * boundary reorders accel_dnnl_output asked for. */
int accel_dnnl_to_int8(accel_dnnl_region_t *r, dnnl_memory_t src, dnnl_memory_t dst, int32_t zero_point);
/* qnn.quantize of the f32 `src` into int8 `dst` of the same layout, as docs/semantics.md
 * says: saturate(round_half_even(src / scale) + zero_point), a NaN the zero point (one
 * loop of the runtime over the buffers; oneDNN's reorder multiplies by 1 / scale and adds
 * the zero point before rounding, which moves ties), then the boundary reorders
 * accel_dnnl_output asked for. */
int accel_dnnl_quantize(accel_dnnl_region_t *r, dnnl_memory_t src, dnnl_memory_t dst, float scale, int32_t zero_point);
/* An int8 `value` dequantized into `want` (f32): scale * (value - zero_point), a reorder
 * appended to the run (int8 products compute on f32, see dnnl_codegen.py). */
int accel_dnnl_dequantize(accel_dnnl_region_t *r, dnnl_memory_t value, const dnnl_memory_desc_t *want, float scale,
                          int32_t zero_point, dnnl_memory_t *out);
/* Int8 constant weights (plain `md` on `data`) dequantized into `want` (f32) once, now:
 * scales[i] * w, the `count` scales along the dims of `mask`. */
int accel_dnnl_weights_dequantized(accel_dnnl_region_t *r, const dnnl_memory_desc_t *md, const void *data,
                                   const dnnl_memory_desc_t *want, int count, int mask, const float *scales,
                                   dnnl_memory_t *out);
/* Append an execution (then the boundary reorders accel_dnnl_output asked for). */
int accel_dnnl_exec(accel_dnnl_region_t *r, dnnl_primitive_t p, int nargs, const dnnl_exec_arg_t *args);
/* A concatenation along `axis` without a copy: when every input (a region-internal value,
 * used by no other concatenation) has the layout of its slice of `dst` (e.g. one image,
 * channels blocked by 8 and every input's channel offset a multiple of 8), the inputs
 * become views into `dst`, so their producers write the slices directly: *in_place = 1
 * and nothing is executed (then the boundary reorders accel_dnnl_output asked for). */
int accel_dnnl_concat_in_place(accel_dnnl_region_t *r, dnnl_memory_t dst, int axis, int n, const dnnl_memory_t *srcs,
                               int *in_place);
/* The OpenMP threads of the primitives built from now on: 1, or 0 for all (OMP_NUM_THREADS).
 * oneDNN sizes a primitive's work split by the thread count when it is created, and a
 * parallel region costs a fork and a join per execution (a few microseconds on two cores),
 * more than a small primitive's work; accel_dnnl_run sets each one's count again. */
void accel_dnnl_threads(accel_dnnl_region_t *r, int threads);
/* Point a boundary memory at the host buffer of this call. */
int accel_dnnl_bind(accel_dnnl_region_t *r, dnnl_memory_t m, void *handle);
/* Run every execution of the region in order and wait. */
int accel_dnnl_run(accel_dnnl_region_t *r);

#endif
