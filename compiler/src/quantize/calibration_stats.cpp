// Algorithm: both folds run in blocks the compiler vectorizes. The range keeps eight independent
// running min/max lanes over the finite elements (non-finite ones are replaced by a neutral
// value), reduced at the end. The histogram computes a block of bin indices with the exact
// formula of binOf (double arithmetic, the same operations in the same order; the clamp comes
// before truncating, which equals floor on the clamped non-negative value), then counts them.
#include "quantize/calibration_stats.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <stdexcept>

namespace systole::compiler {

namespace {

bool finite(float x) {
  uint32_t bits;
  std::memcpy(&bits, &x, sizeof bits);
  return (bits & 0x7f800000u) != 0x7f800000u;
}

}  // namespace

void FiniteRange::merge(const FiniteRange& o) {
  lo = std::min(lo, o.lo);
  hi = std::max(hi, o.hi);
}

FiniteRange finiteRange(const float* data, int64_t count) {
  constexpr int kLanes = 8;
  constexpr float kInf = std::numeric_limits<float>::infinity();
  float lo[kLanes], hi[kLanes];
  std::fill_n(lo, kLanes, kInf);
  std::fill_n(hi, kLanes, -kInf);
  int64_t i = 0;
  for (; i + kLanes <= count; i += kLanes)
    for (int l = 0; l < kLanes; ++l) {
      const float x = data[i + l];
      const bool f = finite(x);
      const float forLo = f ? x : kInf, forHi = f ? x : -kInf;
      lo[l] = forLo < lo[l] ? forLo : lo[l];
      hi[l] = forHi > hi[l] ? forHi : hi[l];
    }
  for (; i < count; ++i)
    if (finite(data[i])) {
      lo[0] = std::min(lo[0], data[i]);
      hi[0] = std::max(hi[0], data[i]);
    }
  FiniteRange r;
  for (int l = 0; l < kLanes; ++l)
    if (lo[l] <= hi[l]) r.merge({lo[l], hi[l]});
  return r;
}

int binOf(double v, double lo, double hi, int bins) {
  if (hi <= lo) return 0;
  const double b = std::floor((v - lo) / (hi - lo) * bins);
  return static_cast<int>(std::clamp(b, 0.0, static_cast<double>(bins - 1)));
}

void addToHistogram(const float* data, int64_t count, double lo, double hi, bool absolute,
                    std::vector<uint64_t>& hist) {
  const int bins = static_cast<int>(hist.size());
  if (hi <= lo) {
    for (int64_t i = 0; i < count; ++i) hist[0] += finite(data[i]);
    return;
  }
  const double span = hi - lo, top = static_cast<double>(bins - 1);
  constexpr int kBlock = 1024;
  int32_t index[kBlock];
  for (int64_t start = 0; start < count; start += kBlock) {
    const int n = static_cast<int>(std::min<int64_t>(kBlock, count - start));
    const float* d = data + start;
    for (int k = 0; k < n; ++k) {
      const bool f = finite(d[k]);
      const double x = f ? static_cast<double>(d[k]) : lo;  // non-finite: binned harmlessly, then dropped
      const double v = absolute ? std::fabs(x) : x;
      const double b = std::min(std::max((v - lo) / span * bins, 0.0), top);
      index[k] = f ? static_cast<int32_t>(b) : -1;
    }
    for (int k = 0; k < n; ++k)
      if (index[k] >= 0) ++hist[static_cast<size_t>(index[k])];
  }
}

uint64_t percentileTail(uint64_t total, double p) {
  const auto keep = static_cast<uint64_t>(std::ceil(static_cast<double>(total) * p / 100.0));
  return total - std::min(total, keep);
}

void Tails::keepTop(float x) {
  if (top_.size() < k_) {
    top_.push_back(x);
    std::push_heap(top_.begin(), top_.end(), std::greater<>());
  } else if (x > top_.front()) {
    std::pop_heap(top_.begin(), top_.end(), std::greater<>());
    top_.back() = x;
    std::push_heap(top_.begin(), top_.end(), std::greater<>());
  }
}

void Tails::keepBottom(float x) {
  if (bottom_.size() < k_) {
    bottom_.push_back(x);
    std::push_heap(bottom_.begin(), bottom_.end());
  } else if (x < bottom_.front()) {
    std::pop_heap(bottom_.begin(), bottom_.end());
    bottom_.back() = x;
    std::push_heap(bottom_.begin(), bottom_.end());
  }
}

void Tails::add(const float* data, int64_t count) {
  // Block by block: count the finite elements and take the block's range (both vectorized); only a
  // block reaching past the kept elements' thresholds is walked element by element, which after
  // the first blocks is almost none (a tail is a few elements of a large tensor).
  constexpr int64_t kBlock = 64;
  constexpr float kInf = std::numeric_limits<float>::infinity();
  for (int64_t start = 0; start < count; start += kBlock) {
    const int64_t n = std::min(kBlock, count - start);
    const float* d = data + start;
    int64_t finiteCount = 0;
    float lo = kInf, hi = -kInf;
    for (int64_t i = 0; i < n; ++i) {
      const bool f = finite(d[i]);
      finiteCount += f;
      lo = std::min(lo, f ? d[i] : kInf);
      hi = std::max(hi, f ? d[i] : -kInf);
    }
    count_ += static_cast<uint64_t>(finiteCount);
    if (k_ == 0 || finiteCount == 0) continue;
    const bool reachesTop = top_.size() < k_ || hi > top_.front();
    const bool reachesBottom = bottom_.size() < k_ || lo < bottom_.front();
    if (!reachesTop && !reachesBottom) continue;
    for (int64_t i = 0; i < n; ++i)
      if (finite(d[i])) {
        if (reachesTop) keepTop(d[i]);
        if (reachesBottom) keepBottom(d[i]);
      }
  }
}

void Tails::merge(const Tails& other) {
  if (other.k_ != k_) throw std::logic_error("Tails::merge: different k");
  count_ += other.count_;
  for (float x : other.top_) keepTop(x);
  for (float x : other.bottom_) keepBottom(x);
}

float Tails::largest(size_t n) const {
  std::vector<float> sorted = top_;
  if (n == 0 || n > sorted.size()) throw std::logic_error("Tails::largest: n out of range");
  std::nth_element(sorted.begin(), sorted.begin() + static_cast<std::ptrdiff_t>(n - 1), sorted.end(), std::greater<>());
  return sorted[n - 1];
}

float Tails::smallest(size_t n) const {
  std::vector<float> sorted = bottom_;
  if (n == 0 || n > sorted.size()) throw std::logic_error("Tails::smallest: n out of range");
  std::nth_element(sorted.begin(), sorted.begin() + static_cast<std::ptrdiff_t>(n - 1), sorted.end());
  return sorted[n - 1];
}

namespace {

/// The range once the bins above `topBin` and below `bottomBin` are dropped (as edges computed the
/// one way both percentile functions share).
TensorRange keptBins(double lo, double hi, int bins, int topBin, int bottomBin) {
  const double width = (hi - lo) / bins;
  TensorRange r{lo, hi};
  if (topBin < bins - 1) r.hi = lo + width * (topBin + 1);
  if (bottomBin > 0) r.lo = lo + width * bottomBin;
  if (r.lo > r.hi) r = {lo, hi};
  return r;
}

}  // namespace

TensorRange percentileFromHistogram(double lo, double hi, const std::vector<uint64_t>& hist, double p) {
  const int bins = static_cast<int>(hist.size());
  uint64_t total = 0;
  for (uint64_t c : hist) total += c;
  if (total == 0 || hi <= lo) return {lo, hi};
  const uint64_t tail = percentileTail(total, p);
  // The first bin from the top (from the bottom) where the running count passes `tail`; the
  // lowest bin is never dropped from above, nor the highest from below.
  int top = bins - 1;
  for (uint64_t cum = 0; top > 0 && (cum += hist[static_cast<size_t>(top)]) <= tail;) --top;
  int bottom = 0;
  for (uint64_t cum = 0; bottom < bins - 1 && (cum += hist[static_cast<size_t>(bottom)]) <= tail;) ++bottom;
  return keptBins(lo, hi, bins, top, bottom);
}

TensorRange percentileFromTails(double lo, double hi, int bins, const Tails& tails, double p) {
  if (tails.count() == 0 || hi <= lo) return {lo, hi};
  const uint64_t tail = percentileTail(tails.count(), p);
  if (tail >= tails.k()) throw std::logic_error("percentileFromTails: the tails are too short for this percentile");
  return keptBins(lo, hi, bins, binOf(tails.largest(tail + 1), lo, hi, bins),
                  binOf(tails.smallest(tail + 1), lo, hi, bins));
}

}  // namespace systole::compiler
