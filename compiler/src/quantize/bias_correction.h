// Bias correction (Nagel et al., "Data-Free Quantization Through Weight Equalization and Bias
// Correction", ICCV 2019, in its empirical form): rounding a layer's weights shifts the mean of its
// outputs by E[(W_q - W) x] = (W_q - W) E[x] per output channel, which the next layers amplify.
// Subtracting that shift from the bias, with E[x] per input channel measured on the calibration
// data, removes it. It matters for narrow weights (int4: 15 levels).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "systole/compiler/quant_math.h"
#include "systole/compiler/quantize.h"

namespace systole::compiler {

/// The mean of every input channel of each matrix layer's input (Conv: axis 1; Gemm and MatMul
/// with constant weights: the last axis), by value name, over the first `samples` calibration
/// samples of the float graph `g`.
std::map<std::string, std::vector<double>> inputChannelMeans(const Graph& g, const std::vector<TensorMap>& calibration,
                                                             int samples, int jobs);

/// A Conv's output shift per output channel: weights [OC][IC / group][KH][KW] as floats (`w`) and
/// quantized (`q`, scale per output channel), input channel means `mean` (IC of them).
std::vector<double> convOutputShift(const float* w, const QuantizedWeights& q, const std::vector<int64_t>& shape,
                                    int64_t group, const std::vector<double>& mean);

/// A matrix product's output shift per column: `q` is [K][N] (scale per column); the floats `w`
/// are [K][N], or [N][K] when `transposed` (Gemm's transB).
std::vector<double> matrixOutputShift(const float* w, const QuantizedWeights& q, int64_t K, int64_t N, bool transposed,
                                      const std::vector<double>& mean);

}  // namespace systole::compiler
