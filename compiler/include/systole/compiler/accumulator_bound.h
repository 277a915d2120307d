// How large a matrix layer's accumulator lanes can grow, and post-training weight scales that keep
// them inside the accumulator: a narrow one (types.accumulator below int32) never saturates, and
// int32 never wraps around.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "systole/compiler/quant_math.h"

namespace systole::compiler {

/// The largest magnitude an accumulator lane of output channel c can hold while a matrix layer
/// runs, for each c: the back end starts the lane at the bias row b_c - z_x sum_k q_kc and adds
/// products of activations of `activationBits` bits (at most 2^(bits-1) in magnitude: 128 for
/// int8) and the weights, so every partial sum is within |b_c - z_x sum_k q_kc| + 2^(bits-1)
/// sum_k |q_kc|. `q` is the int8 weight tensor of `shape` with its channels along `axis`; `bias`
/// is empty or one int32 per channel.
std::vector<int64_t> matrixAccumulatorBounds(const int8_t* q, const std::vector<int64_t>& shape, int axis,
                                             const std::vector<int32_t>& bias, int32_t zx, int activationBits = 8);

/// Accumulator-aware quantization, after the fact (in the spirit of A2Q, without retraining): each
/// channel of `qw` whose bound exceeds `limit` gets the finest coarser scale whose rounding of the
/// float weights `w` (the layout of qw.data) fits it. `bias` is the float bias (quantized at
/// s_x * s_c), `sx`/`zx` the input's quantization. Returns how many channels were coarsened.
int fitAccumulator(const float* w, const std::vector<int64_t>& shape, int axis, int bits,
                   const std::optional<std::vector<float>>& bias, float sx, int32_t zx, int64_t limit,
                   QuantizedWeights& qw, int activationBits = 8);

}  // namespace systole::compiler
