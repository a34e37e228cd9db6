/* Matrix products of the host kernel library: CBLAS (OpenBLAS) when built with
 * -DACC_HAVE_CBLAS, else a blocked GEMM. See host_gemm.h. */
#include "host_gemm.h"

#include <stdlib.h>
#include <string.h>

#ifdef ACC_HAVE_CBLAS
#include <cblas.h>
#endif

#define ACC_ENOMEM_ 5 /* ACC_ENOMEM of host_kernels.h */

static int shape_independent = 0;

void acc_gemm_shape_independent(int on) { shape_independent = on; }

#ifdef ACC_HAVE_CBLAS

int acc_gemm_uses_cblas(void) { return 1; }

static int cblas_path(int trans_a, int trans_b, int64_t m, int64_t n, int64_t k, const float *a, int64_t lda,
                      const float *b, int64_t ldb, float *c, int64_t ldc, int accumulate) {
    /* The host schedule is single-threaded: OpenBLAS's own threads would only compete
     * with it (and with onnxruntime's single-thread baseline). Set once per process. */
    static int pinned = 0;
    if (!pinned) {
        openblas_set_num_threads(1);
        pinned = 1;
    }
    if (m <= 0 || n <= 0) return 0;
    if (k <= 0) {
        if (!accumulate)
            for (int64_t i = 0; i < m; i++) memset(c + i * ldc, 0, (size_t)n * sizeof(float));
        return 0;
    }
    cblas_sgemm(CblasRowMajor, trans_a ? CblasTrans : CblasNoTrans, trans_b ? CblasTrans : CblasNoTrans, (int)m,
                (int)n, (int)k, 1.0f, a, (int)lda, b, (int)ldb, accumulate ? 1.0f : 0.0f, c, (int)ldc);
    return 0;
}

#else

int acc_gemm_uses_cblas(void) { return 0; }

#endif

/* Register block of the micro-kernel (MR x NR accumulators: 12 vectors of 8 floats)
 * and cache blocks: a KC x NR panel of B stays in L1, an MC x KC block of A in L2. */
enum { MR = 6, NR = 16, KC = 256, MC = 96, NC = 2048 };

/* Packs rows [i0, i0 + mc) x columns [p0, p0 + kc) of op(A) into MR-row panels laid out
 * [panel][p][r], zero rows past m. */
static void pack_a(int trans_a, const float *a, int64_t lda, int64_t i0, int64_t mc, int64_t p0, int64_t kc,
                   float *ap) {
    for (int64_t ir = 0; ir < mc; ir += MR) {
        int64_t rows = mc - ir < MR ? mc - ir : MR;
        for (int64_t p = 0; p < kc; p++) {
            float *dst = ap + p * MR;
            for (int64_t r = 0; r < rows; r++) {
                int64_t i = i0 + ir + r, q = p0 + p;
                dst[r] = trans_a ? a[q * lda + i] : a[i * lda + q];
            }
            for (int64_t r = rows; r < MR; r++) dst[r] = 0.0f;
        }
        ap += kc * MR;
    }
}

/* Packs rows [p0, p0 + kc) x columns [j0, j0 + nc) of op(B) into NR-column panels laid
 * out [panel][p][j], zero columns past n. */
static void pack_b(int trans_b, const float *b, int64_t ldb, int64_t p0, int64_t kc, int64_t j0, int64_t nc,
                   float *bp) {
    for (int64_t jr = 0; jr < nc; jr += NR) {
        int64_t cols = nc - jr < NR ? nc - jr : NR;
        for (int64_t p = 0; p < kc; p++) {
            float *dst = bp + p * NR;
            int64_t q = p0 + p;
            if (!trans_b && cols == NR) {
                memcpy(dst, b + q * ldb + j0 + jr, NR * sizeof(float));
                continue;
            }
            for (int64_t j = 0; j < cols; j++) {
                int64_t col = j0 + jr + j;
                dst[j] = trans_b ? b[col * ldb + q] : b[q * ldb + col];
            }
            for (int64_t j = cols; j < NR; j++) dst[j] = 0.0f;
        }
        bp += kc * NR;
    }
}

/* Adds (or stores) the MR x NR block acc into c[0..rows) x [0..cols). */
static void store_block(float acc[MR][NR], float *c, int64_t ldc, int64_t rows, int64_t cols, int accumulate) {
    for (int64_t r = 0; r < rows; r++) {
        float *cr = c + r * ldc;
        if (accumulate)
            for (int64_t j = 0; j < cols; j++) cr[j] += acc[r][j];
        else
            for (int64_t j = 0; j < cols; j++) cr[j] = acc[r][j];
    }
}

#if defined(__GNUC__)
/* GCC and clang: the accumulators as vector values, so that they stay in registers
 * (12 of 8 floats; the compiler splits them where vectors are narrower). */
typedef float v8f __attribute__((vector_size(32)));

static void micro_kernel(int64_t kc, const float *ap, const float *bp, float *c, int64_t ldc, int64_t rows,
                         int64_t cols, int accumulate) {
    v8f c00 = {0}, c01 = {0}, c10 = {0}, c11 = {0}, c20 = {0}, c21 = {0};
    v8f c30 = {0}, c31 = {0}, c40 = {0}, c41 = {0}, c50 = {0}, c51 = {0};
    for (int64_t p = 0; p < kc; p++) {
        v8f b0, b1;
        memcpy(&b0, bp + p * NR, sizeof b0);
        memcpy(&b1, bp + p * NR + 8, sizeof b1);
        const float *av = ap + p * MR;
        v8f a;
        a = (v8f){0} + av[0], c00 += a * b0, c01 += a * b1;
        a = (v8f){0} + av[1], c10 += a * b0, c11 += a * b1;
        a = (v8f){0} + av[2], c20 += a * b0, c21 += a * b1;
        a = (v8f){0} + av[3], c30 += a * b0, c31 += a * b1;
        a = (v8f){0} + av[4], c40 += a * b0, c41 += a * b1;
        a = (v8f){0} + av[5], c50 += a * b0, c51 += a * b1;
    }
    float acc[MR][NR];
    v8f *rows_[MR][2] = {{&c00, &c01}, {&c10, &c11}, {&c20, &c21}, {&c30, &c31}, {&c40, &c41}, {&c50, &c51}};
    for (int r = 0; r < MR; r++) {
        memcpy(acc[r], rows_[r][0], sizeof(v8f));
        memcpy(acc[r] + 8, rows_[r][1], sizeof(v8f));
    }
    store_block(acc, c, ldc, rows, cols, accumulate);
}
#else
static void micro_kernel(int64_t kc, const float *ap, const float *bp, float *c, int64_t ldc, int64_t rows,
                         int64_t cols, int accumulate) {
    float acc[MR][NR];
    memset(acc, 0, sizeof acc);
    for (int64_t p = 0; p < kc; p++)
        for (int r = 0; r < MR; r++)
            for (int j = 0; j < NR; j++) acc[r][j] += ap[p * MR + r] * bp[p * NR + j];
    store_block(acc, c, ldc, rows, cols, accumulate);
}
#endif

static int blocked_sgemm(int trans_a, int trans_b, int64_t m, int64_t n, int64_t k, const float *a, int64_t lda,
              const float *b, int64_t ldb, float *c, int64_t ldc, int accumulate) {
    if (m <= 0 || n <= 0) return 0;
    if (k <= 0) {
        if (!accumulate)
            for (int64_t i = 0; i < m; i++) memset(c + i * ldc, 0, (size_t)n * sizeof(float));
        return 0;
    }
    int64_t kc_max = k < KC ? k : KC;
    int64_t nc_max = n < NC ? n : NC, mc_max = m < MC ? m : MC;
    float *bp = malloc((size_t)(kc_max * ((nc_max + NR - 1) / NR) * NR) * sizeof(float));
    float *ap = malloc((size_t)(kc_max * ((mc_max + MR - 1) / MR) * MR) * sizeof(float));
    if (!ap || !bp) {
        free(ap);
        free(bp);
        return ACC_ENOMEM_;
    }
    for (int64_t j0 = 0; j0 < n; j0 += NC) {
        int64_t nc = n - j0 < NC ? n - j0 : NC;
        for (int64_t p0 = 0; p0 < k; p0 += KC) {
            int64_t kc = k - p0 < KC ? k - p0 : KC;
            int acc = accumulate || p0 > 0;
            pack_b(trans_b, b, ldb, p0, kc, j0, nc, bp);
            for (int64_t i0 = 0; i0 < m; i0 += MC) {
                int64_t mc = m - i0 < MC ? m - i0 : MC;
                pack_a(trans_a, a, lda, i0, mc, p0, kc, ap);
                for (int64_t jr = 0; jr < nc; jr += NR)
                    for (int64_t ir = 0; ir < mc; ir += MR)
                        micro_kernel(kc, ap + ir * kc, bp + jr * kc, c + (i0 + ir) * ldc + j0 + jr, ldc,
                                     mc - ir < MR ? mc - ir : MR, nc - jr < NR ? nc - jr : NR, acc);
            }
        }
    }
    free(ap);
    free(bp);
    return 0;
}

int acc_sgemm(int trans_a, int trans_b, int64_t m, int64_t n, int64_t k, const float *a, int64_t lda,
              const float *b, int64_t ldb, float *c, int64_t ldc, int accumulate) {
#ifdef ACC_HAVE_CBLAS
    if (!shape_independent) return cblas_path(trans_a, trans_b, m, n, k, a, lda, b, ldb, c, ldc, accumulate);
#endif
    return blocked_sgemm(trans_a, trans_b, m, n, k, a, lda, b, ldb, c, ldc, accumulate);
}

void acc_igemm_s16(int64_t m, int64_t n, int64_t k, const int16_t *a, int64_t lda, const int16_t *bt, int64_t ldbt,
                   int32_t *c, int64_t ldc) {
    /* Dot products along k, four columns of c at a time: each row of a is read once per
     * four columns, and the inner loop is a widening multiply-add the compiler vectorizes. */
    for (int64_t i = 0; i < m; i++) {
        const int16_t *ar = a + i * lda;
        int32_t *cr = c + i * ldc;
        int64_t j = 0;
        for (; j + 4 <= n; j += 4) {
            const int16_t *b0 = bt + j * ldbt, *b1 = b0 + ldbt, *b2 = b1 + ldbt, *b3 = b2 + ldbt;
            int32_t s0 = 0, s1 = 0, s2 = 0, s3 = 0;
            for (int64_t p = 0; p < k; p++) {
                int32_t v = ar[p];
                s0 += v * b0[p];
                s1 += v * b1[p];
                s2 += v * b2[p];
                s3 += v * b3[p];
            }
            cr[j] = s0;
            cr[j + 1] = s1;
            cr[j + 2] = s2;
            cr[j + 3] = s3;
        }
        for (; j < n; j++) {
            const int16_t *br = bt + j * ldbt;
            int32_t s = 0;
            for (int64_t p = 0; p < k; p++) s += (int32_t)ar[p] * br[p];
            cr[j] = s;
        }
    }
}

int acc_dgemm(int trans_a, int trans_b, int64_t m, int64_t n, int64_t k, const double *a, int64_t lda,
              const double *b, int64_t ldb, double *c, int64_t ldc, int accumulate) {
    /* Double models are rare and small (ONNX's f64 cases): plain dot products, each
     * summed in order along k. */
    for (int64_t i = 0; i < m; i++)
        for (int64_t j = 0; j < n; j++) {
            double s = accumulate ? c[i * ldc + j] : 0.0;
            for (int64_t p = 0; p < k; p++)
                s += (trans_a ? a[p * lda + i] : a[i * lda + p]) * (trans_b ? b[j * ldb + p] : b[p * ldb + j]);
            c[i * ldc + j] = s;
        }
    return 0;
}
