// Algorithm: for each node with an `auto_pad` attribute, read the spatial sizes of its input
// (known after ONNX's shape inference at import), its kernel (`kernel_shape`, or a Conv weight's
// trailing dimensions), strides and dilations; compute the pads the mode means (ONNX's formula, see
// auto_pad.h), store them as `pads` and erase `auto_pad`. `ceil_mode` is left as it is: ONNX applies
// it on top of the SAME padding, and so do the kernels with explicit pads.
#include "systole/compiler/auto_pad.h"

#include <algorithm>

#include "systole/isa/diagnostic.h"

namespace systole::compiler {

std::vector<int64_t> autoPads(const std::string& mode, const std::vector<int64_t>& in,
                              const std::vector<int64_t>& kernel, const std::vector<int64_t>& strides,
                              const std::vector<int64_t>& dilations) {
  const size_t sp = in.size();
  if (mode != "SAME_UPPER" && mode != "SAME_LOWER" && mode != "VALID")
    throw Error("auto_pad '" + mode + "' is not one of NOTSET, SAME_UPPER, SAME_LOWER, VALID");
  if (kernel.size() != sp || strides.size() != sp || dilations.size() != sp)
    throw Error("kernel, strides or dilations do not match the " + std::to_string(sp) + " spatial dimensions");
  std::vector<int64_t> out(2 * sp, 0);
  if (mode == "VALID") return out;
  for (size_t i = 0; i < sp; ++i) {
    if (strides[i] <= 0 || dilations[i] <= 0 || kernel[i] <= 0)
      throw Error("kernel, strides and dilations must be positive");
    const int64_t outSize = (in[i] + strides[i] - 1) / strides[i];
    const int64_t total = std::max<int64_t>(0, (outSize - 1) * strides[i] + (kernel[i] - 1) * dilations[i] + 1 - in[i]);
    const int64_t begin = mode == "SAME_UPPER" ? total / 2 : total - total / 2;
    out[i] = begin;
    out[i + sp] = total - begin;
  }
  return out;
}

namespace {

std::vector<int64_t> kernelOf(const Graph& g, const Node& n) {
  if (n.has("kernel_shape") || n.op != Op::Conv || n.inputs.size() < 2 || n.inputs[1] < 0)
    return n.getInts("kernel_shape");
  const std::vector<int64_t>& w = g.values[static_cast<size_t>(n.inputs[1])].shape;
  return w.size() > 2 ? std::vector<int64_t>(w.begin() + 2, w.end()) : std::vector<int64_t>{};
}

/// NOTSET means `pads` as given: only the attribute goes.
void resolve(const Graph& g, Node& n) {
  const std::string mode = n.getString("auto_pad", "NOTSET");
  n.attrs.erase("auto_pad");
  if (mode == "NOTSET") return;
  if (n.op == Op::ConvTranspose) {
    if (mode != "VALID")
      throw Error("auto_pad " + mode + " on ConvTranspose is not supported (give pads and output_padding)");
    n.attrs.erase("pads");
    return;
  }
  const std::vector<int64_t>& x = g.values[static_cast<size_t>(n.inputs.at(0))].shape;
  if (x.size() < 3 || std::any_of(x.begin() + 2, x.end(), [](int64_t d) { return d < 1; }))
    throw Error("auto_pad " + mode + " needs the input's spatial sizes, which shape inference could not determine");
  const std::vector<int64_t> in(x.begin() + 2, x.end()), ones(in.size(), 1);
  n.attrs["pads"] = autoPads(mode, in, kernelOf(g, n), n.getInts("strides", ones), n.getInts("dilations", ones));
}

}  // namespace

void resolveAutoPad(Graph& g) {
  for (Node& n : g.nodes) {
    if (n.dead || !n.has("auto_pad")) continue;
    try {
      resolve(g, n);
    } catch (const Error& e) {
      throw Error("node '" + n.name + "' (" + n.op + "): " + e.message());
    }
  }
}

}  // namespace systole::compiler
