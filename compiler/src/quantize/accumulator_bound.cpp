// Algorithm: one pass over the weights sums each channel's weights and their magnitudes. The fit
// bisects each channel over the limit for the finest scale that keeps it within (rounding makes the
// bound a step function of the scale, roughly proportional to 1 / scale), on the channel's own
// weights, then re-rounds the layer once.
#include "systole/compiler/accumulator_bound.h"

#include <algorithm>
#include <cstdlib>

#include "systole/isa/diagnostic.h"

namespace systole::compiler {

namespace {

/// The bound of one channel from its bias, its weights' sum and the sum of their magnitudes, with
/// activations of `activationBits` bits.
int64_t channelBound(int64_t bias, int32_t zx, int64_t sum, int64_t magnitude, int activationBits) {
  return std::abs(bias - int64_t{zx} * sum) - int64_t{isa::arith::activationMin(activationBits)} * magnitude;
}

}  // namespace

std::vector<int64_t> matrixAccumulatorBounds(const int8_t* q, const std::vector<int64_t>& shape, int axis,
                                             const std::vector<int32_t>& bias, int32_t zx, int activationBits) {
  const auto channels = static_cast<size_t>(shape[static_cast<size_t>(axis)]);
  std::vector<int64_t> sum(channels, 0), magnitude(channels, 0);
  forEachChannelElement(shape, axis, [&](int64_t i, size_t c) {
    sum[c] += q[i];
    magnitude[c] += std::abs(int64_t{q[i]});
  });
  std::vector<int64_t> bound(channels);
  for (size_t c = 0; c < channels; ++c)
    bound[c] = channelBound(bias.empty() ? 0 : bias[c], zx, sum[c], magnitude[c], activationBits);
  return bound;
}

namespace {

/// One channel's weights and bias, and its bound at a candidate scale (rounded as the quantizer
/// rounds: the scale as a float, weights by quantizeWeightsWithScales' rule, the bias by quantizeBias').
struct Channel {
  std::vector<float> w;
  std::optional<float> bias;
  float sx;
  int32_t zx;
  double qmax;
  int activationBits;

  int64_t bound(float s) const {
    int64_t sum = 0, magnitude = 0;
    for (float v : w) {
      const auto q = static_cast<int64_t>(std::clamp(roundHalfToEven(double{v} / double{s}), -qmax, qmax));
      sum += q;
      magnitude += std::abs(q);
    }
    return channelBound(bias ? quantizeBias({*bias}, sx, {s})[0] : 0, zx, sum, magnitude, activationBits);
  }
};

/// The finest scale at or above `s` whose bound is within `limit` (to a relative 2^-20).
float finestFittingScale(const Channel& ch, float s, int64_t limit) {
  double lo = s, hi = double{s} * static_cast<double>(ch.bound(s)) / static_cast<double>(limit);
  while (ch.bound(static_cast<float>(hi)) > limit) hi *= 2;
  for (int i = 0; i < 64 && hi - lo > hi * 0x1p-20; ++i) {
    const double mid = (lo + hi) / 2;
    (ch.bound(static_cast<float>(mid)) <= limit ? hi : lo) = mid;
  }
  return static_cast<float>(hi);
}

}  // namespace

int fitAccumulator(const float* w, const std::vector<int64_t>& shape, int axis, int bits,
                   const std::optional<std::vector<float>>& bias, float sx, int32_t zx, int64_t limit,
                   QuantizedWeights& qw, int activationBits) {
  const std::vector<int32_t> b = bias ? quantizeBias(*bias, sx, qw.scale) : std::vector<int32_t>{};
  const std::vector<int64_t> bound = matrixAccumulatorBounds(qw.data.data(), shape, axis, b, zx, activationBits);
  std::vector<Channel> over(bound.size());
  for (size_t c = 0; c < bound.size(); ++c)
    if (bound[c] > limit)
      over[c] = {{}, bias ? std::optional((*bias)[c]) : std::nullopt, sx,
                 zx, static_cast<double>(symmetricWeightMax(bits)),   activationBits};
  forEachChannelElement(shape, axis, [&](int64_t i, size_t c) {
    if (bound[c] > limit) over[c].w.push_back(w[i]);
  });
  int coarsened = 0;
  for (size_t c = 0; c < bound.size(); ++c)
    if (bound[c] > limit) {
      qw.scale[c] = finestFittingScale(over[c], qw.scale[c], limit);
      ++coarsened;
    }
  if (coarsened > 0) qw = quantizeWeightsWithScales(w, shape, axis, bits, std::move(qw.scale));
  return coarsened;
}

}  // namespace systole::compiler
