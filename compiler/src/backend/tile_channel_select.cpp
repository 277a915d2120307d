// Algorithm: Slice and Gather along the channel axis (a channel range, a channel split, the
// permutation of a channel shuffle) are layout moves. The output's channels are grouped into runs
// whose source channels are consecutive; each run is copied by strided DMA (rows of `count`
// bytes at the input's channel stride in, at the output's out) through the vector unit with the
// identity scale, the same path as Concat. A slice is one run; a shuffle of g groups is C runs of
// one channel.
#include "systole/compiler/float_ops.h"
#include "operator_registry.h"
#include "systole/isa/arith.h"

namespace systole::compiler {

namespace {

int64_t channelAxis(size_t rank) { return rank == 4 ? 1 : static_cast<int64_t>(rank) - 1; }

}  // namespace

std::optional<std::vector<int64_t>> selectedChannels(const Graph& g, const Node& n) {
  const auto& shape = g.values[static_cast<size_t>(n.inputs.at(0))].shape;
  if (shape.empty()) return std::nullopt;
  const int64_t axis = channelAxis(shape.size()), channels = shape[static_cast<size_t>(axis)];
  std::vector<int64_t> picked;
  try {
    const auto operands = ops::graphOperands(g, n);
    if (n.op == Op::Gather) {
      if (static_cast<int64_t>(ops::normAxis(n.getInt("axis", 0), shape.size())) != axis || !operands.at(1).data)
        return std::nullopt;
      if (operands[1].shape.size() != 1) return std::nullopt;  // a scalar index drops the axis
      picked = ops::readInts(operands[1].type, operands[1].data, operands[1].elements());
      for (int64_t& c : picked) {
        if (c < 0) c += channels;
        if (c < 0 || c >= channels) return std::nullopt;
      }
    } else if (n.op == Op::Slice) {
      const auto axes = ops::sliceParams(n, g.opset, operands);
      for (size_t d = 0; d < shape.size(); ++d)
        if (static_cast<int64_t>(d) != axis && (axes[d].start != 0 || axes[d].step != 1 || axes[d].count != shape[d]))
          return std::nullopt;
      const ops::SliceAxis& a = axes[static_cast<size_t>(axis)];
      for (int64_t i = 0; i < a.count; ++i) picked.push_back(a.start + i * a.step);
    } else {
      return std::nullopt;
    }
  } catch (const ops::NeedsData&) {
    return std::nullopt;
  } catch (const Error&) {
    return std::nullopt;
  }
  return picked;
}

void tileChannelSelect(TileContext& T, const Node& n) {
  if (n.op == Op::Gather && !selectedChannels(T.g, n)) return tileRowSelect(T, n);
  const auto picked = selectedChannels(T.g, n);
  if (!picked) throw Error("code generation: node '" + n.name + "' does not select channels");
  const std::vector<ChannelRun> runs = channelRuns(*picked);
  const int32_t z = T.zeroPoint(n.inputs[0]);
  T.layer().loops = std::to_string(runs.size()) + " channel runs x c / lanes x pixel chunks: copy";
  emitRescale(T, T.buffer(n.inputs[0]), T.buffer(n.outputs[0]), runs, z, kIdentityMultiplier, kIdentityShift,
              T.zeroPoint(n.outputs[0]), T.actMin, T.actMax);
}

}  // namespace systole::compiler
