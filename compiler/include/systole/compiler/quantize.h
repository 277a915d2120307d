// Post-training quantization: calibrate per-tensor ranges by running the float reference
// interpreter over sample inputs, then rewrite the graph so that its NPU-eligible operators work
// on int8 tensors with the attributes of docs/quantized-ops.md. Operators that stay float run on
// the host between a DequantizeLinear and a QuantizeLinear (systole compile --emit=quant).
#pragma once

#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "systole/compiler/graph.h"
#include "systole/compiler/host_tensor.h"
#include "systole/isa/npy.h"

namespace systole::compiler {

using TensorMap = std::map<std::string, HostTensor>;

enum class CalibrationMethod : uint8_t {
  MinMax,      // the observed minimum and maximum
  Percentile,  // the (100 - p)th and p-th percentiles of the observed values (p = percentile)
  Entropy,     // KL-divergence threshold on |x| (TensorRT's method), intersected with [min, max]
};
std::string_view calibrationMethodName(CalibrationMethod m);
/// "minmax", "percentile", "entropy" (case-sensitive); nullopt otherwise.
std::optional<CalibrationMethod> parseCalibrationMethod(std::string_view text);

/// The width of each matrix layer's weights (Conv, Gemm, MatMul with constant weights): `bits`,
/// unless the layer's node is named in `layers`. Widths are 8 or 4 (int8, int4: symmetric, per
/// output channel, at most 2^(bits-1) - 1 in magnitude).
struct WeightPrecision {
  int bits = 8;
  std::map<std::string, int> layers;  // node name -> width

  int of(const std::string& node) const {
    const auto it = layers.find(node);
    return it == layers.end() ? bits : it->second;
  }
};

enum class BiasCorrection : uint8_t { Off, Narrow, All };
std::string_view biasCorrectionName(BiasCorrection b);
/// "off", "narrow", "all"; nullopt otherwise.
std::optional<BiasCorrection> parseBiasCorrection(std::string_view text);

/// Cross-layer equalization (quantize/equalization.h): Off; On, for Conv pairs joined by nothing
/// or a ReLU (the float function is unchanged); Relu6, which also turns a joining ReLU6 into a ReLU
/// (the float function changes; the run's float reference stays the original model).
enum class Equalization : uint8_t { Off, On, Relu6 };
std::string_view equalizationName(Equalization e);
/// "off", "on", "relu6"; nullopt otherwise.
std::optional<Equalization> parseEqualization(std::string_view text);

/// The defaults are measured (bench/int8_accuracy.md): on seven torchvision architectures,
/// percentile 99.999 had a higher SQNR and mean cosine against PyTorch than minmax on every one
/// (+0.1 to +1.8 dB); 99.99 and 99.9 clip too much, entropy was worse on two of them.
struct QuantOptions {
  CalibrationMethod method = CalibrationMethod::Percentile;
  double percentile = 99.999;  // Percentile only: in (50, 100]
  int num_samples = 0;         // how many of the calibration inputs to use; 0 = all of them
  int jobs = 0;                // calibration threads; 0 = the hardware concurrency (results do not depend on it)
  WeightPrecision weights;     // every layer int8 unless set
  /// --precision auto: when not empty, the widths (bits) to choose from per layer instead of
  /// `weights`: the narrowest width for the layers whose narrowing keeps the outputs' cosine
  /// against the float graph at least `min_cosine` (quantize/precision_search.cpp).
  std::vector<int> search_widths;
  double min_cosine = 0.99;
  /// Calibration samples the search evaluates (the first ones); the next as many, when there are,
  /// are held out: the chosen mix's cosine on them is reported, never used to choose.
  int search_samples = 4;
  /// Bias correction (quantize/bias_correction.h): a matrix layer's bias absorbs the mean output
  /// shift of its weights' rounding, measured on the calibration samples. Narrow (the default):
  /// only layers with weights narrower than int8, where it is measured to help (bench/precision.md).
  BiasCorrection bias_correction = BiasCorrection::Narrow;
  /// Activation smoothing's alpha (quantize/smoothing.h) for the LayerNormalizations that feed
  /// only matrix layers; 0 (the default): off. bench/precision.md measures it.
  double smoothing = 0;
  /// Cross-layer equalization before calibration; off by default (bench/precision.md measures it).
  Equalization equalization = Equalization::Off;
  /// types.accumulator's width: below 32, requantize multipliers get accumulator_bits - 1 bits, an
  /// Add's widen multipliers fewer, and matrix layers accumulator-aware weight scales.
  int accumulator_bits = 32;
  /// types.activation's width, 8 or 16: the range activations are quantized to. At 16 only the
  /// forms built for both widths are quantized (quant::activationWidthForm); the others run on
  /// the host in float.
  int activation_bits = 8;
  /// Called (from any calibration thread, one call at a time) after each sample of each pass:
  /// samples done and total, counted over all passes.
  std::function<void(size_t done, size_t total)> progress;
};

/// The real range [lo, hi] calibration chose for one tensor (before extending it to contain 0).
struct TensorRange {
  double lo = 0;
  double hi = 0;
};

/// One matrix layer's weight width, and what the precision search measured for it.
struct LayerPrecision {
  std::string layer;        // the node's name
  int bits = 8;             // the width chosen
  double alone_cosine = 1;  // the outputs' cosine with only this layer narrowed (the search's ranking)
};

/// What quantize() did, for logs and tests.
struct QuantSummary {
  int quantized_nodes = 0;    // operators now working on int8
  int float_nodes = 0;        // operators left in float on the host
  int quantize_linear = 0;    // QuantizeLinear nodes inserted
  int dequantize_linear = 0;  // DequantizeLinear nodes inserted
  int requant = 0;            // Requant nodes inserted (Concat inputs with another scale)
  /// With a precision search: every matrix layer in graph order, and the cosine of the chosen
  /// mix on the search's samples (0 without a search) and on the held-out ones (NaN: none).
  std::vector<LayerPrecision> layers;
  double searched_cosine = 0;
  int search_samples = 0;
  double held_out_cosine = std::numeric_limits<double>::quiet_NaN();
  int held_out_samples = 0;
  int smoothed_norms = 0;   // LayerNormalizations activation smoothing divided
  int smoothed_layers = 0;  // matrix layers whose weight rows it scaled
};

/// The distribution of random calibration inputs.
enum class RandomDistribution : uint8_t { Uniform, Normal };

/// `count` input sets for `g`'s graph inputs, reproducible from `seed` on every platform: float32
/// inputs are uniform in [-1, 1) (the default) or standard normal; integer inputs are zero.
/// Throws Error for an input with an unknown (non-positive) dimension.
std::vector<TensorMap> makeRandomInputs(const Graph& g, int count, uint64_t seed = 0,
                                        RandomDistribution dist = RandomDistribution::Uniform);

/// Calibration samples from a directory of float32 .npy files, in file-name order:
///  - for a single-input graph, every DIR/*.npy is one sample with the input's shape, or a stack
///    of samples [k, d1, ...] when the input is [1, d1, ...];
///  - for any graph, every subdirectory DIR/SAMPLE/ is one sample holding INPUT_NAME.npy for each
///    graph input.
/// `dir` may also be a .npz archive: for a single-input graph every array holds samples of the
/// input (one, or a stack); otherwise one array per input, named after it, stacked alike.
/// Throws Error naming the file on a type or shape mismatch, and if DIR holds no sample.
std::vector<TensorMap> loadCalibrationDir(const Graph& g, const std::string& dir);

/// Calibration samples from named arrays held in memory (the Python API's NumPy arrays), by the
/// .npz rule above: for a single-input graph every array holds samples of the input (one, or a
/// stack); otherwise one array per input, named after it, stacked alike. `where` names them in
/// errors.
std::vector<TensorMap> calibrationSamples(const Graph& g, std::vector<std::pair<std::string, NpyArray>> arrays,
                                          const std::string& where);

/// Runs the float interpreter over the calibration inputs (the first opts.num_samples of them,
/// or all; opts.jobs samples at a time) and returns the range of every float32 non-constant
/// value, by value name. Statistics are folded in as each value is computed, so memory holds one
/// sample's live tensors per thread; the ranges do not depend on opts.jobs.
/// Throws Error if there is no calibration input.
std::map<std::string, TensorRange> calibrate(const Graph& g, const std::vector<TensorMap>& calibration,
                                             const QuantOptions& opts = {});
/// The same, lending `g`'s constant bytes to the interpreter instead of copying them (a model's
/// weights: its whole size); `g` is as it was when it returns.
std::map<std::string, TensorRange> calibrate(Graph& g, const std::vector<TensorMap>& calibration,
                                             const QuantOptions& opts = {});

/// Rewrites the float graph `g` with the given ranges (every float tensor that becomes int8 needs
/// one; a missing range throws Error). Conv, Gemm (alpha = beta = 1, transA = 0), MatMul with a
/// constant 2-D right operand, same-shape Add, AveragePool (no padding or count_include_pad = 1,
/// no partial windows) and GlobalAveragePool always become int8 when eligible; MaxPool, Relu,
/// Clip, Concat and data movement (Reshape, Flatten, Transpose, Squeeze, Unsqueeze, Identity)
/// become int8 when an input comes from an int8 operator (data movement also when it feeds one),
/// so no QuantizeLinear/DequantizeLinear pair is added around an operator that gains nothing.
/// Weights are int8 per output channel (Conv axis 0; Gemm/MatMul as [K][N], axis 1), biases
/// int32. Graph inputs and outputs keep their names and stay float32 (QuantizeLinear after the
/// inputs, DequantizeLinear before the outputs). On success the result is compacted and passes
/// Graph::verify(); on failure `g` is unchanged.
/// A layer whose weights are narrower than int8 records it in its `weight_bits` attribute (the
/// back end packs them for dma_load_int4).
/// With `means` (per input channel of a matrix layer's input, by value name; bias correction),
/// each such layer's bias absorbs the mean shift its weights' rounding causes.
/// With `accumulatorBits` below 32, the multipliers are narrower and each matrix layer's weight
/// scales are coarsened where its sums could saturate the accumulator (accumulator_bound.h).
/// With `activationBits` 16, activations are int16 (QuantOptions::activation_bits).
using ChannelMeans = std::map<std::string, std::vector<double>>;
QuantSummary quantizeWithRanges(Graph& g, const std::map<std::string, TensorRange>& ranges,
                                const WeightPrecision& weights = {}, const ChannelMeans& means = {},
                                BiasCorrection correction = BiasCorrection::Narrow, int accumulatorBits = 32,
                                int activationBits = 8);

/// The matrix layers whose weight scales the quantizer coarsened to fit a narrow accumulator (their
/// `accumulator_fit` attribute), in node order, with how many output channels it coarsened.
std::vector<std::pair<std::string, int64_t>> accumulatorFittedLayers(const Graph& quantized);

/// What cross-layer equalization marked in a graph (the first layer of each pair carries
/// `equalized`, and `relu6_to_relu` when its ReLU6 became a ReLU).
struct EqualizedPairs {
  int pairs = 0;
  int relu6_to_relu = 0;
};
EqualizedPairs equalizedPairs(const Graph& g);

/// The matrix layers of a quantized graph (Conv, Gemm, MatMul with int8 constant weights) in node
/// order, with their weights' width (`weight_bits`, 8 when absent).
std::vector<std::pair<std::string, int>> matrixWeightWidths(const Graph& quantized);

/// Splits each group-1 Conv reading a channel Concat whose inputs' calibrated ranges differ by more
/// than 8x into one Conv per input and Adds (quantize/split_mixed_concats.cpp), so that each input
/// keeps its own scale; returns how many were split (0: the graph is unchanged).
int splitMixedRangeConcats(Graph& g, const std::map<std::string, TensorRange>& ranges);

/// calibrate(), splitMixedRangeConcats() (and calibrate() again if it split any), then
/// quantizeWithRanges().
QuantSummary quantize(Graph& g, const std::vector<TensorMap>& calibration, const QuantOptions& opts = {});

}  // namespace systole::compiler
