// Algorithm: a Slice of H and W (a crop, a stride, with or without a channel range) and an edge or
// reflect Pad of H and W are spatial layout moves: output pixel (y, x) copies input pixel
// (rows[y], cols[x]) of the channels `channels` names. The output is cut into chunks of pixels;
// each chunk is loaded by gathering — one strided DMA per stretch of an output row whose source
// pixels step by a constant (1 for a crop, the slice step, 0 for a run of repeated edge pixels) —
// copied through the vector unit with the identity scale, and stored as a plain chunk.
#include "systole/compiler/float_ops.h"
#include "operator_registry.h"
#include "systole/isa/arith.h"

namespace systole::compiler {

namespace {

const Value& valueOf(const Graph& g, int v) { return g.values[static_cast<size_t>(v)]; }

std::optional<SpatialMove> sliceMove(const Graph& g, const Node& n, const std::vector<int64_t>& x) {
  const auto axes = ops::sliceParams(n, g.opset, ops::graphOperands(g, n));
  if (axes[0].start != 0 || axes[0].step != 1 || axes[0].count != x[0]) return std::nullopt;  // the batch stays whole
  SpatialMove m;
  const auto picks = [](const ops::SliceAxis& a) {
    std::vector<int64_t> v;
    for (int64_t i = 0; i < a.count; ++i) v.push_back(a.start + i * a.step);
    return v;
  };
  m.channels = picks(axes[1]);
  m.pixels = {picks(axes[2]), picks(axes[3])};
  return m;
}

std::optional<SpatialMove> padMove(const Graph& g, const Node& n, const std::vector<int64_t>& x) {
  const auto p = ops::padParams(n, g.opset, ops::graphOperands(g, n));
  if (p.mode == "constant") return std::nullopt;  // a fill is not a copy (fold-pad folds zero fills into their reader)
  const auto& pads = p.pads;                      // [n, c, h, w] begins, then ends
  if (pads[0] != 0 || pads[1] != 0 || pads[4] != 0 || pads[5] != 0) return std::nullopt;
  SpatialMove m;
  for (int64_t c = 0; c < x[1]; ++c) m.channels.push_back(c);
  const auto axis = [&](size_t d) {
    std::vector<int64_t> v;
    for (int64_t o = 0; o < x[d] + pads[d] + pads[d + 4]; ++o) v.push_back(ops::padSource(p.mode, o, pads[d], x[d]));
    return v;
  };
  m.pixels = {axis(2), axis(3)};
  return m;
}

}  // namespace

std::optional<SpatialMove> spatialMove(const Graph& g, const Node& n) {
  const auto& x = valueOf(g, n.inputs.at(0)).shape;
  if (x.size() != 4 || std::any_of(x.begin(), x.end(), [](int64_t d) { return d < 1; })) return std::nullopt;
  try {
    std::optional<SpatialMove> m = n.op == Op::Slice ? sliceMove(g, n, x)
                                   : n.op == Op::Pad ? padMove(g, n, x)
                                                     : std::nullopt;
    if (!m) return std::nullopt;
    for (const auto* list : {&m->pixels.rows, &m->pixels.cols})
      if (list->empty()) return std::nullopt;
    for (const auto& [list, size] : {std::pair{&m->channels, x[1]}, {&m->pixels.rows, x[2]}, {&m->pixels.cols, x[3]}})
      for (int64_t i : *list)
        if (i < 0 || i >= size) return std::nullopt;
    return m;
  } catch (const ops::NeedsData&) {
    return std::nullopt;
  } catch (const Error&) {
    return std::nullopt;
  }
}

void tilePixelGather(TileContext& T, const Node& n) {
  const auto m = spatialMove(T.g, n);
  if (!m) throw Error("code generation: node '" + n.name + "' is not a spatial layout move");
  const std::vector<ChannelRun> runs = channelRuns(m->channels);
  T.layer().loops = std::to_string(runs.size()) + " channel runs x c / lanes x output pixel chunks: gather copy";
  emitRescale(T, T.buffer(n.inputs[0]), T.buffer(n.outputs[0]), runs, T.zeroPoint(n.inputs[0]), kIdentityMultiplier,
              kIdentityShift, T.zeroPoint(n.outputs[0]), T.actMin, T.actMax, &m->pixels);
}

void tileSlice(TileContext& T, const Node& n) {
  if (selectedChannels(T.g, n))
    tileChannelSelect(T, n);
  else if (selectedRows(T.g, n))
    tileRowSelect(T, n);
  else
    tilePixelGather(T, n);
}

}  // namespace systole::compiler
