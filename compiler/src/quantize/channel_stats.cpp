// Algorithm: one accumulator per sample (sums, element counts and maxima per channel), filled as
// the interpreter produces each watched value, then combined in sample order, so the threads do
// not change the result.
#include "quantize/channel_stats.h"

#include <algorithm>
#include <cmath>

#include "systole/compiler/interpreter.h"
#include "systole/compiler/parallel.h"

namespace systole::compiler {

namespace {

struct Accumulator {
  std::vector<double> sum, absmax;
  int64_t perChannel = 0;
};

Accumulator accumulate(const HostTensor& t, size_t axis) {
  const int64_t channels = t.shape[axis];
  int64_t inner = 1;
  for (size_t d = axis + 1; d < t.shape.size(); ++d) inner *= t.shape[d];
  Accumulator a{std::vector<double>(static_cast<size_t>(channels), 0.0),
                std::vector<double>(static_cast<size_t>(channels), 0.0), 0};
  const float* x = t.data<float>();
  const int64_t total = t.elements();
  for (int64_t i = 0; i < total; ++i) {
    const auto c = static_cast<size_t>((i / inner) % channels);
    a.sum[c] += x[i];
    a.absmax[c] = std::max(a.absmax[c], static_cast<double>(std::fabs(x[i])));
  }
  a.perChannel = channels > 0 ? total / channels : 0;
  return a;
}

}  // namespace

std::map<int, ChannelStats> channelStats(const Graph& g, const std::map<int, size_t>& axisOf,
                                         const std::vector<TensorMap>& calibration, int samples, int jobs) {
  const size_t count = std::min(calibration.size(), static_cast<size_t>(std::max(1, samples)));
  std::vector<std::map<int, Accumulator>> perSample(count);
  const Interpreter interpreter(g);
  parallelFor(count, jobs, [&](size_t s) {
    interpreter.run(calibration[s], [&](int value, const HostTensor& t) {
      const auto it = axisOf.find(value);
      if (it == axisOf.end() || t.type != ElemType::Float32 || t.shape.size() <= it->second) return;
      perSample[s][value] = accumulate(t, it->second);
    });
  });
  std::map<int, ChannelStats> stats;
  for (const auto& [value, axis] : axisOf) {
    Accumulator total;
    for (size_t s = 0; s < count; ++s) {
      const auto it = perSample[s].find(value);
      if (it == perSample[s].end()) continue;
      const Accumulator& a = it->second;
      if (total.sum.empty()) total.sum.assign(a.sum.size(), 0.0), total.absmax.assign(a.sum.size(), 0.0);
      for (size_t c = 0; c < total.sum.size() && c < a.sum.size(); ++c) {
        total.sum[c] += a.sum[c];
        total.absmax[c] = std::max(total.absmax[c], a.absmax[c]);
      }
      total.perChannel += a.perChannel;
    }
    if (total.perChannel == 0) continue;
    for (double& v : total.sum) v /= static_cast<double>(total.perChannel);
    stats[value] = ChannelStats{std::move(total.sum), std::move(total.absmax)};
  }
  return stats;
}

}  // namespace systole::compiler
