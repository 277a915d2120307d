// Algorithm: moves of whole matrix rows. A Transpose of a stack of matrices that keeps the last
// axis, [A, B, C] -> [B, A, C] (perm 1, 0, 2: attention's heads split [S, H, d] -> [H, S, d] and
// merge back): output row b * A + a is input row a * B + b. A Gather or Slice along a row axis (a
// ViT's class token, x[:, 0]): the selected rows. Each runs as a pixel gather of the matrix's rows
// (tile_context.cpp's gatherRuns: one strided DMA per stretch of output rows whose sources step
// by a constant), copied through the vector unit with the identity scale.
#include "systole/compiler/float_ops.h"
#include "operator_registry.h"
#include "systole/isa/arith.h"

namespace systole::compiler {

namespace {

/// The matrix rows of input rows `picks` along `axis` of shape `x` (each index of the axis spans
/// the rows of the axes between it and the last).
std::vector<int64_t> matrixRows(const std::vector<int64_t>& x, size_t axis, const std::vector<int64_t>& picks) {
  int64_t inner = 1;
  for (size_t d = axis + 1; d + 1 < x.size(); ++d) inner *= x[d];
  std::vector<int64_t> rows;
  for (int64_t i : picks)
    for (int64_t r = 0; r < inner; ++r) rows.push_back(i * inner + r);
  return rows;
}

/// Rows picked by a Gather (constant indices) or a Slice (constant parameters) along a row axis.
std::optional<std::vector<int64_t>> rowPicks(const Graph& g, const Node& n, const std::vector<int64_t>& x,
                                             size_t& axis) {
  const auto operands = ops::graphOperands(g, n);
  std::vector<int64_t> picks;
  if (n.op == Op::Gather) {
    axis = ops::normAxis(n.getInt("axis", 0), x.size());
    if (!operands.at(1).data) return std::nullopt;
    picks = ops::readInts(operands[1].type, operands[1].data, operands[1].elements());
    for (int64_t& i : picks) i += i < 0 ? x[axis] : 0;
  } else if (n.op == Op::Slice) {
    const auto axes = ops::sliceParams(n, g.opset, operands);
    axis = x.size();
    for (size_t d = 0; d < x.size(); ++d) {
      if (axes[d].start == 0 && axes[d].step == 1 && axes[d].count == x[d]) continue;
      if (axis != x.size()) return std::nullopt;  // a second sliced axis
      axis = d;
    }
    if (axis == x.size()) return std::nullopt;
    for (int64_t i = 0; i < axes[axis].count; ++i) picks.push_back(axes[axis].start + i * axes[axis].step);
  } else {
    return std::nullopt;
  }
  if (!isRowAxis(x, static_cast<int64_t>(axis)) || picks.empty()) return std::nullopt;
  for (int64_t i : picks)
    if (i < 0 || i >= x[axis]) return std::nullopt;
  return picks;
}

}  // namespace

std::optional<std::vector<int64_t>> selectedRows(const Graph& g, const Node& n) {
  const auto& x = g.values[static_cast<size_t>(n.inputs.at(0))].shape;
  try {
    size_t axis = 0;
    const auto picks = rowPicks(g, n, x, axis);
    if (!picks) return std::nullopt;
    return matrixRows(x, axis, *picks);
  } catch (const ops::NeedsData&) {
    return std::nullopt;
  } catch (const Error&) {
    return std::nullopt;
  }
}

void tileRowSelect(TileContext& T, const Node& n) {
  const auto rows = selectedRows(T.g, n);
  if (!rows) throw Error("code generation: node '" + n.name + "' does not select rows");
  const ActBuffer& in = T.buffer(n.inputs[0]);
  const PixelGather from{{0}, *rows};
  const int32_t z = T.zeroPoint(n.inputs[0]);
  T.layer().loops = std::to_string(rows->size()) + " rows gathered: identity copy";
  emitRescale(T, in, T.buffer(n.outputs[0]), {{0, 0, in.C}}, z, kIdentityMultiplier, kIdentityShift, z, T.actMin,
              T.actMax, &from);
}

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
  emitRescale(T, in, out, {{0, 0, in.C}}, z, kIdentityMultiplier, kIdentityShift, z, T.actMin, T.actMax, &from);
}

}  // namespace systole::compiler
