// ONNX's `auto_pad` made explicit. Conv, MaxPool and AveragePool may give their padding either as
// `pads` or as `auto_pad` (SAME_UPPER, SAME_LOWER, VALID; NOTSET means "use pads"). The importer
// resolves every `auto_pad` into `pads` once, right after shape inference, so every later stage
// (passes, float and quantized kernels, quantizer, back end) reads only `pads`; Graph::verify()
// rejects a node that still carries the attribute.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "systole/compiler/graph.h"

namespace systole::compiler {

/// The explicit `pads` (all begins, then all ends, as ONNX orders them) that `mode` means for a
/// window over the spatial sizes `in`. For SAME_*, per axis: out = ceil(in / stride),
/// total = max(0, (out - 1) * stride + (kernel - 1) * dilation + 1 - in), split evenly with the odd
/// one at the end (SAME_UPPER) or at the beginning (SAME_LOWER); VALID is all zeros. Throws Error
/// for another mode (NOTSET means "use `pads`": there is nothing to compute).
std::vector<int64_t> autoPads(const std::string& mode, const std::vector<int64_t>& in,
                              const std::vector<int64_t>& kernel, const std::vector<int64_t>& strides,
                              const std::vector<int64_t>& dilations);

/// Rewrites every node's `auto_pad` into `pads` and removes the attribute (NOTSET keeps `pads` as
/// given). Throws Error naming the node when its input's spatial sizes are not known.
void resolveAutoPad(Graph& g);

}  // namespace systole::compiler
