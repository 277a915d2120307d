// quantizeMultiplier, activation parameters, weight and bias quantization and the fused
// activation clamps, against the formulas of docs/quantized-ops.md.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "quantize/bias_correction.h"
#include "quant_test_util.h"
#include "systole/compiler/quant_math.h"
#include "systole/isa/arith.h"
#include "systole/isa/diagnostic.h"

namespace systole::compiler {
namespace {

constexpr int64_t k2p30 = int64_t{1} << 30;
constexpr int64_t k2p31 = int64_t{1} << 31;

double realOf(const FixedMultiplier& m) { return std::ldexp(static_cast<double>(m.multiplier), -m.shift); }

void expectNormalized(double r, const FixedMultiplier& m) {
  SCOPED_TRACE("r = " + std::to_string(r));
  EXPECT_GE(m.multiplier, k2p30);
  EXPECT_LT(m.multiplier, k2p31);
  EXPECT_GE(m.shift, 0);
  EXPECT_LE(m.shift, 63);
  EXPECT_LE(std::fabs(realOf(m) - r), std::ldexp(r, -30)) << "M=" << m.multiplier << " S=" << m.shift;
  // M is the nearest integer to r * 2^S.
  EXPECT_LE(std::fabs(static_cast<double>(m.multiplier) - std::ldexp(r, m.shift)), 0.5);
}

TEST(QuantizeMultiplier, RandomMultipliersAreAccurateToTwoToTheMinus30) {
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> exponent(-33.0, 30.9);
  for (int i = 0; i < 20000; ++i) {
    const double r = std::exp2(exponent(rng));
    expectNormalized(r, quantizeMultiplier(r));
  }
}

TEST(QuantizeMultiplier, TypicalScaleRatios) {
  for (double r : {1.0, 0.5, 0.25, 0.75, 1.0 / 3.0, 0.0072474273, 1e-3, 1e-6, 3.9e-9, 2.0, 1000.0})
    expectNormalized(r, quantizeMultiplier(r));
  EXPECT_EQ(quantizeMultiplier(1.0), (FixedMultiplier{static_cast<int32_t>(k2p30), 30}));
  EXPECT_EQ(quantizeMultiplier(0.5), (FixedMultiplier{static_cast<int32_t>(k2p30), 31}));
}

TEST(QuantizeMultiplier, RoundingUpToTwoToThe31Renormalizes) {
  const double r = std::nextafter(1.0, 0.0);  // f * 2^31 rounds to 2^31
  const FixedMultiplier m = quantizeMultiplier(r);
  EXPECT_EQ(m, (FixedMultiplier{static_cast<int32_t>(k2p30), 30}));
  expectNormalized(r, m);
}

TEST(QuantizeMultiplier, ZeroGivesZero) { EXPECT_EQ(quantizeMultiplier(0.0), (FixedMultiplier{0, 0})); }

TEST(QuantizeMultiplier, TinyMultipliersClampTheShiftAt63) {
  // Smallest r still normalized: 2^-33 (M = 2^30, S = 63).
  EXPECT_EQ(quantizeMultiplier(std::ldexp(1.0, -33)), (FixedMultiplier{static_cast<int32_t>(k2p30), 63}));
  for (double r : {std::ldexp(1.0, -34), 1e-12, 3e-15, std::ldexp(1.0, -60)}) {
    const FixedMultiplier m = quantizeMultiplier(r);
    EXPECT_EQ(m.shift, 63);
    EXPECT_LT(m.multiplier, k2p30);
    EXPECT_EQ(m.multiplier, std::llround(std::ldexp(r, 63)));
  }
  EXPECT_EQ(quantizeMultiplier(1e-30), (FixedMultiplier{0, 63}));
  EXPECT_EQ(quantizeMultiplier(std::numeric_limits<double>::denorm_min()), (FixedMultiplier{0, 63}));
}

TEST(QuantizeMultiplier, HugeMultipliersSaturateWithShiftZero) {
  const FixedMultiplier justBelow = quantizeMultiplier(std::ldexp(1.0, 31) - 1.0);
  EXPECT_EQ(justBelow, (FixedMultiplier{static_cast<int32_t>(k2p31 - 1), 0}));
  for (double r :
       {std::ldexp(1.0, 31), 1e12, std::numeric_limits<double>::max(), std::numeric_limits<double>::infinity()})
    EXPECT_EQ(quantizeMultiplier(r), (FixedMultiplier{static_cast<int32_t>(k2p31 - 1), 0}));
}

TEST(QuantizeMultiplier, RejectsNegativeAndNaN) {
  EXPECT_THROW(quantizeMultiplier(-0.5), Error);
  EXPECT_THROW(quantizeMultiplier(std::nan("")), Error);
}

TEST(QuantizeMultiplier, RequantizeWithItApproximatesTheRealProduct) {
  // acc * r through arith::requantize is the correctly rounded product (for values in range).
  std::mt19937 rng(3);
  std::uniform_int_distribution<int32_t> acc(-20000, 20000);
  for (double r : {0.0037, 0.0101, 1.0 / 255.0}) {
    const FixedMultiplier m = quantizeMultiplier(r);
    for (int i = 0; i < 2000; ++i) {
      const int32_t a = acc(rng);
      const double exact = a * r;
      if (std::fabs(exact) > 120) continue;
      const int8_t q = isa::arith::requantize(a, m.multiplier, m.shift, 0, -128, 127);
      EXPECT_LE(std::fabs(q - exact), 0.5 + 1e-6) << "acc=" << a << " r=" << r;
    }
  }
}

TEST(RoundHalfToEven, Ties) {
  EXPECT_EQ(roundHalfToEven(0.5), 0.0);
  EXPECT_EQ(roundHalfToEven(1.5), 2.0);
  EXPECT_EQ(roundHalfToEven(2.5), 2.0);
  EXPECT_EQ(roundHalfToEven(-0.5), 0.0);
  EXPECT_EQ(roundHalfToEven(-1.5), -2.0);
  EXPECT_EQ(roundHalfToEven(-2.5), -2.0);
  EXPECT_EQ(roundHalfToEven(2.4999), 2.0);
  EXPECT_EQ(roundHalfToEven(-2.5001), -3.0);
  EXPECT_EQ(roundHalfToEven(1e17 + 2), 1e17 + 2);
}

TEST(RoundHalfToEven, EqualsTheFloorDefinitionBitForBit) {
  auto byFloor = [](double x) {  // the definition: floor, then the tie to the even neighbour
    const double f = std::floor(x);
    const double d = x - f;
    if (d > 0.5) return f + 1;
    if (d < 0.5) return f;
    return std::fmod(f, 2.0) == 0 ? f : f + 1;
  };
  std::mt19937_64 rng(5);
  std::vector<double> xs = {0.0,
                            -0.0,
                            0.49999999999999994,
                            -0.49999999999999994,
                            4503599627370495.5,
                            -4503599627370495.5,
                            4503599627370496.0,
                            9007199254740993.0,
                            1e300,
                            -1e300,
                            std::numeric_limits<double>::infinity(),
                            -std::numeric_limits<double>::infinity(),
                            std::numeric_limits<double>::denorm_min()};
  for (int i = 0; i < 100000; ++i) {
    const double scale = std::ldexp(1.0, static_cast<int>(rng() % 70) - 10);
    xs.push_back((static_cast<double>(rng() % 2000001) - 1e6) / 1e6 * scale);
    xs.push_back(static_cast<double>(static_cast<int64_t>(rng() % 4001) - 2000) / 2);  // ties
  }
  for (double x : xs) {
    const double got = roundHalfToEven(x), want = byFloor(x);
    EXPECT_EQ(std::memcmp(&got, &want, sizeof got), 0) << x;
  }
  EXPECT_TRUE(std::isnan(roundHalfToEven(std::numeric_limits<double>::quiet_NaN())));
}

TEST(ActivationQuant, RangeIsExtendedToZero) {
  const ActivationQuant pos = chooseActivationQuant(2.0, 6.0);  // becomes [0, 6]
  EXPECT_FLOAT_EQ(pos.scale, 6.0f / 255.0f);
  EXPECT_EQ(pos.zero_point, -128);
  const ActivationQuant neg = chooseActivationQuant(-4.0, -1.0);  // becomes [-4, 0]
  EXPECT_FLOAT_EQ(neg.scale, 4.0f / 255.0f);
  EXPECT_EQ(neg.zero_point, 127);
}

TEST(ActivationQuant, ZeroIsExactAndTheEndsAreRepresentable) {
  std::mt19937 rng(11);
  std::uniform_real_distribution<double> d(-50.0, 50.0);
  for (int i = 0; i < 1000; ++i) {
    double lo = d(rng), hi = d(rng);
    if (lo > hi) std::swap(lo, hi);
    const ActivationQuant q = chooseActivationQuant(lo, hi);
    ASSERT_GE(q.zero_point, -128);
    ASSERT_LE(q.zero_point, 127);
    EXPECT_EQ(quantizeFloat(0.0f, q.scale, q.zero_point), q.zero_point);
    const double l = std::min(lo, 0.0), h = std::max(hi, 0.0);
    // Both ends of the range land within one step of the int8 ends.
    EXPECT_NEAR(q.scale * (-128 - q.zero_point), l, 1.01 * q.scale);
    EXPECT_NEAR(q.scale * (127 - q.zero_point), h, 1.01 * q.scale);
  }
}

TEST(ActivationQuant, DegenerateAndNonFiniteRanges) {
  const ActivationQuant z = chooseActivationQuant(0, 0);
  EXPECT_EQ(z.scale, 1.0f);
  EXPECT_EQ(z.zero_point, 0);
  EXPECT_GT(chooseActivationQuant(0, 1e-44).scale, 0.0f);  // never a zero scale
  EXPECT_THROW(chooseActivationQuant(0, std::numeric_limits<double>::infinity()), Error);
  EXPECT_THROW(chooseActivationQuant(std::nan(""), 1), Error);
}

TEST(QuantizeFloat, RoundsHalfToEvenAndSaturates) {
  EXPECT_EQ(quantizeFloat(1.25f, 0.5f, 0), 2);    // 2.5 -> 2
  EXPECT_EQ(quantizeFloat(1.75f, 0.5f, 0), 4);    // 3.5 -> 4
  EXPECT_EQ(quantizeFloat(-1.25f, 0.5f, 0), -2);  // -2.5 -> -2
  EXPECT_EQ(quantizeFloat(-1.75f, 0.5f, 3), -1);  // -3.5 -> -4, + 3
  EXPECT_EQ(quantizeFloat(1000.0f, 0.5f, 0), 127);
  EXPECT_EQ(quantizeFloat(-1000.0f, 0.5f, 10), -128);
  EXPECT_EQ(quantizeFloat(std::numeric_limits<float>::infinity(), 1.0f, 0), 127);
  EXPECT_EQ(quantizeFloat(std::nanf(""), 1.0f, 5), 5);
}

TEST(WeightQuant, PerChannelSymmetric) {
  // [2 channels][3] along axis 0, and the same data viewed [3][2] along axis 1.
  const std::vector<float> w = {0.3f, -1.0f, 0.2f, 0.0f, 0.0f, 0.0f};
  const QuantizedWeights q = quantizeWeightsPerChannel(w.data(), {2, 3}, 0);
  ASSERT_EQ(q.scale.size(), 2u);
  EXPECT_FLOAT_EQ(q.scale[0], 1.0f / 127.0f);
  EXPECT_EQ(q.scale[1], 1.0f);                                      // an all-zero channel
  EXPECT_EQ(q.data, (std::vector<int8_t>{38, -127, 25, 0, 0, 0}));  // 38.1, -127, 25.4

  const QuantizedWeights t = quantizeWeightsPerChannel(w.data(), {3, 2}, 1);
  ASSERT_EQ(t.scale.size(), 2u);  // columns: {0.3, 0.2, 0} and {-1, 0, 0}
  EXPECT_FLOAT_EQ(t.scale[0], 0.3f / 127.0f);
  EXPECT_FLOAT_EQ(t.scale[1], 1.0f / 127.0f);
  EXPECT_EQ(t.data, (std::vector<int8_t>{127, -127, 85, 0, 0, 0}));  // 0.2 / (0.3 / 127) = 84.67
}

TEST(WeightQuant, ConvLayoutAxis0RoundTrips) {
  std::mt19937 rng(5);
  const std::vector<int64_t> shape = {4, 3, 3, 3};
  std::vector<float> w = test::randomFloats(4 * 27, rng);
  for (int i = 0; i < 27; ++i) w[static_cast<size_t>(27 + i)] *= 10;  // channel 1 is larger
  const QuantizedWeights q = quantizeWeightsPerChannel(w.data(), shape, 0);
  ASSERT_EQ(q.scale.size(), 4u);
  EXPECT_GT(q.scale[1], 5 * q.scale[0]);
  for (size_t i = 0; i < w.size(); ++i) {
    const float s = q.scale[i / 27];
    EXPECT_NEAR(q.data[i] * s, w[i], 0.5f * s + 1e-7f);
    EXPECT_GE(q.data[i], -127);
  }
  EXPECT_THROW(quantizeWeightsPerChannel(w.data(), shape, 4), Error);
}

TEST(WeightQuant, Int4IsSymmetricInSevenLevelsPerSide) {
  const std::vector<float> w = {0.875f, -0.4375f, 0.125f, 0.0625f};  // exact in binary
  const QuantizedWeights q = quantizeWeightsPerChannel(w.data(), {1, 4}, 0, 4);
  ASSERT_EQ(q.scale.size(), 1u);
  EXPECT_FLOAT_EQ(q.scale[0], 0.125f);                    // 0.875 / 7
  EXPECT_EQ(q.data, (std::vector<int8_t>{7, -4, 1, 0}));  // -3.5 and 0.5 round half to even
  EXPECT_THROW(quantizeWeightsPerChannel(w.data(), {1, 4}, 0, 9), Error);
}

// Bias correction's output shift, (W_q s - W) . E[x] per output channel, long-hand: a grouped
// Conv's channel reads only its group's inputs; Gemm's transB weights are read [N][K].
TEST(BiasCorrection, OutputShiftIsTheRoundingErrorTimesTheInputMeans) {
  // Conv [OC 2][ICg 1][1][1], group 2: channel c reads input channel c only.
  const std::vector<float> w = {0.7f, 0.33f};
  const QuantizedWeights q = quantizeWeightsPerChannel(w.data(), {2, 1, 1, 1}, 0, 4);  // 7 * 0.1, 7 * (0.33 / 7)
  const std::vector<double> mean = {2.0, -3.0};
  const auto shift = convOutputShift(w.data(), q, {2, 1, 1, 1}, 2, mean);
  ASSERT_EQ(shift.size(), 2u);
  EXPECT_NEAR(shift[0], (7 * double{q.scale[0]} - double{w[0]}) * 2.0, 1e-9);
  EXPECT_NEAR(shift[1], (7 * double{q.scale[1]} - double{w[1]}) * -3.0, 1e-9);

  // Matrix [K 2][N 1] from transposed floats [N 1][K 2]: column 0 is {0.7, 0.25}.
  const std::vector<float> wt = {0.7f, 0.25f};
  const QuantizedWeights m = quantizeWeightsPerChannel(wt.data(), {2, 1}, 1, 4);  // levels 7 and 2 (2.5: even)
  EXPECT_EQ(m.data, (std::vector<int8_t>{7, 2}));
  const auto col = matrixOutputShift(wt.data(), m, 2, 1, true, {1.0, 4.0});
  ASSERT_EQ(col.size(), 1u);
  EXPECT_NEAR(col[0], (2 * double{m.scale[0]} - 0.25) * 4.0 + (7 * double{m.scale[0]} - 0.7) * 1.0, 1e-7);
}

TEST(BiasQuant, ScaleIsInputTimesWeightScale) {
  const std::vector<int32_t> q = quantizeBias({1.0f, -0.5f, 0.0f}, 0.1f, {0.01f, 0.02f, 0.5f});
  EXPECT_EQ(q, (std::vector<int32_t>{1000, -250, 0}));
  const std::vector<int32_t> sat = quantizeBias({1e30f, -1e30f}, 1e-3f, {1e-3f, 1e-3f});
  EXPECT_EQ(sat, (std::vector<int32_t>{std::numeric_limits<int32_t>::max(), std::numeric_limits<int32_t>::min()}));
  EXPECT_THROW(quantizeBias({1.0f}, 1.0f, {1.0f, 2.0f}), Error);
}

TEST(ActivationClamp, ReluAndClip) {
  const ActivationQuant q{0.05f, -20};
  EXPECT_EQ(reluClamp(q).lo, -20);
  EXPECT_EQ(reluClamp(q).hi, 127);
  const ActivationClamp relu6 = clipClamp(q, 0.0, 6.0);  // -20 + 120 = 100
  EXPECT_EQ(relu6.lo, -20);
  EXPECT_EQ(relu6.hi, 100);
  const ActivationClamp wide = clipClamp(q, -100.0, 100.0);  // saturates to the int8 range
  EXPECT_EQ(wide.lo, -128);
  EXPECT_EQ(wide.hi, 127);
  const ActivationClamp inf =
      clipClamp(q, -std::numeric_limits<double>::infinity(), std::numeric_limits<double>::infinity());
  EXPECT_EQ(inf.lo, -128);
  EXPECT_EQ(inf.hi, 127);
}

TEST(Window, PadsAreRead) {
  Node n;
  n.attrs["pads"] = std::vector<int64_t>{1, 2, 3, 4};
  n.attrs["strides"] = std::vector<int64_t>{2, 1};
  const Window2d w = windowOf(n, {1, 1, 8, 9}, {1, 1, 5, 13}, {3, 3});
  EXPECT_EQ(w.pad_top, 1);
  EXPECT_EQ(w.pad_left, 2);
  EXPECT_EQ(w.pad_bottom, 3);
  EXPECT_EQ(w.pad_right, 4);
  EXPECT_EQ(w.stride_h, 2);
  EXPECT_TRUE(w.windowsInsidePadded());

  Node oneD;  // N C W
  const Window2d d = windowOf(oneD, {1, 2, 10}, {1, 2, 8}, {3});
  EXPECT_EQ(d.in_h, 1);
  EXPECT_EQ(d.k_h, 1);
  EXPECT_EQ(d.k_w, 3);
  EXPECT_THROW(windowOf(oneD, {1, 2, 3, 4, 5}, {1, 2, 3, 4, 5}, {1, 1, 1}), Error);
}

}  // namespace
}  // namespace systole::compiler
