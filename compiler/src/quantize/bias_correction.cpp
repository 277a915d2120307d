// Algorithm: the means are measured by channelStats (quantize/channel_stats.h); the shift is one
// pass over the weights. A Conv's padding is ignored: E[x] is taken as the mean
// over the input's pixels, where the padded border contributes zeros instead.
#include "quantize/bias_correction.h"

#include "quantize/channel_stats.h"
#include "quantize/quantize_classify.h"

namespace systole::compiler {

std::string_view biasCorrectionName(BiasCorrection b) {
  switch (b) {
    case BiasCorrection::Off: return "off";
    case BiasCorrection::Narrow: return "narrow";
    case BiasCorrection::All: return "all";
  }
  return "?";
}

std::optional<BiasCorrection> parseBiasCorrection(std::string_view text) {
  for (BiasCorrection b : {BiasCorrection::Off, BiasCorrection::Narrow, BiasCorrection::All})
    if (text == biasCorrectionName(b)) return b;
  return std::nullopt;
}

std::map<std::string, std::vector<double>> inputChannelMeans(const Graph& g, const std::vector<TensorMap>& calibration,
                                                             int samples, int jobs) {
  std::map<int, size_t> axisOf;  // layer input value -> its channel axis
  for (const Node& n : g.nodes)
    if (quant::isMatrixLayer(g, n)) {
      const Value& x = g.values[static_cast<size_t>(n.inputs[0])];
      if (x.type != ElemType::Float32 || x.shape.empty()) continue;
      axisOf[n.inputs[0]] = n.op == Op::Conv ? 1 : x.shape.size() - 1;
    }
  std::map<std::string, std::vector<double>> means;
  for (auto& [value, stats] : channelStats(g, axisOf, calibration, samples, jobs))
    means[g.values[static_cast<size_t>(value)].name] = std::move(stats.mean);
  return means;
}

std::vector<double> convOutputShift(const float* w, const QuantizedWeights& q, const std::vector<int64_t>& shape,
                                    int64_t group, const std::vector<double>& mean) {
  const int64_t OC = shape[0], ICg = shape[1], taps = shape[2] * shape[3], OCg = OC / group;
  std::vector<double> shift(static_cast<size_t>(OC), 0.0);
  for (int64_t oc = 0; oc < OC; ++oc) {
    const double scale = q.scale[static_cast<size_t>(oc)];
    const int64_t ic0 = (oc / OCg) * ICg;
    for (int64_t ic = 0; ic < ICg; ++ic) {
      double err = 0;
      for (int64_t t = 0; t < taps; ++t) {
        const size_t i = static_cast<size_t>((oc * ICg + ic) * taps + t);
        err += q.data[i] * scale - double{w[i]};
      }
      shift[static_cast<size_t>(oc)] += err * mean[static_cast<size_t>(ic0 + ic)];
    }
  }
  return shift;
}

std::vector<double> matrixOutputShift(const float* w, const QuantizedWeights& q, int64_t K, int64_t N, bool transposed,
                                      const std::vector<double>& mean) {
  std::vector<double> shift(static_cast<size_t>(N), 0.0);
  for (int64_t k = 0; k < K; ++k)
    for (int64_t n = 0; n < N; ++n) {
      const double wf = transposed ? w[n * K + k] : w[k * N + n];
      const double err = q.data[static_cast<size_t>(k * N + n)] * double{q.scale[static_cast<size_t>(n)]} - wf;
      shift[static_cast<size_t>(n)] += err * mean[static_cast<size_t>(k)];
    }
  return shift;
}

}  // namespace systole::compiler
