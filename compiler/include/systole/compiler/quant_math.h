// The quantization arithmetic the compiler chooses parameters with: real multipliers as
// fixed-point (M, S) pairs, int8 activation parameters from a real range, symmetric per-channel
// int8 weights and int32 biases (docs/quantized-ops.md). The integer operations themselves live
// in systole/isa/arith.h; this header only decides the numbers they are given.
#pragma once

#include <cstdint>
#include <vector>

#include "systole/compiler/graph.h"
#include "systole/isa/arith.h"

namespace systole::compiler {

/// The activation range (isa::arith's, from types.activation) as doubles, for the float side of
/// quantization.
inline constexpr double kActMinF = isa::arith::kActMin;
inline constexpr double kActMaxF = isa::arith::kActMax;

/// A quantized MatMul whose right operand is an activation (per-tensor quantized, computed at run
/// time: attention's Q K^T and P V), not constant weights.
inline bool isActivationProduct(const Graph& g, const Node& n) {
  if (n.op != Op::MatMul || n.inputs.size() != 2 || n.inputs[1] < 0) return false;
  const Value& b = g.values[static_cast<size_t>(n.inputs[1])];
  return !b.is_constant && b.type == ElemType::Int8 && b.quant && b.quant->scale.size() == 1;
}

/// A real multiplier r as `M * 2^-S`: what arith::requantize takes.
struct FixedMultiplier {
  int32_t multiplier = 0;  // M
  int32_t shift = 0;       // S, in [0, 63]
  bool operator==(const FixedMultiplier&) const = default;
};

/// The one implementation of "a real multiplier r >= 0 becomes (M, S)": M = round(r * 2^S) with
/// M in [2^(bits-1), 2^bits) and S in [0, 63], so M * 2^-S is within 2^-bits (relative) of r.
/// Outside the representable range S is clamped: r < 2^(bits-64) gives S = 63 and a smaller M (0
/// once r < 2^-64); r >= 2^bits gives S = 0 and M = 2^bits - 1. r == 0 gives {0, 0}. Throws Error
/// for r < 0 or NaN, or bits outside [2, 31]. A requantize multiplier lives in an accumulator row,
/// so the quantizer asks for accumulator.bits - 1 bits.
FixedMultiplier quantizeMultiplier(double r, int bits = 31);

/// Round to nearest, ties to even (what QuantizeLinear uses), independent of the FP environment.
double roundHalfToEven(double x);

/// Per-tensor activation parameters, for activations of `bits` bits (types.activation: 8 or 16).
struct ActivationQuant {
  float scale = 1.0f;
  int32_t zero_point = 0;
  int bits = 8;
};

/// Parameters for real values in [lo, hi]: the range is first extended to contain 0 (so real 0
/// is exact), then s = (hi - lo) / (2^bits - 1) and z = round(min - lo / s) in [min, max], the
/// range of `bits` bits ([-128, 127] for int8). A range of width 0 (all zeros) gets s = 1, z = 0.
/// Throws Error for a non-finite bound.
ActivationQuant chooseActivationQuant(double lo, double hi, int bits = 8);
/// Zero point 0 and the scale that puts +-`magnitude` at +-max (127 for int8; an operand of an
/// activation product).
ActivationQuant chooseSymmetricQuant(double magnitude, int bits = 8);

/// float -> an activation of `bits` bits with QuantizeLinear's rounding:
/// saturate(round_half_to_even(x / s) + z), with x / s evaluated in float as ONNX does. NaN
/// becomes z.
int32_t quantizeFloat(float x, float scale, int32_t zero_point, int bits = 8);

/// Symmetric per-channel int8 weights: channel c (index along `axis` of `shape`) gets
/// s[c] = max|w[c]| / 127 (1 for an all-zero channel) and q = clamp(round_half_to_even(w / s[c]),
/// -127, 127). The data keeps its layout.
struct QuantizedWeights {
  std::vector<int8_t> data;
  std::vector<float> scale;  // one per index of `axis`
};
QuantizedWeights quantizeWeightsPerChannel(const float* w, const std::vector<int64_t>& shape, int axis, int bits = 8);
/// The largest magnitude of a symmetric weight of `bits` bits: 2^(bits-1) - 1 (127, 7).
constexpr int symmetricWeightMax(int bits) { return (1 << (bits - 1)) - 1; }
/// The same rounding with the channels' scales given (q = clamp(round_half_to_even(w / s[c]))).
QuantizedWeights quantizeWeightsWithScales(const float* w, const std::vector<int64_t>& shape, int axis, int bits,
                                           std::vector<float> scale);

/// The product of a shape's dimensions.
inline int64_t elementCount(const std::vector<int64_t>& shape) {
  int64_t total = 1;
  for (int64_t d : shape) total *= d;
  return total;
}

/// Calls fn(i, c) for every element i of a dense tensor of `shape`, in memory order, with c its
/// index along `axis` (a weight's channel).
template <typename Fn>
void forEachChannelElement(const std::vector<int64_t>& shape, int axis, Fn&& fn) {
  const int64_t channels = shape[static_cast<size_t>(axis)];
  int64_t inner = 1;
  for (size_t d = static_cast<size_t>(axis) + 1; d < shape.size(); ++d) inner *= shape[d];
  const int64_t outer = channels * inner > 0 ? elementCount(shape) / (channels * inner) : 0;
  for (int64_t o = 0, i = 0; o < outer; ++o)
    for (int64_t c = 0; c < channels; ++c)
      for (int64_t j = 0; j < inner; ++j, ++i) fn(i, static_cast<size_t>(c));
}

/// int32 bias at scale s_x * s_w[c]: q[c] = sat32(round_half_to_even(b[c] / (s_x * s_w[c]))).
/// `b` has one value per channel (b.size() == s_w.size()).
std::vector<int32_t> quantizeBias(const std::vector<float>& b, float s_x, const std::vector<float>& s_w);

/// The clamp [act_min, act_max] of a fused activation in the output's quantized domain, within
/// the range [min, max] of q.bits bits: none -> [min, max]; relu -> [max(z, min), max];
/// clip(a, b) -> [sat(z + round(a / s)), sat(z + round(b / s))].
struct ActivationClamp {
  int32_t lo = isa::arith::kActMin;
  int32_t hi = isa::arith::kActMax;
};
/// No clamp: the whole range of `bits` bits.
constexpr ActivationClamp fullRange(int bits) {
  return {isa::arith::activationMin(bits), isa::arith::activationMax(bits)};
}
ActivationClamp reluClamp(const ActivationQuant& q);
ActivationClamp clipClamp(const ActivationQuant& q, double a, double b);

/// The sliding window of Conv, MaxPool and AveragePool over an N C [H] W tensor (padding from
/// `pads`: the importer has resolved any `auto_pad`, see auto_pad.h); a 1-D window (N C W) is the
/// 2-D one with H = 1. Both the quantizer (eligibility) and the quantized kernels read windows
/// through this.
struct Window2d {
  int64_t in_h = 1, in_w = 1, out_h = 1, out_w = 1;
  int64_t k_h = 1, k_w = 1, stride_h = 1, stride_w = 1, dil_h = 1, dil_w = 1;
  int64_t pad_top = 0, pad_left = 0, pad_bottom = 0, pad_right = 0;
  /// True if every window position lies inside the padded input (no ceil_mode overhang).
  bool windowsInsidePadded() const;
  bool hasPadding() const { return pad_top || pad_left || pad_bottom || pad_right; }
};
/// `kernel` is the spatial kernel size (kernel_shape, or the weight's trailing dimensions); `in`
/// and `out` are the full N C [H] W shapes. Reads strides, dilations and pads from `n`.
/// Throws Error for a rank other than 3 or 4 or malformed attributes.
Window2d windowOf(const Node& n, const std::vector<int64_t>& in, const std::vector<int64_t>& out,
                  const std::vector<int64_t>& kernel);

}  // namespace systole::compiler
