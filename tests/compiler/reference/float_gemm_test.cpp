// The blocked float GEMM (src/float_gemm.h) equals the plain m-k-n loop bit for bit on every SIMD
// target Highway built and this host supports, over shapes that exercise every tile edge (rows not
// a multiple of 4 or 8, columns not a multiple of any vector: the masked tail, panels split by a
// long k, row strides wider than the rows).
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "reference/float_gemm.h"
#include "hwy/targets.h"

namespace systole::compiler {
namespace {

TEST(FloatGemm, EqualsThePlainLoopBitForBitOnEveryTarget) {
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  const int64_t shapes[][3] = {{1, 1, 1},     {3, 5, 7},      {4, 9, 16},   {5, 17, 21}, {8, 64, 100},
                               {7, 3000, 37}, {13, 27, 1000}, {16, 33, 47}, {17, 8, 65}, {9, 2, 3}};
  const auto targets = hwy::SupportedAndGeneratedTargets();
  ASSERT_FALSE(targets.empty());
  for (const int64_t target : targets)
    for (const auto& [M, K, N] : shapes) {
      hwy::SetSupportedTargetsForTest(target);
      const int64_t lda = K + 2, ldb = N + 3, ldy = N + 1;
      std::vector<float> A(static_cast<size_t>(M * lda)), B(static_cast<size_t>(K * ldb)),
          Y(static_cast<size_t>(M * ldy));
      for (float& x : A) x = u(rng);
      for (float& x : B) x = u(rng);
      for (float& x : Y) x = u(rng);
      std::vector<float> want = Y;
      for (int64_t m = 0; m < M; ++m)
        for (int64_t k = 0; k < K; ++k)
          for (int64_t n = 0; n < N; ++n)
            want[static_cast<size_t>(m * ldy + n)] +=
                A[static_cast<size_t>(m * lda + k)] * B[static_cast<size_t>(k * ldb + n)];
      gemmAccumulate(A.data(), lda, B.data(), ldb, Y.data(), ldy, M, K, N);
      EXPECT_EQ(Y, want) << hwy::TargetName(target) << ": " << M << "x" << K << "x" << N;
    }
  hwy::SetSupportedTargetsForTest(0);
}

}  // namespace
}  // namespace systole::compiler
