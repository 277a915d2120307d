// How faithful the INT8 model is: its outputs (and, per layer, its int8 values dequantized)
// against the float model's on the same inputs. `--check` proves the NPU equals the quantized
// reference bit for bit; this says whether the quantized model still computes the user's model.
#pragma once

#include <limits>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "systole/compiler/graph.h"
#include "systole/compiler/host_tensor.h"

namespace systole::runtime {

using TensorMap = std::map<std::string, compiler::HostTensor>;

struct TensorAccuracy {
  std::string name;
  double cosine = 1;  // of the flattened tensors (meaningless, and not reported, for one element)
  int64_t elements = 0;
  double sqnr_db = std::numeric_limits<double>::infinity();  // 10 log10(sum f^2 / sum (q - f)^2)
  double max_error_ratio = 0;                                // max |q - f| / max |f|
  // Logits-like outputs ([N, 1, ..., 1, K], K > 1): images whose argmax (the top-1 class, if the
  // output is a classifier's) agrees, of `top1_images`. An embedding has the same shape.
  int64_t top1_images = 0, top1_agree = 0;
  std::optional<double> saturated;  // int8 values: fraction at -128 or 127 that are not a clamp bound
};

/// Compares two float tensors element for element (same shape).
TensorAccuracy compareTensors(const std::string& name, const compiler::HostTensor& reference,
                              const compiler::HostTensor& got);

/// Every graph output of `got` against the float reference outputs of the same name, in name order.
std::vector<TensorAccuracy> compareOutputs(const TensorMap& reference, const TensorMap& got);

/// The float model's graph outputs on `inputs` (the float interpreter).
TensorMap floatReference(const compiler::Graph& floatGraph, const TensorMap& inputs);

/// For each named value of the quantized graph: its int8 values, dequantized, against the float
/// graph's value of the same name, with the fraction of saturated int8 values. Runs both
/// interpreters over every value (slow on big models: --layers only).
std::map<std::string, TensorAccuracy> valueAccuracy(const compiler::Graph& floatGraph, const compiler::Graph& quantized,
                                                    const TensorMap& inputs, const std::vector<std::string>& values);

}  // namespace systole::runtime
