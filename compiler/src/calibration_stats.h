// The per-tensor statistics calibration folds in, one tensor at a time: the range of the finite
// elements, and a histogram of equal bins over a known range. Both merge by min/max and integer
// sums, so the totals do not depend on the order tensors (or samples, or threads) arrive in.
#pragma once

#include <cstdint>
#include <limits>
#include <vector>

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

}  // namespace systole::compiler
