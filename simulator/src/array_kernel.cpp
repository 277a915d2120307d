// Algorithm: per activation row and per vector of output columns, a widening pairwise
// multiply-add over the reduction (x86: vpmaddwd): each int32 lane gets a[2j] * W[2j][n] +
// a[2j + 1] * W[2j + 1][n] from a broadcast pair of activations and the interleaved weight pairs
// (ArrayWeights), summed over j. An int16 activation times an int8 weight fits 24 bits, a pair's
// sum fits int32, and the lanes add modulo 2^32 as the specified sum does; the final add into the
// accumulator row is unsigned (modulo 2^32). Built once per SIMD target by Highway's
// foreach_target and chosen at run time by HWY_DYNAMIC_DISPATCH.
#include <algorithm>
#include <cstring>

#include "systole/sim/array_kernel.h"
#include "systole/isa/arith.h"

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "array_kernel.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace systole::sim::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

/// The activations a[2j], a[2j + 1] as two int16 in one int32 (low half first, as the weights).
HWY_INLINE int32_t activationPair(const Lane* a, int64_t j, int64_t K) {
  const auto lo = static_cast<uint16_t>(a[2 * j]);
  const auto hi = 2 * j + 1 < K ? static_cast<uint16_t>(a[2 * j + 1]) : uint16_t{0};
  return static_cast<int32_t>(static_cast<uint32_t>(lo) | (static_cast<uint32_t>(hi) << 16));
}

void MatmulRows(const ArrayWeights& w, const Lane* a, int64_t aStride, int64_t count, uint32_t* out, int64_t outStride,
                bool accumulate) {
#if HWY_TARGET == HWY_SCALAR  // one lane: no int16 pairs to multiply-add
  return matmulRowsScalar(w, a, aStride, count, out, outStride, accumulate);
#else
  const hn::ScalableTag<int32_t> d32;
  const hn::Repartition<int16_t, decltype(d32)> d16;
  const hn::RebindToUnsigned<decltype(d32)> du32;
  const auto lanes = static_cast<int64_t>(hn::Lanes(d32));
  if (lanes > ArrayWeights::kColumnAlign || ArrayWeights::kColumnAlign % lanes != 0)
    return matmulRowsScalar(w, a, aStride, count, out, outStride, accumulate);  // wider than the padding
  const int64_t K = w.rows(), N = w.cols(), pairs = w.pairCount(), pitch = 2 * w.paddedCols();
  const int16_t* weights = w.pairs();
  for (int64_t i = 0; i < count; ++i) {
    const Lane* row = a + i * aStride;
    uint32_t* dst = out + i * outStride;
    for (int64_t n0 = 0; n0 < N; n0 += lanes) {
      auto sum0 = hn::Zero(d32), sum1 = hn::Zero(d32);
      for (int64_t j = 0; j < pairs; ++j) {
        const auto act = hn::BitCast(d16, hn::Set(d32, activationPair(row, j, K)));
        sum0 = hn::ReorderWidenMulAccumulate(d32, act, hn::LoadU(d16, weights + j * pitch + 2 * n0), sum0, sum1);
      }
      auto sum = hn::BitCast(du32, hn::RearrangeToOddPlusEven(sum0, sum1));
      if (n0 + lanes <= N) {
        if (accumulate) sum = hn::Add(sum, hn::LoadU(du32, dst + n0));
        hn::StoreU(sum, du32, dst + n0);
      } else {  // the last columns of an array narrower than the vector
        HWY_ALIGN uint32_t tail[HWY_MAX_BYTES / sizeof(uint32_t)];
        hn::Store(sum, du32, tail);
        for (int64_t n = n0; n < N; ++n) dst[n] = (accumulate ? dst[n] : 0u) + tail[n - n0];
      }
    }
  }
#endif
}

}  // namespace systole::sim::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace systole::sim {

HWY_EXPORT(MatmulRows);

ArrayWeights::ArrayWeights(int64_t rows, int64_t cols, int bits)
    : rows_(rows),
      cols_(cols),
      padded_((cols + kColumnAlign - 1) / kColumnAlign * kColumnAlign),
      bits_(bits),
      plain_(static_cast<size_t>(rows * cols), 0),
      pairs_(static_cast<size_t>(pairCount() * 2 * padded_), 0) {}

void ArrayWeights::setRow(int64_t k, const Lane* src) {
  int8_t* plain = plain_.data() + k * cols_;
  int16_t* pair = pairs_.data() + (k / 2) * 2 * padded_ + k % 2;
  for (int64_t n = 0; n < cols_; ++n) {
    plain[n] = isa::arith::weightRegister(src[n], bits_);
    pair[2 * n] = plain[n];
  }
}

void ArrayWeights::clear() {
  std::fill(plain_.begin(), plain_.end(), int8_t{0});
  std::fill(pairs_.begin(), pairs_.end(), int16_t{0});
}

void matmulRows(const ArrayWeights& w, const Lane* a, int64_t aStride, int64_t count, uint32_t* out, int64_t outStride,
                bool accumulate) {
  HWY_DYNAMIC_DISPATCH(MatmulRows)(w, a, aStride, count, out, outStride, accumulate);
}

void matmulRowsScalar(const ArrayWeights& w, const Lane* a, int64_t aStride, int64_t count, uint32_t* out,
                      int64_t outStride, bool accumulate) {
  const int64_t K = w.rows(), N = w.cols();
  for (int64_t i = 0; i < count; ++i) {
    uint32_t* dst = out + i * outStride;
    for (int64_t n = 0; n < N; ++n) {
      uint32_t sum = 0;  // unsigned: the accumulator wraps modulo 2^32 without signed overflow
      for (int64_t k = 0; k < K; ++k)
        sum += static_cast<uint32_t>(int32_t{a[i * aStride + k]} * int32_t{w.plain()[k * N + n]});
      dst[n] = (accumulate ? dst[n] : 0u) + sum;
    }
  }
}

void depthwiseRows(const ArrayWeights& w, const Lane* a, int64_t aStride, int64_t count, int64_t kh, int64_t kw,
                   int64_t pitch, int64_t stride, uint32_t* out, int64_t outStride, bool accumulate) {
  const int64_t N = w.cols();
  for (int64_t i = 0; i < count; ++i) {
    uint32_t* dst = out + i * outStride;
    if (!accumulate) std::fill(dst, dst + N, 0u);
    for (int64_t t = 0; t < kh * kw; ++t) {
      const Lane* x = a + (stride * i + (t / kw) * pitch + t % kw) * aStride;
      const int8_t* wt = w.plain() + t * N;
      for (int64_t n = 0; n < N; ++n) dst[n] += static_cast<uint32_t>(int32_t{x[n]} * int32_t{wt[n]});
    }
  }
}

}  // namespace systole::sim
#endif  // HWY_ONCE
