// Algorithm: a Lut (any int8 -> int8 function of one input) runs on the vector unit over tiles of
// scratchpad-row-wide channels and chunks of pixels: each step loads the 256-byte table into the
// first rows of its load slot and the chunk's pixel runs after it, one vector_lut maps them into
// the output slot, and the runs are stored.
#include <algorithm>

#include "operator_registry.h"
#include "systole/isa/diagnostic.h"
#include "tile_context.h"

namespace systole::compiler {

using isa::Semantics;

void tileLut(TileContext& T, const Node& n) {
  const ActBuffer& in = T.buffer(n.inputs[0]);
  const ActBuffer& y = T.buffer(n.outputs[0]);
  const int64_t width = T.p.spad_row_elems;
  const int64_t tableRows = T.p.lut_rows;
  const int64_t rows = std::min(T.layout().chunk, T.layout().slot_rows - tableRows);
  if (rows < 1) throw Error("node '" + n.name + "' (Lut): the table does not fit the scratchpad");
  std::vector<uint8_t> table;
  for (int64_t v : n.getInts("table")) table.push_back(static_cast<uint8_t>(static_cast<int8_t>(v)));
  if (table.size() != 256)
    throw Error("node '" + n.name + "' (Lut): the table has " + std::to_string(table.size()) + " entries, not 256");
  const Operand tableAt = T.addLanes(table, "table");
  T.layer().loops = "c / " + std::to_string(width) + " x pixel chunks of <= " + std::to_string(rows) + ": table lookup";
  for (int64_t c0 = 0; c0 < y.C; c0 += width) {
    const int64_t nc = std::min(width, y.C - c0);
    for (const auto& chunk : pixelChunks(y.H, y.W, rows)) {
      T.load(Semantics::DmaLoad, {tableAt, T.loadSlot(), tableRows, width, width});
      loadRuns(T, chunk, in, c0, nc, T.loadSlot(tableRows));
      T.compute(Semantics::VectorLut, {T.outSlot(), T.loadSlot(tableRows), chunkPixels(chunk), T.loadSlot()});
      T.writesOutput();
      storeRuns(T, chunk, y, c0, nc, T.outSlot());
      T.endStep(chunkLabel(c0, nc, chunk));
    }
  }
  T.layer().min_dram_bytes = in.H * in.W * in.C + y.H * y.W * y.C + 256;
}

}  // namespace systole::compiler
