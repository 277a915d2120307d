// Algorithm: the means are folded in as the float interpreter computes each layer input (one
// accumulator per sample, summed in sample order, so the result does not depend on the threads);
// the shift is one pass over the weights. A Conv's padding is ignored: E[x] is taken as the mean
// over the input's pixels, where the padded border contributes zeros instead.
#include "quantize/bias_correction.h"

#include "quantize/quantize_classify.h"
#include "systole/compiler/interpreter.h"
#include "systole/compiler/parallel.h"

namespace systole::compiler {

namespace {

/// Per-channel sums of a float tensor, channels on `axis`.
std::vector<double> channelSums(const HostTensor& t, size_t axis, int64_t& perChannel) {
  const int64_t channels = t.shape[axis];
  int64_t inner = 1;
  for (size_t d = axis + 1; d < t.shape.size(); ++d) inner *= t.shape[d];
  std::vector<double> sums(static_cast<size_t>(channels), 0.0);
  const float* x = t.data<float>();
  const int64_t total = t.elements();
  for (int64_t i = 0; i < total; ++i) sums[static_cast<size_t>((i / inner) % channels)] += x[i];
  perChannel = channels > 0 ? total / channels : 0;
  return sums;
}

}  // namespace

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
  const size_t count = std::min(calibration.size(), static_cast<size_t>(std::max(1, samples)));
  std::vector<std::map<int, std::vector<double>>> sums(count);
  std::vector<std::map<int, int64_t>> counts(count);
  const Interpreter interpreter(g);
  parallelFor(count, jobs, [&](size_t s) {
    interpreter.run(calibration[s], [&](int value, const HostTensor& t) {
      const auto it = axisOf.find(value);
      if (it == axisOf.end() || t.type != ElemType::Float32 || t.shape.size() <= it->second) return;
      sums[s][value] = channelSums(t, it->second, counts[s][value]);
    });
  });
  std::map<std::string, std::vector<double>> means;
  for (const auto& [value, axis] : axisOf) {
    std::vector<double> total;
    int64_t n = 0;
    for (size_t s = 0; s < count; ++s) {
      const auto it = sums[s].find(value);
      if (it == sums[s].end()) continue;
      if (total.empty()) total.assign(it->second.size(), 0.0);
      for (size_t c = 0; c < total.size() && c < it->second.size(); ++c) total[c] += it->second[c];
      n += counts[s][value];
    }
    if (n == 0) continue;
    for (double& v : total) v /= static_cast<double>(n);
    means[g.values[static_cast<size_t>(value)].name] = std::move(total);
  }
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
