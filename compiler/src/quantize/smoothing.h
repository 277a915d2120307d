// Activation smoothing (Xiao et al., "SmoothQuant", ICML 2023): a LayerNormalization whose output
// only matrix layers read is divided per channel by s_j, and the rows of those layers' weights
// that multiply channel j are multiplied by s_j. The float graph computes the same function; the
// per-tensor int8 activation range no longer has to cover a few outlier channels, at the cost of
// wider weight rows (per-channel weight scales absorb part of it).
#pragma once

#include <vector>

#include "systole/compiler/graph.h"
#include "systole/compiler/quantize.h"

namespace systole::compiler {

/// What smoothActivations changed.
struct SmoothingSummary {
  int norms = 0;   // LayerNormalizations whose output was divided
  int layers = 0;  // matrix layers whose weight rows were scaled
};

/// s_j = max|x_j|^alpha / max|W_j|^(1 - alpha), with max|x_j| measured on the first `samples`
/// calibration samples and max|W_j| over every reading layer's row j. Applies to a
/// LayerNormalization over the last axis with constant gamma (and beta), whose output is not a
/// graph output and is read, directly or through Reshapes and Transposes that keep the last axis,
/// only as the first input of MatMuls (2-D constant weights) or Gemms (transA 0) whose weights
/// nothing else reads. alpha in (0, 1).
SmoothingSummary smoothActivations(Graph& g, const std::vector<TensorMap>& calibration, double alpha, int samples,
                                   int jobs);

}  // namespace systole::compiler
