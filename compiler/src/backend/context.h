// Shared state of one lowering: the config, the program being built, the on-chip layout, the DRAM
// plan and the activation buffers of the graph's values.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "emitter.h"
#include "systole/compiler/backend.h"
#include "systole/isa/builder.h"

namespace systole::compiler {

/// An int8 activation in DRAM: NHWC (batch 1), with a spatial halo of `halo` pixels on every side
/// holding `fill`, so padded windows read real zeros without special cases.
struct ActBuffer {
  uint64_t addr = 0;
  int64_t H = 1, W = 1, C = 1;
  int64_t halo = 0;
  int8_t fill = 0;

  int64_t paddedW() const { return W + 2 * halo; }
  int64_t paddedH() const { return H + 2 * halo; }
  int64_t bytes() const { return paddedH() * paddedW() * C; }
  /// Address of pixel (y, x) in halo-padded coordinates.
  uint64_t padded(int64_t y, int64_t x) const { return addr + static_cast<uint64_t>((y * paddedW() + x) * C); }
  uint64_t interior(int64_t y, int64_t x) const { return padded(y + halo, x + halo); }
};

/// A run of consecutive output pixels within one output row: the unit one strided DMA moves.
struct PixelRun {
  int64_t y, x0, count, offset;  // offset: row of the run's first pixel within its chunk
};

/// Splits an H x W image into chunks of at most `maxPixels`, each a list of row runs.
std::vector<std::vector<PixelRun>> pixelChunks(int64_t H, int64_t W, int64_t maxPixels);
int64_t chunkPixels(const std::vector<PixelRun>& chunk);

struct Lowering {
  Lowering(const Graph& graph, const isa::IsaConfig& config);

  const Graph& g;
  const isa::IsaConfig& isa;
  const isa::Params& p;
  isa::ProgramBuilder builder;
  StepEmitter emit;

  // On-chip layout, fixed for the program (rows).
  int64_t chunk = 0;                  // pixel rows per tile
  int64_t slotRows = 0;               // rows of one load slot
  int64_t accHalf = 0;                // accumulator rows of one half
  int64_t scaleBase = 0;              // accumulator rows [scaleBase, acc_rows) hold scales
  int64_t loadSlot(int slot) const { return slot * slotRows; }
  int64_t outSlot(int slot) const { return 2 * slotRows + slot * chunk; }
  int64_t accRow(int half) const { return half * accHalf; }
  int64_t accHalfIndex = 0;           // alternates per output chunk

  // DRAM.
  uint64_t constantTop = 0;           // constants grow upward from here
  uint64_t addConstant(std::vector<uint8_t> bytes);
  std::map<int, ActBuffer> buffers;   // by value id

  /// Limits that follow from operand field widths.
  int64_t limit(isa::Semantics s, int operand) const;

  std::vector<LayerReport> layers;
  std::string tiles;
};

// Operator lowerings; each emits whole steps and ends with its output in DRAM.
void lowerMatmulLike(Lowering& L, const Node& n);   // Conv, Gemm, MatMul
void lowerAdd(Lowering& L, const Node& n);
void lowerMaxPool(Lowering& L, const Node& n);
void lowerAveragePool(Lowering& L, const Node& n);  // AveragePool, GlobalAveragePool
void lowerRequant(Lowering& L, const Node& n);      // Requant, Relu, Clip (and copies)
void lowerConcat(Lowering& L, const Node& n);

/// Copies (and rescales) `in` into `out` through the vector unit:
/// out = requantize(widen(in, zIn, 1), M, S, zOut, lo, hi), channels [c0, c0 + C) of `in` going to
/// channels [outC0, ...) of `out`.
void emitRescale(Lowering& L, const ActBuffer& in, int64_t inC0, const ActBuffer& out, int64_t outC0, int64_t C,
                 int32_t zIn, int32_t M, int32_t S, int32_t zOut, int32_t lo, int32_t hi);

/// Stores the chunk's pixel runs from scratchpad rows starting at `fromRow` into channels
/// [c0, c0 + nc) of `out`, one strided DMA per run.
void storeRuns(Lowering& L, const std::vector<PixelRun>& chunk, const ActBuffer& out, int64_t c0, int64_t nc, int64_t fromRow);

/// Loads one pair of scale rows (multiplier, shift per lane) into the accumulator at `row`.
void loadScales(Lowering& L, std::vector<int32_t> multipliers, std::vector<int32_t> shifts, int64_t row);

}  // namespace systole::compiler
