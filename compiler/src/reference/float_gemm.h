// The float matrix product behind the reference interpreter's convolution (after im2col) and so
// behind calibration, which spends most of its time there.
#pragma once

#include <cstdint>

namespace systole::compiler {

/// Y[m][n] += sum over k of A[m][k] * B[k][n], for m < M, n < N; lda, ldb and ldy are the row
/// strides. Each element is summed in increasing k, one rounding per product and per sum, so the
/// result is bit for bit that of the plain m-k-n loop (the blocking changes only memory traffic).
void gemmAccumulate(const float* A, int64_t lda, const float* B, int64_t ldb, float* Y, int64_t ldy, int64_t M,
                    int64_t K, int64_t N);

/// y[m][n] (+)= sum_k a[m][k] * b[n][k] (b is N x K: Gemm's transB), without materialising the
/// transpose; each element summed over k in order, skipping zeros of a, as the interpreter's plain
/// Gemm loop sums it, so the results are the same bit for bit.
void matmulTransposedB(const float* a, const float* b, float* y, int64_t M, int64_t K, int64_t N);

}  // namespace systole::compiler
