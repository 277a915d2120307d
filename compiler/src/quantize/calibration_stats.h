// The per-tensor statistics calibration folds in, one tensor at a time: the range of the finite
// elements, a histogram of equal bins over a known range, and the extreme elements of each side.
// All merge by min/max, integer sums or multiset union, so the totals do not depend on the order
// tensors (or samples, or threads) arrive in. And the percentile range, from a histogram or, the
// same range, from the tails alone (which needs no second pass over the samples).
#pragma once

#include <cstdint>
#include <limits>
#include <vector>

#include "systole/compiler/quantize.h"

namespace systole::compiler {

/// [lo, hi] of the finite elements seen; empty (lo > hi) before any.
struct FiniteRange {
  double lo = std::numeric_limits<double>::infinity();
  double hi = -std::numeric_limits<double>::infinity();
  bool seen() const { return lo <= hi; }
  void merge(const FiniteRange& o);
};

FiniteRange finiteRange(const float* data, int64_t count);

/// The bin of v in `bins` equal bins over [lo, hi]: floor((v - lo) / (hi - lo) * bins) clamped to
/// [0, bins - 1] (the last bin includes hi); 0 when hi <= lo.
int binOf(double v, double lo, double hi, int bins);

/// Adds each finite element's binOf (of |x| over [0, hi] when `absolute`, else of x over
/// [lo, hi]) to `hist` (whose size is the bin count).
void addToHistogram(const float* data, int64_t count, double lo, double hi, bool absolute, std::vector<uint64_t>& hist);

/// How many of `total` elements a percentile-`p` range may leave out on each side: those beyond
/// ceil(total * p / 100). Never decreases as `total` grows.
uint64_t percentileTail(uint64_t total, double p);

/// The `k` largest and the `k` smallest finite elements seen (with repeats), and how many finite
/// elements there were.
class Tails {
 public:
  explicit Tails(size_t k = 0) : k_(k) {}
  void add(const float* data, int64_t count);
  void merge(const Tails& other);
  size_t k() const { return k_; }
  uint64_t count() const { return count_; }
  /// The n-th largest and n-th smallest finite element, 1-based; n <= min(k, count()).
  float largest(size_t n) const;
  float smallest(size_t n) const;

 private:
  void keepTop(float x);
  void keepBottom(float x);
  size_t k_;
  uint64_t count_ = 0;
  std::vector<float> top_;     // min-heap of the k largest
  std::vector<float> bottom_;  // max-heap of the k smallest
};

/// The percentile-`p` range of the finite elements of [lo, hi] binned in `hist` (binOf): the top
/// bins dropped while together they hold at most percentileTail elements, likewise the bottom
/// ones; the full range if the two ends cross.
TensorRange percentileFromHistogram(double lo, double hi, const std::vector<uint64_t>& hist, double p);

/// The same range without the histogram: the dropped bins are those above the bin of the
/// (tail + 1)-th largest element (below that of the (tail + 1)-th smallest). Needs
/// tails.k() > percentileTail(tails.count(), p).
TensorRange percentileFromTails(double lo, double hi, int bins, const Tails& tails, double p);

}  // namespace systole::compiler
