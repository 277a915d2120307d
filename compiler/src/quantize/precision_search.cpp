// Algorithm: a search on measured sensitivity (in the manner of HAWQ's and NVIDIA's per-layer
// sensitivity sweeps, with the model's own outputs as the metric). The cosine is over every output
// element of every search sample, concatenated, so a larger output weighs more.
//   1. every layer at the widest width: below the target is an error;
//   2. every layer at the narrowest: at or above the target, that is the answer (2 trials);
//   3. otherwise narrow each layer alone and measure (the layer's sensitivity);
//   4. order the layers from the least to the most sensitive and binary-search the longest prefix
//      of that order whose layers, narrowed together, keep the target. The cosine is taken to fall
//      as the prefix grows, which the ranking makes likely, not certain.
// That is 2 + layers + log2(layers) quantize-and-interpret trials. The calibration samples after
// the search's, as many, are held out: the chosen mix's cosine on them is an estimate the choice
// did not see (four samples of a deep model can overestimate; bench/precision.md).
#include "quantize/precision_search.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "quantize/quantize_classify.h"
#include "systole/compiler/interpreter.h"
#include "systole/compiler/parallel.h"
#include "systole/isa/diagnostic.h"

namespace systole::compiler {

namespace {

/// The graph outputs of every sample, as one float vector per sample.
std::vector<std::vector<float>> outputsOf(const Graph& g, const std::vector<TensorMap>& samples, int jobs) {
  const Interpreter interpreter(g);
  std::vector<std::vector<float>> out(samples.size());
  parallelFor(samples.size(), jobs, [&](size_t i) {
    const auto results = interpreter.run(samples[i]);
    for (const int v : g.outputs) {
      const HostTensor& t = results.at(g.values[static_cast<size_t>(v)].name);
      if (t.type != ElemType::Float32) continue;
      out[i].insert(out[i].end(), t.data<float>(), t.data<float>() + t.elements());
    }
  });
  return out;
}

double cosineOf(const std::vector<std::vector<float>>& a, const std::vector<std::vector<float>>& b) {
  double dot = 0, aa = 0, bb = 0;
  for (size_t s = 0; s < a.size(); ++s)
    for (size_t i = 0; i < a[s].size() && i < b[s].size(); ++i) {
      dot += double{a[s][i]} * b[s][i];
      aa += double{a[s][i]} * a[s][i];
      bb += double{b[s][i]} * b[s][i];
    }
  return aa == 0 && bb == 0 ? 1.0 : dot / (std::sqrt(aa * bb) + 1e-300);
}

/// Steps 1-4 of the search above, with `measure(w)` the outputs' cosine of the widths `w` on the
/// search samples.
template <typename Measure>
WeightPrecision chooseWidths(const Graph& g, const QuantOptions& opts, int widest, int narrowest, Measure&& measure,
                             QuantSummary& found) {
  found.searched_cosine = measure(WeightPrecision{widest, {}});
  if (found.searched_cosine < opts.min_cosine)
    throw Error("--precision auto: the outputs' cosine is " + std::to_string(found.searched_cosine) +
                " with every layer at int" + std::to_string(widest) + ", below the target " +
                std::to_string(opts.min_cosine));
  found.layers.clear();
  for (int id : g.topoOrder())
    if (quant::isMatrixLayer(g, g.nodes[static_cast<size_t>(id)]))
      found.layers.push_back({g.nodes[static_cast<size_t>(id)].name, widest, std::nan("")});
  if (narrowest == widest || found.layers.empty()) return WeightPrecision{widest, {}};
  if (const double all = measure(WeightPrecision{narrowest, {}}); all >= opts.min_cosine) {
    found.searched_cosine = all;
    for (LayerPrecision& l : found.layers) l.bits = narrowest;
    return WeightPrecision{narrowest, {}};
  }
  for (LayerPrecision& l : found.layers) l.alone_cosine = measure(WeightPrecision{widest, {{l.layer, narrowest}}});

  std::vector<size_t> order(found.layers.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return found.layers[a].alone_cosine > found.layers[b].alone_cosine; });
  auto prefix = [&](size_t k) {
    WeightPrecision w{widest, {}};
    for (size_t i = 0; i < k; ++i) w.layers[found.layers[order[i]].layer] = narrowest;
    return w;
  };
  size_t lo = 0, hi = found.layers.size();  // prefix lo keeps the target (0: all widest), hi does not (all narrow)
  while (hi - lo > 1) {
    const size_t mid = lo + (hi - lo) / 2;
    const double c = measure(prefix(mid));
    if (c >= opts.min_cosine)
      lo = mid, found.searched_cosine = c;
    else
      hi = mid;
  }
  for (size_t i = 0; i < lo; ++i) found.layers[order[i]].bits = narrowest;
  return prefix(lo);
}

}  // namespace

WeightPrecision searchWeightPrecision(const Graph& g, const std::map<std::string, TensorRange>& ranges,
                                      const std::vector<TensorMap>& calibration, const QuantOptions& opts,
                                      const ChannelMeans& means, QuantSummary& found) {
  const int widest = *std::max_element(opts.search_widths.begin(), opts.search_widths.end());
  const int narrowest = *std::min_element(opts.search_widths.begin(), opts.search_widths.end());
  const size_t count = std::min(calibration.size(), static_cast<size_t>(std::max(1, opts.search_samples)));
  const size_t held = std::min(calibration.size() - count, count);
  const auto begin = calibration.begin();
  const std::vector<TensorMap> samples(begin, begin + static_cast<ptrdiff_t>(count));
  const std::vector<TensorMap> heldOut(begin + static_cast<ptrdiff_t>(count),
                                       begin + static_cast<ptrdiff_t>(count + held));
  const auto reference = outputsOf(g, samples, opts.jobs);
  auto measureOn = [&](const WeightPrecision& w, const std::vector<TensorMap>& inputs,
                       const std::vector<std::vector<float>>& want) {
    Graph trial = g;
    quantizeWithRanges(trial, ranges, w, means, opts.bias_correction, opts.accumulator_bits, opts.activation_bits);
    return cosineOf(want, outputsOf(trial, inputs, opts.jobs));
  };
  auto measure = [&](const WeightPrecision& w) { return measureOn(w, samples, reference); };
  found.search_samples = static_cast<int>(count);
  found.held_out_samples = static_cast<int>(held);
  const WeightPrecision chosen = chooseWidths(g, opts, widest, narrowest, measure, found);
  if (held > 0) found.held_out_cosine = measureOn(chosen, heldOut, outputsOf(g, heldOut, opts.jobs));
  return chosen;
}

}  // namespace systole::compiler
