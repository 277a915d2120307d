// Algorithm: a Transpose of a stack of matrices that keeps the last axis, [A, B, C] -> [B, A, C]
// (perm 1, 0, 2: attention's heads split [S, H, d] -> [H, S, d] and merge back), moves whole rows:
// output row b * A + a is input row a * B + b. It runs as a pixel gather of the matrix's rows
// (tile_context.cpp's gatherRuns: one strided DMA per stretch of output rows whose sources step by
// B rows), copied through the vector unit with the identity scale.
#include "operator_registry.h"

namespace systole::compiler {

std::optional<std::pair<int64_t, int64_t>> rowPermutation(const Graph& g, const Node& n) {
  if (n.op != Op::Transpose || n.inputs.size() != 1) return std::nullopt;
  const auto& x = g.values[static_cast<size_t>(n.inputs[0])].shape;
  if (x.size() != 3 || n.getInts("perm") != std::vector<int64_t>{1, 0, 2}) return std::nullopt;
  return std::pair{x[0], x[1]};
}

void tileRowPermutation(TileContext& T, const Node& n) {
  const auto [A, B] = *rowPermutation(T.g, n);
  const ActBuffer& in = T.buffer(n.inputs[0]);
  const ActBuffer& out = T.buffer(n.outputs[0]);
  PixelGather from{{0}, {}};
  for (int64_t b = 0; b < B; ++b)
    for (int64_t a = 0; a < A; ++a) from.cols.push_back(a * B + b);
  const int32_t z = T.zeroPoint(n.inputs[0]);
  T.layer().loops = "rows gathered at a stride of " + std::to_string(B) + " rows: identity copy";
  emitRescale(T, in, out, {{0, 0, in.C}}, z, 1 << 30, 30, z, -128, 127, &from);
}

}  // namespace systole::compiler
