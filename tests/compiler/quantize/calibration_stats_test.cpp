// The calibration folds (src/calibration_stats.h) against their element-by-element definitions,
// and parallelFor's contract.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <limits>
#include <random>
#include <stdexcept>
#include <vector>

#include "quantize/calibration_stats.h"
#include "systole/compiler/parallel.h"

namespace systole::compiler {
namespace {

/// Normal values with the special cases mixed in: the range's ends repeated, signed zeros,
/// infinities and NaNs.
std::vector<float> awkwardValues(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> normal(0.5f, 2.0f);
  std::vector<float> v(n);
  for (float& x : v) x = normal(rng);
  const float specials[] = {0.0f,
                            -0.0f,
                            std::numeric_limits<float>::infinity(),
                            -std::numeric_limits<float>::infinity(),
                            std::numeric_limits<float>::quiet_NaN(),
                            1e-30f,
                            -7.25f,
                            9.5f};
  for (size_t i = 0; i < n; i += 13) v[i] = specials[(i / 13) % std::size(specials)];
  return v;
}

TEST(CalibrationStats, FiniteRangeIsTheMinAndMaxOfTheFiniteElements) {
  for (size_t n : {0u, 1u, 7u, 8u, 9u, 1000u, 4099u}) {
    const auto v = awkwardValues(n, static_cast<uint32_t>(n));
    FiniteRange want;
    for (float x : v)
      if (std::isfinite(x)) want.merge({x, x});
    const FiniteRange got = finiteRange(v.data(), static_cast<int64_t>(v.size()));
    EXPECT_EQ(got.seen(), want.seen()) << n;
    if (want.seen()) {
      EXPECT_EQ(got.lo, want.lo) << n;
      EXPECT_EQ(got.hi, want.hi) << n;
    }
  }
  const float nonFinite[] = {std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::infinity()};
  EXPECT_FALSE(finiteRange(nonFinite, 2).seen());
}

TEST(CalibrationStats, HistogramCountsEachFiniteElementInItsBin) {
  const auto v = awkwardValues(5000, 7);
  for (bool absolute : {false, true})
    for (int bins : {1, 2, 3, 2048, 8192}) {
      const double lo = absolute ? 0.0 : -7.25, hi = 9.5;
      std::vector<uint64_t> want(static_cast<size_t>(bins), 0), got(static_cast<size_t>(bins), 0);
      for (float x : v)
        if (std::isfinite(x))
          ++want[static_cast<size_t>(binOf(absolute ? std::fabs(double(x)) : double(x), lo, hi, bins))];
      addToHistogram(v.data(), static_cast<int64_t>(v.size()), lo, hi, absolute, got);
      EXPECT_EQ(got, want) << "bins " << bins << " absolute " << absolute;
    }
  // An empty range puts every finite element in bin 0.
  std::vector<uint64_t> one(4, 0);
  addToHistogram(v.data(), static_cast<int64_t>(v.size()), 1.0, 1.0, false, one);
  EXPECT_EQ(one[0], static_cast<uint64_t>(std::count_if(v.begin(), v.end(), [](float x) { return std::isfinite(x); })));
}

TEST(CalibrationStats, TailsAreTheExtremeFiniteElementsWhateverTheSplit) {
  const auto v = awkwardValues(3001, 11);
  std::vector<float> sorted;
  for (float x : v)
    if (std::isfinite(x)) sorted.push_back(x);
  std::sort(sorted.begin(), sorted.end());
  for (size_t k : {1u, 5u, 64u, 5000u}) {
    // One add, and the same elements in uneven pieces merged in a different order.
    Tails whole(k), pieces(k);
    whole.add(v.data(), static_cast<int64_t>(v.size()));
    for (size_t start : {2000u, 0u, 999u, 1000u}) {
      const size_t end = start == 2000 ? v.size() : start == 0 ? 999 : start == 999 ? 1000 : 2000;
      Tails piece(k);
      piece.add(v.data() + start, static_cast<int64_t>(end - start));
      pieces.merge(piece);
    }
    for (const Tails* t : {&whole, &pieces}) {
      EXPECT_EQ(t->count(), sorted.size());
      for (size_t n = 1; n <= std::min(k, sorted.size()); n += 1 + n / 4) {
        EXPECT_EQ(t->largest(n), sorted[sorted.size() - n]) << "k " << k << " n " << n;
        EXPECT_EQ(t->smallest(n), sorted[n - 1]) << "k " << k << " n " << n;
      }
    }
  }
}

/// Percentile ranges from the tails equal those from the full histogram, bit for bit: on skewed,
/// tied, constant and outlier-heavy data, over percentiles whose tails hold from zero elements to
/// most of the bins, in one piece and merged from several.
TEST(CalibrationStats, PercentileFromTailsEqualsPercentileFromTheHistogram) {
  std::mt19937 rng(5);
  std::vector<std::vector<float>> cases;
  cases.push_back(awkwardValues(20000, 3));
  {
    std::vector<float> relu(30000);
    std::normal_distribution<float> normal(0.0f, 1.0f);
    for (float& x : relu) x = std::max(0.0f, normal(rng));
    relu[17] = 80.0f;  // one outlier
    cases.push_back(relu);
  }
  {
    std::vector<float> heavy(25000);
    std::exponential_distribution<float> expo(0.3f);
    for (size_t i = 0; i < heavy.size(); ++i) heavy[i] = (i % 3 ? 1.0f : -1.0f) * expo(rng) * expo(rng);
    cases.push_back(heavy);
  }
  {
    std::vector<float> ties(10000);
    for (size_t i = 0; i < ties.size(); ++i) ties[i] = static_cast<float>(static_cast<int>(i % 7) - 3) * 0.5f;
    cases.push_back(ties);
  }
  cases.push_back(std::vector<float>(500, 2.5f));  // constant
  cases.push_back({-1.0f, 4.0f});
  for (size_t c = 0; c < cases.size(); ++c) {
    const auto& v = cases[c];
    const FiniteRange r = finiteRange(v.data(), static_cast<int64_t>(v.size()));
    for (int bins : {1, 3, 2048, 8192})
      for (double p : {100.0, 99.999, 99.99, 99.9, 99.0, 90.0, 60.0}) {
        std::vector<uint64_t> hist(static_cast<size_t>(bins), 0);
        addToHistogram(v.data(), static_cast<int64_t>(v.size()), r.lo, r.hi, false, hist);
        const TensorRange want = percentileFromHistogram(r.lo, r.hi, hist, p);
        const size_t k = percentileTail(v.size(), p) + 1;
        Tails tails(k);
        for (size_t start = 0; start < v.size(); start += 4093) {
          Tails piece(k);
          piece.add(v.data() + start, static_cast<int64_t>(std::min<size_t>(4093, v.size() - start)));
          tails.merge(piece);
        }
        const TensorRange got = percentileFromTails(r.lo, r.hi, bins, tails, p);
        EXPECT_EQ(got.lo, want.lo) << "case " << c << " bins " << bins << " p " << p;
        EXPECT_EQ(got.hi, want.hi) << "case " << c << " bins " << bins << " p " << p;
      }
  }
}

TEST(ParallelFor, RunsEveryIndexOnceWhateverTheJobs) {
  for (int jobs : {0, 1, 2, 5, 64}) {
    std::vector<std::atomic<int>> hits(37);
    parallelFor(hits.size(), jobs, [&](size_t i) { ++hits[i]; });
    for (size_t i = 0; i < hits.size(); ++i) EXPECT_EQ(hits[i], 1) << i << " jobs " << jobs;
  }
  parallelFor(0, 4, [](size_t) { FAIL(); });
  EXPECT_GE(resolveJobs(0), 1);
  EXPECT_EQ(resolveJobs(3), 3);
}

TEST(ParallelFor, RethrowsTheLowestFailingIndex) {
  for (int jobs : {1, 2, 4}) {
    try {
      parallelFor(20, jobs, [](size_t i) {
        if (i == 6 || i == 11) throw std::runtime_error(std::to_string(i));
      });
      FAIL() << "no exception";
    } catch (const std::runtime_error& e) {
      EXPECT_STREQ(e.what(), "6") << "jobs " << jobs;
    }
  }
}

}  // namespace
}  // namespace systole::compiler
