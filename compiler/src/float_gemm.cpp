// Algorithm: cache-blocked, register-tiled GEMM. B is walked in column panels small enough to
// stay in the L2 cache while every row strip of A passes over them; a micro-kernel keeps a tile of
// MR rows x NV vectors of Y in registers across the whole k loop, loading each B vector once per
// MR rows and broadcasting each A element. Edges use narrower tiles of the same kernel. The vectors
// are Highway's: the kernel is built once per SIMD target (foreach_target) and the widest the host
// supports is chosen at run time (HWY_DYNAMIC_DISPATCH), so one binary uses SSE4, AVX2 or
// AVX-512. The per-element order of operations is that of the plain loop: Y's value, then
// + A[m][0]*B[0][n], + A[m][1]*B[1][n], ... each product and sum rounded to float (a separate
// multiply and add, never a fused one: this file is built with -ffp-contract=off), so the result
// does not depend on the vector width.
#include "float_gemm.h"

#include <algorithm>

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "float_gemm.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace systole::compiler::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

constexpr int kRows = 4;                     // MR of the main tile
constexpr int kVectors = 2;                  // NV of the main tile
constexpr int64_t kPanelBytes = 256 * 1024;  // B panel kept in L2

using D = hn::ScalableTag<float>;

/// Y[0..MR)[0..NV*lanes) += A[0..MR)[0..K) * B[0..K)[0..NV*lanes). The accumulators are named
/// variables (not an array of vectors) so that every Highway target can hold them in registers.
template <int MR, int NV>
HWY_INLINE void tile(const float* A, int64_t lda, const float* B, int64_t ldb, float* Y, int64_t ldy, int64_t K) {
  static_assert(MR >= 1 && MR <= 4 && NV >= 1 && NV <= 2);
  const D d;
  using V = hn::VFromD<D>;
  const auto L = static_cast<int64_t>(hn::Lanes(d));
  auto at = [&](int i, int j) { return Y + i * ldy + j * L; };
  auto y00 = hn::LoadU(d, at(0, 0)), y01 = NV > 1 ? hn::LoadU(d, at(0, 1)) : hn::Zero(d);
  auto y10 = MR > 1 ? hn::LoadU(d, at(1, 0)) : hn::Zero(d), y11 = MR > 1 && NV > 1 ? hn::LoadU(d, at(1, 1)) : hn::Zero(d);
  auto y20 = MR > 2 ? hn::LoadU(d, at(2, 0)) : hn::Zero(d), y21 = MR > 2 && NV > 1 ? hn::LoadU(d, at(2, 1)) : hn::Zero(d);
  auto y30 = MR > 3 ? hn::LoadU(d, at(3, 0)) : hn::Zero(d), y31 = MR > 3 && NV > 1 ? hn::LoadU(d, at(3, 1)) : hn::Zero(d);
  for (int64_t k = 0; k < K; ++k) {
    const auto b0 = hn::LoadU(d, B + k * ldb);
    const auto b1 = NV > 1 ? hn::LoadU(d, B + k * ldb + L) : hn::Zero(d);
    auto step = [&](int i, V& v0, V& v1) {
      const auto a = hn::Set(d, A[i * lda + k]);
      v0 = hn::Add(v0, hn::Mul(a, b0));
      if constexpr (NV > 1) v1 = hn::Add(v1, hn::Mul(a, b1));
    };
    step(0, y00, y01);
    if constexpr (MR > 1) step(1, y10, y11);
    if constexpr (MR > 2) step(2, y20, y21);
    if constexpr (MR > 3) step(3, y30, y31);
  }
  auto put = [&](int i, V v0, V v1) {
    hn::StoreU(v0, d, at(i, 0));
    if constexpr (NV > 1) hn::StoreU(v1, d, at(i, 1));
  };
  put(0, y00, y01);
  if constexpr (MR > 1) put(1, y10, y11);
  if constexpr (MR > 2) put(2, y20, y21);
  if constexpr (MR > 3) put(3, y30, y31);
}

/// The columns [n0, n1) of MR rows: full tiles, then one-vector tiles, then single columns.
template <int MR>
void rowStrip(const float* A, int64_t lda, const float* B, int64_t ldb, float* Y, int64_t ldy, int64_t K, int64_t n0,
              int64_t n1) {
  const auto L = static_cast<int64_t>(hn::Lanes(D()));
  int64_t n = n0;
  for (; n + kVectors * L <= n1; n += kVectors * L) tile<MR, kVectors>(A, lda, B + n, ldb, Y + n, ldy, K);
  for (; n + L <= n1; n += L) tile<MR, 1>(A, lda, B + n, ldb, Y + n, ldy, K);
  for (; n < n1; ++n)
    for (int i = 0; i < MR; ++i) {
      float y = Y[i * ldy + n];
      for (int64_t k = 0; k < K; ++k) y += A[i * lda + k] * B[k * ldb + n];
      Y[i * ldy + n] = y;
    }
}

void GemmAccumulate(const float* A, int64_t lda, const float* B, int64_t ldb, float* Y, int64_t ldy, int64_t M, int64_t K,
                    int64_t N) {
  const int64_t tileColumns = kVectors * static_cast<int64_t>(hn::Lanes(D()));
  const int64_t panelColumns = std::max<int64_t>(
      tileColumns, kPanelBytes / static_cast<int64_t>(sizeof(float)) / std::max<int64_t>(K, 1) / tileColumns * tileColumns);
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

void gemmAccumulate(const float* A, int64_t lda, const float* B, int64_t ldb, float* Y, int64_t ldy, int64_t M, int64_t K,
                    int64_t N) {
  HWY_DYNAMIC_DISPATCH(GemmAccumulate)(A, lda, B, ldb, Y, ldy, M, K, N);
}

}  // namespace systole::compiler
#endif  // HWY_ONCE
