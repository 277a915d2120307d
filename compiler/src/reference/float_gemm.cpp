// Algorithm: cache-blocked, register-tiled GEMM. B is walked in column panels small enough to
// stay in the L2 cache while every row strip of A passes over them; a micro-kernel keeps a tile of
// MR rows x NV vectors of Y in registers across the whole k loop, loading each B vector once per
// MR rows and broadcasting each A element. Edges use narrower tiles of the same kernel, the last
// columns (from AVX2 on) masked loads and stores. The vectors
// are Highway's: the kernel is built once per SIMD target (foreach_target) and the widest the host
// supports is chosen at run time (HWY_DYNAMIC_DISPATCH), so one binary uses SSE4, AVX2 or
// AVX-512. The per-element order of operations is that of the plain loop: Y's value, then
// + A[m][0]*B[0][n], + A[m][1]*B[1][n], ... each product and sum rounded to float (a separate
// multiply and add, never a fused one: this file is built with -ffp-contract=off), so the result
// does not depend on the vector width.
#include "reference/float_gemm.h"

#include <algorithm>

// The kernel keeps arrays of vectors, which the sizeless vectors of SVE and RVV do not allow.
#ifndef HWY_DISABLED_TARGETS
#define HWY_DISABLED_TARGETS (HWY_SVE | HWY_SVE2 | HWY_SVE_256 | HWY_SVE2_128 | HWY_RVV)
#endif
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "reference/float_gemm.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace systole::compiler::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// The main tile: MR rows x NV vectors of accumulators, in registers (32 on AVX-512, 16 below).
#if HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL
constexpr int kRows = 8;
#else
constexpr int kRows = 4;
#endif
constexpr int kVectors = 2;
constexpr int64_t kPanelBytes = 256 * 1024;  // B panel kept in L2

using D = hn::ScalableTag<float>;
using V = hn::VFromD<D>;

/// Y[0..MR)[0..NV*lanes) += A[0..MR)[0..K) * B[0..K)[0..NV*lanes); with `tail` > 0 (and NV = 1)
/// only the first `tail` columns, by masked loads and stores.
template <int MR, int NV>
HWY_INLINE void tile(const float* A, int64_t lda, const float* B, int64_t ldb, float* Y, int64_t ldy, int64_t K,
                     size_t tail = 0) {
  const D d;
  const auto L = static_cast<int64_t>(hn::Lanes(d));
  const auto mask = hn::FirstN(d, tail);
  auto load = [&](const float* p) { return tail ? hn::MaskedLoad(mask, d, p) : hn::LoadU(d, p); };
  V acc[MR][NV];  // fixed-size vectors only: the file disables the sizeless SVE/RVV targets
  for (int i = 0; i < MR; ++i)
    for (int j = 0; j < NV; ++j) acc[i][j] = load(Y + i * ldy + j * L);
  for (int64_t k = 0; k < K; ++k) {
    V b[NV];
    for (int j = 0; j < NV; ++j) b[j] = load(B + k * ldb + j * L);
    for (int i = 0; i < MR; ++i) {
      const V a = hn::Set(d, A[i * lda + k]);
      for (int j = 0; j < NV; ++j) acc[i][j] = hn::Add(acc[i][j], hn::Mul(a, b[j]));
    }
  }
  for (int i = 0; i < MR; ++i)
    for (int j = 0; j < NV; ++j) {
      if (tail)
        hn::BlendedStore(acc[i][j], mask, d, Y + i * ldy + j * L);
      else
        hn::StoreU(acc[i][j], d, Y + i * ldy + j * L);
    }
}

/// The columns [n0, n1) of MR rows: full tiles, then one-vector tiles, then the rest.
template <int MR>
void rowStrip(const float* A, int64_t lda, const float* B, int64_t ldb, float* Y, int64_t ldy, int64_t K, int64_t n0,
              int64_t n1) {
  const auto L = static_cast<int64_t>(hn::Lanes(D()));
  int64_t n = n0;
  for (; n + kVectors * L <= n1; n += kVectors * L) tile<MR, kVectors>(A, lda, B + n, ldb, Y + n, ldy, K);
  for (; n + L <= n1; n += L) tile<MR, 1>(A, lda, B + n, ldb, Y + n, ldy, K);
  if (n == n1) return;
#if HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX2  // masked loads and stores that never touch the masked-off lanes
  tile<MR, 1>(A, lda, B + n, ldb, Y + n, ldy, K, static_cast<size_t>(n1 - n));
#else  // (below AVX2 Highway emulates them with whole-vector accesses, past the end of the rows)
  for (; n < n1; ++n)
    for (int i = 0; i < MR; ++i) {
      float y = Y[i * ldy + n];
      for (int64_t k = 0; k < K; ++k) y += A[i * lda + k] * B[k * ldb + n];
      Y[i * ldy + n] = y;
    }
#endif
}

void GemmAccumulate(const float* A, int64_t lda, const float* B, int64_t ldb, float* Y, int64_t ldy, int64_t M,
                    int64_t K, int64_t N) {
  const int64_t tileColumns = kVectors * static_cast<int64_t>(hn::Lanes(D()));
  const int64_t panelColumns = std::max<int64_t>(tileColumns, kPanelBytes / static_cast<int64_t>(sizeof(float)) /
                                                                  std::max<int64_t>(K, 1) / tileColumns * tileColumns);
  for (int64_t n0 = 0; n0 < N; n0 += panelColumns) {
    const int64_t n1 = std::min(N, n0 + panelColumns);
    int64_t m = 0;
    for (; m + kRows <= M; m += kRows) rowStrip<kRows>(A + m * lda, lda, B, ldb, Y + m * ldy, ldy, K, n0, n1);
    for (; m < M; ++m) rowStrip<1>(A + m * lda, lda, B, ldb, Y + m * ldy, ldy, K, n0, n1);
  }
}

}  // namespace systole::compiler::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace systole::compiler {

HWY_EXPORT(GemmAccumulate);

void gemmAccumulate(const float* A, int64_t lda, const float* B, int64_t ldb, float* Y, int64_t ldy, int64_t M,
                    int64_t K, int64_t N) {
  HWY_DYNAMIC_DISPATCH(GemmAccumulate)(A, lda, B, ldb, Y, ldy, M, K, N);
}

/// y[m][n] (+)= sum_k a[m][k] * b[n][k] (b is N x K: Gemm's transB), without materialising the
/// transpose: a classifier's weights can be hundreds of MB, copied per call and per thread. Every
/// element is summed over k in order, skipping zeros of a, as matmulRowMajor sums it, so the
/// results are the same bit for bit. Eight columns at a time hide the adds' latency.
void matmulTransposedB(const float* a, const float* b, float* y, int64_t M, int64_t K, int64_t N) {
  constexpr int64_t kCols = 8;
  for (int64_t m = 0; m < M; ++m) {
    const float* arow = a + m * K;
    float* row = y + m * N;
    int64_t n = 0;
    for (; n + kCols <= N; n += kCols) {
      float acc[kCols];
      for (int64_t j = 0; j < kCols; ++j) acc[j] = row[n + j];
      for (int64_t k = 0; k < K; ++k) {
        const float av = arow[k];
        if (av == 0.f) continue;
        for (int64_t j = 0; j < kCols; ++j) acc[j] += av * b[(n + j) * K + k];
      }
      for (int64_t j = 0; j < kCols; ++j) row[n + j] = acc[j];
    }
    for (; n < N; ++n) {
      float acc = row[n];
      for (int64_t k = 0; k < K; ++k)
        if (arow[k] != 0.f) acc += arow[k] * b[n * K + k];
      row[n] = acc;
    }
  }
}

}  // namespace systole::compiler
#endif  // HWY_ONCE
