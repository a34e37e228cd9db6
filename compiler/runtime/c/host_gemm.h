/* Matrix products of the host kernel library (host_kernels.c's conv2d, dense, matmul,
 * batch_matmul and their quantized forms are built on these).
 *
 * Built with -DACC_HAVE_CBLAS (and linked with -lopenblas), the float product is
 * cblas_sgemm of OpenBLAS, pinned to one thread on first use: the host schedule runs
 * on one thread, and a model that wants more cores asks for them explicitly. Without
 * it, a blocked GEMM of this file (packed panels, a register-blocked micro-kernel that
 * the compiler vectorizes) computes the same product. cbuild.py probes whether a cblas
 * program links and chooses (`cbuild.host_runtime()`).
 *
 * Layouts are row-major with leading dimensions; results differ from a naive loop
 * only in the summation order. The integer product is exact.
 */
#ifndef ACC_HOST_GEMM_H
#define ACC_HOST_GEMM_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* c[i][j] = sum_p A(i, p) * B(p, j) (+ the old c[i][j] when accumulate != 0), for
 * i < m, j < n, p < k, with A(i, p) = a[i * lda + p] (a[p * lda + i] when trans_a) and
 * B(p, j) = b[p * ldb + j] (b[j * ldb + p] when trans_b); c[i][j] is c[i * ldc + j].
 * Returns 0, or ACC_ENOMEM (5) when a packing buffer cannot be allocated (c untouched). */
int acc_sgemm(int trans_a, int trans_b, int64_t m, int64_t n, int64_t k, const float *a, int64_t lda,
              const float *b, int64_t ldb, float *c, int64_t ldc, int accumulate);

/* acc_sgemm on double (plain dot products, never CBLAS). */
int acc_dgemm(int trans_a, int trans_b, int64_t m, int64_t n, int64_t k, const double *a, int64_t lda,
              const double *b, int64_t ldb, double *c, int64_t ldc, int accumulate);

/* c[i][j] = sum_p a[i * lda + p] * bt[j * ldbt + p] in int32 (the caller guarantees that
 * no partial sum leaves int32), for i < m, j < n, p < k: both operands along k. */
void acc_igemm_s16(int64_t m, int64_t n, int64_t k, const int16_t *a, int64_t lda, const int16_t *bt, int64_t ldbt,
                   int32_t *c, int64_t ldc);

/* 1 when the float product is CBLAS's, else 0 (the blocked GEMM of host_gemm.c). */
int acc_gemm_uses_cblas(void);

/* on != 0: acc_sgemm uses the blocked GEMM even where CBLAS is linked. Its packed
 * micro-kernel sums every element in the same order whatever the matrix's shape, where
 * CBLAS rounds a matrix's edge by shape: the simulator turns it on around its float
 * products, so an accelerator's result does not depend on how the compiler tiled it. */
void acc_gemm_shape_independent(int on);

#ifdef __cplusplus
}
#endif

#endif
