/* sim_core: scratchpad, range checks, hazard checks, two-engine timeline, counters.
 * See sim_core.h for the model. */
#include "sim_core.h"

#include "host_gemm.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct host_range {
    uintptr_t base;
    size_t bytes;
} host_range;

/* The scratchpad bytes a transfer to the device writes, while it is not waited for:
 * byte intervals [lo[i], hi[i]) (adjacent rows merged). */
typedef struct pending_write {
    int64_t token;
    int64_t n, cap;
    int64_t *lo, *hi;
} pending_write;

struct sim_device {
    char name[32];
    sim_config cfg;
    unsigned char *raw; /* allocation holding the aligned scratchpad */
    unsigned char *spm;
    size_t block; /* readiness granularity in bytes */
    size_t n_blocks;
    double *ready;     /* per block: completion time of its last write */
    double *reads_end; /* per block: end of its pending reads */
    pending_write *pending; /* transfers to the device not waited for, oldest first */
    size_t n_pending, cap_pending;
    host_range *ranges;
    size_t n_ranges, cap_ranges;
    double *token_end; /* [token]: completion time of each transfer (index 0 unused) */
    size_t cap_tokens;
    int64_t issued;      /* transfers issued = last token */
    int64_t waited_upto; /* every token <= this has been waited for */
    int64_t ops;         /* compute commands issued */
    double host, dma_free, compute_free, end;
    double device_bytes_per_cycle; /* copies within the scratchpad; 0: dma_bytes_per_cycle */
    sim_counters counters;
};

/* -------------------------------------------------------------------------------
 * Messages
 * ------------------------------------------------------------------------------- */

static void vreport(const sim_device *d, const char *fmt, va_list ap) {
    char msg[1024];
    vsnprintf(msg, sizeof msg, fmt, ap);
    for (char *c = msg; *c; c++) /* one line, whatever the caller passed */
        if (*c == '\n' || *c == '\r') *c = ' ';
    fprintf(stderr, "%s: error: %s\n", d ? d->name : "sim", msg);
    fflush(stderr);
}

void sim_report(const sim_device *d, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vreport(d, fmt, ap);
    va_end(ap);
}

void sim_fail(const sim_device *d, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vreport(d, fmt, ap);
    va_end(ap);
    exit(SIM_EXIT_STATUS);
}

/* -------------------------------------------------------------------------------
 * Life cycle
 * ------------------------------------------------------------------------------- */

static int positive(double v) { return v > 0.0 && isfinite(v); }

static int non_negative(double v) { return v >= 0.0 && isfinite(v); }

sim_device *sim_create(const char *name, const sim_config *cfg) {
    sim_device probe;
    memset(&probe, 0, sizeof probe);
    snprintf(probe.name, sizeof probe.name, "%s", name ? name : "sim");
    if (!cfg) {
        sim_report(&probe, "no configuration given");
        return NULL;
    }
    size_t align = cfg->alignment ? cfg->alignment : 64;
    const char *bad = NULL;
    if (cfg->spm_bytes == 0 || cfg->spm_bytes > ((size_t)1 << 40)) bad = "spm_bytes must be in (0, 2^40]";
    else if (align & (align - 1)) bad = "alignment must be a power of two";
    else if (align > 4096) bad = "alignment must be at most 4096";
    else if (!positive(cfg->dma_bytes_per_cycle)) bad = "dma_bytes_per_cycle must be positive";
    else if (!non_negative(cfg->dma_setup_cycles)) bad = "dma_setup_cycles must be non-negative";
    else if (!positive(cfg->macs_per_cycle_f32)) bad = "macs_per_cycle_f32 must be positive";
    else if (!positive(cfg->macs_per_cycle_int8)) bad = "macs_per_cycle_int8 must be positive";
    else if (!positive(cfg->elementwise_per_cycle)) bad = "elementwise_per_cycle must be positive";
    else if (!non_negative(cfg->launch_cycles)) bad = "launch_cycles must be non-negative";
    if (bad) {
        sim_report(&probe, "invalid configuration: %s", bad);
        return NULL;
    }
    sim_device *d = calloc(1, sizeof *d);
    if (!d) {
        sim_report(&probe, "out of memory");
        return NULL;
    }
    memcpy(d->name, probe.name, sizeof d->name);
    d->cfg = *cfg;
    d->cfg.alignment = align;
    size_t base_align = align > 64 ? align : 64;
    d->block = align < 64 ? align : 64;
    d->n_blocks = (cfg->spm_bytes + d->block - 1) / d->block;
    d->raw = malloc(cfg->spm_bytes + base_align);
    d->ready = calloc(d->n_blocks, sizeof(double));
    d->reads_end = calloc(d->n_blocks, sizeof(double));
    d->cap_tokens = 64;
    d->token_end = calloc(d->cap_tokens, sizeof(double));
    if (!d->raw || !d->ready || !d->reads_end || !d->token_end) {
        sim_report(d, "out of memory for a %zu-byte scratchpad", cfg->spm_bytes);
        sim_destroy(d);
        return NULL;
    }
    uintptr_t a = ((uintptr_t)d->raw + base_align - 1) & ~(uintptr_t)(base_align - 1);
    d->spm = d->raw + (a - (uintptr_t)d->raw);
    memset(d->spm, 0xFF, cfg->spm_bytes); /* NaN as float: untransferred data shows */
    return d;
}

int sim_set_device_bytes_per_cycle(sim_device *d, double bytes_per_cycle) {
    if (!non_negative(bytes_per_cycle)) {
        sim_report(d, "invalid configuration: device_bytes_per_cycle must be non-negative (0: dma_bytes_per_cycle)");
        return 1;
    }
    d->device_bytes_per_cycle = bytes_per_cycle;
    return 0;
}

void sim_destroy(sim_device *d) {
    if (!d) return;
    free(d->raw);
    free(d->ready);
    free(d->reads_end);
    for (size_t i = 0; i < d->n_pending; i++) {
        free(d->pending[i].lo);
        free(d->pending[i].hi);
    }
    free(d->pending);
    free(d->ranges);
    free(d->token_end);
    free(d);
}

void *sim_spm(const sim_device *d) { return d->spm; }

size_t sim_spm_bytes(const sim_device *d) { return d->cfg.spm_bytes; }

void sim_register_host(sim_device *d, const void *p, size_t bytes) {
    if (!p || bytes == 0) return;
    uintptr_t base = (uintptr_t)p;
    for (size_t i = 0; i < d->n_ranges; i++)
        if (d->ranges[i].base == base) {
            if (bytes > d->ranges[i].bytes) d->ranges[i].bytes = bytes;
            return;
        }
    if (d->n_ranges == d->cap_ranges) {
        size_t cap = d->cap_ranges ? 2 * d->cap_ranges : 16;
        host_range *r = realloc(d->ranges, cap * sizeof *r);
        if (!r) sim_fail(d, "out of memory registering host memory");
        d->ranges = r;
        d->cap_ranges = cap;
    }
    d->ranges[d->n_ranges].base = base;
    d->ranges[d->n_ranges].bytes = bytes;
    d->n_ranges++;
}

/* -------------------------------------------------------------------------------
 * Range checks
 * ------------------------------------------------------------------------------- */

/* Is [p + lo, p + hi) inside the scratchpad? (byte offsets, lo < hi) */
static int in_spm(const sim_device *d, uintptr_t p, int64_t lo, int64_t hi) {
    uintptr_t s = (uintptr_t)d->spm, e = s + d->cfg.spm_bytes;
    if (lo < 0 && (uintptr_t)(-lo) > p) return 0;
    uintptr_t a = p + (uintptr_t)lo; /* well defined: unsigned wrap is checked above */
    return a >= s && a <= e && (uint64_t)(hi - lo) <= (uint64_t)(e - a);
}

static int in_host(const sim_device *d, uintptr_t p, int64_t lo, int64_t hi) {
    if (lo < 0 && (uintptr_t)(-lo) > p) return 0;
    uintptr_t a = p + (uintptr_t)lo;
    for (size_t i = 0; i < d->n_ranges; i++) {
        uintptr_t s = d->ranges[i].base, e = s + d->ranges[i].bytes;
        if (a >= s && a <= e && (uint64_t)(hi - lo) <= (uint64_t)(e - a)) return 1;
    }
    return 0;
}

static long long spm_offset(const sim_device *d, uintptr_t p) { return (long long)(p - (uintptr_t)d->spm); }

/* -------------------------------------------------------------------------------
 * Readiness per block
 * ------------------------------------------------------------------------------- */

/* Blocks [*b0, *b1] covering scratchpad byte offsets [lo, hi) (hi > lo). */
static void block_span(const sim_device *d, int64_t lo, int64_t hi, size_t *b0, size_t *b1) {
    *b0 = (size_t)lo / d->block;
    *b1 = (size_t)(hi - 1) / d->block;
}

static double max_ready(const sim_device *d, int64_t lo, int64_t hi, double t) {
    size_t b0, b1;
    block_span(d, lo, hi, &b0, &b1);
    for (size_t b = b0; b <= b1; b++)
        if (d->ready[b] > t) t = d->ready[b];
    return t;
}

static double max_reads_end(const sim_device *d, int64_t lo, int64_t hi, double t) {
    size_t b0, b1;
    block_span(d, lo, hi, &b0, &b1);
    for (size_t b = b0; b <= b1; b++)
        if (d->reads_end[b] > t) t = d->reads_end[b];
    return t;
}

static void mark_written(sim_device *d, int64_t lo, int64_t hi, double t) {
    size_t b0, b1;
    block_span(d, lo, hi, &b0, &b1);
    for (size_t b = b0; b <= b1; b++) d->ready[b] = t;
}

static void mark_read(sim_device *d, int64_t lo, int64_t hi, double t) {
    size_t b0, b1;
    block_span(d, lo, hi, &b0, &b1);
    for (size_t b = b0; b <= b1; b++)
        if (d->reads_end[b] < t) d->reads_end[b] = t;
}

/* The latest transfer not waited for that writes a byte of [lo, hi); *at is the first
 * such byte. Exact to the byte, whatever the block size. */
static int64_t unwaited_writer(const sim_device *d, int64_t lo, int64_t hi, int64_t *at) {
    for (size_t k = d->n_pending; k-- > 0;) {
        const pending_write *w = &d->pending[k];
        for (int64_t i = 0; i < w->n; i++)
            if (w->lo[i] < hi && lo < w->hi[i]) {
                *at = w->lo[i] > lo ? w->lo[i] : lo;
                return w->token;
            }
    }
    return 0;
}

/* Forgets the pending writes of every transfer up to d->waited_upto. */
static void retire_pending(sim_device *d) {
    size_t keep = 0;
    for (size_t k = 0; k < d->n_pending; k++) {
        if (d->pending[k].token <= d->waited_upto) {
            free(d->pending[k].lo);
            free(d->pending[k].hi);
        } else {
            d->pending[keep++] = d->pending[k];
        }
    }
    d->n_pending = keep;
}

/* -------------------------------------------------------------------------------
 * DMA
 * ------------------------------------------------------------------------------- */

#define MAX_DMA_RANK 4
#define DMA_LIMIT ((int64_t)1 << 30)

/* The rows of a strided box: every index of dims 0..rank-2, the last dim as a run.
 * Row r spans element offsets [row_lo, row_hi] on one side. */
typedef struct dma_walk {
    int rank;
    const int64_t *shape;
    const int64_t *strides;
    int64_t eb;
} dma_walk;

typedef void (*row_fn)(sim_device *d, int64_t lo, int64_t hi, void *ctx);

/* Calls fn(d, byte_lo, byte_hi, ctx) for every row, relative to the base pointer. */
static void walk_rows(sim_device *d, const dma_walk *w, row_fn fn, void *ctx) {
    int r = w->rank;
    int64_t n = w->shape[r - 1], st = w->strides[r - 1];
    int64_t run_lo = st < 0 ? (n - 1) * st : 0, run_hi = st < 0 ? 0 : (n - 1) * st;
    int64_t idx[MAX_DMA_RANK] = {0}, off = 0;
    int64_t rows = 1;
    for (int i = 0; i < r - 1; i++) rows *= w->shape[i];
    for (int64_t k = 0; k < rows; k++) {
        fn(d, (off + run_lo) * w->eb, (off + run_hi) * w->eb + w->eb, ctx);
        for (int i = r - 2; i >= 0; i--) {
            idx[i]++;
            off += w->strides[i];
            if (idx[i] < w->shape[i]) break;
            off -= w->strides[i] * idx[i];
            idx[i] = 0;
        }
    }
}

typedef struct row_ctx {
    int64_t base; /* spm offset of the side's base pointer */
    double t;
    int64_t token;
} row_ctx;

static void row_max_ready(sim_device *d, int64_t lo, int64_t hi, void *c) {
    row_ctx *x = (row_ctx *)c;
    x->t = max_ready(d, x->base + lo, x->base + hi, x->t);
}

static void row_max_reads_end(sim_device *d, int64_t lo, int64_t hi, void *c) {
    row_ctx *x = (row_ctx *)c;
    x->t = max_reads_end(d, x->base + lo, x->base + hi, x->t);
}

static void row_mark_written(sim_device *d, int64_t lo, int64_t hi, void *c) {
    row_ctx *x = (row_ctx *)c;
    mark_written(d, x->base + lo, x->base + hi, x->t);
    /* Remember the bytes until the transfer is waited for (adjacent rows merged). */
    pending_write *w = &d->pending[d->n_pending - 1];
    lo += x->base;
    hi += x->base;
    if (w->n > 0 && w->hi[w->n - 1] == lo) {
        w->hi[w->n - 1] = hi;
        return;
    }
    if (w->n == w->cap) {
        int64_t cap = w->cap ? 2 * w->cap : 4;
        int64_t *nl = realloc(w->lo, (size_t)cap * sizeof *nl);
        if (nl) w->lo = nl;
        int64_t *nh = nl ? realloc(w->hi, (size_t)cap * sizeof *nh) : NULL;
        if (!nl || !nh) sim_fail(d, "out of memory tracking transfers");
        w->hi = nh;
        w->cap = cap;
    }
    w->lo[w->n] = lo;
    w->hi[w->n] = hi;
    w->n++;
}

static void row_mark_read(sim_device *d, int64_t lo, int64_t hi, void *c) {
    row_ctx *x = (row_ctx *)c;
    mark_read(d, x->base + lo, x->base + hi, x->t);
}

/* Element offsets [*lo, *hi] spanned by a box (its extreme elements are touched). */
static void box_extent(int rank, const int64_t *shape, const int64_t *strides, int64_t *lo, int64_t *hi) {
    *lo = *hi = 0;
    for (int i = 0; i < rank; i++) {
        int64_t span = (shape[i] - 1) * strides[i];
        if (span < 0)
            *lo += span;
        else
            *hi += span;
    }
}

static void copy_box(unsigned char *dst, const unsigned char *src, int64_t eb, int rank, const int64_t *shape,
                     const int64_t *ds, const int64_t *ss) {
    int r = rank;
    int64_t n = shape[r - 1];
    int64_t idx[MAX_DMA_RANK] = {0}, od = 0, os = 0;
    int64_t rows = 1;
    for (int i = 0; i < r - 1; i++) rows *= shape[i];
    int contiguous = ds[r - 1] == 1 && ss[r - 1] == 1;
    for (int64_t k = 0; k < rows; k++) {
        if (contiguous) {
            memcpy(dst + od * eb, src + os * eb, (size_t)(n * eb));
        } else {
            for (int64_t j = 0; j < n; j++)
                memcpy(dst + (od + j * ds[r - 1]) * eb, src + (os + j * ss[r - 1]) * eb, (size_t)eb);
        }
        for (int i = r - 2; i >= 0; i--) {
            idx[i]++;
            od += ds[i];
            os += ss[i];
            if (idx[i] < shape[i]) break;
            od -= ds[i] * idx[i];
            os -= ss[i] * idx[i];
            idx[i] = 0;
        }
    }
}

int64_t sim_dma(sim_device *d, sim_direction dir, void *dst, const void *src, size_t elem_bytes, int rank,
                const int64_t *shape, const int64_t *dst_strides, const int64_t *src_strides) {
    int64_t token = d->issued + 1;
    int to_dev = dir == SIM_TO_DEVICE, on_dev = dir == SIM_ON_DEVICE;
    const char *what = to_dev ? "transfer to the device" : on_dev ? "copy on the device" : "transfer to the host";
    if (dir != SIM_TO_DEVICE && dir != SIM_TO_HOST && dir != SIM_ON_DEVICE)
        sim_fail(d, "unknown DMA direction %d (dma #%lld)", (int)dir, (long long)token);
    if (rank < 1 || rank > MAX_DMA_RANK || !shape || !dst_strides || !src_strides)
        sim_fail(d, "%s needs rank 1 to 4 with shape and strides, got rank %d (dma #%lld)", what, rank, (long long)token);
    if (elem_bytes < 1 || elem_bytes > 64)
        sim_fail(d, "%s has element size %zu bytes, expected 1 to 64 (dma #%lld)", what, elem_bytes, (long long)token);
    int64_t elems = 1;
    for (int i = 0; i < rank; i++) {
        if (shape[i] < 0 || shape[i] > DMA_LIMIT || dst_strides[i] < -DMA_LIMIT || dst_strides[i] > DMA_LIMIT ||
            src_strides[i] < -DMA_LIMIT || src_strides[i] > DMA_LIMIT)
            sim_fail(d, "%s has an invalid shape or stride in dimension %d (dma #%lld, shape %lld, strides %lld/%lld)",
                     what, i, (long long)token, (long long)shape[i], (long long)dst_strides[i],
                     (long long)src_strides[i]);
        elems *= shape[i];
    }
    int64_t eb = (int64_t)elem_bytes, bytes = elems * eb;
    /* The scratchpad side and the other side (host memory; for a copy on the device, the
     * scratchpad source) of the transfer. */
    int spm_is_dst = to_dev || on_dev;
    const int64_t *spm_strides = spm_is_dst ? dst_strides : src_strides;
    const int64_t *host_strides = spm_is_dst ? src_strides : dst_strides;
    uintptr_t spm_p = (uintptr_t)(spm_is_dst ? (const void *)dst : src);
    uintptr_t host_p = (uintptr_t)(spm_is_dst ? src : (const void *)dst);
    if (bytes > 0) {
        int64_t lo, hi, src_lo, src_hi;
        box_extent(rank, shape, spm_strides, &lo, &hi);
        if (!in_spm(d, spm_p, lo * eb, hi * eb + eb))
            sim_fail(d, "%s %s is outside the scratchpad (dma #%lld, spm offset %lld, %lld bytes; the scratchpad has %zu bytes)",
                     what, spm_is_dst ? "destination" : "source", (long long)token,
                     spm_offset(d, spm_p) + (long long)(lo * eb), (long long)((hi - lo) * eb + eb), d->cfg.spm_bytes);
        box_extent(rank, shape, host_strides, &src_lo, &src_hi);
        if (on_dev) {
            if (!in_spm(d, host_p, src_lo * eb, src_hi * eb + eb))
                sim_fail(d, "%s source is outside the scratchpad (dma #%lld, spm offset %lld, %lld bytes; the scratchpad has %zu bytes)",
                         what, (long long)token, spm_offset(d, host_p) + (long long)(src_lo * eb),
                         (long long)((src_hi - src_lo) * eb + eb), d->cfg.spm_bytes);
            int64_t d0 = spm_offset(d, spm_p) + lo * eb, d1 = spm_offset(d, spm_p) + hi * eb + eb;
            int64_t s0 = spm_offset(d, host_p) + src_lo * eb, s1 = spm_offset(d, host_p) + src_hi * eb + eb;
            if (d0 < s1 && s0 < d1)
                sim_fail(d, "%s overlaps its source (dma #%lld, spm offsets %lld..%lld and %lld..%lld)", what,
                         (long long)token, (long long)s0, (long long)s1, (long long)d0, (long long)d1);
        } else if (!in_host(d, host_p, src_lo * eb, src_hi * eb + eb)) {
            sim_fail(d, "%s %s is outside registered host memory (dma #%lld, host address %p, %lld bytes)", what,
                     to_dev ? "source" : "destination", (long long)token, (void *)(host_p + (uintptr_t)(src_lo * eb)),
                     (long long)((src_hi - src_lo) * eb + eb));
        }
    }

    /* Admitted: record the token. */
    if ((size_t)token >= d->cap_tokens) {
        size_t cap = 2 * d->cap_tokens;
        double *t = realloc(d->token_end, cap * sizeof *t);
        if (!t) sim_fail(d, "out of memory tracking transfers");
        d->token_end = t;
        d->cap_tokens = cap;
    }
    d->issued = token;

    /* Timeline: start after the engine, RAW on the scratchpad source, WAR on the
     * scratchpad destination. */
    dma_walk w = {rank, shape, spm_strides, eb};
    dma_walk ws = {rank, shape, host_strides, eb}; /* a copy on the device: its source */
    row_ctx rc = {spm_offset(d, spm_p), d->host > d->dma_free ? d->host : d->dma_free, token};
    row_ctx rs = {spm_offset(d, host_p), 0.0, token};
    if (bytes > 0) walk_rows(d, &w, spm_is_dst ? row_max_reads_end : row_max_ready, &rc);
    if (bytes > 0 && on_dev) {
        rs.t = rc.t;
        walk_rows(d, &ws, row_max_ready, &rs);
        rc.t = rs.t;
    }
    double rate = on_dev && d->device_bytes_per_cycle > 0.0 ? d->device_bytes_per_cycle : d->cfg.dma_bytes_per_cycle;
    double end = rc.t + d->cfg.dma_setup_cycles + (double)bytes / rate;
    rc.t = end;
    rs.t = end;
    if (spm_is_dst && bytes > 0) {
        if (d->n_pending == d->cap_pending) {
            size_t cap = d->cap_pending ? 2 * d->cap_pending : 8;
            pending_write *pw = realloc(d->pending, cap * sizeof *pw);
            if (!pw) sim_fail(d, "out of memory tracking transfers");
            d->pending = pw;
            d->cap_pending = cap;
        }
        pending_write fresh = {token, 0, 0, NULL, NULL};
        d->pending[d->n_pending++] = fresh;
    }
    if (bytes > 0) walk_rows(d, &w, spm_is_dst ? row_mark_written : row_mark_read, &rc);
    if (bytes > 0 && on_dev) walk_rows(d, &ws, row_mark_read, &rs);
    d->dma_free = end;
    d->token_end[token] = end;
    if (end > d->end) d->end = end;

    if (bytes > 0) copy_box((unsigned char *)dst, (const unsigned char *)src, eb, rank, shape, dst_strides, src_strides);
    d->counters.transfers++;
    if (to_dev)
        d->counters.bytes_to_device += (uint64_t)bytes;
    else if (on_dev)
        d->counters.bytes_on_device += (uint64_t)bytes;
    else
        d->counters.bytes_to_host += (uint64_t)bytes;
    return token;
}

void sim_dma_wait(sim_device *d, int64_t token) {
    if (token < 1 || token > d->issued)
        sim_fail(d, "waits for dma #%lld, which was never issued (%lld transfers so far)", (long long)token,
                 (long long)d->issued);
    if (d->token_end[token] > d->host) d->host = d->token_end[token];
    if (token > d->waited_upto) d->waited_upto = token;
    retire_pending(d);
}

void sim_sync(sim_device *d) {
    if (d->end > d->host) d->host = d->end;
    d->waited_upto = d->issued;
    retire_pending(d);
}

/* -------------------------------------------------------------------------------
 * Compute
 * ------------------------------------------------------------------------------- */

double sim_cost(const sim_device *d, double work, sim_work kind) {
    double rate = kind == SIM_MACS_F32    ? d->cfg.macs_per_cycle_f32
                  : kind == SIM_MACS_INT8 ? d->cfg.macs_per_cycle_int8
                                          : d->cfg.elementwise_per_cycle;
    return d->cfg.launch_cycles + work / rate;
}

/* Checks one operand's placement; returns 1 when it lies in the scratchpad. */
static int check_operand(const sim_device *d, const char *op, const sim_operand *o, const char *role) {
    uintptr_t p = (uintptr_t)o->ptr;
    if (in_spm(d, p, 0, (int64_t)o->bytes)) return 1;
    if (d->cfg.shared_with_host && in_host(d, p, 0, (int64_t)o->bytes)) return 0;
    if (p >= (uintptr_t)d->spm && p < (uintptr_t)d->spm + d->cfg.spm_bytes)
        sim_fail(d, "%s %s '%s' runs past the end of the scratchpad (op #%lld, spm offset %lld, %zu bytes; the scratchpad has %zu bytes)",
                 op, role, o->name, (long long)d->ops, spm_offset(d, p), o->bytes, d->cfg.spm_bytes);
    sim_fail(d, "%s %s '%s' is not in the scratchpad%s (op #%lld, address %p, %zu bytes)", op, role, o->name,
             d->cfg.shared_with_host ? " nor in registered host memory" : "", (long long)d->ops, o->ptr, o->bytes);
    return 0;
}

static int overlaps(const sim_operand *a, const sim_operand *b) {
    uintptr_t a0 = (uintptr_t)a->ptr, b0 = (uintptr_t)b->ptr;
    return a0 < b0 + b->bytes && b0 < a0 + a->bytes;
}

void sim_compute(sim_device *d, const char *op, const sim_operand *reads, int n_reads, const sim_operand *writes,
                 int n_writes, int in_place, double cycles) {
    d->ops++;
    int read_spm[16], write_spm[16];
    if (n_reads > 16 || n_writes > 16) sim_fail(d, "%s has too many operands (op #%lld)", op, (long long)d->ops);
    for (int i = 0; i < n_reads; i++) {
        const sim_operand *o = &reads[i];
        read_spm[i] = 0;
        if (o->bytes == 0) continue;
        if (!o->ptr) sim_fail(d, "%s input '%s' is NULL (op #%lld)", op, o->name, (long long)d->ops);
        read_spm[i] = check_operand(d, op, o, "input");
    }
    for (int i = 0; i < n_writes; i++) {
        const sim_operand *o = &writes[i];
        write_spm[i] = 0;
        if (o->bytes == 0) continue;
        if (!o->ptr) sim_fail(d, "%s output '%s' is NULL (op #%lld)", op, o->name, (long long)d->ops);
        write_spm[i] = check_operand(d, op, o, "output");
        for (int j = 0; j < n_reads; j++) {
            const sim_operand *r = &reads[j];
            if (r->bytes == 0 || !overlaps(o, r)) continue;
            if (in_place && r->ptr == o->ptr && r->bytes == o->bytes) continue;
            sim_fail(d, "%s output '%s' overlaps input '%s' (op #%lld, %zu bytes at spm offset %lld and %zu at %lld)",
                     op, o->name, r->name, (long long)d->ops, o->bytes, spm_offset(d, (uintptr_t)o->ptr), r->bytes,
                     spm_offset(d, (uintptr_t)r->ptr));
        }
    }
    /* A transfer's data may only be used once the host has waited for it. */
    for (int pass = 0; pass < 2; pass++) {
        const sim_operand *ops = pass ? writes : reads;
        const int *spm = pass ? write_spm : read_spm;
        int n = pass ? n_writes : n_reads;
        for (int i = 0; i < n; i++) {
            if (!spm[i]) continue;
            int64_t lo = spm_offset(d, (uintptr_t)ops[i].ptr), at = 0;
            int64_t tok = unwaited_writer(d, lo, lo + (int64_t)ops[i].bytes, &at);
            if (tok)
                sim_fail(d, "%s %s '%s' %s scratchpad bytes written by dma #%lld, which was never waited for (op #%lld, spm offset %lld)",
                         op, pass ? "output" : "input", ops[i].name, pass ? "overwrites" : "reads", (long long)tok,
                         (long long)d->ops, (long long)at);
        }
    }
    /* Timeline. */
    double start = d->host > d->compute_free ? d->host : d->compute_free;
    for (int i = 0; i < n_reads; i++)
        if (read_spm[i]) {
            int64_t lo = spm_offset(d, (uintptr_t)reads[i].ptr);
            start = max_ready(d, lo, lo + (int64_t)reads[i].bytes, start);
        }
    for (int i = 0; i < n_writes; i++)
        if (write_spm[i]) {
            int64_t lo = spm_offset(d, (uintptr_t)writes[i].ptr);
            start = max_reads_end(d, lo, lo + (int64_t)writes[i].bytes, start);
        }
    double end = start + (cycles > 0.0 ? cycles : 0.0);
    for (int i = 0; i < n_reads; i++)
        if (read_spm[i]) {
            int64_t lo = spm_offset(d, (uintptr_t)reads[i].ptr);
            mark_read(d, lo, lo + (int64_t)reads[i].bytes, end);
        }
    for (int i = 0; i < n_writes; i++)
        if (write_spm[i]) {
            int64_t lo = spm_offset(d, (uintptr_t)writes[i].ptr);
            mark_written(d, lo, lo + (int64_t)writes[i].bytes, end);
        }
    d->compute_free = end;
    if (end > d->end) d->end = end;
    d->counters.accel_ops++;
}

/* -------------------------------------------------------------------------------
 * Counters
 * ------------------------------------------------------------------------------- */

sim_counters sim_get_counters(const sim_device *d) {
    sim_counters c = d->counters;
    double t = d->end > d->host ? d->end : d->host;
    c.cycles = (uint64_t)nearbyint(t); /* half to even, like Python's round() */
    return c;
}

int sim_write_counters_json(const sim_device *d, const char *path) {
    sim_counters c = sim_get_counters(d);
    FILE *f = path ? fopen(path, "w") : NULL;
    if (!f) {
        sim_report(d, "cannot write counters to '%s'", path ? path : "(null)");
        return 1;
    }
    fprintf(f, "{\"bytes_to_device\": %llu, \"bytes_to_host\": %llu, \"transfers\": %llu, \"accel_ops\": %llu, \"cycles\": %llu, \"bytes_on_device\": %llu}\n",
            (unsigned long long)c.bytes_to_device, (unsigned long long)c.bytes_to_host,
            (unsigned long long)c.transfers, (unsigned long long)c.accel_ops, (unsigned long long)c.cycles,
            (unsigned long long)c.bytes_on_device);
    if (fclose(f) != 0) {
        sim_report(d, "cannot write counters to '%s'", path);
        return 1;
    }
    return 0;
}

/* -------------------------------------------------------------------------------
 * Epilogues
 * ------------------------------------------------------------------------------- */

float sim_act_value(float v, const sim_act *act) {
    if (!act) return v;
    switch (act->kind) {
    case SIM_ACT_RELU: return v < 0.0f ? 0.0f : v;
    case SIM_ACT_CLIP:
        v = v < act->min ? act->min : v;
        return v > act->max ? act->max : v;
    default: return v;
    }
}

void sim_act_f32(float *y, int64_t n, const sim_act *act) {
    if (!act || act->kind == SIM_ACT_NONE) return;
    for (int64_t i = 0; i < n; i++) y[i] = sim_act_value(y[i], act);
}

int32_t sim_quantize8(float v, float scale, int32_t zero_point, int is_unsigned) {
    float r = nearbyintf(v / scale); /* half to even under the default rounding mode */
    if (r != r) r = 0.0f;
    double q = (double)r + (double)zero_point;
    double lo = is_unsigned ? 0.0 : -128.0, hi = is_unsigned ? 255.0 : 127.0;
    if (q < lo) q = lo;
    if (q > hi) q = hi;
    return (int32_t)q;
}

void sim_requantize_acc(const int32_t *acc, void *y, int y_unsigned, int64_t outer, int64_t channels,
                        int64_t inner, const float *in_scale, int64_t in_scale_len, float out_scale,
                        int32_t out_zero_point, const sim_act *act) {
    for (int64_t o = 0; o < outer; o++)
        for (int64_t c = 0; c < channels; c++) {
            float s = in_scale[in_scale_len == 1 ? 0 : c];
            int64_t base = (o * channels + c) * inner;
            for (int64_t i = 0; i < inner; i++) {
                float r = sim_act_value((float)acc[base + i] * s, act);
                int32_t q = sim_quantize8(r, out_scale, out_zero_point, y_unsigned);
                if (y_unsigned)
                    ((uint8_t *)y)[base + i] = (uint8_t)q;
                else
                    ((int8_t *)y)[base + i] = (int8_t)q;
            }
        }
}

/* -------------------------------------------------------------------------------
 * Command bodies
 * ------------------------------------------------------------------------------- */

static int conv_geometry_ok(const acc_conv2d_params *p) {
    if (!p || p->n < 1 || p->c < 1 || p->h < 1 || p->w < 1 || p->oc < 1 || p->kh < 1 || p->kw < 1) return 0;
    if (p->stride_h < 1 || p->stride_w < 1 || p->dil_h < 1 || p->dil_w < 1 || p->groups < 1) return 0;
    if (p->pad_top < 0 || p->pad_left < 0 || p->pad_bottom < 0 || p->pad_right < 0) return 0;
    if (p->c % p->groups || p->oc % p->groups) return 0;
    int64_t span_h = p->h + p->pad_top + p->pad_bottom - p->dil_h * (p->kh - 1) - 1;
    int64_t span_w = p->w + p->pad_left + p->pad_right - p->dil_w * (p->kw - 1) - 1;
    return span_h >= 0 && span_w >= 0 && p->oh == span_h / p->stride_h + 1 && p->ow == span_w / p->stride_w + 1;
}

static int bad_conv(const sim_device *d, const char *op, const acc_conv2d_params *p) {
    if (!p) {
        sim_report(d, "%s: no parameters", op);
        return 1;
    }
    sim_report(d,
               "%s: inconsistent parameters (x %lldx%lldx%lldx%lld, weight %lldx%lldx%lldx%lld, output %lldx%lld, "
               "strides %lldx%lld, padding %lld,%lld,%lld,%lld, dilation %lldx%lld, groups %lld)",
               op, (long long)p->n, (long long)p->c, (long long)p->h, (long long)p->w, (long long)p->oc,
               (long long)(p->groups > 0 ? p->c / p->groups : 0), (long long)p->kh, (long long)p->kw, (long long)p->oh,
               (long long)p->ow, (long long)p->stride_h, (long long)p->stride_w, (long long)p->pad_top,
               (long long)p->pad_left, (long long)p->pad_bottom, (long long)p->pad_right, (long long)p->dil_h,
               (long long)p->dil_w, (long long)p->groups);
    return 1;
}

/* Checks the quantization parameters of a command with `channels` output channels. */
static int quant_ok(const sim_device *d, const char *op, const sim_quant *q, int64_t channels) {
    const char *bad = NULL;
    int64_t xlo = q && q->x_unsigned ? 0 : -128, xhi = q && q->x_unsigned ? 255 : 127;
    int64_t wlo = q && q->w_unsigned ? 0 : -128, whi = q && q->w_unsigned ? 255 : 127;
    if (!q) bad = "no quantization parameters";
    else if (!q->in_scale || (q->in_scale_len != 1 && q->in_scale_len != channels)) bad = "in_scale needs 1 or one entry per output channel";
    else if (q->w_zero_point && q->w_zero_point_len != 1 && q->w_zero_point_len != channels) bad = "weight_zero_point needs 1 or one entry per output channel";
    else if (q->x_zero_point < xlo || q->x_zero_point > xhi) bad = "input_zero_point is outside the input type's range";
    else if (q->out_zero_point < (q->y_unsigned ? 0 : -128) || q->out_zero_point > (q->y_unsigned ? 255 : 127)) bad = "out_zero_point is outside the output type's range";
    for (int64_t i = 0; !bad && q->w_zero_point && i < q->w_zero_point_len; i++)
        if (q->w_zero_point[i] < wlo || q->w_zero_point[i] > whi) bad = "a weight zero point is outside the weight type's range";
    if (!bad) return 1;
    sim_report(d, "%s: %s", op, bad);
    return 0;
}

static int kernel_status(const sim_device *d, const char *op, int st) {
    if (st == ACC_OK) return 0;
    if (st == ACC_EOVERFLOW) {
        sim_report(d, "%s: the int32 accumulator overflows (op #%lld)", op, (long long)d->ops);
        return 2;
    }
    sim_report(d, "%s: %s (op #%lld)", op, acc_status_string(st), (long long)d->ops);
    return 1;
}

int sim_conv2d_f32(sim_device *d, const char *op, const float *x, const float *w, const float *bias, float *y,
                   const acc_conv2d_params *p, const sim_act *act) {
    if (!conv_geometry_ok(p)) return bad_conv(d, op, p);
    int64_t nx = p->n * p->c * p->h * p->w, nw = p->oc * (p->c / p->groups) * p->kh * p->kw;
    int64_t ny = p->n * p->oc * p->oh * p->ow;
    sim_operand in[3] = {{"x", x, (size_t)nx * 4}, {"weight", w, (size_t)nw * 4}, {"bias", bias, bias ? (size_t)p->oc * 4 : 0}};
    sim_operand out[1] = {{"y", y, (size_t)ny * 4}};
    sim_compute(d, op, in, 3, out, 1, 0, sim_cost(d, (double)ny * (double)(nw / p->oc), SIM_MACS_F32));
    acc_gemm_shape_independent(1); /* the result must not depend on the compiler's tiling */
    int st = acc_conv2d_f32(x, w, bias, y, p);
    acc_gemm_shape_independent(0);
    if (st) return kernel_status(d, op, st);
    sim_act_f32(y, ny, act);
    return 0;
}

int sim_conv2d_q8(sim_device *d, const char *op, const void *x, const void *w, const int32_t *bias, void *y,
                  const acc_conv2d_params *p, const sim_quant *q, const sim_act *act) {
    if (!conv_geometry_ok(p)) return bad_conv(d, op, p);
    if (!quant_ok(d, op, q, p->oc)) return 1;
    int64_t nx = p->n * p->c * p->h * p->w, nw = p->oc * (p->c / p->groups) * p->kh * p->kw;
    int64_t ny = p->n * p->oc * p->oh * p->ow;
    sim_operand in[3] = {{"x", x, (size_t)nx}, {"weight", w, (size_t)nw}, {"bias", bias, bias ? (size_t)p->oc * 4 : 0}};
    sim_operand out[1] = {{"y", y, (size_t)ny}};
    sim_compute(d, op, in, 3, out, 1, 0, sim_cost(d, (double)ny * (double)(nw / p->oc), SIM_MACS_INT8));
    int32_t *acc = malloc((size_t)ny * sizeof(int32_t));
    if (!acc) sim_fail(d, "%s: out of memory", op);
    int st = acc_qnn_conv2d(q->x_unsigned ? ACC_U8 : ACC_I8, x, q->w_unsigned ? ACC_U8 : ACC_I8, w, bias, acc, p,
                            q->x_zero_point, q->w_zero_point, q->w_zero_point_len);
    if (st == ACC_OK)
        sim_requantize_acc(acc, y, q->y_unsigned, p->n, p->oc, p->oh * p->ow, q->in_scale, q->in_scale_len,
                           q->out_scale, q->out_zero_point, act);
    free(acc);
    return kernel_status(d, op, st);
}

static int bad_matmul(const sim_device *d, const char *op, int64_t batch, int64_t m, int64_t k, int64_t n) {
    if (batch >= 1 && m >= 0 && k >= 0 && n >= 0) return 0;
    sim_report(d, "%s: inconsistent parameters (batch %lld, m %lld, k %lld, n %lld)", op, (long long)batch, (long long)m,
               (long long)k, (long long)n);
    return 1;
}

int sim_matmul_f32(sim_device *d, const char *op, const float *a, const float *b, const float *bias, float *y,
                   int64_t m, int64_t k, int64_t n, int ta, int tb, const sim_act *act) {
    return sim_batch_matmul_f32(d, op, a, b, bias, y, 1, m, k, n, ta, tb, act);
}

int sim_batch_matmul_f32(sim_device *d, const char *op, const float *a, const float *b, const float *bias, float *y,
                         int64_t batch, int64_t m, int64_t k, int64_t n, int ta, int tb, const sim_act *act) {
    return sim_batch_matmul_acc_f32(d, op, a, b, bias, y, batch, m, k, n, ta, tb, 0, act);
}

int sim_batch_matmul_acc_f32(sim_device *d, const char *op, const float *a, const float *b, const float *bias, float *y,
                             int64_t batch, int64_t m, int64_t k, int64_t n, int ta, int tb, int accumulate,
                             const sim_act *act) {
    if (bad_matmul(d, op, batch, m, k, n)) return 1;
    size_t y_bytes = (size_t)(batch * m * n) * 4;
    /* An accumulating product reads y too (in place: the same buffer). */
    sim_operand in[4] = {{"a", a, (size_t)(batch * m * k) * 4}, {"b", b, (size_t)(batch * k * n) * 4},
                         {"bias", bias, bias ? (size_t)n * 4 : 0}, {"y", y, accumulate ? y_bytes : 0}};
    sim_operand out[1] = {{"y", y, y_bytes}};
    double cycles = sim_cost(d, (double)batch * (double)m * (double)n * (double)k, SIM_MACS_F32);
    if (accumulate) cycles += sim_cost(d, (double)batch * (double)m * (double)n, SIM_ELEMENTS) - d->cfg.launch_cycles;
    sim_compute(d, op, in, 4, out, 1, accumulate, cycles);
    float *partial = NULL;
    if (accumulate && !(partial = malloc((size_t)(m * n > 0 ? m * n : 1) * sizeof(float)))) sim_fail(d, "%s: out of memory", op);
    for (int64_t s = 0; s < batch; s++) {
        float *ys = y + s * m * n;
        acc_gemm_shape_independent(1);
        int st = acc_matmul_f32(a + s * m * k, b + s * k * n, partial ? partial : ys, m, k, n, ta, tb);
        acc_gemm_shape_independent(0);
        if (st) {
            free(partial);
            return kernel_status(d, op, st);
        }
        for (int64_t i = 0; partial && i < m * n; i++) ys[i] += partial[i];
        for (int64_t i = 0; bias && i < m; i++)
            for (int64_t j = 0; j < n; j++) ys[i * n + j] += bias[j];
    }
    free(partial);
    sim_act_f32(y, batch * m * n, act);
    return 0;
}

/* A [rows][cols] byte matrix transposed into a new [cols][rows] one. */
static uint8_t *transposed8(sim_device *d, const void *src, int64_t rows, int64_t cols) {
    uint8_t *t = malloc((size_t)(rows * cols > 0 ? rows * cols : 1));
    if (!t) sim_fail(d, "out of memory");
    int64_t shape[2] = {rows, cols};
    int perm[2] = {1, 0};
    acc_transpose(1, src, t, 2, shape, perm);
    return t;
}

int sim_matmul_q8(sim_device *d, const char *op, const void *a, const void *b, const int32_t *bias, void *y,
                  int64_t m, int64_t k, int64_t n, int ta, int tb, const sim_quant *q, const sim_act *act) {
    return sim_batch_matmul_q8(d, op, a, b, bias, y, 1, m, k, n, ta, tb, q, act);
}

int sim_batch_matmul_q8(sim_device *d, const char *op, const void *a, const void *b, const int32_t *bias, void *y,
                        int64_t batch, int64_t m, int64_t k, int64_t n, int ta, int tb, const sim_quant *q,
                        const sim_act *act) {
    if (bad_matmul(d, op, batch, m, k, n)) return 1;
    if (!quant_ok(d, op, q, n)) return 1;
    sim_operand in[3] = {{"a", a, (size_t)(batch * m * k)}, {"b", b, (size_t)(batch * k * n)},
                         {"bias", bias, bias ? (size_t)n * 4 : 0}};
    sim_operand out[1] = {{"y", y, (size_t)(batch * m * n)}};
    sim_compute(d, op, in, 3, out, 1, 0, sim_cost(d, (double)batch * (double)m * (double)n * (double)k, SIM_MACS_INT8));
    int32_t *acc = malloc((size_t)(m * n > 0 ? m * n : 1) * sizeof(int32_t));
    if (!acc) sim_fail(d, "%s: out of memory", op);
    int st = ACC_OK;
    for (int64_t s = 0; s < batch && st == ACC_OK; s++) {
        const uint8_t *as = (const uint8_t *)a + s * m * k, *bs = (const uint8_t *)b + s * k * n;
        /* The integer kernel wants a [m][k] and b [n][k]. */
        uint8_t *at = ta ? transposed8(d, as, k, m) : NULL;
        uint8_t *bt = tb ? NULL : transposed8(d, bs, k, n);
        st = acc_qnn_dense(q->x_unsigned ? ACC_U8 : ACC_I8, at ? (const void *)at : as, q->w_unsigned ? ACC_U8 : ACC_I8,
                           bt ? (const void *)bt : bs, bias, acc, m, k, n, q->x_zero_point, q->w_zero_point,
                           q->w_zero_point_len);
        if (st == ACC_OK)
            sim_requantize_acc(acc, (uint8_t *)y + s * m * n, q->y_unsigned, m, n, 1, q->in_scale, q->in_scale_len,
                               q->out_scale, q->out_zero_point, act);
        free(at);
        free(bt);
    }
    free(acc);
    return kernel_status(d, op, st);
}

static int pool_geometry_ok(const acc_pool2d_params *p) {
    if (!p || p->n < 1 || p->c < 1 || p->h < 1 || p->w < 1 || p->oh < 1 || p->ow < 1 || p->kh < 1 || p->kw < 1) return 0;
    if (p->stride_h < 1 || p->stride_w < 1 || p->dil_h < 1 || p->dil_w < 1) return 0;
    if (p->pad_top < 0 || p->pad_left < 0 || p->pad_bottom < 0 || p->pad_right < 0) return 0;
    return p->pad_top < p->kh * p->dil_h && p->pad_bottom < p->kh * p->dil_h && p->pad_left < p->kw * p->dil_w &&
           p->pad_right < p->kw * p->dil_w;
}

static int bad_pool(const sim_device *d, const char *op, const acc_pool2d_params *p) {
    if (!p) {
        sim_report(d, "%s: no parameters", op);
        return 1;
    }
    sim_report(d,
               "%s: inconsistent parameters (x %lldx%lldx%lldx%lld, output %lldx%lld, window %lldx%lld, strides "
               "%lldx%lld, dilation %lldx%lld, padding %lld,%lld,%lld,%lld; padding must be below the window)",
               op, (long long)p->n, (long long)p->c, (long long)p->h, (long long)p->w, (long long)p->oh, (long long)p->ow,
               (long long)p->kh, (long long)p->kw, (long long)p->stride_h, (long long)p->stride_w, (long long)p->dil_h,
               (long long)p->dil_w, (long long)p->pad_top, (long long)p->pad_left, (long long)p->pad_bottom,
               (long long)p->pad_right);
    return 1;
}

static double pool_work(const acc_pool2d_params *p) {
    return (double)(p->n * p->c * p->oh * p->ow) * (double)(p->kh * p->kw);
}

int sim_pool2d_f32(sim_device *d, const char *op, const float *x, float *y, int is_max, const acc_pool2d_params *p) {
    if (!pool_geometry_ok(p)) return bad_pool(d, op, p);
    sim_operand in[1] = {{"x", x, (size_t)(p->n * p->c * p->h * p->w) * 4}};
    sim_operand out[1] = {{"y", y, (size_t)(p->n * p->c * p->oh * p->ow) * 4}};
    sim_compute(d, op, in, 1, out, 1, 0, sim_cost(d, pool_work(p), SIM_ELEMENTS));
    int st = is_max ? acc_max_pool2d(ACC_F32, x, y, p) : acc_avg_pool2d_f32(x, y, p);
    return kernel_status(d, op, st);
}

/* Dequantized value of every byte of an 8-bit type. */
static void dequant_table(int is_unsigned, float scale, int32_t zero_point, float *table) {
    for (int v = 0; v < 256; v++) {
        int64_t q = is_unsigned ? (int64_t)v : (int64_t)(int8_t)(uint8_t)v;
        table[v] = (float)(q - (int64_t)zero_point) * scale;
    }
}

static void store8(void *y, int64_t i, int32_t q, int is_unsigned) {
    if (is_unsigned)
        ((uint8_t *)y)[i] = (uint8_t)q;
    else
        ((int8_t *)y)[i] = (int8_t)q;
}

int sim_pool2d_q8(sim_device *d, const char *op, const void *x, void *y, int is_max, const acc_pool2d_params *p,
                  int x_unsigned, float in_scale, int32_t in_zero_point, int y_unsigned, float out_scale,
                  int32_t out_zero_point) {
    if (!pool_geometry_ok(p)) return bad_pool(d, op, p);
    int64_t nx = p->n * p->c * p->h * p->w, ny = p->n * p->c * p->oh * p->ow;
    sim_operand in[1] = {{"x", x, (size_t)nx}};
    sim_operand out[1] = {{"y", y, (size_t)ny}};
    sim_compute(d, op, in, 1, out, 1, 0, sim_cost(d, pool_work(p), SIM_ELEMENTS));
    float table[256];
    dequant_table(x_unsigned, in_scale, in_zero_point, table);
    const uint8_t *xb = (const uint8_t *)x;
    int st;
    if (is_max) {
        /* Dequantization is monotone: the max of the dequantized values is the
         * dequantized max. */
        uint8_t *m = malloc((size_t)ny);
        if (!m) sim_fail(d, "%s: out of memory", op);
        st = acc_max_pool2d(x_unsigned ? ACC_U8 : ACC_I8, x, m, p);
        for (int64_t i = 0; st == ACC_OK && i < ny; i++)
            store8(y, i, sim_quantize8(table[m[i]], out_scale, out_zero_point, y_unsigned), y_unsigned);
        free(m);
    } else {
        float *xf = malloc((size_t)nx * sizeof(float)), *yf = malloc((size_t)ny * sizeof(float));
        if (!xf || !yf) sim_fail(d, "%s: out of memory", op);
        for (int64_t i = 0; i < nx; i++) xf[i] = table[xb[i]];
        st = acc_avg_pool2d_f32(xf, yf, p);
        for (int64_t i = 0; st == ACC_OK && i < ny; i++)
            store8(y, i, sim_quantize8(yf[i], out_scale, out_zero_point, y_unsigned), y_unsigned);
        free(xf);
        free(yf);
    }
    return kernel_status(d, op, st);
}

static int is_binary(sim_eltwise_kind kind) {
    return kind == SIM_ADD || kind == SIM_MUL || kind == SIM_SUB || kind == SIM_DIV;
}

static int eltwise_operands(sim_device *d, const char *op, sim_eltwise_kind kind, const void *a, const void *b,
                            void *y, int64_t count, int64_t b_count, size_t elem, double *work) {
    if ((int)kind < (int)SIM_ADD || (int)kind > (int)SIM_LOG) {
        sim_report(d, "%s: unknown elementwise kind %d", op, (int)kind);
        return 1;
    }
    if (count < 0) {
        sim_report(d, "%s: negative element count %lld", op, (long long)count);
        return 1;
    }
    int binary = is_binary(kind);
    if (binary && (b_count < 1 || (count > 0 && count % b_count != 0))) {
        sim_report(d, "%s: %lld rhs elements do not broadcast over %lld", op, (long long)b_count, (long long)count);
        return 1;
    }
    sim_operand in[2] = {{"lhs", a, (size_t)count * elem}, {"rhs", b, binary ? (size_t)b_count * elem : 0}};
    sim_operand out[1] = {{"y", y, (size_t)count * elem}};
    *work = (double)count;
    sim_compute(d, op, in, 2, out, 1, 1, sim_cost(d, *work, SIM_ELEMENTS));
    return 0;
}

static float eltwise_value(sim_eltwise_kind kind, float u, float v, float lo, float hi) {
    switch (kind) {
    case SIM_ADD: return u + v;
    case SIM_MUL: return u * v;
    case SIM_SUB: return u - v;
    case SIM_DIV: return u / v;
    case SIM_RELU: return u < 0.0f ? 0.0f : u;
    case SIM_SIGMOID: return (float)(1.0 / (1.0 + exp(-(double)u)));
    case SIM_TANH: return (float)tanh((double)u);
    case SIM_GELU: return (float)(0.5 * (double)u * (1.0 + erf((double)u * 0.70710678118654752440)));
    case SIM_SILU: return u * (float)(1.0 / (1.0 + exp(-(double)u)));
    case SIM_GELU_TANH:
        return (float)(0.5 * (double)u * (1.0 + tanh(0.79788456080286535588 * ((double)u + 0.044715 * (double)u * u * u))));
    case SIM_SQRT: return (float)sqrt((double)u); /* (exact in double: the float rounding is sqrtf's) */
    case SIM_EXP: return (float)exp((double)u);
    case SIM_LOG: return (float)log((double)u);
    default:
        u = u < lo ? lo : u;
        return u > hi ? hi : u;
    }
}

int sim_eltwise_bcast_f32(sim_device *d, const char *op, sim_eltwise_kind kind, const float *a, const float *b,
                          float *y, int64_t count, int64_t b_count, float clip_min, float clip_max, const sim_act *act) {
    double work;
    if (eltwise_operands(d, op, kind, a, b, y, count, b_count, 4, &work)) return 1;
    for (int64_t i = 0; i < count; i++)
        y[i] = sim_act_value(eltwise_value(kind, a[i], b ? b[i % b_count] : 0.0f, clip_min, clip_max), act);
    return 0;
}

int sim_eltwise_f32(sim_device *d, const char *op, sim_eltwise_kind kind, const float *a, const float *b, float *y,
                    int64_t count, float clip_min, float clip_max, const sim_act *act) {
    return sim_eltwise_bcast_f32(d, op, kind, a, b, y, count, count > 0 ? count : 1, clip_min, clip_max, act);
}

/* One row of a row op, in float (y may be exactly x). */
static void row_f32(sim_row_kind kind, const float *xr, const float *gamma, const float *beta, float *yr, int64_t n,
                    float eps) {
    if (kind == SIM_RMS_NORM) {
        float sq = 0.0f;
        for (int64_t j = 0; j < n; j++) sq += xr[j] * xr[j];
        float inv = 1.0f / sqrtf(sq / (float)n + eps);
        for (int64_t j = 0; j < n; j++) yr[j] = xr[j] * inv * (gamma ? gamma[j] : 1.0f);
    } else if (kind == SIM_LAYER_NORM) {
        float mean = 0.0f, var = 0.0f;
        for (int64_t j = 0; j < n; j++) mean += xr[j];
        mean /= (float)n;
        for (int64_t j = 0; j < n; j++) var += (xr[j] - mean) * (xr[j] - mean);
        var /= (float)n;
        float inv = 1.0f / sqrtf(var + eps);
        for (int64_t j = 0; j < n; j++) yr[j] = (xr[j] - mean) * inv * (gamma ? gamma[j] : 1.0f) + (beta ? beta[j] : 0.0f);
    } else {
        /* The exponentials are summed wider than float (as the host kernel does): a
         * row's sum in float, one by one, drifts with its length, which attention
         * models amplify (PP-OCRv6's recognizer: 3.7e-4 of its output). */
        float mx = xr[0];
        double sum = 0.0;
        for (int64_t j = 1; j < n; j++) mx = xr[j] > mx ? xr[j] : mx;
        for (int64_t j = 0; j < n; j++) {
            yr[j] = expf(xr[j] - mx);
            sum += yr[j];
        }
        float total = (float)sum;
        for (int64_t j = 0; j < n; j++) yr[j] /= total;
    }
}

/* The checks and the cost of a row op of `rows` rows of `n` elements of `elem_bytes`. */
static int rows_operands(sim_device *d, const char *op, sim_row_kind kind, const void *x, const float *gamma,
                         const float *beta, const void *y, int64_t rows, int64_t n, size_t elem_bytes) {
    if ((kind != SIM_SOFTMAX && kind != SIM_LAYER_NORM && kind != SIM_RMS_NORM) || rows < 0 || n < 1) {
        sim_report(d, "%s: bad row op (kind %d, %lld rows of %lld)", op, (int)kind, (long long)rows, (long long)n);
        return 1;
    }
    int norm = kind == SIM_LAYER_NORM, rms = kind == SIM_RMS_NORM;
    sim_operand in[3] = {{"x", x, (size_t)(rows * n) * elem_bytes},
                         {"gamma", gamma, (norm || rms) && gamma ? (size_t)n * 4 : 0},
                         {"beta", beta, norm && beta ? (size_t)n * 4 : 0}};
    sim_operand out[1] = {{"y", y, (size_t)(rows * n) * elem_bytes}};
    double passes = rms ? SIM_RMS_PASSES : SIM_ROW_PASSES;
    sim_compute(d, op, in, 3, out, 1, 1, sim_cost(d, passes * (double)(rows * n), SIM_ELEMENTS));
    return 0;
}

int sim_rows_f32(sim_device *d, const char *op, sim_row_kind kind, const float *x, const float *gamma,
                 const float *beta, float *y, int64_t rows, int64_t n, float eps) {
    if (rows_operands(d, op, kind, x, gamma, beta, y, rows, n, 4)) return 1;
    for (int64_t r = 0; r < rows; r++) row_f32(kind, x + r * n, gamma, beta, y + r * n, n, eps);
    return 0;
}

int sim_rows_q8(sim_device *d, const char *op, sim_row_kind kind, const void *x, const float *gamma,
                const float *beta, void *y, int64_t rows, int64_t n, float eps, const sim_qeltwise *q) {
    if (!q) {
        sim_report(d, "%s: no quantization parameters", op);
        return 1;
    }
    if (rows_operands(d, op, kind, x, gamma, beta, y, rows, n, 1)) return 1;
    float table[256];
    dequant_table(q->a_unsigned, q->a_scale, q->a_zero_point, table);
    float *row = (float *)malloc((size_t)n * sizeof(float));
    if (!row) {
        sim_report(d, "%s: out of memory for a row of %lld", op, (long long)n);
        return 1;
    }
    const uint8_t *xb = (const uint8_t *)x;
    for (int64_t r = 0; r < rows; r++) {
        for (int64_t j = 0; j < n; j++) row[j] = table[xb[r * n + j]];
        row_f32(kind, row, gamma, beta, row, n, eps);
        for (int64_t j = 0; j < n; j++)
            store8(y, r * n + j, sim_quantize8(row[j], q->y_scale, q->y_zero_point, q->y_unsigned), q->y_unsigned);
    }
    free(row);
    return 0;
}

int sim_convert(sim_device *d, const char *op, int quantize, const void *x, void *y, int64_t count, int is_unsigned,
                float scale, int32_t zero_point) {
    if (count < 0) {
        sim_report(d, "%s: negative element count %lld", op, (long long)count);
        return 1;
    }
    size_t in_bytes = quantize ? 4 : 1, out_bytes = quantize ? 1 : 4;
    sim_operand in[1] = {{"x", x, (size_t)count * in_bytes}};
    sim_operand out[1] = {{"y", y, (size_t)count * out_bytes}};
    sim_compute(d, op, in, 1, out, 1, 0, sim_cost(d, (double)count, SIM_ELEMENTS));
    if (quantize) {
        const float *xf = (const float *)x;
        for (int64_t i = 0; i < count; i++) store8(y, i, sim_quantize8(xf[i], scale, zero_point, is_unsigned), is_unsigned);
        return 0;
    }
    float table[256];
    dequant_table(is_unsigned, scale, zero_point, table);
    const uint8_t *xb = (const uint8_t *)x;
    float *yf = (float *)y;
    for (int64_t i = 0; i < count; i++) yf[i] = table[xb[i]];
    return 0;
}

int sim_eltwise_bcast_q8(sim_device *d, const char *op, sim_eltwise_kind kind, const void *a, const void *b, void *y,
                         int64_t count, int64_t b_count, float clip_min, float clip_max, const sim_qeltwise *q,
                         const sim_act *act) {
    if (!q) {
        sim_report(d, "%s: no quantization parameters", op);
        return 1;
    }
    double work;
    if (eltwise_operands(d, op, kind, a, b, y, count, b_count, 1, &work)) return 1;
    float ta[256], tb[256];
    dequant_table(q->a_unsigned, q->a_scale, q->a_zero_point, ta);
    dequant_table(q->b_unsigned, q->b_scale, q->b_zero_point, tb);
    const uint8_t *ab = (const uint8_t *)a, *bb = (const uint8_t *)b;
    for (int64_t i = 0; i < count; i++) {
        float v = eltwise_value(kind, ta[ab[i]], bb && is_binary(kind) ? tb[bb[i % b_count]] : 0.0f,
                                clip_min, clip_max);
        store8(y, i, sim_quantize8(sim_act_value(v, act), q->y_scale, q->y_zero_point, q->y_unsigned), q->y_unsigned);
    }
    return 0;
}

int sim_lookup_q8(sim_device *d, const char *op, const void *x, void *y, int64_t count, const int32_t *table,
                  int y_unsigned) {
    if (!table || count < 0) {
        sim_report(d, "%s: a lookup needs a table and a count >= 0", op);
        return 1;
    }
    sim_operand in[1] = {{"x", x, (size_t)count}};
    sim_operand out[1] = {{"y", y, (size_t)count}};
    sim_compute(d, op, in, 1, out, 1, 1, sim_cost(d, (double)count, SIM_ELEMENTS));
    const uint8_t *xb = (const uint8_t *)x;
    for (int64_t i = 0; i < count; i++) store8(y, i, table[xb[i]], y_unsigned);
    return 0;
}

int sim_eltwise_q8(sim_device *d, const char *op, sim_eltwise_kind kind, const void *a, const void *b, void *y,
                   int64_t count, float clip_min, float clip_max, const sim_qeltwise *q, const sim_act *act) {
    return sim_eltwise_bcast_q8(d, op, kind, a, b, y, count, count > 0 ? count : 1, clip_min, clip_max, q, act);
}
