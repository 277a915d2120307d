// What an operator's tiler works with: the graph, the config, the program's on-chip layout, the
// activation buffers of the values it reads and writes, and a step builder that appends steps of
// symbolic instructions to the layer being tiled. Shared helpers (scale rows, strided loads and
// stores of pixel runs, the rescaling copy) live here too, so every tiler uses the same ones.
#pragma once

#include <functional>
#include <initializer_list>
#include <string>
#include <vector>

#include "systole/compiler/graph.h"
#include "systole/isa/arith.h"
#include "tile_plan.h"

namespace systole::compiler {

/// The largest value an operand field of the config's instruction for `s` takes (throws if the
/// config has no such instruction).
int64_t operandLimit(const isa::IsaConfig& isa, isa::Semantics s, int operand);

class TileContext {
 public:
  TileContext(const Graph& graph, const isa::IsaConfig& config, TilePlan& plan);

  const Graph& g;
  const isa::IsaConfig& isa;
  const isa::Params& p;
  TilePlan& plan;
  const OnChipLayout& layout() const { return plan.layout; }
  /// A scratchpad lane (types.activation): its bytes, and the range every tile emitter clamps to.
  /// Tilers count activations in DRAM, and scratchpad DMA lengths, in lanes; the DMAs they append
  /// are made bytes (transfer).
  const int64_t lane;
  const int32_t actMin, actMax;

  /// The buffer view (shape, halo, DRAM buffer id) of graph value `value`.
  const ActBuffer& buffer(int value) const;
  /// An operator's input: its activation buffer, or a quantized constant as one (placed among the
  /// layer's constants).
  ActBuffer source(int value);
  int32_t zeroPoint(int value) const;
  /// The largest value an operand field of the config's instruction for `s` takes.
  int64_t limit(isa::Semantics s, int operand) const;

  // The layer being tiled and its steps.
  LayerPlan& layer() { return plan.layers.back(); }
  void load(isa::Semantics s, std::initializer_list<Operand> operands) { transfer(step_.loads, s, operands); }
  void compute(isa::Semantics s, std::initializer_list<Operand> operands) { step_.computes.push_back({s, operands}); }
  void store(isa::Semantics s, std::initializer_list<Operand> operands) { transfer(step_.stores, s, operands); }
  /// The step's computes write the output slot that its stores read.
  void writesOutput() { step_.writes_output = true; }
  void endStep(std::string loop);
  /// Every store so far completes before any later load starts.
  void barrier();

  /// Symbolic places: rows of this step's load slot and output slot, a new accumulation tile,
  /// and a new constant in DRAM.
  static Operand loadSlot(int64_t row = 0) { return {Space::LoadSlot, 0, row}; }
  static Operand outSlot(int64_t row = 0) { return {Space::OutSlot, 0, row}; }
  Operand newAccTile() { return {Space::AccTile, layer().acc_tiles++, 0}; }
  /// `what` says what it holds, for the printed plan (the layer name is prepended). While a layer
  /// is tiled image by image, the images after the first reuse the first one's constants.
  Operand addConstant(std::vector<uint8_t> bytes, const std::string& what);
  /// A constant of int8 values the scratchpad DMAs read as lanes: each sign-extended to a lane.
  Operand addLanes(const std::vector<uint8_t>& int8Values, const std::string& what);

  /// Tiles the current layer once per image of its batch: `tile` runs with the buffer views of
  /// `values` pointing at image n (their `base`); constants are made once.
  void forEachImage(const std::vector<int>& values, const std::function<void()>& tile);
  /// The image forEachImage is tiling (0 outside it).
  int64_t image() const { return image_; }
  /// The scale rows of a layer that loads its scales once per image: the pair the image before did
  /// not use, so the next image's load never overwrites rows this image's last requantize may
  /// still read (the scheduler orders an accumulator load after the step two before).
  int64_t imageScaleRow() { return layout().scale_base + 2 * (image_ % 2); }

 private:
  /// Appends a DMA, in pieces of as many rows as its `rows` field holds, or one per row where its
  /// dram_stride is beyond the field's reach. A scratchpad DMA's lengths in lanes become bytes first.
  void transfer(std::vector<PlanInstr>& to, isa::Semantics s, std::initializer_list<Operand> operands) const;

  PlanStep step_;
  bool replaying_ = false;     // an image after the first: constants come from `made_`
  std::vector<Operand> made_;  // the constants the first image made, in order
  size_t replayed_ = 0;
  int64_t image_ = 0;
};

/// The identity requantize scale, M * 2^-S = 1 (a copy): M = 1 fits every accumulator width.
inline constexpr int32_t kIdentityMultiplier = 1;
inline constexpr int32_t kIdentityShift = 0;

/// Loads one pair of scale rows (multiplier, shift per lane) into the accumulator at `row` (one
/// pair per tile of lanes when there is a multiplier per channel).
void loadScales(TileContext& T, std::vector<int32_t> multipliers, std::vector<int32_t> shifts, Operand row);
/// Loads the chunk's pixel runs of channels [c0, c0 + nc) of `in` into rows from `toRow`.
void loadRuns(TileContext& T, const std::vector<PixelRun>& chunk, const ActBuffer& in, int64_t c0, int64_t nc,
              Operand toRow);
/// Loads the chunk's output pixel runs of one window offset: run (y, x0) reads input pixels
/// (y * sh + dy, (x0 + i) * sw + dx) of the padded buffer `in`, channels [c0, c0 + nc), into rows
/// from toRow + run.offset: one strided DMA per run, or, with the ISA's dma_load_2d, one per
/// stretch of consecutive whole runs of one length (its runs, one input row step apart).
void loadWindowRuns(TileContext& T, const std::vector<PixelRun>& chunk, const ActBuffer& in, int64_t sh, int64_t sw,
                    int64_t dy, int64_t dx, int64_t c0, int64_t nc, Operand toRow);
/// Where a stored pixel lands: pixel (y, x) of the chunk's image goes to pixel
/// (sy * y + oy, sx * x + ox) of the output, so a run of pixels is one DMA at a pixel stride of
/// `sx` output pixels. The identity, or one phase of an upsampling (DepthToSpace, Resize).
struct PixelPlacement {
  int64_t sy = 1, sx = 1, oy = 0, ox = 0;
  bool identity() const { return sy == 1 && sx == 1 && oy == 0 && ox == 0; }
};
/// Stores the chunk's pixel runs from scratchpad rows starting at `fromRow` into channels
/// [c0, c0 + nc) of `out` at pixels placed by `at`, one strided DMA per run.
void storeRuns(TileContext& T, const std::vector<PixelRun>& chunk, const ActBuffer& out, int64_t c0, int64_t nc,
               Operand fromRow, const PixelPlacement& at = {});
/// Channels [from, from + count) of one tensor going to channels [to, to + count) of another,
/// stored at every placement of `at` (one copy each).
struct ChannelRun {
  int64_t from = 0, to = 0, count = 0;
  std::vector<PixelPlacement> at = {PixelPlacement{}};
};

/// Where each output pixel of a spatial layout move comes from: output pixel (y, x) copies input
/// pixel (rows[y], cols[x]) — a crop or strided Slice, an edge or reflect Pad.
struct PixelGather {
  std::vector<int64_t> rows, cols;
};
/// Loads the chunk's pixel runs (output pixels) of channels [c0, c0 + nc) from the input pixels
/// `from` names into rows from `toRow`: one strided DMA per stretch of output pixels whose
/// sources step by a constant number of pixels (0 repeats an edge pixel).
void gatherRuns(TileContext& T, const std::vector<PixelRun>& chunk, const ActBuffer& in, const PixelGather& from,
                int64_t c0, int64_t nc, Operand toRow);

/// Groups an output-channel -> input-channel map (`from[o]` feeds output channel o) into runs of
/// consecutive input channels, each stored at `at`.
std::vector<ChannelRun> channelRuns(const std::vector<int64_t>& from, const PixelPlacement& at = {});

/// Copies (and rescales) `in` into `out` through the vector unit:
/// out = requantize(widen(in, zIn, 1), M, S, zOut, lo, hi), run by run of channels; each chunk is
/// computed once and stored at every placement of its run. M and S hold one entry, or one per
/// output channel (then each channel tile loads its own scale rows). With `from`, the chunks are
/// of output pixels, loaded from the input pixels it names (the runs' placements are then the
/// identity).
void emitRescale(TileContext& T, const ActBuffer& in, const ActBuffer& out, const std::vector<ChannelRun>& runs,
                 int32_t zIn, const std::vector<int32_t>& M, const std::vector<int32_t>& S, int32_t zOut, int32_t lo,
                 int32_t hi, const PixelGather* from = nullptr);
inline void emitRescale(TileContext& T, const ActBuffer& in, const ActBuffer& out, const std::vector<ChannelRun>& runs,
                        int32_t zIn, int32_t M, int32_t S, int32_t zOut, int32_t lo, int32_t hi,
                        const PixelGather* from = nullptr) {
  emitRescale(T, in, out, runs, zIn, std::vector<int32_t>{M}, std::vector<int32_t>{S}, zOut, lo, hi, from);
}
/// The same for one run: channels [inC0, inC0 + C) of `in` to channels [outC0, ...) of `out`.
inline void emitRescale(TileContext& T, const ActBuffer& in, int64_t inC0, const ActBuffer& out, int64_t outC0,
                        int64_t C, int32_t zIn, int32_t M, int32_t S, int32_t zOut, int32_t lo, int32_t hi) {
  emitRescale(T, in, out, {{inC0, outC0, C}}, zIn, M, S, zOut, lo, hi);
}
/// The rows one step of an operator over whole matrix rows of `tiles` vector tiles handles (the
/// output slot holds them all), and the strides between its blocks of that many rows in the
/// scratchpad and the accumulator (bank-conflict free).
struct RowBlocks {
  int64_t rows = 0, spad_gap = 0, acc_gap = 0;
};
/// The most rows whose `spadBlocks` blocks plus `spadExtra` rows fit a load slot and `accBlocks`
/// blocks plus `accExtra` rows an accumulator half; throws naming `n` if not even one does.
RowBlocks rowBlocks(const TileContext& T, const Node& n, int64_t tiles, int64_t spadBlocks, int64_t spadExtra,
                    int64_t accBlocks, int64_t accExtra);
/// "c [c0, c0 + nc), px y:x +n": the loop indices of a step over a channel tile and a pixel chunk.
std::string chunkLabel(int64_t c0, int64_t nc, const std::vector<PixelRun>& chunk);
/// Rows between two source blocks of `n` rows such that row i of each falls in different banks.
inline int64_t conflictFreeStride(int64_t n, int64_t banks) { return banks > 1 && n % banks == 0 ? n + 1 : n; }
/// An int attribute list as int32 values; throws if the attribute is missing.
std::vector<int32_t> int32s(const Node& n, const char* attr);
/// Little-endian bytes of a vector of numbers (constants for DRAM).
std::vector<uint8_t> int32Bytes(const std::vector<int32_t>& v);

}  // namespace systole::compiler
