// Per-channel statistics of float tensors on the calibration samples: what bias correction (the
// mean) and activation smoothing (the largest magnitude) measure.
#pragma once

#include <map>
#include <vector>

#include "systole/compiler/graph.h"
#include "systole/compiler/quantize.h"

namespace systole::compiler {

struct ChannelStats {
  std::vector<double> mean;    // per channel, over every element of that channel in every sample
  std::vector<double> absmax;  // per channel, the largest |x|
};

/// The statistics of each float value in `axisOf` (value id -> its channel axis) as the float
/// interpreter computes `g` on the first `samples` calibration samples. A value no sample computed
/// (or of another type, or rank too low) is absent. The result does not depend on `jobs`.
std::map<int, ChannelStats> channelStats(const Graph& g, const std::map<int, size_t>& axisOf,
                                         const std::vector<TensorMap>& calibration, int samples, int jobs);

}  // namespace systole::compiler
