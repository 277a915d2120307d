// Algorithm: both folds run in blocks the compiler vectorizes. The range keeps eight independent
// running min/max lanes over the finite elements (non-finite ones are replaced by a neutral
// value), reduced at the end. The histogram computes a block of bin indices with the exact
// formula of binOf (double arithmetic, the same operations in the same order; the clamp comes
// before truncating, which equals floor on the clamped non-negative value), then counts them.
#include "calibration_stats.h"

#include <algorithm>
#include <cmath>
#include <cstring>

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

void addToHistogram(const float* data, int64_t count, double lo, double hi, bool absolute, std::vector<uint64_t>& hist) {
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

}  // namespace systole::compiler
