// Algorithm: a constant-mode Pad of a 4-D tensor with zero fill and constant pads on the spatial
// axes only is
//   * removed when every pad is 0 (torch exports one before some AveragePools), or
//   * folded into the `pads` of its only reader when that reader pads with zeros itself: a Conv
//     (the importer has made every auto_pad explicit), or an AveragePool that counts padding in its divisor
//     (count_include_pad = 1, or no padding of its own, when it becomes 1).
// So the padding reaches the NPU as halo rows of the reader instead of a host operator between
// two NPU programs. Other Pads (edge/reflect, a non-zero fill, padding N or C) are left alone.
#include "passes/pass_util.h"

#include "systole/compiler/float_ops.h"

namespace systole::compiler {

namespace {

/// The Pad's begin/end pads of the 4-D input (8 values), or nullopt when it is not a zero-fill
/// constant Pad of the spatial axes with known parameters.
std::optional<std::vector<int64_t>> spatialZeroPads(const Graph& g, const Node& n) {
  if (n.inputs.empty() || passes::val(g, n.inputs[0]).shape.size() != 4) return std::nullopt;
  try {
    const ops::PadParams p = ops::padParams(n, g.opset, ops::graphOperands(g, n));
    if (p.mode != "constant" || p.value != 0.f || p.pads.size() != 8) return std::nullopt;
    if (p.pads[0] != 0 || p.pads[1] != 0 || p.pads[4] != 0 || p.pads[5] != 0) return std::nullopt;
    for (int64_t x : p.pads)
      if (x < 0) return std::nullopt;
    return p.pads;
  } catch (const ops::NeedsData&) {
    return std::nullopt;
  } catch (const Error&) {
    return std::nullopt;
  }
}

/// Adds the spatial pads (ONNX order for 4-D: begin N, C, H, W, end N, C, H, W) to `reader`'s
/// pads, if it pads with zeros the same way; false when it does not.
bool foldInto(Node& reader, const std::vector<int64_t>& pads) {
  std::vector<int64_t> own = reader.getInts("pads", {0, 0, 0, 0});
  if (own.size() != 4) return false;
  if (reader.op == Op::AveragePool) {
    const bool ownPadding = own != std::vector<int64_t>{0, 0, 0, 0};
    if (reader.getInt("ceil_mode", 0) != 0 || (ownPadding && reader.getInt("count_include_pad", 0) == 0)) return false;
    reader.attrs["count_include_pad"] = int64_t{1};
  } else if (reader.op != Op::Conv) {
    return false;
  }
  own[0] += pads[2], own[1] += pads[3], own[2] += pads[6], own[3] += pads[7];
  reader.attrs["pads"] = own;
  return true;
}

}  // namespace

void foldPads(Graph& g) {
  passes::Uses uses(g);
  for (int id : g.topoOrder()) {
    Node& n = g.nodes[static_cast<size_t>(id)];
    if (n.dead || n.op != Op::Pad || n.outputs.size() != 1) continue;
    const auto pads = spatialZeroPads(g, n);
    if (!pads) continue;
    const int out = n.outputs[0], in = n.inputs[0];
    const bool none = *pads == std::vector<int64_t>(8, 0);
    const int reader = uses.single(out);
    if (!none && (reader < 0 || g.nodes[static_cast<size_t>(reader)].inputs.at(0) != out ||
                  passes::val(g, in).is_constant || !foldInto(g.nodes[static_cast<size_t>(reader)], *pads)))
      continue;
    if (!none) {
      passes::replaceUses(g, out, in);
      g.nodes[static_cast<size_t>(id)].dead = true;
    } else if (!passes::bypass(g, id, out, in)) {
      continue;
    }
    uses.refresh();
  }
}

}  // namespace systole::compiler
