// The shared integer arithmetic (arith.h) against straightforward wide-integer references written
// from docs/isa-semantics.md.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "systole/isa/arith.h"

namespace systole::isa::arith {
namespace {

using i128 = __int128;

i128 floorDiv(i128 a, i128 b) {
  i128 q = a / b;
  if (a % b != 0 && ((a < 0) != (b < 0))) --q;
  return q;
}

/// floor((v + 2^(s-1)) / 2^s), computed in 128 bits so the addition cannot overflow.
int64_t refShift(int64_t v, int s) {
  if (s == 0) return v;
  return static_cast<int64_t>(floorDiv(i128{v} + (i128{1} << (s - 1)), i128{1} << s));
}

/// docs/isa-semantics.md, requantize, one lane.
int8_t refRequantize(int32_t acc, int32_t m, int32_t shift, int32_t zp, int32_t lo, int32_t hi) {
  const int s = shift & 63;
  const i128 p = i128{acc} * i128{m};
  const i128 r = s == 0 ? p : floorDiv(p + (i128{1} << (s - 1)), i128{1} << s);
  i128 y = r + zp;
  y = y < lo ? i128{lo} : y;
  y = y > hi ? i128{hi} : y;
  y = y < -128 ? -128 : y > 127 ? 127 : y;
  return static_cast<int8_t>(y);
}

/// The same in long double (exact here: |p| <= 2^62 needs at most 64 significand bits).
int8_t refRequantizeLd(int32_t acc, int32_t m, int32_t shift, int32_t zp, int32_t lo, int32_t hi) {
  const int s = shift & 63;
  const long double p = static_cast<long double>(acc) * static_cast<long double>(m);
  const long double r = std::floor(std::ldexp(p, -s) + (s == 0 ? 0.0L : 0.5L));
  long double y = r + zp;
  y = std::min<long double>(std::max<long double>(y, lo), hi);
  y = std::min<long double>(std::max<long double>(y, -128), 127);
  return static_cast<int8_t>(y);
}

int32_t refWrap32(i128 v) {
  const i128 m = i128{1} << 32;
  i128 r = ((v % m) + m) % m;
  if (r >= (i128{1} << 31)) r -= m;
  return static_cast<int32_t>(r);
}

constexpr int64_t kMin64 = std::numeric_limits<int64_t>::min();
constexpr int64_t kMax64 = std::numeric_limits<int64_t>::max();
constexpr int32_t kMin32 = std::numeric_limits<int32_t>::min();
constexpr int32_t kMax32 = std::numeric_limits<int32_t>::max();

// Usable in constant expressions (the RTL checks and the simulator fold them).
static_assert(roundingShiftRight(5, 1) == 3);
static_assert(roundingShiftRight(-5, 1) == -2);
static_assert(wrap32(int64_t{1} << 31) == kMin32);
static_assert(requantize(100, 1 << 30, 31, 0, -128, 127) == 50);
static_assert(mac(kMax32, 1, 1) == kMin32);

// ---------------------------------------------------------------------------------------------
// roundingShiftRight

// types.accumulator: int32 keeps the 32-bit result (it wrapped already); a narrower accumulator
// saturates it to its range.
TEST(Arith, StoreAccumulatorSaturatesNarrowWidths) {
  for (int32_t v : {0, 1, -1, 32767, -32768, 32768, -32769, 8388607, -8388608, 8388608, INT32_MAX, INT32_MIN})
    EXPECT_EQ(storeAccumulator(v, 32), v);
  EXPECT_EQ(storeAccumulator(32767, 16), 32767);
  EXPECT_EQ(storeAccumulator(32768, 16), 32767);
  EXPECT_EQ(storeAccumulator(-32768, 16), -32768);
  EXPECT_EQ(storeAccumulator(-32769, 16), -32768);
  EXPECT_EQ(storeAccumulator(INT32_MAX, 24), 8388607);
  EXPECT_EQ(storeAccumulator(INT32_MIN, 24), -8388608);
  EXPECT_EQ(storeAccumulator(-5, 24), -5);
  EXPECT_EQ(accumulatorMax(16), 32767);
  EXPECT_EQ(accumulatorMax(32), int64_t{INT32_MAX});
}

TEST(Arith, RoundingShiftRightTiesTowardPlusInfinity) {
  EXPECT_EQ(roundingShiftRight(1, 1), 1);    // 0.5 -> 1
  EXPECT_EQ(roundingShiftRight(-1, 1), 0);   // -0.5 -> 0
  EXPECT_EQ(roundingShiftRight(3, 1), 2);    // 1.5 -> 2
  EXPECT_EQ(roundingShiftRight(-3, 1), -1);  // -1.5 -> -1
  EXPECT_EQ(roundingShiftRight(5, 1), 3);    // 2.5 -> 3
  EXPECT_EQ(roundingShiftRight(-5, 1), -2);  // -2.5 -> -2
  EXPECT_EQ(roundingShiftRight(6, 2), 2);    // 1.5 -> 2
  EXPECT_EQ(roundingShiftRight(-6, 2), -1);  // -1.5 -> -1
  EXPECT_EQ(roundingShiftRight(-2, 2), 0);   // -0.5 -> 0
  EXPECT_EQ(roundingShiftRight(2, 2), 1);    // 0.5 -> 1
}

TEST(Arith, RoundingShiftRightNearest) {
  EXPECT_EQ(roundingShiftRight(7, 2), 2);    // 1.75
  EXPECT_EQ(roundingShiftRight(5, 2), 1);    // 1.25
  EXPECT_EQ(roundingShiftRight(-7, 2), -2);  // -1.75
  EXPECT_EQ(roundingShiftRight(-5, 2), -1);  // -1.25
  EXPECT_EQ(roundingShiftRight(-3, 2), -1);  // -0.75
  EXPECT_EQ(roundingShiftRight(-1, 2), 0);   // -0.25
  EXPECT_EQ(roundingShiftRight(1000, 3), 125);
  EXPECT_EQ(roundingShiftRight(-1000, 3), -125);
  EXPECT_EQ(roundingShiftRight(1003, 3), 125);    // 125.375
  EXPECT_EQ(roundingShiftRight(1004, 3), 126);    // 125.5
  EXPECT_EQ(roundingShiftRight(-1004, 3), -125);  // -125.5
  EXPECT_EQ(roundingShiftRight(-1005, 3), -126);  // -125.625
}

TEST(Arith, RoundingShiftRightShiftZeroIsIdentity) {
  for (int64_t v : {kMin64, kMin64 + 1, int64_t{-1}, int64_t{0}, int64_t{1}, int64_t{12345}, kMax64 - 1, kMax64})
    EXPECT_EQ(roundingShiftRight(v, 0), v);
}

TEST(Arith, RoundingShiftRightShift63) {
  EXPECT_EQ(roundingShiftRight(kMax64, 63), 1);               // 0.99999... -> 1
  EXPECT_EQ(roundingShiftRight(kMin64, 63), -1);              // exactly -1
  EXPECT_EQ(roundingShiftRight(int64_t{1} << 62, 63), 1);     // 0.5 -> 1
  EXPECT_EQ(roundingShiftRight(-(int64_t{1} << 62), 63), 0);  // -0.5 -> 0
  EXPECT_EQ(roundingShiftRight((int64_t{1} << 62) - 1, 63), 0);
  EXPECT_EQ(roundingShiftRight(-(int64_t{1} << 62) - 1, 63), -1);
  EXPECT_EQ(roundingShiftRight(0, 63), 0);
  EXPECT_EQ(roundingShiftRight(-1, 63), 0);
}

TEST(Arith, RoundingShiftRightExtremesDoNotOverflow) {
  // v + 2^(s-1) would overflow here; the result must still be the mathematically right one.
  for (int s = 0; s < 64; ++s) {
    EXPECT_EQ(roundingShiftRight(kMax64, s), refShift(kMax64, s)) << s;
    EXPECT_EQ(roundingShiftRight(kMin64, s), refShift(kMin64, s)) << s;
    EXPECT_EQ(roundingShiftRight(kMax64 - 1, s), refShift(kMax64 - 1, s)) << s;
    EXPECT_EQ(roundingShiftRight(kMin64 + 1, s), refShift(kMin64 + 1, s)) << s;
  }
  EXPECT_EQ(roundingShiftRight(kMax64, 1), int64_t{1} << 62);  // (2^63 - 1) / 2 = 2^62 - 0.5 -> 2^62
}

TEST(Arith, RoundingShiftRightRandom) {
  std::mt19937_64 rng(1);
  for (int i = 0; i < 200000; ++i) {
    int64_t v = static_cast<int64_t>(rng());
    if (i % 3 == 0) v >>= rng() % 64;  // also small magnitudes
    const int s = static_cast<int>(rng() % 64);
    ASSERT_EQ(roundingShiftRight(v, s), refShift(v, s)) << v << " >> " << s;
  }
  // Every shift on exact ties.
  for (int s = 1; s <= 60; ++s) {  // k * 2^s stays inside int64
    for (int64_t k : {int64_t{-3}, int64_t{-1}, int64_t{0}, int64_t{2}}) {
      const int64_t v = k * (int64_t{1} << s) + (int64_t{1} << (s - 1));  // k + 0.5
      EXPECT_EQ(roundingShiftRight(v, s), k + 1) << v << " >> " << s;
    }
  }
}

// ---------------------------------------------------------------------------------------------
// requantize

TEST(Arith, RequantizeExamples) {
  const int32_t q31half = 1 << 30;  // 0.5 with shift 31
  EXPECT_EQ(requantize(100, q31half, 31, 0, -128, 127), 50);
  EXPECT_EQ(requantize(-100, q31half, 31, 0, -128, 127), -50);
  EXPECT_EQ(requantize(3, q31half, 31, 0, -128, 127), 2);    // 1.5 -> 2
  EXPECT_EQ(requantize(-3, q31half, 31, 0, -128, 127), -1);  // -1.5 -> -1
  EXPECT_EQ(requantize(1000000, q31half, 31, 0, -128, 127), 127);
  EXPECT_EQ(requantize(-1000000, q31half, 31, 0, -128, 127), -128);
  EXPECT_EQ(requantize(0, q31half, 31, -128, -128, 127), -128);
  EXPECT_EQ(requantize(10, q31half, 31, 5, -128, 127), 10);
  // Shift 0: no rounding, just product + zero point.
  EXPECT_EQ(requantize(7, 3, 0, -1, -128, 127), 20);
  // Only the low 6 bits of the shift count.
  EXPECT_EQ(requantize(100, q31half, 31 + 64, 0, -128, 127), 50);
  EXPECT_EQ(requantize(100, 1, 64, 0, -128, 127), 100);  // 64 & 63 == 0
  EXPECT_EQ(requantize(256, 1, -1, 0, -128, 127), 0);    // -1 & 63 == 63
  // Extremes of the product: |INT32_MIN * INT32_MIN| = 2^62.
  EXPECT_EQ(requantize(kMin32, kMin32, 62, 0, -128, 127), 1);
  EXPECT_EQ(requantize(kMin32, kMin32, 63, 0, -128, 127), 1);  // 0.5 -> 1
  EXPECT_EQ(requantize(kMin32, kMax32, 62, 0, -128, 127), -1);
  EXPECT_EQ(requantize(kMax32, kMax32, 0, 0, -128, 127), 127);
  EXPECT_EQ(requantize(kMin32, kMax32, 0, 0, -128, 127), -128);
}

TEST(Arith, RequantizeClamps) {
  const int32_t q31half = 1 << 30;
  // ReLU: clamp_min = zero_point.
  EXPECT_EQ(requantize(-100, q31half, 31, -20, -20, 127), -20);
  EXPECT_EQ(requantize(100, q31half, 31, -20, -20, 127), 30);
  // ReLU6-style upper clamp.
  EXPECT_EQ(requantize(1000, q31half, 31, 0, 0, 60), 60);
  // Clamps outside int8 still saturate.
  EXPECT_EQ(requantize(1000, q31half, 31, 0, -1000, 1000), 127);
  EXPECT_EQ(requantize(-1000, q31half, 31, 0, -1000, 1000), -128);
  // Zero points beyond int8 (legal in the arithmetic, saturated at the end).
  EXPECT_EQ(requantize(0, 1, 0, 300, -1000, 1000), 127);
  EXPECT_EQ(requantize(0, 1, 0, kMin32, kMin32, kMax32), -128);
}

TEST(Arith, RequantizeMatchesReferenceOnRandomValues) {
  std::mt19937 rng(2024);
  const std::vector<int32_t> special = {kMin32, kMin32 + 1, -1, 0, 1, kMax32 - 1, kMax32, 1 << 30, -(1 << 30)};
  auto pick32 = [&](int mode) -> int32_t {
    switch (mode) {
      case 0: return special[rng() % special.size()];
      case 1: return static_cast<int32_t>(static_cast<int>(rng() % 2001) - 1000);
      default: return static_cast<int32_t>(rng());
    }
  };
  const bool ldExact = std::numeric_limits<long double>::digits >= 64;
  for (int i = 0; i < 300000; ++i) {
    const int32_t acc = pick32(static_cast<int>(rng() % 3));
    const int32_t mult = pick32(static_cast<int>(rng() % 3));
    // Mostly realistic shifts, sometimes any int32 (only the low 6 bits count).
    const int32_t shift = rng() % 4 == 0 ? static_cast<int32_t>(rng()) : static_cast<int32_t>(rng() % 64);
    const int32_t zp = rng() % 8 == 0 ? pick32(0) : static_cast<int32_t>(static_cast<int>(rng() % 256) - 128);
    int32_t lo, hi;
    switch (rng() % 4) {
      case 0:
        lo = -128;
        hi = 127;
        break;
      case 1:
        lo = zp;
        hi = 127;
        break;  // ReLU
      case 2:
        lo = static_cast<int32_t>(static_cast<int>(rng() % 256) - 128);
        hi = static_cast<int32_t>(static_cast<int>(rng() % 256) - 128);
        break;
      default:
        lo = pick32(2);
        hi = pick32(2);
        break;
    }
    const int8_t got = requantize(acc, mult, shift, zp, lo, hi);
    ASSERT_EQ(got, refRequantize(acc, mult, shift, zp, lo, hi))
        << "acc=" << acc << " mult=" << mult << " shift=" << shift << " zp=" << zp << " clamp=[" << lo << ", " << hi
        << "]";
    if (ldExact) {
      ASSERT_EQ(got, refRequantizeLd(acc, mult, shift, zp, lo, hi))
          << "acc=" << acc << " mult=" << mult << " shift=" << shift << " zp=" << zp;
    }
    if (lo == zp && hi == 127 && zp >= -128 && zp <= 127) {
      ASSERT_GE(got, zp) << "ReLU output below the zero point";
    }
  }
}

// ---------------------------------------------------------------------------------------------
// wrap32, saturate8, add, mul, mac, widen

TEST(Arith, Wrap32) {
  EXPECT_EQ(wrap32(0), 0);
  EXPECT_EQ(wrap32(-1), -1);
  EXPECT_EQ(wrap32(kMax32), kMax32);
  EXPECT_EQ(wrap32(kMin32), kMin32);
  EXPECT_EQ(wrap32(int64_t{kMax32} + 1), kMin32);
  EXPECT_EQ(wrap32(int64_t{kMin32} - 1), kMax32);
  EXPECT_EQ(wrap32((int64_t{1} << 32) + 5), 5);
  EXPECT_EQ(wrap32(-(int64_t{1} << 32) - 5), -5);
  EXPECT_EQ(wrap32(kMin64), 0);
  EXPECT_EQ(wrap32(kMax64), -1);
  std::mt19937_64 rng(3);
  for (int i = 0; i < 100000; ++i) {
    const auto v = static_cast<int64_t>(rng());
    ASSERT_EQ(wrap32(v), refWrap32(v)) << v;
  }
}

TEST(Arith, Saturate8) {
  EXPECT_EQ(saturate8(0), 0);
  EXPECT_EQ(saturate8(127), 127);
  EXPECT_EQ(saturate8(128), 127);
  EXPECT_EQ(saturate8(-128), -128);
  EXPECT_EQ(saturate8(-129), -128);
  EXPECT_EQ(saturate8(kMax64), 127);
  EXPECT_EQ(saturate8(kMin64), -128);
}

TEST(Arith, AddAndMulWrap) {
  EXPECT_EQ(add(kMax32, 1), kMin32);
  EXPECT_EQ(add(kMin32, -1), kMax32);
  EXPECT_EQ(add(kMin32, kMin32), 0);
  EXPECT_EQ(add(-5, 3), -2);
  EXPECT_EQ(mul(65536, 65536), 0);
  EXPECT_EQ(mul(65536, 32768), kMin32);
  EXPECT_EQ(mul(kMin32, -1), kMin32);
  EXPECT_EQ(mul(kMax32, kMax32), 1);
  EXPECT_EQ(mul(-7, 6), -42);
  std::mt19937 rng(4);
  for (int i = 0; i < 100000; ++i) {
    const auto a = static_cast<int32_t>(rng()), b = static_cast<int32_t>(rng());
    ASSERT_EQ(add(a, b), refWrap32(i128{a} + b));
    ASSERT_EQ(mul(a, b), refWrap32(i128{a} * b));
  }
}

TEST(Arith, MacWraps) {
  EXPECT_EQ(mac(0, -128, -128), 16384);
  EXPECT_EQ(mac(0, 127, -128), -16256);
  EXPECT_EQ(mac(kMax32, 1, 1), kMin32);
  EXPECT_EQ(mac(kMin32, -1, 1), kMax32);
  EXPECT_EQ(mac(kMax32 - 16383, -128, -128), kMin32);
  // Every int8 pair, on accumulators near both ends and in the middle.
  for (int32_t acc : {kMin32, kMin32 + 100, -1, 0, 12345, kMax32 - 100, kMax32}) {
    for (int a = -128; a <= 127; ++a)
      for (int w = -128; w <= 127; ++w) {
        const int32_t got = mac(acc, static_cast<int8_t>(a), static_cast<int8_t>(w));
        if (got != refWrap32(i128{acc} + a * w)) {
          FAIL() << "mac(" << acc << ", " << a << ", " << w << ") = " << got;
        }
      }
  }
  // A long reduction wraps like the 32-bit adder, independent of order.
  std::mt19937 rng(5);
  std::vector<std::pair<int8_t, int8_t>> terms;
  for (int i = 0; i < 200000; ++i) terms.emplace_back(static_cast<int8_t>(rng()), static_cast<int8_t>(rng()));
  int32_t forward = kMax32 - 7, backward = kMax32 - 7;
  i128 exact = kMax32 - 7;
  for (const auto& [a, w] : terms) {
    forward = mac(forward, a, w);
    exact += a * w;
  }
  for (auto it = terms.rbegin(); it != terms.rend(); ++it) backward = mac(backward, it->first, it->second);
  EXPECT_EQ(forward, refWrap32(exact));
  EXPECT_EQ(backward, forward);
}

TEST(Arith, Widen) {
  EXPECT_EQ(widen(5, 2, 3), 9);
  EXPECT_EQ(widen(-128, 127, 32767), -255 * 32767);
  EXPECT_EQ(widen(127, -128, -32768), 255 * -32768);
  EXPECT_EQ(widen(127, -128, 32768), 255 * 32768);
  EXPECT_EQ(widen(0, 0, kMin32), 0);
  for (int x = -128; x <= 127; ++x)
    for (int zp : {-128, -1, 0, 1, 127})
      for (int m : {-32768, -3, 0, 1, 32767, 32768}) ASSERT_EQ(widen(static_cast<int8_t>(x), zp, m), (x - zp) * m);
}

TEST(Arith, ReciprocalIsTheFloorOfTheQuotient) {
  EXPECT_EQ(reciprocal(1, 0), 1);
  EXPECT_EQ(reciprocal(3, 4), 5);  // 16 / 3
  EXPECT_EQ(reciprocal(127, 30), (int64_t{1} << 30) / 127);
  EXPECT_EQ(reciprocal(1, 31), kInt32Max) << "2^31 saturates";
  EXPECT_EQ(reciprocal(1, 63), kInt32Max);
  EXPECT_EQ(reciprocal(0, 10), kInt32Max) << "division by zero saturates";
  EXPECT_EQ(reciprocal(-5, 10), kInt32Max);
  EXPECT_EQ(reciprocal(7, 64 + 4), 2) << "only the low 6 bits of the shift count";
  std::mt19937 rng(11);
  for (int i = 0; i < 10000; ++i) {
    const auto x = static_cast<int32_t>(rng() % 2000000 + 1);
    const auto s = static_cast<int32_t>(rng() % 40);
    ASSERT_EQ(reciprocal(x, s), std::min<int64_t>((int64_t{1} << s) / x, kInt32Max)) << x << " " << s;
  }
}

TEST(Arith, ReciprocalSqrtIsTheLargestYWhoseSquareFits) {
  EXPECT_EQ(reciprocalSqrt(4, 10), 512);  // 1024 / 2
  EXPECT_EQ(reciprocalSqrt(2, 0), 0);     // 1 / 1.41
  EXPECT_EQ(reciprocalSqrt(1, 20), 1 << 20);
  EXPECT_EQ(reciprocalSqrt(1, 31), kInt32Max);  // 2^31 saturates
  EXPECT_EQ(reciprocalSqrt(0, 8), kInt32Max);
  EXPECT_EQ(reciprocalSqrt(-1, 8), kInt32Max);
  EXPECT_EQ(reciprocalSqrt(kInt32Max, 63),
            static_cast<int32_t>(std::floor(std::ldexp(1.0, 63) / std::sqrt(2147483647.0))));
  std::mt19937 rng(12);
  for (int i = 0; i < 10000; ++i) {
    const auto x = static_cast<int32_t>(rng() % 100000000 + 1);
    const auto s = static_cast<int32_t>(rng() % 45);
    const int32_t y = reciprocalSqrt(x, s);
    using u128 = unsigned __int128;
    const u128 limit = u128{1} << (2 * s);
    ASSERT_LE(u128(uint64_t(y)) * uint64_t(y) * uint64_t(x), limit) << x << " " << s;
    if (y < kInt32Max) {
      ASSERT_GT(u128(uint64_t(y) + 1) * (uint64_t(y) + 1) * uint64_t(x), limit) << x << " " << s;
    }
  }
}

TEST(Arith, LutIndex) {
  EXPECT_EQ(lutIndex(-128), 0);
  EXPECT_EQ(lutIndex(0), 128);
  EXPECT_EQ(lutIndex(127), 255);
}

}  // namespace
}  // namespace systole::isa::arith
