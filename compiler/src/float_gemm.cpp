// Algorithm: cache-blocked, register-tiled GEMM. B is walked in column panels small enough to
// stay in the L2 cache while every row strip of A passes over them; a micro-kernel keeps a tile of
// MR rows x NV 4-float vectors of Y in registers across the whole k loop (GCC/Clang vector
// extensions, which compile to SSE on baseline x86-64 and to NEON on ARM), loading each B vector
// once per MR rows and broadcasting each A element. Edges use narrower tiles of the same kernel.
// The per-element order of operations is that of the plain loop: Y's value, then + A[m][0]*B[0][n],
// + A[m][1]*B[1][n], ... each product and sum rounded to float.
#include "float_gemm.h"

#include <algorithm>
#include <cstring>

namespace systole::compiler {

namespace {

using Vec = float __attribute__((vector_size(16)));
constexpr int kLanes = 4;
constexpr int kRows = 4;                           // MR of the main tile
constexpr int kVectors = 4;                        // NV of the main tile: 16 columns
constexpr int64_t kPanelBytes = 256 * 1024;        // B panel kept in L2

Vec load(const float* p) {
  Vec v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

void store(float* p, Vec v) { std::memcpy(p, &v, sizeof v); }

/// Y[0..MR)[0..NV*4) += A[0..MR)[0..K) * B[0..K)[0..NV*4).
template <int MR, int NV>
void tile(const float* A, int64_t lda, const float* B, int64_t ldb, float* Y, int64_t ldy, int64_t K) {
  Vec acc[MR][NV];
  for (int i = 0; i < MR; ++i)
    for (int j = 0; j < NV; ++j) acc[i][j] = load(Y + i * ldy + j * kLanes);
  for (int64_t k = 0; k < K; ++k) {
    Vec b[NV];
    for (int j = 0; j < NV; ++j) b[j] = load(B + k * ldb + j * kLanes);
    for (int i = 0; i < MR; ++i) {
      const Vec a = Vec{} + A[i * lda + k];
      for (int j = 0; j < NV; ++j) acc[i][j] += a * b[j];
    }
  }
  for (int i = 0; i < MR; ++i)
    for (int j = 0; j < NV; ++j) store(Y + i * ldy + j * kLanes, acc[i][j]);
}

/// The columns [n0, n1) of MR rows: full tiles, then one-vector tiles, then single columns.
template <int MR>
void rowStrip(const float* A, int64_t lda, const float* B, int64_t ldb, float* Y, int64_t ldy, int64_t K, int64_t n0,
              int64_t n1) {
  int64_t n = n0;
  for (; n + kVectors * kLanes <= n1; n += kVectors * kLanes) tile<MR, kVectors>(A, lda, B + n, ldb, Y + n, ldy, K);
  for (; n + kLanes <= n1; n += kLanes) tile<MR, 1>(A, lda, B + n, ldb, Y + n, ldy, K);
  for (; n < n1; ++n)
    for (int i = 0; i < MR; ++i) {
      float y = Y[i * ldy + n];
      for (int64_t k = 0; k < K; ++k) y += A[i * lda + k] * B[k * ldb + n];
      Y[i * ldy + n] = y;
    }
}

}  // namespace

void gemmAccumulate(const float* A, int64_t lda, const float* B, int64_t ldb, float* Y, int64_t ldy, int64_t M, int64_t K,
                    int64_t N) {
  const int64_t panelColumns = std::max<int64_t>(
      kVectors * kLanes, kPanelBytes / static_cast<int64_t>(sizeof(float)) / std::max<int64_t>(K, 1) / (kVectors * kLanes) * (kVectors * kLanes));
  for (int64_t n0 = 0; n0 < N; n0 += panelColumns) {
    const int64_t n1 = std::min(N, n0 + panelColumns);
    int64_t m = 0;
    for (; m + kRows <= M; m += kRows) rowStrip<kRows>(A + m * lda, lda, B, ldb, Y + m * ldy, ldy, K, n0, n1);
    for (; m < M; ++m) rowStrip<1>(A + m * lda, lda, B, ldb, Y + m * ldy, ldy, K, n0, n1);
  }
}

}  // namespace systole::compiler
