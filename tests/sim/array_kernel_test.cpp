// The array product's SIMD kernel (sim/array_kernel.h) equals the scalar reference bit for bit on
// every SIMD target Highway built and this host supports, over random shapes: odd reduction
// lengths (a half-empty last pair), widths that are not a multiple of any vector (tails), row
// strides wider than the rows, accumulation that wraps modulo 2^32, and int8 and int16 activations.
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "hwy/targets.h"
#include "systole/sim/array_kernel.h"

namespace systole::sim {
namespace {

void expectKernelMatchesScalar(std::mt19937& rng, int64_t K, int64_t N, const char* target, int activationBits) {
  std::uniform_int_distribution<int> byte(-128, 127), count(1, 70), pad(0, 5);
  std::uniform_int_distribution<int> activation(-(1 << (activationBits - 1)), (1 << (activationBits - 1)) - 1);
  std::uniform_int_distribution<uint32_t> word;
  ArrayWeights w(K, N);
  std::vector<Lane> row(static_cast<size_t>(N));
  for (int64_t k = 0; k < K; ++k) {
    for (auto& x : row) x = static_cast<Lane>(byte(rng));
    w.setRow(k, row.data());
  }
  const int64_t rows = count(rng), aStride = K + pad(rng), outStride = N + pad(rng);
  std::vector<Lane> a(static_cast<size_t>(rows * aStride));
  for (auto& x : a) x = static_cast<Lane>(activation(rng));
  std::vector<uint32_t> initial(static_cast<size_t>(rows * outStride));
  for (auto& x : initial) x = word(rng);  // near 2^32 as often as not: the sums wrap
  for (const bool accumulate : {false, true}) {
    std::vector<uint32_t> want = initial, got = initial;
    matmulRowsScalar(w, a.data(), aStride, rows, want.data(), outStride, accumulate);
    matmulRows(w, a.data(), aStride, rows, got.data(), outStride, accumulate);
    ASSERT_EQ(got, want) << target << ": K=" << K << " N=" << N << " rows=" << rows << " accumulate=" << accumulate
                         << " activations int" << activationBits;
  }
}

TEST(ArrayKernel, EverySimdTargetEqualsTheScalarLoop) {
  std::mt19937 rng(13);
  const auto targets = hwy::SupportedAndGeneratedTargets();
  ASSERT_FALSE(targets.empty());
  for (const int64_t target : targets) {
    hwy::SetSupportedTargetsForTest(target);
    for (const int64_t K : {1, 2, 3, 4, 5, 7, 8, 15, 16, 17, 32, 33, 64})
      for (const int64_t N : {1, 3, 4, 5, 8, 9, 15, 16, 17, 31, 32, 33, 64})
        for (const int bits : {8, 16}) expectKernelMatchesScalar(rng, K, N, hwy::TargetName(target), bits);
  }
  hwy::SetSupportedTargetsForTest(0);
}

TEST(ArrayKernel, ExtremeValuesAreExact) {
  // Every product -128 x -128 over 64 rows: the largest reduction an instruction can produce.
  const int64_t K = 64, N = 16;
  ArrayWeights w(K, N);
  const std::vector<Lane> row(static_cast<size_t>(N), -128);
  for (int64_t k = 0; k < K; ++k) w.setRow(k, row.data());
  const std::vector<Lane> a(static_cast<size_t>(K), -128);
  std::vector<uint32_t> out(static_cast<size_t>(N), 0xFFFFFFFFu);
  matmulRows(w, a.data(), K, 1, out.data(), N, true);
  for (uint32_t x : out) EXPECT_EQ(x, static_cast<uint32_t>(K * 128 * 128 - 1));
  // int16 activations: every product -32768 x -128, 2^28 over the 64 rows.
  const std::vector<Lane> wide(static_cast<size_t>(K), -32768);
  matmulRows(w, wide.data(), K, 1, out.data(), N, false);
  for (uint32_t x : out) EXPECT_EQ(x, static_cast<uint32_t>(K * 32768 * 128));
}

TEST(ArrayKernel, ClearZeroesBothLayouts) {
  ArrayWeights w(3, 5);
  const std::vector<Lane> row = {1, -2, 3, -4, 5};
  for (int64_t k = 0; k < 3; ++k) w.setRow(k, row.data());
  w.clear();
  const std::vector<Lane> a = {7, 7, 7};
  std::vector<uint32_t> out(5, 9);
  matmulRows(w, a.data(), 3, 1, out.data(), 5, false);
  EXPECT_EQ(out, std::vector<uint32_t>(5, 0));
  for (int64_t i = 0; i < 15; ++i) EXPECT_EQ(w.plain()[i], 0);
}

TEST(ArrayKernel, NarrowWeightRegistersKeepTheLowBits) {
  // An int4-only array (array.weight_bits = 4) holds a lane's low nibble, two's complement, in
  // both layouts, and the products use it: 0x17 -> 7, 0x08 -> -8, -1 -> -1, 0x7F -> -1, -128 -> 0.
  ArrayWeights w(1, 5, 4);
  const std::vector<Lane> row = {0x17, 0x08, -1, 0x7F, -128};
  w.setRow(0, row.data());
  const std::vector<int8_t> want = {7, -8, -1, -1, 0};
  for (size_t n = 0; n < want.size(); ++n) EXPECT_EQ(w.plain()[n], want[n]) << n;
  const std::vector<Lane> a = {3};
  std::vector<uint32_t> out(5, 0);
  matmulRows(w, a.data(), 1, 1, out.data(), 5, false);
  for (size_t n = 0; n < want.size(); ++n) EXPECT_EQ(static_cast<int32_t>(out[n]), 3 * want[n]) << n;
}

}  // namespace
}  // namespace systole::sim
