// Algorithm: the on-chip layout is fixed for the whole program: the scratchpad holds two load
// slots (a weight tile plus a chunk of activation rows each) and two output slots (a chunk each);
// the accumulator holds two halves of a chunk and, above them, the scale rows of the layer being
// lowered. The chunk is the largest row count every capacity and operand field allows.
#include <algorithm>

#include "context.h"
#include "systole/isa/diagnostic.h"

namespace systole::compiler {

using isa::Semantics;

std::vector<std::vector<PixelRun>> pixelChunks(int64_t H, int64_t W, int64_t maxPixels) {
  std::vector<std::vector<PixelRun>> chunks(1);
  int64_t used = 0;
  for (int64_t y = 0; y < H; ++y)
    for (int64_t x = 0; x < W;) {
      if (used == maxPixels) {
        chunks.emplace_back();
        used = 0;
      }
      const int64_t n = std::min(W - x, maxPixels - used);
      chunks.back().push_back({y, x, n, used});
      used += n;
      x += n;
    }
  return chunks;
}

int64_t chunkPixels(const std::vector<PixelRun>& chunk) {
  int64_t n = 0;
  for (const auto& r : chunk) n += r.count;
  return n;
}

int64_t Lowering::limit(Semantics s, int operand) const {
  const int index = isa.bySemantics(s);
  if (index < 0) throw Error("code generation: ISA '" + p.name + "' has no '" + std::string(isa::semanticsInfo(s).name) + "' instruction");
  const auto& d = isa.instr(index);
  return d.fields[static_cast<size_t>(d.operand_field[static_cast<size_t>(operand)])].limit();
}

uint64_t Lowering::addConstant(std::vector<uint8_t> bytes) {
  const uint64_t addr = constantTop;
  constantTop = (constantTop + bytes.size() + 63) & ~uint64_t{63};
  builder.addData(addr, std::move(bytes));
  return addr;
}

Lowering::Lowering(const Graph& graph, const isa::IsaConfig& config)
    : g(graph), isa(config), p(config.params()), builder(config), emit(builder) {}

}  // namespace systole::compiler
