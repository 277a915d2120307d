// --precision auto: each matrix layer's weight width, chosen against an accuracy target.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "systole/compiler/quantize.h"

namespace systole::compiler {

/// Chooses a width from opts.search_widths for every matrix layer of the float graph `g` (Conv,
/// and Gemm / MatMul with constant weights): the narrowest for the least sensitive layers, as many
/// as keep the quantized outputs' cosine against `g`'s at least opts.min_cosine on the first
/// opts.search_samples calibration samples, the widest for the rest. Fills `found`'s search fields
/// (layers in graph order, the chosen mix's cosine on the search samples and on the next as many
/// held out). Throws Error if even the widest everywhere misses the target.
WeightPrecision searchWeightPrecision(const Graph& g, const std::map<std::string, TensorRange>& ranges,
                                      const std::vector<TensorMap>& calibration, const QuantOptions& opts,
                                      const ChannelMeans& means, QuantSummary& found);

}  // namespace systole::compiler
