// Narrow accumulators on the quantizer's side: multipliers as wide as an accumulator lane holds,
// the worst-case sum of a matrix layer's channel, and the fit that coarsens only the channels whose
// sum could pass the limit (accumulator_bound.h).
#include <gtest/gtest.h>

#include <climits>
#include <cmath>
#include <random>
#include <vector>

#include "systole/compiler/accumulator_bound.h"
#include "systole/compiler/quant_math.h"

namespace systole::compiler {
namespace {

TEST(QuantizeMultiplier, NarrowMultipliersStayInTheirBits) {
  std::mt19937 rng(5);
  std::uniform_real_distribution<double> exponent(-20, 3);
  for (int bits : {15, 23, 31})
    for (int i = 0; i < 1000; ++i) {
      const double r = std::pow(2.0, exponent(rng));
      const FixedMultiplier m = quantizeMultiplier(r, bits);
      ASSERT_GE(m.multiplier, int64_t{1} << (bits - 1)) << r;
      ASSERT_LT(m.multiplier, int64_t{1} << bits) << r;
      ASSERT_NEAR(std::ldexp(m.multiplier, -m.shift) / r, 1.0, std::ldexp(1.0, -bits)) << r;
    }
  EXPECT_EQ(quantizeMultiplier(1.0, 15), (FixedMultiplier{1 << 14, 14}));
  EXPECT_EQ(quantizeMultiplier(1e6, 15), (FixedMultiplier{(1 << 15) - 1, 0}));  // r >= 2^15 saturates
}

TEST(AccumulatorBound, BiasRowPlusTheLargestActivationTimesTheWeights) {
  // [K = 3][N = 2], channels along axis 1: channel 0 = {1, -2, 3}, channel 1 = {0, 0, -4}.
  const std::vector<int8_t> q = {1, 0, -2, 0, 3, -4};
  // Bias row b - zx sum w: channel 0: 10 - 5 * 2 = 0, channel 1: -7 - 5 * -4 = 13.
  EXPECT_EQ(matrixAccumulatorBounds(q.data(), {3, 2}, 1, {10, -7}, 5),
            (std::vector<int64_t>{0 + 128 * 6, 13 + 128 * 4}));
  EXPECT_EQ(matrixAccumulatorBounds(q.data(), {3, 2}, 1, {}, 0), (std::vector<int64_t>{128 * 6, 128 * 4}));
  // int16 activations: the largest is 32768.
  EXPECT_EQ(matrixAccumulatorBounds(q.data(), {3, 2}, 1, {10, -7}, 5, 16),
            (std::vector<int64_t>{0 + 32768 * 6, 13 + 32768 * 4}));
}

TEST(AccumulatorBound, Int32FitsASaturatedBias) {
  // Channel 1's weights are near zero (a pruned channel, as in PaddleOCR's recognizer), so its
  // scale is tiny and its bias quantizes to int32's limit: any negative product would wrap the
  // sum to +2^31. The fit at int32 coarsens that channel alone, until its bias row fits.
  const std::vector<int64_t> shape = {2, 4, 1, 1};
  const std::vector<float> w = {0.5f, -0.25f, 0.1f, 0.3f, 1e-30f, -1e-30f, 1e-30f, 0};
  const std::vector<float> bias = {0.1f, -3.0f};
  const float sx = 0.01f;
  QuantizedWeights qw = quantizeWeightsPerChannel(w.data(), shape, 0, 8);
  EXPECT_EQ(quantizeBias(bias, sx, qw.scale)[1], INT32_MIN);
  const int64_t limit = INT32_MAX;
  for (int bits : {8, 16}) {
    QuantizedWeights fitted = qw;
    EXPECT_EQ(fitAccumulator(w.data(), shape, 0, 8, bias, sx, 0, limit, fitted, bits), 1) << bits;
    EXPECT_EQ(fitted.scale[0], qw.scale[0]);
    for (int64_t b :
         matrixAccumulatorBounds(fitted.data.data(), shape, 0, quantizeBias(bias, sx, fitted.scale), 0, bits))
      EXPECT_LE(b, limit) << bits;
  }
}

TEST(AccumulatorBound, FitCoarsensOnlyTheChannelsOverTheLimit) {
  // 4 output channels of 3x3x64 taps (axis 0): channel 0 small enough for int16, the others not.
  const std::vector<int64_t> shape = {4, 64, 3, 3};
  const int64_t taps = 64 * 9;
  std::mt19937 rng(9);
  std::normal_distribution<float> normal(0, 1);
  std::vector<float> w(static_cast<size_t>(4 * taps));
  for (size_t i = 0; i < w.size(); ++i) w[i] = normal(rng) * (i < static_cast<size_t>(taps) ? 0.0f : 1.0f);
  w[0] = 0.5f;  // channel 0: one tap, 127 x 128 + its bias row
  const std::vector<float> bias = {0.1f, -0.2f, 0.3f, 5.0f};
  const float sx = 0.02f;
  const int32_t zx = -40;
  const int64_t limit = 32767;
  QuantizedWeights qw = quantizeWeightsPerChannel(w.data(), shape, 0, 8);
  const QuantizedWeights before = qw;
  EXPECT_EQ(fitAccumulator(w.data(), shape, 0, 8, bias, sx, zx, limit, qw), 3);
  const auto bound = matrixAccumulatorBounds(qw.data.data(), shape, 0, quantizeBias(bias, sx, qw.scale), zx);
  for (int64_t b : bound) EXPECT_LE(b, limit);
  EXPECT_EQ(qw.scale[0], before.scale[0]);
  for (size_t c = 1; c < 4; ++c) EXPECT_GT(qw.scale[c], before.scale[c]);
  // The coarsened channels are as fine as the limit allows: within a percent of it.
  for (size_t c = 1; c < 4; ++c) EXPECT_GT(bound[c], limit * 99 / 100) << c;
  // Nothing over the limit: the fit changes nothing.
  QuantizedWeights wide = before;
  EXPECT_EQ(fitAccumulator(w.data(), shape, 0, 8, bias, sx, zx, int64_t{1} << 31, wide), 0);
  EXPECT_EQ(wide.data, before.data);
}

}  // namespace
}  // namespace systole::compiler
