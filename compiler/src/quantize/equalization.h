// Cross-layer equalization for two convolutions in a row, A -> B, with only a ReLU (or nothing)
// between them: output channel i of A is divided by s_i and input channel i of B multiplied by it.
// ReLU is positively homogeneous, so the float function is unchanged.
//
// DFQ (Nagel et al., ICCV 2019) picks s_i from A's and B's weight ranges, which balances per-tensor
// weight scales. This quantizer's weights are per output channel, so A's weights gain nothing from
// it; what is per tensor is A's output, the activation. With a_i the largest |output| of A's
// channel i on the calibration samples:
//  - B depthwise: B's filter i has its own weight scale, so s_i = a_i / max_j a_j costs it nothing
//    and gives every channel of the activation the same range (s_i at least 1e-3);
//  - B with every input channel in each output's row: s_i = sqrt(a_i / r_i), with r_i B's largest
//    |weight| on input channel i, so that afterwards both are sqrt(a_i r_i) (SmoothQuant's alpha
//    0.5 between two convolutions; s_i within [1e-3, 1e3]).
// bench/precision.md measures this against DFQ's choice.
#pragma once

#include <vector>

#include "systole/compiler/graph.h"
#include "systole/compiler/quantize.h"

namespace systole::compiler {

/// What equalizeLayers changed.
struct EqualizationSummary {
  int pairs = 0;       // A -> B pairs rescaled
  int relu6_relu = 0;  // of them, joined by a ReLU6 (Clip 0..M) that became a ReLU (Equalization::Relu6)
};

/// Rescales every eligible pair, measured on the first `samples` calibration samples: A is a float
/// Conv with constant weights (and bias), group 1 or depthwise, whose output only B's
/// first input reads and is not a graph output; its fused activation is none or relu (or, under
/// Relu6, a clip from 0, replaced by relu); B is a float Conv, group 1 or depthwise, with
/// constant weights. Nothing happens under Equalization::Off.
EqualizationSummary equalizeLayers(Graph& g, Equalization mode, const std::vector<TensorMap>& calibration, int samples,
                                   int jobs);

}  // namespace systole::compiler
