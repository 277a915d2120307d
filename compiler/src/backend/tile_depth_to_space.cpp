// Algorithm: DepthToSpace and nearest Resize by integer factors are upsampling layout moves: output
// pixel (sy * y + i, sx * x + j) — phase (i, j) — is a copy of input pixel (y, x), of the phase's
// own input channels (DepthToSpace: channel inputChannel(c, i, j), DCR keeps a phase's channels
// consecutive) or of every channel (Resize). Each chunk of input pixels is loaded, copied through
// the vector unit with the identity scale (widen, requantize), and stored once per phase by a
// strided DMA whose rows are `sx` output pixels apart (emitRescale with one PixelPlacement per
// phase): DepthToSpace is one channel run per phase, Resize one run stored sy * sx times from the
// same output slot, so the input is read once.
#include "systole/compiler/float_ops.h"
#include "operator_registry.h"
#include "systole/isa/arith.h"

namespace systole::compiler {

namespace {

const Value& valueOf(const Graph& g, int v) { return g.values[static_cast<size_t>(v)]; }

void copy(TileContext& T, const Node& n, const std::vector<ChannelRun>& runs, const std::string& what) {
  T.layer().loops = std::to_string(runs.size()) + " channel runs x c / lanes x pixel chunks: " + what;
  emitRescale(T, T.buffer(n.inputs[0]), T.buffer(n.outputs[0]), runs, T.zeroPoint(n.inputs[0]), kIdentityMultiplier,
              kIdentityShift, T.zeroPoint(n.outputs[0]), T.actMin, T.actMax);
}

}  // namespace

std::optional<std::pair<int64_t, int64_t>> nearestUpsampleFactors(const Graph& g, const Node& n) {
  const auto& x = valueOf(g, n.inputs.at(0)).shape;
  const auto& y = valueOf(g, n.outputs.at(0)).shape;
  if (x.size() != 4 || y.size() != 4 || x[0] != y[0] || x[1] != y[1] || y[2] % x[2] != 0 || y[3] % x[3] != 0)
    return std::nullopt;
  try {
    const auto p = ops::resizeParams(n, g.opset, ops::graphOperands(g, n), y);
    if (p.mode != "nearest") return std::nullopt;
    const auto maps = ops::resizeNearestMaps(p, x, y);
    for (size_t d = 0; d < 4; ++d)
      for (int64_t o = 0; o < y[d]; ++o)
        if (maps[d][static_cast<size_t>(o)] != o / (y[d] / x[d])) return std::nullopt;
  } catch (const ops::NeedsData&) {
    return std::nullopt;
  } catch (const Error&) {
    return std::nullopt;
  }
  return std::pair{y[2] / x[2], y[3] / x[3]};
}

void tileDepthToSpace(TileContext& T, const Node& n) {
  const auto& x = valueOf(T.g, n.inputs[0]).shape;
  const ops::DepthToSpace d = ops::depthToSpace(n, x);
  const int64_t b = d.block, C = x[1] / (b * b);
  std::vector<ChannelRun> runs;
  for (int64_t i = 0; i < b; ++i)
    for (int64_t j = 0; j < b; ++j) {
      std::vector<int64_t> from;
      for (int64_t c = 0; c < C; ++c) from.push_back(d.inputChannel(c, i, j, C));
      const auto phase = channelRuns(from, {b, b, i, j});
      runs.insert(runs.end(), phase.begin(), phase.end());
    }
  copy(T, n, runs, "copy to " + std::to_string(b * b) + " pixel phases");
}

void tileNearestResize(TileContext& T, const Node& n) {
  const auto factors = nearestUpsampleFactors(T.g, n);
  if (!factors) throw Error("code generation: node '" + n.name + "' is not a nearest upsampling by integer factors");
  const auto [sy, sx] = *factors;
  ChannelRun run{0, 0, T.buffer(n.inputs[0]).C, {}};
  for (int64_t i = 0; i < sy; ++i)
    for (int64_t j = 0; j < sx; ++j) run.at.push_back({sy, sx, i, j});
  copy(T, n, {run}, "copy, stored to " + std::to_string(sy * sx) + " pixel phases");
}

}  // namespace systole::compiler
