// The integer arithmetic of the ISA's semantics classes, written once. The simulator, the
// reference interpreter and the RTL checks all call these functions; docs/isa-semantics.md is
// their specification.
#pragma once

#include <algorithm>
#include <cstdint>

namespace systole::isa::arith {

/// The int8 activation range (types.activation = int8, what the compiler quantizes to): every
/// clamp and saturation of an int8 activation, in every component, takes its bounds from here.
inline constexpr int32_t kActMin = -128;
inline constexpr int32_t kActMax = 127;
/// The largest magnitude of an activation (|x| <= 128), and of the difference of two (|x - z| <= 255).
inline constexpr int64_t kActLargestMagnitude = -int64_t{kActMin};
inline constexpr int64_t kActSpan = int64_t{kActMax} - kActMin;

/// Two's-complement wrap to 32 bits (the accumulator's overflow behaviour).
constexpr int32_t wrap32(int64_t v) { return static_cast<int32_t>(static_cast<uint32_t>(static_cast<uint64_t>(v))); }

/// The largest magnitude an accumulator of `bits` bits holds without saturating.
constexpr int64_t accumulatorMax(int bits) { return (int64_t{1} << (bits - 1)) - 1; }

/// What an accumulator lane of `bits` bits (types.accumulator) keeps of a lane result computed at
/// 32 bits: int32 keeps it (so it wraps, as the 32-bit datapath does), a narrower accumulator
/// saturates it to [-2^(bits-1), 2^(bits-1) - 1].
constexpr int32_t storeAccumulator(int32_t v, int bits) {
  if (bits >= 32) return v;
  const auto hi = static_cast<int32_t>(accumulatorMax(bits));
  return std::clamp(v, -hi - 1, hi);
}

/// The range of a scratchpad lane of `bits` bits (types.activation: 8 or 16).
constexpr int32_t activationMin(int bits) { return -(int32_t{1} << (bits - 1)); }
constexpr int32_t activationMax(int bits) { return (int32_t{1} << (bits - 1)) - 1; }
/// What a scratchpad lane of `bits` bits keeps of a result: saturated to its range.
constexpr int16_t saturateActivation(int64_t v, int bits) {
  return static_cast<int16_t>(std::clamp<int64_t>(v, activationMin(bits), activationMax(bits)));
}
constexpr int8_t saturate8(int64_t v) { return static_cast<int8_t>(saturateActivation(v, 8)); }

/// floor((v + 2^(s-1)) / 2^s): divide by 2^s rounding to nearest, ties toward +infinity.
/// Written without the addition so it cannot overflow for any int64 v and s in [0, 63].
constexpr int64_t roundingShiftRight(int64_t v, int s) {
  if (s == 0) return v;
  return (v >> s) + ((v >> (s - 1)) & 1);
}

/// requantize: one lane into a scratchpad lane of `bits` bits. The shift uses the low 6 bits of
/// `shift`; the clamp bounds apply first, then the lane's range.
constexpr int16_t requantizeLane(int32_t acc, int32_t multiplier, int32_t shift, int32_t zero_point, int32_t clamp_min,
                                 int32_t clamp_max, int bits) {
  const int64_t scaled = roundingShiftRight(int64_t{acc} * int64_t{multiplier}, shift & 63);
  const int64_t y = scaled + zero_point;
  return saturateActivation(std::min<int64_t>(std::max<int64_t>(y, clamp_min), clamp_max), bits);
}

/// requantize into an int8 lane.
constexpr int8_t requantize(int32_t acc, int32_t multiplier, int32_t shift, int32_t zero_point, int32_t clamp_min,
                            int32_t clamp_max) {
  return static_cast<int8_t>(requantizeLane(acc, multiplier, shift, zero_point, clamp_min, clamp_max, 8));
}

/// vector_widen: one lane. For int8 lanes |x - zp| <= 255 and |multiplier| <= 2^15, so the product
/// fits; int16 lanes can pass 2^31, and the result wraps like every accumulator sum.
constexpr int32_t widen(int32_t x, int32_t zero_point, int32_t multiplier) {
  return wrap32((int64_t{x} - zero_point) * multiplier);
}

constexpr int32_t add(int32_t a, int32_t b) { return wrap32(int64_t{a} + b); }
constexpr int32_t mul(int32_t a, int32_t b) { return wrap32(int64_t{a} * b); }

/// One multiply-accumulate of the array: acc + a * w, wrapping at 32 bits (a: an int8 or int16
/// lane, w: a weight register).
constexpr int32_t mac(int32_t acc, int32_t a, int32_t w) {
  return static_cast<int32_t>(static_cast<uint32_t>(acc) + static_cast<uint32_t>(int32_t{a} * int32_t{w}));
}

/// dma_load_int4: the DRAM bytes of a row of n packed 4-bit values.
constexpr int64_t int4PackedBytes(int64_t n) { return (n + 1) / 2; }

/// dma_load_int4: value k of a packed row, two's-complement 4-bit, low nibble first.
constexpr int8_t int4At(const uint8_t* packed, int64_t k) {
  const int nibble = (packed[k / 2] >> (4 * (k % 2))) & 0xF;
  return static_cast<int8_t>(nibble >= 8 ? nibble - 16 : nibble);
}

/// The inverse of int4At over n values in [-8, 7] (ceil(n / 2) bytes; an odd row's last high
/// nibble is 0).
constexpr void packInt4(const int8_t* values, int64_t n, uint8_t* packed) {
  for (int64_t i = 0; i < int4PackedBytes(n); ++i) packed[i] = 0;
  for (int64_t k = 0; k < n; ++k)
    packed[k / 2] = static_cast<uint8_t>(packed[k / 2] | ((static_cast<uint8_t>(values[k]) & 0xF) << (4 * (k % 2))));
}

/// weight_preload on an array whose weight registers are `bits` wide (the widest types.weight):
/// the scratchpad lane's low `bits` bits, two's complement. An identity for lanes already in range,
/// which every compiled program's weights are.
constexpr int8_t weightRegister(int32_t lane, int bits) {
  const int unused = 32 - bits;
  return static_cast<int8_t>(static_cast<int32_t>(static_cast<uint32_t>(lane) << unused) >> unused);
}

/// vector_lut: the table has 256 entries indexed by x + 128, x saturated to int8 first (an int16
/// lane outside [-128, 127] reads the first or last entry).
constexpr int lutIndex(int32_t x) { return saturate8(x) - kActMin; }

inline constexpr int32_t kInt32Max = 2147483647;

/// vector_recip, op 0: floor(2^shift / x) for x > 0, at most INT32_MAX; x <= 0 gives INT32_MAX.
/// The shift uses the low 6 bits.
constexpr int32_t reciprocal(int32_t x, int32_t shift) {
  if (x <= 0) return kInt32Max;
  const uint64_t q = (uint64_t{1} << (shift & 63)) / static_cast<uint64_t>(x);
  return static_cast<int32_t>(std::min<uint64_t>(q, kInt32Max));
}

/// vector_recip, op 1: floor(2^shift / sqrt(x)) for x > 0 — the largest y with y^2 * x <= 2^(2 shift) —
/// at most INT32_MAX; x <= 0 gives INT32_MAX. The shift uses the low 6 bits. Exact: found by
/// bisection in 128-bit integers (y^2 * x < 2^93, 2^(2 shift) <= 2^126).
constexpr int32_t reciprocalSqrt(int32_t x, int32_t shift) {
  if (x <= 0) return kInt32Max;
  using u128 = unsigned __int128;
  const u128 limit = u128{1} << (2 * (shift & 63));
  uint64_t lo = 0, hi = uint64_t{kInt32Max} + 1;  // y in [lo, hi): lo fits, hi does not or is the cap
  while (hi - lo > 1) {
    const uint64_t mid = lo + (hi - lo) / 2;
    if (u128{mid} * mid * static_cast<uint64_t>(x) <= limit)
      lo = mid;
    else
      hi = mid;
  }
  return static_cast<int32_t>(lo);
}

}  // namespace systole::isa::arith
