// Algorithm: a greedy search on measured sensitivity (in the manner of HAWQ's and NVIDIA's
// per-layer sensitivity sweeps, with the model's own outputs as the metric):
//   1. narrow each layer alone (the others at the widest width) and measure the cosine of the
//      graph outputs against the float graph's on the search samples;
//   2. walk the layers from the least to the most sensitive, narrowing each one that keeps the
//      cosine of the whole mix at or above the target.
// That is 2 x layers quantize-and-interpret trials. The cosine is over every output element of
// every sample, concatenated, so a larger output weighs more.
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

}  // namespace

WeightPrecision searchWeightPrecision(const Graph& g, const std::map<std::string, TensorRange>& ranges,
                                      const std::vector<TensorMap>& calibration, const QuantOptions& opts,
                                      const ChannelMeans& means, std::vector<LayerPrecision>& layers, double& cosine) {
  const int widest = *std::max_element(opts.search_widths.begin(), opts.search_widths.end());
  const int narrowest = *std::min_element(opts.search_widths.begin(), opts.search_widths.end());
  const size_t count = std::min(calibration.size(), static_cast<size_t>(std::max(1, opts.search_samples)));
  const std::vector<TensorMap> samples(calibration.begin(), calibration.begin() + static_cast<ptrdiff_t>(count));
  const auto reference = outputsOf(g, samples, opts.jobs);
  auto measure = [&](const WeightPrecision& w) {
    Graph trial = g;
    quantizeWithRanges(trial, ranges, w, means, opts.bias_correction);
    return cosineOf(reference, outputsOf(trial, samples, opts.jobs));
  };

  WeightPrecision chosen{widest, {}};
  cosine = measure(chosen);
  if (cosine < opts.min_cosine)
    throw Error("--precision auto: the outputs' cosine is " + std::to_string(cosine) + " with every layer at int" +
                std::to_string(widest) + ", below the target " + std::to_string(opts.min_cosine));
  layers.clear();
  for (int id : g.topoOrder())
    if (quant::isMatrixLayer(g, g.nodes[static_cast<size_t>(id)]))
      layers.push_back({g.nodes[static_cast<size_t>(id)].name, widest, 1.0});
  if (narrowest == widest) return chosen;
  for (LayerPrecision& l : layers) l.alone_cosine = measure(WeightPrecision{widest, {{l.layer, narrowest}}});

  std::vector<size_t> order(layers.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return layers[a].alone_cosine > layers[b].alone_cosine; });
  for (size_t i : order) {
    WeightPrecision next = chosen;
    next.layers[layers[i].layer] = narrowest;
    const double c = measure(next);
    if (c < opts.min_cosine) continue;
    chosen = std::move(next);
    cosine = c;
    layers[i].bits = narrowest;
  }
  return chosen;
}

}  // namespace systole::compiler
