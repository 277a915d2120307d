// Algorithm: calibration runs the float reference interpreter on the samples in parallel
// (parallelFor) and folds each float32 tensor into per-value statistics as it is computed
// (calibration_stats.h), so no sample's intermediates outlive their last reader. MinMax needs
// one pass. Entropy takes a second pass that fills a fixed-width histogram over the first pass's
// [0, max|x|], then chooses the range from it. Percentile is defined on a histogram over [min, max]
// (the bins holding the few most extreme elements are dropped from both ends), but the first pass
// keeps each tensor's most extreme elements, as many as may be dropped plus one, and the bins to
// drop follow from those alone (calibration_stats.h), so it needs no second pass; only where that
// tail is long (a low percentile of a big tensor) does a second pass fill the histogram. Entropy is TensorRT's
// KL-divergence threshold search (the reference distribution with the clipped tail folded into its last bin, against
// its requantization to the int8 levels available on that side; both smoothed as MXNet does, the zero bin's spike
// flattened as pytorch-quantization does), intersected with [min, max]. Non-finite elements are ignored.
//
// Random calibration inputs come from a SplitMix64 stream (fully specified, so the same seed gives
// the same tensors with every standard library); normals use Box-Muller.
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <limits>
#include <mutex>
#include <numbers>

#include "quantize/calibration_stats.h"
#include "systole/compiler/interpreter.h"
#include "systole/compiler/parallel.h"
#include "systole/compiler/quantize.h"
#include "systole/isa/diagnostic.h"
#include "systole/isa/npy.h"

namespace systole::compiler {

std::string_view calibrationMethodName(CalibrationMethod m) {
  switch (m) {
    case CalibrationMethod::MinMax: return "minmax";
    case CalibrationMethod::Percentile: return "percentile";
    case CalibrationMethod::Entropy: return "entropy";
  }
  return "?";
}

std::optional<CalibrationMethod> parseCalibrationMethod(std::string_view text) {
  for (CalibrationMethod m : {CalibrationMethod::MinMax, CalibrationMethod::Percentile, CalibrationMethod::Entropy})
    if (text == calibrationMethodName(m)) return m;
  return std::nullopt;
}

namespace {

class SplitMix64 {
 public:
  explicit SplitMix64(uint64_t seed) : state_(seed) {}
  uint64_t next() {
    uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  /// Uniform in [0, 1) with 53 random bits.
  double unit() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }

 private:
  uint64_t state_;
};

constexpr int kPercentileBins = 8192;
constexpr int kEntropyBins = 2048;
/// The longest tail Percentile keeps per tensor and side instead of taking a second pass.
constexpr size_t kMaxTail = 4096;

struct Stats {
  FiniteRange range;             // first pass
  bool observed = false;         // a float32 tensor was seen (perhaps with no finite element)
  Tails tails;                   // first pass, Percentile
  bool needs_histogram = false;  // Entropy, or a Percentile tail longer than kMaxTail
  std::vector<uint64_t> hist;    // second pass
  double lo() const { return range.lo; }
  double hi() const { return range.hi; }
  bool seen() const { return range.seen(); }
};

/// MXNet's _smooth_distribution: every zero bin gets eps, taken evenly from the non-zero ones, so
/// the divergence stays finite where one distribution has an empty bin. False if all are zero.
bool smooth(std::vector<double>& d, double eps = 1e-4) {
  size_t zeros = 0;
  for (double v : d) zeros += v == 0;
  if (zeros == d.size()) return false;
  const double take = eps * static_cast<double>(zeros) / static_cast<double>(d.size() - zeros);
  for (double& v : d) v = v == 0 ? eps : v - take;
  return true;
}

double klDivergence(std::vector<double> p, std::vector<double> q) {
  if (!smooth(p) || !smooth(q)) return std::numeric_limits<double>::infinity();
  double pSum = 0, qSum = 0;
  for (size_t i = 0; i < p.size(); ++i) {
    pSum += p[i];
    qSum += q[i];
  }
  double kl = 0;
  for (size_t i = 0; i < p.size(); ++i)
    if (p[i] > 0 && q[i] > 0) kl += (p[i] / pSum) * std::log((p[i] / pSum) / (q[i] / qSum));
  return kl;
}

/// Levels on one side of zero: 255 if the tensor has one sign (the zero point moves to the end),
/// else 128.
int levelsPerSide(const Stats& s) { return (s.lo() >= 0 || s.hi() <= 0) ? 255 : 128; }

/// The most of a tensor's elements Entropy may clip. KL divergence does not see where the clipped
/// mass was: on a narrow distribution far from zero (a global average pool's output) its threshold
/// saturates the largest, most informative values, a large share of them. Clipping rare outliers
/// is what the method is for; a threshold that clips more than this keeps the full range.
constexpr double kEntropyMaxClipped = 0.01;

/// The fraction of the histogram's elements in bins from `first` on.
double fractionFrom(const std::vector<uint64_t>& hist, size_t first) {
  uint64_t total = 0, above = 0;
  for (size_t b = 0; b < hist.size(); ++b) {
    total += hist[b];
    if (b >= first) above += hist[b];
  }
  return total ? static_cast<double>(above) / static_cast<double>(total) : 0;
}

/// TensorRT's entropy calibration over the |x| histogram: the threshold (in units of bins) whose
/// clipped-and-quantized distribution diverges least from the clipped reference.
int entropyThresholdBins(std::vector<uint64_t> h, int levels) {
  const int bins = static_cast<int>(h.size());
  // The bin at 0 holds every exact zero (half of a ReLU output); as NVIDIA's
  // pytorch-quantization does, replace it by its neighbour so the spike does not decide.
  h[0] = h[1];
  int best = bins;
  double bestKl = std::numeric_limits<double>::infinity();
  std::vector<double> p, q;
  for (int i = levels; i <= bins; ++i) {
    p.assign(h.begin(), h.begin() + i);
    double outliers = 0;
    for (int j = i; j < bins; ++j) outliers += static_cast<double>(h[static_cast<size_t>(j)]);
    p.back() += outliers;
    // Merge the i reference bins into `levels` quantized bins, then spread each back evenly
    // over the reference bins it covers that are non-zero.
    q.assign(static_cast<size_t>(i), 0.0);
    const double per = static_cast<double>(i) / levels;
    for (int l = 0; l < levels; ++l) {
      const int start = static_cast<int>(std::floor(l * per));
      const int stop = l == levels - 1 ? i : static_cast<int>(std::floor((l + 1) * per));
      double sum = 0;
      int nonZero = 0;
      for (int j = start; j < stop; ++j) {
        sum += static_cast<double>(h[static_cast<size_t>(j)]);
        nonZero += h[static_cast<size_t>(j)] != 0;
      }
      for (int j = start; j < stop; ++j)
        if (h[static_cast<size_t>(j)] != 0) q[static_cast<size_t>(j)] = sum / nonZero;
    }
    const double kl = klDivergence(p, q);
    if (kl < bestKl) {
      bestKl = kl;
      best = i;
    }
  }
  return best;
}

/// The entropy threshold, or the full range if that threshold clips more than kEntropyMaxClipped.
TensorRange entropyRange(const Stats& s) {
  const double absMax = std::max(std::fabs(s.lo()), std::fabs(s.hi()));
  const int bins = static_cast<int>(s.hist.size());
  if (absMax == 0) return {s.lo(), s.hi()};
  const int best = entropyThresholdBins(s.hist, levelsPerSide(s));
  if (fractionFrom(s.hist, static_cast<size_t>(best)) > kEntropyMaxClipped) return {s.lo(), s.hi()};
  const double threshold = absMax * (best + 0.5) / bins;
  return {std::max(s.lo(), -threshold), std::min(s.hi(), threshold)};
}

}  // namespace

std::vector<TensorMap> makeRandomInputs(const Graph& g, int count, uint64_t seed, RandomDistribution dist) {
  SplitMix64 rng(seed);
  std::vector<TensorMap> sets;
  for (int s = 0; s < count; ++s) {
    TensorMap set;
    for (int id : g.inputs) {
      const Value& v = g.values.at(static_cast<size_t>(id));
      for (int64_t d : v.shape)
        if (d <= 0) throw Error("graph input '" + v.name + "' has an unknown dimension; give calibration data");
      HostTensor t(v.type, v.shape);
      if (v.type == ElemType::Float32) {
        float* d = t.data<float>();
        for (int64_t i = 0; i < t.elements(); ++i) {
          if (dist == RandomDistribution::Uniform) {
            d[i] = static_cast<float>(2.0 * rng.unit() - 1.0);
          } else {
            const double u1 = 1.0 - rng.unit();  // (0, 1]
            const double u2 = rng.unit();
            d[i] = static_cast<float>(std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * std::numbers::pi * u2));
          }
        }
      }
      set.emplace(v.name, std::move(t));
    }
    sets.push_back(std::move(set));
  }
  return sets;
}

namespace {

std::vector<std::filesystem::path> sortedEntries(const std::filesystem::path& dir, bool directories) {
  std::vector<std::filesystem::path> out;
  for (const auto& e : std::filesystem::directory_iterator(dir))
    if (directories ? e.is_directory() : (e.is_regular_file() && e.path().extension() == ".npy"))
      out.push_back(e.path());
  std::sort(out.begin(), out.end());
  return out;
}

/// What one .npy file holds for input `v`: one sample of v's shape, or images stacked along the
/// leading (batch) dimension with v's other dimensions (any count; each image a [1, ...] piece).
std::vector<HostTensor> samplesOf(NpyArray a, const std::string& where, const Value& v, bool allowStack) {
  if (a.dtype != isa::DType::Float32 || v.type != ElemType::Float32)
    throw Error(SourceLocation{where}, "calibration data for input '" + v.name + "' must be float32");
  if (a.shape == v.shape) {
    HostTensor t(ElemType::Float32, v.shape);
    t.bytes = std::move(a.bytes);
    return {std::move(t)};
  }
  const bool stacked = allowStack && !v.shape.empty() && a.shape.size() == v.shape.size() &&
                       std::equal(a.shape.begin() + 1, a.shape.end(), v.shape.begin() + 1);
  if (!stacked)
    throw Error(SourceLocation{where},
                "shape " + shapeText(a.shape) + " does not match input '" + v.name + "' " + shapeText(v.shape));
  std::vector<int64_t> image = v.shape;
  image[0] = 1;
  std::vector<HostTensor> out;
  const size_t bytes = a.bytes.size() / static_cast<size_t>(std::max<int64_t>(a.shape[0], 1));
  for (int64_t k = 0; k < a.shape[0]; ++k) {
    HostTensor t(ElemType::Float32, image);
    std::copy_n(a.bytes.begin() + static_cast<std::ptrdiff_t>(static_cast<size_t>(k) * bytes), bytes, t.bytes.begin());
    out.push_back(std::move(t));
  }
  return out;
}

/// Samples of input `v` from pieces in order: a piece of v's shape is a sample; consecutive
/// single images are combined into samples of v's batch, the last one filled by taking the images
/// again from the first (so a batch bound by --shape takes samples of any batch).
std::vector<HostTensor> batched(std::vector<HostTensor> pieces, const Value& v) {
  std::vector<HostTensor> samples, images;
  const int64_t batch = v.shape.empty() ? 1 : v.shape[0];
  const auto flush = [&] {
    for (size_t first = 0; first < images.size(); first += static_cast<size_t>(batch)) {
      HostTensor t(ElemType::Float32, v.shape);
      const size_t bytes = images[0].bytes.size();
      for (int64_t k = 0; k < batch; ++k) {
        const HostTensor& image = images[(first + static_cast<size_t>(k)) % images.size()];
        std::copy(image.bytes.begin(), image.bytes.end(),
                  t.bytes.begin() + static_cast<std::ptrdiff_t>(static_cast<size_t>(k) * bytes));
      }
      samples.push_back(std::move(t));
    }
    images.clear();
  };
  for (HostTensor& p : pieces) {
    if (p.shape == v.shape) {
      flush();
      samples.push_back(std::move(p));
    } else {
      images.push_back(std::move(p));
    }
  }
  flush();
  return samples;
}

std::vector<HostTensor> samplesOf(const std::filesystem::path& file, const Value& v, bool allowStack) {
  return samplesOf(readNpy(file.string()), file.string(), v, allowStack);
}

}  // namespace

std::vector<TensorMap> calibrationSamples(const Graph& g, std::vector<std::pair<std::string, NpyArray>> arrays,
                                          const std::string& path) {
  std::vector<TensorMap> samples;
  if (g.inputs.size() == 1) {
    const Value& in = g.values[static_cast<size_t>(g.inputs[0])];
    std::vector<HostTensor> pieces;
    for (auto& [name, a] : arrays)
      for (HostTensor& t : samplesOf(std::move(a), path + ":" + name, in, true)) pieces.push_back(std::move(t));
    for (HostTensor& t : batched(std::move(pieces), in)) samples.push_back({{in.name, std::move(t)}});
    return samples;
  }
  for (int id : g.inputs) {
    const Value& in = g.values[static_cast<size_t>(id)];
    auto it = std::find_if(arrays.begin(), arrays.end(), [&](const auto& a) { return a.first == in.name; });
    if (it == arrays.end()) throw Error(SourceLocation{path}, "no array named '" + in.name + "' for that model input");
    auto stack = batched(samplesOf(std::move(it->second), path + ":" + in.name, in, true), in);
    if (samples.empty()) samples.resize(stack.size());
    if (stack.size() != samples.size())
      throw Error(SourceLocation{path}, "the inputs' arrays hold different numbers of samples");
    for (size_t k = 0; k < stack.size(); ++k) samples[k].emplace(in.name, std::move(stack[k]));
  }
  return samples;
}

std::vector<TensorMap> loadCalibrationDir(const Graph& g, const std::string& dir) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (fs::is_regular_file(dir, ec) && fs::path(dir).extension() == ".npz") {
    auto samples = calibrationSamples(g, readNpz(dir), dir);
    if (samples.empty()) throw Error(SourceLocation{dir}, "no calibration samples in the archive");
    return samples;
  }
  if (!fs::is_directory(dir, ec))
    throw Error(SourceLocation{dir}, "not a directory of calibration .npy files nor a .npz archive");
  std::vector<TensorMap> samples;
  const auto files = sortedEntries(dir, false);
  if (!files.empty()) {
    if (g.inputs.size() != 1)
      throw Error(SourceLocation{dir}, "the model has " + std::to_string(g.inputs.size()) +
                                           " inputs: give one subdirectory per sample with INPUT_NAME.npy files");
    const Value& in = g.values[static_cast<size_t>(g.inputs[0])];
    std::vector<HostTensor> pieces;
    for (const auto& f : files)
      for (HostTensor& t : samplesOf(f, in, true)) pieces.push_back(std::move(t));
    for (HostTensor& t : batched(std::move(pieces), in)) samples.push_back({{in.name, std::move(t)}});
  } else {
    for (const auto& sub : sortedEntries(dir, true)) {
      TensorMap sample;
      for (int id : g.inputs) {
        const Value& in = g.values[static_cast<size_t>(id)];
        const fs::path f = sub / (in.name + ".npy");
        if (!fs::exists(f))
          throw Error(SourceLocation{f.string()}, "missing calibration data for input '" + in.name + "'");
        sample.emplace(in.name, std::move(samplesOf(f, in, false).front()));
      }
      samples.push_back(std::move(sample));
    }
  }
  if (samples.empty()) throw Error(SourceLocation{dir}, "no calibration samples (.npy files or sample subdirectories)");
  return samples;
}

namespace {

/// Each observed value's range by the calibration method, from its statistics.
std::map<std::string, TensorRange> rangesOf(const Graph& g, const std::vector<Stats>& stats, const QuantOptions& opts) {
  std::map<std::string, TensorRange> ranges;
  for (size_t v = 0; v < stats.size(); ++v) {
    const Stats& s = stats[v];
    if (!s.observed) continue;
    const std::string& name = g.values[v].name;
    if (!s.seen()) {
      ranges[name] = {0, 0};  // nothing finite was observed
      continue;
    }
    switch (opts.method) {
      case CalibrationMethod::MinMax: ranges[name] = {s.lo(), s.hi()}; break;
      case CalibrationMethod::Percentile:
        ranges[name] = s.needs_histogram
                           ? percentileFromHistogram(s.lo(), s.hi(), s.hist, opts.percentile)
                           : percentileFromTails(s.lo(), s.hi(), kPercentileBins, s.tails, opts.percentile);
        break;
      case CalibrationMethod::Entropy: ranges[name] = entropyRange(s); break;
    }
  }
  return ranges;
}

std::map<std::string, TensorRange> calibrateWith(const Interpreter& interpreter, const Graph& g,
                                                 const std::vector<TensorMap>& calibration, const QuantOptions& opts) {
  size_t n = calibration.size();
  if (opts.num_samples > 0) n = std::min(n, static_cast<size_t>(opts.num_samples));
  if (n == 0) throw Error("quantization needs at least one calibration input");
  if (opts.method == CalibrationMethod::Percentile && !(opts.percentile > 50 && opts.percentile <= 100))
    throw Error("the calibration percentile must be in (50, 100]");

  // One pass over the samples for the ranges (and Percentile's tails), and another for the
  // histograms where needed. Each thread folds a value's tensor into a local result and merges it
  // under that value's lock; merging is min/max, integer sums and multiset union, so the totals are
  // those of a serial run.
  std::vector<Stats> stats(g.values.size());
  std::vector<std::mutex> locks(g.values.size());
  const bool percentile = opts.method == CalibrationMethod::Percentile,
             entropy = opts.method == CalibrationMethod::Entropy;
  std::mutex progressLock;
  size_t done = 0, passes = entropy ? 2 : 1;
  auto runPass = [&](const ValueObserver& observe) {
    parallelFor(n, opts.jobs, [&](size_t i) {
      interpreter.run(calibration[i], observe);
      if (!opts.progress) return;
      const std::lock_guard lock(progressLock);
      opts.progress(++done, n * passes);
    });
  };
  runPass([&](int v, const HostTensor& t) {
    if (t.type != ElemType::Float32) return;
    const FiniteRange r = finiteRange(t.data<float>(), t.elements());
    // Enough of each side for the samples' tail whatever their count of finite elements.
    const size_t k = percentile ? percentileTail(static_cast<uint64_t>(t.elements()) * n, opts.percentile) + 1 : 0;
    Tails local(k <= kMaxTail ? k : 0);
    if (local.k() > 0) local.add(t.data<float>(), t.elements());
    const std::lock_guard lock(locks[static_cast<size_t>(v)]);
    Stats& s = stats[static_cast<size_t>(v)];
    if (!s.observed) s.tails = Tails(local.k());
    s.observed = true;
    s.range.merge(r);
    if (entropy || (percentile && (local.k() == 0 || local.k() != s.tails.k())))
      s.needs_histogram = true;
    else if (percentile)
      s.tails.merge(local);
  });

  if (std::any_of(stats.begin(), stats.end(), [](const Stats& s) { return s.needs_histogram && s.seen(); })) {
    const size_t bins = entropy ? kEntropyBins : kPercentileBins;
    for (Stats& s : stats)
      if (s.needs_histogram && s.seen()) s.hist.assign(bins, 0);
    passes = 2;
    runPass([&](int v, const HostTensor& t) {
      const Stats& s = stats[static_cast<size_t>(v)];
      if (t.type != ElemType::Float32 || s.hist.empty()) return;
      std::vector<uint64_t> local(bins, 0);
      if (entropy)
        addToHistogram(t.data<float>(), t.elements(), 0, std::max(std::fabs(s.lo()), std::fabs(s.hi())), true, local);
      else
        addToHistogram(t.data<float>(), t.elements(), s.lo(), s.hi(), false, local);
      const std::lock_guard lock(locks[static_cast<size_t>(v)]);
      std::vector<uint64_t>& hist = stats[static_cast<size_t>(v)].hist;
      for (size_t b = 0; b < bins; ++b) hist[b] += local[b];
    });
  }

  return rangesOf(g, stats, opts);
}

}  // namespace

std::map<std::string, TensorRange> calibrate(const Graph& g, const std::vector<TensorMap>& calibration,
                                             const QuantOptions& opts) {
  const Interpreter interpreter(g);
  return calibrateWith(interpreter, g, calibration, opts);
}

std::map<std::string, TensorRange> calibrate(Graph& g, const std::vector<TensorMap>& calibration,
                                             const QuantOptions& opts) {
  const Interpreter interpreter(g, Interpreter::TakeConstants{});
  return calibrateWith(interpreter, g, calibration, opts);
}

}  // namespace systole::compiler
