// The tile-plan IR: what the back end's passes share between the quantized graph and the
// instructions. A plan holds, per program,
//   * the on-chip layout (chunk size, load/output slots, accumulator halves, scale rows),
//   * the activation buffers (NHWC with halos) and the constants, placed in DRAM by memory
//     planning,
//   * per layer: the loop nest it was tiled into and its steps. A step is the unit of double
//     buffering: loads into one load slot, computes that read it (ending, maybe, by writing an
//     output slot), stores of that output slot. Operands name symbolic places
//     (`buffer %v + 96`, `load slot + 18`, `acc tile 3 + 0`, `constant #2 + 64`) until memory
//     planning resolves them to rows and addresses; scheduling then adds the dependency tokens.
// Passes, in order (each its own file): tiling.cpp, plan_memory.cpp, schedule.cpp,
// emit_program.cpp; tile_plan_print.cpp prints the plan after any of them (--emit).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "systole/compiler/backend.h"
#include "systole/isa/config.h"
#include "systole/isa/encoding.h"
#include "systole/isa/semantics.h"

namespace systole::compiler {

/// Where an operand's value comes from. Imm is a plain number (a row count, a zero point, a
/// fixed accumulator row); the others are a base that memory planning resolves, plus an offset.
enum class Space : uint8_t {
  Imm,
  LoadSlot,  // scratchpad rows of the step's load slot (OnChipLayout::load_slots of them, in turn by step)
  OutSlot,   // scratchpad rows of the step's output slot (two slots, alternating by output)
  AccTile,   // accumulator rows of an accumulation tile (id: the layer's tile number; two halves, alternating)
  Buffer,    // DRAM of activation buffer `id` (offsets in lanes until TileContext::transfer makes them bytes)
  Constant,  // DRAM of constant `id` (likewise)
};

/// 24 bytes (a big model's plan holds millions): the flag beside `space`, not a std::optional.
struct Operand {
  Space space = Space::Imm;
  bool is_resolved = false;
  int id = 0;
  int64_t offset = 0;  // the value itself for Imm
  int64_t row = 0;     // with is_resolved: the address or row memory planning gave it

  Operand() = default;
  Operand(int64_t imm) : offset(imm) {}  // NOLINT(google-explicit-constructor): most operands are numbers
  Operand(Space s, int base, int64_t off) : space(s), id(base), offset(off) {}
  void resolve(int64_t at) {
    row = at;
    is_resolved = true;
  }
  /// The value to encode: the resolved one, or (before memory planning) the offset.
  int64_t value() const { return is_resolved ? row : offset; }
};
inline Operand operator+(Operand a, int64_t d) {
  a.offset += d;
  if (a.is_resolved) a.row += d;
  return a;
}

struct PlanInstr {
  isa::Semantics semantics;
  std::vector<Operand> operands;  // in the semantics class's operand order
  uint8_t tokens = 0;             // set by scheduling
};

/// One step (the unit of multi-buffering: the steps that load take the load slots in turn), or a barrier (every earlier
/// store completes before any later load).
struct PlanStep {
  std::string loop;  // the loop indices this step covers, e.g. "oc 0, px [0, 510), ic 0, taps [0, 3)"
  std::vector<PlanInstr> loads, computes, stores;
  bool writes_output = false;  // the computes write an output slot that the stores read
  bool barrier = false;
  std::vector<PlanInstr> sync;  // a barrier's token-carrying nops, set by scheduling
  /// Its loads write the accumulator (bias, scale rows): scheduling orders them after the
  /// computes of the step two before (accumulation tiles alternate between two halves).
  bool loadsAccumulator() const {
    for (const PlanInstr& in : loads)
      if (in.semantics == isa::Semantics::DmaLoadAcc) return true;
    return false;
  }
};

/// A quantized activation in DRAM: N images, each NHWC with a spatial halo of `halo` pixels on
/// every side holding `fill`, so padded windows read real zeros without special cases. Sizes and
/// offsets count lanes (types.activation; a lane is a byte at int8). Offsets are relative to the
/// image being tiled (`base` lanes into the buffer); `id` names the DRAM buffer (an aliasing
/// reshape shares its source's id). An input of an elided Concat is a view of the Concat's buffer:
/// its C channels start at channel `channel0` of pixels `pitch` lanes apart.
struct ActBuffer {
  int id = -1;
  int64_t N = 1, H = 1, W = 1, C = 1;
  int64_t halo = 0;
  int32_t fill = 0;  // a lane's value
  int64_t base = 0;
  int64_t pitch = 0;  // lanes from one pixel to the next; 0: C (the buffer is the value's own)
  int64_t channel0 = 0;
  Space space = Space::Buffer;  // Constant: a quantized constant read as an activation (id: the constant)

  int64_t pixelLanes() const { return pitch > 0 ? pitch : C; }
  int64_t paddedW() const { return W + 2 * halo; }
  int64_t paddedH() const { return H + 2 * halo; }
  int64_t imageLanes() const { return paddedH() * paddedW() * pixelLanes(); }
  int64_t lanes() const { return N * imageLanes(); }
  /// The DRAM operand `offset` lanes into the current image.
  Operand at(int64_t offset) const { return {space, id, base + offset}; }
  /// Rows [x0, x0 + count) of a matrix (one image row, no halo) as a buffer of their own.
  ActBuffer rows(int64_t x0, int64_t count) const {
    ActBuffer v = *this;
    v.base += x0 * pixelLanes();
    v.W = count;
    return v;
  }
  /// Pixel (y, x) in halo-padded coordinates (its first channel).
  Operand padded(int64_t y, int64_t x) const { return at((y * paddedW() + x) * pixelLanes() + channel0); }
  Operand interior(int64_t y, int64_t x) const { return padded(y + halo, x + halo); }
};

/// A run of consecutive output pixels within one output row: the unit one strided DMA moves.
struct PixelRun {
  int64_t y, x0, count, offset;  // offset: row of the run's first pixel within its chunk
};

/// Splits an H x W image into chunks of at most `maxPixels`, each a list of row runs.
std::vector<std::vector<PixelRun>> pixelChunks(int64_t H, int64_t W, int64_t maxPixels);
int64_t chunkPixels(const std::vector<PixelRun>& chunk);

/// The on-chip layout, fixed for a program (rows).
struct OnChipLayout {
  int64_t chunk = 0;       // pixel rows per tile
  int load_slots = 2;      // load slots, used in turn by the steps that load: steps in flight
  int64_t slot_rows = 0;   // rows of one load slot
  int64_t acc_half = 0;    // accumulator rows of one half
  int64_t oc_block = 1;    // output-channel tiles one matmul accumulation tile may hold
  int64_t scale_base = 0;  // accumulator rows [scale_base, acc_rows) hold scale rows: two sets of
  int64_t scale_rows = 0;  // oc_block (multiplier, shift) pairs, alternating by output-channel block
  int64_t loadSlot(int slot) const { return slot * slot_rows; }
  int64_t outSlot(int slot) const { return load_slots * slot_rows + slot * chunk; }
  int64_t spadRowsUsed() const { return load_slots * slot_rows + 2 * chunk; }
  int64_t accRow(int half) const { return half * acc_half; }
};

struct LayerPlan {
  std::string name, op;
  std::string output;           // the graph value it computes
  bool alias = false;           // a shape-only operator: no steps, its output shares its input's buffer
  std::vector<int> reads;       // buffer ids read (for liveness)
  int writes = -1;              // buffer id written
  std::string loops;            // the loop nest, one line
  std::vector<PlanStep> steps;  // ends with a barrier
  int acc_tiles = 0;            // accumulation tiles the steps use
  int64_t macs = 0, min_dram_bytes = 0;
  uint32_t first_instruction = 0, end_instruction = 0;  // set by emission
};

/// A program tensor: a graph value at the segment's boundary (or kept for --check-intermediates).
struct PlanTensor {
  int value = -1;   // graph value id
  int buffer = -1;  // the buffer holding it (key of TilePlan::buffers)
  isa::TensorKind kind = isa::TensorKind::Input;
};

struct TilePlan {
  OnChipLayout layout;
  std::map<int, ActBuffer> buffers;  // by buffer id: graph value ids, and -2 - v for an unpadded program input v
  std::vector<int> halo_buffers;     // buffers whose halo the program's data initialises, in placement order
  std::vector<int> input_buffers;    // the program inputs' buffers, in placement order
  std::vector<PlanTensor> tensors;   // tensor table: inputs, outputs, intermediates
  std::vector<std::vector<uint8_t>> constants;
  std::vector<std::string> constant_names;  // what each constant holds
  std::vector<LayerPlan> layers;            // in execution order, aliases included
  std::map<int, int> live_until;  // buffer id -> index of the last layer reading it (absent: lives to the end)
  // Set by memory planning.
  std::map<int, uint64_t> buffer_addr;
  std::vector<uint64_t> constant_addr;
  uint64_t constant_bytes = 0, activation_base = 0, activation_peak = 0;
  // Set by scheduling: the instructions that end the program (drain and finish).
  std::vector<PlanInstr> epilogue;
};

/// Which list of a step an instruction comes from.
enum class StepPart : uint8_t { Sync, Load, Compute, Store };
using ProgramOrderVisitor = std::function<void(const PlanInstr& in, size_t step, StepPart part, size_t index)>;
/// Visits a layer's instructions in the order emission writes them (program_order.cpp): step
/// i + 1's first `loadQueue` loads before step i's computes, its other loads spread among those beyond
/// the first `computeQueue` (or after step i's stores).
void forEachInProgramOrder(const std::vector<PlanStep>& steps, size_t loadQueue, size_t computeQueue,
                           const ProgramOrderVisitor& visit);

/// Sum of the step's timing expressions per unit (load, compute, store).
struct StepCycles {
  int64_t unit[isa::kNumUnits] = {0, 0, 0};
};
StepCycles stepCycles(const isa::IsaConfig& isa, const PlanStep& step);
/// The cost model's cycles for a layer's steps (step_cost.cpp): per-step DMA and compute spans from
/// the YAML timing, chained as double buffering and the in-order dispatcher run them.
int64_t predictStepCycles(const isa::IsaConfig& isa, const OnChipLayout& layout, const std::vector<PlanStep>& steps);
/// The instruction the operands encode to (values not range-checked).
isa::Instruction toInstruction(const isa::IsaConfig& isa, const PlanInstr& in);

/// The plan as text: layout, buffers, constants, then per layer its loop nest and steps, each step
/// with its instructions and predicted cycles per unit. Unresolved operands print symbolically.
std::string printPlan(const isa::IsaConfig& isa, const Graph& g, const TilePlan& plan);

}  // namespace systole::compiler
